"""Bots at an attention table (issue 11): they see only what their looks allow, look at human
pace, read the others' looks, and the careful levels signal only when their partner watches them
and the opponents look elsewhere.

S0 "Watching your partner": "A partner who has stopped taking cards is probably ready, so watch
harder". S0 "Calling Stop Kemps": "A player who has just made four of a kind stops swapping, sits a
little stiller and looks at their partner; the signal comes a moment after". S2 signals row 9: "keep
every signal above the table, where the other team has a fair chance to see it".
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from kemps.actions import Gesture as GestureAction
from kemps.actions import Look
from kemps.bots.base import Bot, Plan
from kemps.bots.eyes import HUMAN_LOOK_S, READY_S, Eyes
from kemps.bots.levels import LEVEL_NAMES, SHARP, bot_factory, make_bot
from kemps.bots.player import KempsBot
from kemps.cards import parse_cards
from kemps.driver import MIN_GAP_S
from kemps.errors import Rejected
from kemps.events import (
    Event,
    Gestured,
    GestureSeen,
    HandDealt,
    Looked,
    Moved,
    PlayOpened,
    SignalsAgreed,
    Swapped,
)
from kemps.gestures import LOOK_GAP_S
from kemps.rules import PRESETS, RuleSet, find_preset
from kemps.sim import simulate_match
from kemps.views import SeatView

ATTENTION = find_preset("pagat").replace(attention=True)


def _bot(level: str = "sharp", seat: int = 0, rules: RuleSet = ATTENTION) -> KempsBot:
    bot = make_bot(level, seat, rules, random.Random(3))
    assert isinstance(bot, KempsBot)
    return bot


def _deal(bot: KempsBot, hand: str, middle: str = "2C 3D 4H 5S", t: float = 0.0) -> list[Plan]:
    hands = tuple(parse_cards(hand) if s == bot.seat else () for s in range(bot.n))
    mid = parse_cards(middle)
    bot.on_events([SignalsAgreed(-1.0, bot.pair, bot.seat, ("touch_ear",))], -1.0)
    return bot.on_events([HandDealt(t, 1, 0, hands, mid, 30, None), PlayOpened(t, mid)], t)


def _looks(plans: list[Plan]) -> list[Look]:
    return [p.action for p in plans if isinstance(p.action, Look)]


def _signals(plans: list[Plan]) -> list[GestureAction]:
    return [p.action for p in plans if isinstance(p.action, GestureAction)
            and p.channel == "signal"]


class Spy:
    """Wraps a bot: keeps every event it is given and every plan it makes."""

    def __init__(self, inner: Bot, seen: list[tuple[int, Event]],
                 plans: list[tuple[float, Plan]]) -> None:
        self.inner, self.seat, self.seen, self.plans = inner, inner.seat, seen, plans

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        out = self.inner.on_view(view, now)
        self.plans.extend((now, p) for p in out)
        return out

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        self.seen.extend((self.seat, e) for e in events)
        out = self.inner.on_events(events, now)
        self.plans.extend((now, p) for p in out)
        return out

    def on_rejected(self, action: object, error: Rejected, now: float) -> list[Plan]:
        out = self.inner.on_rejected(action, error, now)  # type: ignore[arg-type]
        self.plans.extend((now, p) for p in out)
        return out


# == bots see only what their looks allow =========================================================
@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_bots_are_told_only_the_gestures_their_looks_let_them_see(level: str) -> None:
    """Through the driver a bot gets its seat's redacted events and nothing else: every gesture it
    is told of was seen by its seat (at the gesture, or by a glance that landed in time); the rest
    reach it as movements. Its looks are public actions in the record, at human pace."""
    seen: list[tuple[int, Event]] = []
    plans: list[tuple[float, Plan]] = []

    def factory(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
        return Spy(make_bot(level, seat, rules, rng), seen, plans)

    result = simulate_match(ATTENTION, 11, bots=factory)
    assert result.finished
    told = moved = glanced = 0
    for seat, e in seen:
        if isinstance(e, Gestured):
            assert e.seen_by is None or seat in e.seen_by
            told += 1
        elif isinstance(e, GestureSeen):
            assert e.by == seat
            glanced += 1
        moved += isinstance(e, Moved)
    assert told and moved and glanced
    looks = [(t, a) for t, a in result.record.actions if isinstance(a, Look)]
    assert looks
    assert all(p.delay >= HUMAN_LOOK_S for _, p in plans if isinstance(p.action, Look))
    last: dict[int, float] = {}
    for t, a in looks:
        assert t - last.get(a.seat, -10.0) >= LOOK_GAP_S - 1e-9
        last[a.seat] = t


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_matches_of_every_level_finish_at_attention_tables(preset: str) -> None:
    """Every level can play every preset with attention on: the partner's signal is seen often
    enough that hands end by calls, not by the stuck-hand guard."""
    levels = ["simple", "casual", "club", "sharp"]

    def factory(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
        return make_bot(levels[seat % 4 if rules.pairs > 2 else (seat % 2) * 2 + 1], seat, rules,
                        rng)

    result = simulate_match(PRESETS[preset].replace(attention=True), 4, bots=factory,
                            keep_events=False)
    assert result.finished and result.nudges == 0


# == where a bot looks ===========================================================================
def test_a_bot_watches_its_partner_once_the_partner_stops_taking_cards() -> None:
    """S0 "A partner who has stopped taking cards is probably ready, so watch harder"; while the
    partner is still swapping, it goes on collecting with its eyes on the middle."""
    bot = _bot("club")
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    bot.on_events([Swapped(0.5, 2, parse_cards("3C"), parse_cards("JD"), (0,)),
                   Looked(0.5, 2, "middle")], 0.5)
    assert bot._look_target(1.0) == "middle"
    plans = bot.on_events([Looked(READY_S + 1.0, 1, "hand")], READY_S + 1.0)
    assert _looks(plans) == [Look(0, 2)]


def test_a_bot_looks_at_an_opponent_who_stopped_and_looks_at_its_partner() -> None:
    """S0 "Watch the other pair's faces ... stops swapping, sits a little stiller and looks at
    their partner": with the partner still busy, the watching levels turn to that opponent."""
    bot = _bot("sharp")
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    t = READY_S + 1.0
    bot.on_events([Swapped(t - 0.5, 2, parse_cards("3C"), parse_cards("JD"), (0,))], t - 0.5)
    plans = bot.on_events([Looked(t, 1, 3)], t)  # seat 1 looks at its partner, seat 3
    assert _looks(plans) == [Look(0, 1)]
    casual = _bot("casual")
    _deal(casual, "2H 5D 9C KS", "3C 6D 7H 8S")
    casual.on_events([Swapped(t - 0.5, 2, parse_cards("3C"), parse_cards("JD"), (0,))], t - 0.5)
    assert 1 not in [a.at for a in _looks(casual.on_events([Looked(t, 1, 3)], t))]


