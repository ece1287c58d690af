"""Train the ``learned`` bot level: imitation of the sharp bot with DAgger, in numpy alone.

``python -m kemps.env.train --out weights.npz`` (docs/research.md, "A trained agent")::

    python -m kemps.env.train --rounds 4 --matches 60 --seed 1 --out src/kemps/bots/learned.npz

The method (Ross, Gordon and Bagnell 2011, "DAgger"):

1. **Round 0**: a pair of sharp bots plays whole matches against bots of every level (most often
   ``simple``). At every moment one of its seats is told something (each step it sees, the
   learned bot's own decision points), the seat's observation and action mask are taken on the
   research environment's encoders (:class:`kemps.bots.learned.SeatObserver`, the learned bot's
   own eyes), and labelled with what the sharp bot in that seat decided on what it was just
   told or still means to do: the earliest of its pending plans due within :data:`HORIZON_S`
   that the mask allows, as an action index (:func:`kemps.bots.learned.encode_action`), or the
   no-op. A call labels only the observation that prompted it (:data:`FRESH_ONLY`): the
   observation has no memory, so a later one no longer shows the partner's signal (it is in
   "this tick" once).
2. **Later rounds**: the network plays the pair's seats (exactly as the ``learned`` level plays
   them); a sharp bot in each seat is told everything that seat is told and its plans, never
   made, label the learner's own observations. The data of every round is kept.
3. After each round a multilayer perceptron (:class:`kemps.bots.learned.Network`) is trained on
   all the data so far with masked softmax cross-entropy (illegal actions never scored) and Adam,
   from the previous round's weights. Most labels are the no-op: only a share
   :data:`NOOP_KEEP` of them is kept, each weighted by its inverse so the loss is unchanged in
   expectation.

Everything is seeded (matches, opponents, the sample of no-ops, the initial weights, the order of
minibatches): the same arguments give the same weights. The CPU time of the run is printed.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from kemps.actions import Action
from kemps.bots.base import Bot, Plan
from kemps.bots.learned import (
    REACTION_S,
    LearnedBot,
    Network,
    SeatObserver,
    channel_of,
    encode_action,
)
from kemps.bots.levels import make_bot
from kemps.driver import MatchDriver
from kemps.errors import Rejected
from kemps.events import Event, HandDealt, HandEnded
from kemps.rules import RuleSet, find_preset
from kemps.sim import HUDDLE_S, default_names
from kemps.views import SeatView

#: A sharp plan due within this many seconds of an observation is its label.
HORIZON_S: Final = 1.0
#: The share of no-op labels kept (each weighted 1 / NOOP_KEEP).
NOOP_KEEP: Final = 0.15
#: The teacher's plan channels not taught: its idle gestures (drawn at random from a personal
#: habit, so no observation predicts them; its signals go on the ``signal`` channel).
SKIPPED: Final = frozenset({"gesture"})
#: The teacher's plan channels that label only the observation that prompted them: its calls
#: (the observation has no memory, and the partner's signal shows in "this tick" once).
FRESH_ONLY: Final = frozenset({"call"})
#: The opponents of the pair being taught, drawn for each match.
OPPONENTS: Final = ("simple", "simple", "simple", "casual", "club", "sharp")
#: A match stops after this much table time (seconds).
MAX_TIME_S: Final = 1800.0


@dataclass
class Samples:
    """Observations ``x`` (float16), masks ``m`` (bool), labels ``y`` (action indices) and
    weights ``w``."""

    x: list[npt.NDArray[np.float16]] = field(default_factory=list)
    m: list[npt.NDArray[np.bool_]] = field(default_factory=list)
    y: list[int] = field(default_factory=list)
    w: list[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.y)


class Pupil:
    """One seat of the pair being taught: a sharp bot (the teacher) told everything the seat is
    told, and either the teacher's plans are played (``learner`` None) or the network's; every
    decision point adds a labelled sample to ``samples``."""

    reads_views = True

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random, samples: Samples,
                 learner: Network | None, sample_rng: random.Random) -> None:
        self.seat = seat
        self.rules = rules
        self.teacher = make_bot("sharp", seat, rules, random.Random(rng.randrange(2**32)))
        self.eyes = SeatObserver(seat, rules)
        self.learner = (LearnedBot(seat, rules, random.Random(rng.randrange(2**32)),
                                   REACTION_S, learner) if learner is not None else None)
        self.samples = samples
        self.sample_rng = sample_rng
        self.intent: dict[str, tuple[float, Action]] = {}  # the teacher's plans by channel
        self.fresh: set[str] = set()  # channels planned on since the last decision
        self._stepped = False

    # the teacher's plans, kept as the driver keeps them (a newer plan replaces the older)
    def _note(self, plans: list[Plan], now: float) -> list[Plan]:
        for p in plans:
            if p.action is None:
                self.intent.pop(p.channel, None)
            else:
                self.intent[p.channel] = (now + p.delay, p.action)
                self.fresh.add(p.channel)
        return plans if self.learner is None else []

    def on_partner(self, person: bool) -> None:
        on_partner = getattr(self.teacher, "on_partner", None)
        if on_partner is not None:
            on_partner(person)

    def on_stuck(self, now: float) -> list[Plan]:
        on_stuck = getattr(self.teacher, "on_stuck", None)
        return self._note(on_stuck(now), now) if on_stuck is not None else []

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        self.eyes.heard(events)
        for e in events:
            if isinstance(e, HandDealt | HandEnded):
                self.intent.clear()
            elif getattr(e, "seat", None) == self.seat:
                from kemps.bots.learned import _OWN_MOVES

                channel = _OWN_MOVES.get(e.__class__)
                if channel is not None:
                    self.intent.pop(channel, None)
        plans = self._note(self.teacher.on_events(events, now), now)
        if self.learner is not None:
            self.learner.on_events(events, now)
        self._stepped = True
        return plans

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        self.intent.pop(channel_of(action), None)
        if self.learner is not None:
            self.learner.on_rejected(action, error, now)
            return []
        return self._note(self.teacher.on_rejected(action, error, now), now)

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        plans: list[Plan] = []
        if not self._stepped:  # a view the teacher would be told (a hand's start, a resume)
            plans = self._note(self.teacher.on_view(view, now), now)
        self._stepped = False
        lo, hi = REACTION_S
        obs, mask = self.eyes.observe(view, now, now + (lo + hi) / 2)
        label = self._label(view, mask, now)
        if label != 0 or self.sample_rng.random() < NOOP_KEEP:
            self.samples.x.append(obs.astype(np.float16))
            self.samples.m.append(mask.astype(bool))
            self.samples.y.append(label)
            self.samples.w.append(1.0 if label != 0 else 1.0 / NOOP_KEEP)
        if self.learner is None:
            return plans
        return self.learner.plan(self.learner.network.choose(obs, mask), view)

    def _label(self, view: SeatView, mask: npt.NDArray[np.int8], now: float) -> int:
        for channel, (due, _) in list(self.intent.items()):
            if due < now - HORIZON_S:
                del self.intent[channel]  # never made (the learner played): gone by now
        fresh, self.fresh = self.fresh, set()
        for channel, (due, action) in sorted(self.intent.items(), key=lambda d: d[1][0]):
            if due > now + HORIZON_S:
                break
            if channel in SKIPPED or (channel in FRESH_ONLY and channel not in fresh):
                continue
            index = encode_action(self.rules.players, action, view, self.rules)
            if index is not None and mask[index]:
                return index
        return 0


def play(rules: RuleSet, seed: int, samples: Samples, learner: Network | None) -> int:
    """One match with a taught pair (a random pair) against bots of a level drawn from
    :data:`OPPONENTS`; returns the rank of the taught pair."""
    rng = random.Random(seed)
    n, pairs = rules.players, rules.pairs
    taught = rng.randrange(pairs)
    opponents = rng.choice(OPPONENTS)
    sample_rng = random.Random(rng.randrange(2**32))
    first_dealer = rng.randrange(n)
    bots: dict[int, Bot] = {}
    for s in range(n):
        own = random.Random(rng.randrange(2**32))
        if s % pairs == taught:
            bots[s] = Pupil(s, rules, own, samples, learner, sample_rng)
        else:
            bots[s] = make_bot(opponents, s, rules, own)
    driver = MatchDriver(rules, default_names(n), first_dealer, bots, rng,
                         ready_huddle_s=HUDDLE_S, meta={"seed": seed})
    driver.start(0.0)
    driver.wake(MAX_TIME_S)
    ranks = driver.table.ranks if driver.table.phase == "over" else None
    return int(ranks[taught]) if ranks is not None else pairs


def init_network(sizes: Sequence[int], rng: np.random.Generator, seats: int = 4,
                 pairs: int = 2) -> Network:
    """He-initialised layers of ``sizes`` (inputs with the derived entries, hidden...,
    outputs) for a table of ``seats`` seats."""
    layers = []
    for a, b in itertools.pairwise(sizes):
        w = rng.standard_normal((a, b)).astype(np.float32) * np.float32(np.sqrt(2.0 / a))
        layers.append((w, np.zeros(b, dtype=np.float32)))
    return Network(layers, seats, pairs)


def fit(net: Network, samples: Samples, epochs: int, rng: np.random.Generator,
        batch: int = 256, lr: float = 1e-3, decay: float = 1e-5) -> float:
    """Train ``net`` in place with Adam on masked softmax cross-entropy; the last epoch's mean
    loss."""
    from kemps.bots.learned import derived

    x = np.stack(samples.x)
    m = np.stack(samples.m)
    y = np.asarray(samples.y, dtype=np.int64)
    w = np.asarray(samples.w, dtype=np.float32)
    w = w / w.mean()
    params = [p for layer in net.layers for p in layer]
    mom = [np.zeros_like(p) for p in params]
    vel = [np.zeros_like(p) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    t = 0
    loss = 0.0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        total, count = 0.0, 0
        for start in range(0, len(y), batch):
            idx = order[start:start + batch]
            xb = derived(x[idx].astype(np.float32), net.seats, net.pairs)
            mb, yb, wb = m[idx], y[idx], w[idx]
            # forward
            hs = [xb]
            h = xb
            last = len(net.layers) - 1
            for i, (wt, bs) in enumerate(net.layers):
                h = h @ wt + bs
                if i < last:
                    h = np.maximum(h, 0.0)
                hs.append(h)
            s = np.where(mb, h, -1e9)
            s = s - s.max(axis=1, keepdims=True)
            e = np.exp(s) * mb
            p = e / e.sum(axis=1, keepdims=True)
            rows = np.arange(len(yb))
            total += float(-(wb * np.log(p[rows, yb] + 1e-12)).sum())
            count += len(yb)
            # backward
            g = p
            g[rows, yb] -= 1.0
            g *= (wb / len(yb))[:, None]
            grads: list[npt.NDArray[np.float32]] = []
            for i in range(last, -1, -1):
                wt, _ = net.layers[i]
                grads = [hs[i].T @ g, g.sum(axis=0), *grads]
                if i > 0:
                    g = (g @ wt.T) * (hs[i] > 0)
            t += 1
            for k, (pa, gr) in enumerate(zip(params, grads)):
                gr = gr + decay * pa
                mom[k] = b1 * mom[k] + (1 - b1) * gr
                vel[k] = b2 * vel[k] + (1 - b2) * gr * gr
                mh = mom[k] / (1 - b1 ** t)
                vh = vel[k] / (1 - b2 ** t)
                pa -= (lr * mh / (np.sqrt(vh) + eps)).astype(np.float32)
        loss = total / max(count, 1)
    return loss


def train(rules: RuleSet, rounds: int, matches: int, seed: int, hidden: Sequence[int],
          epochs: int, log: bool = True) -> tuple[Network, dict[str, float]]:
    """DAgger as the module docstring says: ``rounds`` rounds of ``matches`` matches each (the
    first played by the sharp teacher), the network refit after each on all the data so far.
    Returns the network and figures (``cpu_s``, ``samples``, ``loss``, ``rank``: the taught
    pair's mean rank in the last round)."""
    from kemps.env import observe
    from kemps.env.layout import ActionLayout

    cpu0 = time.process_time()
    np_rng = np.random.default_rng(seed)
    from kemps.bots.learned import derived_size

    sizes = [observe.size(rules.players, rules.pairs) + derived_size(rules.players), *hidden,
             ActionLayout(rules.players).size]
    net = init_network(sizes, np_rng, rules.players, rules.pairs)
    samples = Samples()
    figures: dict[str, float] = {}
    for r in range(rounds):
        learner = None if r == 0 else net
        ranks = [play(rules, seed * 1_000_003 + 10_000 * r + k, samples, learner)
                 for k in range(matches)]
        loss = fit(net, samples, epochs, np_rng)
        figures = {"round": r, "samples": len(samples), "loss": loss,
                   "rank": float(np.mean(ranks)), "cpu_s": time.process_time() - cpu0}
        if log:
            print(f"round {r}: {matches} matches ({'sharp' if r == 0 else 'the network'} "
                  f"playing), mean rank {figures['rank']:.2f}, {len(samples)} samples, "
                  f"loss {loss:.3f}, {figures['cpu_s']:.0f} CPU s", flush=True)
    return net, figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="pagat", help="preset (two pairs)")
    parser.add_argument("--rounds", type=int, default=4, help="DAgger rounds (first: sharp)")
    parser.add_argument("--matches", type=int, default=60, help="matches a round")
    parser.add_argument("--epochs", type=int, default=4, help="epochs over the data a round")
    parser.add_argument("--hidden", default="128,128", help="hidden layer sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the .npz to write")
    args = parser.parse_args(argv)
    rules = find_preset(args.rules)
    hidden = [int(h) for h in args.hidden.split(",") if h.strip()]
    net, figures = train(rules, args.rounds, args.matches, args.seed, hidden, args.epochs)
    net.save(args.out, rules=args.rules, rounds=args.rounds, matches=args.matches,
             seed=args.seed, cpu_s=round(figures["cpu_s"], 1), samples=int(figures["samples"]))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) in "
          f"{figures['cpu_s']:.0f} CPU s", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
