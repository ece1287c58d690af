"""``kemps bench-watcher``: a person who watches, at a live table over real WebSockets (issue 25).

Issue 25: "at an attention table, a scripted watcher that looks where S0 says to look ... sees
at least a third of the default bots' first signals and wins at least a quarter of the Stop
races it starts at the default bot speed, measured over real WebSockets with a person's
reaction (0.7 s)". Each match is set up as the page's "Play against bots" sets up a person: a
room at the default preset with the online defaults (``POST /api/rooms`` with a name only:
pagat, attention on), the person at seat 0, bots of the level in the three other seats (the
page's level is ``club``), the room's bot speed left to the server (``relaxed`` while a person
is seated), the match started, and the person ready between hands. The person is a
:class:`kemps.bots.scripted.ScriptedWatcher` (reaction :data:`PERSON_REACTION_S`) played by
:class:`kemps.server.client.TableClient`.

The figures come from the match record the server stored (``GET /api/replays/{id}/record``,
replayed to its events), scored with :func:`kemps.bots.scripted.watch_figures` against what the
watcher did; the pairs' signal agreements are in that record once the room is archived (it is
archived a short idle time after the watcher leaves: the server this bench starts is given
``KEMPS_ROOM_IDLE_S`` of a few seconds; a server given with ``--url`` needs the same). Each match
is checked against the record: the watcher's Stop Kemps calls, wins and losses as the record has
them, and every gesture it saw a gesture of the record. The simulator's figures for the same
setting (:func:`kemps.bots.scripted.play_watched`, as many matches) are measured in the same run.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from kemps.arena import wilson
from kemps.bots.base import Bot
from kemps.bots.scripted import (
    PERSON_REACTION_S,
    ScriptedWatcher,
    WatcherLog,
    WatchFigures,
    play_watched,
    watch_figures,
)
from kemps.errors import KempsError
from kemps.events import Called, CallJudged, Event, Gestured
from kemps.record import MatchRecord, replay
from kemps.rules import RuleSet
from kemps.server.children import stop_child
from kemps.server.client import TableClient

#: Seconds a finished room of the bench's own server waits, with nobody connected, before it is
#: archived (and its pairs' agreements can be read).
BENCH_IDLE_S = 3.0
#: The seat the watcher takes (the room's creator sits at seat 0, as on the page).
WATCHER_SEAT = 0


@dataclass
class WatchedMatch:
    """One match over the WebSocket: its ``code``, ``match_id``, ``figures``, its table
    seconds (``seconds``), the wall seconds it took, the client's ``sent`` / ``refused``
    actions, ``problems`` (disagreements between what the watcher did and the stored record;
    none expected), the ``record`` as the server stored it (agreements shown), ``told``,
    every event the watcher's seat was told, decoded, in order, the watcher's ``log`` and the
    room's ``bot_speed`` as the room told it."""

    level: str
    rules: RuleSet
    code: str
    match_id: int
    figures: WatchFigures
    seconds: float
    wall_s: float
    sent: int
    refused: int
    problems: list[str] = field(default_factory=list)
    record: MatchRecord | None = None
    told: list[Event] = field(default_factory=list)
    log: WatcherLog = field(default_factory=WatcherLog)
    bot_speed: str | None = None


@dataclass
class LevelResult:
    """Every match of one level, over the WebSocket and in the simulator."""

    level: str
    live: list[WatchedMatch] = field(default_factory=list)
    sim: WatchFigures = field(default_factory=WatchFigures)
    sim_matches: int = 0
    failed: list[str] = field(default_factory=list)

    @property
    def total(self) -> WatchFigures:
        out = WatchFigures()
        for m in self.live:
            out.add(m.figures)
        return out


def check_against_record(log_owner: ScriptedWatcher, events: list[Event],
                         seat: int) -> list[str]:
    """What the watcher's own log says against the record's unredacted ``events``: its Stop
    Kemps calls, and those judged right and wrong, counted alike; every gesture it saw made then
    by that seat. Returns the disagreements (empty: none)."""
    log = log_owner.log
    problems: list[str] = []
    calls = [e for e in events if isinstance(e, Called) and e.seat == seat and e.kind == "stop"]
    judged = [e for e in events if isinstance(e, CallJudged) and e.seat == seat
              and e.kind == "stop"]
    if len(calls) != len(log.sent):
        problems.append(f"{len(calls)} Stop calls in the record, {len(log.sent)} in the log")
    right = sum(1 for e in judged if e.right)
    if (right, len(judged) - right) != (log.won, log.lost):
        problems.append(f"record won/lost {right}/{len(judged) - right}, log "
                        f"{log.won}/{log.lost}")
    made = {(e.seat, round(e.t, 6)) for e in events if isinstance(e, Gestured)}
    unknown = [s for s in log.seen if (s[0], round(s[1], 6)) not in made]
    if unknown:
        problems.append(f"{len(unknown)} gestures seen that the record does not have")
    return problems


