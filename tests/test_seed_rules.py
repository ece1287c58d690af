"""One test (or a small parametrized group) per engine-checkable rule row of the seed documents.

Seed shorthand as in the team's shared RULES-NOTES.md: S0 = 000_* (SquareScores), S1 = 001_* (Pagat),
S2 = 002_* (rules site: rule rows, variations, tournament), S4 = 004_* (points-based house rules).
Each test's docstring names the seed and the row or passage it checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kemps.actions import (
    AgreeSignals,
    Call,
    Chat,
    Deal,
    Discard,
    Gesture,
    Go,
    Grab,
    Object,
    ProposeStall,
    RuleTableTalk,
    Swap,
)
from kemps.cards import parse_card, parse_cards
from kemps.errors import Rejected, RuleError
from kemps.events import (
    Called,
    CallJudged,
    CallVoid,
    Discarded,
    Gestured,
    Grabbed,
    HandDealt,
    HandEnded,
    HoldExpired,
    MatchEnded,
    Objected,
    ObjectionLapsed,
    PlayOpened,
    Revealed,
    Scored,
    SignalsAgreed,
    StallCancelled,
    StallProposed,
    StallResumed,
    StockReshuffled,
    Swapped,
    Swept,
    TableTalkRuled,
)
from kemps.rules import RuleSet, find_preset
from kemps.table import Table, stacked_order
from kemps.views import event_for, letters_text, view_for

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------

#: Seat 0 holds three sevens; the 7C in the middle makes four (swap the 6C away).
SEVENS = ["7H 7S 7D 6C"]
SEVENS_MIDDLE = "7C 9D 9H 9S"


def rules(preset: str = "pagat", **changes: Any) -> RuleSet:
    r = find_preset(preset)
    return r.replace(**changes) if changes else r


def table(preset: str = "pagat", first_dealer: int = 0, **changes: Any) -> Table:
    r = rules(preset, **changes)
    return Table(r, [f"P{i}" for i in range(r.players)], first_dealer=first_dealer)


def deal(t: Table, hands: Sequence[str] = (), middle: str = "", stock: str = "",
         now: float = 0.0, seed: int = 0) -> list[Any]:
    """Deal a stacked hand: ``hands[seat]`` named cards (the rest filled in pack order)."""
    rows = list(hands) + [""] * (t.n - len(hands))
    order = stacked_order(t.rules, rows, middle=middle, stock=stock, dealer=t.dealer)
    return t.apply(Deal(order, reshuffle_seed=seed), now=now)


def swap(t: Table, seat: int, take: str, give: str, now: float = 1.0) -> list[Any]:
    return t.apply(Swap(seat, parse_cards(take), parse_cards(give)), now=now)


def call(t: Table, seat: int, kind: str = "kemps", now: float = 1.0,
         on_seat: int | None = None, on_pair: int | None = None) -> list[Any]:
    return t.apply(Call(seat, kind, on_seat=on_seat, on_pair=on_pair), now=now)  # type: ignore[arg-type]


def of(events: Sequence[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def one(events: Sequence[Any], cls: type) -> Any:
    found = of(events, cls)
    assert len(found) == 1, f"expected one {cls.__name__} in {events}"
    return found[0]


def scored(events: Sequence[Any]) -> dict[int, int]:
    """{pair: amount} of the Scored events."""
    return {e.pair: e.amount for e in of(events, Scored)}


def rejects(t: Table, action: Any, now: float, code: str) -> Rejected:
    """Apply ``action``, expect ``code``, and check that the table did not change at all."""
    before, version = t.state_text(), t.version
    views = [view_for(t, s).to_dict() for s in range(t.n)]
    with pytest.raises(Rejected) as info:
        t.apply(action, now=now)
    assert info.value.code == code, info.value
    assert t.state_text() == before
    assert t.version == version
    assert [view_for(t, s).to_dict() for s in range(t.n)] == views
    return info.value


def make_four(t: Table, now: float = 1.0) -> None:
    """Deal SEVENS and let seat 0 swap the 6C for the 7C: seat 0 holds four sevens."""
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    swap(t, 0, "7C", "6C", now=now)
    assert t.holds_four(0)


def sweep_once(t: Table, now: float) -> list[Any]:
    """Have the middle swept once, the way this table's ``sweep`` option does it."""
    events = t.apply(ProposeStall(t.dealer), now=now)
    if t.rules.sweep == "any_player_unless_objection":
        events += t.advance(now + t.rules.sweep_countdown_s)
    return events


def exhaust(t: Table, now: float = 1.0) -> list[Any]:
    """Sweep until the hand ends (real deal) or 40 sweeps pass."""
    events: list[Any] = []
    for _ in range(40):
        if t.phase != "play":
            break
        events += sweep_once(t, now)
        now += t.rules.sweep_countdown_s + 0.5
    return events


def right_kemps_hand(t: Table, caller: int, now: float = 0.0) -> list[Any]:
    """Deal so the caller's partner holds four sevens, then the caller calls Kemps (right)."""
    hands = [""] * t.n
    hands[t.partner_of(caller)] = "7H 7S 7D 7C"
    events = deal(t, hands, now=now)
    return events + call(t, caller, "kemps", now=now + 0.5)


def wrong_kemps_hand(t: Table, caller: int, now: float = 0.0) -> list[Any]:
    events = deal(t, now=now)
    return events + call(t, caller, "kemps", now=now + 0.5)


# ---------------------------------------------------------------------------------------------
# players, partners, deal
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("pairs", [2, 3, 4, 5, 6, 8, 10, 12])
def test_partners_sit_opposite(pairs: int) -> None:
    """S0 'Players and equipment' / S1 'Players and Cards' / S2 first table row 1 and signals row 7:
    teams of two, partners sit across from each other, nobody sits beside their own partner
    (2..6 pairs, S2 'two to six teams')."""
    t = table(pairs=pairs)
    n = 2 * pairs
    assert t.n == n
    for s in range(n):
        p = t.partner_of(s)
        assert p == (s + pairs) % n and p != s
        assert t.partner_of(p) == s
        assert t.pair_of(s) == t.pair_of(p) == s % pairs
        # the neighbours on both sides are opponents
        assert t.pair_of((s + 1) % n) != t.pair_of(s)
        assert t.pair_of((s - 1) % n) != t.pair_of(s)
        assert s in t.seats_of(t.pair_of(s))
    assert sorted(s for p in range(pairs) for s in t.seats_of(p)) == list(range(n))


@pytest.mark.parametrize("pairs", [2, 3, 4, 5, 6, 8, 10, 12])
def test_four_cards_each_and_four_in_the_middle(pairs: int) -> None:
    """S0 'The deal' / S1 'The Deal' / S2 rows 3-4: four cards each face down, four face up in the
    middle, the rest of the pack stays with the dealer; play opens when the last one is up."""
    t = table(pairs=pairs)
    events = deal(t)
    dealt = one(events, HandDealt)
    assert all(len(h) == 4 for h in t.hands)
    assert all(len(h) == 4 for h in dealt.hands)
    assert None not in t.middle and len(t.middle) == 4
    pack = 52 * t.rules.deck_count
    assert len(t.stock) == dealt.stock_count == pack - 4 * t.n - 4
    assert isinstance(events[-1], PlayOpened) and t.phase == "play"


@pytest.mark.parametrize(("pairs", "decks"), [(2, 1), (3, 1), (4, 1), (5, 2), (6, 2), (10, 2),
                                             (12, 2)])
def test_decks_auto_two_decks_above_eight_players(pairs: int, decks: int) -> None:
    """S1 'Players and Cards' ('if there are more than eight players, two decks may be used') and
    S2 variations row 3 ('one deck is enough for up to eight')."""
    r = rules(pairs=pairs)
    assert r.decks == "auto"
    assert r.deck_count == decks


@pytest.mark.parametrize("pairs", [7, 10, 12])
def test_a_larger_even_number_of_players(pairs: int) -> None:
    """S1 'Players and Cards': "it is possible for a larger even number of people to play" (two
    decks "if there are more than eight players"); S2 row 1: "Six, eight or more can play, always
    in pairs". A table seats as many pairs as two decks can deal (12: 96 cards dealt, 8 left for
    a fresh middle), and plays a whole hand: a right Kemps gives every other pair a letter (S1
    "With more than 4 players, all of the opposing teams get a letter")."""
    t = table(pairs=pairs)
    assert t.n == 2 * pairs and t.rules.deck_count == 2
    events = right_kemps_hand(t, caller=pairs + 1)
    assert scored(events) == {p: 1 for p in range(pairs) if p != 1}
    with pytest.raises(RuleError) as err:
        rules(pairs=13)
    assert "pairs" in err.value.message


def test_one_deck_is_a_regular_52_card_pack() -> None:
    """S2 first table row 3: one regular 52-card deck (a 104-card order is refused)."""
    t = table()
    big = stacked_order(rules(pairs=5), [""] * 10)
    rejects(t, Deal(big), 0.0, "bad_deal")
    deal(t)
    assert len(t.stock) == 52 - 20


