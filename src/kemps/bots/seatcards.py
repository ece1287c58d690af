"""What a seat knows of the cards, followed from the events it may see: its own hand and the
middle. Every bot keeps one, so that no bot re-implements (or gets wrong) how cards move."""

from __future__ import annotations

from kemps.cards import Card
from kemps.events import (
    Discarded,
    Event,
    Grabbed,
    HandDealt,
    HoldExpired,
    PlayOpened,
    Swapped,
    Swept,
)

#: The events that move a card (:meth:`SeatCards.follow` ignores every other).
CARD_MOVES = frozenset({Swapped, Swept, PlayOpened, Grabbed, Discarded, HoldExpired, HandDealt})


class SeatCards:
    """``hand``: the seat's cards; ``middle``: the four slots (None = empty or face down)."""

    __slots__ = ("seat", "hand", "middle")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.hand: list[Card] = []
        self.middle: list[Card | None] = [None] * 4

    def follow(self, e: Event) -> None:
        """Move the cards as ``e`` says (events as :func:`kemps.views.event_for` gives them)."""
        cls = e.__class__
        # Events are final classes: a class test is isinstance, cheaper.
        if e.__class__ is Swapped:  # the commonest move
            swapped: Swapped = e
            middle = self.middle
            for card, slot in zip(swapped.gave, swapped.slots):
                middle[slot] = card
            if swapped.seat == self.seat:
                hand = self.hand
                for took, gave in zip(swapped.took, swapped.gave):
                    hand[hand.index(gave)] = took
            return
        if cls not in CARD_MOVES:  # most events (gestures, calls, stalls) move no card
            return
        if e.__class__ is Swept or e.__class__ is PlayOpened:
            self.middle = list(e.middle)
        elif e.__class__ is HandDealt:
            self.hand = list(e.hands[self.seat])
            self.middle = list(e.middle)
        elif isinstance(e, Grabbed):
            for slot in e.slots:
                self.middle[slot] = None
            if e.seat == self.seat:
                self.hand.extend(e.took)
        elif isinstance(e, Discarded | HoldExpired):
            cards = e.gave if isinstance(e, Discarded) else e.returned
            for card, slot in zip(cards, e.slots):
                self.middle[slot] = card
            if e.seat == self.seat:
                for c in cards:
                    self.hand.remove(c)


class FollowsCards:
    """For bots: ``self.cards`` (a :class:`SeatCards`) seen as ``self.hand`` and ``self.middle``."""

    cards: SeatCards

    @property
    def hand(self) -> list[Card]:
        """The seat's cards (kept by :class:`SeatCards`)."""
        return self.cards.hand

    @hand.setter
    def hand(self, cards: list[Card]) -> None:
        self.cards.hand = cards

    @property
    def middle(self) -> list[Card | None]:
        """The middle's four slots (kept by :class:`SeatCards`)."""
        return self.cards.middle

    @middle.setter
    def middle(self, cards: list[Card | None]) -> None:
        self.cards.middle = cards