class BenchServer:
    """``kemps serve`` as a child process on a free port with a temporary SQLite database,
    finished rooms archived after :data:`BENCH_IDLE_S`, and the per-address room limits lifted
    (one client makes every room)."""

    def __init__(self) -> None:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.dir = tempfile.TemporaryDirectory()
        db = Path(self.dir.name) / "bench.sqlite"
        self.log = open(Path(self.dir.name) / "server.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kemps", "serve", "--port", str(self.port),
             "--database-url", f"sqlite+aiosqlite:///{db}"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "KEMPS_ROOM_IDLE_S": str(BENCH_IDLE_S),
                 "KEMPS_ROOM_BURST": "1000", "KEMPS_ROOMS_PER_MIN": "1000",
                 "KEMPS_MAX_ROOMS": "100000"})

    def wait(self, timeout_s: float = 60.0) -> None:
        """Until the server answers.

        Raises:
            KempsError: ``server_unavailable`` when it did not start in ``timeout_s``.
        """
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                httpx.get(self.url + "/api/presets", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise KempsError("server_unavailable", "The bench's kemps serve did not start.")

    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self.proc.poll() is None

    def log_tail(self, chars: int = 2000) -> str:
        """The end of what the server wrote (for a server that stopped)."""
        self.log.flush()
        text = (Path(self.dir.name) / "server.log").read_bytes()[-chars:]
        return f"exit {self.proc.poll()}: " + text.decode("utf-8", "replace")

    def stop(self) -> None:
        """Stop it (SIGINT, then kill) and remove its files."""
        stop_child(self.proc)
        self.log.close()
        self.dir.cleanup()


async def _call(c: httpx.AsyncClient, method: str, path: str, token: str | None = None,
                body: dict[str, Any] | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = await c.request(method, path, json=body, headers=headers)
    if r.status_code >= 400:
        raise KempsError("bench_refused", f"{method} {path}: {r.status_code} {r.text[:200]}")
    return r.json()


async def watched_match(url: str, level: str, reaction_s: float = PERSON_REACTION_S,
                        timeout_s: float = 1800.0, archive_wait_s: float = 120.0,
                        options: dict[str, Any] | None = None) -> WatchedMatch:
    """Play one match as the page's "Play against bots" seats a person, with the watcher in
    that seat, and score it from the stored record (see the module doc). ``options``: rule
    options on top of the default preset (a short match for a test: ``{"hands": 3}``).

    Raises:
        KempsError: ``bench_refused`` (the server refused a step), ``signals_withheld`` (the
            room was not archived within ``archive_wait_s``, so the agreements stay private).
        TimeoutError: the match did not end within ``timeout_s``.
    """
    ws_base = url.replace("http://", "ws://").replace("https://", "wss://")
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        made = await _call(c, "POST", "/api/rooms", body={"name": "Watcher", **(
            {"options": options} if options else {})})
        code, token, seat = made["code"], made["token"], made["seat"]
        watchers: list[ScriptedWatcher] = []

        def make(s: int, rules: RuleSet) -> Bot:
            w = ScriptedWatcher(s, rules, reaction_s=reaction_s)
            watchers.append(w)
            return w

        client = TableClient(ws_base, code, token, make)
        playing = asyncio.create_task(client.run(timeout_s))
        for _ in range(200):  # connected (the first state) before the match starts
            if client.room or playing.done():
                break
            await asyncio.sleep(0.05)
        await _call(c, "POST", f"/api/rooms/{code}/bots", token, {"fill": True, "level": level})
        await _call(c, "POST", f"/api/rooms/{code}/start", token)
        stuck: list[str] = []
        while not playing.done():  # a room finished whose end never reached the client
            await asyncio.wait({playing}, timeout=5.0)
            if not playing.done():
                r = await c.get(f"/api/rooms/{code}")
                if r.status_code != 200 or r.json().get("status") == "finished":
                    await asyncio.wait({playing}, timeout=15.0)
                    client.stop()
                    await asyncio.wait({playing}, timeout=15.0)
                    if not playing.done():  # it does not close: say where it waits
                        stuck = [f"{f.f_code.co_name}:{f.f_lineno}"
                                 for f in playing.get_stack(limit=8)]
                        playing.cancel()
                        await asyncio.wait({playing})
        if not playing.cancelled():
            await playing
        match_id = None
        deadline = time.monotonic() + archive_wait_s
        while match_id is None and time.monotonic() < deadline:
            r = await c.get(f"/api/rooms/{code}")
            if r.status_code == 200:
                match_id = r.json().get("last_match_id")
            if match_id is None:
                await asyncio.sleep(0.2)
        if match_id is None:
            raise KempsError("bench_refused", f"Room {code}: no finished match was stored.")
        while True:  # the agreements are shown once the room is archived
            data = await _call(c, "GET", f"/api/replays/{match_id}/record")
            if not data.get("meta", {}).get("signals_withheld"):
                break
            if time.monotonic() > deadline:
                raise KempsError("signals_withheld", f"Room {code} was not archived in "
                                 f"{archive_wait_s:g} s: its pairs' signals stay private. "
                                 "Start the server with a short KEMPS_ROOM_IDLE_S.")
            await asyncio.sleep(0.5)
    record = MatchRecord.from_dict(data)
    events = replay(record).events
    watcher = watchers[0]
    figures = watch_figures(events, watcher.log, seat, record.rules.pairs)
    problems = check_against_record(watcher, events, seat)
    if not client.ended:
        problems.append("the match's end never reached the watcher's connection")
    if stuck:
        problems.append("the client did not close (waiting in " + " < ".join(stuck) + ")")
    return WatchedMatch(level, record.rules, code, int(match_id), figures, record.end or 0.0,
                        time.monotonic() - started, client.sent, client.refused,
                        problems, record, client.events,
                        watcher.log, client.room.get("bot_speed"))


async def bench(url: str, levels: list[str], matches: int, rooms: int,
                minutes: float | None = None, progress: Any = None,
                alive: Any = None) -> list[LevelResult]:
    """``matches`` matches a level (``rooms`` at once) at ``url``, stopping early once
    ``minutes`` have passed (the matches under way finish) or ``alive()`` says the server is
    gone, then the simulator's figures for as many matches of the same setting. A match that
    fails is counted in ``failed`` with its reason; the others stand."""
    results = []
    start = time.monotonic()
    for level in levels:
        result = LevelResult(level)
        todo = list(range(matches))
        gate = asyncio.Semaphore(rooms)

        async def one(i: int, result: LevelResult = result,
                      gate: asyncio.Semaphore = gate) -> None:
            async with gate:
                if minutes is not None and time.monotonic() - start > minutes * 60:
                    return
                if alive is not None and not alive():
                    return
                try:
                    m = await watched_match(url, result.level)
                except (KempsError, TimeoutError, OSError, httpx.HTTPError) as err:
                    result.failed.append(f"{type(err).__name__}: {err}"[:300])
                    if progress is not None:
                        progress(None)
                    return
                result.live.append(m)
                if progress is not None:
                    progress(m)

        await asyncio.gather(*(one(i) for i in todo))
        results.append(result)
    for result in results:
        if not result.live:
            continue
        rules = result.live[0].rules  # what the rooms played
        for seed in range(len(result.live)):
            result.sim.add(play_watched(rules, seed, result.level, "relaxed", WATCHER_SEAT))
        result.sim_matches = len(result.live)
    return results


def _pct(k: int, n: int) -> str:
    if n == 0:
        return "-"
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}%)"


