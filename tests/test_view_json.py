"""The JSON forms of a view written out field by field (issue 15: fast) say exactly what a walk
over the dataclass fields says, and a server update spliced from a public part encoded once and
a per-seat part parses to the very same message as one encoded whole."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from kemps.bots import bot_factory
from kemps.cards import Card
from kemps.record import replay_steps
from kemps.rules import find_preset
from kemps.server.room import update_text
from kemps.sim import simulate_match
from kemps.table import LegalMoves, Table
from kemps.views import SEAT_FIELDS, SeatView, view_for


def _walk(value: Any) -> Any:
    if isinstance(value, Card):
        return value.text
    if isinstance(value, LegalMoves):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.name in ("stop", "double_stop"):
                v = [{"on_seat": a, "on_pair": b} for a, b in v]
            out[f.name] = _walk(v)
        return out
    if isinstance(value, SeatView):
        return {f.name: _walk(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _walk(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_walk(v) for v in value]
    return value


@pytest.mark.parametrize("preset", ["pagat", "points-to-five", "seed2-tournament", "cash"])
def test_view_json_is_the_field_walk(preset: str) -> None:
    rules = find_preset(preset)
    record = simulate_match(rules, 5, bots=bot_factory("club"), max_time_s=300.0).record
    table = Table(record.rules, record.names, record.first_dealer)
    checked = 0
    for _ in replay_steps(record, table):
        views = [view_for(table, s) for s in (*range(rules.players), None)]
        # the public part is the same for every seat but its version, which skips the steps of
        # other pairs' private huddles (kemps.views.told_version)
        publics = {json.dumps({k: x for k, x in v.public_dict().items() if k != "version"},
                              sort_keys=True) for v in views}
        assert len(publics) == 1
        for v in views:
            assert v.to_dict() == _walk(v)
            assert list(v.to_dict()) == [f.name for f in dataclasses.fields(SeatView)]
            assert set(v.seat_dict()) == set(SEAT_FIELDS)
            whole = {"type": "update", "version": v.version, "server_time": 12.5,
                     "events": [{"type": "x", "seat": v.seat}], "view": v.to_dict()}
            spliced = update_text(v.version, 12.5, json.dumps(whole["events"]),
                                  json.dumps(v.public_dict()), json.dumps(v.seat_dict()))
            assert json.loads(spliced) == whole
        checked += 1
    assert checked > 30


@pytest.mark.parametrize("preset", ["pagat", "seed2-tournament", "cash"])
@pytest.mark.parametrize("attention", [False, True])
def test_an_update_encoded_once_is_the_text_encoded_seat_by_seat(preset: str,
                                                                  attention: bool) -> None:
    """Issue 29: each event's public form encoded once for every seat that sees it, each seat's
    text spliced in, and each seat's own part reused while its hand and signals are equal and
    the table keeps the very same legal moves, give byte for byte the text of encoding every seat's events and own part whole
    (the wire format unchanged; a deal's hands and a pair's signals still redacted per seat)."""
    from kemps.events import Chatted
    from kemps.messages import events_json, events_out, seat_json

    rules = find_preset(preset).replace(attention=attention, table_chat=True)
    record = simulate_match(rules, 7, bots=bot_factory("club"), max_time_s=300.0).record
    table = Table(record.rules, record.names, record.first_dealer)
    kept: dict[int, tuple[Any, ...]] = {}
    reused = checked = 0
    for events in replay_steps(record, table):
        events = [*events, Chatted(table.clock, 0, 'a "quoted" line')] if checked % 7 == 0 \
            else events
        forms: dict[int, Any] = {}
        for seat in (*range(rules.players), None):
            look = None if seat is not None or not attention else 1
            once = events_json(table, events, seat, look, forms)
            assert once == json.dumps(events_out(table, events, seat, look))
            view = view_for(table, seat)
            if seat is not None and seat in kept and kept[seat][0] is view.legal and (
                    kept[seat][1] == view.hand):
                reused += 1
            assert seat_json(view, kept) == json.dumps(view.seat_dict())
        checked += 1
    assert checked > 30 and reused > checked  # most updates reuse most seats' own text


def test_a_seats_kept_text_follows_its_pairs_proposal() -> None:
    """The seat's own part is reused while nothing of it changed (issue 29); a proposal changes
    the proposer's view (``proposal``) but neither its legal moves nor its hand: the kept text
    must follow it (S1: the pair agrees its signal together; issue 25 "your pair is yours")."""
    from kemps.actions import AgreeSignals, DeclineSignals, ProposeSignals
    from kemps.messages import seat_json
    table = Table(find_preset("pagat"), ["Ann", "Ben", "Cy", "Di"])
    table.apply(AgreeSignals(0, ("nod",)), 0.0)
    kept: dict[int, tuple[Any, ...]] = {}
    texts = []
    for action in (None, ProposeSignals(2, ("wink",)), DeclineSignals(0)):
        if action is not None:
            table.apply(action, 0.0)
        for seat in (0, 2):
            view = view_for(table, seat)
            text = seat_json(view, kept)
            assert text == json.dumps(view.seat_dict()), (action, seat)
            texts.append(text)
    assert json.loads(texts[3])["proposal"] == {"seat": 2, "signals": ["wink"]}  # the proposer's
    assert json.loads(texts[2])["proposal"] == {"seat": 2, "signals": ["wink"]}
    assert json.loads(texts[5])["proposal"] is None  # declined: gone from both
