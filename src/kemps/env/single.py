"""One seat learns, bots play the rest: a Gymnasium environment, :func:`kemps.env.gym_env`.

A :class:`KempsGymEnv` is a :class:`kemps.env.core.KempsParallelEnv` with one agent seat (``seat``)
and bots in every other: the seat's partner a bot of level ``partner``, the opponents bots of
level ``opponents`` (:data:`kemps.bots.LEVELS`). Everything else is the parallel environment's:
ticks of table time, the flat observation (:mod:`kemps.env.observe`), the action indices
(:mod:`kemps.env.layout`), the pair's rewards, seeding and records::

    from kemps.env import gym_env
    env = gym_env(preset="pagat", seat=0, partner="simple", opponents="simple", seed=1)
    obs, info = env.reset()                 # obs: (D,) float32; info["action_mask"]: (A,) int8
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample(
        mask=info["action_mask"]))

``action_masks()`` returns the mask now as booleans (the name maskable learners look for).
Gymnasium's ``check_env`` passes (tests).
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from kemps.env.core import EnvError, KempsParallelEnv, Mask, Vector, agent_name
from kemps.rules import RuleSet, find_preset


class KempsGymEnv(gym.Env[Vector, np.int64]):
    """One learning seat at a table of bots (see the module docstring).

    Attributes: ``par`` (the :class:`KempsParallelEnv` underneath: its ``record()``, ``decode``,
    ``layout``...), ``seat``, ``agent`` (its name, ``"seat_S"``), ``observation_space`` (Box),
    ``action_space`` (Discrete).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 10}  # noqa: RUF012 (Gymnasium's own)

    def __init__(self, preset: RuleSet | str = "pagat", *, seat: int = 0,
                 partner: str = "simple", opponents: str = "simple", seed: int | None = None,
                 render_mode: str | None = None, **options: Any) -> None:
        """Args:
            preset: a preset name or a :class:`RuleSet`.
            seat: the learning seat (0..2 * pairs - 1).
            partner / opponents: the bot levels of its partner and of the other pair(s).
            seed: the seed of the first :meth:`reset` that gives none.
            render_mode: ``"ansi"`` (``render()`` returns the tick's narration) or None.
            options: the other options of :class:`KempsParallelEnv` (``pairs``, ``options``,
                ``episode``, ``bot_speed``, ``tick_s``, ``reaction_s``, ``min_gap_s``,
                ``huddle_s``, ``max_ticks``, ``win_reward``).

        Raises:
            EnvError: ``bad_option`` (a seat not at the table, an option this class sets
                itself, or what :class:`KempsParallelEnv` refuses).
        """
        for name in ("agent_seats", "bots", "bot_level", "observation"):
            if name in options:
                raise EnvError("bad_option", f"gym_env sets {name} itself (seat, partner, "
                               "opponents).")
        base = find_preset(preset) if isinstance(preset, str) else preset
        pairs = options.get("pairs") or base.pairs
        n = 2 * pairs if isinstance(pairs, int) else base.players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise EnvError("bad_option", f"seat must be a seat from 0 to {n - 1}.")
        partner_seat = (seat + n // 2) % n
        bots = {s: partner if s == partner_seat else opponents for s in range(n) if s != seat}
        self.par = KempsParallelEnv(preset, agent_seats=[seat], bots=bots,
                                    render_mode=render_mode, **options)
        self.seat = seat
        self.agent = agent_name(seat)
        self.render_mode = render_mode
        self.observation_space = self.par.flat_space
        self.action_space = gym.spaces.Discrete(self.par.layout.size)
        self._first_seed = seed
        self._mask: Mask = np.zeros(self.par.layout.size, np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Vector, dict[str, Any]]:
        """Start an episode (the parallel environment's seeding: ``seed`` makes it, and the
        episodes after it reset with no seed, exactly reproducible). Returns ``(observation,
        info)`` with ``info["action_mask"]``."""
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        super().reset(seed=seed)
        obs, infos = self.par.reset(seed=seed)
        info = infos[self.agent]
        self._mask = info["action_mask"]
        return obs[self.agent], info

    def step(self, action: Any) -> tuple[Vector, SupportsFloat, bool, bool, dict[str, Any]]:
        """One tick with the seat's action index (0 does nothing): ``(observation, reward,
        terminated, truncated, info)``; the reward is the seat's pair's (letters taken -1 each,
        or points +1 each, and the match-end reward).

        Raises:
            EnvError: ``bad_action`` (not an index), ``no_episode`` (no episode running).
        """
        obs, rewards, terms, truncs, infos = self.par.step({self.agent: action})
        info = infos[self.agent]
        self._mask = info["action_mask"]
        return (obs[self.agent], float(rewards[self.agent]), bool(terms[self.agent]),
                bool(truncs[self.agent]), info)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (``info["action_mask"]`` of the last call)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        """``"ansi"``: the last tick narrated (a spectator's: nothing hidden); else None."""
        return self.par.render()

    def close(self) -> None:
        """Nothing to release."""


def gym_env(preset: RuleSet | str = "pagat", *, seat: int = 0, partner: str = "simple",
            opponents: str = "simple", seed: int | None = None, **options: Any) -> KempsGymEnv:
    """One learning ``seat`` with a ``partner`` bot and ``opponents`` bots
    (:class:`KempsGymEnv`)."""
    return KempsGymEnv(preset, seat=seat, partner=partner, opponents=opponents, seed=seed,
                       **options)
