"""How long the server takes to start on a database full of rooms (``kemps bench-startup``).

Issue 9: 20,000 rooms made by one client were all restored at every start (26 s). Now only live
rooms are restored (archived ones are skipped by the query) and at most ``max_rooms`` of them. This
benchmark builds one SQLite database with ``live`` rooms (``playing`` of them mid-match, with the
first half of a simulated match as their record, the rest in the lobby) and ``archived`` archived
lobby rooms, and times :meth:`Server.start` (migration check, the archived-surplus query, restoring
every live room, replaying its record) on it, ``repeats`` times, and then once more on the same
rows with none archived and no cap: every stored room restored, as every start did before the
limits (with today's two-query restore; before, one query per room made it slower still).
"""

from __future__ import annotations

import asyncio
import datetime
import os
import platform
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import insert, update

from kemps.actions import action_to_dict
from kemps.rules import find_preset
from kemps.sim import simulate_match


@dataclass
class StartupCase:
    """One case: ``restored`` rooms, start times in seconds."""

    name: str
    stored: int
    restored: int
    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


async def _build(url: str, live: int, playing: int, archived: int) -> None:
    from kemps.server.storage import EntryRow, RoomRow, Storage

    storage = Storage(url)
    await storage.start()
    rules = find_preset("pagat")
    sim = simulate_match(rules, seed=1, keep_events=False)
    half = sim.record.actions[:max(1, len(sim.record.actions) // 2)]
    now = time.time()
    rows: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    for i in range(live + archived):
        code = f"B{i:07d}"
        is_playing = i < playing
        seats = ([{"name": n, "kind": "bot", "level": "simple", "token_hash": None}
                  for n in sim.record.names] if is_playing else
                 [{"name": "Host", "kind": "human", "level": None, "token_hash": "0" * 64}] +
                 [{"name": "", "kind": "open", "level": None, "token_hash": None}] * 3)
        rows.append({"code": code, "created_at": now - i, "updated_at": now - i,
                     "status": "playing" if is_playing else "lobby", "rules": rules.to_dict(),
                     "seats": seats, "host_seat": 0, "match_no": 1 if is_playing else 0,
                     "first_dealer": sim.record.first_dealer, "epoch": now - i,
                     "archived_at": now if i >= live else None})
        if is_playing:
            entries += [{"room_code": code, "match_no": 1, "seq": n, "t": t, "kind": "action",
                         "payload": action_to_dict(a)} for n, (t, a) in enumerate(half)]
    async with storage.sessions.begin() as s:
        for start in range(0, len(rows), 2000):
            await s.execute(insert(RoomRow), rows[start:start + 2000])
        for start in range(0, len(entries), 5000):
            await s.execute(insert(EntryRow), entries[start:start + 5000])
    await storage.close()


async def _unarchive(url: str) -> None:
    from kemps.server.storage import RoomRow, Storage

    storage = Storage(url)
    async with storage.sessions.begin() as s:
        await s.execute(update(RoomRow).values(archived_at=None))
    await storage.close()


async def _time_start(url: str, max_rooms: int) -> tuple[float, int]:
    from kemps.server.app import Server
    from kemps.server.settings import Settings

    server = Server(Settings(database_url=url, max_rooms=max_rooms))
    began = time.perf_counter()
    await server.start()
    took = time.perf_counter() - began
    restored = len(server.rooms)
    await server.stop()
    return took, restored


def run_startup_benchmark(live: int = 2000, playing: int = 200, archived: int = 20_000,
                          repeats: int = 3, before: bool = True) -> list[StartupCase]:
    """Time starts with the limits (and, if ``before``, without them) on one built database."""
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'startup.sqlite'}"
        asyncio.run(_build(url, live, playing, archived))
        cases = []
        runs = [asyncio.run(_time_start(url, max_rooms=live)) for _ in range(repeats)]
        cases.append(StartupCase("with the limits: live rooms only", live + archived,
                                 runs[-1][1], [t for t, _ in runs]))
        if before:
            asyncio.run(_unarchive(url))
            runs = [asyncio.run(_time_start(url, max_rooms=10**9)) for _ in range(repeats)]
            cases.append(StartupCase("none archived, no cap: every room restored", live + archived,
                                     runs[-1][1], [t for t, _ in runs]))
    return cases


def report(cases: list[StartupCase], live: int, playing: int, archived: int) -> str:
    """The markdown section for docs/benchmarks.md."""
    lines = [
        "## Server start-up on a full database (`kemps bench-startup`)",
        "",
        f"Measured {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.platform()},"
        f" CPython {platform.python_version()}, {os.cpu_count()} CPUs (load average "
        f"{os.getloadavg()[0]:.1f} at the end). One SQLite database with {live:,} live rooms "
        f"({playing:,} mid-match, each with half a simulated match as its record, the rest in the "
        f"lobby) and {archived:,} archived rooms; `Server.start()` timed in-process (migration "
        "check, the surplus query, restoring and replaying every live room). Then the same rows "
        "with none archived and no cap: every stored room restored, as every start did before "
        "the limits (issue 9; then with one query per room, slower still).",
        "",
        "| Case | Rooms stored | Rooms restored | Start, median (s) | min-max (s) | Starts |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for c in cases:
        lines.append(f"| {c.name} | {c.stored:,} | {c.restored:,} | {c.median:.2f} | "
                     f"{min(c.seconds):.2f}-{max(c.seconds):.2f} | {len(c.seconds)} |")
    if len(cases) == 2:
        lines += ["", f"Ratio (every room / live rooms only, medians of the same run): "
                  f"{cases[1].median / cases[0].median:.1f}x."]
    return "\n".join(lines) + "\n"
