"""Storage: finished matches stored and listed, unfinished tables restored exactly after a restart,
on SQLite and on a real PostgreSQL.

PostgreSQL: ``KEMPS_TEST_POSTGRES_URL`` (default ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``).
Where none answers these tests skip with a message, unless ``KEMPS_REQUIRE_POSTGRES=1`` (set by
``.ci/run``), which makes them fail instead.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from kemps.record import MatchRecord, replay
from serving import Running, server_process, server_thread, sqlite_url


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _humans_room(srv: Running, options: dict[str, Any]) -> tuple[str, list[str]]:
    with httpx.Client(base_url=srv.url) as c:
        r = c.post("/api/rooms", json={"name": "Alice", "preset": "pagat", "options": options})
        code, tokens = r.json()["code"], [r.json()["token"]]
        for seat, name in ((1, "Ben"), (2, "Cara"), (3, "Dev")):
            tokens.append(c.post(f"/api/rooms/{code}/seats",
                                 json={"seat": seat, "name": name}).json()["token"])
        assert c.post(f"/api/rooms/{code}/start", headers=_auth(tokens[0])).status_code == 200
    return code, tokens


async def _state(srv: Running, code: str, token: str) -> dict[str, Any]:
    async with websockets.connect(f"{srv.ws}/ws/{code}?token={token}") as ws:
        first = json.loads(await ws.recv())
        assert first["type"] == "state"
        return first


async def _deal_and_swap(srv: Running, code: str, tokens: list[str]) -> None:
    """Everyone ready; wait for the hand; seat 0 swaps once."""
    socks = [await websockets.connect(f"{srv.ws}/ws/{code}?token={t}") for t in tokens]
    try:
        for ws in socks:
            await ws.recv()
            await ws.send(json.dumps({"type": "ready"}))
        view: dict[str, Any] = {}
        while view.get("phase") != "play":
            m = json.loads(await asyncio.wait_for(socks[0].recv(), 10))
            view = m.get("view", view)
        await socks[0].send(json.dumps({"type": "action", "id": 1, "action": {
            "type": "swap", "take": [view["middle"][2]], "give": [view["hand"][1]]}}))
        while True:
            m = json.loads(await asyncio.wait_for(socks[0].recv(), 10))
            if m.get("id") == 1:
                assert m["type"] == "ok", m
                break
        await asyncio.sleep(0.3)
    finally:
        for ws in socks:
            await ws.close()


def test_a_restarted_server_restores_the_table_exactly(database_url: str) -> None:
    """Stop the server mid-hand and start it again on the same database: every seat's view is as it
    was (hand, middle, version, scores), the tokens still hold their seats, and play goes on."""
    options = {"idle_sweep_s": 0.0}  # nothing moves by itself: only people act here
    settings = {"bot_huddle_s": 0.2, "huddle_s": 0.5}
    with server_thread(database_url, **settings) as srv:
        code, tokens = _humans_room(srv, options)
        asyncio.run(_deal_and_swap(srv, code, tokens))
        before = [asyncio.run(_state(srv, code, t)) for t in tokens]
    with server_thread(database_url, **settings) as srv:
        after = [asyncio.run(_state(srv, code, t)) for t in tokens]
        for b, a in zip(before, after):
            assert a["seat"] == b["seat"]
            for key in ("version", "phase", "hand", "middle", "hand_counts", "scores",
                        "stock_count", "dealer", "hand_no"):
                assert a["view"][key] == b["view"][key], key

        async def play_on() -> None:
            async with websockets.connect(f"{srv.ws}/ws/{code}?token={tokens[1]}") as ws:
                view = json.loads(await ws.recv())["view"]
                await ws.send(json.dumps({"type": "action", "id": 2, "action": {
                    "type": "swap", "take": [view["middle"][0]], "give": [view["hand"][0]]}}))
                while True:
                    m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if m.get("id") == 2:
                        assert m["type"] == "ok", m
                        return

        asyncio.run(play_on())


def test_finished_matches_are_stored_and_listed(database_url: str) -> None:
    """A match with bots in three seats, played to one letter (S2's short matches, shortened to
    one letter): Alice calls Stop Kemps on a hunch, it is wrong, her pair takes the letter and the
    match is over. It is stored with its rules, pairs, per-hand results, letters, ranking and a
    replayable record, and listed."""
    with server_thread(database_url, bot_huddle_s=0.2, huddle_s=0.5) as srv:
        with httpx.Client(base_url=srv.url) as c:
            r = c.post("/api/rooms", json={"name": "Alice", "preset": "pagat",
                                           "options": {"target": 1}})
            code, token = r.json()["code"], r.json()["token"]
            c.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers=_auth(token))
            c.post(f"/api/rooms/{code}/start", headers=_auth(token))
            right = asyncio.run(_stop_on_a_hunch(srv, code, token))
            deadline = time.monotonic() + 30
            room: dict[str, Any] = {}
            while time.monotonic() < deadline:
                room = c.get(f"/api/rooms/{code}").json()
                if room["status"] == "finished" and room["last_match_id"]:
                    break
                time.sleep(0.1)
            assert room["status"] == "finished", room
            listed = c.get("/api/history").json()["matches"]
            assert [m["room"] for m in listed] == [code]
            detail = c.get(f"/api/history/{room['last_match_id']}").json()
            summary = detail["summary"]
            assert detail["names"][0] == "Alice" and detail["rules"]["target"] == 1
            assert summary["over"] is True
            loser = 0 if not right else 1
            assert summary["pairs"][loser]["score"] == 1
            assert summary["pairs"][1 - loser]["score"] == 0
            assert summary["winners"] == [1 - loser]
            calls = [c2 for h in summary["hands"] for c2 in h["calls"]]
            assert calls[-1]["by"] == "Alice" and calls[-1]["kind"] == "stop"
            # The pairs' secret signals never leave the server, not even after the match.
            assert detail["signals_withheld"] is True
            assert all(a["type"] != "agree_signals" for a in detail["record"]["actions"])
            replayed = replay(MatchRecord.from_dict(detail["record"]))
            assert replayed.table.scores == [p["score"] for p in summary["pairs"]]
            assert replayed.table.ranks == tuple(p["rank"] for p in summary["pairs"])
            assert c.get("/history").status_code == 200


async def _stop_on_a_hunch(srv: Running, code: str, token: str) -> bool:
    """Alice says ready, waits for play, calls Stop Kemps on Ben and Dev; returns right or not."""
    async with websockets.connect(f"{srv.ws}/ws/{code}?token={token}") as ws:
        await ws.send(json.dumps({"type": "ready"}))
        view: dict[str, Any] = {}
        while view.get("phase") != "play":
            m = json.loads(await asyncio.wait_for(ws.recv(), 20))
            view = m.get("view", view)
        await ws.send(json.dumps({"type": "action", "id": 1, "action": {
            "type": "call", "kind": "stop", "on_pair": 1}}))
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 10))
            for e in m.get("events", []):
                if e["type"] == "call_judged" and e["seat"] == 0:
                    return bool(e["right"])


async def _ready(srv: Running, code: str, token: str) -> None:
    async with websockets.connect(f"{srv.ws}/ws/{code}?token={token}") as ws:
        await ws.recv()
        await ws.send(json.dumps({"type": "ready"}))
        await asyncio.sleep(0.05)


def test_kemps_serve_process_stops_and_restarts(tmp_path: Path) -> None:
    """The real ``kemps serve`` command: stopped with Ctrl+C mid-hand and started again, the room
    and its table come back (the same data path the browser test uses)."""
    url = sqlite_url(tmp_path)
    with server_process(url) as srv:
        code, tokens = _humans_room(srv, {"idle_sweep_s": 0.0})
        asyncio.run(_deal_and_swap(srv, code, tokens))
        before = asyncio.run(_state(srv, code, tokens[2]))
        port = srv.port
    with server_process(url, port=port) as srv:
        after = asyncio.run(_state(srv, code, tokens[2]))
    assert after["view"]["hand"] == before["view"]["hand"]
    assert after["view"]["middle"] == before["view"]["middle"]
    assert after["view"]["version"] == before["view"]["version"]


def _rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    import sqlite3

    db = sqlite3.connect(path)
    try:
        return {
            "rooms": db.execute("SELECT * FROM rooms ORDER BY code").fetchall(),
            "entries": db.execute("SELECT room_code, match_no, seq, t, kind, payload FROM "
                                  "entries ORDER BY room_code, seq").fetchall(),
            "matches": db.execute("SELECT id, room_code, match_no, rules, names, summary, "
                                  "record FROM matches ORDER BY id").fetchall(),
        }
    finally:
        db.close()


def test_the_sqlite_batch_writer_stores_what_sqlalchemy_stores(tmp_path: Path) -> None:
    """The server's SQLite commits go through its own thread with plain SQL (one hop a
    transaction); the very same batches written through SQLAlchemy give byte-identical rows, a
    retried batch changes nothing, and the ids of finished matches agree."""
    from kemps.server.storage import SqliteBatchWriter, Storage

    room = {"code": "ABCD", "created_at": 1.5, "updated_at": 2.5, "status": "playing",
            "rules": {"preset": "pagat", "word": "KEMPS", "nested": [1, None, "é"]},
            "seats": [{"name": "Ann", "kind": "human", "ready": True}, {"name": "Bo"}],
            "host_seat": 0, "match_no": 1, "first_dealer": 3, "epoch": 1000.25,
            "table_time": 12.5, "deal_at": None, "last_match_id": None, "spectators": False,
            "archived_at": None, "fence": 0}
    entries = [{"room_code": "ABCD", "match_no": 1, "seq": i, "t": 0.5 * i, "kind": kind,
                "payload": payload}
               for i, (kind, payload) in enumerate([("action", {"type": "deal", "order": [3]}),
                                                    ("tick", None),
                                                    ("action", {"type": "swap", "seat": 2})])]
    match = {"room_code": "ABCD", "match_no": 1, "rules": {"preset": "pagat"},
             "names": ["Ann", "Bo"], "summary": {"winner": 0}, "record": {"steps": [1, 2]}}

    async def write(path: Path, through_sqlalchemy: bool) -> list[list[int]]:
        storage = Storage(f"sqlite+aiosqlite:///{path}")
        await storage.start()
        assert isinstance(storage.batches, SqliteBatchWriter)
        if through_sqlalchemy:
            await storage.batches.close()
            storage.batches = None
        try:
            ids = [await storage.write_batch([room], entries[:2], {}, [])]
            ids.append(await storage.write_batch([], entries, {"ABCD": 14.75}, [match]))
            ids.append(await storage.write_batch([], entries[1:], {}, [match]))  # a retry
            return ids
        finally:
            await storage.close()

    ours = asyncio.run(write(tmp_path / "ours.sqlite", False))
    theirs = asyncio.run(write(tmp_path / "sqlalchemy.sqlite", True))
    assert ours == theirs == [[], [1], [1]]
    stored, expected = _rows(tmp_path / "ours.sqlite"), _rows(tmp_path / "sqlalchemy.sqlite")
    assert stored == expected
    assert len(stored["entries"]) == 3 and stored["rooms"][0][10] == 14.75  # the clock


def test_a_database_file_deleted_under_the_server_fails_its_commits(tmp_path: Path) -> None:
    """The batch writer's connection keeps a deleted file open, so commits would go on into a
    file nobody will read again, each one acknowledged. It checks the file at every commit: once
    the file is gone (or replaced) every batch fails (the Writer pauses the tables and keeps
    them), and no new, empty database appears where the file was."""
    import sqlite3

    import pytest

    from kemps.server.storage import Storage

    path = tmp_path / "k.sqlite"
    entry = {"room_code": "ABCD", "match_no": 1, "seq": 0, "t": 0.0, "kind": "tick",
             "payload": None}

    async def run() -> None:
        storage = Storage(f"sqlite+aiosqlite:///{path}")
        await storage.start()
        try:
            assert await storage.write_batch([], [entry], {}, []) == []
            for f in tmp_path.iterdir():
                f.unlink()
            for seq in (1, 2):
                with pytest.raises(sqlite3.OperationalError, match="gone"):
                    await storage.write_batch([], [{**entry, "seq": seq}], {}, [])
            assert not path.exists()
        finally:
            await storage.close()

    asyncio.run(run())
