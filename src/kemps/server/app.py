"""The FastAPI application: the page, the lobby's JSON API, the WebSocket, the history.

Routes (see docs/protocol.md): ``GET /`` the page; ``GET /history`` the finished matches page;
``GET /api/presets``; ``GET /api/protocol.json`` (the WebSocket messages as JSON Schema);
``POST /api/rooms``; ``GET /api/rooms/{code}``; ``POST
/api/rooms/{code}/seats``; ``POST /api/rooms/{code}/bots``; ``DELETE /api/rooms/{code}/seats/{seat}``;
``PUT /api/rooms/{code}/rules``; ``PUT /api/rooms/{code}/spectators``; ``POST
/api/rooms/{code}/start``; ``GET /api/history``; ``GET /api/history/{id}``; ``WS
/ws/{code}?token=...``. Bodies are the models of :mod:`kemps.server.bodies`; refusals the one body
of :mod:`kemps.server.api`; ``/openapi.json`` and ``/docs`` describe them all. The limits on what a
client may make the server do are in :mod:`kemps.server.limits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Annotated, Any, Final

from fastapi import FastAPI, Header, Path, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from kemps.errors import KempsError
from kemps.gestures import PALETTE
from kemps.rules import MAX_PAIRS, PRESET_NOTES, PRESETS, RuleSet, option_schema, preset_names
from kemps.server import desk, limits, replays
from kemps.server.answers import (
    HealthAnswer,
    HistoryAnswer,
    JoinedAnswer,
    MatchAnswer,
    PresetsAnswer,
    RoomAnswer,
    answer,
)
from kemps.server.api import SafeJSONResponse, errors, install_error_handlers
from kemps.server.bodies import (
    ONLINE_DEFAULTS,
    BotBody,
    CreateBody,
    RulesBody,
    SeatBody,
    SpectatorsBody,
)
from kemps.server.errors import STORAGE_WAIT_MESSAGES, ServerError, error_for

if TYPE_CHECKING:
    from kemps.server.cluster import Cluster
from kemps.server.limits import FrameGate, LimitedConnection, LimitError, Limits
from kemps.server.lobby import bot_levels, bot_speeds, new_code
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
    protocol_json_schema,
)
from kemps.server.room import Room
from kemps.server.settings import Settings
from kemps.server.storage import Storage, Writer

STATIC = FilePath(__file__).resolve().parent / "static"
log = logging.getLogger("kemps.server")
CLOCK_EVERY_S = 1.0  # how often a playing table's clock is stored (a kill loses at most this)
LOBBY_COMMIT_WAIT_S = 10.0  # a lobby request waits this long for its change to be committed
STOP_WRITE_S = 5.0  # at shutdown, how long the writer may take for what is queued
RECENTLY_ARCHIVED = 10_000


class Server:
    """The rooms of one server process, its storage and the group-committing, ordered writer.

    A storage fault pauses every table (the writer's ``on_health``) until storage commits again.
    """

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.clock = clock
        self.storage = Storage(settings.database_url)
        self.writer = Writer(self.storage, on_health=self._storage_health,
                             on_fenced=self._fenced)
        self.rooms: dict[str, Room] = {}
        self._clock_task: asyncio.Task[None] | None = None
        self.limits = Limits(settings)
        # Codes archived by this process, newest last (at most RECENTLY_ARCHIVED): answered
        # room_archived and never reused even before the archived row is committed.
        self.recently_archived: dict[str, None] = {}
        self._sweeper: asyncio.Task[None] | None = None
        # Called with (room, summary) whenever a room's match ends (e.g. the tournament desk).
        self.finish_listeners: list[Callable[[Room, dict[str, Any]], None]] = []
        # Many nodes (KEMPS_REDIS_URL): leases, takeovers and forwarding (kemps.server.cluster).
        self.cluster: Cluster | None = None
        if settings.redis_url:
            from kemps.server.cluster import Cluster

            self.cluster = Cluster(self)

    def _fenced(self, code: str) -> None:
        """Storage refused a room's writes: a newer owner has it (many nodes)."""
        if self.cluster is not None:
            self.cluster.drop(code)

    def _finished(self, room: Room, summary: dict[str, Any]) -> None:
        for listener in self.finish_listeners:
            try:
                listener(room, summary)
            except Exception:  # a listener's failure must not break the table
                log.exception("finish listener failed for room %s", room.code)

    def _storage_health(self, healthy: bool, since: float) -> None:
        for room in self.rooms.values():
            if healthy:
                room.unpause()
            else:
                room.pause(since)

    async def _store_clocks(self) -> None:
        """Every CLOCK_EVERY_S, store where each playing table's clock stands."""
        while True:
            await asyncio.sleep(CLOCK_EVERY_S)
            if not self.writer.healthy:
                continue
            for room in self.rooms.values():
                if room.status == "playing" and not room.paused:
                    self.writer.clock(room.code, room.now())

    async def durable(self) -> None:
        """Wait until every change queued so far is committed (a lobby request answers after
        this). Raises ServerError ``storage_unavailable`` (503) after LOBBY_COMMIT_WAIT_S; the
        change stays queued and is written when storage returns."""
        if not await self.writer.sync(LOBBY_COMMIT_WAIT_S):
            raise ServerError("storage_unavailable", "The server could not store that change "
                              "yet; it is kept and written when storage is back.", 503)

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
        if self.cluster is not None:  # many nodes: rooms are taken over on their next contact
            await self.cluster.start()
            self._clock_task = asyncio.create_task(self._store_clocks())
            self._sweeper = asyncio.create_task(self._sweep())
            return
        for row, entries in await self.storage.unfinished_rooms():
            try:
                room = Room.restore(row, entries, self.settings, self.writer, self.clock)
            except Exception as err:  # never deleted: listed as broken, with its error
                log.exception("could not restore room %s", row.get("code"))
                message = err.message if isinstance(err, KempsError) else \
                    f"{type(err).__name__}: {err}"
                self._adopt(Room.broken(row, message, self.settings, self.writer, self.clock))
                continue
            self._adopt(room).resume()
        gc.collect()
        gc.freeze()  # the restored rooms' tables and records too: long-lived, never garbage
        self._clock_task = asyncio.create_task(self._store_clocks())
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
        """Stop timers and the idle-room sweep, store every table's clock, write everything
        queued (at most STOP_WRITE_S seconds: what storage could not take was never
        acknowledged), close the database."""
        for task in (self._clock_task, self._sweeper):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for room in self.rooms.values():
            room.close()
            if room.status == "playing" and not room.paused:
                self.writer.clock(room.code, room.now())
        await self.writer.stop(STOP_WRITE_S)
        if self.cluster is not None:  # written: now the leases may go
            await self.cluster.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.storage.close(), STOP_WRITE_S)

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
        if self.cluster is not None and len(key) <= 16 and key not in self.recently_archived:
            return await self.cluster.take(key)  # nobody owns it: this node takes it over
        if key in self.recently_archived or (
                len(key) <= 16 and await limits.room_state(self.storage, key) == "archived"):
            raise ServerError("room_archived", limits.archived_message(key), 410)
        if len(key) > 16 or not key.isalnum():  # never echo a stranger's long or odd text
            raise ServerError("no_such_room", "There is no room with that code.", 404)
        raise ServerError("no_such_room", f"There is no room {key}.", 404)

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
            room = Room(code, rules, self.settings, self.writer, self.clock)
            if self.cluster is not None:
                await self.cluster.own_new(room)
            self._adopt(room)
            made = True
            return room
        finally:
            self.limits.made(bucket, made)


