"""The scorekeeper (seed 000 "SquareScores"): every call kind, right and wrong, for 2, 3 and 4
pairs under letters and points; match end; undo and edit; refusals; import and export; the
worked game of seed 000 hand by hand and through ``kemps score``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kemps.cli import app
from kemps.errors import ScoreError
from kemps.scorekeeper import Match, from_json, from_sheet, to_csv, to_json, to_sheet

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed000-scoresheet.json"
runner = CliRunner()


def players(n: int) -> list[list[str]]:
    """Pair i is P{i}a and P{i}b; P0a's partner is P0b."""
    return [[f"P{i}a", f"P{i}b"] for i in range(n)]


LETTERS: dict[str, Any] = {"double_calls": True}  # pagat: right Kemps -> every other pair
POINTS: dict[str, Any] = {"double_calls": True, "scoring": "points", "target": 10,
                          "double_right": 2, "double_wrong": 1}  # S4's double scores


def hand(call: str, right: bool) -> dict[str, Any]:
    """P0a calls; Kemps and Double Kemps on the partner P0b; Stop Kemps on pair 1."""
    h: dict[str, Any] = {"call": call, "by": "P0a", "right": right}
    if call in ("stop", "double_stop"):
        h["on"] = 1
    return h


def others(n: int, k: int) -> tuple[int, ...]:
    return (0,) + (k,) * (n - 1)


def pair1(n: int, k: int) -> tuple[int, ...]:
    return (0, k) + (0,) * (n - 2)


def own(n: int, k: int) -> tuple[int, ...]:
    return (k,) + (0,) * (n - 1)


# Letters go to the pair that lost the hand (S0 table, S2 rows); points to the pair that won it
# (S0 "Points instead of letters", S4); double calls score 2 right, 2 (letters) / 1 (points) wrong.
CASES = [
    # scoring, call, right, expected scores after one hand (as a function of the pair count)
    ("letters", "kemps", True, lambda n: others(n, 1)),     # right Kemps: every other pair
    ("letters", "kemps", False, lambda n: own(n, 1)),       # wrong Kemps: the caller's pair
    ("letters", "stop", True, lambda n: pair1(n, 1)),       # right Stop: the pair stopped
    ("letters", "stop", False, lambda n: own(n, 1)),        # wrong Stop: the caller's pair
    ("letters", "double", True, lambda n: others(n, 2)),
    ("letters", "double", False, lambda n: own(n, 2)),
    ("letters", "double_stop", True, lambda n: pair1(n, 2)),
    ("letters", "double_stop", False, lambda n: own(n, 2)),
    ("points", "kemps", True, lambda n: own(n, 1)),         # right call: a point to the caller
    ("points", "kemps", False, lambda n: others(n, 1)),     # wrong Kemps: every other pair
    ("points", "stop", True, lambda n: own(n, 1)),
    ("points", "stop", False, lambda n: pair1(n, 1)),       # wrong Stop: the pair accused
    ("points", "double", True, lambda n: own(n, 2)),
    ("points", "double", False, lambda n: others(n, 1)),
    ("points", "double_stop", True, lambda n: own(n, 2)),
    ("points", "double_stop", False, lambda n: pair1(n, 1)),
]


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("scoring, call, right, expected", CASES)
def test_every_call_right_and_wrong(n: int, scoring: str, call: str, right: bool,
                                    expected: Any) -> None:
    m = Match(players(n), options=LETTERS if scoring == "letters" else POINTS)
    result = m.record(hand(call, right))
    assert m.scores == expected(n)
    assert result.scores == expected(n)
    assert result.ends_hand and result.counts and not result.ends_match
    assert sum(a for _, a in result.given) == sum(expected(n))
    assert m.rules.pairs == n


