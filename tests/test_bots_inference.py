"""The sharp bot reads the other pair from public evidence (issue 4, "A test shows the inference
works").

Opponents are simple bots with a fixed habit: ``Fixed`` agrees one signal for the whole match and
makes no idle gestures; ``Changer`` agrees a new signal every hand and keeps the simple bot's idle
gestures. A signal "seen called" is the first right call on the opponents' hand (their own Kemps, or a right
Stop Kemps against them), whose shown hand tells the table what the gesture just before it meant.
"""

from __future__ import annotations

import random

from kemps.actions import AgreeSignals
from kemps.bots.base import Plan
from kemps.bots.levels import SHARP, bot_factory
from kemps.bots.simple import SimpleBot
from kemps.bots.watch import Watcher
from kemps.cards import parse_cards
from kemps.events import CallJudged
from kemps.rules import RuleSet, find_preset
from kemps.sim import simulate_match


class Fixed(SimpleBot):
    """Agrees ``touch_ear`` once and never changes it."""

    def _decide(self, now: float) -> list[Plan]:
        if self.phase == "huddle":
            if self.seat < self.pairs and not self.signals and self.agreed_for_hand != self.hand_no:
                self.agreed_for_hand = self.hand_no
                return [Plan(self._react(), AgreeSignals(self.seat, ("touch_ear",)), "table")]
            return []
        return super()._decide(now)


class Changer(SimpleBot):
    """Agrees a different signal before every hand."""

    def _decide(self, now: float) -> list[Plan]:
        if self.phase == "huddle":
            if self.seat < self.pairs and self.agreed_for_hand != self.hand_no:
                self.agreed_for_hand = self.hand_no
                options = [g for g in self.palette if g not in self.signals]
                return [Plan(self._react(), AgreeSignals(self.seat, (self.rng.choice(options),)),
                             "table")]
            return []
        return super()._decide(now)


def fixed(seat: int, rules: RuleSet, rng: random.Random) -> SimpleBot:
    return Fixed(seat, rules, rng, noise_every_s=1e9)  # no idle gestures: no noise


def changer(seat: int, rules: RuleSet, rng: random.Random) -> SimpleBot:
    return Changer(seat, rules, rng)


def _stops(opponent: object, matches: int) -> dict[str, int]:
    """Sharp pair (seats 0, 2) against ``opponent`` (seats 1, 3): its Stop Kemps calls before and
    after the opponents' signal was first seen called."""
    rules = find_preset("pagat")
    sharp = bot_factory("sharp")
    tally = {"before_right": 0, "before_wrong": 0, "after_right": 0, "after_wrong": 0,
             "their_kemps_after": 0}
    for i in range(matches):
        result = simulate_match(rules, 500 + i, bots=[sharp, opponent, sharp, opponent])  # type: ignore[list-item]
        seen = False
        for e in result.events:
            if not isinstance(e, CallJudged):
                continue
            if e.seat % 2 == 1 and e.right and e.kind == "kemps":
                if seen:
                    tally["their_kemps_after"] += 1
                seen = True
            if e.seat % 2 == 0 and e.kind == "stop":
                tally[("after_" if seen else "before_") + ("right" if e.right else "wrong")] += 1
                # A right Stop Kemps shows the opponent's hand too: the signal has been seen
                # called, and the table knows what the gesture before it meant.
                seen = seen or e.right
    return tally


def test_a_fixed_silent_signal_once_read_is_stopped_without_a_wrong_call() -> None:
    # The sharp bot believes a read signal kept only once the pair has shown it keeps its
    # signals (pairs that know the table change a read signal and fake the old one), so it
    # catches a fixed signal after a few reads, and never calls wrong on it.
    t = _stops(fixed, 120)
    assert t["after_right"] >= 2, t
    assert t["after_wrong"] == 0, t
    assert t["before_wrong"] == 0, t


def test_against_a_pair_that_changes_signal_every_hand_wrong_stays_below_right() -> None:
    # A signal that changes every hand cannot be read from earlier hands: the sharp bot calls
    # only on the cards it saw taken (S0 "Do not call on a hunch"), so it calls seldom, and is
    # right when it does.
    t = _stops(changer, 300)  # few calls: enough matches to see some (2 right in 300)
    right = t["before_right"] + t["after_right"]
    wrong = t["before_wrong"] + t["after_wrong"]
    assert right >= 1, t
    assert wrong < right, t


def test_belief_after_right_calls() -> None:
    """The watcher alone: right Kemps after a touch of the ear make the ear a signal."""
    rules = find_preset("pagat")
    w = Watcher(0, rules, SHARP)
    w.new_hand(1)
    w.gestured(1, "nod", 1.0)
    w.gestured(1, "touch_ear", 6.0)
    w.judged(7.0, "kemps", True, 1, [1], (1,))
    w.new_hand(2)
    hand = list(parse_cards("2C 3D 4H 5S"))
    middle = list(parse_cards("6C 7D 8H 9S"))
    # Read once: a pair may well change a read signal, so not yet enough to call on.
    assert w.belief(1, "nod", 10.0, hand, middle) < w.belief(1, "touch_ear", 10.0, hand, middle
                                                            ) < SHARP.stop_threshold
    # Read again in the next hands: this pair keeps its signal, and the ear becomes enough.
    beliefs = []
    for hand_no in (3, 4, 5):
        w.gestured(1, "touch_ear", 6.0)
        w.judged(7.0, "kemps", True, 1, [1], (1,))
        w.new_hand(hand_no)
        beliefs.append(w.belief(1, "touch_ear", 10.0, hand, middle))
    assert beliefs == sorted(beliefs)
    ear = beliefs[-1]
    nod = w.belief(1, "nod", 10.0, hand, middle)
    partner_ear = w.belief(3, "touch_ear", 10.0, hand, middle)
    assert ear >= SHARP.stop_threshold > nod
    assert partner_ear == ear  # a pair shares its signal
    # The ear made once this hand with no call after it: no longer believed.
    w.gestured(1, "touch_ear", 12.0)
    assert w.belief(1, "touch_ear", 20.0, hand, middle) < SHARP.stop_threshold

