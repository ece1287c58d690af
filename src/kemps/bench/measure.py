"""Engine benchmarks, the measuring half: the figures behind ``docs/benchmarks.md``
(``make bench`` / ``kemps bench``); :mod:`kemps.bench.report` writes them up.

Four figures, each against the target in the issue:

1. **Actions applied per second** (target >= 150,000 actions/s on one core): the time spent in
   :meth:`kemps.table.Table.apply` alone over a pre-recorded, realistic stream of actions.
2. **Simulated hands per second** (target >= 1,000 hands/s) with four
   :class:`~kemps.bots.simple.SimpleBot` players: :func:`kemps.sim.simulate_match` wall time.
3. **Memory of one table** mid-hand (target <= 64 KB = 65,536 bytes), measured two ways.
4. **Replay speed**: actions replayed per second by :func:`kemps.record.replay`.

Everything runs in this one process on one core (no multiprocessing); times are wall-clock seconds
from :func:`time.perf_counter`; rates are "per second of wall time"; sizes are bytes (1 KB = 1,024
bytes). This module is a tool, not part of the engine: it reads the real clock and the date.
"""

from __future__ import annotations

import bisect
import gc
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Final

from kemps import __version__
from kemps.actions import Action, Deal, Swap
from kemps.bots.base import Bot, Plan
from kemps.bots.simple import SimpleBot
from kemps.cards import Card, shuffled_pack
from kemps.errors import Rejected
from kemps.events import Event
from kemps.record import MatchRecord, replay
from kemps.rules import RuleSet, find_preset
from kemps.sim import simulate_match
from kemps.table import Table
from kemps.views import SeatView

#: Targets from the issue.
TARGET_ACTIONS_PER_S: Final = 150_000
TARGET_HANDS_PER_S: Final = 1_500  # issue 15's goal (the first target was 1,000)
TARGET_TABLE_BYTES: Final = 64 * 1024
TARGET_SWAP_RATIO: Final = 5.0  # Table.apply on a one-card swap, at most this times the floor
PRESET: Final = "pagat"
COMMAND: Final = "make bench   (runs: .venv/bin/kemps bench --out docs/benchmarks.md)"


@dataclass(frozen=True)
class Sizes:
    """How much work each benchmark does. ``*_matches`` are counts of simulated matches (seeds),
    ``repeats`` how often each timing is repeated (the best, i.e. fastest, run is reported),
    ``memory_tables`` how many tables are built for the tracemalloc average."""

    apply_matches: int
    apply_repeats: int
    sim_matches_2: int
    sim_matches_6: int
    sim_repeats: int
    memory_tables: int
    replay_matches: int
    replay_repeats: int

    @staticmethod
    def for_run(quick: bool) -> Sizes:
        """Tiny sizes for ``quick`` (a few seconds), else the full run (well under a minute)."""
        if quick:
            return Sizes(apply_matches=3, apply_repeats=2, sim_matches_2=4, sim_matches_6=2,
                         sim_repeats=1, memory_tables=50, replay_matches=3, replay_repeats=2)
        return Sizes(apply_matches=80, apply_repeats=9, sim_matches_2=200, sim_matches_6=60,
                     sim_repeats=3, memory_tables=2_000, replay_matches=80, replay_repeats=9)


def rules_for(pairs: int) -> RuleSet:
    """The ``pagat`` preset with ``pairs`` pairs (its name kept, for display)."""
    base = find_preset(PRESET)
    return base if base.pairs == pairs else base.replace(name=base.name, pairs=pairs)


# == 1. Table.apply over a recorded stream ==========================================================
@dataclass
class Stream:
    """One match's actions in the order a table saw them: ``(t, action)`` pairs (``t`` in table
    seconds), accepted ones from the match record and the simulated bots' rejected attempts
    merged in at their times. ``record`` is the match record (accepted actions only)."""

    record: MatchRecord
    items: list[tuple[float, Action]]


class _RejectLog:
    """A bot wrapper that passes everything through and writes down each rejected attempt."""

    def __init__(self, bot: Bot, log: list[tuple[float, Action]]) -> None:
        self.bot = bot
        self.seat = bot.seat
        self.log = log

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        return self.bot.on_view(view, now)

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        return self.bot.on_events(events, now)

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        self.log.append((now, action))
        return self.bot.on_rejected(action, error, now)


