"""Property tests over random games of every preset with 2..6, 8 and 12 pairs.

A random driver (hypothesis ``st.randoms``, so failures shrink) deals from a shuffled pack (sometimes
stacked so that seats hold four of a kind) and throws a long sequence of random actions of every
kind at a :class:`kemps.record.Recorder`, good and bad alike, on a clock that only moves forward.
After every step the table's invariants are checked (cards conserved, hand sizes, scores and version
monotone, rejections change nothing, views and redacted events leak no hidden card). Afterwards the
recorded match replays to the same events, also through its JSON form. Bot matches
(:func:`kemps.sim.simulate_match`) finish, replay, and rank consistently with their scores.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kemps.actions import (
    CALL_KINDS,
    AgreeSignals,
    Call,
    Chat,
    Deal,
    Discard,
    Gesture,
    Go,
    Grab,
    Look,
    Object,
    ProposeStall,
    RuleTableTalk,
    Swap,
    action_from_dict,
    action_to_dict,
)
from kemps.cards import Card, new_pack, shuffled_pack
from kemps.errors import Rejected
from kemps.events import (
    Event,
    Gestured,
    GestureSeen,
    HandDealt,
    Looked,
    MatchEnded,
    Moved,
    Revealed,
    Scored,
    SignalsAgreed,
    event_to_dict,
)
from kemps.gestures import GESTURE_S, HEARD, PALETTE, SEEN
from kemps.record import MatchRecord, Recorder, replay
from kemps.rules import PRESETS, RuleSet
from kemps.sim import simulate_match
from kemps.table import Table
from kemps.views import (
    check_spectator_look,
    event_for,
    events_for,
    spectator_events_for,
    spectator_glance,
    spectator_view,
    told_version,
    view_for,
)

PRESET_NAMES = sorted(PRESETS)
PAIRS = [2, 3, 4, 5, 6, 8, 12]
COMBOS = [(name, pairs) for name in PRESET_NAMES for pairs in PAIRS]
COMBO_IDS = [f"{name}-{pairs}" for name, pairs in COMBOS]
STEPS = 260
TIME_STEPS = (0.0, 0.0, 0.05, 0.2, 0.5, 1.0, 1.0, 2.0, 3.0, 4.0, 6.0, 11.0)
PALETTE_NAMES = tuple(PALETTE)
BAD_GESTURES = ("moonwalk", "", "COUGH", " wink")


def rules_for(name: str, pairs: int) -> RuleSet:
    return PRESETS[name].replace(pairs=pairs)


# == the random driver ==============================================================================
def deal_order(table: Table, rng: random.Random) -> tuple[Card, ...]:
    """A shuffled pack; sometimes stacked so some seats hold four of a kind (or three, with the
    fourth in the middle), so that right calls, double calls and fake-signal rules are reached."""
    rules = table.rules
    decks = rules.deck_count
    pack = shuffled_pack(decks, random.Random(rng.getrandbits(32)))
    if rng.random() < 0.35:
        return tuple(pack)
    n = table.n
    by_rank: dict[str, list[Card]] = {}
    for c in pack:
        by_rank.setdefault(c.rank, []).append(c)
    ranks = list(by_rank)
    rng.shuffle(ranks)
    wanted: dict[int, list[Card]] = {}
    middle: list[Card] = []
    for seat in rng.sample(range(n), rng.randint(1, min(n, 4))):
        if not ranks:
            break
        rank = ranks.pop()
        cards = by_rank[rank][:4]
        if rng.random() < 0.3 and len(middle) < 4:
            wanted[seat] = cards[:3]
            middle.append(cards[3])
        else:
            wanted[seat] = cards
    used = {c for cs in wanted.values() for c in cs} | set(middle)
    rest = [c for c in pack if c not in used]
    hands = [list(wanted.get(s, [])) for s in range(n)]
    for h in hands:
        while len(h) < 4:
            h.append(rest.pop())
    while len(middle) < 4:
        middle.append(rest.pop())
    order: list[Card | None] = [None] * (4 * n)
    first = 0 if table.dealer is None else table.dealer + 1
    for seat in range(n):
        for k in range(4):
            order[((seat - first) % n) + k * n] = hands[seat][k]
    out = tuple(c for c in order if c is not None) + tuple(middle) + tuple(rest)
    assert sorted(c.index for c in out) == list(range(52 * decks))
    return out


def random_seat(table: Table, rng: random.Random) -> int:
    if rng.random() < 0.03:
        return rng.choice((-1, table.n, table.n + 3))
    return rng.randrange(table.n)


def some(rng: random.Random, cards: list[Card], k: int) -> tuple[Card, ...]:
    return tuple(rng.sample(cards, min(k, len(cards))))


def outside_cards(table: Table, seat: int) -> list[Card]:
    """Cards that are in neither the middle nor the seat's hand (wrong cards to name)."""
    hand = set(table.hands[seat]) if 0 <= seat < table.n else set()
    middle = {c for c in table.middle if c is not None}
    return [c for c in new_pack(table.rules.deck_count) if c not in hand and c not in middle]


