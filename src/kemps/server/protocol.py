"""The WebSocket protocol: every client message validated here; documented in docs/protocol.md.

A client connects to ``/ws/{code}?token=TOKEN`` (no token: a spectator) and sends JSON objects of at
most :data:`MAX_MESSAGE_BYTES` bytes. Malformed, oversized, out-of-place or flooding messages are
answered with ``{"type": "error", "code": ..., "message": ...}`` and change nothing; the connection
stays open. The message rate is limited per seat (not per connection) by
:mod:`kemps.server.limits`.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kemps.errors import KempsError
from kemps.json_input import JSONInputError, parse_json
from kemps.rules import MAX_PAIRS
from kemps.text import TextError, check_strings, utf8_size

PROTOCOL_VERSION: Final = 1
MAX_MESSAGE_BYTES: Final = 4096
# Frames above this are not even read: the WebSocket layer closes the connection (code 1009).
MAX_FRAME_BYTES: Final = 64 * 1024
#: A camera table's ``rtc`` message (a browser's session description) may be this large; every
#: other message :data:`MAX_MESSAGE_BYTES`. A browser's offer for audio and video is about 5 KB.
MAX_SIGNAL_BYTES: Final = 16 * 1024
#: A session description travels as its lines (each clean text: SDP's line breaks are control
#: characters, which no string of a message may hold): at most this many, each this long.
MAX_SDP_LINES: Final = 400
MAX_SDP_LINE: Final = 1024


class ProtocolError(KempsError):
    """A client message the server will not act on. Codes: ``too_large``, ``bad_json``,
    ``bad_text``, ``bad_message``, ``flooding``, ``not_seated``, ``not_host``, ``not_playing`` (and
    ``internal`` when the server itself failed on a message; nothing changed); at camera tables
    (:mod:`kemps.server.signalling`) ``no_camera``, ``camera_off``, ``peer_gone``, ``sfu_table``
    and ``signal_flooding``."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ActionMessage(_Message):
    """``{"type": "action", "id": 7, "action": {"type": "swap", "take": ["7C"], "give": ["2D"]}}``:
    the seat's action (the server adds the seat from the token; ``deal`` is the server's own)."""

    type: Literal["action"]
    id: int | None = Field(default=None, ge=0, le=2**31)
    action: dict[str, Any]


class LookAction(_Message):
    """The ``action`` of an :class:`ActionMessage` that turns the seat's look (``attention``
    tables, docs/rules.md): ``{"type": "look", "at": 2}``; ``at`` is another seat, ``"middle"``
    or ``"hand"``. Checked by :func:`kemps.actions.action_from_dict` and the table like every
    action (``bad_look``, ``same_look``, ``look_too_soon``, ``no_attention``)."""

    type: Literal["look"]
    at: int | Literal["middle", "hand"] = Field(json_schema_extra={"minimum": 0,
                                                                    "maximum": 2 * MAX_PAIRS - 1})


#: Actions described in the schema (``x-actions``), beyond what docs/record-format.md lists.
ACTION_MODELS: Final[dict[str, type[_Message]]] = {"look": LookAction}


class ReadyMessage(_Message):
    """``{"type": "ready"}``: ready for the next deal (between hands)."""

    type: Literal["ready"]


class PingMessage(_Message):
    """``{"type": "ping", "id": 3}``: answered with ``pong``."""

    type: Literal["ping"]
    id: int | None = Field(default=None, ge=0, le=2**31)


class LagPongMessage(_Message):
    """``{"type": "lag_pong", "id": 3}``: the answer to the server's ``lag_ping`` (at once);
    without ``id``: this connection answers lag probes from now on (:mod:`kemps.server.lag`)."""

    type: Literal["lag_pong"]
    id: int | None = Field(default=None, ge=1, le=2**31)


class SyncMessage(_Message):
    """``{"type": "sync"}``: send me the full current state again."""

    type: Literal["sync"]


class TableTalkMessage(_Message):
    """``{"type": "table_talk", "pair": 1}``: the host rules that a pair used table talk."""

    type: Literal["table_talk"]
    pair: int = Field(ge=0, le=MAX_PAIRS - 1)


DeviceState = Literal["on", "off", "refused", "absent"]
PeerId = Annotated[str, Field(pattern=r"^[0-9a-f]{8}$", description="a camera connection's id "
                              "(camera_config's `peer`)")]


class CameraMessage(_Message):
    """``{"type": "camera", "video": "on", "audio": "refused"}``: at a camera table, this
    connection takes part in its seat's video (the seat's newest such connection does; another
    window of the seat stops), or says what its camera and microphone are now: ``on``, ``off``
    (turned off by the person), ``refused`` (the person did not allow it), ``absent`` (none
    found). Answered with ``camera_config`` (first time) and ``camera_seats`` to every seat."""

    type: Literal["camera"]
    video: DeviceState
    audio: DeviceState


