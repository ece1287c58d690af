"""The tournament desk (S2 "A tournament (our format)"): a 4-team round robin and a 7-team event
with two groups and a final, each played to a champion with the standings worked out by hand;
withdrawal and forfeits; refusals; the file; the ``kemps tournament`` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kemps.cli import app
from kemps.errors import ScoreError
from kemps.tournament import Tournament, load, parse_team, round_robin, save

runner = CliRunner()
FOUR = ["Alice & Cara", "Ben & Dev", "Eve & Finn", "Gus & Hana"]
SEVEN = ["Owls: Ann & Abe", "Bats: Bo & Bea", "Cats: Cy & Cat", "Dogs: Di & Dan",
         "Emus: Ed & Eve", "Foxes: Fay & Fox", "Gnus: Gil & Gwen"]


def table_of(t: Tournament, group: str = "") -> list[tuple[int, str, int, int, int]]:
    """(rank, team, won, lost, letters) per line."""
    return [(s.rank, s.team, s.won, s.lost, s.letters) for s in t.standings().groups[group]]


def test_round_robin_meets_everyone_once() -> None:
    for n in range(2, 9):
        rounds = round_robin(list(range(n)))
        games = [frozenset(g) for r in rounds for g in r]
        assert len(games) == len(set(games)) == n * (n - 1) // 2
        for r in rounds:  # nobody plays twice in a round
            seen = [x for g in r for x in g]
            assert len(seen) == len(set(seen))


def test_parse_team() -> None:
    assert parse_team("Alice & Cara").name == "Alice & Cara"
    sharks = parse_team("Sharks: Alice and Cara")
    assert sharks.name == "Sharks" and sharks.players == ("Alice", "Cara")
    with pytest.raises(ScoreError) as err:
        parse_team("Alice")
    assert err.value.code == "bad_team"


def test_four_teams_round_robin_to_a_champion() -> None:
    t = Tournament(FOUR, seed=11)
    assert t.tables == 2 and list(t.groups) == [""]
    # circle method: round 1 A v G, E v B; round 2 E v A, G v B; round 3 A v B, G v E
    assert [(m.id, t.teams[m.teams[0]].name, t.teams[m.teams[1]].name) for m in t.matches] == [
        ("M1", "Alice & Cara", "Gus & Hana"), ("M2", "Eve & Finn", "Ben & Dev"),
        ("M3", "Eve & Finn", "Alice & Cara"), ("M4", "Gus & Hana", "Ben & Dev"),
        ("M5", "Alice & Cara", "Ben & Dev"), ("M6", "Gus & Hana", "Eve & Finn")]
    sched = t.schedule()
    assert [(r["id"], r["status"], r["table"], r["order"]) for r in sched[:3]] == [
        ("M1", "at_table", 1, None), ("M2", "at_table", 2, None), ("M3", "waiting", None, 1)]
    assert t.match_rules("M1").losing_letters == 3  # K-E-M

    # M1 from a scoresheet kept with the scorekeeper: Alice & Cara take K, Gus & Hana K-E-M
    sheet = t.new_scoresheet("M1")
    assert sheet.rules.losing_letters == 3 and sheet.pairs[0].name == "Alice & Cara"
    sheet.record({"call": "kemps", "by": "Alice", "right": False})  # A&C: K
    for _ in range(3):
        sheet.record({"call": "stop", "by": "Cara", "right": True})  # G&H: K, K-E, K-E-M
    assert sheet.over and sheet.scores == (1, 3)
    t.record_match("M1", sheet)
    # M2 finishes; M1's table 1 was free but M3 needs Eve & Finn, still at table 2, and M4 Ben
    # & Dev: nobody can be called until M2 is in
    assert [(r["id"], r["status"], r["table"]) for r in t.schedule()[2:4]] == [
        ("M3", "waiting", None), ("M4", "waiting", None)]
    t.record("M2", (3, 2))                            # Ben & Dev win
    assert [(r["id"], r["table"]) for r in t.schedule()[2:4]] == [("M3", 1), ("M4", 2)]
    t.record("M3", {"Eve & Finn": 2, "Alice": 3})     # Eve & Finn win (a player names a team)
    t.record("M4", (3, 0))                            # Ben & Dev win
    t.record("M5", (2, 3))                            # Alice & Cara win
    assert t.standings().champion is None
    t.record("M6", (3, 1))                            # Eve & Finn win
    # By hand:
    #   Alice & Cara: won M1 (1 letter), lost M3 (3), won M5 (2) -> 2 won, 1+3+2 = 6 letters
    #   Ben & Dev:    won M2 (2), won M4 (0), lost M5 (3)         -> 2 won, 2+0+3 = 5 letters
    #   Eve & Finn:   lost M2 (3), won M3 (2), won M6 (1)         -> 2 won, 3+2+1 = 6 letters
    #   Gus & Hana:   lost M1 (3), M4 (3), M6 (3)                 -> 0 won, 9 letters
    # Three level on 2 won: Ben & Dev first on fewer letters (5); Alice & Cara and Eve & Finn
    # level on 6 letters too: head-to-head, Eve & Finn beat Alice & Cara in M3.
    assert table_of(t) == [(1, "Ben & Dev", 2, 1, 5), (2, "Eve & Finn", 2, 1, 6),
                           (3, "Alice & Cara", 2, 1, 6), (4, "Gus & Hana", 0, 3, 9)]
    st = t.standings()
    assert [s.note for s in st.groups[""]] == ["fewer letters", "head-to-head", "head-to-head",
                                               ""]
    assert st.tie_breaks == [
        "The table: Ben & Dev, Alice & Cara and Eve & Finn level on 2 matches won; fewer letters "
        "over the event decides: Ben & Dev 5, Alice & Cara 6, Eve & Finn 6.",
        "The table: Alice & Cara and Eve & Finn level on 2 matches won and 6 letters; "
        "head-to-head: Eve & Finn beat Alice & Cara."]
    assert st.champion == "Ben & Dev" and st.complete
    assert "head-to-head" in st.rule and "seed 11" in st.rule


def test_seven_teams_two_groups_a_withdrawal_a_lot_and_a_final() -> None:
    t = Tournament(SEVEN, tables=2, seed=2026)
    # S2 row 6: six or more teams, two groups; teams alternate in registration order
    assert {g: [t.teams[i].name for i in ids] for g, ids in t.groups.items()} == {
        "A": ["Owls", "Cats", "Emus", "Gnus"], "B": ["Bats", "Dogs", "Foxes"]}
    assert [(m.id, t.teams[m.teams[0]].name, t.teams[m.teams[1]].name) for m in t.matches] == [
        ("A1", "Owls", "Gnus"), ("A2", "Emus", "Cats"), ("B1", "Foxes", "Dogs"),
        ("A3", "Emus", "Owls"), ("A4", "Gnus", "Cats"), ("B2", "Foxes", "Bats"),
        ("A5", "Owls", "Cats"), ("A6", "Gnus", "Emus"), ("B3", "Bats", "Dogs")]
    assert [(r["id"], r["table"]) for r in t.schedule() if r["status"] == "at_table"] == [
        ("A1", 1), ("A2", 2)]
    t.record("A1", (1, 3))                      # Owls win: Owls 1, Gnus 3
    assert {r["id"]: r["table"] for r in t.schedule() if r["status"] == "at_table"} == {
        "B1": 1, "A2": 2}                       # B1 goes to the free table 1
    t.record("A2", (3, 2))                      # Cats win: Emus 3, Cats 2
    forfeited = t.withdraw("Gnus")              # A4 and A6 become forfeits
    assert [m.id for m in forfeited] == ["A4", "A6"]
    rows = {r["id"]: r for r in t.schedule()}
    assert rows["A4"]["status"] == "forfeit"
    assert rows["A4"]["result"] == "Cats win by forfeit (Gnus withdrew; no letters counted)"
    t.record("A3", (3, 0))                      # Owls win: Emus 3, Owls 0
    t.record("A5", (3, 1))                      # Cats win: Owls 3, Cats 1
    # Group B: a circle of wins, every team 5 letters
    t.record("B1", (3, 2))                      # Dogs beat Foxes: Foxes 3, Dogs 2
    t.record("B2", (2, 3))                      # Foxes beat Bats: Foxes 2, Bats 3
    with pytest.raises(ScoreError) as err:
        t.record("F", (5, 0))
    assert err.value.code == "no_such_match" and "both groups" in err.value.message
    t.record("B3", (2, 3))                      # Bats beat Dogs: Bats 2, Dogs 3
    # Group A by hand:
    #   Cats: won A2 (2 letters), A4 by forfeit (none counted), A5 (1) -> 3 won, 3 letters
    #   Owls: won A1 (1), A3 (0), lost A5 (3)                         -> 2 won, 4 letters
    #   Emus: lost A2 (3), A3 (3), won A6 by forfeit                   -> 1 won, 6 letters
    #   Gnus: lost A1 (3), A4 and A6 by forfeit, withdrawn            -> last, 3 letters
    assert table_of(t, "A") == [(1, "Cats", 3, 0, 3), (2, "Owls", 2, 1, 4),
                                (3, "Emus", 1, 2, 6), (4, "Gnus", 0, 3, 3)]
    gnus = t.standings().groups["A"][3]
    assert gnus.withdrawn and gnus.forfeits_lost == 2 and gnus.played == 1
    # Group B by hand: each 1 won and 5 letters (Bats 3+2, Dogs 2+3, Foxes 3+2); head-to-head
    # 1 win each; the lot drawn from seed 2026 puts Dogs first (fixed by the seed).
    assert table_of(t, "B") == [(1, "Dogs", 1, 1, 5), (2, "Bats", 1, 1, 5),
                                (3, "Foxes", 1, 1, 5)]
    st = t.standings()
    assert ("Group B: Bats, Dogs and Foxes level on 1 match won and 5 letters and head-to-head; "
            "order drawn by lot from seed 2026: Dogs, Bats, Foxes.") in st.tie_breaks
    assert [s.note for s in st.groups["B"]] == ["drawn lot"] * 3
    # the final: the group winners, full word (S2 row 3), at the first table
    final = t.match("F")
    assert [t.teams[i].name for i in final.teams] == ["Cats", "Dogs"]
    assert final.status == "at_table" and final.table == 1
    assert t.match_rules("F").losing_letters == 5
    with pytest.raises(ScoreError) as err:
        t.record("F", (3, 1))                   # K-E-M does not end a final
    assert err.value.code == "bad_result"
    with pytest.raises(ScoreError) as err:
        t.record("A1", (3, 2), replace=True)
    assert err.value.code == "final_drawn"
    assert st.champion is None
    t.record("F", (4, 5))                       # Cats K-E-M-P, Dogs K-E-M-P-S
    st = t.standings()
    assert st.champion == "Cats" and st.complete
    assert st.forfeits == ["A4: Cats win by forfeit (Gnus withdrew; no letters counted)",
                           "A6: Emus win by forfeit (Gnus withdrew; no letters counted)"]
    with pytest.raises(ScoreError) as err:
        t.withdraw("Owls")
    assert err.value.code == "event_over"


def test_the_same_seed_draws_the_same_lot() -> None:
    def play(seed: int) -> list[str]:
        t = Tournament(FOUR[:3], seed=seed)
        for m in list(t.matches):  # a circle, 0 beats 1 beats 2 beats 0: 1 won, 4 letters each
            home, away = m.teams
            home_wins = away == (home + 1) % 3
            t.record(m.id, (1, 3) if home_wins else (3, 1))
        st = t.standings().groups[""]
        assert [(s.won, s.letters, s.note) for s in st] == [(1, 4, "drawn lot")] * 3
        return [s.team for s in st]

    assert play(1) == play(1)
    assert len({tuple(play(s)) for s in range(12)}) > 1  # the lot really depends on the seed


def test_withdrawal_of_a_finalist_hands_the_final_over_by_forfeit() -> None:
    t = Tournament([f"T{i}a & T{i}b" for i in range(6)], seed=3)
    for m in list(t.matches):
        t.record(m.id, (0, 3))  # the home team wins every group match
    final = t.match("F")
    winner = t.teams[final.teams[1]].name
    t.withdraw(t.teams[final.teams[0]].name)
    st = t.standings()
    assert final.status == "forfeit" and st.champion == winner


@pytest.mark.parametrize("action, code", [
    (lambda t: t.record("M1", (3, 3)), "bad_result"),
    (lambda t: t.record("M1", (2, 1)), "bad_result"),
    (lambda t: t.record("M1", (4, 1)), "bad_result"),
    (lambda t: t.record("M1", (1, 2), loser="Ben & Dev"), "unknown_team"),
    (lambda t: t.record("M9", (3, 1)), "no_such_match"),
    (lambda t: t.record("M2", (3, 1)), "already_recorded"),
    (lambda t: t.settle(fake_signals="banned"), "settings_fixed"),
    (lambda t: t.withdraw("Zed"), "unknown_team"),
])
def test_refusals_change_nothing(action: Any, code: str) -> None:
    t = Tournament(FOUR, seed=1)
    t.record("M2", (3, 1))
    before = json.dumps(t.to_dict())
    with pytest.raises(ScoreError) as err:
        action(t)
    assert err.value.code == code
    assert json.dumps(t.to_dict()) == before


def test_table_talk_result_and_settings() -> None:
    t = Tournament(FOUR, letters=2, fake_signals="banned", go_start=True, one_card=True)
    rules = t.match_rules("M1")
    assert (rules.losing_letters, rules.fake_signals, rules.start, rules.multi_swap) == (
        2, "banned", "on_go", False)
    t.settle(letters=3)  # still before match one
    m = t.record("M1", (1, 0), loser="Gus")  # Gus & Hana lose for table talk
    assert m.table_talk and t.teams[m.winner_team() or 0].name == "Alice & Cara"
    assert "lost for table talk" in t.schedule()[0]["result"]
    with pytest.raises(ScoreError) as err:
        Tournament(FOUR, letters=9)
    assert err.value.code == "bad_setting"
    with pytest.raises(ScoreError) as err:
        Tournament(["Alice & Cara", "Alice & Dev"])
    assert err.value.code == "bad_team" and "alice" in err.value.message


def test_save_and_load_give_the_same_tournament(tmp_path: Path) -> None:
    t = Tournament(SEVEN, tables=3, seed=9, name="Club night")
    t.record("A1", (3, 2))
    t.withdraw("Bats")
    t.record("B1", (1, 3))
    path = tmp_path / "t.json"
    save(t, path)
    again = load(path)
    assert again.to_dict() == t.to_dict()
    data = json.loads(path.read_text(encoding="utf-8"))
    data["log"].append({"action": "record", "match": "A1", "letters": [3, 1]})
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScoreError) as err:
        load(path)
    assert err.value.code == "already_recorded" and err.value.message.startswith("Log step 4:")


def test_kemps_tournament_commands(tmp_path: Path) -> None:
    f = str(tmp_path / "club.json")
    teams = [arg for x in FOUR for arg in ("--team", x)]
    result = runner.invoke(app, ["tournament", "create", f, *teams, "--tables", "1",
                                 "--seed", "4", "--fake-signals", "banned", "--one-card"])
    assert result.exit_code == 0, result.output
    assert "one round robin" in result.output and "fake signals banned" in result.output
    again = runner.invoke(app, ["tournament", "create", f, *teams])
    assert again.exit_code == 2 and "error file_exists" in again.output
    sched = json.loads(runner.invoke(app, ["tournament", "schedule", f, "--json"]).output)
    assert [(r["id"], r["status"], r["table"]) for r in sched[:2]] == [
        ("M1", "at_table", 1), ("M2", "waiting", None)]
    # M1 by scoresheet, written blank by the desk and filled at the table
    sheet_path = tmp_path / "m1.json"
    assert runner.invoke(app, ["tournament", "sheet", f, "m1", "--out",
                               str(sheet_path)]).exit_code == 0
    sheet = json.loads(sheet_path.read_text(encoding="utf-8"))
    assert sheet["options"]["target"] == 3 and sheet["options"]["fake_signals"] == "banned"
    sheet["hands"] = [{"call": "kemps", "by": "Alice", "right": True}] * 3
    sheet.pop("result")
    sheet_path.write_text(json.dumps(sheet), encoding="utf-8")
    result = runner.invoke(app, ["tournament", "record", f, "M1", "--sheet", str(sheet_path)])
    assert result.exit_code == 0, result.output
    assert "Match M1: Alice & Cara win: Alice & Cara -, Gus & Hana K-E-M." in result.output
    bad = runner.invoke(app, ["tournament", "record", f, "M2", "--letters", "2", "2"])
    assert bad.exit_code == 2 and "error bad_result: Match M2" in bad.output
    assert "Traceback" not in bad.output
    for mid, a, b in [("M2", "3", "1"), ("M3", "1", "3"), ("M4", "0", "3")]:
        ok = runner.invoke(app, ["tournament", "record", f, mid, "--letters", a, b])
        assert ok.exit_code == 0, ok.output
    result = runner.invoke(app, ["tournament", "withdraw", f, "Gus & Hana"])
    assert result.exit_code == 0 and "M6" in result.output and "FORFEIT" in result.output
    runner.invoke(app, ["tournament", "record", f, "M5", "--letters", "3", "2"])
    data = json.loads(runner.invoke(app, ["tournament", "standings", f, "--json"]).output)
    # By hand. Schedule: M1 Alice & Cara v Gus & Hana (sheet: 0-3), M2 Eve & Finn v Ben & Dev
    # (3-1), M3 Eve & Finn v Alice & Cara (1-3), M4 Gus & Hana v Ben & Dev (0-3), M5 Alice &
    # Cara v Ben & Dev (3-2), M6 Gus & Hana v Eve & Finn (forfeit: Gus & Hana withdrew).
    #   Alice & Cara: won M1 (0), lost M3 (3), lost M5 (3)   -> 1 won, 6 letters
    #   Ben & Dev:    won M2 (1), lost M4 (3), won M5 (2)    -> 2 won, 6 letters
    #   Eve & Finn:   lost M2 (3), won M3 (1), won M6 forfeit -> 2 won, 4 letters
    #   Gus & Hana:   lost M1 (3), won M4 (0), forfeit M6     -> withdrawn, last
    rows = [(r["rank"], r["team"], r["won"], r["letters"]) for r in data["groups"][""]]
    assert rows == [(1, "Eve & Finn", 2, 4), (2, "Ben & Dev", 2, 6), (3, "Alice & Cara", 1, 6),
                    (4, "Gus & Hana", 1, 3)]
    assert data["champion"] == "Eve & Finn"
    text = runner.invoke(app, ["tournament", "standings", f]).output
    assert "Champion: Eve & Finn" in text and "Tie-break:" in text and "Forfeit: M6" in text
    missing = runner.invoke(app, ["tournament", "standings", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "error bad_file" in missing.output
