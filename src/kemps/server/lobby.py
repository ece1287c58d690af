"""A room's lobby: its seats, who holds them (by secret token), the host, the bots and the rules
before a match.

Seat tokens are shown once to the person who takes the seat and kept only as their SHA-256. The
:class:`Lobby` is the base of :class:`kemps.server.room.Room`; it changes nothing while a match is
on, and every change is stored and told to everyone through the room's hooks
(:meth:`Lobby.require_storage`, :meth:`Lobby._lobby_changed`).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from dataclasses import dataclass
from typing import Any, Final, Literal

from kemps import bots
from kemps.bots.base import Bot
from kemps.errors import KempsError
from kemps.rules import RuleSet
from kemps.server.connections import Connection
from kemps.server.errors import ServerError
from kemps.server.protocol import error_message

CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no I/O/0/1 to misread
#: Bots' names by seat: a bot is a player at the table, not a seat number ("Club bot 3").
BOT_NAMES: Final = ("Ada", "Bram", "Cleo", "Dov", "Esme", "Fitz", "Gwen", "Hugo", "Iris", "Joss",
                    "Kai", "Lena", "Milo", "Nell", "Otto", "Pia", "Quin", "Rosa", "Sami", "Tova",
                    "Ugo", "Vera", "Wes", "Xena")


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


def bot_name(seat: int, names_taken: list[str]) -> str:
    """A bot's name for ``seat``: from :data:`BOT_NAMES`, avoiding a name already at the table."""
    n = len(BOT_NAMES)
    for i in range(n):
        name = BOT_NAMES[(seat + i) % n]
        if name not in names_taken:
            return name
    return f"Bot {seat + 1}"


@dataclass
class Seat:
    """One seat of the lobby. ``kind``: ``open``, ``human`` or ``bot``; ``level`` a bot's level;
    ``token_hash`` the holder's token (people only); ``ready`` for the next deal; ``stand_in``
    the level of the bot playing for a person who is away (None: nobody stands in)."""

    name: str = ""
    kind: Literal["open", "human", "bot"] = "open"
    level: str | None = None
    token_hash: str | None = None
    ready: bool = False
    stand_in: str | None = None
    player: str | None = None  # a person's public player id (kemps.server.players); None: a guest

    def to_row(self) -> dict[str, Any]:
        row = {"name": self.name, "kind": self.kind, "level": self.level,
               "token_hash": self.token_hash, "ready": self.ready, "stand_in": self.stand_in}
        if self.player is not None:
            row["player"] = self.player
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Seat:
        return cls(name=row.get("name", ""), kind=row.get("kind", "open"),
                   level=row.get("level"), token_hash=row.get("token_hash"),
                   ready=bool(row.get("ready", False)), stand_in=row.get("stand_in"),
                   player=row.get("player"))


class Lobby:
    """Seats, tokens, the host, the bots' speed and the rules of a room before its match.

    The room supplies ``status``, ``conns`` and the hooks :meth:`require_storage`,
    :meth:`_lobby_changed`, :meth:`_save_room`, :meth:`broadcast_room` and :meth:`send`.
    """

    rules: RuleSet
    seats: list[Seat]
    host_seat: int
    status: Literal["lobby", "playing", "finished", "broken"]
    conns: set[Connection]
    rules_locked: bool
    spectators_allowed: bool
    camera: bool  # a camera table (issue 24): set with the rules
    chosen_bot_speed: str | None

    # == the room's hooks ==========================================================================
    def require_storage(self) -> None:
        raise NotImplementedError

    def _save_room(self) -> None:
        raise NotImplementedError

    def broadcast_room(self) -> None:
        raise NotImplementedError

    def send(self, conn: Connection, message: dict[str, Any] | str) -> None:
        raise NotImplementedError

    def state_for(self, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def _lobby_changed(self) -> None:
        self._release_stale_connections()
        self._save_room()
        self.broadcast_room()

    # == tokens ====================================================================================
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

    # == seats =====================================================================================
    def take_seat(self, seat: int, name: str, player: str | None = None) -> str:
        """Seat a person (``player``: their public player id, None: a guest); returns the seat's
        secret token (shown once, stored only as a hash).

        Raises:
            ServerError: ``no_such_seat``, ``seat_taken`` (409), ``bad_name``, ``not_in_lobby``.
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
        self.seats[seat] = Seat(name=name, kind="human", token_hash=token_hash(token),
                                player=player)
        if all(s.kind != "human" for i, s in enumerate(self.seats) if i != seat) and \
                self.seats[self.host_seat].kind != "human":
            self.host_seat = seat
        self._lobby_changed()
        return token

    def add_bot(self, seat: int, level: str = "simple") -> None:
        """Put a bot in an open seat. Raises ServerError ``seat_taken``, ``unknown_level``,
        ``not_in_lobby``."""
        self._check_seat_index(seat)
        self.require_storage()
        if self.status == "playing":
            raise ServerError("not_in_lobby", "Seats are fixed while the match is on.", 409)
        if self.seats[seat].kind != "open":
            raise ServerError("seat_taken", f"Seat {seat + 1} is taken.", 409)
        if level not in bot_levels():
            raise ServerError("unknown_level", f"There is no bot level {level!r}; levels: "
                              f"{', '.join(bot_levels())}.")
        name = bot_name(seat, [s.name for s in self.seats])
        self.seats[seat] = Seat(name=name, kind="bot", level=level)
        self._lobby_changed()

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
        self.require_storage()  # a lobby change, refused while storage cannot commit
        self.chosen_bot_speed = speed

    def set_rules(self, rules: RuleSet, camera: bool | None = None) -> None:
        """Change the rules in the lobby (and whether it is a camera table; None: as it is); a
        different number of pairs re-seats (keeping seats that still exist). Raises ServerError
        ``not_in_lobby``, ``rules_locked``."""
        if self.status == "playing":
            raise ServerError("not_in_lobby", "The rules are fixed while the match is on.", 409)
        self.require_storage()
        if self.rules_locked:
            raise ServerError("rules_locked", "This room plays a tournament match: its rules are "
                              "the tournament's.", 409)
        old = self.seats
        self.rules = rules
        if camera is not None:
            self.camera = camera
        self.seats = [old[i] if i < len(old) else Seat() for i in range(rules.players)]
        if self.host_seat >= rules.players:
            self.host_seat = 0
        self._lobby_changed()

    def set_spectators(self, allowed: bool) -> None:
        """The host lets spectators watch, or not (the server then closes those watching).
        Raises ServerError ``storage_unavailable`` / ``storage_busy`` (nothing changed)."""
        self.require_storage()
        self.spectators_allowed = bool(allowed)
        self._save_room()
        self.broadcast_room()

    def _check_seat_index(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise ServerError("no_such_seat", f"Seats are numbered 0 to {len(self.seats) - 1}.")

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
