"""Play any :class:`~kemps.bots.base.Bot` in a seat of a live room, over the room's WebSocket.

The table server's protocol (docs/protocol.md, "WebSocket") seen from a seat: the client decodes
the server's ``state`` and ``update`` messages back into the engine's objects
(:meth:`kemps.views.SeatView.from_dict`, :func:`kemps.events.event_from_dict`), tells the bot
what its seat sees exactly as :class:`kemps.driver.MatchDriver` does in the simulator
(``on_view`` with the full view on ``state``, ``on_events`` with each update's events,
``on_rejected`` for a refused action), and runs the bot's :class:`~kemps.bots.base.Plan`s on the
local clock: a newer plan on a channel replaces the older, and the seat sends no two actions
within ``min_gap_s`` (:data:`kemps.driver.MIN_GAP_S`, the simulator's pace of a bot's hands).
Actions go out as ``{"type": "action", "id": N, "action": {...}}`` without ``seat`` (the
server adds the seat of the token).

Time: every event carries table time ``t`` (seconds since the match started, on the server's
clock). The client keeps ``offset`` = local monotonic time minus table time, the smallest seen
over the ``state``'s ``room.now``, each ``pong``'s ``now`` and each update's newest event (each is
at most the network's delay late), so :meth:`TableClient.table_now` is the table's clock as
this seat can know it. A ``paused`` table (the server cannot store moves) stops its clock and
the bot's plans wait; on ``resumed`` the pause is added to the offset and they go on. A new
match (a ``state`` as it starts) starts the clock afresh.

It does not reconnect: a closed connection ends :meth:`TableClient.run`. It needs no server
internals, only the engine and ``websockets``::

    client = TableClient(ws_base, code, token, lambda seat, rules: make_bot("club", seat, rules,
                                                                             random.Random(1)))
    await client.run()             # until the match ends (or the connection closes)
    client.bot, client.events       # the bot, and every event this seat was told, in order
"""

from __future__ import annotations

import asyncio
import heapq
import json
from collections.abc import Callable
from typing import Any

from kemps.actions import Action, action_to_dict
from kemps.bots.base import Bot, Plan
from kemps.driver import MIN_GAP_S
from kemps.errors import Rejected
from kemps.events import Event, MatchEnded, event_from_dict
from kemps.rules import RuleSet
from kemps.views import SeatView

#: Builds the seat's bot once the seat and the room's rules are known (the first ``state``).
BotMaker = Callable[[int, RuleSet], Bot]