def test_two_copies_of_a_card_are_distinguishable_and_make_four() -> None:
    """S2 variations row 3 (two decks shuffled together) and RULES-NOTES 'Four of a kind with two
    decks': the two copies are different cards, and any four of one rank count."""
    t = table(pairs=5)
    deal(t, ["7H 7H.2 7S 6C"], middle="7D 9D 9H 9S")
    assert parse_card("7H") != parse_card("7H.2")
    # the 7D.2 is not on the table, only the 7D
    rejects(t, Swap(0, parse_cards("7D.2"), parse_cards("6C")), 1.0, "card_gone")
    swap(t, 0, "7D", "6C")
    assert t.holds_four(0)
    events = call(t, t.partner_of(0))
    assert one(events, CallJudged).right


# ---------------------------------------------------------------------------------------------
# swapping
# ---------------------------------------------------------------------------------------------

def test_no_turns_anyone_swaps_at_any_moment() -> None:
    """S0 'Play' / S1 'The Play' / S2 row 5: nobody takes turns; swap whenever you like (the same
    seat twice running, several seats at the same instant)."""
    t = table()
    deal(t, ["2C 3C 4C 5C", "2D 3D 4D 5D", "2H 3H 4H 5H", "2S 3S 4S 5S"],
         middle="AC AD AH AS")
    swap(t, 3, "AS", "2S", now=1.0)
    swap(t, 3, "2S", "3S", now=1.0)
    swap(t, 1, "AD", "2D", now=1.0)
    swap(t, 2, "AH", "2H", now=1.0)
    swap(t, 2, "2D", "3H", now=1.2)
    assert set(t.hands[3]) == set(parse_cards("2S AS 4S 5S"))
    assert set(t.hands[2]) == set(parse_cards("AH 2D 4H 5H"))


def test_swap_lays_the_card_in_the_slot_and_keeps_four() -> None:
    """S1 'The Play' / S2 row 6 / RULES-NOTES: take a card, lay one from your hand face up in its
    place; your hand stays at four cards."""
    t = table()
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    events = swap(t, 0, "9H", "6C")
    s = one(events, Swapped)
    assert s.slots == (2,) and s.took == parse_cards("9H") and s.gave == parse_cards("6C")
    assert t.middle[2] == parse_card("6C")
    assert len(t.hands[0]) == 4 and parse_card("9H") in t.hands[0]
    assert all(len(h) == 4 for h in t.hands)


def test_first_to_touch_takes_the_card() -> None:
    """S1 'The Play' / S2 row 5: two hands on one card, the first to touch it takes it; the second
    swap for the same card is refused ``card_gone``."""
    t = table()
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    swap(t, 0, "7C", "6C", now=1.0)
    rejects(t, Swap(1, parse_cards("7C"), (t.hands[1][0],)), 1.0, "card_gone")


def test_one_for_one_when_multi_swap_is_off() -> None:
    """S0 'Play' ('one for one') and S2 variations row 2 ('one card at a time'):
    a two-card swap is refused ``one_card_at_a_time``."""
    t = table("squarescores")
    assert t.rules.multi_swap is False
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    rejects(t, Swap(0, parse_cards("9D 9H"), parse_cards("6C 7H")), 1.0, "one_card_at_a_time")
    swap(t, 0, "9D", "6C")


def test_multi_swap_take_two_discard_two() -> None:
    """S1 'The Play' (pick up one or more, discard an equal number of different cards) and S2
    row 6 ('Take two, and you discard two')."""
    t = table()
    deal(t, ["7H 7S 2D 6C"], middle="7C 7D 9H 9S")
    events = swap(t, 0, "7C 7D", "2D 6C")
    s = one(events, Swapped)
    assert set(s.slots) == {0, 1}
    assert t.holds_four(0)
    assert sorted(c.text for c in t.middle if c) == ["2D", "6C", "9H", "9S"]


def test_uneven_swap_rejected() -> None:
    """S1 'The Play': a player who picks up more than one card must discard an equal number,
    to reduce their hand back to four; take two, give one is ``uneven_swap``."""
    t = table()
    deal(t, ["7H 7S 2D 6C"], middle="7C 7D 9H 9S")
    rejects(t, Swap(0, parse_cards("7C 7D"), parse_cards("6C")), 1.0, "uneven_swap")
    rejects(t, Swap(0, parse_cards("7C"), parse_cards("6C 2D")), 1.0, "uneven_swap")


def test_swap_needs_the_card_in_your_hand() -> None:
    """S0 'Play': you swap a card *from your hand*; a card you do not hold is ``not_in_hand``."""
    t = table()
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    rejects(t, Swap(0, parse_cards("7C"), parse_cards("KD")), 1.0, "not_in_hand")


# ---------------------------------------------------------------------------------------------
# sweeping the middle
# ---------------------------------------------------------------------------------------------

def test_stall_sweeps_unless_someone_objects_and_play_goes_on() -> None:
    """S0 'Play': any player may say the middle has stalled; if nobody objects the dealer sweeps
    the four away and deals four fresh ones; nothing else pauses meanwhile. S2 row 7: swept cards
    are out of the hand."""
    t = table()
    deal(t, SEVENS, middle=SEVENS_MIDDLE, stock="KH KS KD KC")
    events = t.apply(ProposeStall(1), now=1.0)
    sp = one(events, StallProposed)
    assert sp.seat == 1 and sp.deadline == 1.0 + t.rules.sweep_countdown_s
    swap(t, 3, "9D", t.hands[3][0].text, now=2.0)  # nothing pauses
    assert t.advance(3.9) == []
    events = t.advance(4.0)
    sw = one(events, Swept)
    assert set(sw.swept) == set(parse_cards(f"7C {t.swept[1].text} 9H 9S"))
    assert sorted(c.text for c in t.middle if c) == ["KC", "KD", "KH", "KS"]
    assert len(t.stock) == 52 - 20 - 4
    rejects(t, Swap(0, parse_cards("7C"), parse_cards("6C")), 5.0, "card_gone")


def test_objection_pauses_countdown_until_the_objector_takes_a_card() -> None:
    """S4: "If someone objects during the countdown, the countdown is stopped until that player
    takes the card they want. The countdown then recommences." """
    t = table("points-to-five", objection_s=30.0)
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    t.apply(ProposeStall(1), now=1.0)
    one(t.apply(Object(2), now=2.0), Objected)
    assert t.stall_deadline is None and t.objectors == {2}
    assert of(t.advance(20.0), Swept) == []
    # another player's swap does not resume it
    ev = swap(t, 1, "9D", t.hands[1][0].text, now=21.0)
    assert of(ev, StallResumed) == [] and t.stall_deadline is None
    assert of(t.advance(25.0), Swept) == []
    ev = swap(t, 2, "9H", t.hands[2][0].text, now=25.0)
    resumed = one(ev, StallResumed)
    assert resumed.deadline == 25.0 + t.rules.sweep_countdown_s
    assert of(t.advance(28.0), Swept)


def test_an_objection_lapses_and_cannot_hold_the_middle_for_ever() -> None:
    """S0 'Play' ("Any player may say the middle has stalled; if nobody objects, the dealer
    sweeps") with S4's objection ("the countdown is stopped until that player takes the card they
    want"): an objection lapses after ``objection_s`` and each seat objects once a stall, so no
    player holds the middle for a whole hand (RULES-NOTES "Objections")."""
    t = table("points-to-five", idle_sweep_s=0.0)
    lapse, count = t.rules.objection_s, t.rules.sweep_countdown_s
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    t.apply(ProposeStall(1), now=1.0)
    t.apply(Object(2), now=2.0)
    rejects(t, ProposeStall(3), 2.5, "objection_pending")
    assert t.next_deadline() == 2.0 + lapse
    assert t.advance(2.0 + lapse - 0.01) == []
    events = t.advance(2.0 + lapse)
    assert one(events, ObjectionLapsed).seat == 2
    assert one(events, StallResumed).deadline == 2.0 + lapse + count
    assert t.stall_deadline == 2.0 + lapse + count and t.objectors == frozenset()
    # the same player cannot object again to this stall; another player may, once
    rejects(t, Object(2), 2.0 + lapse + 0.5, "already_objected")
    t.apply(Object(3), now=2.0 + lapse + 0.5)
    t.advance(2.0 + 2 * lapse + 0.5)
    for seat in (0, 1):
        t.apply(Object(seat), now=2.0 + 2 * lapse + 0.6)
    # every seat has objected once; after the last lapses the countdown runs to the sweep
    end = 2.0 + 3 * lapse + 0.6
    sweep = [e for e in t.advance(end + count) if isinstance(e, Swept)]
    assert len(sweep) == 1 and sweep[0].t == end + count
    # a new stall is a new countdown: objections are counted afresh
    t.apply(ProposeStall(1), now=end + count + 1.0)
    one(t.apply(Object(2), now=end + count + 1.5), Objected)


def test_object_without_a_stall_is_refused() -> None:
    """S0 'Play' ('if nobody objects'): an objection only answers a stall (``no_stall``)."""
    t = table()
    deal(t)
    rejects(t, Object(1), 1.0, "no_stall")