def record_stream(rules: RuleSet, seed: int) -> Stream:
    """Simulate one match between simple bots and return every attempted action in order.

    Accepted actions come from ``result.record.actions`` (deals included); each rejected attempt
    (a lost race for a card, a second stall proposal, ...) is inserted after every accepted action
    at the same or an earlier time, which is where the simulation tried it.
    """
    rejected: list[tuple[float, Action]] = []

    def factory(seat: int, r: RuleSet, rng: random.Random) -> Bot:
        return _RejectLog(SimpleBot(seat, r, rng), rejected)

    result = simulate_match(rules, seed, bots=factory, keep_events=False)
    items = list(result.record.actions)
    times = [t for t, _ in items]
    # Insert from the back so earlier insertion points stay valid.
    for t, action in sorted(rejected, key=lambda x: x[0], reverse=True):
        items.insert(bisect.bisect_right(times, t), (t, action))
    return Stream(result.record, items)


def _fresh_table(record: MatchRecord) -> Table:
    return Table(record.rules, record.names, record.first_dealer)


def _outcomes(stream: Stream) -> tuple[int, int, Counter[str]]:
    """Apply a stream once (untimed): accepted count, rejected count, and the mix by type."""
    table = _fresh_table(stream.record)
    ok = bad = 0
    mix: Counter[str] = Counter()
    for t, action in stream.items:
        mix[type(action).__name__] += 1
        try:
            table.apply(action, t)
            ok += 1
        except Rejected:
            bad += 1
    return ok, bad, mix


def _time_streams(streams: Sequence[Stream]) -> float:
    """Seconds spent applying every stream to its own fresh table (tables built untimed)."""
    tables = [_fresh_table(s.record) for s in streams]
    total = 0.0
    perf = time.perf_counter
    for table, stream in zip(tables, streams):
        apply = table.apply
        items = stream.items
        t0 = perf()
        for t, action in items:
            try:
                apply(action, t)
            except Rejected:
                pass
        total += perf() - t0
    return total


@dataclass
class ApplyFigures:
    """Result of :func:`bench_apply`. ``seconds`` is the median total time in ``Table.apply`` (s)
    over the repeats (``runs``: each repeat's time);
    ``per_s`` = (accepted + rejected) / seconds, in actions per second. ``faithful``: replaying
    the merged streams accepted exactly the recorded actions, as in the simulation."""

    pairs: int
    matches: int
    accepted: int
    rejected: int
    seconds: float
    mix: Counter[str]
    faithful: bool = True
    runs: list[float] = field(default_factory=list)

    @property
    def actions(self) -> int:
        """Applications timed: accepted plus rejected."""
        return self.accepted + self.rejected

    @property
    def per_s(self) -> float:
        """Actions (accepted + rejected) applied per second."""
        return self.actions / self.seconds

    @property
    def accepted_per_s(self) -> float:
        """Accepted actions applied per second (same time base)."""
        return self.accepted / self.seconds


def record_streams(rules: RuleSet, matches: int, first_seed: int = 1) -> list[Stream]:
    """:func:`record_stream` for ``matches`` consecutive seeds."""
    return [record_stream(rules, first_seed + i) for i in range(matches)]


def bench_apply(streams: Sequence[Stream], repeats: int) -> ApplyFigures:
    """Time only ``Table.apply`` over ``streams``: the median of ``repeats`` runs (each kept)."""
    accepted = rejected = 0
    mix: Counter[str] = Counter()
    for s in streams:
        ok, bad, m = _outcomes(s)
        accepted += ok
        rejected += bad
        mix += m
    runs = [_time_streams(streams) for _ in range(max(1, repeats))]
    # The merged stream is faithful when the table accepts exactly the recorded actions (and so
    # rejects exactly the merged attempts), as it did in the simulation.
    faithful = accepted == sum(len(s.record.actions) for s in streams)
    return ApplyFigures(streams[0].record.rules.pairs, len(streams), accepted, rejected,
                        statistics.median(runs), mix, faithful, runs)