def random_action(table: Table, rng: random.Random) -> Any:
    """One random action of any kind, often legal, often not."""
    n, pairs, rules = table.n, table.pairs, table.rules
    seat = random_seat(table, rng)
    own = 0 <= seat < n
    hand = list(table.hands[seat]) if own else []
    middle = [c for c in table.middle if c is not None]
    kind = rng.choices(
        ("swap", "swap_bad", "grab", "discard", "held", "stall", "object", "gesture", "signal",
         "chat", "agree", "call", "call_smart", "go", "deal", "table_talk", "look"),
        weights=(30, 6, 8, 4, 8, 6, 4, 5, 4, 2, 2, 5, 6, 3, 2, 0.15,
                 12 if rules.attention else 1))[0]
    if table.phase == "play" and any(table.holding(s) for s in range(n)) and rng.random() < 0.4:
        kind = "held"
    if kind == "swap":
        k = rng.choice((1, 1, 1, 2, 3, 4)) if rules.multi_swap or rng.random() < 0.2 else 1
        take, give = some(rng, middle, k), some(rng, hand, k)
        return Swap(seat, take, give)
    if kind == "swap_bad":
        wrong = outside_cards(table, seat)
        choice = rng.randrange(5)
        if choice == 0:  # a card that is not in the middle
            return Swap(seat, some(rng, wrong, 1), some(rng, hand, 1))
        if choice == 1:  # a card that is not in the hand
            return Swap(seat, some(rng, middle, 1), some(rng, wrong, 1))
        if choice == 2:  # uneven
            return Swap(seat, some(rng, middle, 2), some(rng, hand, 1))
        if choice == 3:  # the same card twice
            c = some(rng, middle, 1)
            g = some(rng, hand, 1)
            return Swap(seat, c + c, g + g)
        return Swap(seat, (), ())
    if kind == "grab":
        return Grab(seat, some(rng, middle, rng.choice((1, 1, 2))))
    if kind == "discard":
        k = rng.choice((1, 1, 2))
        if rng.random() < 0.15:
            return Discard(seat, some(rng, outside_cards(table, seat), k))
        return Discard(seat, some(rng, hand, k))
    if kind == "held":
        # A seat holding five discards (maybe the card it just picked up), or is called on.
        holders = [s for s in range(n) if table.holding(s)]
        if not holders:
            return Grab(seat, some(rng, middle, 1))
        holder = rng.choice(holders)
        if rng.random() < 0.25:
            caller = table.partner_of(holder)
            if rng.random() < 0.5:
                caller = rng.choice([s for s in range(n) if s % pairs != holder % pairs])
                return Call(caller, "stop", on_seat=holder, on_pair=holder % pairs)
            return Call(caller, "kemps")
        return Discard(holder, some(rng, list(table.hands[holder]), rng.choice((1, 1, 2))))
    if kind == "stall":
        if rng.random() < 0.5:
            return ProposeStall(table.dealer)  # None: the dealer who is not playing
        if rng.random() < 0.05:
            return ProposeStall(None)
        return ProposeStall(seat)
    if kind == "object":
        return Object(seat)
    if kind == "gesture":
        return Gesture(seat, rng.choice(PALETTE_NAMES + BAD_GESTURES))
    if kind == "signal":
        sig = table.signals[seat % pairs] if own else ()
        return Gesture(seat, rng.choice(sig) if sig else rng.choice(HEARD + SEEN))
    if kind == "chat":
        return Chat(seat, rng.choice(("hi", "  ", "", "x" * 201, "nice one", "7H 7S?")))
    if kind == "agree":
        pool = list(PALETTE_NAMES) + list(BAD_GESTURES[:1])
        k = rng.choice((0, 1, 1, 2, 3, 4))
        names = tuple(rng.sample(pool, k))
        if rng.random() < 0.1 and names:
            names = names + names[:1]
        return AgreeSignals(seat, names)
    if kind == "call":
        on_seat = rng.choice((None, None, -1, n, *range(n)))
        on_pair = rng.choice((None, None, -1, pairs, *range(pairs)))
        return Call(seat, rng.choice(CALL_KINDS + ("bogus",)), on_seat, on_pair)  # type: ignore[arg-type]
    if kind == "call_smart":
        # Aim at a seat that holds (or nearly holds) four of a kind.
        fours = [s for s in range(n) if table.holds_four(s) or table.holding(s)] or list(range(n))
        target = rng.choice(fours)
        if rng.random() < 0.5:
            partner = table.partner_of(target)
            return Call(partner, rng.choice(("kemps", "kemps", "double_kemps")))
        opponents = [s for s in range(n) if s % pairs != target % pairs]
        caller = rng.choice(opponents)
        k = rng.choice(("stop", "stop", "double_stop"))
        if rules.stop_target == "player" and k == "stop":
            return Call(caller, k, on_seat=target)
        return Call(caller, k, on_pair=target % pairs)
    if kind == "look":
        # Mostly at another seat (a gesturer, often), sometimes at itself or nowhere at all.
        at: Any = rng.choice((*range(n), *range(n), "middle", "hand", -1, n, "floor", True))
        going = [s for s in range(n) if table.gestures_in_progress(s, table.clock)]
        if going and rng.random() < 0.6:
            at = rng.choice(going)  # a glance at a gesture still going on
        return Look(seat, at)
    if kind == "go":
        return Go(table.dealer if rng.random() < 0.7 else seat)
    if kind == "deal":
        if rng.random() < 0.5:
            return Deal(deal_order(table, rng), rng.getrandbits(31))
        order = tuple(shuffled_pack(rules.deck_count, random.Random(rng.getrandbits(32))))
        return Deal(rng.choice((order[:-1], order[:-1] + order[:1], ())), 0)
    return RuleTableTalk(rng.choice((-1, pairs, *range(pairs))))


# == invariants =====================================================================================
def card_texts(value: Any) -> set[str]:
    """Every string leaf of a JSON value."""
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
            stack.extend(v.keys())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def full_state(table: Table) -> tuple[Any, ...]:
    return (table.state_text(), table.version, tuple(table.scores), table.phase,
            dict(table.revealed), tuple(table.signals), table.next_deadline(),
            table.stall_deadline, table.objectors, table.agreed, table.opens_at, table.ranks,
            tuple(tuple(h) for h in table.hands), tuple(table.middle), tuple(table.stock),
            tuple(table.swept), tuple(table.holding(s) for s in range(table.n)),
            tuple(table.looks), tuple(table._look_at))


