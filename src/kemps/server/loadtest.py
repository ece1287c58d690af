"""Load benchmark of the table server over real WebSockets (``kemps bench-server``), against the
echo floor (:mod:`kemps.server.echo`) on the same stack, with the same client and pacing.

A real ``kemps serve`` (or the echo floor) runs as its own process on a temporary SQLite database;
this process plays the clients: rooms of four seated players who act at human pace (every 1 to 3
seconds a swap, a gesture or a stall; Ready between hands). Each action carries an ``id``; its
latency is from the moment the client sent it to the moment the LAST of the room's four seats
received its update (the update that follows the actor's ``ok``; same machine, same clock). Every timed action sent
while measuring ends in exactly one column: measured (acknowledged, its update at all four seats),
rejected, incomplete (acknowledged, its update short of a seat by the end) or unanswered (neither
``ok`` nor ``rejected`` by the end): none is dropped silently. A run that fails (the server does
not start, no update completes, ...) is kept with its reason and the other runs still reported. The server
process's CPU time (from /proc) gives CPU per client action, its resident memory before and after
the players connect gives memory per connected player, and the machine's load average is noted.
Each step runs ``runs`` rounds, each the echo floor then the table server; a ratio is the table's
figure over the echo's of the same round, and the report gives the median of those ratios with
their spread (min-max), beside the absolute figures.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from kemps.server.children import stop_child

TARGET_P99_MS: Final = 20.0  # p99 when the machine is quiet (issue: at most 20 ms)
TARGET_P99_RATIO: Final = 3.0  # p99 at most this many times the echo floor's
TARGET_CPU_RATIO: Final = 1.5  # server CPU per action at most this many times the echo's
TARGET_KB_PER_PLAYER: Final = 40.0  # resident memory per connected player, all in
Kind = Literal["table", "echo"]


@dataclass
class StepResult:
    """One load step against one server: ``players`` connected for ``seconds``; latencies in
    milliseconds from the actor's send to the last seat's receipt."""

    kind: str
    players: int
    seconds: float
    updates: int
    actions: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    incomplete: int = 0  # timed actions acknowledged whose update missed a seat by the end
    client_cpu: float = 0.0  # share of one core the client process used
    server_cpu: float = 0.0  # share of one core the server process used
    server_cpu_ms_per_action: float = 0.0
    kb_per_player: float = 0.0  # server resident memory added per connected player
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average at the start and the end
    sent: int = 0  # timed actions (with an id) sent while measuring
    rejected: int = 0  # of those, answered ``rejected``
    unanswered: int = 0  # of those, answered neither ``ok`` nor ``rejected`` by the end
    failure: str = ""  # why the run failed ("" when it did not); its figures are then zeros
    warmup_s: float = 0.0  # seconds from connecting to measuring (nine rooms in ten playing)

    @property
    def ok(self) -> bool:
        return not self.failure

    @property
    def met(self) -> bool:
        return self.ok and self.p99_ms <= TARGET_P99_MS

    @property
    def measured(self) -> int:
        """Timed actions whose update reached all four seats (each gives one latency)."""
        return self.updates


@dataclass
class Comparison:
    """Several runs of one step on the table server and the echo floor."""

    players: int
    table: list[StepResult] = field(default_factory=list)
    echo: list[StepResult] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _proc_rss_kb(pid: int) -> float:
    """Resident memory of process ``pid`` in KB (Linux /proc; 0 elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return float(line.split()[1])
    except OSError:
        pass
    return 0.0


class _Server:
    def __init__(self, kind: Kind = "table", database_url: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.kind = kind
        self.dir = tempfile.TemporaryDirectory()
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        db = Path(self.dir.name) / "bench.sqlite"
        command = ([sys.executable, "-m", "kemps.server.echo", str(self.port)] if kind == "echo"
                   else [sys.executable, "-m", "kemps", "serve", "--port", str(self.port),
                         "--database-url", database_url or f"sqlite+aiosqlite:///{db}"])
        self.proc = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            # one client address makes every room of the load: lift the per-address limit
            env={**os.environ, "KEMPS_ROOM_BURST": "100000", "KEMPS_MAX_ROOMS": "100000",
                 "KEMPS_ADDRESS_CONNECTIONS": "100000", **(env or {})})

    def wait(self) -> None:
        import httpx

        # 60 s as the other benches' servers: on a loaded machine the imports alone of a
        # starting ``kemps serve`` have taken over 30 s.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                httpx.get(self.url + "/api/presets", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start" if self.proc.poll() is None
                           else f"the server exited ({self.proc.returncode}) before it answered")

    def stop(self) -> None:
        stop_child(self.proc)
        self.dir.cleanup()


