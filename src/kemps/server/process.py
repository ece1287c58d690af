"""One server process: its live rooms, its storage and the group-committing, ordered writer.

:class:`Server` holds the rooms of this process (created, restored at start, taken over by the
cluster with many nodes, archived when idle), pauses every table while storage is away and writes
a rescue dump when the database is gone. The HTTP routes (:mod:`kemps.server.api`) and the
table's WebSocket (:mod:`kemps.server.app`) reach it as ``app.state.server``; the cluster
(:mod:`kemps.server.cluster`) knows it only as its ``Host``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import time
from collections.abc import Callable
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any

from kemps.errors import KempsError
from kemps.rules import RuleSet
from kemps.server import limits, rescue
from kemps.server.errors import ServerError
from kemps.server.limits import Limits
from kemps.server.lobby import new_code
from kemps.server.room import Room
from kemps.server.settings import Settings
from kemps.server.storage import Storage, Writer
from kemps.server.tables import OpenTables

if TYPE_CHECKING:
    from kemps.server.cluster import Cluster

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
        self.dumped: FilePath | None = None  # the rescue dump written for a vanished database
        if settings.redis_url:
            from kemps.server.cluster import Cluster

            self.cluster = Cluster(self)
        # Open tables, quick match and each seat's lag (issue 32, kemps.server.tables).
        self.tables = OpenTables(self)

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
        batches = self.storage.batches
        if not healthy and batches is not None and batches.vanished and self.dumped is None:
            self.dumped = self.rescue("the database file was deleted or replaced")

    def rescue(self, reason: str) -> FilePath | None:
        """Write a rescue dump of every room held here (:mod:`kemps.server.rescue`): what the
        server acknowledged, saved when its database may not have it."""
        return rescue.write_dump(list(self.rooms.values()), reason, self.settings.database_url,
                                 self.storage.database_id,
                                 rescue.rescue_dir(self.settings.database_url))

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

    def adopt(self, room: Room) -> Room:
        """Hold ``room`` on this node: its finish reported to the listeners, its limits tracked
        (a new or restored room, or one the cluster took over); returns it."""
        room.on_finished = self._finished
        self.rooms[room.code] = room
        self.limits.track(room)
        return room

    async def start(self) -> None:
        """Migrate the database, restore every live room (not archived; at most ``max_rooms``, the
        most recently used), start the writer and the sweep for idle rooms."""
        await self.storage.start(check=True, accept=self.settings.accept_database)
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
            # an operator's way to save what the server holds at any time (e.g. a PostgreSQL
            # database dropped under it): kill -USR1 PID writes a rescue dump (not on Windows,
            # nor off the main thread)
            asyncio.get_running_loop().add_signal_handler(
                signal.SIGUSR1, lambda: self.rescue("asked for (SIGUSR1)"))
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
            self.tables.start()
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
                self.adopt(Room.broken(row, message, self.settings, self.writer, self.clock))
                continue
            self.adopt(room).resume()
        gc.collect()
        gc.freeze()  # the restored rooms' tables and records too: long-lived, never garbage
        self.tables.start()
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
        await self.tables.stop()
        for task in (self._clock_task, self._sweeper):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for room in self.rooms.values():
            room.close()
            if room.status == "playing" and not room.paused:
                self.writer.clock(room.code, room.now())
        if not await self.writer.stop(STOP_WRITE_S) or not self.writer.healthy:
            # stopped while storage was away: what it may not have is saved
            self.rescue("the server stopped while storage was away")
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
            self.adopt(room)
            made = True
            return room
        finally:
            self.limits.made(bucket, made)