def test_texts_name_the_caller_the_call_and_who_takes_what() -> None:
    m = Match(players(2), preset="squarescores")
    r = m.record({"call": "stop", "by": "P1b", "on": "P0a", "right": True})
    assert r.text == "Hand 1: P1b calls Stop Kemps on P0a, right. P0a & P0b take a letter (K)."
    r = m.record({"call": "kemps", "by": "P1a", "right": False})
    assert r.text == "Hand 2: P1a calls Kemps on P1b, wrong. P1a & P1b take a letter (K)."


def test_right_kemps_with_three_pairs_under_one_pair_asks_which_pair() -> None:
    """RULES-NOTES "Cases the seeds leave open": S0 gives exactly one letter, naming no pair; the
    scorekeeper asks, and the answer is ``letters_to``."""
    m = Match(players(3), preset="squarescores")
    with pytest.raises(ScoreError) as err:
        m.record({"call": "kemps", "by": "P0a", "right": True})
    assert err.value.code == "need_letters_to"
    assert err.value.message.startswith("Hand 1: ")
    assert "'P1a & P1b' (1)" in err.value.message and "'P2a & P2b' (2)" in err.value.message
    assert m.history == () and m.scores == (0, 0, 0)
    m.record({"call": "kemps", "by": "P0a", "right": True, "letters_to": 2})
    assert m.scores == (0, 0, 1)
    m.record({"call": "kemps", "by": "P1b", "right": True, "letters_to": "P0a & P0b"})
    assert m.scores == (1, 0, 1)
    m.record({"call": "kemps", "by": "P2a", "right": True, "letters_to": "P1a"})  # a player
    assert m.scores == (1, 1, 1)
    # a wrong Kemps and a Stop Kemps need no answer: the letter's pair is plain
    m.record({"call": "kemps", "by": "P2a", "right": False})
    m.record({"call": "stop", "by": "P2a", "on": "P0b", "right": True})
    assert m.scores == (2, 1, 2)
    with pytest.raises(ScoreError) as err:
        m.record({"call": "kemps", "by": "P0a", "right": True, "letters_to": 0})
    assert err.value.code == "bad_letters_to"
    with pytest.raises(ScoreError) as err:  # an answer that contradicts the rules
        m.record({"call": "stop", "by": "P2a", "on": "P0b", "right": True, "letters_to": 1})
    assert err.value.code == "bad_letters_to"
    assert m.scores == (2, 1, 2)


def test_letters_to_with_two_pairs_is_accepted_when_it_agrees() -> None:
    m = Match(players(2), preset="squarescores")
    m.record({"call": "kemps", "by": "P0a", "right": True, "letters_to": 1})
    assert m.scores == (0, 1)


def test_the_match_ends_when_a_pair_spells_the_word_and_the_rest_are_ranked() -> None:
    m = Match(players(3), options={"target": 2})  # K-E loses
    m.record({"call": "kemps", "by": "P0a", "right": True})          # 0 1 1
    m.record({"call": "stop", "by": "P0a", "on": 2, "right": True})   # 0 1 2: P2 spells K-E
    assert m.over and m.history[-1].ends_match
    st = m.standings()
    assert [(s.name, s.score, s.spelled, s.rank, s.out) for s in st] == [
        ("P0a & P0b", 0, "-", 1, False), ("P1a & P1b", 1, "K", 2, False),
        ("P2a & P2b", 2, "K-E", 3, True)]
    assert m.winners() == (0,)
    with pytest.raises(ScoreError) as err:
        m.record({"call": "real_deal"})
    assert err.value.code == "match_over" and err.value.message.startswith("Hand 3: ")


def test_ties_share_a_rank_smaller_count_in_front() -> None:
    m = Match(players(4))
    m.record({"call": "kemps", "by": "P0a", "right": False})  # 1 0 0 0
    m.record({"call": "kemps", "by": "P3b", "right": False})  # 1 0 0 1
    assert [(s.pair, s.rank) for s in m.standings()] == [(1, 1), (2, 1), (0, 3), (3, 3)]


