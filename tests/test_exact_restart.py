"""Restarts are exact (issue 9): ready flags, the next deal time, every timer's remaining time (the
table clock resumes where it stopped, not at the last record step), the last finished match and
the host survive a restart; a room whose record does not replay is kept and shown as broken, never
deleted; ``ok`` comes before its ``update``. On SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from typer.testing import CliRunner

from kemps.cli import app as cli_app
from serving import Running, server_thread, sqlite_url

SETTINGS: dict[str, Any] = {"bot_huddle_s": 0.2, "huddle_s": 60.0}


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _room(srv: Running, options: dict[str, Any], start: bool = True) -> tuple[str, list[str]]:
    with httpx.Client(base_url=srv.url) as c:
        r = c.post("/api/rooms", json={"name": "Alice", "preset": "pagat", "options": options})
        code, tokens = r.json()["code"], [r.json()["token"]]
        for seat in (1, 2, 3):
            tokens.append(c.post(f"/api/rooms/{code}/seats",
                                 json={"seat": seat, "name": f"P{seat}"}).json()["token"])
        if start:
            assert c.post(f"/api/rooms/{code}/start", headers=_auth(tokens[0])).status_code == 200
    return code, tokens


def _get(srv: Running, code: str) -> dict[str, Any]:
    r = httpx.get(f"{srv.url}/api/rooms/{code}")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def _send_until(srv: Running, code: str, token: str, message: dict[str, Any],
                      pred: Any) -> dict[str, Any]:
    """Send one message and wait for the first message that satisfies ``pred``."""
    async with websockets.connect(f"{srv.ws}/ws/{code}?token={token}") as ws:
        await ws.recv()
        await ws.send(json.dumps(message))
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 15))
            if pred(m):
                return dict(m)


async def _view(srv: Running, code: str, token: str) -> dict[str, Any]:
    async with websockets.connect(f"{srv.ws}/ws/{code}?token={token}") as ws:
        return dict(json.loads(await ws.recv())["view"])


async def _everyone_ready_and_playing(srv: Running, code: str, tokens: list[str]) -> None:
    socks = [await websockets.connect(f"{srv.ws}/ws/{code}?token={t}") for t in tokens]
    try:
        for ws in socks:
            await ws.recv()
            await ws.send(json.dumps({"type": "ready"}))
        phase = ""
        while phase != "play":
            m = json.loads(await asyncio.wait_for(socks[0].recv(), 15))
            phase = m.get("view", {}).get("phase", phase)
    finally:
        for ws in socks:
            await ws.close()


def test_ready_flags_the_deal_time_and_the_clock_survive_a_restart(database_url: str) -> None:
    """Two of four say Ready (the deal stays at the long huddle's end); 1.5 s later the server
    stops; after 1 s down it starts again: the same seats are ready, the deal is at the same table
    time, and the clock resumes where it stopped (there is no record step yet: the old server
    went back to 0)."""
    with server_thread(database_url, **SETTINGS) as srv:
        code, tokens = _room(srv, {"idle_sweep_s": 0.0})
        for t in tokens[:2]:
            asyncio.run(_send_until(srv, code, t, {"type": "ready"},
                                    lambda m: m["type"] == "room" and any(
                                        s["ready"] for s in m["room"]["seats"])))
        time.sleep(1.5)
        before = _get(srv, code)
        asked = time.monotonic()
    stopping = time.monotonic() - asked  # the clock runs until the server has stopped
    assert [s["ready"] for s in before["seats"]] == [True, True, False, False]
    assert before["deal_at"] is not None and before["now"] > 1.4
    time.sleep(3.0)  # time while the server is down does not count
    restarted = time.monotonic()
    with server_thread(database_url, **SETTINGS) as srv:
        after = _get(srv, code)
        starting = time.monotonic() - restarted  # the resumed clock runs from the restore on
    assert [s["ready"] for s in after["seats"]] == [True, True, False, False]
    assert after["deal_at"] == pytest.approx(before["deal_at"], abs=1e-6)
    assert before["now"] <= after["now"] <= before["now"] + stopping + starting + 0.05, (
        before["now"], after["now"], stopping, starting)


def test_a_stall_countdown_keeps_its_remaining_time_across_a_restart(database_url: str) -> None:
    """A 30 s stall countdown with 28.5 s left when the server stops has 28.5 s left when it is
    back (less the seconds it took to stop and start, not the 3 s it was down) (the old server resumed the clock at the stall itself: 30 s)."""
    options = {"idle_sweep_s": 0.0, "sweep_countdown_s": 30.0}
    with server_thread(database_url, **SETTINGS) as srv:
        code, tokens = _room(srv, options)
        asyncio.run(_everyone_ready_and_playing(srv, code, tokens))
        m = asyncio.run(_send_until(srv, code, tokens[1], {"type": "action", "id": 1,
                                                           "action": {"type": "stall"}},
                                    lambda m: m["type"] == "update"))
        deadline = m["view"]["stall_deadline"]
        assert deadline is not None
        time.sleep(1.5)
        left_before = deadline - _get(srv, code)["now"]
        asked = time.monotonic()
    stopping = time.monotonic() - asked  # the clock runs until the server has stopped
    time.sleep(3.0)  # time while the server is down does not count
    restarted = time.monotonic()
    with server_thread(database_url, **SETTINGS) as srv:
        view = asyncio.run(_view(srv, code, tokens[1]))
        left_after = view["stall_deadline"] - _get(srv, code)["now"]
        starting = time.monotonic() - restarted
    assert view["stall_deadline"] == pytest.approx(deadline)
    assert left_before < 29.0
    assert left_before - stopping - starting - 0.05 <= left_after <= left_before, (
        left_before, left_after, stopping, starting)


def test_a_finished_room_keeps_its_last_match_and_host(database_url: str) -> None:
    """A one-letter match ended by a Stop Kemps on a hunch: after a restart the room is finished,
    with the same last match id (it came back null) and the same host."""
    with server_thread(database_url, **SETTINGS) as srv:
        code, tokens = _room(srv, {"target": 1, "idle_sweep_s": 0.0})
        asyncio.run(_everyone_ready_and_playing(srv, code, tokens))
        asyncio.run(_send_until(srv, code, tokens[0], {"type": "action", "id": 1, "action": {
            "type": "call", "kind": "stop", "on_pair": 1}},
            lambda m: m["type"] == "room" and m["room"]["last_match_id"] is not None))
        before = _get(srv, code)
    assert before["status"] == "finished" and before["last_match_id"] is not None
    with server_thread(database_url, **SETTINGS) as srv:
        after = _get(srv, code)
        assert httpx.get(f"{srv.url}/api/history/{after['last_match_id']}").status_code == 200
    assert after["status"] == "finished"
    assert after["last_match_id"] == before["last_match_id"]
    assert after["host_seat"] == before["host_seat"]


def test_ok_comes_before_its_update(tmp_path: Path) -> None:
    with server_thread(sqlite_url(tmp_path), **SETTINGS) as srv:
        code, tokens = _room(srv, {"idle_sweep_s": 0.0})
        asyncio.run(_everyone_ready_and_playing(srv, code, tokens))

        async def run() -> list[str]:
            async with websockets.connect(f"{srv.ws}/ws/{code}?token={tokens[2]}") as ws:
                await ws.recv()
                await ws.send(json.dumps({"type": "action", "id": 5, "action": {
                    "type": "gesture", "gesture": "nod"}}))
                kinds: list[str] = []
                while "update" not in kinds:
                    kind = json.loads(await asyncio.wait_for(ws.recv(), 10))["type"]
                    if kind in ("ok", "update"):
                        kinds.append(kind)
                return kinds

        assert asyncio.run(run()) == ["ok", "update"]


def test_a_room_whose_record_does_not_replay_is_kept_as_broken(tmp_path: Path) -> None:
    """A step missing from a room's stored record: the room is not deleted nor hidden; it is listed
    as broken with the error (API and ``kemps rooms``), refuses changes, and stays so."""
    url = sqlite_url(tmp_path)
    with server_thread(url, **SETTINGS) as srv:
        code, tokens = _room(srv, {"idle_sweep_s": 0.0})
        asyncio.run(_everyone_ready_and_playing(srv, code, tokens))
        asyncio.run(_send_until(srv, code, tokens[0], {"type": "action", "id": 1, "action": {
            "type": "gesture", "gesture": "nod"}}, lambda m: m["type"] == "update"))
    with sqlite3.connect(url.split("///", 1)[1]) as db:
        assert db.execute("DELETE FROM entries WHERE room_code = ? AND seq = 0",
                          (code,)).rowcount == 1
    for _ in range(2):  # and it stays: nothing rewrites or drops it
        with server_thread(url, **SETTINGS) as srv:
            room = _get(srv, code)
            assert room["status"] == "broken"
            assert "step 0" in room["error"] and "missing" in room["error"]
            r = httpx.post(f"{srv.url}/api/rooms/{code}/start", headers=_auth(tokens[0]))
            assert r.status_code == 409 and r.json()["code"] == "room_broken", r.text
            r = httpx.post(f"{srv.url}/api/rooms/{code}/seats", json={"seat": 1, "name": "X"})
            assert r.status_code == 409 and r.json()["code"] == "room_broken", r.text
    runner = CliRunner()
    listed = runner.invoke(cli_app, ["rooms", "list", "--database-url", url])
    assert listed.exit_code == 0, listed.output
    assert code in listed.output and "BROKEN" in listed.output
    shown = runner.invoke(cli_app, ["rooms", "inspect", code, "--database-url", url])
    assert shown.exit_code == 0, shown.output
    detail = json.loads(shown.output)
    assert detail["restores"] is False and "missing" in detail["error"]
    assert all("token_hash" not in s for s in detail["seats"])
    missing = runner.invoke(cli_app, ["rooms", "inspect", "NOPE9", "--database-url", url])
    assert missing.exit_code == 1
