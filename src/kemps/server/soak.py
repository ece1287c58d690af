"""``kemps soak``: hours of play against one real server, with faults, measured over time.

One ``kemps serve`` process (SQLite in a temporary folder by default, or ``--database-url``)
plays for ``minutes``:

* **Rooms of bots** (``rooms``): each is made, filled with bots of a random level and started;
  when its match ends it plays a rematch (most often) or is left to be archived as idle while a
  new room takes its place, so rooms come and go as on a real server.
* **Players** (``players``): each is a person in a room of their own with three bots, on a real
  WebSocket: a swap or a gesture every 0.3-1.2 s (an ``id`` on each), Ready between hands, a
  rematch when the match ends. Every few tens of seconds a player drops (a clean close, or the
  connection cut) and comes back with its token.
* **Faults** at random, about every ``fault_every`` seconds: ``kill`` (SIGKILL of the server,
  started again at once on the same database), ``storage`` (the database does not take commits
  for 2-6 s: a SQLite file locked by another connection, or the road to PostgreSQL cut by a TCP
  proxy), ``cut`` (every player's connection cut at once). The first faults go through every kind
  once; kills are rarer than the others (weights 1:2:2), so that the server lives long enough
  between them to show a trend.

Every ``sample_s`` seconds: the server's resident memory, open files and threads (``/proc``), its
asyncio tasks (``GET /api/health``), and the players' acknowledgement latency (from sending an
action to its ``ok``) in that window. Every ``ok`` a player got is checked against the stored
record at the end (the action, in that room and match): an acknowledged action missing there is
*lost*. Unhandled errors: tracebacks in the server's log, and ``internal`` errors told to a
player. Slopes (least squares, per minute) are taken after the first ``warmup`` of each server
process's life for memory, open files and tasks, and over the run's calm windows (no fault in or
just before them) for the p99 latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from kemps.actions import action_from_dict, action_to_dict
from kemps.server.children import stop_child
from kemps.server.proxy import CuttingProxy, free_port

FAST_OPTIONS: Final = {"target": 2, "idle_sweep_s": 1.5, "sweep_countdown_s": 0.5}
FAULT_WEIGHTS: Final = {"kill": 1, "storage": 2, "cut": 2}
GESTURES: Final = ("nod", "wink", "touch_ear", "yawn")


# == the server ====================================================================================
def _proc_status(pid: int) -> dict[str, float]:
    """``rss_mb``, ``threads`` and ``files`` of process ``pid`` (Linux /proc; empty elsewhere)."""
    out: dict[str, float] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                out["rss_mb"] = float(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                out["threads"] = float(line.split()[1])
        out["files"] = float(len(os.listdir(f"/proc/{pid}/fd")))
    except OSError:
        pass
    return out


class SoakServer:
    """``kemps serve`` as a child process, killed and started again on the same port and
    database; its output (every life of it) goes to one log file."""

    def __init__(self, database_url: str, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        self.database_url = database_url
        self.log_path = workdir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.env = {**os.environ, "KEMPS_ROOM_BURST": "100000", "KEMPS_ROOMS_PER_MIN": "100000",
                    "KEMPS_ADDRESS_CONNECTIONS": "100000", "KEMPS_MAX_ROOMS": "100000",
                    "KEMPS_BOT_HUDDLE_S": "0.2", "KEMPS_HUDDLE_S": "2", "KEMPS_AWAY_GRACE_S": "0",
                    "KEMPS_ROOM_IDLE_S": "20", "KEMPS_RATE_PER_S": "1000",
                    "KEMPS_RATE_BURST": "1000"}
        self.lives = 0

    async def start(self, timeout_s: float = 900.0) -> float:
        """Start it and wait until it answers; returns the seconds that took."""
        import httpx

        began = time.monotonic()
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kemps", "serve", "--port", str(self.port),
                 "--database-url", self.database_url], env=self.env, stdout=log,
                stderr=subprocess.STDOUT)
        self.lives += 1
        async with httpx.AsyncClient(timeout=2.0) as client:
            while time.monotonic() - began < timeout_s:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"kemps serve ended at start; see {self.log_path}")
                with contextlib.suppress(httpx.HTTPError):
                    await client.get(self.url + "/api/health")
                    return time.monotonic() - began
                await asyncio.sleep(0.1)
        raise RuntimeError(f"kemps serve did not answer in {timeout_s:.0f} s")

    def kill9(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> int | None:
        """SIGINT (a clean stop: everything queued is written) and wait; its exit code."""
        return None if self.proc is None else stop_child(self.proc, timeout_s=60)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def tracebacks(self) -> int:
        """Unhandled errors the server logged, in every life (``Traceback`` lines)."""
        try:
            return self.log_path.read_text(errors="replace").count("Traceback (most recent")
        except OSError:
            return 0


class StorageFault:
    """Makes the database refuse commits for a while: a SQLite file locked by a connection of
    this process (``BEGIN EXCLUSIVE``), or PostgreSQL reached through a TCP proxy that is cut."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.sqlite = database_url.startswith("sqlite")
        self.proxy: CuttingProxy | None = None

    async def server_url(self) -> str:
        """The URL the server is given: PostgreSQL through the proxy, SQLite as it is."""
        if self.sqlite:
            return self.database_url
        from sqlalchemy.engine import make_url

        url = make_url(self.database_url)
        self.proxy = CuttingProxy(url.host or "127.0.0.1", url.port or 5432)
        await self.proxy.start()
        return url.set(host="127.0.0.1", port=self.proxy.port).render_as_string(
            hide_password=False)

    async def hold(self, seconds: float) -> None:
        if self.sqlite:
            from sqlalchemy.engine import make_url

            path = make_url(self.database_url).database or ""
            done = threading.Event()

            def lock() -> None:
                db = sqlite3.connect(path, timeout=30, isolation_level=None)
                try:
                    db.execute("BEGIN EXCLUSIVE")
                    done.wait(seconds)
                    db.execute("COMMIT")
                finally:
                    db.close()

            await asyncio.to_thread(lock)
        elif self.proxy is not None:
            self.proxy.cut()
            await asyncio.sleep(seconds)
            self.proxy.restore()

    async def close(self) -> None:
        if self.proxy is not None:
            await self.proxy.close()


