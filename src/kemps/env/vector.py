"""Many Kemps tables stepped in one call: :func:`kemps.env.vector_env`.

A :class:`KempsVectorEnv` holds ``num_envs`` tables of the same rules and seats, each a
:class:`kemps.env.core.KempsParallelEnv` (so each plays exactly the rules, ticks, bots and seeding
of a single environment), and steps all of them with one call on numpy arrays. Its API is shaped
like Gymnasium's vector API with one axis more, the agent seats of a table (``K`` of them, in seat
order; ``N`` tables, ``D`` = :func:`kemps.env.observe.size`, ``A`` = the number of actions)::

    vec = vector_env(1024, preset="pagat", seed=1)          # every seat an agent by default
    obs, infos = vec.reset()                                # obs: (N, K, D) float32
    masks = infos["action_mask"]                            # (N, K, A) int8
    obs, rewards, terminated, truncated, infos = vec.step(actions)   # actions: (N, K) ints
    # rewards (N, K) float32 (each agent's pair's reward); terminated, truncated (N,) bool

- **Seeding**: ``seed`` (here or in :meth:`KempsVectorEnv.reset`) seeds table ``i`` with
  ``seed + i``: table ``i`` plays exactly the episodes ``parallel_env(...).reset(seed=seed + i)``
  and the resets after it play, given the same actions.
- **Autoreset** (Gymnasium's "same step"): a table whose episode ends in a step is reset at once;
  that step returns its final rewards and ``terminated`` / ``truncated``, the first observation
  and mask of its next episode in ``obs`` and ``infos["action_mask"]``, and its final
  observations in ``infos["final_obs"]`` (``{table: (K, D) array}``) and the record of the ended
  match in ``infos["final_record"]`` (``{table: MatchRecord}``).
- **Batched work**: every table's driver, views and events are Python (the engine's rules, one
  table at a time). What a seat's observation and mask take from its view alone is made again
  only when its table changed (:func:`kemps.env.observe.static_into`; masks with the swap block
  looked up in :func:`kemps.env.layout.swap_rows`), and copied into the batch as rows; the rest
  (countdowns, the tick's events, cooling down) is gathered as positions over all tables and
  written in two numpy assignments (:func:`kemps.env.observe.dynamic_into`).

``infos["rejected"]`` is ``(N, K)`` bool: the table refused the agent's action (the refusal's
code, which a single environment's info gives, is not kept here). The observations and masks
returned are the environment's own buffers, written again by the next call: copy them to keep
them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from kemps.env import observe
from kemps.env.core import EnvError, KempsParallelEnv
from kemps.record import MatchRecord
from kemps.rules import RuleSet
from kemps.views import events_for


class KempsVectorEnv:
    """``num_envs`` tables stepped together (see the module docstring).

    Attributes: ``num_envs`` (N), ``seats`` (the agent seats of every table, K of them),
    ``tables`` (the :class:`KempsParallelEnv` of each table: read them), ``layout``,
    ``single_observation_space`` (Box ``(K, D)``), ``single_action_space`` (MultiDiscrete
    ``[A] * K``), ``observation_space`` (Box ``(N, K, D)``), ``action_space`` (MultiDiscrete
    ``(N, K)``), ``mask_space`` (Box ``(N, K, A)`` int8).
    """

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": "same-step"}

    def __init__(self, num_envs: int, rules: RuleSet | str = "pagat", *,
                 seed: int | None = None, **options: Any) -> None:
        """Args:
            num_envs: how many tables (1..100,000).
            rules: a preset name or a :class:`RuleSet`.
            seed: seeds table ``i`` with ``seed + i`` at the first :meth:`reset` (a seed given
                there wins).
            options: the options of :class:`KempsParallelEnv` (``pairs``, ``options``,
                ``episode``, ``agent_seats``, ``bot_level``, ``bots``, ``tick_s``,
                ``reaction_s``, ``min_gap_s``, ``huddle_s``, ``max_ticks``, ``win_reward``);
                not ``render_mode`` nor ``observation`` (the observations are flat).

        Raises:
            EnvError: ``bad_option``, as :class:`KempsParallelEnv` does, and for a bad
                ``num_envs`` or an option this class does not take.
        """
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not (
                1 <= num_envs <= 100_000):
            raise EnvError("bad_option", "num_envs must be a whole number from 1 to 100,000.")
        for name in ("render_mode", "observation"):
            if name in options:
                raise EnvError("bad_option", f"A vector environment takes no {name}.")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
            raise EnvError("bad_option", "A seed is a whole number.")
        self.tables = [KempsParallelEnv(rules, **options) for _ in range(num_envs)]
        first = self.tables[0]
        self.num_envs = num_envs
        self.seats: tuple[int, ...] = first.seats
        self.rules = first.rules
        self.layout = first.layout
        k, d, a = len(self.seats), first.flat_space.shape[0], self.layout.size
        self.single_observation_space = spaces.Box(0.0, 1.0, (k, d), np.float32)
        self.single_action_space = spaces.MultiDiscrete([a] * k)
        self.observation_space = spaces.Box(0.0, 1.0, (num_envs, k, d), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full((num_envs, k), a))
        self.mask_space = spaces.Box(0, 1, (num_envs, k, a), np.int8)
        self._seed = None if seed is None else int(seed)
        self._obs = np.zeros((num_envs, k, d), np.float32)
        self._masks = np.zeros((num_envs, k, a), np.int8)
        self._started = False

    # == the API ===================================================================================
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None
              ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Reset every table: table ``i`` with ``seed + i`` (``seed`` here, else the one given
        when made, else unseeded; a table that was reset before continues its seeded sequence
        when no seed is given). Returns ``(obs (N, K, D), {"action_mask": (N, K, A)})``; the
        arrays are the environment's own buffers, overwritten by the next call (copy to keep).
        ``options`` is accepted for the API and not used."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
            raise EnvError("bad_option", "A seed is a whole number.")
        base = int(seed) if seed is not None else (None if self._started else self._seed)
        for i, table in enumerate(self.tables):
            table.reset(seed=None if base is None else base + i)
        self._started = True
        self._encode_all()
        return self._obs, {"action_mask": self._masks}

    def step(self, actions: npt.ArrayLike) -> tuple[
            npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.bool_],
            npt.NDArray[np.bool_], dict[str, Any]]:
        """One tick of every table with ``actions`` (``(N, K)`` action indices; 0 does nothing).

        Returns ``(obs (N, K, D), rewards (N, K), terminated (N,), truncated (N,), infos)`` with
        ``infos["action_mask"]`` (N, K, A), ``infos["rejected"]`` (N, K) bool, and for the tables
        whose episode ended (and were reset) ``infos["final_obs"]`` and ``infos["final_record"]``.

        Raises:
            EnvError: ``no_episode`` before :meth:`reset`; ``bad_action`` for an array of
                another shape or an entry that is not an action index (nothing changes).
        """
        if not self._started:
            raise EnvError("no_episode", "Call reset() first: no episode is running.")
        acts = np.asarray(actions)
        n, k = self.num_envs, len(self.seats)
        if acts.shape != (n, k) or acts.dtype.kind not in "iu":
            raise EnvError("bad_action", f"actions must be whole numbers of shape {(n, k)}, "
                           f"not {acts.dtype} of shape {acts.shape}.")
        if acts.size and (acts.min() < 0 or acts.max() >= self.layout.size):
            raise EnvError("bad_action", f"An action is not an index (0..{self.layout.size - 1}).")
        rows = acts.tolist()
        rewards = np.zeros((n, k), np.float32)
        terminated = np.zeros(n, np.bool_)
        truncated = np.zeros(n, np.bool_)
        rejected = np.zeros((n, k), np.bool_)
        final_obs: dict[int, npt.NDArray[np.float32]] = {}
        final_record: dict[int, MatchRecord] = {}
        seats = self.seats
        pairs = self.rules.pairs
        ended: list[int] = []
        for i, table in enumerate(self.tables):
            row = rows[i]
            picked = {s: row[j] for j, s in enumerate(seats) if row[j]}
            refused, pair_rewards, done, cut = table._play(picked)
            for j, s in enumerate(seats):
                rewards[i, j] = pair_rewards[s % pairs]
                if refused[s] is not None:
                    rejected[i, j] = True
            if done or cut:
                terminated[i], truncated[i] = done, cut
                ended.append(i)
        for i in ended:
            table = self.tables[i]
            final = np.zeros((k, self._obs.shape[2]), np.float32)
            for j, s in enumerate(seats):
                table._observe(s, final[j], np.zeros(self.layout.size, np.int8))
            final_obs[i] = final
            final_record[i] = table.record()
            table.reset()
        self._encode_all()
        infos: dict[str, Any] = {"action_mask": self._masks, "rejected": rejected}
        if ended:
            infos["final_obs"] = final_obs
            infos["final_record"] = final_record
        return self._obs, rewards, terminated, truncated, infos

    def close(self) -> None:
        """Nothing to release."""

    def sample_actions(self, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """A uniformly random legal action for every agent of every table, from the current
        masks (``(N, K)``): the masked-random baseline, drawn for all tables at once."""
        masks = self._masks
        weights = rng.random(masks.shape) * masks
        return np.asarray(weights.argmax(axis=2), dtype=np.int64)

    # == inside ====================================================================================
    def _encode_all(self) -> None:
        """Every table's observations and masks into the buffers: the parts that depend on a
        seat's view alone copied from where its table keeps them (made again only when the table
        changed), the rest (countdowns, the tick's events, cooling down) gathered as positions
        over all tables and written in two numpy assignments."""
        obs, masks = self._obs, self._masks
        flat = obs.reshape(-1)
        d = obs.shape[2]
        k = len(self.seats)
        ones: list[int] = []
        at: list[int] = []
        values: list[float] = []
        rules = self.rules
        pairs = rules.pairs
        dynamic = observe.dynamic_into
        for i, table in enumerate(self.tables):
            events = table._events
            now = table.now
            obs_i, masks_i = obs[i], masks[i]
            for j, s in enumerate(table.seats):
                view = table._view(s)
                table._acted_on[s] = view
                due = now + table.reaction_s[s]
                cooling = table._cooling(s, due)
                static, mask = table._parts(s, view, table._held[s], cooling, due)
                obs_i[j] = static
                masks_i[j] = mask
                seen = events_for(events, s, pairs) if events else []
                dynamic(ones, at, values, (i * k + j) * d, view, seen, rules, now, cooling)
        flat[ones] = 1.0
        flat[at] = values


def vector_env(num_envs: int, preset: RuleSet | str = "pagat", *, seed: int | None = None,
               **options: Any) -> KempsVectorEnv:
    """``num_envs`` tables of ``preset`` stepped in one call (:class:`KempsVectorEnv`; its
    options are :class:`KempsParallelEnv`'s)."""
    return KempsVectorEnv(num_envs, preset, seed=seed, **options)


__all__ = ["KempsVectorEnv", "vector_env"]
