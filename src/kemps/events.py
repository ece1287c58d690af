"""Events: what happened at the table, as small immutable dataclasses (h11 ``_events.py`` style).

Immutable by contract (:func:`kemps.immutable.immutable`), not by ``frozen=True``.

Every event carries ``t``, the table time in seconds at which it happened (the ``now`` of the
action that caused it, or the deadline of the timer that fired it). Events hold full information;
:func:`kemps.views.event_for` is the one place that redacts them for a seat.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final, Literal

from kemps.cards import Card, parse_card
from kemps.errors import CardError, KempsError
from kemps.immutable import immutable

HandEndReason = Literal["call", "real_deal", "table_talk"]


@immutable
class HandDealt:
    """A hand was dealt by ``dealer`` (a seat, or ``None``: a dealer who is not playing, S2
    tournament row 7). ``hands[seat]`` is that seat's four cards (redacted per viewer);
    ``middle`` is ``None`` per slot while dealt face down (``start="countdown"``, S2 Cash)."""

    t: float
    hand_no: int
    dealer: int | None
    hands: tuple[tuple[Card, ...], ...]
    middle: tuple[Card | None, ...]
    stock_count: int
    opens_at: float | None


@immutable
class PlayOpened:
    """Play opened: on the deal, on the dealer's "Go", or at the end of the countdown, when the
    middle is turned face up (S1 "When the last card has been turned up")."""

    t: float
    middle: tuple[Card | None, ...]


@immutable
class Swapped:
    """``seat`` took ``took`` from the middle and laid ``gave`` in the same slots (``slots``)."""

    t: float
    seat: int
    took: tuple[Card, ...]
    gave: tuple[Card, ...]
    slots: tuple[int, ...]


@immutable
class Grabbed:
    """S4: ``seat`` picked ``took`` up from ``slots``; they must discard by ``deadline``."""

    t: float
    seat: int
    took: tuple[Card, ...]
    slots: tuple[int, ...]
    deadline: float


@immutable
class Discarded:
    """S4: ``seat`` laid ``gave`` face up in the empty ``slots``."""

    t: float
    seat: int
    gave: tuple[Card, ...]
    slots: tuple[int, ...]


@immutable
class HoldExpired:
    """S4: ``seat`` held five cards past the limit (or through a sweep); the grabbed cards went
    back to ``slots``."""

    t: float
    seat: int
    returned: tuple[Card, ...]
    slots: tuple[int, ...]


@immutable
class StallProposed:
    """A stall was proposed by ``seat`` (``None``: a dealer who is not playing; ``auto``: by the
    dealer after ``idle_sweep_s`` with no swap); the middle is swept at ``deadline`` unless someone objects. Under ``all_agree``,
    ``agreed`` counts the seats agreeing so far and ``deadline`` is None."""

    t: float
    seat: int | None
    deadline: float | None
    auto: bool = False
    agreed: int = 0


@immutable
class Objected:
    """``seat`` objected: the countdown waits until every objector has taken a card (S4)."""

    t: float
    seat: int


@immutable
class ObjectionLapsed:
    """``seat``'s objection lapsed ``objection_s`` after it was made, without that player taking
    a card, so that no objection holds the middle for ever (RULES-NOTES "Objections")."""

    t: float
    seat: int


@immutable
class StallResumed:
    """The last objector took a card (or the last objection lapsed); the countdown starts again
    and ends at ``deadline``."""

    t: float
    deadline: float


@immutable
class StallCancelled:
    """Agreement to a fresh middle lapsed because the middle changed (``all_agree``)."""

    t: float


@immutable
class Swept:
    """The dealer swept ``swept`` away and dealt ``middle`` from the stock."""

    t: float
    swept: tuple[Card, ...]
    middle: tuple[Card | None, ...]
    stock_count: int


@immutable
class StockReshuffled:
    """The stock ran out; the swept cards were shuffled into a new stock (S0)."""

    t: float
    stock_count: int


@immutable
class Gestured:
    """``seat`` made ``gesture`` (``heard``: a sound, else seen).

    ``seen_by`` is None when everyone perceives it (a table without ``attention``, or a heard
    gesture: S0 "a cough, a word" reach every ear); at an ``attention`` table a seen gesture's
    ``seen_by`` lists the seats that saw it as it was made: the gesturer and every seat looking at
    it. Every other seat (and a spectator) gets :class:`Moved` instead (:func:`kemps.views.event_for`).
    """

    t: float
    seat: int
    gesture: str
    heard: bool
    seen_by: tuple[int, ...] | None = None


@immutable
class Moved:
    """``seat`` made a gesture that the viewer did not see (``attention``): only that this player
    moved, never which gesture. Made by :func:`kemps.views.event_for` from a :class:`Gestured`."""

    t: float
    seat: int


@immutable
class Looked:
    """``seat`` now looks ``at`` another seat, the middle or its own cards (``attention``; public,
    as at a real table). Also when a swap or grab moved the taker's look to the middle (S0 "A
    player who has just made four of a kind stops swapping ... and looks at their partner": a
    player collecting cannot watch)."""

    t: float
    seat: int
    at: int | Literal["middle", "hand"]


@immutable
class GestureSeen:
    """``by``'s look landed on ``seat`` at ``t`` while its gesture ``gesture`` (made at
    ``made_at``) was still going on (within :data:`kemps.gestures.GESTURE_S`), so ``by`` saw it.
    Private: only ``by`` receives it (``by`` None: a spectator's own look,
    :func:`kemps.views.spectator_glance`)."""

    t: float
    seat: int
    gesture: str
    made_at: float
    by: int | None


@immutable
class Chatted:
    """``seat`` said ``text`` at the table."""

    t: float
    seat: int
    text: str


@immutable
class SignalsAgreed:
    """Pair ``pair`` agreed ``signals`` (private: only that pair ever receives this)."""

    t: float
    pair: int
    seat: int
    signals: tuple[str, ...]


@immutable
class SignalsProposed:
    """``seat`` of pair ``pair`` proposed ``signals`` to its partner (private: only that pair ever
    receives this); the pair's signals are unchanged until the partner accepts."""

    t: float
    pair: int
    seat: int
    signals: tuple[str, ...]