def test_a_bot_glances_at_its_partner_when_it_moved_unseen() -> None:
    """A movement it did not see may be the signal: a glance within the second still catches it;
    the glance then shows the gesture and the bot calls."""
    bot = _bot("sharp")
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    bot.level = replace(bot.level, glance_moved=1.0, attention_partner=1.0)
    assert _looks(bot.on_events([Moved(1.0, 2)], 1.0)) == [Look(0, 2)]
    plans = bot.on_events([Looked(1.5, 0, 2), GestureSeen(1.5, 2, "touch_ear", 1.0, 0)], 1.5)
    assert any(p.channel == "call" and p.action is not None for p in plans)


def test_bot_looks_wait_for_the_tables_look_gap() -> None:
    """A bot's look is planned no sooner than a person turns their head, and not before the
    table's look gap after its last change of look (a swap that moved its eyes counts)."""
    eyes = Eyes(0, ATTENTION)
    assert eyes.look(2, 1.0, 0.0)[0].delay == HUMAN_LOOK_S
    eyes.follow(Looked(5.0, 0, 2))
    plans = eyes.look(1, 5.05, 0.0)
    assert plans and plans[0].delay >= LOOK_GAP_S - 0.05
    assert eyes.look(1, 5.1, 0.0) == []  # already planned
    assert eyes.look(2, 5.1, 0.0) == [Plan(0.0, None, "look")]  # stay where it looks
    assert Eyes(0, find_preset("pagat")).look(2, 1.0, 0.0) == []  # no attention: no looks


