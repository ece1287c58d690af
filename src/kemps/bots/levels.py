"""Bot levels: what separates a casual player from a sharp one, and the bots built from them.

Every level is a :class:`~kemps.bots.strength.Level` (data, in :mod:`kemps.bots.strength`): reaction times (seconds), attention (the chance to notice a
gesture), how the bot reads the other pairs (inference), how it collects, how it hides its own
signal, and when it changes it. :func:`make_bot` builds a bot of a named level for one seat;
:func:`bot_factory` gives the factory that :func:`kemps.sim.simulate_match` takes.

Levels, weakest first: ``simple`` (the engine's plain :class:`~kemps.bots.simple.SimpleBot`),
``casual``, ``club``, ``sharp``. A speed (``relaxed``, ``club``, ``sharp``: :data:`SPEEDS`) can
replace any level's reaction times, so that a room with people in it can slow its bots down. Every reaction time is at least 0.3 s, and the simulator keeps a
seat to one action every 0.25 s, so no bot acts faster than a person could.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from kemps.bots.base import Bot
from kemps.bots.player import KempsBot
from kemps.bots.simple import SimpleBot
from kemps.bots.strength import (
    ALL_LEVEL_NAMES,
    CASUAL,
    CLUB,
    DEFAULT_SPEED_WITH_PEOPLE,
    LEVEL_NAMES,
    LEVELS,
    SHARP,
    SPEED_NAMES,
    SPEEDS,
    Inference,
    Level,
    find_level,
    find_name,
    find_speed,
)
from kemps.errors import KempsError
from kemps.rules import RuleSet

# The levels' data lives in kemps.bots.strength (the bottom of the bots' module order:
# strength <- watch <- player <- levels <- families); the names stay importable from here.
__all__ = ["ALL_LEVEL_NAMES", "CASUAL", "CLUB", "DEFAULT_SPEED_WITH_PEOPLE", "LEVELS", "LEVEL_NAMES", "SHARP",
           "SPEEDS", "SPEED_NAMES", "BotFactory", "Inference", "Level", "bot_factory",
           "find_level", "find_name", "find_speed", "make_bot"]

BotFactory = Callable[[int, RuleSet, random.Random], Bot]


def make_bot(level: str, seat: int, rules: RuleSet, rng: random.Random,
             speed: str | None = None) -> Bot:
    """A bot of ``level`` for ``seat``; ``rng`` is its own generator (all its randomness).

    ``speed`` (one of :data:`SPEED_NAMES`) replaces the level's reaction times (seconds, see
    :data:`SPEEDS`) and nothing else; None keeps the level's own.

    Raises:
        KempsError: ``unknown_level`` for a level that does not exist; ``unknown_speed``.
    """
    key = find_level(level)
    reaction = SPEEDS[find_speed(speed)] if speed is not None else None
    if key == "learned":
        return _learned(seat, rules, rng, reaction)
    if key == "simple":
        if reaction is None:
            return SimpleBot(seat, rules, rng)
        return SimpleBot(seat, rules, rng, reaction_s=reaction)
    lv = LEVELS[key]
    if reaction is not None:
        lv = replace(lv, reaction_s=reaction)
    return KempsBot(seat, rules, rng, lv)


def _learned(seat: int, rules: RuleSet, rng: random.Random,
             reaction: tuple[float, float] | None) -> Bot:
    """The ``learned`` level (:mod:`kemps.bots.learned`), imported only when asked for: it needs
    numpy (the ``research`` extra).

    Raises:
        KempsError: ``level_unavailable`` without numpy; ``bad_weights`` at a table whose seats
            the network was not trained for.
    """
    try:
        from kemps.bots.learned import REACTION_S, LearnedBot
    except ModuleNotFoundError as err:
        raise KempsError("level_unavailable", "The learned level needs numpy: "
                         "pip install 'kemps[research]'.") from err
    return LearnedBot(seat, rules, rng, reaction if reaction is not None else REACTION_S)


def bot_factory(level: str, speed: str | None = None) -> BotFactory:
    """A factory ``(seat, rules, rng) -> Bot`` of ``level`` (at ``speed``, see :func:`make_bot`),
    for :func:`kemps.sim.simulate_match`.

    Raises:
        KempsError: ``unknown_level`` for a level that does not exist; ``unknown_speed``.
    """
    key = find_level(level)
    pace = find_speed(speed) if speed is not None else None

    def factory(seat: int, rules: RuleSet, rng: random.Random) -> Bot:
        return make_bot(key, seat, rules, rng, pace)

    return factory
