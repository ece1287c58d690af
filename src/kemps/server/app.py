"""The FastAPI application: it assembles the wings and holds the table's WebSocket.

The routes live in routers, one a wing of :mod:`kemps.server.api` (see docs/protocol.md):
:mod:`~kemps.server.api.pages` (``GET /`` the page, ``/room/{code}``, ``/history``,
``/how-to-play``), :mod:`~kemps.server.api.meta` (``GET /api/presets``, ``/api/health``,
``/api/protocol.json``), :mod:`~kemps.server.api.rooms` (``POST /api/rooms`` and each room's
seats, bots, rules, spectators and start) and :mod:`~kemps.server.api.history` (``GET
/api/history``, ``/api/history/{id}``); the scorekeeper's desk (:mod:`kemps.server.desk`) and the
replays (:mod:`kemps.server.replays`) bring their own. Here: ``WS /ws/{code}?token=...``
(:class:`TableSockets`, :func:`handle_frame`). Bodies are the models of
:mod:`kemps.server.bodies`; refusals the one body of :mod:`kemps.server.api`; ``/openapi.json``
and ``/docs`` describe them all. The server process the routes serve is
:class:`kemps.server.process.Server` (``app.state.server``). The limits on what a client may make
the server do are in :mod:`kemps.server.limits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Final

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from kemps.errors import KempsError, Rejected
from kemps.server import desk, limits, outages, players, replays, together
from kemps.server.api import (
    SafeJSONResponse,
    StrictJSONRoute,
    history,
    install_error_handlers,
    meta,
    pages,
    rooms,
    tables,
)
from kemps.server.api.common import STATIC, client_address
from kemps.server.errors import STORAGE_WAIT_MESSAGES, ServerError, error_for
from kemps.server.limits import FrameGate, LimitedConnection, LimitError
from kemps.server.process import Server
from kemps.server.protocol import (
    PROTOCOL_VERSION,
    ActionMessage,
    ClientMessage,
    LagPongMessage,
    PingMessage,
    ProtocolError,
    ReadyMessage,
    SyncMessage,
    TableTalkMessage,
    error_message,
    parse_client_message,
)
from kemps.server.room import Room
from kemps.server.settings import Settings
from kemps.server.signalling import CAMERA_MESSAGES
from kemps.text import utf8_size

__all__ = ["SOCKET_PATH", "Server", "TableSockets", "create_app", "handle_frame"]

log = logging.getLogger("kemps.server")


API_DESCRIPTION = """The table server's JSON API (docs/protocol.md): rooms, seats, bots, rules, the
finished matches, and the scorekeeper's and tournament desk's sheets and tournaments under
`/api/desk`. Every refusal is `{"code", "message"}` with the status it names; the WebSocket
protocol's messages are described as JSON Schema at `/api/protocol.json`."""


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
            app.state.together.stop()
            await server.stop()

    # /docs and /redoc from files shipped in a package (fastapi-offline), not from a CDN: the
    # API's documentation works on a machine with no internet.
    app = FastAPIOffline(title="kemps", version=str(PROTOCOL_VERSION), lifespan=lifespan,
                         description=API_DESCRIPTION, default_response_class=SafeJSONResponse,
                         generate_unique_id_function=lambda route: route.name)
    app.router.route_class = StrictJSONRoute  # bodies: UTF-8 JSON, every key once, else 422
    app.state.server = server
    # replays watched together: kept in this process's memory (kemps.server.together)
    app.state.together = together.Together(together.TogetherSettings.from_env())
    install_error_handlers(app)
    outages.install(app)  # Redis or the database away: 503 with a code and Retry-After
    if server.cluster is not None:
        from kemps.server.cluster import ForwardMiddleware

        app.add_middleware(ForwardMiddleware, cluster=server.cluster)
    app.add_middleware(limits.BodyLimit)  # the outermost: no body is read past the limit

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(desk.router)  # the scorekeeper and the tournament desk (/score, /tournament)
    app.include_router(replays.router)  # replays of finished matches (/replay/{id})
    app.include_router(together.router)  # replays watched together (/together/{code})
    app.include_router(players.router)  # remembered players, ratings, the leaderboard (issue 32)

    # The JSON API and the pages, one router a wing (kemps.server.api), in the order they match.
    for router in (pages.router, meta.router, rooms.router, history.router, tables.router):
        app.include_router(router)

    async def socket(ws: WebSocket, code: str, token: str | None) -> None:
        """``/ws/{code}?token=...``: one client's connection to a room's table (TableSockets)."""
        cluster = server.cluster
        await ws.accept()
        try:
            if cluster is not None and "x-kemps-forwarded" not in ws.headers:
                owner = await cluster.locate(code)
                if owner is not None:  # another node owns the table: carry the frames there
                    with contextlib.suppress(Exception):
                        await cluster.forward_ws(owner, ws, code, token)
                    return
            room = await server.open_room(code)
        except ServerError as err:
            if err.status == 503:  # room_moving: try again in a moment
                await outages.close_socket(ws, err)
                return
            # a client that hung up at once is gone: nothing to tell, nothing worth a traceback
            with contextlib.suppress(Exception):
                await ws.send_json(error_message(err.code, err.message))
                await ws.close(code=limits.CLOSE_ARCHIVED if err.code == "room_archived"
                               else limits.CLOSE_NO_ROOM)
            return
        except Exception as err:  # Redis or the database away: told, try again later
            fault = outages.fault_for(err)
            if fault is None:
                raise
            await outages.close_socket(ws, fault)
            return
        # From here to room.attach nothing awaits: the room cannot be archived, nor its seats or
        # its spectators change, between the checks and the connection joining.
        seat = room.seat_of(token)
        conn = LimitedConnection(ws.send_text, seat, room.seats[seat].token_hash
                                 if seat is not None else None, client_address(ws))
        conn.referee = seat is None and room.is_referee(token)
        try:
            server.limits.admit(room, conn)  # may close the seat's oldest connection
        except LimitError as err:
            with contextlib.suppress(Exception):
                await ws.send_json(error_message(err.code, err.message))
                await ws.close(code=err.close_code)
            return
        if token and seat is None and not conn.referee:
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

    app.add_middleware(together.TogetherSockets)  # /ws/together/{code}
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


