"""The table engine: one object holding a table's whole state, changed only by actions.

Everything that changes the state lives in this module (h11 ``_state.py`` style). The engine does
no I/O and owns no clock and no global random: each action comes with ``now`` (seconds, any
monotonic origin chosen by the caller) and a deal carries its own pack order and reshuffle seed.

Use::

    table = Table(find_preset("pagat"), names=["Alice", "Ben", "Cara", "Dev"])
    events = table.apply(Deal(order), now=0.0)       # or raises Rejected, changing nothing
    events += table.advance(now=4.0)                  # fire timers due by then
    table.next_deadline()                             # when the driver should call advance next

Seating: seats ``0..n-1`` clockwise; pair of seat ``s`` is ``s % pairs``; partner is
``(s + pairs) % n`` so partners sit opposite (RULES-NOTES "Fixed by every seed"). "Left" of a seat
is the next seat, ``(s + 1) % n``. The dealer is a seat, or ``None`` under
``dealer="non_playing"``: a dealer who is not playing (S2 tournament row 7), whose actions
(``Go``, ``ProposeStall``) carry ``seat=None`` and whose judgement is the table's timers.

The clock: an action stamped earlier than the table's clock is applied at the table's clock
(:attr:`Table.clock`), and that clamped time is the one its events carry and a record keeps.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import random
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal

from kemps.actions import (
    Action,
    AgreeSignals,
    Call,
    Chat,
    Deal,
    DeclineSignals,
    Discard,
    Gesture,
    Go,
    Grab,
    Look,
    LookAt,
    Object,
    ProposeSignals,
    ProposeStall,
    RuleTableTalk,
    Swap,
)
from kemps.cards import Card, four_of_a_kind, new_pack
from kemps.errors import KempsError, Rejected, said
from kemps.events import (
    Called,
    CallJudged,
    CallVoid,
    Chatted,
    Discarded,
    Event,
    Gestured,
    GestureSeen,
    Grabbed,
    HandDealt,
    HandEnded,
    HoldExpired,
    Looked,
    MatchEnded,
    Objected,
    ObjectionLapsed,
    PlayOpened,
    Revealed,
    Scored,
    SignalsAgreed,
    SignalsDeclined,
    SignalsProposed,
    StallCancelled,
    StallProposed,
    StallResumed,
    StockReshuffled,
    Swapped,
    Swept,
    TableTalkRuled,
)
from kemps.gestures import GESTURE_S, LOOK_GAP_S, LOOK_PLACES, MAX_SIGNALS, PALETTE
from kemps.immutable import immutable
from kemps.rules import RuleSet
from kemps.scoring import (
    Award,
    add_award,
    call_award,
    call_target,
    ends_hand,
    hands_limit_reached,
    rank_pairs,
    score_limit_reached,
    stop_targets,
)

Phase = Literal["huddle", "dealt", "play", "over"]


@immutable
class LegalMoves:
    """What one seat may do now (:meth:`Table.legal`). ``stop`` and ``double_stop`` are the
    ``(on_seat, on_pair)`` targets a Stop (double Stop) call may name; ``agree_signals`` also
    says the seat may propose signals to its partner (between hands); ``decline_signals`` that
    its partner's proposal waits for its answer; ``gestures_refused`` the
    palette names it may not make now (heard ones at a silent table, its own pair's signal where
    fakes are banned and it holds no four of a kind): every other palette gesture is allowed.
    (Listed as refusals so that a view names no gesture beyond what the seat already knows.)
    ``looks`` (``attention`` tables) are the places the seat may turn its look to: every other
    seat, ``"middle"`` and ``"hand"``, but not where it already looks; a look is accepted from
    table time ``look_from`` on (None: at any time), :data:`kemps.gestures.LOOK_GAP_S` after its
    last change of look."""

    swap: bool = False
    grab: bool = False
    discard: bool = False
    stall: bool = False
    object: bool = False
    go: bool = False
    chat: bool = False
    agree_signals: bool = False
    decline_signals: bool = False
    gestures_refused: tuple[str, ...] = ()
    kemps: bool = False
    double_kemps: bool = False
    stop: tuple[tuple[int | None, int], ...] = ()
    double_stop: tuple[tuple[int | None, int], ...] = ()
    looks: tuple[LookAt, ...] = ()
    look_from: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form; targets as ``{"on_seat", "on_pair"}`` objects."""
        return {"swap": self.swap, "grab": self.grab, "discard": self.discard,
                "stall": self.stall, "object": self.object, "go": self.go, "chat": self.chat,
                "agree_signals": self.agree_signals, "decline_signals": self.decline_signals,
                "gestures_refused": list(self.gestures_refused), "kemps": self.kemps,
                "double_kemps": self.double_kemps,
                "stop": [{"on_seat": a, "on_pair": b} for a, b in self.stop],
                "double_stop": [{"on_seat": a, "on_pair": b} for a, b in self.double_stop],
                "looks": list(self.looks), "look_from": self.look_from}

    @classmethod
    def from_dict(cls, data: Any) -> LegalMoves:
        """The moves of a JSON form :meth:`to_dict` made (``from_dict(m.to_dict()) == m``).

        Raises:
            KempsError: ``bad_view`` for data that is not that form.
        """
        if not isinstance(data, dict) or set(data) != set(_LEGAL_FIELDS):
            raise KempsError("bad_view", "Legal moves are an object with the fields "
                             f"{', '.join(_LEGAL_FIELDS)}.")
        out: dict[str, Any] = {}
        for name in _LEGAL_FIELDS:
            value = data[name]
            if name in ("stop", "double_stop"):
                if not isinstance(value, list) or not all(
                        isinstance(v, dict) and set(v) == {"on_seat", "on_pair"} for v in value):
                    raise KempsError("bad_view", f"{name!r} is a list of call targets.")
                value = tuple((v["on_seat"], v["on_pair"]) for v in value)
            elif name in ("gestures_refused", "looks"):
                if not isinstance(value, list):
                    raise KempsError("bad_view", f"{name!r} is a list.")
                value = tuple(value)
            elif name == "look_from":
                if value is not None and (isinstance(value, bool)
                                          or not isinstance(value, int | float)):
                    raise KempsError("bad_view", "'look_from' is a time or null.")
                value = None if value is None else float(value)
            elif not isinstance(value, bool):
                raise KempsError("bad_view", f"{name!r} is true or false.")
            out[name] = value
        return cls(**out)


_OVER: Final = LegalMoves(gestures_refused=tuple(PALETTE))
#: LegalMoves's field names, found once (dataclasses.fields is slow on every view).
_LEGAL_FIELDS: Final = tuple(f.name for f in dataclasses.fields(LegalMoves))

#: Every slot of :class:`Table` that an action or a timer can change, in one place: a rejected
#: action puts exactly these back (the reshuffle generator's state is kept beside them). The
#: other slots are fixed at seating (tests check the two lists cover every slot).
_STATE: Final = ("phase", "hand_no", "dealer", "hands", "middle", "stock", "swept", "scores",
                 "decided_hands", "revealed", "ranks", "_opens_at", "_stall_deadline",
                 "_objectors", "_objected", "_agreed", "_idle_from", "_holding", "looks",
                 "_look_at", "_gestures")
_FIXED: Final = ("rules", "names", "n", "pairs", "_handlers", "_pack_size", "_pack", "_idle_s",
                 "_heard_refused", "_attention")
# Not put back on a rejection, on purpose: ``signals`` and ``proposals`` (changed only by an
# agreement, a proposal, its answer or a deal, none of which fires a timer or can fail after its
# checks), ``version`` and ``_clock`` (moved only on
# success), ``_rng`` (its state is in the snapshot) and ``_seed`` (set only by a deal).
# ``_next`` caches :meth:`Table.next_deadline` for one ``version`` (timers change only with it);
# ``_legal`` caches :meth:`Table.legal` per seat, keyed on everything it reads (a rejection, which
# puts that back, needs no invalidation).
_UNTOUCHED_BY_REJECTION: Final = ("signals", "proposals", "version", "_clock", "_rng", "_seed",
                                  "_next", "_legal", "private_versions")