def test_letters_stop_at_the_word_and_a_double_can_end_the_match() -> None:
    m = Match(players(2), options={"double_calls": True})
    for _ in range(4):
        m.record({"call": "kemps", "by": "P0a", "right": True})
    r = m.record({"call": "double", "by": "P0a", "right": True})  # 2 letters, only 1 left
    assert r.given == ((1, 1),) and m.scores == (0, 5) and m.over


def test_points_end_at_the_target() -> None:
    m = Match(players(2), preset="points-to-five")
    for _ in range(4):
        m.record({"call": "kemps", "by": "P1a", "right": True})
    assert not m.over
    m.record({"call": "stop", "by": "P1a", "on": "P0b", "right": True})
    assert m.scores == (0, 5) and m.over and m.winners() == (1,)
    assert [s.spelled for s in m.standings()] == ["5 points", "0 points"]


def test_s4_wrong_call_plays_on_and_does_not_count_as_a_hand() -> None:
    m = Match(players(2), preset="points-to-five", options={"hands": 3, "target": 0})
    r = m.record({"call": "stop", "by": "P0a", "on": "P1a", "right": False})
    assert m.scores == (0, 1) and not r.ends_hand and not r.counts
    assert r.text.endswith("Play goes on.")
    m.record({"call": "kemps", "by": "P0a", "right": True})
    assert not m.over and m.decided_hands == 1
    m.record({"call": "kemps", "by": "P0a", "right": True})
    assert not m.over and m.decided_hands == 2
    m.record({"call": "kemps", "by": "P1a", "right": True})
    assert m.over and m.scores == (2, 2)


def test_agreed_number_of_hands_real_deals_do_not_count() -> None:
    """S2 Peanut Butter: an odd number of hands; RULES-NOTES: real deals are not hands."""
    m = Match(players(2), preset="peanut-butter")  # hands=5
    m.record({"call": "real_deal"})
    for who, right in [("P0a", True), ("P1a", True), ("P0a", True), ("P1a", False)]:
        m.record({"call": "kemps", "by": who, "right": right})
    m.record({"call": "real_deal"})
    assert not m.over and m.decided_hands == 4
    m.record({"call": "kemps", "by": "P1a", "right": True})
    # P0/P1 took: hand2 -> P1, hand3 -> P0, hand4 -> P1, hand5 -> P1 (wrong), hand7 -> P0
    assert m.over and m.scores == (2, 3) and m.winners() == (0,)


def test_table_talk_loses_the_match_and_ranks_last() -> None:
    m = Match(players(3))
    m.record({"call": "kemps", "by": "P1a", "right": False})  # 0 1 0
    r = m.record({"call": "table_talk", "on": "P0b", "by": "P2a"})
    assert r.ends_match and r.on_pair == 0 and m.over
    assert m.ranks() == (3, 2, 1)
    assert [s.out for s in m.standings()] == [False, False, True]


