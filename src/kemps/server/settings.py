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
``KEMPS_ADDRESS_CONNECTIONS`` (200) live connections from one client address in all;
``KEMPS_SEATS_PER_ADDRESS`` (4) seats people from one client address may hold at one table.
``KEMPS_TRUSTED_PROXIES`` (none): the addresses (or networks, comma separated) of the reverse
proxies, load balancers and other nodes whose ``X-Forwarded-For`` names the client; from any
other peer the header is ignored, so no local process can pass the per-address limits.

Camera tables (issue 24; docs/camera.md; :mod:`kemps.server.camera`): ``KEMPS_ICE_SERVERS`` (JSON,
the STUN and TURN servers browsers use; none by default), ``KEMPS_TURN_SECRET`` (coturn's
static-auth-secret: TURN credentials are minted from it per seat), ``KEMPS_TURN_TTL_S`` (21600: how
long one lasts), ``KEMPS_ICE_TRANSPORT_POLICY`` (``all``; ``relay``: every connection through
TURN, so no player learns another's address), ``KEMPS_JANUS_URL`` (Janus's WebSocket as browsers
reach it: the SFU), ``KEMPS_JANUS_API`` (its HTTP API as this server reaches it),
``KEMPS_JANUS_ADMIN_KEY``, ``KEMPS_MESH_MAX_PLAYERS`` (8: larger camera tables use the SFU);
``KEMPS_SIGNAL_PER_S`` (20) and ``KEMPS_SIGNAL_BURST`` (150), ``KEMPS_SIGNAL_BYTES_PER_S``
(65536) and ``KEMPS_SIGNAL_BYTES_BURST`` (524288): the connection set-up a seat may relay.
"""

from __future__ import annotations

import ipaddress
import math
import os
from dataclasses import dataclass, field, fields
from typing import Final

from kemps.errors import SettingError
from kemps.server.camera import DEFAULT_MESH_MAX_PLAYERS, DEFAULT_TURN_TTL_S, IceConfig, SfuConfig

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
    "away_grace_s": "KEMPS_AWAY_GRACE_S", "seats_per_address": "KEMPS_SEATS_PER_ADDRESS",
    # camera tables (kemps.server.camera, kemps.server.signalling)
    "turn_ttl_s": "KEMPS_TURN_TTL_S", "mesh_max_players": "KEMPS_MESH_MAX_PLAYERS",
    "signal_per_s": "KEMPS_SIGNAL_PER_S", "signal_burst": "KEMPS_SIGNAL_BURST",
    "signal_bytes_per_s": "KEMPS_SIGNAL_BYTES_PER_S",
    "signal_bytes_burst": "KEMPS_SIGNAL_BYTES_BURST",
}
# camera tables: text settings, read as they are (checked by kemps.server.camera)
ENV_TEXTS: Final[dict[str, str]] = {
    "ice_servers": "KEMPS_ICE_SERVERS", "turn_secret": "KEMPS_TURN_SECRET",
    "ice_transport_policy": "KEMPS_ICE_TRANSPORT_POLICY", "janus_url": "KEMPS_JANUS_URL",
    "janus_api": "KEMPS_JANUS_API", "janus_admin_key": "KEMPS_JANUS_ADMIN_KEY",
}
# the smallest value each limit may take (a zero rate or idle time would stop the server working)
MINIMUM: Final[dict[str, float]] = {
    "huddle_s": 0.0, "bot_huddle_s": 0.0, "rate_per_s": 0.1, "rate_burst": 1.0,
    "room_burst": 1.0, "rooms_per_min": 0.01, "max_rooms": 1.0, "room_idle_s": 0.1,
    "match_idle_s": 0.1, "max_spectators": 0.0, "seat_connections": 1.0,
    "address_connections": 1.0, "away_grace_s": 0.0, "seats_per_address": 1.0,
    "turn_ttl_s": 60.0, "mesh_max_players": 0.0, "signal_per_s": 0.1, "signal_burst": 1.0,
    "signal_bytes_per_s": 1024.0, "signal_bytes_burst": 16384.0,
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
    ``seats_per_address``: seats people from one client address may hold at one table (4: the
    players of a two-pair match on one home or club connection; docs/protocol.md "Limits").
    ``away_grace_s``: seconds a seated person may be gone (no connection) during a match before a
    bot stands in for them; it hands the seat back the moment they return.
    ``trusted_proxies`` (``KEMPS_TRUSTED_PROXIES``, e.g. ``"10.0.0.2,10.0.1.0/24"``; empty by
    default): the peers whose ``X-Forwarded-For`` header is believed (the client address the
    limits count is then the one it names); from every other peer it is ignored.
    ``accept_database`` (``kemps serve --accept-database``, ``KEMPS_ACCEPT_DATABASE=1``): start
    on the SQLite database that is there (an empty new one when there is none) even when it is
    not the one this server used (:mod:`kemps.server.rescue`); without it such a start is
    refused.
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
    seats_per_address: int = 4
    trusted_proxies: str = ""
    accept_database: bool = False
    redis_url: str | None = None
    node_url: str | None = None
    node_id: str | None = None
    ice_servers: str = ""
    turn_secret: str | None = None
    turn_ttl_s: float = DEFAULT_TURN_TTL_S
    ice_transport_policy: str = "all"
    janus_url: str | None = None
    janus_api: str | None = None
    janus_admin_key: str | None = None
    mesh_max_players: int = DEFAULT_MESH_MAX_PLAYERS
    signal_per_s: float = 20.0
    signal_burst: float = 150.0
    signal_bytes_per_s: float = 65536.0
    signal_bytes_burst: float = 524288.0
    ice: IceConfig = field(init=False, repr=False, compare=False)
    sfu: SfuConfig = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.redis_url and self.database_url.startswith("sqlite"):
            raise SettingError("bad_setting", "Many nodes (KEMPS_REDIS_URL) share one database: "
                               "give a PostgreSQL URL (KEMPS_DATABASE_URL), not SQLite.")
        for entry in filter(None, (e.strip() for e in self.trusted_proxies.split(","))):
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise SettingError("bad_setting", f"KEMPS_TRUSTED_PROXIES lists {entry[:60]!r}, "
                                   "which is not an address or a network (e.g. 10.0.0.2 or "
                                   "10.0.1.0/24).") from None
        for name, low in MINIMUM.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or \
                    not math.isfinite(value) or value < low:
                raise SettingError("bad_setting", f"Setting {name} ({ENV_NUMBERS[name]}) must be "
                                   f"a number of at least {low:g}, not {value!r}.")
        object.__setattr__(self, "ice", IceConfig.parse(
            self.ice_servers, self.turn_secret, self.turn_ttl_s, self.ice_transport_policy))
        object.__setattr__(self, "sfu", SfuConfig.parse(
            self.janus_url, self.janus_api, self.janus_admin_key, int(self.mesh_max_players)))

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
            "trusted_proxies": os.environ.get("KEMPS_TRUSTED_PROXIES", "").strip(),
            "accept_database": os.environ.get("KEMPS_ACCEPT_DATABASE", "") in ("1", "true",
                                                                             "yes"),
        }
        values.update({key: os.environ[env] for key, env in ENV_TEXTS.items()
                       if os.environ.get(env)})
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