#: The actions whose events only the actor's pair may see (S1 "each two player team goes away and
#: privately agrees a signal"): a step of one of them alone counts in ``private_versions``.
_PAIR_PRIVATE: Final = frozenset({AgreeSignals, ProposeSignals, DeclineSignals})


def _copied(value: Any) -> Any:
    """A copy of a state value deep enough that changing the table leaves it alone (cards are
    immutable, so lists, dicts, sets and tuples of them are copied, not the cards)."""
    kind = value.__class__
    if kind is list:
        return [_copied(v) for v in value]
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if kind is set:
        return set(value)
    if kind is tuple:
        return tuple(_copied(v) for v in value)
    return value


@functools.lru_cache(maxsize=1024)
def _stop_targets(rules: RuleSet, seat: int, kind: str) -> tuple[tuple[int | None, int], ...]:
    # Whom a Stop call may name depends on the rules and the seat only: worked out once.
    return tuple(stop_targets(rules, seat, kind))
MAX_CHAT: Final = 200
MAX_NAME: Final = 40
_PACKS: Final = {d: frozenset(new_pack(d)) for d in (1, 2)}
#: The actions that may come with ``seat=None``: the table's own (a deal, a ruling) and a dealer's
#: who is not playing (Go, a sweep); every other action is a player's.
_SEATLESS: Final = frozenset({Deal, RuleTableTalk, Go, ProposeStall})
_new_object: Final = object.__new__


def _gone(c: Card) -> Callable[[], str]:
    """The message of a lost race for ``c``, made only if read (see :class:`Rejected`)."""
    return lambda: f"The {c.text} is no longer in the middle: someone else took it first."


def _not_held(c: Card) -> Callable[[], str]:
    return lambda: f"The {c.text} is not in your hand."


#: How a dealt hand waits to open, for a rejection's message.
_HOW_STARTED: Final = {"on_go": "until the dealer says Go", "countdown": "until the countdown ends"}


