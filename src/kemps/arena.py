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

from kemps.bots.families import FAMILY_NAMES, family_factory, find_family
from kemps.bots.levels import BotFactory, bot_factory, find_level
from kemps.errors import KempsError
from kemps.events import (
    Called,
    CallJudged,
    Discarded,
    Event,
    Gestured,
    Grabbed,
    HandDealt,
    SignalsAgreed,
    Swapped,
)
from kemps.rules import RuleSet

Z95: Final = 1.959963984540054
MAX_TIME_S: Final = 4 * 3600.0
AFTER_SWAP_S: Final = 1.0  # a first signal this soon after its giver's own swap is "after a swap"


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
    stops_right: int = 0
    stops_wrong: int = 0
    idle_gestures: int = 0
    wrong_on_idle: int = 0
    stopped_right: int = 0
    first_signals: int = 0
    signals_after_swap: int = 0
    seeds: list[int] = field(default_factory=list, repr=False)
    # The tell of each level's signals over the pairing (``kemps arena --tell``): level ->
    # counts summed over matches (see :func:`tell_counts`), empty unless asked for.
    tell: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def stop_precision(self) -> float:
        """Share of ``first``'s Stop Kemps calls (double ones too) that were right (0 when it
        made none)."""
        made = self.stops_right + self.stops_wrong
        return self.stops_right / made if made else 0.0

    @property
    def stop_precision_ci(self) -> tuple[float, float]:
        """95% Wilson interval of :attr:`stop_precision` (``(0, 1)`` when ``first`` made no Stop
        Kemps)."""
        return wilson(self.stops_right, self.stops_right + self.stops_wrong)

    @property
    def wrong_per_idle(self) -> float:
        """``first``'s wrong Stop Kemps on ``second``'s pairs per idle gesture those pairs made
        (gestures that were not the pair's agreed signal); 0 when they made none."""
        return self.wrong_on_idle / self.idle_gestures if self.idle_gestures else 0.0

    @property
    def after_swap_share(self) -> float:
        """Share of ``first``'s first signals in a hand (a player's first gesture of its pair's
        agreed signal while holding four) made within :data:`AFTER_SWAP_S` of the same player's
        own last swap (issue 13: "the first signal came within 1 s of the same player's own
        swap in 401 of 401 cases"); 0 when it gave none."""
        return self.signals_after_swap / self.first_signals if self.first_signals else 0.0

    def add(self, stats: MatchStats, seed: int) -> None:
        """Count one match."""
        self.matches += 1
        self.seeds.append(seed)
        self.unfinished += stats.unfinished
        if stats.outcome > 0:
            self.first_wins += 1
        elif stats.outcome < 0:
            self.second_wins += 1
        else:
            self.draws += 1
        self.stops_right += stats.stops_right
        self.stops_wrong += stats.stops_wrong
        self.idle_gestures += stats.idle_gestures
        self.wrong_on_idle += stats.wrong_on_idle
        self.stopped_right += stats.stopped_right
        self.first_signals += stats.first_signals
        self.signals_after_swap += stats.signals_after_swap
        for level, counts in stats.tell.items():
            mine = self.tell.setdefault(level, _empty_tell())
            for key, value in counts.items():
                mine[key] = mine[key] + value

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
        out.pop("tell")
        if self.tell:
            out["tell"] = {level: tell_summary(c) for level, c in self.tell.items()}
        low, high = self.ci
        out.update(rate=round(self.rate, 4), ci_low=round(low, 4), ci_high=round(high, 4),
                   stop_precision=round(self.stop_precision, 4),
                   stop_precision_ci_low=round(self.stop_precision_ci[0], 4),
                   stop_precision_ci_high=round(self.stop_precision_ci[1], 4),
                   wrong_per_idle=round(self.wrong_per_idle, 4),
                   after_swap_share=round(self.after_swap_share, 4))
        return out


@dataclass
class MatchStats:
    """One match seen from ``first``'s side: ``outcome`` 1 / -1 / 0 (first won / lost / draw),
    ``unfinished`` 1 when time ran out; ``first``'s right and wrong Stop Kemps; idle gestures of
    ``second``'s pairs and ``first``'s wrong Stop Kemps on those pairs; ``stopped_right``: right
    Stop Kemps that ``second``'s players called on ``first``'s pairs (how often ``first``'s
    signals were read); ``first_signals``: ``first``'s players' first signals in a hand given
    with four of a kind, ``signals_after_swap`` of them within :data:`AFTER_SWAP_S` of the
    same player's own last swap."""

    outcome: int = 0
    unfinished: int = 0
    tell: dict[str, dict[str, Any]] = field(default_factory=dict)
    stops_right: int = 0
    stops_wrong: int = 0
    idle_gestures: int = 0
    wrong_on_idle: int = 0
    stopped_right: int = 0
    first_signals: int = 0
    signals_after_swap: int = 0


