"""Ready policies for :mod:`kemps.env` and ``kemps agent`` (docs/research.md, "Agents at live
tables").

A policy is any callable ``policy(observation, mask) -> int``: ``observation`` the flat float32
vector of :mod:`kemps.env.observe` for one seat, ``mask`` its int8 action mask
(:func:`kemps.env.layout.action_mask`, 1 where the table would accept the action now, the no-op
at index 0 always 1), the answer an action index of :class:`kemps.env.layout.ActionLayout`
(0: do nothing). A policy may also have a ``seed(n)`` method: ``kemps agent --seed N`` calls it
before the first decision, so that a seeded agent makes the same choices on the same
observations.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


class RandomLegal:
    """Masked random: one of the indices the mask allows, each as likely (the no-op among them),
    from its own seeded generator (``seed(n)``; seed 0 until told).

    Shapes: ``observation`` any (not read), ``mask`` ``(actions,)`` int8; returns an int.

    Raises:
        ValueError: a mask that allows nothing (a mask always allows the no-op).
    """

    def __init__(self, seed: int = 0) -> None:
        self._rng = np.random.default_rng(seed)

    def seed(self, n: int) -> None:
        """Start the generator again from ``n``."""
        self._rng = np.random.default_rng(n)

    def __call__(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        allowed = np.flatnonzero(mask)
        if allowed.size == 0:
            raise ValueError("The mask allows no action (it always allows the no-op, index 0).")
        return int(allowed[self._rng.integers(allowed.size)])


#: The ready masked-random policy: ``kemps agent URL --policy kemps.env.policies:random_legal``.
random_legal = RandomLegal()

__all__ = ["RandomLegal", "random_legal"]
