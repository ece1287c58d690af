"""One room: its lobby (:mod:`kemps.server.lobby`) and the one authoritative table that arbitrates
every action, driven by the match driver (:class:`kemps.driver.MatchDriver`).

The room applies actions strictly in the order they reach the server, each stamped with the
server's clock (seconds since the room's epoch): applying an action, queueing its record entry and
building every seat's update happen in one synchronous step, so nothing can interleave. The first
swap or call to arrive wins; later ones are answered with the engine's rejection and see the
applied state. Whatever the driver has due before an action (a bot's move, a table timer, the
deal) is run first, at its own time.

The driver owns the policy (bots' plans, the gap between a seat's moves, the huddle and the deal,
the table's timers, the stuck-hand guard); the room only arms one asyncio timer at
:meth:`MatchDriver.next_wake`, runs :meth:`MatchDriver.wake` when it fires, stores each step and
broadcasts it. Pausing is cancelling that timer; resuming is arming it again.

Nothing is told before it is durable: every message the room sends (``ok``, ``update``, ``room``,
``state``, rejections) is held back until the record entries queued before it are committed (group
commit, :class:`kemps.server.storage.Writer`), then released in order. While storage cannot commit,
the room is *paused*: the table clock is frozen, timers and bots wait, new actions are refused
(``storage_unavailable``; ``storage_busy`` when the writer's queue is full); actions applied before
the fault stay un-acknowledged until their entries are committed when storage returns.

Every message to a client is built from :func:`kemps.views.view_for` and
:func:`kemps.messages.events_out` (the seat's events from :mod:`kemps.views`, with the spectator's
hold rule) for that client's seat (or as a spectator): no other hand, no stock order and no other
pair's signals ever leave the room before the rules reveal them.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import random
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final, Literal

from kemps.actions import (
    AgreeSignals,
    Call,
    Deal,
    Grab,
    LookAt,
    RuleTableTalk,
    Swap,
    action_from_dict,
    action_to_dict,
)
from kemps.bots.base import Bot
from kemps.driver import MatchDriver, Step
from kemps.errors import KempsError, RecordError, Rejected
from kemps.events import Event, HandEnded, MatchEnded
from kemps.messages import events_json, events_out, referee_events_out, seat_json
from kemps.record import Recorder, match_summary
from kemps.rules import RuleSet
from kemps.server.connections import Connection
from kemps.server.errors import STORAGE_WAIT_MESSAGES, ServerError
from kemps.server.lag import SeatLag
from kemps.server.lobby import Lobby, Seat, make_bot, token_hash
from kemps.server.protocol import PROTOCOL_VERSION, error_message
from kemps.server.settings import Settings
from kemps.server.signalling import Cameras
from kemps.server.storage import Writer
from kemps.views import (
    RefusedTouch,
    check_spectator_look,
    private_step,
    public_fields,
    referee_view,
    spectator_glance,
    view_for,
)

HELD_LIMIT: Final = 20_000  # messages a room holds for storage; beyond, a client asking is cut off
STORAGE_RETRY_S: Final = 0.5  # while the writer refuses, the driver's next wake waits this long
WAKE_SLACK_S: Final = 0.001
REFUSED_TOUCHES_KEPT: Final = 500  # a hand's refused touches the referee is shown, at most
LATE_CALLS_KEPT: Final = 500  # refused calls a match record keeps for the tell  # the timer fires this much after what is due (clock granularity)


def update_text(version: int, stamp: float | str, events_json: str, public_json: str,
                seat_json: str) -> str:
    """An ``update`` message's text, spliced from its parts: the events as the seat sees them,
    the public part of the view (:meth:`kemps.views.SeatView.public_dict`, encoded once for
    every seat) and the seat's own part (:meth:`~kemps.views.SeatView.seat_dict`). The same
    JSON as encoding ``{"type": "update", "version", "server_time", "events", "view"}`` whole
    (``tests/test_view_json.py``). ``stamp``: seconds, or their JSON text already made."""
    if stamp.__class__ is not str:
        stamp = json.dumps(stamp)
    return (f'{{"type": "update", "version": {version}, "server_time": {stamp}, '
            f'"events": {events_json}, "view": {{{public_json[1:-1]}, {seat_json[1:-1]}}}}}')


class Room(Lobby):
    """A room's lobby and its authoritative table.

    ``clock`` gives wall-clock seconds (``time.time`` by default); the table's time is
    ``clock() - epoch``. ``writer`` queues what must be stored (:class:`storage.Writer`).
    ``driver`` is the match being played (or the last one), None before the first.
    """

    def __init__(self, code: str, rules: RuleSet, settings: Settings, writer: Writer,
                 clock: Callable[[], float] = time.time) -> None:
        self.code = code
        self.rules = rules
        self.settings = settings
        self.writer = writer
        self.clock = clock
        self.seats = [Seat() for _ in range(rules.players)]
        self.host_seat = 0
        self.status: Literal["lobby", "playing", "finished", "broken"] = "lobby"
        self.error: str | None = None  # why a "broken" room's record could not be replayed
        self.match_no = 0
        self.first_dealer = 0
        self.epoch = clock()
        self.created_at = clock()
        self.driver: MatchDriver | None = None
        self.conns: set[Connection] = set()
        # Deals come from the operating system's generator: finished matches publish their deal
        # orders, which must not let anyone work out the next one.
        self.rng: random.Random = secrets.SystemRandom()
        self.seq = 0
        # The current match's timer batches (seq, table time): with the record's actions, every
        # stored step of the match, rebuilt without keeping each step (steps(): a rescue dump).
        self.ticks: list[tuple[int, float]] = []
        self.last_match_id: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.TimerHandle | None = None
        self._wake_at: float | None = None
        # Called with (room, summary) when a match ends; the server fans it out to listeners
        # such as the tournament desk (a tournament match played online reports by itself).
        self.on_finished: Callable[[Room, dict[str, Any]], None] | None = None
        # A tournament match played online keeps the tournament's rules (set by the desk).
        self.rules_locked = False
        # Durable acknowledgement: messages wait here (with the writer ticket they need) until
        # what the room queued before them is committed.
        self._ticket = 0
        self._held: deque[tuple[int, Connection, str]] = deque()
        self._frozen_at: float | None = None  # table time while paused (storage unavailable)
        self._last_t = 0.0  # table time of the last step applied
        # The host may turn spectators off (kemps.server.limits enforces it and their number).
        self.spectators_allowed = True
        # The referee: a person sitting as the dealer who is not playing (S2 tournament row 7),
        # (name, token hash), or None (the table's own timers are that dealer). Kept in memory:
        # after a restart the referee sits again.
        self.referee: tuple[str, str] | None = None
        self._refused_touches: list[RefusedTouch] = []  # this hand's touches of a card gone
        # The host's choice of bot speed; None: relaxed with people at the table, else each
        # level's own (see bot_speed).
        self.chosen_bot_speed: str | None = None
        # A seated person gone longer than settings.away_grace_s mid-match gets a stand-in bot
        # (of this level; None: the level most bots in the room play, else club).
        self.stand_in_level: str | None = None
        self._away: dict[int, asyncio.TimerHandle] = {}
        # Many nodes: this node's fencing token for the room (0: a single node); see
        # kemps.server.nodes.
        self.fence = 0
        # A camera table (issue 24): its seated people's video, set up through the room's socket.
        self.camera = False
        self.cameras = Cameras(self)
        # A finished match restored from storage has no driver: each pair's signals at its end,
        # from its stored steps, for the rematch to keep (an exact restart keeps them too).
        self.restored_signals: list[tuple[str, ...]] = []
        # Each seat's own part as last sent (legal moves, hand, signals) with its JSON: the table
        # keeps the very same legal moves while nothing they depend on changes, so most updates
        # reuse the text (seat_json).
        self._seat_json: dict[int, tuple[Any, ...]] = {}
        # Open tables (issue 32, kemps.server.tables): listed publicly at GET /api/tables.
        self.listed = False
        # Each seat's measured round trip (kemps.server.lag).
        self.lag = SeatLag()

    @property
    def recorder(self) -> Recorder | None:
        """The match's recorder (its ``table`` and ``record``), None before the first match."""
        return self.driver.recorder if self.driver is not None else None

    @property
    def bots(self) -> dict[int, Bot]:
        """The bots of the match being played, by seat."""
        return self.driver.bots if self.driver is not None else {}

    # == clock =====================================================================================
    def now(self) -> float:
        """Table time in seconds (frozen while the room is paused)."""
        if self._frozen_at is not None:
            return self._frozen_at
        return self.clock() - self.epoch

    @property
    def paused(self) -> bool:
        """True while storage cannot commit: the table clock stands still and actions wait."""
        return self._frozen_at is not None

    # == durable acknowledgement ===================================================================
    def send(self, conn: Connection, message: dict[str, Any] | str) -> None:
        """Send ``conn`` a message built from the room's current state, once everything the room
        queued for storage before it is committed (at once when nothing is pending)."""
        if self._ticket > self.writer.committed or self._held:
            if len(self._held) >= HELD_LIMIT:  # bounded: that client reconnects and syncs later
                conn.close()
                return
            self._held.append((self._ticket, conn, message if isinstance(message, str)
                               else json.dumps(message)))
        else:
            conn.push(message)

    def _release(self) -> None:
        """After a commit: send what waited for it, in order."""
        committed = self.writer.committed
        held = self._held
        while held and held[0][0] <= committed:
            _, conn, text = held.popleft()
            conn.push(text)

    def require_storage(self) -> None:
        """Raises ServerError ``storage_unavailable`` or ``storage_busy`` (503) when new changes
        must wait for storage, and ``room_broken`` (409) for a room whose record did not
        replay."""
        if self.status == "broken":
            raise ServerError("room_broken", f"This room could not be restored: {self.error}",
                              409)
        problem = self.writer.refusal()
        if problem is not None:
            raise ServerError(problem, STORAGE_WAIT_MESSAGES[problem], 503)

    def pause(self, since: float) -> None:
        """Storage stopped committing (since wall time ``since``): freeze the table clock where it
        stood then (never before the last applied step), stop the driver's timer, tell everyone."""
        if self._frozen_at is not None:
            return
        self._frozen_at = max(self._last_t, min(since - self.epoch, self.clock() - self.epoch))
        self._disarm()
        notice = json.dumps({"type": "paused", "code": "storage_unavailable",
                             "message": STORAGE_WAIT_MESSAGES["storage_unavailable"]})
        for c in self.conns:
            c.push(notice)  # says nothing about the table: not held

    def unpause(self) -> None:
        """Storage commits again: the clock goes on from where it was frozen, and so do the
        driver's timers, bots and the next deal (their times are table times)."""
        if self._frozen_at is None:
            return
        self.epoch = self.clock() - self._frozen_at
        self._frozen_at = None
        notice = json.dumps({"type": "resumed"})
        for c in self.conns:
            c.push(notice)
        self._arm()
        self.broadcast_room()

    # == public state ==============================================================================
    def public(self) -> dict[str, Any]:
        """What anyone may know about the room (no tokens, no cards)."""
        pairs = self.rules.pairs
        return {
            "code": self.code, "status": self.status, "match_no": self.match_no,
            "protocol": PROTOCOL_VERSION, "rules": self.rules.to_dict(),
            "host_seat": self.host_seat, "last_match_id": self.last_match_id,
            "paused": self.paused, "error": self.error,
            "bot_speed": self.bot_speed,
            "seats": [{"seat": i, "pair": i % pairs, "partner": (i + pairs) % len(self.seats),
                       "name": s.name, "kind": s.kind, "level": s.level, "ready": s.ready,
                       "connected": any(c.seat == i for c in self.conns),
                       "stand_in": s.stand_in}
                      for i, s in enumerate(self.seats)],
            "away_grace_s": self.settings.away_grace_s,
            "deal_at": self.deal_at,
            "now": self.now(),
            "spectators": {"allowed": self.spectators_allowed,
                           "watching": sum(1 for c in self.conns
                                           if c.seat is None and not c.referee),
                           "max": self.settings.max_spectators},
            "camera": self.camera,
            "camera_route": self.cameras.route if self.camera else None,
            "listed": self.listed,
            # players are told that a referee watches (and sees every hand)
            "referee": None if self.referee is None else {
                "name": self.referee[0],
                "connected": any(c.referee for c in self.conns)},
        }

    @property
    def deal_at(self) -> float | None:
        """Table time the next deal is due (None: none pending)."""
        if self.driver is None or self.status != "playing":
            return None
        return self.driver.deal_at

    def state_for(self, seat: int | None, referee: bool = False) -> dict[str, Any]:
        """The full state message for a seat (or spectator): room, view and ``log``, the events
        of the current hand (between hands: the last hand and the huddle so far) as that seat may
        see them, so a reload or a late spectator knows what happened. ``referee``: the
        referee's (seat None), with its log (:func:`referee_events_out`) and its ``referee``
        part (:func:`kemps.views.referee_view`)."""
        out: dict[str, Any] = {"type": "state", "seat": seat, "room": self.public()}
        if referee:
            out["referee"] = None
        if self.driver is not None:
            table = self.driver.table
            out["view"] = view_for(table, seat).to_dict()
            if referee:
                out["log"] = referee_events_out(table, self.driver.log)
                out["referee"] = self._referee_part()
            else:
                out["log"] = events_out(table, self.driver.log, seat)  # a spectator: no look yet
        return out

    # == the referee: a dealer who is not playing (S2 tournament row 7) ============================
    def take_referee(self, name: str) -> str:
        """Sit a person as the table's referee, the dealer who is not playing (S2 tournament
        row 7 "Give each table a dealer who is not playing, to sweep the cards and judge the
        first touch. The dealer's ruling stands."); returns their secret token (shown once).
        They say Go and sweep for the dealer (the table's timers stay as they are, should they
        not), see every hand and gesture as it happens, and the arrival order of contested
        touches. Every player is told a referee watches (``public()["referee"]``).

        Raises:
            ServerError: ``no_referee_seat`` (409) at a table whose dealer plays,
                ``referee_taken`` (409), ``bad_name``, ``match_over`` (409) once finished.
        """
        self.require_storage()
        if self.rules.dealer != "non_playing":
            raise ServerError("no_referee_seat", "Only a table whose dealer does not play has a "
                              "referee's seat (the tournament preset).", 409)
        if self.referee is not None:
            raise ServerError("referee_taken", "This table has a referee already.", 409)
        if self.status in ("finished", "broken"):
            raise ServerError("match_over", "This room's match is over.", 409)
        name = name.strip() if isinstance(name, str) else ""
        if not 1 <= len(name) <= 40:
            raise ServerError("bad_name", "A name has 1 to 40 characters.")
        token = secrets.token_urlsafe(24)
        self.referee = (name, token_hash(token))
        self.broadcast_room()
        return token

    def _lobby_changed(self) -> None:
        """The lobby's hook, and: rules whose dealer plays have no referee's seat, so a referee
        sitting is seated no more (told why, and given a spectator's state: no hand after)."""
        if self.referee is not None and self.rules.dealer != "non_playing":
            self.referee = None
            for c in self.conns:
                if c.referee:
                    c.referee = False
                    self.send(c, error_message("not_referee", "The rules changed to a dealer who "
                                               "plays: there is no referee now; you are "
                                               "watching as a spectator."))
                    self.send(c, self.state_for(None))
        super()._lobby_changed()

    def is_referee(self, token: str | None) -> bool:
        """Whether ``token`` is the referee's."""
        return bool(token) and self.referee is not None and hmac.compare_digest(
            self.referee[1], token_hash(str(token)))

    def referee_act(self, data: dict[str, Any],
                    ack: tuple[Connection, Any] | None = None) -> list[Event]:
        """The referee acts for the dealer who is not playing: ``{"type": "go"}`` or
        ``{"type": "stall"}`` (sweep the middle now), as the table's own dealer would.

        Raises:
            Rejected: ``not_dealer`` for any other action; the engine's rejection (``hand_over``,
                ``bad_action``...). ServerError: ``not_playing``, ``storage_unavailable``.
        """
        if self.status != "playing" or self.driver is None:
            raise ServerError("not_playing", "No match is being played in this room.")
        self.require_storage()
        if data.get("type") not in ("go", "stall") or set(data) != {"type"}:
            raise Rejected("not_dealer", "The referee says Go and sweeps the middle; the "
                           "players play.")
        return self._act(None, action_from_dict({"type": data["type"], "seat": None}), ack)

    def _referee_part(self) -> dict[str, Any]:
        driver = self.driver
        assert driver is not None
        return referee_view(driver.table, driver.log, self._refused_touches).to_dict()

    def _tell_referee(self) -> None:
        """A touch refused: the referee's contested touches changed; told at once."""
        driver = self.driver
        if driver is None:
            return
        table = driver.table
        view = view_for(table, None)
        for c in self.conns:
            if c.referee:
                self.send(c, {"type": "update", "version": view.version,
                              "server_time": self.clock(), "events": [],
                              "view": view.to_dict(), "referee": self._referee_part()})

    def broadcast_room(self) -> None:
        """Send everyone the room's public state."""
        message = json.dumps({"type": "room", "room": self.public()})
        for c in self.conns:
            self.send(c, message)
        self.cameras.prune()  # seats or connections changed: the video follows

    def attach(self, conn: Connection) -> None:
        """A client connected: it gets the full current state. A seated person who was away is
        back: the grace timer stops, and a bot standing in for them hands the seat back."""
        self.conns.add(conn)
        if self.paused:
            conn.push({"type": "paused", "code": "storage_unavailable",
                       "message": STORAGE_WAIT_MESSAGES["storage_unavailable"]})
        if conn.seat is not None:
            self._back(conn.seat)
        self.send(conn, self.state_for(conn.seat, conn.referee))
        self.cameras.welcome(conn)
        self.broadcast_room()

    def detach(self, conn: Connection) -> None:
        """A client left; a seated person with no connection left is away (see
        :meth:`_watch_away`)."""
        self.conns.discard(conn)
        if conn.seat is not None:
            self._watch_away(conn.seat)
        self.broadcast_room()

    # == away: a bot stands in =====================================================================
    def _watch_away(self, seat: int) -> None:
        """During a match, a person's seat with no connection gets a stand-in bot after
        ``settings.away_grace_s`` (unless they come back first)."""
        if (self.status != "playing" or seat >= len(self.seats)
                or self.seats[seat].kind != "human" or self.seats[seat].stand_in is not None
                or seat in self._away or any(c.seat == seat for c in self.conns)):
            return
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        self._away[seat] = loop.call_later(self.settings.away_grace_s, self._stand_in, seat)

    def _stand_in(self, seat: int, force: bool = False) -> None:
        timer = self._away.pop(seat, None)
        if timer is not None:
            timer.cancel()
        driver = self.driver
        if (driver is None or self.status != "playing" or self.seats[seat].kind != "human"
                or self.seats[seat].stand_in is not None
                or (not force and any(c.seat == seat for c in self.conns))):
            return
        if self.paused or self.writer.refusal() is not None:  # storage first: try again soon
            loop = self._loop or asyncio.get_running_loop()
            self._away[seat] = loop.call_later(STORAGE_RETRY_S, self._stand_in, seat)
            return
        level = self._stand_in_level()
        driver.seat_bot(seat, make_bot(level, seat, self.rules,
                                       random.Random(self.rng.randrange(2**32)), self.bot_speed),
                        self.now())
        self.seats[seat].stand_in = level
        self._save_room()
        self._arm()
        self.broadcast_room()

    def add_bot(self, seat: int, level: str = "simple") -> None:
        """In the lobby, put a bot in an open seat (:meth:`Lobby.add_bot`). During a match, the
        host's "replace": a bot of ``level`` plays a person's seat now, without waiting for the
        grace time; it hands the seat back when the person returns.

        Raises:
            ServerError: as :meth:`Lobby.add_bot`; ``not_a_person`` for a seat a bot already
                plays during the match.
        """
        if self.status != "playing":
            super().add_bot(seat, level)
            return
        self._check_seat_index(seat)
        self.require_storage()
        s = self.seats[seat]
        if s.kind != "human" or s.stand_in is not None:
            raise ServerError("not_a_person", f"A bot already plays seat {seat + 1}.", 409)
        make_bot(level, seat, self.rules, random.Random(0))  # unknown_level, before any change
        self.stand_in_level, chosen = level, self.stand_in_level
        try:
            self._stand_in(seat, force=True)
        finally:
            self.stand_in_level = chosen

    def clear_seat(self, seat: int) -> None:
        """In the lobby, empty a seat (:meth:`Lobby.clear_seat`). During a match, a person gives
        the seat up for good (or the host removes them): a bot plays it to the match's end and
        the person's connections become spectators.

        Raises:
            ServerError: as :meth:`Lobby.clear_seat`.
        """
        if self.status != "playing":
            super().clear_seat(seat)
            return
        self._check_seat_index(seat)
        self.require_storage()
        s = self.seats[seat]
        if s.kind != "human":
            raise ServerError("not_a_person", f"A bot already plays seat {seat + 1}.", 409)
        if s.stand_in is None:
            self._stand_in(seat, force=True)
        level = self.seats[seat].stand_in or self._stand_in_level()
        self.seats[seat] = Seat(name=s.name, kind="bot", level=level)
        self._lobby_changed()

    def _stand_in_level(self) -> str:
        if self.stand_in_level is not None:
            return self.stand_in_level
        levels = [s.level for s in self.seats if s.kind == "bot" and s.level]
        return max(set(levels), key=levels.count) if levels else "club"

    def _back(self, seat: int) -> None:
        """``seat``'s person is connected again."""
        timer = self._away.pop(seat, None)
        if timer is not None:
            timer.cancel()
        if seat < len(self.seats) and self.seats[seat].stand_in is not None:
            self.seats[seat].stand_in = None
            if self.driver is not None and self.status == "playing":
                self.driver.unseat_bot(seat)
                self._arm()
            self._save_room()

    def _stop_away(self) -> None:
        for timer in self._away.values():
            timer.cancel()
        self._away = {}
        for s in self.seats:
            s.stand_in = None

    # == the match =================================================================================
    def start(self) -> None:
        """Start a match (or a rematch, keeping the pairs) once every seat is filled.

        Raises:
            ServerError: ``seats_open`` when a seat is empty, ``already_playing``.
        """
        self.require_storage()
        if self.status == "playing":
            raise ServerError("already_playing", "The match is already on.", 409)
        if any(s.kind == "open" for s in self.seats):
            raise ServerError("seats_open", "Fill every seat (people or bots) first.", 409)
        self.match_no += 1
        self.status = "playing"
        self.first_dealer = self.rng.randrange(len(self.seats))
        self.epoch = self.clock()
        self._last_t = 0.0
        self.seq = 0
        self.ticks = []
        kept = list(self.driver.table.signals) if self.driver is not None and \
            self.driver.rules.pairs == self.rules.pairs else self.restored_signals
        for s in self.seats:
            s.ready = False
        self._stop_away()
        self.driver = self._new_driver()
        for c in self.conns:
            self.send(c, self.state_for(c.seat))
        now = self.now()
        self.driver.start(now)
        self._keep_signals(kept, now)
        self._save_room()  # the first deal's time
        for seat in range(len(self.seats)):
            self._watch_away(seat)
        self._arm()
        self.broadcast_room()

    def _keep_signals(self, kept: list[tuple[str, ...]], now: float) -> None:
        """A rematch starts with the signals each pair had at the end of the last match
        (``kept``, one per pair; agreed again by the pair's first seat, in the record like any
        agreement); the huddle can change them."""
        driver = self.driver
        if driver is None or len(kept) != self.rules.pairs:
            return
        for pair, signals in enumerate(kept):
            if not signals:
                continue
            try:
                step = driver.act(pair, AgreeSignals(pair, tuple(signals)), now)
            except Rejected:
                continue  # e.g. a heard signal at a table that now forbids them
            self._publish(step)

    def _new_driver(self) -> MatchDriver:
        bots = {i: make_bot(s.stand_in or s.level or "simple", i, self.rules,
                            random.Random(self.rng.randrange(2**32)), self.bot_speed)
                for i, s in enumerate(self.seats) if s.kind == "bot" or s.stand_in}
        people = [i for i, s in enumerate(self.seats) if s.kind == "human" and not s.stand_in]
        return MatchDriver(self.rules, [s.name for s in self.seats], self.first_dealer, bots,
                           self.rng, people=people, huddle_s=self.settings.huddle_s,
                           ready_huddle_s=self.settings.bot_huddle_s, signals_first=True,
                           meta={"room": self.code, "match_no": self.match_no})

    def mark_ready(self, seat: int) -> None:
        """A player is ready for the next deal (stored: a restart keeps it)."""
        self.require_storage()
        driver = self.driver
        if self.status != "playing" or driver is None or driver.table.phase != "huddle":
            raise ServerError("not_between_hands", "You can say ready between hands only.")
        if self.seats[seat].ready and seat in driver.ready:
            return  # said already: nothing changes, so nothing is stored or told again
        self.seats[seat].ready = True
        driver.mark_ready(seat, self.now())
        self._save_room()
        self._arm()
        self.broadcast_room()

    def handle_action(self, seat: int, data: dict[str, Any],
                      ack: tuple[Connection, Any] | None = None) -> list[Event]:
        """A seat's action from a client: parsed, stamped with the server clock, applied at once
        (later actions see it), recorded; ``ack`` = ``(connection, id)`` gets ``{"type": "ok",
        "id": id}`` before its update, both once the entry is committed.

        Raises:
            Rejected: the engine's rejection (or ``bad_action`` for a malformed action, ``deal``
                from a client); nothing changed.
            ServerError: ``not_playing`` when no match is on; ``storage_unavailable`` /
                ``storage_busy`` (nothing changed; try again when storage is back).
        """
        if self.status != "playing" or self.driver is None:
            raise ServerError("not_playing", "No match is being played in this room.")
        self.require_storage()
        if data.get("type") in ("deal", "table_talk"):
            raise Rejected("bad_action", "Only the table deals and rules on table talk.")
        if "seat" in data:  # refused like any field an action does not have: never guessed at
            raise Rejected("bad_action", "An action has no field 'seat': the server acts for "
                           "the seat of your token.")
        if "as_dealer" in data:
            # A dealer who is not playing (S2 tournament row 7) is the table itself; the host may
            # act for it, to say Go or to sweep the middle now.
            if (data["as_dealer"] is not True or seat != self.host_seat
                    or self.rules.dealer != "non_playing" or data.get("type") not in ("go", "stall")):
                raise Rejected("not_dealer", "Only the host acts for a dealer who is not "
                               "playing, and only to say Go or to sweep.")
            data = {k: v for k, v in data.items() if k != "as_dealer"}
            return self._act(None, action_from_dict({**data, "seat": None}), ack)
        action = action_from_dict({**data, "seat": seat})
        if self.seats[seat].stand_in is not None:
            self._back(seat)  # a person who acts is back: their stand-in leaves
            self.broadcast_room()
        return self._act(seat, action, ack)

    def rule_table_talk(self, pair: int) -> None:
        """The host rules that ``pair`` used table talk (S1, S2): that pair loses the match."""
        if self.status != "playing" or self.driver is None:
            raise ServerError("not_playing", "No match is being played in this room.")
        self.require_storage()
        self._act(None, RuleTableTalk(pair))

    def _act(self, seat: int | None, action: Any,
             ack: tuple[Connection, Any] | None = None) -> list[Event]:
        """What was due first, then the action: apply, record, broadcast (held until committed):
        one synchronous step."""
        driver = self.driver
        if driver is None:  # pragma: no cover - callers check
            raise ServerError("not_playing", "No match is being played in this room.")
        now = self.now()
        self._run_due(now)
        if self.status != "playing":
            raise ServerError("not_playing", "The match has just ended.")
        try:
            step = driver.act(seat, action, now)  # raises Rejected: nothing changed
        except Rejected as err:
            if isinstance(action, Call) and seat is not None:
                self._late_call(action, err.code, now)
            elif (err.code == "card_gone" and isinstance(action, Swap | Grab) and seat is not None
                  and len(self._refused_touches) < REFUSED_TOUCHES_KEPT):
                # a touch that arrived after another's: the referee judges the first touch
                self._refused_touches.append((max(now, driver.table.clock), seat, action.take))
                self._tell_referee()
            raise
        self._publish(step, ack)
        self._arm()
        return step.events

    def _late_call(self, call: Call, code: str, now: float) -> None:
        """Keep a refused call in the match record's meta (``late_calls``: at most
        :data:`LATE_CALLS_KEPT`), so the tell can say who called too late and by how much (the
        record itself keeps accepted actions only). Stored with the finished match."""
        assert self.driver is not None
        meta = self.driver.recorder.record.meta
        kept = meta.setdefault("late_calls", [])
        if len(kept) < LATE_CALLS_KEPT:
            kept.append({"t": round(max(now, self.driver.table.clock), 3), "seat": call.seat,
                         "kind": call.kind, "on_seat": call.on_seat, "on_pair": call.on_pair,
                         "code": code})

    def _run_due(self, now: float) -> None:
        if self.driver is None or self.status != "playing":
            return
        self.driver.wake(now, self._publish)

    def _on_wake(self) -> None:
        self._wake = None
        self._wake_at = None
        if self.status != "playing" or self.paused or self.driver is None:
            return
        if self.writer.refusal() is not None:  # storage is behind: the table waits like a person
            self._arm_at(self.now() + STORAGE_RETRY_S)
            return
        self._run_due(self.now())
        self._arm()

    def _arm(self) -> None:
        """Arm the one timer at the driver's next wake-up (or none)."""
        driver = self.driver
        if driver is None or self.status != "playing" or self.paused:
            self._disarm()
            return
        at = driver.next_wake()
        if at is None:
            self._disarm()
        elif at != self._wake_at or self._wake is None:
            self._arm_at(at)

    def _arm_at(self, at: float) -> None:
        self._disarm()
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        self._wake_at = at
        self._wake = loop.call_later(max(0.0, at - self.now() + WAKE_SLACK_S), self._on_wake)

    def _disarm(self) -> None:
        if self._wake is not None:
            self._wake.cancel()
        self._wake = None
        self._wake_at = None

    def _publish(self, step: Step, ack: tuple[Connection, Any] | None = None) -> None:
        """Store one step, acknowledge it, broadcast it, and follow up what it means for the
        room (a deal clears the ready flags, a hand's end is stored with the next deal's time, the
        match's end finishes the room)."""
        driver = self.driver
        assert driver is not None
        self._last_t = step.t
        self._record("tick" if step.action is None else "action", step.t,
                     None if step.action is None else action_to_dict(step.action))
        if ack is not None and ack[1] is not None:
            self.send(ack[0], {"type": "ok", "id": ack[1]})
        self._broadcast(step.events)
        if isinstance(step.action, Deal):
            self._refused_touches = []
            for s in self.seats:
                s.ready = False
            self._save_room()  # ready flags cleared, no deal pending
        if any(isinstance(e, MatchEnded) for e in step.events):
            self._finish()
        elif driver.table.phase == "huddle" and any(isinstance(e, HandEnded)
                                                    for e in step.events):
            self._save_room()  # the next deal's time
            self.broadcast_room()

    def _broadcast(self, events: list[Event]) -> None:
        """Send every connection its ``update``: the view's public part encoded once, each
        event's public form encoded once for every seat that sees it (:func:`events_json`), and
        each seat's own part (:func:`seat_json`: its text reused while unchanged;
        the views' public fields worked out once, :func:`kemps.views.public_fields`);
        seats and spectators that see the very same message share its text."""
        driver = self.driver
        assert driver is not None
        table = driver.table
        cache: dict[tuple[int | None, LookAt | None], tuple[str, list[dict[str, Any]]]] = {}
        stamp = json.dumps(self.clock())
        publics: dict[int, str] = {}  # the view's public part by its version: once each
        pairs = table.pairs
        hidden = private_step(events, pairs)  # a pair's private huddle: only that pair is told
        referee_text: str | None = None
        forms: dict[int, tuple[Event, str | None]] = {}  # each event's JSON text: once
        held_forms: dict[int, tuple[Event, dict[str, Any]]] = {}  # the same as dicts (spectators)
        fields = public_fields(table)  # the views' public fields, shared by every seat's view
        holding = table.rules.attention  # spectators' sights wait for the hand's end
        ended = any(e.__class__ is HandEnded for e in events)
        for c in self.conns:
            if hidden is not None and (c.seat is None or c.seat % pairs != hidden):
                continue  # nothing at all: not even that something happened
            if c.referee:  # every hand and gesture as it happens (kemps.views.referee_view)
                if referee_text is None:
                    view = view_for(table, None, fields)
                    referee_text = json.dumps({
                        "type": "update", "version": view.version, "server_time": self.clock(),
                        "events": referee_events_out(table, events), "view": view.to_dict(),
                        "referee": self._referee_part()})
                self.send(c, referee_text)
                continue
            key = (c.seat, c.look if c.seat is None else None)
            found = cache.get(key)
            if found is None:
                view = view_for(table, c.seat, fields)  # each seat's view: the one road
                public = publics.get(view.version)
                if public is None:
                    public = publics[view.version] = json.dumps(view.public_dict())
                held: list[dict[str, Any]] = []
                if holding and c.seat is None:
                    told = json.dumps(events_out(table, events, None, key[1], held, held_forms))
                else:
                    told = events_json(table, events, c.seat, key[1], forms)
                text = update_text(view.version, stamp, told, public,
                                   seat_json(view, self._seat_json))
                found = cache[key] = (text, held)
            self.send(c, found[0])
            if c.seat is None and holding:
                c.held_sights += found[1]
                if ended:
                    self.send_held(c)

    def send_held(self, conn: Connection) -> None:
        """Tell a spectator what its look saw of the hand that just ended (held back till now;
        :func:`events_out`), as an ``update`` of the table as it stands."""
        if not conn.held_sights or self.driver is None:
            return
        table = self.driver.table
        sights, conn.held_sights = conn.held_sights, []
        view = view_for(table, None)
        self.send(conn, {"type": "update", "version": view.version, "server_time": self.clock(),
                         "events": sights, "view": view.to_dict()})

    def spectator_look(self, conn: Connection, at: object, ref: int | None = None) -> None:
        """A spectator changes its own look (attention tables): seen by no one else, so that a
        spectator cannot relay what a player missed; it then sees the gestures of the seat it
        looks at (the ones still going on at once, as an ``update`` for it alone).

        Raises:
            ServerError: ``not_playing``. Rejected: ``no_attention``, ``bad_look``,
                ``no_such_seat``, ``same_look``, ``look_too_soon`` (as a player's look).
        """
        driver = self.driver
        if self.status != "playing" or driver is None:
            raise ServerError("not_playing", "No match is being played in this room.")
        table = driver.table
        now = max(self.now(), table.clock)
        conn.look = check_spectator_look(table, at, conn.look, conn.look_since, now)
        conn.look_since = now
        if ref is not None:
            self.send(conn, {"type": "ok", "id": ref})
        glance = spectator_glance(table, conn.look, now)
        view = view_for(table, None)
        self.send(conn, {"type": "update", "version": view.version,
                         "server_time": self.clock(),
                         "events": events_out(table, glance, None, conn.look, conn.held_sights),
                         "view": view.to_dict()})

    def _finish(self) -> None:
        driver = self.driver
        assert driver is not None
        self.status = "finished"
        self._disarm()
        self._stop_away()
        driver.recorder.record.end = self.now()
        row = self.finished_row()
        summary = row["summary"]

        def saved(match_id: int) -> None:  # committed: now the match's end may be reported
            self.last_match_id = match_id
            self._save_room()
            self.broadcast_room()
            if self.on_finished is not None:
                self.on_finished(self, summary)

        self._save_room()
        self.writer.match(row, saved)
        self.broadcast_room()

    def finished_row(self) -> dict[str, Any]:
        """The finished match as its ``matches`` row: ``{"room_code", "match_no", "rules",
        "names", "summary", "record"}``."""
        assert self.driver is not None
        rec = self.driver.recorder
        summary = match_summary(rec.table, [])
        summary["hands"] = self._hand_results()
        # who sat, for the ratings (kemps.server.ratings): a person's public player id (None: a
        # guest), a bot's level as bot:LEVEL
        summary["players"] = [s.player if s.kind == "human" else
                              f"bot:{s.level}" if s.kind == "bot" and s.level else None
                              for s in self.seats]
        return {"room_code": self.code, "match_no": self.match_no,
                "rules": self.rules.to_dict(), "names": list(rec.table.names),
                "summary": summary, "record": rec.record.to_dict()}

    def _hand_results(self) -> list[dict[str, Any]]:
        assert self.driver is not None
        from kemps.record import replay

        replayed = replay(self.driver.recorder.record)
        return list(match_summary(replayed.table, replayed.events)["hands"])

    # == persistence ===============================================================================
    def row(self) -> dict[str, Any]:
        """The room as a storage row: lobby, ready flags, host, next deal time and the table
        clock (table seconds), last finished match."""
        return {"code": self.code, "created_at": self.created_at, "updated_at": self.clock(),
                "status": self.status, "rules": self.rules.to_dict(),
                "seats": [s.to_row() for s in self.seats], "host_seat": self.host_seat,
                "match_no": self.match_no, "first_dealer": self.first_dealer,
                "epoch": self.epoch, "table_time": self.now(), "deal_at": self.deal_at,
                "last_match_id": self.last_match_id, "spectators": self.spectators_allowed,
                "archived_at": None, "fence": self.fence, "camera": self.camera}

    def _save_room(self) -> None:
        if self.status == "broken":  # its stored row stays as it was, for the operator
            return
        self._ticket = self.writer.room(self.row(), self._release)

    def _record(self, kind: str, t: float, payload: dict[str, Any] | None) -> None:
        self._ticket = self.writer.entry(self.code, self.match_no, self.seq, t, kind, payload,
                                         self._release)
        if kind == "tick":
            self.ticks.append((self.seq, t))
        self.seq += 1

    def steps(self) -> list[dict[str, Any]]:
        """Every step of the current match as storage keeps it (``{"match_no", "seq", "t",
        "kind", "payload"}``, in order), rebuilt from the table's record and the timer batches:
        what a rescue dump saves when the database is gone (:mod:`kemps.server.rescue`)."""
        driver = self.driver
        if driver is None or self.match_no < 1:
            return []
        actions = iter(driver.recorder.record.actions)
        ticks = dict(self.ticks)
        out: list[dict[str, Any]] = []
        for seq in range(self.seq):
            if seq in ticks:
                out.append({"match_no": self.match_no, "seq": seq, "t": ticks[seq],
                            "kind": "tick", "payload": None})
            else:
                t, action = next(actions)
                out.append({"match_no": self.match_no, "seq": seq, "t": t, "kind": "action",
                            "payload": action_to_dict(action)})
        return out

    @classmethod
    def restore(cls, row: dict[str, Any], entries: list[Any], settings: Settings,
                writer: Writer, clock: Callable[[], float] = time.time) -> Room:
        """Rebuild a room from storage exactly as it was: the lobby, and the match by replaying
        its recorded steps through a new driver. The table clock resumes where it stopped (time
        while the server was down does not count, so no countdown runs out in the meantime).

        Raises:
            RecordError: a step is missing; Rejected or another KempsError: a step does not
                apply (the caller keeps the room as broken, see :meth:`broken`).
        """
        rules = RuleSet.from_dict(row["rules"])
        room = cls(row["code"], rules, settings, writer, clock)
        room.created_at = row["created_at"]
        room.seats = [Seat.from_row(s) for s in row["seats"]]
        room.host_seat = row["host_seat"]
        room.status = row["status"]
        room.match_no = row["match_no"]
        room.first_dealer = row["first_dealer"]
        room.last_match_id = row.get("last_match_id")
        room.spectators_allowed = bool(row.get("spectators", True))
        room.camera = bool(row.get("camera", False))
        if room.status == "playing":
            driver = room._new_driver()
            last = 0.0
            for i, e in enumerate(entries):
                if e.seq != i:
                    raise RecordError("bad_record", f"Record step {i} of match {room.match_no} "
                                      f"is missing (the next stored step is {e.seq}).")
                driver.replay_step(e.t, None if e.kind == "tick" else action_from_dict(e.payload))
                if e.kind == "tick":
                    room.ticks.append((i, e.t))
                last = max(last, e.t)
            room.driver = driver
            room.seq = len(entries)
            room._last_t = last
            # The clock resumes where it last stood (stored at commits, every few seconds while
            # playing, and at shutdown), never before the last step.
            room.epoch = clock() - max(last, row.get("table_time") or 0.0)
            if driver.table.phase == "huddle":
                driver.deal_at = row.get("deal_at")
                driver.ready = {i for i, s in enumerate(room.seats) if s.ready}
        else:
            room.epoch = row["epoch"]
            if room.status == "finished":  # the steps of the match that finished
                kept: list[tuple[str, ...]] = [()] * rules.pairs
                for e in entries:
                    payload = e.payload if e.kind != "tick" else None
                    if isinstance(payload, dict) and payload.get("type") == "agree_signals":
                        agreed = action_from_dict(payload)
                        if isinstance(agreed, AgreeSignals):
                            kept[agreed.seat % rules.pairs] = tuple(agreed.signals)
                room.restored_signals = kept
        return room

    @classmethod
    def broken(cls, row: dict[str, Any], error: str, settings: Settings, writer: Writer,
               clock: Callable[[], float] = time.time) -> Room:
        """A room whose record could not be replayed: listed and readable with its ``error``
        (status ``broken``), refusing every change, its stored rows left as they are."""
        try:
            rules = RuleSet.from_dict(row["rules"])
        except KempsError:
            from kemps.rules import find_preset

            rules = find_preset("pagat")
        room = cls(row["code"], rules, settings, writer, clock)
        room.created_at = row.get("created_at", room.created_at)
        room.status = "broken"
        room.error = error
        room.match_no = row.get("match_no", 0)
        room.last_match_id = row.get("last_match_id")
        room.host_seat = row.get("host_seat", 0)
        room.camera = bool(row.get("camera", False))
        seats = row.get("seats") or []
        room.seats = [Seat.from_row({**s, "ready": False}) for s in seats
                      if isinstance(s, dict)] or room.seats
        return room

    def resume(self) -> None:
        """After :meth:`restore`, inside the event loop: bots see the table, the next deal (at its
        stored time) and the table's timers go on."""
        if self.status != "playing" or self.driver is None:
            return
        self.driver.resume(self.now())
        for seat in range(len(self.seats)):
            self._watch_away(seat)
        self._arm()
        self.broadcast_room()

    def lost(self) -> None:
        """Another node owns this room now (many nodes: its lease or its fencing token was
        lost). Nothing this node still held back is ever sent (it was not stored); every client
        is told to reconnect, which reaches the new owner."""
        self._held.clear()
        for c in list(self.conns):
            c.push(error_message("room_moved", "This table moved to another server; "
                                 "reconnecting brings you back to it."))
        self.close()

    def close(self) -> None:
        """Cancel the timers and close every connection (server shutdown)."""
        self._disarm()
        self.cameras.close()
        for timer in self._away.values():
            timer.cancel()
        self._away = {}
        for c in list(self.conns):
            c.close()
