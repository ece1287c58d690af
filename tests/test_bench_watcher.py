"""``kemps bench-watcher`` in short (issue 25): the scripted watcher (kemps.bots.scripted) plays
a seat of a real ``kemps serve`` over a real WebSocket through
:class:`kemps.server.client.TableClient`, seated as "Play against bots" seats a person (default
preset with the online defaults: attention on; club bots; the room's default bot speed), and its
figures come from the match record the server stored. The long run's figures are in
docs/arena-results.md ("A person who watches").

S0 "Calling Stop Kemps": "A player who has just made four of a kind stops swapping, sits a little
stiller and looks at their partner; the signal comes a moment after."
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from kemps.bots.scripted import watch_figures
from kemps.events import (
    Called,
    Event,
    Gestured,
    GestureSeen,
    HandDealt,
    Looked,
    MatchEnded,
    Moved,
)
from kemps.record import replay
from kemps.server.watchbench import BenchServer, WatchedMatch, watched_match

OPPONENTS = (1, 3)  # the watcher sits at seat 0 of two pairs


# Three hands, with a quick sweep when nobody swaps (as tests/replaying.py's matches): the
# relaxed club bots' hands took 47 s each with the preset's sweep, about 28 s with this one.
SHORT = {"hands": 3, "idle_sweep_s": 1.5, "sweep_countdown_s": 0.5}


@pytest.fixture(scope="module")
def played() -> Iterator[WatchedMatch]:
    """One short match (three decided hands, SHORT) at a real server process."""
    server = BenchServer()
    try:
        server.wait()
        yield asyncio.run(watched_match(server.url, "club", timeout_s=300.0, options=SHORT))
    finally:
        server.stop()


def _stored(played: WatchedMatch) -> list[Event]:
    assert played.record is not None
    return replay(played.record).events


def test_the_room_plays_as_play_against_bots_seats_a_person(played: WatchedMatch) -> None:
    rules = played.rules
    assert rules.attention and rules.pairs == 2 and rules.hands == 3
    assert played.bot_speed == "relaxed"  # a person seated: the server's default bot speed
    assert played.record is not None and not played.record.meta.get("signals_withheld")


def test_the_watcher_was_told_the_match_and_acted_in_it(played: WatchedMatch) -> None:
    told = played.told
    assert sum(isinstance(e, HandDealt) for e in told) >= 3
    assert any(isinstance(e, MatchEnded) for e in told)
    # Every opponent gesture reached its seat, named or as a movement (attention).
    assert any(isinstance(e, Gestured | Moved) and e.seat in OPPONENTS for e in told)
    # Its looks went over the wire and the table took them: the stored record has them.
    stored = _stored(played)
    assert played.sent >= 1
    assert any(isinstance(e, Looked) and e.seat == 0 and isinstance(e.at, int) for e in stored)


def test_the_figures_are_counted_from_the_stored_record(played: WatchedMatch) -> None:
    stored = _stored(played)
    # The watcher's log agrees with the record: its calls, wins and losses, what it saw.
    assert played.problems == []
    assert played.figures.races == sum(
        isinstance(e, Called) and e.seat == 0 and e.kind == "stop" for e in stored
    ) + played.log.late
    # What it logged as seen is what its seat was told: opponents' gestures named to it as made,
    # or caught by a glance.
    told = [(e.seat, e.t) for e in played.told if isinstance(e, Gestured) and e.seat in OPPONENTS]
    told += [(e.seat, e.made_at) for e in played.told
             if isinstance(e, GestureSeen) and e.seat in OPPONENTS]
    assert sorted(played.log.seen) == sorted(told)
    # The other pair's first signals come from the record's agreements (never told to the
    # watcher's seat), and scored again from the record the figures are the same.
    assert played.figures.first_signals >= 1
    assert watch_figures(stored, played.log, 0, played.rules.pairs) == played.figures
    # Each gesture it saw is one the record has, made by that seat then.
    made = {(e.seat, e.t) for e in stored if isinstance(e, Gestured)}
    assert all(seen in made for seen in played.log.seen)