class Table:
    """A Kemps table: seating, the current hand, the score, and the match.

    Attributes (read them; never assign): ``rules``, ``names``, ``phase`` (``"huddle"`` between
    hands, ``"dealt"`` before play opens, ``"play"``, ``"over"``), ``hand_no`` (0 before the first
    deal), ``dealer``, ``hands`` (per seat), ``middle`` (4 slots, ``None`` = empty), ``stock``
    (top is the last element), ``swept``, ``scores`` (letters or points per pair), ``signals``
    (per pair), ``proposals`` (per pair, between hands: ``(seat, signals)`` a seat proposed to its
    partner and nobody has answered, else None), ``revealed`` (seat -> cards shown this hand), ``version`` (goes up by one with
    every accepted action and every fired timer batch), ``ranks`` (per pair once over),
    ``looks`` (per seat, where it looks: another seat, ``"middle"`` or ``"hand"``; every seat
    looks at its own cards until it looks elsewhere; changes only at ``attention`` tables),
    ``private_versions`` (per pair: how many of ``version``'s steps only that pair may see, its
    huddle's proposals, answers and agreements).
    """

    __slots__ = (
        "rules", "names", "n", "pairs", "phase", "hand_no", "dealer", "hands", "middle", "stock",
        "swept", "scores", "decided_hands", "signals", "proposals", "revealed", "version", "ranks",
        "_rng", "_opens_at", "_stall_deadline", "_objectors", "_objected", "_agreed",
        "_idle_from", "_holding", "_handlers", "_pack_size", "_clock", "_pack", "_seed", "looks",
        "_look_at", "_gestures", "_next", "_idle_s", "_heard_refused",
        "_attention", "_legal", "private_versions")

    def __init__(self, rules: RuleSet, names: Sequence[str] | None = None,
                 first_dealer: int = 0) -> None:
        """Seat a table.

        Args:
            rules: the rule set; ``rules.pairs`` fixes the number of seats.
            names: one display name per seat (default ``"Seat 1"``...), at most 40 characters.
            first_dealer: the seat that deals the first hand (ignored under
                ``dealer="non_playing"``: nobody at the table deals).

        Raises:
            Rejected: ``bad_action`` for a wrong number of names or a bad dealer seat.
        """
        n = rules.players
        names = list(names) if names is not None else [f"Seat {i + 1}" for i in range(n)]
        if len(names) != n or not all(isinstance(x, str) and 0 < len(x.strip()) <= MAX_NAME
                                      for x in names):
            raise Rejected("bad_action", f"This table seats {n} players: give {n} names of 1 to "
                           f"{MAX_NAME} characters.")
        if isinstance(first_dealer, bool) or not isinstance(first_dealer, int) or not (
                0 <= first_dealer < n):
            raise Rejected("bad_action", f"The first dealer must be a seat from 0 to {n - 1}.")
        self.rules = rules
        self.names: tuple[str, ...] = tuple(x.strip() for x in names)
        self.n = n
        self.pairs = rules.pairs
        self.phase: Phase = "huddle"
        self.hand_no = 0
        self.dealer: int | None = None if rules.dealer == "non_playing" else first_dealer
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.middle: list[Card | None] = [None] * 4
        self.stock: list[Card] = []
        self.swept: list[Card] = []
        self.scores = [0] * self.pairs
        self.decided_hands = 0
        self.signals: list[tuple[str, ...]] = [()] * self.pairs
        self.proposals: list[tuple[int, tuple[str, ...]] | None] = [None] * self.pairs
        self.revealed: dict[int, tuple[Card, ...]] = {}
        self.version = 0
        # per pair: how many of ``version``'s steps were that pair's private huddle (only its
        # seats may see them; :func:`kemps.views.told_version`)
        self.private_versions: list[int] = [0] * self.pairs
        self.ranks: tuple[int, ...] | None = None
        self._pack_size = 52 * rules.deck_count
        self._pack = _PACKS[rules.deck_count]
        self._rng: random.Random | None = None  # made at the first reshuffle of a hand
        self._seed = 0
        self._opens_at: float | None = None
        self._stall_deadline: float | None = None
        # seat -> when its objection lapses; seats that objected during this stall (once each).
        self._objectors: dict[int, float] = {}
        self._objected: set[int] = set()
        self._agreed: set[int] = set()
        self._idle_from: float | None = None
        self._holding: dict[int, tuple[float, list[Card]]] = {}
        # attention: where each seat looks, when its look last changed, and the seen gestures
        # still going on: [made_at, gesturer, gesture, seats that have seen it].
        self.looks: list[LookAt] = ["hand"] * n
        self._look_at: list[float | None] = [None] * n
        self._gestures: list[tuple[float, int, str, set[int]]] = []
        self._clock = float("-inf")
        self._next: tuple[int, float | None] = (-1, None)  # (version, next deadline) cache
        # per seat: (what legal(seat) read, what it gave), or None before the first ask
        self._legal: list[tuple[tuple[object, ...], LegalMoves] | None] = [None] * n
        self._idle_s = self._idle_seconds()  # idle sweep after this many seconds, or None
        self._attention = rules.attention
        # The gestures refused to every seat at all times where fakes are not banned (the heard
        # ones at a silent table): what _gesture_refusal says for each, worked out once.
        self._heard_refused = tuple(name for name, g in PALETTE.items()
                                    if g.kind == "heard" and not rules.heard_signals)
        self._handlers: dict[type[Any], Callable[[Any, float], list[Event]]] = {
            Deal: self._deal, Go: self._go, Swap: self._swap, Grab: self._grab,
            Discard: self._discard, ProposeStall: self._propose_stall, Object: self._object,
            Gesture: self._gesture, Look: self._look, Chat: self._chat,
            AgreeSignals: self._agree_signals, ProposeSignals: self._propose_signals,
            DeclineSignals: self._decline_signals, Call: self._call, RuleTableTalk: self._table_talk}

    # == seating ===================================================================================
    def pair_of(self, seat: int) -> int:
        """The pair (0..pairs-1) that ``seat`` plays in."""
        return seat % self.pairs

    def partner_of(self, seat: int) -> int:
        """The seat opposite ``seat``: its partner."""
        return (seat + self.pairs) % self.n

    def seats_of(self, pair: int) -> tuple[int, int]:
        """The two seats of ``pair``."""
        return (pair, pair + self.pairs)

    def name_of(self, seat: int | None) -> str:
        """The display name of ``seat``; ``"The dealer"`` for ``None``, a dealer who is not
        playing (S2 tournament row 7)."""
        return "The dealer" if seat is None else self.names[seat]

    def left_of(self, seat: int) -> int:
        """The next seat clockwise: the player on ``seat``'s left."""
        return (seat + 1) % self.n

    def holds_four(self, seat: int) -> bool:
        """True when ``seat`` holds four of a kind right now: four cards of one rank among its
        cards (a player holding five under S4's grab-then-discard may hold them among five)."""
        hand = self.hands[seat]
        if len(hand) == 4:
            return four_of_a_kind(hand)
        ranks = [c.rank for c in hand]
        return any(ranks.count(r) >= 4 for r in set(ranks))

    def holds_two(self, seat: int) -> bool:
        """True when ``seat`` holds two cards of one rank (S4's double counter kemps)."""
        ranks = [c.rank for c in self.hands[seat]]
        return len(set(ranks)) < len(ranks)

    def legal(self, seat: int) -> LegalMoves:
        """What ``seat`` may do now, by the very checks the actions' handlers make (so every
        move listed is accepted and every move accepted is listed; cards aside: a listed swap
        takes any middle card for any hand card, a listed grab any middle card, a listed discard
        any hand card but the ones just picked up).

        Worked out again only when something it depends on has changed (issue 29: a server asks
        for every seat on every update, and most updates, a swap or a gesture, change nothing
        here): each seat's answer is kept with a key of everything the checks read (the phase,
        the dealer, the stall and its objections, this seat's hold, agreement, look and, where
        fake signals are banned, its pair's signals and whether it holds four of a kind; in the
        huddle, whether its partner's proposal waits for its answer). The
        cached answer is the very one a fresh computation gives (``tests/test_properties.py``
        compares them after every step of random games of every preset).

        Raises:
            Rejected: ``no_such_seat`` for a seat not at this table.
        """
        if seat.__class__ is not int or not 0 <= seat < self.n:
            raise Rejected("no_such_seat", f"There is no seat {said(seat)} at this table.")
        phase = self.phase
        if phase == "over":
            return _OVER
        if phase != "huddle" and self._due(self._clock):
            # A timer due at this very moment (a countdown of 0 s) fires before any action now:
            # say what the seat may do once it has.
            probe = copy.deepcopy(self)
            probe.advance(self._clock)
            return probe.legal(seat)
        banned = self.rules.fake_signals == "banned"
        key = (phase, self.dealer, seat in self._holding, seat in self._agreed,
               bool(self._objectors), seat in self._objectors, seat in self._objected,
               self._stall_deadline is None, self.looks[seat], self._look_at[seat],
               self.signals[seat % self.pairs] if banned else None,
               banned and phase in ("dealt", "play") and self.holds_four(seat),
               self._proposed_to(seat) is not None if phase == "huddle" else False)
        kept = self._legal[seat]
        if kept is not None and kept[0] == key:
            return kept[1]
        moves = self._legal_now(seat)
        self._legal[seat] = (key, moves)
        return moves

    def _legal_now(self, seat: int) -> LegalMoves:
        """:meth:`legal` worked out afresh (no timer due, the match not over)."""

        def ok(check: Callable[..., object], *args: object) -> bool:
            try:
                check(*args)
            except Rejected:
                return False
            return True

        r = self.rules
        in_hand = self.phase in ("dealt", "play")
        calls = in_hand
        return LegalMoves(
            swap=ok(self._may_swap, seat), grab=ok(self._may_grab, seat),
            discard=ok(self._may_discard, seat), stall=ok(self._may_stall, seat),
            object=ok(self._may_object, seat), go=ok(self._may_go, seat),
            chat=r.table_chat, agree_signals=self.phase == "huddle",
            decline_signals=self.phase == "huddle" and self._proposed_to(seat) is not None,
            gestures_refused=self._heard_refused if r.fake_signals != "banned" else tuple(
                name for name in PALETTE if self._gesture_refusal(seat, name) is not None),
            kemps=calls, double_kemps=calls and r.double_calls,
            stop=_stop_targets(r, seat, "stop") if calls else (),
            double_stop=_stop_targets(r, seat, "double_stop") if calls and r.double_calls
            else (),
            looks=self._look_targets(seat) if r.attention else (),
            look_from=self._look_from(seat) if r.attention else None)

    # == driving ===================================================================================
    def apply(self, action: Action, now: float) -> list[Event]:
        """Apply one action at table time ``now`` (seconds).

        Timers due by ``now`` fire first (their events come first in the list). ``now`` earlier than
        the table's :attr:`clock` is applied at the clock (the clock never runs backwards), and
        the events carry that time; a recorder keeps :attr:`clock` after the action, so a record
        of accepted actions always replays.

        Returns:
            The events the action (and any due timers) caused, in order.

        Raises:
            Rejected: with a stable code (see :class:`kemps.errors.Rejected`) when the action is not
                allowed now; the table, timers included, is unchanged (a timer that was due by
                ``now`` fires at the next call instead).
        """
        if action.__class__ is Swap and now.__class__ is float and now >= self._clock:
            # The commonest action, a one-for-one swap in play with no timer due, checked here
            # without the general path's calls (issue 15: a call frame is a fifth of a swap).
            # The checks and their order are those of the general path through _swap; anything
            # else (and NaN, which fails ``>=``) goes the general way below.
            swapper, take, give = action.seat, action.take, action.give
            if (swapper.__class__ is int and 0 <= swapper < self.n and self.phase == "play"
                    and not (self._objectors or self._holding)
                    and (self._stall_deadline is None or self._stall_deadline > now)
                    and (self._idle_from is None or self._idle_s is None
                         or self._idle_from + self._idle_s > now)
                    and take.__class__ is tuple and give.__class__ is tuple):
                c: Card | None
                g: Card | None
                try:
                    (c,) = take
                    (g,) = give
                except ValueError:  # not one card each: the general path below
                    c = g = None
                if c.__class__ is Card and g.__class__ is Card:
                    hand, middle = self.hands[swapper], self.middle
                    try:
                        h = hand.index(g)
                    except ValueError:
                        raise Rejected("not_in_hand", _not_held(g)) from None
                    try:
                        i = middle.index(c)
                    except ValueError:
                        raise Rejected("card_gone", _gone(c)) from None
                    hand[h] = c
                    middle[i] = g
                    # The event made without the dataclass's __init__ (a third of a swap, from
                    # the constructor call alone): the same fields, each set once, as __init__
                    # would (tests/test_table_fast_paths.py holds it to Swapped(...) made the usual way).
                    made: Any = _new_object(Swapped)
                    made.t = now
                    made.seat = swapper
                    made.took = take
                    made.gave = give
                    made.slots = (i,)
                    swapped: list[Event] = [made]
                    self._idle_from = now
                    if self._agreed:
                        swapped += self._touch(swapper, now)
                    if self._attention:
                        swapped += self._look_at_middle(swapper, now)
                    self.version += 1
                    self._clock = now
                    return swapped
        handler = self._handlers.get(action.__class__)
        if handler is None:
            raise Rejected("bad_action", f"{type(action).__name__} is not an action.")
        kind = now.__class__
        if (kind is not float and kind is not int) or now != now:
            raise Rejected("bad_action", "The time of an action must be a number of seconds.")
        if now < self._clock:  # the table's clock never runs backwards
            now = self._clock
        seat = action.seat
        if seat is None:
            if action.__class__ not in _SEATLESS:
                raise Rejected("no_such_seat", f"A {type(action).__name__} is a player's: name "
                               "the seat.")
        elif seat.__class__ is not int or not 0 <= seat < self.n:
            raise Rejected("no_such_seat", f"There is no seat {said(seat)} at this table.")
        phase = self.phase
        if phase == "over":
            raise Rejected("match_over", "The match is over.")
        if phase == "play" and not (self._objectors or self._holding) and (
                self._stall_deadline is None or self._stall_deadline > now) and (
                self._idle_from is None or self._idle_s is None
                or self._idle_from + self._idle_s > now):
            # Nothing is due (the common case, checked inline; _due says the same in full).
            events = handler(action, now)
            self.version += 1
            self._clock = now
            return events
        if self._due(now):
            # Timers due by now fire first, then the action is tried on the state they leave.
            # If the action is rejected, everything (timers included) is put back as it was, so a
            # rejection changes nothing; the timers fire at the next apply or advance instead.
            snapshot = self._snapshot()
            timer_events = self._fire_due(now)
            try:
                events = handler(action, now)
            except Rejected:
                self._restore(snapshot)
                raise
            self.version += 1
            self._clock = now
            return timer_events + events
        events = handler(action, now)
        self.version += 1
        if action.__class__ in _PAIR_PRIVATE and seat is not None:
            self.private_versions[seat % self.pairs] += 1  # no timer with it: only its pair sees
        self._clock = now
        return events

    def advance(self, now: float) -> list[Event]:
        """Fire every timer due at or before ``now`` (countdowns, hold limits, idle sweeps).

        Returns the events, each stamped with its timer's deadline; empty when nothing was due.
        """
        if not self._due(now):
            return []
        events = self._fire_due(now)
        self.version += 1
        self._clock = max(self._clock, now)
        return events

    @property
    def clock(self) -> float:
        """The table's time: the latest time an action was applied or a timer batch fired at
        (``-inf`` before the first)."""
        return self._clock

    def next_deadline(self) -> float | None:
        """The earliest pending timer deadline in seconds, or ``None`` when none is pending.

        Worked out once per :attr:`version` (every change to the timers comes with a new version;
        a rejected action changes neither), so a driver may ask as often as it likes."""
        version, deadline = self._next
        if version == self.version:
            return deadline
        deadlines = self._deadlines()
        deadline = min(deadlines) if deadlines else None
        self._next = (self.version, deadline)
        return deadline

    # == timers ====================================================================================
    def _deadlines(self) -> list[float]:
        out: list[float] = []
        if self.phase == "dealt":
            if self._opens_at is not None:
                out.append(self._opens_at)
        elif self.phase == "play":
            if self._objectors:
                out.extend(self._objectors.values())
            elif self._stall_deadline is not None:
                out.append(self._stall_deadline)
            idle = self._idle_deadline()
            if idle is not None:
                out.append(idle)
            for deadline, _ in self._holding.values():
                out.append(deadline)
        return out

    def _idle_deadline(self) -> float | None:
        if (self._idle_from is None or not self._idle_sweeps()
                or self._stall_deadline is not None or self._objectors):
            return None
        return self._idle_from + self.rules.idle_sweep_s

    def _idle_sweeps(self) -> bool:
        """Whether the dealer calls a stall after ``idle_sweep_s`` with no card moving (S4 "after
        there is no action for a while, the dealer counts down from three"). Never under
        ``all_agree``; under ``dealer_only`` only a dealer who is not playing does (S0 "only when
        the dealer says so": a playing dealer sweeps by hand, and nothing else replaces the
        middle)."""
        return self._idle_s is not None

    def _idle_seconds(self) -> float | None:
        # Fixed at seating (the dealer is None for the whole match or never): see _idle_sweeps.
        r = self.rules
        if r.idle_sweep_s <= 0 or r.sweep == "all_agree":
            return None
        return r.idle_sweep_s if r.sweep != "dealer_only" or self.dealer is None else None

    def _due(self, now: float) -> bool:
        # Hot path (every apply): the same conditions as _deadlines, without building a list.
        phase = self.phase
        if phase == "play":
            stall, idle_from = self._stall_deadline, self._idle_from
            if self._objectors:
                if any(d <= now for d in self._objectors.values()):
                    return True
            elif stall is not None:
                if stall <= now:
                    return True
            elif idle_from is not None:
                idle_s = self._idle_s
                if idle_s is not None and idle_from + idle_s <= now:
                    return True
            if self._holding:
                return any(d <= now for d, _ in self._holding.values())
            return False
        if phase == "dealt":
            return self._opens_at is not None and self._opens_at <= now
        return False

    def _fire_due(self, now: float) -> list[Event]:
        events: list[Event] = []
        while self.phase in ("dealt", "play"):
            deadlines = self._deadlines()
            if not deadlines:
                break
            t = min(deadlines)  # the earliest timer, if it is due
            if t > now:
                break
            if self.phase == "dealt":
                events += self._open_play(t)
                continue
            if self._objectors:
                lapsed = [s for s, d in sorted(self._objectors.items()) if d == t]
                if lapsed:
                    events += self._lapse_objections(lapsed, t)
                    continue
            if self._holding:
                held = [s for s, (d, _) in sorted(self._holding.items()) if d == t]
                if held:
                    for s in held:
                        events.append(self._return_held(s, t))
                    continue
            if self._stall_deadline is not None and self._stall_deadline == t:
                events += self._sweep(t)
                continue
            # idle sweep: the dealer says the middle has stalled (S4 "after there is no action
            # for a while, the dealer counts down from three"); under dealer_only only a dealer
            # who is not playing gets here, and sweeps at once (S2 rules row 7).
            if self.rules.sweep == "dealer_only":
                events += self._sweep(t)
            else:
                events += self._start_stall(self.dealer, t, auto=True)
        return events

    def _snapshot(self) -> tuple[Any, ...]:
        """The state a rejection puts back (:data:`_STATE`, in order, after the random
        generator's state), copied deep enough that changing the table leaves it alone: each
        value copied by its known shape, not by a generic walk (:func:`_copied` gives equal
        values: ``tests/test_table_fast_paths.py``), since this runs whenever a timer fires
        before an action."""
        rng = None if self._rng is None else self._rng.getstate()
        return (rng, self.phase, self.hand_no, self.dealer, [h[:] for h in self.hands],
                self.middle[:], self.stock[:], self.swept[:], self.scores[:],
                self.decided_hands, dict(self.revealed), self.ranks, self._opens_at,
                self._stall_deadline, dict(self._objectors), set(self._objected),
                set(self._agreed), self._idle_from,
                {s: (d, cards[:]) for s, (d, cards) in self._holding.items()}, self.looks[:],
                self._look_at[:],
                [(t, s, name, set(seen)) for t, s, name, seen in self._gestures])

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        rng_state, *values = snapshot
        for name, value in zip(_STATE, values):
            setattr(self, name, value)
        if rng_state is None:
            self._rng = None
        elif self._rng is not None:
            self._rng.setstate(rng_state)

    # == common checks =============================================================================
    def _require_play(self, what: str) -> None:
        if self.phase == "play":
            return
        if self.phase == "dealt":
            start = self.rules.start
            raise Rejected("not_started", lambda: f"Nobody may {what} {_HOW_STARTED.get(start, 'yet')}.")
        raise Rejected("hand_over", lambda: f"No hand is in play, so you cannot {what}.")

    def _cards_in_middle(self, cards: tuple[Card, ...]) -> list[int]:
        slots: list[int] = []
        middle = self.middle
        for c in cards:
            try:
                i = middle.index(c)
            except ValueError:
                raise Rejected("card_gone", _gone(c)) from None
            slots.append(i)
        return slots

    def _check_hand(self, seat: int, cards: tuple[Card, ...]) -> None:
        hand = self.hands[seat]
        for c in cards:
            if c not in hand:
                raise Rejected("not_in_hand", _not_held(c))

    def _check_count(self, take: tuple[Card, ...], what: str) -> None:
        if not isinstance(take, tuple) or not take or not all(isinstance(c, Card) for c in take):
            raise Rejected("bad_action", f"Name at least one card to {what}.")
        if len(set(take)) != len(take):
            raise Rejected("bad_action", "Name each card once.")
        if len(take) > 1 and not self.rules.multi_swap:
            raise Rejected("one_card_at_a_time", "At this table you swap one card at a time.")

    def _touch(self, seat: int, now: float) -> list[Event]:
        """Bookkeeping after a card moved: the idle clock restarts; an objector who has taken a
        card lets the countdown recommence (S4); a fresh-middle agreement lapses."""
        self._idle_from = now
        events: list[Event] = []
        if seat in self._objectors:
            del self._objectors[seat]
            if not self._objectors and self._stall_deadline is not None:
                self._stall_deadline = now + self.rules.sweep_countdown_s
                events.append(StallResumed(now, self._stall_deadline))
        if self._agreed:
            self._agreed.clear()
            events.append(StallCancelled(now))
        return events

    # == dealing and starting ======================================================================
    def _deal(self, action: Deal, now: float) -> list[Event]:
        if self.phase != "huddle":
            raise Rejected("hand_in_play", "A hand is in play; it must end before the next deal.")
        order = action.order
        try:
            cards = set(order) if isinstance(order, tuple) else None
        except TypeError:  # unhashable junk in the order
            cards = None
        if (cards is None or len(order) != self._pack_size or len(cards) != self._pack_size
                or not cards <= self._pack):
            raise Rejected("bad_deal", f"A deal must order every one of the {self._pack_size} "
                           "cards of this table's pack exactly once.")
        seed = action.reshuffle_seed
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise Rejected("bad_deal", "The reshuffle seed must be a whole number.")
        n = self.n
        # Dealt one at a time from the dealer's left; a dealer who is not playing deals from
        # seat 0.
        first = 0 if self.dealer is None else self.dealer + 1
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(4 * n):
            hands[(first + i) % n].append(order[i])
        self.hands = hands
        self.middle = list(order[4 * n: 4 * n + 4])
        stock = list(order[4 * n + 4:])
        stock.reverse()  # top of the stock is the end of the list
        self.stock = stock
        self.swept = []
        self.revealed = {}
        self.hand_no += 1
        self._rng = None
        self._seed = seed
        self._stall_deadline = None
        self._objectors = {}
        self._objected = set()
        self._agreed = set()
        self._holding = {}
        if any(self.proposals):  # a proposal nobody answered lapses: the old signals stand
            self.proposals = [None] * self.pairs
        start = self.rules.start
        face_down = start == "countdown"
        # A dealer who is not playing says Go by the table's timer, after everyone has had
        # start_countdown_s to look at their cards (the host may say it sooner).
        timed = face_down or (start == "on_go" and self.dealer is None)
        self._opens_at = now + self.rules.start_countdown_s if timed else None
        self.phase = "dealt"
        events: list[Event] = [HandDealt(
            now, self.hand_no, self.dealer, tuple(tuple(h) for h in hands),
            (None, None, None, None) if face_down else tuple(self.middle), len(stock),
            self._opens_at)]
        if start == "on_deal":
            events += self._open_play(now)
        return events

    def _open_play(self, t: float) -> list[Event]:
        self.phase = "play"
        self._opens_at = None
        self._idle_from = t
        return [PlayOpened(t, tuple(self.middle))]

    def _may_go(self, seat: int | None) -> None:
        if self.rules.start != "on_go":
            raise Rejected("bad_action", "At this table play does not wait for a Go.")
        if self.phase != "dealt":
            raise Rejected("hand_over" if self.phase == "huddle" else "bad_action",
                           "There is no dealt hand waiting for a Go.")
        if seat != self.dealer:
            raise Rejected("not_dealer", "Only the dealer says Go." if self.dealer is not None
                           else "The dealer who is not playing says Go, not a player.")

    def _go(self, action: Go, now: float) -> list[Event]:
        self._may_go(action.seat)
        return self._open_play(now)

    # == swapping ==================================================================================
    def _may_swap(self, seat: int) -> None:
        if self.phase != "play":
            self._require_play("swap")
        if seat in self._holding:
            raise Rejected("holding_five", "Discard the card you are holding first.")

    def _swap(self, action: Swap, now: float) -> list[Event]:
        seat, take, give = action.seat, action.take, action.give
        if self.phase != "play" or seat in self._holding:
            self._may_swap(seat)
        hand, middle = self.hands[seat], self.middle
        if (take.__class__ is tuple and give.__class__ is tuple and len(take) == 1
                and len(give) == 1):
            # The common one-for-one swap, checked inline (hot path).
            c, g = take[0], give[0]
            if c.__class__ is not Card or g.__class__ is not Card:
                raise Rejected("bad_action", "Name the cards to take and to give.")
            try:
                h = hand.index(g)
            except ValueError:
                raise Rejected("not_in_hand", _not_held(g)) from None
            try:
                i = middle.index(c)
            except ValueError:
                raise Rejected("card_gone", _gone(c)) from None
            hand[h] = c
            middle[i] = g
            slots: tuple[int, ...] = (i,)
        else:
            self._check_count(take, "take")
            if give.__class__ is not tuple or len(give) != len(take):
                raise Rejected("uneven_swap", "Give as many cards as you take, so your hand stays "
                               "at four.")
            if len(set(give)) != len(give) or not all(g.__class__ is Card for g in give):
                raise Rejected("bad_action", "Name each card to give once.")
            self._check_hand(seat, give)
            found = self._cards_in_middle(take)
            for c, g, i in zip(take, give, found):
                hand[hand.index(g)] = c
                middle[i] = g
            slots = tuple(found)
        events: list[Event] = [Swapped(now, seat, take, give, slots)]
        self._idle_from = now
        if self._objectors or self._agreed:
            events += self._touch(seat, now)
        if self._attention:
            events += self._look_at_middle(seat, now)
        return events

    def _may_grab(self, seat: int) -> None:
        if self.rules.hold_limit_s <= 0:
            raise Rejected("bad_action", "At this table you swap in one move; there is no "
                           "picking up first.")
        self._require_play("pick up a card")
        if seat in self._holding and not self.rules.multi_swap:
            raise Rejected("holding_five", "You already hold five cards; discard one first.")

    def _grab(self, action: Grab, now: float) -> list[Event]:
        seat, take = action.seat, action.take
        self._may_grab(seat)
        self._check_count(take, "pick up")
        held = self._holding.get(seat)
        slots = self._cards_in_middle(take)
        for i in slots:
            self.middle[i] = None
        self.hands[seat].extend(take)
        deadline = held[0] if held else now + self.rules.hold_limit_s
        self._holding[seat] = (deadline, (held[1] if held else []) + list(take))
        events: list[Event] = [Grabbed(now, seat, take, tuple(slots), deadline)]
        events += self._touch(seat, now)
        if self.rules.attention:
            events += self._look_at_middle(seat, now)
        return events

    def _may_discard(self, seat: int) -> None:
        if self.rules.hold_limit_s <= 0:
            raise Rejected("bad_action", "At this table you swap in one move; use a swap.")
        self._require_play("discard")
        if seat not in self._holding:
            raise Rejected("not_holding", "You hold four cards; pick one up before discarding.")

    def _discard(self, action: Discard, now: float) -> list[Event]:
        seat, give = action.seat, action.give
        self._may_discard(seat)
        if not isinstance(give, tuple) or not give or not all(isinstance(c, Card) for c in give):
            raise Rejected("bad_action", "Name at least one card to discard.")
        if len(set(give)) != len(give):
            raise Rejected("bad_action", "Name each card once.")
        held = self._holding[seat]
        if len(give) > len(held[1]):
            raise Rejected("uneven_swap", "Discard only as many cards as you picked up.")
        self._check_hand(seat, give)
        for c in give:
            if c in held[1]:
                raise Rejected("same_card", f"Discard a different card from the {c.text} you "
                               "just picked up (S1).")
        empty = [i for i, c in enumerate(self.middle) if c is None]
        slots = empty[: len(give)]
        hand = self.hands[seat]
        for c, i in zip(give, slots):
            hand.remove(c)
            self.middle[i] = c
        rest = held[1][len(give):]
        if rest:
            self._holding[seat] = (held[0], rest)
        else:
            del self._holding[seat]
        events: list[Event] = [Discarded(now, seat, give, tuple(slots))]
        self._idle_from = now  # a card moved: the idle clock restarts
        if self._agreed:
            self._agreed.clear()
            events.append(StallCancelled(now))
        return events

    def _return_held(self, seat: int, t: float) -> Event:
        _, grabbed = self._holding.pop(seat)
        hand = self.hands[seat]
        slots: list[int] = []
        for c in grabbed:
            hand.remove(c)
            i = self.middle.index(None)
            self.middle[i] = c
            slots.append(i)
        return HoldExpired(t, seat, tuple(grabbed), tuple(slots))

    # == stalls and sweeps =========================================================================
    def _propose_stall(self, action: ProposeStall, now: float) -> list[Event]:
        seat = action.seat
        self._may_stall(seat)
        sweep = self.rules.sweep
        if sweep == "dealer_only" or seat is None:
            # The dealer sweeps at once; a dealer who is not playing (the host acting for it)
            # sweeps now too (S2 rules row 7).
            return self._sweep(now)
        if sweep == "all_agree":
            self._agreed.add(seat)
            events: list[Event] = [StallProposed(now, seat, None, False, len(self._agreed))]
            if len(self._agreed) == self.n:
                events += self._sweep(now)
            return events
        return self._start_stall(seat, now, auto=False)

    def _may_stall(self, seat: int | None) -> None:
        self._require_play("say the middle has stalled")
        sweep = self.rules.sweep
        if seat is None and self.dealer is not None:
            raise Rejected("no_such_seat", "Only a player (or a dealer who is not playing) calls "
                           "a stall.")
        if sweep == "dealer_only":
            if seat != self.dealer:
                raise Rejected("not_dealer", "At this table only the dealer sweeps the middle.")
            return
        if seat is None:
            return
        if sweep == "all_agree":
            if seat in self._agreed:
                raise Rejected("already_agreed", "You have already agreed to a fresh middle.")
            return
        if self._objectors:
            raise Rejected("objection_pending", "Someone objected; the countdown waits until they "
                           "have taken a card, or their objection lapses.")
        if self._stall_deadline is not None:
            raise Rejected("stall_pending", "A stall has already been called; the countdown is on.")

    def _start_stall(self, seat: int | None, t: float, auto: bool) -> list[Event]:
        self._stall_deadline = t + self.rules.sweep_countdown_s
        return [StallProposed(t, seat, self._stall_deadline, auto, 0)]

    def _object(self, action: Object, now: float) -> list[Event]:
        seat = action.seat
        self._may_object(seat)
        self._objectors[seat] = now + self.rules.objection_s
        self._objected.add(seat)
        return [Objected(now, seat)]

    def _may_object(self, seat: int) -> None:
        self._require_play("object")
        if self.rules.sweep != "any_player_unless_objection" or self._stall_deadline is None:
            raise Rejected("no_stall", "There is no stall countdown to object to.")
        if seat in self._objectors:
            raise Rejected("objection_pending", "You have already objected; take your card.")
        if seat in self._objected:
            # One objection a seat a stall, each lapsing: no player holds the middle for ever.
            raise Rejected("already_objected", "You have objected to this stall once already; "
                           "the countdown goes on.")

    def _lapse_objections(self, seats: list[int], t: float) -> list[Event]:
        """Objections that reach ``objection_s`` lapse (RULES-NOTES "Objections": an objection
        must never let one player hold the middle for a whole hand); when none is left the
        countdown recommences in full (S4 "The countdown then recommences")."""
        events: list[Event] = []
        for s in seats:
            del self._objectors[s]
            events.append(ObjectionLapsed(t, s))
        if not self._objectors and self._stall_deadline is not None:
            self._stall_deadline = t + self.rules.sweep_countdown_s
            events.append(StallResumed(t, self._stall_deadline))
        return events

    def _sweep(self, t: float) -> list[Event]:
        """The dealer sweeps the middle and deals four fresh cards (S0, S1, S2 rules row 7); with an
        empty stock, a real deal (S1) or a reshuffle of the swept cards (S0)."""
        events: list[Event] = (
            [self._return_held(s, t) for s in sorted(self._holding)] if self._holding else [])
        self._stall_deadline = None
        if self._objectors:
            self._objectors = {}
        self._objected = set()
        if self._agreed:
            self._agreed = set()
        self._idle_from = t
        middle = self.middle
        swept: tuple[Card, ...] = (
            tuple(middle) if None not in middle  # type: ignore[arg-type]  # no None: all cards
            else tuple(c for c in middle if c is not None))
        self.swept.extend(swept)
        if len(self.stock) < 4 and self.rules.stock_exhausted == "reshuffle_swept":
            fresh = self.swept
            self.swept = []
            if self._rng is None:
                self._rng = random.Random(self._seed)
            self._rng.shuffle(fresh)
            self.stock = fresh + self.stock  # the old remainder stays on top
            events.append(StockReshuffled(t, len(self.stock)))
        if len(self.stock) < 4:
            self.middle = [None] * 4
            events.append(Swept(t, swept, (None, None, None, None), len(self.stock)))
            return events + self._end_hand(t, "real_deal", decided=False)
        stock = self.stock
        self.middle = [stock.pop(), stock.pop(), stock.pop(), stock.pop()]
        events.append(Swept(t, swept, tuple(self.middle), len(stock)))
        return events

    # == gestures, chat, signals ===================================================================
    def _gesture(self, action: Gesture, now: float) -> list[Event]:
        seat, name = action.seat, action.gesture
        heard = self._may_gesture(seat, name)
        if heard or not self.rules.attention:
            return [Gestured(now, seat, name, heard)]  # heard: every ear at the table
        # attention: seen by the gesturer and by every seat looking at it now; anyone whose look
        # lands on it within GESTURE_S sees it then (S0 "Watch the other pair's faces").
        self._forget_gestures(now)
        seen = {seat} | {s for s, at in enumerate(self.looks) if at == seat}
        self._gestures.append((now, seat, name, seen))
        return [Gestured(now, seat, name, heard, tuple(sorted(seen)))]

    # == looks (attention) =========================================================================
    def _forget_gestures(self, now: float) -> None:
        """Drop the gestures that ended by ``now`` (their GESTURE_S is over)."""
        if self._gestures and self._gestures[0][0] + GESTURE_S <= now:
            self._gestures = [g for g in self._gestures if g[0] + GESTURE_S > now]

    def _look_targets(self, seat: int) -> tuple[LookAt, ...]:
        current = self.looks[seat]
        places: list[LookAt] = [s for s in range(self.n) if s != seat]
        places += LOOK_PLACES
        return tuple(p for p in places if p != current)

    def _look_from(self, seat: int) -> float | None:
        last = self._look_at[seat]
        return None if last is None else last + LOOK_GAP_S

    def _may_look(self, seat: int | None, at: object, now: float) -> None:
        if seat is None:
            raise Rejected("no_such_seat", "Only a player looks somewhere.")
        if not self.rules.attention:
            raise Rejected("no_attention", "This table does not follow where players look "
                           "(the attention option is off).")
        if at.__class__ is int:
            if not 0 <= at < self.n:
                raise Rejected("no_such_seat", f"There is no seat {said(at)} at this table.")
            if at == seat:
                raise Rejected("bad_look", "To look at your own cards, look at your hand.")
        elif at not in LOOK_PLACES:
            raise Rejected("bad_look", "Look at another player, the middle or your hand.")
        if self.looks[seat] == at:
            raise Rejected("same_look", "You are already looking there.")
        last = self._look_at[seat]
        if last is not None and now - last < LOOK_GAP_S - 1e-9:
            raise Rejected("look_too_soon", f"Eyes move at human pace: one look every "
                           f"{LOOK_GAP_S:g} s.")

    def _look(self, action: Look, now: float) -> list[Event]:
        seat, at = action.seat, action.at
        self._may_look(seat, at, now)
        self.looks[seat] = at
        self._look_at[seat] = now
        events: list[Event] = [Looked(now, seat, at)]
        if at.__class__ is int and self._gestures:
            # A glance that lands during a gesture sees it (GESTURE_S): privately, to this seat.
            self._forget_gestures(now)
            for made_at, gesturer, name, seen in self._gestures:
                if gesturer == at and seat not in seen:
                    seen.add(seat)
                    events.append(GestureSeen(now, gesturer, name, made_at, seat))
        return events

    def _look_at_middle(self, seat: int, now: float) -> list[Event]:
        """S0 "A player who has just made four of a kind stops swapping ... and looks at their
        partner": a swap or grab is made looking at the middle, so the taker's look moves there
        (public) and its partner goes unwatched until it looks back."""
        if self.looks[seat] == "middle":
            return []
        self.looks[seat] = "middle"
        self._look_at[seat] = now
        return [Looked(now, seat, "middle")]

    def gestures_in_progress(self, seat: int, now: float) -> list[tuple[float, str]]:
        """``attention``: the seen gestures of ``seat`` still going on at ``now`` (within
        :data:`kemps.gestures.GESTURE_S` of being made), as ``(made_at, gesture)`` pairs, oldest
        first. For a spectator's own look (:func:`kemps.views.spectator_glance`); empty at a table
        without attention."""
        return [(t, name) for t, s, name, _ in self._gestures
                if s == seat and t <= now < t + GESTURE_S]

    def _may_gesture(self, seat: int, name: object) -> bool:
        """Check a gesture; True when it is a heard one. Raises Rejected (see
        :meth:`_gesture_refusal`)."""
        refusal = self._gesture_refusal(seat, name)
        if refusal == "unknown_gesture":
            raise Rejected("unknown_gesture", f"{name!r} is not a gesture in the palette.")
        if refusal == "heard_forbidden":
            raise Rejected("heard_forbidden", "This is a silent table: only gestures that are "
                           "seen, not heard.")
        if refusal == "fake_signal":
            raise Rejected("fake_signal", "Fake signals are banned at this table: that is your "
                           "pair's signal and you do not hold four of a kind.")
        return PALETTE[name].kind == "heard"  # type: ignore[index]

    def _gesture_refusal(self, seat: int, name: object) -> str | None:
        """Why ``seat`` may not make gesture ``name`` now (a rejection code), or None. The one
        check behind both :meth:`_may_gesture` and :meth:`legal` (no exception raised here, so
        listing the palette in every view stays cheap)."""
        g = PALETTE.get(name) if isinstance(name, str) else None
        if g is None:
            return "unknown_gesture"
        if g.kind == "heard" and not self.rules.heard_signals:
            return "heard_forbidden"
        if (self.rules.fake_signals == "banned" and name in self.signals[self.pair_of(seat)]
                and not (self.phase in ("dealt", "play") and self.holds_four(seat))):
            # S2 signals row 5 ("Some rule books ban them"): the ban holds in every phase a
            # gesture can be made in, before play opens and between hands too (no hand is four
            # of a kind when no hand is in play).
            return "fake_signal"
        return None

    def _may_chat(self) -> None:
        if not self.rules.table_chat:
            raise Rejected("chat_forbidden", "No talking at this table.")

    def _chat(self, action: Chat, now: float) -> list[Event]:
        self._may_chat()
        text = action.text.strip() if isinstance(action.text, str) else ""
        if not text or len(text) > MAX_CHAT:
            raise Rejected("bad_action", f"Say 1 to {MAX_CHAT} characters.")
        return [Chatted(now, action.seat, text)]

    def _may_agree(self) -> None:
        if self.phase != "huddle":
            raise Rejected("no_huddle", "Signals are agreed between hands, not during one.")

    def _check_signals(self, signals: object, verb: str) -> None:
        if (not isinstance(signals, tuple) or not 1 <= len(signals) <= MAX_SIGNALS
                or len(set(signals)) != len(signals)):
            raise Rejected("bad_action", f"{verb} 1 to {MAX_SIGNALS} different gestures.")
        for name in signals:
            g = PALETTE.get(name) if isinstance(name, str) else None
            if g is None:
                raise Rejected("unknown_gesture", f"{name!r} is not a gesture in the palette.")
            if g.kind == "heard" and not self.rules.heard_signals:
                raise Rejected("heard_forbidden", "This is a silent table: a signal must be seen, "
                               "not heard.")

    def _agree_signals(self, action: AgreeSignals, now: float) -> list[Event]:
        seat, signals = action.seat, action.signals
        self._may_agree()
        self._check_signals(signals, "Agree")
        pair = self.pair_of(seat)
        self.signals[pair] = signals
        if self.proposals[pair] is not None:
            self.proposals[pair] = None  # answered: accepted (the same gestures) or overruled
        return [SignalsAgreed(now, pair, seat, signals)]

    def _propose_signals(self, action: ProposeSignals, now: float) -> list[Event]:
        """S1 "each two player team goes away and privately agrees a signal": one partner
        proposes, the other accepts (:class:`AgreeSignals` of the same gestures) or keeps the
        pair's signals (:class:`DeclineSignals`); the pair's signals stay as they are until then."""
        seat, signals = action.seat, action.signals
        self._may_agree()
        self._check_signals(signals, "Propose")
        pair = self.pair_of(seat)
        if set(signals) == set(self.signals[pair]):  # the same gestures in another order too
            raise Rejected("bad_action", "Those are your pair's signals already.")
        self.proposals[pair] = (seat, signals)
        return [SignalsProposed(now, pair, seat, signals)]

    def _proposed_to(self, seat: int) -> tuple[str, ...] | None:
        """The signals ``seat``'s partner proposed and nobody has answered, or None."""
        proposal = self.proposals[self.pair_of(seat)]
        return proposal[1] if proposal is not None and proposal[0] != seat else None

    def _decline_signals(self, action: DeclineSignals, now: float) -> list[Event]:
        seat = action.seat
        self._may_agree()
        if self._proposed_to(seat) is None:
            raise Rejected("no_proposal", "Your partner has proposed no new signals.")
        pair = self.pair_of(seat)
        self.proposals[pair] = None
        return [SignalsDeclined(now, pair, seat)]

    # == calls =====================================================================================
    def _call(self, action: Call, now: float) -> list[Event]:
        seat, kind = action.seat, action.kind
        r = self.rules
        self._may_call()
        # Whom the call is on, and whether it is allowed: the shared rules (kemps.scoring).
        on_seat, on_pair = call_target(r, seat, kind, action.on_seat, action.on_pair)
        checked: tuple[int, ...]
        if kind in ("kemps", "double_kemps"):
            partner = self.partner_of(seat)  # call_target returned it as on_seat
            checked = (partner,) if kind == "kemps" else (partner, seat)
        else:
            checked = (on_seat,) if on_seat is not None else self.seats_of(on_pair)
        called = Called(now, seat, kind, on_seat, on_pair)
        if r.immune_while_holding:
            for s in checked:
                if s in self._holding:
                    # S4: "If something is called on that person, nothing happens".
                    return [called, CallVoid(now, seat, s)]
        if kind == "double_stop" and r.double_stop_on == "two_of_a_kind":
            # S4: "double counter kemps if you think both opposing players have two of a kind".
            fours = tuple(s for s in checked if self.holds_two(s))
        else:
            fours = tuple(s for s in checked if self.holds_four(s))
        if kind in ("double_kemps", "double_stop"):
            right = len(fours) == len(checked)
        else:
            right = bool(fours)
        events: list[Event] = [called]
        ends = ends_hand(r, right)
        pair_claim = kind == "double_stop" and r.double_stop_on == "two_of_a_kind"
        events += self._reveal(now, checked, fours, right, ends, pair_claim)
        events.append(CallJudged(now, seat, kind, right, checked))
        events += self._score_call(now, seat, kind, on_pair, right)
        if self.is_over():
            return events
        if ends:
            events += self._end_hand(now, "call", decided=True)
        return events

    def _may_call(self) -> None:
        if self.phase not in ("dealt", "play"):
            if self.hand_no == 0:  # the first huddle: no hand yet (the code stays stable)
                raise Rejected("hand_over", "No hand is in play yet: call once the cards are "
                               "dealt.")
            raise Rejected("hand_over", "The hand is already over.")

    def _reveal(self, t: float, checked: tuple[int, ...], fours: tuple[int, ...], right: bool,
                ends: bool, pair_claim: bool = False) -> list[Event]:
        """Only the hands the rules show (S0: "everybody else keeps their cards hidden").

        Right call: the hands holding four of a kind. Wrong call that ends the hand: every checked
        hand (S1: both hands of a stopped pair are checked). Wrong call at a table that plays on
        (S4): each checked player shows two different cards, or, after a wrong claim of two of a
        kind (S4's double counter kemps), the whole hand (nothing less proves it has no pair).
        """
        events: list[Event] = []
        if right:
            shown = fours
        elif ends:
            shown = checked
        else:
            # Proof enough that the call was wrong: two different cards of each checked player
            # who lacks four of a kind (after a wrong double call, a partner may hold four).
            for s in checked:
                if s in fours:
                    continue
                hand = self.hands[s]
                if pair_claim:
                    self.revealed[s] = tuple(hand)
                    events.append(Revealed(t, s, tuple(hand), True))
                    continue
                first = hand[0]
                other = next((c for c in hand[1:] if c.rank != first.rank), hand[1])
                two: tuple[Card, ...] = (first, other)
                self.revealed[s] = two
                events.append(Revealed(t, s, two, False))
            return events
        for s in shown:
            cards = tuple(self.hands[s])
            self.revealed[s] = cards
            events.append(Revealed(t, s, cards, True))
        return events

    def _score_call(self, t: float, seat: int, kind: str, on_pair: int, right: bool
                    ) -> list[Event]:
        """Score a judged call by the shared rules (:func:`kemps.scoring.call_award`). In the open
        one-pair case an online table gives the letter to the pair of the player on the caller's
        left (RULES-NOTES "Cases the seeds leave open")."""
        award = call_award(self.rules, self.pair_of(seat), kind, on_pair, right,
                           letters_to=self.pair_of(self.left_of(seat)))
        return self._give(t, award)

    def _give(self, t: float, award: Award) -> list[Event]:
        r = self.rules
        unit: Literal["letter", "point"] = "letter" if r.scoring == "letters" else "point"
        scores, given = add_award(r, self.scores, award)
        self.scores = list(scores)
        events: list[Event] = [Scored(t, p, amount, scores[p], unit) for p, amount in given]
        if score_limit_reached(r, scores):
            events += self._end_match(t)
        return events

    # == hand and match end ========================================================================
    def _end_hand(self, t: float, reason: Literal["call", "real_deal", "table_talk"],
                  decided: bool) -> list[Event]:
        events: list[Event] = [HandEnded(t, self.hand_no, reason, decided)]
        if self.phase != "over":
            self.phase = "huddle"
        self._holding = {}
        self._stall_deadline = None
        self._objectors = {}
        self._objected = set()
        self._agreed = set()
        self._idle_from = None
        self._opens_at = None
        if decided:
            self.decided_hands += 1
        if self.rules.dealer == "rotate_left" and self.dealer is not None:
            self.dealer = self.left_of(self.dealer)
        if self.phase != "over" and hands_limit_reached(self.rules, self.decided_hands):
            events += self._end_match(t)
        return events

    def _end_match(self, t: float, loser: int | None = None) -> list[Event]:
        """Rank the pairs: fewest letters (or most points) first, equal scores sharing a rank
        (S0 "the others are ranked by their letters"); a table-talk loser ranks last."""
        events: list[Event] = []
        if self.phase in ("dealt", "play"):
            # The match ends inside a hand: that hand ends too, and counts as decided.
            self.phase = "over"
            self.decided_hands += 1
            events.append(HandEnded(t, self.hand_no, "table_talk" if loser is not None
                                    else "call", True))
        self.phase = "over"
        ranks = rank_pairs(self.rules, self.scores, loser)
        self.ranks = ranks
        events.append(MatchEnded(t, ranks, tuple(self.scores)))
        return events

    def _table_talk(self, action: RuleTableTalk, now: float) -> list[Event]:
        pair = action.pair
        if self.rules.table_talk != "forbidden":
            raise Rejected("table_talk_allowed", "Table talk is allowed at this table.")
        if isinstance(pair, bool) or not isinstance(pair, int) or not 0 <= pair < self.pairs:
            raise Rejected("bad_action", f"There is no pair {pair!r} at this table.")
        return [TableTalkRuled(now, pair)] + self._end_match(now, loser=pair)

    # == helpers for drivers and tests =============================================================
    def is_over(self) -> bool:
        """True once the match has ended."""
        return self.phase == "over"

    def holding(self, seat: int) -> bool:
        """True while ``seat`` holds more than four cards (S4 grab-then-discard)."""
        return seat in self._holding

    @property
    def stall_deadline(self) -> float | None:
        """When a pending stall sweeps the middle (None: no countdown, or paused)."""
        return None if self._objectors else self._stall_deadline

    @property
    def objectors(self) -> frozenset[int]:
        """Seats whose objection pauses the stall countdown."""
        return frozenset(self._objectors)

    @property
    def agreed(self) -> frozenset[int]:
        """Seats that agreed to a fresh middle (``all_agree``)."""
        return frozenset(self._agreed)

    @property
    def opens_at(self) -> float | None:
        """When a countdown start opens play (``start="countdown"``)."""
        return self._opens_at

    def state_text(self) -> str:
        """A one-line canonical text of the position, for tests and logs (shows every hand).

        Shape: ``hand 1 dealer 0 play | 7H 7S 7D 7C / ... | middle 2C 3D -- 5S | stock 32 | 0 1``.
        """
        hands = " / ".join(" ".join(c.text for c in h) for h in self.hands)
        middle = " ".join("--" if c is None else c.text for c in self.middle)
        scores = " ".join(map(str, self.scores))
        return (f"hand {self.hand_no} dealer {self.dealer} {self.phase} | {hands} | middle "
                f"{middle} | stock {len(self.stock)} | {scores}")