def _parse(raw: str) -> ClientMessage | ProtocolError:
    try:
        return parse_client_message(raw)
    except ProtocolError as err:
        return err


def handle_frame(room: Room, conn: LimitedConnection, limit: FrameGate, raw: str) -> None:
    """Validate and act on one client frame; every problem is answered, nothing else changes.

    A camera table's video set-up (``camera``, ``rtc``) has its own rate per seat
    (:mod:`kemps.server.signalling`), so such a frame is read before the seat's message rate is
    counted; every other message, and every frame that does not parse, counts towards the seat's
    (or spectator address's) message rate before it is read, as ever."""
    parsed: ClientMessage | ProtocolError | None = None
    if '"rtc"' in raw or '"camera"' in raw:  # maybe video set-up (a mere hint: it is parsed)
        parsed = _parse(raw)
        if isinstance(parsed, CAMERA_MESSAGES) and conn.seat is not None:
            room.cameras.receive(conn, parsed, utf8_size(raw))
            return
    if not limit.allow():
        conn.push(error_message("flooding", "Too many messages from your seat (all its "
                                "connections together; spectators: from your address); slow "
                                "down (this one was ignored)."))
        return
    ref: int | None = None
    try:
        if parsed is None:
            parsed = _parse(raw)
        if isinstance(parsed, ProtocolError):
            raise parsed
        message = parsed
        if isinstance(message, CAMERA_MESSAGES) and conn.seat is not None:
            room.cameras.receive(conn, message, utf8_size(raw))  # its type spelled otherwise
            return
        ref = getattr(message, "id", None)
        if isinstance(message, PingMessage):
            conn.push({"type": "pong", "id": message.id, "now": room.now()})
        elif isinstance(message, SyncMessage):
            room.send(conn, room.state_for(conn.seat, conn.referee))
        elif isinstance(message, LagPongMessage):  # a lag probe answered (kemps.server.lag)
            room.lag.answer(conn, message.id)
        elif conn.seat is None:
            if conn.referee and isinstance(message, ActionMessage):
                # the referee, the dealer who is not playing: Go and the sweep (S2 tournament)
                room.referee_act(message.action, ack=(conn, message.id))
                return
            if isinstance(message, ActionMessage) and message.action.get("type") == "look":
                # a spectator's own look (attention tables): private, it only filters what that
                # spectator is shown
                extra = sorted(set(message.action) - {"type", "at"})
                if extra:
                    raise Rejected("bad_action", f"A look action has no field {extra[0]!r}.")
                room.spectator_look(conn, message.action.get("at"), message.id)
                return
            if isinstance(message, CAMERA_MESSAGES):
                raise ProtocolError("not_seated", "Only seated people take part in a camera "
                                    "table's video; spectators see the table.")
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
