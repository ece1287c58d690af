"""The wire forms read back: :func:`kemps.events.event_from_dict` undoes
:func:`kemps.events.event_to_dict` and :func:`kemps.views.event_dict_for` (every seat's and a
spectator's share), :meth:`kemps.views.SeatView.from_dict` undoes ``to_dict``, for every event
type and every view of seeded simulated matches at several presets, with attention on and off
(the forms a client of the table server decodes, docs/protocol.md "WebSocket"). Malformed data is
refused with ``bad_event`` / ``bad_view``, never an assertion.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kemps.bots import bot_factory
from kemps.cards import parse_cards
from kemps.errors import KempsError
from kemps.events import (
    EVENT_NAMES,
    CallVoid,
    Chatted,
    Event,
    HoldExpired,
    ObjectionLapsed,
    SignalsDeclined,
    SignalsProposed,
    StallCancelled,
    StockReshuffled,
    TableTalkRuled,
    event_from_dict,
    event_to_dict,
)
from kemps.record import replay_steps
from kemps.rules import find_preset
from kemps.sim import simulate_match
from kemps.table import LegalMoves, Table
from kemps.views import SeatView, event_dict_for, view_for

# (preset, attention): grab-and-discard tables (seed2-tournament, S4), countdown starts and
# face-down middles (cash), points, and the online default of attention.
TABLES = [("pagat", True), ("pagat", False), ("seed2-tournament", True), ("cash", False),
          ("points-to-five", True), ("squarescores", True)]

#: Events the simulated matches above may not make, each built as the engine makes it.
BUILT: list[Event] = [
    HoldExpired(3.5, 1, parse_cards("7H"), (2,)), ObjectionLapsed(4.0, 2),
    StallCancelled(4.5), StockReshuffled(5.0, 20), Chatted(5.5, 3, "well played"),
    CallVoid(6.0, 0, 1), TableTalkRuled(7.0, 1),
    # a bot proposes only to a person partner (issue 25): no simulated match has one
    SignalsProposed(8.0, 1, 3, ("wink", "nod")), SignalsDeclined(8.5, 1, 1)]


def _wire(data: dict[str, Any]) -> Any:
    """Through JSON text and back, as over a WebSocket."""
    return json.loads(json.dumps(data))


@pytest.mark.parametrize(("preset", "attention"), TABLES)
def test_every_event_and_view_of_a_simulated_match_reads_back(preset: str,
                                                              attention: bool) -> None:
    rules = find_preset(preset).replace(attention=attention)
    record = simulate_match(rules, 3, bots=bot_factory("sharp"), max_time_s=240.0).record
    table = Table(record.rules, record.names, record.first_dealer)
    viewers = (*range(rules.players), None)
    kinds: set[type[Any]] = set()
    for events in replay_steps(record, table):
        for e in events:
            assert event_from_dict(_wire(event_to_dict(e))) == e
            for seat in viewers:
                told = event_dict_for(e, seat, rules.pairs)
                if told is None:
                    continue
                told["text"] = "what the server adds"  # extra keys of the wire are ignored
                back = event_from_dict(_wire(told))
                kinds.add(type(back))
                del told["text"]
                assert event_to_dict(back) == told
        for seat in viewers:
            view = view_for(table, seat)
            assert SeatView.from_dict(_wire(view.to_dict())) == view
    assert len(kinds) >= 14, kinds  # deals, swaps, gestures, calls, judgements, scores, ends...


def test_every_event_type_reads_back() -> None:
    """The types the simulated matches above make, and the rest built by hand: all of them."""
    made: set[type[Any]] = {type(e) for e in BUILT}
    for preset, attention in TABLES:
        rules = find_preset(preset).replace(attention=attention)
        record = simulate_match(rules, 3, bots=bot_factory("sharp"), max_time_s=240.0).record
        table = Table(record.rules, record.names, record.first_dealer)
        for events in replay_steps(record, table):
            for e in events:
                for seat in (*range(rules.players), None):
                    told = event_dict_for(e, seat, rules.pairs)
                    if told is not None:
                        made.add(type(event_from_dict(_wire(told))))
    for e in BUILT:
        assert event_from_dict(_wire(event_to_dict(e))) == e
    assert made == set(EVENT_NAMES), set(EVENT_NAMES) - made


def test_legal_moves_read_back_with_targets_and_looks() -> None:
    moves = LegalMoves(swap=True, gestures_refused=("whistle",), stop=((1, 1), (None, 1)),
                       looks=(1, 2, "middle"), look_from=2.5)
    assert LegalMoves.from_dict(_wire(moves.to_dict())) == moves


@pytest.mark.parametrize("data", [
    None, [], {"type": "no_such_event", "t": 1.0}, {"type": "swapped", "t": 1.0, "seat": 0},
    {"type": "swapped", "t": 1.0, "seat": 0, "took": ["ZZ"], "gave": ["2C"], "slots": [0]},
    {"type": "looked", "t": 1.0, "seat": 0, "at": "ceiling"},
    {"type": "gestured", "t": "soon", "seat": 0, "gesture": "nod", "heard": False},
    {"type": "match_ended", "t": 1.0, "ranks": [1, "2"], "scores": [0, 5]}])
def test_a_malformed_event_is_refused_bad_event(data: Any) -> None:
    with pytest.raises(KempsError) as err:
        event_from_dict(data)
    assert err.value.code == "bad_event"


def test_a_malformed_view_is_refused_bad_view() -> None:
    table = Table(find_preset("pagat"), ["A", "B", "C", "D"], 0)
    good = view_for(table, 1).to_dict()
    for broken in ({**good, "hand": ["7X"]}, {**good, "extra": 1},
                   {k: v for k, v in good.items() if k != "phase"}, {**good, "middle": "7H"},
                   {**good, "legal": {"swap": True}}):
        with pytest.raises(KempsError) as err:
            SeatView.from_dict(broken)
        assert err.value.code == "bad_view"


def test_a_view_with_its_pairs_proposal_reads_back() -> None:
    """A proposal waiting for the partner's answer (issue 25) is in both the pair's views."""
    from kemps.actions import ProposeSignals
    table = Table(find_preset("pagat"), ["A", "B", "C", "D"], 0)
    table.apply(ProposeSignals(1, ("wink", "nod")), 0.0)
    for seat in (1, 3):
        view = view_for(table, seat)
        assert view.proposal == (1, ("wink", "nod"))
        assert SeatView.from_dict(_wire(view.to_dict())) == view
    with pytest.raises(KempsError):
        SeatView.from_dict({**_wire(view_for(table, 3).to_dict()), "proposal": {"seat": True}})
