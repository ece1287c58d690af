"""``kemps serve``: run the table server (uvicorn) on its embedded defaults; ``kemps rooms``:
look at the stored rooms (operators)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

GRACEFUL_S = 3  # seconds open connections get to close at shutdown
URL_OPTION = typer.Option("--database-url", help="SQLAlchemy URL (default "
                          "sqlite+aiosqlite:///kemps.sqlite, or KEMPS_DATABASE_URL).")


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``rooms`` and ``bench-server`` to the ``kemps`` command."""
    register_bench(app)
    register_rooms(app)
    register_nodes(app)

    @app.command()
    def serve(host: Annotated[str | None, typer.Option(help="Address to listen on "
                                                       "(default 127.0.0.1, or KEMPS_HOST).")] = None,
              port: Annotated[int | None, typer.Option(help="Port (default 8000, or KEMPS_PORT).")
                              ] = None,
              database_url: Annotated[str | None, typer.Option(
                  "--database-url", help="SQLAlchemy URL (default sqlite+aiosqlite:///kemps.sqlite"
                  ", or KEMPS_DATABASE_URL), e.g. postgresql+asyncpg://user@host/db.")] = None,
              accept_database: Annotated[bool, typer.Option(
                  "--accept-database", help="Start on the SQLite database that is there even "
                  "if it is not the one this server used (an empty new one when it is gone): "
                  "a start afresh on purpose.")] = False,
              ) -> None:
        """Run the online table server: the page, the lobby API and the WebSocket tables."""
        import uvicorn

        from kemps.errors import KempsError
        from kemps.server.app import create_app
        from kemps.server.limits import frame_limit_protocol
        from kemps.server.protocol import MAX_FRAME_BYTES
        from kemps.server.rescue import check_database
        from kemps.server.settings import Settings
        from kemps.server.storage import _sqlite_file

        try:
            settings = Settings.from_env(host=host, port=port, database_url=database_url,
                                         accept_database=accept_database or None)
            # a database gone or replaced: refused here, with what to do, before anything runs
            check_database(_sqlite_file(settings.database_url), settings.accept_database)
            if _sqlite_file(settings.database_url) is None:
                probe_database(settings.database_url)
        except KempsError as err:
            typer.echo(f"kemps serve: {err.message}", err=True)
            raise typer.Exit(2) from None
        if not port_free(settings.host, settings.port):
            typer.echo(f"kemps serve: {settings.host}:{settings.port} is in use (another server?). "
                       f"Start on another port: kemps serve --port N, or KEMPS_PORT=N make run.",
                       err=True)
            raise typer.Exit(2)
        typer.echo(f"kemps server on http://{settings.host}:{settings.port}/  (database: "
                   f"{settings.database_url}; stop with Ctrl+C)")
        # No per-message compression: table updates are small, and deflating every frame costs
        # more latency (on both ends) than it saves on the wire.
        # SIGTERM/Ctrl+C: connections get GRACEFUL_S to close, then the writer STOP_WRITE_S to
        # store what is queued (bounded even when the database hangs; what it could not store
        # was never acknowledged).
        # X-Forwarded-For is believed only from the proxies the operator names (none by
        # default: uvicorn's own default trusts every loopback peer, and a local process could
        # then pass the per-address limits).
        uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                    log_level="warning", ws=frame_limit_protocol(), ws_per_message_deflate=False,
                    ws_max_size=MAX_FRAME_BYTES, timeout_graceful_shutdown=GRACEFUL_S,
                    proxy_headers=bool(settings.trusted_proxies),
                    forwarded_allow_ips=settings.trusted_proxies or "")


def port_free(host: str, port: int) -> bool:
    """Whether ``host:port`` can be listened on now (as uvicorn will: SO_REUSEADDR, so a port
    left in TIME_WAIT is free); port 0 (any) always is. Checked first so that a taken port is one
    plain sentence, not uvicorn's error after our banner."""
    import socket

    if port == 0:
        return True
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return True  # uvicorn says what is wrong with the address
    for family, kind, proto, _, address in infos[:1]:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(address)
            except OSError:
                return False
    return True