def test_fresh_middle_only_when_every_player_agrees() -> None:
    """S0 'Fresh middle by agreement': the middle is replaced only when every player agrees."""
    t = table("squarescores", sweep="all_agree")
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    for seat in (0, 1, 2):
        ev = t.apply(ProposeStall(seat), now=1.0)
        assert of(ev, Swept) == []
    rejects(t, ProposeStall(0), 1.0, "already_agreed")
    # a card moving in the middle lapses the agreement
    ev = swap(t, 0, "7C", "6C", now=1.5)
    one(ev, StallCancelled)
    assert t.agreed == frozenset()
    for seat in (0, 1, 2):
        t.apply(ProposeStall(seat), now=2.0)
    assert of(t.advance(500.0), Swept) == []  # never swept by a timer
    ev = t.apply(ProposeStall(3), now=500.0)
    one(ev, Swept)


@pytest.mark.parametrize("preset", ["seed2-standard", "squarescores"])
def test_dealer_only_sweeps(preset: str) -> None:
    """S2 row 7 ('The dealer sweeps them away') and S0 'Fresh middle by agreement' ('only when the
    dealer says so'): another seat is refused ``not_dealer``; the dealer sweeps at once; and
    nothing else replaces the middle: not the idle timer, however long nothing moves."""
    t = table(preset, first_dealer=1, sweep="dealer_only", idle_sweep_s=5.0)
    deal(t)
    rejects(t, ProposeStall(0), 1.0, "not_dealer")
    rejects(t, ProposeStall(None), 1.0, "no_such_seat")
    assert t.next_deadline() is None
    assert t.advance(600.0) == []
    ev = t.apply(ProposeStall(1), now=600.5)
    one(ev, Swept)


def test_a_dealer_who_is_not_playing_says_go_and_sweeps() -> None:
    """S2 tournament row 7: "Give each table a dealer who is not playing, to sweep the cards and
    judge the first touch" (``dealer="non_playing"``; online the table itself, the host may act
    for it). It deals from seat 0, says Go after ``start_countdown_s`` (or when told), and sweeps
    a middle nobody wants after ``idle_sweep_s``; no player may do either."""
    t = table("seed2-tournament", first_dealer=2)
    assert t.dealer is None and t.rules.dealer == "non_playing"
    dealt = one(deal(t, SEVENS, middle=SEVENS_MIDDLE), HandDealt)
    assert dealt.dealer is None and t.hands[0][:3] == list(parse_cards("7H 7S 7D"))
    go_at = t.rules.start_countdown_s
    assert t.phase == "dealt" and t.next_deadline() == go_at
    for seat in range(4):
        rejects(t, Go(seat), 1.0, "not_dealer")
    assert one(t.advance(go_at), PlayOpened).t == go_at
    swap(t, 0, "7C", "6C", now=go_at + 1.0)
    for seat in range(4):
        rejects(t, ProposeStall(seat), go_at + 1.5, "not_dealer")
    idle = t.rules.idle_sweep_s
    assert t.next_deadline() == go_at + 1.0 + idle
    assert one(t.advance(go_at + 1.0 + idle), Swept).t == go_at + 1.0 + idle
    # the host, acting for the dealer, sweeps at once
    one(t.apply(ProposeStall(None), now=go_at + idle + 2.0), Swept)
    # the next hand is dealt by nobody at the table, and Go may come sooner than the timer
    call(t, 2, now=go_at + idle + 3.0)
    deal(t, now=50.0)
    assert t.dealer is None
    one(t.apply(Go(None), now=50.5), PlayOpened)


def test_idle_sweep_after_no_action_for_a_while() -> None:
    """S4: after there is no action for a while, the dealer counts down from three and (no
    objection) the middle goes to the dead pile and four new cards are laid out."""
    t = table("points-to-five")
    idle, count = t.rules.idle_sweep_s, t.rules.sweep_countdown_s
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    swap(t, 1, "9D", t.hands[1][0].text, now=2.0)  # action restarts the idle clock
    assert t.advance(2.0 + idle - 0.1) == []
    ev = t.advance(2.0 + idle)
    sp = one(ev, StallProposed)
    assert sp.auto and sp.seat == t.dealer and sp.deadline == 2.0 + idle + count
    ev = t.advance(2.0 + idle + count)
    one(ev, Swept)
    assert len(t.swept) == 4


@pytest.mark.parametrize("preset", ["pagat", "seed2-standard", "cash"])
def test_real_deal_when_the_stock_runs_out(preset: str) -> None:
    """S1 'Real Deal' / S2 'Calling' row 7 / S2 variations row 6 (Cash: a deck that runs out makes
    the hand a draw): nobody wants the middle and the dealer has no fresh cards: the hand ends and
    no team takes a letter; a new hand is dealt."""
    t = table(preset)
    deal(t)
    t.advance(t.rules.start_countdown_s)  # cash: turn the middle up
    assert t.phase == "play"
    events = exhaust(t, now=t.rules.start_countdown_s + 1.0)
    sweeps = of(events, Swept)
    assert len(sweeps) == (52 - 20) // 4 + 1
    ended = one(events, HandEnded)
    assert ended.reason == "real_deal" and ended.decided is False
    assert of(events, Scored) == [] and t.scores == [0, 0]
    assert t.phase == "huddle"
    deal(t, now=100.0)
    assert t.hand_no == 2 and t.phase in ("play", "dealt")


def test_reshuffle_swept_cards_when_the_pack_runs_out() -> None:
    """S0 FAQ 'What do you do when nobody wants the cards in the middle?': when the pack runs out,
    shuffle the swept cards and deal from those (the hand goes on)."""
    t = table("squarescores")
    deal(t, seed=7)
    events: list[Any] = []
    now = 1.0
    for _ in range(9):
        events += sweep_once(t, now)
        now += 5.0
    one(events, StockReshuffled)
    assert of(events, HandEnded) == []
    assert t.phase == "play" and None not in t.middle
    assert all(c in set(of(events, Swept)[-2].swept) | {x for s in of(events, Swept)[:-1]
                                                         for x in s.swept}
               for c in t.middle)


# ---------------------------------------------------------------------------------------------
# calls and letters
# ---------------------------------------------------------------------------------------------

def test_right_kemps_letter_to_the_other_pair() -> None:
    """S2 'Calling Kemps and Stop Kemps' row 2 / S0 scoring table 'Kemps, called right': a right
    call of Kemps: the other team takes a letter."""
    t = table()
    make_four(t)
    events = call(t, 2, now=2.0)
    assert one(events, CallJudged).right
    assert scored(events) == {1: 1}
    assert t.scores == [0, 1]
    assert one(events, HandEnded).reason == "call"
    assert t.phase == "huddle"


def test_wrong_kemps_letter_to_the_callers_pair() -> None:
    """S2 'Calling Kemps and Stop Kemps' row 3 / S0 'Kemps, called wrong': a wrong call of Kemps:
    your own team takes the letter."""
    t = table()
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    events = call(t, 2)
    assert not one(events, CallJudged).right
    assert scored(events) == {0: 1} and t.scores == [1, 0]
    assert t.phase == "huddle"


def test_right_stop_kemps_letter_to_the_stopped_pair() -> None:
    """S2 'Calling' row 5 / S0 'Stop Kemps, called right' / S1 'STOP KEMPS': the team stopped takes
    a letter."""
    t = table()
    make_four(t)
    events = call(t, 1, "stop", now=2.0, on_pair=0)
    assert one(events, CallJudged).right
    assert scored(events) == {0: 1} and t.scores == [1, 0]


def test_wrong_stop_kemps_letter_to_the_caller() -> None:
    """S2 'Calling' row 6 / S0 'Stop Kemps, called wrong' / S1 example (Team A says STOP KEMPS,
    neither player of Team B has it, so Team A gets a letter)."""
    t = table()
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    events = call(t, 1, "stop", on_pair=0)
    assert not one(events, CallJudged).right
    assert scored(events) == {1: 1} and t.scores == [0, 1]


def test_call_on_a_hunch_is_judged_like_any_call() -> None:
    """S2 'Calling' row 8: you may call for your partner on a hunch, with no signal seen."""
    t = table()
    make_four(t)
    assert t.signals == [(), ()]
    events = call(t, 2, now=1.5)
    assert one(events, CallJudged).right


@pytest.mark.parametrize(("on_seat", "on_pair"), [(0, None), (1, None), (3, None), (None, 1)])
def test_kemps_only_on_your_partner(on_seat: int | None, on_pair: int | None) -> None:
    """S0 'Play' ('You never call Kemps for your own hand') and S0 FAQ 'Can you call Kemps for
    yourself?': Kemps names only the partner; anything else is ``not_your_partner``."""
    t = table()
    make_four(t)
    rejects(t, Call(0, "kemps", on_seat=on_seat, on_pair=on_pair), 2.0, "not_your_partner")


def test_kemps_for_yourself_scores_nothing_for_your_own_four() -> None:
    """S0 FAQ 'Can you call Kemps for yourself?': holding four of a kind is worth nothing until
    your partner notices; a Kemps by the holder is judged on the partner's hand (wrong)."""
    t = table()
    make_four(t)
    events = call(t, 0, now=2.0)
    judged = one(events, CallJudged)
    assert judged.checked == (2,) and not judged.right
    assert t.scores == [1, 0]


