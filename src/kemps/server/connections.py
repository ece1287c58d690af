"""One client's connection to a room: an ordered outbox written by its own task.

The room never awaits a socket inside its synchronous step: it queues messages here, and
:meth:`Connection.writer` sends them in order. A client that falls :data:`OUTBOX_LIMIT` messages
behind is cut off (it reconnects and gets the whole state again).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from kemps.actions import LookAt

OUTBOX_LIMIT: Final = 1000  # messages queued for one client before it is cut off as too slow


class Connection:
    """One client connection, seated at ``seat`` (None: a spectator) with the seat's
    ``token_hash`` as it was when it connected (checked when seats change)."""

    def __init__(self, send: Callable[[str], Awaitable[None]], seat: int | None,
                 token_hash: str | None = None) -> None:
        self.send = send
        self.seat = seat
        self.token_hash = token_hash
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False
        # A spectator's own look at an attention table (kemps.views.spectator_events_for) and
        # when it last changed (table seconds); a seated connection's look is its seat's.
        self.look: LookAt | None = None
        self.look_since: float | None = None
        # What that look saw of the hand in play, held back until the hand ends (a spectator who
        # was told a gesture at once would be a second pair of eyes for a player: Room.send_held)
        self.held_sights: list[dict[str, Any]] = []

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
