"""A database gone or replaced is never a silent fresh start, and what the server held is saved.

Issue 26: "the server notices that the SQLite file is gone and pauses (good), but a restart
creates an empty database without a word, and 84 acknowledged actions that the paused server
still held in memory are gone for good." Built: "A server that finds its database gone or
replaced refuses to start with a plain message that says what to do (and how to start afresh on
purpose); a paused server that holds acknowledged actions it cannot write offers a way to save
them (a dump an operator can load)." Real ``kemps serve`` processes, real players on WebSockets,
the database file deleted under the running server (kemps.server.rescue).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from faults import Seen, ServeProcess, lost_versions, make_room, play, wait_for
from kemps.server.storage import EntryRow, Storage
from serving import sqlite_url

OPTIONS_FAST = {"idle_sweep_s": 2.0, "sweep_countdown_s": 1.0}  # timers fire too


async def _play_until(srv: ServeProcess, seen: Seen, oks: int, seed: int
                      ) -> tuple[str, asyncio.Event, list[asyncio.Task[None]]]:
    """Start the server, seat four players at a new room and play until ``oks`` of their
    actions are acknowledged; (the room's code, the event that stops them, their tasks)."""
    await asyncio.to_thread(srv.start)
    code, tokens = await asyncio.to_thread(make_room, srv, OPTIONS_FAST)
    stop = asyncio.Event()
    rng = random.Random(seed)
    players = [asyncio.create_task(play(srv.ws, code, t, s, seen, stop, rng))
               for s, t in enumerate(tokens)]
    deadline = time.monotonic() + 60
    while seen.oks < oks:
        assert time.monotonic() < deadline, "the players were not acknowledged"
        await asyncio.sleep(0.1)
    return code, stop, players


def _serve(database_url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """``kemps serve`` that is expected to refuse to start (it is stopped if it does start)."""
    try:
        return subprocess.run([sys.executable, "-m", "kemps", "serve", "--port", "1",
                               "--database-url", database_url, *flags], capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired as err:
        raise AssertionError("kemps serve started where it should have refused") from err


def _load(dump: Path, database_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kemps", "rooms", "load", str(dump),
                           "--database-url", database_url], capture_output=True, text=True,
                          timeout=120)


def test_a_database_deleted_under_the_server_is_saved_and_never_silently_replaced(
        tmp_path: Path) -> None:
    """Four players play; the SQLite file (and its WAL) is deleted: the tables pause, the server
    copies the vanished database aside and writes a rescue dump. Stopped and started again, it
    refuses with a message saying what to do. The dump loaded into a new file with `kemps rooms
    load`, then the copy put back in its place: each time every version a player was told is
    there, and the server starts on it without a flag."""
    url = sqlite_url(tmp_path)
    db = Path(url.split("///", 1)[1])
    srv = ServeProcess(url, env={"KEMPS_RESCUE_DIR": str(tmp_path)})
    srv.spares = False
    seen = Seen()

    async def run() -> str:
        code, stop, players = await _play_until(srv, seen, 40, 26)
        for f in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
            f.unlink(missing_ok=True)
        deadline = time.monotonic() + 30
        while not seen.paused:
            assert time.monotonic() < deadline, "the tables did not pause"
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        stop.set()
        await asyncio.gather(*players)
        return code

    try:
        code = asyncio.run(run())
        srv.terminate(20)
    finally:
        srv.close()
    copies = sorted(tmp_path.glob("kemps-test.sqlite.rescued-*.sqlite"))
    dumps = sorted(tmp_path.glob("kemps-rescue-*.json"))
    assert len(copies) == 1 and dumps, sorted(p.name for p in tmp_path.iterdir())
    assert not db.exists()
    # Started again: refused, with what to do; nothing is made in its place.
    refused = _serve(url)
    assert refused.returncode == 2
    assert "is gone" in refused.stderr and "--accept-database" in refused.stderr
    assert "kemps rooms load" in refused.stderr and ".rescued-" in refused.stderr
    assert not db.exists()
    # (a) the dump into a new file: loaded, stamped with the old id; the server takes it.
    dump = json.loads(dumps[0].read_text())
    assert dump["format"] == "kemps-rescue" and dump["rooms"][0]["row"]["code"] == code
    loaded = _load(dumps[0], url)
    assert loaded.returncode == 0, loaded.stderr
    assert f"{code}  match 1" in loaded.stdout and "1 of 1 rooms loaded" in loaded.stdout
    lost, told = lost_versions(url, code, seen)
    assert (lost, told > 40) == (0, True), (lost, told)
    _starts_and_plays(url, code)
    # (b) the copy the server made of the vanished file, put back in its place.
    for f in tmp_path.glob("kemps-test.sqlite*"):
        if ".rescued-" not in f.name and not f.name.endswith(".id"):
            f.unlink()
    shutil.copy(copies[0], db)
    lost, told = lost_versions(url, code, seen)
    assert (lost, told > 40) == (0, True), (lost, told)
    _starts_and_plays(url, code)


def _starts_and_plays(url: str, code: str) -> None:
    """``kemps serve`` starts on the database as it is (no flag) and the room is there."""
    srv = ServeProcess(url)
    srv.spares = False
    try:
        srv.start()
        room = httpx.get(f"{srv.url}/api/rooms/{code}", timeout=20).json()
        assert room["status"] == "playing" and room["error"] is None, room
    finally:
        srv.terminate(20)
        srv.close()


def test_a_replaced_database_is_refused_and_accepted_only_on_purpose(tmp_path: Path) -> None:
    """Another database put in the place of the server's: refused (``database_replaced``);
    ``--accept-database`` takes it on purpose, and from then on it is the server's."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, other = sqlite_url(tmp_path / "a"), sqlite_url(tmp_path / "b")
    codes = []
    for url in (first, other):
        srv = ServeProcess(url)
        srv.spares = False
        try:
            srv.start()
            codes.append(httpx.post(f"{srv.url}/api/rooms", json={"name": "Ann"},
                                    timeout=20).json()["code"])
        finally:
            srv.terminate(20)
            srv.close()
    a = tmp_path / "a" / "kemps-test.sqlite"
    shutil.copy(tmp_path / "b" / "kemps-test.sqlite", a)
    refused = _serve(first)
    assert refused.returncode == 2
    assert "is not the one this server used" in refused.stderr
    assert "--accept-database" in refused.stderr
    srv = ServeProcess(first, env={"KEMPS_ACCEPT_DATABASE": "1"})
    srv.spares = False
    try:
        srv.start()
        assert httpx.get(f"{srv.url}/api/rooms/{codes[1]}", timeout=20).status_code == 200
        assert httpx.get(f"{srv.url}/api/rooms/{codes[0]}", timeout=20).status_code == 404
    finally:
        srv.terminate(20)
        srv.close()
    _starts_and_lists(first, codes[1])


def _starts_and_lists(url: str, code: str) -> None:
    srv = ServeProcess(url)
    srv.spares = False
    try:
        srv.start()
        assert httpx.get(f"{srv.url}/api/rooms/{code}", timeout=20).status_code == 200
    finally:
        srv.terminate(20)
        srv.close()


def test_starting_afresh_on_purpose(tmp_path: Path) -> None:
    """The database removed while the server was stopped: refused; with --accept-database a
    new, empty one."""
    url = sqlite_url(tmp_path)
    srv = ServeProcess(url)
    srv.spares = False
    try:
        srv.start()
        code = httpx.post(f"{srv.url}/api/rooms", json={"name": "Ann"}, timeout=20).json()["code"]
    finally:
        srv.terminate(20)
        srv.close()
    (tmp_path / "kemps-test.sqlite").unlink()
    refused = _serve(url)
    assert refused.returncode == 2 and "is gone" in refused.stderr
    assert "To start afresh on purpose" in refused.stderr
    started = subprocess.Popen([sys.executable, "-m", "kemps", "serve", "--port", "0",
                                "--database-url", url, "--accept-database"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: (tmp_path / "kemps-test.sqlite.id").exists() and
                 (tmp_path / "kemps-test.sqlite").exists(), 60, "a new database")
    finally:
        started.send_signal(signal.SIGINT)
        started.wait(30)
        assert started.stdout is not None
        started.stdout.close()
    srv = ServeProcess(url)
    srv.spares = False
    try:
        srv.start()  # no flag needed now: it is the server's database
        assert httpx.get(f"{srv.url}/api/rooms/{code}", timeout=20).status_code == 404
    finally:
        srv.terminate(20)
        srv.close()


def test_sigusr1_writes_a_dump_that_loads_to_the_very_same_steps(tmp_path: Path,
                                                                   database_url: str) -> None:
    """An operator's dump at any time (``kill -USR1``): every step of every room as storage
    holds it, rebuilt from memory; loaded into another database (SQLite and PostgreSQL) it is
    the same record, step for step, and the room restores."""
    (tmp_path / "run").mkdir()
    url = sqlite_url(tmp_path / "run")
    srv = ServeProcess(url, env={"KEMPS_RESCUE_DIR": str(tmp_path)})
    srv.spares = False
    seen = Seen()

    async def run() -> str:
        code, stop, players = await _play_until(srv, seen, 30, 7)
        stop.set()
        await asyncio.gather(*players)
        await asyncio.sleep(1.0)  # everything told is written; nothing more happens
        assert srv.proc is not None
        os.kill(srv.proc.pid, signal.SIGUSR1)
        deadline = time.monotonic() + 20
        while not list(tmp_path.glob("kemps-rescue-*.json")):
            assert time.monotonic() < deadline, "no dump"
            await asyncio.sleep(0.1)
        return code

    try:
        code = asyncio.run(run())
        srv.terminate(20)
    finally:
        srv.close()
    dump = next(tmp_path.glob("kemps-rescue-*.json"))
    loaded = _load(dump, database_url)
    assert loaded.returncode == 0, loaded.stderr

    async def steps(u: str) -> list[tuple[int, int, float, str, object]]:
        storage = Storage(u)
        try:
            async with storage.sessions() as s:
                from sqlalchemy import select

                rows = await s.execute(select(EntryRow).where(EntryRow.room_code == code)
                                       .order_by(EntryRow.match_no, EntryRow.seq))
                return [(e.match_no, e.seq, e.t, e.kind, e.payload) for e in rows.scalars()]
        finally:
            await storage.close()

    original, copied = asyncio.run(steps(url)), asyncio.run(steps(database_url))
    assert len(original) > 30 and copied == original
    lost, told = lost_versions(database_url, code, seen)
    assert lost == 0 and told > 30
    again = _load(dump, database_url)  # loaded twice: the second time changes nothing
    assert again.returncode == 0 and "0 of 1 rooms loaded" in again.stdout


def test_a_postgresql_database_that_is_gone_is_said_plainly() -> None:
    """A PostgreSQL database that does not exist (dropped) or does not answer: `kemps serve`
    says so in one sentence (never the password) and exits 2, no traceback."""
    from conftest import postgres_answers

    if not postgres_answers():
        if os.environ.get("KEMPS_REQUIRE_POSTGRES") == "1":
            raise AssertionError("KEMPS_REQUIRE_POSTGRES=1 but no PostgreSQL answers")
        import pytest

        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    for url, why in (("postgresql+asyncpg://postgres:pw@127.0.0.1:5432/kemps_dropped_db",
                      'database "kemps_dropped_db" does not exist'),
                     ("postgresql+asyncpg://postgres:pw@127.0.0.1:1/kemps", "Connect call failed")):
        refused = _serve(url)
        assert refused.returncode == 2, refused.stderr
        assert "does not answer" in refused.stderr and why in refused.stderr
        assert "Traceback" not in refused.stderr and ":pw@" not in refused.stderr