@pytest.mark.parametrize(("on_seat", "on_pair"), [(None, 0), (2, None), (0, None)])
def test_stop_kemps_not_on_your_own_pair(on_seat: int | None, on_pair: int | None) -> None:
    """S0 'Play' / S1 'STOP KEMPS' / S2 'Calling' row 4: Stop Kemps is called on an opponent;
    your own pair is ``own_pair``."""
    t = table()
    make_four(t)
    rejects(t, Call(0, "stop", on_seat=on_seat, on_pair=on_pair), 2.0, "own_pair")


def test_stop_on_the_player_accused() -> None:
    """S0 'Play' ('the player accused turns their hand face up') and S4 ('counter kemps on (name
    here)'): with ``stop_target="player"`` only the named player is checked and shown."""
    t = table("squarescores")
    deal(t, ["", "7H 7S 7D 7C"])
    rejects(t, Call(0, "stop"), 1.0, "need_target")
    events = call(t, 0, "stop", on_seat=3)  # the partner of the four-holder: wrong
    judged = one(events, CallJudged)
    assert judged.checked == (3,) and not judged.right
    assert [r.seat for r in of(events, Revealed)] == [3]
    assert t.scores == [1, 0]
    deal(t, ["", "", "7H 7S 7D 7C"], now=10.0)  # dealer rotated to seat 1
    events = call(t, 1, "stop", on_seat=2, now=11.0)
    assert one(events, CallJudged).right
    assert [r.seat for r in of(events, Revealed)] == [2]
    assert t.scores == [2, 0]


def test_stop_on_a_pair_checks_both_hands() -> None:
    """S1 'STOP KEMPS' (if one of the opposing players has four of a kind; the example checks
    'neither player of Team B') and S2 'Calling' row 5 (one of its players shows four of a kind):
    with ``stop_target="pair"`` both hands are checked; a right call shows the four."""
    t = table()
    deal(t, ["", "", "", "7H 7S 7D 7C"])
    events = call(t, 0, "stop", on_pair=1)
    judged = one(events, CallJudged)
    assert set(judged.checked) == {1, 3} and judged.right
    assert [r.seat for r in of(events, Revealed)] == [3]
    t2 = table()
    deal(t2)
    events = call(t2, 0, "stop")  # two pairs: the opposing pair may be left out
    assert set(one(events, CallJudged).checked) == {1, 3}
    assert {r.seat for r in of(events, Revealed)} == {1, 3}
    assert t2.scores == [1, 0]


def test_right_kemps_every_other_pair_takes_a_letter() -> None:
    """S1 'KEMPS' ('With more than 4 players, all of the opposing teams get a letter') and S2
    'Calling' row 2 ('With three teams or more, every other team takes one')."""
    t = table(pairs=3)
    events = right_kemps_hand(t, caller=3)  # partner of 3 is 0
    assert scored(events) == {1: 1, 2: 1}
    assert t.scores == [0, 1, 1]


def test_three_pairs_right_stop_and_wrong_calls_touch_one_pair() -> None:
    """S0 'Scoring' ('With three or four pairs the letter goes to the pair that was caught or to
    the pair that called wrongly; the others are untouched') / S1 / S2 'Calling' rows 3, 5, 6."""
    t = table(pairs=3)
    deal(t, ["", "", "7H 7S 7D 7C"])
    rejects(t, Call(0, "stop"), 0.5, "need_target")
    events = call(t, 0, "stop", on_pair=2)
    assert scored(events) == {2: 1}
    deal(t, now=5.0)
    assert scored(call(t, 1, "stop", on_pair=0, now=6.0)) == {1: 1}
    deal(t, now=10.0)
    assert scored(call(t, 4, "kemps", now=11.0)) == {1: 1}
    assert t.scores == [0, 2, 1]


@pytest.mark.parametrize(("caller", "letter_to"), [(3, 1), (0, 1), (5, 0), (1, 2), (2, 0)])
def test_right_kemps_one_pair_goes_to_the_callers_left(caller: int, letter_to: int) -> None:
    """S0 'Scoring' ('Exactly one letter is given out each round') with RULES-NOTES 'Cases the
    seeds leave open': ``right_kemps_letters="one_pair"`` gives the letter to the pair of the
    player on the caller's left."""
    t = table("squarescores", pairs=3)
    assert t.rules.right_kemps_letters == "one_pair"
    events = right_kemps_hand(t, caller)
    assert scored(events) == {letter_to: 1}
    assert sum(t.scores) == 1


