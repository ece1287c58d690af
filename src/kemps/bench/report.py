"""Engine benchmarks, the report half: runs :mod:`kemps.bench.measure` and writes the markdown of
``docs/benchmarks.md`` (``make bench`` / ``kemps bench``). Reads the real clock and the date: a
tool, not part of the engine.
"""

from __future__ import annotations

import os
import statistics
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Final

from kemps.bench.measure import (
    COMMAND,
    DEEP_SIZE_EXCLUDES,
    SWAPS_PER_TABLE,
    TARGET_ACTIONS_PER_S,
    TARGET_HANDS_PER_S,
    TARGET_SWAP_RATIO,
    TARGET_TABLE_BYTES,
    SimFigures,
    Sizes,
    bench_apply,
    bench_memory,
    bench_replay,
    bench_sim,
    bench_swap_floor,
    machine_info,
    record_streams,
    rules_for,
)


def _n(x: float) -> str:
    return f"{x:,.0f}"


def _bytes(x: float) -> str:
    return f"{x:,.0f} bytes ({x / 1024:.1f} KB)"


def _verdict(ok: bool) -> str:
    return "met" if ok else "**NOT met**"


def _mix_text(mix: Counter[str]) -> str:
    total = sum(mix.values())
    return ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in mix.most_common())


HOW_MEASURED: Final = (
    "One process, one core, no multiprocessing; wall-clock time from `time.perf_counter`; "
    "each timing is repeated and the median run is reported with the spread (min-max); the "
    "floors are measured in the same run, alternating with the engine; the garbage collector "
    "stays on. **Actions/s**: whole matches are first simulated with `simulate_match` on "
    "the `pagat` preset (seeds 1, 2, ...), and each match's stream is rebuilt from its record "
    "(deals, swaps, gestures, stalls, calls, signal agreements, in order) with every rejected "
    "bot attempt (lost races for a card, a second stall proposal, ...) merged in at its "
    "time. Each stream is then applied to a fresh `Table` (built untimed) and only the loop "
    "calling `Table.apply` (with its `try/except Rejected`) is timed; timers due by an "
    "action's time fire inside `apply`, as in a replay. Accepted and rejected applications "
    "both count as actions; the split is in the table above. **Hands/s**: `simulate_match` "
    "with `keep_events=False` and a `SimpleBot` in every seat, timed end to end (bots, "
    "views, event routing and table included) over the same seeds in each repeat; hands are "
    "`Table.hand_no` summed over matches (every deal, including hands that end in a real "
    "deal). **The simulator against its floor**: each repeat of the simulated matches (simple "
    "bots, and sharp bots) is followed at once by its floor, the same matches' accepted "
    "actions applied again to fresh tables in a bare loop (`replay_floor`: no bots, no driver, "
    "no views); both in CPU time of this process, so each repeat gives its own ratio, and the "
    "median ratio is given with its spread: a figure that does not move with the machine's "
    "speed, unlike hands a second. **Memory**: a table dealt a random pack and then given "
    f"{SWAPS_PER_TABLE} one-card swaps; tracemalloc reports the traced bytes still held after "
    "building N such tables, divided by N (deal actions prepared beforehand, temporaries "
    "freed); the deep size walks the table's slots recursively with `sys.getsizeof`, with the "
    "exclusions listed above. **Replay**: `kemps.record.replay` over the recorded matches "
    "(accepted actions only), table construction and the final `advance` included.")


def _sim_floor_row(level: str, sim: SimFigures) -> str:
    """The ratios row of whole simulated matches of ``level`` bots against their floor, the same
    matches' accepted actions applied again in a bare loop (:func:`replay_floor`), alternating."""
    ratios = sim.floor_ratios
    return (f"| simulated matches, 4 {level} bots (pagat, 2 pairs; {sim.matches} matches, "
            f"{len(ratios)} runs, each followed by its floor; CPU time) | "
            f"{statistics.median(sim.sim_cpu):.3f} s ({min(sim.sim_cpu):.3f}-"
            f"{max(sim.sim_cpu):.3f}) | {statistics.median(sim.floor_cpu):.3f} s "
            f"({min(sim.floor_cpu):.3f}-{max(sim.floor_cpu):.3f}): the same matches' "
            f"{_n(sim.actions)} accepted actions through `Table.apply` in a bare loop | "
            f"{statistics.median(ratios):.1f}x ({min(ratios):.1f}-{max(ratios):.1f}) | (none: "
            "lower is faster) | - |")


