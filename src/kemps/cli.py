"""The ``kemps`` command line (typer + rich). ``kemps --help`` lists the commands."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table as RichTable

from kemps import __version__
from kemps.errors import KempsError
from kemps.narrate import describe
from kemps.record import MatchRecord, match_summary, replay
from kemps.rules import PRESETS, RuleSet, find_preset, preset_names

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Kemps: the real-time partnership card game. Rules engine, simulator and "
                       "tools.")
def _console(stderr: bool = False) -> Console:
    probe = Console(stderr=stderr)
    # Piped output is not cut to 80 columns: tables get room and log lines are never folded.
    width = None if probe.is_terminal else 160
    return Console(stderr=stderr, soft_wrap=True, width=width)


console = _console()
err_console = _console(stderr=True)

RulesOpt = Annotated[str, typer.Option("--rules", "-r", help="Preset name or alias "
                                       "(see 'kemps presets').")]
PairsOpt = Annotated[int | None, typer.Option("--pairs", "-p", help="Pairs at the table, 2-12 "
                                              "(default: the preset's).")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", help="Change a rule option: --set option=value (repeatable), e.g. --set "
                  "double_calls=true.")]


def _fail(err: KempsError) -> typer.Exit:
    err_console.print(f"[red]error[/red] {err.code}: {err.message}")
    return typer.Exit(2)


def _parse_value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def build_rules(preset: str, pairs: int | None, sets: list[str] | None) -> RuleSet:
    """The preset with ``pairs`` and ``--set option=value`` changes applied.

    Raises:
        RuleError: for an unknown preset, option or bad value.
    """
    from kemps.errors import RuleError

    rules = find_preset(preset)
    changes: dict[str, Any] = {}
    for item in sets or []:
        if "=" not in item:
            raise RuleError("bad_option", f"Write --set option=value, not {item!r}.")
        key, value = item.split("=", 1)
        changes[key.strip()] = _parse_value(value)
    if pairs is not None:
        changes["pairs"] = pairs
    changes.pop("name", None)  # the name follows from the preset and the changes
    if changes:
        rules = rules.replace(name=rules.name if set(changes) == {"pairs"} else "custom",
                              **changes)
    return rules


@app.callback(invoke_without_command=True)
def _root(version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False
          ) -> None:
    if version:
        console.print(f"kemps {__version__}")
        raise typer.Exit()


@app.command()
def run(rules: RulesOpt = "pagat", pairs: PairsOpt = None,
        seed: Annotated[int | None, typer.Option(help="Seed (default: a random one, printed).")
                        ] = None,
        set_: SetOpt = None,
        reveal: Annotated[bool, typer.Option(
            help="Tell everything (dealt hands, signal agreements), as the simulator knows it; "
                 "--no-reveal tells only what a spectator may see.")] = True,
        out: Annotated[Path | None, typer.Option(help="Write the match record here.")] = None
        ) -> None:
    """Play one whole simulated match between simple bots and print it as a readable log."""
    from kemps.narrate import pair_name
    from kemps.sim import default_names, simulate_match
    from kemps.table import Table

    try:
        rule_set = build_rules(rules, pairs, set_)
    except KempsError as err:
        raise _fail(err) from None
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    names = default_names(rule_set.players)
    narrator = Table(rule_set, names)  # names and rules for the narration; never played on
    if rule_set.scoring == "letters":
        goal = f"the pair that spells {'-'.join(rule_set.word[:rule_set.losing_letters])} loses"
    else:
        goal = f"the first pair to {rule_set.target} points wins"
    again = ["kemps", "run", "--rules", rules, "--pairs", str(rule_set.pairs), "--seed", str(seed)]
    again += [f"--set {item}" for item in set_ or []]
    console.print(f"[bold]kemps[/bold] {__version__}: a simulated match, rules "
                  f"[cyan]{rule_set.name}[/cyan], {rule_set.pairs} pairs, seed {seed}. The same "
                  f"match again: {' '.join(again)}", highlight=False)
    console.print("Pairs, partners opposite: " + "  vs  ".join(
        pair_name(narrator, p) for p in range(rule_set.pairs)) + ".", highlight=False)
    console.print(f"Calls \u201c{rule_set.call_word}\u201d and \u201c{rule_set.stop_word}"
                  f"\u201d; {goal}.", highlight=False)

    def show(events: list[Any]) -> None:
        for e in events:
            line = describe(narrator, e, omniscient=reveal)
            if line:
                style = "bold" if type(e).__name__ in ("HandDealt", "MatchEnded") else None
                console.print(f"{e.t:8.1f}s  {line}", style=style, highlight=False)

    if out is not None:
        _check_writable(out)
    result = simulate_match(rule_set, seed, names, on_events=show)
    _print_standings(match_summary(result.table, result.events))
    if not result.finished:
        console.print("[yellow]The match did not finish within the simulated time limit.[/yellow]")
    if out is not None:
        try:
            result.record.save(out)
        except KempsError as err:
            raise _fail(err) from None
        console.print(f"Record written to {out}.")


def _check_writable(path: Path) -> None:
    """Refuse a path we could not write a record to, before spending time on a match."""
    from kemps.errors import RecordError

    if path.is_dir() or not path.parent.is_dir():
        raise _fail(RecordError("bad_record", f"Cannot write a record to {path}: "
                                + ("it is a folder." if path.is_dir() else "no such folder.")))


def _print_standings(summary: dict[str, Any]) -> None:
    t = RichTable(title="Standings")
    t.add_column("Rank")
    t.add_column("Pair")
    t.add_column("Letters" if summary["scoring"] == "letters" else "Points", justify="right")
    t.add_column("Spelled")
    for p in sorted(summary["pairs"], key=lambda x: (x["rank"] or 99, x["pair"])):
        t.add_row(str(p["rank"] or "-"), " and ".join(p["players"]), str(p["score"]),
                  p["spelled"] if summary["scoring"] == "letters" else "")
    console.print(t)


@app.command()
def simulate(rules: RulesOpt = "pagat", pairs: PairsOpt = None,
             matches: Annotated[int, typer.Option("--matches", "-m", min=1,
                                                  help="Matches to play.")] = 10,
             seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the first match; "
                                               "match i uses seed + i.")] = 1,
             set_: SetOpt = None,
             records: Annotated[Path | None, typer.Option(
                 "--records", help="Write each match's record into this folder.")] = None,
             as_json: Annotated[bool, typer.Option("--json", help="Print results as JSON.")
                                ] = False,
             bots: Annotated[str, typer.Option(
                 "--bots", help="Bot level in every seat (simple, casual, club, sharp).")
                             ] = "simple",
             ) -> None:
    """Play whole matches between bots (simple ones unless --bots says otherwise) on a simulated
    clock and sum up the results."""
    from kemps.bots import bot_factory
    from kemps.sim import simulate_match

    try:
        rule_set = build_rules(rules, pairs, set_)
        factory = bot_factory(bots)
    except KempsError as err:
        raise _fail(err) from None
    if records is not None:
        try:
            records.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            from kemps.errors import RecordError

            raise _fail(RecordError("bad_record", f"Cannot use {records} as the records "
                                    f"folder: {err.strerror}.")) from None
    wins = [0.0] * rule_set.pairs
    hands = finished = total_actions = 0
    sim_time = 0.0
    results: list[dict[str, Any]] = []
    with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=err_console,
                  disable=as_json or not err_console.is_terminal) as progress:
        task = progress.add_task("Simulating", total=matches)
        for i in range(matches):
            result = simulate_match(rule_set, seed + i, bots=factory, keep_events=as_json)
            t = result.table
            hands += t.hand_no
            total_actions += result.actions
            sim_time += result.time_s
            if result.finished and t.ranks is not None:
                finished += 1
                winners = [p for p in range(t.pairs) if t.ranks[p] == 1]
                for p in winners:
                    wins[p] += 1 / len(winners)
            if records is not None:
                try:
                    result.record.save(records / f"match-{seed + i}.json")
                except KempsError as err:
                    raise _fail(err) from None
            if as_json:
                summary = match_summary(t, result.events)
                summary["seed"] = seed + i
                results.append(summary)
            progress.advance(task)
    if as_json:
        sys.stdout.write(json.dumps({"rules": rule_set.to_dict(), "matches": results}) + "\n")
        return
    console.print(f"{matches} matches of [cyan]{rule_set.name}[/cyan] with {rule_set.pairs} pairs:"
                  f" {finished} finished, {hands} hands ({hands / matches:.1f} a match), "
                  f"{total_actions} actions, {sim_time / matches / 60:.1f} simulated minutes a "
                  "match.")
    t2 = RichTable(title="Match wins by pair (shared on ties)")
    t2.add_column("Pair")
    t2.add_column("Wins", justify="right")
    for p in range(rule_set.pairs):
        t2.add_row(f"Pair {p} (seats {p} and {p + rule_set.pairs})", f"{wins[p]:g}")
    console.print(t2)
    if records is not None:
        console.print(f"Records written to {records}/.")


@app.command("replay")
def replay_cmd(file: Annotated[Path, typer.Argument(help="A match record (JSON).")],
               as_json: Annotated[bool, typer.Option("--json", help="Print per-hand results and "
                                                     "the final standing as JSON.")] = False,
               log: Annotated[bool, typer.Option(help="Print the whole match as a log.")] = False,
               reveal: Annotated[bool, typer.Option(
                   help="With --log, also tell the dealt hands and signal agreements (the record "
                        "holds them); by default the log tells what a spectator saw.")] = False,
               stats: Annotated[bool, typer.Option(
                   help="The tell of every call and each pair's signal figures (with --json: "
                        "as JSON).")] = False,
               ) -> None:
    """Replay a match record exactly and print the outcome. FILE may also be a finished match as
    the server's /api/history/ID gives it."""
    try:
        record = MatchRecord.load(file)
        result = replay(record)
    except KempsError as err:
        raise _fail(err) from None
    if stats:
        from kemps.tell import analyse, stats_lines

        analysis = analyse(record)
        if as_json:
            sys.stdout.write(json.dumps(analysis, indent=2) + "\n")
        else:
            for text in stats_lines(analysis):
                console.print(text, highlight=False)
            summary = match_summary(result.table, result.events)
            _print_standings(summary)
            console.print("Match over." if summary["over"] else "The match is not over.")
        return
    summary = match_summary(result.table, result.events)
    if as_json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
        return
    if log:
        for e in result.events:
            line = describe(result.table, e, omniscient=reveal)
            if line:
                console.print(f"{e.t:8.1f}s  {line}", highlight=False)
    for h in summary["hands"]:
        calls = "; ".join(f"{c['by']} {c['kind']}" + (f" on {c['on']}" if c["on"] else "")
                          + (" right" if c["right"] else " wrong") for c in h["calls"])
        console.print(f"Hand {h['hand']}: {h['ended'] or 'unfinished'}"
                      + (f" ({calls})" if calls else ""), highlight=False)
    _print_standings(summary)
    console.print("Match over." if summary["over"] else "The match is not over.")


