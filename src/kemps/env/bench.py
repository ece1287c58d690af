"""The environment's speed, as ratios to the engine measured in the same run.

Run ``python -m kemps.env.bench`` (options: ``--ticks``, ``--repeats``, ``--preset``, ``--pairs``,
``--tables``, ``--vector-steps``).

Each repeat, on its own seed:

1. **One environment step against one engine apply.** A :class:`KempsParallelEnv` with an agent in
   every seat plays masked-random actions (uniform over each agent's legal actions, every step)
   for about ``ticks`` steps (whole matches); :meth:`reset` and :meth:`step` are timed, the
   random choosing is not. The floor is ``Table.apply`` over every action of the very same
   matches (their records: deals, the agents' accepted moves, timers firing inside), each match
   applied to a fresh table built untimed. The figure is the time of one step over the time of
   one apply.
2. **The environment against a bare driver loop**: the same matches replayed through a plain loop
   over :class:`kemps.driver.MatchDriver` at the same ticks (:func:`driver_replay`): the same table
   work without views, observations, masks or decoding. Its records must equal the
   environment's (checked).
3. **The vector environment**: ``tables`` tables (1,024 by default) with an agent in every seat,
   masked-random actions drawn for all at once (:meth:`KempsVectorEnv.sample_actions`, timed
   with the step), ``vector_steps`` steps after 35 untimed ones (the first deal comes after 3 s of
   huddle); the figure is seat-actions (steps x tables x agent seats: every agent gives one
   action a step, the no-op included) per CPU-second of this process.

Every time is CPU time of this process (``time.process_time``), so that the time other work on
a shared machine takes the core away is not counted (its share of the caches still is). Steps 1
and 2 take turns ``best_of`` times on the same matches and the best time of each counts. The
figures are medians with their spread over the repeats; the machine's load average is read
before and after. Nothing here is compared with a figure from another run.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from typing import Any

import numpy as np

from kemps.driver import MatchDriver
from kemps.env.core import KempsParallelEnv
from kemps.env.vector import vector_env
from kemps.record import MatchRecord
from kemps.table import Table


def _env_run(par: KempsParallelEnv, ticks: int, seed: int) -> tuple[float, int, list[MatchRecord]]:
    rng = np.random.default_rng(seed)
    spent, steps, records = 0.0, 0, []
    clock = time.process_time
    t0 = clock()
    _, infos = par.reset(seed=seed)
    spent += clock() - t0
    while True:
        while par.agents:
            actions = {}
            for a in par.agents:
                legal = np.flatnonzero(infos[a]["action_mask"])
                actions[a] = int(legal[rng.integers(len(legal))])
            t0 = clock()
            _, _, _, _, infos = par.step(actions)
            spent += clock() - t0
            steps += 1
        records.append(par.record())
        if steps >= ticks:
            return spent, steps, records
        t0 = clock()
        _, infos = par.reset()
        spent += clock() - t0


def _apply_run(records: list[MatchRecord]) -> tuple[float, int]:
    """Every action of ``records`` through ``Table.apply`` on fresh tables (built untimed):
    (seconds, applies)."""
    spent, applies = 0.0, 0
    clock = time.process_time
    for record in records:
        table = Table(record.rules, record.names, record.first_dealer)
        apply = table.apply
        actions = record.actions
        t0 = clock()
        for t, action in actions:
            apply(action, t)
        spent += clock() - t0
        applies += len(actions)
    return spent, applies


def _driver_run(par: KempsParallelEnv, records: list[MatchRecord]) -> tuple[float, int, bool]:
    """Replay each episode's agent actions through a bare driver at the same ticks."""
    spent, ticks, same = 0.0, 0, True
    agents = set(par.seats)
    clock = time.process_time
    for record in records:
        moves = [(t, a) for t, a in record.actions if a.seat in agents]
        last = (record.end or 0.0) if not record.actions else max(record.actions[-1][0],
                                                                    record.end or 0.0)
        t0 = clock()
        driver, _ = par.seat_table(int(record.meta["seed"]))
        replayed = _plain_loop(driver, moves, par.tick_s, last)
        spent += clock() - t0
        ticks += replayed
        same = same and driver.recorder.record.to_json() == record.to_json()
    return spent, ticks, same


def _vector_run(preset: str, pairs: int, tables: int, steps: int, seed: int
                ) -> tuple[float, int]:
    """``tables`` tables, every seat an agent, ``steps`` masked-random steps after 35 untimed:
    (CPU seconds, seat-actions)."""
    vec = vector_env(tables, preset, seed=seed, pairs=pairs)
    rng = np.random.default_rng(seed)
    vec.reset()
    for _ in range(35):
        vec.step(vec.sample_actions(rng))
    cpu = time.process_time
    t0 = cpu()
    for _ in range(steps):
        vec.step(vec.sample_actions(rng))
    return cpu() - t0, steps * tables * len(vec.seats)


def driver_replay(par: KempsParallelEnv, record: MatchRecord) -> MatchRecord:
    """The episode of ``record`` (played by ``par`` or a table of a vector environment with the
    same options) played again through a bare :class:`MatchDriver` with no environment: the
    same seed, the agents' accepted actions applied with ``act`` at their times, ``wake`` at
    every tick for the rest. Returns the driver's record: equal to ``record`` when the
    environment changed nothing of the rules (tests and the benchmark check it)."""
    agents = set(par.seats)
    moves = [(t, a) for t, a in record.actions if a.seat in agents]
    last = (record.end or 0.0) if not record.actions else max(record.actions[-1][0],
                                                                record.end or 0.0)
    driver, _ = par.seat_table(int(record.meta["seed"]))
    _plain_loop(driver, moves, par.tick_s, last)
    return driver.recorder.record