# == signalling by the looks ======================================================================
def _signal_plans(plans: list[Plan]) -> list[Plan]:
    return [p for p in plans if p.channel == "signal" and isinstance(p.action, GestureAction)]


def test_a_careful_bot_looks_at_its_partner_and_signals_when_no_opponent_watches() -> None:
    """S0 "Calling Stop Kemps": "A player who has just made four of a kind stops swapping, sits a
    little stiller and looks at their partner; the signal comes a moment after". The sharp bot
    with four first looks at its partner, then signals a moment after while both opponents look
    elsewhere; a signal planned when an opponent then turns to it is held back while a person
    could still stop their hand; and it never waits longer than ``signal_wait_s`` (S2 signals
    row 9: the other team keeps "a fair chance to see it")."""
    bot = _bot("sharp")
    wait = bot.level.signal_wait_s
    assert wait <= 2.0
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    bot.on_events([Looked(0.2, 1, 0)], 0.2)  # an opponent watches us
    bot.on_events([Swapped(0.5, 0, parse_cards("7H"), parse_cards("2H"), (0,))], 0.5)
    bot.cards.hand = list(parse_cards("7H 7S 7D 7C"))
    made = bot.on_events([Swapped(0.6, 3, parse_cards("3C"), parse_cards("JD"), (0,))], 0.6)
    assert _looks(made) == [Look(0, 2)]  # the eyes go to the partner first
    held = _signal_plans(made)
    # Not yet the moment: the signal is planned for the end of the wait, never later.
    assert len(held) == 1 and 0.6 + held[0].delay == pytest.approx(0.6 + wait)
    assert not _signal_plans(bot.on_events([Looked(1.0, 0, 2)], 1.0))  # watched: still held
    plans = bot.on_events([Looked(1.2, 1, "middle")], 1.2)  # nobody watches now
    soon = _signal_plans(plans)
    assert len(soon) == 1 and HUMAN_LOOK_S <= soon[0].delay < wait - 0.6


def test_a_level_without_signal_look_first_signals_unwatched_before_its_eyes_turn() -> None:
    """Issue 27's measured option (``Level.signal_look_first``, on at every level): sharp, which
    turns to its partner before its first signal, holds its signal until its eyes are there;
    the same level without it, making four while no opponent looks at it, signals a moment
    later, its look at the partner planned beside the signal, not before it."""
    for turns_first in (True, False):
        bot = KempsBot(0, ATTENTION, random.Random(3),
                       replace(SHARP, signal_look_first=turns_first))
        _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
        bot.on_events([Swapped(0.5, 0, parse_cards("7H"), parse_cards("2H"), (0,))], 0.5)
        bot.cards.hand = list(parse_cards("7H 7S 7D 7C"))
        made = bot.on_events([Swapped(0.6, 3, parse_cards("3C"), parse_cards("JD"), (0,))], 0.6)
        assert _looks(made) == [Look(0, 2)]  # the eyes go to the partner either way
        signal = _signal_plans(made)
        assert len(signal) == 1
        if turns_first:
            assert signal[0].delay == pytest.approx(bot.level.signal_wait_s)  # held
        else:
            assert HUMAN_LOOK_S <= signal[0].delay <= bot.level.reaction_s[1]


def test_a_signal_is_held_back_from_a_watcher_only_until_the_wait_is_over() -> None:
    """An opponent who turns to the bot more than a reaction time before its signal is due
    sees it held back, to the end of the level's wait and no later (a level with a drawn pause
    before its signal, so that the signal is due later than any reaction time)."""
    bot = KempsBot(0, ATTENTION, random.Random(3),
                   replace(SHARP, signal_pause=1.0, signal_pause_s=(1.0, 1.2)))
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    bot.cards.hand = list(parse_cards("7H 7S 7D 7C"))
    plans = _signal_plans(bot.on_events([Looked(0.5, 0, 2)], 0.5))
    assert len(plans) == 1 and plans[0].delay > bot.level.reaction_s[1] + 0.1
    held = _signal_plans(bot.on_events([Looked(0.55, 3, 0)], 0.55))
    assert len(held) == 1
    assert 0.55 + held[0].delay == pytest.approx(0.5 + bot.level.signal_wait_s)


