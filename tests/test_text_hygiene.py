"""Text a stranger sends is clean or refused: over HTTP (every text field of every body) and over
the WebSocket (every string of a frame; frames counted in bytes), never a 500, nothing changed.

Also: the API's refusals are the one ``{"code", "message"}`` body and never repeat the input; 405
lists every allowed method; and a lone surrogate sent in chat cannot reach the match record (it
used to make ``GET /api/history/{id}`` answer 500 for good).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from kemps.server.protocol import MAX_MESSAGE_BYTES, SERVER_TYPES
from kemps.text import TextError, check_strings, check_text
from serving import Running, server_thread, sqlite_url

BAD = {
    "lone surrogate": "Al\ud800ce",
    "low surrogate": "\udc00",
    "right-to-left override": "Alice\u202eecilA",
    "left-to-right embedding": "\u202aAlice",
    "first strong isolate": "Ali\u2068ce",
    "pop directional isolate": "Alice\u2069",
    "bell (C0 control)": "Ali\x07ce",
    "newline": "Ali\nce",
    "DEL": "Alice\x7f",
    "next line (C1 control)": "Alice\x85",
    "oversize": "é" * 1000,
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_check_text_refuses_and_never_repeats_the_text(kind: str) -> None:
    with pytest.raises(TextError) as caught:
        check_text(BAD[kind], "name", max_chars=200)
    assert caught.value.code == "bad_text"
    assert BAD[kind] not in caught.value.message and "name" in caught.value.message
    with pytest.raises(TextError):
        check_strings({"action": {"type": "chat", "text": BAD[kind] if kind != "oversize"
                                  else "\ud800"}})


def test_check_text_accepts_any_script_and_emoji_and_counts_characters() -> None:
    for text in ("Zoë", "Ålesund", "Łódź", "Даша", "עדי", "سارا", "李雷", "🂡 Kemps! 🎉", "a\u200db"):
        assert check_text(text, max_chars=40) == text
    assert check_text("é" * 40, max_chars=40)  # 40 characters (80 bytes) is within 40
    with pytest.raises(TextError):
        check_text("é" * 41, max_chars=40)
    with pytest.raises(TextError):
        check_text("", min_chars=1)


# -- HTTP -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with server_thread(sqlite_url(tmp_path_factory.mktemp("text")), bot_huddle_s=0.2,
                       huddle_s=0.5) as running:
        yield running


def _post(c: httpx.Client, method: str, path: str, body: Any,
          headers: dict[str, str] | None = None) -> httpx.Response:
    # json.dumps escapes a lone surrogate as \ud800: the bytes on the wire are valid UTF-8 JSON.
    return c.request(method, path, content=json.dumps(body).encode(),
                     headers={"Content-Type": "application/json", **(headers or {})})


def _world(c: httpx.Client) -> dict[str, Any]:
    r = c.post("/api/rooms", json={"name": "Alice", "preset": "pagat"})
    assert r.status_code == 201, r.text
    code, token = r.json()["code"], r.json()["token"]
    r = c.post("/api/desk/sheets", json={"pairs": [["Ann", "Abe"], ["Bea", "Bo"]]})
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    r = c.post(f"/api/desk/sheets/{sid}/hands", json={"call": "real_deal"})
    assert r.status_code == 200, r.text
    r = c.post("/api/desk/tournaments", json={"teams": ["Owls: Ann & Abe", "Bats: Bea & Bo"],
                                              "seed": 1})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    mid = r.json()["tournament"]["schedule"][0]["id"]
    return {"code": code, "token": token, "sid": sid, "tid": tid, "mid": mid}


def _state(c: httpx.Client, w: dict[str, Any]) -> list[Any]:
    room = c.get(f"/api/rooms/{w['code']}").json()
    room.pop("now", None)
    sheet = c.get(f"/api/desk/sheets/{w['sid']}").json()
    tournament = c.get(f"/api/desk/tournaments/{w['tid']}").json()
    return [room, sheet["sheet"], tournament["tournament"],
            len(c.get("/api/desk/sheets").json()["sheets"]),
            len(c.get("/api/desk/tournaments").json()["tournaments"])]


PAIRS = [["Ann", "Abe"], ["Bea", "Bo"]]
# Every text field of every body: (what, method, path, body with the text put in).
FIELDS: list[tuple[str, str, str, Callable[[str], Any]]] = [
    ("room name", "POST", "/api/rooms", lambda v: {"name": v}),
    ("room call_word", "POST", "/api/rooms", lambda v: {"name": "A", "options": {"call_word": v}}),
    ("room stop_word", "POST", "/api/rooms", lambda v: {"name": "A", "options": {"stop_word": v}}),
    ("room options name", "POST", "/api/rooms", lambda v: {"name": "A", "options": {"name": v}}),
    ("room text key", "POST", "/api/rooms", lambda v: {"name": "A", v: 1}),
    ("seat name", "POST", "/api/rooms/{code}/seats", lambda v: {"seat": 1, "name": v}),
    ("bot level", "POST", "/api/rooms/{code}/bots", lambda v: {"seat": 1, "level": v}),
    ("rules call_word", "PUT", "/api/rooms/{code}/rules", lambda v: {"options": {"call_word": v}}),
    ("sheet title", "POST", "/api/desk/sheets", lambda v: {"title": v, "pairs": PAIRS}),
    ("sheet player", "POST", "/api/desk/sheets", lambda v: {"pairs": [[v, "Abe"], ["Bea", "Bo"]]}),
    ("sheet pair name", "POST", "/api/desk/sheets",
     lambda v: {"pairs": [["Ann", "Abe"], {"name": v, "players": ["Bea", "Bo"]}]}),
    ("sheet stop_word", "POST", "/api/desk/sheets",
     lambda v: {"pairs": PAIRS, "options": {"stop_word": v}}),
    ("sheet hand note", "POST", "/api/desk/sheets",
     lambda v: {"pairs": PAIRS, "hands": [{"call": "real_deal", "note": v}]}),
    ("import title", "POST", "/api/desk/sheets/import", lambda v: {"title": v, "pairs": PAIRS}),
    ("hand by", "POST", "/api/desk/sheets/{sid}/hands",
     lambda v: {"call": "kemps", "by": v, "right": True}),
    ("hand on", "POST", "/api/desk/sheets/{sid}/hands",
     lambda v: {"call": "stop", "by": "Ann", "on": v, "right": True}),
    ("hand letters_to", "POST", "/api/desk/sheets/{sid}/hands",
     lambda v: {"call": "kemps", "by": "Ann", "right": True, "letters_to": v}),
    ("hand note", "POST", "/api/desk/sheets/{sid}/hands", lambda v: {"call": "real_deal",
                                                                    "note": v}),
    ("edited hand note", "PUT", "/api/desk/sheets/{sid}/hands/1",
     lambda v: {"call": "real_deal", "note": v}),
    ("tournament name", "POST", "/api/desk/tournaments",
     lambda v: {"name": v, "teams": ["A & B", "C & D"]}),
    ("tournament team", "POST", "/api/desk/tournaments", lambda v: {"teams": [v, "C & D"]}),
    ("tournament team name", "POST", "/api/desk/tournaments",
     lambda v: {"teams": ["A & B", {"name": v, "players": ["C", "D"]}]}),
    ("tournament player", "POST", "/api/desk/tournaments",
     lambda v: {"teams": ["A & B", {"players": ["C", v]}]}),
    ("withdraw team", "POST", "/api/desk/tournaments/{tid}/withdraw", lambda v: {"team": v}),
    ("result team key", "POST", "/api/desk/tournaments/{tid}/matches/{mid}/result",
     lambda v: {"letters": {v: 3, "Bats": 1}}),
    ("result loser", "POST", "/api/desk/tournaments/{tid}/matches/{mid}/result",
     lambda v: {"letters": [3, 1], "loser": v}),
]


def test_every_http_text_field_refuses_unclean_text_and_nothing_changes(srv: Running) -> None:
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        w = _world(c)
        auth = {"Authorization": f"Bearer {w['token']}"}
        before = _state(c, w)
        for what, method, path, body in FIELDS:
            for kind, value in BAD.items():
                r = _post(c, method, path.format(**w), body(value), auth)
                assert r.status_code == 422, (what, kind, r.status_code, r.text)
                answer = r.json()
                assert set(answer) == {"code", "message"}, (what, kind, answer)
                assert answer["code"] in ("bad_text", "bad_request"), (what, kind, answer)
                if what not in ("room text key", "bot level"):  # (a level is one of an enum)
                    assert answer["code"] == "bad_text", (what, kind, answer)
                assert value not in answer["message"] and value not in r.text, (what, kind)
        assert _state(c, w) == before
        # The same fields take clean text of any script (the check refuses only what it says).
        r = _post(c, "POST", f"/api/rooms/{w['code']}/seats", {"seat": 1, "name": "Zoë 李"})
        assert r.status_code == 200, r.text
        assert r.json()["room"]["seats"][1]["name"] == "Zoë 李"


def test_refusals_are_one_body_and_405_lists_every_method(srv: Running) -> None:
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        cases = [
            c.post("/api/rooms", content=b"{not json", headers={"Content-Type":
                                                                "application/json"}),
            c.post("/api/rooms", json={"name": "A", "pairs": "two"}),
            c.post("/api/rooms", json=["A"]),
            c.get("/api/rooms/QQQQQ"),
            c.get("/api/no/such/thing"),
            c.post("/api/desk/sheets", json={"pairs": [["A", "A"], ["B", "C"]]}),
            c.get("/api/desk/tournaments/abc"),
        ]
        for r in cases:
            assert 400 <= r.status_code < 500, r.text
            assert set(r.json()) == {"code", "message"}, r.text
            assert r.json()["message"] and r.json()["code"].isidentifier(), r.text
        assert [r.status_code for r in cases] == [422, 422, 422, 404, 404, 422, 404]
        assert cases[0].json()["code"] == "bad_json"
        for method, path, allowed in (("OPTIONS", "/api/desk/sheets", {"GET", "POST"}),
                                      ("GET", "/api/desk/sheets/import", {"POST"}),
                                      ("PATCH", "/api/desk/sheets/1/hands/1", {"PUT", "DELETE"}),
                                      ("GET", "/api/rooms", {"POST"})):
            r = c.request(method, path)
            assert r.status_code == 405, (method, path, r.text)
            assert r.json()["code"] == "method_not_allowed"
            got = {m.strip() for m in r.headers["allow"].split(",")}
            assert got == allowed, (method, path, r.headers["allow"])


# -- WebSocket --------------------------------------------------------------------------------------
async def _frames_and_history(srv: Running, code: str, token: str) -> dict[str, Any]:
    """Alice at a table of bots: unclean chat and oversize frames refused, clean chat said, then a
    Stop Kemps on a hunch ends the one-letter match."""
    seen: dict[str, Any] = {"errors": [], "said": [], "messages": []}
    async with websockets.connect(f"{srv.ws}/ws/{code}?token={token}") as ws:

        async def answer(frame: str) -> dict[str, Any]:
            await ws.send(frame)
            while True:
                m = json.loads(await asyncio.wait_for(ws.recv(), 20))
                seen["messages"].append(m)
                if m["type"] in ("error", "rejected", "ok"):
                    return m

        await ws.send(json.dumps({"type": "ready"}))
        phase = None
        while phase != "play":
            m = json.loads(await asyncio.wait_for(ws.recv(), 20))
            seen["messages"].append(m)
            phase = m.get("view", {}).get("phase", phase)
        for kind, value in BAD.items():
            if kind == "oversize":
                continue
            for frame in ({"type": "action", "id": 5, "action": {"type": "chat", "text": value}},
                          {"type": "action", "action": {"type": "gesture", "gesture": value}},
                          {"type": "ping", value: 1}):
                m = await answer(json.dumps(frame))
                assert m["type"] == "error" and m["code"] == "bad_text", (kind, m)
                assert value not in m["message"]
                seen["errors"].append(m)
        # Frames are counted in bytes: 2,100 two-byte characters are 4,200+ bytes.
        wide = json.dumps({"type": "ping", "pad": "é" * 2100}, ensure_ascii=False)
        assert len(wide) < MAX_MESSAGE_BYTES < len(wide.encode())
        m = await answer(wide)
        assert m["type"] == "error" and m["code"] == "too_large", m
        m = await answer(json.dumps({"type": "action", "id": 6, "action": {
            "type": "chat", "text": "Bonne chance, Zoë 🍀"}}, ensure_ascii=False))
        assert m == {"type": "ok", "id": 6}, m
        seen["said"].append("Bonne chance, Zoë 🍀")
        await ws.send(json.dumps({"type": "action", "id": 7, "action": {
            "type": "call", "kind": "stop", "on_pair": 1}}))
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 20))
            seen["messages"].append(m)
            if any(e["type"] == "call_judged" for e in m.get("events", [])):
                break
    return seen


def test_websocket_refuses_unclean_text_and_chat_cannot_poison_the_history(srv: Running) -> None:
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        r = c.post("/api/rooms", json={"name": "Alice", "preset": "pagat",
                                       "options": {"target": 1}})
        code, token = r.json()["code"], r.json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        assert c.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers=auth).is_success
        assert c.post(f"/api/rooms/{code}/start", headers=auth).is_success
        seen = asyncio.run(_frames_and_history(srv, code, token))
        assert len(seen["errors"]) == 3 * (len(BAD) - 1)
        # Every frame the server sent has the shape /api/protocol.json gives it.
        for m in seen["messages"]:
            SERVER_TYPES[m["type"]].model_validate(m)
        deadline = time.monotonic() + 30
        room: dict[str, Any] = {}
        while time.monotonic() < deadline:
            room = c.get(f"/api/rooms/{code}").json()
            if room["status"] == "finished" and room["last_match_id"]:
                break
            time.sleep(0.1)
        assert room["status"] == "finished", room
        r = c.get(f"/api/history/{room['last_match_id']}")
        assert r.status_code == 200, r.text
        record = r.json()["record"]
        chats = [a["text"] for a in record["actions"] if a.get("type") == "chat"]
        assert chats == seen["said"]
        assert "\\ud8" not in r.text and "\\udc" not in r.text
        assert c.get("/api/history").status_code == 200


def test_a_stored_lone_surrogate_is_sent_escaped_not_a_500(tmp_path: Path) -> None:
    """Text stored before the check existed still answers: escaped, valid UTF-8 JSON."""
    from kemps.server.api import SafeJSONResponse

    body = SafeJSONResponse({"name": "Al\ud800ce", "ok": "é"}).body
    assert json.loads(body.decode("utf-8")) == {"name": "Al\ud800ce", "ok": "é"}
    assert SafeJSONResponse({"ok": "é"}).body == '{"ok":"é"}'.encode()


def test_kemps_serve_reads_no_frame_over_its_bound(tmp_path: Path) -> None:
    """The real command: a frame a little over the limit is answered ``too_large`` and the
    connection lives; one over 64 KiB is not read at all (told ``too_large``, then closed with 1009;
    the server lives)."""
    from kemps.server.protocol import MAX_FRAME_BYTES
    from serving import server_process

    async def answer(ws: Any) -> dict[str, Any]:
        while True:  # skip the room broadcasts (a spectator came or went)
            m: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if m["type"] != "room":
                return m

    async def talk(url: str) -> tuple[dict[str, Any], dict[str, Any], int | None]:
        async with websockets.connect(url, max_size=2**22) as ws:
            json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "ping", "pad": "x" * (MAX_MESSAGE_BYTES + 10)}))
            over = await answer(ws)
            await ws.send(json.dumps({"type": "ping", "id": 1}))
            pong = await answer(ws)
        async with websockets.connect(url, max_size=2**22) as ws:
            json.loads(await ws.recv())
            await ws.send("x" * (MAX_FRAME_BYTES + 1))
            told: list[dict[str, Any]] = []
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:  # room broadcasts may come first; the frame is never read, only told
                    m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if m["type"] != "room":
                        told.append(m)
        # docs/protocol.md: a frame over 64 KiB is told `error` `too_large`, then closed 1009
        assert [(m["type"], m["code"]) for m in told] == [("error", "too_large")], told
        return over, pong, closed.value.rcvd.code if closed.value.rcvd else None

    with server_process(sqlite_url(tmp_path)) as srv:
        code = httpx.post(srv.url + "/api/rooms", json={"name": "Alice"}).json()["code"]
        over, pong, closed = asyncio.run(talk(f"{srv.ws}/ws/{code}"))
        assert httpx.get(f"{srv.url}/api/rooms/{code}").status_code == 200
    assert over["type"] == "error" and over["code"] == "too_large"
    assert pong["type"] == "pong" and pong["id"] == 1
    assert closed == 1009