class TableClient:
    """One seat of room ``code`` played by a bot, over ``{ws_base}/ws/{code}?token={token}``.

    ``ws_base`` is the server's WebSocket address (``ws://127.0.0.1:8000``); ``token`` the
    seat's token (``POST /api/rooms`` or ``.../seats``). ``make_bot(seat, rules)`` makes the
    bot on the first ``state``. ``auto_ready``: say ``ready`` once each time the table goes
    between hands (as the page's "Play against bots" does), so the deal comes after the short
    huddle. ``until_match_end``: :meth:`run` returns once a ``match_ended`` event came.

    Read after (or during) :meth:`run`: ``bot``, ``seat``, ``rules``, ``room`` (the room's
    public state, last told), ``view`` (the seat's view, last told), ``events`` (every event
    told, decoded, in order), ``sent`` / ``accepted`` / ``refused`` (actions sent, acknowledged
    ``ok``, and answered ``rejected`` or ``error``), ``errors`` (the ``error`` messages, as
    ``(code, message)``), ``paused`` (the table is paused now), ``ended`` (a ``match_ended``
    event was told). With ``until_match_end`` a ``room`` message saying the room's match is
    finished also ends :meth:`run`.
    """

    def __init__(self, ws_base: str, code: str, token: str, make_bot: BotMaker, *,
                 auto_ready: bool = True, until_match_end: bool = True,
                 min_gap_s: float = MIN_GAP_S) -> None:
        self.url = f"{ws_base.rstrip('/')}/ws/{code}?token={token}"
        self.code = code
        self.make_bot = make_bot
        self.auto_ready = auto_ready
        self.until_match_end = until_match_end
        self.min_gap_s = min_gap_s
        self.bot: Bot | None = None
        self.seat: int | None = None
        self.rules: RuleSet | None = None
        self.room: dict[str, Any] = {}
        self.stated = False  # a ``state`` message came: ``seat`` says whose token this is
        self.view: SeatView | None = None
        self.events: list[Event] = []
        self.sent = 0
        self.accepted = 0
        self.refused = 0
        self.errors: list[tuple[str, str]] = []
        self.paused = False
        self.ended = False
        self.offset: float | None = None  # local monotonic seconds minus table seconds
        self._paused_at = 0.0
        self._ready_for: tuple[Any, int] | None = None  # (match, hand) said ready for
        # plans: heap of (table time due, seq, channel, generation, action); live while its
        # generation is the newest for its channel (kemps.driver's rule).
        self._queue: list[tuple[float, int, str, int, Action]] = []
        self._generation: dict[str, int] = {}
        self._seq = 0
        self._last_send = -float("inf")
        self._pending: dict[int, Action] = {}
        self._next_id = 0
        self._wake = asyncio.Event()
        self._ws: Any = None
        self._over = asyncio.Event()

    # == the clock =================================================================================
    @staticmethod
    def _local() -> float:
        return asyncio.get_running_loop().time()

    def table_now(self) -> float:
        """The table's clock now, in table seconds, as this seat knows it (0 before any)."""
        if self.offset is None:
            return 0.0
        return (self._paused_at if self.paused else self._local()) - self.offset

    def _observe(self, table_t: float | None) -> None:
        """A table time the server stamped at most a network delay ago."""
        if table_t is None or self.paused:
            return
        candidate = self._local() - table_t
        if self.offset is None or candidate < self.offset:
            self.offset = candidate

    # == running ===================================================================================
    async def run(self, timeout_s: float | None = None) -> None:
        """Connect, play until the match ends (``until_match_end``), the connection closes or
        :meth:`stop` is called, then close.

        Raises:
            TimeoutError: ``timeout_s`` passed first.
            KempsError: ``bad_event`` / ``bad_view`` for a message the decoders cannot read
                (a server of another protocol version).
        """
        import websockets

        async with websockets.connect(self.url, max_size=2**22) as ws:
            self._ws = ws
            reader = asyncio.create_task(self._read(ws))
            player = asyncio.create_task(self._play())
            over = asyncio.create_task(self._over.wait())
            try:
                await ws.send(json.dumps({"type": "ping", "id": 0}))
                done, _ = await asyncio.wait({reader, over}, timeout=timeout_s,
                                             return_when=asyncio.FIRST_COMPLETED)
                if not done:
                    raise TimeoutError(f"room {self.code}: no end of the match in {timeout_s} s")
                if reader in done and reader.exception() is not None:
                    raise reader.exception()  # type: ignore[misc]
            finally:
                # The loops end by themselves once _over is set (a cancellation can be lost in
                # Python 3.11's wait_for), and are cancelled besides.
                self._over.set()
                self._wake.set()
                for task in (reader, player, over):
                    task.cancel()
                await asyncio.wait({reader, player, over}, timeout=5.0)
                self._ws = None

    def stop(self) -> None:
        """End :meth:`run` (it closes the connection)."""
        self._over.set()

    async def _read(self, ws: Any) -> None:
        import websockets

        try:
            async for raw in ws:
                await self.handle(json.loads(raw))
                if self._over.is_set():
                    return
        except websockets.ConnectionClosed:
            return

    async def handle(self, message: dict[str, Any]) -> None:
        """Take one server message (decoded JSON); public so that a test can feed one."""
        kind = message.get("type")
        if kind == "state":
            self.room = message.get("room") or self.room
            self.seat = message.get("seat")
            self.stated = True
            self.offset = None  # a new match restarts the table clock
            self._observe(self.room.get("now"))
            if self.room.get("rules"):
                self.rules = RuleSet.from_dict(self.room["rules"])
            if message.get("view") is not None:
                self.view = SeatView.from_dict(message["view"])
            if self.bot is None and self.seat is not None and self.rules is not None:
                self.bot = self.make_bot(self.seat, self.rules)
            if self.bot is not None and self.view is not None:
                self._schedule(self.bot.on_view(self.view, self.table_now()))
            await self._maybe_ready()
        elif kind == "update":
            events = [event_from_dict(e) for e in message.get("events", [])]
            if events:
                self._observe(max(e.t for e in events))
            if message.get("view") is not None:
                self.view = SeatView.from_dict(message["view"])
            self.events += events
            if self.bot is not None and events:
                now = max(self.table_now(), max(e.t for e in events))
                self._schedule(self.bot.on_events(events, now))
            await self._maybe_ready()
            if any(isinstance(e, MatchEnded) for e in events):
                self.ended = True
                if self.until_match_end:
                    self._over.set()
        elif kind == "room":
            self.room = message.get("room") or self.room
            await self._maybe_ready()
            if (self.until_match_end and self.view is not None
                    and self.room.get("status") == "finished"):
                self._over.set()  # (its match_ended came before, in an update)
        elif kind == "ok":
            if self._pending.pop(message.get("id", -1), None) is not None:
                self.accepted += 1
        elif kind in ("rejected", "error"):
            code, text = str(message.get("code")), str(message.get("message"))
            if kind == "error":
                self.errors.append((code, text))
            action = self._pending.pop(message.get("id", -1), None)
            if action is not None:
                self.refused += 1
                if self.bot is not None:
                    self._schedule(self.bot.on_rejected(action, Rejected(code, text),
                                                        self.table_now()))
        elif kind == "paused":
            if not self.paused:
                self.paused = True
                self._paused_at = self._local()
        elif kind == "resumed":
            if self.paused:
                self.paused = False
                if self.offset is not None:
                    self.offset += self._local() - self._paused_at
                self._wake.set()
        elif kind == "pong":
            self._observe(message.get("now"))

    async def _maybe_ready(self) -> None:
        if not self.auto_ready or self.view is None or self.view.phase != "huddle":
            return
        key = (self.room.get("match_no"), self.view.hand_no)
        seats = self.room.get("seats") or []
        me = seats[self.seat] if self.seat is not None and self.seat < len(seats) else {}
        if self._ready_for == key or me.get("ready"):
            return
        self._ready_for = key
        await self._send({"type": "ready"})

    async def _send(self, message: dict[str, Any]) -> None:
        if self._ws is not None:
            await self._ws.send(json.dumps(message))

    # == plans =====================================================================================
    def _schedule(self, plans: list[Plan]) -> None:
        now = self.table_now()
        for plan in plans:
            gen = self._generation.get(plan.channel, 0) + 1
            self._generation[plan.channel] = gen
            if plan.action is None:
                continue  # a cancellation: the pending plan on this channel is stale now
            self._seq += 1
            heapq.heappush(self._queue, (now + plan.delay, self._seq, plan.channel, gen,
                                         plan.action))
        self._wake.set()

    async def _play(self) -> None:
        """Send each live plan when it is due (table time), one per ``min_gap_s`` at most."""
        queue = self._queue
        while not self._over.is_set():
            self._wake.clear()
            while queue and self._generation.get(queue[0][2]) != queue[0][3]:
                heapq.heappop(queue)  # replaced by a newer plan
            if not queue or self.paused or self.offset is None:
                await self._wake.wait()
                continue
            due = max(queue[0][0] + self.offset, self._last_send + self.min_gap_s)
            wait = due - self._local()
            if wait > 0:
                woken = asyncio.ensure_future(self._wake.wait())
                try:
                    await asyncio.wait({woken}, timeout=wait)
                finally:
                    woken.cancel()
                continue
            action = heapq.heappop(queue)[4]
            self._last_send = self._local()
            await self.act(action)

    async def act(self, action: Action) -> None:
        """Send ``action`` now (its ``seat`` left out); a refusal reaches the bot's
        ``on_rejected``."""
        body = action_to_dict(action)
        body.pop("seat", None)
        self._next_id += 1
        self._pending[self._next_id] = action
        self.sent += 1
        await self._send({"type": "action", "id": self._next_id, "action": body})


__all__ = ["BotMaker", "TableClient"]