def check_cards(table: Table) -> None:
    if table.phase not in ("dealt", "play"):
        return
    everything = [c for h in table.hands for c in h]
    everything += [c for c in table.middle if c is not None]
    everything += table.stock + table.swept
    size = 52 * table.rules.deck_count
    assert len(everything) == size, table.state_text()
    assert set(everything) == set(new_pack(table.rules.deck_count)), table.state_text()
    for s, h in enumerate(table.hands):
        if table.holding(s):
            assert table.rules.hold_limit_s > 0
            assert len(h) > 4, (s, table.state_text())
        else:
            assert len(h) == 4, (s, table.state_text())
    empty = sum(1 for c in table.middle if c is None)
    assert empty == sum(len(h) - 4 for h in table.hands)


def check_scores(table: Table, before: list[int]) -> None:
    assert len(table.scores) == table.pairs
    for old, new in zip(before, table.scores):
        assert new >= old
    if table.rules.scoring == "letters" and not table.rules.hands:
        assert all(0 <= s <= table.rules.losing_letters for s in table.scores)
        assert all(s <= len(table.rules.word) for s in table.scores)
    if table.rules.hands:
        assert table.decided_hands <= table.rules.hands


def check_views(table: Table, stale_reveals: bool = False) -> None:
    """``stale_reveals``: a card shown after a wrong call that plays on may since have been swept
    and reshuffled into the stock; it is then public history, not a view of the stock."""
    stock = {c.text for c in table.stock}
    hand_texts = [{c.text for c in h} for h in table.hands]
    revealed_texts = {c.text for cs in table.revealed.values() for c in cs}
    face_down = table.phase == "dealt" and table.rules.start == "countdown"
    for seat in [None, *range(table.n)]:
        view = spectator_view(table) if seat is None else view_for(table, seat)
        assert view.version == told_version(table, seat)
        if not any(table.private_versions):
            assert view.version == table.version
        if seat is None:
            assert view.hand == ()
            assert view.signals == ()
        else:
            assert view.hand == (tuple(table.hands[seat]) if table.hand_no else ())
            assert view.signals == table.signals[table.pair_of(seat)]
        assert view.revealed == table.revealed
        if face_down:
            assert view.middle == (None, None, None, None)
        elif table.phase in ("dealt", "play"):
            assert view.middle == tuple(table.middle)
        assert view.hand_counts == tuple(len(h) for h in table.hands)
        data = view.to_dict()
        seen = card_texts(json.loads(json.dumps(data)))
        in_stock = seen & stock
        if stale_reveals:
            in_stock -= {c.text for cs in view.revealed.values() for c in cs}
        assert not in_stock, (seat, in_stock)
        for other in range(table.n):
            if other != seat:
                leaked = (seen & hand_texts[other]) - revealed_texts
                assert not leaked, (seat, other, leaked)


def accepted(table: Table, action: Any, at: float | None = None) -> bool:
    """Whether ``table`` accepts ``action`` now (or at table time ``at``; tried on a copy)."""
    if at is None:
        at = table.clock if table.clock > 0 else 0.0
    try:
        copy.deepcopy(table).apply(action, at)
    except Rejected:
        return False
    return True


def check_legal(table: Table, seat: int) -> None:
    """Every move the view lists is accepted, and every move accepted is listed (one card for
    the card-choosing moves: any middle card for any hand card)."""
    legal = table.legal(seat)
    if table.phase != "over" and table.clock > float("-inf"):
        # A timer due this very instant (a 0 s countdown) fires before any move: the legal
        # moves are those of the table once it has.
        table = copy.deepcopy(table)
        table.advance(table.clock)
        assert table.legal(seat) == legal
    hand = list(table.hands[seat])
    middle = [c for c in table.middle if c is not None]
    swaps = [Swap(seat, (c,), (g,)) for c in middle[:1] for g in hand[:1]]
    if swaps:
        assert accepted(table, swaps[0]) == legal.swap, (table.state_text(), seat, legal)
    elif legal.swap:
        assert table.phase == "play"  # nothing in the middle to take just now
    if middle:
        assert accepted(table, Grab(seat, (middle[0],))) == legal.grab
    if hand:
        assert any(accepted(table, Discard(seat, (g,))) for g in hand) == legal.discard
    assert accepted(table, ProposeStall(seat)) == legal.stall
    assert accepted(table, Object(seat)) == legal.object
    assert accepted(table, Go(seat)) == legal.go
    assert accepted(table, Chat(seat, "hi")) == legal.chat
    assert accepted(table, AgreeSignals(seat, ("nod",))) == legal.agree_signals
    for name in PALETTE_NAMES:
        assert accepted(table, Gesture(seat, name)) == (name not in legal.gestures_refused), name
    assert accepted(table, Call(seat, "kemps")) == legal.kemps
    assert accepted(table, Call(seat, "double_kemps")) == legal.double_kemps
    pairs = table.pairs
    for kind, listed in (("stop", legal.stop), ("double_stop", legal.double_stop)):
        for target in range(table.n):
            call = (Call(seat, kind, on_seat=target)  # type: ignore[arg-type]
                    if table.rules.stop_target == "player" and kind == "stop"
                    else Call(seat, kind, on_pair=target % pairs))  # type: ignore[arg-type]
            key = (call.on_seat, target % pairs)
            assert accepted(table, call) == (key in listed), (kind, key, listed)
    # Looks (attention): each listed place is accepted from ``look_from`` on, every other place
    # is refused, and before ``look_from`` every look is refused as too soon.
    places: list[Any] = [*range(table.n), "middle", "hand"]
    now = table.clock if table.clock > 0 else 0.0
    at_from = max(now, legal.look_from or 0.0)
    for place in places:
        assert accepted(table, Look(seat, place), at_from) == (place in legal.looks), place
    if legal.looks and legal.look_from is not None and legal.look_from > now:
        assert not accepted(table, Look(seat, legal.looks[0]), now)
    assert (legal.look_from is None) or table.rules.attention


