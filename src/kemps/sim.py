"""Headless play on a simulated clock: the match driver (:mod:`kemps.driver`) run as fast as it goes.

Each bot answers what it sees with plans (an action after a reaction delay); the loop asks the
driver when something is next due (a bot's planned action, a table timer, the next deal) and jumps
the simulated clock to it. Nothing here reads a real clock; randomness comes from one seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from kemps.bots.base import Bot
from kemps.bots.simple import SimpleBot
from kemps.driver import READY_HUDDLE_S, MatchDriver
from kemps.driver import STUCK_S as STUCK_S  # the stuck-hand guard, for callers of the simulator
from kemps.events import Event
from kemps.record import MatchRecord
from kemps.rules import RuleSet
from kemps.table import Table

HUDDLE_S: Final = READY_HUDDLE_S  # seconds between hands at a table of bots
DEFAULT_NAMES: Final = ("Alice", "Ben", "Cara", "Dev", "Eve", "Finn", "Gita", "Hal", "Ines",
                        "Jack", "Kim", "Lou")

BotFactory = Callable[[int, RuleSet, random.Random], Bot]


def simple_bots(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
    """The default bot factory: a :class:`SimpleBot` in every seat."""
    return SimpleBot(seat, rules, rng)


@dataclass
class SimResult:
    """The outcome of one simulated match.

    ``finished`` is False when ``max_time_s`` of simulated time ran out first; ``time_s`` is the
    simulated time used; ``rejected`` counts planned actions the table refused (lost races etc.);
    ``nudges`` counts the times a stuck hand made the driver nudge the bots
    (:class:`kemps.driver.MatchDriver`'s stuck-hand guard).
    """

    record: MatchRecord
    table: Table
    events: list[Event]
    finished: bool
    time_s: float
    actions: int
    rejected: int
    nudges: int = 0


def default_names(n: int) -> tuple[str, ...]:
    """Default player names for ``n`` seats."""
    return tuple(DEFAULT_NAMES[i] if i < len(DEFAULT_NAMES) else f"Player {i + 1}"
                 for i in range(n))


def simulate_match(rules: RuleSet, seed: int, names: Sequence[str] | None = None,
                   bots: BotFactory | Sequence[BotFactory] = simple_bots,
                   max_time_s: float = 4 * 3600.0, keep_events: bool = True,
                   on_events: Callable[[list[Event]], None] | None = None) -> SimResult:
    """Play one whole match between bots on a simulated clock.

    Args:
        rules: the table's rule set (``rules.pairs`` seats the table).
        seed: seeds the deals, the first dealer and every bot's random generator.
        names: one name per seat (default Alice, Ben, Cara, Dev, ...).
        bots: one factory for every seat, or one per seat.
        max_time_s: simulated seconds after which an unfinished match is abandoned.
        keep_events: keep every event in the result (turn off for speed).
        on_events: called with every batch of (unredacted) events as it happens.

    Returns:
        A :class:`SimResult` with the record, which replays to the same events.
    """
    rng = random.Random(seed)
    n = rules.players
    first_dealer = rng.randrange(n)
    factories = list(bots) if isinstance(bots, Sequence) else [bots] * n
    players = {s: factories[s](s, rules, random.Random(rng.randrange(2**32))) for s in range(n)}
    driver = MatchDriver(rules, names or default_names(n), first_dealer, players, rng,
                         ready_huddle_s=HUDDLE_S, meta={"seed": seed})
    table = driver.table
    all_events: list[Event] = []
    now = 0.0
    driver.start(now)
    if not keep_events and on_events is None:
        # Nobody watches the steps: one wake runs the whole match, each thing at its own time,
        # in the order the loop below would (it asks next_wake, then wakes to that time).
        driver.wake(max_time_s)
        woke = driver.woke_at
        return SimResult(driver.recorder.record, table, all_events, table.phase == "over",
                         now if woke is None else woke, driver.actions, driver.rejected,
                         driver.nudges)
    while table.phase != "over":
        t = driver.next_wake()
        if t is None or t > max_time_s:
            break
        now = t
        for step in driver.wake(t):
            if keep_events:
                all_events.extend(step.events)
            if on_events is not None:
                on_events(step.events)
    return SimResult(driver.recorder.record, table, all_events, table.phase == "over", now,
                     driver.actions, driver.rejected, driver.nudges)
