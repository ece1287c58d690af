"""Issue 25, "Your pair is yours": a partner proposes new signals, the other accepts or keeps the
pair's own; a bot with a person for a partner proposes a change instead of making it alone, never
a heard gesture where the table bans heard signals, and says so when it proposes one that every
seat hears.

Rules: S1 "each two player team goes away and privately agrees a signal"; S0 "pairs may agree a
new signal before the next round"; S1/S2 "words are not allowed" (a silent table: seen signals
only); S0 "a blink, a cough, a word" (a heard one reaches everyone at the table).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from kemps.actions import (
    SIGNAL_ACTIONS,
    AgreeSignals,
    Call,
    Deal,
    DeclineSignals,
    ProposeSignals,
    action_from_dict,
    action_to_dict,
)
from kemps.bots.base import Plan
from kemps.bots.levels import make_bot
from kemps.bots.player import KempsBot
from kemps.bots.simple import SimpleBot
from kemps.bots.strength import CLUB, LEVELS
from kemps.cards import parse_cards, shuffled_pack
from kemps.driver import MatchDriver, Step
from kemps.errors import REJECTION_CODES, Rejected
from kemps.events import (
    Called,
    CallJudged,
    Event,
    HandDealt,
    HandEnded,
    SignalsAgreed,
    SignalsDeclined,
    SignalsProposed,
    event_to_dict,
)
from kemps.gestures import HEARD, SEEN
from kemps.narrate import describe
from kemps.record import MatchRecord, replay
from kemps.rules import RuleSet, find_preset
from kemps.table import Table
from kemps.views import event_for, events_for, view_for

PAGAT = find_preset("pagat")  # a silent table (S1: "words are not allowed")
LOUD = PAGAT.replace(heard_signals=True)  # heard signals allowed (S0)


def strings(obj: Any) -> set[str]:
    """Every string anywhere in a JSON value."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings(v) for v in obj.values())) | set(obj)
    if isinstance(obj, list):
        return set().union(*(strings(v) for v in obj)) if obj else set()
    return set()


def actions(plans: list[Plan]) -> list[Any]:
    return [p.action for p in plans if p.action is not None]


# == the engine ====================================================================================
def test_a_proposal_changes_nothing_until_the_partner_accepts() -> None:
    t = Table(LOUD)
    t.apply(AgreeSignals(0, ("nod",)), now=1.0)
    events = t.apply(ProposeSignals(2, ("whistle",)), now=2.0)
    assert events == [SignalsProposed(2.0, 0, 2, ("whistle",))]
    assert t.signals[0] == ("nod",) and t.proposals[0] == (2, ("whistle",))
    # Only the partner may answer it (the proposer cannot decline its own).
    assert view_for(t, 0).legal.decline_signals and not view_for(t, 2).legal.decline_signals
    assert not view_for(t, 1).legal.decline_signals
    with pytest.raises(Rejected) as err:
        t.apply(DeclineSignals(2), now=2.5)
    assert err.value.code == "no_proposal" and "no_proposal" in REJECTION_CODES
    accepted = t.apply(AgreeSignals(0, ("whistle",)), now=3.0)
    assert accepted == [SignalsAgreed(3.0, 0, 0, ("whistle",))]
    assert t.signals[0] == ("whistle",) and t.proposals[0] is None
    assert view_for(t, 0).proposal is None and not view_for(t, 0).legal.decline_signals