def probe_database(url: str) -> None:
    """Connect to a (PostgreSQL) database once, within its connect timeout.

    Raises:
        KempsError: ``database_unavailable`` naming the database (never its password) and the
            error, instead of a traceback at the server's start.
    """
    import asyncio

    from sqlalchemy import text
    from sqlalchemy.engine import make_url

    from kemps.errors import KempsError
    from kemps.server.outages import storage_errors
    from kemps.server.storage import Storage

    async def run() -> None:
        storage = Storage(url)
        try:
            async with storage.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        finally:
            await storage.engine.dispose()

    errors: tuple[type[BaseException], ...] = (*storage_errors(), OSError)
    try:
        asyncio.run(run())
    except errors as err:
        shown = make_url(url).render_as_string(hide_password=True)
        why = str(getattr(err, "orig", None) or err).strip().splitlines()[0][:200]
        raise KempsError("database_unavailable", f"The database {shown} does not answer "
                         f"({why}). Start it (or create it), or point KEMPS_DATABASE_URL at "
                         "the right one, then start the server again.") from None


def register_bench(app: typer.Typer) -> None:
    """Add ``bench-server``, ``bench-watcher``, ``bench-nodes``, ``bench-startup`` and ``soak``
    to the ``kemps`` command."""

    @app.command("soak")
    def soak(
            minutes: Annotated[float, typer.Option(min=0.1, help="How long to play.")] = 60.0,
            rooms: Annotated[int, typer.Option(min=0, help="Rooms of bots playing at once.")
                             ] = 12,
            players: Annotated[int, typer.Option(min=0, help="Players on WebSockets (each in "
                                                 "a room with three bots).")] = 4,
            fault_every: Annotated[float, typer.Option(
                "--fault-every", min=1.0, help="Mean seconds between faults (kill -9 and "
                "restart, storage paused, every player cut).")] = 60.0,
            sample_s: Annotated[float, typer.Option("--sample-s", min=0.5, help="Seconds "
                                                    "between samples.")] = 10.0,
            database_url: Annotated[str | None, typer.Option(
                "--database-url", help="Database of the server (default: a temporary SQLite "
                "file); PostgreSQL is reached through a proxy the soak cuts.")] = None,
            seed: Annotated[int | None, typer.Option(help="Seed of the soak's choices.")] = None,
            json_out: Annotated[str | None, typer.Option(
                "--json", help="Write every sample and total to this file.")] = None,
            out: Annotated[str | None, typer.Option(
                help="Markdown file to write the figures into (its 'soak' section), e.g. "
                "docs/benchmarks.md.")] = None,
    ) -> None:
        """Play for MINUTES against one real server with faults injected at random, and report
        memory, open files, tasks, p99 latency and acknowledged actions lost over time (exit 1
        if an acknowledged action was lost or an error went unhandled)."""
        import asyncio
        import json
        import os
        import shlex
        import sys
        from pathlib import Path

        from kemps.cli import console, write_section
        from kemps.server.soak import report_text, run_soak

        def progress(s: Any) -> None:
            console.print(f"{s.t_min:6.2f} min  life {s.life}  {s.rss_mb or 0:7.1f} MB  "
                          f"{s.files or 0:4.0f} files  {s.tasks} tasks  {s.acks:4d} acks  "
                          f"p99 {s.p99_ms or 0:7.1f} ms  load {s.load1:.1f}", highlight=False)

        load_start = os.getloadavg()[0]
        result = asyncio.run(run_soak(minutes, rooms, players, fault_every, sample_s,
                                      database_url, seed, progress=progress))
        command = "kemps soak " + " ".join(shlex.quote(a) for a in sys.argv[2:])
        text = report_text(result, command, (load_start, os.getloadavg()[0]))
        console.print(text, highlight=False)
        if json_out:
            Path(json_out).write_text(json.dumps(result.to_dict(), indent=1))
        if out:
            write_section(Path(out), "soak", text)
            console.print(f"Written to {out}.")
        if not result.ok:
            raise typer.Exit(1)

    @app.command("bench-watcher")
    def bench_watcher(
            matches: Annotated[int, typer.Option(min=1, help="Matches per level.")] = 12,
            levels: Annotated[str, typer.Option(help="Bot levels, comma separated (the page's "
                                                "\"Play against bots\" plays club).")] = "club",
            rooms: Annotated[int, typer.Option(min=1, help="Matches played at once.")] = 4,
            minutes: Annotated[float | None, typer.Option(
                min=0.1, help="Start no match after this many minutes.")] = None,
            url: Annotated[str | None, typer.Option(
                help="A running server to play at (default: start one); it must archive idle "
                "rooms within a minute or two (KEMPS_ROOM_IDLE_S) so that the record shows "
                "the pairs' signals.")] = None,
            out: Annotated[str | None, typer.Option(
                help="Markdown file to write the figures into (its 'watcher' section), e.g. "
                "docs/arena-results.md.")] = None,
    ) -> None:
        """A scripted person who watches where S0 says to look (kemps.bots.scripted), seated as
        "Play against bots" seats a person, at live tables over real WebSockets: the share of
        the bots' first signals it sees and of its Stop Kemps races it wins (issue 25), beside
        the simulator's figures for the same setting."""
        import os
        import shlex
        import sys
        from pathlib import Path

        from kemps.cli import console, write_section
        from kemps.server.watchbench import WatchedMatch, report, run

        def progress(m: WatchedMatch | None) -> None:
            if m is None:
                console.print("a match failed (see the report)", highlight=False)
                return
            f = m.figures
            console.print(f"{m.level} room {m.code}: {m.seconds:5.0f} s, first signals "
                          f"{f.seen}/{f.first_signals} seen, races {f.won}/{f.races} won"
                          + (f", {'; '.join(m.problems)}" if m.problems else ""),
                          highlight=False)

        load_start = os.getloadavg()[0]
        chosen = [x.strip() for x in levels.split(",") if x.strip()]
        results, wall_s = run(url, chosen, matches, rooms, minutes, progress)
        command = "kemps bench-watcher " + " ".join(shlex.quote(a) for a in sys.argv[2:])
        text = report(results, command, (load_start, os.getloadavg()[0]), wall_s)
        console.print(text, highlight=False)
        if out:
            write_section(Path(out), "watcher", text)
            console.print(f"Written to {out}.")
        if any(m.problems for r in results for m in r.live) or any(r.failed for r in results):
            raise typer.Exit(1)

    @app.command("bench-server")
    def bench_server(
            out: Annotated[str, typer.Option(help="Markdown file to write the figures into "
                                             "(its 'server' section).")] = "docs/benchmarks.md",
            steps: Annotated[str, typer.Option(help="Player counts to try, comma separated "
                                               "(multiples of 4).")] = "100,500,1000,2000",
            seconds: Annotated[float, typer.Option(help="Measured seconds per run.")] = 15.0,
            runs: Annotated[int, typer.Option(min=1, help="Runs per step for each server "
                                              "(medians and spread are reported).")] = 3,
            database_url: Annotated[str | None, typer.Option(
                "--database-url", help="Database of the measured server (default: a temporary "
                "SQLite file); it should hold no rooms.")] = None,
    ) -> None:
        """Load the table server over real WebSockets with human-paced players, and the echo floor
        on the same stack with the same client; report latency (send to the last seat), CPU per
        action and memory per player as ratios to the floor, then the absolute figures."""
        from pathlib import Path

        from kemps.cli import console, write_section
        from kemps.server.loadtest import report, run_server_benchmark

        counts = tuple(int(x) for x in steps.split(",") if x.strip())
        results = run_server_benchmark(counts, seconds, runs, database_url=database_url)
        text = report(results, "SQLite" if database_url is None
                      else database_url.split("+", 1)[0].split(":", 1)[0])
        write_section(Path(out), "server", text)
        console.print(text, highlight=False)
        console.print(f"Written to {out}.")

    @app.command("bench-camera")
    def bench_camera(
            players: Annotated[str, typer.Option(help="Table sizes to measure, comma separated "
                                                 "(even, 4 to 8: the mesh).")] = "4,8",
            seconds: Annotated[float, typer.Option(help="Measured seconds per table.")] = 10.0,
            runs: Annotated[int, typer.Option(min=1, help="Tables of each size.")] = 3,
            video: Annotated[str, typer.Option(help="pattern (Chromium's fake camera) or noise "
                                               "(random frames: every stream at its cap).")
                             ] = "noise",
            out: Annotated[str, typer.Option(help="Markdown file to write the figures into "
                                             "(its 'camera-<video>' section).")
                           ] = "docs/camera.md",
    ) -> None:
        """A camera table's upstream per person in a mesh, in real Chromium with a fake camera
        (needs Playwright and Chromium; docs/camera.md)."""
        import os
        from pathlib import Path

        from kemps.cli import console, write_section
        from kemps.server.camerabench import report, run_camera_benchmark

        if video not in ("pattern", "noise"):
            typer.echo("kemps bench-camera: --video is pattern or noise.", err=True)
            raise typer.Exit(2)
        sizes = tuple(int(x) for x in players.split(",") if x.strip())
        if any(n < 4 or n % 2 or n > 8 for n in sizes):
            typer.echo("kemps bench-camera: table sizes are even, 4 to 8.", err=True)
            raise typer.Exit(2)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        results = run_camera_benchmark(sizes, seconds, runs, video)  # type: ignore[arg-type]
        text = report(results, video, load)  # type: ignore[arg-type]
        write_section(Path(out), f"camera-{video}", text)
        console.print(text, highlight=False)
        console.print(f"Written to {out}.")

    @app.command("bench-nodes")
    def bench_nodes(
            database_url: Annotated[str, typer.Option(
                "--database-url", help="PostgreSQL the nodes share, e.g. postgresql+asyncpg://"
                "user@127.0.0.1/bench. EMPTIED before every run: never a database you keep.")],
            redis_url: Annotated[str, typer.Option(
                "--redis-url", help="Redis the nodes share (its kemps:* keys are deleted before "
                "every run), e.g. redis://127.0.0.1:6379/14.")],
            nodes: Annotated[str, typer.Option(help="Counts of nodes to compare, comma "
                                               "separated.")] = "1,2,3",
            steps: Annotated[str, typer.Option(help="Player counts to try, comma separated "
                                               "(multiples of 4).")] = "1000",
            seconds: Annotated[float, typer.Option(help="Measured seconds per run.")] = 10.0,
            runs: Annotated[int, typer.Option(min=1, help="Runs for each count of nodes.")] = 3,
            through: Annotated[bool, typer.Option(
                "--through/--direct", help="Players connect to the nodes in turn (most through "
                "a non-owner, forwarded) instead of to their room's node.")] = False,
            out: Annotated[str, typer.Option(help="Markdown file to write the figures into "
                                             "(its 'nodes' section).")] = "docs/scale.md",
    ) -> None:
        """The server's load on 1, 2 and 3 nodes sharing PostgreSQL and Redis (docs/scale.md):
        p99 latency and CPU per action against one node, in the same rounds."""
        from pathlib import Path

        from kemps.cli import console, write_section
        from kemps.server.nodebench import report, run_nodes_benchmark

        if not database_url.startswith("postgresql"):
            typer.echo("kemps bench-nodes: many nodes share a PostgreSQL database "
                       "(--database-url postgresql+asyncpg://...).", err=True)
            raise typer.Exit(2)
        results = run_nodes_benchmark(
            tuple(int(x) for x in nodes.split(",") if x.strip()),
            tuple(int(x) for x in steps.split(",") if x.strip()), seconds, runs, database_url,
            redis_url, through)
        text = report(results, through)
        write_section(Path(out), "nodes" + ("-through" if through else ""), text)
        console.print(text, highlight=False)
        console.print(f"Written to {out}.")

    @app.command("bench-startup")
    def bench_startup(
            out: Annotated[str, typer.Option(help="Markdown file to write the figures into "
                                             "(its 'startup' section).")] = "docs/benchmarks.md",
            live: Annotated[int, typer.Option(help="Live rooms stored (the cap).")] = 2000,
            playing: Annotated[int, typer.Option(help="Of them, rooms mid-match.")] = 200,
            archived: Annotated[int, typer.Option(help="Archived rooms stored.")] = 20_000,
            repeats: Annotated[int, typer.Option(help="Starts timed per case.")] = 3,
            before: Annotated[bool, typer.Option(help="Also time the start as before the limits "
                                                 "(every room restored; slow).")] = True,
    ) -> None:
        """Time the server's start on a database of live and archived rooms, and on the same rows
        restored as before the limits (every room)."""
        from pathlib import Path

        from kemps.cli import console, write_section
        from kemps.server.startup_bench import report, run_startup_benchmark

        cases = run_startup_benchmark(live, playing, archived, repeats, before)
        text = report(cases, live, playing, archived)
        write_section(Path(out), "startup", text)
        console.print(text, highlight=False)
        console.print(f"Written to {out}.")


