"""Bots of every level (issue 4): the interface, human pace, collecting, signalling, the huddle,
and long random runs over every preset with 2 to 6 pairs."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kemps.actions import Action, AgreeSignals, Call, Discard, Grab, Object, ProposeStall, Swap
from kemps.actions import Gesture as GestureAction
from kemps.bots.base import Bot, Plan
from kemps.bots.levels import LEVEL_NAMES, LEVELS, bot_factory, find_level, make_bot
from kemps.bots.player import FOLLOWER_WAIT_S, HUMAN_MIN_S, KempsBot
from kemps.cards import parse_cards
from kemps.errors import KempsError, Rejected
from kemps.events import (
    Called,
    CallJudged,
    Discarded,
    Event,
    Gestured,
    Grabbed,
    HandDealt,
    HandEnded,
    PlayOpened,
    Revealed,
    SignalsAgreed,
    StallProposed,
    Swapped,
    Swept,
)
from kemps.rules import PRESETS, RuleSet, find_preset
from kemps.sim import simulate_match
from kemps.views import SeatView

PAGAT = find_preset("pagat")


def _bot(level: str = "sharp", seat: int = 0, rules: RuleSet = PAGAT, seed: int = 1) -> KempsBot:
    bot = make_bot(level, seat, rules, random.Random(seed))
    assert isinstance(bot, KempsBot)
    return bot


def _deal(bot: KempsBot, hand: str, middle: str, t: float = 0.0) -> list[Plan]:
    hands = tuple(parse_cards(hand) if s == bot.seat else () for s in range(bot.n))
    mid = parse_cards(middle)
    return bot.on_events([HandDealt(t, 1, 0, hands, mid, 30, None), PlayOpened(t, mid)], t)


def _huddle_view(bot: KempsBot) -> SeatView:
    """The seat's view of a new table before the first deal (nobody has agreed a signal)."""
    from kemps.table import Table
    from kemps.views import view_for

    view = view_for(Table(bot.rules, [f"P{i}" for i in range(bot.n)]), bot.seat)
    assert view.phase == "huddle" and view.signals == ()
    return view


def _actions(plans: list[Plan]) -> list[Action]:
    return [p.action for p in plans if p.action is not None]


# -- levels and the interface ------------------------------------------------------------------
def test_levels_and_factories() -> None:
    assert LEVEL_NAMES == ("simple", "casual", "club", "sharp")
    assert find_level(" Sharp ") == "sharp"
    with pytest.raises(KempsError) as err:
        find_level("grandmaster")
    assert err.value.code == "unknown_level"
    for name in LEVEL_NAMES:
        bot = bot_factory(name)(1, PAGAT, random.Random(0))
        assert bot.seat == 1
    lv = [LEVELS[n] for n in ("casual", "club", "sharp")]
    # Stronger levels react faster and notice more, never faster than a person.
    assert lv[0].reaction_s[0] >= lv[1].reaction_s[0] >= lv[2].reaction_s[0] >= HUMAN_MIN_S
    assert lv[0].attention_opponents < lv[1].attention_opponents < lv[2].attention_opponents


class Spy:
    """Wraps a bot, keeping every plan it makes with the time it made it."""

    def __init__(self, inner: Bot, plans: list[tuple[float, Plan]]) -> None:
        self.inner, self.seat, self.plans = inner, inner.seat, plans

    def _keep(self, plans: list[Plan], now: float) -> list[Plan]:
        self.plans.extend((now, p) for p in plans)
        return plans

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        return self._keep(self.inner.on_view(view, now), now)

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        return self._keep(self.inner.on_events(events, now), now)

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        return self._keep(self.inner.on_rejected(action, error, now), now)


