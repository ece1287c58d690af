"""``kemps.table.stacked_order``, the scripted-deal helper, deals as the table does: from the
dealer's left, or from seat 0 where the dealer does not play (S2 tournament row 7: "Give each table
a dealer who is not playing"), the choice taken from the rules (issue 31: a table whose dealer does
not play got a deal rotated by a seat, every card in the wrong hand, with no error)."""

from __future__ import annotations

import pytest

from kemps.actions import Deal
from kemps.cards import parse_cards
from kemps.errors import Rejected
from kemps.rules import find_preset
from kemps.table import Table, stacked_order

HANDS = ["7H 7S 7D 7C", "2H 3H 4H 5H", "KS QS JS TS", "AD 9D 8D 6D"]
MIDDLE = "AC KC QC JC"


def _dealt(table: Table, order: tuple[object, ...]) -> list[list[str]]:
    table.apply(Deal(order, 1), now=1.0)  # type: ignore[arg-type]
    return [sorted(c.text for c in hand) for hand in table.hands]


def _named() -> list[list[str]]:
    return [sorted(c.text for c in parse_cards(h)) for h in HANDS]


def test_a_table_whose_dealer_does_not_play_gets_every_hand_where_it_was_named() -> None:
    rules = find_preset("seed2-tournament")
    assert rules.dealer == "non_playing"
    # left out, or any seat given: the rules say nobody at this table deals
    for dealer in ({}, {"dealer": 0}, {"dealer": 3}, {"dealer": None}):
        table = Table(rules, first_dealer=2)
        assert table.dealer is None
        order = stacked_order(rules, HANDS, MIDDLE, **dealer)  # type: ignore[arg-type]
        assert _dealt(table, order) == _named(), dealer
        assert sorted(c.text for c in table.middle if c is not None) == sorted(MIDDLE.split())


def test_a_table_whose_dealer_plays_deals_from_the_dealers_left() -> None:
    rules = find_preset("pagat")
    for first in range(rules.players):
        table = Table(rules, first_dealer=first)
        assert _dealt(table, stacked_order(rules, HANDS, MIDDLE, dealer=table.dealer)) == \
            _named(), first
    # the default is seat 0, as a Table's first dealer
    assert _dealt(Table(rules), stacked_order(rules, HANDS, MIDDLE)) == _named()
    # no dealing seat at a table that has one: refused, not dealt from seat 0 (rotated)
    for bad in (None, 4, -1, True):
        with pytest.raises(Rejected) as err:
            stacked_order(rules, HANDS, MIDDLE, dealer=bad)  # type: ignore[arg-type]
        assert err.value.code == "bad_deal"