# == the load ======================================================================================
@dataclass
class Tally:
    """What the load saw, shared by every room and player."""

    acks: list[tuple[str, int, str]] = field(default_factory=list)  # (room, match, payload)
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (monotonic, ms)
    matches: int = 0
    rooms_made: int = 0
    internal_errors: int = 0
    paused: int = 0
    drops: int = 0
    http_errors: int = 0


class _Seat:
    """A player's seat as its messages tell it: the latest view, the room's match and status,
    and the actions sent and not yet answered (id -> (sent at, match, stored form))."""

    def __init__(self, code: str, tally: Tally) -> None:
        self.code = code
        self.tally = tally
        self.view: dict[str, Any] = {}
        self.match_no = 0
        self.status = "playing"
        self.last: int | None = None  # the room's last finished match
        self.counted: int | None = None  # the last one this player started a rematch of
        self.ref = 0
        self.pending: dict[int, tuple[float, int, str]] = {}

    async def read(self, ws: Any) -> None:
        async for raw in ws:
            m = json.loads(raw)
            kind = m.get("type")
            if m.get("view"):
                self.view = m["view"]
            if isinstance(m.get("room"), dict):
                self.match_no, self.status = m["room"]["match_no"], m["room"]["status"]
                self.last = m["room"].get("last_match_id")
            if kind == "ok" and m.get("id") in self.pending:
                sent, match_no, payload = self.pending.pop(m["id"])
                self.tally.acks.append((self.code, match_no, payload))
                self.tally.latencies.append((time.monotonic(),
                                             (time.monotonic() - sent) * 1000))
            elif kind in ("rejected", "error"):
                self.pending.pop(m.get("id"), None)
                if m.get("code") == "internal":
                    self.tally.internal_errors += 1
            elif kind == "paused":
                self.tally.paused += 1


