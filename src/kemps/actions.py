"""Actions: everything a seat (or the table itself) can do. Frozen, small, no behaviour.

The table applies an action with the time it happened (``Table.apply(action, now)``) and answers
with events or a :class:`~kemps.errors.Rejected`. Every action has a JSON form
(:func:`action_to_dict` / :func:`action_from_dict`) used by match records and, later, the wire.
Cards are named, never slot numbers: a swap for a card somebody else took first is ``card_gone``
(S1 "the first player to touch it gets it"; S2 rules row 5).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final, Literal

from kemps.cards import Card, parse_card
from kemps.errors import CardError, Rejected
from kemps.gestures import LOOK_PLACES
from kemps.immutable import immutable

CallKind = Literal["kemps", "stop", "double_kemps", "double_stop"]
CALL_KINDS: Final = ("kemps", "stop", "double_kemps", "double_stop")
#: Where a seat looks (``RuleSet.attention``): another seat's number, the middle, or its own cards.
LookAt = int | Literal["middle", "hand"]


@immutable
class Deal:
    """The table deals a hand (a chance action, so a record replays it exactly).

    ``order`` is the whole pack, top first: four cards to each player one at a time starting at the
    dealer's left, then four to the middle (slots 0..3), the rest is the stock, dealt from the top.
    ``reshuffle_seed`` seeds the reshuffle of swept cards (``stock_exhausted="reshuffle_swept"``).
    """

    order: tuple[Card, ...]
    reshuffle_seed: int = 0
    seat: None = None


@immutable
class Go:
    """The dealer says "Go" (S2 variations row 1; ``start="on_go"``). ``seat`` is ``None`` for a
    dealer who is not playing (S2 tournament row 7; online the host acting for the table)."""

    seat: int | None


@immutable
class Swap:
    """Take ``take`` from the middle and put ``give`` from the hand in their slots, pairwise.

    One card each unless ``multi_swap`` (S1 "pick up one (or more)... discard an equal number").
    """

    seat: int
    take: tuple[Card, ...]
    give: tuple[Card, ...]


@immutable
class Grab:
    """S4 grab-then-discard: take middle card(s) into the hand (needs ``hold_limit_s > 0``)."""

    seat: int
    take: tuple[Card, ...]


@immutable
class Discard:
    """S4: put hand card(s) into the empty middle slot(s) after a :class:`Grab`."""

    seat: int
    give: tuple[Card, ...]


@immutable
class ProposeStall:
    """Say the middle has stalled (S0); agree to a fresh middle (``all_agree``); or, as the dealer
    at a ``dealer_only`` table, sweep. ``seat`` is ``None`` for a dealer who is not playing,
    who sweeps at once (S2 rules row 7 "The dealer sweeps them away")."""

    seat: int | None


@immutable
class Object:
    """Object to a pending stall (S0 "if nobody objects"; S4 pauses the countdown until the
    objector has taken a card)."""

    seat: int


@immutable
class Gesture:
    """Make a gesture from the palette (:mod:`kemps.gestures`) in view of everyone."""

    seat: int
    gesture: str


@immutable
class Look:
    """Look at another seat (``at`` its number), at the middle (``"middle"``) or at one's own cards
    (``"hand"``), in full view of the table: only where ``RuleSet.attention`` is on, at most once
    every :data:`kemps.gestures.LOOK_GAP_S` seconds (S0 "Half of Kemps is watching your partner
    without looking as though you are"). Wire form ``{"type": "look", "at": 2}``."""

    seat: int
    at: LookAt


@immutable
class Chat:
    """Say something at the table (``table_chat``), at most 200 characters."""

    seat: int
    text: str


@immutable
class AgreeSignals:
    """Between hands, the seat's pair agrees its secret signal(s): 1..3 palette gestures
    (S1 "You can have several signals"; S0 "pairs may agree a new signal before the next round")."""

    seat: int
    signals: tuple[str, ...]


@immutable
class ProposeSignals:
    """Between hands, the seat proposes new signal(s) to its partner: 1..3 palette gestures,
    checked as :class:`AgreeSignals` is. The pair's signals do not change: the partner accepts
    (an :class:`AgreeSignals` of the same gestures) or keeps the old ones
    (:class:`DeclineSignals`); a proposal nobody answered lapses at the deal (S1 "each two player
    team goes away and privately agrees a signal": a pair agrees it together, so a bot partner
    asks its person first). A later proposal of the pair replaces it."""

    seat: int
    signals: tuple[str, ...]


@immutable
class DeclineSignals:
    """Between hands, the seat keeps its pair's signals: it turns down the proposal its partner
    made (:class:`ProposeSignals`)."""

    seat: int


@immutable
class Call:
    """A call. ``kemps`` is on the caller's partner (``on_seat`` may name the partner);
    ``stop`` names ``on_pair`` or ``on_seat`` as ``stop_target`` says; ``double_kemps`` claims
    both caller and partner hold four of a kind; ``double_stop`` claims both players of
    ``on_pair`` do. With two pairs the opposing pair may be left out."""

    seat: int
    kind: CallKind
    on_seat: int | None = None
    on_pair: int | None = None


@immutable
class RuleTableTalk:
    """The table (host or dealer) rules that ``pair`` used table talk: it loses the match
    (S1 "penalised by loss of the game"; S2 signals row 8). Only where ``table_talk="forbidden"``."""

    pair: int
    seat: None = None


Action = Deal | Go | Swap | Grab | Discard | ProposeStall | Object | Gesture | Look | Chat | \
    AgreeSignals | ProposeSignals | DeclineSignals | Call | RuleTableTalk

ACTION_TYPES: Final[dict[str, type[Any]]] = {
    "deal": Deal, "go": Go, "swap": Swap, "grab": Grab, "discard": Discard,
    "stall": ProposeStall, "object": Object, "gesture": Gesture, "look": Look, "chat": Chat,
    "agree_signals": AgreeSignals, "propose_signals": ProposeSignals,
    "decline_signals": DeclineSignals, "call": Call, "table_talk": RuleTableTalk,
}
#: The actions that tell a pair's signals (agreements, proposals and their answers): private to
#: the pair, so a public record leaves them all out (it replays the same without them).
SIGNAL_ACTIONS: Final = frozenset({"agree_signals", "propose_signals", "decline_signals"})
ACTION_NAMES: Final[dict[type[Any], str]] = {v: k for k, v in ACTION_TYPES.items()}
_CARD_FIELDS: Final = frozenset({"order", "take", "give"})
_STR_TUPLE_FIELDS: Final = frozenset({"signals"})


def action_to_dict(action: Action) -> dict[str, Any]:
    """JSON form: ``{"type": "swap", "seat": 0, "take": ["7H"], "give": ["2C"]}``."""
    out: dict[str, Any] = {"type": ACTION_NAMES[type(action)]}
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        if f.name in _CARD_FIELDS:
            value = [c.text for c in value]
        elif f.name in _STR_TUPLE_FIELDS:
            value = list(value)
        if value is None and f.default is None:  # an optional field left out; a dealer's
            continue                             # ``seat: None`` (Go, stall) is kept
        out[f.name] = value
    return out


def action_from_dict(data: Any) -> Action:
    """Parse the JSON form of an action, checking every field's type.

    Raises:
        Rejected: ``bad_action`` when the data is not a well-formed action (unknown type, missing or
            extra field, wrong type, a text that is not a card).
    """
    if not isinstance(data, dict):
        raise Rejected("bad_action", "An action is an object with a 'type'.")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise Rejected("bad_action", f"Unknown action type {kind!r}; known: "
                       f"{', '.join(ACTION_TYPES)}.")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    extra = set(data) - set(fields) - {"type"}
    if extra:
        raise Rejected("bad_action", f"A {kind} action has no field {sorted(extra)[0]!r}.")
    kwargs: dict[str, Any] = {}
    for name in fields:
        if name not in data:
            continue
        value = data[name]
        if name in _CARD_FIELDS:
            if not isinstance(value, list) or len(value) > 104:
                raise Rejected("bad_action", f"Field {name!r} must be a list of cards.")
            try:
                value = tuple(parse_card(v) for v in value)
            except CardError as err:
                raise Rejected("bad_action", f"Field {name!r}: {err.message}") from None
        elif name in _STR_TUPLE_FIELDS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise Rejected("bad_action", f"Field {name!r} must be a list of gesture names.")
            value = tuple(value)
        elif name in ("seat", "on_seat", "on_pair", "pair", "reshuffle_seed"):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise Rejected("bad_action", f"Field {name!r} must be a whole number.")
            if name == "seat" and cls in (Deal, RuleTableTalk) and value is not None:
                raise Rejected("bad_action", f"A {kind} action is the table's, not a seat's.")
        elif name in ("gesture", "text", "kind") and not isinstance(value, str):
            raise Rejected("bad_action", f"Field {name!r} must be text.")
        elif name == "at" and not (value in LOOK_PLACES if isinstance(value, str) else (
                isinstance(value, int) and not isinstance(value, bool))):
            raise Rejected("bad_action", "Field 'at' must be a seat number, \"middle\" or "
                           "\"hand\".")
        kwargs[name] = value
    missing = [n for n, f in fields.items() if n not in kwargs
               and f.default is dataclasses.MISSING]
    if missing:
        raise Rejected("bad_action", f"A {kind} action needs the field {missing[0]!r}.")
    if cls is Call and kwargs["kind"] not in CALL_KINDS:
        raise Rejected("bad_action", f"Unknown call {kwargs['kind']!r}; calls are "
                       f"{', '.join(CALL_KINDS)}.")
    action: Action = cls(**kwargs)
    return action
