"""Nothing acknowledged is ever lost; a storage fault pauses, never destroys (issue 9).

Real processes and real connections: ``kemps serve`` runs as a child process while real WebSocket
players act every few tens of milliseconds in two rooms; it is killed with SIGKILL at random moments
(``KEMPS_FAULT_KILLS`` times per database, 20 by default) and restarted on the same database. After
every kill the stored record is replayed and every version any player was shown must be there, with
the very same view. Storage faults: PostgreSQL cut off (a TCP proxy in this test drops every
connection and refuses new ones) or hanging (the proxy stops passing bytes), SQLite locked by a
second process, SQLite on a full disk (a small tmpfs this test mounts; needs root, else a skip with a
message unless ``KEMPS_REQUIRE_TMPFS=1``, set by ``.ci/run``). The tables must pause (clock frozen,
``storage_unavailable``), resume when storage returns, and lose nothing and no room.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import random
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import PG_URL, postgres_answers, reset_postgres
from faults import (
    Seen,
    ServeProcess,
    SqliteLock,
    TcpProxy,
    lost_versions,
    make_room,
    play,
    room_api,
)
from serving import sqlite_url

KILLS = int(os.environ.get("KEMPS_FAULT_KILLS", "20"))
OPTIONS = {"idle_sweep_s": 2.0, "sweep_countdown_s": 1.0}  # timers fire too, not only actions
FIGURES: dict[str, Any] = {}


def _report(key: str, value: Any) -> None:
    """Figures for docs/benchmarks.md (printed with ``pytest -s``)."""
    FIGURES[key] = value
    print(f"\nFIGURE {key}: {value}")


async def _players(srv: ServeProcess, rooms: list[tuple[str, list[str]]],
                   seen: dict[str, Seen], rng: random.Random
                   ) -> tuple[asyncio.Event, list[asyncio.Task[None]]]:
    stop = asyncio.Event()
    tasks = [asyncio.create_task(play(srv.ws, code, token, seat, seen[code], stop,
                                      random.Random(rng.random())))
             for code, tokens in rooms for seat, token in enumerate(tokens)]
    return stop, tasks


async def _until(pred: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def test_sigkill_at_random_moments_loses_nothing_acknowledged(database_url: str) -> None:
    """SIGKILL mid-play, KILLS times, restarting on the same database each time: every version a
    player was told about (by an update or a state) is stored and replays to the same view, and
    every room comes back playing."""
    rng = random.Random(9)
    srv = ServeProcess(database_url)
    lost_total = told_total = acked = 0

    async def run() -> None:
        nonlocal lost_total, told_total, acked
        await asyncio.to_thread(srv.start)
        rooms = [await asyncio.to_thread(make_room, srv, OPTIONS) for _ in range(2)]
        seen = {code: Seen() for code, _ in rooms}
        for kill in range(KILLS):
            if kill:
                await asyncio.to_thread(srv.start)
                for code, _ in rooms:
                    room = await asyncio.to_thread(room_api, srv, code)
                    assert room["status"] == "playing" and room["error"] is None, room
            stop, tasks = await _players(srv, rooms, seen, rng)
            await asyncio.sleep(rng.uniform(0.4, 1.2))
            await asyncio.to_thread(srv.kill)
            stop.set()
            await asyncio.gather(*tasks)
            for code, _ in rooms:
                lost, told = await asyncio.to_thread(lost_versions, database_url, code,
                                                     seen[code])
                lost_total += lost
                assert lost == 0, (f"kill {kill + 1}: {lost} of the {told} versions told in room "
                                   f"{code} are missing or differ in storage")
        told_total = sum(len(v) for s in seen.values() for v in s.views.values())
        acked = sum(s.oks for s in seen.values())

    try:
        asyncio.run(run())
    finally:
        srv.close()
    assert acked > 10 * KILLS  # the players really played between the kills
    kind = "postgresql" if database_url.startswith("postgresql") else "sqlite"
    _report(f"kills_{kind}", {"kills": KILLS, "versions_told": told_total, "oks": acked,
                              "lost": lost_total})


def _outage(srv: ServeProcess, database_url: str, fault: Callable[[], None],
            heal: Callable[[], None], name: str, pause_timeout: float = 20.0) -> None:
    """Play; ``fault()``; the tables must pause (clock frozen, actions refused with
    ``storage_unavailable``, a new room refused); after a few seconds ``heal()``: play resumes
    by itself; then SIGKILL: nothing told is lost, and after a restart every room plays on."""
    rng = random.Random(name)

    async def run() -> None:
        await asyncio.to_thread(srv.start)
        rooms = [await asyncio.to_thread(make_room, srv, OPTIONS) for _ in range(2)]
        seen = {code: Seen() for code, _ in rooms}
        stop, tasks = await _players(srv, rooms, seen, rng)
        await asyncio.sleep(1.0)
        began = time.monotonic()
        await asyncio.to_thread(fault)
        await _until(lambda: all(s.paused for s in seen.values()), pause_timeout,
                     "the tables to pause")
        code = rooms[0][0]
        first = await asyncio.to_thread(room_api, srv, code)
        assert first["paused"] is True
        await asyncio.sleep(1.0)
        second = await asyncio.to_thread(room_api, srv, code)
        assert second["now"] == first["now"], "the table clock must stand still while paused"
        await _until(lambda: any(s.refused.get("storage_unavailable") for s in seen.values()),
                     10, "an action refused with storage_unavailable")
        r = await asyncio.to_thread(httpx.post, f"{srv.url}/api/rooms",
                                    json={"name": "Late", "preset": "pagat"}, timeout=20)
        assert r.status_code == 503 and r.json()["code"] == "storage_unavailable", r.text
        top_paused = {c: s.top() for c, s in seen.items()}
        await asyncio.sleep(max(0.0, 3.0 - (time.monotonic() - began)))
        await asyncio.to_thread(heal)
        await _until(lambda: all(s.resumed for s in seen.values()), 30, "the tables to resume")
        await _until(lambda: all(s.top() > top_paused[c] for c, s in seen.items()), 30,
                     "play to go on after the fault")
        third = await asyncio.to_thread(room_api, srv, code)
        assert third["paused"] is False
        assert third["now"] >= second["now"]
        await asyncio.sleep(0.5)
        await asyncio.to_thread(srv.kill)
        stop.set()
        await asyncio.gather(*tasks)
        for c, _ in rooms:
            lost, told = await asyncio.to_thread(lost_versions, database_url, c, seen[c])
            assert lost == 0, f"{name}: {lost} of {told} versions told are missing or differ"
        await asyncio.to_thread(srv.start)
        for c, _ in rooms:
            room = await asyncio.to_thread(room_api, srv, c)
            assert room["status"] == "playing" and room["error"] is None, room
        _report(f"fault_{name}", {"rooms_lost": 0, "versions_told": sum(
            len(v) for s in seen.values() for v in s.views.values()), "lost": 0,
            "refused": {k: sum(s.refused.get(k, 0) for s in seen.values())
                        for k in ("storage_unavailable", "storage_busy")}})

    try:
        asyncio.run(run())
    finally:
        srv.close()


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The PostgreSQL test database, emptied (these faults are PostgreSQL's own)."""
    if not postgres_answers():
        if os.environ.get("KEMPS_REQUIRE_POSTGRES") == "1":
            pytest.fail("KEMPS_REQUIRE_POSTGRES=1 but no PostgreSQL answers on 127.0.0.1:5432")
        pytest.skip("no PostgreSQL on 127.0.0.1:5432 (CI requires one: KEMPS_REQUIRE_POSTGRES=1)")
    reset_postgres()
    yield PG_URL
    reset_postgres()