_TELL_COUNTS: Final = ("uses", "with_four", "fakes", "partner_calls", "partner_right",
                       "stopped", "stopped_right")


def _empty_tell() -> dict[str, Any]:
    return {**dict.fromkeys(_TELL_COUNTS, 0), "reactions": [], "read_after": [], "signals": 0}


def tell_counts(analysis: dict[str, Any], level_of: Sequence[str]) -> dict[str, dict[str, Any]]:
    """One match's tell (:func:`kemps.tell.analyse`) summed per level: for each level, over its
    pairs' agreed signals, ``uses`` (given during a hand), ``with_four``, ``fakes``,
    ``partner_calls`` / ``partner_right`` (the partner's Kemps that answered a use),
    ``stopped`` / ``stopped_right`` (an opponent's Stop Kemps that answered one), ``signals``
    (agreed signals given at least once), ``reactions`` (the partner's seconds from signal to
    call: each signal's median in the match) and ``read_after`` (for each signal an opponent
    read: the use at which it was first read)."""
    out: dict[str, dict[str, Any]] = {}
    for p in analysis["pairs"]:
        mine = out.setdefault(level_of[p["pair"]], _empty_tell())
        for s in p["signals"]:
            for key in _TELL_COUNTS:
                mine[key] += s[key]
            mine["signals"] += 1
            if s["read_after"] is not None:
                mine["read_after"].append(s["read_after"])
            if s["reaction_s"]["n"]:
                mine["reactions"].append(s["reaction_s"]["median"])
    return out


def tell_summary(counts: dict[str, Any]) -> dict[str, Any]:
    """The summed tell of a level as figures: the counts, ``reaction_s`` (the median, lowest
    and highest of the per-signal median reaction times, seconds) and ``read_after_median``
    (uses; None when no signal was read)."""
    import statistics

    rts, reads = counts["reactions"], counts["read_after"]
    return {**{k: counts[k] for k in (*_TELL_COUNTS, "signals")},
            "reaction_s": {"n": len(rts), "median": round(statistics.median(rts), 3) if rts
                           else None, "min": round(min(rts), 3) if rts else None,
                           "max": round(max(rts), 3) if rts else None},
            "read_after_median": statistics.median(reads) if reads else None,
            "read": len(reads)}


def player_factory(name: str) -> BotFactory:
    """The factory for a bot level or an opponent family (:mod:`kemps.bots.families`); build one
    per match (a family's pair may share its private agreements).

    Raises:
        KempsError: ``unknown_level`` for a name that is neither.
    """
    key = str(name).strip().lower()
    if key in FAMILY_NAMES:
        return family_factory(key)
    return bot_factory(key)


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
    stats = play_match_stats(args)
    return stats.outcome, stats.unfinished


def play_match_stats(args: tuple[RuleSet, str, str, int, int]
                     | tuple[RuleSet, str, str, int, int, bool]) -> MatchStats:
    """:func:`play_match` with ``first``'s Stop Kemps record (a :class:`MatchStats`). ``second``
    may be an opponent family. A sixth item ``True`` also takes the match's tell
    (:func:`tell_counts`, ``MatchStats.tell``).

    Raises:
        KempsError: ``unknown_level`` for a level that does not exist.
    """
    from kemps.sim import simulate_match

    rules, first, second, k, seed = args[:5]
    want_tell = len(args) > 5 and bool(args[5])
    pairs = rules.pairs
    level_of = [first if (p + k) % 2 == 0 else second for p in range(pairs)]
    made = {name: player_factory(name) for name in (first, second)}
    factories = [made[level_of[s % pairs]] for s in range(rules.players)]
    stats = MatchStats()
    signals: list[tuple[str, ...]] = [() for _ in range(pairs)]
    pending: list[Called] = []
    last_swap: list[float | None] = [None] * rules.players
    signalled: set[int] = set()  # seats that gave their first signal this hand

    def watch(events: list[Event]) -> None:
        for e in events:
            if isinstance(e, Gestured):
                p = e.seat % pairs
                if level_of[p] == second and e.gesture not in signals[p]:
                    stats.idle_gestures += 1
                elif (level_of[p] == first and e.gesture in signals[p]
                      and e.seat not in signalled):
                    # A level gives its pair's agreed signal only with four of a kind (its
                    # fakes use old signals): the first one in a hand is the signal.
                    signalled.add(e.seat)
                    stats.first_signals += 1
                    last = last_swap[e.seat]
                    if last is not None and e.t - last <= AFTER_SWAP_S:
                        stats.signals_after_swap += 1
            elif isinstance(e, Swapped | Grabbed | Discarded):
                last_swap[e.seat] = e.t
            elif isinstance(e, HandDealt):
                signalled.clear()
                last_swap[:] = [None] * rules.players
            elif isinstance(e, SignalsAgreed):
                signals[e.pair] = e.signals
            elif isinstance(e, Called):
                pending[:] = [e]
            elif isinstance(e, CallJudged) and pending:
                call = pending.pop()
                if call.kind not in ("stop", "double_stop"):
                    continue
                on = call.on_pair if call.on_pair is not None else (
                    (call.on_seat or 0) % pairs)
                if level_of[call.seat % pairs] != first:
                    if e.right and level_of[on] == first:
                        stats.stopped_right += 1
                    continue
                if e.right:
                    stats.stops_right += 1
                else:
                    stats.stops_wrong += 1
                    if level_of[on] == second:
                        stats.wrong_on_idle += 1

    result = simulate_match(rules, seed, bots=factories, keep_events=False,
                            max_time_s=MAX_TIME_S, on_events=watch)
    if want_tell:
        from kemps.tell import analyse

        stats.tell = tell_counts(analyse(result.record), level_of)
    ranks = result.table.ranks
    if not result.finished or ranks is None:
        stats.unfinished = 1
        return stats
    winners = {level_of[p] for p in range(pairs) if ranks[p] == 1}
    if winners == {first}:
        stats.outcome = 1
    elif winners == {second}:
        stats.outcome = -1
    return stats


