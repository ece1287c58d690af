"""The action encoding of :mod:`kemps.env`: one integer a tick per agent, in named blocks.

An agent's action is an index into a flat :class:`gymnasium.spaces.Discrete` space made of blocks,
in this order (``n`` seats, ``H`` = :data:`MAX_HAND` hand slots, ``G`` = the palette's gestures in
:data:`kemps.gestures.PALETTE` order)::

    noop          1    do nothing this tick
    swap         69    take the middle slots M, give the hand slots S (|M| = |S|, 1..4, paired in
                       slot order): the 16 one-card swaps first, then 36 two-card, 16 three-card,
                       1 four-card; more than one card only where ``multi_swap``
    grab          4    pick up middle slot i (S4 grab-then-discard, ``hold_limit_s > 0``)
    discard       H    put hand slot j into an empty middle slot (after a grab)
    stall         1    say the middle has stalled / agree to a fresh middle / sweep (dealer)
    object        1    object to a pending stall
    go            1    the dealer says Go (``start="on_go"``)
    gesture       G    make gesture g
    kemps         1    call Kemps on the partner
    double_kemps  1    Double Kemps (``double_calls``)
    stop          n    Stop Kemps on the seat k places to the left (k = 1..n-1); where Stop names a
                       pair, on that seat's pair, listed once, at offsets 1..pairs-1
    double_stop   n    double Stop Kemps on the pair of the seat k places to the left (1..pairs-1)
    agree         G    between hands: agree the one-gesture signal (g,)
    agree_add     G    between hands: agree the pair's current signal plus g (2 or 3 gestures)
    look          n    ``attention`` tables: look at the seat k places to the left (k = 1..n-1),
                       or, k = 0, at your own cards (S0: watching your partner means not
                       watching your cards); a swap or grab moves your look to the middle
    look_middle   1    ``attention`` tables: look at the middle (added in layout version 2)

Slots are the seat's own view: the middle's four slots and the hand in the view's order; the
cards they name are read from the observation the agent acted on, so a card that someone else
took first is ``card_gone`` (S1 "the first player to touch it gets it"). Seats are named relative
to the agent (k places to its left), so one policy fits every seat.

Growth without breaking: the ``look`` block was there from the start (reserved until the attention
(``LegalMoves`` listing looks) only its mask and decoding are filled in and the space keeps its
size; any other new kind of action is a new block appended after the last one, so every index
here keeps its meaning; :attr:`ActionLayout.version` counts such additions.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from kemps.actions import (
    Action,
    AgreeSignals,
    Call,
    Discard,
    Gesture,
    Go,
    Grab,
    Look,
    Object,
    ProposeStall,
    Swap,
)
from kemps.cards import Card
from kemps.gestures import MAX_SIGNALS, PALETTE
from kemps.rules import RuleSet
from kemps.table import LegalMoves
from kemps.views import SeatView

#: Hand slots an action can name: four cards, plus up to four picked up under grab-then-discard.
MAX_HAND: Final = 8
GESTURES: Final[tuple[str, ...]] = tuple(PALETTE)

#: The swaps as (middle slots, hand slots), one-card swaps first.
SWAPS: Final[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]] = tuple(
    (m, h) for k in range(1, 5)
    for m in itertools.combinations(range(4), k) for h in itertools.combinations(range(4), k))


# Per swap: the middle slots it takes as bits, the hand slots it needs (highest + 1), its size.
_SWAP_MID: Final = np.array([sum(1 << i for i in m) for m, _ in SWAPS], dtype=np.int64)
_SWAP_HAND: Final = np.array([max(h) + 1 for _, h in SWAPS], dtype=np.int64)
_SWAP_ONE: Final = np.array([len(m) == 1 for m, _ in SWAPS], dtype=bool)


@functools.lru_cache(maxsize=64)
def _blocks(seats: int) -> tuple[tuple[str, int, int], ...]:
    sizes = (("noop", 1), ("swap", len(SWAPS)), ("grab", 4), ("discard", MAX_HAND),
             ("stall", 1), ("object", 1), ("go", 1), ("gesture", len(GESTURES)),
             ("kemps", 1), ("double_kemps", 1), ("stop", seats),
             ("double_stop", seats), ("agree", len(GESTURES)),
             ("agree_add", len(GESTURES)), ("look", seats), ("look_middle", 1))
    out: list[tuple[str, int, int]] = []
    start = 0
    for name, size in sizes:
        out.append((name, start, size))
        start += size
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _starts(seats: int) -> dict[str, int]:
    return {name: start for name, start, _ in _blocks(seats)}


@dataclass(frozen=True, slots=True)
class ActionLayout:
    """Where each block of actions starts, for a table of ``seats`` seats.

    ``blocks`` is ``(name, start, size)`` in index order; :attr:`size` is the Discrete space's
    size. The layout depends on the number of seats only, so all seats share one space.
    """

    seats: int
    version: int = 2

    @property
    def blocks(self) -> tuple[tuple[str, int, int], ...]:
        """``(name, start, size)`` of every block, in index order."""
        return _blocks(self.seats)

    @property
    def size(self) -> int:
        """How many actions there are (the Discrete space's ``n``)."""
        _, start, size = self.blocks[-1]
        return start + size

    def start(self, block: str) -> int:
        """The first index of ``block`` (KeyError for a block that does not exist)."""
        return _starts(self.seats)[block]

    def name(self, index: int) -> tuple[str, int]:
        """``(block, offset in block)`` of an action index (ValueError when out of range)."""
        for block, start, size in self.blocks:
            if start <= index < start + size:
                return block, index - start
        raise ValueError(f"{index} is not an action index (0..{self.size - 1}).")


def start_of(layout: ActionLayout, block: str) -> int:
    """The first index of ``block`` in ``layout`` (KeyError for a block that does not exist)."""
    return layout.start(block)


def decode(layout: ActionLayout, index: int, view: SeatView, rules: RuleSet) -> Action | None:
    """The table action that ``index`` names for the seat of ``view``, or None (the no-op, or an
    index naming an empty slot or a target that does not exist at this table).

    Raises:
        ValueError: ``index`` is not an index of ``layout``.
    """
    seat = view.seat
    if seat is None:
        return None
    block, k = layout.name(index)
    hand, middle, n, pairs = view.hand, view.middle, layout.seats, rules.pairs
    if block == "swap":
        mids, hands = SWAPS[k]
        take = tuple(middle[i] for i in mids)
        if any(c is None for c in take) or any(j >= len(hand) for j in hands):
            return None
        return Swap(seat, tuple(c for c in take if c is not None), tuple(hand[j] for j in hands))
    if block == "grab":
        got = middle[k]
        return None if got is None else Grab(seat, (got,))
    if block == "discard":
        return Discard(seat, (hand[k],)) if k < len(hand) else None
    if block == "stall":
        return ProposeStall(seat)
    if block == "object":
        return Object(seat)
    if block == "go":
        return Go(seat)
    if block == "gesture":
        return Gesture(seat, GESTURES[k])
    if block in ("kemps", "double_kemps"):
        return Call(seat, "kemps" if block == "kemps" else "double_kemps")
    if block in ("stop", "double_stop"):
        if k == 0:
            return None
        target = (seat + k) % n
        if block == "stop" and rules.stop_target == "player":
            return Call(seat, "stop", on_seat=target)
        if k >= pairs:
            return None
        return Call(seat, "stop" if block == "stop" else "double_stop", on_pair=target % pairs)
    if block == "agree":
        return AgreeSignals(seat, (GESTURES[k],))
    if block == "agree_add":
        g = GESTURES[k]
        if not 1 <= len(view.signals) < MAX_SIGNALS or g in view.signals:
            return None
        return AgreeSignals(seat, (*view.signals, g))
    if block == "look":
        return Look(seat, "hand" if k == 0 else (seat + k) % n)
    if block == "look_middle":
        return Look(seat, "middle")
    return None  # the no-op


def action_mask(layout: ActionLayout, view: SeatView, rules: RuleSet,
                held: tuple[Card, ...] = (), cooling: bool = False,
                due: float | None = None, out: npt.NDArray[np.int8] | None = None
                ) -> npt.NDArray[np.int8]:
    """1 for each index the table would accept from this seat now, 0 for the rest; the no-op is
    always 1. Built from the view's legal moves (:attr:`SeatView.legal`, the engine's own checks)
    and the public rules; ``held`` are the cards the seat picked up (a discard must be another
    card, S1 "Discard a different card"); ``cooling`` (the seat moved less than the driver's
    minimum gap ago) leaves only the no-op. Shape ``(layout.size,)``, int8; with ``out`` (a row
    of zeros of that shape, such as a row of a batch) it is written there and returned."""
    mask = np.zeros(layout.size, dtype=np.int8) if out is None else out
    fill_mask(layout, view, rules, held, cooling, due, mask)
    return mask


def fill_mask(layout: ActionLayout, view: SeatView, rules: RuleSet, held: tuple[Card, ...],
              cooling: bool, due: float | None, mask: npt.NDArray[np.int8], swaps: bool = True
              ) -> int:
    """:func:`action_mask` written into ``mask`` (a row of zeros). With ``swaps`` False the swap
    block is left to the caller, who fills it from ``swap_rows(rules.multi_swap)[key]`` for the
    returned key (-1: no swap allowed); a batch does that for all its rows at once."""
    mask[0] = 1
    legal: LegalMoves | None = view.legal
    if cooling or legal is None or view.seat is None:
        return -1
    hand, middle = view.hand, view.middle
    starts = _starts(layout.seats)
    key = -1
    if legal.swap:
        there = sum(1 << i for i, c in enumerate(middle) if c is not None)
        key = there * 5 + min(len(hand), 4)
        if swaps:
            base = starts["swap"]
            mask[base:base + len(SWAPS)] = swap_rows(rules.multi_swap)[key]
    if legal.grab:
        for i in range(4):
            if middle[i] is not None:
                mask[starts["grab"] + i] = 1
    if legal.discard:
        for j, c in enumerate(hand[:MAX_HAND]):
            if c not in held:
                mask[starts["discard"] + j] = 1
    for block, ok in (("stall", legal.stall), ("object", legal.object), ("go", legal.go),
                      ("kemps", legal.kemps), ("double_kemps", legal.double_kemps)):
        if ok:
            mask[starts[block]] = 1
    g0 = starts["gesture"]
    if not legal.gestures_refused:
        mask[g0:g0 + len(GESTURES)] = 1
    else:
        refused = set(legal.gestures_refused)
        for i, g in enumerate(GESTURES):
            if g not in refused:
                mask[g0 + i] = 1
    seat, n, pairs = view.seat, layout.seats, rules.pairs
    by_player = rules.stop_target == "player"
    stops = set(legal.stop)  # (seat, its pair) where Stop names a player, else (None, pair)
    doubles = set(legal.double_stop)
    for k in range(1, n):
        target = (seat + k) % n
        if by_player:
            if (target, target % pairs) in stops:
                mask[starts["stop"] + k] = 1
        elif k < pairs and (None, target % pairs) in stops:
            mask[starts["stop"] + k] = 1
        if k < pairs and (None, target % pairs) in doubles:
            mask[starts["double_stop"] + k] = 1
    if legal.agree_signals:
        signals = view.signals
        for i, g in enumerate(GESTURES):
            if PALETTE[g].kind == "heard" and not rules.heard_signals:
                continue
            mask[starts["agree"] + i] = 1
            if 1 <= len(signals) < MAX_SIGNALS and g not in signals:
                mask[starts["agree_add"] + i] = 1
    # looks: where the engine allows, once the look gap has passed by the action's due time
    # (the engine allows a look 1e-9 s early, against rounding in "since + gap": the same here)
    if legal.looks and (legal.look_from is None or due is None
                        or due >= legal.look_from - 1e-9):
        for where in legal.looks:
            if where == "middle":
                mask[starts["look_middle"]] = 1
            elif where == "hand":
                mask[starts["look"]] = 1
            else:
                mask[starts["look"] + (where - seat) % n] = 1
    return key


@functools.lru_cache(maxsize=2)
def swap_rows(multi_swap: bool) -> npt.NDArray[np.int8]:
    """The swap block of the mask for every case, ``(16 * 5, len(SWAPS))`` int8: row ``there *
    5 + min(hand size, 4)``, ``there`` the middle's filled slots as bits; with ``multi_swap``
    False only the one-card swaps."""
    there = np.arange(16)[:, None, None]
    hand = np.arange(5)[None, :, None]
    ok = ((_SWAP_MID[None, None, :] & ~there) == 0) & (hand >= _SWAP_HAND[None, None, :])
    if not multi_swap:
        ok &= _SWAP_ONE[None, None, :]
    rows: npt.NDArray[np.int8] = ok.reshape(16 * 5, len(SWAPS)).astype(np.int8)
    rows.flags.writeable = False
    return rows
