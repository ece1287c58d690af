"""Bounded work: what one stranger can make the server do is limited, and every refusal is coded.

The limits (their settings and defaults are in :mod:`kemps.server.settings` and docs/protocol.md,
"Limits"):

- **Room creation**: a token bucket per client address (``room_burst`` rooms at once, then
  ``rooms_per_min`` a minute), and at most ``max_rooms`` live rooms in all. Refusals:
  ``too_many_rooms`` (HTTP 429) and ``rooms_full`` (503), both with ``Retry-After``.
- **Idle rooms expire**: a room with no *player* connected (spectators do not count: a stranger
  cannot keep a room alive by watching it) for ``room_idle_s`` (in the lobby or after its match)
  or ``match_idle_s`` (while its match is on) is archived: kept in the database, marked archived,
  never restored again, and answered ``room_archived`` (410). Idle time is server time: while
  the server is down nothing expires, and a restored room gets its whole idle time again (a fault
  pauses, never destroys).
- **Spectators**: at most ``max_spectators`` connections without a seat per table (the newest is
  refused ``spectators_full``: those already watching keep watching), none if the host turned
  them off (``no_spectators``; those watching are closed).
- **Connections per seat**: at most ``seat_connections``; a newer one closes the *oldest*
  (``connection_replaced``). The token is the seat, so whoever holds it is the player; a player
  whose phone changed networks or who reloaded the page leaves half-open connections behind that
  the server cannot yet tell from live ones, and refusing the newest would lock the player out of
  their own seat until those time out.
- **Connections per address**: at most ``address_connections`` live connections from one client
  address to all rooms together (``too_many_connections``), so one address cannot take every
  spectator place of every table.
- **Seats per address**: people from one client address hold at most ``seats_per_address`` seats
  of one table (``too_many_seats``, 429): one client cannot take a whole table, while the players
  of a two-pair match on one home or club connection can still sit together. The seats counted
  are those taken from that address and still held by the token given then (kept in memory for
  as long as the room is; a restart forgets them).
- **Message rate**: one token bucket per seat (shared by all its connections) and one per address
  for spectators (shared by all their connections), ``rate_per_s`` with ``rate_burst`` on top;
  beyond it a message is answered ``flooding`` and ignored.

Every map kept here is bounded: per-address buckets that have refilled are dropped (a full bucket is
the same as none), seat buckets go with their room.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final

from sqlalchemy import select, update

from kemps.server.connections import Connection
from kemps.server.errors import ServerError
from kemps.server.room import Room
from kemps.server.settings import Settings
from kemps.server.storage import MatchRow, RoomRow, Storage

MAX_TRACKED_ADDRESSES: Final = 10_000  # beyond this, refilled buckets are dropped at once
CLOSE_NO_ROOM: Final = 4404
CLOSE_ARCHIVED: Final = 4410
CLOSE_NO_SPECTATORS: Final = 4403
CLOSE_TRY_LATER: Final = 4429
CLOSE_REPLACED: Final = 4409


class LimitError(ServerError):
    """A request refused by a limit; nothing changed. ``retry_after_s`` (seconds, or None) is
    sent as HTTP ``Retry-After``; ``close_code`` is the WebSocket close code for a refused
    connection."""

    def __init__(self, code: str, message: str, status: int, retry_after_s: float | None = None,
                 close_code: int = 1008) -> None:
        super().__init__(code, message, status, retry_after_s)
        self.close_code = close_code


class TokenBucket:
    """``burst`` tokens that refill at ``per_s`` a second (``clock``: monotonic seconds)."""

    __slots__ = ("burst", "per_s", "clock", "tokens", "stamp")

    def __init__(self, burst: float, per_s: float, clock: Callable[[], float]) -> None:
        self.burst, self.per_s, self.clock = float(burst), float(per_s), clock
        self.tokens = self.burst
        self.stamp = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_s)
        self.stamp = now

    def take(self, amount: float = 1.0) -> float:
        """Take ``amount`` tokens (one by default; a camera table's relayed bytes take one a
        byte): 0.0 when taken, else the seconds until they are due (nothing taken)."""
        self._refill()
        if self.tokens >= amount:
            self.tokens -= amount
            return 0.0
        return (amount - self.tokens) / self.per_s

    def give_back(self) -> None:
        """Return a token taken for something that did not happen."""
        self.tokens = min(self.burst, self.tokens + 1.0)

    def full(self) -> bool:
        """True when the bucket has refilled (it is then no different from a new one)."""
        self._refill()
        return self.tokens >= self.burst


class AddressBuckets:
    """One :class:`TokenBucket` per client address, at most about ``max_keys`` of them kept."""

    def __init__(self, burst: float, per_s: float, clock: Callable[[], float],
                 max_keys: int = MAX_TRACKED_ADDRESSES) -> None:
        self.burst, self.per_s, self.clock, self.max_keys = burst, per_s, clock, max_keys
        self.buckets: dict[str, TokenBucket] = {}

    def get(self, address: str) -> TokenBucket:
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self.prune()
            bucket = self.buckets[address] = TokenBucket(self.burst, self.per_s, self.clock)
        return bucket

    def prune(self) -> None:
        """Drop the buckets that have refilled."""
        self.buckets = {a: b for a, b in self.buckets.items() if not b.full()}


class LimitedConnection(Connection):
    """A client connection as the limits see it: its client ``address``, the order it opened in,
    and the close code to end it with."""

    _opened = itertools.count()

    def __init__(self, send: Callable[[str], Awaitable[None]], seat: int | None,
                 token_hash: str | None, address: str) -> None:
        super().__init__(send, seat, token_hash)
        self.address = address
        self.opened = next(self._opened)

    def end(self, close_code: int, code: str, message: str) -> None:
        """Tell the client why (an ``error`` message), then close with ``close_code``."""
        self.push({"type": "error", "code": code, "message": message})
        self.close_code = close_code
        self.close()


class FrameGate:
    """What a connection's socket loop asks before handling each frame: the seat's (or the
    spectator address's) bucket as the connection stands now (a seat may become a spectator)."""

    __slots__ = ("limits", "room", "conn")

    def __init__(self, limits: Limits, room: Room, conn: LimitedConnection) -> None:
        self.limits, self.room, self.conn = limits, room, conn

    def allow(self) -> bool:
        """True to handle the frame; False when its seat or address is flooding."""
        return self.limits.bucket_for(self.room, self.conn).take() == 0.0


class Limits:
    """The limits of one server (see the module text). ``clock``: monotonic seconds (idle time and
    buckets count server time only)."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.creators = AddressBuckets(settings.room_burst, settings.rooms_per_min / 60.0, clock)
        self.spectators = AddressBuckets(settings.rate_burst, settings.rate_per_s, clock)
        self.seats: dict[str, dict[int, tuple[str | None, TokenBucket]]] = {}
        self.idle_since: dict[str, float] = {}
        self.reserved = 0  # rooms being created (between the checks and the room existing)
        self.connections: dict[str, int] = {}  # live (joined) connections per client address
        # per room: seat -> (the address that took it, the token hash it was given)
        self.seat_takers: dict[str, dict[int, tuple[str, str | None]]] = {}

    # == room creation =============================================================================
    def reserve_room(self, address: str | None, live: int) -> TokenBucket | None:
        """Before creating a room: refuse it, or reserve its place (then call :meth:`made`).

        ``address`` is the client's (None: not limited per address, e.g. the server's own);
        ``live`` the rooms the server holds now.

        Raises:
            LimitError: ``rooms_full`` (503) at ``max_rooms`` live rooms, ``too_many_rooms``
                (429) when the address has used its burst; nothing changed.
        """
        cap = self.settings.max_rooms
        if live + self.reserved >= cap:
            raise LimitError("rooms_full", f"The server holds as many rooms as it may ({cap}); "
                             "try again when some have closed.", 503, retry_after_s=60.0)
        bucket = None
        if address is not None:
            bucket = self.creators.get(address)
            wait = bucket.take()
            if wait > 0:
                s = self.settings
                raise LimitError("too_many_rooms", f"Too many rooms made from your address "
                                 f"({s.room_burst} at once, then {s.rooms_per_min:g} a minute); "
                                 f"try again in {math.ceil(wait)} s.", 429, retry_after_s=wait)
        self.reserved += 1
        return bucket

    def made(self, bucket: TokenBucket | None, ok: bool) -> None:
        """After :meth:`reserve_room`: the room exists (``ok``), or was not made after all (its
        token goes back)."""
        self.reserved -= 1
        if not ok and bucket is not None:
            bucket.give_back()

    # == connections ===============================================================================
    def admit(self, room: Room, conn: LimitedConnection) -> None:
        """Before a connection joins ``room``: refuse a spectator beyond the table's limit, or
        close the oldest connections of the seat beyond ``seat_connections``.

        Raises:
            LimitError: ``too_many_connections`` (the address has its ``address_connections``),
                ``no_spectators`` (the host turned them off), ``spectators_full``; nothing
                changed.
        """
        most = self.settings.address_connections
        if self.connections.get(conn.address, 0) >= most:
            raise LimitError("too_many_connections", f"Your address has {most} connections open "
                             "to this server already; close some first.", 429,
                             retry_after_s=30.0, close_code=CLOSE_TRY_LATER)
        if conn.seat is None and not conn.referee:
            if not room.spectators_allowed:
                raise LimitError("no_spectators", "The host does not allow spectators at this "
                                 "table; take a seat to join.", 403, close_code=CLOSE_NO_SPECTATORS)
            cap = self.settings.max_spectators
            if sum(1 for c in room.conns if c.seat is None and not c.referee
                   and not c.closed) >= cap:
                raise LimitError("spectators_full", f"This table has as many spectators as it "
                                 f"takes ({cap}); try again later.", 503,
                                 retry_after_s=30.0, close_code=CLOSE_TRY_LATER)
            return
        cap = self.settings.seat_connections
        mine = sorted((c for c in room.conns if isinstance(c, LimitedConnection)
                       and c.seat == conn.seat and c.referee == conn.referee and not c.closed),
                      key=lambda c: c.opened)
        who = "The referee" if conn.seat is None else f"Seat {conn.seat + 1}"  # or a seat
        for old in mine[:max(0, len(mine) - cap + 1)]:
            old.end(CLOSE_REPLACED, "connection_replaced", f"{who} opened a newer "
                    f"connection; this one, its oldest of more than {cap}, is closed.")

    def joined(self, room: Room, conn: LimitedConnection) -> None:
        """A connection joined ``room`` (after :meth:`admit` and ``room.attach``)."""
        self.connections[conn.address] = self.connections.get(conn.address, 0) + 1
        if conn.seat is not None:
            self.idle_since.pop(room.code, None)

    def left(self, room: Room, conn: LimitedConnection) -> None:
        """A connection that :meth:`joined` left ``room`` (after ``room.detach``)."""
        left = self.connections.get(conn.address, 0) - 1
        if left > 0:
            self.connections[conn.address] = left
        else:
            self.connections.pop(conn.address, None)
        if room.code not in self.idle_since and not _has_player(room):
            self.idle_since[room.code] = self.clock()

    def gate(self, room: Room, conn: LimitedConnection) -> FrameGate:
        """The message-rate gate for one connection."""
        return FrameGate(self, room, conn)

    def bucket_for(self, room: Room, conn: LimitedConnection) -> TokenBucket:
        """The bucket a connection's next message draws on: its seat's (for the token it came
        with), or its address's as a spectator."""
        if conn.seat is None:
            return self.spectators.get(conn.address)
        seats = self.seats.setdefault(room.code, {})
        held = seats.get(conn.seat)
        if held is None or held[0] != conn.token_hash:  # a new holder of the seat starts afresh
            s = self.settings
            held = seats[conn.seat] = (conn.token_hash, TokenBucket(s.rate_burst, s.rate_per_s,
                                                                    self.clock))
        return held[1]

    @staticmethod
    def end_spectators(room: Room) -> int:
        """Close every spectator connection of ``room`` (the host turned spectators off); returns
        how many."""
        ended = 0
        for c in list(room.conns):
            if c.seat is None and isinstance(c, LimitedConnection) and not c.closed:
                c.end(CLOSE_NO_SPECTATORS, "no_spectators", "The host turned spectators off at "
                      "this table; take a seat to join.")
                ended += 1
        return ended

    # == idle rooms ================================================================================
    def track(self, room: Room) -> None:
        """A room made or restored: idle (no player connected) from now."""
        if not _has_player(room):
            self.idle_since.setdefault(room.code, self.clock())

    def idle_limit_s(self, room: Room) -> float:
        """How long ``room`` may go with no player connected (seconds)."""
        return self.settings.match_idle_s if room.status == "playing" else \
            self.settings.room_idle_s

    def due(self, rooms: Iterable[Room]) -> list[Room]:
        """The rooms that have had no player connected for longer than their idle limit."""
        now = self.clock()
        out = []
        for room in rooms:
            if _has_player(room):
                self.idle_since.pop(room.code, None)
                continue
            since = self.idle_since.setdefault(room.code, now)
            if now - since >= self.idle_limit_s(room):
                out.append(room)
        return out

    @property
    def sweep_every_s(self) -> float:
        """How often to look for idle rooms (a quarter of the shorter idle limit, 0.05 to 30 s)."""
        return min(30.0, max(0.05, min(self.settings.room_idle_s, self.settings.match_idle_s) / 4))

    def release(self, room: Room) -> None:
        """Drop what is kept for a room this server no longer holds (archived, or owned by
        another node now), leaving its connections as they are."""
        self.idle_since.pop(room.code, None)
        self.seats.pop(room.code, None)
        self.seat_takers.pop(room.code, None)

    def check_seat(self, room: Room, address: str | None) -> None:
        """Refuse a seat to ``address`` when it holds ``seats_per_address`` at ``room`` (seats it
        took that still hold the token it was given; None: not limited, the server's own).

        Raises:
            LimitError: ``too_many_seats`` (429); nothing changed.
        """
        if address is None:
            return
        most = self.settings.seats_per_address
        held = sum(1 for seat, (taker, token) in self.seat_takers.get(room.code, {}).items()
                   if taker == address and seat < len(room.seats)
                   and room.seats[seat].token_hash == token)
        if held >= most:
            raise LimitError("too_many_seats", f"Your address already holds {held} seat"
                             f"{'s' if held != 1 else ''} at this table, as many as one client "
                             "may; each person takes a seat from their own device.", 429)

    def seat_taken(self, room: Room, seat: int, address: str | None) -> None:
        """``address`` took ``seat`` of ``room`` (counted by :meth:`check_seat`)."""
        if address is not None:
            self.seat_takers.setdefault(room.code, {})[seat] = (address,
                                                                room.seats[seat].token_hash)

    def forget(self, room: Room) -> None:
        """A room archived: drop what is kept for it, and close its connections."""
        self.release(room)
        for c in list(room.conns):
            if isinstance(c, LimitedConnection) and not c.closed:
                c.end(CLOSE_ARCHIVED, "room_archived", archived_message(room.code))

    def prune(self) -> None:
        """Drop refilled per-address buckets (called with each sweep)."""
        self.creators.prune()
        self.spectators.prune()


