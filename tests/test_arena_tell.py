"""``kemps arena --tell``: the readability of bot signals, from kemps.tell over every match.

Issue 14: "Bots' analytics the same way (the arena can print them), so the readability of bot
signals is measured." Each figure is checked against kemps.tell.analyse on the same matches played
again from their seeds (the arena's seed rule).
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kemps.arena import player_factory, run_arena
from kemps.cli import app
from kemps.rules import find_preset
from kemps.sim import simulate_match
from kemps.tell import analyse


def test_the_arena_sums_the_tell_of_each_levels_signals() -> None:
    rules = find_preset("pagat")
    [pairing] = run_arena(rules, ["simple", "sharp"], 4, seed=3, tell=True)
    want: dict[str, dict[str, int]] = {}
    for k, seed in enumerate(pairing.seeds):
        level_of = [pairing.first if (p + k) % 2 == 0 else pairing.second
                    for p in range(rules.pairs)]
        made = {name: player_factory(name) for name in (pairing.first, pairing.second)}
        result = simulate_match(rules, seed, bots=[made[level_of[s % rules.pairs]]
                                                   for s in range(rules.players)],
                                keep_events=False)
        for p in analyse(result.record)["pairs"]:
            mine = want.setdefault(level_of[p["pair"]], {"uses": 0, "partner_right": 0,
                                                         "stopped_right": 0, "signals": 0})
            for s in p["signals"]:
                mine["signals"] += 1
                for key in ("uses", "partner_right", "stopped_right"):
                    mine[key] += s[key]
    got = pairing.to_dict()["tell"]
    assert set(got) == {"simple", "sharp"}
    for level, counts in want.items():
        assert {k: got[level][k] for k in counts} == counts
    assert got["sharp"]["uses"] > 0 and got["sharp"]["reaction_s"]["n"] > 0


def test_the_command_prints_the_tell_table_and_json() -> None:
    table = CliRunner().invoke(app, ["arena", "--levels", "club,sharp", "--matches", "2",
                                     "--tell"])
    assert table.exit_code == 0, table.output
    assert "The tell" in table.output and "--tell" in table.output
    data = CliRunner().invoke(app, ["arena", "--levels", "club,sharp", "--matches", "2",
                                    "--tell", "--json"])
    tell = json.loads(data.output)["pairings"][0]["tell"]
    assert set(tell) == {"club", "sharp"}
    assert set(tell["sharp"]) >= {"uses", "with_four", "fakes", "partner_calls", "stopped",
                                  "read", "reaction_s"}
    plain = CliRunner().invoke(app, ["arena", "--levels", "club,sharp", "--matches", "2",
                                     "--json"])
    assert "tell" not in json.loads(plain.output)["pairings"][0]
