"""What a seat may see: the only road from table state (and events) to any player.

boardgame.io's ``filter-player-view`` idea: one pure function per kind of output, used by every
consumer (CLI, bots, the server's messages). A seat sees its own hand, the middle (unless dealt face
down), counts of everyone else's cards, public events, its own pair's signal agreement, and the
hands the rules have revealed. It never sees another hand before the reveal, the stock order, the
swept cards' order after a reshuffle, or another pair's signals. A spectator (``seat=None``) sees
what every player may see and no hand at all.

At an ``attention`` table (S0 "Half of Kemps is watching your partner without looking as though
you are") every look is public, but a seen gesture is named only to the seats the engine says saw
it (``Gestured.seen_by``, and a :class:`~kemps.events.GestureSeen` to a seat whose glance landed
during it); everyone else gets a :class:`~kemps.events.Moved`. A spectator with a look of its own
(kept by the server, seen by nobody else) gets :func:`spectator_events_for` and
:func:`spectator_glance`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from kemps.actions import LookAt
from kemps.cards import Card
from kemps.errors import Rejected, said
from kemps.events import (
    Event,
    Gestured,
    GestureSeen,
    HandDealt,
    Moved,
    SignalsAgreed,
    event_to_dict,
)
from kemps.gestures import LOOK_GAP_S
from kemps.immutable import immutable
from kemps.table import LegalMoves, Table


def letters_text(word: str, count: int) -> str:
    """The spelled letters of a pair, e.g. ``letters_text("KEMPS", 3) == "K-E-M"`` (S0)."""
    return "-".join(word[:count])


@immutable
class SeatView:
    """One seat's (or a spectator's) view of the table at ``version``.

    Shapes: ``hand`` is the viewer's cards (empty for spectators); ``middle`` has 4 entries, ``None``
    for an empty or face-down slot; ``hand_counts[s]`` is how many cards seat ``s`` holds;
    ``scores[p]`` letters or points of pair ``p``; ``spelled[p]`` e.g. ``"K-E"``; ``revealed`` maps a
    seat to the cards it has shown this hand; times are table seconds. ``legal`` is what this seat
    may do now (:meth:`kemps.table.Table.legal`: swaps, grab/discard, stall/object, Go, chat,
    signals, the gestures it may make, and each call with the targets it may name), from the
    engine's own checks; None for a spectator. ``looks[s]`` is where seat ``s`` looks (another
    seat's number, ``"middle"`` or ``"hand"``) at an ``attention`` table; empty at any other.
    """

    version: int
    seat: int | None
    pair: int | None
    partner: int | None
    names: tuple[str, ...]
    rules: str
    call_word: str
    stop_word: str
    word: str
    scoring: str
    phase: str
    hand_no: int
    dealer: int | None
    hand: tuple[Card, ...]
    middle: tuple[Card | None, ...]
    middle_face_down: bool
    stock_count: int
    swept_count: int
    hand_counts: tuple[int, ...]
    holding: tuple[int, ...]
    scores: tuple[int, ...]
    spelled: tuple[str, ...]
    signals: tuple[str, ...]
    revealed: dict[int, tuple[Card, ...]]
    stall_deadline: float | None
    objectors: tuple[int, ...]
    agreed: tuple[int, ...]
    opens_at: float | None
    ranks: tuple[int, ...] | None
    legal: LegalMoves | None = None
    looks: tuple[LookAt, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; cards as text (``"7H"``), hidden slots as ``null``; the fields in
        their declared order."""
        out = self.seat_dict()
        out.update(self.public_dict())
        return {name: out[name] for name in _VIEW_FIELDS or _view_fields()}

    def seat_dict(self) -> dict[str, Any]:
        """The JSON form of the fields that differ from seat to seat (:data:`SEAT_FIELDS`)."""
        legal = self.legal
        return {"seat": self.seat, "pair": self.pair, "partner": self.partner,
                "hand": [c.text for c in self.hand], "signals": list(self.signals),
                "legal": None if legal is None else legal.to_dict()}

    def public_dict(self) -> dict[str, Any]:
        """The JSON form of every other field: the same in every seat's view of one table state
        (a server encodes it once per update)."""
        ranks = self.ranks
        return {
            "version": self.version, "names": list(self.names), "rules": self.rules,
            "call_word": self.call_word, "stop_word": self.stop_word, "word": self.word,
            "scoring": self.scoring, "phase": self.phase, "hand_no": self.hand_no,
            "dealer": self.dealer,
            "middle": [None if c is None else c.text for c in self.middle],
            "middle_face_down": self.middle_face_down, "stock_count": self.stock_count,
            "swept_count": self.swept_count, "hand_counts": list(self.hand_counts),
            "holding": list(self.holding), "scores": list(self.scores),
            "spelled": list(self.spelled),
            "revealed": {str(s): [c.text for c in cards] for s, cards in self.revealed.items()},
            "stall_deadline": self.stall_deadline, "objectors": list(self.objectors),
            "agreed": list(self.agreed), "opens_at": self.opens_at,
            "ranks": None if ranks is None else list(ranks), "looks": list(self.looks)}


