"""Load benchmark of the table server over real WebSockets (``kemps bench-server``).

A real ``kemps serve`` runs as its own process (its own core) on a temporary SQLite database; this
process plays the clients: rooms of four seated players who act at human pace (every 1 to 3 seconds
a swap, a gesture or a stall; Ready between hands). Every ``update`` message carries the server's
clock when it applied the action (``server_time``); a client notes when it received it. For each
action, the latency is the time from the server applying it to the LAST of the room's four seats
receiving its update (same machine, same clock). Steps of increasing player counts give p50 and p99
per step and the largest count whose p99 stayed within the target (20 ms).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

TARGET_P99_MS: Final = 20.0


@dataclass
class StepResult:
    """One load step: ``players`` connected for ``seconds``; latencies in milliseconds."""

    players: int
    seconds: float
    updates: int
    actions: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    client_cpu: float = 0.0  # share of one core the client process used

    @property
    def met(self) -> bool:
        return self.p99_ms <= TARGET_P99_MS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Server:
    def __init__(self, database_url: str | None = None) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        db = Path(self.dir.name) / "bench.sqlite"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kemps", "serve", "--port", str(self.port), "--database-url",
             database_url or f"sqlite+aiosqlite:///{db}"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # one client address makes every room of the load: lift the per-address limit
            env={**os.environ, "KEMPS_ROOM_BURST": "100000", "KEMPS_MAX_ROOMS": "100000",
                 "KEMPS_ADDRESS_CONNECTIONS": "100000"})

    def wait(self) -> None:
        import httpx

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(self.url + "/api/presets", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.dir.cleanup()


async def _make_rooms(url: str, rooms: int) -> list[tuple[str, list[str]]]:
    import httpx

    out: list[tuple[str, list[str]]] = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        for i in range(rooms):
            r = await c.post("/api/rooms", json={"name": f"P{i}-0", "preset": "pagat",
                                                 "options": {"idle_sweep_s": 6.0}})
            code, tokens = r.json()["code"], [r.json()["token"]]
            for seat in (1, 2, 3):
                r = await c.post(f"/api/rooms/{code}/seats",
                                 json={"seat": seat, "name": f"P{i}-{seat}"})
                tokens.append(r.json()["token"])
            out.append((code, tokens))
    return out


async def _run_step(url: str, rooms: list[tuple[str, list[str]]], seconds: float, seed: int
                    ) -> StepResult:
    import httpx
    import websockets

    ws_url = url.replace("http://", "ws://")
    received: dict[tuple[str, int], list[float]] = {}
    stamps: dict[tuple[str, int], float] = {}
    actions = 0
    stop = asyncio.Event()
    rng = random.Random(seed)

    async def player(code: str, token: str) -> None:
        nonlocal actions
        async with websockets.connect(f"{ws_url}/ws/{code}?token={token}", max_size=2**22,
                                      compression=None) as ws:
            view: dict[str, Any] = {}

            async def read() -> None:
                nonlocal view
                async for raw in ws:
                    now = time.time()
                    m = json.loads(raw)
                    if m["type"] == "update":
                        key = (code, m["version"])
                        received.setdefault(key, []).append(now)
                        stamps[key] = m["server_time"]
                    if "view" in m:
                        view = m["view"]

            reader = asyncio.create_task(read())
            await asyncio.sleep(rng.uniform(0.5, 2.0))
            while not stop.is_set():
                phase = view.get("phase")
                if phase == "huddle":
                    await ws.send('{"type":"ready"}')
                elif phase == "play":
                    roll = rng.random()
                    middle = [c for c in view["middle"] if c]
                    if roll < 0.6 and middle:
                        action = {"type": "swap", "take": [rng.choice(middle)],
                                  "give": [rng.choice(view["hand"])]}
                    elif roll < 0.95:
                        action = {"type": "gesture", "gesture": rng.choice(["nod", "wink"])}
                    else:
                        action = {"type": "stall"}
                    actions += 1
                    await ws.send(json.dumps({"type": "action", "action": action}))
                await asyncio.sleep(rng.uniform(1.0, 3.0))
            reader.cancel()

    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        for code, tokens in rooms:
            await c.post(f"/api/rooms/{code}/start",
                         headers={"Authorization": f"Bearer {tokens[0]}"})
    # The measuring client must not add pauses of its own (its full garbage collections would
    # show up as server latency): the same settings as the server's.
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)
    tasks = [asyncio.create_task(player(code, t)) for code, tokens in rooms for t in tokens]
    await asyncio.sleep(3.0)  # everyone connected and the first deals done: start measuring
    received.clear()
    stamps.clear()
    actions = 0
    cpu0 = time.process_time()
    await asyncio.sleep(seconds)
    client_cpu = (time.process_time() - cpu0) / seconds
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    latencies = [1000.0 * (max(times) - stamps[key]) for key, times in received.items()
                 if len(times) == 4]
    latencies.sort()
    if not latencies:
        raise RuntimeError("no complete updates were measured")
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    return StepResult(4 * len(rooms), seconds, len(latencies), actions,
                      statistics.median(latencies), p99, latencies[-1], client_cpu)


def run_server_benchmark(steps: tuple[int, ...] = (100, 250, 500, 1000, 1500, 2000),
                         seconds: float = 20.0, stop_after_miss: bool = True,
                         database_url: str | None = None) -> list[StepResult]:
    """Run each step (player count, a multiple of 4) against a fresh ``kemps serve`` process, on a
    temporary SQLite file or on ``database_url`` (which should hold no rooms: the server restores
    every unfinished one)."""
    results: list[StepResult] = []
    for i, players in enumerate(steps):
        server = _Server(database_url)
        try:
            server.wait()
            rooms = asyncio.run(_make_rooms(server.url, players // 4))
            results.append(asyncio.run(_run_step(server.url, rooms, seconds, seed=i)))
        finally:
            server.stop()
        if stop_after_miss and not results[-1].met:
            break
    return results


def report(results: list[StepResult], database: str = "SQLite") -> str:
    """The markdown section for docs/benchmarks.md (``database``: what the server stored on)."""
    import datetime
    import platform

    held = [r.players for r in results if r.met]
    lines = [
        "## Table server over real WebSockets (`kemps bench-server`)",
        "",
        f"Measured {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.platform()},"
        f" CPython {platform.python_version()}, {os.cpu_count()} CPUs. One `kemps serve` process "
        f"({database}) and one client process on the same machine; players in rooms of four act "
        "every "
        "1-3 s (swap 60%, gesture 35%, stall 5%; Ready between hands). Latency: from the server "
        "applying an action to the last of the room's four seats receiving its update.",
        "",
        "| Players | Seconds | Actions sent | Updates measured | p50 (ms) | p99 (ms) | max (ms) |"
        " p99 <= 20 ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        lines.append(f"| {r.players:,} | {r.seconds:g} | {r.actions:,} | {r.updates:,} | "
                     f"{r.p50_ms:.2f} | {r.p99_ms:.2f} | {r.max_ms:.1f} | "
                     f"{'met' if r.met else '**NOT met**'} |")
    lines += ["", f"Largest number of players held within the target: "
              f"{max(held):,}." if held else "The target was not met at any step.", ""]
    at_1000 = [r for r in results if r.players == 1000]
    if at_1000:
        r = at_1000[0]
        lines.append(f"Target (p99 <= 20 ms with 1,000 players): "
                     f"{'met' if r.met else '**NOT met**'} (p99 {r.p99_ms:.2f} ms).")
    else:
        lines.append("Target (p99 <= 20 ms with 1,000 players): not reached by this run.")
    return "\n".join(lines) + "\n"
