"""Replays (kemps.server.replays): the replay JSON of a finished match, and each pair's choice to
withhold its signals, which must then never appear in the replay or its record.

Issue 14: "the gestures that were real signals (from the pairs' agreements, revealed only in
replays of finished matches, and only if the pair allows it, default after the match ends; a pair
keeping a signal for the rematch can withhold it)"; issue 26: withheld from everyone outside the
pair while they are in force (a rematch keeps them), "revealed after the pair changes them or
the room ends, and only as the pair chose" (tests/test_signal_secrecy.py walks every route
through a rematch). S0 (seed 000) "A worked game" is the scripted match; the API tests play a
match against bots on a real server (tests/replaying.py).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from kemps.cli import app
from kemps.events import EVENT_NAMES, Called, Gestured, HandDealt, SignalsAgreed, Swept
from kemps.record import MatchRecord, replay
from kemps.server import reveal_storage
from kemps.server.replays import replay_view
from kemps.server.storage import Storage
from replaying import FAST_OPTIONS, Played, start_bot_match, wait_finished
from secrecy import Listener
from serving import Running, server_thread, sqlite_url

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed000-worked-game.json"


def stored(record: dict) -> dict:
    """The worked game as ``Storage.match`` gives a finished match."""
    return {"id": 7, "room": "WORKD", "match_no": 1, "finished_at": 0.0,
            "rules": record["rules"], "names": record["names"], "summary": {},
            "record": record}


def test_a_reveal_is_stored_and_the_latest_choice_stands(database_url: str) -> None:
    """Migration 0006's table on SQLite and PostgreSQL: withheld per room, match and pair."""

    async def run() -> list[frozenset[int]]:
        storage = Storage(database_url)
        await storage.start()
        try:
            seen = [await reveal_storage.withheld_pairs(storage, "ABCDE", 1)]
            await reveal_storage.set_reveal(storage, "ABCDE", 1, 0, False, 2)
            await reveal_storage.set_reveal(storage, "ABCDE", 1, 1, False, 1)
            await reveal_storage.set_reveal(storage, "ABCDE", 2, 1, False, 3)
            seen.append(await reveal_storage.withheld_pairs(storage, "ABCDE", 1))
            await reveal_storage.set_reveal(storage, "ABCDE", 1, 1, True, 3)
            seen.append(await reveal_storage.withheld_pairs(storage, "ABCDE", 1))
            seen.append(await reveal_storage.withheld_pairs(storage, "ABCDE", 2))
            seen.append(await reveal_storage.withheld_pairs(storage, "OTHER", 1))
            return seen
        finally:
            await storage.close()

    assert asyncio.run(run()) == [frozenset(), frozenset({0, 1}), frozenset({0}),
                                  frozenset({1}), frozenset()]


def test_the_worked_game_replays_event_by_event() -> None:
    record = json.loads(EXAMPLE.read_text())
    view = replay_view(stored(record), frozenset())
    events = replay(MatchRecord.from_dict(record)).events
    # Every event in order with its time, and a table state for each.
    assert [(e["type"], e["t"]) for e in view["events"]] == [(EVENT_NAMES[type(e)], e.t)
                                                             for e in events]
    assert all(0 <= e["s"] < len(view["states"]) for e in view["events"])
    # Every hand face up: hand 1's state holds each seat's dealt cards (S0 round 1: Cara is
    # dealt three sevens and takes the fourth from the middle), and the sentence
    # tells them all.
    deal = next(e for e in view["events"] if e["type"] == "hand_dealt")
    assert view["states"][deal["s"]]["hands"] == deal["hands"]
    assert sorted(c[0] for c in deal["hands"][2]) == ["2", "7", "7", "7"]
    assert "Cara 7" in deal["text"]
    # Markers: one per call and per sweep, and each agreed signal given during a hand.
    calls = [e for e in events if isinstance(e, Called)]
    assert [m["t"] for m in view["markers"] if m["kind"] == "call"] == [c.t for c in calls]
    assert len([m for m in view["markers"] if m["kind"] == "sweep"]) == len(
        [e for e in events if isinstance(e, Swept)])
    signals = [m for m in view["markers"] if m["kind"] == "signal"]
    # Round 1: Cara touches her ear at 4.0 s; round 2: Dev scratches his nose.
    assert [(m["t"], m["seat"]) for m in signals][:2] == [(4.0, 2), (7.9, 3)]
    assert len(signals) == sum(s["uses"] for p in view["tell"]["pairs"] for s in p["signals"])
    assert [h["hand"] for h in view["hands"]] == [
        e.hand_no for e in events if isinstance(e, HandDealt)]
    # The tell is kemps.tell's, per hand and pair.
    assert view["tell"]["pairs"][0]["signals"][0]["gesture"] == "touch_ear"


