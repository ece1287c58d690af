"""Replays watched together (issue 32): a shared room in which one person drives a finished
match's replay and everyone else's page follows, with a chat of its own.

Routes and socket (docs/protocol.md, "Replays watched together"):

* ``POST /api/replays/{match_id}/together`` ``{"name": "Ann"}`` -- open a shared replay room of
  a finished match: ``{"code": "K7QM3X", "token": "...", "match_id": 12, "url":
  "/together/K7QM3X"}``. The token is the driver's (kept by the page; ``hand_drive`` passes the
  driving on with a fresh one).
* ``GET /together/{code}`` -- the replay page (static/replay.html) in the shared room;
  ``#t=41.2`` (table seconds) or ``?hand=2&t=3.5`` in it is a moment: the driver's page goes
  there and takes everyone along; a follower's page follows the driver.
* ``WS /ws/together/{code}?token=...`` -- one watcher's connection (no token: a follower). The
  first message is ``together`` (the room as it stands: the driver's position, the watchers,
  the chat so far); then ``position``, ``watchers``, ``chat``, ``drive`` and ``error``.

**Secrecy.** A shared room carries no part of the match: only the match's id, where the driver
is (``idx``: an event's index, ``t``: table seconds, ``hand``, ``playing``, ``speed``), the
watchers' names and their chat. Every page loads the replay itself from
``GET /api/replays/{match_id}`` (:mod:`kemps.server.replays`), which withholds the signals of a
pair that chose so or still gives them: a shared replay shows exactly what the single replay
page shows to anyone, and only a finished (stored) match can be shared.

**Bounded** (:class:`TogetherSettings`, docs/protocol.md "Limits"): shared rooms open at once per
client address (``too_many_together``, 429) and on this server (``together_full``, 503);
watchers per room (``watchers_full``, close 4429) and connections per address
(``too_many_connections``, 4429); a frame of at most :data:`MAX_TOGETHER_BYTES` bytes
(``too_large``); messages per connection (``flooding``) and chat lines per connection
(``chat_flooding``); a chat line of at most :data:`MAX_CHAT_CHARS` characters and a name of at
most 40, both clean text (``bad_text``). A room closes (``together_closed``, close 4410) once
nobody has been connected for ``empty_s`` seconds, or nobody has driven or chatted for
``idle_s``.

**One node.** Shared rooms live in the memory of the server process that opened them (they are
not stored: a restart closes them, and the watchers are told ``no_such_together`` when they
reconnect). With many nodes (docs/scale.md) a watcher must reach the node that opened the room:
the load balancer's routing does not know these codes, so behind one that spreads connections
over nodes a shared room works only for watchers that land on its node (sticky sessions by
client address, or one node serving ``/together`` and ``/ws/together``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import os
import re
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kemps.errors import KempsError, SettingError
from kemps.json_input import JSONInputError, parse_json
from kemps.record import MatchRecord, replay
from kemps.server.api import _BODY, _OUTAGE, _PARAMS, ROUTES, StrictJSONRoute, _merge, refusals
from kemps.server.api.common import client_address
from kemps.server.errors import ServerError
from kemps.server.limits import (
    CLOSE_ARCHIVED,
    CLOSE_NO_ROOM,
    CLOSE_TRY_LATER,
    LimitedConnection,
    LimitError,
    TokenBucket,
)
from kemps.server.protocol import error_message
from kemps.server.replays import STATIC, MatchId
from kemps.text import CleanText, TextError, check_strings, check_text, utf8_size

log = logging.getLogger("kemps.server")

#: A shared room's code: six characters a person can read out (no 0/O, 1/I/L).
CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 6
CODE_PATTERN: Final = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
#: The largest frame a watcher may send (bytes, UTF-8); larger ones are answered ``too_large``.
MAX_TOGETHER_BYTES: Final = 2048
#: A chat line's length (characters) and how many lines a room keeps for those who join later.
MAX_CHAT_CHARS: Final = 300
CHAT_KEPT: Final = 50
MAX_NAME: Final = 40
SPEEDS: Final = (0.25, 0.5, 1.0, 2.0, 4.0)
#: The close code of a connection to a shared room that is closed (idle) or never was.
CLOSE_TOGETHER_GONE: Final = CLOSE_ARCHIVED
SOCKET_PATH: Final = re.compile(r"/ws/together/([^/]+)")

ENV: Final[dict[str, str]] = {
    "rooms_per_address": "KEMPS_TOGETHER_PER_ADDRESS", "max_rooms": "KEMPS_TOGETHER_MAX_ROOMS",
    "max_watchers": "KEMPS_TOGETHER_MAX_WATCHERS",
    "address_connections": "KEMPS_TOGETHER_ADDRESS_CONNECTIONS",
    "idle_s": "KEMPS_TOGETHER_IDLE_S", "empty_s": "KEMPS_TOGETHER_EMPTY_S",
    "rate_per_s": "KEMPS_TOGETHER_RATE_PER_S", "rate_burst": "KEMPS_TOGETHER_RATE_BURST",
    "chat_per_s": "KEMPS_TOGETHER_CHAT_PER_S", "chat_burst": "KEMPS_TOGETHER_CHAT_BURST",
}


@dataclass(frozen=True)
class TogetherSettings:
    """The limits of shared replay rooms (each from its ``KEMPS_TOGETHER_*`` variable,
    :data:`ENV`): ``rooms_per_address`` (3) shared rooms open at once from one client address,
    ``max_rooms`` (500) on this server; ``max_watchers`` (30) connections per room;
    ``address_connections`` (20) connections to shared rooms from one address; a room closes
    after ``empty_s`` (120) seconds with nobody connected or ``idle_s`` (1800) with nobody driving
    or chatting; ``rate_per_s`` (20) and ``rate_burst`` (40) messages a connection may send a
    second and the burst on top, ``chat_per_s`` (0.5) and ``chat_burst`` (5) chat lines.

    Raises:
        SettingError: ``bad_setting`` for a value that is not a finite positive number.
    """

    rooms_per_address: int = 3
    max_rooms: int = 500
    max_watchers: int = 30
    address_connections: int = 20
    idle_s: float = 1800.0
    empty_s: float = 120.0
    rate_per_s: float = 20.0
    rate_burst: float = 40.0
    chat_per_s: float = 0.5
    chat_burst: float = 5.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or \
                    not math.isfinite(value) or value < (1 if f.type == "int" else 0.05):
                raise SettingError("bad_setting", f"Setting {ENV[f.name]} must be a positive "
                                   f"number, not {value!r}.")

    @classmethod
    def from_env(cls) -> TogetherSettings:
        """The defaults, then the ``KEMPS_TOGETHER_*`` variables that are set.

        Raises:
            SettingError: ``bad_setting`` naming a variable that is not a number or too small.
        """
        values: dict[str, Any] = {}
        for f in fields(cls):
            text = os.environ.get(ENV[f.name])
            if text is None:
                continue
            try:
                values[f.name] = int(text) if f.type == "int" else float(text)
            except ValueError:
                raise SettingError("bad_setting", f"{ENV[f.name]} must be a number, not "
                                   f"{text[:40]!r}.") from None
        return cls(**values)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


# == what a watcher sends ==========================================================================
class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PositionMessage(_Message):
    """``{"type": "position", "idx": 41, "t": 23.5, "hand": 2, "playing": true, "speed": 2}``
    (the driver only): where the replay is now: ``idx`` the last event shown (-1: before the
    first), ``t`` table seconds, ``hand`` its hand (0 before the first deal), playing or paused,
    at ``speed`` (0.25, 0.5, 1, 2 or 4). The driver's page sends it on every play, pause,
    speed change, step, hand and seek, and every 2 s while it plays."""

    type: Literal["position"]
    idx: int = Field(ge=-1, le=10_000_000)
    t: float = Field(ge=0, le=10_000_000, allow_inf_nan=False)
    hand: int = Field(ge=0, le=1_000_000)
    playing: bool
    speed: float = Field(ge=0.25, le=4, allow_inf_nan=False,
                         description="0.25, 0.5, 1, 2 or 4 (table seconds a second)")


class ChatMessage(_Message):
    """``{"type": "chat", "text": "Look at her wink", "t": 23.5}``: a line to everyone in the
    room (1 to :data:`MAX_CHAT_CHARS` characters of clean text); ``t`` the moment it is about
    (table seconds; the page sends where the replay stands), shown as a link to that moment."""

    type: Literal["chat"]
    text: Annotated[str, CleanText(MAX_CHAT_CHARS, 1, "chat line", visible=True)]
    t: float | None = Field(default=None, ge=0, le=10_000_000, allow_inf_nan=False)


class NameMessage(_Message):
    """``{"type": "name", "name": "Ben"}``: what the others call you (1 to 40 characters)."""

    type: Literal["name"]
    name: Annotated[str, CleanText(MAX_NAME, 1, "name", visible=True)]


class HandDriveMessage(_Message):
    """``{"type": "hand_drive", "to": 3}`` (the driver only): watcher 3 drives from now on (it is
    sent ``drive`` with a fresh token; the old token no longer drives)."""

    type: Literal["hand_drive"]
    to: int = Field(ge=1, le=2**31)


class PingMessage(_Message):
    """``{"type": "ping", "id": 3}``: answered ``{"type": "pong", "id": 3}``."""

    type: Literal["ping"]
    id: int | None = Field(default=None, ge=0, le=2**31)


TogetherMessage = PositionMessage | ChatMessage | NameMessage | HandDriveMessage | PingMessage
CLIENT_TYPES: Final[dict[str, type[_Message]]] = {
    "position": PositionMessage, "chat": ChatMessage, "name": NameMessage,
    "hand_drive": HandDriveMessage, "ping": PingMessage}


class TogetherError(KempsError):
    """A watcher's message not acted on (nothing changed): ``too_large``, ``bad_json``,
    ``duplicate_key``, ``bad_text``, ``bad_message``, ``flooding``, ``chat_flooding``,
    ``not_driver``, ``bad_position``, ``no_such_watcher``."""


def parse_together_message(raw: str) -> TogetherMessage:
    """One watcher's frame: at most :data:`MAX_TOGETHER_BYTES` bytes, a JSON object of clean
    text, of a known type and shape.

    Raises:
        TogetherError: ``too_large``, ``bad_json``, ``duplicate_key``, ``bad_text`` or
            ``bad_message`` (naming the field, never repeating the text).
    """
    if utf8_size(raw) > MAX_TOGETHER_BYTES:
        raise TogetherError("too_large", f"A message to a shared replay may be at most "
                            f"{MAX_TOGETHER_BYTES} bytes.")
    try:
        data = parse_json(raw)
    except JSONInputError as err:
        raise TogetherError(err.code, err.message) from None
    if not isinstance(data, dict):
        raise TogetherError("bad_json", "A message must be one JSON object.")
    try:
        check_strings(data)
    except TextError as err:
        raise TogetherError(err.code, err.message) from None
    kind = data.get("type")
    model = CLIENT_TYPES.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise TogetherError("bad_message", f"Unknown message type; known: "
                            f"{', '.join(CLIENT_TYPES)}.")
    try:
        return model.model_validate(data)  # type: ignore[return-value]
    except ValidationError as err:
        first = err.errors()[0]
        cause = (first.get("ctx") or {}).get("error")
        if isinstance(cause, KempsError):
            raise TogetherError(cause.code, cause.message) from None
        where = ".".join(str(p) for p in first.get("loc", ())) or "message"
        raise TogetherError("bad_message", f"{kind} message, field {where}: {first['msg']}.") \
            from None


# == the rooms =====================================================================================
class Watcher:
    """One connection to a shared room: its public ``id`` and ``name``, its buckets."""

    __slots__ = ("conn", "id", "name", "rate", "chat")

    def __init__(self, conn: LimitedConnection, watcher_id: int, settings: TogetherSettings,
                 clock: Callable[[], float]) -> None:
        self.conn = conn
        self.id = watcher_id
        self.name = f"Watcher {watcher_id}"
        self.rate = TokenBucket(settings.rate_burst, settings.rate_per_s, clock)
        self.chat = TokenBucket(settings.chat_burst, settings.chat_per_s, clock)


class SharedReplay:
    """One shared replay room: the match, who drives (the hash of the driver's token), where the
    replay stands, the watchers and the chat kept for newcomers."""

    def __init__(self, code: str, match_id: int, address: str, driver_hash: str,
                 driver_name: str, events: int, end: float, now: float) -> None:
        self.code = code
        self.match_id = match_id
        self.address = address
        self.driver_hash = driver_hash
        self.driver_name = driver_name  # given to the driver's first connection
        self.events = events  # the replay's events when the room opened (positions checked)
        self.end = end
        self.position: dict[str, Any] = {"idx": -1, "t": 0.0, "hand": 0, "playing": False,
                                         "speed": 1.0, "by": None}
        self.watchers: dict[int, Watcher] = {}
        self.next_id = 1
        self.chat: deque[dict[str, Any]] = deque(maxlen=CHAT_KEPT)
        self.active_at = now  # the last drive or chat
        self.empty_since: float | None = now
        self.closed = False

    def is_driver(self, w: Watcher) -> bool:
        return w.conn.token_hash == self.driver_hash

    def watcher_list(self) -> list[dict[str, Any]]:
        return [{"id": w.id, "name": w.name, "driver": self.is_driver(w)}
                for w in self.watchers.values()]

    def broadcast(self, message: dict[str, Any], but: Watcher | None = None) -> None:
        for w in list(self.watchers.values()):
            if w is not but:
                w.conn.push(message)


class Together:
    """Every shared replay room of this server process (kept in memory; see the module text).
    ``clock``: monotonic seconds."""

    def __init__(self, settings: TogetherSettings,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.rooms: dict[str, SharedReplay] = {}
        self.connections: dict[str, int] = {}  # live connections per client address
        self._sweeper: asyncio.Task[None] | None = None

    # -- opening --------------------------------------------------------------------------------
    def open(self, match_id: int, address: str, name: str, events: int, end: float
             ) -> tuple[SharedReplay, str]:
        """A new shared room of a finished match and its driver's token.

        Raises:
            LimitError: ``too_many_together`` (429) when ``address`` has ``rooms_per_address``
                rooms open, ``together_full`` (503) at ``max_rooms``; nothing changed.
        """
        s = self.settings
        if len(self.rooms) >= s.max_rooms:
            raise LimitError("together_full", f"This server has as many shared replays open as "
                             f"it may ({s.max_rooms}); try again later.", 503, retry_after_s=60.0)
        mine = sum(1 for r in self.rooms.values() if r.address == address)
        if mine >= s.rooms_per_address:
            raise LimitError("too_many_together", f"Your address has {mine} shared replays open "
                             f"already, as many as one client may; they close {s.empty_s:g} s "
                             "after everyone has left.", 429, retry_after_s=s.empty_s)
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        while code in self.rooms:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        token = secrets.token_urlsafe(24)
        room = SharedReplay(code, match_id, address, _hash(token), name, events, end,
                            self.clock())
        self.rooms[code] = room
        self._start_sweeper()
        return room, token

    # -- idle rooms -----------------------------------------------------------------------------
    def _start_sweeper(self) -> None:
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    @property
    def sweep_every_s(self) -> float:
        return min(30.0, max(0.05, min(self.settings.idle_s, self.settings.empty_s) / 4))

    async def _sweep(self) -> None:
        while self.rooms:
            await asyncio.sleep(self.sweep_every_s)
            try:
                self.close_idle()
            except Exception:  # the sweep must go on
                log.exception("shared replay sweep failed")

    def close_idle(self) -> list[str]:
        """Close the rooms nobody has been in for ``empty_s`` or that nobody has driven or
        chatted in for ``idle_s``; their codes."""
        now, s = self.clock(), self.settings
        gone = [r for r in self.rooms.values()
                if now - r.active_at >= s.idle_s
                or (r.empty_since is not None and now - r.empty_since >= s.empty_s)]
        for room in gone:
            self.close(room)
        return [r.code for r in gone]

    def close(self, room: SharedReplay) -> None:
        """Close a room: every watcher is told ``together_closed`` and disconnected."""
        room.closed = True
        self.rooms.pop(room.code, None)
        for w in list(room.watchers.values()):
            w.conn.end(CLOSE_TOGETHER_GONE, "together_closed", closed_message(room.code))

    def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()

    # -- watchers -------------------------------------------------------------------------------
    def admit(self, code: str, conn: LimitedConnection) -> tuple[SharedReplay, Watcher]:
        """A connection joins the shared room ``code``.

        Raises:
            LimitError: ``no_such_together`` (closed or never opened), ``too_many_connections``,
                ``watchers_full``; nothing changed.
        """
        room = self.rooms.get(code)
        if room is None:
            raise LimitError("no_such_together", f"There is no shared replay {code[:8]!r} on "
                             "this server (it closed, or the server restarted); open the "
                             "replay and watch together again.", 404,
                             close_code=CLOSE_NO_ROOM)
        s = self.settings
        if self.connections.get(conn.address, 0) >= s.address_connections:
            raise LimitError("too_many_connections", f"Your address has "
                             f"{s.address_connections} connections to shared replays open "
                             "already; close some first.", 429, retry_after_s=30.0,
                             close_code=CLOSE_TRY_LATER)
        if len(room.watchers) >= s.max_watchers:
            raise LimitError("watchers_full", f"This shared replay has as many watchers as it "
                             f"takes ({s.max_watchers}).", 503, retry_after_s=30.0,
                             close_code=CLOSE_TRY_LATER)
        w = Watcher(conn, room.next_id, s, self.clock)
        room.next_id += 1
        if room.is_driver(w) and room.driver_name:
            w.name, room.driver_name = room.driver_name, ""
        room.watchers[w.id] = w
        room.empty_since = None
        self.connections[conn.address] = self.connections.get(conn.address, 0) + 1
        conn.push({"type": "together", "code": room.code, "match_id": room.match_id,
                   "you": w.id, "name": w.name, "driver": room.is_driver(w),
                   "position": room.position, "watchers": room.watcher_list(),
                   "chat": list(room.chat), "limits": {
                       "chat_chars": MAX_CHAT_CHARS, "name_chars": MAX_NAME,
                       "message_bytes": MAX_TOGETHER_BYTES, "chat_per_s": s.chat_per_s,
                       "chat_burst": s.chat_burst}})
        room.broadcast({"type": "watchers", "watchers": room.watcher_list()}, but=w)
        return room, w

    def leave(self, room: SharedReplay, w: Watcher) -> None:
        left = self.connections.get(w.conn.address, 0) - 1
        if left > 0:
            self.connections[w.conn.address] = left
        else:
            self.connections.pop(w.conn.address, None)
        if room.watchers.pop(w.id, None) is None:
            return
        if not room.watchers:
            room.empty_since = self.clock()
        room.broadcast({"type": "watchers", "watchers": room.watcher_list()})

    def handle(self, room: SharedReplay, w: Watcher, raw: str) -> None:
        """Act on one frame of a watcher; every problem is answered ``error`` and changes
        nothing."""
        try:
            if w.rate.take() > 0:
                raise TogetherError("flooding", "Too many messages from this connection; slow "
                                    "down (this one was ignored).")
            message = parse_together_message(raw)
            if isinstance(message, PingMessage):
                w.conn.push({"type": "pong", "id": message.id})
            elif isinstance(message, PositionMessage):
                self._position(room, w, message)
            elif isinstance(message, ChatMessage):
                self._chat(room, w, message)
            elif isinstance(message, NameMessage):
                w.name = message.name.strip()
                room.broadcast({"type": "watchers", "watchers": room.watcher_list()})
            elif isinstance(message, HandDriveMessage):
                self._hand_drive(room, w, message.to)
        except KempsError as err:
            w.conn.push(error_message(err.code, err.message))

    def _require_driver(self, room: SharedReplay, w: Watcher, what: str) -> None:
        if not room.is_driver(w):
            driver = next((x.name for x in room.watchers.values() if room.is_driver(x)), None)
            raise TogetherError("not_driver", f"Only the one who drives {what}"
                                f"{f' ({driver} does)' if driver else ''}; you follow.")

    def _position(self, room: SharedReplay, w: Watcher, m: PositionMessage) -> None:
        self._require_driver(room, w, "moves the replay")
        if m.speed not in SPEEDS:
            raise TogetherError("bad_position", f"A replay plays at "
                                f"{', '.join(f'{x:g}' for x in SPEEDS)} times its speed.")
        if m.idx >= room.events or m.t > room.end + 1.0:
            raise TogetherError("bad_position", "That position is past the match's end; "
                                "nothing changed.")
        room.position = {"idx": m.idx, "t": m.t, "hand": m.hand, "playing": m.playing,
                         "speed": float(m.speed), "by": w.id}
        room.active_at = self.clock()
        room.broadcast({"type": "position", **room.position}, but=w)

    def _chat(self, room: SharedReplay, w: Watcher, m: ChatMessage) -> None:
        if w.chat.take() > 0:
            s = self.settings
            raise TogetherError("chat_flooding", f"Too many chat lines ({s.chat_burst:g} at "
                                f"once, then one every {1 / s.chat_per_s:g} s); this one was not "
                                "sent.")
        line = {"type": "chat", "from": w.id, "name": w.name, "text": m.text.strip(),
                "t": m.t, "at": time.time()}
        room.chat.append(line)
        room.active_at = self.clock()
        room.broadcast(line)

    def _hand_drive(self, room: SharedReplay, w: Watcher, to: int) -> None:
        self._require_driver(room, w, "hands the driving on")
        target = room.watchers.get(to)
        if target is None:
            raise TogetherError("no_such_watcher", f"There is no watcher {to} in this room now.")
        if target is w:
            return
        token = secrets.token_urlsafe(24)
        room.driver_hash = _hash(token)
        target.conn.token_hash = room.driver_hash
        room.active_at = self.clock()
        target.conn.push({"type": "drive", "token": token, "by": w.id})
        room.broadcast({"type": "watchers", "watchers": room.watcher_list()})


def closed_message(code: str) -> str:
    """The sentence that goes with ``together_closed``."""
    return (f"The shared replay {code} closed: nobody drove or talked in it for a long time, or "
            "everyone had left. The replay itself stays; open it and watch together again.")


# == the socket ====================================================================================
def together_of(app: Any) -> Together:
    together: Together = app.state.together
    return together


async def socket(ws: WebSocket, code: str, token: str | None) -> None:
    """``/ws/together/{code}?token=...``: one watcher's connection to a shared replay room."""
    together = together_of(ws.app)
    await ws.accept()
    conn = LimitedConnection(ws.send_text, None, _hash(token) if token else None,
                             client_address(ws))
    try:
        room, w = together.admit(code, conn)
    except LimitError as err:
        with contextlib.suppress(Exception):
            await ws.send_json(error_message(err.code, err.message))
            await ws.close(code=err.close_code)
        return
    client_gone = False

    async def write_then_close() -> None:
        await conn.writer()
        if not client_gone:
            with contextlib.suppress(Exception):
                await ws.close(code=conn.close_code)

    writer = asyncio.create_task(write_then_close())
    try:
        while not conn.closed:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                client_gone = True
                break
            raw = frame.get("text")
            if raw is None:
                conn.push(error_message("bad_message", "Send text frames of JSON, not binary "
                                        "ones."))
                continue
            try:
                together.handle(room, w, raw)
            except Exception:  # never let one frame end the connection or the room
                log.exception("frame failed in shared replay %s", room.code)
                conn.push(error_message("internal", "The server could not handle that "
                                        "message; nothing changed."))
    except Exception:  # noqa: BLE001  (a socket that broke: the watcher is gone)
        client_gone = True
    finally:
        together.leave(room, w)
        conn.close()
        with contextlib.suppress(Exception):
            await writer


class TogetherSockets:
    """ASGI middleware: a WebSocket to ``/ws/together/{code}`` goes to :func:`socket`, past
    FastAPI's routing (as the table's do, :class:`kemps.server.app.TableSockets`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            found = SOCKET_PATH.fullmatch(scope["path"])
            if found is not None:
                ws = WebSocket(scope, receive, send)
                await socket(ws, found.group(1), ws.query_params.get("token"))
                return
        await self.app(scope, receive, send)


# == the routes ====================================================================================
ROUTES["open_together"] = _merge({404: ("no_such_match", "not_found"),
                                  429: ("too_many_together",), 503: ("together_full",)},
                                 _BODY, _PARAMS, _OUTAGE)


class OpenBody(BaseModel):
    """Open a shared replay room: ``{"name": "Ann"}`` (the driver's name in its chat)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"name": "Ann"}]})
    name: Annotated[str, CleanText(MAX_NAME, 1, "name", ("Ann",), visible=True)]


class OpenAnswer(BaseModel):
    """The shared room: its ``code``, the driver's ``token``, the page's address."""

    model_config = ConfigDict(extra="allow")
    code: str
    token: str
    match_id: int
    url: str


router = APIRouter(route_class=StrictJSONRoute)


@router.post("/api/replays/{match_id}/together", response_model=None,
             responses=refusals("open_together") | {200: {
                 "model": OpenAnswer, "description": "The shared room and the driver's token."}})
async def open_together(request: Request, match_id: MatchId, body: OpenBody) -> dict[str, Any]:
    """Open a shared replay room of a finished match: whoever opens it drives (its ``token``,
    on ``WS /ws/together/{code}?token=...``); anyone with the link (``/together/{code}``) follows
    and chats. Kept on this server only (docs/protocol.md, "Replays watched together")."""
    storage = request.app.state.server.storage
    found = await storage.match(match_id) if 0 < match_id < 2**62 else None
    if found is None:
        raise ServerError("no_such_match", f"There is no finished match {match_id}.", 404)
    # The bounds of a position: every event, the withheld pairs' agreements too (a pair's choice
    # may change while the room is open); never told to anyone.
    record = MatchRecord.from_dict(found["record"])
    events = replay(record).events
    end = max([record.end or 0.0] + [e.t for e in events[-1:]])
    room, token = together_of(request.app).open(
        match_id, client_address(request), check_text(body.name.strip(), "name", MAX_NAME),
        len(events), end)
    return {"code": room.code, "token": token, "match_id": match_id,
            "url": f"/together/{room.code}"}


@router.get("/together/{code}", include_in_schema=False)
async def together_page(code: str) -> FileResponse:
    return FileResponse(STATIC / "replay.html")


__all__ = ["ChatMessage", "HandDriveMessage", "NameMessage", "PositionMessage", "SharedReplay",
           "Together", "TogetherError", "TogetherSettings", "TogetherSockets",
           "parse_together_message", "router"]
