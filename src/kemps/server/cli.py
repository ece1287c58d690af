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
              ) -> None:
        """Run the online table server: the page, the lobby API and the WebSocket tables."""
        import uvicorn

        from kemps.errors import KempsError
        from kemps.server.app import create_app
        from kemps.server.protocol import MAX_FRAME_BYTES
        from kemps.server.settings import Settings

        try:
            settings = Settings.from_env(host=host, port=port, database_url=database_url)
        except KempsError as err:
            typer.echo(f"kemps serve: {err.message}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"kemps server on http://{settings.host}:{settings.port}/  (database: "
                   f"{settings.database_url}; stop with Ctrl+C)")
        # No per-message compression: table updates are small, and deflating every frame costs
        # more latency (on both ends) than it saves on the wire.
        # SIGTERM/Ctrl+C: connections get GRACEFUL_S to close, then the writer STOP_WRITE_S to
        # store what is queued (bounded even when the database hangs; what it could not store
        # was never acknowledged).
        uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                    log_level="warning", ws="websockets-sansio", ws_per_message_deflate=False,
                    ws_max_size=MAX_FRAME_BYTES, timeout_graceful_shutdown=GRACEFUL_S)


def register_bench(app: typer.Typer) -> None:
    """Add ``bench-server`` to the ``kemps`` command."""

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