def _has_player(room: Room) -> bool:
    return any(c.seat is not None and not c.closed for c in room.conns)


def archived_message(code: str) -> str:
    """The sentence that goes with ``room_archived``."""
    return (f"Room {code} was archived: no player was connected to it for a long time. Its "
            f"finished matches stay in the history (/api/history?room={code}).")


# == archived rooms in storage =====================================================================
async def room_state(storage: Storage, code: str) -> str | None:
    """``"archived"`` or ``"live"`` for a stored room code, None when there is no such room."""
    async with storage.sessions() as s:
        row = (await s.execute(select(RoomRow.archived_at).where(RoomRow.code == code))).first()
    if row is None:
        return None
    return "live" if row[0] is None else "archived"


async def archive_surplus(storage: Storage, keep: int, now: float) -> int:
    """Archive every live stored room beyond the ``keep`` most recently updated (a database from
    before these limits, or with a lowered ``max_rooms``); returns how many. One query each way:
    no room is loaded."""
    async with storage.sessions.begin() as s:
        extra = (await s.execute(select(RoomRow.code).where(RoomRow.archived_at.is_(None))
                                 .order_by(RoomRow.updated_at.desc()).offset(keep))).scalars().all()
        for start in range(0, len(extra), 500):
            await s.execute(update(RoomRow).where(RoomRow.code.in_(extra[start:start + 500]))
                            .values(archived_at=now))
    return len(extra)


