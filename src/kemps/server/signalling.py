"""A camera table's video set-up (issue 24): who of the seated people takes part, and the relay of
their browsers' WebRTC connection set-up (offers, answers, ICE candidates) over the room's socket.

The media goes peer to peer between the browsers (a mesh; or through Janus's VideoRoom for larger
tables, :mod:`kemps.server.sfu`), never through this server. What the server does:

- **Who.** A seated person's connection sends ``camera`` (its camera's and microphone's states)
  to take part; the seat's newest such connection is its *camera connection*, named by a short
  ``peer`` id. It is sent ``camera_config`` (its id, the ICE servers with TURN credentials minted
  for its seat, the route) and every seated connection of the room gets ``camera_seats`` (each
  seat in the video, its id and device states) whenever that changes. Spectators get neither:
  they see the table, no video.
- **The relay.** An ``rtc`` message goes from a seat's camera connection to another seat's camera
  connection of the same room, named by its ``peer`` id, and to nothing else: never to a
  spectator, another room or a connection that has gone (``peer_gone``).
- **Bounds.** Each message is at most :data:`kemps.server.protocol.MAX_SIGNAL_BYTES`; a seat
  (all its connections together) may send ``signal_per_s`` of them a second with
  ``signal_burst`` on top, and ``signal_bytes_per_s`` bytes a second with ``signal_bytes_burst``
  (a whole table's set-up at once, eight players with a few candidates each, fits the bursts);
  beyond, a message is refused ``signal_flooding`` and dropped. These are counted apart from the
  seat's other messages, so a video set-up never costs a player a move, nor a flood of it the
  table its play.

Which tracks each browser sends (the huddle's privacy, a silent table's microphones) is the
sending page's to keep (``static/js/camera.js``): between hands a page sends its camera and
microphone to its partner only, so a pair's huddle never leaves the pair's own two browsers.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from kemps.server.connections import Connection
from kemps.server.errors import ServerError
from kemps.server.protocol import (
    CameraMessage,
    DeviceState,
    ProtocolError,
    RtcMessage,
    error_message,
)
from kemps.server.sfu import Janus, SfuError, TableRooms

if TYPE_CHECKING:
    from kemps.server.limits import TokenBucket
    from kemps.server.room import Room
    from kemps.server.settings import Settings

log = logging.getLogger("kemps.server")
#: The messages this module handles (kemps.server.app hands them over before the seat's own
#: message rate is counted).
CAMERA_MESSAGES: Final = (CameraMessage, RtcMessage)


@dataclass
class CameraPeer:
    """A seat's camera connection: the connection, its ``peer`` id and its devices' states."""

    conn: Connection
    peer: str
    video: DeviceState
    audio: DeviceState

    def public(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "peer": self.peer, "video": self.video, "audio": self.audio}


class Cameras:
    """The video of one room's seated people (see the module text). ``clock``: monotonic seconds,
    for the signalling rate."""

    def __init__(self, room: Room, clock: Callable[[], float] = time.monotonic) -> None:
        self.room = room
        self.clock = clock
        self.peers: dict[int, CameraPeer] = {}
        # per seat, for the seat's holder (its token): messages and bytes
        self._buckets: dict[int, tuple[str | None, TokenBucket, TokenBucket]] = {}
        self.told: list[dict[str, Any]] = []  # what camera_seats last said
        # The SFU's rooms of this table (kemps.server.sfu), once made; the making under way.
        self.rooms: TableRooms | None = None
        self._making: asyncio.Task[None] | None = None

    # == messages from a connection ================================================================
    def receive(self, conn: Connection, message: CameraMessage | RtcMessage, size: int) -> None:
        """Handle a ``camera`` or ``rtc`` message of ``size`` bytes from ``conn``; every refusal
        is answered to ``conn`` alone and changes nothing.

        Refusals: ``not_seated`` (a spectator, or a token of another room: it watches here),
        ``no_camera`` (not a camera table), ``signal_flooding`` (the seat's rate or bytes),
        ``camera_off`` (an ``rtc`` from a connection that is not its seat's camera connection),
        ``peer_gone`` (no such camera connection at seat ``to`` now: it left or reloaded),
        ``sfu_table`` (this table's video goes through the SFU), ``bad_message`` (to itself).
        """
        try:
            self._receive(conn, message, size)
        except (ProtocolError, ServerError) as err:
            conn.push(error_message(err.code, err.message))

    def _receive(self, conn: Connection, message: CameraMessage | RtcMessage, size: int) -> None:
        seat = conn.seat
        if seat is None:
            raise ProtocolError("not_seated", "Only seated people take part in a camera "
                                "table's video; spectators see the table.")
        if not self.room.camera:
            raise ProtocolError("no_camera", "This room is not a camera table.")
        if not self._allow(seat, conn.token_hash, size):
            s = self.room.settings
            raise ProtocolError("signal_flooding", "Too many video set-up messages from your "
                                f"seat ({s.signal_per_s:g} a second, {s.signal_bytes_per_s:g} "
                                "bytes a second, with bursts on top); this one was dropped.")
        if isinstance(message, CameraMessage):
            self.join(conn, seat, message.video, message.audio)
        else:
            self.relay(conn, seat, message)

    def _allow(self, seat: int, holder: str | None, size: int) -> bool:
        from kemps.server.limits import TokenBucket

        found = self._buckets.get(seat)
        if found is None or found[0] != holder:
            s = self.room.settings
            found = self._buckets[seat] = (
                holder, TokenBucket(s.signal_burst, s.signal_per_s, self.clock),
                TokenBucket(s.signal_bytes_burst, s.signal_bytes_per_s, self.clock))
        _, count, size_bucket = found
        if count.take() > 0:
            return False
        if size_bucket.take(size) > 0:
            count.give_back()
            return False
        return True

    def join(self, conn: Connection, seat: int, video: DeviceState, audio: DeviceState) -> None:
        """``conn`` is now ``seat``'s camera connection (a newer window of the seat takes over
        from an older one), with these device states; it is sent ``camera_config`` the first
        time, and every seated connection ``camera_seats``."""
        peer = self.peers.get(seat)
        if peer is not None and peer.conn is conn:
            if (peer.video, peer.audio) == (video, audio):
                return  # nothing new: nobody is told again
            peer.video, peer.audio = video, audio
        else:
            peer = self.peers[seat] = CameraPeer(conn, secrets.token_hex(4), video, audio)
            if self.route == "sfu" and self.rooms is None:
                self._make_rooms()  # its camera_config comes once they are made
            else:
                conn.push(self.config_for(seat, peer))
        self.tell()

    def config_for(self, seat: int, peer: CameraPeer) -> dict[str, Any]:
        """The ``camera_config`` message for ``seat``'s camera connection ``peer``."""
        room = self.room
        settings = room.settings
        servers, expires = settings.ice.for_seat(f"{room.code}-{seat}", room.clock())
        sfu = None
        if self.rooms is not None and settings.sfu.url is not None:
            sfu = self.rooms.for_seat(settings.sfu.url, seat)
        return {"type": "camera_config", "peer": peer.peer, "route": self.route,
                "ice_servers": servers, "ice_transport_policy": settings.ice.policy,
                "expires_at": expires, "sfu": sfu}

    # == the SFU's rooms ===========================================================================
    def _make_rooms(self) -> None:
        if self._making is not None and not self._making.done():
            return
        self._making = asyncio.get_running_loop().create_task(self._make())

    async def _make(self) -> None:
        """Make the table's rooms on Janus, then send every camera connection its
        ``camera_config``; each is told ``sfu_unavailable`` if Janus does not answer."""
        room = self.room
        players = len(room.seats)
        try:
            rooms = await Janus(room.settings.sfu).make(room.code, players)
        except SfuError as err:
            log.warning("room %s: %s", room.code, err.message)
            for peer in self.peers.values():
                peer.conn.push(error_message(err.code, err.message + " The table plays on, "
                                             "without video; reload to try again."))
            return
        if not room.camera or len(room.seats) != players or self.route != "sfu":
            self._end(rooms)  # the table changed meanwhile
            return
        self.rooms = rooms
        for seat, peer in self.peers.items():
            peer.conn.push(self.config_for(seat, peer))

    def _end(self, rooms: TableRooms | None) -> None:
        """End the SFU's rooms of this table (in the background; Janus drops their members)."""
        if rooms is None:
            return
        janus = Janus(self.room.settings.sfu)

        async def end() -> None:
            try:
                await janus.end(rooms)
            except SfuError as err:
                log.warning("room %s: could not end its SFU rooms: %s", self.room.code,
                            err.message)

        try:
            asyncio.get_running_loop().create_task(end())
        except RuntimeError:  # no loop any more (shutdown): Janus ends them when it stops
            pass

    def close(self) -> None:
        """The room closes (archived, or the server stops): its SFU rooms end."""
        rooms, self.rooms = self.rooms, None
        self._end(rooms)

    @property
    def route(self) -> str:
        """``mesh`` or ``sfu``: how this table's video goes (:meth:`SfuConfig.route`)."""
        return self.room.settings.sfu.route(len(self.room.seats)) or "mesh"

    def relay(self, conn: Connection, seat: int, message: RtcMessage) -> None:
        """Pass ``message`` from ``seat``'s camera connection to seat ``message.to``'s."""
        mine = self.peers.get(seat)
        if mine is None or mine.conn is not conn:
            raise ProtocolError("camera_off", "This window does not take part in your seat's "
                                "video (send camera first; another window of your seat may "
                                "have taken over).")
        if self.route != "mesh":
            raise ProtocolError("sfu_table", "This table's video goes through the SFU; there is "
                                "nothing to relay.")
        if message.to == seat:
            raise ProtocolError("bad_message", "rtc message, field to: another seat, not yours.")
        theirs = self.peers.get(message.to)
        if theirs is None or theirs.peer != message.peer:
            raise ProtocolError("peer_gone", f"Seat {message.to + 1} has no such video "
                                "connection now (it left or reloaded); camera_seats says who "
                                "is in the video.")
        out: dict[str, Any] = {"type": "rtc", "from": seat, "peer": mine.peer,
                               "kind": message.kind}
        if message.kind == "candidate":
            out.update(candidate=message.candidate, mid=message.mid, mline=message.mline)
        else:
            out["sdp"] = message.sdp
        theirs.conn.push(out)

    # == the room's changes ========================================================================
    def prune(self) -> None:
        """Drop the camera connections that are no longer their seat's (closed, gone from the
        room, the seat cleared or given to someone else, the room no longer a camera table), and
        tell the seats when that changed anything. The room calls it whenever its seats or
        connections change (:meth:`Room.broadcast_room`)."""
        room = self.room
        for seat, peer in list(self.peers.items()):
            c = peer.conn
            if (not room.camera or c.closed or c not in room.conns or c.seat != seat
                    or seat >= len(room.seats) or room.seats[seat].kind != "human"):
                del self.peers[seat]
        self._buckets = {s: b for s, b in self._buckets.items() if s < len(room.seats)}
        if self.rooms is not None and (not room.camera or self.route != "sfu"
                                       or len(self.rooms.feeds) != len(room.seats)):
            self.close()  # no longer an SFU table of this size: new rooms at the next join
            if room.camera and self.route == "sfu" and self.peers:
                self._make_rooms()
        if self.public() != self.told:
            self.tell()

    def public(self) -> list[dict[str, Any]]:
        """Each seat in the video, by seat: ``{"seat", "peer", "video", "audio"}``."""
        return [self.peers[s].public(s) for s in sorted(self.peers)]

    def tell(self) -> None:
        """Send ``camera_seats`` to every seated connection (spectators: never)."""
        self.told = self.public()
        message = {"type": "camera_seats", "seats": self.told}
        for c in self.room.conns:
            if c.seat is not None:
                c.push(message)

    def welcome(self, conn: Connection) -> None:
        """A seated connection joined the room: what the video is now (it joins it itself),
        after its ``state``."""
        if self.room.camera and conn.seat is not None:
            self.room.send(conn, {"type": "camera_seats", "seats": self.public()})


def check_camera_table(settings: Settings, players: int) -> None:
    """A camera table of ``players`` needs a route for its video: the mesh up to
    ``mesh_max_players``, the SFU beyond (:meth:`kemps.server.camera.SfuConfig.route`).

    Raises:
        ServerError: ``camera_table_too_large`` (400) when the table is larger than the mesh
            serves and no SFU is set.
    """
    if settings.sfu.route(players) is None:
        raise ServerError("camera_table_too_large", f"A camera table of {players} players is "
                          f"more than peer-to-peer video serves here (at most "
                          f"{settings.sfu.mesh_max_players}, every player sending to every "
                          "other); the server has no SFU set (KEMPS_JANUS_URL).")