def test_every_plan_is_human_paced_and_kemps_follows_a_seen_signal() -> None:
    plans: list[tuple[float, Plan]] = []
    levels = ["casual", "club", "sharp"]

    def factory(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
        return Spy(make_bot(levels[seat % 3], seat, rules, rng), plans)

    rules = PAGAT.replace(pairs=3)
    result = simulate_match(rules, 5, bots=factory)
    assert result.finished
    acting = [p for _, p in plans if p.action is not None]
    assert acting and all(p.delay >= HUMAN_MIN_S for p in acting)
    # Every Kemps call comes at least a reaction time after the partner's signal.
    signals: dict[int, tuple[str, ...]] = {}
    last_signal: dict[int, float] = {}
    kemps = 0
    for e in result.events:
        if isinstance(e, SignalsAgreed):
            signals[e.pair] = e.signals
        elif isinstance(e, Gestured) and e.gesture in signals.get(e.seat % 3, ()):
            last_signal[e.seat] = e.t
        elif isinstance(e, Called) and e.kind == "kemps":
            kemps += 1
            partner = (e.seat + 3) % 6
            assert e.t - last_signal[partner] >= HUMAN_MIN_S - 1e-9
        elif isinstance(e, HandEnded):
            last_signal.clear()
    assert kemps > 0


# -- collecting ----------------------------------------------------------------------------------
def test_takes_its_rank_and_throws_what_nobody_collects() -> None:
    from kemps.events import Swapped

    bot = _bot("sharp")
    _deal(bot, "7H 7S 9C 2D", "9D 9H QH JS")
    # An opponent (seat 1) takes both nines: never throw it a nine when a two will do.
    bot.on_events([Swapped(1.0, 1, tuple(parse_cards("9D 9H")), tuple(parse_cards("KC 3C")),
                           (0, 1))], 1.0)
    seven = Swapped(2.0, 3, tuple(parse_cards("QH")), tuple(parse_cards("7D")), (2,))
    swaps = [a for a in _actions(bot.on_events([seven], 2.0)) if isinstance(a, Swap)]
    assert swaps == [Swap(0, tuple(parse_cards("7D")), tuple(parse_cards("2D")))]


def test_takes_several_at_once_only_where_the_rules_allow() -> None:
    multi = [a for a in _actions(_deal(_bot("club"), "7H 7S 9C 2D", "7D 7C QH JS"))
             if isinstance(a, Swap)]
    assert len(multi) == 1 and len(multi[0].take) == 2
    one = _bot("club", rules=find_preset("squarescores"))
    single = [a for a in _actions(_deal(one, "7H 7S 9C 2D", "7D 7C QH JS")) if isinstance(a, Swap)]
    assert len(single) == 1 and len(single[0].take) == 1


def test_stalls_when_nothing_wanted_and_objects_when_something_is() -> None:
    bot = _bot("casual")
    plans = _actions(_deal(bot, "7H 7S 9C 2D", "KC QH JS 3C"))
    assert any(isinstance(a, ProposeStall) for a in plans)
    bot2 = _bot("casual", seat=2)
    _deal(bot2, "7H 7S 9C 2D", "KC QH JS 3C")
    later = bot2.on_events([StallProposed(1.0, 1, 4.0)], 1.0)
    assert not any(isinstance(a, Object) for a in _actions(later))
    # A seven comes in from someone's discard while the stall counts down: object.
    from kemps.events import Swapped

    swap = Swapped(1.5, 3, tuple(parse_cards("KC")), tuple(parse_cards("7C")), (0,))
    plans = _actions(bot2.on_events([swap], 1.5))
    assert any(isinstance(a, Object) for a in plans)
    assert any(isinstance(a, Swap) and a.take == tuple(parse_cards("7C")) for a in plans)


def test_switches_rank_after_two_sweeps_without_it() -> None:
    bot = _bot("casual")
    _deal(bot, "7H 9S 2C 4D", "KC QH JS 3C")
    first = bot.target
    for i in range(2):
        bot.on_events([Swept(2.0 + i, (), tuple(parse_cards("KD QD JD 3D" if i else
                                                               "KH QS JH 3H")), 20)], 2.0 + i)
    assert bot.target != first


def test_a_dead_rank_is_dropped_at_counting_levels() -> None:
    bot = _bot("club")
    _deal(bot, "7H 7S 9C 2D", "KC QH JS 3C")
    assert bot.target == "7"
    # A seven was swept away: with one deck nobody can make four sevens now.
    bot.on_events([Swept(2.0, tuple(parse_cards("7C KC QH JS")),
                         tuple(parse_cards("9D 5H 6S 8C")), 20)], 2.0)
    assert bot.target == "9"


# -- signalling and the huddle ---------------------------------------------------------------------
def test_signals_with_four_and_keeps_gesturing_or_sits_still() -> None:
    """Club goes on gesturing as before; sharp sits still once it holds four (S0 "stops
    swapping, sits a little stiller"): its signal and no other gesture, no stall."""
    for level in ("club", "sharp"):
        bot = _bot(level)
        bot.on_events([SignalsAgreed(0.0, 0, 0, ("touch_ear",))], 0.0)
        plans = _deal(bot, "7H 7S 7C 7D", "KC QH JS 3C")
        gestures = [p for p in plans if isinstance(p.action, GestureAction)]
        signal = [p for p in gestures if p.channel == "signal"]
        assert len(signal) == 1 and signal[0].action == GestureAction(0, "touch_ear")
        noise = [p for p in gestures if p.channel == "gesture"]
        if level == "club":
            assert noise and all(p.action != GestureAction(0, "touch_ear") for p in noise)
        else:
            assert noise == [] and not any(isinstance(a, ProposeStall) for a in _actions(plans))
        assert not any(isinstance(a, Swap) for a in _actions(plans))  # four of a kind: keep it
        # The signal was made and nobody called: it is given again a few seconds later.
        again = bot.on_events([Gestured(1.0, 0, "touch_ear", False)], 1.0)
        assert [p.action for p in again if p.channel == "signal"] == [
            GestureAction(0, "touch_ear")]
        assert not any(p.channel == "gesture" and p.action is not None for p in again
                       ) or level == "club"


def test_partner_calls_kemps_on_the_signal_not_on_noise_or_an_old_signal() -> None:
    bot = _bot("sharp", seat=2)
    bot.burnt = {"nod"}
    bot.on_events([SignalsAgreed(0.0, 0, 0, ("touch_ear",))], 0.0)
    _deal(bot, "2H 5S 9C JD", "KC QH JS 3C")
    for g in ("nod", "yawn"):
        assert not any(isinstance(a, Call) for a in _actions(
            bot.on_events([Gestured(1.0, 0, g, False)], 1.0)))
    calls = [p for p in bot.on_events([Gestured(2.0, 0, "touch_ear", False)], 2.0)
             if isinstance(p.action, Call)]
    if calls:  # attention 0.97: noticed
        assert calls[0].action == Call(2, "kemps") and calls[0].delay >= HUMAN_MIN_S


def _stopped(bot: KempsBot) -> list[Plan]:
    events: list[Event] = [Called(5.0, 1, "stop", None, 0), Revealed(5.0, 0, tuple(
        parse_cards("7H 7S 7C 7D")), True), CallJudged(5.0, 1, "stop", True, (0, 2)),
        HandEnded(5.0, 1, "call", True)]
    return bot.on_events(events, 5.0)


def test_huddle_agrees_a_new_signal_after_being_read() -> None:
    bot = _bot("casual")
    bot.on_events([SignalsAgreed(0.0, 0, 0, ("touch_ear",))], 0.0)
    bot.agreed_for = 0
    _deal(bot, "2H 5S 9C JD", "KC QH JS 3C")
    plans = _actions(_stopped(bot))
    agree = [a for a in plans if isinstance(a, AgreeSignals)]
    assert len(agree) == 1 and agree[0].signals != ("touch_ear",)
    # The pair's second seat proposes too, but later than the first seat would, and drops its
    # proposal as soon as the first seat's arrives.
    follower = _bot("casual", seat=2)
    follower.on_events([SignalsAgreed(0.0, 0, 0, ("touch_ear",))], 0.0)
    _deal(follower, "2H 5S 9C JD", "KC QH JS 3C")
    late = [p for p in _stopped(follower) if isinstance(p.action, AgreeSignals)]
    assert len(late) == 1 and late[0].delay >= FOLLOWER_WAIT_S + HUMAN_MIN_S
    assert late[0].action.signals != ("touch_ear",)
    answer = follower.on_events([SignalsAgreed(6.0, 0, 0, ("nod",))], 6.0)
    assert Plan(0.0, None, "table") in answer and follower.signals == ("nod",)


def test_a_bot_whose_partner_skips_the_huddle_proposes_a_signal() -> None:
    """A person leads the pair and agrees nothing: the bot in the second seat proposes one, and
    signals with it once it holds four."""
    bot = _bot("club", seat=2)
    plans = bot.on_view(_huddle_view(bot), 0.0)
    agree = [p.action for p in plans if isinstance(p.action, AgreeSignals)]
    assert len(agree) == 1 and agree[0].seat == 2
    bot.on_events([SignalsAgreed(2.0, 0, 2, agree[0].signals)], 2.0)
    plans = _deal(bot, "7H 7S 7C 7D", "KC QH JS 3C")
    assert [p.action for p in plans if p.channel == "signal"] == [
        GestureAction(2, agree[0].signals[0])]


def test_fakes_only_where_allowed_and_never_a_live_signal() -> None:
    counts: dict[str, Any] = {}
    for preset in ("pagat", "seed2-tournament"):
        rules = find_preset(preset)
        wrong_kemps = faked = 0
        for seed in range(8):
            result = simulate_match(rules, seed, bots=bot_factory("sharp"))
            signals: dict[int, tuple[str, ...]] = {}
            burnt: dict[int, set[str]] = {0: set(), 1: set()}
            for e in result.events:
                if isinstance(e, SignalsAgreed):
                    burnt[e.pair] |= set(signals.get(e.pair, ()))
                    signals[e.pair] = e.signals
                elif isinstance(e, CallJudged) and e.kind == "kemps" and not e.right:
                    wrong_kemps += 1
                elif isinstance(e, Gestured) and e.gesture in burnt[e.seat % 2]:
                    faked += 1
        counts[preset] = (wrong_kemps, faked)
        assert wrong_kemps == 0, counts  # the partner is never fooled by its own pair's fake
    assert counts["pagat"][1] > 0


# -- every preset, 2..6 pairs ---------------------------------------------------------------------
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_and_table_size_plays_through(preset: str) -> None:
    rng = random.Random(preset)
    for pairs in range(2, 7):
        rules = PRESETS[preset].replace(pairs=pairs)
        for k in range(3):
            levels = [rng.choice(LEVEL_NAMES) for _ in range(pairs)]
            factories = [bot_factory(levels[s % pairs]) for s in range(rules.players)]
            result = simulate_match(rules, rng.randrange(10**6), bots=factories,
                                    keep_events=False)
            assert result.finished, (preset, pairs, k, levels)
            assert result.rejected < result.actions


def test_partners_holding_each_others_cards_let_one_go() -> None:
    """Nothing wanted shows in the middle for six sweeps: swap a card we do not collect; after
    twelve, give up the rank collected (a card of it goes to the middle, for the partner)."""
    from kemps.bots.player import STUCK_SWEEPS

    bot = _bot("club", rules=find_preset("squarescores"))
    _deal(bot, "7H 7S 7D 9C", "2C 3D 4H 2S")
    assert bot._best_swap() is None  # nothing wanted: wait
    target = bot.target
    assert target == "7"
    bot.watch.sweeps = STUCK_SWEEPS
    first = bot._best_swap()
    assert first is not None and first.give == tuple(parse_cards("9C"))
    assert first.take == tuple(parse_cards("2C"))  # the first card: none matches the hand
    bot.watch.sweeps = 2 * STUCK_SWEEPS
    second = bot._best_swap()
    assert second is not None and second.give[0].rank == "7"


def test_grab_then_discard_where_a_hold_limit_exists() -> None:
    """S4 (points-to-five, hold limit 3 s): club and sharp grab the card they want, then
    discard the card they collect least well, inside the hold limit; casual swaps."""
    rules = find_preset("points-to-five")
    bot = _bot("club", rules=rules)
    bot.on_events([SignalsAgreed(0.0, 0, 0, ("touch_ear",))], 0.0)
    plans = _deal(bot, "7H 7S 7D 9C", "7C 2D 3H 4S")
    grab = [p for p in plans if isinstance(p.action, Grab)]
    assert [p.action for p in grab] == [Grab(0, tuple(parse_cards("7C")))]
    assert not any(isinstance(a, Swap) for a in _actions(plans))
    plans = bot.on_events([Grabbed(1.0, 0, tuple(parse_cards("7C")), (0,), 4.0)], 1.0)
    discard = [p for p in plans if isinstance(p.action, Discard)]
    assert [p.action for p in discard] == [Discard(0, tuple(parse_cards("9C")))]
    assert HUMAN_MIN_S <= discard[0].delay < rules.hold_limit_s
    plans = bot.on_events([Discarded(2.0, 0, tuple(parse_cards("9C")), (0,))], 2.0)
    assert [p.action for p in plans if p.channel == "signal"] == [GestureAction(0, "touch_ear")]
    casual = _bot("casual", rules=rules)
    plans = _deal(casual, "7H 7S 7D 9C", "7C 2D 3H 4S")
    assert any(isinstance(a, Swap) for a in _actions(plans))
    assert not any(isinstance(a, Grab) for a in _actions(plans))


def test_double_kemps_when_both_partners_hold_four() -> None:
    for preset, kind in (("points-to-five", "double_kemps"), ("pagat", "kemps")):
        bot = _bot("sharp", seat=2, rules=find_preset(preset))
        bot.on_events([SignalsAgreed(0.0, 0, 0, ("touch_ear",))], 0.0)
        _deal(bot, "7H 7S 7D 7C", "KC QH JS 3C")
        calls = [p.action for p in bot.on_events([Gestured(2.0, 0, "touch_ear", False)], 2.0)
                 if isinstance(p.action, Call)]
        assert calls == [Call(2, kind)], preset  # type: ignore[arg-type]
    holds_three = _bot("sharp", seat=2, rules=find_preset("points-to-five"))
    holds_three.on_events([SignalsAgreed(0.0, 0, 0, ("touch_ear",))], 0.0)
    _deal(holds_three, "7H 7S 7D 2C", "KC QH JS 3C")
    calls = [p.action for p in holds_three.on_events([Gestured(2.0, 0, "touch_ear", False)], 2.0)
             if isinstance(p.action, Call)]
    assert calls == [Call(2, "kemps")]


def test_a_speed_replaces_the_reaction_times_and_nothing_else() -> None:
    from dataclasses import replace

    from kemps.bots.levels import SPEEDS, find_speed
    from kemps.bots.simple import SimpleBot

    for level in ("casual", "club", "sharp"):
        bot = make_bot(level, 0, PAGAT, random.Random(1), speed="relaxed")
        assert isinstance(bot, KempsBot)
        assert bot.level == replace(LEVELS[level], reaction_s=SPEEDS["relaxed"])
        assert all(bot._react() >= SPEEDS["relaxed"][0] for _ in range(50))
    simple = make_bot("simple", 0, PAGAT, random.Random(1), speed="sharp")
    assert isinstance(simple, SimpleBot) and simple.reaction_s == SPEEDS["sharp"]
    assert make_bot("sharp", 0, PAGAT, random.Random(1)).level == LEVELS["sharp"]  # type: ignore[attr-defined]
    with pytest.raises(KempsError) as err:
        find_speed("warp")
    assert err.value.code == "unknown_speed"
    # Relaxed leaves a person reacting in half a second ahead in most races for a call.
    lo, hi = SPEEDS["relaxed"]
    assert (hi - 0.5) / (hi - lo) > 0.8


def test_bot_modules_import_in_one_direction() -> None:
    """Issue 10 item 6: the bots' modules form a one-way order (no module imports, even lazily
    inside a function, a module that imports it back): base, seatcards, eyes, simple, strength, watch,
    player, learned, levels, families, scripted."""
    import ast
    from pathlib import Path

    import kemps.bots

    folder = Path(kemps.bots.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        if path.stem == "__init__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[path.stem] = {
            node.module.rsplit(".", 1)[1] for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            and node.module.startswith("kemps.bots.")}
    order = ["base", "seatcards", "eyes", "simple", "strength", "watch", "player", "learned", "levels",
             "families", "scripted"]
    assert sorted(graph) == sorted(order)
    for i, module in enumerate(order):
        assert graph[module] <= set(order[:i]), (module, graph[module] - set(order[:i]))


def test_double_stop_when_both_opponents_were_seen_taking_two_of_a_kind() -> None:
    """S4: "You may also call double counter kemps if you think both opposing players have two
    of a kind": sharp calls it once both players of the other pair took two cards of one rank
    in public (never on a guess), not while one of them holds a grabbed card (the call would do
    nothing, ``immune_while_holding``), and only where the table plays it; casual and club do
    not (with club calling it too, sharp won only half of 400 points-to-five matches against it).
    """
    rules = find_preset("points-to-five")
    for level in ("sharp",):
        bot = _bot(level, rules=rules)
        _deal(bot, "2C 3D 4H 5S", "KC QH JS 3C")
        one = Swapped(1.0, 1, tuple(parse_cards("9D 9H")), tuple(parse_cards("KC QH")), (0, 1))
        plans = bot.on_events([one], 1.0)
        assert not any(isinstance(a, Call) for a in _actions(plans))  # one of them only
        grab = Grabbed(1.5, 3, tuple(parse_cards("8D 8H")), (0, 1), 4.5)
        plans = bot.on_events([grab], 1.5)
        assert not any(isinstance(a, Call) for a in _actions(plans))  # holding: immune
        plans = bot.on_events([Discarded(2.0, 3, tuple(parse_cards("2D 4C")), (0, 1))], 2.0)
        calls = [p for p in plans if isinstance(p.action, Call)]
        assert [p.action for p in calls] == [Call(0, "double_stop", on_pair=1)], level
        assert calls[0].delay >= HUMAN_MIN_S
    for level in ("casual", "club"):
        other = _bot(level, rules=rules)
        _deal(other, "2C 3D 4H 5S", "KC QH JS 3C")
        other.on_events([Swapped(1.0, 1, tuple(parse_cards("9D 9H")),
                                 tuple(parse_cards("KC QH")), (0, 1))], 1.0)
        plans = other.on_events([Swapped(2.0, 3, tuple(parse_cards("8D 8H")),
                                         tuple(parse_cards("2D 4C")), (0, 1))], 2.0)
        assert not any(isinstance(a, Call) for a in _actions(plans)), level
    pagat = _bot("sharp")  # no double calls at this table
    _deal(pagat, "2C 3D 4H 5S", "KC QH JS 3C")
    pagat.on_events([Swapped(1.0, 1, tuple(parse_cards("9D 9H")), tuple(parse_cards("KC QH")),
                             (0, 1))], 1.0)
    plans = pagat.on_events([Swapped(2.0, 3, tuple(parse_cards("8D 8H")),
                                     tuple(parse_cards("2D 4C")), (0, 1))], 2.0)
    assert not any(isinstance(a, Call) and a.kind == "double_stop" for a in _actions(plans))