def test_a_signal_is_not_withdrawn_faster_than_a_person_could() -> None:
    """A look that comes less than a reaction time (never under 0.3 s) before the signal is
    due changes nothing: a person could not stop their hand in time either."""
    bot = _bot("sharp")
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    bot.cards.hand = list(parse_cards("7H 7S 7D 7C"))
    # Our eyes reach the partner and nobody watches us: the signal comes a moment after.
    plans = _signal_plans(bot.on_events([Looked(0.5, 0, 2)], 0.5))
    assert len(plans) == 1 and plans[0].delay >= HUMAN_LOOK_S
    due = 0.5 + plans[0].delay
    late = due - HUMAN_LOOK_S / 2  # an opponent turns to us 0.15 s before the signal
    assert not _signal_plans(bot.on_events([Looked(late, 1, 0)], late))


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_every_level_signals_within_two_seconds_of_making_four(level: str) -> None:
    """No bot waits without limit for an unwatched moment (issue 25; S2 signals row 9): over a
    whole simulated match at an attention table, every first signal of a hand comes at most
    ``signal_wait_s`` (2 s; simple: ``LOOK_FIRST_S``) after the bot first held four of a kind,
    plus the driver's gap between a seat's moves."""
    four_at: dict[int, float] = {}
    gaps: list[float] = []
    factory = bot_factory(level)

    class Timed:
        def __init__(self, inner: Bot) -> None:
            self.inner, self.seat = inner, inner.seat

        def _check(self, now: float) -> None:
            hand = getattr(self.inner, "cards", None)
            held = hand.hand if hand is not None else []
            if (len(held) == 4 and len({c.rank for c in held}) == 1
                    and self.seat not in four_at):
                four_at[self.seat] = now

        def on_view(self, view: SeatView, now: float) -> list[Plan]:
            return self.inner.on_view(view, now)

        def on_events(self, events: list[Event], now: float) -> list[Plan]:
            for e in events:
                if isinstance(e, HandDealt):
                    four_at.pop(self.seat, None)
                elif (isinstance(e, Gestured) and e.seat == self.seat and self.seat in four_at
                      and e.gesture in getattr(self.inner, "signals", ())):
                    gaps.append(e.t - four_at.pop(self.seat))
                    four_at[self.seat] = float("inf")  # its first signal this hand is counted
            out = self.inner.on_events(events, now)
            if self.inner.phase == "play":  # type: ignore[attr-defined]
                self._check(now)
            return out

        def on_rejected(self, action: object, error: Rejected, now: float) -> list[Plan]:
            return self.inner.on_rejected(action, error, now)  # type: ignore[arg-type]

    def build(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
        return Timed(factory(seat, rules, rng))

    for seed in range(3):
        assert simulate_match(ATTENTION, seed, bots=build, keep_events=False).finished
    assert len(gaps) >= 5, gaps
    assert max(gaps) <= 2.0 + MIN_GAP_S + 0.01, sorted(gaps)[-5:]


def test_a_level_that_does_not_mind_the_opponents_signals_once_it_looks_at_its_partner() -> None:
    """casual (no ``signal_unseen``) signals a moment after its eyes reach its partner, whoever
    looks at it."""
    bot = _bot("casual")
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    bot.on_events([Looked(0.2, 1, 0), Looked(0.3, 3, 0)], 0.3)  # both opponents stare
    bot.cards.hand = list(parse_cards("7H 7S 7D 7C"))
    first = _signal_plans(bot.on_events([Looked(0.5, 1, 0)], 0.5))
    assert first and first[0].delay == pytest.approx(bot.level.signal_wait_s)  # looking first
    plans = _signal_plans(bot.on_events([Looked(0.9, 0, 2)], 0.9))
    assert len(plans) == 1 and HUMAN_LOOK_S <= plans[0].delay <= bot.level.reaction_s[1]


def test_a_gesture_by_an_opponent_looking_at_its_partner_is_likelier_a_signal() -> None:
    """S0 "looks at their partner; the signal comes a moment after" (``reads_looks``)."""
    bot = _bot("sharp")
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    w = bot.watch
    w.gestured(1, "nod", 3.0)
    plain = w.belief(1, "nod", 3.0, bot.hand, bot.middle)
    looking = w.belief(1, "nod", 3.0, bot.hand, bot.middle, looking_at_partner=True)
    assert looking > plain > 0.0
