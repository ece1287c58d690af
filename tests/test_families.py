"""Opponent families (kemps.bots.families): each does what its name says, and the sharp bot holds
up against them in a small arena (the full 400-match figures are in docs/arena-results.md)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest

from kemps.arena import run_arena
from kemps.bots.base import Bot, Plan
from kemps.bots.families import FAMILY_NAMES, family_factory, find_family
from kemps.bots.player import KempsBot
from kemps.bots.strength import SHARP
from kemps.errors import KempsError
from kemps.events import (
    CallJudged,
    Event,
    Gestured,
    HandEnded,
    Looked,
    Objected,
    SignalsAgreed,
    Swapped,
)
from kemps.rules import RuleSet, find_preset
from kemps.sim import simulate_match


def _play(family: str, rules: RuleSet, seed: int,
          check: Callable[[list[KempsBot], Event], None]) -> None:
    """One match of four bots of ``family``; ``check(bots, event)`` sees every event before
    the bots hear of it (their hands are as they were when it happened)."""
    made: list[KempsBot] = []
    factory = family_factory(family)

    def build(seat: int, r: RuleSet, rng: random.Random) -> Bot:
        bot = factory(seat, r, rng)
        assert isinstance(bot, KempsBot)
        made.append(bot)
        return bot

    def watch(events: list[Event]) -> None:
        for e in events:
            check(made, e)

    simulate_match(rules, seed, bots=build, keep_events=False, on_events=watch)


def test_families_are_named_and_unknown_ones_refused() -> None:
    assert set(FAMILY_NAMES) == {"faker", "camper", "quiet", "reuser", "changer", "mirror",
                                 "careless", "watched", "steerer", "sitter", "fidget",
                                 "snapfaker", "mimic", "starer"}
    with pytest.raises(KempsError) as err:
        find_family("cheater")
    assert err.value.code == "unknown_family"


def test_fakers_give_their_live_signal_without_four_and_the_partner_never_calls_on_it() -> None:
    tally = {"fakes": 0, "wrong_kemps": 0}

    def check(bots: list[KempsBot], e: Event) -> None:
        if isinstance(e, Gestured):
            bot = bots[e.seat]
            if bot.signals and e.gesture == bot.signals[0] and not bot._four():
                tally["fakes"] += 1
        elif isinstance(e, CallJudged) and e.kind == "kemps" and not e.right:
            tally["wrong_kemps"] += 1

    for seed in range(3):
        _play("faker", find_preset("pagat"), seed, check)
    assert tally["fakes"] >= 5 and tally["wrong_kemps"] == 0, tally
    # Where fake signals are banned a faker gives none.
    banned = {"fakes": 0, "wrong_kemps": 0}
    tally = banned
    _play("faker", find_preset("seed2-tournament"), 0, check)
    assert banned["fakes"] == 0, banned


def test_campers_sit_still_once_they_have_signalled() -> None:
    signalled: dict[int, int] = {}  # seat -> hand number of its signal
    moves_after = 0
    signals = 0
    hand = [0]

    def check(bots: list[KempsBot], e: Event) -> None:
        nonlocal moves_after, signals
        if isinstance(e, HandEnded):
            hand[0] += 1
            signalled.clear()
        elif isinstance(e, Gestured | Swapped):
            if e.seat in signalled:
                moves_after += 1
            bot = bots[e.seat]
            if isinstance(e, Gestured) and bot._four() and e.gesture in bot.signals:
                signalled[e.seat] = hand[0]
                signals += 1

    for seed in range(3):
        _play("camper", find_preset("pagat"), seed, check)
    assert signals >= 10 and moves_after == 0, (signals, moves_after)


def test_sharp_holds_up_against_every_family_in_a_small_arena() -> None:
    """60 matches a family (pagat, seed 1; the 600-match figures with seed 5 are in
    docs/arena-results.md): with margins for the small sample, sharp wins at least 35% against
    each family, its Stop Kemps are right at least 60% of the time over all families and,
    against each family, not clearly wrong more often than right (the Wilson 95% interval of
    its precision reaches 50%; against some families it calls a handful of times in 60
    matches), a quiet pair's idle gestures draw a wrong Stop Kemps at most 3% of the time, and
    every match finishes."""
    results = run_arena(find_preset("pagat"), ["sharp"], 60, seed=1, families=FAMILY_NAMES)
    right = wrong = 0
    for p in results:
        assert p.matches == 60 and p.unfinished == 0, p
        assert p.rate >= 0.35, (p.second, p.rate)
        assert p.stop_precision_ci[1] >= 0.5, (p.second, p.stops_right, p.stops_wrong)
        right += p.stops_right
        wrong += p.stops_wrong
        if p.second == "quiet":
            assert p.idle_gestures >= 300 and p.wrong_per_idle <= 0.03, p
    assert right + wrong >= 50 and right / (right + wrong) >= 0.6, (right, wrong)


def test_steerers_flood_one_idle_gesture_and_sharp_does_not_take_it_for_its_signal() -> None:
    """Issue 27: a pair that floods one gesture must not choose the other pair's signal (S0
    "Choosing a signal" asks for a small, natural gesture, not the table's commonest)."""
    rules = find_preset("pagat")
    idle: dict[int, set[str]] = {0: set(), 1: set()}
    counts = {0: 0, 1: 0}

    def check(bots: list[KempsBot], e: Event) -> None:
        bot = bots[e.seat] if isinstance(e, Gestured) else None
        if bot is not None and e.gesture not in bot.signals and e.gesture not in bot.burnt:
            idle[e.seat % 2].add(e.gesture)
            counts[e.seat % 2] += 1

    _play("steerer", rules, 1, check)
    assert counts[0] >= 50 and counts[1] >= 50, counts
    # Every idle gesture of a pair is its one flood gesture (its fakes give old signals).
    assert all(len(g) == 1 for g in idle.values()), idle
    # A sharp bot that saw one gesture a thousand times draws its signal evenly all the same.
    bot = KempsBot(0, rules, random.Random(3), SHARP)
    flood = bot.palette[0]
    bot.on_events([Gestured(float(t), 1, flood, True) for t in range(1000)], 1000.0)
    picks = [bot._choose_signal() for _ in range(3000)]
    share = picks.count(flood) / len(picks)
    assert share <= 2.0 / len(bot.palette), (share, len(bot.palette))


