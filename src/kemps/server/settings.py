"""Server settings: embedded defaults, overridable by arguments or environment variables.

``KEMPS_DATABASE_URL`` (default ``sqlite+aiosqlite:///kemps.sqlite``, a file in the working folder;
``postgresql+asyncpg://...`` for PostgreSQL), ``KEMPS_HOST`` (``127.0.0.1``), ``KEMPS_PORT``
(``8000``), ``KEMPS_HUDDLE_S`` (45: seconds between hands unless everyone is ready),
``KEMPS_BOT_HUDDLE_S`` (3: once everyone is ready).

The limits on work a stranger can cause (docs/protocol.md, "Limits"; enforced by
:mod:`kemps.server.limits`): ``KEMPS_RATE_PER_S`` (20) and ``KEMPS_RATE_BURST`` (40), messages per
second per seat (and per address for spectators) and the burst on top; ``KEMPS_ROOM_BURST`` (10) and
``KEMPS_ROOMS_PER_MIN`` (5), rooms one client address may create at once and then per minute;
``KEMPS_MAX_ROOMS`` (2000), live rooms in all; ``KEMPS_ROOM_IDLE_S`` (1800) and
``KEMPS_MATCH_IDLE_S`` (7200), seconds a room in the lobby (or after its match) and a room with an
unfinished match may go with no player connected before it is archived; ``KEMPS_MAX_SPECTATORS``
(50) per table; ``KEMPS_SEAT_CONNECTIONS`` (3) live connections per seat;
``KEMPS_ADDRESS_CONNECTIONS`` (200) live connections from one client address in all.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields
from typing import Final

from kemps.errors import SettingError

DEFAULT_DATABASE_URL: Final = "sqlite+aiosqlite:///kemps.sqlite"
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000

# setting -> environment variable, for the numbers read from the environment
ENV_NUMBERS: Final[dict[str, str]] = {
    "huddle_s": "KEMPS_HUDDLE_S", "bot_huddle_s": "KEMPS_BOT_HUDDLE_S",
    "rate_per_s": "KEMPS_RATE_PER_S", "rate_burst": "KEMPS_RATE_BURST",
    "room_burst": "KEMPS_ROOM_BURST", "rooms_per_min": "KEMPS_ROOMS_PER_MIN",
    "max_rooms": "KEMPS_MAX_ROOMS", "room_idle_s": "KEMPS_ROOM_IDLE_S",
    "match_idle_s": "KEMPS_MATCH_IDLE_S", "max_spectators": "KEMPS_MAX_SPECTATORS",
    "seat_connections": "KEMPS_SEAT_CONNECTIONS",
    "address_connections": "KEMPS_ADDRESS_CONNECTIONS",
    "away_grace_s": "KEMPS_AWAY_GRACE_S",
}
# the smallest value each limit may take (a zero rate or idle time would stop the server working)
MINIMUM: Final[dict[str, float]] = {
    "huddle_s": 0.0, "bot_huddle_s": 0.0, "rate_per_s": 0.1, "rate_burst": 1.0,
    "room_burst": 1.0, "rooms_per_min": 0.01, "max_rooms": 1.0, "room_idle_s": 0.1,
    "match_idle_s": 0.1, "max_spectators": 0.0, "seat_connections": 1.0,
    "address_connections": 1.0, "away_grace_s": 0.0,
}


@dataclass(frozen=True)
class Settings:
    """Where the server listens and stores, and the limits it keeps.

    ``huddle_s`` is how long (seconds) the table waits between hands for players who have not
    pressed Ready; ``bot_huddle_s`` when all seats are bots or ready. ``rate_per_s`` and
    ``rate_burst``: messages a seat (all its connections together; a spectator's address) may send
    per second, and the burst on top, before it is told it is flooding. ``room_burst`` and
    ``rooms_per_min``: rooms one client address may create at once, then per minute;
    ``max_rooms``: live rooms in all. ``room_idle_s``: seconds a lobby (or finished) room may go
    with no player connected before it is archived; ``match_idle_s`` the same for a room whose
    match is on. ``max_spectators``: connections without a seat per table (0: none).
    ``seat_connections``: live connections per seat (the oldest is closed beyond it).
    ``address_connections``: live connections from one client address, to all rooms together.
    ``away_grace_s``: seconds a seated person may be gone (no connection) during a match before a
    bot stands in for them; it hands the seat back the moment they return.
    ``redis_url`` (``KEMPS_REDIS_URL``): set it to run as one of many nodes (docs/scale.md);
    ``node_url`` (``KEMPS_NODE_URL``, default ``http://HOST:PORT``) is where the other nodes reach
    this one, ``node_id`` (``KEMPS_NODE_ID``, default the URL) names it. Many nodes need a shared
    database: SQLite is refused with ``bad_setting``.

    Raises:
        SettingError: ``bad_setting`` for a value below its minimum (:data:`MINIMUM`) or not a
            finite number.
    """

    database_url: str = DEFAULT_DATABASE_URL
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    huddle_s: float = 45.0
    bot_huddle_s: float = 3.0
    rate_per_s: float = 20.0
    rate_burst: float = 40.0
    room_burst: int = 10
    rooms_per_min: float = 5.0
    max_rooms: int = 2000
    room_idle_s: float = 1800.0
    match_idle_s: float = 7200.0
    max_spectators: int = 50
    seat_connections: int = 3
    address_connections: int = 200
    away_grace_s: float = 30.0
    redis_url: str | None = None
    node_url: str | None = None
    node_id: str | None = None

    def __post_init__(self) -> None:
        if self.redis_url and self.database_url.startswith("sqlite"):
            raise SettingError("bad_setting", "Many nodes (KEMPS_REDIS_URL) share one database: "
                               "give a PostgreSQL URL (KEMPS_DATABASE_URL), not SQLite.")
        for name, low in MINIMUM.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or \
                    not math.isfinite(value) or value < low:
                raise SettingError("bad_setting", f"Setting {name} ({ENV_NUMBERS[name]}) must be "
                                   f"a number of at least {low:g}, not {value!r}.")

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Defaults, then environment variables, then non-None ``overrides``.

        Raises:
            SettingError: ``bad_setting``, naming the variable that is not a number or too small.
        """
        values: dict[str, object] = {
            "database_url": os.environ.get("KEMPS_DATABASE_URL", DEFAULT_DATABASE_URL),
            "host": os.environ.get("KEMPS_HOST", DEFAULT_HOST),
            "redis_url": os.environ.get("KEMPS_REDIS_URL") or None,
            "node_url": os.environ.get("KEMPS_NODE_URL") or None,
            "node_id": os.environ.get("KEMPS_NODE_ID") or None,
        }
        types = {f.name: f.type for f in fields(cls)}
        for key, env in (("port", "KEMPS_PORT"), *ENV_NUMBERS.items()):
            if env not in os.environ:
                continue
            text = os.environ[env]
            try:
                values[key] = int(text) if types[key] == "int" else float(text)
            except ValueError:
                raise SettingError("bad_setting", f"{env} must be a number, not {text!r}.") \
                    from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