@pytest.mark.parametrize("pairs", [2, 4, 6, 8, 10, 12])
def test_stop_scope_opposite_is_mutual(pairs: int) -> None:
    """S0 FAQ 'Can you call Stop Kemps on any team?': "With six or eight players some tables allow
    Stop Kemps on any pair and others only on the pair opposite". The pair opposite pair ``p`` is
    ``(p + pairs/2) % pairs``: whoever may stop whom, the other may stop them back (RULES-NOTES:
    "if pair A may stop pair B, B may stop A")."""
    r = rules(pairs=pairs, stop_scope="opposite")
    from kemps.scoring import stop_targets
    allowed = {(seat % pairs, on_pair) for seat in range(2 * pairs)
               for _, on_pair in stop_targets(r, seat)}
    assert len(allowed) == pairs  # exactly one pair opposite each pair
    assert all((b, a) in allowed for a, b in allowed)
    assert all(a != b for a, b in allowed)
    t = table(pairs=pairs, stop_scope="opposite")
    deal(t)
    opposite = (0 + pairs // 2) % pairs
    for other in range(1, pairs):
        if other != opposite:
            rejects(t, Call(0, "stop", on_pair=other), 1.0, "not_opposite")
    assert scored(call(t, 0, "stop", on_pair=opposite)) == {0: 1}
    t2 = table(pairs=pairs)
    deal(t2)
    assert scored(call(t2, 0, "stop", on_pair=pairs - 1)) == {0: 1}


@pytest.mark.parametrize("pairs", [3, 5])
def test_stop_scope_opposite_needs_an_even_number_of_pairs(pairs: int) -> None:
    """S0 (six or eight players, "only on the pair opposite"): with three pairs no pair sits
    across the table from another, so the option is refused with a message."""
    with pytest.raises(RuleError) as err:
        rules(pairs=pairs, stop_scope="opposite")
    assert err.value.code == "bad_option" and "stop_scope" in err.value.message


def test_first_call_wins_later_calls_hand_over() -> None:
    """S2 'Calling' row 4 (Stop Kemps only counts before the partner has called Kemps), S1 ('As
    soon as this is said the hand is over'), RULES-NOTES 'Simultaneous calls': later calls are
    ``hand_over`` and score nothing."""
    t = table()
    make_four(t)
    call(t, 2, now=2.0)
    assert t.scores == [0, 1]
    rejects(t, Call(1, "stop", on_pair=0), 2.0, "hand_over")
    rejects(t, Call(0, "kemps"), 2.0, "hand_over")
    rejects(t, Swap(1, parse_cards("9D"), (t.hands[1][0],)), 2.0, "hand_over")
    t2 = table()
    make_four(t2)
    call(t2, 1, "stop", now=2.0)
    rejects(t2, Call(2, "kemps"), 2.0, "hand_over")
    assert t2.scores == [1, 0]


def test_call_judged_at_the_moment_it_is_applied() -> None:
    """S0 FAQ 'What happens if you call Kemps and your partner does not have four of a kind?' (a
    call is only right when the partner actually holds four of a kind at that moment)."""
    t = table()
    make_four(t)
    swap(t, 0, "9D", "7H", now=2.0)  # swaps one away again
    events = call(t, 2, now=3.0)
    assert not one(events, CallJudged).right
    assert t.scores == [1, 0]


def test_reveal_shows_only_the_called_hand() -> None:
    """S0 'Play' ('The player who was signalling, or the player accused, turns their hand face up;
    everybody else keeps their cards hidden') and S2 row 8 ('your cards are shown')."""
    t = table()
    make_four(t)
    events = call(t, 2, now=2.0)
    rev = one(events, Revealed)
    assert rev.seat == 0 and rev.full and set(rev.cards) == set(parse_cards("7H 7S 7D 7C"))
    for seat in range(4):
        v = view_for(t, seat)
        assert set(v.revealed) == {0}
        assert v.hand == tuple(t.hands[seat])
    # a wrong call shows the called partner only
    t2 = table()
    deal(t2)
    events = call(t2, 1)
    assert [r.seat for r in of(events, Revealed)] == [3]
    assert set(view_for(t2, 0).revealed) == {3}


def test_double_kemps_squarescores() -> None:
    """S0 'Double Kemps': a player who sees that both partners hold four of a kind at once calls
    Double Kemps: two letters to the other pair if right, two against if wrong."""
    t = table("squarescores", double_calls=True)
    deal(t, ["7H 7S 7D 7C", "", "9H 9S 9D 9C"])
    events = call(t, 0, "double_kemps")
    assert one(events, CallJudged).right
    assert scored(events) == {1: 2} and t.scores == [0, 2]
    deal(t, ["", "", "", "7H 7S 7D 7C"], now=5.0)  # only the partner of seat 1 has four
    events = call(t, 1, "double_kemps", now=6.0)
    assert not one(events, CallJudged).right
    assert scored(events) == {1: 2} and t.scores == [0, 4]


def test_double_stop_kemps() -> None:
    """S4 ('double counter kemps' on both opposing players) and RULES-NOTES 'Double Kemps': a
    double Stop Kemps claims both players of one pair hold four of a kind; double scores."""
    t = table("squarescores", double_calls=True)
    deal(t, ["", "7H 7S 7D 7C", "", "9H 9S 9D 9C"])
    events = call(t, 0, "double_stop", on_pair=1)
    assert one(events, CallJudged).right
    assert scored(events) == {1: 2}
    deal(t, ["", "", "", "", ], now=5.0)
    events = call(t, 0, "double_stop", on_pair=1, now=6.0)
    assert not one(events, CallJudged).right
    assert scored(events) == {0: 2}
    assert t.scores == [2, 2]


def test_carre_coupe_double_call_scores_two() -> None:
    """S2 variations row 9: Carré-Coupé, a double call for two fours of a kind at once scores 2;
    a Kemps table can borrow it as 'Double Kemps'."""
    r = rules(double_calls=True)
    assert r.double_right == 2 and r.double_call_word == "Double Kemps"
    t = Table(r, list("ABCD"))
    deal(t, ["", "7H 7S 7D 7C", "", "9H 9S 9D 9C"])
    assert scored(call(t, 3, "double_kemps")) == {0: 2}


@pytest.mark.parametrize("kind", ["double_kemps", "double_stop"])
def test_double_calls_disabled_when_off(kind: str) -> None:
    """S0 'Double Kemps' ('Some tables let...'): where double calls are off, they are
    ``calls_disabled``."""
    t = table()
    assert t.rules.double_calls is False
    deal(t, ["7H 7S 7D 7C", "", "9H 9S 9D 9C"])
    rejects(t, Call(0, kind, on_pair=1 if kind == "double_stop" else None), 1.0,  # type: ignore[arg-type]
            "calls_disabled")


# ---------------------------------------------------------------------------------------------
# S4: points, play on after a wrong call, grab-then-discard
# ---------------------------------------------------------------------------------------------

def test_points_first_to_five_wins() -> None:
    """S4: if you do have kemps your team gets one point; the first one to five points wins; S0
    'Points instead of letters' (first to an agreed number wins)."""
    t = table("points-to-five")
    for hand in range(5):
        events = right_kemps_hand(t, caller=2, now=10.0 * hand)
        assert scored(events) == {0: 1}
        assert one(events, Scored).unit == "point"
        if hand < 4:
            assert t.phase == "huddle"
    assert t.scores == [5, 0]
    m = one(events, MatchEnded)
    assert m.ranks == (1, 2) and m.scores == (5, 0)
    assert t.phase == "over"
    rejects(t, Deal(stacked_order(t.rules, [""] * 4)), 99.0, "match_over")


def test_s4_wrong_kemps_other_team_scores_and_play_continues() -> None:
    """S4: 'if you say kemps and you are wrong, the other team gets one point and play
    continues'."""
    t = table("points-to-five")
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    events = call(t, 2)
    assert not one(events, CallJudged).right
    assert scored(events) == {1: 1}
    assert of(events, HandEnded) == [] and t.phase == "play"
    swap(t, 0, "7C", "6C", now=2.0)
    events = call(t, 2, now=3.0)
    assert one(events, CallJudged).right and t.scores == [1, 1]


def test_s4_wrong_counter_kemps_accused_shows_two_different_cards() -> None:
    """S4: if you are wrong, the player whom you called it on shows two different cards in their
    hand, their team receives a point and play continues."""
    t = table("points-to-five")
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    events = call(t, 1, "stop", on_seat=0)
    assert not one(events, CallJudged).right
    rev = one(events, Revealed)
    assert rev.seat == 0 and not rev.full and len(rev.cards) == 2
    assert rev.cards[0].rank != rev.cards[1].rank
    assert all(c in t.hands[0] for c in rev.cards)
    assert scored(events) == {0: 1}
    assert t.phase == "play"


def test_s4_right_counter_kemps_scores_and_stops_play() -> None:
    """S4: 'If you are right then your team gets 1 point and play stops'."""
    t = table("points-to-five")
    make_four(t)
    events = call(t, 1, "stop", on_seat=0, now=2.0)
    assert scored(events) == {1: 1}
    assert one(events, HandEnded).decided and t.phase == "huddle"


def test_s4_double_kemps_points() -> None:
    """S4: if both you and your partner have kemps you may say double kemps and receive two points
    if you are right; if you are wrong the other team gets one point."""
    t = table("points-to-five")
    deal(t, ["7H 7S 7D 7C", "", "9H 9S 9D 9C"])
    assert scored(call(t, 2, "double_kemps")) == {0: 2}
    deal(t, now=10.0)
    events = call(t, 2, "double_kemps", now=11.0)  # nobody has four
    assert scored(events) == {1: 1} and t.scores == [2, 1]


def test_s4_wrong_double_kemps_when_only_the_caller_has_four() -> None:
    """S4: 'if both you and your partner have kemps then you may say double kemps ... if you are
    wrong the other team gets one point' (and play continues). Here the caller holds four of a
    kind and the partner does not: a wrong double call, one point to the other team."""
    t = table("points-to-five")
    deal(t, ["", "7H 7S 7D 7C"])
    events = call(t, 1, "double_kemps")
    assert not one(events, CallJudged).right
    assert scored(events) == {0: 1}
    assert t.phase == "play"


def test_s4_wrong_double_counter_kemps_when_only_one_opponent_has_four() -> None:
    """S0 'Double Kemps' read at a points table (``double_stop_on="four_of_a_kind"``): a double
    Stop claims both opponents hold four of a kind. If wrong the other team gets a point (S4) and
    play continues. Only one opponent holds four: wrong."""
    t = table("points-to-five", double_stop_on="four_of_a_kind")
    deal(t, ["", "7H 7S 7D 7C"])
    events = call(t, 0, "double_stop", on_pair=1)
    assert not one(events, CallJudged).right
    assert scored(events) == {1: 1}
    assert t.phase == "play"


def test_s4_double_counter_kemps_on_two_of_a_kind() -> None:
    """S4 read literally: "You may also call double counter kemps if you think both opposing
    players have two of a kind. If right you get two points, if wrong the other team gets a
    point." The points-to-five preset plays it so (``double_stop_on="two_of_a_kind"``)."""
    t = table("points-to-five")
    assert t.rules.double_stop_on == "two_of_a_kind"
    deal(t, ["", "7H 7S 2D 3C", "", "9H 9S 4D 5C"])
    events = call(t, 0, "double_stop", on_pair=1)
    judged = one(events, CallJudged)
    assert judged.right and judged.checked == (1, 3)
    assert scored(events) == {0: 2} and t.phase == "huddle"
    # wrong: one opponent has no pair; that player shows the whole hand (nothing less proves it)
    deal(t, ["", "7H 7S 2D 3C", "", "9H TS 4D 5C"], now=10.0)
    events = call(t, 0, "double_stop", on_pair=1, now=11.0)
    assert not one(events, CallJudged).right
    assert scored(events) == {1: 1} and t.phase == "play"
    shown = one(events, Revealed)
    assert shown.seat == 3 and shown.full and sorted(c.text for c in shown.cards) == sorted(
        ["9H", "TS", "4D", "5C"])


def test_s4_grab_then_discard() -> None:
    """S4: after someone picks up card(s) they must discard however many it takes to get back to
    four; a fifth card may be held for three seconds."""
    t = table("points-to-five")
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    g = one(t.apply(Grab(0, parse_cards("7C")), now=1.0), Grabbed)
    assert g.slots == (0,) and g.deadline == 1.0 + t.rules.hold_limit_s
    assert len(t.hands[0]) == 5 and t.middle[0] is None and t.holding(0)
    assert view_for(t, 1).holding == (0,)
    rejects(t, Swap(0, parse_cards("9D"), parse_cards("6C")), 1.5, "holding_five")
    d = one(t.apply(Discard(0, parse_cards("6C")), now=2.0), Discarded)
    assert d.slots == (0,) and t.middle[0] == parse_card("6C")
    assert len(t.hands[0]) == 4 and t.holds_four(0) and not t.holding(0)
    rejects(t, Discard(0, parse_cards("7C")), 2.5, "not_holding")


def test_s4_holding_past_the_limit_returns_the_card() -> None:
    """S4: five cards may be held only for three seconds; past the limit the grabbed card goes
    back to the middle (HoldExpired)."""
    t = table("points-to-five")
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    before = t.hands[0][:]
    t.apply(Grab(0, parse_cards("7C")), now=1.0)
    assert t.advance(3.9) == []
    ev = t.advance(4.0)
    h = one(ev, HoldExpired)
    assert h.seat == 0 and h.returned == parse_cards("7C") and h.slots == (0,)
    assert t.hands[0] == before and t.middle[0] == parse_card("7C") and not t.holding(0)


def test_s4_discard_same_card_just_grabbed() -> None:
    """S1 'The Play' ('immediately discard a different card') with S4 grab-then-discard:
    discarding the card just picked up is ``same_card``."""
    t = table("points-to-five")
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    t.apply(Grab(0, parse_cards("7C")), now=1.0)
    rejects(t, Discard(0, parse_cards("7C")), 1.5, "same_card")


@pytest.mark.parametrize("kind", ["kemps", "stop"])
def test_s4_no_call_on_a_player_holding_five(kind: str) -> None:
    """S4: if a player has five cards, no kemps or counter kemps may be called on that player; if
    something is called on that person, nothing happens (CallVoid, nothing scored)."""
    t = table("points-to-five")
    make_four(t)
    t.apply(Grab(0, parse_cards("9D")), now=1.5)
    caller, on_seat = (2, None) if kind == "kemps" else (1, 0)
    events = call(t, caller, kind, now=2.0, on_seat=on_seat)
    one(events, Called)
    void = one(events, CallVoid)
    assert void.held_by == 0
    assert of(events, Scored) == [] and of(events, CallJudged) == []
    assert t.scores == [0, 0] and t.phase == "play"


def test_grab_needs_a_hold_limit() -> None:
    """RULES-NOTES 'cards per swap': ``hold_limit_s=0`` (S1/S2 tables) means swaps are atomic; a
    Grab is refused."""
    t = table()
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    rejects(t, Grab(0, parse_cards("7C")), 1.0, "bad_action")


# ---------------------------------------------------------------------------------------------
# start of play
# ---------------------------------------------------------------------------------------------

def test_nobody_touches_the_middle_until_the_dealer_says_go() -> None:
    """S2 variations row 1: nobody touches the middle cards until the dealer says "Go"."""
    t = table("seed2-tournament", first_dealer=2, dealer="fixed")
    events = deal(t, SEVENS, middle=SEVENS_MIDDLE)
    assert of(events, PlayOpened) == [] and t.phase == "dealt"
    rejects(t, Swap(0, parse_cards("7C"), parse_cards("6C")), 1.0, "not_started")
    rejects(t, Go(0), 1.0, "not_dealer")
    one(t.apply(Go(2), now=1.5), PlayOpened)
    swap(t, 0, "7C", "6C", now=1.6)


def test_cash_countdown_middle_face_down_until_go() -> None:
    """S2 variations row 6 (Cash: the middle cards are dealt face down and turned after "Three,
    two, one, go")."""
    t = table("cash")
    events = deal(t, SEVENS, middle=SEVENS_MIDDLE)
    assert one(events, HandDealt).middle == (None, None, None, None)
    for seat in (0, 1, None):
        v = view_for(t, seat)
        assert v.middle == (None, None, None, None) and v.middle_face_down
    rejects(t, Swap(0, parse_cards("7C"), parse_cards("6C")), 1.0, "not_started")
    assert t.advance(t.rules.start_countdown_s - 0.1) == []
    opened = one(t.advance(t.rules.start_countdown_s), PlayOpened)
    assert opened.middle == parse_cards(SEVENS_MIDDLE)
    assert view_for(t, 1).middle == parse_cards(SEVENS_MIDDLE)
    swap(t, 0, "7C", "6C", now=3.5)


# ---------------------------------------------------------------------------------------------
# dealer
# ---------------------------------------------------------------------------------------------

def test_deal_passes_to_the_left() -> None:
    """S0 'Play' ('The deal passes to the left')."""
    t = table("squarescores", first_dealer=0)
    seen = []
    for hand in range(5):
        events = wrong_kemps_hand(t, caller=hand % 4, now=10.0 * hand)
        seen.append(one(events, HandDealt).dealer)
    assert seen == [0, 1, 2, 3, 0]


@pytest.mark.parametrize("preset", ["pagat", "seed2-standard"])
def test_dealer_stays_the_same(preset: str) -> None:
    """S2 'Calling' row 9 ('The dealer stays the same for the next hand') and S1 ('The dealer then
    deals for the next hand')."""
    t = table(preset, first_dealer=3)
    for hand in range(3):
        events = wrong_kemps_hand(t, caller=hand, now=10.0 * hand)
        assert one(events, HandDealt).dealer == 3
    assert t.dealer == 3


def test_real_deal_then_dealer_deals_next_hand() -> None:
    """S1 'Real Deal' ('The dealer then deals for the next hand') under S0's rotating deal too: a
    real deal still ends the hand, so the deal passes on."""
    t = table("pagat")
    deal(t)
    exhaust(t)
    assert t.dealer == 0
    t2 = table("squarescores", stock_exhausted="real_deal")
    deal(t2)
    exhaust(t2)
    assert t2.phase == "huddle" and t2.dealer == 1


# ---------------------------------------------------------------------------------------------
# gestures, chat, signals
# ---------------------------------------------------------------------------------------------

def test_heard_gestures_refused_at_a_silent_table() -> None:
    """S1 'Preparation' ('words are not allowed') / S2 signals row 2 ('A signal is seen, not
    heard') / S0 'Silent signals': heard gestures are ``heard_forbidden``; S0's table allows them."""
    t = table()
    rejects(t, AgreeSignals(0, ("cough",)), 0.0, "heard_forbidden")
    t.apply(AgreeSignals(0, ("touch_ear",)), now=0.0)
    deal(t)
    rejects(t, Gesture(1, "say_word"), 1.0, "heard_forbidden")
    assert one(t.apply(Gesture(1, "wink"), now=1.0), Gestured).heard is False
    t2 = table("squarescores")
    t2.apply(AgreeSignals(1, ("cough",)), now=0.0)
    deal(t2)
    assert one(t2.apply(Gesture(1, "cough"), now=1.0), Gestured).heard is True


def test_chat_forbidden_at_a_silent_table() -> None:
    """S0 'Silent signals' ('and sometimes talking of any kind'): ``table_chat`` off refuses chat
    ``chat_forbidden``; an ordinary table lets players talk (S0 FAQ 'Are you allowed to talk')."""
    t = table("squarescores", heard_signals=False, table_chat=False)
    deal(t)
    rejects(t, Chat(0, "nice weather"), 1.0, "chat_forbidden")
    t2 = table("squarescores")
    deal(t2)
    t2.apply(Chat(0, "nice weather"), now=1.0)


def test_signals_agreed_between_hands_only() -> None:
    """S0 ('pairs may agree a new signal before the next round'), S1 'Preparation', S2 signals
    row 6 (after any hand, a team may agree new signals): ``no_huddle`` during a hand."""
    t = table()
    t.apply(AgreeSignals(0, ("touch_ear",)), now=0.0)
    deal(t)
    rejects(t, AgreeSignals(2, ("wink",)), 1.0, "no_huddle")
    call(t, 2, now=2.0)
    one(t.apply(AgreeSignals(2, ("wink", "yawn")), now=3.0), SignalsAgreed)
    assert t.signals[0] == ("wink", "yawn")


def test_several_signals_per_pair() -> None:
    """S1 'Preparation' ('You can have several signals') and S2 signals row 4."""
    t = table()
    t.apply(AgreeSignals(1, ("touch_ear", "wink", "nod")), now=0.0)
    assert t.signals[1] == ("touch_ear", "wink", "nod")
    rejects(t, AgreeSignals(1, ("touch_ear", "wink", "nod", "yawn")), 0.0, "bad_action")
    rejects(t, AgreeSignals(1, ("not_a_gesture",)), 0.0, "unknown_gesture")


def test_signals_are_secret_to_the_pair() -> None:
    """S0 'Players and equipment' ('each pair agrees a secret signal') / S1 ('privately agrees a
    signal') / S2 row 2 ('agrees in private'): only that pair sees the agreement."""
    t = table()
    ev = one(t.apply(AgreeSignals(1, ("scratch_nose",)), now=0.0), SignalsAgreed)
    assert view_for(t, 1).signals == ("scratch_nose",)
    assert view_for(t, 3).signals == ("scratch_nose",)
    assert view_for(t, 0).signals == () and view_for(t, 2).signals == ()
    assert view_for(t, None).signals == ()
    assert event_for(ev, 3, 2) == ev
    assert event_for(ev, 0, 2) is None and event_for(ev, 2, 2) is None
    assert event_for(ev, None, 2) is None


def test_gestures_are_seen_by_everyone() -> None:
    """S0 'Players and equipment' ('every signal has to cross the table in full view of the other
    side') and S2 signals row 9 (the other team has a fair chance to see it)."""
    t = table()
    t.apply(AgreeSignals(0, ("touch_ear",)), now=0.0)
    make_four(t)
    g = one(t.apply(Gesture(0, "touch_ear"), now=2.0), Gestured)
    for seat in (None, 0, 1, 2, 3):
        assert event_for(g, seat, 2) == g


def test_fake_signals_allowed() -> None:
    """S1 'Preparation' ('You can also use meaningless signals to confuse the opponents') and S2
    signals row 5 (fake signals are allowed): giving the signal without four of a kind."""
    t = table()
    t.apply(AgreeSignals(0, ("touch_ear",)), now=0.0)
    deal(t)
    one(t.apply(Gesture(0, "touch_ear"), now=1.0), Gestured)


@pytest.mark.parametrize("start", ["on_go", "countdown", "on_deal"])
def test_fake_signal_ban_holds_in_every_phase(start: str) -> None:
    """S2 signals row 5 ("Fake signals that mean nothing are allowed ... Some rule books ban
    them"): under the ban, a pair's signal without four of a kind is refused ``fake_signal`` in
    every phase a gesture can be made in: between hands, after the deal before the dealer's "Go",
    during Cash's countdown, and in play."""
    t = table("pagat", fake_signals="banned", start=start)
    t.apply(AgreeSignals(0, ("touch_ear",)), now=0.0)
    rejects(t, Gesture(0, "touch_ear"), 0.1, "fake_signal")  # between hands
    deal(t, ["7H 7S 7D 7C"], now=1.0)
    rejects(t, Gesture(2, "touch_ear"), 1.1, "fake_signal")  # partner holds no four
    one(t.apply(Gesture(0, "touch_ear"), now=1.2), Gestured)  # a real signal, any phase
    t.apply(Call(2, "kemps"), now=1.5)
    assert t.phase == "huddle"
    rejects(t, Gesture(0, "touch_ear"), 1.6, "fake_signal")  # the old hand is no longer in play
    deal(t, now=2.0)
    assert t.phase == ("play" if start == "on_deal" else "dealt")
    rejects(t, Gesture(0, "touch_ear"), 2.1, "fake_signal")
    one(t.apply(Gesture(0, "wink"), now=2.2), Gestured)  # not the pair's signal: fine


def test_fake_signals_banned() -> None:
    """S2 signals row 5 ('Some rule books ban them') and tournament row 8: where fake signals are
    banned, making your pair's signal without four of a kind is ``fake_signal``."""
    t = table("seed2-tournament")
    t.apply(AgreeSignals(0, ("touch_ear",)), now=0.0)
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    t.apply(Go(None), now=0.5)
    rejects(t, Gesture(0, "touch_ear"), 1.0, "fake_signal")
    rejects(t, Gesture(2, "touch_ear"), 1.0, "fake_signal")
    t.apply(Gesture(0, "wink"), now=1.0)  # not our signal: fine
    t.apply(Gesture(1, "touch_ear"), now=1.0)  # not their signal: fine
    swap(t, 0, "7C", "6C", now=1.5)
    one(t.apply(Gesture(0, "touch_ear"), now=2.0), Gestured)


def test_table_talk_loses_the_match() -> None:
    """S1 'Preparation' ('table talk ... is penalised by loss of the game') and S2 signals rows 1,
    8: the pair found out loses the match, ranked last whatever its letters."""
    t = table(pairs=3)
    wrong_kemps_hand(t, caller=1)
    wrong_kemps_hand(t, caller=4, now=10.0)
    deal(t, now=20.0)
    events = t.apply(RuleTableTalk(0), now=21.0)
    one(events, TableTalkRuled)
    assert one(events, HandEnded).reason == "table_talk"
    m = one(events, MatchEnded)
    assert m.ranks == (3, 2, 1) and t.ranks == (3, 2, 1)
    assert t.phase == "over"
    rejects(t, Call(1, "kemps"), 22.0, "match_over")


def test_table_talk_ruling_refused_where_allowed() -> None:
    """S4 ('You may have any type of signal for any type of information'): table talk is allowed,
    so a table-talk ruling is ``table_talk_allowed``."""
    t = table("points-to-five")
    deal(t)
    rejects(t, RuleTableTalk(0), 1.0, "table_talk_allowed")


# ---------------------------------------------------------------------------------------------
# words, letters, match end
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("preset", "word", "call_word", "stop_word"), [
    ("pagat", "KEMPS", "Kemps", "Stop Kemps"),
    ("kent", "KENT", "Kent", "Stop Kent"),
    ("cash", "CASH", "Cash", "Counter Cash"),
    ("canes", "KEMPS", "Canes", "Stop Canes"),
    ("signals", "KEMPS", "Signals", "Stop Signals"),
    ("peanut-butter", "KEMPS", "Peanut butter", "Jelly"),
    ("points-to-five", "KEMPS", "Kemps", "Counter Kemps"),
])
def test_call_words_from_the_rule_set(preset: str, word: str, call_word: str,
                                      stop_word: str) -> None:
    """S0 'Kent, Cash, Canes and Signals' ("the name is often the call ... The rules, the letters
    and the signals are the same wherever you sit": Canes and Signals spell K-E-M-P-S), S1 and S2
    variations rows 4, 5, 7 (Kent K-E-N-T, Cash/Counter Cash C-A-S-H, Peanut butter/Jelly), S4
    ('counter kemps')."""
    t = table(preset)
    assert (t.rules.word, t.rules.call_word, t.rules.stop_word) == (word, call_word, stop_word)
    v = view_for(t, 0)
    assert (v.word, v.call_word, v.stop_word) == (word, call_word, stop_word)