@pytest.mark.parametrize("preset, options, pairs, entry, code", [
    ("pagat", {}, 2, {"call": "kemps", "by": "P0a", "on": "P1a", "right": True},
     "not_your_partner"),
    ("pagat", {}, 2, {"call": "kemps", "by": "P0a", "on": 1, "right": True}, "not_your_partner"),
    ("pagat", {}, 2, {"call": "kemps", "by": "Zed", "right": True}, "unknown_player"),
    ("pagat", {}, 2, {"call": "stop", "by": "P0a", "on": "Zed", "right": True},
     "unknown_player"),
    ("pagat", {}, 2, {"call": "stop", "by": "P0a", "on": 7, "right": True}, "unknown_pair"),
    ("pagat", {}, 2, {"call": "stop", "by": "P0a", "on": "P0b", "right": True}, "own_pair"),
    ("pagat", {}, 3, {"call": "stop", "by": "P0a", "on": 0, "right": True}, "own_pair"),
    ("pagat", {}, 3, {"call": "stop", "by": "P0a", "right": True}, "need_target"),
    ("squarescores", {}, 2, {"call": "stop", "by": "P0a", "on": 1, "right": True},
     "need_target"),
    ("pagat", {"stop_scope": "opposite"}, 4, {"call": "stop", "by": "P0a", "on": 1,
                                              "right": True}, "not_opposite"),
    ("pagat", {}, 2, {"call": "double", "by": "P0a", "right": True}, "calls_disabled"),
    ("pagat", {}, 2, {"call": "double_stop", "by": "P0a", "right": True}, "calls_disabled"),
    ("points-to-five", {}, 2, {"call": "table_talk", "on": 0}, "table_talk_allowed"),
    ("pagat", {}, 2, {"call": "kemps", "by": "P0a"}, "bad_hand"),
    ("pagat", {}, 2, {"call": "kemps", "right": True}, "bad_hand"),
    ("pagat", {}, 2, {"call": "kemps", "by": "P0a", "right": "yes"}, "bad_hand"),
    ("pagat", {}, 2, {"call": "kemps", "by": "P0a", "rigth": True}, "bad_hand"),
    ("pagat", {}, 2, {"call": "shout", "by": "P0a", "right": True}, "bad_hand"),
    ("pagat", {}, 2, {"call": "real_deal", "right": False}, "bad_hand"),
    ("pagat", {}, 2, {"call": "table_talk"}, "bad_hand"),
    ("pagat", {}, 2, ["kemps"], "bad_hand"),
])
def test_refusals_name_the_hand_and_change_nothing(preset: str, options: dict[str, Any],
                                                   pairs: int, entry: Any, code: str) -> None:
    m = Match(players(pairs), preset=preset, options=options)
    m.record({"call": "kemps", "by": "P0b", "right": False})
    before = (m.scores, m.history)
    with pytest.raises(ScoreError) as err:
        m.record(entry)
    assert err.value.code == code
    assert err.value.message.startswith("Hand 2: "), err.value.message
    assert (m.scores, m.history) == before


def test_the_partner_is_named_when_kemps_is_called_on_someone_else() -> None:
    m = Match([["Alice", "Cara"], ["Ben", "Dev"]])
    with pytest.raises(ScoreError) as err:
        m.record({"call": "kemps", "by": "Ben", "on": "Alice", "right": True})
    assert err.value.message == ("Hand 1: Ben's Kemps: Kemps is called only on the caller's "
                                 "partner. (Ben's partner is Dev)")


def test_undo_edit_and_delete_work_the_totals_out_again() -> None:
    m = Match(players(2), options={"target": 3})
    m.record({"call": "kemps", "by": "P0a", "right": True})   # 0 1
    m.record({"call": "kemps", "by": "P0a", "right": False})  # 1 1
    m.record({"call": "stop", "by": "P1a", "right": True})    # 2 1
    undone = m.undo()
    assert undone.number == 3 and m.scores == (1, 1) and len(m.history) == 2
    m.record({"call": "stop", "by": "P1a", "right": False})   # 1 2
    m.edit(1, {"call": "kemps", "by": "P0a", "right": False})  # hand 1 now 1 0 -> 2 0 -> 2 1
    assert m.scores == (2, 1)
    assert [h.scores for h in m.history] == [(1, 0), (2, 0), (2, 1)]
    removed = m.delete(2)
    assert removed.entry.right is False and m.scores == (1, 1)
    assert [h.number for h in m.history] == [1, 2]
    # an edit that ends the match before a later hand is refused, naming that hand
    m.record({"call": "real_deal"})  # hand 3
    before = m.history
    with pytest.raises(ScoreError) as err:
        m.edit(2, {"call": "table_talk", "on": 1})
    assert err.value.code == "match_over"
    assert err.value.message.startswith("Hand 3: the match ended with hand 2")
    assert "after editing hand 2; nothing was changed" in err.value.message
    assert m.history == before and m.scores == (1, 1)
    with pytest.raises(ScoreError) as err:
        m.edit(9, {"call": "real_deal"})
    assert err.value.code == "no_such_hand"
    with pytest.raises(ScoreError) as err:  # an edit that is itself against the rules
        m.edit(1, {"call": "kemps", "by": "P0a", "on": "P1a", "right": True})
    assert err.value.code == "not_your_partner" and err.value.message.startswith("Hand 1: ")
    assert m.history == before
    for _ in range(3):
        m.undo()
    with pytest.raises(ScoreError) as err:
        m.undo()
    assert err.value.code == "nothing_to_undo"