@app.command()
def agent(
        url: Annotated[str, typer.Argument(help="The room page's address "
                                           "(http://host:8000/room/CODE), or the server's with "
                                           "--code.")],
        policy: Annotated[str, typer.Option(help="The policy as module:function, called as "
                                            "policy(observation, mask) -> action index.")
                          ] = "kemps.env.policies:random_legal",
        code: Annotated[str | None, typer.Option(help="The room's code (with a server's "
                                                 "address).")] = None,
        name: Annotated[str, typer.Option(help="The seat's name at the table.")] = "Agent",
        seat: Annotated[int | None, typer.Option(min=0, help="The seat to take (default: the "
                                                 "first open one).")] = None,
        token: Annotated[str | None, typer.Option(help="Play a seat already held (its token, "
                                                  "e.g. the host's) instead of taking one.")
                         ] = None,
        reaction: Annotated[float, typer.Option(help="Seconds from what the seat sees to its "
                                                "action, 0.2 to 5.")] = 0.7,
        seed: Annotated[int | None, typer.Option(help="Seed the policy (if it has seed(n)).")
                        ] = None,
        minutes: Annotated[float | None, typer.Option(min=0.1, help="Give up after this many "
                                                      "minutes.")] = None,
) -> None:
    """Play a seat of a live room with a policy, on the research environment's observation and
    action encoding (kemps.env), paced like a person; exits 0 once the match is over
    (docs/research.md, "Agents at live tables"; needs the research extra)."""
    try:
        from kemps.env.live import run_agent
    except ModuleNotFoundError as err:
        err_console.print(f"[red]error[/red] {err}")
        raise typer.Exit(2) from None
    try:
        played, played_rules = run_agent(
            url, policy, code=code, name=name, seat=seat, token=token, reaction_s=reaction,
            seed=seed, timeout_s=None if minutes is None else minutes * 60)
    except KempsError as err:
        raise _fail(err) from None
    except TimeoutError as err:
        err_console.print(f"[red]error[/red] timeout: {err}")
        raise typer.Exit(1) from None
    except OSError as err:
        err_console.print(f"[red]error[/red] connection: {err}")
        raise typer.Exit(1) from None
    for line in played.summary.lines(played_rules):
        console.print(line, highlight=False)
    if played.summary.ranks is None:
        raise typer.Exit(1)