def test_kent_spells_k_e_n_t_and_ends_one_hand_sooner() -> None:
    """S2 variations row 4 and FAQ 'How do you play the card game Kent?': the letters spell
    K-E-N-T, four letters, so the game ends one lost hand sooner."""
    t = table("kent")
    for hand in range(4):
        events = wrong_kemps_hand(t, caller=1, now=10.0 * hand)
        assert view_for(t, 0).spelled[1] == "-".join("KENT"[:hand + 1])
    m = one(events, MatchEnded)
    assert m.scores == (0, 4) and m.ranks == (1, 2)
    assert letters_text("KENT", 4) == "K-E-N-T"
    assert t.phase == "over"


@pytest.mark.parametrize(("count", "text"), [(0, ""), (1, "K"), (2, "K-E"), (3, "K-E-M"),
                                              (5, "K-E-M-P-S")])
def test_letters_spelled(count: int, text: str) -> None:
    """S0 worked game (Ben and Dev: K, K-E, ... K-E-M-P-S) and S2 row 9 ('K, E, M, P, then S')."""
    assert letters_text("KEMPS", count) == text


def test_s0_worked_game() -> None:
    """S0 'A worked game': Alice and Cara against Ben and Dev, six rounds to three letters each,
    then Ben and Dev take their fourth and fifth letters, spell K-E-M-P-S, and Alice and Cara win
    on three letters against five."""
    t = Table(find_preset("squarescores"), ["Alice", "Ben", "Cara", "Dev"], first_dealer=0)
    alice, ben, cara, dev = 0, 1, 2, 3
    t.apply(AgreeSignals(alice, ("touch_ear",)), now=0.0)
    t.apply(AgreeSignals(ben, ("scratch_nose",)), now=0.0)
    # Round 1: Cara has four sevens, Alice calls Kemps.
    deal(t, ["", "", "7H 7S 7D 7C"], now=1.0)
    call(t, alice, now=2.0)
    # Round 2: Ben calls Kemps, Dev holds three nines and a hope.
    deal(t, ["", "", "", "9H 9S 9D 2C"], now=10.0)
    call(t, ben, now=11.0)
    # Round 3: Alice (four of a kind) touches her ear; Dev calls Stop Kemps first.
    deal(t, ["AH AS AD AC"], now=20.0)
    t.apply(Gesture(alice, "touch_ear"), now=21.0)
    call(t, dev, "stop", on_seat=alice, now=21.5)
    # Round 4: Alice calls Stop Kemps on Ben; nobody has four of a kind.
    deal(t, now=30.0)
    call(t, alice, "stop", on_seat=ben, now=31.0)
    # Round 5: new signals; Ben coughs, Dev calls Kemps, Ben has four kings.
    t.apply(AgreeSignals(ben, ("cough",)), now=39.0)
    t.apply(AgreeSignals(alice, ("yawn",)), now=39.0)
    deal(t, ["", "KH KS KD KC"], now=40.0)
    t.apply(Gesture(ben, "cough"), now=41.0)
    call(t, dev, now=41.5)
    # Round 6: Cara calls Kemps on Alice's yawn; Alice has four twos.
    deal(t, ["2H 2S 2D 2C"], now=50.0)
    t.apply(Gesture(alice, "yawn"), now=51.0)
    call(t, cara, now=51.5)
    assert t.scores == [3, 3]
    assert [letters_text("KEMPS", s) for s in t.scores] == ["K-E-M", "K-E-M"]
    # Two rounds later Ben and Dev take their fourth and fifth letters.
    deal(t, ["", "", "5H 5S 5D 5C"], now=60.0)
    call(t, alice, now=61.0)
    deal(t, ["6H 6S 6D 6C"], now=70.0)
    events = call(t, cara, now=71.0)
    m = one(events, MatchEnded)
    assert m.scores == (3, 5) and m.ranks == (1, 2)
    assert view_for(t, alice).spelled == ("K-E-M", "K-E-M-P-S")
    assert t.phase == "over"