async def room_history(storage: Storage, code: str, limit: int = 100) -> list[dict[str, Any]]:
    """A room's finished matches (archived or not), newest first, without their records (as
    ``Storage.history``)."""
    async with storage.sessions() as s:
        rows = (await s.execute(select(MatchRow).where(MatchRow.room_code == code)
                                .order_by(MatchRow.id.desc()).limit(limit))).scalars()
        return [{"id": r.id, "room": r.room_code, "match_no": r.match_no,
                 "finished_at": r.finished_at, "rules": r.rules, "names": r.names,
                 "summary": r.summary} for r in rows]


def archived_row(room: Room, now: float) -> dict[str, Any]:
    """The room's storage row, marked archived at ``now`` (wall-clock seconds)."""
    return {**room.row(), "archived_at": now}


__all__ = ["MAX_BODY_BYTES", "AddressBuckets", "BodyLimit", "FrameGate", "LimitError", "LimitedConnection", "Limits",
           "TokenBucket", "archive_surplus", "archived_message", "archived_row", "room_history",
           "room_state"]


#: The largest request body the JSON API reads (bytes): every body it takes is far smaller (a
#: tournament of 64 teams is a few KB); a larger one is refused before it is read in full.
MAX_BODY_BYTES: Final = 256 * 1024


