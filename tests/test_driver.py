"""The match driver (kemps.driver): the one policy both the simulator and the server use."""

from __future__ import annotations

import random

from kemps.actions import Action, Call, Gesture, Swap
from kemps.bots.base import Plan
from kemps.driver import MIN_GAP_S, MatchDriver
from kemps.errors import Rejected
from kemps.events import Event, Gestured, HandDealt
from kemps.rules import find_preset
from kemps.views import SeatView

RULES = find_preset("pagat")
NAMES = ["Alice", "Ben", "Cara", "Dev"]


class Scripted:
    """A bot that answers the first deal with the plans given, and records what it is told."""

    def __init__(self, seat: int, plans: list[Plan]) -> None:
        self.seat = seat
        self.plans = plans
        self.seen: list[Event] = []
        self.rejected: list[str] = []

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        return []

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        self.seen += events
        if any(isinstance(e, HandDealt) for e in events):
            return self.plans
        return []

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        self.rejected.append(error.code)
        return []


def run_until(driver: MatchDriver, end: float) -> list:
    steps = []
    while (t := driver.next_wake()) is not None and t <= end:
        steps += driver.wake(t)
    return steps


def test_the_deal_comes_after_the_huddle_and_sooner_when_every_person_is_ready() -> None:
    driver = MatchDriver(RULES, NAMES, 0, {}, random.Random(1), people=(0, 2), huddle_s=45.0,
                         ready_huddle_s=3.0)
    driver.start(10.0)
    assert driver.deal_at == 55.0 and driver.next_wake() == 55.0
    assert driver.wake(54.9) == []
    assert not driver.mark_ready(0, 20.0) and driver.deal_at == 55.0  # one of two is ready
    assert driver.mark_ready(2, 21.0) and driver.deal_at == 24.0
    steps = driver.wake(24.0)
    assert [type(s.action).__name__ for s in steps] == ["Deal"]
    assert driver.table.phase == "play" and driver.ready == set() and driver.deal_at is None
    # a hand that ends schedules the next deal after the full huddle (nobody ready yet)
    step = driver.act(0, Call(0, "kemps"), 30.0)
    assert step.t == 30.0 and driver.table.phase == "huddle" and driver.deal_at == 75.0


def test_a_newer_plan_on_a_channel_replaces_the_older_and_a_seat_keeps_its_gap() -> None:
    ben = Scripted(1, [Plan(0.5, Gesture(1, "wink"), "gesture"),
                       Plan(0.6, Gesture(1, "nod"), "gesture"),  # replaces the wink
                       Plan(0.6, Gesture(1, "blink"), "other")])  # same seat, 0.25 s gap
    driver = MatchDriver(RULES, NAMES, 0, {1: ben}, random.Random(2))
    driver.start(0.0)
    steps = run_until(driver, 10.0)
    gestures = [(round(e.t, 3), e.gesture) for s in steps for e in s.events
                if isinstance(e, Gestured)]
    assert steps[0].t == 3.0  # the deal, after the huddle of a table of bots
    assert gestures == [(3.6, "nod"), (round(3.6 + MIN_GAP_S, 3), "blink")]
    assert driver.actions == 3 and driver.rejected == 0


def test_a_refused_plan_goes_back_to_its_bot_and_changes_nothing() -> None:
    ben = Scripted(1, [Plan(0.5, Call(1, "kemps", on_seat=0), "call")])
    cara = Scripted(2, [Plan(0.4, Swap(2, (), ()), "cards")])
    driver = MatchDriver(RULES, NAMES, 0, {1: ben, 2: cara}, random.Random(3))
    driver.start(0.0)
    run_until(driver, 10.0)
    assert ben.rejected == ["not_your_partner"] and cara.rejected == ["bad_action"]
    assert driver.rejected == 2 and driver.actions == 1  # the deal only
    # every bot was told the deal, each seeing its own hand only
    dealt = next(e for e in ben.seen if isinstance(e, HandDealt))
    assert dealt.hands[1] and not dealt.hands[0] and not dealt.hands[2]