# == 2. Whole simulated matches =====================================================================
@dataclass
class SimFigures:
    """Result of :func:`bench_sim`: ``seconds`` is the median wall time (s) for all ``matches``
    over the repeats (``runs``: each repeat's time; ``cpu_s``: CPU seconds of all repeats)."""

    pairs: int
    matches: int
    hands: int
    actions: int
    rejected: int
    seconds: float
    runs: list[float] = field(default_factory=list)
    cpu_s: float = 0.0
    sim_cpu: list[float] = field(default_factory=list)  # CPU s of the matches, each repeat
    floor_cpu: list[float] = field(default_factory=list)  # CPU s of the floor, each repeat

    @property
    def floor_ratios(self) -> list[float]:
        """Each repeat's CPU time of the simulated matches over that of the floor right after it
        (:func:`replay_floor` over the same matches' records): how many times the bare engine
        loop the whole simulation costs."""
        return [a / b for a, b in zip(self.sim_cpu, self.floor_cpu) if b > 0]

    @property
    def hands_per_s(self) -> float:
        """Hands dealt (``Table.hand_no`` summed over matches) per second of wall time."""
        return self.hands / self.seconds

    @property
    def hands_per_cpu_s(self) -> float:
        """Hands dealt per CPU second of this process (all repeats)."""
        return self.hands * max(1, len(self.runs)) / self.cpu_s if self.cpu_s > 0 else 0.0

    @property
    def matches_per_s(self) -> float:
        """Whole matches per second of wall time."""
        return self.matches / self.seconds


def replay_floor(records: Sequence[MatchRecord]) -> int:
    """The simulator's floor: the minimal loop of engine applies that plays ``records`` again (a
    fresh table each, every accepted action through ``Table.apply`` at its time, then the
    record's end), nothing else: no bots, no driver, no views, no checks. Returns the actions."""
    actions = 0
    for record in records:
        table = Table(record.rules, record.names, record.first_dealer)
        apply = table.apply
        for t, action in record.actions:
            apply(action, t)
        if record.end is not None:
            table.advance(record.end)
        actions += len(record.actions)
    return actions


def bench_sim(rules: RuleSet, matches: int, repeats: int, first_seed: int = 1,
              level: str = "simple") -> SimFigures:
    """Time :func:`simulate_match` (``keep_events=False``, bots of ``level`` in every seat) over
    ``matches`` seeds: the median of ``repeats`` runs over the same seeds (each kept), each run
    followed by the floor (:func:`replay_floor` over the same matches' records), alternating, so
    each repeat gives its own ratio to the floor (:attr:`SimFigures.floor_ratios`)."""
    from kemps.bots import bot_factory

    bots = bot_factory(level)
    runs: list[float] = []
    sim_cpu: list[float] = []
    floor_cpu: list[float] = []
    cpu = time.process_time
    hands = actions = rejected = 0
    for _ in range(max(1, repeats)):
        hands = actions = rejected = 0
        records: list[MatchRecord] = []
        c0, t0 = cpu(), time.perf_counter()
        for i in range(matches):
            result = simulate_match(rules, first_seed + i, bots=bots, keep_events=False)
            hands += result.table.hand_no
            actions += result.actions
            rejected += result.rejected
            records.append(result.record)
        runs.append(time.perf_counter() - t0)
        sim_cpu.append(cpu() - c0)
        c0 = cpu()
        replay_floor(records)
        floor_cpu.append(cpu() - c0)
    return SimFigures(rules.pairs, matches, hands, actions, rejected, statistics.median(runs),
                      runs, sum(sim_cpu), sim_cpu, floor_cpu)


# == 3. Memory of one table =========================================================================
SWAPS_PER_TABLE: Final = 6


def mid_hand_table(rules: RuleSet, deal: Deal, swaps: int = SWAPS_PER_TABLE) -> Table:
    """A table dealt ``deal`` at t=0 and then ``swaps`` legal one-card swaps (seats in turn, each
    giving its first card for the first middle card), so it is mid-hand with timers pending."""
    table = Table(rules)
    table.apply(deal, 0.0)
    for k in range(swaps):
        seat = k % table.n
        take = next(c for c in table.middle if c is not None)
        table.apply(Swap(seat, (take,), (table.hands[seat][0],)), 0.5 + 0.25 * k)
    return table


def _deals(rules: RuleSet, count: int, seed: int = 7) -> list[Deal]:
    rng = random.Random(seed)
    return [Deal(tuple(shuffled_pack(rules.deck_count, rng)), rng.randrange(2**31))
            for _ in range(count)]


def tracemalloc_bytes_per_table(rules: RuleSet, count: int) -> float:
    """Bytes allocated (and still held) per mid-hand table, by :mod:`tracemalloc`.

    Deal actions and the list holding the tables are made before tracing starts; the traced
    difference after building and dealing ``count`` tables, divided by ``count``, is the figure.
    Temporary objects (events, swap actions) are freed before the second reading.
    """
    deals = _deals(rules, count)
    mid_hand_table(rules, deals[0])  # warm up any lazily built caches
    tables: list[Table | None] = [None] * count
    gc.collect()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(count):
            tables[i] = mid_hand_table(rules, deals[i])
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        if not was_tracing:
            tracemalloc.stop()
    del tables
    return (after - before) / count


