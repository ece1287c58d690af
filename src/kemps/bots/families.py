"""Opponent families: pairs built from one behaviour each, to measure how the bots hold up.

``kemps arena --families ...`` seats a bot level against pairs of a family. Every family plays
its cards like the ``sharp`` level (the same collecting, reaction times and reading) and changes
one behaviour, described the way a person at the table would see it:

* ``faker``: gives the pair's live signal while holding three of a kind (about once a hand, where
  the rules allow fake signals); its partner is warned (the arena models the pair's private
  warning as knowledge the two seats share), so the partner never calls on a fake. The faker
  goes on swapping, since it still needs its fourth card.
* ``camper``: signals the instant it makes four (the shortest human reaction) and then sits
  completely still: no swap, no stall, no gesture, no repeated signal.
* ``quiet``: a quiet, human-like pair: slower reactions, few idle gestures, no decoy swaps, no
  fakes, and it calls Stop Kemps only when nearly sure.
* ``reuser``: keeps the first signal it agreed for the whole match, even once it was read.
* ``changer``: agrees a new signal before every hand.
* ``mirror``: the plain ``sharp`` bot (the mirror match).
* ``careless``: at an ``attention`` table, gives its signal whoever is looking (``sharp`` waits
  until no opponent looks at it); the same as ``mirror`` elsewhere.
* ``watched``: at an ``attention`` table, gives its signal only while its partner looks at it as
  well as no opponent (the same as ``mirror`` elsewhere).
* ``steerer``: floods the table with one idle gesture (every idle gesture it makes is that one,
  about twice as often as sharp gestures) so that the other pairs take it for their own signal,
  and calls Stop Kemps on that gesture when an opponent makes it for the first time in a hand
  and the cards seen taken make four likely (a person who steered the others expects it there).
* ``sitter``: stops swapping early and waits: once it holds three of a kind it takes only the
  fourth card (no decoy or unsticking swap), makes no idle gesture and never proposes a stall.
* ``fidget``: many idle gestures with no pattern: one every 2 s on average, drawn evenly from the
  whole palette, and one after most of its swaps.
* ``snapfaker``: fakes its live signal the moment a swap gives it a third card of a rank (with
  the reaction of a real signal, once a hand, where fakes are allowed; it keeps its signal, not
  an old one, and goes on swapping); its partner is warned like the ``faker``'s.
* ``mimic``: copies the other pair's signal: once it has read an opponent pair's signal (a right
  call showed it), it agrees that gesture as its own in the next huddle.
* ``starer``: at an ``attention`` table, keeps its eyes on an opponent whenever it does not hold
  four (so a careful pair is always watched and must wait its full wait to signal; it sees its
  partner only with a glance); the same as ``mirror`` elsewhere.

A family bot sees only its seat's view and events, like every bot; the exceptions are the faker
pairs' shared warning and the steerer pair's shared flood gesture, which are about the pair's own
plans, never about a hidden card of anyone else.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Final

from kemps.actions import Gesture as GestureAction
from kemps.actions import LookAt, Swap
from kemps.bots.base import Bot, Plan
from kemps.bots.levels import BotFactory
from kemps.bots.player import HUMAN_MIN_S, KempsBot
from kemps.bots.strength import SHARP, Level, find_name
from kemps.events import CallJudged, Event, Gestured, Swapped
from kemps.gestures import HEARD, SEEN
from kemps.rules import RuleSet

FAMILY_NAMES: Final = ("faker", "camper", "quiet", "reuser", "changer", "mirror", "careless",
                        "watched", "steerer", "sitter", "fidget", "snapfaker", "mimic", "starer")
FAKE_CHANCE: Final = 0.6  # a faker with three of a kind fakes in this share of hands
STEERED_SURE: Final = 0.75  # a steerer calls on its flood gesture at this chance or more


def find_family(name: str) -> str:
    """The canonical family name for ``name`` (case and spaces ignored).

    Raises:
        KempsError: ``unknown_family`` naming the known families.
    """
    return find_name(name, FAMILY_NAMES, "unknown_family", "opponent family")


class Pact:
    """What a faker pair agreed in private: which of its seats is faking right now."""

    __slots__ = ("faking",)

    def __init__(self) -> None:
        self.faking: set[int] = set()


class PactBot(KempsBot):
    """A bot of a pair that fakes its live signal by agreement (:class:`Pact`): the partner,
    warned, does not call on a fake; a judged call ends the fake. The fakers below differ only
    in when they fake."""

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random, level: Level,
                 pact: Pact) -> None:
        super().__init__(seat, rules, rng, level)
        self.pact = pact
        self.faked_hand = -1

    def _on_gesture(self, e: Gestured, now: float) -> list[Plan]:
        if e.seat == self.partner and e.seat in self.pact.faking:
            return []  # warned: this one is a fake
        return super()._on_gesture(e, now)

    def _observe(self, e: Event, now: float) -> list[Plan]:
        if isinstance(e, CallJudged):
            self.pact.faking.discard(self.seat)
        return super()._observe(e, now)


class FakerBot(PactBot):
    """Gives the live signal with three of a kind; the partner, warned, does not call on it."""

    def _decide(self, now: float) -> list[Plan]:
        plans = super()._decide(now)
        if self._four():
            self.pact.faking.discard(self.seat)
            return plans
        if (self.phase == "play" and self.signals and self.faked_hand != self.hand_no
                and self.rules.fake_signals == "allowed"
                and max(self._counts().values(), default=0) == 3):
            self.faked_hand = self.hand_no
            if self.rng.random() < FAKE_CHANCE:
                self.pact.faking.add(self.seat)
                plans.append(Plan(self._react(0.8), GestureAction(self.seat, self.signals[0]),
                                  "fake"))
        return plans


class CamperBot(KempsBot):
    """Signals the instant it makes four, then sits completely still."""

    def _decide(self, now: float) -> list[Plan]:
        if self._four() and self._in_play():
            if self.signals and self.signalled_at is None:
                self.signalled_at = now
                self.planned_noise = True
                return [Plan(0.0, None, "gesture"), Plan(0.0, None, "table"),
                        Plan(HUMAN_MIN_S, GestureAction(self.seat, self.signals[0]), "signal")]
            return []
        return super()._decide(now)

    def _observe(self, e: Event, now: float) -> list[Plan]:
        plans = super()._observe(e, now)
        if isinstance(e, Gestured) and e.seat == self.seat and self._four():
            return [p for p in plans if p.channel != "signal"]  # no repeated signal
        return plans


class ReuserBot(KempsBot):
    """Keeps its first signal all match."""

    def _huddle(self) -> list[Plan]:
        if self.signals:
            self.change_signal = False
            return []
        return super()._huddle()


class SteererBot(KempsBot):
    """Every idle gesture is the pair's ``flood`` gesture (never its signal); it expects the
    other pairs to take that gesture as their signal and calls on it."""

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random, level: Level,
                 flood: str) -> None:
        super().__init__(seat, rules, rng, level)
        self.flood = flood

    def _idle(self) -> str:
        if self.flood in self.signals:
            return super()._idle()
        return self.flood

    def _choose_signal(self) -> str:
        choice = super()._choose_signal()
        if choice != self.flood:
            return choice
        options = [g for g in self.palette if g != self.flood and g not in self.signals]
        return self.rng.choice(options)

    def _on_gesture(self, e: Gestured, now: float) -> list[Plan]:
        plans = super()._on_gesture(e, now)
        if (plans or e.gesture != self.flood or not self._in_play()
                or e.seat % self.pairs == self.pair or self.planned_call is not None):
            return plans
        w = self.watch
        p = e.seat % self.pairs
        if w.made_before(p, e.gesture, e.t - 0.01):
            return plans  # made earlier this hand with no call: not live
        lr = w._moment(e.seat, now, self.cards.hand, self.cards.middle)
        call = self._stop_call(e.seat)
        # Steered: the flood gesture is believed the pair's signal at even odds before the
        # moment's evidence (an unread gesture starts from a few per cent), and called on when
        # the cards seen taken make four three times likelier than not.
        if call is None or lr / (1.0 + lr) < max(STEERED_SURE, self._stop_threshold(p)):
            return plans
        self.planned_call = "stop"
        return [Plan(self._react(), call, "call")]


class SitterBot(KempsBot):
    """With three of a kind: takes only the fourth card, no idle gesture, no stall."""

    def _three(self) -> bool:
        return not self._four() and max(self._counts().values(), default=0) == 3

    def _best_swap(self) -> Swap | None:
        swap = super()._best_swap()
        if swap is None or not self._three():
            return swap
        rank = max(self._counts().items(), key=lambda kv: kv[1])[0]
        if all(c.rank == rank for c in swap.take) and all(c.rank != rank for c in swap.give):
            return swap
        return None

    def _decide(self, now: float) -> list[Plan]:
        plans = super()._decide(now)
        if self.phase == "play" and self._three():
            # Waiting: an idle gesture planned before it held three is dropped.
            return [p for p in plans if p.channel != "gesture"] + [Plan(0.0, None, "gesture")]
        return plans

    def _observe(self, e: Event, now: float) -> list[Plan]:
        plans = super()._observe(e, now)
        if isinstance(e, Swapped) and e.seat == self.seat and self._three():
            self.planned_noise = False  # no idle gesture after the swap either
            return [p for p in plans if p.channel != "gesture"]
        return plans

    def _noise(self) -> list[Plan]:
        return [] if self._three() else super()._noise()  # waiting: no idle gesture

    def _stall(self) -> list[Plan]:
        return [] if self._three() else super()._stall()


class SnapFakerBot(PactBot):
    """Fakes its live signal the moment a swap gives it a third card of a rank."""

    def _snap(self, e: Swapped, now: float, plans: list[Plan]) -> list[Plan]:
        if (e.seat != self.seat or self.phase != "play" or not self.signals or self._four()
                or self.faked_hand == self.hand_no or self.rules.fake_signals != "allowed"):
            return plans
        counts = self._counts()
        if any(counts.get(c.rank, 0) == 3 for c in e.took):
            self.faked_hand = self.hand_no
            self.pact.faking.add(self.seat)
            self.planned_noise = True
            return [Plan(0.0, None, "gesture"),
                    Plan(self._react(self.level.signal_scale),
                         GestureAction(self.seat, self.signals[0]), "gesture")]
        return plans

    def _decide(self, now: float) -> list[Plan]:
        if self._four():
            self.pact.faking.discard(self.seat)
        return super()._decide(now)

    def _observe(self, e: Event, now: float) -> list[Plan]:
        plans = super()._observe(e, now)
        return self._snap(e, now, plans) if isinstance(e, Swapped) else plans


class MimicBot(KempsBot):
    """Agrees the other pair's read signal as its own."""

    def _read_signal(self) -> str | None:
        for p in range(self.pairs):
            if p == self.pair:
                continue
            read = self.watch.identified(p)
            if read:
                g, weight = max(sorted(read.items()), key=lambda kv: kv[1])
                if weight >= 0.5:
                    return g
        return None

    def _huddle(self) -> list[Plan]:
        copy = self._read_signal()
        if copy is not None and copy not in self.signals:
            self.change_signal = True
        return super()._huddle()

    def _choose_signal(self) -> str:
        copy = self._read_signal()
        if copy is not None and copy not in self.signals:
            return copy
        return super()._choose_signal()


