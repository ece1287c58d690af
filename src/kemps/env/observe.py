"""The observation encoding of :mod:`kemps.env`: one seat's view and its events, as numbers.

Everything here is read from :func:`kemps.views.view_for` (the seat's view) and from the events of
the last tick as :func:`kemps.views.events_for` gives them to that seat: the road people and bots
use, so nothing hidden reaches an agent. Seats and pairs are relative to the agent (offset 0 is
the agent, offset k the seat k places to its left; pair offset 0 is its own pair), so one policy
fits every seat. Every number is in [0, 1].

The flat vector (``n`` seats, ``P`` pairs, ``G`` palette gestures), in order (:func:`parts` gives
each part's start and size for a table):

========================  ========  =============================================================
part                      size      meaning
========================  ========  =============================================================
phase                     4         huddle, dealt, play, over (one-hot)
hand                      8 x 18    per hand slot: present, rank (13, one-hot), suit (4)
hand ranks                13        how many of each rank the hand holds, / 4
picked up                 8         per hand slot: a card the agent picked up and still holds (S4)
middle                    4 x 18    per middle slot, as a hand slot
middle face down          1         the middle is dealt face down (countdown start)
seats                     n x 18    per seat offset: cards held / 8, holding five (S4), dealer,
                                      objecting, agreed to a fresh middle, revealed ranks (13, / 4)
no dealer at the table    1         a dealer who is not playing
scores                    P         per pair offset: letters / losing letters, or points / target
stock, swept              2         cards in the stock, swept cards, / pack size
stall                     2         a stall countdown is running; its time left / countdown
opening                   2         play opens on a timer; its time left / countdown
hand number               1         hands dealt / 20 (at most 1)
own signals               G         the pair's agreed signal (multi-hot)
this tick, per seat       n x 52    what each seat did in the last tick (below)
this tick, table          5         dealt, play opened, swept, hand ended, match ended
cooling down              1         the agent moved less than the minimum gap ago
looks                     n x (n+2) per seat offset, where it looks (one-hot; ``attention``
                                      tables, else all 0): its own cards, the middle, or the seat
                                      at offset j (j = 0..n-1, relative to the agent)
moved unseen this tick    n         per seat offset: it made a gesture the agent did not see
                                      (``attention``: only that the player moved, S0)
========================  ========  =============================================================

A gesture the agent saw by glancing at the gesturer while it lasted (``GestureSeen``) counts in
"this tick" as that seat's gesture.

"This tick, per seat" is: gestures (G, multi-hot), cards taken (13 ranks, / 4), cards given
(13 ranks, / 4), called (4 kinds, in :data:`kemps.actions.CALL_KINDS` order: kemps, stop, double
kemps, double stop), its call was right, wrong, it proposed a stall, it objected:
``G + 26 + 4 + 4`` = 56 entries with the 22 gestures of the palette.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from kemps.actions import CALL_KINDS
from kemps.cards import RANKS, SUITS, Card
from kemps.env.layout import GESTURES, MAX_HAND
from kemps.events import (
    Called,
    CallJudged,
    Discarded,
    Event,
    Gestured,
    GestureSeen,
    Grabbed,
    HandDealt,
    HandEnded,
    MatchEnded,
    Moved,
    Objected,
    PlayOpened,
    StallProposed,
    Swapped,
    Swept,
)
from kemps.rules import RuleSet
from kemps.views import SeatView

PHASES: Final = ("huddle", "dealt", "play", "over")
CARD: Final = 1 + len(RANKS) + len(SUITS)
SEAT: Final = 5 + len(RANKS)
TICK_SEAT: Final = len(GESTURES) + 2 * len(RANKS) + len(CALL_KINDS) + 4
_RANK: Final = {r: i for i, r in enumerate(RANKS)}
_SUIT: Final = {s: i for i, s in enumerate(SUITS)}
_GESTURE: Final = {g: i for i, g in enumerate(GESTURES)}
_CALL: Final = {k: i for i, k in enumerate(CALL_KINDS)}
_PHASE: Final = {p: i for i, p in enumerate(PHASES)}
_QUARTER: Final = (0.0, 0.25, 0.5, 0.75, 1.0)


def parts(seats: int, pairs: int) -> tuple[tuple[str, int, int], ...]:
    """The documented layout of the flat vector for ``seats`` seats and ``pairs`` pairs:
    ``(name, start, size)`` of every part of the table above, in order (the names as there)."""
    return _parts(seats, pairs)


@functools.lru_cache(maxsize=64)
def _parts(seats: int, pairs: int) -> tuple[tuple[str, int, int], ...]:
    sizes = (("phase", len(PHASES)), ("hand", MAX_HAND * CARD), ("hand ranks", len(RANKS)),
             ("picked up", MAX_HAND), ("middle", 4 * CARD), ("middle face down", 1),
             ("seats", seats * SEAT), ("no dealer at the table", 1), ("scores", pairs),
             ("stock, swept", 2), ("stall", 2), ("opening", 2), ("hand number", 1),
             ("own signals", len(GESTURES)), ("this tick, per seat", seats * TICK_SEAT),
             ("this tick, table", 5), ("cooling down", 1), ("looks", seats * (seats + 2)),
             ("moved unseen this tick", seats))
    out: list[tuple[str, int, int]] = []
    start = 0
    for name, n in sizes:
        out.append((name, start, n))
        start += n
    return tuple(out)


@functools.lru_cache(maxsize=64)
def size(seats: int, pairs: int) -> int:
    """The length of the flat vector for a table of ``seats`` seats and ``pairs`` pairs."""
    _, start, n = _parts(seats, pairs)[-1]
    return start + n


def encode(view: SeatView, seen: Sequence[Event], rules: RuleSet, now: float,
           cooling: bool = False, held: Sequence[Card] = (),
           out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
    """The flat observation of ``view``'s seat at table time ``now`` (seconds) after a tick whose
    events it saw were ``seen``.

    ``view`` must be a seat's (not a spectator's); ``seen`` must already be redacted for it
    (:func:`kemps.views.events_for`). ``rules`` gives the public scales (the losing letters or the
    target, the countdowns); ``held`` are the cards the seat picked up and still holds (from its
    own events). Shape: ``(size(n, pairs),)``, float32, every entry in [0, 1]. With ``out`` (a
    row of zeros of that shape, such as a row of a batch) it is written there and returned.
    """
    n = len(view.names)
    if out is None:
        out = np.zeros(size(n, n // 2), dtype=np.float32)
    ones: list[int] = []
    at: list[int] = []
    values: list[float] = []
    encode_into(ones, at, values, 0, view, seen, rules, now, cooling, held)
    out[ones] = 1.0
    out[at] = values
    return out


def encode_into(ones: list[int], at: list[int], values: list[float], base: int, view: SeatView,
                seen: Sequence[Event], rules: RuleSet, now: float, cooling: bool = False,
                held: Sequence[Card] = ()) -> None:
    """:func:`encode` as positions to fill, for many observations written at once: appends to
    ``ones`` the positions that are 1 and to ``at`` / ``values`` those that hold another value
    (each position once), every position offset by ``base`` (the observation's start in a flat
    buffer of zeros). A batch fills its buffer with two numpy assignments
    (``buf[ones] = 1; buf[at] = values``) for all its observations (:mod:`kemps.env.vector`)."""
    static_into(ones, at, values, base, view, rules, held)
    dynamic_into(ones, at, values, base, view, seen, rules, now, cooling)


def static_into(ones: list[int], at: list[int], values: list[float], base: int, view: SeatView,
                rules: RuleSet, held: Sequence[Card] = ()) -> None:
    """The parts of :func:`encode_into` that depend on the view and ``held`` alone (the view is
    made again whenever the table changes, so a batch may keep this part while the view stays
    the same)."""
    me = view.seat if view.seat is not None else 0
    names = view.names
    n = len(names)
    pairs = n // 2
    my_pair = me % pairs
    o = _offsets(n, pairs)
    add = ones.append
    add(base + _PHASE[view.phase])
    hand = view.hand
    counts: dict[int, int] = {}
    h0 = base + o.hand
    for j, c in enumerate(hand[:MAX_HAND]):
        k = c.index
        r = k % 13
        counts[r] = counts.get(r, 0) + 1
        b = h0 + j * CARD
        ones += (b, b + 1 + r, b + 14 + (k // 13) % 4)
    for c in hand[MAX_HAND:]:
        r = c.index % 13
        counts[r] = counts.get(r, 0) + 1
    b = base + o.hand_ranks
    for r, k in counts.items():
        if k >= 4:
            add(b + r)
        else:
            at.append(b + r)
            values.append(_QUARTER[k])
    if held:
        b = base + o.picked
        for j, c in enumerate(hand[:MAX_HAND]):
            if c in held:
                add(b + j)
    b0 = base + o.middle
    for i, m in enumerate(view.middle):
        if m is not None:
            k = m.index
            b = b0 + i * CARD
            ones += (b, b + 1 + k % 13, b + 14 + (k // 13) % 4)
    if view.middle_face_down:
        add(base + o.middle + 4 * CARD)
    seats0 = base + o.seats
    hand_counts = view.hand_counts
    dealer = view.dealer
    revealed = view.revealed
    for k in range(n):
        s = (me + k) % n
        b = seats0 + k * SEAT
        held_n = hand_counts[s]
        if held_n:
            if held_n >= MAX_HAND:
                add(b)
            else:
                at.append(b)
                values.append(held_n / MAX_HAND)
        if s == dealer:
            add(b + 2)
        shown = revealed.get(s)
        if shown:
            counts = {}
            for c in shown:
                r = c.index % 13
                counts[r] = counts.get(r, 0) + 1
            for r, k in counts.items():
                if k >= 4:
                    add(b + 5 + r)
                else:
                    at.append(b + 5 + r)
                    values.append(_QUARTER[k])
    for s in view.holding:
        add(seats0 + ((s - me) % n) * SEAT + 1)
    for s in view.objectors:
        add(seats0 + ((s - me) % n) * SEAT + 3)
    for s in view.agreed:
        add(seats0 + ((s - me) % n) * SEAT + 4)
    if dealer is None:
        add(base + o.no_dealer)
    scale = rules.losing_letters if rules.scoring == "letters" else max(rules.target, 1)
    scores = view.scores
    for k in range(pairs):
        v = scores[(my_pair + k) % pairs]
        if v:
            _value(ones, at, values, base + o.scores + k, min(1.0, v / scale))
    pack = 52.0 * rules.deck_count
    if view.stock_count:
        _value(ones, at, values, base + o.stock, view.stock_count / pack)
    if view.swept_count:
        _value(ones, at, values, base + o.stock + 1, min(1.0, view.swept_count / pack))
    if view.stall_deadline is not None:
        add(base + o.stall)
    if view.opens_at is not None:
        add(base + o.opening)
    if view.hand_no:
        _value(ones, at, values, base + o.hand_no, min(1.0, view.hand_no / 20))
    for g in view.signals:
        add(base + o.signals + _GESTURE[g])
    if view.looks:
        looks0 = base + o.looks
        for s, where in enumerate(view.looks):
            b = looks0 + ((s - me) % n) * (n + 2)
            if where == "hand":
                add(b)
            elif where == "middle":
                add(b + 1)
            elif isinstance(where, int):
                add(b + 2 + (where - me) % n)


def dynamic_into(ones: list[int], at: list[int], values: list[float], base: int,
                 view: SeatView, seen: Sequence[Event], rules: RuleSet, now: float,
                 cooling: bool = False) -> None:
    """The parts of :func:`encode_into` that change with the time and the tick's events while the
    view stays the same (the countdowns' time left, "this tick", cooling down, moved unseen);
    :func:`static_into` gives the rest, a function of the view and ``held`` alone."""
    n = len(view.names)
    o = _offsets(n, n // 2)
    if view.stall_deadline is not None and rules.sweep_countdown_s > 0:
        left = min(1.0, max(0.0, (view.stall_deadline - now) / rules.sweep_countdown_s))
        if left:
            _value(ones, at, values, base + o.stall + 1, left)
    if view.opens_at is not None and rules.start_countdown_s > 0:
        left = min(1.0, max(0.0, (view.opens_at - now) / rules.start_countdown_s))
        if left:
            _value(ones, at, values, base + o.opening + 1, left)
    if seen:
        _seen(ones, at, values, base, o, view.seat or 0, n, seen)
    if cooling:
        ones.append(base + o.cooling)


def _seen(ones: list[int], at: list[int], values: list[float], base: int, o: _Offsets, me: int,
          n: int, seen: Sequence[Event]) -> None:
    """The parts "this tick" and "moved unseen this tick" from the events the seat saw."""
    add = ones.append
    table = base + o.tick_table
    tick = base + o.tick
    moves = len(GESTURES)
    calls = moves + 2 * len(RANKS)
    ranks: dict[int, int] = {}  # position -> cards of that rank taken or given this tick
    e: Any
    for e in seen:
        cls = e.__class__
        who = getattr(e, "seat", None)
        if not isinstance(who, int):
            if cls is HandDealt:
                add(table)
            elif cls is PlayOpened:
                add(table + 1)
            elif cls is Swept:
                add(table + 2)
            elif cls is HandEnded:
                add(table + 3)
            elif cls is MatchEnded:
                add(table + 4)
            continue
        b = tick + ((who - me) % n) * TICK_SEAT
        if cls is Gestured or cls is GestureSeen:
            add(b + _GESTURE[e.gesture])
        elif cls is Moved:
            add(base + o.moved + (who - me) % n)
        elif cls is Swapped or cls is Grabbed or cls is Discarded:
            if cls is not Discarded:
                for c in e.took:
                    i = b + moves + c.index % 13
                    ranks[i] = ranks.get(i, 0) + 1
            if cls is not Grabbed:
                for c in e.gave:
                    i = b + moves + 13 + c.index % 13
                    ranks[i] = ranks.get(i, 0) + 1
        elif cls is Called:
            add(b + calls + _CALL[e.kind])
        elif cls is CallJudged:
            add(b + calls + len(CALL_KINDS) + (0 if e.right else 1))
        elif cls is StallProposed:
            add(b + TICK_SEAT - 2)
        elif cls is Objected:
            add(b + TICK_SEAT - 1)
    for i, k in ranks.items():
        if k >= 4:
            add(i)
        else:
            at.append(i)
            values.append(_QUARTER[k])


def _value(ones: list[int], at: list[int], values: list[float], i: int, v: float) -> None:
    if v == 1.0:
        ones.append(i)
    else:
        at.append(i)
        values.append(v)


@dataclass(frozen=True, slots=True)
class _Offsets:
    hand: int
    hand_ranks: int
    picked: int
    middle: int
    seats: int
    no_dealer: int
    scores: int
    stock: int
    stall: int
    opening: int
    hand_no: int
    signals: int
    tick: int
    tick_table: int
    cooling: int
    looks: int
    moved: int


@functools.lru_cache(maxsize=64)
def _offsets(seats: int, pairs: int) -> _Offsets:
    start = {name: first for name, first, _ in _parts(seats, pairs)}
    return _Offsets(
        hand=start["hand"], hand_ranks=start["hand ranks"], picked=start["picked up"],
        middle=start["middle"], seats=start["seats"], no_dealer=start["no dealer at the table"],
        scores=start["scores"], stock=start["stock, swept"], stall=start["stall"],
        opening=start["opening"], hand_no=start["hand number"], signals=start["own signals"],
        tick=start["this tick, per seat"], tick_table=start["this tick, table"],
        cooling=start["cooling down"], looks=start["looks"],
        moved=start["moved unseen this tick"])