def check_events(table: Table, events: list[Event]) -> None:
    pairs, n = table.pairs, table.n
    for e in events:
        for seat in [None, *range(n)]:
            seen = event_for(e, seat, pairs)
            if isinstance(e, HandDealt):
                assert seen is not None
                for s in range(n):
                    assert seen.hands[s] == (e.hands[s] if s == seat else ())
                others = {c.text for s in range(n) if s != seat for c in e.hands[s]}
                texts = card_texts(json.loads(json.dumps(event_to_dict(seen))))
                assert not (texts & others)
                if table.rules.start == "countdown":
                    assert seen.middle == (None, None, None, None)
            elif isinstance(e, SignalsAgreed):
                if seat is not None and seat % pairs == e.pair:
                    assert seen == e
                else:
                    assert seen is None
            elif isinstance(e, Gestured) and e.seen_by is not None:
                # attention: the gesture is named only to the seats that saw it (S0 "Watch the
                # other pair's faces"); everyone else learns only that the player moved.
                assert table.rules.attention and not e.heard
                assert seen == (e if seat is not None and seat in e.seen_by
                                else Moved(e.t, e.seat))
                assert e.seat in e.seen_by
            elif isinstance(e, GestureSeen):
                assert seen == (e if seat is not None and seat == e.by else None)
            else:
                assert seen == e


def check_kept_legal(table: Table, rng: random.Random) -> None:
    """Issue 29: the legal moves :meth:`Table.legal` keeps between changes are the very ones it
    works out afresh. Some seats are asked, each maybe answered from an entry kept many steps
    ago; then the same seats are asked again with nothing kept."""
    seats = [s for s in range(table.n) if rng.random() < 0.3]
    kept = [table.legal(s) for s in seats]
    entries = table._legal
    table._legal = [None] * table.n
    try:
        fresh = [table.legal(s) for s in seats]
    finally:
        table._legal = entries
    assert kept == fresh, (table.state_text(), seats)


class Driver:
    """Plays random actions at a recorded table and checks every invariant after each step."""

    def __init__(self, rules: RuleSet, rng: random.Random, backwards: bool = False) -> None:
        self.rng = rng
        self.backwards = backwards  # sometimes stamp an action earlier than the last one
        self.check_legal = False  # check the view's legal moves against the table (slower)
        self.check_kept = False  # check the legal moves kept by the table against fresh ones
        self.stale_reveals = (not rules.wrong_call_ends_round
                              and rules.stock_exhausted == "reshuffle_swept")
        self.rec = Recorder(rules, first_dealer=rng.randrange(rules.players))
        self.table = self.rec.table
        self.now = 0.0
        self.events: list[Event] = []
        self.accepted = 0
        self.rejected = 0
        self.hands_dealt = 0

    def step_time(self) -> None:
        step = self.rng.choice(TIME_STEPS)
        if any(self.table.holding(s) for s in range(self.table.n)) and self.rng.random() < 0.7:
            step = min(step, 0.5)  # usually discard within the hold limit
        self.now += step
        if self.backwards and self.rng.random() < 0.15:
            self.now -= self.rng.choice((0.01, 0.5, 3.0, 20.0))

    def apply(self, action: Any) -> None:
        table = self.table
        before = full_state(table)
        scores = list(table.scores)
        try:
            events = self.rec.apply(action, self.now)
        except Rejected as err:
            self.rejected += 1
            assert full_state(table) == before, (action, err.code)
            assert err.code and isinstance(err.message, str)
            if self.check_kept:
                check_kept_legal(table, self.rng)
            return
        self.accepted += 1
        assert table.version == before[1] + 1
        check_scores(table, scores)
        self.after(events)

    def advance(self) -> None:
        table = self.table
        version, scores = table.version, list(table.scores)
        deadline = table.next_deadline()
        events = self.rec.advance(self.now)
        if events:
            assert deadline is not None and deadline <= self.now
            assert table.version == version + 1
            assert all(e.t <= max(self.now, table.clock) for e in events)
        else:
            assert table.version == version
        after = table.next_deadline()
        assert after is None or after > self.now, (after, self.now)
        check_scores(table, scores)
        self.after(events)

    def after(self, events: list[Event]) -> None:
        # Event times never run backwards (timer events carry their deadlines, which had not yet
        # passed when the previous step was taken).
        last = self.events[-1].t if self.events else float("-inf")
        for e in events:
            # (an action stamped before the table's clock is applied at the clock)
            assert last <= e.t <= max(self.now, self.table.clock), (last, e)
            last = e.t
        self.events += events
        table = self.table
        if self.check_legal and self.rng.random() < 0.3:
            check_legal(table, self.rng.randrange(table.n))
        if self.check_kept:
            check_kept_legal(table, self.rng)
        check_cards(table)
        check_views(table, self.stale_reveals)
        check_events(table, events)
        for e in events:
            if isinstance(e, Revealed):
                assert table.revealed[e.seat] == e.cards
            if isinstance(e, Scored):
                assert e.total == table.scores[e.pair] or any(
                    isinstance(x, Scored) and x.pair == e.pair for x in events[events.index(e) + 1:])
            if isinstance(e, MatchEnded):
                assert table.phase == "over"
                assert e.ranks == table.ranks
                assert list(e.scores) == table.scores

    def run(self, steps: int) -> None:
        rng, table = self.rng, self.table
        for _ in range(steps):
            if table.phase == "over":
                break
            self.step_time()
            if table.phase == "huddle":
                if rng.random() < 0.4:
                    # A pair agrees its signals (legal ones, mostly) before the deal.
                    allowed = SEEN + (HEARD if table.rules.heard_signals else ())
                    if rng.random() < 0.15:
                        allowed = SEEN + HEARD
                    names = tuple(rng.sample(allowed, rng.randint(1, 3)))
                    self.apply(AgreeSignals(rng.randrange(table.n), names))
                if rng.random() < 0.7 or (table.hand_no == 0 and self.hands_dealt == 0):
                    self.hands_dealt += 1
                    self.apply(Deal(deal_order(table, rng), rng.getrandbits(31)))
                else:
                    self.apply(random_action(table, rng))  # signals, chat, bad calls...
                continue
            if rng.random() < 0.2:
                self.advance()
            else:
                self.apply(random_action(table, rng))


