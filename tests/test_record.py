"""The match record: JSON round trip, replay, and refusal of broken records (docs/record-format.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kemps.errors import RecordError
from kemps.record import MatchRecord, Recorder, match_summary, replay
from kemps.rules import find_preset
from kemps.sim import simulate_match


def test_simulated_record_round_trips_and_replays() -> None:
    result = simulate_match(find_preset("cash").replace(pairs=3), seed=11)
    text = result.record.to_json()
    again = MatchRecord.from_json(text)
    assert again.to_dict() == result.record.to_dict()
    assert replay(again).events == result.events
    assert json.loads(text)["version"] == 1


def test_replay_reaches_the_same_final_table() -> None:
    result = simulate_match(find_preset("points-to-five"), seed=5)
    final = replay(result.record).table
    assert final.state_text() == result.table.state_text()
    assert final.ranks == result.table.ranks and final.scores == result.table.scores


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d.update(format="chess"), "Not a kemps match record"),
    (lambda d: d.update(version=99), "format version 99, newer than this kemps reads"),
    (lambda d: d.update(version=0), "not 0"),
    (lambda d: d["rules"].update(pairs=13), "Rules: Option 'pairs'"),
    (lambda d: d["rules"].update(colour="red"), "no rule option named 'colour'"),
    (lambda d: d.update(names="Alice"), "'names'"),
    (lambda d: d.update(actions={}), "'actions' must be a list"),
    (lambda d: d["actions"].append(7), "is not an object"),
    (lambda d: d["actions"][1].pop("t"), "has no time"),
    (lambda d: d["actions"][1].update(type="warp"), "Action 1: Unknown action type"),
    (lambda d: d.update(end="later"), "'end'"),
    (lambda d: d.update(end=float("inf")), "'end'"),
    (lambda d: d.update(version="1"), "must be the number 1"),
    (lambda d: d["actions"][3].update(t=0.0), "times never decrease"),
    (lambda d: d["actions"][3].update(t=float("nan")), "has no time"),
])
def test_broken_records_are_refused(mutate: object, fragment: str) -> None:
    data = simulate_match(find_preset("pagat"), seed=3).record.to_dict()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(RecordError) as err:
        MatchRecord.from_dict(data)
    assert err.value.code == "bad_record"
    assert fragment in err.value.message


def test_replay_refuses_an_illegal_match() -> None:
    """A record whose actions the table rejects is not a legal match: replay names the action."""
    data = simulate_match(find_preset("pagat"), seed=3).record.to_dict()
    # Move the first swap before the first deal: nobody may swap before a hand is dealt.
    first_swap = next(i for i, a in enumerate(data["actions"]) if a["type"] == "swap")
    swap = data["actions"].pop(first_swap)
    swap["t"] = 0.0
    data["actions"].insert(0, swap)
    record = MatchRecord.from_dict(data)
    with pytest.raises(RecordError) as err:
        replay(record)
    assert "Action 0" in err.value.message and "hand_over" in err.value.message


def test_bad_json_missing_file_binary_file_and_unwritable_path(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="Not valid JSON"):
        MatchRecord.from_json("{nope")
    with pytest.raises(RecordError, match="Cannot read"):
        MatchRecord.load(tmp_path / "missing.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{\x00}\xd0")
    with pytest.raises(RecordError, match="not a text file"):
        MatchRecord.load(binary)
    record = simulate_match(find_preset("pagat"), seed=1).record
    with pytest.raises(RecordError, match="Cannot write"):
        record.save(tmp_path / "no" / "such" / "folder.json")


def test_recorder_does_not_record_rejected_actions() -> None:
    from kemps.actions import Gesture
    from kemps.errors import Rejected

    rec = Recorder(find_preset("pagat"))
    rec.apply(Gesture(0, "wink"), 1.0)
    with pytest.raises(Rejected):
        rec.apply(Gesture(0, "cough"), 2.0)  # heard gesture at a silent table
    assert [type(a).__name__ for _, a in rec.record.actions] == ["Gesture"]
    assert rec.record.end is None  # only advancing the clock moves the end
    rec.advance(4.0)
    assert rec.record.end == 4.0


def test_summary_of_an_unfinished_match() -> None:
    rec = Recorder(find_preset("pagat"))
    summary = match_summary(rec.table, [])
    assert summary["over"] is False and summary["winners"] == [] and summary["hands"] == []
    assert [p["spelled"] for p in summary["pairs"]] == ["", ""]