class Load:
    """The rooms of bots and the players, until :attr:`stop` is set."""

    def __init__(self, server: SoakServer, rooms: int, players: int, rng: random.Random) -> None:
        import httpx

        self.server = server
        self.rooms = rooms
        self.players = players
        self.rng = rng
        self.tally = Tally()
        self.stop = asyncio.Event()
        self.http = httpx.AsyncClient(base_url=server.url, timeout=10.0)
        self.sockets: set[Any] = set()  # the players' open WebSockets (for the cut fault)

    async def _call(self, method: str, path: str, token: str | None = None,
                    body: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """One API call, tried again while the server is away or paused; None when the answer
        is a refusal that trying again will not change (the room is gone, say)."""
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        while not self.stop.is_set():
            try:
                r = await self.http.request(method, path, json=body, headers=headers)
            except httpx.HTTPError:
                self.tally.http_errors += 1
                await asyncio.sleep(1.0)
                continue
            if r.status_code >= 500:
                await asyncio.sleep(0.5)
                continue
            return dict(r.json()) if r.status_code < 300 else None
        return None

    async def _new_room(self, levels: list[str], host_bot: bool) -> tuple[str, str] | None:
        made = await self._call("POST", "/api/rooms", body={
            "name": "Soak", "preset": "pagat", "options": FAST_OPTIONS})
        if made is None:
            return None
        code, token = made["code"], made["token"]
        self.tally.rooms_made += 1
        level = self.rng.choice(levels)
        await self._call("POST", f"/api/rooms/{code}/bots", token,
                         {"fill": True, "level": level, "speed": "sharp"})
        await self._call("POST", f"/api/rooms/{code}/start", token)
        if host_bot:  # the host's seat too: a bot stands in for her at once
            await self._call("POST", f"/api/rooms/{code}/bots", token,
                             {"seat": 0, "level": level})
        return code, token

    async def bot_room(self, levels: list[str]) -> None:
        """One slot of rooms of bots: play, rematch (4 times in 5) or leave it to be archived
        and make a new one."""
        room: tuple[str, str] | None = None
        last: int | None = None
        while not self.stop.is_set():
            if room is None:
                room = await self._new_room(levels, host_bot=True)
                last = None
                continue
            code, token = room
            state = await self._call("GET", f"/api/rooms/{code}")
            if state is None:  # archived or gone: a new one
                room = None
                continue
            if state["status"] == "finished" and state["last_match_id"] not in (None, last):
                last = state["last_match_id"]
                self.tally.matches += 1
                if self.rng.random() < 0.8:
                    await self._call("POST", f"/api/rooms/{code}/start", token)
                    await self._call("POST", f"/api/rooms/{code}/bots", token,
                                     {"seat": 0, "level": self.rng.choice(levels)})
                else:
                    room = None
            await self._sleep(2.0)

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), seconds)

    async def player(self, index: int) -> None:
        """A person at a table of their own (seat 0, three bots), dropping now and then."""
        import websockets

        rng = random.Random(self.rng.random())
        room = await self._new_room(["simple", "casual"], host_bot=False)
        if room is None:
            return
        code, token = room
        seat = _Seat(code, self.tally)
        while not self.stop.is_set():
            seat.pending.clear()
            try:
                async with websockets.connect(f"{self.server.ws}/ws/{code}?token={token}",
                                              max_size=2**22, open_timeout=10,
                                              close_timeout=2) as ws:
                    self.sockets.add(ws)
                    reader = asyncio.create_task(seat.read(ws))
                    try:
                        await self._play(ws, seat, token, reader, rng)
                    finally:
                        reader.cancel()
                        with contextlib.suppress(BaseException):
                            await reader
                        self.sockets.discard(ws)
            except (OSError, TimeoutError, websockets.WebSocketException):
                pass
            await self._sleep(rng.uniform(0.5, 3.0))

    async def _play(self, ws: Any, seat: _Seat, token: str, reader: asyncio.Task[None],
                    rng: random.Random) -> None:
        """Act on one connection until it is time to drop (a clean close, or cut half the
        time), the connection ends, or the soak stops."""
        leave_at = time.monotonic() + rng.uniform(20, 60)
        ready_for = None
        while not self.stop.is_set() and not reader.done():
            if time.monotonic() > leave_at:
                self.tally.drops += 1
                if rng.random() < 0.5:
                    ws.transport.abort()  # cut, no goodbye
                return
            phase = seat.view.get("phase")
            if seat.status == "finished":
                if seat.last not in (None, seat.counted):
                    seat.counted = seat.last
                    self.tally.matches += 1
                    await self._call("POST", f"/api/rooms/{seat.code}/start", token)
            elif phase == "huddle" and ready_for != seat.view.get("hand_no"):
                ready_for = seat.view.get("hand_no")
                await ws.send('{"type":"ready"}')
            elif phase == "play" and seat.view.get("seat") == 0:
                action = self._choose(seat.view, rng)
                seat.ref += 1
                payload = json.dumps(action_to_dict(action_from_dict({**action, "seat": 0})),
                                     sort_keys=True)
                seat.pending[seat.ref] = (time.monotonic(), seat.match_no, payload)
                await ws.send(json.dumps({"type": "action", "id": seat.ref, "action": action}))
            await self._sleep(rng.uniform(0.3, 1.2))

    @staticmethod
    def _choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        middle = [c for c in view.get("middle") or [] if c]
        hand = view.get("hand") or []
        if middle and hand and rng.random() < 0.7:
            return {"type": "swap", "take": [rng.choice(middle)], "give": [rng.choice(hand)]}
        return {"type": "gesture", "gesture": rng.choice(GESTURES)}

    def cut_players(self) -> int:
        """Cut every player's connection at once (no close handshake)."""
        cut = 0
        for ws in list(self.sockets):
            with contextlib.suppress(Exception):
                ws.transport.abort()
                cut += 1
        return cut

    async def close(self) -> None:
        await self.http.aclose()