class RtcMessage(_Message):
    """``{"type": "rtc", "to": 2, "peer": "4f0c9a1e", "kind": "candidate", "candidate":
    "candidate:1 1 udp 2122260223 192.168.1.2 50000 typ host", "mid": "0", "mline": 0}``: a WebRTC
    connection set-up message for seat ``to``'s camera connection ``peer`` (its id in
    ``camera_seats``), relayed as it is. ``kind``: ``offer`` or ``answer`` with ``sdp`` (the session
    description's lines, without their line breaks: ``["v=0", "o=- 4611 2 IN IP4 127.0.0.1",
    ...]``), or ``candidate`` with ``candidate`` (an ICE candidate's text; ``""``: no more),
    ``mid`` and ``mline``. At most
    :data:`MAX_SIGNAL_BYTES` bytes; refused ``signal_flooding`` beyond the seat's rate."""

    type: Literal["rtc"]
    to: int = Field(ge=0, le=2 * MAX_PAIRS - 1)
    peer: PeerId
    kind: Literal["offer", "answer", "candidate"]
    sdp: Annotated[list[Annotated[str, Field(max_length=MAX_SDP_LINE)]],
                   Field(max_length=MAX_SDP_LINES)] | None = None
    candidate: Annotated[str, Field(max_length=MAX_SDP_LINE)] | None = None
    mid: Annotated[str, Field(max_length=64)] | None = None
    mline: int | None = Field(default=None, ge=0, le=255)


ClientMessage = (ActionMessage | ReadyMessage | PingMessage | SyncMessage | TableTalkMessage
                 | CameraMessage | RtcMessage | LagPongMessage)
_TYPES: Final[dict[str, type[_Message]]] = {
    "action": ActionMessage, "ready": ReadyMessage, "ping": PingMessage, "sync": SyncMessage,
    "table_talk": TableTalkMessage, "camera": CameraMessage, "rtc": RtcMessage,
    "lag_pong": LagPongMessage}


# -- what the server sends (described for clients and checked in tests; built in room.py/app.py) --
class _ServerMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StateMessage(_ServerMessage):
    """``{"type": "state", "seat": 0, "room": {...}, "view": {...}, "log": [...]}``: on connect,
    on ``sync``, when a match starts; ``seat`` is yours (null: a spectator); ``view`` and ``log``
    once a match started: ``log`` is the current hand's events as you may see them (between
    hands: the last hand's and the huddle's), each with its ``text``, as in ``update``."""

    type: Literal["state"]
    seat: int | None
    room: dict[str, Any]
    log: list[dict[str, Any]] | None = Field(
        default=None, description="the current hand's events for you, oldest first, each with "
        "a `text` sentence (null for events not worth a line)")
    view: dict[str, Any] | None = None
    referee: dict[str, Any] | None = Field(
        default=None, description="the referee's only (the dealer who is not playing): every "
        "seat's `hands` and the `contested` touches in arrival order (kemps.views.RefereeView)")


class UpdateMessage(_ServerMessage):
    """``{"type": "update", "version": 12, "server_time": 1700000000.5, "events": [...],
    "view": {...}}``: after every accepted action and every timer that fired. Each event is its
    JSON form plus ``text``: the plain sentence for it as you may see it (null: not worth a line),
    so every screen words a move the same way."""

    type: Literal["update"]
    version: int = Field(ge=0)
    server_time: float = Field(description="the server's wall clock, Unix seconds")
    events: list[dict[str, Any]]
    view: dict[str, Any]
    referee: dict[str, Any] | None = Field(
        default=None, description="the referee's only: as in `state`")


class RoomMessage(_ServerMessage):
    """``{"type": "room", "room": {...}}``: the lobby or between-hands state changed."""

    type: Literal["room"]
    room: dict[str, Any]


class OkMessage(_ServerMessage):
    """``{"type": "ok", "id": 7}``: your action with that ``id`` was accepted."""

    type: Literal["ok"]
    id: int


class RejectedMessage(_ServerMessage):
    """``{"type": "rejected", "code": "card_gone", "message": "...", "id": 7}``: the table refused
    your action (``kemps.errors.REJECTION_CODES``); nothing changed."""

    type: Literal["rejected"]
    code: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    message: str
    id: int | None = None


class ErrorMessage(_ServerMessage):
    """``{"type": "error", "code": "bad_message", "message": "..."}``: your message was not acted
    on; nothing changed."""

    type: Literal["error"]
    code: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    message: str
    id: int | None = None