#: What the recursive walk of :func:`deep_size` does not count, in the words of the report.
DEEP_SIZE_EXCLUDES: Final = (
    ("the interned `Card` objects (one shared object per card for the whole process; the 8-byte "
     "references to them inside the table's lists and tuples *are* counted)"),
    "the `RuleSet` (a shared, immutable preset)",
    ("classes and functions (the `type` keys of the `_handlers` dict, and each bound method's "
     "`__func__`) and each bound method's `__self__` (the table itself, already counted); the "
     "handler dict and its bound-method objects themselves *are* counted"),
    "`None`, `True`, `False` and CPython's cached small ints (-5..256)",
    "strings interned by the compiler (the `phase` literal); the seat names *are* counted",
)


def _slot_names(obj: object) -> Iterable[str]:
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        yield from slots


def deep_size(table: Table) -> tuple[int, dict[str, int]]:
    """Recursive ``sys.getsizeof`` of ``table`` in bytes, and the bytes under each attribute.

    Each object is counted once (by identity); the exclusions are :data:`DEEP_SIZE_EXCLUDES`.
    """
    seen: set[int] = set()

    def excluded(o: object) -> bool:
        if o is None or o is True or o is False or isinstance(
                o, Card | RuleSet | type | FunctionType | BuiltinFunctionType | ModuleType):
            return True
        if type(o) is int and -5 <= o <= 256:
            return True
        return type(o) is str and o in _INTERNED_LITERALS

    def size(o: object) -> int:
        if excluded(o) or id(o) in seen:
            return 0
        seen.add(id(o))
        total = sys.getsizeof(o)
        if isinstance(o, MethodType):
            return total  # not __self__ (the table) nor __func__ (shared code)
        if isinstance(o, dict):
            for k, v in o.items():
                total += size(k) + size(v)
        elif isinstance(o, list | tuple | set | frozenset):
            for x in o:
                total += size(x)
        elif isinstance(o, str | int | float | bool | random.Random):
            pass  # flat (Random holds its Mersenne Twister state inline)
        else:
            for name in _slot_names(o):
                if hasattr(o, name):
                    total += size(getattr(o, name))
            d = getattr(o, "__dict__", None)
            if d is not None:
                total += size(d)
        return total

    seen.add(id(table))
    total = sys.getsizeof(table)
    parts: dict[str, int] = {}
    for name in _slot_names(table):
        if hasattr(table, name):
            parts[name] = size(getattr(table, name))
            total += parts[name]
    return total, parts


_INTERNED_LITERALS: Final = frozenset({"huddle", "dealt", "play", "over"})


@dataclass
class MemoryFigures:
    """Result of :func:`bench_memory`; all sizes in bytes."""

    pairs: int
    tables: int
    tracemalloc_bytes: float
    deep_bytes: int
    parts: dict[str, int] = field(default_factory=dict)


def bench_memory(rules: RuleSet, count: int) -> MemoryFigures:
    """Both memory figures for a mid-hand table (:func:`mid_hand_table`)."""
    traced = tracemalloc_bytes_per_table(rules, count)
    deep, parts = deep_size(mid_hand_table(rules, _deals(rules, 1, seed=11)[0]))
    return MemoryFigures(rules.pairs, count, traced, deep, parts)


# == 4. Replay ======================================================================================
@dataclass
class ReplayFigures:
    """Result of :func:`bench_replay`: best wall time (s) to replay all ``matches`` records."""

    pairs: int
    matches: int
    actions: int
    seconds: float

    @property
    def per_s(self) -> float:
        """Recorded actions replayed per second (table construction and the final advance
        included, as :func:`kemps.record.replay` does them)."""
        return self.actions / self.seconds


def bench_replay(records: Sequence[MatchRecord], repeats: int) -> ReplayFigures:
    """Time :func:`kemps.record.replay` over ``records``, best of ``repeats`` runs."""
    actions = sum(len(r.actions) for r in records)
    best = float("inf")
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        for r in records:
            replay(r)
        best = min(best, time.perf_counter() - t0)
    return ReplayFigures(records[0].rules.pairs, len(records), actions, best)


