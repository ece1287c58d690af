"""Bots never see more than their seat (issue 4): a bot's decisions do not change when every card
hidden from it is replaced by another.

Design. The bot under test sits in seat 0. The other three seats are "card-blind" bots: they agree
a signal, gesture and say the middle has stalled on timers, but never swap and never call, so what
they do cannot depend on their cards. At a ``real_deal`` table the whole stock reaches the middle
before a hand ends (in sight of everyone), so the only cards hidden from seat 0 are the other three
hands. We play the same seed twice; in the second run every deal gives each other seat the hand
another other seat had in the first (a rotation, so every hidden card is replaced by a different
one). A control rotates seat 0's own hand too, and then its log does change. Nobody calls on a hand (the blind seats never do, and the bot's beliefs never reach its
threshold with no call ever seen), so no hidden hand is ever revealed: seat 0's inputs are exactly
the same in both runs if, and only if, nothing hidden leaks into them, and then its decisions (every
plan, with its delay) must be the same too. The test also checks the deals really differ and the
bot really played (swaps, gestures, stalls).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import kemps.driver
from kemps.actions import Action, AgreeSignals, Gesture, ProposeStall, Swap
from kemps.bots.base import Bot, Plan
from kemps.bots.levels import make_bot
from kemps.cards import Card, shuffled_pack
from kemps.errors import Rejected
from kemps.events import Event, Gestured, HandDealt, HandEnded, SignalsAgreed, Swept, event_to_dict
from kemps.gestures import SEEN
from kemps.rules import RuleSet, find_preset
from kemps.sim import simulate_match
from kemps.views import SeatView

SEED = 77


class CardBlind:
    """Acts on timers and event kinds only, never on cards; never swaps, never calls."""

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self.pairs = rules.pairs
        self.signals: tuple[str, ...] = ()
        self.in_play = False

    def _act(self) -> list[Plan]:
        if not self.in_play:
            return []
        gesture = self.rng.choice([g for g in SEEN if g not in self.signals])
        return [Plan(self.rng.uniform(3.0, 9.0), Gesture(self.seat, gesture), "gesture"),
                Plan(self.rng.uniform(2.0, 5.0), ProposeStall(self.seat), "table")]

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        if self.seat == 1:
            return [Plan(0.5, AgreeSignals(self.seat, ("wink",)), "table")]
        return []

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        plans: list[Plan] = []
        for e in events:
            if isinstance(e, SignalsAgreed):
                self.signals = e.signals
            elif isinstance(e, HandDealt):
                self.in_play = True
                plans += self._act()
            elif isinstance(e, HandEnded):
                self.in_play = False
            elif isinstance(e, Swept) or (isinstance(e, Gestured) and e.seat == self.seat):
                plans += self._act()
        return plans

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        return []


class Logged:
    """Wraps the bot under test and logs everything it is told and everything it answers."""

    def __init__(self, inner: Bot, log: list[Any]) -> None:
        self.inner = inner
        self.seat = inner.seat
        self.log = log

    def _out(self, plans: list[Plan]) -> list[Plan]:
        self.log.append(("out", [(p.delay, p.channel, p.action) for p in plans]))
        return plans

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        self.log.append(("view", now, view.to_dict()))
        return self._out(self.inner.on_view(view, now))

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        self.log.append(("events", now, [event_to_dict(e) for e in events]))
        return self._out(self.inner.on_events(events, now))

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        self.log.append(("rejected", now, action, error.code))
        return self._out(self.inner.on_rejected(action, error, now))


def _run(level: str, rotate: bool, monkeypatch: pytest.MonkeyPatch, first: int = 1
         ) -> tuple[list[Any], Any]:
    rules = find_preset("pagat").replace(idle_sweep_s=4.0)
    n = rules.players
    dealer = random.Random(SEED).randrange(n)  # simulate_match's first draw; the dealer is fixed
    original = shuffled_pack

    def rotated(decks: int, rng: random.Random) -> list[Card]:
        order = original(decks, rng)
        if not rotate:
            return order
        hands = {s: [order[((s - dealer - 1) % n) + k * n] for k in range(4)] for s in range(n)}
        others = [s for s in range(n) if s >= first]
        out = list(order)
        for i, s in enumerate(others):
            donor = others[(i + 1) % len(others)]
            for k in range(4):
                out[((s - dealer - 1) % n) + k * n] = hands[donor][k]
        return out

    monkeypatch.setattr(kemps.driver, "shuffled_pack", rotated)
    log: list[Any] = []

    def factory(seat: int, r: RuleSet, rng: random.Random) -> Bot:
        if seat == 0:
            return Logged(make_bot(level, seat, r, rng), log)
        return CardBlind(seat, r, rng)

    result = simulate_match(rules, SEED, bots=factory, max_time_s=240.0)
    return log, result


@pytest.mark.parametrize("level", ["casual", "club", "sharp", "simple"])
def test_decisions_unchanged_when_hidden_cards_change(level: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    log_a, a = _run(level, False, monkeypatch)
    log_b, b = _run(level, True, monkeypatch)
    deals_a = [act.order for _, act in a.record.actions if act.__class__.__name__ == "Deal"]
    deals_b = [act.order for _, act in b.record.actions if act.__class__.__name__ == "Deal"]
    assert len(deals_a) >= 2 and len(deals_a) == len(deals_b)
    assert all(x != y for x, y in zip(deals_a, deals_b))  # every deal's hidden hands changed
    assert not any(e.__class__.__name__ == "Revealed" for e in a.events)  # nothing was shown
    assert log_a == log_b  # same inputs, same plans (actions and delays), step by step
    mine_a = [(t, act) for t, act in a.record.actions if act.seat == 0]
    assert mine_a == [(t, act) for t, act in b.record.actions if act.seat == 0]
    kinds = {type(act) for _, act in mine_a}
    assert Swap in kinds and Gesture in kinds and ProposeStall in kinds


def test_control_the_log_does_change_when_the_bot_s_own_hand_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: rotating seat 0's own hand in too changes what it does."""
    log_a, _ = _run("sharp", False, monkeypatch)
    log_c, _ = _run("sharp", True, monkeypatch, first=0)
    assert log_a != log_c