#: The fields of a :class:`SeatView` that depend on the seat; every other field is public.
SEAT_FIELDS: Final = ("seat", "pair", "partner", "hand", "signals", "legal")

_VIEW_FIELDS: list[str] = []


def _view_fields() -> list[str]:
    """SeatView's field names, found once (dataclasses.fields is slow on every view)."""
    _VIEW_FIELDS.extend(f.name for f in dataclasses.fields(SeatView))
    return _VIEW_FIELDS


def view_for(table: Table, seat: int | None) -> SeatView:
    """The view of ``seat`` (0..n-1), or of a spectator when ``seat`` is None.

    Raises:
        Rejected: ``no_such_seat`` for a seat that is not at this table.
    """
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                             or not 0 <= seat < table.n):
        raise Rejected("no_such_seat", f"There is no seat {said(seat)} at this table.")
    r = table.rules
    face_down = table.phase == "dealt" and r.start == "countdown"
    in_hand = table.phase in ("dealt", "play")
    pair = None if seat is None else table.pair_of(seat)
    return SeatView(
        version=table.version, seat=seat, pair=pair,
        partner=None if seat is None else table.partner_of(seat),
        names=table.names, rules=r.name, call_word=r.call_word, stop_word=r.stop_word,
        word=r.word, scoring=r.scoring, phase=table.phase, hand_no=table.hand_no,
        dealer=table.dealer,
        hand=() if seat is None or table.hand_no == 0 else tuple(table.hands[seat]),
        middle=(None, None, None, None) if face_down or not in_hand else tuple(table.middle),
        middle_face_down=face_down, stock_count=len(table.stock), swept_count=len(table.swept),
        hand_counts=tuple(len(h) for h in table.hands),
        holding=tuple(s for s in range(table.n) if table.holding(s)),
        scores=tuple(table.scores),
        spelled=tuple(letters_text(r.word, s) for s in table.scores) if r.scoring == "letters"
        else tuple(str(s) for s in table.scores),
        signals=() if pair is None else table.signals[pair],
        revealed=dict(table.revealed),
        stall_deadline=table.stall_deadline, objectors=tuple(sorted(table.objectors)),
        agreed=tuple(sorted(table.agreed)), opens_at=table.opens_at, ranks=table.ranks,
        legal=None if seat is None else table.legal(seat),
        looks=tuple(table.looks) if r.attention else ())


def spectator_view(table: Table) -> SeatView:
    """What anyone watching may see: the view of no seat."""
    return view_for(table, None)


def event_for(event: Event, seat: int | None, pairs: int) -> Event | None:
    """``event`` as ``seat`` may see it (None for a spectator), or None when it is not for them.

    ``pairs`` is the table's number of pairs (to know which pair a seat plays in). A deal shows
    only the viewer's own hand (others' become empty); a signal agreement goes only to its pair.
    ``attention``: a seen gesture is named only to the seats in its ``seen_by`` (the others, and
    spectators, get :class:`~kemps.events.Moved`: "this player moved"); a
    :class:`~kemps.events.GestureSeen` goes only to the seat whose glance saw it.
    """
    cls = event.__class__
    if cls is HandDealt:
        dealt: HandDealt = event  # type: ignore[assignment]
        hands = tuple(h if s == seat else () for s, h in enumerate(dealt.hands))
        return dataclasses.replace(dealt, hands=hands)
    if cls is SignalsAgreed:
        agreed: SignalsAgreed = event  # type: ignore[assignment]
        return event if seat is not None and seat % pairs == agreed.pair else None
    if cls is Gestured:
        made: Gestured = event  # type: ignore[assignment]
        if made.seen_by is None or (seat is not None and seat in made.seen_by):
            return event
        return Moved(made.t, made.seat)
    if cls is GestureSeen:
        glance: GestureSeen = event  # type: ignore[assignment]
        return event if seat is not None and glance.by == seat else None
    return event


