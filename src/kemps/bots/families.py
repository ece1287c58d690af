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

A family bot sees only its seat's view and events, like every bot; the one exception is the
faker pair's shared warning, which is about the pair's own plans, never about a hidden card of
anyone else.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Final

from kemps.actions import Gesture as GestureAction
from kemps.bots.base import Bot, Plan
from kemps.bots.levels import BotFactory
from kemps.bots.player import HUMAN_MIN_S, KempsBot
from kemps.bots.strength import SHARP, Level, find_name
from kemps.events import CallJudged, Event, Gestured
from kemps.rules import RuleSet

FAMILY_NAMES: Final = ("faker", "camper", "quiet", "reuser", "changer", "mirror", "careless",
                        "watched")
FAKE_CHANCE: Final = 0.6  # a faker with three of a kind fakes in this share of hands


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


class FakerBot(KempsBot):
    """Gives the live signal with three of a kind; the partner, warned, does not call on it."""

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random, level: Level,
                 pact: Pact) -> None:
        super().__init__(seat, rules, rng, level)
        self.pact = pact
        self.faked_hand = -1

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

    def _on_gesture(self, e: Gestured, now: float) -> list[Plan]:
        if e.seat == self.partner and e.seat in self.pact.faking:
            return []  # warned: this one is a fake
        return super()._on_gesture(e, now)

    def _observe(self, e: Event, now: float) -> list[Plan]:
        if isinstance(e, CallJudged):
            self.pact.faking.discard(self.seat)
        return super()._observe(e, now)


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


def _family_level(family: str) -> Level:
    if family == "quiet":
        return replace(SHARP, name="quiet", reaction_s=(0.5, 1.3), noise_every_s=20.0,
                       decoy_swaps=0.0, fakes=False, stop_threshold=0.85)
    if family == "changer":
        return replace(SHARP, name="changer", change_anyway=1.0)
    if family in ("faker", "reuser"):
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

    def factory(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
        if key == "faker":
            pair = seat % rules.pairs
            if seat < rules.pairs or pair not in pacts:
                pacts[pair] = Pact()
            return FakerBot(seat, rules, rng, level, pacts[pair])
        if key == "camper":
            return CamperBot(seat, rules, rng, level)
        if key == "reuser":
            return ReuserBot(seat, rules, rng, level)
        return KempsBot(seat, rules, rng, level)

    return factory


__all__ = ["FAMILY_NAMES", "family_factory", "find_family"]
