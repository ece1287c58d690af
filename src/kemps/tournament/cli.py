"""``kemps tournament ...``: run seed 002's tournament from the command line on a JSON file."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table as RichTable

from kemps.errors import KempsError
from kemps.tournament.model import Tournament
from kemps.tournament.store import load, save

FileArg = Annotated[Path, typer.Argument(help="The tournament file (JSON).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def _fail(err: KempsError) -> typer.Exit:
    from kemps.cli import err_console

    err_console.print(f"[red]error[/red] {err.code}: {err.message}", highlight=False)
    return typer.Exit(2)


def schedule_tables(t: Tournament) -> list[RichTable]:
    """Rich tables: now at the tables, next up, and results (forfeits stated)."""
    rows = t.schedule()
    now = RichTable(title="Now at the tables")
    for col in ("Table", "Match", "Teams", "Plays to"):
        now.add_column(col)
    nxt = RichTable(title="Next up (called to the first free table, in this order)")
    for col in ("Order", "Match", "Teams", "Plays to"):
        nxt.add_column(col)
    done = RichTable(title="Results")
    for col in ("Match", "Teams", "Result"):
        done.add_column(col)
    word = t.match_rules(rows[0]["id"]).word if rows else "KEMPS"
    for r in rows:
        label = f"{r['id']}" + (" (final)" if r["stage"] == "final" else
                                f" (group {r['group']}, round {r['round']})" if r["group"]
                                else f" (round {r['round']})")
        teams = f"{r['home']} v {r['away']}"
        to = "-".join(word[:r["letters_to_lose"]])
        if r["status"] == "at_table":
            now.add_row(str(r["table"]), label, teams, to)
        elif r["status"] == "waiting":
            nxt.add_row(str(r["order"]), label, teams, to)
        else:
            done.add_row(label, teams, ("FORFEIT: " if r["status"] == "forfeit" else "")
                         + r["result"])
    return [now, nxt, done]


def standings_tables(t: Tournament) -> tuple[list[RichTable], list[str]]:
    """Rich tables per group and the lines stating the rule, every tie-break and the champion."""
    st = t.standings()
    out = []
    for g, rows in st.groups.items():
        rt = RichTable(title=f"Group {g}" if g else "Standings")
        for col in ("Rank", "Team", "Players", "Played", "Won", "Lost", "Letters", "Placed by"):
            rt.add_column(col, justify="right" if col in ("Rank", "Played", "Won", "Lost",
                                                          "Letters") else "left")
        for s in rows:
            won = f"{s.won}" + (f" ({s.forfeits_won} by forfeit)" if s.forfeits_won else "")
            lost = f"{s.lost}" + (f" ({s.forfeits_lost} by forfeit)" if s.forfeits_lost else "")
            rt.add_row(str(s.rank), s.team + (" (withdrawn)" if s.withdrawn else ""),
                       " and ".join(s.players), str(s.played), won, lost, str(s.letters),
                       s.note)
        out.append(rt)
    lines = [f"Ranking: {st.rule}"]
    lines += [f"Tie-break: {n}" for n in st.tie_breaks]
    lines += [f"Forfeit: {f}" for f in st.forfeits]
    if st.final is not None:
        f = st.final
        a, b = (t.teams[i].name for i in f.teams)
        result = t.schedule()[-1]["result"] or "to be played"
        lines.append(f"Final (full word): {a} v {b}: {result}")
    lines.append(f"Champion: {st.champion}" if st.champion else "Champion: not decided yet")
    return out, lines


def _show_schedule(t: Tournament) -> None:
    from kemps.cli import console

    for table in schedule_tables(t):
        if table.row_count:
            console.print(table)
    champion = t.standings().champion
    if champion:
        console.print(f"Champion: {champion}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``kemps tournament`` and its commands to the command line."""
    tapp = typer.Typer(no_args_is_help=True, help="Run a tournament (seed 002's format) on a "
                       "JSON file: create, schedule, record, withdraw, standings.")
    app.add_typer(tapp, name="tournament")

    @tapp.command()
    def create(file: FileArg,
               team: Annotated[list[str], typer.Option("--team", help="A team: 'Alice & Cara' or "
                                                       "'Sharks: Alice & Cara' (repeat).")],
               tables: Annotated[int | None, typer.Option(help="Tables in the room (default: "
                                                          "one per match of a round).")] = None,
               letters: Annotated[int, typer.Option(help="Letters that lose a short match "
                                                    "(3 = K-E-M); the final plays the full "
                                                    "word.")] = 3,
               fake_signals: Annotated[str, typer.Option(help="allowed or banned.")] = "allowed",
               go_start: Annotated[bool, typer.Option("--go-start/--no-go-start",
                                                      help="Nobody touches the middle until "
                                                           "the dealer says Go.")] = False,
               one_card: Annotated[bool, typer.Option("--one-card/--multi-card",
                                                      help="One card at a time.")] = False,
               seed: Annotated[int | None, typer.Option(help="Seed of any drawn lot (default: "
                                                        "chosen now and recorded).")] = None,
               name: Annotated[str | None, typer.Option(help="The event's name.")] = None,
               force: Annotated[bool, typer.Option(help="Overwrite an existing file.")] = False,
               ) -> None:
        """Register the teams, agree the three settings and draw the schedule."""
        from kemps.cli import console

        if file.exists() and not force:
            raise _fail(KempsError("file_exists", f"{file} exists; use --force to overwrite."))
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        try:
            t = Tournament(team, tables=tables, letters=letters, fake_signals=fake_signals,
                           go_start=go_start, one_card=one_card, seed=seed, name=name)
            save(t, file)
        except KempsError as err:
            raise _fail(err) from None
        groups = ("two groups: " + "; ".join(
            f"{g}: {', '.join(t.teams[i].name for i in ids)}" for g, ids in t.groups.items())
            if len(t.groups) == 2 else "one round robin")
        s = t.settings
        console.print(f"{t.name}: {len(t.teams)} teams, {groups}; {len(t.matches)} matches on "
                      f"{t.tables} table(s); short matches to {'-'.join('KEMPS'[:s.letters])}; "
                      f"fake signals {s.fake_signals}, {'Go start' if s.go_start else 'no Go'}"
                      f", {'one card at a time' if s.one_card else 'several cards a swap'}; "
                      f"lot seed {t.seed}. Written to {file}.", highlight=False)
        _show_schedule(t)

    @tapp.command()
    def schedule(file: FileArg, as_json: JsonOpt = False) -> None:
        """Show which teams play now and next, at which table, and the results so far."""
        try:
            t = load(file)
        except KempsError as err:
            raise _fail(err) from None
        if as_json:
            typer.echo(json.dumps(t.schedule(), ensure_ascii=False, indent=2))
            return
        _show_schedule(t)

    @tapp.command()
    def record(file: FileArg,
               match_id: Annotated[str, typer.Argument(help="The match, e.g. M3, A2 or F.")],
               sheet: Annotated[Path | None, typer.Option(help="The match's scoresheet "
                                                          "(docs/scoresheet.md).")] = None,
               letters: Annotated[tuple[int, int] | None, typer.Option(
                   help="Letters of the two teams, in the schedule's order.")] = None,
               loser: Annotated[str | None, typer.Option(help="Only for a match lost by ruling "
                                                         "(table talk): the team that lost.")]
               = None,
               replace: Annotated[bool, typer.Option(help="Correct a result already "
                                                     "recorded.")] = False) -> None:
        """Record a finished match from its scoresheet or the letters each team took."""
        from kemps.cli import console
        from kemps.scorekeeper.sheet import load as load_sheet

        try:
            t = load(file)
            if (sheet is None) == (letters is None):
                raise KempsError("bad_result", "Give either --sheet SHEET.json or --letters A B.")
            if sheet is not None:
                if loser is not None:
                    raise KempsError("bad_result", "A sheet records its own table-talk ruling; "
                                     "--loser goes with --letters.")
                m = t.record_match(match_id, load_sheet(sheet), replace=replace)
            else:
                m = t.record(match_id, tuple(letters or (0, 0)), loser=loser, replace=replace)
            save(t, file)
        except KempsError as err:
            raise _fail(err) from None
        console.print(f"Match {m.id}: {t.schedule()[t.matches.index(m)]['result']}.",
                      highlight=False)
        _show_schedule(t)

    @tapp.command()
    def withdraw(file: FileArg,
                 team: Annotated[str, typer.Argument(help="The team (its name or a player's).")]
                 ) -> None:
        """Withdraw a team: its unplayed matches become forfeits."""
        from kemps.cli import console

        try:
            t = load(file)
            gone = t.withdraw(team)
            save(t, file)
        except KempsError as err:
            raise _fail(err) from None
        name = t.teams[t.withdrawn[-1]].name
        console.print(f"{name} withdrew; {len(gone)} unplayed match(es) become forfeits: "
                      f"{', '.join(m.id for m in gone) or 'none'}.", highlight=False)
        _show_schedule(t)

    @tapp.command()
    def standings(file: FileArg, as_json: JsonOpt = False) -> None:
        """Show the standings, every tie-break applied, the final and the champion."""
        from kemps.cli import console

        try:
            t = load(file)
        except KempsError as err:
            raise _fail(err) from None
        if as_json:
            typer.echo(json.dumps(t.standings().to_dict(t.teams), ensure_ascii=False, indent=2))
            return
        tables, lines = standings_tables(t)
        for table in tables:
            console.print(table)
        for line in lines:
            console.print(line, highlight=False)

    @tapp.command("sheet")
    def blank_sheet(file: FileArg,
                    match_id: Annotated[str, typer.Argument(help="The match, e.g. M3.")],
                    out: Annotated[Path, typer.Option(help="Where to write the sheet.")]) -> None:
        """Write an empty scoresheet for a match: its two teams under the tournament's rules."""
        from kemps.cli import console
        from kemps.scorekeeper.sheet import save as save_sheet

        try:
            t = load(file)
            save_sheet(t.new_scoresheet(match_id), out)
        except KempsError as err:
            raise _fail(err) from None
        console.print(f"Scoresheet for match {match_id.upper()} written to {out}.")
