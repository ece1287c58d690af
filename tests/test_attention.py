"""The attention rule (issue 11): where every seat looks, who sees a gesture, and what each seat
and spectator is told. Scripted games, each citing the seed sentence it follows:

S0 "Watching your partner": "Half of Kemps is watching your partner without looking as though you
are. A partner who has stopped taking cards is probably ready, so watch harder".
S0 "Calling Stop Kemps": "Watch the other pair's faces more than their hands. A player who has just
made four of a kind stops swapping, sits a little stiller and looks at their partner; the signal
comes a moment after".
S2 signals row 9: "keep every signal above the table, where the other team has a fair chance to see
it".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kemps.actions import Deal, Gesture, Grab, Look, Swap, action_from_dict, action_to_dict
from kemps.cards import parse_cards
from kemps.errors import REJECTION_CODES, Rejected
from kemps.events import (
    Event,
    Gestured,
    GestureSeen,
    Looked,
    Moved,
    event_to_dict,
)
from kemps.gestures import GESTURE_S, LOOK_GAP_S
from kemps.narrate import describe
from kemps.record import MatchRecord, Recorder, replay
from kemps.rules import PRESETS, RuleSet, find_preset
from kemps.table import Table, stacked_order
from kemps.views import (
    check_spectator_look,
    events_for,
    spectator_events_for,
    spectator_glance,
    view_for,
)

HANDS = ["7H 7S 7D 7C", "2C 3D 4H 5S", "8C 8D 9H 9S", "JC QD KH AS"]
MIDDLE = "TC TD TH TS"


def attention_table(preset: str = "pagat", **changes: Any) -> Table:
    rules = find_preset(preset).replace(attention=True, **changes)
    table = Table(rules, ["Alice", "Ben", "Cara", "Dev"][: rules.players]
                  if rules.players == 4 else None)
    table.apply(Deal(stacked_order(rules, HANDS[: rules.players] + [""] * (rules.players - 4),
                                   MIDDLE), 1), 0.0)
    return table


def told(table: Table, events: list[Event], seat: int | None) -> list[dict[str, Any]]:
    """What ``seat`` is sent: its share of ``events`` as JSON."""
    return json.loads(json.dumps([event_to_dict(e) for e in events_for(events, seat, table.pairs)]))


def palette_names_in(messages: list[dict[str, Any]]) -> set[str]:
    from kemps.gestures import PALETTE
    return {v for m in messages for v in m.values() if isinstance(v, str) and v in PALETTE}


# == who sees a gesture, for each look ===========================================================
def test_only_the_seats_looking_at_the_gesturer_see_the_gesture() -> None:
    """S0 "Watch the other pair's faces more than their hands": Alice (seat 0) touches her ear.
    Cara, her partner, looks at her and sees it; Ben looks at the middle and Dev at his own cards:
    each learns only that Alice moved. Alice sees her own gesture."""
    table = attention_table()
    table.apply(Look(2, 0), 1.0)
    table.apply(Look(1, "middle"), 1.0)
    events = table.apply(Gesture(0, "touch_ear"), 2.0)
    assert events == [Gestured(2.0, 0, "touch_ear", False, (0, 2))]
    for seat in (0, 2):
        assert told(table, events, seat) == [{"type": "gestured", "t": 2.0, "seat": 0,
                                              "gesture": "touch_ear", "heard": False,
                                              "seen_by": [0, 2]}]
    for seat in (1, 3, None):
        assert told(table, events, seat) == [{"type": "moved", "t": 2.0, "seat": 0}]


@pytest.mark.parametrize(("look", "sees"), [(0, True), (2, False), (3, False), ("middle", False),
                                            ("hand", False)])
def test_a_seat_sees_a_gesture_only_when_looking_at_the_gesturer(look: Any, sees: bool) -> None:
    """Ben (seat 1) looks at each place in turn while Alice (seat 0) scratches her nose: only a
    look at Alice shows him which gesture it was (S2 signals row 9 "where the other team has a fair
    chance to see it")."""
    table = attention_table()
    if look != "hand":
        table.apply(Look(1, look), 1.0)
    events = table.apply(Gesture(0, "scratch_nose"), 2.0)
    ben = told(table, events, 1)
    assert (ben[0]["type"] == "gestured") is sees
    assert ("scratch_nose" in palette_names_in(ben)) is sees


def test_a_glance_that_lands_during_the_gesture_sees_it() -> None:
    """S0 "looks at their partner; the signal comes a moment after": the gesture lasts GESTURE_S
    (1 s). Cara's look lands on Alice 0.9 s after the gesture: she sees it then, privately; Dev's
    lands at 1.0 s, when it is over: he sees only that Alice moved. A second glance within the
    second tells Cara nothing new."""
    table = attention_table()
    made = table.apply(Gesture(0, "touch_ear"), 2.0)
    assert told(table, made, 2) == [{"type": "moved", "t": 2.0, "seat": 0}]
    glance = table.apply(Look(2, 0), 2.0 + 0.9)
    assert glance == [Looked(2.9, 2, 0), GestureSeen(2.9, 0, "touch_ear", 2.0, 2)]
    assert told(table, glance, 2)[1] == {"type": "gesture_seen", "t": 2.9, "seat": 0,
                                         "gesture": "touch_ear", "made_at": 2.0, "by": 2}
    for seat in (0, 1, 3, None):  # the glance is public, what it saw is not
        assert told(table, glance, seat) == [{"type": "looked", "t": 2.9, "seat": 2, "at": 0}]
    late = table.apply(Look(3, 0), 2.0 + GESTURE_S)
    assert late == [Looked(3.0, 3, 0)]


def test_a_second_glance_within_the_gesture_tells_nothing_new() -> None:
    table = attention_table()
    table.apply(Gesture(0, "touch_ear"), 2.0)
    assert len(table.apply(Look(2, 0), 2.1)) == 2
    table.apply(Look(2, "middle"), 2.4)
    assert table.apply(Look(2, 0), 2.7) == [Looked(2.7, 2, 0)]


def test_a_glance_sees_every_gesture_of_that_player_still_going_on() -> None:
    """Two gestures within the second: a glance that lands sees both, oldest first."""
    table = attention_table()
    table.apply(Gesture(1, "nod"), 1.0)
    table.apply(Gesture(1, "wink"), 1.5)
    events = table.apply(Look(0, 1), 2.2)
    assert [(e.gesture, e.made_at) for e in events if isinstance(e, GestureSeen)] == [
        ("wink", 1.5)]
    table.apply(Gesture(3, "nod"), 3.0)
    table.apply(Gesture(3, "yawn"), 3.4)
    events = table.apply(Look(2, 3), 3.5)
    assert [(e.gesture, e.made_at) for e in events if isinstance(e, GestureSeen)] == [
        ("nod", 3.0), ("yawn", 3.4)]


# == taking a card moves the look =================================================================
def test_a_swap_moves_the_takers_look_to_the_middle() -> None:
    """S0 "A player who has just made four of a kind stops swapping ... and looks at their
    partner": you cannot take a card without looking at it. Cara watches Alice, then swaps: every
    seat is told her look is on the middle, and Alice's next gesture is lost on her."""
    table = attention_table()
    table.apply(Look(2, 0), 1.0)
    events = table.apply(Swap(2, parse_cards("TC"), parse_cards("8C")), 2.0)
    assert events[-1] == Looked(2.0, 2, "middle")
    for seat in (None, 0, 1, 2, 3):
        assert told(table, events, seat)[-1] == {"type": "looked", "t": 2.0, "seat": 2,
                                                 "at": "middle"}
    assert table.looks[2] == "middle" and view_for(table, 1).looks[2] == "middle"
    # She looks back, not before LOOK_GAP_S after the swap moved her eyes.
    with pytest.raises(Rejected) as caught:
        table.apply(Look(2, 0), 2.0 + LOOK_GAP_S - 0.05)
    assert caught.value.code == "look_too_soon"
    assert told(table, table.apply(Gesture(0, "touch_ear"), 2.2), 2)[0]["type"] == "moved"
    assert table.apply(Look(2, 0), 2.2 + GESTURE_S) == [Looked(3.2, 2, 0)]  # too late for it
    assert told(table, table.apply(Gesture(0, "nod"), 3.5), 2)[0]["type"] == "gestured"


def test_a_swap_while_already_looking_at_the_middle_sends_no_look() -> None:
    table = attention_table()
    table.apply(Look(2, "middle"), 1.0)
    events = table.apply(Swap(2, parse_cards("TC"), parse_cards("8C")), 2.0)
    assert not any(isinstance(e, Looked) for e in events)


def test_a_grab_moves_the_takers_look_to_the_middle() -> None:
    """S4's grab-then-discard (points-to-five): picking a card up is taking it, so it too moves
    the look to the middle."""
    table = attention_table("points-to-five")
    table.apply(Look(1, 3), 1.0)
    events = table.apply(Grab(1, parse_cards("TD")), 2.0)
    assert Looked(2.0, 1, "middle") in events


# == heard gestures ================================================================================
def test_heard_gestures_reach_every_seat_wherever_it_looks() -> None:
    """S0 "a blink, a cough, a word": where heard signals are allowed (squarescores), a cough is
    heard by everyone, spectators too, whatever they look at; a seen gesture at the same table is
    still seen only by those looking."""
    table = attention_table("squarescores")
    table.apply(Look(1, "middle"), 1.0)
    cough = table.apply(Gesture(0, "cough"), 2.0)
    assert cough == [Gestured(2.0, 0, "cough", True)]
    for seat in (None, 0, 1, 2, 3):
        assert told(table, cough, seat) == [{"type": "gestured", "t": 2.0, "seat": 0,
                                             "gesture": "cough", "heard": True}]
    blink = table.apply(Gesture(0, "blink"), 3.0)
    assert told(table, blink, 1)[0]["type"] == "moved"


# == the look action ===============================================================================
def test_looks_are_public_and_shown_in_every_view() -> None:
    table = attention_table()
    events = table.apply(Look(3, 1), 1.0)
    for seat in (None, 0, 1, 2, 3):
        assert told(table, events, seat) == [{"type": "looked", "t": 1.0, "seat": 3, "at": 1}]
        assert view_for(table, seat).looks == ("hand", "hand", "hand", 1)
    assert view_for(table, 0).to_dict()["looks"] == ["hand", "hand", "hand", 1]


def test_a_seat_changes_its_look_at_human_pace() -> None:
    """LOOK_GAP_S (0.3 s) between two changes of look; a look too soon is refused and changes
    nothing."""
    table = attention_table()
    table.apply(Look(0, 2), 1.0)
    before = (list(table.looks), table.version)
    with pytest.raises(Rejected) as caught:
        table.apply(Look(0, 1), 1.0 + LOOK_GAP_S - 0.01)
    assert caught.value.code == "look_too_soon"
    assert (list(table.looks), table.version) == before
    assert table.legal(0).look_from == pytest.approx(1.0 + LOOK_GAP_S)
    table.apply(Look(0, 1), 1.0 + LOOK_GAP_S)
    assert table.looks[0] == 1


@pytest.mark.parametrize(("at", "code"), [(0, "bad_look"), (4, "no_such_seat"),
                                          (-1, "no_such_seat"), ("hand", "same_look"),
                                          ("floor", "bad_look")])
def test_bad_looks_are_refused_with_a_stable_code(at: Any, code: str) -> None:
    table = attention_table()
    with pytest.raises(Rejected) as caught:
        table.apply(Look(0, at), 1.0)
    assert caught.value.code == code and code in REJECTION_CODES
    assert table.looks == ["hand"] * 4


def test_looks_are_refused_at_a_table_without_attention() -> None:
    """Every preset leaves attention off: today's game, with no looks at all."""
    assert not any(p.attention for p in PRESETS.values())
    table = Table(find_preset("pagat"))
    with pytest.raises(Rejected) as caught:
        table.apply(Look(0, 1), 0.0)
    assert caught.value.code == "no_attention"
    assert table.legal(0).looks == () and view_for(table, 0).looks == ()


def test_legal_moves_list_where_the_seat_may_look() -> None:
    table = attention_table()
    assert table.legal(1).looks == (0, 2, 3, "middle")  # not itself, not where it looks
    assert table.legal(1).look_from is None
    table.apply(Look(1, 2), 1.0)
    assert table.legal(1).looks == (0, 3, "middle", "hand")
    assert view_for(table, 1).to_dict()["legal"]["looks"] == [0, 3, "middle", "hand"]


def test_the_look_action_has_a_json_form() -> None:
    for at in (2, "middle", "hand"):
        action = Look(1, at)
        assert action_to_dict(action) == {"type": "look", "seat": 1, "at": at}
        assert action_from_dict(action_to_dict(action)) == action
    for bad in (True, "chair", None, 1.5, [1]):
        with pytest.raises(Rejected) as caught:
            action_from_dict({"type": "look", "seat": 1, "at": bad})
        assert caught.value.code == "bad_action"


# == spectators ====================================================================================
def test_a_spectator_sees_with_a_look_of_its_own() -> None:
    """A spectator's look is its own (kept by the server, sent to nobody): looking at Alice it sees
    her gesture; a glance that lands within the second sees it too; without a look, or looking
    elsewhere, only a movement. Nothing about the spectator reaches any seat."""
    table = attention_table()
    made = table.apply(Gesture(0, "touch_ear"), 2.0)
    assert spectator_events_for(made, 0, table.pairs) == made
    assert spectator_events_for(made, 1, table.pairs) == [Moved(2.0, 0)]
    assert spectator_events_for(made, None, table.pairs) == [Moved(2.0, 0)]
    at = check_spectator_look(table, 0, current="middle", since=1.0, now=2.5)
    assert spectator_glance(table, at, 2.5) == [GestureSeen(2.5, 0, "touch_ear", 2.0, None)]
    assert spectator_glance(table, 0, 3.0) == []  # the second is over
    assert spectator_glance(table, "middle", 2.5) == []
    # A spectator never gets a seat's private glance.
    glance = table.apply(Look(1, 0), 2.6)
    assert spectator_events_for(glance, 0, table.pairs) == [Looked(2.6, 1, 0)]


@pytest.mark.parametrize(("at", "current", "since", "code"), [
    (0, 0, None, "same_look"), (1, 0, 2.9, "look_too_soon"), ("hand", None, None, "bad_look"),
    (9, None, None, "no_such_seat"), (True, None, None, "bad_look")])
def test_a_spectators_look_follows_the_players_rules(at: Any, current: Any, since: Any,
                                                     code: str) -> None:
    table = attention_table()
    with pytest.raises(Rejected) as caught:
        check_spectator_look(table, at, current, since, 3.0)
    assert caught.value.code == code


def test_a_spectator_look_needs_an_attention_table() -> None:
    with pytest.raises(Rejected) as caught:
        check_spectator_look(Table(find_preset("pagat")), 0, None, None, 0.0)
    assert caught.value.code == "no_attention"


# == records and replay =============================================================================
def test_replaying_an_attention_record_gives_every_seat_the_same_messages() -> None:
    """Looks are actions: the record keeps them, and the replay tells every seat (and a spectator)
    exactly what the match told it, glances included."""
    rules = find_preset("pagat").replace(attention=True)
    rec = Recorder(rules)
    events: list[Event] = []
    script: list[tuple[float, Any]] = [
        (0.0, Deal(stacked_order(rules, HANDS, MIDDLE), 3)), (0.5, Look(2, 0)),
        (0.6, Look(1, "middle")), (1.0, Gesture(0, "touch_ear")), (1.4, Look(3, 0)),
        (1.5, Swap(2, parse_cards("TC"), parse_cards("8C"))), (2.0, Gesture(0, "nod")),
        (2.1, Look(1, 0))]
    for t, action in script:
        events += rec.apply(action, t)
    loaded = MatchRecord.from_json(rec.record.to_json())
    assert loaded.rules.attention
    again = replay(loaded).events
    for seat in (None, 0, 1, 2, 3):
        assert told(rec.table, again, seat) == told(rec.table, events, seat)
    assert '"type":"look"' in rec.record.to_json()


def test_a_record_without_attention_does_not_carry_the_option() -> None:
    """Records of today's game are byte for byte what they were; an attention record says so."""
    assert "attention" not in MatchRecord(find_preset("pagat"), ("A", "B", "C", "D")).to_dict()[
        "rules"]
    on = find_preset("pagat").replace(attention=True)
    assert MatchRecord(on, ("A", "B", "C", "D")).to_dict()["rules"]["attention"] is True
    assert RuleSet.from_dict(find_preset("pagat").to_dict(record=True)) == find_preset("pagat")
    assert "attention" in find_preset("pagat").to_dict()


def test_narration_tells_a_spectator_only_movements_and_looks() -> None:
    table = attention_table()
    looked = table.apply(Look(2, 0), 1.0)
    made = table.apply(Gesture(0, "touch_ear"), 2.0)
    glance = table.apply(Look(3, 0), 2.5)
    assert describe(table, looked[0]) == "Cara looks at Alice."
    assert describe(table, made[0]) == "Alice moves."
    assert describe(table, made[0], omniscient=True) == "Alice touches an ear."
    assert describe(table, glance[1]) is None
    assert describe(table, glance[1], omniscient=True) == "Dev glances at Alice, who touches an ear."
