"""kemps.messages alone: the events part of each per-seat message, and the spectator's hold rule
(S2 signals row 9: a signal "where the other team has a fair chance to see it"; a spectator told
at once would be a second pair of eyes for a player who opened a tab beside their seat)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kemps.actions import Deal, Gesture, Look
from kemps.events import Event, Gestured, GestureSeen, Looked, Moved, event_to_dict
from kemps.messages import events_out, held_sight
from kemps.rules import find_preset
from kemps.table import Table, stacked_order

HANDS = ["7H 7S 7D 7C", "2C 3D 4H 5S", "8C 8D 9H 9S", "JC QD KH AS"]


def attention_table() -> Table:
    rules = find_preset("pagat").replace(attention=True)
    table = Table(rules, ["Alice", "Ben", "Cara", "Dev"])
    table.apply(Deal(stacked_order(rules, HANDS, "TC TD TH TS"), 1), 0.0)
    return table


@pytest.mark.parametrize(("event", "held", "now"), [
    # a seen gesture the look caught: held, the movement told now
    (Gestured(2.0, 0, "touch_ear", False, (0, 2)), True, Moved(2.0, 0)),
    # a glance that landed during a gesture: held, nothing told now (the movement was told)
    (GestureSeen(2.5, 0, "touch_ear", 2.0, None), True, None),
    # a heard gesture reaches every ear: nothing to hold
    (Gestured(2.0, 0, "cough", True, None), False, Gestured(2.0, 0, "cough", True, None)),
    # a gesture at a table without attention (seen_by None): nothing to hold
    (Gestured(2.0, 0, "touch_ear", False, None), False,
     Gestured(2.0, 0, "touch_ear", False, None)),
    (Moved(2.0, 0), False, Moved(2.0, 0)),
    (Looked(2.0, 1, "middle"), False, Looked(2.0, 1, "middle")),
])
def test_the_hold_rule_for_one_event(event: Event, held: bool, now: Event | None) -> None:
    assert held_sight(event) == (held, now)


def texts(out: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(d["type"], d.get("gesture")) for d in out]


def test_a_spectator_looking_at_the_gesturer_is_told_the_movement_and_holds_the_gesture() -> None:
    table = attention_table()
    made = table.apply(Gesture(0, "touch_ear"), 2.0)
    held: list[dict[str, Any]] = []
    out = events_out(table, made, None, look=0, held=held)
    assert texts(out) == [("moved", None)]
    assert out[0]["text"]  # the page's sentence, as every event of the log has
    assert [(d["type"], d["gesture"], d["seen_by"]) for d in held] == [
        ("gestured", "touch_ear", [0])]
    assert json.loads(json.dumps(held)) == held  # JSON-ready, sent as it is at the hand's end
    # Without holding (a table's replay, a seat), the same spectator is told the gesture itself.
    assert texts(events_out(table, made, None, look=0)) == [("gestured", "touch_ear")]


def test_a_spectator_looking_elsewhere_holds_nothing() -> None:
    table = attention_table()
    made = table.apply(Gesture(0, "touch_ear"), 2.0)
    held: list[dict[str, Any]] = []
    assert texts(events_out(table, made, None, look=1, held=held)) == [("moved", None)]
    assert held == []


def test_seats_are_never_held_and_see_what_their_look_saw() -> None:
    """The hold rule is a spectator's: Cara, looking at Alice, is told the gesture at once."""
    table = attention_table()
    table.apply(Look(2, 0), 1.0)
    made = table.apply(Gesture(0, "touch_ear"), 2.0)
    assert texts(events_out(table, made, 2)) == [("gestured", "touch_ear")]
    assert texts(events_out(table, made, 1)) == [("moved", None)]


def test_shared_forms_give_each_seat_the_same_json_as_alone() -> None:
    table = attention_table()
    table.apply(Look(2, 0), 1.0)
    made = table.apply(Gesture(0, "touch_ear"), 2.0)
    forms: dict[int, tuple[Event, dict[str, Any]]] = {}
    for seat in (0, 1, 2, 3, None):
        assert events_out(table, made, seat, forms=forms) == events_out(table, made, seat)
    assert {id(e) for e in made} <= set(forms)
    assert event_to_dict(made[0])["type"] == "gestured"


def test_a_spectator_whose_look_lands_during_a_gesture_holds_what_it_saw() -> None:
    """docs/protocol.md: the ``gesture_seen`` a spectator's look saw comes right after the hand's
    ``hand_ended``. The glance (:func:`kemps.views.spectator_glance`, ``by`` None) is held, not
    dropped as private to a seat (it was, and the spectator never learned what it saw)."""
    from kemps.views import spectator_glance
    table = attention_table()
    table.apply(Gesture(1, "touch_ear"), 2.0)
    glance = spectator_glance(table, 1, 2.4)
    assert [(e.seat, e.gesture, e.by) for e in glance if isinstance(e, GestureSeen)] == [
        (1, "touch_ear", None)]
    held: list[dict[str, Any]] = []
    assert events_out(table, glance, None, look=1, held=held) == []  # nothing told at once
    assert [(d["type"], d["seat"], d["gesture"]) for d in held] == [("gesture_seen", 1, "touch_ear")]
    # A seat's own sight (``by`` a seat) never reaches a spectator.
    assert events_out(table, [GestureSeen(2.4, 1, "touch_ear", 2.0, 3)], None, look=1, held=[]) == []
