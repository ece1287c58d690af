"""The bot interface: a bot sees what its seat sees and answers with actions and delays.

A bot is told about the start of every hand with its seat's view (:func:`kemps.views.view_for`)
and about every event as its seat may see it (:func:`kemps.views.event_for`); it answers with
:class:`Plan`s, each an action to try after a delay in seconds. The driver (the simulated clock of
:mod:`kemps.sim`, later the live server's real clock) applies the action when the delay is up and
tells the bot if it was rejected. Nothing else reaches a bot, so a bot cannot see more than its
seat (boardgame.io ``src/ai/bot.ts``: bots use the interface people use).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kemps.actions import Action
from kemps.errors import Rejected
from kemps.events import Event
from kemps.views import SeatView


@dataclass(frozen=True, slots=True)
class Plan:
    """Try ``action`` ``delay`` seconds from now. ``channel`` groups plans so that a newer plan on
    the same channel replaces an older one (``"cards"``, ``"call"``, ``"gesture"``, ``"table"``);
    an ``action`` of None only cancels what is pending on the channel."""

    delay: float
    action: Action | None
    channel: str = "cards"


class Bot(Protocol):
    """What a driver needs from a bot. All times are table seconds."""

    seat: int

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        """The seat's full view (at the start of each hand and between hands)."""
        ...

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        """Events as this seat may see them, in order."""
        ...

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        """An action this bot planned was rejected."""
        ...
