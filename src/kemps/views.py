"""What a seat may see: the only road from table state (and events) to any player.

boardgame.io's ``filter-player-view`` idea: one pure function per kind of output, used by every
consumer (CLI, bots, the server's messages). A seat sees its own hand, the middle (unless dealt face
down), counts of everyone else's cards, public events, its own pair's signal agreement, and the
hands the rules have revealed. It never sees another hand before the reveal, the stock order, the
swept cards' order after a reshuffle, or another pair's signals, proposals or answers to them. A spectator (``seat=None``) sees
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
from kemps.cards import Card, parse_card
from kemps.errors import CardError, KempsError, Rejected, said
from kemps.events import (
    Event,
    Gestured,
    GestureSeen,
    Grabbed,
    HandDealt,
    Moved,
    SignalsAgreed,
    SignalsDeclined,
    SignalsProposed,
    Swapped,
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
    ``proposal`` is the viewer's pair's open proposal between hands, ``(seat, signals)`` (the
    seat that proposed: the viewer or its partner), else None; None for a spectator.
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
    proposal: tuple[int, tuple[str, ...]] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; cards as text (``"7H"``), hidden slots as ``null``; the fields in
        their declared order."""
        out = self.seat_dict()
        out.update(self.public_dict())
        return {name: out[name] for name in _VIEW_FIELDS or _view_fields()}

    def seat_dict(self) -> dict[str, Any]:
        """The JSON form of the fields that differ from seat to seat (:data:`SEAT_FIELDS`)."""
        legal, proposal = self.legal, self.proposal
        return {"seat": self.seat, "pair": self.pair, "partner": self.partner,
                "hand": [c.text for c in self.hand], "signals": list(self.signals),
                "legal": None if legal is None else legal.to_dict(),
                "proposal": None if proposal is None else {"seat": proposal[0],
                                                           "signals": list(proposal[1])}}

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

    @classmethod
    def from_dict(cls, data: Any) -> SeatView:
        """The view of a JSON form :meth:`to_dict` made (what a server's ``state`` and
        ``update`` messages carry): ``SeatView.from_dict(v.to_dict()) == v``.

        Raises:
            KempsError: ``bad_view`` for data that is not that form (a field missing or extra,
                or of the wrong shape; a text that is not a card).
        """
        fields = _VIEW_FIELDS or _view_fields()
        if not isinstance(data, dict) or set(data) != set(fields):
            raise KempsError("bad_view", "A view is an object with the fields "
                             f"{', '.join(fields)}.")
        out: dict[str, Any] = {}
        try:
            for name in fields:
                value = data[name]
                if name in ("hand", "middle"):
                    value = tuple(None if c is None and name == "middle" else parse_card(c)
                                  for c in _listed(name, value))
                elif name == "revealed":
                    if not isinstance(value, dict):
                        raise KempsError("bad_view", "'revealed' maps seats to cards.")
                    value = {int(s): tuple(parse_card(c) for c in _listed(name, cards))
                             for s, cards in value.items()}
                elif name == "legal":
                    value = None if value is None else LegalMoves.from_dict(value)
                elif name == "ranks":
                    value = None if value is None else tuple(_listed(name, value))
                elif name == "proposal" and value is not None:
                    if not isinstance(value, dict) or set(value) != {"seat", "signals"} \
                            or isinstance(value["seat"], bool) or not isinstance(value["seat"], int):
                        raise KempsError("bad_view", "'proposal' is null or a seat and its "
                                         "signals.")
                    value = (value["seat"], tuple(_listed(name, value["signals"])))
                elif name in _TUPLE_FIELDS:
                    value = tuple(_listed(name, value))
                elif name in _FLOAT_FIELDS and value is not None:
                    if isinstance(value, bool) or not isinstance(value, int | float):
                        raise KempsError("bad_view", f"{name!r} is a time or null.")
                    value = float(value)
                out[name] = value
        except (CardError, ValueError, TypeError):
            raise KempsError("bad_view", "A view's cards are texts like '7H', its seats "
                             "whole numbers.") from None
        return cls(**out)


#: The view's fields sent as lists and kept as tuples (besides the cards).
_TUPLE_FIELDS: Final = frozenset({"names", "hand_counts", "holding", "scores", "spelled",
                                  "signals", "objectors", "agreed", "looks"})
_FLOAT_FIELDS: Final = frozenset({"stall_deadline", "opens_at"})


