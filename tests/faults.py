"""Tools of the fault-injection tests: ``kemps serve`` as a real process that can be killed,
WebSocket players that keep every version they were told about, a TCP proxy that cuts or hangs the
road to PostgreSQL, a second process that locks a SQLite file, and the check that replays the stored
record and compares it with what the players saw."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any

import httpx
import websockets

from kemps.actions import action_from_dict
from kemps.record import Recorder
from kemps.rules import RuleSet
from kemps.server.proxy import CuttingProxy
from kemps.server.storage import Storage
from kemps.views import view_for


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServeProcess:
    """``kemps serve`` in a child process on a fixed port and database (restartable)."""

    def __init__(self, database_url: str, env: dict[str, str] | None = None) -> None:
        self.database_url = database_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        # rescue dumps (a server stopped while storage is away writes one) go here, never into
        # the working folder
        self.rescue_dir = tempfile.mkdtemp(prefix="kemps-rescue-")
        self.env = {**os.environ, "KEMPS_BOT_HUDDLE_S": "0.2", "KEMPS_HUDDLE_S": "1",
                    "KEMPS_RESCUE_DIR": self.rescue_dir, **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        self.log: IO[bytes] | None = None
        self.spares = True
        self._spare: tuple[subprocess.Popen[bytes], IO[bytes]] | None = None

    # A spare process has imported everything and waits for a line on stdin before it runs
    # ``kemps serve`` (the real command line): a restart after a kill then costs the server's own
    # start-up (migrations, restoring the rooms), not Python's imports.
    WARM = ("import sys\n"
            "import kemps.cli, kemps.server.app, uvicorn\n"
            "sys.stdin.readline()\n"
            "sys.argv = ['kemps'] + sys.argv[1:]\n"
            "kemps.cli.main()\n")

    def _spawn(self) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
        log = tempfile.TemporaryFile()  # noqa: SIM115  (kept open across the process)
        proc = subprocess.Popen(
            [sys.executable, "-c", self.WARM, "serve", "--port", str(self.port),
             "--database-url", self.database_url], env=self.env, stdin=subprocess.PIPE,
            stdout=log, stderr=subprocess.STDOUT)
        return proc, log

    def start(self) -> None:
        """Start ``kemps serve`` (from the spare process when one is ready) and wait until it
        answers; a new spare starts importing at once."""
        proc, log = self._spare or self._spawn()
        self._spare = None
        if self.log is not None:
            self.log.close()
        self.proc, self.log = proc, log
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        proc.stdin.close()
        # 120 s: on a machine at load 20 the spare's start-up alone has taken over 60 s.
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(self.url + "/api/presets", timeout=1.0)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("kemps serve did not start: " + self.output()) from None
                time.sleep(0.02)
        if self.spares:
            self._spare = self._spawn()

    def output(self) -> str:
        if self.log is None:
            return ""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]

    def kill(self) -> None:
        """SIGKILL: no chance to write anything more."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def terminate(self, timeout: float) -> float:
        """SIGTERM; returns the seconds it took to exit (raises if more than ``timeout``)."""
        assert self.proc is not None
        began = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"SIGTERM did not finish within {timeout} s") from None
        return time.monotonic() - began

    def close(self) -> None:
        running = [(self.proc, self.log)] + ([self._spare] if self._spare else [])
        self._spare = None
        for proc, log in running:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc is not None and proc.stdin is not None:
                proc.stdin.close()
            if log is not None:
                log.close()
        self.log = None


def make_room(srv: Any, options: dict[str, Any], headers: dict[str, str] | None = None
              ) -> tuple[str, list[str]]:
    """Four people seated and the match started on the server at ``srv.url`` (``headers`` on
    every request); returns the code and the seat tokens."""
    with httpx.Client(base_url=srv.url, timeout=20, headers=headers) as c:
        r = c.post("/api/rooms", json={"name": "P0", "preset": "pagat", "options": options})
        assert r.status_code == 201, r.text
        code, tokens = r.json()["code"], [r.json()["token"]]
        for seat in (1, 2, 3):
            r = c.post(f"/api/rooms/{code}/seats", json={"seat": seat, "name": f"P{seat}"})
            assert r.status_code == 200, r.text
            tokens.append(r.json()["token"])
        r = c.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {tokens[0]}"})
        assert r.status_code == 200, r.text
    return code, tokens


@dataclass
class Seen:
    """What the players of one room were told: ``views[seat][version]`` (as received),
    acknowledged action ids, and the storage codes and pause notices they got."""

    views: dict[int, dict[int, dict[str, Any]]] = field(default_factory=dict)
    oks: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    paused: int = 0
    resumed: int = 0
    order_errors: list[str] = field(default_factory=list)

    def top(self) -> int:
        return max((v for per in self.views.values() for v in per), default=0)