def _via(proxy: TcpProxy, url: str) -> str:
    return url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")


def test_postgresql_cut_off_mid_match_pauses_and_resumes(postgres_url: str) -> None:
    proxy = TcpProxy(("127.0.0.1", 5432))
    try:
        srv = ServeProcess(_via(proxy, postgres_url))
        _outage(srv, postgres_url, proxy.cut, proxy.restore, "postgresql_cut")
    finally:
        proxy.close()


def test_postgresql_hanging_pauses_and_sigterm_is_bounded(postgres_url: str) -> None:
    """The database stops answering (packets go nowhere): the tables pause within the writer's
    stall limit, and SIGTERM still ends the server within its stated bound, losing nothing told."""
    proxy = TcpProxy(("127.0.0.1", 5432))
    srv = ServeProcess(_via(proxy, postgres_url))

    async def run() -> float:
        await asyncio.to_thread(srv.start)
        rooms = [await asyncio.to_thread(make_room, srv, OPTIONS)]
        seen = {code: Seen() for code, _ in rooms}
        stop, tasks = await _players(srv, rooms, seen, random.Random(3))
        await asyncio.sleep(1.0)
        proxy.hang()
        await _until(lambda: all(s.paused for s in seen.values()), 20, "the tables to pause")
        took = await asyncio.to_thread(srv.terminate, 15.0)  # stated bound: 13 s
        stop.set()
        await asyncio.gather(*tasks)
        proxy.restore()
        for code, _ in rooms:
            lost, told = await asyncio.to_thread(lost_versions, postgres_url, code, seen[code])
            assert lost == 0, f"{lost} of {told} versions told are missing or differ"
        # Stopped while storage was away: what it held is saved (issue 26), the room in it.
        dumps = list(Path(srv.rescue_dir).glob("kemps-rescue-*.json"))
        assert len(dumps) == 1, dumps
        saved = json.loads(dumps[0].read_text())
        assert saved["reason"] == "the server stopped while storage was away"
        assert [r["row"]["code"] for r in saved["rooms"]] == [code for code, _ in rooms]
        assert len(saved["rooms"][0]["steps"]) >= max(seen[rooms[0][0]].top(), 1)
        return took

    try:
        took = asyncio.run(run())
    finally:
        srv.close()
        proxy.close()
    _report("sigterm_while_postgresql_hangs_s", round(took, 2))


def test_sqlite_locked_by_another_process_pauses_and_resumes(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    path = url.split("///", 1)[1]
    holder: list[SqliteLock] = []
    _outage(ServeProcess(url), url,
            lambda: holder.append(SqliteLock(path)), lambda: holder[0].release(), "sqlite_locked")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MB tmpfs mounted for this test (root only)."""
    where = tmp_path / "disk"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(where)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        message = f"cannot mount a tmpfs for the disk-full test ({done.stderr.strip()})"
        if os.environ.get("KEMPS_REQUIRE_TMPFS") == "1":
            pytest.fail("KEMPS_REQUIRE_TMPFS=1 but " + message)
        pytest.skip(message + "; run as root (CI requires it: KEMPS_REQUIRE_TMPFS=1)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_sqlite_on_a_full_disk_pauses_and_resumes(small_disk: Path) -> None:
    url = f"sqlite+aiosqlite:///{small_disk / 'kemps.sqlite'}"
    filler = small_disk / "filler"

    def fill() -> None:
        with open(filler, "wb", buffering=0) as f:
            for size in (1 << 16, 512):  # to the last bytes
                try:
                    while True:
                        f.write(b"\0" * size)
                except OSError as err:
                    assert err.errno == errno.ENOSPC, err

    _outage(ServeProcess(url), url, fill, filler.unlink, "sqlite_disk_full", pause_timeout=40)