def test_sitters_take_only_the_fourth_card_and_sit_still_with_three() -> None:
    """Checked on the hand after each move (a swap that made three is not a waiting one); a
    swap the driver's stuck-hand guard asked for (``on_stuck``), or the one S4 asks of a player
    who objected to a stall and lost the card, is not the sitter's choice."""
    tally = {"waiting_moves": 0, "swaps_with_three": 0}
    guarded: set[int] = set()

    def check(bots: list[KempsBot], e: Event) -> None:
        if isinstance(e, Objected):
            guarded.add(e.seat)
        if not isinstance(e, Gestured | Swapped):
            return
        bot = bots[e.seat]
        if not hasattr(bot, "_guard_seen"):
            unstick = bot.on_stuck

            def on_stuck(now: float, seat: int = bot.seat) -> list[Plan]:
                guarded.add(seat)
                return unstick(now)

            bot.on_stuck = on_stuck  # type: ignore[method-assign]
            bot._guard_seen = True  # type: ignore[attr-defined]
        if isinstance(e, Swapped) and e.seat in guarded:
            guarded.discard(e.seat)
            return
        counts = bot._counts()
        three = [r for r, k in counts.items() if k == 3]
        if not three or bot._four():
            return
        if isinstance(e, Gestured) and e.gesture not in bot.signals + tuple(bot.burnt):
            tally["waiting_moves"] += 1  # an idle gesture while waiting (not a fake)
        elif isinstance(e, Swapped):
            tally["swaps_with_three"] += 1
            if any(c.rank != three[0] for c in e.took) or any(c.rank == three[0]
                                                                for c in e.gave):
                tally["waiting_moves"] += 1

    for seed in range(2):
        _play("sitter", find_preset("pagat"), seed, check)
    assert tally["swaps_with_three"] >= 10 and tally["waiting_moves"] == 0, tally


def test_fidgets_gesture_far_more_than_the_mirror() -> None:
    made = {"fidget": 0, "mirror": 0}
    for family in made:
        def check(bots: list[KempsBot], e: Event, family: str = family) -> None:
            if isinstance(e, Gestured):
                made[family] += 1

        _play(family, find_preset("pagat"), 2, check)
    assert made["fidget"] >= 2 * made["mirror"], made


def test_snapfakers_fake_their_live_signal_the_moment_a_third_card_lands() -> None:
    """The fake comes within the level's reaction after the swap that gave a third card of a
    rank; the warned partner never calls Kemps on it."""
    last_swap: dict[int, float] = {}
    tally = {"fakes": 0, "late": 0, "wrong_kemps": 0}

    def check(bots: list[KempsBot], e: Event) -> None:
        if isinstance(e, Swapped):
            last_swap[e.seat] = e.t
        elif isinstance(e, Gestured):
            bot = bots[e.seat]
            if bot.signals and e.gesture == bot.signals[0] and not bot._four():
                tally["fakes"] += 1
                tally["late"] += e.t - last_swap.get(e.seat, -9.0) > 1.0
        elif isinstance(e, CallJudged) and e.kind == "kemps" and not e.right:
            tally["wrong_kemps"] += 1

    for seed in range(2):
        _play("snapfaker", find_preset("pagat"), seed, check)
    assert tally["fakes"] >= 5 and tally["late"] == 0 and tally["wrong_kemps"] == 0, tally


def test_mimics_agree_the_signal_they_read_from_the_other_pair() -> None:
    copied = {"copies": 0, "agreed": 0}
    agreed: dict[int, tuple[str, ...]] = {}

    def check(bots: list[KempsBot], e: Event) -> None:
        if isinstance(e, SignalsAgreed):
            copied["agreed"] += 1
            other = 1 - e.pair
            if agreed.get(other) and e.signals[0] == agreed[other][0]:
                copied["copies"] += 1
            agreed[e.pair] = e.signals

    for seed in range(2):
        _play("mimic", find_preset("pagat"), seed, check)
    assert copied["copies"] >= 2, copied


def test_starers_keep_their_eyes_on_an_opponent_at_an_attention_table() -> None:
    """Looks at an opponent (glances at a moving partner and the look at the partner with four
    remain): far more of them than the mirror's, and most of the starer's looks."""
    rules = replace(find_preset("pagat"), attention=True)
    looks = {"starer": [0, 0], "mirror": [0, 0]}
    for family, count in looks.items():
        def check(bots: list[KempsBot], e: Event, count: list[int] = count) -> None:
            if isinstance(e, Looked) and isinstance(e.at, int):
                count[0 if e.at % 2 != e.seat % 2 else 1] += 1

        _play(family, rules, 0, check)
    starer, mirror = looks["starer"], looks["mirror"]
    assert starer[0] > 2 * mirror[0] and starer[0] > starer[1], looks