def test_a_withheld_pair_shows_no_signal_anywhere(tmp_path: Path) -> None:
    """Alice and Cara withhold theirs: no agreement, no gesture marked signal or not, no figure
    of theirs; Ben and Dev's stay. The record (the page's download) says so, and `kemps replay
    --stats --json` on it gives the replay's tell."""
    record = json.loads(EXAMPLE.read_text())
    view = replay_view(stored(record), frozenset({0}))
    agreed = [e for e in view["events"] if e["type"] == "signals_agreed"]
    assert agreed and all(e["pair"] == 1 for e in agreed)
    assert all(e["signal"] is None for e in view["events"]
               if e["type"] == "gestured" and e["seat"] % 2 == 0)
    assert any(e["signal"] is True for e in view["events"]
               if e["type"] == "gestured" and e["seat"] % 2 == 1)
    text = json.dumps(view)
    assert "touch_ear" not in {m.get("gesture") for m in view["markers"]}
    assert all(m["seat"] % 2 == 1 for m in view["markers"] if m["kind"] == "signal")
    tell = view["tell"]
    assert tell["pairs"][0] == {"pair": 0, "players": ["Alice", "Cara"], "withheld": True,
                                "signals": []}
    assert tell["players"][0]["signals_given"] is None
    assert all(s["signal"] is None for h in tell["hands"] for c in h["calls"]
               for s in c["strip"] if s["seat"] % 2 == 0)
    assert '"yawn"]' not in text and "agree a signal: touch ear" not in text
    # The same hands and letters as the whole record (the agreements decide nothing).
    full = replay_view(stored(record), frozenset())
    assert view["states"][-1]["scores"] == full["states"][-1]["scores"]
    assert [c["right"] for h in tell["hands"] for c in h["calls"]] == [
        c["right"] for h in full["tell"]["hands"] for c in h["calls"]]


@dataclass
class Open:
    """The module's server, its finished match, and the host's connection that keeps the room
    open (closing it lets the room be archived: it ends)."""

    srv: Running
    played: Played
    host: Listener


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Open]:
    """One server, and a match against bots whose host withheld her pair's signals while it was
    played (no moment after the end when they were shown). The host stays connected, so the
    room stays open for a rematch (room_idle_s 2 s once she leaves)."""
    tmp = tmp_path_factory.mktemp("replays")
    with server_thread(sqlite_url(tmp), bot_huddle_s=0.2, huddle_s=30, room_idle_s=2.0) as srv:
        made = httpx.post(f"{srv.url}/api/rooms", json={
            "name": "Alice", "preset": "pagat", "options": {"target": 2, **FAST_OPTIONS}},
            timeout=10).json()
        host = Listener(f"{srv.ws}/ws/{made['code']}?token={made['token']}")
        code, token = start_bot_match(srv.url, room=(made["code"], made["token"]))
        auth = {"Authorization": f"Bearer {token}"}
        answer = httpx.post(f"{srv.url}/api/rooms/{code}/reveal", json={"reveal": False},
                            headers=auth, timeout=10)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"room": code, "match_no": 1, "pair": 0, "reveal": False}
        yield Open(srv, Played(code, token, wait_finished(srv.url, code)), host)
        host.close()