class PongMessage(_ServerMessage):
    """``{"type": "pong", "id": 3, "now": 12.5}``: the answer to ``ping`` (``now``: table
    seconds)."""

    type: Literal["pong"]
    id: int | None = None
    now: float


class LagPingMessage(_ServerMessage):
    """``{"type": "lag_ping", "id": 3}``: a lag probe, every few seconds, to a seated connection
    that said it answers them (``lag_pong``); answer ``{"type": "lag_pong", "id": 3}`` at once."""

    type: Literal["lag_ping"]
    id: int = Field(ge=1)


class LagMessage(_ServerMessage):
    """``{"type": "lag", "ms": [42, null, 130, 18]}``: each seat's last measured round trip to
    the server in milliseconds (null: not measured), to connections that answer lag probes, when
    a figure changed. Shown beside the names; it changes nothing (arrival order is the rule)."""

    type: Literal["lag"]
    ms: list[int | None]


class PausedMessage(_ServerMessage):
    """``{"type": "paused", "code": "storage_unavailable", "message": "..."}``: the server cannot
    store moves right now; the table is paused (its clock stands still) until ``resumed``."""

    type: Literal["paused"]
    code: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    message: str


class ResumedMessage(_ServerMessage):
    """``{"type": "resumed"}``: storage is back; the table plays on from where it stood."""

    type: Literal["resumed"]


class CameraConfigMessage(_ServerMessage):
    """``{"type": "camera_config", "peer": "4f0c9a1e", "route": "mesh", "ice_servers": [...],
    "ice_transport_policy": "all", "expires_at": 1700021600, "sfu": null}``: to a connection
    that joined its seat's video (``camera``): its own ``peer`` id, the ICE servers to use (TURN
    credentials minted for this seat, valid until ``expires_at``, Unix seconds), and how the
    table's video goes: ``mesh`` (peer to peer, set up with ``rtc`` messages) or ``sfu`` (through
    Janus's VideoRoom: ``sfu`` gives its address, the table's room and pin and the pair's)."""

    type: Literal["camera_config"]
    peer: str
    route: Literal["mesh", "sfu"]
    ice_servers: list[dict[str, Any]]
    ice_transport_policy: Literal["all", "relay"]
    expires_at: int | None = None
    sfu: dict[str, Any] | None = None


class CameraSeatsMessage(_ServerMessage):
    """``{"type": "camera_seats", "seats": [{"seat": 0, "peer": "4f0c9a1e", "video": "on",
    "audio": "off"}]}``: to every seated connection of a camera table (never spectators) when a
    seat's video starts, changes or ends: each seat in the video, its camera connection's id and
    what its camera and microphone are (``camera``'s states)."""

    type: Literal["camera_seats"]
    seats: list[dict[str, Any]]


class RtcRelayMessage(_ServerMessage):
    """``{"type": "rtc", "from": 0, "peer": "4f0c9a1e", "kind": "offer", "sdp": [...]}``: a set-up
    message from seat ``from``'s camera connection ``peer``, as that seat sent it."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    type: Literal["rtc"]
    sender: int = Field(alias="from")
    peer: str
    kind: Literal["offer", "answer", "candidate"]
    sdp: list[str] | None = None
    candidate: str | None = None
    mid: str | None = None
    mline: int | None = None


ServerMessage = (StateMessage | UpdateMessage | RoomMessage | OkMessage | RejectedMessage
                 | ErrorMessage | PongMessage | PausedMessage | ResumedMessage
                 | CameraConfigMessage | CameraSeatsMessage | RtcRelayMessage | LagPingMessage
                 | LagMessage)
SERVER_TYPES: Final[dict[str, type[_ServerMessage]]] = {
    "state": StateMessage, "update": UpdateMessage, "room": RoomMessage, "ok": OkMessage,
    "rejected": RejectedMessage, "error": ErrorMessage, "pong": PongMessage,
    "paused": PausedMessage, "resumed": ResumedMessage, "camera_config": CameraConfigMessage,
    "camera_seats": CameraSeatsMessage, "rtc": RtcRelayMessage, "lag_ping": LagPingMessage,
    "lag": LagMessage}
CLIENT_TYPES: Final = _TYPES


def protocol_json_schema() -> dict[str, Any]:
    """The WebSocket protocol as one JSON Schema document: ``client`` (one of the client messages:
    the models :func:`parse_client_message` validates with) and ``server`` (one of the server's),
    each message under ``$defs`` by its model's name; plus the frame limit in bytes."""
    defs: dict[str, Any] = {}

    def one_of(models: dict[str, type[BaseModel]]) -> dict[str, Any]:
        refs = []
        for model in models.values():
            schema = model.model_json_schema(ref_template="#/$defs/{model}")
            defs.update(schema.pop("$defs", {}))
            defs[model.__name__] = schema
            refs.append({"$ref": f"#/$defs/{model.__name__}"})
        return {"oneOf": refs, "discriminator": {"propertyName": "type", "mapping": {
            kind: f"#/$defs/{model.__name__}" for kind, model in models.items()}}}

    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"kemps WebSocket protocol, version {PROTOCOL_VERSION}",
            "description": "Frames are JSON objects of at most "
                           f"{MAX_MESSAGE_BYTES} bytes (UTF-8); every string is clean text "
                           "(no lone surrogates, control characters or bidirectional controls). "
                           "See docs/protocol.md.",
            "x-max-message-bytes": MAX_MESSAGE_BYTES, "x-protocol-version": PROTOCOL_VERSION,
            "client": one_of(dict(CLIENT_TYPES)), "server": one_of(dict(SERVER_TYPES)),
            "x-actions": _actions(defs), "$defs": defs}