API_DESCRIPTION = """The table server's JSON API (docs/protocol.md): rooms, seats, bots, rules, the
finished matches, and the scorekeeper's and tournament desk's sheets and tournaments under
`/api/desk`. Every refusal is `{"code", "message"}` with the status it names; the WebSocket
protocol's messages are described as JSON Schema at `/api/protocol.json`."""
RoomCode = Annotated[str, Path(min_length=1, max_length=16, description="the room's join code",
                               examples=["K7QMX"])]
Authorization = Annotated[str | None, Header(max_length=200, description="`Bearer TOKEN`: the "
                                             "token of a seat (host routes: the host's)")]
# Links for the stateful phase of API testing: from a seat's token to what it may do.
JOINED = {name: {"operationId": name, "parameters": {
    "code": "$response.body#/code",
    **({"header.authorization": "Bearer {$response.body#/token}"} if auth else {})}}
    for name, auth in (("get_room", False), ("take_seat", False), ("add_bot", True),
                       ("set_rules", True), ("start", True))}
JOINED["clear_seat"] = {"operationId": "clear_seat", "parameters": {
    "code": "$response.body#/code", "seat": "$response.body#/seat",
    "header.authorization": "Bearer {$response.body#/token}"}}


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

    # /docs and /redoc from files shipped in a package (fastapi-offline), not from a CDN: the
    # API's documentation works on a machine with no internet.
    app = FastAPIOffline(title="kemps", version=str(PROTOCOL_VERSION), lifespan=lifespan,
                         description=API_DESCRIPTION, default_response_class=SafeJSONResponse,
                         generate_unique_id_function=lambda route: route.name)
    app.state.server = server
    install_error_handlers(app)
    if server.cluster is not None:
        from kemps.server.cluster import ForwardMiddleware

        app.add_middleware(ForwardMiddleware, cluster=server.cluster)
    app.add_middleware(limits.BodyLimit)  # the outermost: no body is read past the limit

    @app.exception_handler(KempsError)
    async def kemps_error(_: Request, err: KempsError) -> JSONResponse:
        status = err.status if isinstance(err, ServerError) else 400
        headers = None
        if isinstance(err, LimitError) and err.retry_after_s is not None:
            headers = {"Retry-After": str(max(1, math.ceil(err.retry_after_s)))}
        return SafeJSONResponse(err.to_dict(), status_code=status, headers=headers)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(desk.router)  # the scorekeeper and the tournament desk (/score, /tournament)
    app.include_router(replays.router)  # replays of finished matches (/replay/{id})

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/room/{code}", include_in_schema=False)
    async def room_page(code: str) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/history", include_in_schema=False)
    async def history_page() -> FileResponse:
        return FileResponse(STATIC / "history.html")

    @app.get("/how-to-play", include_in_schema=False)
    async def how_to_play_page() -> FileResponse:
        return FileResponse(STATIC / "how-to-play.html")

    @app.get("/api/presets", response_model=None, responses=errors() | answer(PresetsAnswer))
    async def presets() -> dict[str, Any]:
        """Every preset with its options, aliases and a one-line note; the option schema (kind,
        choices or limits, group, description, seed: :func:`kemps.rules.option_schema`); the
        gesture palette and the bot levels; ``online_defaults``, what a room plays on top of its
        preset unless its options say otherwise (:data:`kemps.server.bodies.ONLINE_DEFAULTS`)."""
        return {"presets": {n: {"aliases": list(a), "rules": PRESETS[n].to_dict(),
                                "note": PRESET_NOTES.get(n, "")}
                            for n, a in preset_names().items()},
                "options": option_schema(), "max_pairs": MAX_PAIRS,
                "gestures": {g.name: {"kind": g.kind, "label": g.label}
                             for g in PALETTE.values()},
                "bot_levels": list(bot_levels()), "bot_speeds": list(bot_speeds()),
                "protocol": PROTOCOL_VERSION, "online_defaults": dict(ONLINE_DEFAULTS)}

    @app.get("/api/health", response_model=None, responses=errors() | answer(HealthAnswer) | {
        503: {"model": HealthAnswer, "description": "This server cannot take play now (its "
              "storage, or with many nodes Redis, does not answer): the same body, with the "
              "status that says why."}})
    async def health() -> JSONResponse:
        """Whether this server can take play now, and what it holds; for a load balancer's
        health check (200 or 503) and for operators. With many nodes, the cluster's nodes and
        totals as their heartbeats in Redis give them (docs/scale.md)."""
        body: dict[str, Any] = {
            "status": "ok" if server.writer.healthy else "storage_unavailable",
            "rooms": len(server.rooms),
            "players": sum(len(r.conns) for r in server.rooms.values()),
            "node": None, "draining": False, "cluster": None}
        if server.cluster is not None:
            body["node"] = server.cluster.nodes.id
            body["draining"] = server.cluster.nodes.draining
            body["cluster"] = await server.cluster.summary()
            if body["cluster"] is None and body["status"] == "ok":
                body["status"] = "redis_unavailable"
        return SafeJSONResponse(body, status_code=200 if body["status"] == "ok" else 503)

    @app.get("/api/protocol.json", responses=errors())
    async def protocol_schema() -> dict[str, Any]:
        """The WebSocket protocol's messages as JSON Schema (``client``: what a client may send,
        validated by the server with these very models; ``server``: what it answers)."""
        return protocol_json_schema()

    @app.post("/api/rooms", status_code=201, response_model=None,
              responses=errors(400, 409, 429, 503) | answer(JoinedAnswer, 201, links=JOINED))
    async def create_room(body: CreateBody, request: Request) -> dict[str, Any]:
        """Create a room; the creator takes seat 0 and hosts. Returns code, seat and token.
        Refused ``too_many_rooms`` (429) or ``rooms_full`` (503), with ``Retry-After``."""
        problem = server.writer.refusal()
        if problem is not None:
            raise ServerError(problem, STORAGE_WAIT_MESSAGES[problem], 503)
        rules = body.rule_set()  # a bad rule set is refused before it costs a room
        room = await server.create_room(rules, client_address(request))
        token = room.take_seat(0, body.name)
        room.host_seat = 0
        await server.durable()
        return {"code": room.code, "seat": 0, "token": token, "room": room.public()}

    @app.get("/api/rooms/{code}", response_model=None,
             responses=errors(404) | answer(RoomAnswer))
    async def get_room(code: RoomCode) -> dict[str, Any]:
        """The room's public state (seats, rules, status)."""
        return (await server.open_room(code)).public()

    @app.post("/api/rooms/{code}/seats", response_model=None,
              responses=errors(400, 404, 409) | answer(JoinedAnswer, links=JOINED))
    async def take_seat(code: RoomCode, body: SeatBody) -> dict[str, Any]:
        """Sit down; the token returned is the only way to act for that seat."""
        room = await server.open_room(code)
        token = room.take_seat(body.seat, body.name)
        await server.durable()
        return {"code": room.code, "seat": body.seat, "token": token, "room": room.public()}

    @app.post("/api/rooms/{code}/bots", response_model=None,
              responses=errors(400, 403, 404, 409) | answer(RoomAnswer))
    async def add_bot(code: RoomCode, body: BotBody, authorization: Authorization = None
                      ) -> dict[str, Any]:
        """(Host) seat a bot at ``seat``, or at every open seat (``fill``); the room. During a
        match, a bot plays a person's ``seat`` at once (the host's "replace": it hands the seat
        back when the person acts or reconnects); 409 ``not_a_person`` if a bot plays it."""
        room = await server.open_room(code)
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
        await server.durable()
        return room.public()

    @app.delete("/api/rooms/{code}/seats/{seat}", response_model=None,
                responses=errors(400, 403, 404, 409) | answer(RoomAnswer))
    async def clear_seat(code: RoomCode, seat: Annotated[int, Path(ge=0, le=2 * MAX_PAIRS - 1)],
                         authorization: Authorization = None) -> dict[str, Any]:
        """(Host, or the seat itself) clear a seat; the room. During a match the person gives
        the seat up for good: a bot plays it to the end and their connections watch."""
        room = await server.open_room(code)
        who = room.require_seat(_token(authorization))
        if who != room.host_seat and who != seat:
            raise ServerError("not_host", "Only the host may clear someone else's seat.", 403)
        room.clear_seat(seat)
        await server.durable()
        return room.public()

    @app.put("/api/rooms/{code}/rules", response_model=None,
             responses=errors(400, 403, 404, 409) | answer(RoomAnswer))
    async def set_rules(code: RoomCode, body: RulesBody, authorization: Authorization = None
                        ) -> dict[str, Any]:
        """(Host, in the lobby) change the preset and options; the room."""
        room = await server.open_room(code)
        room.require_host(_token(authorization))
        room.set_rules(body.rule_set())
        await server.durable()
        return room.public()

    @app.put("/api/rooms/{code}/spectators", response_model=None,
             responses=errors(400, 403, 404, 410) | answer(RoomAnswer))
    async def set_spectators(code: RoomCode, body: SpectatorsBody,
                             authorization: Authorization = None) -> dict[str, Any]:
        """(Host) let spectators watch or not; turning them off closes those watching."""
        room = await server.open_room(code)
        room.require_host(_token(authorization))
        room.set_spectators(body.allowed)
        if not body.allowed and server.limits.end_spectators(room):
            room.broadcast_room()
        await server.durable()
        return room.public()

    @app.post("/api/rooms/{code}/start", response_model=None,
              responses=errors(400, 403, 404, 409) | answer(RoomAnswer))
    async def start(code: RoomCode, authorization: Authorization = None) -> dict[str, Any]:
        """(Host) start the match, or a rematch with the same pairs; once the host has left (no
        connection), any seated player may start the rematch."""
        room = await server.open_room(code)
        seat = room.require_seat(_token(authorization))
        host_here = any(c.seat == room.host_seat for c in room.conns)
        if seat != room.host_seat and (room.status == "lobby" or host_here):
            raise ServerError("not_host", "Only the host starts the match (anyone seated may "
                              "start a rematch once the host has left).", 403)
        room.start()
        await server.durable()
        return room.public()

    @app.get("/api/history", response_model=None, responses=errors() | answer(
        HistoryAnswer, links={"history_match": {"operationId": "history_match", "parameters": {
            "match_id": "$response.body#/matches/0/id"}}}))
    async def history(limit: Annotated[int, Query(description="at most this many (1 to 500; "
                                                  "others are brought into that range)")] = 100,
                      room: Annotated[str | None, Query(max_length=16, description="only this "
                                                        "room's (archived or not)")] = None,
                      ) -> dict[str, Any]:
        """Finished matches, newest first (``room``: of that room only, archived or not)."""
        limit = max(1, min(limit, 500))
        if room is not None:
            return {"matches": await limits.room_history(server.storage, room.strip().upper(),
                                                         limit)}
        return {"matches": await server.storage.history(limit)}

    @app.get("/api/history/{match_id}", response_model=None,
             responses=errors(404) | answer(MatchAnswer))
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

    async def socket(ws: WebSocket, code: str, token: str | None) -> None:
        """``/ws/{code}?token=...``: one client's connection to a room's table (TableSockets)."""
        cluster = server.cluster
        if cluster is not None and "x-kemps-forwarded" not in ws.headers:
            owner = await cluster.locate(code)
            if owner is not None:  # another node owns the table: carry the frames there
                await ws.accept()
                with contextlib.suppress(Exception):
                    await cluster.forward_ws(owner, ws, code, token)
                return
        await ws.accept()
        try:
            room = await server.open_room(code)
        except ServerError as err:
            # a client that hung up at once is gone: nothing to tell, nothing worth a traceback
            with contextlib.suppress(Exception):
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
            with contextlib.suppress(Exception):
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
                    client_gone = True
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
            client_gone = True
        finally:
            # Left because the server ended the connection (conn.closed): client_gone stays
            # False, so the writer sends what is queued and then the close code.
            room.detach(conn)
            server.limits.left(room, conn)
            conn.close()
            with contextlib.suppress(Exception):
                await writer

    app.add_middleware(TableSockets, handler=socket)
    return app


