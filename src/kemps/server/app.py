"""The FastAPI application: the page, the lobby's JSON API, the WebSocket, the history.

Routes (see docs/protocol.md): ``GET /`` the page; ``GET /history`` the finished matches page;
``GET /api/presets``; ``POST /api/rooms``; ``GET /api/rooms/{code}``; ``POST
/api/rooms/{code}/seats``; ``POST /api/rooms/{code}/bots``; ``DELETE /api/rooms/{code}/seats/{seat}``;
``PUT /api/rooms/{code}/rules``; ``PUT /api/rooms/{code}/spectators``; ``POST
/api/rooms/{code}/start``; ``GET /api/history``; ``GET /api/history/{id}``; ``WS
/ws/{code}?token=...``. The limits on what a client may make the server do are in
:mod:`kemps.server.limits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from kemps.errors import KempsError, Rejected
from kemps.gestures import PALETTE
from kemps.rules import PRESETS, RuleSet, find_preset, preset_names
from kemps.server import desk, limits
from kemps.server.limits import FrameGate, LimitedConnection, LimitError, Limits
from kemps.server.protocol import (
    PROTOCOL_VERSION,
    ActionMessage,
    PingMessage,
    ProtocolError,
    ReadyMessage,
    SyncMessage,
    TableTalkMessage,
    error_message,
    parse_client_message,
)
from kemps.server.room import Room, ServerError, bot_levels, error_for, new_code
from kemps.server.settings import Settings
from kemps.server.storage import Storage, Writer

STATIC = Path(__file__).resolve().parent / "static"
log = logging.getLogger("kemps.server")
RECENTLY_ARCHIVED = 10_000


class Server:
    """The rooms of one server process, its storage and the batched, ordered writer."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.clock = clock
        self.storage = Storage(settings.database_url)
        self.writer = Writer(self.storage)
        self.rooms: dict[str, Room] = {}
        self.limits = Limits(settings)
        # Codes archived by this process, newest last (at most RECENTLY_ARCHIVED): answered
        # room_archived and never reused even before the archived row is committed.
        self.recently_archived: dict[str, None] = {}
        self._sweeper: asyncio.Task[None] | None = None
        # Called with (room, summary) whenever a room's match ends (e.g. the tournament desk).
        self.finish_listeners: list[Callable[[Room, dict[str, Any]], None]] = []

    def _finished(self, room: Room, summary: dict[str, Any]) -> None:
        for listener in self.finish_listeners:
            try:
                listener(room, summary)
            except Exception:  # a listener's failure must not break the table
                log.exception("finish listener failed for room %s", room.code)

    def _adopt(self, room: Room) -> Room:
        room.on_finished = self._finished
        self.rooms[room.code] = room
        self.limits.track(room)
        return room

    async def start(self) -> None:
        """Migrate the database, restore every live room (not archived; at most ``max_rooms``, the
        most recently used), start the writer and the sweep for idle rooms."""
        await self.storage.start()
        surplus = await limits.archive_surplus(self.storage, self.settings.max_rooms, self.clock())
        if surplus:
            log.warning("archived %d rooms beyond max_rooms=%d", surplus, self.settings.max_rooms)
        self.writer.start()
        # Latency: the objects made at start-up (modules, migrations, the app) never need a
        # collection again, and a young generation of 10,000 keeps full collections (which stop
        # every table for tens of milliseconds once thousands of sockets are open) rare.
        gc.collect()
        gc.freeze()
        gc.set_threshold(10_000, 20, 20)
        for row, entries in await self.storage.unfinished_rooms():
            try:
                room = Room.restore(row, entries, self.settings, self.writer, self.clock)
            except KempsError:
                log.exception("could not restore room %s", row.get("code"))
                continue
            self._adopt(room).resume()
        self._sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        """Archive the rooms that have had no player connected for too long."""
        while True:
            await asyncio.sleep(self.limits.sweep_every_s)
            try:
                for room in self.limits.due(list(self.rooms.values())):
                    self.archive(room)
                self.limits.prune()
            except Exception:  # the sweep must go on
                log.exception("idle-room sweep failed")

    def archive(self, room: Room) -> None:
        """Archive a room: out of memory, its connections closed (``room_archived``), its row
        marked archived (kept with its entries and matches; never restored)."""
        self.rooms.pop(room.code, None)
        self.recently_archived[room.code] = None
        while len(self.recently_archived) > RECENTLY_ARCHIVED:
            del self.recently_archived[next(iter(self.recently_archived))]
        self.limits.forget(room)
        room.close()
        self.writer.room(limits.archived_row(room, self.clock()))

    async def stop(self) -> None:
        """Stop timers, write everything queued, close the database."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for room in self.rooms.values():
            room.close()
        await self.writer.stop()
        await self.storage.close()

    async def open_room(self, code: str) -> Room:
        """The live room with that join code.

        Raises:
            ServerError: ``room_archived`` (410) for a room archived as idle, ``no_such_room``
                (404).
        """
        room = self.rooms.get(code.strip().upper())
        if room is not None:
            return room
        key = code.strip().upper()
        if key in self.recently_archived or (
                len(key) <= 16 and await limits.room_state(self.storage, key) == "archived"):
            raise ServerError("room_archived", limits.archived_message(key), 410)
        raise ServerError("no_such_room", f"There is no room {code!r}.", 404)

    async def create_room(self, rules: RuleSet, address: str | None = None) -> Room:
        """A new room with a fresh join code (never one a stored room has had).

        ``address`` is the client's, for the per-address limit (None: not limited per address).

        Raises:
            LimitError: ``rooms_full``, ``too_many_rooms`` (:meth:`Limits.reserve_room`).
        """
        bucket = self.limits.reserve_room(address, len(self.rooms))
        made = False
        try:
            code = new_code()
            while code in self.rooms or code in self.recently_archived or \
                    await limits.room_state(self.storage, code) is not None:
                code = new_code()
            room = self._adopt(Room(code, rules, self.settings, self.writer, self.clock))
            made = True
            return room
        finally:
            self.limits.made(bucket, made)


class RulesBody(BaseModel):
    """A preset and option changes: ``{"preset": "kent", "pairs": 3, "options": {...}}``."""

    model_config = ConfigDict(extra="forbid")
    preset: str = "pagat"
    pairs: int | None = Field(default=None, ge=2, le=6)
    options: dict[str, Any] = Field(default_factory=dict)

    def rule_set(self) -> RuleSet:
        rules = find_preset(self.preset)
        changes = dict(self.options)
        changes.pop("name", None)  # the rule set's name follows from the preset and changes
        if self.pairs is not None:
            changes["pairs"] = self.pairs
        if changes:
            name = rules.name if set(changes) == {"pairs"} else "custom"
            rules = rules.replace(name=name, **changes)
        return rules


class CreateBody(RulesBody):
    """Create a room and sit at seat 0 as its host: ``{"name": "Alice", "preset": "pagat"}``."""

    name: str = Field(min_length=1, max_length=40)


class SeatBody(BaseModel):
    """Take a seat: ``{"seat": 2, "name": "Cara"}``."""

    model_config = ConfigDict(extra="forbid")
    seat: int
    name: str = Field(min_length=1, max_length=40)


class SpectatorsBody(BaseModel):
    """Let spectators watch or not: ``{"allowed": false}``."""

    model_config = ConfigDict(extra="forbid")
    allowed: bool


class BotBody(BaseModel):
    """Seat a bot, or fill every open seat: ``{"seat": 1, "level": "simple"}`` /
    ``{"fill": true}``."""

    model_config = ConfigDict(extra="forbid")
    seat: int | None = None
    level: str = "simple"
    fill: bool = False


def client_address(request: Request | WebSocket) -> str:
    """The client's address (what the per-address limits count; behind a proxy on this machine,
    uvicorn takes it from ``X-Forwarded-For``)."""
    return request.client.host if request.client is not None else ""


def _token(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


def create_app(settings: Settings | None = None, clock: Callable[[], float] = time.time
               ) -> FastAPI:
    """The ASGI app. ``settings`` default to :meth:`Settings.from_env`."""
    server = Server(settings or Settings.from_env(), clock)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await server.start()
        try:
            yield
        finally:
            await server.stop()

    app = FastAPI(title="kemps", version=str(PROTOCOL_VERSION), lifespan=lifespan)
    app.state.server = server

    @app.exception_handler(KempsError)
    async def kemps_error(_: Request, err: KempsError) -> JSONResponse:
        status = err.status if isinstance(err, ServerError) else 400
        headers = None
        if isinstance(err, LimitError) and err.retry_after_s is not None:
            headers = {"Retry-After": str(max(1, math.ceil(err.retry_after_s)))}
        return JSONResponse(err.to_dict(), status_code=status, headers=headers)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(desk.router)  # the scorekeeper and the tournament desk (/score, /tournament)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/room/{code}", include_in_schema=False)
    async def room_page(code: str) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/history", include_in_schema=False)
    async def history_page() -> FileResponse:
        return FileResponse(STATIC / "history.html")

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        """Every preset with its options and aliases, the gesture palette and the bot levels."""
        return {"presets": {n: {"aliases": list(a), "rules": PRESETS[n].to_dict()}
                            for n, a in preset_names().items()},
                "gestures": {g.name: {"kind": g.kind, "label": g.label}
                             for g in PALETTE.values()},
                "bot_levels": list(bot_levels()), "protocol": PROTOCOL_VERSION}

    @app.post("/api/rooms", status_code=201)
    async def create_room(body: CreateBody, request: Request) -> dict[str, Any]:
        """Create a room; the creator takes seat 0 and hosts. Returns code, seat and token.
        Refused ``too_many_rooms`` (429) or ``rooms_full`` (503), with ``Retry-After``."""
        rules = body.rule_set()  # a bad rule set is refused before it costs a room
        room = await server.create_room(rules, client_address(request))
        token = room.take_seat(0, body.name)
        room.host_seat = 0
        return {"code": room.code, "seat": 0, "token": token, "room": room.public()}

    @app.get("/api/rooms/{code}")
    async def get_room(code: str) -> dict[str, Any]:
        return (await server.open_room(code)).public()

    @app.post("/api/rooms/{code}/seats")
    async def take_seat(code: str, body: SeatBody) -> dict[str, Any]:
        """Sit down; the token returned is the only way to act for that seat."""
        room = await server.open_room(code)
        token = room.take_seat(body.seat, body.name)
        return {"code": room.code, "seat": body.seat, "token": token, "room": room.public()}

    @app.post("/api/rooms/{code}/bots")
    async def add_bot(code: str, body: BotBody,
                      authorization: str | None = Header(default=None)) -> dict[str, Any]:
        room = await server.open_room(code)
        room.require_host(_token(authorization))
        if body.fill:
            room.fill_with_bots(body.level)
        elif body.seat is None:
            raise ServerError("bad_request", "Name a seat, or ask to fill every open seat.")
        else:
            room.add_bot(body.seat, body.level)
        return room.public()

    @app.delete("/api/rooms/{code}/seats/{seat}")
    async def clear_seat(code: str, seat: int,
                         authorization: str | None = Header(default=None)) -> dict[str, Any]:
        room = await server.open_room(code)
        who = room.require_seat(_token(authorization))
        if who != room.host_seat and who != seat:
            raise ServerError("not_host", "Only the host may clear someone else's seat.", 403)
        room.clear_seat(seat)
        return room.public()

    @app.put("/api/rooms/{code}/rules")
    async def set_rules(code: str, body: RulesBody,
                        authorization: str | None = Header(default=None)) -> dict[str, Any]:
        room = await server.open_room(code)
        room.require_host(_token(authorization))
        room.set_rules(body.rule_set())
        return room.public()

    @app.put("/api/rooms/{code}/spectators")
    async def set_spectators(code: str, body: SpectatorsBody,
                             authorization: str | None = Header(default=None)) -> dict[str, Any]:
        """(Host) let spectators watch or not; turning them off closes those watching."""
        room = await server.open_room(code)
        room.require_host(_token(authorization))
        room.set_spectators(body.allowed)
        if not body.allowed and server.limits.end_spectators(room):
            room.broadcast_room()
        return room.public()

    @app.post("/api/rooms/{code}/start")
    async def start(code: str, authorization: str | None = Header(default=None)
                    ) -> dict[str, Any]:
        """Start the match, or a rematch with the same pairs (any seated player may ask for a
        rematch once the match is over)."""
        room = await server.open_room(code)
        seat = room.require_seat(_token(authorization))
        if room.status == "lobby" and seat != room.host_seat:
            raise ServerError("not_host", "Only the host starts the match.", 403)
        room.start()
        return room.public()

    @app.get("/api/history")
    async def history(limit: int = 100, room: str | None = None) -> dict[str, Any]:
        """Finished matches, newest first (``room``: of that room only, archived or not)."""
        limit = max(1, min(limit, 500))
        if room is not None:
            return {"matches": await limits.room_history(server.storage, room.strip().upper()[:16],
                                                         limit)}
        return {"matches": await server.storage.history(limit)}

    @app.get("/api/history/{match_id}")
    async def history_match(match_id: int) -> dict[str, Any]:
        """One finished match with its record. The pairs' signal agreements are left out of the
        public record (the rules never reveal them, and a pair may keep a signal for the
        rematch); without them the record still replays to the same hands and letters."""
        found = await server.storage.match(match_id) if 0 < match_id < 2**62 else None
        if found is None:
            raise ServerError("no_such_match", f"There is no finished match {match_id}.", 404)
        record = dict(found["record"])
        record["actions"] = [a for a in record.get("actions", [])
                             if a.get("type") != "agree_signals"]
        found["record"] = record
        found["signals_withheld"] = True
        return found

    @app.websocket("/ws/{code}")
    async def socket(ws: WebSocket, code: str, token: str | None = None) -> None:
        await ws.accept()
        try:
            room = await server.open_room(code)
        except ServerError as err:
            await ws.send_json(error_message(err.code, err.message))
            await ws.close(code=limits.CLOSE_ARCHIVED if err.code == "room_archived"
                           else limits.CLOSE_NO_ROOM)
            return
        # From here to room.attach nothing awaits: the room cannot be archived, nor its seats or
        # its spectators change, between the checks and the connection joining.
        seat = room.seat_of(token)
        conn = LimitedConnection(ws.send_text, seat, room.seats[seat].token_hash
                                 if seat is not None else None, client_address(ws))
        try:
            server.limits.admit(room, conn)  # may close the seat's oldest connection
        except LimitError as err:
            await ws.send_json(error_message(err.code, err.message))
            await ws.close(code=err.close_code)
            return
        if token and seat is None:
            conn.push(error_message("not_seated", "That token holds no seat in this room; you "
                                    "are watching as a spectator."))
        client_gone = False

        async def write_then_close() -> None:
            await conn.writer()
            if not client_gone:  # the server ended it (a limit, too slow, archived): say so
                with contextlib.suppress(Exception):
                    await ws.close(code=conn.close_code)

        writer = asyncio.create_task(write_then_close())
        room.attach(conn)
        server.limits.joined(room, conn)
        limit = server.limits.gate(room, conn)
        try:
            while not conn.closed:
                frame = await ws.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                raw = frame.get("text")
                if raw is None:
                    conn.push(error_message("bad_message", "Send text frames of JSON, not "
                                            "binary ones."))
                    continue
                try:
                    handle_frame(room, conn, limit, raw)
                except Exception:  # never let one frame end the connection or the table
                    log.exception("frame failed in room %s", room.code)
                    conn.push(error_message("internal", "The server could not handle that "
                                            "message; nothing changed."))
        except WebSocketDisconnect:
            pass
        finally:
            client_gone = True
            room.detach(conn)
            server.limits.left(room, conn)
            conn.close()
            with contextlib.suppress(Exception):
                await writer

    return app


def handle_frame(room: Room, conn: LimitedConnection, limit: FrameGate, raw: str) -> None:
    """Validate and act on one client frame; every problem is answered, nothing else changes."""
    if not limit.allow():
        conn.push(error_message("flooding", "Too many messages from your seat (all its "
                                "connections together; spectators: from your address); slow "
                                "down (this one was ignored)."))
        return
    ref: int | None = None
    try:
        message = parse_client_message(raw)
        ref = getattr(message, "id", None)
        if isinstance(message, PingMessage):
            conn.push({"type": "pong", "id": message.id, "now": room.now()})
        elif isinstance(message, SyncMessage):
            conn.push(room.state_for(conn.seat))
        elif conn.seat is None:
            raise ProtocolError("not_seated", "Spectators watch; take a seat to play.")
        elif isinstance(message, ActionMessage):
            room.handle_action(conn.seat, message.action)
            if message.id is not None:
                conn.push({"type": "ok", "id": message.id})
        elif isinstance(message, ReadyMessage):
            room.mark_ready(conn.seat)
        elif isinstance(message, TableTalkMessage):
            if conn.seat != room.host_seat:
                raise ProtocolError("not_host", "Only the host rules on table talk.")
            room.rule_table_talk(message.pair)
    except Rejected as err:
        conn.push(error_for(err, ref))
    except KempsError as err:
        conn.push(error_for(err, ref))