def test_edit_can_reopen_a_finished_match() -> None:
    m = Match(players(2), options={"target": 1})
    m.record({"call": "kemps", "by": "P0a", "right": True})
    assert m.over
    m.edit(1, {"call": "real_deal"})
    assert not m.over and m.scores == (0, 0)


def test_seed000_worked_game_hand_by_hand() -> None:
    """S0 "A worked game": letters after each round exactly as the seed gives them; rounds 7 and 8
    ("two rounds later Ben and Dev take their fourth and fifth letters") as in
    tests/test_worked_game.py."""
    m = Match([["Alice", "Cara"], ["Ben", "Dev"]], preset="squarescores")
    rounds = [
        ({"call": "kemps", "by": "Alice", "on": "Cara", "right": True}, (0, 1)),   # B&D: K
        ({"call": "kemps", "by": "Ben", "right": False}, (0, 2)),                 # B&D: K-E
        ({"call": "stop", "by": "Dev", "on": "Alice", "right": True}, (1, 2)),     # A&C: K
        ({"call": "stop", "by": "Alice", "on": "Ben", "right": False}, (2, 2)),    # A&C: K-E
        ({"call": "kemps", "by": "Dev", "on": "Ben", "right": True}, (3, 2)),      # A&C: K-E-M
        ({"call": "kemps", "by": "Cara", "on": "Alice", "right": True}, (3, 3)),   # B&D: K-E-M
        ({"call": "kemps", "by": "Alice", "right": True}, (3, 4)),
        ({"call": "kemps", "by": "Dev", "right": False}, (3, 5)),
    ]
    for i, (entry, letters) in enumerate(rounds, start=1):
        assert not m.over
        assert m.record(entry).scores == letters, f"round {i}"
    assert m.over
    st = m.standings()
    assert [(s.name, s.score, s.spelled, s.rank) for s in st] == [
        ("Alice & Cara", 3, "K-E-M", 1), ("Ben & Dev", 5, "K-E-M-P-S", 2)]
    assert [m.pairs[i].name for i in m.winners()] == ["Alice & Cara"]
    # the shipped example sheet is the same game
    sheet = from_json(EXAMPLE.read_text(encoding="utf-8"))
    assert [h.scores for h in sheet.history] == [h.scores for h in m.history]


def test_export_and_import_round_trip() -> None:
    m = Match(players(3), preset="squarescores", options={"double_calls": True},
              pair_names=["North", None, "West"], title="Club night")
    m.record({"call": "kemps", "by": "P0a", "right": True, "letters_to": "West"})
    m.record({"call": "double_stop", "by": "P1a", "on": "North", "right": False,
              "note": "too soon"})
    m.record({"call": "real_deal"})
    sheet = to_sheet(m)
    assert sheet["pairs"][0] == {"name": "North", "players": ["P0a", "P0b"]}
    assert sheet["pairs"][1] == ["P1a", "P1b"]
    assert sheet["options"] == {"double_calls": True}
    again = from_json(to_json(m))
    assert again.summary() == m.summary() and again.entries == m.entries
    assert again.title == "Club night" and again.preset == "squarescores"
    exported = json.loads(to_json(m))
    # North 0 letters, West 1 (the answer to hand 1), P1 2 (its wrong double Stop Kemps)
    assert [s["name"] for s in exported["result"]["standings"]] == ["North", "West", "P1a & P1b"]
    rows = list(csv.DictReader(io.StringIO(to_csv(m))))
    assert len(rows) == 3
    assert rows[0]["West took"] == "1" and rows[0]["North took"] == "0"
    assert rows[1]["P1a & P1b took"] == "2" and rows[1]["P1a & P1b total"] == "2"
    assert rows[1]["note"] == "too soon" and rows[2]["call"] == "real_deal"