class StarerBot(KempsBot):
    """At an attention table, looks at an opponent unless it holds four."""

    def _look_target(self, now: float) -> LookAt:
        if self._four():
            return super()._look_target(now)
        return (self.seat + 1) % self.n


def _family_level(family: str) -> Level:
    if family == "quiet":
        return replace(SHARP, name="quiet", reaction_s=(0.5, 1.3), noise_every_s=20.0,
                       decoy_swaps=0.0, fakes=False, stop_threshold=0.85)
    if family == "changer":
        return replace(SHARP, name="changer", change_anyway=1.0)
    if family == "steerer":
        return replace(SHARP, name=family, noise_every_s=3.5)
    if family == "fidget":
        return replace(SHARP, name=family, noise_every_s=2.0, habit_spread=1.0,
                       swap_gestures=0.8)
    if family in ("faker", "reuser", "snapfaker"):
        return replace(SHARP, name=family, fakes=False)
    if family == "careless":
        return replace(SHARP, name=family, signal_watched=False, signal_unseen=False)
    if family == "watched":
        return replace(SHARP, name=family, signal_watched=True)
    return replace(SHARP, name=family)


def family_factory(family: str) -> BotFactory:
    """A factory ``(seat, rules, rng) -> Bot`` for pairs of ``family``. Build one factory per
    match: a faker pair's two seats share one :class:`Pact`, made when the pair's first seat
    (seats ``0 .. pairs-1``, built first) is built.

    Raises:
        KempsError: ``unknown_family``.
    """
    key = find_family(family)
    level = _family_level(key)
    pacts: dict[int, Pact] = {}
    floods: dict[int, str] = {}

    def factory(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
        pair = seat % rules.pairs
        if key in ("faker", "snapfaker"):
            if seat < rules.pairs or pair not in pacts:
                pacts[pair] = Pact()
            if key == "snapfaker":
                return SnapFakerBot(seat, rules, rng, level, pacts[pair])
            return FakerBot(seat, rules, rng, level, pacts[pair])
        if key == "steerer":
            if seat < rules.pairs or pair not in floods:
                palette = SEEN + (HEARD if rules.heard_signals else ())
                floods[pair] = rng.choice(palette)
            return SteererBot(seat, rules, rng, level, floods[pair])
        if key == "sitter":
            return SitterBot(seat, rules, rng, level)
        if key == "mimic":
            return MimicBot(seat, rules, rng, level)
        if key == "starer":
            return StarerBot(seat, rules, rng, level)
        if key == "camper":
            return CamperBot(seat, rules, rng, level)
        if key == "reuser":
            return ReuserBot(seat, rules, rng, level)
        return KempsBot(seat, rules, rng, level)

    return factory


__all__ = ["FAMILY_NAMES", "family_factory", "find_family"]
