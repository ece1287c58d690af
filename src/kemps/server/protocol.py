"""The WebSocket protocol: every client message validated here; documented in docs/protocol.md.

A client connects to ``/ws/{code}?token=TOKEN`` (no token: a spectator) and sends JSON objects of at
most :data:`MAX_MESSAGE_BYTES` bytes. Malformed, oversized, out-of-place or flooding messages are
answered with ``{"type": "error", "code": ..., "message": ...}`` and change nothing; the connection
stays open. The message rate is limited per seat (not per connection) by
:mod:`kemps.server.limits`.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kemps.errors import KempsError

PROTOCOL_VERSION: Final = 1
MAX_MESSAGE_BYTES: Final = 4096


class ProtocolError(KempsError):
    """A client message the server will not act on. Codes: ``too_large``, ``bad_json``,
    ``bad_message``, ``flooding``, ``not_seated``, ``not_host``, ``not_playing`` (and
    ``internal`` when the server itself failed on a message; nothing changed)."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ActionMessage(_Message):
    """``{"type": "action", "id": 7, "action": {"type": "swap", "take": ["7C"], "give": ["2D"]}}``:
    the seat's action (the server adds the seat from the token; ``deal`` is the server's own)."""

    type: Literal["action"]
    id: int | None = Field(default=None, ge=0, le=2**31)
    action: dict[str, Any]


class ReadyMessage(_Message):
    """``{"type": "ready"}``: ready for the next deal (between hands)."""

    type: Literal["ready"]


class PingMessage(_Message):
    """``{"type": "ping", "id": 3}``: answered with ``pong``."""

    type: Literal["ping"]
    id: int | None = Field(default=None, ge=0, le=2**31)


class SyncMessage(_Message):
    """``{"type": "sync"}``: send me the full current state again."""

    type: Literal["sync"]


class TableTalkMessage(_Message):
    """``{"type": "table_talk", "pair": 1}``: the host rules that a pair used table talk."""

    type: Literal["table_talk"]
    pair: int = Field(ge=0, le=5)


ClientMessage = ActionMessage | ReadyMessage | PingMessage | SyncMessage | TableTalkMessage
_TYPES: Final[dict[str, type[_Message]]] = {
    "action": ActionMessage, "ready": ReadyMessage, "ping": PingMessage, "sync": SyncMessage,
    "table_talk": TableTalkMessage}


def parse_client_message(raw: str | bytes) -> ClientMessage:
    """Validate one client frame.

    Raises:
        ProtocolError: ``too_large``, ``bad_json`` or ``bad_message`` (naming the problem).
    """
    if len(raw) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"A message may be at most {MAX_MESSAGE_BYTES} bytes.")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ProtocolError("bad_json", "A message must be one JSON object (not nested too "
                            "deep).") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "A message must be one JSON object.")
    kind = data.get("type")
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
    return message


def error_message(code: str, message: str, ref: int | None = None) -> dict[str, Any]:
    """The server's answer to a message it will not act on."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["id"] = ref
    return out
