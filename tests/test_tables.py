"""Open tables, quick match and lag (issue 32): a real server in a thread, real HTTP and
WebSocket clients.

"A host may list a room publicly (off by default; ``"listed": true`` when the room is created
or later; the open tables as JSON at ``GET /api/tables``) ... "Quick match" seats a person at the
best open table of a preset or opens one with bots in the empty seats that people may take over
between hands. Bounded against abuse (rooms listed per address, names checked as today)" and
"the server measures each seat's round trip and shows it beside the name" (issue 32).

The huddle waits 600 s for people who are not ready, so a started table stays between hands
(joinable) for as long as a test needs; a hand is dealt only when a test says Ready.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from kemps.server.tables import MAX_LISTED_PER_ADDRESS
from serving import Running, server_thread, sqlite_url

DEADLINE_S = 30.0


@pytest.fixture
def srv(tmp_path: Path) -> Iterator[Running]:
    with server_thread(sqlite_url(tmp_path), huddle_s=600.0, bot_huddle_s=0.2,
                       room_burst=50, rooms_per_min=600.0, away_grace_s=600.0) as running:
        yield running


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _create(srv: Running, name: str = "Alice", **body: Any) -> dict[str, Any]:
    r = httpx.post(f"{srv.url}/api/rooms", json={"name": name, **body})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def _tables(srv: Running, **params: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{srv.url}/api/tables", params=params)
    assert r.status_code == 200, r.text
    found: list[dict[str, Any]] = r.json()["tables"]
    return found


def _codes(srv: Running, **params: str) -> list[str]:
    return [t["code"] for t in _tables(srv, **params)]


def test_a_room_is_unlisted_by_default_and_its_host_lists_and_unlists_it(srv: Running) -> None:
    room = _create(srv)
    code, token = room["code"], room["token"]
    assert room["room"]["listed"] is False
    assert code not in _codes(srv)
    r = httpx.put(f"{srv.url}/api/rooms/{code}/listed", json={"listed": True},
                  headers=_auth(token))
    assert r.status_code == 200, r.text
    assert r.json()["listed"] is True
    assert httpx.get(f"{srv.url}/api/rooms/{code}").json()["listed"] is True
    [table] = _tables(srv)
    assert table["code"] == code
    assert table["preset"] == "pagat"
    assert table["seats"] == 4 and table["seats_free"] == 3 and table["open"] == 3
    assert table["players"] == ["Alice"] and table["bots"] == []
    assert table["phase"] == "lobby" and table["joinable"] is True
    r = httpx.put(f"{srv.url}/api/rooms/{code}/listed", json={"listed": False},
                  headers=_auth(token))
    assert r.status_code == 200 and r.json()["listed"] is False
    assert _codes(srv) == []


def test_listing_is_the_host_s_and_refused_with_the_documented_codes(srv: Running) -> None:
    room = _create(srv)
    code = room["code"]
    guest = httpx.post(f"{srv.url}/api/rooms/{code}/seats", json={"seat": 1, "name": "Ben"})
    assert guest.status_code == 200
    cases = [
        (code, {"listed": True}, _auth(guest.json()["token"]), 403, "not_host"),
        (code, {"listed": True}, {}, 403, "not_seated"),
        ("QQQQQ", {"listed": True}, _auth(room["token"]), 404, "no_such_room"),
        (code, {"listed": "yes"}, _auth(room["token"]), 422, "bad_request"),
        (code, {"listed": True, "x": 1}, _auth(room["token"]), 422, "bad_request"),
        (code, {}, _auth(room["token"]), 422, "bad_request"),
    ]
    for where, body, headers, status, error in cases:
        r = httpx.put(f"{srv.url}/api/rooms/{where}/listed", json=body, headers=headers)
        assert (r.status_code, r.json()["code"]) == (status, error), (body, r.text)
    assert _codes(srv) == []  # nothing changed
    bad = httpx.post(f"{srv.url}/api/rooms", json={"name": "Al", "listed": 1})
    assert (bad.status_code, bad.json()["code"]) == (422, "bad_request")
    unclean = httpx.post(f"{srv.url}/api/tables/quick", json={"name": "A\u202eB"})
    assert (unclean.status_code, unclean.json()["code"]) == (422, "bad_text")
    unknown = httpx.get(f"{srv.url}/api/tables", params={"preset": "nope"})
    assert (unknown.status_code, unknown.json()["code"]) == (422, "bad_request")


def test_one_address_keeps_a_bounded_number_of_rooms_listed(srv: Running) -> None:
    made = [_create(srv, f"P{i}", listed=True) for i in range(MAX_LISTED_PER_ADDRESS)]
    assert _codes(srv) == [m["code"] for m in made]  # oldest listing first
    r = httpx.post(f"{srv.url}/api/rooms", json={"name": "Extra", "listed": True})
    assert (r.status_code, r.json()["code"]) == (429, "too_many_listed")
    assert "Retry-After" in r.headers
    spare = _create(srv, "Spare")  # an unlisted room is still made
    r = httpx.put(f"{srv.url}/api/rooms/{spare['code']}/listed", json={"listed": True},
                  headers=_auth(spare["token"]))
    assert (r.status_code, r.json()["code"]) == (429, "too_many_listed")
    assert httpx.get(f"{srv.url}/api/rooms/{spare['code']}").json()["listed"] is False
    q = httpx.post(f"{srv.url}/api/tables/quick", json={"name": "Q", "preset": "kent"})
    assert (q.status_code, q.json()["code"]) == (429, "too_many_listed")
    first = made[0]
    assert httpx.put(f"{srv.url}/api/rooms/{first['code']}/listed", json={"listed": False},
                     headers=_auth(first["token"])).status_code == 200
    r = httpx.put(f"{srv.url}/api/rooms/{spare['code']}/listed", json={"listed": True},
                  headers=_auth(spare["token"]))
    assert r.status_code == 200, r.text
    assert _codes(srv) == [m["code"] for m in made[1:]] + [spare["code"]]


def test_a_person_joins_an_open_table_at_an_empty_seat_then_a_bot_s(srv: Running) -> None:
    room = _create(srv, listed=True)
    code, token = room["code"], room["token"]
    r = httpx.post(f"{srv.url}/api/rooms/{code}/bots", json={"seat": 1},
                   headers=_auth(token))
    assert r.status_code == 200
    j = httpx.post(f"{srv.url}/api/rooms/{code}/join", json={"name": "Cara"})
    assert j.status_code == 200, j.text
    assert j.json()["seat"] == 2  # the first empty seat
    assert httpx.post(f"{srv.url}/api/rooms/{code}/bots", json={"seat": 3},
                      headers=_auth(token)).status_code == 200
    [table] = _tables(srv)
    assert table["open"] == 0 and table["seats_free"] == 2 and len(table["bots"]) == 2
    k = httpx.post(f"{srv.url}/api/rooms/{code}/join", json={"name": "Dov"})
    assert k.status_code == 200, k.text
    assert k.json()["seat"] == 1  # a bot's seat: the bot leaves
    seat = k.json()["room"]["seats"][1]
    assert (seat["kind"], seat["name"]) == ("human", "Dov")
    again = httpx.post(f"{srv.url}/api/rooms/{code}/join", json={"name": "Dov"},
                       headers=_auth(k.json()["token"]))
    assert (again.status_code, again.json()["code"]) == (409, "already_seated")
    taken = httpx.post(f"{srv.url}/api/rooms/{code}/join", json={"name": "Eve", "seat": 0})
    assert (taken.status_code, taken.json()["code"]) == (409, "seat_taken")
    last = httpx.post(f"{srv.url}/api/rooms/{code}/join", json={"name": "Eve"})
    assert last.status_code == 200 and last.json()["seat"] == 3
    assert _codes(srv) == []  # every seat a person's: no longer an open table
    full = httpx.post(f"{srv.url}/api/rooms/{code}/join", json={"name": "Fay"})
    assert (full.status_code, full.json()["code"]) == (409, "table_full")
    hidden = _create(srv, "Gus")
    r = httpx.post(f"{srv.url}/api/rooms/{hidden['code']}/join", json={"name": "Hal"})
    assert (r.status_code, r.json()["code"]) == (409, "not_listed")
    r = httpx.post(f"{srv.url}/api/rooms/QQQQQ/join", json={"name": "Hal"})
    assert (r.status_code, r.json()["code"]) == (404, "no_such_room")
    r = httpx.post(f"{srv.url}/api/rooms/{code}/join", json={"name": "   "})
    assert (r.status_code, r.json()["code"]) == (422, "bad_text")  # names checked as today


def _receive(ws: ClientConnection, kind: str, deadline_s: float = DEADLINE_S) -> dict[str, Any]:
    """The next message of ``kind`` (others are skipped), within the deadline."""
    end = time.monotonic() + deadline_s
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=max(0.1, end - time.monotonic())))
        if message["type"] == kind:
            return message


def test_quick_match_opens_a_table_with_bots_then_seats_the_next_person_there(
        srv: Running) -> None:
    """Seed 'table with bots': the first person opens a listed table whose other seats are
    bots, its match started and between hands; the next person of that preset takes a bot's
    seat there (the table with the most people), one of another preset opens their own."""
    first = httpx.post(f"{srv.url}/api/tables/quick", json={"name": "Ann", "preset": "kent"})
    assert first.status_code == 200, first.text
    a = first.json()
    assert a["quick"] == "opened" and a["seat"] == 0
    assert a["room"]["status"] == "playing" and a["room"]["listed"] is True
    assert [s["kind"] for s in a["room"]["seats"]] == ["human", "bot", "bot", "bot"]
    [table] = _tables(srv, preset="kent")
    assert (table["code"], table["phase"], table["joinable"]) == (a["code"], "huddle", True)
    other = httpx.post(f"{srv.url}/api/rooms", json={"name": "Lone", "preset": "kent",
                                                     "listed": True})
    assert other.status_code == 201
    second = httpx.post(f"{srv.url}/api/tables/quick", json={"name": "Bea", "preset": "kent"})
    assert second.status_code == 200, second.text
    b = second.json()
    assert (b["quick"], b["code"]) == ("joined", a["code"])  # the table with most people
    assert b["room"]["seats"][b["seat"]]["kind"] == "human"
    assert sum(s["kind"] == "human" for s in b["room"]["seats"]) == 2
    third = httpx.post(f"{srv.url}/api/tables/quick", json={"name": "Cy", "preset": "pagat"})
    assert third.status_code == 200 and third.json()["quick"] == "opened"
    assert third.json()["code"] not in (a["code"], other.json()["code"])
    # the person who took the bot's seat plays it: their socket is seated there
    with ws_connect(f"{srv.ws}/ws/{b['code']}?token={b['token']}") as ws:
        state = _receive(ws, "state")
        assert state["seat"] == b["seat"]


def test_a_bot_s_seat_is_not_taken_during_a_hand(srv: Running) -> None:
    a = httpx.post(f"{srv.url}/api/tables/quick", json={"name": "Ann"}).json()
    with ws_connect(f"{srv.ws}/ws/{a['code']}?token={a['token']}") as ws:
        _receive(ws, "state")
        ws.send(json.dumps({"type": "ready"}))  # everyone ready: the deal comes in 0.2 s
        end = time.monotonic() + DEADLINE_S
        while _tables(srv)[0]["phase"] == "huddle":
            assert time.monotonic() < end, "the hand was never dealt"
            time.sleep(0.05)
        r = httpx.post(f"{srv.url}/api/rooms/{a['code']}/join", json={"name": "Bea"})
        assert (r.status_code, r.json()["code"]) == (409, "not_between_hands")
        listed = _tables(srv)[0]
        assert listed["joinable"] is False and listed["phase"] != "huddle"


def test_the_server_measures_each_seat_s_round_trip_for_clients_that_answer(
        srv: Running) -> None:
    room = _create(srv)
    code = room["code"]
    with ws_connect(f"{srv.ws}/ws/{code}?token={room['token']}") as ws, \
            ws_connect(f"{srv.ws}/ws/{code}") as quiet:
        _receive(ws, "state")
        _receive(quiet, "state")
        ws.send(json.dumps({"type": "lag_pong"}))  # this client answers probes
        probe = _receive(ws, "lag_ping")
        assert isinstance(probe["id"], int)
        ws.send(json.dumps({"type": "lag_pong", "id": probe["id"]}))
        end = time.monotonic() + DEADLINE_S
        while True:
            report = _receive(ws, "lag", max(0.1, end - time.monotonic()))
            if report["ms"][0] is not None:
                break
        assert len(report["ms"]) == 4 and report["ms"][1:] == [None, None, None]
        assert 0 <= report["ms"][0] <= 60_000  # kemps.server.lag.MAX_MS
        bad = ws.send(json.dumps({"type": "lag_pong", "id": 0}))
        assert bad is None
        assert _receive(ws, "error")["code"] == "bad_message"
        # a client that never answered is never probed nor told
        quiet.send(json.dumps({"type": "ping", "id": 9}))
        assert _receive(quiet, "pong")["id"] == 9
        quiet.send(json.dumps({"type": "sync"}))
        seen = []
        end = time.monotonic() + 5.0  # two and a half probe rounds
        while time.monotonic() < end:
            try:
                seen.append(json.loads(quiet.recv(timeout=max(0.05, end - time.monotonic())))["type"])
            except TimeoutError:
                break
        assert "lag_ping" not in seen and "lag" not in seen