#: Event classes :func:`event_for` may change or drop; any other event reaches everyone as it is.
_REDACTED = frozenset({HandDealt, SignalsAgreed, Gestured, GestureSeen})


def needs_redacting(events: list[Event]) -> bool:
    """Whether :func:`events_for` may give some seat other than ``events`` itself (when False,
    every seat and spectator sees ``events`` as they are)."""
    for e in events:
        cls = e.__class__
        if cls in _REDACTED and not (cls is Gestured and e.seen_by is None):  # type: ignore[union-attr]
            return True  # (a gesture that everyone perceives goes to everyone as it is)
    return False


def events_for(events: list[Event], seat: int | None, pairs: int) -> list[Event]:
    """:func:`event_for` over a list, dropping the events not for ``seat``.

    Returns ``events`` itself (not a copy) when nothing in it needs redacting
    (:func:`needs_redacting`).
    """
    if not needs_redacting(events):
        return events
    out: list[Event] = []
    for e in events:
        seen = event_for(e, seat, pairs)
        if seen is not None:
            out.append(seen)
    return out


def event_dict_for(event: Event, seat: int | None, pairs: int) -> dict[str, Any] | None:
    """The JSON form of :func:`event_for` (what goes over a wire)."""
    seen = event_for(event, seat, pairs)
    return None if seen is None else event_to_dict(seen)


# -- spectators with a look of their own (attention) ----------------------------------------------
def spectator_events_for(events: list[Event], look: LookAt | None, pairs: int) -> list[Event]:
    """``events`` as a spectator sees them whose own look (kept by the server, seen by no one
    else, so that a spectator cannot relay what a player missed) is ``look``: a seen gesture is
    named when the spectator looks at the gesturer as it is made (else :class:`Moved`); nothing
    private to any seat. ``look`` None: a spectator without a look (:func:`event_for` with no seat).
    """
    out: list[Event] = []
    for e in events:
        if e.__class__ is Gestured and e.seat == look:
            out.append(e)
            continue
        seen = event_for(e, None, pairs)
        if seen is not None:
            out.append(seen)
    return out


def spectator_glance(table: Table, at: LookAt, now: float) -> list[Event]:
    """What a spectator sees when its own look lands on ``at`` at table time ``now``: a
    :class:`GestureSeen` (``by`` None) for each seen gesture of that seat still going on
    (:data:`kemps.gestures.GESTURE_S`), oldest first; empty for the middle or a hand, or at a table
    without attention. The server calls it after :func:`check_spectator_look` and sends the events
    to that spectator only."""
    if at.__class__ is not int or not table.rules.attention:
        return []
    return [GestureSeen(now, at, name, made_at, None)
            for made_at, name in table.gestures_in_progress(at, now)]


def check_spectator_look(table: Table, at: object, current: LookAt | None,
                         since: float | None, now: float) -> LookAt:
    """Check a spectator's change of look to ``at`` at ``now`` by the players' rules (a seat's
    number or ``"middle"``: a spectator has no hand; not where it already looks (``current``); at most once
    every :data:`kemps.gestures.LOOK_GAP_S` after its last change at ``since``). Returns ``at``.

    Raises:
        Rejected: ``no_attention``, ``bad_look``, ``no_such_seat``, ``same_look`` or
            ``look_too_soon``, as a player's look would be refused.
    """
    if not table.rules.attention:
        raise Rejected("no_attention", "This table does not follow where anyone looks.")
    if isinstance(at, bool) or not (isinstance(at, int) or at == "middle"):
        raise Rejected("bad_look", "A spectator looks at a player or the middle.")
    if isinstance(at, int) and not 0 <= at < table.n:
        raise Rejected("no_such_seat", f"There is no seat {said(at)} at this table.")
    if at == current:
        raise Rejected("same_look", "You are already looking there.")
    if since is not None and now - since < LOOK_GAP_S - 1e-9:
        raise Rejected("look_too_soon", f"One look every {LOOK_GAP_S:g} s.")
    return at