def stacked_order(rules: RuleSet, hands: Sequence[str], middle: str = "", stock: str = "",
                  dealer: int | None = 0) -> tuple[Card, ...]:
    """A deal order that gives each seat the cards named, for scripted games and tests.

    The order is dealt as :meth:`Table.apply` deals a :class:`~kemps.actions.Deal`: one card at a
    time from the dealer's left, or from seat 0 at a table whose dealer does not play. Which of
    the two is the rules' (``rules.dealer``), as at the table: at a ``non_playing`` table
    ``dealer`` is not used (the table has no dealing seat, whatever ``first_dealer`` it was
    given).

    Args:
        rules: the table's rules (for the pack size, the seat count and who deals).
        hands: per seat, the text of its cards (``"7H 7S 7D 7C"``); fewer than four are filled
            from the rest of the pack in new-pack order; ``""`` fills a whole hand.
        middle: the four middle cards (filled likewise).
        stock: the top of the stock, first card dealt first (the rest follows in pack order).
        dealer: the seat dealing this hand (``Table.dealer``; the first hand's is the table's
            ``first_dealer``, 0 unless given) at a table whose dealer plays.

    Raises:
        Rejected: ``bad_deal`` when a card is named twice, is not in the pack, or a row is too
            long; or, at a table whose dealer plays, ``dealer`` is not one of its seats (None
            included: that table has a dealing seat, and a deal from seat 0 would give every
            hand to the wrong seat).
    """
    from kemps.cards import parse_cards

    n = rules.players
    if len(hands) != n:
        raise Rejected("bad_deal", f"Give {n} hands, one per seat.")
    if rules.dealer == "non_playing":
        dealer = None  # nobody at the table deals: seat 0 gets the first card
    elif isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
        raise Rejected("bad_deal", f"This table's dealer plays: give the dealing seat (0 to "
                       f"{n - 1}), as Table.dealer says.")
    pack = new_pack(rules.deck_count)
    named = [list(parse_cards(h)) for h in hands]
    mid, top = list(parse_cards(middle)), list(parse_cards(stock))
    used = [c for row in named + [mid, top] for c in row]
    if len(set(used)) != len(used) or any(c not in pack for c in used):
        raise Rejected("bad_deal", "Each card may be named once and must be in the pack.")
    if any(len(h) > 4 for h in named) or len(mid) > 4:
        raise Rejected("bad_deal", "A hand and the middle hold four cards.")
    rest = [c for c in pack if c not in set(used)]
    for row in named + [mid]:
        while len(row) < 4:
            row.append(rest.pop(0))
    order: list[Card | None] = [None] * (4 * n)
    first = 0 if dealer is None else dealer + 1
    for seat in range(n):
        for k in range(4):
            # dealing one at a time from the dealer's left: the i-th card goes to seat
            # (dealer + 1 + i) % n, so seat s gets positions ((s - dealer - 1) % n) + k*n.
            order[((seat - first) % n) + k * n] = named[seat][k]
    out = [c for c in order if c is not None] + mid + top + rest
    return tuple(out)
