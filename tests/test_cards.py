"""Unit tests for kemps.cards: text round trip for one and two decks, bad text, four of a kind."""

from __future__ import annotations

import random

import pytest

from kemps.cards import (
    RANKS,
    SUITS,
    Card,
    card,
    card_order,
    cards_text,
    four_of_a_kind,
    new_pack,
    parse_card,
    parse_cards,
    shuffled_pack,
)
from kemps.errors import CardError


@pytest.mark.parametrize("decks", [1, 2])
def test_text_round_trip(decks: int) -> None:
    pack = new_pack(decks)
    assert len(pack) == 52 * decks
    assert len({c.text for c in pack}) == len(pack)
    for c in pack:
        assert parse_card(c.text) is c
        assert parse_card(c.text.lower()) is c
        assert str(c) == c.text
    assert parse_cards(cards_text(pack)) == tuple(pack)


def test_index_and_pack_order_unique() -> None:
    pack = new_pack(2)
    assert [c.index for c in pack] == list(range(104))


def test_second_deck_suffix() -> None:
    first, second = parse_card("7H"), parse_card("7H.2")
    assert first is not second and first != second
    assert (first.rank, first.suit, first.deck) == ("7", "H", 1)
    assert (second.rank, second.suit, second.deck) == ("7", "H", 2)
    assert second.text == "7H.2"
    assert parse_card("7H.1") is first
    assert card("7", "H", 2) is second
    assert new_pack(1).count(second) == 0


def test_parse_cards_separators() -> None:
    assert parse_cards("7H, 7S 7D") == parse_cards(["7H", "7S", "7D"])
    assert parse_cards("") == ()


@pytest.mark.parametrize("text", ["", "7", "1H", "7X", "10H", "7H.3", "7H.0", "HH", " ", "AS2",
                                  "joker"])
def test_bad_card_text(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert info.value.code == "bad_card"


def test_bad_card_types_and_values() -> None:
    with pytest.raises(CardError) as info:
        parse_card(7)  # type: ignore[arg-type]
    assert info.value.code == "bad_card"
    with pytest.raises(CardError):
        parse_cards("7H ZZ")
    with pytest.raises(CardError) as info:
        card("1", "H")
    assert info.value.code == "bad_card"
    with pytest.raises(CardError):
        card("7", "H", 3)
    with pytest.raises(CardError) as info:
        new_pack(3)
    assert info.value.code == "bad_card"


def test_cards_text_empty_slot() -> None:
    assert cards_text([parse_card("7H"), None, parse_card("TS")]) == "7H -- TS"


def test_card_names_and_order() -> None:
    assert parse_card("QD").name == "queen of diamonds"
    assert parse_card("TS").name == "ten of spades"
    assert card_order(parse_card("2C")) < card_order(parse_card("AC"))
    assert sorted(parse_cards("AS 2C TD"), key=card_order) == list(parse_cards("2C TD AS"))
    assert len(RANKS) == 13 and len(SUITS) == 4


def test_shuffled_pack_uses_callers_rng() -> None:
    a = shuffled_pack(1, random.Random(3))
    b = shuffled_pack(1, random.Random(3))
    assert a == b and sorted(a, key=card_order) == sorted(new_pack(1), key=card_order)


def test_four_of_a_kind() -> None:
    assert four_of_a_kind(parse_cards("7H 7S 7D 7C"))
    assert four_of_a_kind(parse_cards("7H 7H.2 7S 7D"))  # two copies of one card count
    assert not four_of_a_kind(parse_cards("7H 7S 7D 6C"))
    assert not four_of_a_kind(parse_cards("7H 7S 7D"))
    assert not four_of_a_kind(parse_cards("7H 7S 7D 7C 6C"))


def test_pickle_keeps_interning() -> None:
    import copy
    import pickle

    c = parse_card("KD.2")
    assert pickle.loads(pickle.dumps(c)) is c
    assert copy.deepcopy(c) is c
    assert isinstance(c, Card)