@pytest.mark.parametrize(("preset", "pairs"), COMBOS, ids=COMBO_IDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, STEPS))
def test_random_play_keeps_invariants_and_replays(preset: str, pairs: int, seed: int,
                                                  steps: int) -> None:
    """Random play (``seed`` fixes the game, ``steps`` how far it goes, so a failure shrinks to
    the shortest prefix of one game) keeps every invariant and replays exactly."""
    rules = rules_for(preset, pairs)
    driver = Driver(rules, random.Random(seed))
    driver.run(steps)
    assert driver.hands_dealt >= 1
    assert driver.accepted >= 1
    # -- replay: the record reproduces the very same events, also through JSON ------------------
    record = driver.rec.record
    assert len(record.actions) == driver.accepted
    replayed = replay(record)
    assert replayed.events == driver.events
    assert replayed.table.state_text() == driver.table.state_text()
    assert replayed.table.scores == driver.table.scores
    again = MatchRecord.from_json(record.to_json())
    assert again.rules == rules
    assert again.actions == record.actions
    assert replay(again).events == driver.events
    assert replay(MatchRecord.from_json(record.to_json(indent=1))).events == driver.events


OPTION_CHOICES: dict[str, tuple[Any, ...]] = {
    "sweep": ("any_player_unless_objection", "all_agree", "dealer_only"),
    "stop_scope": ("any", "opposite"), "stop_target": ("pair", "player"),
    "hold_limit_s": (0.0, 0.5, 3.0), "immune_while_holding": (False, True),
    "multi_swap": (True, False), "stock_exhausted": ("real_deal", "reshuffle_swept"),
    "wrong_call_ends_round": (True, False), "double_calls": (True, False),
    "start": ("on_deal", "on_go", "countdown"), "idle_sweep_s": (0.0, 5.0),
    "sweep_countdown_s": (0.0, 3.0), "right_kemps_letters": ("every_other_pair", "one_pair"),
    "fake_signals": ("allowed", "banned"), "dealer": ("rotate_left", "fixed", "non_playing"),
    "objection_s": (1.0, 5.0), "double_stop_on": ("four_of_a_kind", "two_of_a_kind"),
    "decks": ("auto", 2), "heard_signals": (True, False), "table_chat": (True, False),
    "attention": (False, True),
}


@st.composite
def custom_rules(draw: st.DrawFn) -> RuleSet:
    """A preset with random options changed on top (only valid combinations)."""
    base = PRESETS[draw(st.sampled_from(PRESET_NAMES))]
    changes = {k: draw(st.sampled_from(v)) for k, v in OPTION_CHOICES.items()
               if draw(st.booleans())}
    changes["pairs"] = draw(st.sampled_from(PAIRS))
    if changes.get("hold_limit_s", base.hold_limit_s) == 0:
        changes["immune_while_holding"] = False
    if changes["pairs"] % 2:
        changes["stop_scope"] = "any"  # 'opposite' needs an even number of pairs
    if changes.get("dealer", base.dealer) == "non_playing" and not changes.get(
            "idle_sweep_s", base.idle_sweep_s):
        changes["idle_sweep_s"] = 5.0  # a dealer who is not playing sweeps by the idle timer
    if base.hands and changes["pairs"] == 2 and base.hands % 2 == 0:
        changes["hands"] = base.hands + 1
    return base.replace(**changes)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(rules=custom_rules(), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 200))
def test_random_play_with_custom_options(rules: RuleSet, seed: int, steps: int) -> None:
    """The same invariants and exact replay with options changed on top of the presets."""
    driver = Driver(rules, random.Random(seed))
    driver.run(steps)
    assert replay(driver.rec.record).events == driver.events


def accepted_or_rejected(table: Table, action: Any, now: float) -> list[Event]:
    """Apply ``action``: it must be accepted or rejected cleanly, never crash the table."""
    before = full_state(table)
    try:
        return table.apply(action, now)
    except Rejected:
        assert full_state(table) == before
        return []


def test_wrong_double_call_that_plays_on_when_one_checked_player_holds_four() -> None:
    """points-to-five: a wrong Double Stop Kemps where one of the two players holds four of a
    kind (found by the random driver: ``_reveal`` looked for two different cards in a four of a
    kind and raised StopIteration)."""
    from kemps.table import stacked_order

    rules = PRESETS["points-to-five"]
    table = Table(rules)
    table.apply(Deal(stacked_order(rules, ["", "7H 7S 7D 7C", "", ""]), 0), 0.0)
    events = accepted_or_rejected(table, Call(0, "double_stop", on_pair=1), 1.0)
    shown = {e.seat: e.cards for e in events if isinstance(e, Revealed)}
    assert 1 not in shown or len({c.rank for c in shown[1]}) > 1 or shown[1] == tuple(
        table.hands[1])
    check_cards(table)
    table2 = Table(rules)
    table2.apply(Deal(stacked_order(rules, ["7H 7S 7D 7C", "", "", ""]), 0), 0.0)
    accepted_or_rejected(table2, Call(0, "double_kemps"), 1.0)
    check_cards(table2)


