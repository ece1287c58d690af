"""Events: what happened at the table, as small immutable dataclasses (h11 ``_events.py`` style).

Immutable by contract (:func:`kemps.immutable.immutable`), not by ``frozen=True``.

Every event carries ``t``, the table time in seconds at which it happened (the ``now`` of the
action that caused it, or the deadline of the timer that fired it). Events hold full information;
:func:`kemps.views.event_for` is the one place that redacts them for a seat.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final, Literal

from kemps.cards import Card
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
         | Gestured | Moved | Looked | GestureSeen | Chatted | SignalsAgreed | Called | CallVoid
         | Revealed | CallJudged | Scored | TableTalkRuled | HandEnded | MatchEnded)

EVENT_NAMES: Final[dict[type[Any], str]] = {
    cls: "".join("_" + ch.lower() if ch.isupper() else ch for ch in cls.__name__).lstrip("_")
    for cls in (HandDealt, PlayOpened, Swapped, Grabbed, Discarded, HoldExpired, StallProposed,
                Objected, ObjectionLapsed, StallResumed, StallCancelled, Swept, StockReshuffled,
                Gestured, Moved, Looked, GestureSeen, Chatted, SignalsAgreed, Called, CallVoid,
                Revealed, CallJudged, Scored, TableTalkRuled, HandEnded, MatchEnded)}


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
