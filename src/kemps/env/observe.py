"""The observation encoding of :mod:`kemps.env`: one seat's view and its events, as numbers.

Everything here is read from :func:`kemps.views.view_for` (the seat's view) and from the events of
the last tick as :func:`kemps.views.events_for` gives them to that seat: the road people and bots
use, so nothing hidden reaches an agent. Seats and pairs are relative to the agent (offset 0 is
the agent, offset k the seat k places to its left; pair offset 0 is its own pair), so one policy
fits every seat. Every number is in [0, 1].

The flat vector (``n`` seats, ``P`` pairs, ``G`` palette gestures), in order:

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
========================  ========  =============================================================

"This tick, per seat" is: gestures (G, multi-hot), cards taken (13 ranks, / 4), cards given
(13 ranks, / 4), called (4 kinds, in :data:`kemps.actions.CALL_KINDS` order: kemps, stop, double
kemps, double stop), its call was right, wrong, it proposed a stall, it objected:
``G + 26 + 4 + 4`` = 52 entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

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
    Grabbed,
    HandDealt,
    HandEnded,
    MatchEnded,
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


def size(seats: int, pairs: int) -> int:
    """The length of the flat vector for a table of ``seats`` seats and ``pairs`` pairs."""
    return (len(PHASES) + MAX_HAND * CARD + len(RANKS) + MAX_HAND + 4 * CARD + 1 + seats * SEAT + 1 + pairs
            + 2 + 2 + 2 + 1 + len(GESTURES) + seats * TICK_SEAT + 5 + 1)


def _card(out: npt.NDArray[np.float32], at: int, c: Card | None) -> None:
    if c is None:
        return
    out[at] = 1.0
    out[at + 1 + _RANK[c.rank]] = 1.0
    out[at + 1 + len(RANKS) + _SUIT[c.suit]] = 1.0


def _ranks(out: npt.NDArray[np.float32], at: int, cards: Iterable[Card]) -> None:
    for c in cards:
        i = at + _RANK[c.rank]
        out[i] = min(1.0, out[i] + 0.25)


def encode(view: SeatView, seen: Sequence[Event], rules: RuleSet, now: float,
           cooling: bool = False, held: Sequence[Card] = ()) -> npt.NDArray[np.float32]:
    """The flat observation of ``view``'s seat at table time ``now`` (seconds) after a tick whose
    events it saw were ``seen``.

    ``view`` must be a seat's (not a spectator's); ``seen`` must already be redacted for it
    (:func:`kemps.views.events_for`). ``rules`` gives the public scales (the losing letters or the
    target, the countdowns); ``held`` are the cards the seat picked up and still holds (from its
    own events). Shape: ``(size(n, pairs),)``, float32, every entry in [0, 1].
    """
    me = view.seat if view.seat is not None else 0
    n = len(view.names)
    pairs = n // 2
    my_pair = me % pairs
    out = np.zeros(size(n, pairs), dtype=np.float32)
    at = 0
    out[at + PHASES.index(view.phase)] = 1.0
    at += len(PHASES)
    for j, c in enumerate(view.hand[:MAX_HAND]):
        _card(out, at + j * CARD, c)
    at += MAX_HAND * CARD
    _ranks(out, at, view.hand)
    at += len(RANKS)
    if held:
        for j, c in enumerate(view.hand[:MAX_HAND]):
            out[at + j] = float(c in held)
    at += MAX_HAND
    for i, m in enumerate(view.middle):
        _card(out, at + i * CARD, m)
    at += 4 * CARD
    out[at] = float(view.middle_face_down)
    at += 1
    holding, objectors, agreed = set(view.holding), set(view.objectors), set(view.agreed)
    for k in range(n):
        s = (me + k) % n
        base = at + k * SEAT
        out[base] = min(1.0, view.hand_counts[s] / MAX_HAND)
        out[base + 1] = float(s in holding)
        out[base + 2] = float(view.dealer == s)
        out[base + 3] = float(s in objectors)
        out[base + 4] = float(s in agreed)
        _ranks(out, base + 5, view.revealed.get(s, ()))
    at += n * SEAT
    out[at] = float(view.dealer is None)
    at += 1
    scale = rules.losing_letters if rules.scoring == "letters" else max(rules.target, 1)
    for k in range(pairs):
        out[at + k] = min(1.0, view.scores[(my_pair + k) % pairs] / scale)
    at += pairs
    pack = 52.0 * rules.deck_count
    out[at] = view.stock_count / pack
    out[at + 1] = min(1.0, view.swept_count / pack)
    at += 2
    if view.stall_deadline is not None:
        out[at] = 1.0
        if rules.sweep_countdown_s > 0:
            out[at + 1] = float(np.clip((view.stall_deadline - now) / rules.sweep_countdown_s,
                                        0.0, 1.0))
    at += 2
    if view.opens_at is not None:
        out[at] = 1.0
        if rules.start_countdown_s > 0:
            out[at + 1] = float(np.clip((view.opens_at - now) / rules.start_countdown_s,
                                        0.0, 1.0))
    at += 2
    out[at] = min(1.0, view.hand_no / 20)
    at += 1
    for g in view.signals:
        out[at + _GESTURE[g]] = 1.0
    at += len(GESTURES)
    tick = at
    at += n * TICK_SEAT
    for e in seen:
        who = getattr(e, "seat", None)
        if not isinstance(who, int):
            if isinstance(e, HandDealt):
                out[at] = 1.0
            elif isinstance(e, PlayOpened):
                out[at + 1] = 1.0
            elif isinstance(e, Swept):
                out[at + 2] = 1.0
            elif isinstance(e, HandEnded):
                out[at + 3] = 1.0
            elif isinstance(e, MatchEnded):
                out[at + 4] = 1.0
            continue
        base = tick + ((who - me) % n) * TICK_SEAT
        moves = len(GESTURES)
        calls = moves + 2 * len(RANKS)
        if isinstance(e, Gestured):
            out[base + _GESTURE[e.gesture]] = 1.0
        elif isinstance(e, Swapped):
            _ranks(out, base + moves, e.took)
            _ranks(out, base + moves + len(RANKS), e.gave)
        elif isinstance(e, Grabbed):
            _ranks(out, base + moves, e.took)
        elif isinstance(e, Discarded):
            _ranks(out, base + moves + len(RANKS), e.gave)
        elif isinstance(e, Called):
            out[base + calls + _CALL[e.kind]] = 1.0
        elif isinstance(e, CallJudged):
            out[base + calls + len(CALL_KINDS) + (0 if e.right else 1)] = 1.0
        elif isinstance(e, StallProposed):
            out[base + TICK_SEAT - 2] = 1.0
        elif isinstance(e, Objected):
            out[base + TICK_SEAT - 1] = 1.0
    at += 5
    out[at] = float(cooling)
    return out
