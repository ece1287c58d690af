"""This node as one of many (``KEMPS_REDIS_URL`` set): taking rooms over, forwarding to owners.

Routing: every node answers every request. A request for a room this node does not own is
*forwarded* to the owner (HTTP with httpx, WebSocket frames both ways), rather than redirected:
behind a load balancer a client can reach only the balancer's address, and the page's
reconnection needs no knowledge of nodes. A room nobody owns (a new one, or its owner died and
its lease ran out) is taken over by the node that is asked: lease in Redis, fencing token raised
in PostgreSQL, record read, table restored exactly, bots and timers resumed. A new room is placed
on the least-loaded node that is not draining.

See :mod:`kemps.server.nodes` for the leases and tokens, docs/scale.md for the design.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

from kemps.errors import KempsError
from kemps.server import limits
from kemps.server.errors import ServerError
from kemps.server.nodes import RENEW_S, Nodes
from kemps.server.outages import answer_asgi, close_socket, fault_for, redis_errors
from kemps.server.room import Room
from kemps.server.settings import Settings
from kemps.server.storage import Storage, Writer

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from kemps.server.limits import Limits

log = logging.getLogger("kemps.server")

FORWARDED: Final = "x-kemps-forwarded"  # a forwarded request is served where it lands
ROOM_PATH: Final = re.compile(r"^/api/rooms/([A-Za-z0-9]{1,16})(?:/|$)")
HOP_HEADERS: Final = frozenset({"host", "content-length", "transfer-encoding", "connection",
                                "keep-alive", "upgrade"})


class Host(Protocol):
    """What the cluster needs of the server process it runs in (:class:`kemps.server.process.Server`
    is one), and all it may use: the settings and clock, storage and its writer, the limits, the
    rooms this node holds, and :meth:`adopt` for a room the cluster took over."""

    @property
    def settings(self) -> Settings: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def storage(self) -> Storage: ...
    @property
    def writer(self) -> Writer: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def rooms(self) -> dict[str, Room]: ...

    def adopt(self, room: Room) -> Room:
        """Hold ``room`` on this node (its finish reported, its limits tracked); returns it."""
        ...


class Cluster:
    """The many-node side of one server process, which it knows only as a :class:`Host`."""

    def __init__(self, host: Host) -> None:
        s = host.settings
        assert s.redis_url is not None  # built only when it is set
        self.host = host
        self.url = s.node_url or f"http://{s.host}:{s.port}"
        self.nodes = Nodes(s.redis_url, s.node_id or self.url, self.url)
        self._task: asyncio.Task[None] | None = None
        self._taking: dict[str, asyncio.Lock] = {}
        self._http: Any = None
        # rooms this node placed on each node since the last heartbeat (heartbeats are a second
        # old at most: a burst of new rooms still spreads)
        self._placed: dict[str, int] = {}

    async def start(self) -> None:
        import httpx

        self._http = httpx.AsyncClient(timeout=20.0)
        await self._beat()
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(Exception):
            for code in list(self.host.rooms):
                await self.nodes.release(code)
            await self.nodes.leave()
        with contextlib.suppress(Exception):
            await self.nodes.close()
        if self._http is not None:
            await self._http.aclose()

    # == the heartbeat and the leases ==============================================================
    async def _beat(self) -> None:
        self._placed.clear()
        rooms = self.host.rooms
        await self.nodes.heartbeat(len(rooms), sum(len(r.conns) for r in rooms.values()))

    async def _loop(self) -> None:
        away = False  # Redis did not answer the last time: said once, not every second
        while True:
            await asyncio.sleep(RENEW_S)
            try:
                draining = await self.nodes.read_draining()
                await self._beat()  # says "draining" before any room is handed over
                lost = await self.nodes.renew({c: r.fence for c, r in self.host.rooms.items()
                                               if r.status != "broken"})
                for code in lost:
                    log.warning("lease of room %s lost: another node owns it now", code)
                    self.drop(code)
                if away:
                    log.warning("Redis answers again: leases renewed (%d rooms kept, %d lost)",
                                len(self.host.rooms), len(lost))
                    away = False
                if draining:
                    await self._hand_over()
            except redis_errors() as err:
                # Redis away: this node's tables play on (PostgreSQL's fencing token still says
                # who writes); what needs Redis answers redis_unavailable until it is back
                if not away:
                    log.warning("Redis does not answer (%s): the tables here play on; making "
                                "rooms and reaching rooms held elsewhere wait", err)
                away = True
            except Exception:
                log.exception("cluster heartbeat failed")

    async def _hand_over(self) -> None:
        """Draining: every room not in the middle of a hand goes (its lease released; the next
        contact takes it on another node)."""
        for code, room in list(self.host.rooms.items()):
            driver = room.driver
            between_hands = (room.status != "playing" or driver is None
                             or driver.table.phase == "huddle")
            if between_hands and await self.host.writer.sync(5.0):
                self.drop(code)
                await self.nodes.release(code)

    def drop(self, code: str) -> None:
        """Forget a room this node no longer owns; its clients are sent to reconnect."""
        room = self.host.rooms.pop(code, None)
        self.host.writer.fences.pop(code, None)
        if room is not None:
            room.lost()  # room_moved: the page reconnects (not room_archived: it would stop)
            self.host.limits.release(room)

    async def summary(self) -> dict[str, Any] | None:
        """The cluster as the nodes' heartbeats in Redis give it: ``nodes`` (id, url, rooms,
        players, draining, each), and the ``rooms`` and ``players`` of all of them; None when
        Redis does not answer."""
        try:
            up = await self.nodes.nodes()
        except Exception:  # noqa: BLE001 - Redis away: said as such, never an error page
            return None
        return {"nodes": [{"id": n.id, "url": n.url, "rooms": n.rooms, "players": n.players,
                           "draining": n.draining} for n in up],
                "rooms": sum(n.rooms for n in up), "players": sum(n.players for n in up)}

    # == where a room lives ========================================================================
    async def locate(self, code: str) -> str | None:
        """The URL of the node to forward a request for ``code`` to, or None to serve it here
        (this node owns it, or nobody does and this node will take it)."""
        key = code.strip().upper()
        if key in self.host.rooms:
            return None
        owner = await self.nodes.owner(key)
        if owner is None and self.nodes.draining:  # a draining node takes nothing over
            return await self.placement()
        if owner is None or owner == self.nodes.id:
            return None
        node = await self.nodes.node(owner)
        return node.url if node is not None else None

    async def placement(self) -> str | None:
        """The URL of the node a new room should be made on (the least loaded that is not
        draining: players, then rooms; a tie goes to this node), or None for this one."""
        up = [n for n in await self.nodes.nodes() if not n.draining]
        if not up:
            return None
        # a tie goes to this node: behind a balancer every node places at once, each on the
        # heartbeats of a second ago, and ties broken alike would send every room to one node
        best = min(up, key=lambda n: (n.players, n.rooms + self._placed.get(n.id, 0),
                                      n.id != self.nodes.id, n.id))
        self._placed[best.id] = self._placed.get(best.id, 0) + 1
        return None if best.id == self.nodes.id else best.url

    async def take(self, code: str) -> Room:
        """Take over a room nobody owns: lease, fencing token in PostgreSQL, record, restore.

        Raises:
            ServerError: ``no_such_room`` (404), ``room_archived`` (410), ``room_moving`` (503:
                another node holds it, or is taking it; try again in a moment).
        """
        lock = self._taking.setdefault(code, asyncio.Lock())
        async with lock:
            room = self.host.rooms.get(code)
            if room is not None:
                return room
            found = await self.host.storage.room_record(code)
            if found is None:
                raise ServerError("no_such_room", f"There is no room {code}.", 404)
            row, entries = found
            if row.get("archived_at") is not None:
                raise ServerError("room_archived", limits.archived_message(code), 410)
            token = await self.nodes.acquire(code)
            claimed = token is not None and await self.host.storage.claim(code, token)
            if token is not None and not claimed:
                # PostgreSQL holds a higher token than Redis counted: a Redis that lost its keys
                # counts from 1 again. Count on from the stored one (while the lease is ours).
                token = await self.nodes.next_fence(code, await self.host.storage.fence(code))
                claimed = token is not None and await self.host.storage.claim(code, token)
            if token is None or not claimed:
                raise moving()
            # read again after the claim: whatever the old owner committed is in it, and it can
            # commit nothing more
            found = await self.host.storage.room_record(code)
            assert found is not None  # it was there a moment ago; rooms are never deleted
            row, entries = found
            try:
                room = Room.restore(row, entries, self.host.settings, self.host.writer,
                                    self.host.clock)
            except Exception as err:  # noqa: BLE001 - kept, listed as broken, as on one node
                message = err.message if isinstance(err, KempsError) else \
                    f"{type(err).__name__}: {err}"
                room = Room.broken(row, message, self.host.settings, self.host.writer,
                                   self.host.clock)
            self.own(room, token)
            room.resume()
            log.warning("took room %s over (fencing token %d)", code, token)
            return room

    def own(self, room: Room, token: int) -> None:
        """This node owns ``room`` with fencing ``token`` from now on."""
        room.fence = token
        self.host.writer.fences[room.code] = token
        self.host.adopt(room)

    async def own_new(self, room: Room) -> None:
        """A room just made here: its lease and first token (no row yet to claim)."""
        token = await self.nodes.acquire(room.code)
        if token is None:  # a fresh code is never held; refuse rather than share it
            raise ServerError("room_moving", "Could not place that room; try again.", 503)
        room.fence = token
        self.host.writer.fences[room.code] = token

    # == forwarding ================================================================================
    async def forward_http(self, url: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Send one HTTP request on to the node at ``url`` and its answer back, as it is."""
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]
                   if k.decode("latin-1").lower() not in HOP_HEADERS | {"x-forwarded-for"}]
        headers += [(FORWARDED, self.nodes.id), *client_header(scope)]
        target = url + scope["path"] + (("?" + scope["query_string"].decode("latin-1"))
                                        if scope.get("query_string") else "")
        import httpx

        try:
            answer = await self._http.request(scope["method"], target, content=body,
                                              headers=headers)
        except httpx.HTTPError:  # the owner is gone (its lease runs out) or restarting
            await answer_asgi(send, moving())
            return
        out = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers.items()
               if k.lower() not in HOP_HEADERS and k.lower() != "content-encoding"]
        await send({"type": "http.response.start", "status": answer.status_code, "headers": out})
        await send({"type": "http.response.body", "body": answer.content})

    async def forward_ws(self, url: str, ws: Any, code: str, token: str | None) -> None:
        """Carry a WebSocket's frames to the owner at ``url`` and back until either side ends."""
        import websockets

        target = url.replace("http://", "ws://").replace("https://", "wss://") + f"/ws/{code}"
        if token:
            target += f"?token={token}"
        headers = {FORWARDED: self.nodes.id, **dict(client_header(ws.scope))}
        try:
            upstream = await websockets.connect(target, additional_headers=headers,
                                                max_size=2**22, compression=None,
                                                open_timeout=10)
        except (OSError, TimeoutError, websockets.WebSocketException):
            await close_socket(ws, moving())  # the owner is gone or restarting: try again
            return
        async with upstream:
            async def down() -> None:
                async for text in upstream:
                    await ws.send_text(text if isinstance(text, str) else text.decode())

            async def up() -> None:
                while True:
                    frame = await ws.receive()
                    if frame["type"] == "websocket.disconnect":
                        return
                    if frame.get("text") is not None:
                        await upstream.send(frame["text"])

            tasks = [asyncio.create_task(down()), asyncio.create_task(up())]
            _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for t in pending:
                t.cancel()
            with contextlib.suppress(Exception):
                await ws.close()