# == the run =======================================================================================
@dataclass
class Sample:
    t_min: float  # minutes since the start
    life: int  # which server process (1, 2, ...: each kill starts a new one)
    age_min: float  # minutes since this server process started
    rss_mb: float | None
    files: float | None
    threads: float | None
    tasks: int | None
    rooms: int | None
    players: int | None
    acks: int  # acknowledged player actions in this window
    p50_ms: float | None
    p99_ms: float | None
    calm: bool  # no fault in this window or the one before
    load1: float


@dataclass
class SoakReport:
    minutes: float
    rooms: int
    players: int
    fault_every_s: float
    database: str
    samples: list[Sample] = field(default_factory=list)
    faults: list[tuple[float, str, float]] = field(default_factory=list)  # (t_min, kind, s)
    restart_s: list[float] = field(default_factory=list)
    fault_errors: list[str] = field(default_factory=list)
    acknowledged: int = 0
    lost: int = 0
    lost_examples: list[str] = field(default_factory=list)
    tracebacks: int = 0
    internal_errors: int = 0
    matches: int = 0
    rooms_made: int = 0
    drops: int = 0
    paused_told: int = 0
    exit_code: int | None = None
    slopes: dict[str, float | None] = field(default_factory=dict)
    p99_ms: float | None = None
    p50_ms: float | None = None

    @property
    def ok(self) -> bool:
        return (self.lost == 0 and self.tracebacks == 0 and self.internal_errors == 0
                and not self.fault_errors)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def slope_per_min(points: list[tuple[float, float]]) -> float | None:
    """The least-squares slope of ``(minutes, value)`` points, per minute; None for fewer than
    four points."""
    if len(points) < 4:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den