async def play(ws_base: str, code: str, token: str, seat: int, seen: Seen, stop: asyncio.Event,
               rng: random.Random, gap_s: tuple[float, float] = (0.02, 0.06)) -> None:
    """One person at the table: acts every few tens of milliseconds (swaps, gestures, stalls,
    Ready between hands) with an id, and keeps every view it is shown, until ``stop`` or the
    server goes away."""
    views = seen.views.setdefault(seat, {})
    waiting: dict[int, bool] = {}  # id -> ok seen
    next_id = 0
    try:
        async with websockets.connect(f"{ws_base}/ws/{code}?token={token}", max_size=2**22,
                                      open_timeout=10) as ws:
            view: dict[str, Any] = {}

            async def read() -> None:
                nonlocal view
                async for raw in ws:
                    m = json.loads(raw)
                    kind = m.get("type")
                    if "view" in m:
                        view = m["view"]
                        views[view["version"]] = view
                    if kind == "ok":
                        seen.oks += 1
                        waiting[m["id"]] = True
                    elif kind == "update":
                        pass
                    elif kind in ("error", "rejected") and str(m.get("code", "")).startswith(
                            "storage_"):
                        seen.refused[m["code"]] = seen.refused.get(m["code"], 0) + 1
                    elif kind == "paused":
                        seen.paused += 1
                    elif kind == "resumed":
                        seen.resumed += 1

            reader = asyncio.create_task(read())
            while not stop.is_set() and not reader.done():
                phase = view.get("phase")
                if phase == "huddle":
                    await ws.send('{"type":"ready"}')
                elif phase == "play":
                    roll = rng.random()
                    middle = [c for c in view.get("middle", []) if c]
                    if roll < 0.6 and middle and view.get("hand"):
                        action = {"type": "swap", "take": [rng.choice(middle)],
                                  "give": [rng.choice(view["hand"])]}
                    elif roll < 0.97:
                        action = {"type": "gesture", "gesture": rng.choice(["nod", "wink"])}
                    else:
                        action = {"type": "stall"}
                    next_id += 1
                    await ws.send(json.dumps({"type": "action", "id": next_id,
                                              "action": action}))
                await asyncio.sleep(rng.uniform(*gap_s))
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
    except (TimeoutError, OSError, websockets.WebSocketException):
        return  # the server went away (killed): what we saw is what counts


def stored_views(database_url: str, code: str) -> tuple[dict[str, Any], int,
                                                       dict[int, dict[int, dict[str, Any]]]]:
    """Replay the room's stored record; returns its row, the last version, and for each seat the
    view after the last step of each version (JSON form)."""

    async def load() -> tuple[dict[str, Any], list[Any]]:
        storage = Storage(database_url)
        try:
            found = await storage.room_record(code)
        finally:
            await storage.close()
        assert found is not None, f"room {code} is not stored"
        return found

    row, entries = asyncio.run(load())
    rules = RuleSet.from_dict(row["rules"])
    rec = Recorder(rules, [s["name"] for s in row["seats"]], row["first_dealer"],
                   meta={"room": code, "match_no": row["match_no"]})
    out: dict[int, dict[int, dict[str, Any]]] = {s: {} for s in range(rules.players)}

    def snap() -> None:
        for s in range(rules.players):
            view = view_for(rec.table, s)  # keyed by the seat's own version (told_version)
            out[s][view.version] = json.loads(json.dumps(view.to_dict()))

    snap()
    for i, e in enumerate(entries):
        assert e.seq == i, f"step {i} missing from the stored record"
        if e.kind == "tick":
            rec.advance(e.t)
        else:
            rec.apply(action_from_dict(e.payload), e.t)
        snap()
    return row, rec.table.version, out


def lost_versions(database_url: str, code: str, seen: Seen) -> tuple[int, int]:
    """(versions a player was told about that are missing or differ in storage, versions told)."""
    _, top, stored = stored_views(database_url, code)
    lost = 0
    told = 0
    for seat, views in seen.views.items():
        for version, view in views.items():
            told += 1
            if version > top or stored[seat].get(version) != view:
                lost += 1
    return lost, told


class TcpProxy:
    """:class:`kemps.server.proxy.CuttingProxy` on a thread of its own (for tests that are not
    async): :meth:`cut` closes every connection and refuses new ones, :meth:`hang` stops passing
    bytes (the database seems to hang), :meth:`restore` passes again."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.proxy = CuttingProxy(*target)
        self.port = self.proxy.port
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self.proxy.start())
        self._ready.set()
        self._loop.run_forever()

    def cut(self) -> None:
        self._loop.call_soon_threadsafe(self.proxy.cut)

    def hang(self) -> None:
        self.proxy.hang()

    def restore(self) -> None:
        self.proxy.restore()

    async def _shutdown(self) -> None:
        """Inside the proxy's loop: every connection aborted and every client task finished
        (a task left pending when the loop stops leaves its sockets unclosed: a warning, which
        the suite treats as an error)."""
        await self.proxy.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        done = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        with contextlib.suppress(Exception):
            done.result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()


class SqliteLock:
    """A second process holding an exclusive lock on a SQLite database until :meth:`release`."""

    def __init__(self, path: str) -> None:
        code = ("import sqlite3, sys\n"
                f"c = sqlite3.connect({path!r}, isolation_level=None, timeout=30)\n"
                "c.execute('BEGIN EXCLUSIVE')\n"
                "print('locked', flush=True)\n"
                "sys.stdin.readline()\n"
                "c.execute('COMMIT')\n")
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.strip() == b"locked", line

    def release(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(b"\n")
        self.proc.stdin.close()
        self.proc.wait(10)
        self.proc.stdout.close()


def room_api(srv: ServeProcess, code: str) -> dict[str, Any]:
    r = httpx.get(f"{srv.url}/api/rooms/{code}", timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def wait_for(pred: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