def test_wrong_stop_on_a_player_holding_five_of_one_rank() -> None:
    """Two decks, grab-then-discard without immunity, wrong calls play on: a player who picked
    up a fifth seven holds 7H 7S 7D 7C 7H.2, which is not exactly four of a kind, so a Stop Kemps
    on them is wrong; the table must answer (judge or reject), not crash."""
    from kemps.cards import parse_cards
    from kemps.table import stacked_order

    rules = PRESETS["points-to-five"].replace(pairs=5, immune_while_holding=False)
    assert rules.deck_count == 2
    table = Table(rules)
    hands = [""] * rules.players
    hands[1] = "7H 7S 7D 7C"
    table.apply(Deal(stacked_order(rules, hands, middle="7H.2"), 0), 0.0)
    table.apply(Grab(1, parse_cards("7H.2")), 1.0)
    assert table.holding(1)
    accepted_or_rejected(table, Call(0, "stop", on_seat=1), 2.0)
    check_cards(table)
    check_views(table)


@pytest.mark.parametrize(("changes", "last"), [
    ({"start": "countdown", "start_countdown_s": 0.0}, None),
    ({"sweep_countdown_s": 0.0}, ProposeStall(1)),
])
def test_replay_of_a_record_ending_on_a_zero_second_timer(changes: dict[str, Any],
                                                            last: Any) -> None:
    """A record whose last action starts a zero-second timer (deadline == the action's time)
    must replay to the events the live table produced. Today ``Recorder.apply`` sets
    ``record.end`` to the action's time and ``replay`` then advances to it, firing the timer the
    live table never fired (PlayOpened / Swept appear only in the replay)."""
    rules = PRESETS["pagat"].replace(**changes)
    rec = Recorder(rules)
    live = rec.apply(Deal(tuple(new_pack(1)), 1), 5.0)
    if last is not None:
        live += rec.apply(last, 7.0)
    again = replay(rec.record)
    assert again.events == live
    assert again.table.state_text() == rec.table.state_text()
    assert replay(MatchRecord.from_json(rec.record.to_json())).events == live


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_actions_round_trip_through_json(preset: str, seed: int) -> None:
    """Every action's JSON form parses back to an equal action."""
    rng = random.Random(seed)
    rules = rules_for(preset, rng.choice(PAIRS))
    driver = Driver(rules, rng)
    table = driver.table
    driver.apply(Deal(deal_order(table, rng), 7))
    for _ in range(60):
        action = random_action(table, rng)
        data = json.loads(json.dumps(action_to_dict(action)))
        try:
            parsed = action_from_dict(data)
        except Rejected:
            # Only actions whose fields are malformed on purpose may fail to parse.
            assert (isinstance(action, Call) and action.kind not in CALL_KINDS) or (
                isinstance(action, Look) and action.at in ("floor", True))
            continue
        assert parsed == action


# == simulation =====================================================================================
def expected_ranks(scores: list[int], scoring: str) -> tuple[int, ...]:
    if scoring == "letters":
        return tuple(1 + sum(1 for o in scores if o < s) for s in scores)
    return tuple(1 + sum(1 for o in scores if o > s) for s in scores)


@pytest.mark.parametrize(("preset", "pairs"), COMBOS, ids=COMBO_IDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_simulated_match_finishes_replays_and_ranks(preset: str, pairs: int, seed: int) -> None:
    rules = rules_for(preset, pairs)
    result = simulate_match(rules, seed)
    assert result.finished
    table = result.table
    assert table.phase == "over"
    assert replay(result.record).events == result.events
    assert replay(MatchRecord.from_json(result.record.to_json())).events == result.events
    ends = [e for e in result.events if isinstance(e, MatchEnded)]
    assert len(ends) == 1 and result.events[-1] == ends[0]
    assert ends[0].ranks == table.ranks
    assert list(ends[0].scores) == table.scores
    assert table.ranks == expected_ranks(table.scores, rules.scoring)
    assert 1 in table.ranks
    if rules.scoring == "letters":
        best = min(table.scores)
        assert all(r == 1 for r, s in zip(table.ranks, table.scores) if s == best)
        assert rules.hands or max(table.scores) == rules.losing_letters
    else:
        best = max(table.scores)
        assert all(r == 1 for r, s in zip(table.ranks, table.scores) if s == best)
        assert (rules.target and best >= rules.target) or (
            rules.hands and table.decided_hands >= rules.hands)
    # Every score event agrees with the final tally.
    for p in range(table.pairs):
        totals = [e.total for e in result.events if isinstance(e, Scored) and e.pair == p]
        assert totals == sorted(totals)
        assert (totals[-1] if totals else 0) == table.scores[p]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(rules=custom_rules(), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 200))
def test_actions_stamped_before_the_clock_are_recorded_at_the_clock(rules: RuleSet, seed: int,
                                                                    steps: int) -> None:
    """Stale time stamps: an action stamped earlier than the table's clock is applied at the clock
    (the table's time never runs backwards) and recorded at that time, so the record of accepted
    actions always loads (its times never decrease) and replays to the same events."""
    driver = Driver(rules, random.Random(seed), backwards=True)
    driver.run(steps)
    record = driver.rec.record
    times = [t for t, _ in record.actions]
    assert times == sorted(times)
    loaded = MatchRecord.from_json(record.to_json())
    assert replay(loaded).events == driver.events