def test_steps_carry_the_time_the_table_applied_them() -> None:
    """An action stamped before the table's clock is applied (and recorded) at the clock."""
    driver = MatchDriver(RULES, NAMES, 0, {}, random.Random(4))
    driver.start(0.0)
    driver.wake(3.0)
    driver.act(0, Gesture(0, "wink"), 5.0)
    late = driver.act(1, Gesture(1, "nod"), 4.0)
    assert late.t == 5.0 and driver.recorder.record.actions[-1][0] == 5.0


def test_a_hand_with_no_call_for_stuck_s_nudges_the_bots() -> None:
    """The stuck-hand guard: after ``stuck_s`` with no call judged, every bot with ``on_stuck`` is
    asked to let something go (and again after each further ``stuck_s``); a call ends it."""

    class Stubborn(Scripted):
        def __init__(self, seat: int) -> None:
            super().__init__(seat, [])
            self.nudged: list[float] = []

        def on_stuck(self, now: float) -> list[Plan]:
            self.nudged.append(now)
            if len(self.nudged) < 2:
                return []
            return [Plan(0.5, Call(self.seat, "kemps"), "call")]

    bot = Stubborn(1)
    rules = RULES.replace(idle_sweep_s=0.0)  # nothing moves by itself
    driver = MatchDriver(rules, NAMES, 0, {1: bot}, random.Random(5), stuck_s=100.0)
    driver.start(0.0)
    run_until(driver, 205.0)
    assert bot.nudged == [103.0, 203.0] and driver.nudges == 2
    assert driver.table.phase == "huddle" and driver.table.scores == [0, 1]  # Ben's wrong call
    assert driver.nudge_at is None and driver.deal_at == 206.5


def test_each_step_is_handed_over_while_the_table_stands_as_it_left_it() -> None:
    """``wake(now, on_step)``: a server builds each step's update from the table as that step
    left it, even when several steps fall due at one time (the table's signals, then the deal)."""
    driver = MatchDriver(RULES, NAMES, 0, {}, random.Random(6), signals_first=True)
    driver.start(0.0)
    phases: list[tuple[str, str]] = []
    steps = driver.wake(3.0, lambda s: phases.append((type(s.action).__name__,
                                                     driver.table.phase)))
    # signals_first: neither pair agreed a signal, so the table agrees one for each, then deals
    assert phases == [("AgreeSignals", "huddle"), ("AgreeSignals", "huddle"), ("Deal", "play")]
    assert [s.seat for s in steps] == [0, 1, None] and all(driver.table.signals)


def test_a_bot_stands_in_for_a_seat_and_leaves_with_its_plans() -> None:
    ben = Scripted(1, [Plan(0.5, Gesture(1, "wink"), "gesture")])
    driver = MatchDriver(RULES, NAMES, 0, {}, random.Random(7), people=(1,), huddle_s=45.0)
    driver.start(0.0)
    assert driver.deal_at == 45.0  # Ben, a person, is not ready
    driver.seat_bot(1, ben, 1.0)  # he is away: a bot plays his seat; the deal stops waiting
    assert driver.deal_at == 4.0 and driver.people == frozenset()
    driver.wake(4.0)
    assert driver.planned(1) == [Gesture(1, "wink")]
    driver.unseat_bot(1)  # he is back before the bot moved
    assert driver.planned(1) == [] and 1 in driver.people and 1 not in driver.bots
    steps = run_until(driver, 10.0)
    assert not any(isinstance(e, Gestured) for s in steps for e in s.events)


def test_a_restarted_driver_replays_its_steps_and_keeps_the_hands_log() -> None:
    ben = Scripted(1, [Plan(0.5, Gesture(1, "wink"), "gesture")])
    first = MatchDriver(RULES, NAMES, 0, {1: ben}, random.Random(8))
    first.start(0.0)
    run_until(first, 10.0)
    again = MatchDriver(RULES, NAMES, 0, {}, random.Random(0))
    for t, action in first.recorder.record.actions:
        again.replay_step(t, action)
    assert again.log == first.log and again.table.version == first.table.version
    assert again.actions == first.actions and again.nudge_at == first.nudge_at
    again.resume(10.0)
    assert again.deal_at is None  # in play: no deal to schedule