def test_letters_stay_and_match_ends_at_five() -> None:
    """S0 'Ending' ('The app ends the match the moment a pair reaches five letters, and the pair
    holding fewest is the winner'), S1 'End of the Game', S2 row 9."""
    t = table()
    for hand in range(5):
        events = wrong_kemps_hand(t, caller=0, now=10.0 * hand)
        if hand < 4:
            assert of(events, MatchEnded) == [] and t.scores == [hand + 1, 0]
    m = one(events, MatchEnded)
    assert m.ranks == (2, 1) and m.scores == (5, 0)


def test_tournament_match_to_three_letters() -> None:
    """S2 tournament row 3: the first team to take three letters, K-E-M, loses the match."""
    t = table("seed2-tournament")
    assert t.rules.losing_letters == 3
    for hand in range(3):
        events = deal(t, now=10.0 * hand)
        t.apply(Go(None), now=10.0 * hand + 0.5)
        events = call(t, 1, now=10.0 * hand + 1.0)
    m = one(events, MatchEnded)
    assert m.scores == (0, 3) and m.ranks == (1, 2)
    assert view_for(t, 1).spelled == ("", "K-E-M")


def test_tournament_settles_three_things() -> None:
    """S2 tournament row 8: settle fake signals, the "Go" start and one card at a time before match
    one (the tournament preset sets all three)."""
    r = find_preset("seed2-tournament")
    assert (r.fake_signals, r.start, r.multi_swap) == ("banned", "on_go", False)


