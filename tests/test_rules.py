"""Unit tests for kemps.rules: presets and aliases, validation, serialisation."""

from __future__ import annotations

from typing import Any

import pytest

from kemps.errors import RuleError
from kemps.rules import DEFAULT_PRESET, PRESETS, RuleSet, find_preset, preset_names

EXPECTED_PRESETS = {"pagat", "squarescores", "seed2-standard", "seed2-tournament",
                    "points-to-five", "kent", "cash", "canes", "signals", "peanut-butter"}


def test_every_preset_named_in_rules_notes_exists() -> None:
    assert set(PRESETS) == EXPECTED_PRESETS
    assert DEFAULT_PRESET == "pagat"


@pytest.mark.parametrize("name", sorted(EXPECTED_PRESETS))
def test_preset_found_by_name(name: str) -> None:
    r = find_preset(name)
    assert r.name == name
    assert find_preset(name.upper()) is r
    assert find_preset(f"  {name.replace('-', '_')} ") is r
    assert find_preset(name.replace("-", " ")) is r


@pytest.mark.parametrize(("alias", "name"), [
    (alias, name) for name, aliases in preset_names().items() for alias in aliases])
def test_every_alias_resolves(alias: str, name: str) -> None:
    assert find_preset(alias).name == name


@pytest.mark.parametrize(("alias", "name"), [
    ("s0", "squarescores"), ("s1", "pagat"), ("s2", "seed2-standard"), ("s4", "points-to-five"),
    ("kemps", "pagat"), ("tournament", "seed2-tournament"), ("jelly", "peanut-butter"),
    ("counter-cash", "cash"), ("Peanut Butter", "peanut-butter")])
def test_known_aliases(alias: str, name: str) -> None:
    assert find_preset(alias).name == name


@pytest.mark.parametrize("name", ["", "poker", "s3", "kemps2"])
def test_unknown_preset(name: str) -> None:
    with pytest.raises(RuleError) as info:
        find_preset(name)
    assert info.value.code == "unknown_preset"
    assert "pagat" in info.value.message


@pytest.mark.parametrize(("changes", "option"), [
    ({"pairs": 13}, "pairs"),
    ({"pairs": 1}, "pairs"),
    ({"hands": 4}, "hands"),
    ({"pairs": 3, "stop_scope": "opposite"}, "stop_scope"),
    ({"objection_s": 0}, "objection_s"),
    ({"double_stop_on": "three_of_a_kind"}, "double_stop_on"),
    ({"dealer": "non_playing", "idle_sweep_s": 0}, "idle_sweep_s"),
    ({"pairs": 1}, "pairs"),
    ({"pairs": 6, "decks": 1}, "decks"),
    ({"immune_while_holding": True}, "immune_while_holding"),
    ({"decks": 3}, "decks"),
    ({"start": "whenever"}, "start"),
    ({"dealer": "rotate_right"}, "dealer"),
    ({"sweep": "nobody"}, "sweep"),
    ({"stop_target": "team"}, "stop_target"),
    ({"multi_swap": "yes"}, "multi_swap"),
    ({"hold_limit_s": -1}, "hold_limit_s"),
    ({"idle_sweep_s": 601}, "idle_sweep_s"),
    ({"idle_sweep_s": 0.01}, "idle_sweep_s"),  # a timer storm (security review)
    ({"pairs": True}, "pairs"),
    ({"word": "kemps"}, "word"),
    ({"word": "K3MPS"}, "word"),
    ({"target": 6}, "target"),
    ({"scoring": "points", "target": 0}, "target"),
    ({"double_right": 0}, "double_right"),
    ({"double_wrong": 9}, "double_wrong"),
    ({"stop_word": "kemps"}, "stop_word"),
    ({"call_word": ""}, "call_word"),
    ({"hands": -1}, "hands"),
    ({"no_such_option": 1}, "no_such_option"),
])
def test_bad_option_names_the_option(changes: dict[str, Any], option: str) -> None:
    with pytest.raises(RuleError) as info:
        find_preset("pagat").replace(**changes)
    assert info.value.code == "bad_option"
    assert option in info.value.message


