"""Server settings: embedded defaults, overridable by arguments or environment variables.

``KEMPS_DATABASE_URL`` (default ``sqlite+aiosqlite:///kemps.sqlite``, a file in the working folder;
``postgresql+asyncpg://...`` for PostgreSQL), ``KEMPS_HOST`` (``127.0.0.1``), ``KEMPS_PORT``
(``8000``), ``KEMPS_HUDDLE_S`` (45: seconds between hands unless everyone is ready),
``KEMPS_BOT_HUDDLE_S`` (3: once everyone is ready).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final

DEFAULT_DATABASE_URL: Final = "sqlite+aiosqlite:///kemps.sqlite"
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000


@dataclass(frozen=True)
class Settings:
    """Where the server listens and stores. ``huddle_s`` is how long (seconds) the table waits
    between hands for players who have not pressed Ready; ``bot_huddle_s`` when all seats are
    bots or ready. ``rate_per_s`` and ``rate_burst``: messages a client may send per second, and
    the burst on top, before it is told it is flooding."""

    database_url: str = DEFAULT_DATABASE_URL
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    huddle_s: float = 45.0
    bot_huddle_s: float = 3.0
    rate_per_s: float = 20.0
    rate_burst: float = 40.0

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Defaults, then environment variables, then non-None ``overrides``."""
        values: dict[str, object] = {
            "database_url": os.environ.get("KEMPS_DATABASE_URL", DEFAULT_DATABASE_URL),
            "host": os.environ.get("KEMPS_HOST", DEFAULT_HOST),
            "port": int(os.environ.get("KEMPS_PORT", str(DEFAULT_PORT))),
        }
        for key, env in (("huddle_s", "KEMPS_HUDDLE_S"), ("bot_huddle_s", "KEMPS_BOT_HUDDLE_S")):
            if env in os.environ:
                values[key] = float(os.environ[env])
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
