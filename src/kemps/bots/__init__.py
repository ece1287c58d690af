"""Bots: programs that play a seat through exactly the interface people use (views and events).

``make_bot(level, seat, rules, rng)`` builds a bot of a level; ``LEVELS`` names the levels, weakest
first (``simple``, ``casual``, ``club``, ``sharp``); ``speed`` (``SPEEDS``) sets its reaction
times; see :mod:`kemps.bots.levels`.
"""

from kemps.bots.base import Bot, Plan
from kemps.bots.levels import (
    DEFAULT_SPEED_WITH_PEOPLE,
    LEVEL_NAMES,
    SPEED_NAMES,
    bot_factory,
    make_bot,
)
from kemps.bots.simple import SimpleBot

LEVELS = LEVEL_NAMES  # the level names, weakest first

SPEEDS = SPEED_NAMES  # the bot speeds (reaction-time profiles), slowest first

__all__ = ["DEFAULT_SPEED_WITH_PEOPLE", "LEVELS", "SPEEDS", "Bot", "Plan", "SimpleBot",
           "bot_factory", "make_bot"]