@immutable
class SignalsDeclined:
    """``seat`` of pair ``pair`` kept the pair's signals: its partner's proposal is off (private:
    only that pair ever receives this)."""

    t: float
    pair: int
    seat: int


@immutable
class Called:
    """``seat`` made a call of ``kind`` on ``on_seat`` (a player) or ``on_pair``."""

    t: float
    seat: int
    kind: str
    on_seat: int | None
    on_pair: int | None


@immutable
class CallVoid:
    """S4 ``immune_while_holding``: the call was on a player holding five; nothing happens."""

    t: float
    seat: int
    held_by: int


@immutable
class Revealed:
    """``seat`` showed ``cards``: the whole hand (``full``) or, after a wrong call at a table that
    plays on, two different cards (S4 "shows two different cards")."""

    t: float
    seat: int
    cards: tuple[Card, ...]
    full: bool


@immutable
class CallJudged:
    """The call by ``seat`` was ``right`` or not, judged on the hands at that moment (S0)."""

    t: float
    seat: int
    kind: str
    right: bool
    checked: tuple[int, ...]


@immutable
class Scored:
    """``pair`` took ``amount`` letters (or won points); ``total`` is its new count."""

    t: float
    pair: int
    amount: int
    total: int
    unit: Literal["letter", "point"]


@immutable
class TableTalkRuled:
    """The table ruled that ``pair`` used table talk: it loses the match (S1, S2)."""

    t: float
    pair: int


@immutable
class HandEnded:
    """Hand ``hand_no`` ended; ``decided`` is False for a real deal (no letter, S1)."""

    t: float
    hand_no: int
    reason: HandEndReason
    decided: bool


@immutable
class MatchEnded:
    """The match is over. ``ranks[pair]`` is 1 for the winner(s); equal scores share a rank."""

    t: float
    ranks: tuple[int, ...]
    scores: tuple[int, ...]


Event = (HandDealt | PlayOpened | Swapped | Grabbed | Discarded | HoldExpired | StallProposed
         | Objected | ObjectionLapsed | StallResumed | StallCancelled | Swept | StockReshuffled
         | Gestured | Moved | Looked | GestureSeen | Chatted | SignalsAgreed | SignalsProposed
         | SignalsDeclined | Called | CallVoid | Revealed | CallJudged | Scored | TableTalkRuled
         | HandEnded | MatchEnded)

EVENT_NAMES: Final[dict[type[Any], str]] = {
    cls: "".join("_" + ch.lower() if ch.isupper() else ch for ch in cls.__name__).lstrip("_")
    for cls in (HandDealt, PlayOpened, Swapped, Grabbed, Discarded, HoldExpired, StallProposed,
                Objected, ObjectionLapsed, StallResumed, StallCancelled, Swept, StockReshuffled,
                Gestured, Moved, Looked, GestureSeen, Chatted, SignalsAgreed, SignalsProposed,
                SignalsDeclined, Called, CallVoid, Revealed, CallJudged, Scored, TableTalkRuled,
                HandEnded, MatchEnded)}


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return value.text
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