def report(results: list[LevelResult], command: str, load: tuple[float, float],
           wall_s: float) -> str:
    """The figures as Markdown: per level, over the WebSocket and in the simulator."""
    lines = [f"`{command}` (pagat with attention, the room's default bot speed `relaxed`, "
             f"the watcher's reaction {PERSON_REACTION_S:g} s; {wall_s / 60:.1f} min, load "
             f"average {load[0]:.1f} at the start and {load[1]:.1f} at the end, "
             f"{os.cpu_count()} cores):", "",
             "| Level | Where | Matches | First signals | Seen (95% CI) | Stop races | Won (95% CI) "
             "| Wrong | Too late | Record checks |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        for where, f, n, checks in (
                ("WebSocket", r.total, len(r.live),
                 "ok" if not any(m.problems for m in r.live)
                 else "; ".join(p for m in r.live for p in m.problems)),
                ("simulator", r.sim, r.sim_matches, "")):
            lines.append(f"| {r.level} | {where} | {n} | {f.first_signals} | "
                         f"{_pct(f.seen, f.first_signals)} | {f.races} | {_pct(f.won, f.races)} "
                         f"| {f.wrong} | {f.late} | {checks} |")
    hours = sum(m.seconds for r in results for m in r.live) / 3600
    lines += ["", f"{hours:.2f} hours of table time over the WebSocket."]
    for r in results:
        if r.failed:
            lines += ["", f"{r.level}: {len(r.failed)} matches failed: " + "; ".join(r.failed)]
    return "\n".join(lines)


def run(url: str | None, levels: list[str], matches: int, rooms: int,
        minutes: float | None = None, progress: Any = None) -> tuple[list[LevelResult], float]:
    """Start a server (``url`` None) or use ``url``, run :func:`bench`, stop what it started.
    Returns the results and the wall seconds."""
    import signal
    import threading

    server = None
    alive = None
    previous: Any = None
    if threading.current_thread() is threading.main_thread():
        # killed (SIGTERM: `timeout`, a CI's cancel), stop the server it started as on Ctrl+C:
        # its own session would outlive the bench, with its files
        def stopped(signum: int, frame: Any) -> None:
            raise SystemExit(128 + signum)

        previous = signal.signal(signal.SIGTERM, stopped)
    started = time.monotonic()
    try:
        if url is None:
            server = BenchServer()
            server.wait()
            url = server.url
            alive = server.alive
        results = asyncio.run(bench(url, levels, matches, rooms, minutes, progress, alive))
        if server is not None and not server.alive():
            results[-1].failed.append("the server stopped: " + server.log_tail())
    finally:
        if server is not None:
            server.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return results, time.monotonic() - started


__all__ = ["BENCH_IDLE_S", "BenchServer", "LevelResult", "WatchedMatch", "bench",
           "check_against_record", "report", "run", "watched_match"]