@pytest.mark.parametrize("sheet, code, fragment", [
    ([], "bad_sheet", "JSON object"),
    ({"pairs": [["A", "B"]], "hands": []}, "bad_sheet", "2 to 12 pairs"),
    ({"pairs": [["A", "B"], ["C", "A"]], "hands": []}, "bad_sheet", "different name"),
    ({"pairs": [["A", "B"], ["C"]], "hands": []}, "bad_sheet", "two player names"),
    ({"pairs": [["A", "B"], ["C", "D"]], "hands": [], "colour": 1}, "bad_sheet", "colour"),
    ({"pairs": [["A", "B"], ["C", "D"]], "hands": {}}, "bad_sheet", "list of hands"),
    ({"pairs": [["A", "B"], ["C", "D"]], "options": {"pairs": 3}}, "bad_sheet", "3"),
    ({"pairs": [["A", "B"], ["C", "D"]], "preset": "poker"}, "unknown_preset", "poker"),
    ({"pairs": [["A", "B"], ["C", "D"]], "options": {"colour": 1}}, "bad_option", "colour"),
    ({"pairs": [["A", "B"], ["C", "D"]], "hands": [
        {"call": "kemps", "by": "A", "right": True}, {"call": "kemps", "by": "C", "on": "A",
                                                       "right": True}]},
     "not_your_partner", "Hand 2: "),
])
def test_bad_sheets_are_refused(sheet: Any, code: str, fragment: str) -> None:
    with pytest.raises(Exception) as err:  # ScoreError or RuleError, both KempsError
        from_sheet(sheet)
    assert getattr(err.value, "code", None) == code
    assert fragment in err.value.message  # type: ignore[attr-defined]


def test_kemps_score_prints_the_standings() -> None:
    result = runner.invoke(app, ["score", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert "Match over after hand 8: Alice & Cara win" in result.output
    assert "K-E-M-P-S (out)" in result.output and "K-E-M " in result.output
    data = json.loads(runner.invoke(app, ["score", str(EXAMPLE), "--json"]).output)
    assert data["over"] is True and data["winners"] == ["Alice & Cara"]
    assert [(s["name"], s["score"], s["rank"]) for s in data["standings"]] == [
        ("Alice & Cara", 3, 1), ("Ben & Dev", 5, 2)]


def test_kemps_score_history_and_csv(tmp_path: Path) -> None:
    out = tmp_path / "h.csv"
    result = runner.invoke(app, ["score", str(EXAMPLE), "--history", "--csv", str(out)])
    assert result.exit_code == 0, result.output
    assert "Hand 3: Dev calls Stop Kemps on Alice, right." in result.output
    assert out.read_text(encoding="utf-8").count("\n") == 9


def test_kemps_score_refuses_a_bad_sheet_without_a_traceback(tmp_path: Path) -> None:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data["hands"].append({"call": "kemps", "by": "Cara", "right": True})
    bad = tmp_path / "after.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["score", str(bad)])
    assert result.exit_code == 2
    assert "error match_over: Hand 9: the match ended with hand 8" in result.output
    assert "Traceback" not in result.output
    data["hands"][1] = {"call": "kemps", "by": "Ben", "on": "Alice", "right": False}
    bad.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["score", str(bad)])
    assert result.exit_code == 2 and "error not_your_partner: Hand 2:" in result.output
    (tmp_path / "x.json").write_text("{", encoding="utf-8")
    result = runner.invoke(app, ["score", str(tmp_path / "x.json")])
    assert result.exit_code == 2 and "error bad_sheet" in result.output
    result = runner.invoke(app, ["score", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "Cannot read" in result.output
