"""A seated player's ping, measured from a process of its own while a test floods the server.

The flood runs in the test's process and the server in another (``kemps serve``), so the pinger
gets a third: its round trips measure the server, not the flooding client's own event loop.
Each sample is ``(wall-clock time it was sent, round trip in ms)``; the test splits them into the
quiet time before the flood and the flood itself.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import statistics
import time
from dataclasses import dataclass
from typing import Any

PING_GAP_S = 0.06  # about 15 pings a second: within a seat's own rate limit (20 a second)


def _pinger(url: str, ready: Any, stop: Any, out: Any) -> None:
    import websockets

    async def run() -> list[tuple[float, float]]:
        samples: list[tuple[float, float]] = []
        async with websockets.connect(url, max_size=2**22) as ws:
            first = json.loads(await ws.recv())
            assert first["type"] == "state" and first["seat"] is not None, first
            ready.set()
            n = 0
            while not stop.is_set():
                n += 1
                wall, t0 = time.time(), time.perf_counter()
                await ws.send(json.dumps({"type": "ping", "id": n}))
                while True:
                    m = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    if m.get("type") == "pong" and m.get("id") == n:
                        break
                    if m.get("type") == "error":
                        raise RuntimeError(f"the pinger was refused: {m}")
                samples.append((wall, 1000.0 * (time.perf_counter() - t0)))
                await asyncio.sleep(PING_GAP_S)
        return samples

    try:
        out.put(("ok", asyncio.run(run())))
    except Exception as err:  # noqa: BLE001 (reported to the test, which fails with it)
        out.put(("failed", repr(err)))


@dataclass
class Pings:
    """Round trips (ms) before the flood and during it."""

    quiet: list[float]
    flood: list[float]

    @property
    def ratio(self) -> float:
        """Median during the flood over median before it."""
        return statistics.median(self.flood) / statistics.median(self.quiet)

    def describe(self) -> str:
        def stats(xs: list[float]) -> str:
            return f"median {statistics.median(xs):.2f} ms, max {max(xs):.1f} ms, n={len(xs)}"
        return f"quiet: {stats(self.quiet)}; flood: {stats(self.flood)}; ratio {self.ratio:.2f}"


class Pinger:
    """``with Pinger(ws_url) as p: ...; p.flood_started(); ...flood...; p.flood_ended()`` then
    ``p.pings``. It pings for ``quiet_s`` seconds before returning from ``__enter__``."""

    def __init__(self, url: str, quiet_s: float = 2.0) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.ready, self.stop, self.out = ctx.Event(), ctx.Event(), ctx.Queue()
        self.proc = ctx.Process(target=_pinger, args=(url, self.ready, self.stop, self.out),
                                daemon=True)
        self.quiet_s = quiet_s
        self.started = self.ended = 0.0
        self.pings: Pings | None = None
        self.samples: list[tuple[float, float]] = []

    def __enter__(self) -> Pinger:
        self.proc.start()
        if not self.ready.wait(60):
            self.proc.kill()
            raise RuntimeError("the pinger did not connect")
        time.sleep(self.quiet_s)
        return self

    def flood_started(self) -> None:
        self.started = time.time()

    def flood_ended(self) -> None:
        self.ended = time.time()

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        kind, value = self.out.get(timeout=90)
        self.proc.join(30)
        if kind != "ok":
            raise RuntimeError(f"the pinger failed: {value}")
        self.samples = value
        quiet = [ms for at, ms in value if at < self.started]
        flood = [ms for at, ms in value if self.started <= at <= self.ended]
        self.pings = Pings(quiet, flood)
