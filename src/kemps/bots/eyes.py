"""Where everyone at the table looks, as a bot follows it from public events (``attention``).

At an ``attention`` table (docs/rules.md "Attention") every look is public: a bot reads them like a
person reads faces (S0 "Watch the other pair's faces more than their hands"). :class:`Eyes` keeps
every seat's current look and last swap, and plans the bot's own looks as
:class:`~kemps.bots.base.Plan`s on the ``"look"`` channel, never sooner than the table allows
(:data:`kemps.gestures.LOOK_GAP_S` after the seat's last change of look) nor than a person turns
their head (:data:`HUMAN_LOOK_S`). At a table without attention it does nothing.
"""

from __future__ import annotations

from typing import Final

from kemps.actions import Look, LookAt
from kemps.bots.base import Plan
from kemps.events import Event, Grabbed, HandDealt, Looked, PlayOpened, Swapped
from kemps.gestures import LOOK_GAP_S
from kemps.rules import RuleSet

HUMAN_LOOK_S: Final = 0.3  # no bot turns its head sooner than this after what prompted it
READY_S: Final = 2.5  # a player who has not taken a card for this long may be ready (S0)


class Eyes:
    """Public looks and the bot's own, for the bot in ``seat``. Times are table seconds.

    Attributes: ``on`` (the table follows looks), ``looks`` (per seat: another seat's number,
    ``"middle"`` or ``"hand"``), ``last_take`` (per seat: when it last took a card this hand, or
    when play opened), ``planned`` (the look the bot has planned and not yet seen applied).
    """

    __slots__ = ("on", "seat", "n", "pairs", "partner", "looks", "changed_at", "last_take",
                 "planned")

    def __init__(self, seat: int, rules: RuleSet) -> None:
        self.on = rules.attention
        self.seat = seat
        self.n = rules.players
        self.pairs = rules.pairs
        self.partner = (seat + self.pairs) % self.n
        self.looks: list[LookAt] = ["hand"] * self.n
        self.changed_at: float | None = None
        self.last_take: list[float | None] = [None] * self.n
        self.planned: LookAt | None = None

    @property
    def mine(self) -> LookAt:
        """Where this bot looks now."""
        return self.looks[self.seat]

    def sync(self, looks: tuple[LookAt, ...]) -> None:
        """Take every seat's look from a view (``SeatView.looks``; empty without attention)."""
        if looks:
            self.looks = list(looks)

    def follow(self, e: Event) -> None:
        """Follow one event as this seat may see it."""
        cls = e.__class__
        if cls is Looked:
            looked: Looked = e  # type: ignore[assignment]
            self.looks[looked.seat] = looked.at
            if looked.seat == self.seat:
                self.changed_at = looked.t
                if self.planned == looked.at:
                    self.planned = None
        elif cls is Swapped or cls is Grabbed:
            took: Swapped | Grabbed = e  # type: ignore[assignment]
            self.last_take[took.seat] = took.t
        elif cls is PlayOpened:
            self.last_take = [e.t] * self.n
        elif cls is HandDealt:
            self.last_take = [None] * self.n

    def still_for(self, seat: int, now: float) -> float:
        """Seconds since ``seat`` last took a card this hand (0 before play opens)."""
        last = self.last_take[seat]
        return 0.0 if last is None else now - last

    def watching(self, seat: int, at: int) -> bool:
        """Whether ``seat`` looks at seat ``at`` now."""
        return self.looks[seat] == at

    def opponents_watching(self, at: int) -> list[int]:
        """The other pairs' seats whose look is on seat ``at`` now."""
        mine = self.seat % self.pairs
        return [s for s in range(self.n) if s % self.pairs != mine and self.looks[s] == at]

    def look(self, at: LookAt, now: float, delay: float) -> list[Plan]:
        """A plan to look ``at`` after ``delay`` seconds (at least :data:`HUMAN_LOOK_S`, and not
        before the table's look gap is over); nothing when it already looks or plans to look
        there, or the table does not follow looks."""
        if not self.on or at == self.planned:
            return []
        if at == self.mine:
            if self.planned is None:
                return []
            self.planned = None  # stay: drop the look planned elsewhere
            return [Plan(0.0, None, "look")]
        wait = max(delay, HUMAN_LOOK_S)
        if self.changed_at is not None:
            wait = max(wait, self.changed_at + LOOK_GAP_S - now + 1e-6)
        self.planned = at
        return [Plan(wait, Look(self.seat, at), "look")]

    def refused(self) -> None:
        """The planned look was refused (the look moved meanwhile, or came too soon)."""
        self.planned = None
