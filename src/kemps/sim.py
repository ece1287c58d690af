"""Headless play on a simulated clock: a discrete-event loop of bots and table timers.

Each bot answers what it sees with plans (an action after a reaction delay); the loop always runs
whichever comes first (a bot's planned action, a table timer, the next deal) and advances the
simulated clock to it. Nothing here reads a real clock; randomness comes from one seed.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from kemps.actions import Action, Deal
from kemps.bots.base import Bot, Plan
from kemps.bots.simple import SimpleBot
from kemps.cards import shuffled_pack
from kemps.errors import Rejected
from kemps.events import CallJudged, Event, HandDealt, HandEnded
from kemps.record import MatchRecord, Recorder
from kemps.rules import RuleSet
from kemps.table import Table
from kemps.views import events_for, view_for

HUDDLE_S: Final = 3.0  # seconds between hands for pairs to agree signals
MIN_GAP_S: Final = 0.25  # a person's hands: one seat never acts twice within this many seconds
STUCK_S: Final = 600.0  # a hand this long without a call judged is stuck: nudge the bots
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
    ``nudges`` counts the times a stuck hand made the driver nudge the bots (see
    :func:`simulate_match`).
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

    The stuck-hand guard: when ``STUCK_S`` simulated seconds pass in a hand with no call judged
    (partners holding each other's cards at a table that reshuffles swept cards can wait for
    each other for ever), every bot that has an ``on_stuck(now) -> list[Plan]`` method is asked
    to let something go, again after each further ``STUCK_S``. It looks at nothing but the clock
    and the events, so it holds whatever the rules.

    Returns:
        A :class:`SimResult` with the record, which replays to the same events.
    """
    rng = random.Random(seed)
    n = rules.players
    first_dealer = rng.randrange(n)
    rec = Recorder(rules, names or default_names(n), first_dealer, meta={"seed": seed})
    table = rec.table
    factories = list(bots) if isinstance(bots, Sequence) else [bots] * n
    players = [factories[s](s, rules, random.Random(rng.randrange(2**32))) for s in range(n)]
    queue: list[tuple[float, int, int, str, int, Action]] = []
    generation: dict[tuple[int, str], int] = {}
    seq = 0
    last_act: dict[int, float] = {}
    all_events: list[Event] = []
    actions = rejected = 0
    pairs = rules.pairs

    def schedule(seat: int, plans: list[Plan], now: float) -> None:
        nonlocal seq
        for plan in plans:
            key = (seat, plan.channel)
            gen = generation.get(key, 0) + 1
            generation[key] = gen
            if plan.action is None:
                continue  # a cancellation: the pending plan on this channel is now stale
            seq += 1
            heapq.heappush(queue, (now + plan.delay, seq, seat, plan.channel, gen, plan.action))

    def dispatch(events: list[Event], now: float) -> None:
        if keep_events:
            all_events.extend(events)
        if on_events is not None:
            on_events(events)
        for s, bot in enumerate(players):
            seen = events_for(events, s, pairs)
            if seen:
                schedule(s, bot.on_events(seen, now), now)

    now = 0.0
    for s, bot in enumerate(players):
        schedule(s, bot.on_view(view_for(table, s), now), now)
    deal_at: float | None = now + HUDDLE_S
    nudge_at: float | None = None
    nudges = 0
    while table.phase != "over":
        deadline = table.next_deadline()
        t = queue[0][0] if queue else None
        for other in (deadline, deal_at):
            if other is not None and (t is None or other < t):
                t = other
        if nudge_at is not None and (t is None or nudge_at < t) and nudge_at <= max_time_s:
            now = nudge_at
            nudge_at = now + STUCK_S
            nudges += 1
            for s, bot in enumerate(players):
                on_stuck = getattr(bot, "on_stuck", None)
                if on_stuck is not None:
                    schedule(s, on_stuck(now), now)
            continue
        if t is None or t > max_time_s:
            break
        now = t
        if deal_at is not None and t == deal_at:
            deal_at = None
            order = tuple(shuffled_pack(rules.deck_count, rng))
            events = rec.apply(Deal(order, rng.randrange(2**31)), now)
            actions += 1
        elif deadline is not None and t == deadline:
            events = rec.advance(now)
        else:
            _, _, seat, channel, gen, action = heapq.heappop(queue)
            if generation.get((seat, channel)) != gen:
                continue  # replaced by a newer plan
            ready = last_act.get(seat, -MIN_GAP_S) + MIN_GAP_S
            if now < ready:
                seq += 1
                heapq.heappush(queue, (ready, seq, seat, channel, gen, action))
                continue
            last_act[seat] = now
            try:
                events = rec.apply(action, now)
                actions += 1
            except Rejected as err:
                rejected += 1
                schedule(seat, players[seat].on_rejected(action, err, now), now)
                continue
        dispatch(events, now)
        for e in events:
            if isinstance(e, HandDealt | CallJudged):
                nudge_at = now + STUCK_S
            elif isinstance(e, HandEnded):
                nudge_at = None
        if table.phase == "huddle" and deal_at is None and any(
                isinstance(e, HandEnded) for e in events):
            deal_at = now + HUDDLE_S
    return SimResult(rec.record, table, all_events, table.phase == "over", now, actions,
                     rejected, nudges)
