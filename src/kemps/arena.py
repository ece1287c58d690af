"""``kemps arena``: headless matches between bot levels, with win rates and 95% confidence intervals.

For every pairing of two levels (each level against each other level given), ``matches`` whole
matches are simulated on the simulated clock (:func:`kemps.sim.simulate_match`). Seats are balanced:
in match ``k`` of a pairing, pair ``p`` plays the first level when ``(p + k)`` is even and the
second otherwise, so with two pairs each level sits in each pair's seats in half the matches.

Seed rule: match ``k`` (0-based) of the pairing of levels ``a`` and ``b`` is played with seed
``seed * 1_000_003 + 1_000 * i + k`` where ``i`` is the pairing's index in the listed order (pairings
``(levels[0], levels[1]), (levels[0], levels[2]), ...``), so any single match can be replayed with
``kemps run``-style tools and the whole table is the same for the same arguments, whatever ``jobs``.

A match is a win for a level when every pair ranked first plays that level, a draw when pairs of
both levels share first place or the match did not finish in ``max_time_s`` simulated seconds.
A win rate counts a draw as half a win; its 95% confidence interval is Wilson's score interval.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Final

import typer

from kemps.bots.levels import bot_factory, find_level
from kemps.errors import KempsError
from kemps.rules import RuleSet

Z95: Final = 1.959963984540054
MAX_TIME_S: Final = 4 * 3600.0


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for ``wins`` successes (draws may count 0.5) in ``n``
    trials; ``(0.0, 1.0)`` when ``n`` is 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Pairing:
    """The results of ``first`` against ``second``: counts of matches, and rates for ``first``."""

    first: str
    second: str
    matches: int = 0
    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0
    unfinished: int = 0
    seeds: list[int] = field(default_factory=list, repr=False)

    @property
    def rate(self) -> float:
        """``first``'s win rate, a draw counting half (0 when no match was played)."""
        return (self.first_wins + 0.5 * self.draws) / self.matches if self.matches else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        """95% Wilson interval of :attr:`rate`."""
        return wilson(self.first_wins + 0.5 * self.draws, self.matches)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, with the rate and interval of ``first``."""
        out = asdict(self)
        del out["seeds"]
        low, high = self.ci
        out.update(rate=round(self.rate, 4), ci_low=round(low, 4), ci_high=round(high, 4))
        return out


def pairings(levels: Sequence[str]) -> list[tuple[str, str]]:
    """Every pairing of two different levels, in listed order; the later-listed level (the
    stronger, when listed weakest first) comes first so that its win rate is shown."""
    out = []
    for i, a in enumerate(levels):
        for b in levels[i + 1:]:
            out.append((b, a))
    return out


def match_seed(seed: int, pairing_index: int, k: int) -> int:
    """The seed of match ``k`` of pairing ``pairing_index`` (see the module's seed rule)."""
    return seed * 1_000_003 + 1_000 * pairing_index + k


def play_match(args: tuple[RuleSet, str, str, int, int]) -> tuple[int, int]:
    """Play match ``k`` of ``first`` against ``second``: ``args`` is ``(rules, first, second, k,
    seed)`` (one tuple, for a process pool). Returns ``(outcome, unfinished)``: outcome 1 when
    ``first`` won, -1 when ``second`` did, 0 for a draw; unfinished 1 when time ran out.

    Raises:
        KempsError: ``unknown_level`` for a level that does not exist.
    """
    from kemps.sim import simulate_match

    rules, first, second, k, seed = args
    pairs = rules.pairs
    level_of = [first if (p + k) % 2 == 0 else second for p in range(pairs)]
    factories = [bot_factory(level_of[s % pairs]) for s in range(rules.players)]
    result = simulate_match(rules, seed, bots=factories, keep_events=False,
                            max_time_s=MAX_TIME_S)
    ranks = result.table.ranks
    if not result.finished or ranks is None:
        return 0, 1
    winners = {level_of[p] for p in range(pairs) if ranks[p] == 1}
    if winners == {first}:
        return 1, 0
    if winners == {second}:
        return -1, 0
    return 0, 0


def run_arena(rules: RuleSet, levels: Sequence[str], matches: int, seed: int, jobs: int = 1,
              on_match: Callable[[], None] | None = None) -> list[Pairing]:
    """Play ``matches`` matches for every pairing of ``levels`` at a ``rules`` table.

    Args:
        rules: the table (its ``pairs`` seats the matches).
        levels: level names (see :data:`kemps.bots.levels.LEVEL_NAMES`), weakest first.
        matches: matches per pairing (at least 1).
        seed: the arena seed (see the module's seed rule).
        jobs: worker processes (1 = in this process); the results do not depend on it.
        on_match: called once after each match (for a progress bar).

    Returns:
        One :class:`Pairing` per pairing, in :func:`pairings` order.

    Raises:
        KempsError: ``unknown_level`` for a level that does not exist; ``bad_arena`` for fewer than
            two levels or fewer than one match.
    """
    names = [find_level(lv) for lv in levels]
    if len(set(names)) < 2:
        raise KempsError("bad_arena", "Give at least two different levels.")
    if matches < 1:
        raise KempsError("bad_arena", "Play at least one match per pairing.")
    results = [Pairing(a, b) for a, b in pairings(names)]
    work = [(rules, p.first, p.second, k, match_seed(seed, i, k))
            for i, p in enumerate(results) for k in range(matches)]

    def tally(index: int, outcome: tuple[int, int]) -> None:
        p = results[index // matches]
        p.matches += 1
        p.seeds.append(work[index][4])
        won, unfinished = outcome
        p.unfinished += unfinished
        if won > 0:
            p.first_wins += 1
        elif won < 0:
            p.second_wins += 1
        else:
            p.draws += 1
        if on_match is not None:
            on_match()

    if jobs <= 1:
        for i, w in enumerate(work):
            tally(i, play_match(w))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for i, outcome in enumerate(pool.map(play_match, work, chunksize=8)):
                tally(i, outcome)
    return results


def results_table(results: Sequence[Pairing]) -> list[list[str]]:
    """Rows for a text or markdown table: pairing, matches, wins, losses, draws, rate, 95% CI."""
    rows = []
    for p in results:
        low, high = p.ci
        rows.append([f"{p.first} vs {p.second}", str(p.matches), str(p.first_wins),
                     str(p.second_wins), str(p.draws), f"{p.rate:.1%}",
                     f"{low:.1%} - {high:.1%}"])
    return rows


HEADERS: Final = ["Pairing", "Matches", "Wins", "Losses", "Draws", "Win rate (first)", "95% CI"]


def markdown(results: Sequence[Pairing], command: str, seconds: float) -> str:
    """The arena results as a markdown page with the command that made them."""
    lines = ["# Arena results: bot levels against each other", "",
             "Made by:", "", "```", command, "```", "",
             f"The run took {seconds:.0f} s. Each row is the first level's record against the "
             "second over whole matches; seats balanced (each level plays each pair's seats in "
             "half the matches); a draw counts half; the interval is Wilson's 95% score "
             "interval.", "",
             "| " + " | ".join(HEADERS) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(HEADERS))) + "|"]
    for row in results_table(results):
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add the ``arena`` command to the ``kemps`` command line."""

    @app.command()
    def arena(
        levels: Annotated[str, typer.Option(help="Comma-separated bot levels, weakest first.")
                          ] = "simple,casual,club,sharp",
        matches: Annotated[int, typer.Option(help="Matches per pairing of two levels.")] = 100,
        pairs: Annotated[int, typer.Option("--pairs", "-p", help="Pairs at the table, 2-12.")
                         ] = 2,
        rules: Annotated[str, typer.Option("--rules", "-r", help="Preset name or alias.")
                         ] = "pagat",
        seed: Annotated[int, typer.Option(help="Arena seed (each match's seed derives from it)."
                                          )] = 1,
        jobs: Annotated[int, typer.Option(help="Worker processes (0 = one per CPU); results do "
                                          "not depend on it.")] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")
                           ] = False,
        markdown_out: Annotated[Path | None, typer.Option(
            "--markdown", help="Also write the results as a markdown page here.")] = None,
    ) -> None:
        """Play bot levels against each other and print match win rates with 95% intervals."""
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )
        from rich.table import Table as RichTable

        from kemps.cli import _fail, build_rules, console, err_console

        try:
            rule_set = build_rules(rules, pairs, None)
            names = [find_level(x) for x in levels.split(",") if x.strip()]
        except KempsError as err:
            raise _fail(err) from None
        workers = jobs if jobs > 0 else (os.cpu_count() or 1)
        total = matches * len(pairings(names))
        started = time.perf_counter()
        with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(), console=err_console,
                      disable=not err_console.is_terminal) as progress:
            task = progress.add_task("Matches", total=total)
            try:
                results = run_arena(rule_set, names, matches, seed, workers,
                                    on_match=lambda: progress.advance(task))
            except KempsError as err:
                raise _fail(err) from None
        seconds = time.perf_counter() - started
        command = (f"kemps arena --levels {','.join(names)} --matches {matches} --pairs "
                   f"{rule_set.pairs} --rules {rules} --seed {seed}")
        if as_json:
            print(json.dumps({"command": command, "rules": rule_set.name,
                              "pairs": rule_set.pairs, "seed": seed, "matches": matches,
                              "seconds": round(seconds, 2),
                              "pairings": [p.to_dict() for p in results]}, indent=2))
        else:
            t = RichTable(title=f"Arena: {rule_set.name}, {rule_set.pairs} pairs, {matches} "
                                f"matches a pairing, seed {seed}")
            for h in HEADERS:
                t.add_column(h, justify="left" if h == "Pairing" else "right")
            for row in results_table(results):
                t.add_row(*row)
            console.print(t)
            console.print(f"{total} matches in {seconds:.1f} s. Same table again: {command}",
                          highlight=False)
        if markdown_out is not None:
            markdown_out.parent.mkdir(parents=True, exist_ok=True)
            markdown_out.write_text(markdown(results, command, seconds), encoding="utf-8")