def test_six_pairs_need_two_decks() -> None:
    """One deck cannot serve twelve players: 48 cards in hands and 4 in the middle leave no stock
    to refresh the middle (S2 variations row 3: 'One deck is enough for up to eight'). The brief's
    check: decks=1 with 6 pairs is a bad option."""
    with pytest.raises(RuleError) as info:
        RuleSet(pairs=6, decks=1)
    assert info.value.code == "bad_option" and "decks" in info.value.message
    assert RuleSet(pairs=6).deck_count == 2
    assert RuleSet(pairs=6, decks=2).deck_count == 2
    assert RuleSet(pairs=5, decks=1).deck_count == 1  # 44 + 4 of 52 leaves a stock


def test_immune_while_holding_needs_a_hold_limit() -> None:
    with pytest.raises(RuleError) as info:
        RuleSet(immune_while_holding=True, hold_limit_s=0)
    assert "immune_while_holding" in info.value.message
    assert RuleSet(immune_while_holding=True, hold_limit_s=3.0).immune_while_holding


@pytest.mark.parametrize("name", sorted(EXPECTED_PRESETS))
def test_to_dict_from_dict_round_trip(name: str) -> None:
    r = find_preset(name)
    data = r.to_dict()
    assert "aliases" not in data and data["name"] == name
    back = RuleSet.from_dict(data)
    assert back == r and back.name == name
    assert back.to_dict() == data


def test_from_dict_rejects_bad_data() -> None:
    with pytest.raises(RuleError) as info:
        RuleSet.from_dict({"pairs": 13})
    assert info.value.code == "bad_option" and "pairs" in info.value.message
    with pytest.raises(RuleError) as info:
        RuleSet.from_dict([("pairs", 2)])  # type: ignore[arg-type]
    assert info.value.code == "bad_option"
    with pytest.raises(RuleError) as info:
        RuleSet.from_dict({"colour": "red"})
    assert "colour" in info.value.message


def test_from_dict_missing_options_take_defaults() -> None:
    assert RuleSet.from_dict({}) == RuleSet()
    assert RuleSet.from_dict({"pairs": 3}).pairs == 3


def test_replace_marks_name_custom() -> None:
    p = find_preset("pagat")
    r = p.replace(pairs=3)
    assert r.name == "custom" and r.pairs == 3
    assert p.pairs == 2 and p.name == "pagat"  # presets are immutable
    assert p.replace(pairs=2).name == "pagat"  # no real change keeps the name
    assert p.replace(pairs=3, name="mine").name == "mine"
    assert r.differences(p) == {"pairs": 3}


def test_ruleset_is_frozen() -> None:
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        find_preset("pagat").pairs = 3  # type: ignore[misc]


def test_derived_values() -> None:
    r = find_preset("pagat")
    assert r.players == 4 and r.deck_count == 1 and r.losing_letters == 5
    assert find_preset("kent").losing_letters == 4
    assert find_preset("seed2-tournament").losing_letters == 3
    assert find_preset("points-to-five").double_stop_word == "Double Counter Kemps"


def test_presets_match_rules_notes() -> None:
    """Spot checks of each preset against RULES-NOTES' table of disagreements."""
    s0 = find_preset("squarescores")
    assert (s0.heard_signals, s0.dealer, s0.multi_swap, s0.stock_exhausted, s0.stop_target) == (
        True, "rotate_left", False, "reshuffle_swept", "player")
    s1 = find_preset("pagat")
    assert (s1.heard_signals, s1.dealer, s1.multi_swap, s1.stock_exhausted, s1.stop_target,
            s1.right_kemps_letters, s1.table_talk) == (
        False, "fixed", True, "real_deal", "pair", "every_other_pair", "forbidden")
    s2 = find_preset("seed2-standard")
    assert (s2.dealer, s2.sweep, s2.stock_exhausted) == ("fixed", "dealer_only", "real_deal")
    s4 = find_preset("points-to-five")
    assert (s4.scoring, s4.target, s4.hold_limit_s, s4.immune_while_holding,
            s4.wrong_call_ends_round, s4.double_calls, s4.double_right, s4.double_wrong,
            s4.table_talk, s4.stop_target) == (
        "points", 5, 3.0, True, False, True, 2, 1, "allowed", "player")
    assert find_preset("cash").start == "countdown"
    pb = find_preset("peanut-butter")
    assert pb.hands % 2 == 1 and pb.heard_signals