def diagnose(row: dict[str, Any], entries: list[Any]) -> dict[str, Any]:
    """What an operator needs about one stored room: its lobby (no token hashes), how many record
    steps its current match has, and whether they replay (``restores``, the table's ``version``
    and ``phase``) or why not (``error``)."""
    from kemps.server.room import Room
    from kemps.server.settings import Settings
    from kemps.server.storage import Storage, Writer

    out: dict[str, Any] = {
        "code": row["code"], "status": row["status"], "match_no": row["match_no"],
        "host_seat": row["host_seat"], "last_match_id": row.get("last_match_id"),
        "table_time": row.get("table_time"), "deal_at": row.get("deal_at"),
        "seats": [{k: v for k, v in s.items() if k != "token_hash"} for s in row["seats"]],
        "entries": len(entries), "restores": True, "error": None}
    try:
        room = Room.restore(row, entries, Settings(), Writer(Storage("sqlite+aiosqlite://")))
    except Exception as err:  # noqa: BLE001  (reported to the operator)
        out["restores"] = False
        out["error"] = getattr(err, "message", None) or f"{type(err).__name__}: {err}"
        return out
    if room.recorder is not None:
        out["version"] = room.recorder.table.version
        out["phase"] = room.recorder.table.phase
    return out


def register_rooms(app: typer.Typer) -> None:
    """Add ``rooms list`` and ``rooms inspect CODE``."""
    rooms = typer.Typer(help="Look at the server's stored rooms: which restore, which are "
                        "broken and why (reads the database only).", no_args_is_help=True)
    app.add_typer(rooms, name="rooms")

    def load(database_url: str | None, code: str | None) -> list[dict[str, Any]]:
        import asyncio

        from kemps.server.settings import Settings
        from kemps.server.storage import Storage

        url = Settings.from_env(database_url=database_url).database_url

        async def run() -> list[dict[str, Any]]:
            storage = Storage(url)
            try:
                await storage.start()
                codes = [code.strip().upper()] if code else \
                    [r["code"] for r in await storage.rooms()]
                out = []
                for c in codes:
                    found = await storage.room_record(c)
                    if found is not None:
                        out.append(diagnose(*found))
                return out
            finally:
                await storage.close()

        return asyncio.run(run())

    @rooms.command("list")
    def list_rooms(database_url: Annotated[str | None, URL_OPTION] = None,
                   as_json: Annotated[bool, typer.Option("--json", help="JSON lines.")] = False,
                   ) -> None:
        """Every stored room: code, status, match, record steps, and whether it restores."""
        import json

        for d in load(database_url, None):
            if as_json:
                typer.echo(json.dumps(d))
                continue
            state = "restores" if d["restores"] else f"BROKEN: {d['error']}"
            typer.echo(f"{d['code']}  {d['status']:<8}  match {d['match_no']}  "
                       f"{d['entries']} steps  {state}")

    @rooms.command("load")
    def load_rescue(dump: Annotated[str, typer.Argument(help="A rescue dump "
                                                        "(kemps-rescue-*.json).")],
                    database_url: Annotated[str | None, URL_OPTION] = None) -> None:
        """Put the rooms of a rescue dump (what a server held when its database was gone) into a
        database: a new one, or the old one put back. A room the database holds as far or
        further is left as it is. A new SQLite database gets the dump's id, so the server takes
        it as its own again."""
        import asyncio
        import json
        from pathlib import Path

        from kemps.errors import KempsError
        from kemps.server.rescue import load_dump, stamp
        from kemps.server.settings import Settings
        from kemps.server.storage import Storage, _sqlite_file

        url = Settings.from_env(database_url=database_url).database_url
        try:
            data = json.loads(Path(dump).read_text())
        except (OSError, ValueError) as err:
            typer.echo(f"kemps rooms load: cannot read {dump}: {err}", err=True)
            raise typer.Exit(2) from None
        file = _sqlite_file(url)
        new_file = file is not None and not Path(file).exists()

        async def run() -> list[dict[str, Any]]:
            storage = Storage(url)
            try:
                await storage.start()
                return await load_dump(storage, data)
            finally:
                await storage.close()

        try:
            report = asyncio.run(run())
        except KempsError as err:
            typer.echo(f"kemps rooms load: {err.message}", err=True)
            raise typer.Exit(2) from None
        wanted = (data.get("database") or {}).get("id")
        if file is not None and new_file and isinstance(wanted, int) and wanted:
            stamp(file, wanted)
        for r in report:
            said = "loaded" if r["loaded"] else f"left as it is: {r['why']}"
            typer.echo(f"{r['code']}  match {r['match_no']}  {r['steps']} steps  {said}")
        typer.echo(f"{sum(r['loaded'] for r in report)} of {len(report)} rooms loaded into {url}.")

    @rooms.command("inspect")
    def inspect(code: str, database_url: Annotated[str | None, URL_OPTION] = None) -> None:
        """One room in full (JSON): lobby, clock, next deal, record steps, replay result or the
        error that keeps it from restoring. Exit code 1 when there is no such room."""
        import json

        found = load(database_url, code)
        if not found:
            typer.echo(f"There is no room {code!r} in that database.", err=True)
            raise typer.Exit(1)
        typer.echo(json.dumps(found[0], indent=2))