def test_the_pair_chooses_while_its_signals_are_in_force(played: Open) -> None:
    """The room is open for a rematch, which keeps both pairs' signals: in force, so withheld
    whatever the pairs chose; the choice itself is open, and refused to anyone else."""
    srv, p = played.srv, played.played
    url = f"{srv.url}/api/rooms/{p.code}/reveal"
    # Not a seat of the room: refused, nothing stored.
    none = httpx.post(url, json={"reveal": True}, timeout=10)
    assert (none.status_code, none.json()["code"]) == (403, "not_seated")
    wrong = httpx.post(url, json={"reveal": True}, timeout=10,
                       headers={"Authorization": "Bearer not-a-token"})
    assert wrong.status_code == 403
    # A match the room has not played, or one long settled: 409.
    later = httpx.post(url, json={"reveal": True, "match_no": 5}, headers=p.auth, timeout=10)
    assert (later.status_code, later.json()["code"]) == (409, "reveal_closed")
    missing = httpx.post(f"{srv.url}/api/rooms/QQQQQQ/reveal", json={"reveal": True},
                         headers=p.auth, timeout=10)
    assert missing.status_code == 404
    bad = httpx.post(url, json={"reveal": "no"}, headers=p.auth, timeout=10)
    assert bad.status_code == 422
    view = httpx.get(f"{srv.url}/api/replays/{p.match_id}", timeout=10).json()
    assert (view["signals_withheld"], view["signals_in_force"]) == ([0, 1], [0, 1])
    assert not [e for e in view["events"] if e["type"] == "signals_agreed"]
    # The match has ended: the pair may still change its mind; shown or not, while they are in
    # force nobody else sees them.
    again = httpx.post(url, json={"reveal": True}, headers=p.auth, timeout=10)
    assert again.status_code == 200, again.text
    view = httpx.get(f"{srv.url}/api/replays/{p.match_id}", timeout=10).json()
    assert view["signals_withheld"] == [0, 1]
    assert not [e for e in view["events"] if e["type"] == "signals_agreed"]
    record = httpx.get(f"{srv.url}/api/replays/{p.match_id}/record", timeout=10).json()
    assert record["meta"]["signals_in_force"] == [0, 1]
    assert not [a for a in record["actions"] if a["type"] == "agree_signals"]
    back = httpx.post(url, json={"reveal": False}, headers=p.auth, timeout=10)
    assert back.status_code == 200, back.text
    assert httpx.get(f"{srv.url}/api/replays/999999", timeout=10).status_code == 404


def test_once_the_room_ends_the_signals_show_as_each_pair_chose(played: Open,
                                                                 tmp_path: Path) -> None:
    """The host leaves; the room is archived (it ended): Ben and Dev's signals are shown, Alice
    and Cara's stay withheld (their choice) in the replay JSON and its record, and the choice is
    settled."""
    srv, p = played.srv, played.played
    played.host.close()
    deadline = time.monotonic() + 30
    while httpx.get(f"{srv.url}/api/rooms/{p.code}", timeout=10).status_code != 410:
        assert time.monotonic() < deadline, "the room was not archived"
        time.sleep(0.2)
    late = httpx.post(f"{srv.url}/api/rooms/{p.code}/reveal", json={"reveal": True},
                      headers=p.auth, timeout=10)
    assert (late.status_code, late.json()["code"]) == (410, "room_archived")
    view = httpx.get(f"{srv.url}/api/replays/{p.match_id}", timeout=10).json()
    assert (view["signals_withheld"], view["signals_in_force"]) == ([0], [])
    assert not [e for e in view["events"] if e["type"] == "signals_agreed" and e["pair"] == 0]
    assert [e for e in view["events"] if e["type"] == "signals_agreed" and e["pair"] == 1]
    assert all(e["signal"] is None for e in view["events"]
               if e["type"] == "gestured" and e["seat"] % 2 == 0)
    assert view["tell"]["pairs"][0]["withheld"] and not view["tell"]["pairs"][0]["signals"]
    # The stored record has pair 0's agreements (the table needed them); the replay's does not.
    stored_record = httpx.get(f"{srv.url}/api/history/{p.match_id}", timeout=10).json()
    assert stored_record["signals_withheld"] is True
    rec = httpx.get(f"{srv.url}/api/replays/{p.match_id}/record", timeout=10)
    assert "attachment" in rec.headers["content-disposition"]
    data = rec.json()
    assert data["meta"]["signals_withheld"] == [0]
    assert "signals_in_force" not in data["meta"]
    agreements = [a for a in data["actions"] if a["type"] == "agree_signals"]
    assert agreements and all(a["seat"] % 2 == 1 for a in agreements)
    # The CLI on that record: the same tell as the page's.
    path = tmp_path / "m.json"
    path.write_text(rec.text)
    out = CliRunner().invoke(app, ["replay", str(path), "--stats", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == view["tell"]
    # Events of pair 1's signals are told: gestures marked, figures counted.
    gestures = [e for e in view["events"] if e["type"] == "gestured" and e["seat"] % 2 == 1]
    assert all(e["signal"] in (True, False) for e in gestures)
    events = replay(MatchRecord.from_dict(data)).events
    assert not [e for e in events if isinstance(e, SignalsAgreed) and e.pair == 0]
    assert len(gestures) == len([e for e in events if isinstance(e, Gestured)
                                 and e.seat % 2 == 1])