def test_peanut_butter_fixed_number_of_hands() -> None:
    """S1 'Peanut Butter' and S2 variations row 8: an agreed odd number of hands; RULES-NOTES: the
    pair that lost fewer wins, real deals do not count as hands."""
    t = table("peanut-butter")
    assert t.rules.hands % 2 == 1
    deal(t)
    exhaust(t)  # a real deal: does not count
    assert t.decided_hands == 0
    callers = [1, 0, 1, 1, 0]
    for i, caller in enumerate(callers):
        events = wrong_kemps_hand(t, caller=caller, now=200.0 + 10.0 * i)
        if i < len(callers) - 1:
            assert t.phase == "huddle"
    m = one(events, MatchEnded)
    assert m.scores == (2, 3) and m.ranks == (1, 2)
    assert t.hand_no == 6 and t.decided_hands == 5


def test_peanut_butter_plays_every_agreed_hand() -> None:
    """S1 'Peanut Butter': "The two teams agree beforehand how many hands should be played"; the
    pair that lost fewer of them wins (RULES-NOTES). Spelling the word does not end the match
    early: with seven hands agreed, a pair that loses the first five still plays the other two
    (its letters shown as K-E-M-P-S), and the match is decided after the seventh."""
    t = table("peanut-butter", hands=7)
    for i in range(5):
        events = wrong_kemps_hand(t, caller=1, now=10.0 * i)  # pair 1 takes a letter
        assert of(events, MatchEnded) == [] and t.phase == "huddle"
    assert t.scores == [0, 5] and view_for(t, 0).spelled == ("", "K-E-M-P-S")
    events = wrong_kemps_hand(t, caller=0, now=60.0)
    assert of(events, MatchEnded) == [] and t.scores == [1, 5]
    events = wrong_kemps_hand(t, caller=1, now=70.0)
    m = one(events, MatchEnded)
    assert m.scores == (1, 6) and m.ranks == (1, 2) and t.decided_hands == 7


@pytest.mark.parametrize("hands", [2, 4, 6])
def test_two_pairs_agree_an_odd_number_of_hands(hands: int) -> None:
    """S1 'Peanut Butter': "This must be an odd number"; S2 variations row 8: "agree on an odd
    number of hands ... so two teams cannot finish tied". An even number is refused for two
    pairs."""
    with pytest.raises(RuleError) as err:
        rules("peanut-butter", hands=hands)
    assert err.value.code == "bad_option" and "hands" in err.value.message
    assert rules("peanut-butter", hands=hands + 1).hands == hands + 1


def test_three_pairs_match_end_ranks_share_ties() -> None:
    """S0 'Ending' (with three or four pairs the match ends when the first pair goes out, and the
    others are ranked by their letters) and RULES-NOTES 'Ties in ranking' (equal letters share)."""
    t = table(pairs=3)
    wrong_kemps_hand(t, caller=1)  # pair 1: one letter
    for hand in range(5):  # right Kemps by seat 3 on seat 0: pairs 1 and 2 take letters
        events = right_kemps_hand(t, caller=3, now=10.0 + 10.0 * hand)
        if t.phase == "over":
            break
    m = one(events, MatchEnded)
    assert m.scores == (0, 5, 4)
    assert m.ranks == (1, 3, 2)
    t2 = table(pairs=3)
    for hand in range(5):
        events = right_kemps_hand(t2, caller=0, now=10.0 * hand)
    m = one(events, MatchEnded)
    assert m.scores == (0, 5, 5) and m.ranks == (1, 2, 2)


def test_points_three_pairs() -> None:
    """S0 'Points instead of letters' ('Every right call is a point to the caller's pair and a
    wrong call a point to the other side') with RULES-NOTES 'Points with three or more pairs'."""
    t = table("points-to-five", pairs=3)
    deal(t, ["7H 7S 7D 7C"])
    assert scored(call(t, 3, "kemps")) == {0: 1}         # right: caller's pair
    deal(t, now=10.0)
    assert scored(call(t, 3, "kemps", now=11.0)) == {1: 1, 2: 1}  # wrong Kemps: every other pair
    assert scored(call(t, 1, "stop", on_seat=2, now=12.0)) == {2: 1}  # wrong stop: accused pair
    assert t.scores == [1, 1, 2]


# ---------------------------------------------------------------------------------------------
# a rejection changes nothing
# ---------------------------------------------------------------------------------------------

def _setup_pagat() -> Table:
    t = table()
    make_four(t)
    return t


@pytest.mark.parametrize(("setup", "action", "now", "code"), [
    (_setup_pagat, Swap(1, parse_cards("7C"), parse_cards("2C")), 2.0, "card_gone"),
    (_setup_pagat, Call(0, "stop", on_pair=0), 2.0, "own_pair"),
    (_setup_pagat, Call(0, "kemps", on_seat=1), 2.0, "not_your_partner"),
    (_setup_pagat, Gesture(0, "cough"), 2.0, "heard_forbidden"),
    (_setup_pagat, Swap(0, parse_cards("9D 9H"), parse_cards("6C")), 2.0, "uneven_swap"),
    # an idle sweep is due at 11.0: the rejected action must not fire it either
    (_setup_pagat, Swap(1, parse_cards("7C"), parse_cards("2C")), 20.0, "card_gone"),
    (lambda: table("seed2-tournament"), Go(1), 0.0, "hand_over"),
])
def test_rejection_changes_nothing(setup: Any, action: Any, now: float, code: str) -> None:
    """Engine contract behind every seed row (errors.Rejected: 'The table's state is unchanged'):
    state_text, version and every view are identical before and after a refused action."""
    t = setup()
    rejects(t, action, now, code)


def test_rejected_action_with_a_timer_due_then_timer_fires_later() -> None:
    """S4 idle sweep with a refused action in between: the refusal changes nothing, and the due
    timer fires on the next call."""
    t = table()
    make_four(t)
    rejects(t, Call(0, "stop", on_pair=0), 50.0, "own_pair")
    ev = t.advance(50.0)
    assert of(ev, StallProposed) or of(ev, Swept)


def test_everyone_sees_only_their_own_hand() -> None:
    """S2 row 3 ('Deal every player four cards, face down. Everyone looks at their own hand') and
    S0 'The deal' (four cards each, dealt face down): a deal shows each seat only its own hand."""
    t = table()
    dealt = one(deal(t, SEVENS, middle=SEVENS_MIDDLE), HandDealt)
    for seat in range(4):
        seen = event_for(dealt, seat, 2)
        assert seen.hands[seat] == tuple(t.hands[seat])
        assert all(h == () for s, h in enumerate(seen.hands) if s != seat)
        v = view_for(t, seat)
        assert v.hand == tuple(t.hands[seat]) and v.revealed == {}
        assert v.hand_counts == (4, 4, 4, 4)
    spectator = event_for(dealt, None, 2)
    assert all(h == () for h in spectator.hands)
    assert view_for(t, None).hand == ()


def test_sweep_returns_a_held_card_first() -> None:
    """S4: five cards may be held only three seconds; when the countdown ends while a player is
    still holding, the grabbed card goes back before the middle goes to the dead pile."""
    t = table("points-to-five")
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    t.apply(ProposeStall(1), now=1.0)
    t.apply(Grab(0, parse_cards("7C")), now=2.0)
    events = t.advance(4.0)  # the sweep is due at 4.0, the hold at 5.0
    assert isinstance(events[0], HoldExpired)
    sw = one(events, Swept)
    assert parse_card("7C") in sw.swept
    assert len(t.hands[0]) == 4 and not t.holding(0)


def test_s4_wrong_calls_can_reach_five_points_mid_hand() -> None:
    """S4: a wrong call gives the other team a point and play continues; the first one to five
    points wins, so the match can end in the middle of a hand."""
    t = table("points-to-five")
    deal(t)
    for k in range(4):
        events = call(t, 1, now=1.0 + k * 0.1)
        assert t.phase == "play" and of(events, MatchEnded) == []
    events = call(t, 3, now=2.0)
    m = one(events, MatchEnded)
    assert m.scores == (5, 0) and m.ranks == (1, 2)
    assert t.phase == "over"
    rejects(t, Call(1, "kemps"), 3.0, "match_over")


def test_due_timers_fire_before_the_action() -> None:
    """S4 'after there is no action for a while': a timer that fell due before an action is applied
    first, and its events come first."""
    t = table("points-to-five")
    deal(t, SEVENS, middle=SEVENS_MIDDLE)
    events = swap(t, 0, "7C", "6C", now=t.rules.idle_sweep_s + 0.5)
    assert isinstance(events[0], StallProposed) and events[0].auto
    assert isinstance(events[-1], Swapped)
