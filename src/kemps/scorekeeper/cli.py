"""``kemps score SHEET.json``: read a scoresheet and print the standings (or JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table as RichTable

from kemps.errors import KempsError
from kemps.scorekeeper.match import Match
from kemps.scorekeeper.sheet import load, to_csv


def standings_table(match: Match) -> RichTable:
    """The standings as a rich table: rank, pair, players, count and spelled word."""
    letters = match.rules.scoring == "letters"
    st = match.summary()
    if st["over"]:
        title = f"Match over after hand {st['ended_at']}: {' and '.join(st['winners'])} win"
    else:
        title = f"In play after {st['hands']} hand{'' if st['hands'] == 1 else 's'}"
    if letters:
        title += f" (the pair that spells {'-'.join(match.rules.word[:match.rules.losing_letters])}"
        title += " loses)"
    else:
        title += f" (first to {match.rules.target} points wins)" if match.rules.target else ""
    t = RichTable(title=title)
    t.add_column("Rank", justify="right")
    t.add_column("Pair")
    t.add_column("Players")
    t.add_column("Letters" if letters else "Points", justify="right")
    if letters:
        t.add_column("Spelled")
    for s in match.standings():
        row = [str(s.rank), s.name, " and ".join(s.players), str(s.score)]
        if letters:
            row.append(s.spelled + (" (out)" if s.out else ""))
        t.add_row(*row)
    return t


def register(app: typer.Typer) -> None:
    """Add ``kemps score`` to the command line."""

    @app.command()
    def score(sheet: Annotated[Path, typer.Argument(help="The scoresheet (JSON, see "
                                                          "docs/scoresheet.md).")],
              as_json: Annotated[bool, typer.Option("--json", help="Print the standings as "
                                                    "JSON.")] = False,
              history: Annotated[bool, typer.Option(help="Also list every hand.")] = False,
              csv_out: Annotated[Path | None, typer.Option("--csv", help="Also write the "
                                                           "history as CSV to this file.")]
              = None) -> None:
        """Read a scoresheet, score every hand by the rules and print the standings."""
        from kemps.cli import console, err_console

        try:
            match = load(sheet)
        except KempsError as err:
            err_console.print(f"[red]error[/red] {err.code}: {err.message}", highlight=False)
            raise typer.Exit(2) from None
        if csv_out is not None:
            try:
                csv_out.write_text(to_csv(match), encoding="utf-8")
            except OSError as err:
                err_console.print(f"[red]error[/red] bad_sheet: Cannot write {csv_out}: {err}.")
                raise typer.Exit(2) from None
        if as_json:
            data = match.summary()
            if history:
                data["history"] = [h.to_dict() for h in match.history]
            typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
            return
        if history:
            for h in match.history:
                console.print(h.text, highlight=False)
        console.print(standings_table(match))