async def _make_rooms(url: str, rooms: int, kind: Kind = "table",
                      headers: dict[str, str] | None = None) -> list[tuple[str, list[str]]]:
    if kind == "echo":  # the echo floor has no lobby: any code and token will do
        return [(f"E{i}", [f"t{i}-{seat}" for seat in range(4)]) for i in range(rooms)]
    import httpx

    out: list[tuple[str, list[str]]] = []
    async with httpx.AsyncClient(base_url=url, timeout=30, headers=headers) as c:
        for i in range(rooms):
            r = await c.post("/api/rooms", json={"name": f"P{i}-0", "preset": "pagat",
                                                 "options": {"idle_sweep_s": 6.0}})
            code, tokens = r.json()["code"], [r.json()["token"]]
            for seat in (1, 2, 3):
                r = await c.post(f"/api/rooms/{code}/seats",
                                 json={"seat": seat, "name": f"P{i}-{seat}"})
                tokens.append(r.json()["token"])
            # agree a signal in the huddle: every hand is then dealt without the table's help
            out.append((code, tokens))
    return out


async def _run_step(server: _Server, rooms: list[tuple[str, list[str]]], seconds: float,
                    seed: int, where: dict[str, str] | None = None,
                    pids: list[int] | None = None) -> StepResult:
    """Play ``rooms`` on ``server`` for ``seconds`` and measure. Many nodes
    (:mod:`kemps.server.nodebench`): ``where`` gives each room's node URL (default the server's)
    and ``pids`` the processes whose CPU and memory count (default the server's)."""
    import httpx
    import websockets

    where = where or {}
    playing: set[str] = set()  # rooms whose hand is in play (seen by one of their seats)
    received: dict[tuple[str, int], list[float]] = {}
    origin: dict[tuple[str, int], float] = {}  # an action's update -> when the actor sent it
    actions = 0
    timed = rejected = acknowledged = 0  # timed actions sent while measuring, and their answers
    measuring = False
    stop = asyncio.Event()
    rng = random.Random(seed)
    next_id = 0

    async def player(code: str, token: str, seat: int) -> None:
        nonlocal actions, next_id, timed
        ws_url = where.get(code, server.url).replace("http://", "ws://")
        async with websockets.connect(f"{ws_url}/ws/{code}?token={token}", max_size=2**22,
                                      compression=None) as ws:
            view: dict[str, Any] = {}
            sent: dict[int, float] = {}
            awaiting: list[float] = []  # send times of this seat's acknowledged actions

            async def read() -> None:
                nonlocal view, rejected, acknowledged
                async for raw in ws:
                    now = time.time()
                    m = json.loads(raw)
                    kind = m["type"]
                    if kind == "update":
                        key = (code, m["version"])
                        received.setdefault(key, []).append(now)
                        if awaiting:  # the update right after my ok is my action's
                            origin[key] = awaiting.pop(0)
                    elif kind == "ok":
                        t0 = sent.pop(m["id"], None)
                        if t0 is not None:
                            acknowledged += 1
                            awaiting.append(t0)
                    elif kind == "rejected" and sent.pop(m.get("id"), None) is not None:
                        rejected += 1
                    if "view" in m:
                        view = m["view"]
                        if view.get("phase") == "play":
                            playing.add(code)

            reader = asyncio.create_task(read())
            await asyncio.sleep(rng.uniform(0.5, 2.0))
            while not stop.is_set():
                phase = view.get("phase")
                if phase == "huddle":
                    if seat < 2 and not view.get("signals"):
                        # a table action like any other (applied, stored, told to every seat):
                        # counted in the CPU per action, not timed (no id)
                        if measuring:
                            actions += 1
                        await ws.send(json.dumps({"type": "action", "action": {
                            "type": "agree_signals", "signals": ["touch_ear"]}}))
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
                    next_id += 1
                    if measuring:
                        actions += 1
                        timed += 1
                        sent[next_id] = time.time()
                    await ws.send(json.dumps({"type": "action", "id": next_id,
                                              "action": action}))
                await asyncio.sleep(rng.uniform(1.0, 3.0))
            reader.cancel()

    if server.kind == "table":
        async with httpx.AsyncClient(timeout=30) as c:
            for code, tokens in rooms:
                await c.post(f"{where.get(code, server.url)}/api/rooms/{code}/start",
                             headers={"Authorization": f"Bearer {tokens[0]}"})
    # The measuring client must not add pauses of its own (its full garbage collections would
    # show up as server latency): the same settings as the server's.
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)
    pids = pids or [server.proc.pid]
    rss0 = sum(_proc_rss_kb(pid) for pid in pids)
    tasks = [asyncio.create_task(player(code, t, seat)) for code, tokens in rooms
             for seat, t in enumerate(tokens)]
    # Start measuring once everyone is connected and nine rooms in ten are playing their first
    # hand (on a busy machine connecting and dealing take far longer than the usual 3 s; a run
    # that measured rooms still in their huddle would report nothing): 3 s at least, 60 at most.
    await asyncio.sleep(3.0)
    waited = 3.0
    while len(playing) < 0.9 * len(rooms) and waited < 60.0:
        await asyncio.sleep(0.5)
        waited += 0.5
    received.clear()
    origin.clear()
    actions = timed = rejected = acknowledged = 0
    measuring = True
    load0 = os.getloadavg()[0]
    cpu0, server0 = time.process_time(), sum(_proc_cpu_s(pid) for pid in pids)
    await asyncio.sleep(seconds)
    client_cpu = (time.process_time() - cpu0) / seconds
    server_cpu_s = sum(_proc_cpu_s(pid) for pid in pids) - server0
    rss1 = sum(_proc_rss_kb(pid) for pid in pids)
    measuring = False
    await asyncio.sleep(0.5)  # let the last updates arrive
    stop.set()
    ended = await asyncio.gather(*tasks, return_exceptions=True)
    failed = [e for e in ended if isinstance(e, BaseException)]
    latencies = sorted(1000.0 * (max(received[key]) - t0) for key, t0 in origin.items()
                       if len(received.get(key, ())) == 4)
    # every timed action sent lands in one column: measured, rejected, incomplete, unanswered
    incomplete = acknowledged - len(latencies)
    unanswered = timed - acknowledged - rejected
    if not latencies:
        raise RuntimeError(f"no complete updates were measured ({timed} timed actions sent: "
                           f"{rejected} rejected, {acknowledged} acknowledged of which "
                           f"{incomplete} incomplete, {unanswered} unanswered; {len(failed)} of "
                           f"{len(tasks)} players failed"
                           f"{f', the first: {failed[0]!r}' if failed else ''})")
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    players = 4 * len(rooms)
    return StepResult(server.kind, players, seconds, len(latencies), actions,
                      statistics.median(latencies), p99, latencies[-1], incomplete, client_cpu,
                      server_cpu_s / seconds, 1000.0 * server_cpu_s / max(1, actions),
                      max(0.0, rss1 - rss0) / players, (load0, os.getloadavg()[0]),
                      timed, rejected, unanswered, warmup_s=waited)


