"""The environment's throughput, as a ratio to a plain loop over the driver in the same run.

Run ``python -m kemps.env.bench`` (options: ``--ticks``, ``--repeats``, ``--preset``, ``--pairs``).

Each run plays masked-random agents in seats 0 and 2 against club bots for about ``ticks``
environment steps (whole matches, as many as fit), timing :meth:`reset` and :meth:`step` only (the
random policy is not timed). The floor replays the very same episodes through a plain loop over
:class:`kemps.driver.MatchDriver`: the same tick cadence, the agents' accepted actions applied with
``act`` at their times, ``wake`` for the rest, so the table and the bots do the same work without
views, observations, masks or decoding. Its match records must equal the environment's (checked).
Each run times both best of three, taking turns; the figures are steps (ticks) per second of wall
time, median and spread over the runs; their ratio does not depend much on the machine's speed,
which varies.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import numpy as np

from kemps.driver import MatchDriver
from kemps.env.core import KempsParallelEnv
from kemps.record import MatchRecord


def _env_run(par: KempsParallelEnv, ticks: int, seed: int) -> tuple[float, int, list[MatchRecord]]:
    rng = np.random.default_rng(seed)
    spent, steps, records = 0.0, 0, []
    clock = time.perf_counter
    t0 = clock()
    obs, _ = par.reset(seed=seed)
    spent += clock() - t0
    while True:
        while par.agents:
            actions = {}
            for a in par.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(legal[rng.integers(len(legal))]) if rng.random() < 0.3 else 0
            t0 = clock()
            obs, *_ = par.step(actions)
            spent += clock() - t0
            steps += 1
        records.append(par.record())
        if steps >= ticks:
            return spent, steps, records
        t0 = clock()
        obs, _ = par.reset()
        spent += clock() - t0


def _many_run(par_args: dict[str, Any], envs: int, ticks: int, seed: int) -> tuple[float, int]:
    """``envs`` environments in one process, stepped in turn (each reset when its match ends),
    for about ``ticks`` steps in all: (seconds in reset and step, steps)."""
    pars = [KempsParallelEnv(**par_args) for _ in range(envs)]
    rng = np.random.default_rng(seed)
    clock = time.perf_counter
    t0 = clock()
    obs = [par.reset(seed=seed + i)[0] for i, par in enumerate(pars)]
    spent, steps = clock() - t0, 0
    while steps < ticks:
        for i, par in enumerate(pars):
            actions = {}
            for a in par.agents:
                legal = np.flatnonzero(obs[i][a]["action_mask"])
                actions[a] = int(legal[rng.integers(len(legal))]) if rng.random() < 0.3 else 0
            t0 = clock()
            obs[i] = par.step(actions)[0]
            if not par.agents:
                obs[i] = par.reset()[0]
            spent += clock() - t0
            steps += 1
    return spent, steps


def _driver_run(par: KempsParallelEnv, records: list[MatchRecord]) -> tuple[float, int, bool]:
    """Replay each episode's agent actions through a bare driver at the same ticks."""
    spent, ticks, same = 0.0, 0, True
    agents = set(par.seats)
    clock = time.perf_counter
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