def _plain_loop(driver: MatchDriver, moves: list[tuple[float, Any]], tick_s: float,
                last: float) -> int:
    driver.start(0.0)
    driver.wake(0.0)
    i, tick, table = 0, 0, driver.table
    while not table.is_over():
        end = (tick + 1) * tick_s
        while i < len(moves) and moves[i][0] < end:
            t, action = moves[i]
            driver.wake(t)
            driver.act(action.seat, action, t)
            i += 1
        if not table.is_over():
            driver.wake(end)
        tick += 1
        if end > last + tick_s and i >= len(moves):
            break
    return tick


def run(ticks: int = 3000, repeats: int = 5, seed: int = 1, preset: str = "pagat",
        pairs: int = 2, best_of: int = 3, tables: int = 1024, vector_steps: int = 20
        ) -> dict[str, Any]:
    """Measure (see the module docstring). Returns the medians of ``"step_us"`` (one
    environment step, microseconds), ``"apply_us"`` (one ``Table.apply``), ``"step_per_apply"``
    (their ratio), ``"env_steps_per_s"``, ``"driver_ticks_per_s"``, ``"env_per_driver"`` and,
    with ``tables`` above 0, ``"vector_seat_actions_per_cpu_s"``; ``"spread"`` (min and max of
    each), ``"runs"`` (each repeat's figures), ``"same_records"`` (the driver loop replayed
    exactly the environment's matches), ``"load"`` (the 1-minute load average before and after)
    and the arguments."""
    load0 = os.getloadavg()[0]
    runs: list[dict[str, float]] = []
    same = True
    for r in range(repeats):
        par = KempsParallelEnv(preset, pairs=pairs)
        env_best = apply_best = floor_best = float("inf")
        steps = applies = floor_ticks = 0
        records: list[MatchRecord] = []
        for _ in range(best_of):
            spent, steps, records = _env_run(par, ticks, seed + r)
            env_best = min(env_best, spent)
            apply_spent, applies = _apply_run(records)
            apply_best = min(apply_best, apply_spent)
            floor_spent, floor_ticks, ok = _driver_run(par, records)
            floor_best = min(floor_best, floor_spent)
            same = same and ok
        step_us = 1e6 * env_best / steps
        apply_us = 1e6 * apply_best / applies
        row = {"step_us": step_us, "apply_us": apply_us, "step_per_apply": step_us / apply_us,
               "env_steps_per_s": steps / env_best,
               "driver_ticks_per_s": floor_ticks / floor_best,
               "env_per_driver": (steps / env_best) / (floor_ticks / floor_best),
               "steps": float(steps), "applies": float(applies), "matches": float(len(records))}
        if tables > 0:
            cpu_s, seat_actions = _vector_run(preset, pairs, tables, vector_steps, seed + r)
            row["vector_seat_actions_per_cpu_s"] = seat_actions / cpu_s
        runs.append(row)
    keys = [k for k in runs[0] if k not in ("steps", "applies", "matches")]
    return {**{k: statistics.median(x[k] for x in runs) for k in keys},
            "spread": {k: (min(x[k] for x in runs), max(x[k] for x in runs)) for k in keys},
            "runs": runs, "same_records": same, "preset": preset, "pairs": pairs,
            "ticks": ticks, "repeats": repeats, "best_of": best_of, "tables": tables,
            "vector_steps": vector_steps, "load": (load0, os.getloadavg()[0])}


def main(argv: list[str] | None = None) -> None:
    """Print the figures as a Markdown table."""
    parser = argparse.ArgumentParser(prog="python -m kemps.env.bench", description=__doc__
                                     .split("\n")[0])
    parser.add_argument("--ticks", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--preset", default="pagat")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--best-of", type=int, default=3)
    parser.add_argument("--tables", type=int, default=1024, help="tables of the vector env")
    parser.add_argument("--vector-steps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=random.Random().randrange(1000))
    args = parser.parse_args(argv)
    res = run(ticks=args.ticks, repeats=args.repeats, seed=args.seed, preset=args.preset,
              pairs=args.pairs, best_of=args.best_of, tables=args.tables,
              vector_steps=args.vector_steps)
    n = 2 * args.pairs
    print(f"kemps.env speed: {args.preset}, {args.pairs} pairs, an agent in each of the {n} "
          f"seats, masked-random actions; {args.repeats} runs of about {args.ticks} steps, best "
          f"of {args.best_of} each (seed {args.seed}); vector env {args.tables} tables, "
          f"{args.vector_steps} steps a run; the driver loop replayed the same matches: "
          f"{res['same_records']}; load (1 min) {res['load'][0]:.1f} before, "
          f"{res['load'][1]:.1f} after")
    print()
    print("| Figure | Median | Spread (min - max) |")
    print("|---|---:|---:|")
    names = {"step_us": "One environment step, µs of CPU",
             "apply_us": "One `Table.apply` (the same matches' actions), µs of CPU",
             "step_per_apply": "Step / apply (goal: at most 20x)",
             "env_steps_per_s": "Environment steps a CPU-second (one env)",
             "driver_ticks_per_s": "Bare driver loop, ticks a CPU-second (the same matches)",
             "env_per_driver": "Ratio env / driver loop",
             "vector_seat_actions_per_cpu_s": f"Vector env, {args.tables} tables: seat-actions "
                                              "a CPU-second"}
    for key, label in names.items():
        if key not in res["spread"]:
            continue
        lo, hi = res["spread"][key]
        fmt = "{:.3f}" if key == "env_per_driver" else (
            "{:.1f}" if key in ("step_us", "apply_us", "step_per_apply") else "{:,.0f}")
        print(f"| {label} | {fmt.format(res[key])} | {fmt.format(lo)} - {fmt.format(hi)} |")


if __name__ == "__main__":
    main()