# == the report =====================================================================================
def machine_info() -> dict[str, str]:
    """Platform, Python, CPU count and processor of this machine, as display strings."""
    processor = platform.processor() or "(empty)"
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "Platform": platform.platform(),
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "CPU count (os.cpu_count())": str(os.cpu_count()),
        "Processor (platform.processor())": processor,
        "CPU model (/proc/cpuinfo)": model or "(not available)",
        "Speed reference (10 million additions in a Python loop, best of 3)":
            f"{speed_reference():.2f} s (the same machine has shown 0.4-1.6 s: its speed varies "
            "with the host, and every figure above with it)",
        "kemps": __version__,
    }


def speed_reference() -> float:
    """Seconds for 10 million integer additions in a pure Python loop, best of 3: a yardstick
    for comparing runs of this benchmark on a machine whose speed varies."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.perf_counter() - t0)
    return best


# == 0. Floors measured in the same run ============================================================
@dataclass
class FloorFigures:
    """``Table.apply`` on legal one-card swaps against the floor, a plain-Python swap on ints
    with a four-of-a-kind check, in the same run: nanoseconds per swap for each repeat (wall
    time), and the CPU seconds of the whole measurement."""

    swaps: int
    engine_ns: list[float]
    floor_ns: list[float]
    cpu_s: float
    engine_cpu_ns: list[float] = field(default_factory=list)
    floor_cpu_ns: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        """Median engine time per swap over the median floor time per swap (wall time)."""
        return statistics.median(self.engine_ns) / statistics.median(self.floor_ns)

    @property
    def cpu_ratio(self) -> float:
        """The same ratio in CPU time of this process (time.process_time): what the engine
        costs, less the time other work on the machine took the core away."""
        return statistics.median(self.engine_cpu_ns) / statistics.median(self.floor_cpu_ns)


def _swap_stream(rules: RuleSet, swaps: int, seed: int = 3) -> tuple[Table, list[Swap]]:
    """A dealt table and ``swaps`` legal one-card swaps for it (seats in turn, each giving its
    first card for a middle card chosen at random), found by playing them once on a copy."""
    deal = _deals(rules, 1, seed)[0]
    rng = random.Random(seed)
    fresh = Table(rules.replace(idle_sweep_s=0.0))
    fresh.apply(deal, 0.0)
    trial = Table(rules.replace(idle_sweep_s=0.0))
    trial.apply(deal, 0.0)
    stream: list[Swap] = []
    for k in range(swaps):
        seat = k % trial.n
        middle = [c for c in trial.middle if c is not None]
        swap = Swap(seat, (rng.choice(middle),), (trial.hands[seat][0],))
        trial.apply(swap, 1.0)
        stream.append(swap)
    return fresh, stream


def bench_swap_floor(rules: RuleSet, swaps: int, repeats: int) -> FloorFigures:
    """Time ``swaps`` legal one-card swaps through ``Table.apply`` (each repeat on a fresh table
    dealt the same way) and the same number of plain-Python swaps on ints (a hand and a middle as
    lists of rank*4+suit, the swap, then the four-of-a-kind check), alternating, ``repeats``
    times each."""
    perf, cpu = time.perf_counter, time.process_time
    engine_ns: list[float] = []
    floor_ns: list[float] = []
    engine_cpu: list[float] = []
    floor_cpu: list[float] = []
    cpu0 = time.process_time()
    for _ in range(max(1, repeats)):
        table, stream = _swap_stream(rules, swaps)
        apply = table.apply
        c0, t0 = cpu(), perf()
        for swap in stream:
            apply(swap, 1.0)
        engine_ns.append(1e9 * (perf() - t0) / swaps)
        engine_cpu.append(1e9 * (cpu() - c0) / swaps)
        hands = [[(4 * s + i) % 52 for i in range(4)] for s in range(rules.players)]
        middle = [48, 49, 50, 51]
        n = len(hands)
        c0, t0 = cpu(), perf()
        for k in range(swaps):
            hand = hands[k % n]
            slot = k & 3
            hand[0], middle[slot] = middle[slot], hand[0]
            first = hand[0] >> 2
            _four = (hand[1] >> 2 == first and hand[2] >> 2 == first and hand[3] >> 2 == first)
        floor_ns.append(1e9 * (perf() - t0) / swaps)
        floor_cpu.append(1e9 * (cpu() - c0) / swaps)
    return FloorFigures(swaps, engine_ns, floor_ns, time.process_time() - cpu0, engine_cpu,
                        floor_cpu)
