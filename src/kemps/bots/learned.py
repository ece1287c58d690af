"""The ``learned`` bot level: a small neural network trained on the research environment's own
observations and action masks (:mod:`kemps.env.observe`, :mod:`kemps.env.layout`), playing with
numpy alone (docs/research.md, "A trained agent").

The network is a multilayer perceptron (two hidden layers, ReLU) from the seat's flat observation
to one score per action index; the bot takes the allowed action (the mask) of the highest score.
Its weights ship in the package (``learned.npz``, float16); ``python -m kemps.env.train`` makes
them again.

**What it sees.** Exactly what its seat may see, on the environment's encoders: after every step
the driver tells it the events as its seat may see them (:func:`kemps.views.events_for`) and its
seat's view (:func:`kemps.views.view_for`; the bot asks for it with ``reads_views = True``, the
same view a person's page is sent with every update). The observation is
:func:`kemps.env.observe.encode` of that view and the events of the step, the mask
:func:`kemps.env.layout.action_mask` of the same, with the cards the seat picked up followed
from its own events (:func:`kemps.env.core.track_held`'s rule), as :mod:`kemps.env.live` does for
a live seat. It never reads the table.

**When it acts.** A decision is taken whenever its seat is told something (a view, a step's
events, a refusal). A chosen action goes out after a reaction time drawn from the bot's own
seeded generator (the level's or the speed's range, seconds), on the channel of its kind
(``cards``, ``gesture``, ``call``, ``table``) as the other bots plan; the same choice again keeps
the plan already pending (so a busy table does not put it off for ever). Given its generator's
seed it plays the same match the same way (records reproducible).

**A person's pair** (docs/bots.md, "A person's pair"): when a person plays its partner it agrees
a signal only while the pair has none.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Sequence
from importlib import resources
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from kemps.actions import (
    Action,
    AgreeSignals,
    Call,
    Discard,
    Gesture,
    Go,
    Grab,
    Object,
    ProposeStall,
    Swap,
)
from kemps.bots.base import Plan
from kemps.cards import Card
from kemps.errors import KempsError, Rejected
from kemps.events import (
    Called,
    Discarded,
    Event,
    Gestured,
    Grabbed,
    HandDealt,
    HandEnded,
    HoldExpired,
    Objected,
    SignalsAgreed,
    StallProposed,
    Swapped,
    Swept,
)
from kemps.rules import RuleSet
from kemps.views import SeatView

#: The shipped weights (package data of :mod:`kemps.bots`).
WEIGHTS_FILE: Final = "learned.npz"
#: The learned level's reaction range, seconds (the sharp bot's, the level it learned from).
REACTION_S: Final = (0.32, 0.85)


def derived_size(seats: int) -> int:
    """How many derived entries :func:`derived` appends for a table of ``seats`` seats."""
    from kemps.env.layout import GESTURES

    return seats + 2 * len(GESTURES)


def derived(x: npt.NDArray[np.float32], seats: int, pairs: int) -> npt.NDArray[np.float32]:
    """Entries computed from the observation alone and appended to it, ``(B, D)`` ->
    ``(B, D + derived_size(seats))``: per seat offset, whether it made the pair's agreed signal
    this tick (the product of its gestures and the own signals, summed); the partner's gestures
    this tick that are the pair's signal (multi-hot); the own signals when the hand holds four of
    a kind (the signal to give). An MLP can learn these products itself, with far more data."""
    from kemps.env import observe
    from kemps.env.layout import GESTURES

    g = len(GESTURES)
    start = {name: at for name, at, _ in observe.parts(seats, pairs)}
    own = x[:, start["own signals"]:start["own signals"] + g]
    tick0 = start["this tick, per seat"]
    per_seat = np.stack([x[:, tick0 + k * observe.TICK_SEAT:tick0 + k * observe.TICK_SEAT + g]
                         for k in range(seats)], axis=1)  # (B, seats, G)
    gave = (per_seat * own[:, None, :]).sum(axis=2)  # (B, seats)
    partner = per_seat[:, pairs, :] * own
    ranks = x[:, start["hand ranks"]:start["hand ranks"] + 13]
    four = (ranks.max(axis=1, keepdims=True) >= 0.999).astype(np.float32)
    out: npt.NDArray[np.float32] = np.concatenate(
        [x, np.minimum(gave, 1.0), partner, own * four], axis=1).astype(np.float32)
    return out


class Network:
    """A multilayer perceptron: ``x -> relu(x W0 + b0) -> ... -> scores``, on the observation
    with the entries of :func:`derived` appended.

    ``layers``: ``[(W, b), ...]`` float32, ``W`` of shape ``(inputs, outputs)``; ``seats`` /
    ``pairs`` the table it plays. ``scores(x)`` takes ``(D,)`` or ``(B, D)`` observations and
    gives ``(A,)`` or ``(B, A)`` scores.
    """

    def __init__(self, layers: Sequence[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]],
                 seats: int = 4, pairs: int = 2) -> None:
        self.layers = [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32))
                       for w, b in layers]
        self.seats = seats
        self.pairs = pairs

    @property
    def inputs(self) -> int:
        """The observation length the network takes (without the derived entries)."""
        return int(self.layers[0][0].shape[0]) - derived_size(self.seats)

    @property
    def outputs(self) -> int:
        """The number of action indices it scores."""
        return int(self.layers[-1][0].shape[1])

    def scores(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """One score per action index (higher: more wanted)."""
        one = x.ndim == 1
        h = derived(x[None, :] if one else x, self.seats, self.pairs)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                h = np.maximum(h, 0.0)
        out: npt.NDArray[np.float32] = h.astype(np.float32, copy=False)
        return out[0] if one else out

    def choose(self, x: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        """The allowed index (``mask`` 1) of the highest score; ties go to the lowest index."""
        s = self.scores(x)
        s = np.where(mask.astype(bool), s, -np.inf)
        return int(np.argmax(s))

    def save(self, path: Any, **meta: Any) -> None:
        """Write the weights as float16 to an ``.npz`` (``W0, b0, W1, b1, ...``) with ``meta``
        (numbers or strings) beside them."""
        arrays: dict[str, Any] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"W{i}"] = w.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float16)
        arrays["seats"] = np.asarray(self.seats)
        arrays["pairs"] = np.asarray(self.pairs)
        for k, v in meta.items():
            arrays[f"meta_{k}"] = np.asarray(v)
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Any) -> Network:
        """The network saved by :meth:`save` (a path or a file object).

        Raises:
            KempsError: ``bad_weights`` for a file that holds no such network.
        """
        try:
            with np.load(path) as data:
                layers = []
                i = 0
                while f"W{i}" in data:
                    layers.append((data[f"W{i}"].astype(np.float32),
                                   data[f"b{i}"].astype(np.float32)))
                    i += 1
                seats = int(data["seats"]) if "seats" in data else 4
                pairs = int(data["pairs"]) if "pairs" in data else 2
        except (OSError, ValueError, KeyError) as err:
            raise KempsError("bad_weights", f"Cannot read the weights: {err}.") from err
        if not layers or any(w.ndim != 2 or b.shape != (w.shape[1],) for w, b in layers) or any(
                a[0].shape[1] != b[0].shape[0] for a, b in itertools.pairwise(layers)):
            raise KempsError("bad_weights", "The file holds no multilayer perceptron.")
        if not 2 <= 2 * pairs == seats <= 24:
            raise KempsError("bad_weights", f"The file names a table of {seats} seats.")
        net = cls(layers, seats, pairs)
        if net.inputs <= 0:
            raise KempsError("bad_weights", "The file's network takes too few inputs.")
        return net


@functools.lru_cache(maxsize=1)
def shipped_network() -> Network:
    """The network whose weights ship in the package (loaded once)."""
    ref = resources.files("kemps.bots").joinpath(WEIGHTS_FILE)
    with ref.open("rb") as f:
        return Network.load(f)


class LearnedPolicy:
    """The shipped network as a ``kemps agent`` policy: ``policy(observation, mask) -> int``
    (``kemps agent URL --policy kemps.bots.learned:policy``). Deterministic: ``seed(n)`` is
    accepted and changes nothing."""

    def __init__(self, network: Network | None = None) -> None:
        self._network = network

    def seed(self, n: int) -> None:
        """Nothing to seed: the policy takes the highest-scoring allowed action."""

    def __call__(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        net = self._network if self._network is not None else shipped_network()
        return net.choose(observation, mask)


#: ``kemps agent URL --policy kemps.bots.learned:policy``.
policy = LearnedPolicy()


def encode_action(seats: int, action: Action, view: SeatView, rules: RuleSet) -> int | None:
    """The action index (:class:`kemps.env.layout.ActionLayout` of ``seats`` seats) that names
    ``action`` on ``view``: the inverse of :func:`kemps.env.layout.decode`. None for an action no
    index names (a card not in the view's slots, a proposal, a look...)."""
    from kemps.env import layout as lay

    layout = lay.ActionLayout(seats)
    seat = view.seat
    if seat is None:
        return None
    if isinstance(action, Swap):
        try:
            mids = tuple(view.middle.index(c) for c in action.take)
            hands = tuple(view.hand.index(c) for c in action.give)
        except ValueError:
            return None
        order = sorted(range(len(mids)), key=lambda i: mids[i])
        m = tuple(mids[i] for i in order)
        h = tuple(hands[i] for i in order)
        if list(h) != sorted(h) or len(set(h)) != len(h):
            return None  # the layout pairs slots in order: another pairing has no index
        try:
            return layout.start("swap") + lay.SWAPS.index((m, h))
        except ValueError:
            return None
    if isinstance(action, Grab) and len(action.take) == 1 and action.take[0] in view.middle:
        return layout.start("grab") + view.middle.index(action.take[0])
    if isinstance(action, Discard) and len(action.give) == 1 and action.give[0] in view.hand:
        j = view.hand.index(action.give[0])
        return layout.start("discard") + j if j < lay.MAX_HAND else None
    if isinstance(action, ProposeStall):
        return layout.start("stall")
    if isinstance(action, Object):
        return layout.start("object")
    if isinstance(action, Go):
        return layout.start("go")
    if isinstance(action, Gesture) and action.gesture in lay.GESTURES:
        return layout.start("gesture") + lay.GESTURES.index(action.gesture)
    if isinstance(action, Call):
        if action.kind in ("kemps", "double_kemps"):
            return layout.start(action.kind)
        target = action.on_seat if action.on_seat is not None else action.on_pair
        if target is None:
            return None
        for k in range(1, seats):
            if (seat + k) % seats == action.on_seat or (
                    action.on_seat is None and k < rules.pairs
                    and (seat + k) % rules.pairs == action.on_pair):
                return layout.start("stop" if action.kind == "stop" else "double_stop") + k
        return None
    if isinstance(action, AgreeSignals) and action.signals:
        sig = action.signals
        if len(sig) == 1 and sig[0] in lay.GESTURES:
            return layout.start("agree") + lay.GESTURES.index(sig[0])
        if tuple(sig[:-1]) == tuple(view.signals) and sig[-1] in lay.GESTURES:
            return layout.start("agree_add") + lay.GESTURES.index(sig[-1])
    return None


#: The seat's own moves, by event, and the channel their plans went on.
_OWN_MOVES: Final[dict[type, str]] = {
    Swapped: "cards", Grabbed: "cards", Discarded: "cards", StallProposed: "cards",
    Objected: "cards", Gestured: "gesture", Called: "call", SignalsAgreed: "table"}


def channel_of(action: Action) -> str:
    """The plan channel of an action, as the other bots plan it (docs/bots.md)."""
    if isinstance(action, Gesture):
        return "gesture"
    if isinstance(action, Call):
        return "call"
    if isinstance(action, AgreeSignals | Go):
        return "table"
    return "cards"


def follow_held(held: tuple[Card, ...], seat: int, events: Sequence[Event]) -> tuple[Card, ...]:
    """The cards ``seat`` picked up and still holds after ``events`` (the rule of
    :func:`kemps.env.core.track_held`, S4: a discard must be another card)."""
    for e in events:
        if isinstance(e, Grabbed) and e.seat == seat:
            held = held + e.took
        elif isinstance(e, Discarded) and e.seat == seat:
            held = held[len(e.gave):]
        elif (isinstance(e, HoldExpired) and e.seat == seat) or isinstance(e, Swept | HandDealt | HandEnded):
            held = ()
    return held


class SeatObserver:
    """A seat's observations on the environment's encoders, from the views and events it is told
    (the learned bot's eyes; the training script labels the same observations)."""

    def __init__(self, seat: int, rules: RuleSet) -> None:
        from kemps.env import layout as lay

        self.seat = seat
        self.rules = rules
        self.layout = lay.ActionLayout(rules.players)
        self.seen: list[Event] = []
        self.held: tuple[Card, ...] = ()

    def heard(self, events: Sequence[Event]) -> None:
        """Events as the seat may see them, in order."""
        self.seen += events
        self.held = follow_held(self.held, self.seat, events)

    def observe(self, view: SeatView, now: float, due: float
                ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """``(observation, mask)`` of the seat at ``now`` on ``view`` and the events heard since
        the last call; an action chosen on it would go out at ``due``."""
        from kemps.env import layout as lay
        from kemps.env import observe

        seen, self.seen = self.seen, []
        obs = observe.encode(view, seen, self.rules, now, False, self.held)
        mask = lay.action_mask(self.layout, view, self.rules, self.held, False, due)
        return obs, mask


class LearnedBot:
    """The ``learned`` level (see the module docstring). ``rng`` is its own generator (reaction
    times); ``reaction_s`` the ``(low, high)`` range in seconds; ``network`` the weights (default
    the shipped ones).

    Raises:
        KempsError: ``bad_weights`` when the network does not fit this table's observation or
            action layout (it was trained for another number of seats).
    """

    reads_views = True

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random,
                 reaction_s: tuple[float, float] = REACTION_S,
                 network: Network | None = None) -> None:
        from kemps.env import observe

        self.seat = seat
        self.rules = rules
        self.rng = rng
        self.reaction_s = reaction_s
        self.network = network if network is not None else shipped_network()
        self.eyes = SeatObserver(seat, rules)
        n = rules.players
        if (self.network.seats != n or self.network.inputs != observe.size(n, rules.pairs)
                or self.network.outputs != self.eyes.layout.size):
            raise KempsError("bad_weights", f"The learned level's network takes "
                             f"{self.network.inputs} inputs and {self.network.outputs} actions; "
                             f"a table of {n} seats needs {observe.size(n, rules.pairs)} and "
                             f"{self.eyes.layout.size}.")
        self.person_partner = False
        self.pending: dict[str, int] = {}  # channel -> the index planned there
        self.decisions = 0

    def on_partner(self, person: bool) -> None:
        """A person plays the partner's seat (True) or a bot does (docs/bots.md)."""
        self.person_partner = person

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        """Decide on the seat's view now and the events heard since the last decision."""
        return self._decide(view, now)

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        """Hear the events; the decision comes with the view the driver tells next."""
        self.eyes.heard(events)
        for e in events:
            if isinstance(e, HandDealt | HandEnded):
                self.pending.clear()
            elif getattr(e, "seat", None) == self.seat:
                channel = _OWN_MOVES.get(e.__class__)
                if channel is not None:
                    self.pending.pop(channel, None)  # it landed: the channel is free again
        return []

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        """A planned action was refused: the channel is free again."""
        self.pending.pop(channel_of(action), None)
        return []

    def _decide(self, view: SeatView, now: float) -> list[Plan]:
        if view.seat != self.seat:
            return []
        low, high = self.reaction_s
        obs, mask = self.eyes.observe(view, now, now + (low + high) / 2)
        if self.person_partner and view.signals:
            self._keep_signals(mask)
        self.decisions += 1
        return self.plan(self.network.choose(obs, mask), view)

    def plan(self, index: int, view: SeatView) -> list[Plan]:
        """The plan for action ``index`` chosen on ``view``: none for the no-op, an empty slot,
        or the same action already pending on its channel; else the action after a reaction
        time drawn from the bot's generator."""
        from kemps.env import layout as lay

        if index == 0:
            return []
        action = lay.decode(self.eyes.layout, index, view, self.rules)
        if action is None:
            return []
        channel = channel_of(action)
        if self.pending.get(channel) == index:
            return []
        self.pending[channel] = index
        low, high = self.reaction_s
        return [Plan(self.rng.uniform(low, high), action, channel)]

    def _keep_signals(self, mask: npt.NDArray[np.int8]) -> None:
        """A person's pair: the bot changes no agreed signal (docs/bots.md)."""
        layout = self.eyes.layout
        for block in ("agree", "agree_add"):
            start = layout.start(block)
            size = dict((b, s) for b, _, s in layout.blocks)[block]
            mask[start:start + size] = 0


__all__ = ["REACTION_S", "WEIGHTS_FILE", "LearnedBot", "LearnedPolicy", "Network",
           "SeatObserver", "channel_of", "encode_action", "follow_held", "policy",
           "shipped_network"]
