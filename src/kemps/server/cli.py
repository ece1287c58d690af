"""``kemps serve``: run the table server (uvicorn) on its embedded defaults."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``bench-server`` to the ``kemps`` command."""
    register_bench(app)

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
        uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                    log_level="warning", ws="websockets-sansio", ws_per_message_deflate=False)


def register_bench(app: typer.Typer) -> None:
    """Add ``bench-server`` to the ``kemps`` command."""

    @app.command("bench-server")
    def bench_server(
            out: Annotated[str, typer.Option(help="Markdown file to write the figures into "
                                             "(its 'server' section).")] = "docs/benchmarks.md",
            steps: Annotated[str, typer.Option(help="Player counts to try, comma separated "
                                               "(multiples of 4).")] = "100,250,500,1000,1500,2000",
            seconds: Annotated[float, typer.Option(help="Measured seconds per step.")] = 20.0,
    ) -> None:
        """Load the table server over real WebSockets with human-paced players and measure update
        latency (p50, p99) per player count; stops at the first count that misses p99 <= 20 ms."""
        from pathlib import Path

        from kemps.cli import console, write_section
        from kemps.server.loadtest import report, run_server_benchmark

        counts = tuple(int(x) for x in steps.split(",") if x.strip())
        results = run_server_benchmark(counts, seconds)
        text = report(results)
        write_section(Path(out), "server", text)
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
