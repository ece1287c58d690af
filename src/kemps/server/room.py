"""One room: its lobby, and the one authoritative table that arbitrates every action.

The room applies actions strictly in the order they reach the server, each stamped with the server's
clock (seconds since the room's epoch): applying an action, queueing its record entry and building
every seat's update happen in one synchronous step, so nothing can interleave. The first swap or call
to arrive wins; later ones are answered with the engine's rejection and see the applied state.

Nothing is told before it is durable: every message the room sends (``ok``, ``update``, ``room``,
``state``, rejections) is held back until the record entries queued before it are committed (group
commit, :class:`kemps.server.storage.Writer`), then released in order. While storage cannot commit,
the room is *paused*: the table clock is frozen, timers and bots wait, new actions are refused
(``storage_unavailable``; ``storage_busy`` when the writer's queue is full); actions applied before
the fault stay un-acknowledged until their entries are committed when storage returns. Timers (countdowns, hold limits,
idle sweeps, the deal after the huddle) and the bots' moves run on the server's event loop.

Every message to a client is built from :func:`kemps.views.view_for` and
:func:`kemps.views.events_for` for that client's seat (or as a spectator): no other hand, no stock
order and no other pair's signals ever leave the room before the rules reveal them.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

from kemps import bots
from kemps.actions import Action, Deal, RuleTableTalk, action_from_dict, action_to_dict
from kemps.bots.base import Bot, Plan
from kemps.cards import shuffled_pack
from kemps.errors import KempsError, RecordError, Rejected
from kemps.events import Event, HandEnded, MatchEnded, event_to_dict
from kemps.record import Recorder, match_summary
from kemps.rules import RuleSet
from kemps.server.protocol import PROTOCOL_VERSION, error_message
from kemps.server.settings import Settings
from kemps.server.storage import Writer
from kemps.views import events_for, view_for

MIN_BOT_GAP_S: Final = 0.25  # a bot's seat never acts twice within this many seconds
OUTBOX_LIMIT: Final = 1000  # messages queued for one client before it is cut off as too slow
HELD_LIMIT: Final = 20_000  # messages a room holds for storage; beyond, a client asking is cut off
STORAGE_WAIT_MESSAGES: Final = {
    "storage_unavailable": "The table is paused: the server cannot store moves right now. "
                           "Nothing you were told is lost; play resumes when storage is back.",
    "storage_busy": "The server is writing a backlog of moves; try again in a moment.",
}
CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no I/O/0/1 to misread


class ServerError(KempsError):
    """A lobby or room request refused; ``status`` is the HTTP status to answer with."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(code, message)
        self.status = status


def new_code(length: int = 5) -> str:
    """A short join code like ``"K7QMX"``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def token_hash(token: str) -> str:
    """How a seat token is stored: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def make_bot(level: str, seat: int, rules: RuleSet, rng: random.Random,
             speed: str | None = None) -> Bot:
    """A bot of ``level`` (one of :func:`bot_levels`) for ``seat``, at ``speed`` (one of
    :func:`bot_speeds`; None = the level's own reaction times).

    Raises:
        ServerError: ``unknown_level``, ``unknown_speed``.
    """
    try:
        return bots.make_bot(level, seat, rules, rng, speed)
    except KempsError as err:
        raise ServerError(err.code, err.message) from None


def bot_speeds() -> tuple[str, ...]:
    """The bot speeds (reaction-time profiles) this build offers, slowest first."""
    return tuple(bots.SPEEDS)


def bot_levels() -> tuple[str, ...]:
    """The bot levels this build offers, weakest first."""
    return tuple(bots.LEVELS)


@dataclass
class Seat:
    """One seat of the lobby. ``kind``: ``open``, ``human`` or ``bot``."""

    name: str = ""
    kind: Literal["open", "human", "bot"] = "open"
    level: str | None = None
    token_hash: str | None = None
    ready: bool = False

    def to_row(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "level": self.level,
                "token_hash": self.token_hash, "ready": self.ready}