def register_nodes(app: typer.Typer) -> None:
    """Add ``nodes``: the many-node cluster as Redis sees it."""

    @app.command("nodes")
    def nodes_command(
            redis_url: Annotated[str | None, typer.Option(
                "--redis-url", help="Redis of the cluster (default KEMPS_REDIS_URL).")] = None,
            drain: Annotated[str | None, typer.Option(
                help="Drain this node: no new rooms; its rooms move once their hands end.")
            ] = None,
            undrain: Annotated[str | None, typer.Option(
                help="Let a drained node take rooms again.")] = None,
            rooms: Annotated[bool, typer.Option(
                "--rooms", help="Also list the codes of the rooms each node holds.")] = False,
            as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """List the server nodes that are up, with their rooms, players and whether they drain
        (docs/scale.md); or drain / undrain one."""
        import asyncio
        import json
        import os
        import time

        from kemps.cli import console
        from kemps.server.nodes import Nodes

        url = redis_url or os.environ.get("KEMPS_REDIS_URL")
        if not url:
            typer.echo("kemps nodes: give --redis-url or set KEMPS_REDIS_URL (a single node has "
                       "no cluster to list).", err=True)
            raise typer.Exit(2)

        async def run() -> tuple[list[Any], dict[str, list[str]]]:
            nodes = Nodes(url, "kemps-nodes-cli", "")
            try:
                if drain:
                    await nodes.set_draining(drain, True)
                if undrain:
                    await nodes.set_draining(undrain, False)
                return await nodes.nodes(), (await nodes.owned() if rooms else {})
            finally:
                await nodes.close()

        try:
            found, held = asyncio.run(run())
        except Exception as err:  # noqa: BLE001 - one plain sentence for any Redis failure
            typer.echo(f"kemps nodes: cannot reach Redis at {url}: {err}", err=True)
            raise typer.Exit(1) from None
        if as_json:
            typer.echo(json.dumps([n.__dict__ | ({"held": held.get(n.id, [])} if rooms else {})
                                   for n in found], indent=2))
            return
        if not found:
            console.print("No node is up.")
        for n in found:
            console.print(f"{n.id}  {n.url}  rooms {n.rooms}  players {n.players}  "
                          f"{'draining  ' if n.draining else ''}seen {time.time() - n.seen:.1f} s "
                          "ago", highlight=False)
            if rooms:
                console.print("    " + (" ".join(held.get(n.id, [])) or "(no rooms)"),
                              highlight=False)
        if found:
            console.print(f"{len(found)} node(s), {sum(n.rooms for n in found)} rooms, "
                          f"{sum(n.players for n in found)} players", highlight=False)
