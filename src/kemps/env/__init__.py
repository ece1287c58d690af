"""Kemps as a multi-agent environment: PettingZoo's Parallel API and its AEC form.

Needs the ``research`` extra (PettingZoo, Gymnasium, NumPy)::

    from kemps.env import parallel_env, env
    par = parallel_env("pagat", pairs=2, agent_seats=[0, 2], bot_level="club")
    observations, infos = par.reset(seed=1)
    while par.agents:
        actions = {a: par.action_space(a).sample(mask=infos[a]["action_mask"])
                   for a in par.agents}
        observations, rewards, terminations, truncations, infos = par.step(actions)

An observation is a flat float32 vector (:mod:`kemps.env.observe` gives its layout), the action
mask an int8 vector in the infos (``observation="dict"`` gives both in a Dict instead).

:func:`parallel_env` takes the options of :class:`kemps.env.core.KempsParallelEnv`; :func:`env`
wraps the same in PettingZoo's own ``parallel_to_aec`` (agents act one after another, the tick is
played once the last has chosen). See docs/research.md.
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium as _gymnasium  # noqa: F401
    import numpy as _numpy  # noqa: F401
    from pettingzoo.utils.conversions import parallel_to_aec
except ModuleNotFoundError as err:  # pragma: no cover - only without the research extra
    raise ModuleNotFoundError(
        f"kemps.env needs the research extra ({err.name} is missing): "
        "pip install 'kemps[research]'", name=err.name) from err

from kemps.env.core import TICK_S, EnvError, KempsParallelEnv, agent_name
from kemps.env.layout import ActionLayout, action_mask, decode
from kemps.env.single import KempsGymEnv, gym_env
from kemps.env.vector import KempsVectorEnv, vector_env

__all__ = ["TICK_S", "ActionLayout", "EnvError", "KempsGymEnv", "KempsParallelEnv",
           "KempsVectorEnv", "action_mask", "agent_name", "decode", "env", "gym_env",
           "parallel_env", "vector_env"]


def parallel_env(*args: Any, **kwargs: Any) -> KempsParallelEnv:
    """A :class:`KempsParallelEnv` (its arguments, see there)."""
    return KempsParallelEnv(*args, **kwargs)


def env(*args: Any, **kwargs: Any) -> Any:
    """The AEC form: :func:`parallel_env` through PettingZoo's ``parallel_to_aec`` (which adds
    its order-enforcing wrapper)."""
    return parallel_to_aec(KempsParallelEnv(*args, **kwargs))