#: The table's WebSocket path: ``/ws/{code}``.
SOCKET_PATH: Final = re.compile(r"/ws/([^/]+)")


class TableSockets:
    """ASGI middleware, the app's outermost (inside only FastAPI's own error and body-size
    wrappers): a WebSocket to ``/ws/{code}`` goes straight to the table's handler
    (``handler(ws, code, token)``), past FastAPI's routing, dependency solving and per-request
    exit stacks, which a connection kept for as long as it lived (a whole match: about 10 KB a
    connection, measured with 1,000 idle ones). Anything else goes on to the app."""

    def __init__(self, app: Any, handler: Callable[[WebSocket, str, str | None],
                                                   Awaitable[None]]) -> None:
        self.app = app
        self.handler = handler

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            found = SOCKET_PATH.fullmatch(scope["path"])
            if found is not None:
                ws = WebSocket(scope, receive, send)
                await self.handler(ws, found.group(1), ws.query_params.get("token"))
                return
        await self.app(scope, receive, send)


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
            room.send(conn, room.state_for(conn.seat))
        elif conn.seat is None:
            if isinstance(message, ActionMessage) and message.action.get("type") == "look":
                # a spectator's own look (attention tables): private, it only filters what that
                # spectator is shown
                room.spectator_look(conn, message.action.get("at"), message.id)
                return
            raise ProtocolError("not_seated", "Spectators watch; take a seat to play.")
        elif isinstance(message, ActionMessage):
            # ok, then the update: both once the action's record entry is committed
            room.handle_action(conn.seat, message.action, ack=(conn, message.id))
        elif isinstance(message, ReadyMessage):
            room.mark_ready(conn.seat)
        elif isinstance(message, TableTalkMessage):
            if conn.seat != room.host_seat:
                raise ProtocolError("not_host", "Only the host rules on table talk.")
            room.rule_table_talk(message.pair)
    except KempsError as err:
        if err.code in STORAGE_WAIT_MESSAGES:  # says nothing about the table: at once
            conn.push(error_for(err, ref))
        else:  # a rejection may reflect state not yet committed: held like it
            room.send(conn, error_for(err, ref))
