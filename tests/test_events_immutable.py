"""Events (and actions, plans, steps, views) are immutable by contract (issue 15 made them plain slots dataclasses, without the cost of
``frozen=True``): these tests play whole matches with every event field assignable once only, so
that any code changing an event after it was made (engine, views, bots, records) fails here."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from kemps import actions
from kemps import events as ev
from kemps.bots import bot_factory
from kemps.bots.base import Plan
from kemps.cards import parse_card
from kemps.driver import Step
from kemps.events import EVENT_NAMES, Swapped, event_to_dict
from kemps.record import replay
from kemps.rules import find_preset
from kemps.sim import simulate_match
from kemps.table import LegalMoves
from kemps.views import SeatView, events_for, view_for

#: Every value class made with kemps.immutable: events, actions, plans, steps, views, legal moves.
VALUE_CLASSES = [*EVENT_NAMES, *(cls for cls in vars(actions).values() if isinstance(cls, type)
                                 and dataclasses.is_dataclass(cls)
                                 and cls.__module__ == actions.__name__),
                 Plan, Step, SeatView, LegalMoves]


def _set_once(self: Any, name: str, value: Any) -> None:
    try:
        getattr(self, name)
    except AttributeError:
        object.__setattr__(self, name, value)
        return
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r} of an event")


@pytest.fixture
def set_once() -> Iterator[None]:
    classes = list(VALUE_CLASSES)
    for cls in classes:
        cls.__setattr__ = _set_once  # type: ignore[assignment, method-assign]
    try:
        yield
    finally:
        for cls in classes:
            del cls.__setattr__


def test_the_guard_catches_a_second_assignment(set_once: None) -> None:
    event = Swapped(1.0, 0, (parse_card("7H"),), (parse_card("2C"),), (0,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seat = 1  # type: ignore[misc]
    assert event.seat == 0


@pytest.mark.parametrize(("preset", "level"), [("pagat", "simple"), ("pagat", "sharp"),
                                               ("points-to-five", "club"),
                                               ("seed2-tournament", "simple")])
def test_no_event_is_changed_after_it_is_made(set_once: None, preset: str, level: str) -> None:
    rules = find_preset(preset)
    seen: list[ev.Event] = []

    def watch(batch: list[ev.Event]) -> None:
        seen.extend(batch)
        for seat in range(rules.players):
            for e in events_for(batch, seat, rules.pairs):
                event_to_dict(e)

    result = simulate_match(rules, 3, bots=bot_factory(level), max_time_s=600.0,
                            on_events=watch)
    assert len(seen) > 50
    for seat in range(rules.players):
        view_for(result.table, seat).to_dict()
    replayed = replay(result.record)
    assert replayed.events == seen  # equality over fields, as frozen events had
    assert replayed.table.scores == result.table.scores


def test_events_keep_equality_hash_and_json_form() -> None:
    a = Swapped(1.0, 0, (parse_card("7H"),), (parse_card("2C"),), (0,))
    b = Swapped(1.0, 0, (parse_card("7H"),), (parse_card("2C"),), (0,))
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != dataclasses.replace(a, seat=1)
    assert event_to_dict(a) == {"type": "swapped", "t": 1.0, "seat": 0, "took": ["7H"],
                                "gave": ["2C"], "slots": [0]}
    assert [f.name for f in dataclasses.fields(Swapped)] == ["t", "seat", "took", "gave", "slots"]
    assert not hasattr(a, "__dict__")  # slots: no per-event dict


def test_every_value_class_is_guarded() -> None:
    assert actions.Swap in VALUE_CLASSES and len(VALUE_CLASSES) >= len(EVENT_NAMES) + 13 + 4