def _listed(name: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise KempsError("bad_view", f"{name!r} is a list.")
    return value


#: The fields of a :class:`SeatView` that depend on the seat; every other field is public.
SEAT_FIELDS: Final = ("seat", "pair", "partner", "hand", "signals", "legal", "proposal")

_VIEW_FIELDS: list[str] = []


def _view_fields() -> list[str]:
    """SeatView's field names, found once (dataclasses.fields is slow on every view)."""
    _VIEW_FIELDS.extend(f.name for f in dataclasses.fields(SeatView))
    return _VIEW_FIELDS


def public_fields(table: Table) -> dict[str, Any]:
    """Every field of a view but :data:`SEAT_FIELDS`, as :class:`SeatView`'s keyword arguments:
    the same for every seat and spectator of ``table`` as it stands (the table's ``version`` kept
    as ``public_version``; each view's own ``version`` is :func:`told_version`), so that the views
    of one update may share them (:func:`view_for`'s ``public``)."""
    r = table.rules
    phase = table.phase
    face_down = phase == "dealt" and r.start == "countdown"
    in_hand = phase in ("dealt", "play")
    scores = table.scores
    return {
        "public_version": table.version, "names": table.names, "rules": r.name,
        "call_word": r.call_word, "stop_word": r.stop_word, "word": r.word,
        "scoring": r.scoring, "phase": phase, "hand_no": table.hand_no, "dealer": table.dealer,
        "middle": (None, None, None, None) if face_down or not in_hand else tuple(table.middle),
        "middle_face_down": face_down, "stock_count": len(table.stock),
        "swept_count": len(table.swept), "hand_counts": tuple(len(h) for h in table.hands),
        "holding": tuple(s for s in range(table.n) if table.holding(s)),
        "scores": tuple(scores),
        "spelled": tuple(letters_text(r.word, x) for x in scores) if r.scoring == "letters"
        else tuple(str(x) for x in scores),
        "revealed": dict(table.revealed), "stall_deadline": table.stall_deadline,
        "objectors": tuple(sorted(table.objectors)), "agreed": tuple(sorted(table.agreed)),
        "opens_at": table.opens_at, "ranks": table.ranks,
        "looks": tuple(table.looks) if r.attention else ()}


def view_for(table: Table, seat: int | None,
             public: dict[str, Any] | None = None) -> SeatView:
    """The view of ``seat`` (0..n-1), or of a spectator when ``seat`` is None.

    ``public``: :func:`public_fields` of this very table as it stands, when several views of
    one update share them (a server's broadcast); worked out here when None. Only the seat's own
    fields (:data:`SEAT_FIELDS`: its hand, its pair's signals, its legal moves) differ.

    Raises:
        Rejected: ``no_such_seat`` for a seat that is not at this table.
    """
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                             or not 0 <= seat < table.n):
        raise Rejected("no_such_seat", f"There is no seat {said(seat)} at this table.")
    if public is None or public["public_version"] != table.version:
        public = public_fields(table)
    fields = {k: v for k, v in public.items() if k != "public_version"}
    fields["version"] = told_version(table, seat)
    if seat is None:
        return SeatView(seat=None, pair=None, partner=None, hand=(), signals=(), legal=None,
                        proposal=None, **fields)
    pair = table.pair_of(seat)
    return SeatView(seat=seat, pair=pair, partner=table.partner_of(seat),
                    hand=() if table.hand_no == 0 else tuple(table.hands[seat]),
                    signals=table.signals[pair], legal=table.legal(seat),
                    proposal=table.proposals[pair], **fields)


def told_version(table: Table, seat: int | None) -> int:
    """The ``version`` of ``seat``'s view (None: a spectator's, or a referee's): the table's
    :attr:`~kemps.table.Table.version` less the steps of other pairs' private huddles
    (:attr:`~kemps.table.Table.private_versions`: their proposals, answers and agreements, S1
    "each two player team goes away and privately agrees a signal"). It goes up by one exactly
    with each step this viewer may see something of, so a viewer that was told nothing of a
    step is not told, by a gap in its versions either, that the step happened; a gap still means
    a message it missed (a client asks for the state again)."""
    hidden = table.private_versions
    if seat is None:
        return table.version - sum(hidden)
    return table.version - sum(hidden) + hidden[seat % table.pairs]


def private_step(events: list[Event], pairs: int) -> int | None:
    """The pair whose private huddle the step that made ``events`` was (its seats' proposal,
    answer or agreement of signals alone), else None. Nobody outside that pair may be told of
    such a step at all: no message, so that neither a message's arrival nor its version says
    that it happened (:func:`told_version` does not move for them)."""
    pair: int | None = None
    for e in events:
        cls = e.__class__
        if cls is not SignalsAgreed and cls is not SignalsProposed and cls is not SignalsDeclined:
            return None
        private: SignalsAgreed | SignalsProposed | SignalsDeclined = e  # type: ignore[assignment]
        if pair is not None and private.pair != pair:
            return None
        pair = private.pair
    return pair


def spectator_view(table: Table) -> SeatView:
    """What anyone watching may see: the view of no seat."""
    return view_for(table, None)