@settings(max_examples=40, deadline=None, derandomize=True)
@given(rules=custom_rules(), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 120))
def test_legal_moves_are_exactly_the_accepted_moves(rules: RuleSet, seed: int, steps: int) -> None:
    """Random games of every preset with options changed on top: at random moments, every move a
    seat's view lists as legal is accepted by the table, and every move it accepts was listed
    (the page and the bots use the list instead of copies of the rules)."""
    driver = Driver(rules, random.Random(seed))
    driver.check_legal = True
    driver.run(steps)


def kept_legal_rules(seed: int) -> RuleSet:
    """A preset with random options changed on top, as :func:`custom_rules` draws them, from a
    plain seed (for the long walks below)."""
    rng = random.Random(seed)
    base = PRESETS[rng.choice(PRESET_NAMES)]
    changes = {k: rng.choice(v) for k, v in OPTION_CHOICES.items() if rng.random() < 0.5}
    changes["pairs"] = rng.choice((2, 2, 3, 4))
    if changes.get("hold_limit_s", base.hold_limit_s) == 0:
        changes["immune_while_holding"] = False
    if changes["pairs"] % 2:
        changes["stop_scope"] = "any"
    if changes.get("dealer", base.dealer) == "non_playing" and not changes.get(
            "idle_sweep_s", base.idle_sweep_s):
        changes["idle_sweep_s"] = 5.0
    if base.hands and changes["pairs"] == 2 and base.hands % 2 == 0:
        changes["hands"] = base.hands + 1
    return base.replace(**changes)


@pytest.mark.parametrize("seed", range(300))
def test_legal_moves_kept_between_changes_are_those_worked_out_afresh(seed: int) -> None:
    """Long random walks (good and bad actions of every kind, timers, rejections) at presets
    with options changed on top: after every step some seats' legal moves, as the table keeps
    them (some entries from many steps before), equal the ones worked out with nothing kept
    (issue 29: legal moves are worked out again only when something they depend on changes)."""
    rng = random.Random(1000 + seed)
    rules = kept_legal_rules(seed)
    table = Table(rules, first_dealer=rng.randrange(rules.players))
    now = 0.0
    for _ in range(1500):
        if table.phase == "over":
            break
        now += rng.choice(TIME_STEPS)
        if table.phase == "huddle" and rng.random() < 0.5:
            action: Any = Deal(deal_order(table, rng), rng.getrandbits(31))
        elif rng.random() < 0.15:
            table.advance(now)
            check_kept_legal(table, rng)
            continue
        else:
            action = random_action(table, rng)
        try:
            table.apply(action, now)
        except Rejected:
            pass
        check_kept_legal(table, rng)


def test_a_swap_leaves_the_other_seats_legal_moves_as_they_were_and_a_stall_changes_them() -> None:
    """What incremental means: S0's swap changes no seat's legal moves (the same object comes
    back), a stall called (S0 "any player may propose a fresh middle") changes every seat's."""
    rules = PRESETS["pagat"].replace(pairs=2, attention=False)
    table = Table(rules)
    table.apply(Deal(tuple(shuffled_pack(1, random.Random(3))), 1), 0.0)
    assert table.phase == "play"  # pagat: play opens on the deal
    before = [table.legal(s) for s in range(table.n)]
    take = next(c for c in table.middle if c is not None)
    table.apply(Swap(0, (take,), (table.hands[0][0],)), 1.0)
    assert all(table.legal(s) is before[s] for s in range(table.n))
    table.apply(ProposeStall(1), 2.0)
    after = [table.legal(s) for s in range(table.n)]
    assert all(a is not b for a, b in zip(after, before))
    assert not after[2].stall and after[2].object == (rules.sweep == "any_player_unless_objection")


# == attention: who saw which gesture ==============================================================
def expected_sightings(rules: RuleSet, events: list[Event]) -> list[set[tuple[float, int]]]:
    """The test's own model of the attention rule, from the public events alone: per seat, the
    gestures ``(made_at, gesturer)`` it should see. S0 "Watch the other pair's faces more than their
    hands ... looks at their partner; the signal comes a moment after": a seat sees a seen gesture
    when its look is on the gesturer as it is made, or lands on it within GESTURE_S; the gesturer
    sees its own; a heard gesture reaches everyone."""
    n = rules.players
    looks: list[Any] = ["hand"] * n
    going: list[tuple[float, int]] = []
    seen: list[set[tuple[float, int]]] = [set() for _ in range(n)]
    for e in events:
        if isinstance(e, Looked):
            looks[e.seat] = e.at
            for made_at, gesturer in going:
                if gesturer == e.at and made_at <= e.t < made_at + GESTURE_S:
                    seen[e.seat].add((made_at, gesturer))
        elif isinstance(e, Gestured):
            if e.heard or not rules.attention:
                for s in range(n):
                    seen[s].add((e.t, e.seat))
                continue
            going.append((e.t, e.seat))
            seen[e.seat].add((e.t, e.seat))
            for s in range(n):
                if looks[s] == e.seat:
                    seen[s].add((e.t, e.seat))
    return seen