def moving() -> ServerError:
    """The refusal while a room's owner cannot be reached (it died and its lease is running
    out, or it is starting again): 503, try again in a moment."""
    return ServerError("room_moving", "That table is moving between servers; try again in a "
                       "moment.", 503)


def client_header(scope: Scope) -> list[tuple[str, str]]:
    """``X-Forwarded-For`` naming the client as this node sees it (its peer, or whom a trusted
    proxy named: uvicorn has already put that in ``scope["client"]``), for the owner's limits;
    a client's own header is never passed on. The owner believes it only when this node is among
    its ``KEMPS_TRUSTED_PROXIES`` (docs/scale.md)."""
    client = scope.get("client")
    return [("x-forwarded-for", str(client[0]))] if client else []


class ForwardMiddleware:
    """ASGI middleware: room requests this node does not own go to the owner, and a new room to
    the node it is placed on. A request already forwarded is always served where it lands."""

    def __init__(self, app: ASGIApp, cluster: Cluster) -> None:
        self.app = app
        self.cluster = cluster

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or any(k.decode("latin-1").lower() == FORWARDED
                                          for k, _ in scope["headers"]):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        url: str | None = None
        try:
            if path == "/api/rooms" and scope["method"] == "POST":
                url = await self.cluster.placement()
            else:
                match = ROOM_PATH.match(path)
                if match is not None:
                    url = await self.cluster.locate(match.group(1))
        except redis_errors() as err:  # where rooms are is in Redis: try again in a moment
            fault = fault_for(err)
            assert fault is not None
            await answer_asgi(send, fault)
            return
        if url is None:
            await self.app(scope, receive, send)
        else:
            await self.cluster.forward_http(url, scope, receive, send)
