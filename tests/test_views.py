"""Targeted tests of what each seat (and a spectator) may see: views and redacted events."""

from __future__ import annotations

import json

import pytest

from kemps.actions import AgreeSignals, Call, Deal, Go, Swap
from kemps.cards import parse_cards
from kemps.errors import Rejected
from kemps.events import HandDealt, PlayOpened, Revealed, SignalsAgreed
from kemps.rules import PRESETS, find_preset
from kemps.table import Table, stacked_order
from kemps.views import event_dict_for, event_for, events_for, spectator_view, view_for

HANDS = ["7H 7S 7D 7C", "2C 3D 4H 5S", "8C 8D 9H 9S", "JC QD KH AS"]
MIDDLE = "TC TD TH TS"


def strings(value: object) -> set[str]:
    """Every string in a JSON value (keys included)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value) | {s for v in value.values() for s in strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in strings(v)}
    return set()


def dealt(preset: str = "pagat", dealer: int = 0, hands: list[str] | None = None,
          **changes: object) -> tuple[Table, list]:
    rules = find_preset(preset).replace(**changes) if changes else find_preset(preset)
    table = Table(rules, first_dealer=dealer)
    order = stacked_order(rules, hands or HANDS, MIDDLE, dealer=dealer)
    events = table.apply(Deal(order, 1), now=10.0)
    return table, events


def texts(cards: tuple) -> list[str]:
    return [c.text for c in cards]


# == hands ===========================================================================================
@pytest.mark.parametrize("dealer", [0, 1, 3])
def test_a_seat_sees_its_own_hand_and_no_other(dealer: int) -> None:
    table, _ = dealt(dealer=dealer)
    for seat in range(4):
        view = view_for(table, seat)
        assert texts(view.hand) == HANDS[seat].split()
        assert view.seat == seat and view.pair == seat % 2 and view.partner == (seat + 2) % 4
        assert view.hand_counts == (4, 4, 4, 4)
        seen = strings(json.loads(json.dumps(view.to_dict())))
        for other in range(4):
            if other != seat:
                assert not seen & set(HANDS[other].split()), (seat, other)
        assert not seen & {c.text for c in table.stock}
        assert texts(view.middle) == MIDDLE.split()
        assert view.stock_count == 52 - 16 - 4


def test_spectator_sees_no_hand() -> None:
    table, _ = dealt()
    view = spectator_view(table)
    assert view == view_for(table, None)
    assert view.hand == ()
    assert view.seat is None and view.pair is None and view.partner is None
    assert view.signals == ()
    seen = strings(json.loads(json.dumps(view.to_dict())))
    for hand in HANDS:
        assert not seen & set(hand.split())
    assert texts(view.middle) == MIDDLE.split()
    assert view.hand_counts == (4, 4, 4, 4)


def test_before_the_first_deal_nobody_has_cards() -> None:
    table = Table(find_preset("pagat"))
    for seat in (None, 0, 1, 2, 3):
        view = view_for(table, seat)
        assert view.hand == ()
        assert view.middle == (None, None, None, None)
        assert view.phase == "huddle"
        json.dumps(view.to_dict())


@pytest.mark.parametrize("seat", [-1, 4, 99, True, "0", 1.0])
def test_view_for_a_seat_that_does_not_exist_is_rejected(seat: object) -> None:
    table, _ = dealt()
    with pytest.raises(Rejected) as err:
        view_for(table, seat)  # type: ignore[arg-type]
    assert err.value.code == "no_such_seat"


def test_the_deal_event_shows_each_seat_only_its_own_hand() -> None:
    _, events = dealt(dealer=2)
    deal = next(e for e in events if isinstance(e, HandDealt))
    assert [texts(h) for h in deal.hands] == [h.split() for h in HANDS]
    for seat in (None, 0, 1, 2, 3):
        seen = event_for(deal, seat, 2)
        assert isinstance(seen, HandDealt)
        for s in range(4):
            assert seen.hands[s] == (deal.hands[s] if s == seat else ())
        data = event_dict_for(deal, seat, 2)
        assert data is not None
        got = strings(json.loads(json.dumps(data)))
        for s in range(4):
            if s != seat:
                assert not got & set(HANDS[s].split())
        assert [e for e in events_for(events, seat, 2) if isinstance(e, HandDealt)] == [seen]


# == the countdown start (Cash) hides the middle until play opens =================================
def test_countdown_start_hides_the_middle_until_play_opens() -> None:
    table, events = dealt("cash")
    assert table.phase == "dealt"
    opens = table.opens_at
    assert opens == pytest.approx(10.0 + PRESETS["cash"].start_countdown_s)
    deal = next(e for e in events if isinstance(e, HandDealt))
    assert deal.middle == (None, None, None, None)
    assert not any(isinstance(e, PlayOpened) for e in events)
    for seat in (None, 0, 1, 2, 3):
        view = view_for(table, seat)
        assert view.middle == (None, None, None, None)
        assert view.middle_face_down is True
        assert view.opens_at == opens
        seen = strings(json.loads(json.dumps(view.to_dict())))
        assert not seen & set(MIDDLE.split())
        if seat is not None:
            assert texts(view.hand) == HANDS[seat].split()
    # Nobody may touch the middle before it is turned.
    before = table.state_text()
    with pytest.raises(Rejected) as err:
        table.apply(Swap(0, parse_cards("TC"), parse_cards("7H")), now=opens - 0.5)
    assert err.value.code == "not_started"
    assert table.state_text() == before
    assert table.advance(opens - 0.01) == []
    assert view_for(table, 1).middle == (None, None, None, None)
    opened = table.advance(opens)
    assert [type(e) for e in opened] == [PlayOpened]
    assert texts(opened[0].middle) == MIDDLE.split()
    assert table.phase == "play"
    for seat in (None, 0, 1, 2, 3):
        view = view_for(table, seat)
        assert texts(view.middle) == MIDDLE.split()
        assert view.middle_face_down is False


def test_on_go_start_waits_for_the_dealer() -> None:
    table, _ = dealt("seed2-standard", dealer=1, start="on_go")
    assert table.phase == "dealt"
    with pytest.raises(Rejected) as err:
        table.apply(Swap(0, parse_cards("TC"), parse_cards("7H")), now=11.0)
    assert err.value.code == "not_started"
    with pytest.raises(Rejected) as err:
        table.apply(Go(0), now=11.0)
    assert err.value.code == "not_dealer"
    opened = table.apply(Go(1), now=12.0)
    assert isinstance(opened[0], PlayOpened)
    assert texts(view_for(table, 3).middle) == MIDDLE.split()


# == revealed hands ==================================================================================
def test_a_right_kemps_reveals_the_four_of_a_kind_to_everyone() -> None:
    table, _ = dealt()
    assert all(not view_for(table, s).revealed for s in (None, 0, 1, 2, 3))
    events = table.apply(Call(2, "kemps"), now=11.0)
    shown = [e for e in events if isinstance(e, Revealed)]
    assert [(e.seat, texts(e.cards), e.full) for e in shown] == [(0, HANDS[0].split(), True)]
    for seat in (None, 1, 2, 3):
        view = view_for(table, seat)
        assert {s: texts(c) for s, c in view.revealed.items()} == {0: HANDS[0].split()}
        data = json.loads(json.dumps(view.to_dict()))
        assert data["revealed"] == {"0": HANDS[0].split()}
        # The hands nobody revealed stay hidden.
        seen = strings(data)
        for other in (1, 2, 3):
            if other != seat:
                assert not seen & set(HANDS[other].split())
    assert table.phase == "huddle"


def test_a_wrong_stop_reveals_both_hands_of_the_stopped_pair() -> None:
    table, _ = dealt()
    table.apply(Call(0, "stop", on_pair=1), now=11.0)
    assert table.scores == [1, 0]
    for seat in (None, 0, 2):
        view = view_for(table, seat)
        assert {s: texts(c) for s, c in view.revealed.items()} == {
            1: HANDS[1].split(), 3: HANDS[3].split()}
        seen = strings(json.loads(json.dumps(view.to_dict())))
        if seat != 2:
            assert not seen & set(HANDS[2].split())


def test_a_wrong_call_that_plays_on_shows_two_different_cards() -> None:
    table, _ = dealt("points-to-five")
    events = table.apply(Call(0, "stop", on_seat=1), now=11.0)
    assert table.phase == "play"
    shown = [e for e in events if isinstance(e, Revealed)]
    assert len(shown) == 1 and shown[0].seat == 1 and not shown[0].full
    a, b = shown[0].cards
    assert a.rank != b.rank and {a.text, b.text} <= set(HANDS[1].split())
    view = view_for(table, 2)
    assert view.revealed == {1: (a, b)}
    seen = strings(json.loads(json.dumps(view.to_dict())))
    assert seen & set(HANDS[1].split()) == {a.text, b.text}


# == signals =========================================================================================
@pytest.mark.parametrize("pairs", [2, 3])
def test_own_pair_signals_are_visible_and_other_pairs_are_not(pairs: int) -> None:
    table = Table(find_preset("pagat").replace(pairs=pairs))
    n = 2 * pairs
    events = table.apply(AgreeSignals(0, ("touch_ear", "wink")), now=1.0)
    events += table.apply(AgreeSignals(1, ("nod",)), now=2.0)
    assert [type(e) for e in events] == [SignalsAgreed, SignalsAgreed]
    for seat in range(n):
        view = view_for(table, seat)
        expected = {0: ("touch_ear", "wink"), 1: ("nod",)}.get(seat % pairs, ())
        assert view.signals == expected
        got = strings(json.loads(json.dumps(view.to_dict())))
        if seat % pairs != 0:
            assert not got & {"touch_ear", "wink"}
        if seat % pairs != 1:
            assert "nod" not in got
        seen = events_for(events, seat, pairs)
        assert [e.pair for e in seen] == [p for p in (0, 1) if p == seat % pairs]
    assert spectator_view(table).signals == ()
    assert events_for(events, None, pairs) == []
    for e in events:
        assert event_for(e, None, pairs) is None
        assert event_dict_for(e, None, pairs) is None


# == serialisation ===================================================================================
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_seat_view_to_dict_is_json_serialisable(preset: str) -> None:
    rules = PRESETS[preset]
    table = Table(rules)
    table.apply(AgreeSignals(0, ("nod",)), now=0.0)
    table.apply(Deal(stacked_order(rules, HANDS, MIDDLE, dealer=table.dealer), 3), now=1.0)
    for seat in (None, 0, 1, 2, 3):
        data = view_for(table, seat).to_dict()
        back = json.loads(json.dumps(data))
        assert back == data
        assert back["hand"] == ([] if seat is None else HANDS[seat].split())
        assert back["seat"] == seat
        assert len(back["middle"]) == 4
        assert isinstance(back["revealed"], dict)
    table.advance(4.5)  # a countdown start has opened by now; no sweep is due yet
    table.apply(Call(2, "kemps"), now=4.5)
    for seat in (None, 0, 1, 2, 3):
        data = view_for(table, seat).to_dict()
        assert json.loads(json.dumps(data)) == data
        assert data["revealed"] == {"0": HANDS[0].split()}


def test_the_view_carries_the_seats_legal_moves() -> None:
    """A seat's view says what it may do now; a spectator's says nothing."""
    table, _ = dealt("seed2-standard", dealer=1, start="on_go")
    before = view_for(table, 0).legal
    assert before is not None and not before.swap and not before.go and before.kemps
    assert view_for(table, 1).legal.go  # the dealer
    assert view_for(table, None).legal is None
    table.apply(Go(1), now=11.0)
    legal = view_for(table, 0).legal
    assert legal.swap and not legal.grab and not legal.go and legal.stop == ((None, 1),)
    assert "touch_ear" not in legal.gestures_refused and "cough" in legal.gestures_refused
    data = view_for(table, 0).to_dict()["legal"]
    assert data["stop"] == [{"on_seat": None, "on_pair": 1}] and data["swap"] is True


def test_the_tables_state_list_covers_every_slot() -> None:
    """Every slot of the table is either state a rejected action puts back, fixed at seating, or
    named as untouched by rejections: a new field cannot be forgotten in the snapshot."""
    from kemps import table as engine

    named = set(engine._STATE) | set(engine._FIXED) | set(engine._UNTOUCHED_BY_REJECTION)
    assert set(Table.__slots__) == named
    assert len(named) == len(engine._STATE) + len(engine._FIXED) + len(
        engine._UNTOUCHED_BY_REJECTION)
