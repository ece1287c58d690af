"""Bots: programs that play a seat through exactly the interface people use (views and events).

``make_bot(level, seat, rules, rng)`` builds a bot of a level; ``LEVELS`` names the levels: the
hand-made ones weakest first (``simple``, ``casual``, ``club``, ``sharp``), then ``learned`` (a
trained network, :mod:`kemps.bots.learned`); ``speed`` (``SPEEDS``) sets its reaction
times; see :mod:`kemps.bots.levels`.
"""

from kemps.bots.base import Bot, Plan
from kemps.bots.levels import (
    ALL_LEVEL_NAMES,
    DEFAULT_SPEED_WITH_PEOPLE,
    LEVEL_NAMES,
    SPEED_NAMES,
    bot_factory,
    make_bot,
)
from kemps.bots.simple import SimpleBot

LEVELS = ALL_LEVEL_NAMES  # the level names: the hand-made ones weakest first, then ``learned``

SPEEDS = SPEED_NAMES  # the bot speeds (reaction-time profiles), slowest first

__all__ = ["ALL_LEVEL_NAMES", "DEFAULT_SPEED_WITH_PEOPLE", "LEVELS", "LEVEL_NAMES", "SPEEDS", "Bot", "Plan", "SimpleBot",
           "bot_factory", "make_bot"]
