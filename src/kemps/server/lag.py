"""Each seat's lag: the round trip, in milliseconds, the server measures to the seat's connection.

A connection that answers lag probes says so with ``{"type": "lag_pong"}`` (no ``id``: the page
sends it when its socket opens). From then on, every :data:`PROBE_EVERY_S` seconds the server sends
each such *seated* connection ``{"type": "lag_ping", "id": N}`` and the connection answers
``{"type": "lag_pong", "id": N}`` at once; the time between the two, on the server's monotonic
clock, is the seat's round trip (its latest answer; several connections of one seat: the latest
of any). After each round every answering connection, spectators too, gets ``{"type": "lag",
"ms": [42, null, ...]}`` (one entry a seat; null: not measured, or nobody answers for that seat
now) when a figure changed, and a connection that has just begun to answer gets it as it stands. A client
that never sends ``lag_pong`` is never probed nor told (scripts, bots, tests see no new message).

The lag is shown beside each name; it changes nothing at the table: moves are taken in the order
they arrive at the server, as ever (docs/protocol.md, "Arrival order").
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Final

from kemps.server.connections import Connection

#: How often the server probes each answering seated connection (seconds).
PROBE_EVERY_S: Final = 2.0
#: Probes a connection may leave unanswered; older ones are forgotten (bounded memory).
MAX_OUTSTANDING: Final = 4
#: A round trip longer than this is reported as this (milliseconds).
MAX_MS: Final = 60_000


class SeatLag:
    """The lag of one room's seats: who answers probes, the probes out, the figures.

    ``clock`` gives monotonic seconds (``time.perf_counter``)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self._out: dict[Connection, dict[int, float]] = {}
        self._next = 1
        self.ms: dict[int, int] = {}
        self._told: list[int | None] | None = None
        self._told_to: set[Connection] = set()

    def answer(self, conn: Connection, probe: int | None) -> None:
        """``conn`` answered probe ``probe`` (None: it says it answers probes from now on)."""
        out = self._out.setdefault(conn, {})
        if probe is None:
            return
        sent = out.pop(probe, None)
        if sent is None or conn.seat is None:
            return  # an answer to nothing we asked (or a seat given up since): ignored
        self.ms[conn.seat] = min(MAX_MS, round((self.clock() - sent) * 1000))

    def probe(self, conns: Iterable[Connection], seats: int) -> None:
        """One round: report the figures if they changed, then probe every answering seated
        connection still in ``conns`` (the room's)."""
        if not self._out:  # nobody here answers probes (scripts, bots, most benches)
            return
        live = set(conns)
        for gone in [c for c in self._out if c not in live or c.closed]:
            del self._out[gone]
            self._told_to.discard(gone)
        measured = {c.seat for c in self._out if c.seat is not None and c.seat < seats}
        for seat in [s for s in self.ms if s not in measured]:
            del self.ms[seat]  # nobody answers for that seat now (left, a bot, a seat gone)
        figures: list[int | None] = [self.ms.get(s) for s in range(seats)]
        if figures != self._told:
            self._told = figures
            self._told_to = set()
        report: str | None = None
        for c in self._out:
            if c not in self._told_to:  # changed figures to all; as they are to a newcomer
                report = report or json.dumps({"type": "lag", "ms": figures})
                c.push(report)
                self._told_to.add(c)
        now = self.clock()
        for c, out in self._out.items():
            if c.seat is None:
                continue
            while len(out) >= MAX_OUTSTANDING:
                del out[next(iter(out))]
            probe = self._next
            self._next = self._next % 2**31 + 1
            out[probe] = now
            c.push(f'{{"type": "lag_ping", "id": {probe}}}')

    def forget_seat(self, seat: int) -> None:
        """The seat changed hands: its old figure goes."""
        self.ms.pop(seat, None)


__all__ = ["MAX_OUTSTANDING", "PROBE_EVERY_S", "SeatLag"]
