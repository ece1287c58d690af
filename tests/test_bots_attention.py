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
from kemps.bots.levels import LEVEL_NAMES, make_bot
from kemps.bots.player import KempsBot
from kemps.cards import parse_cards
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
def test_a_careful_bot_signals_only_while_no_opponent_watches() -> None:
    """S2 signals row 9 (the other team has "a fair chance to see it", no more): with four of a
    kind the sharp bot looks at its partner (S0 "looks at their partner; the signal comes a moment
    after") and gives its signal only while both opponents look elsewhere; a signal planned when
    an opponent turns to it is held back."""
    bot = _bot("sharp")
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    bot.on_events([Looked(0.2, 1, 0)], 0.2)  # an opponent watches us
    made = bot.on_events([Swapped(0.5, 0, parse_cards("7H"), parse_cards("2H"), (0,))], 0.5)
    assert not _signals(made)
    bot.on_events([Swapped(0.6, 3, parse_cards("3C"), parse_cards("JD"), (0,))], 0.6)
    bot.cards.hand = list(parse_cards("7H 7S 7D 7C"))
    assert not _signals(bot.on_events([Looked(1.0, 2, 0)], 1.0))  # partner looks too: seen
    assert bot._look_target(1.0) == 2
    plans = bot.on_events([Looked(1.6, 1, "middle")], 1.6)
    assert _signals(plans) == [GestureAction(0, "touch_ear")]
    held = bot.on_events([Looked(1.7, 3, 0)], 1.7)  # an opponent turns to us first
    assert any(p.channel == "signal" and p.action is None for p in held)
    assert _signals(bot.on_events([Looked(2.1, 3, "hand")], 2.1))


def test_a_less_patient_level_signals_anyway_after_its_wait() -> None:
    """club waits ``signal_wait_s`` (2 s) for the opponents to look away, then signals anyway."""
    bot = _bot("club")
    _deal(bot, "7H 7S 7D 7C")
    bot.on_events([Looked(0.1, 1, 0)], 0.1)
    assert not _signals(bot.on_events([Looked(0.5, 3, "middle")], 0.5))
    assert _signals(bot.on_events([Looked(2.5, 3, 1)], 2.5))


def test_a_careless_level_signals_whoever_looks() -> None:
    """casual gives its signal as soon as it can, looks or no looks."""
    bot = _bot("casual")
    assert _signals(_deal(bot, "7H 7S 7D 7C"))


def test_a_gesture_by_an_opponent_looking_at_its_partner_is_likelier_a_signal() -> None:
    """S0 "looks at their partner; the signal comes a moment after" (``reads_looks``)."""
    bot = _bot("sharp")
    _deal(bot, "2H 5D 9C KS", "3C 6D 7H 8S")
    w = bot.watch
    w.gestured(1, "nod", 3.0)
    plain = w.belief(1, "nod", 3.0, bot.hand, bot.middle)
    looking = w.belief(1, "nod", 3.0, bot.hand, bot.middle, looking_at_partner=True)
    assert looking > plain > 0.0