def run_benchmarks(quick: bool = False,
                   progress: Callable[[str], None] | None = None) -> str:
    """Run every benchmark and return the report as markdown (for ``docs/benchmarks.md``).

    Args:
        quick: tiny sizes (a few seconds; figures are noisy), for tests and smoke checks.
        progress: called with a short line before each step (default: nothing).

    Returns:
        Markdown with a summary table (figure, measured value with its unit, target, met / NOT
        met), the details of each benchmark, the machine, the date, the command and how it was
        measured.
    """
    say = progress or (lambda _msg: None)
    sizes = Sizes.for_run(quick)
    started = datetime.now()
    wall0 = time.perf_counter()
    r2, r6 = rules_for(2), rules_for(6)

    say("timing one-card swaps against the plain-Python floor")
    floor = bench_swap_floor(r2, 2_000 if quick else 20_000, 3 if quick else 7)
    load0 = os.getloadavg()[0]
    say("recording action streams")
    streams2 = record_streams(r2, sizes.apply_matches)
    streams6 = record_streams(r6, sizes.apply_matches)
    say("timing Table.apply")
    ap2 = bench_apply(streams2, sizes.apply_repeats)
    ap6 = bench_apply(streams6, sizes.apply_repeats)
    say("timing simulated matches")
    sim2 = bench_sim(r2, sizes.sim_matches_2, sizes.sim_repeats)
    sim6 = bench_sim(r6, sizes.sim_matches_6, sizes.sim_repeats)
    say("timing simulated matches of sharp bots")
    sharp2 = bench_sim(r2, max(2, sizes.sim_matches_2 // 2), sizes.sim_repeats, level="sharp")
    say("measuring memory")
    mem2 = bench_memory(r2, sizes.memory_tables)
    mem6 = bench_memory(r6, max(1, sizes.memory_tables // 4))
    say("timing replay")
    records2 = [s.record for s in streams2[: sizes.replay_matches]]
    if len(records2) < sizes.replay_matches:
        records2 += [s.record for s in record_streams(r2, sizes.replay_matches - len(records2),
                                                      first_seed=1 + len(records2))]
    rp2 = bench_replay(records2, sizes.replay_repeats)
    rp6 = bench_replay([s.record for s in streams6], sizes.replay_repeats)
    elapsed = time.perf_counter() - wall0

    kb = TARGET_TABLE_BYTES
    kb_target = f"<= {_n(kb)} bytes (64 KB)"
    act_target = f">= {_n(TARGET_ACTIONS_PER_S)} actions/s"
    quick_note = " **Quick run: tiny sizes, figures are indicative only.**" if quick else ""
    lines: list[str] = [
        "# kemps engine benchmarks",
        "",
        (f"Generated by `kemps bench{' --quick' if quick else ''}` on {started:%Y-%m-%d %H:%M} "
         f"(local time); the run took {elapsed:.1f} s.{quick_note}"),
        "",
        "## Ratios to floors measured in this run",
        "",
        "| Figure | Engine | Floor | Ratio | Goal | Verdict |",
        "|---|---:|---:|---:|---:|---|",
        (f"| `Table.apply`, legal one-card swaps (pagat, 2 pairs; {_n(floor.swaps)} swaps, "
         f"{len(floor.engine_ns)} runs) | {statistics.median(floor.engine_ns):,.0f} ns "
         f"({min(floor.engine_ns):,.0f}-{max(floor.engine_ns):,.0f}) | "
         f"{statistics.median(floor.floor_ns):,.0f} ns ({min(floor.floor_ns):,.0f}-"
         f"{max(floor.floor_ns):,.0f}): a plain-Python swap on ints with a four-of-a-kind check | "
         f"{floor.ratio:.1f}x | <= {TARGET_SWAP_RATIO:g}x | {_verdict(floor.ratio <= TARGET_SWAP_RATIO)} |"),
        (f"| the same, in CPU time of this process | "
         f"{statistics.median(floor.engine_cpu_ns):,.0f} ns ({min(floor.engine_cpu_ns):,.0f}-"
         f"{max(floor.engine_cpu_ns):,.0f}) | {statistics.median(floor.floor_cpu_ns):,.0f} ns "
         f"({min(floor.floor_cpu_ns):,.0f}-{max(floor.floor_cpu_ns):,.0f}) | "
         f"{floor.cpu_ratio:.1f}x | <= {TARGET_SWAP_RATIO:g}x | "
         f"{_verdict(floor.cpu_ratio <= TARGET_SWAP_RATIO)} |"),
        *(_sim_floor_row(label, s) for label, s in (
            ("simple", sim2), ("sharp", sharp2))),
        "",
        (f"Machine load (1-minute average) {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at "
         "the end; CPU time of the simulated matches "
         f"{sim2.cpu_s:.2f} s for {sum(sim2.runs):.2f} s of wall time (2 pairs). Wall-time "
         "ratios swing with the load (other work takes the core from the engine's longer loop "
         "more often than from the floor's); the CPU-time row is the steadier one. Every ratio "
         "here is to a floor timed in this run; none is to a figure from another day (the "
         "research environment's speed, and the anchor it is compared with, are in the "
         "section \"The research environment\")."),
        "",
        "## Summary",
        "",
        "| Figure | Measured | Target | Verdict |",
        "|---|---:|---:|---|",
    ]
    summary: list[tuple[str, str, str, str]] = [
        ("Table.apply actions/s (pagat, 2 pairs)", f"{_n(ap2.per_s)} actions/s", act_target,
         _verdict(ap2.per_s >= TARGET_ACTIONS_PER_S)),
        ("Table.apply actions/s (pagat, 6 pairs)", f"{_n(ap6.per_s)} actions/s", act_target,
         _verdict(ap6.per_s >= TARGET_ACTIONS_PER_S)),
        ("Simulated hands/s (pagat, 2 pairs, 4 simple bots)", (f"{_n(sim2.hands_per_s)} hands/s "
                                                             f"({_n(sim2.hands_per_cpu_s)} a "
                                                             "CPU-second)"),
         f">= {_n(TARGET_HANDS_PER_S)} hands/s",
         _verdict(sim2.hands_per_s >= TARGET_HANDS_PER_S)),
        ("Simulated matches/s (pagat, 2 pairs, 4 simple bots)",
         f"{sim2.matches_per_s:,.1f} matches/s", "(none)", "-"),
        ("Simulated hands/s (pagat, 6 pairs, 12 simple bots)", f"{_n(sim6.hands_per_s)} hands/s",
         "(the target is for 4 bots)", "-"),
        ("Headless matches/s of sharp bots (pagat, 2 pairs, 4 sharp bots; the bots' figure of "
         "merit)", f"{sharp2.matches_per_s:,.1f} matches/s ({_n(sharp2.hands_per_s)} hands/s)",
         "(none)", "-"),
        ("Table memory, tracemalloc (pagat, 2 pairs)", _bytes(mem2.tracemalloc_bytes), kb_target,
         _verdict(mem2.tracemalloc_bytes <= kb)),
        ("Table memory, deep sys.getsizeof (pagat, 2 pairs)", _bytes(mem2.deep_bytes), kb_target,
         _verdict(mem2.deep_bytes <= kb)),
        ("Table memory, tracemalloc (pagat, 6 pairs)", _bytes(mem6.tracemalloc_bytes), kb_target,
         _verdict(mem6.tracemalloc_bytes <= kb)),
        ("Replay actions/s (pagat, 2 pairs)", f"{_n(rp2.per_s)} actions/s", "(none)", "-"),
        ("Replay actions/s (pagat, 6 pairs)", f"{_n(rp6.per_s)} actions/s", "(none)", "-"),
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in summary]
    lines += [
        "",
        "## 1. Actions applied per second (`Table.apply`)",
        "",
        ("| Pairs | Matches | Actions timed | Accepted | Rejected | Median time (s) (min-max) | Actions/s "
         "| Accepted/s |"),
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a in (ap2, ap6):
        lines.append(f"| {a.pairs} | {a.matches} | {_n(a.actions)} | {_n(a.accepted)} "
                     f"({100 * a.accepted / a.actions:.0f}%) | {_n(a.rejected)} "
                     f"({100 * a.rejected / a.actions:.0f}%) | {a.seconds:.4f} "
                     f"({min(a.runs):.4f}-{max(a.runs):.4f}) | {_n(a.per_s)} "
                     f"| {_n(a.accepted_per_s)} |")
    faithful = "yes." if ap2.faithful and ap6.faithful else (
        "**no** (streams diverged; the split above is what the table did).")
    lines += [
        "",
        f"Action mix, 2 pairs: {_mix_text(ap2.mix)}.  ",
        f"Action mix, 6 pairs: {_mix_text(ap6.mix)}.  ",
        ("Stream check (the table accepts exactly the recorded actions and rejects exactly the "
         f"merged bot attempts, as in the simulation): {faithful}"),
        "",
        "## 2. Whole simulated matches (`simulate_match`, simple bots, `keep_events=False`)",
        "",
        ("| Pairs | Matches | Hands | Actions accepted | Attempts rejected | Median time (s) (min-max) "
         "| Hands/s | Matches/s |"),
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in (sim2, sim6):
        lines.append(f"| {s.pairs} | {s.matches} | {_n(s.hands)} | {_n(s.actions)} "
                     f"| {_n(s.rejected)} | {s.seconds:.3f} ({min(s.runs):.3f}-{max(s.runs):.3f}) "
                     f"| {_n(s.hands_per_s)} "
                     f"| {s.matches_per_s:,.1f} |")
    lines += [
        "",
        "## 3. Memory of one mid-hand table",
        "",
        "| Pairs | tracemalloc, bytes/table (tables built) | Deep sys.getsizeof, bytes |",
        "|---:|---:|---:|",
    ]
    for m in (mem2, mem6):
        lines.append(f"| {m.pairs} | {_n(m.tracemalloc_bytes)} ({m.tables}) "
                     f"| {_n(m.deep_bytes)} |")
    top = sorted(mem2.parts.items(), key=lambda kv: -kv[1])[:6]
    top_text = ", ".join(f"`{k}` {_n(v)}" for k, v in top)
    lines += [
        "",
        f"Largest parts of the 2-pair deep size (bytes): {top_text}.",
        "",
        "The deep `sys.getsizeof` walk counts each object reachable from the table once and "
        + "excludes:",
        "",
    ]
    lines += [f"- {x};" for x in DEEP_SIZE_EXCLUDES[:-1]] + [f"- {DEEP_SIZE_EXCLUDES[-1]}."]
    lines += [
        "",
        "## 4. Replay (`kemps.record.replay`)",
        "",
        "| Pairs | Records | Actions replayed | Best time (s) | Actions/s |",
        "|---:|---:|---:|---:|---:|",
    ]
    for p in (rp2, rp6):
        lines.append(f"| {p.pairs} | {p.matches} | {_n(p.actions)} | {p.seconds:.4f} "
                     f"| {_n(p.per_s)} |")
    lines += ["", "## Machine", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in machine_info().items()]
    lines += [
        "",
        "## Command",
        "",
        "```",
        COMMAND,
        "```",
        "",
        "`kemps bench --quick` runs the same code with tiny sizes (used by the tests).",
        "",
        "## How measured",
        "",
        HOW_MEASURED,
        "",
    ]
    return "\n".join(lines)