def test_keep_ours_and_a_lapsed_proposal_keep_the_pairs_signals() -> None:
    t = Table(PAGAT)
    t.apply(AgreeSignals(0, ("nod",)), now=1.0)
    t.apply(ProposeSignals(2, ("wink",)), now=2.0)
    assert t.apply(DeclineSignals(0), now=3.0) == [SignalsDeclined(3.0, 0, 0)]
    assert t.signals[0] == ("nod",) and t.proposals[0] is None
    with pytest.raises(Rejected) as err:  # nothing left to decline
        t.apply(DeclineSignals(0), now=3.5)
    assert err.value.code == "no_proposal"
    # A proposal nobody answers lapses at the deal: the old signal stands.
    t.apply(ProposeSignals(0, ("yawn",)), now=4.0)
    t.apply(ProposeSignals(1, ("blink",)), now=4.0)
    t.apply(Deal(tuple(shuffled_pack(1, random.Random(3)))), now=5.0)
    assert t.proposals == [None, None] and t.signals == [("nod",), ()]
    assert view_for(t, 2).proposal is None and not view_for(t, 2).legal.decline_signals
    # During a hand nothing is proposed or declined (signals are agreed between hands).
    for action in (ProposeSignals(0, ("yawn",)), DeclineSignals(2)):
        with pytest.raises(Rejected) as err:
            t.apply(action, now=6.0)
        assert err.value.code == "no_huddle"


def test_a_proposal_is_checked_as_an_agreement_is() -> None:
    """A silent table refuses a heard proposal (S1/S2); a proposal is 1 to 3 palette gestures and
    not the pair's signals already."""
    t = Table(PAGAT)
    t.apply(AgreeSignals(0, ("nod", "wink")), now=1.0)
    for signals, code in [(("whistle",), "heard_forbidden"), (("juggle",), "unknown_gesture"),
                          ((), "bad_action"), (("nod", "nod"), "bad_action"),
                          (("nod", "wink"), "bad_action"), (("wink", "nod"), "bad_action"),
                          (("a", "b", "c", "d"), "bad_action")]:
        with pytest.raises(Rejected) as err:
            t.apply(ProposeSignals(2, signals), now=2.0)
        assert err.value.code == code, signals
    assert t.proposals == [None, None] and t.version == 1


def test_a_later_proposal_replaces_the_earlier_and_the_partner_may_overrule_it() -> None:
    t = Table(PAGAT)
    t.apply(AgreeSignals(0, ("nod",)), now=1.0)
    t.apply(ProposeSignals(2, ("wink",)), now=2.0)
    t.apply(ProposeSignals(0, ("yawn",)), now=2.5)  # a counter-proposal
    assert t.proposals[0] == (0, ("yawn",))
    assert view_for(t, 2).legal.decline_signals and not view_for(t, 0).legal.decline_signals
    t.apply(AgreeSignals(2, ("blink",)), now=3.0)  # an agreement of other gestures ends it
    assert t.signals[0] == ("blink",) and t.proposals[0] is None


@pytest.mark.parametrize("pairs", [2, 3])
def test_a_proposal_and_its_answer_reach_the_pair_only(pairs: int) -> None:
    """views.py, the one road: the pair sees its proposal and the answer; the other pairs and
    spectators see no event, no view field and no sentence of it (as a SignalsAgreed)."""
    rules = LOUD.replace(pairs=pairs)
    t = Table(rules, [f"P{i}" for i in range(2 * pairs)])
    t.apply(AgreeSignals(0, ("nod",)), now=1.0)
    events = t.apply(ProposeSignals(pairs, ("whistle", "tilt_head")), now=2.0)
    for seat in [*range(2 * pairs), None]:
        view = view_for(t, seat).to_dict()
        ours = seat is not None and seat % pairs == 0
        assert view["proposal"] == ({"seat": pairs, "signals": ["whistle", "tilt_head"]}
                                    if ours else None)
        if not ours:
            assert not strings(view) & {"whistle", "tilt_head", "nod"}
            assert events_for(events, seat, pairs) == []
            assert event_for(events[0], seat, pairs) is None
            assert describe(t, events[0], seat=seat) is None
    declined = t.apply(DeclineSignals(0), now=3.0)
    assert [e.pair for e in events_for(declined, pairs, pairs)] == [0]
    for seat in [*range(1, pairs), None]:
        assert events_for(declined, seat, pairs) == []
    assert event_to_dict(events[0]) == {"type": "signals_proposed", "t": 2.0, "pair": 0,
                                        "seat": pairs, "signals": ["whistle", "tilt_head"]}
    assert event_to_dict(declined[0]) == {"type": "signals_declined", "t": 3.0, "pair": 0,
                                          "seat": 0}