def _segment_slopes(samples: list[Sample], key: str, warmup_min: float) -> float | None:
    """The slope of ``key`` over every server life after its first ``warmup_min`` minutes: each
    life's points taken relative to their own mean (a restart's fresh start is no trend), fitted
    together."""
    points: list[tuple[float, float]] = []
    for life in sorted({s.life for s in samples}):
        mine = [(s.t_min, float(getattr(s, key))) for s in samples
                if s.life == life and s.age_min >= warmup_min and getattr(s, key) is not None]
        if len(mine) < 3:
            continue
        mean = statistics.fmean(v for _, v in mine)
        points += [(t, v - mean) for t, v in mine]
    return slope_per_min(points)


async def _check_acks(database_url: str, acks: list[tuple[str, int, str]]) -> tuple[int, list[str]]:
    """Acknowledged actions missing from the stored record (each (room, match, action) counted
    as often as it was acknowledged)."""
    from collections import Counter

    from sqlalchemy import select

    from kemps.server.storage import EntryRow, Storage

    wanted = Counter(acks)
    storage = Storage(database_url)
    lost: list[str] = []
    try:
        async with storage.sessions() as s:
            for code in sorted({a[0] for a in acks}):
                rows = await s.execute(select(EntryRow.match_no, EntryRow.payload).where(
                    EntryRow.room_code == code, EntryRow.kind == "action"))
                have = Counter((code, m, json.dumps(p, sort_keys=True)) for m, p in rows)
                for key, n in wanted.items():
                    if key[0] == code and have[key] < n:
                        lost += [f"{key[0]} match {key[1]}: {key[2]}"] * (n - have[key])
    finally:
        await storage.close()
    return len(lost), lost[:10]