_FIELD_NAMES: dict[type[Any], tuple[tuple[str, bool], ...]] = {}


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON form: ``{"type": "swapped", "t": 1.5, "seat": 0, "took": ["7H"], ...}``; cards as
    text, a hidden card as ``null``. A field whose default is None is left out while None
    (``Gestured.seen_by`` at a table without attention), so those events read as they always
    have."""
    cls = type(event)
    fields = _FIELD_NAMES.get(cls)
    if fields is None:  # dataclasses.fields is slow: once per class
        fields = _FIELD_NAMES[cls] = tuple((f.name, f.default is None)
                                           for f in dataclasses.fields(event))
    out: dict[str, Any] = {"type": EVENT_NAMES[cls]}
    for name, omit_none in fields:
        value = getattr(event, name)
        if value is None and omit_none:
            continue
        out[name] = _plain(value)
    return out


#: Event types by their JSON name (the inverse of :data:`EVENT_NAMES`).
EVENT_TYPES: Final[dict[str, type[Any]]] = {name: cls for cls, name in EVENT_NAMES.items()}
#: Fields whose JSON form is a list of card texts (``middle``: a hidden slot is ``null``).
_CARD_LISTS: Final = frozenset({"took", "gave", "returned", "swept", "cards", "middle"})
#: Fields whose JSON form is a list of whole numbers (``seen_by`` may be left out: None).
_INT_LISTS: Final = frozenset({"slots", "seen_by", "checked", "ranks", "scores"})
_FLOATS: Final = frozenset({"t", "deadline", "opens_at", "made_at"})


def _bad(kind: str, name: str, what: str) -> KempsError:
    return KempsError("bad_event", f"The field {name!r} of a {kind} event must be {what}.")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cards(kind: str, name: str, value: Any, hidden: bool) -> tuple[Card | None, ...]:
    if not isinstance(value, list):
        raise _bad(kind, name, "a list of cards")
    out: list[Card | None] = []
    for text in value:
        if text is None and hidden:
            out.append(None)
            continue
        try:
            out.append(parse_card(text))
        except CardError:
            raise _bad(kind, name, "a list of cards") from None
    return tuple(out)


def _field(kind: str, name: str, value: Any) -> Any:
    """One field of an event from its JSON form (the inverse of ``_plain`` for that field)."""
    if value is None:
        return None
    if name in _FLOATS:
        if not _whole(value) and not isinstance(value, float):
            raise _bad(kind, name, "a number of seconds")
        return float(value)
    if name in _CARD_LISTS:
        return _cards(kind, name, value, name == "middle")
    if name == "hands":
        if not isinstance(value, list):
            raise _bad(kind, name, "a list of hands")
        return tuple(_cards(kind, name, h, False) for h in value)
    if name in _INT_LISTS:
        if not isinstance(value, list) or not all(_whole(v) for v in value):
            raise _bad(kind, name, "a list of whole numbers")
        return tuple(value)
    if name == "signals":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _bad(kind, name, "a list of gesture names")
        return tuple(value)
    if name == "at":
        if not (_whole(value) or value in ("middle", "hand")):
            raise _bad(kind, name, 'a seat, "middle" or "hand"')
        return value
    if isinstance(value, list | dict):
        raise _bad(kind, name, "a single value")
    return value


def event_from_dict(data: Any) -> Event:
    """The event of a JSON form that :func:`event_to_dict` (or
    :func:`kemps.views.event_dict_for`) made: ``event_from_dict(event_to_dict(e)) == e`` for
    every event. Keys an event does not have (the server's ``text``, the replay's ``i``) are
    ignored; a field left out takes its default (``seen_by``: None).

    Raises:
        KempsError: ``bad_event`` for data that is not an event's JSON form (not an object, an
            unknown ``type``, a field missing or of the wrong shape, a text that is not a card).
    """
    if not isinstance(data, dict):
        raise KempsError("bad_event", "An event is an object with a 'type'.")
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise KempsError("bad_event", f"Unknown event type {kind!r}.")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING:
                raise KempsError("bad_event", f"A {kind} event needs the field {f.name!r}.")
            continue
        kwargs[f.name] = _field(EVENT_NAMES[cls], f.name, data[f.name])
    event: Event = cls(**kwargs)
    return event