def run(episodes: int = 0, ticks: int = 3000, repeats: int = 5, seed: int = 1,
        preset: str = "pagat", pairs: int = 2, best_of: int = 3, envs: int = 8
        ) -> dict[str, Any]:
    """Measure; returns ``{"env_steps_per_s", "driver_ticks_per_s", "ratio"}`` (medians over
    ``repeats``), ``"runs"`` (each repeat's figures), ``"spread"`` (min and max of each) and
    ``"same_records"`` (the floor replayed exactly the environment's matches); with ``envs``
    above 1 also ``"many_steps_per_s"`` (all steps of ``envs`` environments stepped in turn in
    one process, per second) and ``"many_ratio"`` (that over one environment's, in the same run).

    Each repeat plays its own seed; inside it the environment and the floor take turns
    ``best_of`` times on the very same matches (the environment is deterministic under a seed)
    and the best time of each counts, so that a burst of load on a shared machine spoils one
    timing, not the ratio. ``episodes`` is kept for the call's shape; ``ticks`` sets the length.
    """
    runs: list[dict[str, float]] = []
    same = True
    for r in range(repeats):
        par = KempsParallelEnv(preset, pairs=pairs, agent_seats=[0, pairs], bot_level="club")
        env_best = floor_best = float("inf")
        steps = floor_ticks = 0
        records: list[MatchRecord] = []
        for _ in range(best_of):
            spent, steps, records = _env_run(par, ticks, seed + r)
            env_best = min(env_best, spent)
            floor_spent, floor_ticks, ok = _driver_run(par, records)
            floor_best = min(floor_best, floor_spent)
            same = same and ok
        env_rate = steps / env_best
        floor_rate = floor_ticks / floor_best
        row = {"env_steps_per_s": env_rate, "driver_ticks_per_s": floor_rate,
               "ratio": env_rate / floor_rate, "steps": float(steps),
               "matches": float(len(records))}
        if envs > 1:
            args = {"rules": preset, "pairs": pairs, "agent_seats": [0, pairs],
                    "bot_level": "club"}
            spent_many, steps_many = min(_many_run(args, envs, ticks, seed + r)
                                         for _ in range(best_of))
            row["many_steps_per_s"] = steps_many / spent_many
            row["many_ratio"] = row["many_steps_per_s"] / env_rate
        runs.append(row)
    keys: tuple[str, ...] = ("env_steps_per_s", "driver_ticks_per_s", "ratio")
    if envs > 1:
        keys += ("many_steps_per_s", "many_ratio")
    return {**{k: statistics.median(x[k] for x in runs) for k in keys},
            "spread": {k: (min(x[k] for x in runs), max(x[k] for x in runs)) for k in keys},
            "runs": runs, "same_records": same, "preset": preset, "pairs": pairs,
            "ticks": ticks, "repeats": repeats, "best_of": best_of, "envs": envs,
            "episodes": episodes}


def main(argv: list[str] | None = None) -> None:
    """Print the figures as a Markdown table."""
    parser = argparse.ArgumentParser(prog="python -m kemps.env.bench", description=__doc__
                                     .split("\n")[0])
    parser.add_argument("--ticks", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--preset", default="pagat")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--best-of", type=int, default=3)
    parser.add_argument("--envs", type=int, default=8, help="environments in one process")
    parser.add_argument("--seed", type=int, default=random.Random().randrange(1000))
    args = parser.parse_args(argv)
    res = run(ticks=args.ticks, repeats=args.repeats, seed=args.seed, preset=args.preset,
              pairs=args.pairs, best_of=args.best_of, envs=args.envs)
    print(f"kemps.env throughput: {args.preset}, {args.pairs} pairs, agents in seats 0 and "
          f"{args.pairs} vs club bots, {args.repeats} runs of about {args.ticks} steps, best of "
          f"{args.best_of} each (seed {args.seed}); the floor replayed the same matches: "
          f"{res['same_records']}")
    print()
    print("| Figure | Median | Spread (min - max) |")
    print("|---|---:|---:|")
    names = {"env_steps_per_s": "Environment steps/s (one env)",
             "driver_ticks_per_s": "Plain driver loop, ticks/s (floor)",
             "ratio": "Ratio env / floor",
             "many_steps_per_s": f"{args.envs} environments in one process, steps/s in all",
             "many_ratio": f"Ratio {args.envs} environments / one"}
    for key, label in names.items():
        if key not in res["spread"]:
            continue
        lo, hi = res["spread"][key]
        fmt = "{:.3f}" if key.endswith("ratio") else "{:,.0f}"
        print(f"| {label} | {fmt.format(res[key])} | {fmt.format(lo)} - {fmt.format(hi)} |")


if __name__ == "__main__":
    main()
