"""The server's refusals: one error type for the lobby and the room, and how an error reaches the
one client that caused it.

Every refusal is a :class:`kemps.errors.KempsError` (a stable machine ``code`` and a plain
sentence); :class:`ServerError` adds the HTTP status the lobby API answers with.
"""

from __future__ import annotations

from typing import Any, Final

from kemps.errors import KempsError, Rejected
from kemps.server.protocol import error_message

#: What a client is told while storage cannot take new moves (the codes are also HTTP 503s).
STORAGE_WAIT_MESSAGES: Final = {
    "storage_unavailable": "The table is paused: the server cannot store moves right now. "
                           "Nothing you were told is lost; play resumes when storage is back.",
    "storage_busy": "The server is writing a backlog of moves; try again in a moment.",
}


#: Seconds a 503 tells a client to wait (``Retry-After``) when nothing better is known: the
#: storage writer retries within 2 s, a lease runs out in 3 s.
RETRY_AFTER_S: Final = 2.0


class ServerError(KempsError):
    """A lobby or room request refused; ``status`` is the HTTP status to answer with.
    ``retry_after_s`` (seconds) is sent as ``Retry-After``; every 503 has one (by default
    :data:`RETRY_AFTER_S`): the server is away for a while, never refusing for good."""

    def __init__(self, code: str, message: str, status: int = 400,
                 retry_after_s: float | None = None) -> None:
        super().__init__(code, message)
        self.status = status
        self.retry_after_s = RETRY_AFTER_S if retry_after_s is None and status == 503 \
            else retry_after_s


def error_for(err: KempsError, ref: int | None = None) -> dict[str, Any]:
    """A rejection or error as a message to the one client who caused it: ``{"type":
    "rejected" | "error", "code", "message", "ref"}``."""
    kind = "rejected" if isinstance(err, Rejected) else "error"
    out = error_message(err.code, err.message, ref)
    out["type"] = kind
    return out
