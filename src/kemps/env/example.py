"""A small example: a random agent against the club bots.

Run ``python -m kemps.env.example`` (``--help`` for the options). The agent sits in seat 0 (and,
with ``--pair``, its partner's seat too) and picks uniformly among its legal actions, acting on
about one tick in ten (a random agent acting every tick calls Kemps every second or so and loses
at once); the other seats are club bots. Each match's result is printed; ``--record PATH`` saves
the last match as a match record for ``kemps replay PATH``; ``--narrate`` prints the table's
narration as it goes.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from kemps.env.core import KempsParallelEnv


def play(matches: int = 3, seed: int = 1, preset: str = "pagat", level: str = "club",
         pair: bool = False, narrate: bool = False, act_every: float = 0.1,
         record: str | None = None) -> list[dict[str, Any]]:
    """Play ``matches`` whole matches; returns one summary per match: ``{"ticks", "table_s",
    "scores", "rank", "reward", "rejected"}`` (rank and reward of the agent's pair)."""
    agents = [0, 2] if pair else [0]
    par = KempsParallelEnv(preset, agent_seats=agents, bot_level=level,
                           render_mode="ansi" if narrate else None)
    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    for m in range(matches):
        _, infos = par.reset(seed=seed if m == 0 else None)
        reward, rejected = 0.0, 0
        while par.agents:
            actions = {}
            for a in par.agents:
                legal = np.flatnonzero(infos[a]["action_mask"])
                actions[a] = int(rng.choice(legal)) if rng.random() < act_every else 0
            _, rewards, _, _, infos = par.step(actions)
            reward += rewards["seat_0"]
            rejected += sum(1 for i in infos.values() if i["rejected"])
            if narrate:
                text = par.render()
                if text and "\n" in text:
                    print(text)
        table = par.record_table()
        ranks = table.ranks
        out.append({"ticks": par.tick, "table_s": round(par.now, 1), "scores": list(table.scores),
                    "rank": None if ranks is None else ranks[0], "reward": reward,
                    "rejected": rejected})
    if record is not None:
        par.record().save(record)
    return out


def main(argv: list[str] | None = None) -> None:
    """Command line: print each match's result and the agent pair's mean reward."""
    parser = argparse.ArgumentParser(prog="python -m kemps.env.example",
                                     description="A random agent against the club bots.")
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="pagat")
    parser.add_argument("--level", default="club", help="the bots' level")
    parser.add_argument("--pair", action="store_true", help="agents in both seats of pair 0")
    parser.add_argument("--narrate", action="store_true", help="print the table's narration")
    parser.add_argument("--record", default=None, help="save the last match here")
    args = parser.parse_args(argv)
    results = play(args.matches, args.seed, args.preset, args.level, args.pair, args.narrate,
                   record=args.record)
    for i, r in enumerate(results, 1):
        print(f"match {i}: {r['ticks']} steps ({r['table_s']} s of table time), scores "
              f"{r['scores']}, the agent's pair ranked {r['rank']}, reward {r['reward']:+.0f}, "
              f"{r['rejected']} actions refused")
    mean = sum(r["reward"] for r in results) / len(results)
    print(f"mean reward of the agent's pair: {mean:+.2f}")


if __name__ == "__main__":
    main()