async def run_soak(minutes: float, rooms: int = 12, players: int = 4,
                   fault_every_s: float = 60.0, sample_s: float = 10.0,
                   database_url: str | None = None, seed: int | None = None,
                   warmup_min: float | None = None,
                   progress: Any = None) -> SoakReport:
    """Run the soak (see the module text); ``progress(sample)`` is called with each sample."""
    import httpx

    rng = random.Random(seed)
    workdir = Path(tempfile.mkdtemp(prefix="kemps-soak-"))
    db_url = database_url or f"sqlite+aiosqlite:///{workdir / 'soak.sqlite'}"
    storage = StorageFault(db_url)
    server = SoakServer(await storage.server_url(), workdir)
    report = SoakReport(minutes, rooms, players, fault_every_s,
                        "SQLite" if db_url.startswith("sqlite") else db_url.split(":", 1)[0])
    warmup = warmup_min if warmup_min is not None else min(2.0, minutes * 0.2)
    report.restart_s.append(await server.start())
    load = Load(server, rooms, players, rng)
    levels = ["simple", "casual", "club", "sharp"]
    tasks = [asyncio.create_task(load.bot_room(levels)) for _ in range(rooms)]
    tasks += [asyncio.create_task(load.player(i)) for i in range(players)]
    began = time.monotonic()
    life_began = began
    end = began + minutes * 60
    faults_at: list[tuple[float, float]] = []  # (began, ended), monotonic seconds
    health = httpx.AsyncClient(base_url=server.url, timeout=5.0)

    async def faults() -> None:
        nonlocal life_began
        kinds = list(FAULT_WEIGHTS)
        rng.shuffle(kinds)
        while True:
            await asyncio.sleep(fault_every_s * rng.uniform(0.6, 1.4))
            if time.monotonic() > end - min(10.0, fault_every_s / 2):
                return
            kind = kinds.pop() if kinds else rng.choices(
                list(FAULT_WEIGHTS), weights=list(FAULT_WEIGHTS.values()))[0]
            at = time.monotonic()
            faults_at.append((at, float("inf")))
            try:
                if kind == "kill":
                    server.kill9()
                    report.restart_s.append(await server.start())
                    life_began = time.monotonic()
                elif kind == "storage":
                    await storage.hold(rng.uniform(2.0, 6.0))
                else:
                    load.cut_players()
            except Exception as err:  # noqa: BLE001 - said in the report; the soak goes on
                report.fault_errors.append(f"{kind} at {(at - began) / 60:.1f} min: "
                                           f"{type(err).__name__}: {err}"[:300])
                if server.pid is None:  # the server must run for the soak to mean anything
                    report.restart_s.append(await server.start())
                    life_began = time.monotonic()
            faults_at[-1] = (at, time.monotonic())
            report.faults.append((round((at - began) / 60, 3), kind,
                                  round(time.monotonic() - at, 2)))

    fault_task = asyncio.create_task(faults())
    seen_acks = 0
    try:
        while time.monotonic() < end:
            await asyncio.sleep(min(sample_s, max(0.0, end - time.monotonic())))
            now = time.monotonic()
            pid = server.pid
            status = _proc_status(pid) if pid else {}
            body: dict[str, Any] = {}
            with contextlib.suppress(httpx.HTTPError, ValueError):
                body = (await health.get("/api/health")).json()
            window = [ms for t, ms in load.tally.latencies if t > now - sample_s]
            calm = not any(a <= now and b >= now - 2 * sample_s for a, b in faults_at)
            acks = len(load.tally.acks) - seen_acks
            seen_acks = len(load.tally.acks)
            sample = Sample(
                round((now - began) / 60, 3), server.lives, round((now - life_began) / 60, 3),
                status.get("rss_mb"), status.get("files"), status.get("threads"),
                body.get("tasks"), body.get("rooms"), body.get("players"), acks,
                _quantile(window, 0.5), _quantile(window, 0.99), calm, os.getloadavg()[0])
            report.samples.append(sample)
            if progress is not None:
                progress(sample)
    finally:
        fault_task.cancel()
        with contextlib.suppress(BaseException):
            await fault_task
        load.stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await load.close()
        await health.aclose()
        report.exit_code = server.stop()
        await storage.close()
    t = load.tally
    report.acknowledged = len(t.acks)
    report.lost, report.lost_examples = await _check_acks(db_url, t.acks)
    report.tracebacks = server.tracebacks()
    report.internal_errors = t.internal_errors
    report.matches, report.rooms_made = t.matches, t.rooms_made
    report.drops, report.paused_told = t.drops, t.paused
    all_ms = [ms for _, ms in t.latencies]
    report.p50_ms, report.p99_ms = _quantile(all_ms, 0.5), _quantile(all_ms, 0.99)
    s = report.samples
    report.slopes = {
        "rss_mb_per_min": _segment_slopes(s, "rss_mb", warmup),
        "files_per_min": _segment_slopes(s, "files", warmup),
        "tasks_per_min": _segment_slopes(s, "tasks", warmup),
        "p99_ms_per_min": slope_per_min([(x.t_min, x.p99_ms) for x in s if x.calm
                                         and x.t_min >= warmup and x.p99_ms is not None]),
    }
    with contextlib.suppress(OSError):
        (workdir / "soak.json").write_text(json.dumps(report.to_dict(), indent=1))
    if report.ok:  # the evidence of a failed run is kept for the operator
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    else:
        report.lost_examples.append(f"(server log and database kept in {workdir})")
    return report


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def report_text(r: SoakReport, command: str, load: tuple[float, float]) -> str:
    """The soak's figures as markdown (docs/benchmarks.md, section ``soak``)."""
    import platform

    kinds = {k: sum(1 for _, kind, _ in r.faults if kind == k) for k in FAULT_WEIGHTS}
    loads = [x.load1 for x in r.samples]
    lines = [
        "## Soak: an hour of play with faults (`kemps soak`)",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M')} on {platform.platform()}, CPython "
        f"{platform.python_version()}, {os.cpu_count()} CPUs; {r.database}. "
        f"Command: `{command}`.",
        "",
        f"- **{r.minutes:g} minutes**, {r.rooms} rooms of bots (rematches, or left to be "
        f"archived and replaced) and {r.players} players on WebSockets; "
        f"{r.matches:,} matches finished, {r.rooms_made:,} rooms made.",
        f"- **Faults**: {len(r.faults)} ({kinds['kill']} kill -9 and restart, "
        f"{kinds['storage']} storage pauses, {kinds['cut']} cuts of every player), and "
        f"{r.drops} drops of single players; restart to answering "
        f"{_fmt(statistics.median(r.restart_s[1:]) if len(r.restart_s) > 1 else None, 1)} s "
        f"(median; {', '.join(f'{x:.1f}' for x in r.restart_s[1:]) or 'none'}); "
        f"faults that failed: {len(r.fault_errors)}.",
        f"- **Acknowledged actions lost: {r.lost}** of {r.acknowledged:,} acknowledged; "
        f"**unhandled errors: {r.tracebacks}** tracebacks in the server's log, "
        f"{r.internal_errors} `internal` errors told to players; the server's last stop "
        f"exited {r.exit_code}.",
        f"- Acknowledgement latency (send to `ok`, players): p50 {_fmt(r.p50_ms)} ms, p99 "
        f"{_fmt(r.p99_ms)} ms over the whole run (faults included).",
        f"- **Slopes** after each server life's first minutes (least squares, per minute): "
        f"memory {_fmt(r.slopes.get('rss_mb_per_min'), 3)} MB, open files "
        f"{_fmt(r.slopes.get('files_per_min'), 3)}, tasks {_fmt(r.slopes.get('tasks_per_min'), 3)}"
        f"; p99 latency over calm windows {_fmt(r.slopes.get('p99_ms_per_min'), 3)} ms.",
        f"- Machine load (1 min) {_fmt(min(loads) if loads else None)}-"
        f"{_fmt(max(loads) if loads else None)}, median {_fmt(statistics.median(loads) if loads else None)}"
        f" (start-end of the run: {load[0]:.1f}-{load[1]:.1f}).",
        "",
        "| minute | server life | memory (MB) | open files | threads | tasks | rooms | players "
        "| acks | p50 (ms) | p99 (ms) | fault in the minute |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    by_minute: dict[int, list[Sample]] = {}
    for x in r.samples:
        by_minute.setdefault(int(x.t_min), []).append(x)
    for minute, xs in sorted(by_minute.items()):
        last = xs[-1]
        p99s = [x.p99_ms for x in xs if x.p99_ms is not None]
        p50s = [x.p50_ms for x in xs if x.p50_ms is not None]
        faults = ", ".join(kind for t, kind, _ in r.faults if int(t) == minute) or ""
        lines.append(
            f"| {minute} | {last.life} | {_fmt(last.rss_mb)} | {_fmt(last.files, 0)} | "
            f"{_fmt(last.threads, 0)} | {last.tasks if last.tasks is not None else '-'} | "
            f"{last.rooms if last.rooms is not None else '-'} | "
            f"{last.players if last.players is not None else '-'} | {sum(x.acks for x in xs)} | "
            f"{_fmt(statistics.median(p50s) if p50s else None)} | "
            f"{_fmt(max(p99s) if p99s else None)} | {faults} |")
    if r.lost_examples or r.fault_errors:
        lines += ["", "Lost, failed or kept: " + "; ".join(r.fault_errors + r.lost_examples)]
    return "\n".join(lines)


__all__ = ["SoakReport", "report_text", "run_soak", "slope_per_min"]
