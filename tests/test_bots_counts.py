"""The bots' bookkeeping kept as events come equals the recount it replaced (issue 15, "Fast where
it counts").

:class:`~kemps.bots.watch.Watcher` keeps held cards per rank, the dead ranks, the most one other
seat holds, the opponents' takes, each seat's favourite and when each pair first made each
gesture; :class:`~kemps.bots.player.KempsBot` keeps its hand's per-rank counts, its throw order
and the cards its next swap wants. Over whole matches (every counting level, one and two decks,
grab-then-discard, attention tables), after every batch of events each bot sees, each is checked
against a recount from the watcher's plain lists (``held``, ``took``, ``swept``, ``gests``) and
the bot's cards, written as the code before.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from kemps.actions import Action
from kemps.bots.base import Bot, Plan
from kemps.bots.levels import bot_factory
from kemps.bots.player import KempsBot
from kemps.bots.watch import QUIET_S, Watcher
from kemps.cards import RANKS, Card
from kemps.errors import Rejected
from kemps.events import Event
from kemps.rules import RuleSet, find_preset
from kemps.sim import simulate_match
from kemps.views import SeatView


def _held(w: Watcher, seat: int, rank: str) -> int:
    return sum(1 for c in w.held[seat] if c.rank == rank)


def _known_elsewhere(w: Watcher, rank: str, seat: int, hand: Sequence[Card],
                     middle: Sequence[Card | None]) -> int:
    k = w.swept.get(rank, 0)
    if seat != w.seat:
        k += sum(1 for c in hand if c.rank == rank)
    k += sum(1 for c in middle if c is not None and c.rank == rank)
    return k + sum(_held(w, s, rank) for s in range(w.n) if s != seat and s != w.seat)


def _useless(w: Watcher, rank: str, kept: int) -> bool:
    held = [_held(w, s, rank) for s in range(w.n)]
    others = sum(held) - held[w.seat]
    base = w.swept.get(rank, 0) + kept
    return all(base + others - held[s] > w.copies - 4 for s in range(w.n) if s != w.seat)


def _favourite(w: Watcher, seat: int) -> str | None:
    took = w.took[seat]
    if not took:
        return None
    best = max(took.values())
    return min(r for r, k in took.items() if k == best)


def _throw_order(bot: KempsBot, target: str) -> list[Card]:
    """KempsBot._throw_order as it was: every card's key asked of the watcher afresh."""
    w, lv = bot.watch, bot.level
    counts = Counter(c.rank for c in bot.hand)
    partner_rank = _favourite(w, bot.partner) if lv.helps_partner else None

    def key(c: Card) -> tuple[float, ...]:
        opp = sum(w.interest(s, c.rank) for s in range(bot.n) if s % bot.pairs != bot.pair)
        if not lv.counting:
            return (counts[c.rank], c.index)
        dead = 0 if _useless(w, c.rank, counts[c.rank] - 1) else 1
        mine = 0 if c.rank == partner_rank else 1
        return (mine, dead, opp if lv.helps_partner else 0, counts[c.rank], c.index)

    return sorted((c for c in bot.hand if c.rank != target), key=key)


def check(bot: KempsBot) -> int:
    """Assert every kept structure of ``bot`` equals its recount; returns how many were checked."""
    w = bot.watch
    others = [s for s in range(w.n) if s != w.seat]
    for s in range(w.n):
        assert {r: k for r, k in w.held_ranks[s].items() if k} == Counter(
            c.rank for c in w.held[s])
        assert w.favourite(s) == _favourite(w, s)
    for rank in RANKS:
        held_by_others = sum(_held(w, s, rank) for s in others)
        assert w.held_by_others.get(rank, 0) == held_by_others
        assert w.most_held_by_one_other.get(rank, 0) == max(_held(w, s, rank) for s in others)
        assert w.dead(rank, bot.hand, bot.middle) == (
            w.swept.get(rank, 0) + held_by_others > w.copies - 4)
        assert w.opponents_interest(rank) == sum(
            w.interest(s, rank) for s in range(w.n) if s % w.pairs != w.pair)
        for kept in range(4):
            assert w.useless(rank, kept) == _useless(w, rank, kept)
        for s in range(w.n):
            assert w.known_elsewhere(rank, s, bot.hand, bot.middle) == _known_elsewhere(
                w, rank, s, bot.hand, bot.middle)
    for t, seat, gesture in w.gests:
        for later in (t, t + 0.01, t + QUIET_S):
            assert w.made_before(seat % w.pairs, gesture, later) == any(
                g == gesture and s % w.pairs == seat % w.pairs and u < later
                for u, s, g in w.gests)
    assert bot._counts() == Counter(c.rank for c in bot.hand)
    now = (tuple(bot.hand), tuple(bot.middle), bot.target, bot.sweeps_without, w.version)
    if bot._swap_for is bot._target_key and bot._target_key == now and bot.target is not None:
        # The next swap choice will reuse this: it must be what it would find afresh.
        assert bot._swap_wanted == [c for c in bot.middle
                                    if c is not None and c.rank == bot.target]
    if bot.hand:
        for target in {c.rank for c in bot.hand} | {bot.target or ""}:
            assert bot._throw_order(target) == _throw_order(bot, target)
    return 1


class Checked:
    """Wraps a KempsBot and checks its bookkeeping (:func:`check`) after every call."""

    def __init__(self, inner: KempsBot, checks: list[int]) -> None:
        self.inner, self.seat, self.checks = inner, inner.seat, checks

    def _after(self, plans: list[Plan]) -> list[Plan]:
        self.checks.append(check(self.inner))
        return plans

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        return self._after(self.inner.on_view(view, now))

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        return self._after(self.inner.on_events(events, now))

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        return self._after(self.inner.on_rejected(action, error, now))

    def on_stuck(self, now: float) -> list[Plan]:
        return self._after(self.inner.on_stuck(now))


def _checked(level: str, checks: list[int]) -> Any:
    inner = bot_factory(level)

    def factory(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
        bot = inner(seat, rules, rng)
        assert isinstance(bot, KempsBot)
        return Checked(bot, checks)

    return factory


@pytest.mark.parametrize(("preset", "changes", "levels", "seed"), [
    ("pagat", {}, ("sharp", "club"), 3),
    ("pagat", {}, ("casual", "sharp"), 4),
    ("points-to-five", {}, ("sharp", "club"), 5),  # grab-then-discard, hold limit, double stops
    ("pagat", {"attention": True}, ("sharp", "club"), 6),
    ("pagat", {"pairs": 5, "decks": 2}, ("sharp", "club"), 7),
    ("seed2-tournament", {}, ("sharp", "sharp"), 8),
])
def test_kept_counts_equal_the_recount_over_whole_matches(
        preset: str, changes: dict[str, Any], levels: tuple[str, str], seed: int) -> None:
    rules = find_preset(preset).replace(**changes)
    checks: list[int] = []
    factories = [_checked(levels[s % 2], checks) for s in range(rules.players)]
    result = simulate_match(rules, seed, bots=factories, keep_events=False)
    assert result.table.phase == "over"
    assert len(checks) > 500  # every batch each bot saw, over a whole match