def named_gestures(events: list[dict[str, Any]]) -> set[tuple[float, int]]:
    """The gestures a seat's messages name: ``(made_at, gesturer)`` of each one they name. No
    other message may carry a gesture at all."""
    out: set[tuple[float, int]] = set()
    for d in events:
        if d["type"] == "gestured":
            out.add((d["t"], d["seat"]))
        elif d["type"] == "gesture_seen":
            out.add((d["made_at"], d["seat"]))
        else:
            assert not (card_texts(d) & set(PALETTE_NAMES)) or d["type"] == "signals_agreed", d
    return out


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(20, STEPS), pairs=st.sampled_from(PAIRS))
def test_attention_no_seat_is_told_a_gesture_it_did_not_see(preset: str, seed: int, steps: int,
                                                            pairs: int) -> None:
    """Random games of every preset with ``attention`` on: each seat's events (as JSON, the form
    sent) name exactly the gestures the rule lets it see, no more, no fewer (S0 "Half of Kemps is
    watching your partner without looking as though you are"); a spectator without a look is told
    none of them (only that players moved, and what everyone hears); and replaying the record
    gives every seat the very same messages. (Views name no gesture anyone made: only the seat's
    own pair's signals and the palette names it may not use.)"""
    rules = PRESETS[preset].replace(attention=True, pairs=pairs)
    driver = Driver(rules, random.Random(seed))
    driver.run(steps)
    table, events = driver.table, driver.events
    expected = expected_sightings(rules, events)
    replayed = replay(driver.rec.record)
    assert len(replayed.events) == len(events)
    for seat in [None, *range(table.n)]:
        mine = [event_to_dict(e) for e in events_for(events, seat, table.pairs)]
        mine = json.loads(json.dumps(mine))
        named = named_gestures(mine)
        if seat is None:
            heard = {(t, g) for t, g in set.intersection(*expected) if any(
                isinstance(e, Gestured) and e.heard and (e.t, e.seat) == (t, g) for e in events)}
            assert named == heard
        else:
            assert named == expected[seat], seat
        again = [event_to_dict(e) for e in events_for(replayed.events, seat, table.pairs)]
        assert json.loads(json.dumps(again)) == mine
    gestures = [e for e in events if isinstance(e, Gestured) and not e.heard]
    assert all(e.seen_by is not None for e in gestures)


def test_attention_property_games_do_see_and_miss_gestures() -> None:
    """The random driver's attention games are not vacuous: across a few of them, seats see
    gestures at the moment, see them by a glance that lands, and miss them."""
    at_once = glances = missed = 0
    for seed in range(6):
        rules = PRESETS["pagat"].replace(attention=True)
        driver = Driver(rules, random.Random(seed))
        driver.run(STEPS)
        for e in driver.events:
            if isinstance(e, Gestured) and e.seen_by is not None:
                at_once += len(e.seen_by) - 1
                missed += rules.players - len(e.seen_by)
            glances += isinstance(e, GestureSeen)
    assert at_once > 0 and glances > 0 and missed > 0, (at_once, glances, missed)


class WatchedDriver(Driver):
    """The random driver with one spectator whose own look (kept here, as the server keeps it)
    changes at random moments, at most every LOOK_GAP_S: what it is told is collected as JSON."""

    def __init__(self, rules: RuleSet, rng: random.Random) -> None:
        super().__init__(rules, rng)
        self.look: Any = None
        self.since: float | None = None
        self.told: list[dict[str, Any]] = []
        self.timeline: list[tuple[str, Any]] = []  # ("events", [...]) and ("look", (t, at))

    def after(self, events: list[Event]) -> None:
        super().after(events)
        table = self.table
        self.timeline.append(("events", events))
        self.told += [event_to_dict(e) for e in spectator_events_for(events, self.look,
                                                                    table.pairs)]
        if self.rng.random() < 0.4 and table.clock > float("-inf"):
            at: Any = self.rng.choice([*range(table.n), "middle", "hand", table.n])
            going = [s for s in range(table.n) if table.gestures_in_progress(s, table.clock)]
            if going and self.rng.random() < 0.6:
                at = self.rng.choice(going)
            try:
                check_spectator_look(table, at, self.look, self.since, table.clock)
            except Rejected:
                return
            self.look, self.since = at, table.clock
            self.timeline.append(("look", (table.clock, at)))
            self.told += [event_to_dict(e) for e in spectator_glance(table, at, table.clock)]


def spectator_should_see(rules: RuleSet, timeline: list[tuple[str, Any]]
                         ) -> set[tuple[float, int]]:
    """The model: a spectator sees a seen gesture when its own look is on the gesturer as it is
    made or lands on it within GESTURE_S, and hears every heard one."""
    look: Any = None
    going: list[tuple[float, int]] = []
    seen: set[tuple[float, int]] = set()
    for kind, item in timeline:
        if kind == "look":
            t, look = item
            seen |= {(m, g) for m, g in going if g == look and m <= t < m + GESTURE_S}
            continue
        for e in item:
            if isinstance(e, Gestured):
                if e.heard or look == e.seat:
                    seen.add((e.t, e.seat))
                if not e.heard:
                    going.append((e.t, e.seat))
    return seen


@pytest.mark.parametrize("preset", ["pagat", "squarescores", "points-to-five",
                                    "seed2-tournament"])
@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(20, STEPS), pairs=st.sampled_from(PAIRS))
def test_attention_a_spectator_is_told_only_what_its_own_look_saw(preset: str, seed: int,
                                                                   steps: int, pairs: int) -> None:
    """Issue 11 "Spectators follow the same rule with a look of their own": over random games with
    a spectator changing its look at random, what it is told (:func:`spectator_events_for` and
    :func:`spectator_glance`) names exactly the gestures its look saw, and nothing private to any
    seat."""
    rules = PRESETS[preset].replace(attention=True, pairs=pairs)
    driver = WatchedDriver(rules, random.Random(seed))
    driver.run(steps)
    assert named_gestures(driver.told) == spectator_should_see(rules, driver.timeline)
    assert all(d.get("by") is None for d in driver.told if d["type"] == "gesture_seen")
    assert not any(d["type"] in ("signals_agreed",) for d in driver.told)
