"""The FastAPI application: the page, the lobby's JSON API, the WebSocket, the history.

Routes (see docs/protocol.md): ``GET /`` the page; ``GET /history`` the finished matches page;
``GET /api/presets``; ``POST /api/rooms``; ``GET /api/rooms/{code}``; ``POST
/api/rooms/{code}/seats``; ``POST /api/rooms/{code}/bots``; ``DELETE /api/rooms/{code}/seats/{seat}``;
``PUT /api/rooms/{code}/rules``; ``POST /api/rooms/{code}/start``; ``GET /api/history``; ``GET
/api/history/{id}``; ``WS /ws/{code}?token=...``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
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
from kemps.server import desk
from kemps.server.protocol import (
    PROTOCOL_VERSION,
    ActionMessage,
    PingMessage,
    ProtocolError,
    RateLimit,
    ReadyMessage,
    SyncMessage,
    TableTalkMessage,
    error_message,
    parse_client_message,
)
from kemps.server.room import (
    Connection,
    Room,
    ServerError,
    bot_levels,
    bot_speeds,
    error_for,
    new_code,
)
from kemps.server.settings import Settings
from kemps.server.storage import Storage, Writer

STATIC = Path(__file__).resolve().parent / "static"
log = logging.getLogger("kemps.server")


class Server:
    """The rooms of one server process, its storage and the batched, ordered writer."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.clock = clock
        self.storage = Storage(settings.database_url)
        self.writer = Writer(self.storage)
        self.rooms: dict[str, Room] = {}
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
        return room

    async def start(self) -> None:
        """Migrate the database, restore every unfinished room, start the writer."""
        await self.storage.start()
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

    async def stop(self) -> None:
        """Stop timers, write everything queued, close the database."""
        for room in self.rooms.values():
            room.close()
        await self.writer.stop()
        await self.storage.close()

    def room(self, code: str) -> Room:
        """The room with that join code. Raises ServerError ``no_such_room`` (404)."""
        room = self.rooms.get(code.strip().upper())
        if room is None:
            raise ServerError("no_such_room", f"There is no room {code!r}.", 404)
        return room

    def create_room(self, rules: RuleSet) -> Room:
        """A new room with a fresh join code."""
        code = new_code()
        while code in self.rooms:
            code = new_code()
        return self._adopt(Room(code, rules, self.settings, self.writer, self.clock))


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


class BotBody(BaseModel):
    """Seat a bot, or fill every open seat: ``{"seat": 1, "level": "simple"}`` /
    ``{"fill": true}``; ``speed`` (``relaxed``, ``club``, ``sharp``) sets the room's bot speed
    too."""

    model_config = ConfigDict(extra="forbid")
    seat: int | None = None
    level: str = "simple"
    fill: bool = False
    speed: str | None = Field(default=None, max_length=16)


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
        return JSONResponse(err.to_dict(), status_code=status)

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
                "bot_levels": list(bot_levels()), "bot_speeds": list(bot_speeds()),
                "protocol": PROTOCOL_VERSION}

    @app.post("/api/rooms", status_code=201)
    async def create_room(body: CreateBody) -> dict[str, Any]:
        """Create a room; the creator takes seat 0 and hosts. Returns code, seat and token."""
        room = server.create_room(body.rule_set())
        token = room.take_seat(0, body.name)
        room.host_seat = 0
        return {"code": room.code, "seat": 0, "token": token, "room": room.public()}

    @app.get("/api/rooms/{code}")
    async def get_room(code: str) -> dict[str, Any]:
        return server.room(code).public()

    @app.post("/api/rooms/{code}/seats")
    async def take_seat(code: str, body: SeatBody) -> dict[str, Any]:
        """Sit down; the token returned is the only way to act for that seat."""
        room = server.room(code)
        token = room.take_seat(body.seat, body.name)
        return {"code": room.code, "seat": body.seat, "token": token, "room": room.public()}

    @app.post("/api/rooms/{code}/bots")
    async def add_bot(code: str, body: BotBody,
                      authorization: str | None = Header(default=None)) -> dict[str, Any]:
        room = server.room(code)
        room.require_host(_token(authorization))
        if body.speed is not None:
            room.set_bot_speed(body.speed)
        if body.fill:
            room.fill_with_bots(body.level)
        elif body.seat is None:
            if body.speed is None:
                raise ServerError("bad_request", "Name a seat, or ask to fill every open seat.")
        else:
            room.add_bot(body.seat, body.level)
        return room.public()

    @app.delete("/api/rooms/{code}/seats/{seat}")
    async def clear_seat(code: str, seat: int,
                         authorization: str | None = Header(default=None)) -> dict[str, Any]:
        room = server.room(code)
        who = room.require_seat(_token(authorization))
        if who != room.host_seat and who != seat:
            raise ServerError("not_host", "Only the host may clear someone else's seat.", 403)
        room.clear_seat(seat)
        return room.public()

    @app.put("/api/rooms/{code}/rules")
    async def set_rules(code: str, body: RulesBody,
                        authorization: str | None = Header(default=None)) -> dict[str, Any]:
        room = server.room(code)
        room.require_host(_token(authorization))
        room.set_rules(body.rule_set())
        return room.public()

    @app.post("/api/rooms/{code}/start")
    async def start(code: str, authorization: str | None = Header(default=None)
                    ) -> dict[str, Any]:
        """Start the match, or a rematch with the same pairs (any seated player may ask for a
        rematch once the match is over)."""
        room = server.room(code)
        seat = room.require_seat(_token(authorization))
        if room.status == "lobby" and seat != room.host_seat:
            raise ServerError("not_host", "Only the host starts the match.", 403)
        room.start()
        return room.public()

    @app.get("/api/history")
    async def history(limit: int = 100) -> dict[str, Any]:
        """Finished matches, newest first."""
        return {"matches": await server.storage.history(max(1, min(limit, 500)))}

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
            room = server.room(code)
        except ServerError as err:
            await ws.send_json(error_message(err.code, err.message))
            await ws.close(code=4404)
            return
        seat = room.seat_of(token)
        if token and seat is None:
            await ws.send_json(error_message("not_seated", "That token holds no seat in this "
                                             "room; you are watching as a spectator."))
        conn = Connection(ws.send_text, seat, room.seats[seat].token_hash if seat is not None
                          else None)
        writer = asyncio.create_task(conn.writer())
        room.attach(conn)
        limit = RateLimit(server.settings.rate_per_s, server.settings.rate_burst)
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
            room.detach(conn)
            conn.close()
            with contextlib.suppress(Exception):
                await writer

    return app


def handle_frame(room: Room, conn: Connection, limit: RateLimit, raw: str) -> None:
    """Validate and act on one client frame; every problem is answered, nothing else changes."""
    if not limit.allow():
        conn.push(error_message("flooding", "Too many messages; slow down (this one was "
                                "ignored)."))
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