class BodyLimit:
    """ASGI middleware: a request body over :data:`MAX_BODY_BYTES` is answered 413
    ``too_large`` (by its Content-Length, or as it arrives when it has none) and never parsed."""

    def __init__(self, app: Any, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope["headers"]:
            if key == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = self.limit + 1
                if size > self.limit:
                    await self._refuse(send)
                    return
        # No length given (a streamed body): read it here, at most the limit, then hand it on.
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
            if len(body) > self.limit:
                await self._refuse(send)
                return
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps({"code": "too_large", "message": f"A request body may be at most "
                           f"{self.limit // 1024} KB."}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


# == WebSocket frames past the protocol's limit ==========================================================
def _frame_too_large_text(limit: int) -> str:
    return json.dumps({"type": "error", "code": "too_large", "message": f"A WebSocket frame may "
                       f"be at most {limit // 1024} KiB; this connection is closed (1009)."})


def frame_limit_protocol() -> type:
    """uvicorn's WebSocket protocol (``websockets-sansio``) whose connections tell a client
    that sends a frame over uvicorn's ``ws_max_size`` why they are closed: one ``error`` message
    (``too_large``) and then the close with code 1009 (MESSAGE_TOO_BIG), as docs/protocol.md
    promises of every connection the server drops. Without it the protocol closed with 1009 and
    no word: it fails the connection while parsing, before the app ever sees the frame."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.frames import CloseCode
    from websockets.protocol import OPEN
    from websockets.server import ServerProtocol

    class TellingServerProtocol(ServerProtocol):
        def fail(self, code: CloseCode | int, reason: str = "") -> None:
            if code == CloseCode.MESSAGE_TOO_BIG and self.state is OPEN:
                self.send_text(_frame_too_large_text(self.max_message_size or 0).encode())
            super().fail(code, reason)

    class FrameLimitProtocol(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made = self.conn
            self.conn = TellingServerProtocol(
                extensions=made.available_extensions, logger=made.logger,
                max_size=(made.max_message_size, made.max_fragment_size))

    return FrameLimitProtocol
