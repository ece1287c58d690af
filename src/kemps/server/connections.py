"""One client's connection to a room: an ordered outbox written by its own task.

The room never awaits a socket inside its synchronous step: it queues messages here, and
:meth:`Connection.writer` sends them in order. A client that falls :data:`OUTBOX_LIMIT` messages
behind is cut off (it reconnects and gets the whole state again).
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from kemps.actions import LookAt

OUTBOX_LIMIT: Final = 1000  # messages queued for one client before it is cut off as too slow
#: The close code of a client cut off for falling :data:`OUTBOX_LIMIT` messages behind (it
#: reconnects and gets the whole state again; docs/protocol.md).
CLOSE_TOO_SLOW: Final = 4408


class Connection:
    """One client connection, seated at ``seat`` (None: a spectator) with the seat's
    ``token_hash`` as it was when it connected (checked when seats change)."""

    def __init__(self, send: Callable[[str], Awaitable[None]], seat: int | None,
                 token_hash: str | None = None) -> None:
        self.send = send
        self.seat = seat
        self.token_hash = token_hash
        # The messages not yet sent, and the future the writer waits on while there are none: a
        # deque and a future made only when needed, not an asyncio.Queue (four deques and an
        # event for every connection, for as long as it lives).
        self.outbox: deque[str] = deque()
        self._wake: asyncio.Future[None] | None = None
        self.closed = False
        self.close_code = 1000  # what the socket is closed with when the server ends it
        # A spectator's own look at an attention table (kemps.views.spectator_events_for) and
        # when it last changed (table seconds); a seated connection's look is its seat's.
        self.look: LookAt | None = None
        self.look_since: float | None = None
        # What that look saw of the hand in play, held back until the hand ends (a spectator who
        # was told a gesture at once would be a second pair of eyes for a player: Room.send_held)
        self.held_sights: list[dict[str, Any]] = []
        # The room's referee (a dealer who is not playing, S2 tournament row 7): seat None, told
        # every hand and gesture as it happens (kemps.views.referee_view), acts for the dealer.
        self.referee = False

    def push(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict, or JSON text already encoded)."""
        if self.closed:
            return
        if len(self.outbox) >= OUTBOX_LIMIT:
            # Too far behind to catch up: what waits is dropped (a reconnect brings the whole
            # state), the client is told why, and the socket closes with CLOSE_TOO_SLOW.
            self.outbox.clear()
            self.outbox.append(json.dumps({
                "type": "error", "code": "too_slow", "message": "Your connection fell too far "
                "behind the table; reconnect to get the table as it stands."}))
            self.close_code = CLOSE_TOO_SLOW
            self.close()
            return
        self.outbox.append(message if isinstance(message, str) else json.dumps(message))
        self._wake_writer()

    def close(self) -> None:
        """Stop taking messages; the writer sends what is queued and returns, and the socket
        handler ends the connection."""
        self.closed = True
        self._wake_writer()

    def _wake_writer(self) -> None:
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    async def writer(self) -> None:
        """Send queued messages in order until closed (what was queued before :meth:`close` is
        still sent)."""
        outbox = self.outbox
        while True:
            while outbox:
                await self.send(outbox.popleft())
            if self.closed:
                return
            self._wake = wake = asyncio.get_running_loop().create_future()
            await wake