@app.command()
def presets() -> None:
    """List the rule presets, their aliases and what each changes from the defaults."""
    base = RuleSet()
    t = RichTable(title="Presets")
    t.add_column("Preset")
    t.add_column("Aliases")
    t.add_column("Differences from the defaults")
    for name, aliases in preset_names().items():
        diff = PRESETS[name].differences(base)
        t.add_row(name, ", ".join(aliases),
                  ", ".join(f"{k}={v}" for k, v in diff.items()) or "(the defaults)")
    console.print(t)


@app.command()
def rules(preset: Annotated[str, typer.Argument(help="Preset name or alias.")] = "pagat") -> None:
    """Show every option of one preset."""
    try:
        r = find_preset(preset)
    except KempsError as err:
        raise _fail(err) from None
    from kemps.rules import OPTION_DOCS, PRESET_NOTES

    t = RichTable(title=f"Rules of {r.name}", caption=PRESET_NOTES.get(r.name))
    t.add_column("Option")
    t.add_column("Value")
    t.add_column("What it means (seed)")
    for k, v in r.to_dict().items():
        doc = OPTION_DOCS.get(k)
        t.add_row(k, str(v), f"{doc[1]} ({doc[2]})" if doc else "")
    console.print(t)


@app.command()
def bench(out: Annotated[Path, typer.Option(help="Where to write the figures.")] = Path(
        "docs/benchmarks.md"),
          quick: Annotated[bool, typer.Option(help="A short run (for checking it works).")
                           ] = False) -> None:
    """Measure the engine (actions/s, hands/s, memory of a table) and write the figures."""
    from kemps.bench import run_benchmarks

    text = run_benchmarks(quick=quick)
    write_section(out, "engine", text)
    console.print(text, highlight=False)
    console.print(f"Written to {out}.")


def write_section(path: Path, name: str, text: str) -> None:
    """Put ``text`` between ``<!-- name -->`` and ``<!-- /name -->`` in ``path`` (creating the file
    or the section), leaving the other sections (engine, server, bots) as they are."""
    import re

    begin, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    block = f"{begin}\n{text.rstrip()}\n{end}\n"
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end) + "\n?", re.S)
    if pattern.search(old):
        new = pattern.sub(lambda _: block, old)
    elif begin not in old and old.strip() and "<!-- " not in old:
        new = block  # an old file written before sections existed: replace it
    else:
        new = (old.rstrip() + "\n\n" if old.strip() else "") + block
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")


# Commands that live in their own modules register themselves here: each module named below, if it
# exists, has ``register(app: typer.Typer) -> None``.
COMMAND_MODULES = ("kemps.arena", "kemps.scorekeeper.cli", "kemps.tournament.cli",
                   "kemps.server.cli")


def _register_command_modules() -> None:
    import importlib

    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name is not None and name.startswith(err.name):
                continue  # that part of kemps is not built yet
            raise
        module.register(app)


_register_command_modules()


def main() -> None:
    """Console-script entry point."""
    app()