class Connection:
    """One client connection. Messages are queued (never awaited inside the room's step) and
    written by :meth:`writer` in order; a client that falls :data:`OUTBOX_LIMIT` behind is cut."""

    def __init__(self, send: Callable[[str], Awaitable[None]], seat: int | None,
                 token_hash: str | None = None) -> None:
        self.send = send
        self.seat = seat
        self.token_hash = token_hash  # the seat's token when it connected: checked on changes
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False

    def push(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict, or JSON text already encoded)."""
        if self.closed:
            return
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.close()
            return
        self.outbox.put_nowait(message if isinstance(message, str) else json.dumps(message))

    def close(self) -> None:
        """Stop writing; the socket handler ends the connection."""
        self.closed = True
        self.outbox.put_nowait(None)

    async def writer(self) -> None:
        """Send queued messages in order until closed."""
        while True:
            text = await self.outbox.get()
            if text is None:
                return
            await self.send(text)


class Room:
    """A room's lobby and its authoritative table.

    ``clock`` gives wall-clock seconds (``time.time`` by default); the table's time is
    ``clock() - epoch``. ``writer`` queues what must be stored (:class:`storage.Writer`).
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
        self.recorder: Recorder | None = None
        self.conns: set[Connection] = set()
        self.bots: dict[int, Bot] = {}
        # Deals come from the operating system's generator: finished matches publish their deal
        # orders, which must not let anyone work out the next one.
        self.rng: random.Random = secrets.SystemRandom()
        self.seq = 0
        self.last_match_id: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._deal_at: float | None = None
        self._deal_timer: asyncio.TimerHandle | None = None
        self._plans: dict[tuple[int, str], tuple[int, asyncio.TimerHandle]] = {}
        self._bot_last: dict[int, float] = {}
        self._generation = 0
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
        # The host's choice of bot speed; None: relaxed with people at the table, else each
        # level's own (see bot_speed).
        self.chosen_bot_speed: str | None = None

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
        stood then (never before the last applied step), stop timers and bots, tell everyone."""
        if self._frozen_at is not None:
            return
        self._frozen_at = max(self._last_t, min(since - self.epoch, self.clock() - self.epoch))
        for handle in (self._timer, self._deal_timer):
            if handle is not None:
                handle.cancel()
        self._timer = self._deal_timer = None
        for _, handle in self._plans.values():
            handle.cancel()
        self._plans = {}
        notice = json.dumps({"type": "paused", "code": "storage_unavailable",
                             "message": STORAGE_WAIT_MESSAGES["storage_unavailable"]})
        for c in self.conns:
            c.push(notice)  # says nothing about the table: not held

    def unpause(self) -> None:
        """Storage commits again: the clock goes on from where it was frozen, timers, the next
        deal and bots resume."""
        if self._frozen_at is None:
            return
        self.epoch = self.clock() - self._frozen_at
        self._frozen_at = None
        notice = json.dumps({"type": "resumed"})
        for c in self.conns:
            c.push(notice)
        self._resume_timers()
        self.broadcast_room()

    def _call_later(self, delay: float, fn: Callable[..., None], *args: Any) -> asyncio.TimerHandle:
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        return loop.call_later(max(0.0, delay), fn, *args)

    # == lobby =====================================================================================
    def seat_of(self, token: str | None) -> int | None:
        """The seat a token belongs to, or None."""
        if not token:
            return None
        digest = token_hash(token)
        for i, s in enumerate(self.seats):
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, digest):
                return i
        return None

    def require_seat(self, token: str | None) -> int:
        """The token's seat. Raises ServerError ``not_seated`` (403)."""
        seat = self.seat_of(token)
        if seat is None:
            raise ServerError("not_seated", "That token holds no seat in this room.", 403)
        return seat

    def require_host(self, token: str | None) -> int:
        """The host's seat. Raises ServerError ``not_host`` (403)."""
        seat = self.require_seat(token)
        if seat != self.host_seat:
            raise ServerError("not_host", "Only the host may do that.", 403)
        return seat

    def take_seat(self, seat: int, name: str) -> str:
        """Seat a person; returns the seat's secret token (shown once, stored only as a hash).

        Raises:
            ServerError: ``no_such_seat``, ``seat_taken`` (409), ``bad_name``.
        """
        self._check_seat_index(seat)
        self.require_storage()
        name = name.strip() if isinstance(name, str) else ""
        if not 1 <= len(name) <= 40:
            raise ServerError("bad_name", "A name has 1 to 40 characters.")
        if self.seats[seat].kind != "open":
            raise ServerError("seat_taken", f"Seat {seat + 1} is taken.", 409)
        if self.status == "playing":
            raise ServerError("not_in_lobby", "The match is on; seats are fixed until it ends.",
                              409)
        token = secrets.token_urlsafe(24)
        self.seats[seat] = Seat(name=name, kind="human", token_hash=token_hash(token))
        if all(s.kind != "human" for i, s in enumerate(self.seats) if i != seat) and \
                self.seats[self.host_seat].kind != "human":
            self.host_seat = seat
        self._lobby_changed()
        return token

    def add_bot(self, seat: int, level: str = "simple") -> None:
        """Put a bot in an open seat. Raises ServerError ``seat_taken``, ``unknown_level``."""
        self._check_seat_index(seat)
        self.require_storage()
        if self.status == "playing":
            raise ServerError("not_in_lobby", "Seats are fixed while the match is on.", 409)
        if self.seats[seat].kind != "open":
            raise ServerError("seat_taken", f"Seat {seat + 1} is taken.", 409)
        if level not in bot_levels():
            raise ServerError("unknown_level", f"There is no bot level {level!r}; levels: "
                              f"{', '.join(bot_levels())}.")
        self.seats[seat] = Seat(name=f"{level.title()} bot {seat + 1}", kind="bot", level=level)
        self._lobby_changed()

    @property
    def bot_speed(self) -> str | None:
        """The speed the bots play at: the host's choice, else ``relaxed`` when a person sits at
        the table (so a person can win a race for a call), else None (each level's own)."""
        if self.chosen_bot_speed is not None:
            return self.chosen_bot_speed
        if any(s.kind == "human" for s in self.seats):
            return bots.DEFAULT_SPEED_WITH_PEOPLE
        return None

    def set_bot_speed(self, speed: str | None) -> None:
        """The host sets the bots' speed for the next match (None: the default, see
        :attr:`bot_speed`). Raises ServerError ``unknown_speed``."""
        if speed is not None and speed not in bot_speeds():
            raise ServerError("unknown_speed", f"There is no bot speed {speed!r}; speeds: "
                              f"{', '.join(bot_speeds())}.")
        self.chosen_bot_speed = speed

    def fill_with_bots(self, level: str = "simple") -> None:
        """Put a bot in every open seat."""
        for i, s in enumerate(self.seats):
            if s.kind == "open":
                self.add_bot(i, level)

    def clear_seat(self, seat: int) -> None:
        """Empty a seat (a bot removed by the host, or a player leaving the lobby)."""
        self._check_seat_index(seat)
        self.require_storage()
        if self.status == "playing":
            raise ServerError("not_in_lobby", "Seats are fixed while the match is on.", 409)
        self.seats[seat] = Seat()
        self._lobby_changed()

    def set_rules(self, rules: RuleSet) -> None:
        """Change the rules in the lobby; a different number of pairs re-seats (keeping seats that
        still exist)."""
        if self.status == "playing":
            raise ServerError("not_in_lobby", "The rules are fixed while the match is on.", 409)
        self.require_storage()
        if self.rules_locked:
            raise ServerError("rules_locked", "This room plays a tournament match: its rules are "
                              "the tournament's.", 409)
        old = self.seats
        self.rules = rules
        self.seats = [old[i] if i < len(old) else Seat() for i in range(rules.players)]
        if self.host_seat >= rules.players:
            self.host_seat = 0
        self._lobby_changed()

    def set_spectators(self, allowed: bool) -> None:
        """The host lets spectators watch, or not (the server then closes those watching)."""
        self.spectators_allowed = bool(allowed)
        self._save_room()
        self.broadcast_room()

    def _check_seat_index(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise ServerError("no_such_seat", f"Seats are numbered 0 to {len(self.seats) - 1}.")

    def _lobby_changed(self) -> None:
        self._release_stale_connections()
        self._save_room()
        self.broadcast_room()

    def _release_stale_connections(self) -> None:
        """A connection acts and sees for its seat only while that seat still belongs to the token
        it came with: a player removed from a seat (or a seat gone with fewer pairs) becomes a
        spectator at once and is told why."""
        for c in self.conns:
            if c.seat is None:
                continue
            if c.seat >= len(self.seats) or self.seats[c.seat].token_hash != c.token_hash:
                c.seat = None
                self.send(c, error_message("not_seated", "Your seat is no longer yours; you "
                                           "are watching as a spectator."))
                self.send(c, self.state_for(None))

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
                       "connected": any(c.seat == i for c in self.conns)}
                      for i, s in enumerate(self.seats)],
            "deal_at": self._deal_at,
            "now": self.now(),
            "spectators": {"allowed": self.spectators_allowed,
                           "watching": sum(1 for c in self.conns if c.seat is None),
                           "max": self.settings.max_spectators},
        }

    def state_for(self, seat: int | None) -> dict[str, Any]:
        """The full state message for a seat (or spectator): room and view."""
        out: dict[str, Any] = {"type": "state", "seat": seat, "room": self.public()}
        if self.recorder is not None:
            out["view"] = view_for(self.recorder.table, seat).to_dict()
        return out

    def broadcast_room(self) -> None:
        """Send everyone the room's public state."""
        message = json.dumps({"type": "room", "room": self.public()})
        for c in self.conns:
            self.send(c, message)

    def attach(self, conn: Connection) -> None:
        """A client connected: it gets the full current state."""
        self.conns.add(conn)
        if self.paused:
            conn.push({"type": "paused", "code": "storage_unavailable",
                       "message": STORAGE_WAIT_MESSAGES["storage_unavailable"]})
        self.send(conn, self.state_for(conn.seat))
        self.broadcast_room()

    def detach(self, conn: Connection) -> None:
        """A client left."""
        self.conns.discard(conn)
        self.broadcast_room()

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
        self.recorder = Recorder(self.rules, [s.name for s in self.seats], self.first_dealer,
                                 meta={"room": self.code, "match_no": self.match_no})
        self._make_bots()
        self._save_room()
        for c in self.conns:
            self.send(c, self.state_for(c.seat))
        now = self.now()
        for seat, bot in self.bots.items():
            self._schedule_plans(seat, bot.on_view(view_for(self.recorder.table, seat), now))
        self._schedule_deal()
        self.broadcast_room()

    def _make_bots(self) -> None:
        self.bots = {}
        self._plans = {}
        for i, s in enumerate(self.seats):
            if s.kind == "bot":
                self.bots[i] = make_bot(s.level or "simple", i, self.rules,
                                        random.Random(self.rng.randrange(2**32)),
                                        self.bot_speed)

    def mark_ready(self, seat: int) -> None:
        """A player is ready for the next deal (stored: a restart keeps it)."""
        self.require_storage()
        if self.status != "playing" or self.recorder is None or \
                self.recorder.table.phase != "huddle":
            raise ServerError("not_between_hands", "You can say ready between hands only.")
        self.seats[seat].ready = True
        self._schedule_deal()
        self._save_room()
        self.broadcast_room()

    def _schedule_deal(self) -> None:
        humans = [s for s in self.seats if s.kind == "human"]
        wait = self.settings.bot_huddle_s if all(s.ready for s in humans) else \
            self.settings.huddle_s
        at = self.now() + wait
        if self._deal_at is not None and self._deal_at <= at:
            return
        if self._deal_timer is not None:
            self._deal_timer.cancel()
        self._deal_at = at
        self._deal_timer = self._call_later(wait, self._deal)
        self._save_room()

    def _deal(self) -> None:
        self._deal_timer = None
        self._deal_at = None
        if self.status != "playing" or self.recorder is None or \
                self.recorder.table.phase != "huddle":
            return
        for s in self.seats:
            s.ready = False
        order = tuple(shuffled_pack(self.rules.deck_count, self.rng))
        self._step(None, Deal(order, self.rng.randrange(2**31)))
        self._save_room()  # ready flags cleared, no deal pending
        self.broadcast_room()

    # == arbitration ===============================================================================
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
        if self.status != "playing" or self.recorder is None:
            raise ServerError("not_playing", "No match is being played in this room.")
        self.require_storage()
        if data.get("type") in ("deal", "table_talk"):
            raise Rejected("bad_action", "Only the table deals and rules on table talk.")
        if "as_dealer" in data:
            # A dealer who is not playing (S2 tournament row 7) is the table itself; the host may
            # act for it, to say Go or to sweep the middle now.
            if (data["as_dealer"] is not True or seat != self.host_seat
                    or self.rules.dealer != "non_playing" or data.get("type") not in ("go", "stall")):
                raise Rejected("not_dealer", "Only the host acts for a dealer who is not "
                               "playing, and only to say Go or to sweep.")
            data = {k: v for k, v in data.items() if k != "as_dealer"}
            return self._step(None, action_from_dict({**data, "seat": None}), ack)
        action = action_from_dict({**data, "seat": seat})
        return self._step(seat, action, ack)

    def rule_table_talk(self, pair: int) -> None:
        """The host rules that ``pair`` used table talk (S1, S2): that pair loses the match."""
        if self.status != "playing" or self.recorder is None:
            raise ServerError("not_playing", "No match is being played in this room.")
        self.require_storage()
        self._step(None, RuleTableTalk(pair))

    def _step(self, seat: int | None, action: Action,
              ack: tuple[Connection, Any] | None = None) -> list[Event]:
        """Apply, record, broadcast (held until committed), tell the bots, follow up: one
        synchronous step."""
        assert self.recorder is not None
        now = self.now()
        events = self.recorder.apply(action, now)  # raises Rejected: nothing changed
        self._last_t = now
        self._record("action", now, action_to_dict(action))
        if ack is not None and ack[1] is not None:
            self.send(ack[0], {"type": "ok", "id": ack[1]})
        self._after(events, now)
        return events

    def _on_timer(self) -> None:
        self._timer = None
        if self.recorder is None or self.status != "playing":
            return
        now = self.now()
        events = self.recorder.advance(now)
        if events:
            self._last_t = now
            self._record("tick", now, None)
            self._after(events, now)
        else:
            self._reschedule_timer()

    def _after(self, events: list[Event], now: float) -> None:
        assert self.recorder is not None
        table = self.recorder.table
        self._broadcast(events)
        for seat, bot in self.bots.items():
            seen = events_for(events, seat, self.rules.pairs)
            if seen:
                self._schedule_plans(seat, bot.on_events(seen, now))
        if any(isinstance(e, MatchEnded) for e in events):
            self._finish()
        elif any(isinstance(e, HandEnded) for e in events) and table.phase == "huddle":
            self._schedule_deal()
            self.broadcast_room()
        self._reschedule_timer()

    def _broadcast(self, events: list[Event]) -> None:
        assert self.recorder is not None
        table = self.recorder.table
        cache: dict[int | None, str] = {}
        pairs = self.rules.pairs
        stamp = self.clock()
        for c in self.conns:
            text = cache.get(c.seat)
            if text is None:
                text = json.dumps({
                    "type": "update", "version": table.version, "server_time": stamp,
                    "events": [event_to_dict(e) for e in events_for(events, c.seat, pairs)],
                    "view": view_for(table, c.seat).to_dict()})
                cache[c.seat] = text
            self.send(c, text)

    def _reschedule_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.recorder is None or self.status != "playing":
            return
        deadline = self.recorder.table.next_deadline()
        if deadline is not None:
            self._timer = self._call_later(deadline - self.now() + 0.001, self._on_timer)

    def _finish(self) -> None:
        assert self.recorder is not None
        self.status = "finished"
        for handle in (self._timer, self._deal_timer):
            if handle is not None:
                handle.cancel()
        self._timer = self._deal_timer = None
        self._deal_at = None
        for _, handle in self._plans.values():
            handle.cancel()
        self._plans = {}
        rec = self.recorder
        rec.record.end = self.now()
        summary = match_summary(rec.table, [])
        summary["hands"] = self._hand_results()

        def saved(match_id: int) -> None:  # committed: now the match's end may be reported
            self.last_match_id = match_id
            self._save_room()
            self.broadcast_room()
            if self.on_finished is not None:
                self.on_finished(self, summary)

        self._save_room()
        self.writer.match({"room_code": self.code, "match_no": self.match_no,
                           "rules": self.rules.to_dict(), "names": list(rec.table.names),
                           "summary": summary, "record": rec.record.to_dict()}, saved)
        self.broadcast_room()

    def _hand_results(self) -> list[dict[str, Any]]:
        assert self.recorder is not None
        from kemps.record import replay

        replayed = replay(self.recorder.record)
        return list(match_summary(replayed.table, replayed.events)["hands"])

    # == bots ======================================================================================
    def _schedule_plans(self, seat: int, plans: list[Plan]) -> None:
        for plan in plans:
            key = (seat, plan.channel)
            old = self._plans.pop(key, None)
            if old is not None:
                old[1].cancel()
            if plan.action is None:
                continue
            self._generation += 1
            gen = self._generation
            handle = self._call_later(plan.delay, self._bot_act, seat, plan.channel, gen,
                                      plan.action)
            self._plans[key] = (gen, handle)

    def _bot_act(self, seat: int, channel: str, gen: int, action: Action) -> None:
        key = (seat, channel)
        current = self._plans.get(key)
        if current is None or current[0] != gen or self.status != "playing":
            return
        now = self.now()
        ready = self._bot_last.get(seat, -MIN_BOT_GAP_S) + MIN_BOT_GAP_S
        if now < ready:  # a person's hands: no two moves of one seat within MIN_BOT_GAP_S
            self._plans[key] = (gen, self._call_later(ready - now, self._bot_act, seat, channel,
                                                      gen, action))
            return
        if self.writer.refusal() is not None:  # storage is behind: the bot waits like a person
            self._plans[key] = (gen, self._call_later(0.5, self._bot_act, seat, channel, gen,
                                                      action))
            return
        del self._plans[key]
        self._bot_last[seat] = now
        try:
            self._step(seat, action)
        except Rejected as err:
            bot = self.bots.get(seat)
            if bot is not None:
                self._schedule_plans(seat, bot.on_rejected(action, err, now))

    # == persistence ===============================================================================
    def row(self) -> dict[str, Any]:
        """The room as a storage row: lobby, ready flags, host, next deal time and the table
        clock (table seconds), last finished match."""
        return {"code": self.code, "created_at": self.created_at, "updated_at": self.clock(),
                "status": self.status, "rules": self.rules.to_dict(),
                "seats": [s.to_row() for s in self.seats], "host_seat": self.host_seat,
                "match_no": self.match_no, "first_dealer": self.first_dealer,
                "epoch": self.epoch, "table_time": self.now(), "deal_at": self._deal_at,
                "last_match_id": self.last_match_id, "spectators": self.spectators_allowed,
                "archived_at": None}

    def _save_room(self) -> None:
        if self.status == "broken":  # its stored row stays as it was, for the operator
            return
        self._ticket = self.writer.room(self.row(), self._release)

    def _record(self, kind: str, t: float, payload: dict[str, Any] | None) -> None:
        self._ticket = self.writer.entry(self.code, self.match_no, self.seq, t, kind, payload,
                                         self._release)
        self.seq += 1

    @classmethod
    def restore(cls, row: dict[str, Any], entries: list[Any], settings: Settings,
                writer: Writer, clock: Callable[[], float] = time.time) -> Room:
        """Rebuild a room from storage exactly as it was: the lobby, and the table by replaying the
        match's recorded steps. The table clock resumes where it stopped (time while the server was
        down does not count, so no countdown runs out in the meantime)."""
        rules = RuleSet.from_dict(row["rules"])
        room = cls(row["code"], rules, settings, writer, clock)
        room.created_at = row["created_at"]
        room.seats = [Seat(name=s.get("name", ""), kind=s.get("kind", "open"),
                           level=s.get("level"), token_hash=s.get("token_hash"),
                           ready=bool(s.get("ready", False)))
                      for s in row["seats"]]
        room.host_seat = row["host_seat"]
        room.status = row["status"]
        room.match_no = row["match_no"]
        room.first_dealer = row["first_dealer"]
        room.last_match_id = row.get("last_match_id")
        room.spectators_allowed = bool(row.get("spectators", True))
        if room.status == "playing":
            rec = Recorder(rules, [s.name for s in room.seats], room.first_dealer,
                           meta={"room": room.code, "match_no": room.match_no})
            last = 0.0
            for i, e in enumerate(entries):
                if e.seq != i:
                    raise RecordError("bad_record", f"Record step {i} of match {room.match_no} "
                                      f"is missing (the next stored step is {e.seq}).")
                if e.kind == "tick":
                    rec.advance(e.t)
                else:
                    rec.apply(action_from_dict(e.payload), e.t)
                last = max(last, e.t)
            room.recorder = rec
            room.seq = len(entries)
            room._last_t = last
            # The clock resumes where it last stood (stored at commits, every few seconds while
            # playing, and at shutdown), never before the last step.
            room.epoch = clock() - max(last, row.get("table_time") or 0.0)
            if rec.table.phase == "huddle":
                room._deal_at = row.get("deal_at")
        else:
            room.epoch = row["epoch"]
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
        seats = row.get("seats") or []
        room.seats = [Seat(name=s.get("name", ""), kind=s.get("kind", "open"),
                           level=s.get("level"), token_hash=s.get("token_hash"))
                      for s in seats if isinstance(s, dict)] or room.seats
        return room

    def resume(self) -> None:
        """After :meth:`restore`, inside the event loop: bots, timers and the next deal go on."""
        if self.status != "playing" or self.recorder is None:
            return
        self._make_bots()
        self._resume_timers()
        self.broadcast_room()

    def _resume_timers(self) -> None:
        """Bots, the next deal (at its stored time) and the table's timers go on."""
        if self.status != "playing" or self.recorder is None:
            return
        now = self.now()
        table = self.recorder.table
        for seat, bot in self.bots.items():
            self._schedule_plans(seat, bot.on_view(view_for(table, seat), now))
        if table.phase == "huddle":
            if self._deal_at is None:
                self._schedule_deal()
            else:
                if self._deal_timer is not None:
                    self._deal_timer.cancel()
                self._deal_timer = self._call_later(self._deal_at - now, self._deal)
        self._reschedule_timer()

    def close(self) -> None:
        """Cancel every timer (server shutdown)."""
        for handle in (self._timer, self._deal_timer):
            if handle is not None:
                handle.cancel()
        for _, handle in self._plans.values():
            handle.cancel()
        for c in list(self.conns):
            c.close()


def error_for(err: KempsError, ref: int | None = None) -> dict[str, Any]:
    """A rejection or error as a message to the one client who caused it."""
    kind = "rejected" if isinstance(err, Rejected) else "error"
    out = error_message(err.code, err.message, ref)
    out["type"] = kind
    return out