def test_the_pair_is_told_that_a_heard_signal_reaches_everyone() -> None:
    t = Table(LOUD, ["Ana", "Ben", "Cleo", "Dov"])
    heard = t.apply(ProposeSignals(2, ("whistle",)), now=1.0)[0]
    assert describe(t, heard, seat=0) == ("Cleo proposes a new signal: whistle (whistle is "
                                          "heard: everyone at the table hears it).")
    seen = t.apply(ProposeSignals(2, ("nod",)), now=2.0)[0]
    assert describe(t, seen, seat=0) == "Cleo proposes a new signal: nod."
    agreed = t.apply(AgreeSignals(0, ("cough", "nod")), now=3.0)[0]
    assert describe(t, agreed, seat=2) == ("Ana and Cleo agree a signal: cough or nod (cough is "
                                           "heard: everyone at the table hears it).")
    kept = SignalsDeclined(4.0, 0, 0)
    assert describe(t, kept, seat=2) == "Ana keeps the pair's signal: the proposal is off."
    assert describe(t, kept, seat=1) is None


def test_the_actions_wire_form_and_a_public_record_without_them() -> None:
    for action, wire in [(ProposeSignals(2, ("nod",)), {"type": "propose_signals", "seat": 2,
                                                        "signals": ["nod"]}),
                         (DeclineSignals(0), {"type": "decline_signals", "seat": 0})]:
        assert action_to_dict(action) == wire and action_from_dict(wire) == action
    with pytest.raises(Rejected):
        action_from_dict({"type": "decline_signals", "seat": 0, "signals": ["nod"]})
    assert {"agree_signals", "propose_signals", "decline_signals"} == SIGNAL_ACTIONS


