"""Open tables (issue 32): rooms their host lists publicly, the list, quick match, and a person
taking a bot's seat between hands.

A room is unlisted until its host lists it (``"listed": true`` when it is made, or ``PUT
/api/rooms/{code}/listed`` later). ``GET /api/tables`` lists the listed rooms that have a free
seat (an open seat, or a bot's seat a person may take over), oldest listing first, at most
:data:`MAX_TABLES`. One client address keeps at most :data:`MAX_LISTED_PER_ADDRESS` rooms listed
at once on a node (``too_many_listed``, 429).

With many nodes (``KEMPS_REDIS_URL``) every node publishes its listed rooms to Redis every
:data:`PUBLISH_EVERY_S` (the hash ``kemps:tables:{node}``, expiring :data:`TABLES_TTL_S` after the
node's last publish, so a dead node's tables go with it), and the list is read from there with
this node's own rooms as they are now on top. A listing lives as long as the room stays on its
node: it is not stored, so a room restored after a restart or taken over by another node is
unlisted again (its host lists it again).

Quick match (:meth:`OpenTables.quick`) seats a person at the best joinable listed table of the
preset asked for (most people first, then the oldest listing), else opens a new listed room with
bots in the other seats, started, and seats them there as its host.

A person takes a bot's seat (:func:`take_bot_seat`) in the lobby or between hands (the huddle),
never during a hand: ``not_between_hands`` (409). The bot's name stays on the table's score sheet
until the match ends (a match's names are its record's); the room's seats show the person's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any, Final

from kemps.rules import RuleSet
from kemps.server.errors import ServerError
from kemps.server.lag import PROBE_EVERY_S
from kemps.server.limits import LimitError
from kemps.server.lobby import Seat, token_hash
from kemps.server.room import Room

if TYPE_CHECKING:
    from kemps.server.process import Server

log = logging.getLogger("kemps.server")

#: Rooms one client address may keep listed at once (on one node).
MAX_LISTED_PER_ADDRESS: Final = 3
#: The most tables ``GET /api/tables`` answers with.
MAX_TABLES: Final = 100
#: How often a node publishes its listed rooms to Redis (many nodes), seconds.
PUBLISH_EVERY_S: Final = 1.0
#: A node's published list expires this long after its last publish, seconds.
TABLES_TTL_S: Final = 3.0
#: The bots quick match seats in a new room.
QUICK_BOT_LEVEL: Final = "club"
KEY: Final = "kemps:tables:"


def joinable(room: Room) -> bool:
    """Whether a person may sit at ``room`` now: in the lobby, after a match, or between hands."""
    if room.status in ("lobby", "finished"):
        return True
    driver = room.driver
    return room.status == "playing" and driver is not None and driver.table.phase == "huddle"


def phase(room: Room) -> str:
    """``lobby``, ``finished``, or while a match is on the table's phase (``huddle`` between
    hands, ``dealt``, ``play``, ...)."""
    if room.status == "playing" and room.driver is not None:
        return str(room.driver.table.phase)
    return room.status


def entry(room: Room, listed_at: float) -> dict[str, Any]:
    """One open table as ``GET /api/tables`` lists it: ``code``, ``preset`` (the rule set's
    name), ``pairs``, ``seats`` (how many), ``seats_free`` (open seats and bots' seats a person
    may take), ``open`` (empty seats), ``players`` (the people's names, by seat), ``bots`` (the
    bots' names), ``status``, ``phase``, ``joinable`` (a person may sit now), ``listed_at``
    (Unix seconds)."""
    people = [s.name for s in room.seats if s.kind == "human"]
    bots = [s.name for s in room.seats if s.kind == "bot"]
    empty = sum(1 for s in room.seats if s.kind == "open")
    return {"code": room.code, "preset": room.rules.name, "pairs": room.rules.pairs,
            "seats": len(room.seats), "seats_free": empty + len(bots), "open": empty,
            "players": people, "bots": bots, "status": room.status, "phase": phase(room),
            "joinable": joinable(room), "listed_at": listed_at}


def take_bot_seat(room: Room, seat: int, name: str, player: str | None = None) -> str:
    """A person (``player``: their public player id, None: a guest) takes the seat a bot holds,
    in the lobby or between hands; returns the seat's token. Mid-match the bot leaves the table at once (its plans with it) and the person plays
    from the next deal; the deal waits for them as for anyone (``huddle_s``).

    Raises:
        ServerError: ``no_such_seat``, ``bad_name``, ``seat_taken`` (409: not a bot's seat),
            ``not_between_hands`` (409: a hand is being played), ``storage_unavailable``.
    """
    room._check_seat_index(seat)
    room.require_storage()
    name = name.strip()
    if not 1 <= len(name) <= 40:
        raise ServerError("bad_name", "A name has 1 to 40 characters.")
    if room.seats[seat].kind != "bot":
        raise ServerError("seat_taken", f"Seat {seat + 1} is not a bot's.", 409)
    playing = room.status == "playing"
    if playing:
        driver = room.driver
        if driver is None or driver.table.phase != "huddle":
            raise ServerError("not_between_hands", "A hand is being played; a bot's seat can "
                              "be taken between hands.", 409)
        driver.unseat_bot(seat)
    token = secrets.token_urlsafe(24)
    room.seats[seat] = Seat(name=name, kind="human", token_hash=token_hash(token), player=player)
    if room.seats[room.host_seat].kind != "human":
        room.host_seat = seat
    room.lag.forget_seat(seat)
    room._lobby_changed()
    if playing:
        room._watch_away(seat)  # never connected: a stand-in after the grace time, as anyone
        room._arm()
    return token


def seat_player(key: str | None) -> str | None:
    """The public player id of the key a person sits with (None: a guest; issue 32)."""
    from kemps.server.players import player_id  # the ratings' module, loaded on first use

    return None if key is None else player_id(key)


def free_seat(room: Room, seat: int | None) -> int:
    """The seat a person joining ``room`` takes: ``seat`` if given, else the first empty seat,
    else the first bot's. Raises ServerError ``table_full`` (409)."""
    if seat is not None:
        return seat
    for kind in ("open", "bot"):
        for i, s in enumerate(room.seats):
            if s.kind == kind:
                return i
    raise ServerError("table_full", "Every seat of that table is a person's.", 409)


class OpenTables:
    """The listed rooms of one server process, their list (from Redis with many nodes), quick
    match, and the lag probes of every room (:mod:`kemps.server.lag`)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        #: code -> (the address that listed it, when: Unix seconds)
        self.listings: dict[str, tuple[str | None, float]] = {}
        self._tasks: list[asyncio.Task[None]] = []

    # == listing ===================================================================================
    def check_address(self, address: str | None) -> None:
        """Raises LimitError ``too_many_listed`` (429) when ``address`` keeps
        :data:`MAX_LISTED_PER_ADDRESS` rooms listed already."""
        self._prune()
        if address is None:
            return
        held = sum(1 for who, _ in self.listings.values() if who == address)
        if held >= MAX_LISTED_PER_ADDRESS:
            raise LimitError("too_many_listed", f"Your address keeps {MAX_LISTED_PER_ADDRESS} "
                             "rooms listed already; unlist one first.", 429, retry_after_s=60.0)

    def set_listed(self, room: Room, listed: bool, address: str | None) -> None:
        """List ``room`` publicly or not (everyone at it is told: the room's ``listed``).

        Raises:
            LimitError: ``too_many_listed`` (429); ServerError ``room_broken`` (409);
                nothing changed.
        """
        if room.status == "broken":
            raise ServerError("room_broken", "This room could not be restored.", 409)
        if listed and not room.listed:
            self.check_address(address)
            self.listings[room.code] = (address, self.server.clock())
        elif not listed:
            self.listings.pop(room.code, None)
        if room.listed != listed:
            room.listed = listed
            room.broadcast_room()

    def _prune(self) -> None:
        rooms = self.server.rooms
        for code in [c for c in self.listings if c not in rooms or not rooms[c].listed]:
            del self.listings[code]

    def local(self) -> list[dict[str, Any]]:
        """This node's listed rooms that have a free seat, as :func:`entry` gives them."""
        self._prune()
        out = []
        for code, (_, at) in self.listings.items():
            room = self.server.rooms[code]
            if room.status != "broken":
                item = entry(room, at)
                if item["seats_free"] > 0:
                    out.append(item)
        return out

    async def tables(self, preset: str | None = None) -> list[dict[str, Any]]:
        """The open tables (of ``preset``, a rule set's name, if given): oldest listing first,
        then by code, at most :data:`MAX_TABLES`. With many nodes, every node's (Redis), this
        node's own as they are now."""
        found = {t["code"]: t for t in await self._published()}
        found.update({t["code"]: t for t in self.local()})
        out = [t for t in found.values() if preset is None or t["preset"] == preset]
        out.sort(key=lambda t: (t["listed_at"], t["code"]))
        return out[:MAX_TABLES]

    async def _published(self) -> list[dict[str, Any]]:
        cluster = self.server.cluster
        if cluster is None:
            return []
        redis = cluster.nodes.redis
        out: list[dict[str, Any]] = []
        for node in await cluster.nodes.nodes():
            if node.id == cluster.nodes.id:
                continue
            for text in (await redis.hgetall(KEY + node.id)).values():
                try:
                    item = json.loads(text)
                except ValueError:
                    continue
                if isinstance(item, dict) and isinstance(item.get("code"), str):
                    out.append(item)
        return out

    async def publish(self) -> None:
        """Put this node's open tables in Redis (many nodes; else nothing)."""
        cluster = self.server.cluster
        if cluster is None:
            return
        key = KEY + cluster.nodes.id
        mine = {t["code"]: json.dumps(t) for t in self.local()}
        async with cluster.nodes.redis.pipeline(transaction=True) as p:
            p.delete(key)
            if mine:
                p.hset(key, mapping=mine)
                p.pexpire(key, int(TABLES_TTL_S * 1000))
            await p.execute()

    # == joining ===================================================================================
    def join_here(self, room: Room, name: str, seat: int | None, address: str | None,
                  player: str | None = None) -> dict[str, Any]:
        """Seat a person at this node's listed ``room``: an empty seat, else a bot's (see
        :func:`free_seat`, :func:`take_bot_seat`). Returns ``{"code", "seat", "token", "room"}``.

        Raises:
            ServerError: ``not_listed`` (409), ``table_full``, ``seat_taken``,
                ``not_between_hands``, ``not_in_lobby`` (409), ``too_many_seats`` (429), ...
        """
        if not room.listed:
            raise ServerError("not_listed", "That room is not an open table; join it with "
                              "its code.", 409)
        chosen = free_seat(room, seat)
        limits = self.server.limits
        limits.check_seat(room, address)
        room._check_seat_index(chosen)
        if room.seats[chosen].kind == "bot":
            token = take_bot_seat(room, chosen, name, player)
        else:
            token = room.take_seat(chosen, name, player)
        limits.seat_taken(room, chosen, address)
        return {"code": room.code, "seat": chosen, "token": token, "room": room.public()}

    async def _join_anywhere(self, code: str, name: str, address: str | None,
                             forwarded_for: str | None, key: str | None = None
                             ) -> dict[str, Any]:
        """Join the open table ``code`` on whichever node owns it."""
        cluster = self.server.cluster
        if cluster is not None and code not in self.server.rooms:
            url = await cluster.locate(code)
            if url is not None:
                import httpx

                headers = {"x-kemps-forwarded": cluster.nodes.id}
                if forwarded_for:
                    headers["x-forwarded-for"] = forwarded_for
                async with httpx.AsyncClient(timeout=20.0) as http:
                    answer = await http.post(f"{url}/api/rooms/{code}/join",
                                             json={"name": name} if key is None else
                                             {"name": name, "player_key": key},
                                             headers=headers)
                if answer.status_code != 200:
                    body = answer.json() if answer.headers.get("content-type", "").startswith(
                        "application/json") else {}
                    raise ServerError(str(body.get("code", "room_moving")),
                                      str(body.get("message", "try again")), answer.status_code)
                out: dict[str, Any] = answer.json()
                return out
        room = await self.server.open_room(code)
        return self.join_here(room, name, None, address, seat_player(key))

    async def quick(self, rules: RuleSet, name: str, address: str | None,
                    forwarded_for: str | None = None, key: str | None = None
                    ) -> dict[str, Any]:
        """Quick match: seat ``name`` at the best joinable open table playing ``rules.name``
        (most people first, then the oldest listing), else open a new listed room of ``rules``
        with bots (:data:`QUICK_BOT_LEVEL`) in the other seats, start its match (the first deal
        waits for the person's Ready, as at any table) and seat them as its host. Returns
        ``{"code", "seat", "token", "room", "quick": "joined" | "opened"}``.

        Raises:
            LimitError: ``too_many_listed``, ``too_many_rooms`` (429), ``rooms_full`` (503)
                when a new room is needed; nothing changed.
        """
        candidates = [t for t in await self.tables(rules.name)
                      if t.get("joinable") and int(t.get("seats_free", 0)) > 0]
        candidates.sort(key=lambda t: (-len(t.get("players") or []), t["listed_at"], t["code"]))
        for table in candidates[:5]:
            try:
                joined = await self._join_anywhere(table["code"], name, address, forwarded_for,
                                                   key)
            except ServerError as err:
                if err.status in (409, 404, 410, 503):
                    continue  # taken, mid-hand or gone since it was listed: the next one
                raise
            return {**joined, "quick": "joined"}
        self.check_address(address)
        room = await self.server.create_room(rules, address)
        token = room.take_seat(0, name, seat_player(key))
        self.server.limits.seat_taken(room, 0, address)
        room.host_seat = 0
        room.fill_with_bots(QUICK_BOT_LEVEL)
        room.start()
        self.set_listed(room, True, address)
        return {"code": room.code, "seat": 0, "token": token, "room": room.public(),
                "quick": "opened"}

    # == the loops =================================================================================
    def start(self) -> None:
        """Start the lag probes and (many nodes) the publishing of this node's open tables."""
        self._tasks.append(asyncio.create_task(self._probe_loop()))
        if self.server.cluster is not None:
            self._tasks.append(asyncio.create_task(self._publish_loop()))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    async def _probe_loop(self) -> None:
        while True:
            await asyncio.sleep(PROBE_EVERY_S)
            try:
                for room in list(self.server.rooms.values()):
                    room.lag.probe(room.conns, len(room.seats))
            except Exception:  # the probes must go on
                log.exception("lag probes failed")

    async def _publish_loop(self) -> None:
        quiet_since: float | None = None
        while True:
            try:
                await self.publish()
                quiet_since = None
            except Exception:  # noqa: BLE001 - Redis away: said once, tried again each second
                if quiet_since is None:
                    log.warning("could not publish the open tables to Redis")
                    quiet_since = time.monotonic()
            await asyncio.sleep(PUBLISH_EVERY_S)


__all__ = ["MAX_LISTED_PER_ADDRESS", "MAX_TABLES", "OpenTables", "entry", "free_seat",
           "joinable", "take_bot_seat"]