def family_pairings(levels: Sequence[str], families: Sequence[str]) -> list[tuple[str, str]]:
    """Each level against each opponent family, levels in listed order."""
    return [(lv, fam) for lv in levels for fam in families]


def run_arena(rules: RuleSet, levels: Sequence[str], matches: int, seed: int, jobs: int = 1,
              on_match: Callable[[], None] | None = None, families: Sequence[str] = (),
              tell: bool = False) -> list[Pairing]:
    """Play ``matches`` matches for every pairing of ``levels`` at a ``rules`` table.

    Args:
        rules: the table (its ``pairs`` seats the matches).
        levels: level names (see :data:`kemps.bots.levels.LEVEL_NAMES`), weakest first.
        matches: matches per pairing (at least 1).
        seed: the arena seed (see the module's seed rule).
        jobs: worker processes (1 = in this process); the results do not depend on it.
        on_match: called once after each match (for a progress bar).
        families: opponent families (:data:`kemps.bots.families.FAMILY_NAMES`); when given, every
            level plays every family instead of the other levels (:func:`family_pairings`).
        tell: also take each match's tell (the readability of each level's signals,
            ``Pairing.tell``; each match is then replayed once more).

    Returns:
        One :class:`Pairing` per pairing, in :func:`pairings` (or :func:`family_pairings`) order.

    Raises:
        KempsError: ``unknown_level`` / ``unknown_family`` for a name that does not exist;
            ``bad_arena`` for fewer than two levels (and no family) or fewer than one match.
    """
    names = [find_level(lv) for lv in levels]
    fams = [find_family(f) for f in families]
    if not names or (not fams and len(set(names)) < 2):
        raise KempsError("bad_arena", "Give at least two different levels, or a level and "
                         "opponent families.")
    if matches < 1:
        raise KempsError("bad_arena", "Play at least one match per pairing.")
    plan = family_pairings(names, fams) if fams else pairings(names)
    results = [Pairing(a, b) for a, b in plan]
    work = [(rules, p.first, p.second, k, match_seed(seed, i, k), tell)
            for i, p in enumerate(results) for k in range(matches)]

    def tally(index: int, stats: MatchStats) -> None:
        results[index // matches].add(stats, work[index][4])
        if on_match is not None:
            on_match()

    if jobs <= 1:
        for i, w in enumerate(work):
            tally(i, play_match_stats(w))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for i, stats in enumerate(pool.map(play_match_stats, work, chunksize=8)):
                tally(i, stats)
    return results


def results_table(results: Sequence[Pairing]) -> list[list[str]]:
    """Rows for a text or markdown table (:data:`HEADERS`): pairing, matches, wins, losses,
    draws, rate, 95% CI, unfinished, Stop Kemps right/wrong, their precision and its 95% CI,
    and the counts after them."""
    rows = []
    for p in results:
        low, high = p.ci
        stop_low, stop_high = p.stop_precision_ci
        rows.append([f"{p.first} vs {p.second}", str(p.matches), str(p.first_wins),
                     str(p.second_wins), str(p.draws), f"{p.rate:.1%}",
                     f"{low:.1%} - {high:.1%}", str(p.unfinished),
                     f"{p.stops_right}/{p.stops_wrong}", f"{p.stop_precision:.1%}",
                     f"{stop_low:.1%} - {stop_high:.1%}",
                     f"{p.wrong_on_idle}/{p.idle_gestures}", str(p.stopped_right),
                     f"{p.signals_after_swap}/{p.first_signals}"])
    return rows


HEADERS: Final = ["Pairing", "Matches", "Wins", "Losses", "Draws", "Win rate (first)", "95% CI",
                  "Unfinished", "Stop right/wrong (first)", "Stop precision",
                  "Stop precision 95% CI",
                  "Wrong stops / idle gestures (second)", "Right stops against first",
                  "First signals < 1 s after own swap (first)"]


TELL_HEADERS: Final = ["Pairing", "Level", "Signals", "Given", "With four / fake",
                       "Partner called (right)", "Stopped (right)", "Read (median use)",
                       "Partner's reaction s (median; low-high)"]


def tell_rows(results: Sequence[Pairing]) -> list[list[str]]:
    """Rows of the tell table (``kemps arena --tell``): per pairing, one row per level."""
    rows = []
    for p in results:
        for level in (p.first, p.second):
            if level not in p.tell:
                continue
            t = tell_summary(p.tell[level])
            rt = t["reaction_s"]
            rows.append([f"{p.first} vs {p.second}", level, str(t["signals"]), str(t["uses"]),
                         f"{t['with_four']} / {t['fakes']}",
                         f"{t['partner_calls']} ({t['partner_right']})",
                         f"{t['stopped']} ({t['stopped_right']})",
                         f"{t['read']}" + (f" ({t['read_after_median']:g})" if t["read"] else ""),
                         f"{rt['median']:.2f}; {rt['min']:.2f}-{rt['max']:.2f}" if rt["n"]
                         else "-"])
    return rows


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
        set_: Annotated[list[str] | None, typer.Option(
            "--set", help="Change a rule option: --set option=value (repeatable), e.g. --set "
                          "attention=true.")] = None,
        families: Annotated[str, typer.Option(
            help="Comma-separated opponent families (" + ", ".join(FAMILY_NAMES) + "): every "
            "level plays each of them instead of the other levels.")] = "",
        jobs: Annotated[int, typer.Option(help="Worker processes (0 = one per CPU); results do "
                                          "not depend on it.")] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")
                           ] = False,
        markdown_out: Annotated[Path | None, typer.Option(
            "--markdown", help="Also write the results as a markdown page here.")] = None,
        tell: Annotated[bool, typer.Option(
            "--tell", help="Also print the tell of each level's signals (how often given, "
            "called by the partner, read by the other side; reaction times), as kemps replay "
            "--stats computes it for one match.")] = False,
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
            rule_set = build_rules(rules, pairs, set_)
            names = [find_level(x) for x in levels.split(",") if x.strip()]
            fams = [find_family(x) for x in families.split(",") if x.strip()]
        except KempsError as err:
            raise _fail(err) from None
        workers = jobs if jobs > 0 else (os.cpu_count() or 1)
        total = matches * len(family_pairings(names, fams) if fams else pairings(names))
        started = time.perf_counter()
        with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(), console=err_console,
                      disable=not err_console.is_terminal) as progress:
            task = progress.add_task("Matches", total=total)
            try:
                results = run_arena(rule_set, names, matches, seed, workers,
                                    on_match=lambda: progress.advance(task), families=fams,
                                    tell=tell)
            except KempsError as err:
                raise _fail(err) from None
        seconds = time.perf_counter() - started
        command = (f"kemps arena --levels {','.join(names)} --matches {matches} --pairs "
                   f"{rule_set.pairs} --rules {rules} --seed {seed}"
                   + (f" --families {','.join(fams)}" if fams else "")
                   + "".join(f" --set {item}" for item in set_ or []))
        if as_json:
            print(json.dumps({"command": command, "rules": rule_set.name,
                              "pairs": rule_set.pairs, "seed": seed, "matches": matches,
                              "seconds": round(seconds, 2),
                              "pairings": [p.to_dict() for p in results]}, indent=2))
        else:
            t = RichTable(title=f"Arena: {rule_set.name}, {rule_set.pairs} pairs, {matches} "
                                f"matches a pairing, seed {seed}")
            for h in HEADERS:
                t.add_column(h, justify="left" if h == "Pairing" else "right",
                             no_wrap=h == "Pairing")
            for row in results_table(results):
                t.add_row(*row)
            console.print(t)
            if tell:
                t3 = RichTable(title="The tell: each level's agreed signals over its matches")
                for h in TELL_HEADERS:
                    t3.add_column(h, justify="left" if h in ("Pairing", "Level") else "right")
                for row in tell_rows(results):
                    t3.add_row(*row)
                console.print(t3)
            console.print(f"{total} matches in {seconds:.1f} s. Same table again: {command}"
                          + (" --tell" if tell else ""), highlight=False)
        if markdown_out is not None:
            markdown_out.parent.mkdir(parents=True, exist_ok=True)
            markdown_out.write_text(markdown(results, command, seconds), encoding="utf-8")
