"""The scorekeeper and the tournament desk through the server's JSON API (``/api/desk``), against a
real server (``tests/serving.py``) on SQLite and on a real PostgreSQL.

PostgreSQL as in ``tests/test_server_storage.py``: ``KEMPS_TEST_POSTGRES_URL`` (default
``postgresql+asyncpg://postgres@127.0.0.1:5432/test``); where none answers these tests skip with a
message, unless ``KEMPS_REQUIRE_POSTGRES=1``, which makes them fail instead.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx

from serving import Running, server_thread
from test_server_storage import _stop_on_a_hunch

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed000-scoresheet.json"
QUICK = {"bot_huddle_s": 0.2, "huddle_s": 0.5}


def _refused(r: httpx.Response, code: str, status: int = 400) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    return str(body["message"])


def _scores(view: dict[str, Any]) -> dict[str, int]:
    return {s["name"]: s["score"] for s in view["summary"]["standings"]}


def test_seed000_hand_by_hand_undo_edit_refusals_export_import(database_url: str) -> None:
    """Seed 000's worked game entered hand by hand: Alice and Cara 3 letters, Ben and Dev 5, the
    match over, Alice and Cara the winners; refusals name their code and change nothing; undo and
    edit work the totals out again; the sheet survives a restart; CSV and JSON export, JSON import
    gives the same match."""
    example = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    hands = example.pop("hands")
    with server_thread(database_url, **QUICK) as srv, httpx.Client(base_url=srv.url) as c:
        r = c.post("/api/desk/sheets", json=example)
        assert r.status_code == 201, r.text
        sid = r.json()["id"]
        assert r.json()["summary"]["hands"] == 0
        for n, hand in enumerate(hands, start=1):
            r = c.post(f"/api/desk/sheets/{sid}/hands", json=hand)
            assert r.status_code == 200, r.text
            assert r.json()["last"]["number"] == n
            if n == 1:  # a Kemps on a player who is not the caller's partner: refused, unchanged
                before = c.get(f"/api/desk/sheets/{sid}").json()
                bad = {"call": "kemps", "by": "Alice", "on": "Ben", "right": True}
                _refused(c.post(f"/api/desk/sheets/{sid}/hands", json=bad), "not_your_partner")
                _refused(c.post(f"/api/desk/sheets/{sid}/hands",
                                json={"call": "kemps", "by": "Zed", "right": True}),
                         "unknown_player")
                # A body of the wrong shape: 422, the shared error body, nothing written.
                _refused(c.post(f"/api/desk/sheets/{sid}/hands", json=["not", "a", "hand"]),
                         "bad_request", 422)
                assert c.get(f"/api/desk/sheets/{sid}").json()["sheet"] == before["sheet"]
        view = r.json()
        assert _scores(view) == {"Alice & Cara": 3, "Ben & Dev": 5}
        assert view["summary"]["over"] is True and view["summary"]["ended_at"] == 8
        assert view["summary"]["winners"] == ["Alice & Cara"]
        assert [s["spelled"] for s in view["summary"]["standings"]] == ["K-E-M", "K-E-M-P-S"]
        assert len(view["history"]) == 8
        # a hand after the match ended: the sheet is not in a state for it (409)
        msg = _refused(c.post(f"/api/desk/sheets/{sid}/hands", json={"call": "real_deal"}),
                       "match_over", 409)
        assert msg.startswith("Hand 9:")
        # undo the last hand: Ben & Dev back to 4, the match on again
        r = c.post(f"/api/desk/sheets/{sid}/undo")
        assert r.status_code == 200 and r.json()["undone"]["number"] == 8
        assert _scores(r.json()) == {"Alice & Cara": 3, "Ben & Dev": 4}
        assert r.json()["summary"]["over"] is False
        # edit hand 2 (Ben's wrong Kemps) to a right one: Alice & Cara take that letter instead
        r = c.put(f"/api/desk/sheets/{sid}/hands/2",
                  json={"call": "kemps", "by": "Ben", "right": True})
        assert r.status_code == 200, r.text
        assert _scores(r.json()) == {"Alice & Cara": 4, "Ben & Dev": 3}
        # an edit that breaks the rules is refused with the hand's number; nothing changes
        before = c.get(f"/api/desk/sheets/{sid}").json()["sheet"]
        msg = _refused(c.put(f"/api/desk/sheets/{sid}/hands/3",
                             json={"call": "kemps", "by": "Alice", "on": "Ben", "right": True}),
                       "not_your_partner")
        assert msg.startswith("Hand 3:")
        assert c.get(f"/api/desk/sheets/{sid}").json()["sheet"] == before
        # a hand the address names that the sheet does not have: 404
        _refused(c.put(f"/api/desk/sheets/{sid}/hands/99", json={"call": "real_deal"}),
                 "no_such_hand", 404)
        _refused(c.delete(f"/api/desk/sheets/{sid}/hands/0"), "bad_request", 422)  # from 1
        _refused(c.delete(f"/api/desk/sheets/{sid}/hands/99"), "no_such_hand", 404)
        # put hand 2 back, and hand 8 again: the worked game once more
        c.put(f"/api/desk/sheets/{sid}/hands/2", json=hands[1])
        r = c.post(f"/api/desk/sheets/{sid}/hands", json=hands[7])
        assert _scores(r.json()) == {"Alice & Cara": 3, "Ben & Dev": 5}
        # exports
        csv = c.get(f"/api/desk/sheets/{sid}/export.csv")
        assert csv.status_code == 200 and "attachment" in csv.headers["content-disposition"]
        assert csv.text.splitlines()[0].startswith("hand,call,by,on,right")
        assert len(csv.text.splitlines()) == 9
        exported = c.get(f"/api/desk/sheets/{sid}/export.json")
        data = json.loads(exported.text)
        assert data["result"]["winners"] == ["Alice & Cara"]
        imported = c.post("/api/desk/sheets/import", json=data)
        assert imported.status_code == 201
        assert imported.json()["summary"] == view["summary"]
        assert imported.json()["sheet"]["hands"] == [dict(h) for h in hands]
        # refusals of whole sheets and unknown ids
        # a pair of one player twice is not the declared shape (uniqueItems); the same name in
        # another spelling is the scorekeeper's refusal
        _refused(c.post("/api/desk/sheets", json={"pairs": [["Al", "Al"], ["B", "C"]]}),
                 "bad_request", 422)
        _refused(c.post("/api/desk/sheets", json={"pairs": [["Al", "al "], ["B", "C"]]}),
                 "bad_sheet")
        _refused(c.post("/api/desk/sheets", json={"pairs": [["A", "B"], ["C", "D"]],
                                                  "preset": "nonsense"}), "bad_request", 422)
        _refused(c.get("/api/desk/sheets/9999"), "no_such_sheet", 404)
        _refused(c.post("/api/desk/sheets/9999/undo"), "no_such_sheet", 404)
        listed = c.get("/api/desk/sheets").json()["sheets"]
        assert {s["id"] for s in listed} == {sid, imported.json()["id"]}
    # stored: a new server on the same database gives the same sheet
    with server_thread(database_url, **QUICK) as srv, httpx.Client(base_url=srv.url) as c:
        again = c.get(f"/api/desk/sheets/{sid}").json()
        assert _scores(again) == {"Alice & Cara": 3, "Ben & Dev": 5}
        assert again["summary"]["over"] is True
        # three pairs under one_pair: the open case asks which pair takes the letter
        r = c.post("/api/desk/sheets", json={
            "preset": "squarescores", "options": {"right_kemps_letters": "one_pair"},
            "pairs": [["A1", "A2"], ["B1", "B2"], ["C1", "C2"]]})
        three = r.json()["id"]
        _refused(c.post(f"/api/desk/sheets/{three}/hands",
                        json={"call": "kemps", "by": "A1", "right": True}), "need_letters_to")
        r = c.post(f"/api/desk/sheets/{three}/hands",
                   json={"call": "kemps", "by": "A1", "right": True, "letters_to": 2})
        assert _scores(r.json()) == {"A1 & A2": 0, "B1 & B2": 0, "C1 & C2": 1}


def _result(c: httpx.Client, tid: int, mid: str, letters: list[int]) -> dict[str, Any]:
    r = c.post(f"/api/desk/tournaments/{tid}/matches/{mid}/result", json={"letters": letters})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_tournament_to_its_champion(database_url: str) -> None:
    """Four teams, one round robin on two tables, short matches to K-E-M: results as letters and
    one from a linked scoresheet, a withdrawal (forfeits), refusals that change nothing, and the
    standings checked by hand down to the champion."""
    teams = ["Owls: Ann & Abe", "Bats: Bea & Bo", "Cats: Cy & Cal", "Dogs: Di & Dan"]
    with server_thread(database_url, **QUICK) as srv, httpx.Client(base_url=srv.url) as c:
        # Shapes and ranges the schema declares: 422; what only the desk can tell: 400.
        assert "teams" in _refused(c.post("/api/desk/tournaments", json={"teams": ["Ann & Abe"]}),
                                   "bad_request", 422)
        assert "letters" in _refused(c.post("/api/desk/tournaments",
                                            json={"teams": teams, "letters": 9}),
                                     "bad_request", 422)
        assert "colour" in _refused(c.post("/api/desk/tournaments",
                                           json={"teams": teams, "colour": "red"}),
                                    "bad_request", 422)
        _refused(c.post("/api/desk/tournaments", json={"teams": ["Ann & Abe", "Ann & Bo"]}),
                 "bad_team")
        r = c.post("/api/desk/tournaments", json={"name": "Club night", "teams": teams,
                                                  "tables": 2, "seed": 2026,
                                                  "fake_signals": "banned"})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        t = r.json()["tournament"]
        assert t["settings"] == {"letters": 3, "fake_signals": "banned", "go_start": False,
                                 "one_card": False}
        schedule = t["schedule"]
        assert len(schedule) == 6
        assert [m["table"] for m in schedule if m["status"] == "at_table"] == [1, 2]
        r = c.put(f"/api/desk/tournaments/{tid}/settings", json={"letters": 2})
        assert r.json()["tournament"]["settings"]["letters"] == 2
        c.put(f"/api/desk/tournaments/{tid}/settings", json={"letters": 3})
        # play every match: the team listed first in teams wins (home/away as scheduled)
        order = [x.split(":")[0] for x in teams]

        def letters_for(m: dict[str, Any], loser_letters: int = 3, winner: int = 1) -> list[int]:
            home_wins = order.index(m["home"]) < order.index(m["away"])
            return [winner, loser_letters] if home_wins else [loser_letters, winner]

        first = schedule[0]
        view = _result(c, tid, first["id"], letters_for(first))
        _refused(c.post(f"/api/desk/tournaments/{tid}/matches/{first['id']}/result",
                        json={"letters": [1, 1]}), "already_recorded", 409)
        _refused(c.post(f"/api/desk/tournaments/{tid}/matches/M2/result",
                        json={"letters": [2, 2]}), "bad_result")
        _refused(c.post(f"/api/desk/tournaments/{tid}/matches/Z9/result",
                        json={"letters": [3, 0]}), "no_such_match", 404)  # named in the address
        _refused(c.put(f"/api/desk/tournaments/{tid}/settings", json={"letters": 2}),
                 "settings_fixed", 409)
        _refused(c.get("/api/desk/tournaments/999"), "no_such_tournament", 404)
        assert c.get(f"/api/desk/tournaments/{tid}").json()["tournament"]["log"] == \
            view["tournament"]["log"]
        # the second match from a scoresheet opened for it
        second = schedule[1]
        r = c.post(f"/api/desk/tournaments/{tid}/matches/{second['id']}/sheet")
        assert r.status_code == 201, r.text
        sheet = r.json()
        assert sheet["match_id"] == second["id"] and sheet["tournament_id"] == tid
        assert [p["name"] for p in sheet["pairs"]] == [second["home"], second["away"]]
        assert sheet["rules"]["target"] == 3
        _refused(c.post(f"/api/desk/tournaments/{tid}/matches/{second['id']}/result",
                        json={"sheet": sheet["id"]}), "bad_result")  # not finished
        home_wins = order.index(second["home"]) < order.index(second["away"])
        losing = sheet["pairs"][1 if home_wins else 0]["players"]
        for _ in range(3):  # the loser's wrong Kemps, three times
            r = c.post(f"/api/desk/sheets/{sheet['id']}/hands",
                       json={"call": "kemps", "by": losing[0], "right": False})
            assert r.status_code == 200, r.text
        assert r.json()["summary"]["over"] is True
        view = dict(c.post(f"/api/desk/tournaments/{tid}/matches/{second['id']}/result",
                           json={"sheet": sheet["id"]}).json())
        assert view["sheets"] == [{"id": sheet["id"], "match_id": second["id"], "over": True}]
        done = {first["id"], second["id"]}
        # Dogs withdraw: their unplayed matches are forfeits won by the opponent
        r = c.post(f"/api/desk/tournaments/{tid}/withdraw", json={"team": "Di"})
        assert r.status_code == 200, r.text
        forfeited = set(r.json()["forfeited"])
        assert forfeited == {m["id"] for m in schedule if "Dogs" in (m["home"], m["away"])
                             and m["id"] not in done}
        _refused(c.post(f"/api/desk/tournaments/{tid}/withdraw", json={"team": "Dogs"}),
                 "already_withdrawn", 409)
        for mid in sorted(forfeited):
            _refused(c.post(f"/api/desk/tournaments/{tid}/matches/{mid}/result",
                            json={"letters": [3, 0]}), "forfeit", 409)
        for m in schedule:
            if m["id"] not in done | forfeited:
                view = _result(c, tid, m["id"], letters_for(m, winner=2))
        st = view["tournament"]["standings"]
        # by hand: Owls beat everyone, Bats beat Cats (and Dogs), Cats beat Dogs (or by forfeit)
        rows = st["groups"][""]
        assert [r2["team"] for r2 in rows] == ["Owls", "Bats", "Cats", "Dogs"]
        assert [r2["won"] for r2 in rows] == [3, 2, 1, 0]
        assert rows[-1]["withdrawn"] is True
        assert st["champion"] == "Owls" and st["complete"] is True
        assert all("forfeit" in f for f in st["forfeits"])
        assert "head-to-head" in st["rule"]
        _refused(c.post(f"/api/desk/tournaments/{tid}/withdraw", json={"team": "Owls"}),
                 "event_over", 409)
        assert any(x["id"] == tid and x["champion"] == "Owls"
                   for x in c.get("/api/desk/tournaments").json()["tournaments"])


def test_a_tournament_match_played_online_comes_back_by_itself(database_url: str) -> None:
    """"Play online": a room under the match's rules (one letter loses, S2's short match made
    shorter), linked to the match. Ann takes the home team's seat with bots around her and calls
    Stop Kemps on a hunch; when the room's match ends, its letters are in the tournament without
    anyone typing them."""
    with server_thread(database_url, **QUICK) as srv, httpx.Client(base_url=srv.url) as c:
        r = c.post("/api/desk/tournaments", json={"teams": ["Owls: Ann & Abe",
                                                            "Bats: Bea & Bo"],
                                                  "letters": 1, "seed": 5})
        tid = r.json()["id"]
        match = r.json()["tournament"]["schedule"][0]
        mid = match["id"]
        r = c.post(f"/api/desk/tournaments/{tid}/matches/{mid}/room")
        assert r.status_code == 200, r.text
        online = r.json()
        code = online["code"]
        assert online["url"] == f"/room/{code}"
        assert c.post(f"/api/desk/tournaments/{tid}/matches/{mid}/room").json()["code"] == code
        room = c.get(f"/api/rooms/{code}").json()
        assert room["rules"]["target"] == 1 and room["rules"]["pairs"] == 2
        home = online["home"]
        seat = 0 if home["name"] == "Owls" else 1  # Ann's team plays as pair 0 (home) or 1
        taken = c.post(f"/api/rooms/{code}/seats", json={"seat": seat, "name": "Ann"}).json()
        token = taken["token"]
        auth = {"Authorization": f"Bearer {token}"}
        # The first to sit hosts the room, but the match's rules are the tournament's.
        locked = c.put(f"/api/rooms/{code}/rules", json={"preset": "pagat", "options":
                                                         {"target": 5}}, headers=auth)
        assert locked.status_code == 409 and locked.json()["code"] == "rules_locked"
        assert c.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers=auth
                      ).status_code == 200
        assert c.post(f"/api/rooms/{code}/start", headers=auth).status_code == 200
        right = asyncio.run(_stop_on_a_hunch_from(srv, code, token, seat))
        view = _wait_recorded(c, tid, mid)
        m = next(x for x in view["tournament"]["schedule"] if x["id"] == mid)
        assert m["status"] == "played", m
        letters = view["tournament"]["log"][0]["letters"]
        ann_side = 0 if home["name"] == "Owls" else 1
        loser_side = 1 - ann_side if right else ann_side
        assert letters[loser_side] == 1 and letters[1 - loser_side] == 0
        link = view["rooms"][0]
        assert link["room_code"] == code and link["status"] == "recorded"
        assert view["tournament"]["standings"]["champion"] == ("Owls" if right else "Bats")
        _refused(c.post(f"/api/desk/tournaments/{tid}/matches/{mid}/room"), "match_decided",
                 409)


async def _stop_on_a_hunch_from(srv: Running, code: str, token: str, seat: int) -> bool:
    """As :func:`_stop_on_a_hunch`, from seat 0 or 1 (Stop Kemps on the other pair)."""
    if seat == 0:
        return await _stop_on_a_hunch(srv, code, token)
    import websockets

    async with websockets.connect(f"{srv.ws}/ws/{code}?token={token}") as ws:
        await ws.send(json.dumps({"type": "ready"}))
        view: dict[str, Any] = {}
        while view.get("phase") != "play":
            m = json.loads(await asyncio.wait_for(ws.recv(), 20))
            view = m.get("view", view)
        await ws.send(json.dumps({"type": "action", "id": 1, "action": {
            "type": "call", "kind": "stop", "on_pair": 0}}))
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 10))
            for e in m.get("events", []):
                if e["type"] == "call_judged" and e["seat"] == seat:
                    return bool(e["right"])


def _wait_recorded(c: httpx.Client, tid: int, mid: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    view: dict[str, Any] = {}
    while time.monotonic() < deadline:
        view = c.get(f"/api/desk/tournaments/{tid}").json()
        if view["rooms"] and view["rooms"][0]["status"] != "playing":
            return view
        time.sleep(0.1)
    raise AssertionError(f"the room's result never came back: {view.get('rooms')}")


def test_a_tournament_room_keeps_the_tournaments_rules_after_a_restart(database_url: str) -> None:
    """Security review: whoever sits first hosts a tournament's online room, but may not change
    the match's rules, before or after the server restarts."""
    with server_thread(database_url, **QUICK) as srv, httpx.Client(base_url=srv.url) as c:
        r = c.post("/api/desk/tournaments", json={"teams": ["Owls: Ann & Abe", "Bats: Bea & Bo"],
                                                  "letters": 1, "seed": 5})
        tid = r.json()["id"]
        mid = r.json()["tournament"]["schedule"][0]["id"]
        code = c.post(f"/api/desk/tournaments/{tid}/matches/{mid}/room").json()["code"]
        token = c.post(f"/api/rooms/{code}/seats", json={"seat": 0, "name": "Ann"}
                       ).json()["token"]
    with server_thread(database_url, **QUICK) as srv, httpx.Client(base_url=srv.url) as c:
        locked = c.put(f"/api/rooms/{code}/rules", json={"preset": "pagat", "pairs": 3},
                       headers={"Authorization": f"Bearer {token}"})
        assert locked.status_code == 409 and locked.json()["code"] == "rules_locked"
        assert c.get(f"/api/rooms/{code}").json()["rules"]["target"] == 1