def event_for(event: Event, seat: int | None, pairs: int) -> Event | None:
    """``event`` as ``seat`` may see it (None for a spectator), or None when it is not for them.

    ``pairs`` is the table's number of pairs (to know which pair a seat plays in). A deal shows
    only the viewer's own hand (others' become empty); a signal agreement, a proposal of signals
    and its answer go only to their pair.
    ``attention``: a seen gesture is named only to the seats in its ``seen_by`` (the others, and
    spectators, get :class:`~kemps.events.Moved`: "this player moved"); a
    :class:`~kemps.events.GestureSeen` goes only to the seat whose glance saw it.
    """
    cls = event.__class__
    if cls is HandDealt:
        dealt: HandDealt = event  # type: ignore[assignment]
        hands = tuple(h if s == seat else () for s, h in enumerate(dealt.hands))
        return dataclasses.replace(dealt, hands=hands)
    if cls is SignalsAgreed or cls is SignalsProposed or cls is SignalsDeclined:
        private: SignalsAgreed | SignalsProposed | SignalsDeclined = event  # type: ignore[assignment]
        return event if seat is not None and seat % pairs == private.pair else None
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
_REDACTED = frozenset({HandDealt, SignalsAgreed, SignalsProposed, SignalsDeclined, Gestured,
                       GestureSeen})


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
        if (e.__class__ is Gestured and e.seat == look) or (
                e.__class__ is GestureSeen and e.by is None):
            # the gesture it looked at as it was made, or what its own glance saw
            # (:func:`spectator_glance`: ``by`` None, never a seat's private sight)
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


# -- the referee: a dealer who is not playing (S2 tournament row 7) -------------------------------
#: A touch the table refused because another seat's touch of the same card arrived first:
#: ``(t, seat, cards)``, table seconds, the cards it reached for (kept by the server, live only).
RefusedTouch = tuple[float, int, tuple[Card, ...]]


@immutable
class RefereeView:
    """What the referee sees beside the spectator's view: S2 tournament row 7 "Give each table a
    dealer who is not playing, to sweep the cards and judge the first touch. The dealer's ruling
    stands." The referee plays for nobody, so it sees every hand as it is now (``hands[s]``:
    seat ``s``'s cards), and ``contested``: each middle card two or more seats reached for this
    hand, with the touches in the order the server received them, the first being the one that
    took it; each entry ``{"card", "touches": [{"seat", "t", "took"}]}`` (``t`` table seconds).
    It never sees a pair's signal agreement (S1 "Your signal must be secret from the other
    team": the signal is the pair's, not the table's)."""

    hands: tuple[tuple[Card, ...], ...]
    contested: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"hands": [[c.text for c in h] for h in self.hands],
                "contested": [dict(x) for x in self.contested]}


def referee_view(table: Table, log: list[Event], refused: list[RefusedTouch]) -> RefereeView:
    """The referee's view of ``table``: every hand, and the contested touches of the hand in
    play from its ``log`` (the events so far, :attr:`kemps.driver.MatchDriver.log`) and the
    touches the table ``refused`` because the card was gone (:data:`RefusedTouch`, kept by the
    server in the order they arrived). A refused touch is paired with the last take of that card
    before it."""
    hands = tuple(tuple(h) for h in table.hands) if table.phase in ("dealt", "play") else \
        tuple(() for _ in range(table.n))
    start = 0  # the hand in play: its events start at its deal
    for i, e in enumerate(log):
        if e.__class__ is HandDealt:
            start = i
    takes = [e for e in log[start:] if isinstance(e, Swapped | Grabbed)]
    opened = log[start].t if log[start:] else 0.0
    contests: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for t, seat, cards in refused:
        if t < opened:
            continue
        for card in cards:
            first = None
            for e in takes:
                if e.t <= t and card in e.took:
                    first = e
            if first is None:
                continue
            key = (card.text, first.t)
            touches = contests.setdefault(key, [{"seat": first.seat, "t": first.t,
                                                 "took": True}])
            touches.append({"seat": seat, "t": t, "took": False})
    return RefereeView(hands=hands, contested=tuple(
        {"card": card, "touches": touches} for (card, _), touches in contests.items()))


def referee_events_for(events: list[Event], pairs: int) -> list[Event]:
    """``events`` as the referee sees them, as they happen: every dealt hand whole and every
    gesture named (it plays for nobody); no pair's signal agreement, proposal or answer, and no
    seat's private glance (:class:`GestureSeen`); anything else as a spectator sees it."""
    out: list[Event] = []
    for e in events:
        cls = e.__class__
        if cls is HandDealt or cls is Gestured:
            out.append(e)
        elif cls is not GestureSeen:
            seen = event_for(e, None, pairs)
            if seen is not None:
                out.append(seen)
    return out
