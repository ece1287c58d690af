"""The bot interface: a bot sees what its seat sees and answers with actions and delays.

A bot is told about the start of every hand with its seat's view (:func:`kemps.views.view_for`)
and about every event as its seat may see it (:func:`kemps.views.event_for`); it answers with
:class:`Plan`s, each an action to try after a delay in seconds. The driver (the simulated clock of
:mod:`kemps.sim`, later the live server's real clock) applies the action when the delay is up and
tells the bot if it was rejected. Nothing else reaches a bot, so a bot cannot see more than its
seat (boardgame.io ``src/ai/bot.ts``: bots use the interface people use).
"""

from __future__ import annotations

from typing import Protocol

from kemps.actions import Action, Call
from kemps.errors import Rejected
from kemps.events import Event
from kemps.immutable import immutable
from kemps.rules import RuleSet
from kemps.scoring import call_target
from kemps.views import SeatView


@immutable
class Plan:
    """Try ``action`` ``delay`` seconds from now. ``channel`` groups plans so that a newer plan on
    the same channel replaces an older one (``"cards"``, ``"call"``, ``"gesture"``, ``"table"``);
    an ``action`` of None only cancels what is pending on the channel."""

    delay: float
    action: Action | None
    channel: str = "cards"


def stop_call_on(rules: RuleSet, seat: int, signaller: int) -> Call | None:
    """The Stop Kemps call by ``seat`` on the player who gave a signal (or that player's pair, as
    the table's ``stop_target`` says), or None when the rules do not let ``seat`` stop them (the
    engine's own check, :func:`kemps.scoring.call_target`: scope, own pair)."""
    on_seat = signaller if rules.stop_target == "player" else None
    on_pair = None if on_seat is not None else signaller % rules.pairs
    try:
        call_target(rules, seat, "stop", on_seat, on_pair)
    except Rejected:
        return None
    return Call(seat, "stop", on_seat=on_seat, on_pair=on_pair)


class Bot(Protocol):
    """What a driver needs from a bot. All times are table seconds."""

    seat: int

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        """The seat's full view (at the start of each hand and between hands; a bot whose
        ``reads_views`` attribute is True is also told it after every step whose events it was
        told, the view a person's page gets with every update: the learned level)."""
        ...

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        """Events as this seat may see them, in order."""
        ...

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        """An action this bot planned was rejected."""
        ...