def run_step(kind: Kind, players: int, seconds: float, seed: int = 0,
             database_url: str | None = None) -> StepResult:
    """One step (``players``, a multiple of 4) against a fresh server process of ``kind``."""
    server = _Server(kind, database_url)
    try:
        server.wait()
        rooms = asyncio.run(_make_rooms(server.url, players // 4, kind))
        return asyncio.run(_run_step(server, rooms, seconds, seed))
    finally:
        server.stop()


def _failed(kind: Kind, players: int, seconds: float, error: BaseException) -> StepResult:
    """A run that did not give figures, kept with its reason (``failure``)."""
    reason = f"{type(error).__name__}: {error}".replace("|", "/").replace("\n", " ")
    load = os.getloadavg()[0]
    return StepResult(kind, players, seconds, 0, 0, 0.0, 0.0, 0.0, load=(load, load),
                      failure=reason[:300])


def run_server_benchmark(steps: tuple[int, ...] = (100, 500, 1000, 2000),
                         seconds: float = 20.0, runs: int = 3,
                         database_url: str | None = None) -> list[Comparison]:
    """For each step (player count), ``runs`` rounds of: the echo floor, then the table server
    (on a temporary SQLite file or on ``database_url``, which should hold no rooms: the server
    restores every unfinished one), each a fresh process, the same seed within a round. A run
    that fails is kept with its reason (:attr:`StepResult.failure`) and the others go on."""
    out: list[Comparison] = []
    for players in steps:
        comparison = Comparison(players)
        for run in range(runs):
            for kind in ("echo", "table"):
                try:
                    result = run_step(kind, players, seconds, seed=run,
                                      database_url=database_url if kind == "table" else None)
                except Exception as error:  # noqa: BLE001 - any failure is reported in the
                    # figures with its reason, never fatal to the other runs
                    result = _failed(kind, players, seconds, error)
                (comparison.echo if kind == "echo" else comparison.table).append(result)
        out.append(comparison)
    return out


def round_ratios(c: Comparison, attr: str) -> list[float]:
    """The table server's ``attr`` over the echo floor's, round by round (each round an echo
    run and a table run one after the other), for the rounds where both gave figures."""
    return [getattr(t, attr) / getattr(e, attr) for t, e in zip(c.table, c.echo)
            if t.ok and e.ok and getattr(e, attr) > 0]


def _median_spread(values: list[float], fmt: str = "{:.2f}") -> str:
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-" \
           f"{fmt.format(max(values))})"


def report(results: list[Comparison], database: str = "SQLite") -> str:
    """The markdown section for docs/benchmarks.md (``database``: what the server stored on):
    the ratios to the echo floor first (each round's own ratio; their median and spread), then
    every run's figures, its actions counted by outcome, and any failed run with its reason."""
    import datetime
    import platform

    def med(rs: list[StepResult], attr: str) -> float:
        ok = [float(getattr(r, attr)) for r in rs if r.ok]
        return float(statistics.median(ok)) if ok else float("nan")

    def spread(values: list[float], fmt: str = "{:.2f}") -> str:
        return _median_spread(values, fmt) if values else "no run gave figures"

    def ratio(values: list[float], goal: float) -> str:
        if not values:
            return "no round gave figures"
        return f"{_median_spread(values, '{:.1f}')}x (goal <= {goal:g}x)"

    runs = max((len(c.table) for c in results), default=0)
    lines = [
        "## Table server over real WebSockets (`kemps bench-server`)",
        "",
        f"Measured {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.platform()},"
        f" CPython {platform.python_version()}, {os.cpu_count()} CPUs; {runs} round(s) per step, "
        "each the echo floor then the table server, each a fresh process. The table server "
        f"(`kemps serve`, {database}) against the echo floor (`kemps.server.echo`: the same "
        "uvicorn and WebSocket stack answering each action with `ok` and an update of the same "
        "size to the room's four seats, no rules, no storage). One client process on the same "
        "machine; players in rooms of four act every 1-3 s (swap 60%, gesture 35%, stall 5%; "
        "between hands the first seat of each pair agrees a signal and everyone says Ready, "
        "again every 1-3 s until the deal). CPU per action: the server's CPU time over the "
        "actions sent (swaps, gestures, stalls and signal agreements; Ready is not counted, "
        "though the work it causes is). Latency: from the actor sending an action to the last "
        "of the room's four seats receiving its update. Ratios: the table's figure over the "
        "echo's of the same round, median of the rounds with min-max in brackets; absolute "
        "figures: medians of the runs that gave figures, min-max in brackets.",
        "",
        "| Players | p99 ratio (table / echo) | CPU per action ratio | p99 table (ms) | "
        "p99 echo (ms) | CPU ms per action, table | echo | KB per player, table | echo | "
        "failed runs (table / echo) | load (start-end) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c in results:
        t, e = c.table, c.echo
        loads = [x for r in t + e for x in r.load]
        lines.append(
            f"| {c.players:,} | {ratio(round_ratios(c, 'p99_ms'), TARGET_P99_RATIO)} | "
            f"{ratio(round_ratios(c, 'server_cpu_ms_per_action'), TARGET_CPU_RATIO)} | "
            f"{spread([r.p99_ms for r in t if r.ok])} | {spread([r.p99_ms for r in e if r.ok])} | "
            f"{spread([r.server_cpu_ms_per_action for r in t if r.ok])} | "
            f"{spread([r.server_cpu_ms_per_action for r in e if r.ok])} | "
            f"{spread([r.kb_per_player for r in t if r.ok], '{:.0f}')} | "
            f"{spread([r.kb_per_player for r in e if r.ok], '{:.0f}')} | "
            f"{sum(not r.ok for r in t)} / {sum(not r.ok for r in e)} | "
            f"{min(loads):.1f}-{max(loads):.1f} |")
    lines += ["", "Every run, its timed actions (those sent with an id while measuring) counted "
              "by outcome: measured (acknowledged and its update at all four seats: one latency "
              "each), rejected, incomplete (acknowledged, its update short of a seat by the end) "
              "and unanswered (no answer by the end); the four add up to the actions sent. "
              "Warm-up: from the players connecting to the start of measuring, once nine rooms "
              "in ten play their first hand (at least 3 s, at most 60).", "",
              "| Players | Server | Run | Timed actions sent | Measured | Rejected | Incomplete | "
              "Unanswered | p50 (ms) | p99 (ms) | max (ms) | server CPU (cores) | "
              "client CPU (cores) | warm-up (s) | load (start-end) |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    failures: list[str] = []
    for c in results:
        for kind, rs in (("table", c.table), ("echo", c.echo)):
            for i, r in enumerate(rs, 1):
                if not r.ok:
                    lines.append(f"| {r.players:,} | {kind} | {i} | **failed** (below) | | | | | "
                                 f"| | | | | | {r.load[0]:.1f} |")
                    failures.append(f"- {r.players:,} players, {kind}, run {i}: {r.failure}")
                    continue
                lines.append(f"| {r.players:,} | {kind} | {i} | {r.sent:,} | {r.measured:,} | "
                             f"{r.rejected:,} | {r.incomplete:,} | {r.unanswered:,} | "
                             f"{r.p50_ms:.2f} | {r.p99_ms:.2f} | {r.max_ms:.1f} | "
                             f"{r.server_cpu:.2f} | {r.client_cpu:.2f} | {r.warmup_s:.1f} | "
                             f"{r.load[0]:.1f}-{r.load[1]:.1f} |")
    if failures:
        lines += ["", "Failed runs (their rounds give no ratio):", "", *failures]
    at_1000 = [c for c in results if c.players == 1000]
    if at_1000:
        c = at_1000[0]
        ratios = round_ratios(c, "p99_ms")
        p99 = med(c.table, "p99_ms")
        kb = med(c.table, "kb_per_player")
        if not ratios or p99 != p99:
            lines += ["", "Goals at 1,000 players: not measured (every round failed)."]
        else:
            r99 = statistics.median(ratios)
            load = max(x for r in c.table for x in r.load)
            lines += ["", f"Goals at 1,000 players: p99 at most {TARGET_P99_RATIO:g}x the echo "
                      f"floor: {'met' if r99 <= TARGET_P99_RATIO else '**NOT met**'} "
                      f"({r99:.1f}x); at most {TARGET_P99_MS:g} ms on a quiet machine: "
                      f"{'met' if p99 <= TARGET_P99_MS else '**NOT met**'} ({p99:.1f} ms, load "
                      f"up to {load:.1f}); memory at most {TARGET_KB_PER_PLAYER:g} KB a player: "
                      f"{'met' if kb <= TARGET_KB_PER_PLAYER else '**NOT met**'} ({kb:.0f} KB)."]
    return "\n".join(lines) + "\n"
