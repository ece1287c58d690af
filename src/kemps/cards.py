"""Ranks, suits and cards, for one or two standard 52-card decks.

Text form (python-chess style, so every fixture is one line): rank ``2-9 T J Q K A`` then suit
``C D H S`` (``7H``, ``TS``, ``QD``). With two decks (S1: "if there are more than eight players, two
decks may be used"; S2 variations row 3) the second copy of a card carries the suffix ``.2``
(``7H.2``); the first copy is written without a suffix, and ``7H.1`` is accepted as the same card.

Cards are interned: there is exactly one object per (rank, suit, deck), so identity, equality and
hashing are cheap and a table's state only holds references.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final

from kemps.errors import CardError

RANKS: Final = "23456789TJQKA"
SUITS: Final = "CDHS"
RANK_NAMES: Final = {
    "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight",
    "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace",
}
SUIT_NAMES: Final = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
MAX_DECKS: Final = 2


class Card:
    """One physical card. Never construct directly: use :func:`card` or :func:`parse_card`.

    Attributes:
        rank: one of ``RANKS`` (``"T"`` is ten).
        suit: one of ``SUITS``.
        deck: 1 or 2 (which copy, with two decks).
        index: 0..103, unique per card; the order of a new, unshuffled pack.
        order: the sort key for showing cards by rank (``sorted(cards, key=card_order)``).

    Cards compare by identity only (they are interned): no ordering methods, because a Python
    ``__lt__`` would route every ``==`` (``card in hand``) through a slow Python-level slot.
    """

    __slots__ = ("rank", "suit", "deck", "index", "text", "order")

    rank: str
    suit: str
    deck: int
    index: int
    text: str
    order: tuple[int, str, int]

    def __init__(self, rank: str, suit: str, deck: int) -> None:
        self.rank = rank
        self.suit = suit
        self.deck = deck
        self.index = (deck - 1) * 52 + SUITS.index(suit) * 13 + RANKS.index(rank)
        self.text = f"{rank}{suit}" if deck == 1 else f"{rank}{suit}.{deck}"
        self.order = (RANKS.index(rank), suit, deck)

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Keep interning across pickle/deepcopy.
        return (parse_card, (self.text,))

    @property
    def name(self) -> str:
        """Plain name, e.g. ``"seven of hearts"``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"


_ALL: Final[tuple[Card, ...]] = tuple(
    Card(r, s, d) for d in range(1, MAX_DECKS + 1) for s in SUITS for r in RANKS)
_BY_TEXT: Final[dict[str, Card]] = {c.text: c for c in _ALL}
_BY_TEXT.update({f"{c.rank}{c.suit}.1": c for c in _ALL if c.deck == 1})


def card_order(c: Card) -> tuple[int, str, int]:
    """Sort key: by rank (2 low, ace high), then suit, then deck copy."""
    return c.order


def card(rank: str, suit: str, deck: int = 1) -> Card:
    """The interned card of that rank, suit and deck copy.

    Raises:
        CardError: ``bad_card`` when rank, suit or deck is out of range.
    """
    key = f"{rank}{suit}" if deck == 1 else f"{rank}{suit}.{deck}"
    try:
        return _BY_TEXT[key]
    except KeyError:
        raise CardError("bad_card", f"There is no card with rank {rank!r}, suit {suit!r} "
                        f"and deck {deck!r}.") from None


def parse_card(text: str) -> Card:
    """Parse ``"7H"``, ``"ts"``, ``"QD.2"`` into the interned card (case-insensitive).

    Raises:
        CardError: ``bad_card`` when the text is not a card.
    """
    if not isinstance(text, str):
        raise CardError("bad_card", f"A card is written as text like '7H', not {text!r}.")
    found = _BY_TEXT.get(text.strip().upper())
    if found is None:
        raise CardError("bad_card", f"{text!r} is not a card; write rank then suit, like 7H, "
                        "TS or QD (add .2 for the second deck).")
    return found


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse a space- or comma-separated string (or an iterable of texts) into cards.

    Raises:
        CardError: ``bad_card`` for the first text that is not a card.
    """
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(parse_card(p) for p in parts)


def cards_text(cards: Iterable[Card | None]) -> str:
    """The canonical text of a row of cards, space separated; an empty slot is ``--``."""
    return " ".join("--" if c is None else c.text for c in cards)


def new_pack(decks: int = 1) -> list[Card]:
    """The cards of ``decks`` standard packs (1 or 2) in fixed new-pack order.

    Raises:
        CardError: ``bad_card`` when ``decks`` is not 1 or 2.
    """
    if decks not in (1, 2):
        raise CardError("bad_card", f"A table uses one or two decks, not {decks!r}.")
    return list(_ALL[: 52 * decks])


def shuffled_pack(decks: int, rng: random.Random) -> list[Card]:
    """A shuffled pack drawn with the caller's random generator (the engine owns none)."""
    pack = new_pack(decks)
    rng.shuffle(pack)
    return pack


def four_of_a_kind(hand: Sequence[Card]) -> bool:
    """True when ``hand`` is exactly four cards of one rank.

    With two decks any four cards of a rank count, two copies of one card included
    (RULES-NOTES, "Four of a kind with two decks").
    """
    return len(hand) == 4 and hand[0].rank == hand[1].rank == hand[2].rank == hand[3].rank