# == bots: a driver with a person at seat 0 =======================================================
def _changers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Club bots that want a new signal every huddle (as if every signal had been read)."""
    monkeypatch.setitem(LEVELS, "club", replace(CLUB, change_anyway=1.0))


def _driver(rules: RuleSet, level: str = "club", seed: int = 7,
            ready_huddle_s: float = 0.5) -> MatchDriver:
    """Pat (a person) at seat 0; bots of ``level`` at 1, 2 (Pat's partner) and 3."""
    rng = random.Random(seed)
    bots = {s: make_bot(level, s, rules, random.Random(rng.randrange(2**32)))
            for s in (1, 2, 3)}
    return MatchDriver(rules, ["Pat", "Bo", "Cleo", "Dov"], 0, bots, rng, people=[0],
                       huddle_s=20.0, ready_huddle_s=ready_huddle_s, signals_first=True)


def _run(driver: MatchDriver, until: float, steps: list[Step]) -> float:
    """Everything due up to table time ``until`` (deals, timers, bots' moves); returns it."""
    while (nxt := driver.next_wake()) is not None and nxt <= until:
        steps += driver.wake(nxt)
    return until


def _to_huddle(driver: MatchDriver, steps: list[Step], now: float) -> float:
    """Pat says ready, the hand is dealt; Pat calls a wrong Kemps at once (pagat: the hand
    ends). Returns the time."""
    if driver.table.phase == "huddle":
        driver.mark_ready(0, now)
    while driver.table.phase == "huddle":
        nxt = driver.next_wake()
        assert nxt is not None
        steps += driver.wake(nxt)
        now = nxt
    step = driver.act(0, Call(0, "kemps"), now + 0.5)
    judged = [e for e in step.events if isinstance(e, CallJudged)]
    assert judged and not judged[0].right and driver.table.phase == "huddle"
    return now + 0.5


def _proposals(steps: list[Step]) -> list[SignalsProposed]:
    return [e for s in steps for e in s.events if isinstance(e, SignalsProposed)]


@pytest.mark.parametrize("level", ["club", "simple"])
def test_a_bot_with_a_person_partner_proposes_and_the_person_decides(
        monkeypatch: pytest.MonkeyPatch, level: str) -> None:
    """The bot partner (seat 2) asks; its proposal changes nothing until Pat answers: ignored it
    lapses at the deal, "Keep ours" keeps the nod, "Accept" changes the pair's signal. The bot
    pair across the table (1 and 3) agrees its changes as it always has."""
    _changers(monkeypatch)
    driver = _driver(PAGAT, level)
    bot = driver.bots[2]
    assert isinstance(bot, KempsBot | SimpleBot)
    if isinstance(bot, SimpleBot):
        monkeypatch.setattr(bot, "was_read", True)  # as if a Stop Kemps had caught the pair
    steps: list[Step] = []
    driver.start(0.0)
    steps.append(driver.act(0, AgreeSignals(0, ("nod",)), 0.2))
    assert bot.partner_person and not driver.bots[1].partner_person  # type: ignore[union-attr]
    now = _run(driver, 6.0, steps)
    assert driver.table.signals[0] == ("nod",)  # the bot's own first pick gave way to Pat's
    for answer in ("ignore", "keep", "accept"):
        if isinstance(bot, SimpleBot):
            bot.was_read = True
        steps = []
        now = _to_huddle(driver, steps, now)
        now = _run(driver, now + 6.0, steps)
        proposed = _proposals(steps)
        assert [(e.seat, e.pair) for e in proposed] == [(2, 0)], answer
        assert driver.table.signals[0] == ("nod",) and driver.table.proposals[0] == (
            2, proposed[0].signals)
        assert not [e for s in steps for e in s.events
                    if isinstance(e, SignalsAgreed) and e.pair == 0], answer
        if answer == "keep":
            steps.append(driver.act(0, DeclineSignals(0), now))
            now = _run(driver, now + 6.0, steps)
            assert driver.table.signals[0] == ("nod",) and len(_proposals(steps)) == 1
        elif answer == "accept":
            steps.append(driver.act(0, AgreeSignals(0, proposed[0].signals), now))
            assert driver.table.signals[0] == proposed[0].signals
            assert bot.signals == proposed[0].signals
        else:  # nobody answers: the deal comes and the nod stands
            driver.mark_ready(0, now)
            now = _run(driver, now + 3.0, steps)
            assert driver.table.phase == "play" and driver.table.signals[0] == ("nod",)
            assert driver.table.proposals == [None, None]
    # Every change of the other pair was agreed, none proposed.
    assert not [e for e in _proposals(steps) if e.pair == 1]


def test_a_stand_in_accepts_what_its_partner_proposed_and_the_flags_follow_the_seat() -> None:
    """A person away: the stand-in bot at seat 0 agrees the bot partner's open proposal (a bot
    accepts whatever its partner proposes); the partner bot is told it plays with a bot now, and
    with a person again once Pat is back."""
    driver = _driver(PAGAT, ready_huddle_s=10.0)
    driver.start(0.0)
    driver.act(0, AgreeSignals(0, ("nod",)), 0.1)
    driver.act(2, ProposeSignals(2, ("wink",)), 0.2)  # as the bot partner would
    partner = driver.bots[2]
    assert isinstance(partner, KempsBot) and partner.partner_person
    stand_in = make_bot("club", 0, PAGAT, random.Random(1))
    driver.seat_bot(0, stand_in, 0.3)
    assert not partner.partner_person and isinstance(stand_in, KempsBot)
    assert stand_in.partner_person is False
    assert [a for a in driver.planned(0) if isinstance(a, AgreeSignals)] == [
        AgreeSignals(0, ("wink",))]
    steps: list[Step] = []
    _run(driver, 3.0, steps)
    assert driver.table.signals[0] == ("wink",) and driver.table.proposals[0] is None
    driver.unseat_bot(0)
    assert partner.partner_person


# == bots never choose a heard signal at a silent table ============================================
def _dealt(bot: KempsBot | SimpleBot, hand_no: int, t: float) -> list[Plan]:
    hands = tuple(parse_cards("2H 5S 9C JD") if s == bot.seat else () for s in range(bot.n))
    return bot.on_events([HandDealt(t, hand_no, 0, hands, tuple(parse_cards("KC QH JS 3C")), 30,
                                    None)], t)


def _read(bot: KempsBot | SimpleBot) -> tuple[list[Plan], list[Plan]]:
    """The pair agrees a nod; in hand 1 a right Stop Kemps catches it: the bot wants a new one.
    Returns (every plan, the plans of the huddle after hand 1)."""
    plans = bot.on_events([SignalsAgreed(0.0, 0, 0, ("nod",))], 0.0)
    plans += _dealt(bot, 1, 1.0)
    if isinstance(bot, SimpleBot):
        bot.was_read = True  # (what its Revealed after a Stop on its pair sets)
        events: list[Event] = [HandEnded(5.0, 1, "call", True)]
    else:
        bot.last_call = Called(5.0, 1, "stop", None, 0)
        bot.shown_four = [0]
        events = [CallJudged(5.0, 1, "stop", True, (0, 2)), HandEnded(5.0, 1, "call", True)]
    last = bot.on_events(events, 5.0)
    return plans + last, last


@pytest.mark.parametrize("level", ["simple", "casual", "club", "sharp"])
def test_bots_never_propose_or_agree_a_heard_signal_at_a_silent_table(level: str) -> None:
    """Over many bots: at a silent table every signal a bot proposes or agrees is seen (S1, S2);
    where heard ones are allowed some proposals are heard (so the check can fail)."""
    chosen: dict[bool, set[str]] = {False: set(), True: set()}
    for loud in (False, True):
        rules = LOUD if loud else PAGAT
        for seed in range(60):
            bot = make_bot(level, 2, rules, random.Random(seed))
            assert isinstance(bot, KempsBot | SimpleBot)
            bot.on_partner(True)
            for a in actions(_read(bot)[0]):
                if isinstance(a, ProposeSignals | AgreeSignals):
                    chosen[loud] |= set(a.signals)
            first = make_bot(level, 0, rules, random.Random(seed))  # a pair with no signal yet
            first.on_partner(True)
            view = view_for(Table(rules), 0)
            for a in actions(first.on_view(view, 0.0)):
                if isinstance(a, AgreeSignals):
                    chosen[loud] |= set(a.signals)
    assert chosen[False] and chosen[False] <= set(SEEN), chosen[False] & set(HEARD)
    assert chosen[True] & set(HEARD)


@pytest.mark.parametrize("level", ["simple", "club"])
def test_a_bot_proposes_to_a_person_and_agrees_with_a_bot(level: str) -> None:
    """The same bot, the same moment (its signal read): to a person partner it proposes; to a
    bot partner it agrees (today's behaviour, which the records' hash keeps)."""
    kinds = {}
    for person in (True, False):
        bot = make_bot(level, 0, PAGAT, random.Random(5))
        assert isinstance(bot, KempsBot | SimpleBot)
        bot.on_partner(person)
        found = [a for a in actions(_read(bot)[1])
                 if isinstance(a, ProposeSignals | AgreeSignals)]
        assert len(found) == 1 and found[0].signals != ("nod",)
        kinds[person] = type(found[0])
    assert kinds == {True: ProposeSignals, False: AgreeSignals}


@pytest.mark.parametrize("seat", [0, 2])
@pytest.mark.parametrize("level", ["simple", "club"])
def test_a_bot_accepts_its_partners_proposal_and_drops_its_own_plan(level: str,
                                                                     seat: int) -> None:
    """In either seat of the pair (the first seat, too, gives way to its person partner)."""
    bot = make_bot(level, seat, PAGAT, random.Random(2))
    assert isinstance(bot, KempsBot | SimpleBot)
    bot.on_partner(True)
    partner = 2 - seat
    _read(bot)  # its own proposal is planned ...
    plans = bot.on_events([SignalsProposed(6.0, 0, partner, ("yawn",))], 6.0)  # ... theirs wins
    assert [(p.channel, p.action) for p in plans if p.action is not None] == [
        ("table", AgreeSignals(seat, ("yawn",)))]
    # The person agreed something else meanwhile: that stands, the bot's plan is dropped.
    plans = bot.on_events([SignalsAgreed(7.0, 0, partner, ("blink",))], 7.0)
    assert Plan(0.0, None, "table") in plans and bot.signals == ("blink",)


def test_a_declined_or_lapsed_proposal_is_not_made_again() -> None:
    """After "Keep ours" (or no answer before the deal) the bot does not ask again for the same
    reason: the next huddle brings a proposal only for a new one."""
    for lapse in (False, True):
        bot = make_bot("casual", 2, PAGAT, random.Random(4))
        assert isinstance(bot, KempsBot)
        bot.level = replace(bot.level, change_anyway=0.0)  # asks only when the signal was read
        bot.on_partner(True)
        proposal = [a for a in actions(_read(bot)[1]) if isinstance(a, ProposeSignals)]
        assert len(proposal) == 1 and bot.change_signal
        bot.on_events([SignalsProposed(6.0, 0, 2, proposal[0].signals)], 6.0)
        if not lapse:
            bot.on_events([SignalsDeclined(7.0, 0, 0)], 7.0)
            assert not bot.change_signal
        _dealt(bot, 2, 9.0)  # unanswered, the proposal lapses at the deal
        assert not bot.change_signal and bot.signals == ("nod",) and bot.proposed is None
        again = bot.on_events([HandEnded(20.0, 2, "call", True)], 20.0)
        assert not [a for a in actions(again) if isinstance(a, ProposeSignals | AgreeSignals)]


# == records ======================================================================================
def test_a_record_with_proposals_replays_and_replays_the_same_without_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A public record leaves every signal action out (SIGNAL_ACTIONS: the history, a withheld
    pair's replay); the match replays to the same hands and scores without them."""
    _changers(monkeypatch)
    driver = _driver(PAGAT)
    steps: list[Step] = []
    driver.start(0.0)
    driver.act(0, AgreeSignals(0, ("nod",)), 0.2)
    now = _run(driver, 6.0, steps)
    now = _to_huddle(driver, steps, now)
    _run(driver, now + 6.0, steps)
    assert _proposals(steps)
    driver.act(0, DeclineSignals(0), now + 6.0)
    record = driver.recorder.record
    data = json.loads(record.to_json())
    kinds = {a["type"] for a in data["actions"]}
    assert {"propose_signals", "decline_signals", "agree_signals"} <= kinds
    full = replay(MatchRecord.from_dict(data))
    data["actions"] = [a for a in data["actions"] if a["type"] not in SIGNAL_ACTIONS]
    public = replay(MatchRecord.from_dict(data))
    assert public.table.state_text() == full.table.state_text() == driver.table.state_text()
    assert public.table.signals == [(), ()] and public.table.proposals == [None, None]


def test_a_withheld_pairs_replay_leaves_out_its_proposals_too(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay's record of a pair that withholds its signals (or still gives them) has none of
    its agreements, proposals or answers; the other pair's stay."""
    from kemps.server.replays import revealed_record

    _changers(monkeypatch)
    driver = _driver(PAGAT)
    steps: list[Step] = []
    driver.start(0.0)
    driver.act(0, AgreeSignals(0, ("nod",)), 0.2)
    now = _to_huddle(driver, steps, _run(driver, 6.0, steps))
    _run(driver, now + 6.0, steps)
    driver.act(0, DeclineSignals(0), now + 6.0)
    found = {"record": driver.recorder.record.to_dict()}
    for withheld in (frozenset({0}), frozenset({1})):
        record = revealed_record(found, withheld)
        left = {(action_to_dict(a)["type"], a.seat % 2) for _, a in record.actions
                if action_to_dict(a)["type"] in SIGNAL_ACTIONS and a.seat is not None}
        other = 1 - min(withheld)
        assert not {p for _, p in left} & withheld
        assert ("agree_signals", other) in left
        if other == 0:
            assert {("propose_signals", 0), ("decline_signals", 0)} <= left
        assert replay(record).table.state_text() == driver.table.state_text()

