"""The tell (kemps.tell): the figures of seed 000's worked game, computed by hand here.

S0 "A worked game": Alice and Cara (seats 0, 2) touch an ear, then yawn; Ben and Dev (seats 1, 3)
scratch the nose, then cough. The example record plays it through the engine (tests/
test_worked_game.py builds the same match; docs/examples/seed000-worked-game.json is its record).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kemps.cli import app
from kemps.errors import RecordError
from kemps.record import MatchRecord
from kemps.tell import analyse

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed000-worked-game.json"


def signal(analysis: dict, pair: int, gesture: str) -> dict:
    return next(s for s in analysis["pairs"][pair]["signals"] if s["gesture"] == gesture)


def test_the_worked_game_by_hand() -> None:
    a = analyse(MatchRecord.load(EXAMPLE))
    assert a["signals_known"]
    # Round 1: Cara touches her ear at 4.0 s with four sevens; Alice calls 0.9 s later, right.
    # Round 3: Alice touches hers at 11.1 s (four of a kind); Dev stops her 0.6 s later, right:
    # S0 "Dev had seen the ear touched once and needed nothing more" -> read after 2 uses.
    ear = signal(a, 0, "touch_ear")
    assert (ear["uses"], ear["with_four"], ear["fakes"]) == (2, 2, 0)
    assert (ear["partner_calls"], ear["partner_right"], ear["stopped"], ear["stopped_right"]) == (
        1, 1, 1, 1)
    assert ear["read_after"] == 2
    assert ear["reaction_s"] == {"n": 1, "median": 0.9, "min": 0.9, "max": 0.9}
    # Rounds 6 and 7: the yawn, answered 0.7 s later both times, right.
    yawn = signal(a, 0, "yawn")
    assert (yawn["uses"], yawn["partner_right"], yawn["read_after"]) == (2, 2, None)
    assert yawn["reaction_s"]["median"] == 0.7
    # Round 2: Dev scratches his nose holding "three nines and a hope" (a signal without four):
    # Ben calls, wrong. Round 4: Ben scratches his (nobody has four): Alice stops, wrong.
    nose = signal(a, 1, "scratch_nose")
    assert (nose["uses"], nose["with_four"], nose["fakes"]) == (2, 0, 2)
    assert nose["fakes_drew"] == {"wrong_stop": 1, "wrong_kemps": 1, "nothing": 0}
    # Round 5: Ben coughs with four kings, Dev right 0.8 s later; round 8: Ben coughs, Dev wrong
    # 0.6 s later: median 0.7, spread 0.6-0.8.
    cough = signal(a, 1, "cough")
    assert (cough["uses"], cough["with_four"], cough["partner_calls"], cough["partner_right"]) == (
        2, 1, 2, 1)
    assert cough["reaction_s"] == {"n": 2, "median": 0.7, "min": 0.6, "max": 0.8}
    alice, ben, dev = a["players"][0], a["players"][1], a["players"][3]
    assert alice["kemps"] == {"right": 2, "wrong": 0} and alice["stop"] == {"right": 0, "wrong": 1}
    assert ben["kemps"] == {"right": 0, "wrong": 1} and ben["signals_given"] == 3
    assert dev["kemps"] == {"right": 1, "wrong": 1} and dev["stop"] == {"right": 1, "wrong": 0}
    # the tell strip of the last hand: Ben's cough at 28.0 s, Dev's call 0.6 s later
    last = a["hands"][-1]["calls"][-1]
    assert last["after_signal_s"] == 0.6 and not last["right"]
    coughs = [m for m in last["strip"] if m["what"] == "gesture"]
    assert coughs == [{"t": 28.0, "seat": 1, "what": "gesture", "gesture": "cough",
                       "signal": True}]
    assert last["text"] == "Ben coughs at 28.0 s; Dev called Kemps on Ben 0.60 s later, wrong."
    assert len(a["hands"]) == 8 and all(len(h["calls"]) == 1 for h in a["hands"])


def test_a_public_record_without_signals_counts_no_use() -> None:
    """The history API leaves out the pairs' agreements: calls are told, no signal is counted."""
    data = json.loads(EXAMPLE.read_text())
    data["actions"] = [x for x in data["actions"] if x["type"] != "agree_signals"]
    a = analyse(MatchRecord.from_dict(data))
    assert not a["signals_known"] and all(not p["signals"] for p in a["pairs"])
    assert a["hands"][0]["calls"][0]["text"].startswith("Alice called Kemps on Cara at 4.9 s")


def test_records_travel_as_the_history_api_gives_them(tmp_path: Path) -> None:
    """`curl .../api/history/1 > m.json && kemps replay m.json` works; a newer format version
    is refused with a clear message."""
    record = json.loads(EXAMPLE.read_text())
    wrapped = {"id": 1, "room": "ABCDE", "ended_at": 0, "record": record}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(wrapped))
    runner = CliRunner()
    out = runner.invoke(app, ["replay", str(path)])
    assert out.exit_code == 0 and "Match over." in out.output
    stats = runner.invoke(app, ["replay", str(path), "--stats", "--json"])
    assert stats.exit_code == 0
    assert json.loads(stats.output) == analyse(MatchRecord.from_dict(record))
    newer = dict(record, version=2)
    with pytest.raises(RecordError) as err:
        MatchRecord.from_dict(newer)
    assert "newer than this kemps reads" in err.value.message
    path.write_text(json.dumps(newer))
    refused = runner.invoke(app, ["replay", str(path)])
    assert refused.exit_code != 0 and "update kemps" in refused.output


def test_a_call_refused_as_too_late_is_told_with_the_call_it_lost_to() -> None:
    """Issue 14: "Alice called Stop Kemps 0.21 s too late": the server keeps refused calls in the
    record's meta (``late_calls``), and the tell adds them to the judged call they came after."""
    record = MatchRecord.load(EXAMPLE)
    first = analyse(record)["hands"][0]["calls"][0]
    late_t = first["t"] + 0.21
    record.meta["late_calls"] = [
        {"t": late_t, "seat": 0, "kind": "stop", "on_seat": None, "on_pair": 1,
         "code": "hand_over"},
        {"t": late_t + 10.0, "seat": 1, "kind": "kemps", "code": "hand_over"},  # after no call
        {"t": late_t, "seat": 2, "kind": "kemps", "code": "not_your_partner"},  # not late
    ]
    call = analyse(record)["hands"][0]["calls"][0]
    assert call["late"] == [{"seat": 0, "kind": "stop", "after_s": 0.21}]
    assert call["text"].endswith(f"{record.names[0]} called Stop Kemps 0.21 s too late.")
