""":func:`kemps.sim.simulate_match` with nobody watching the steps runs the whole match in one
:meth:`kemps.driver.MatchDriver.wake` (issue 15): the same match as the step-by-step loop it
takes when events are kept or watched, to the byte of its record, its counts and its time."""

from __future__ import annotations

import pytest

from kemps.bots import bot_factory
from kemps.events import Event
from kemps.rules import find_preset
from kemps.sim import STUCK_S, SimResult, simulate_match
from test_sim import _Listens, _Stubborn


def _same(fast: SimResult, loop: SimResult) -> None:
    assert fast.record.to_json() == loop.record.to_json()
    assert (fast.finished, fast.time_s, fast.actions, fast.rejected, fast.nudges) == (
        loop.finished, loop.time_s, loop.actions, loop.rejected, loop.nudges)
    assert fast.table.version == loop.table.version and fast.table.scores == loop.table.scores


def _watched(events: list[Event]) -> None:
    pass


@pytest.mark.parametrize(("preset", "level", "seed"), [
    ("pagat", "simple", 1), ("pagat", "simple", 2), ("squarescores", "simple", 3),
    ("cash", "simple", 4), ("seed2-tournament", "simple", 5), ("points-to-five", "club", 6),
    ("pagat", "sharp", 7)])
def test_one_wake_plays_the_match_the_loop_plays(preset: str, level: str, seed: int) -> None:
    rules = find_preset(preset)
    bots = bot_factory(level)
    fast = simulate_match(rules, seed, bots=bots, keep_events=False)
    loop = simulate_match(rules, seed, bots=bots, keep_events=False, on_events=_watched)
    assert fast.finished and fast.events == []
    _same(fast, loop)


@pytest.mark.parametrize("max_time_s", [0.0, 2.0, 61.7, 4 * STUCK_S])
def test_an_unfinished_match_stops_at_the_same_time(max_time_s: float) -> None:
    """Out of time (nudged over and over by the stuck-hand guard, or stopped before the first
    deal): the same record, nudges and last time as the loop."""
    rules = find_preset("squarescores")

    def deaf(s: int, r: object, g: object) -> _Stubborn:
        return _Stubborn(s, r, g)  # type: ignore[arg-type]

    fast = simulate_match(rules, 3, bots=deaf, keep_events=False, max_time_s=max_time_s)
    loop = simulate_match(rules, 3, bots=deaf, keep_events=False, max_time_s=max_time_s,
                          on_events=_watched)
    assert not fast.finished
    _same(fast, loop)


def test_nudged_bots_that_listen_finish_the_same_way() -> None:
    rules = find_preset("squarescores")

    def listens(s: int, r: object, g: object) -> _Listens:
        return _Listens(s, r, g)  # type: ignore[arg-type]

    fast = simulate_match(rules, 3, bots=listens, keep_events=False)
    loop = simulate_match(rules, 3, bots=listens, keep_events=False, on_events=_watched)
    assert fast.nudges >= 1
    _same(fast, loop)