def _actions(defs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind, model in ACTION_MODELS.items():
        defs[model.__name__] = model.model_json_schema(ref_template="#/$defs/{model}")
        out[kind] = {"$ref": f"#/$defs/{model.__name__}"}
    return out


def parse_client_message(raw: str | bytes) -> ClientMessage:
    """Validate one client frame: at most :data:`MAX_MESSAGE_BYTES` bytes of UTF-8 (an ``rtc``
    message :data:`MAX_SIGNAL_BYTES`), one JSON object whose every string is clean text
    (:mod:`kemps.text`), of a known type and shape.

    Raises:
        ProtocolError: ``too_large``, ``bad_json``, ``duplicate_key`` (a key given twice in one
            object), ``bad_text`` or ``bad_message`` (naming the problem, never repeating the
            text).
    """
    size = utf8_size(raw)
    if size > MAX_SIGNAL_BYTES:
        raise ProtocolError("too_large", _TOO_LARGE)
    try:
        data = parse_json(raw)  # UTF-8, every key once (kemps.json_input)
    except JSONInputError as err:
        raise ProtocolError(err.code, err.message) from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "A message must be one JSON object.")
    if size > MAX_MESSAGE_BYTES and data.get("type") != "rtc":
        raise ProtocolError("too_large", _TOO_LARGE)
    try:
        check_strings(data)
    except TextError as err:
        raise ProtocolError(err.code, err.message) from None
    kind = data.get("type")
    if kind == "action":
        fast = _plain_action(data)
        if fast is not None:
            return fast
    model = _TYPES.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise ProtocolError("bad_message", f"Unknown message type {kind!r}; known: "
                            f"{', '.join(_TYPES)}.")
    try:
        message: ClientMessage = model.model_validate(data)  # type: ignore[assignment]
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "message"
        raise ProtocolError("bad_message", f"{kind} message, field {where}: {first['msg']}.") \
            from None
    if isinstance(message, RtcMessage):
        _check_rtc(message)
    return message


def _check_rtc(message: RtcMessage) -> None:
    """An offer or answer has its ``sdp``; a candidate its ``candidate``; nothing else."""
    if message.kind == "candidate":
        if message.candidate is None or message.sdp is not None:
            raise ProtocolError("bad_message", "rtc message, kind candidate: give candidate "
                                "(and mid, mline), not sdp.")
    elif message.sdp is None or message.candidate is not None or message.mid is not None \
            or message.mline is not None:
        raise ProtocolError("bad_message", f"rtc message, kind {message.kind}: give sdp only.")


_TOO_LARGE: Final = (f"A message may be at most {MAX_MESSAGE_BYTES} bytes (a camera table's rtc "
                     f"message {MAX_SIGNAL_BYTES}).")
_ACTION_KEYS: Final = frozenset({"type", "id", "action"})
_MAX_ID: Final = 2**31


def _plain_action(data: dict[str, Any]) -> ActionMessage | None:
    """The common, well-formed action message, checked by hand as :class:`ActionMessage` would
    check it (strict: ``id`` absent, null or an int 0..2**31, not a bool; ``action`` an object; no
    other field), without pydantic's cost on every action; None for anything else, which then
    goes through the model (and gets its very error messages)."""
    if not data.keys() <= _ACTION_KEYS or data.get("action").__class__ is not dict:
        return None
    ref = data.get("id")
    if ref is not None and (ref.__class__ is not int or not 0 <= ref <= _MAX_ID):
        return None
    return ActionMessage.model_construct(**data)  # the fields given, as validation sets them


def error_message(code: str, message: str, ref: int | None = None) -> dict[str, Any]:
    """The server's answer to a message it will not act on."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["id"] = ref
    return out
