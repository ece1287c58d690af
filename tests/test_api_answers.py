"""The HTTP API answers exactly as its schema and docs say (issue 31), case by case, against a real
server (``tests/serving.py``, SQLite).

Each case the outside fuzzer found has a test here: a body that is not UTF-8 or gives a key twice
is 422; something the address names that does not exist is 404; a request the state of a sheet,
match or room refuses is 409; a well-formed request the rules or the desk refuse is 400, and every
such 400 is declared on its route in ``/openapi.json`` with its code and what JSON Schema cannot
say. The whole-API run (Schemathesis, every check) is ``tests/test_api_schema.py``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from kemps.errors import RecordError, ScoreError
from kemps.json_input import JSONInputError, parse_json
from kemps.record import MatchRecord
from kemps.scorekeeper import from_json
from kemps.server.api import ROUTES, WHY_400
from kemps.tournament import store
from serving import Running, server_thread, sqlite_url

PAIRS = [["Ann", "Abe"], ["Bea", "Bo"]]
TEAMS = ["Owls: Ann & Abe", "Bats: Bea & Bo"]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with server_thread(sqlite_url(tmp_path_factory.mktemp("api")), room_burst=50) as s:
        yield s


@pytest.fixture(scope="module")
def schema(srv: Running) -> dict[str, Any]:
    return dict(httpx.get(srv.url + "/openapi.json", timeout=10).json())


def _operation(schema: dict[str, Any], operation_id: str) -> dict[str, Any]:
    for ops in schema["paths"].values():
        for op in ops.values():
            if op.get("operationId") == operation_id:
                return dict(op)
    raise AssertionError(f"no operation {operation_id}")


def _documented(schema: dict[str, Any], operation_id: str, status: int) -> list[str]:
    """The codes ``operation_id`` declares for ``status`` (its error body's ``code`` enum)."""
    response = _operation(schema, operation_id)["responses"].get(str(status))
    assert response is not None, (operation_id, status, "not declared")
    codes = response["content"]["application/json"]["schema"]["properties"]["code"]["enum"]
    return list(codes)


def _refused(r: httpx.Response, status: int, code: str, schema: dict[str, Any] | None = None,
             operation_id: str = "") -> str:
    """``r`` is the refusal ``status``/``code`` (and, given the schema, one its route declares)."""
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"code", "message"} and body["code"] == code, body
    assert body["message"], body
    if schema is not None:
        assert code in _documented(schema, operation_id, status), (operation_id, status, code)
    return str(body["message"])


def _sheet(c: httpx.Client, **extra: Any) -> int:
    r = c.post("/api/desk/sheets", json={"pairs": PAIRS, **extra})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _tournament(c: httpx.Client) -> tuple[int, str]:
    r = c.post("/api/desk/tournaments", json={"teams": TEAMS, "seed": 1})
    assert r.status_code == 201, r.text
    return int(r.json()["id"]), str(r.json()["tournament"]["schedule"][0]["id"])


def _room(c: httpx.Client, **body: Any) -> tuple[str, str]:
    r = c.post("/api/rooms", json={"name": "Ann", **body})
    assert r.status_code == 201, r.text
    return str(r.json()["code"]), str(r.json()["token"])


# -- bodies that cannot be read: 422 -----------------------------------------------------------
def test_a_body_that_is_not_utf8_is_422_bad_json_on_every_route(srv: Running,
                                                                  schema: dict[str, Any]) -> None:
    """The fuzzer's ``/reveal`` case: bytes that are not UTF-8 were a bare, undocumented 400
    while a UTF-8 body that is not JSON was 422 (docs/protocol.md says 422 ``bad_json``)."""
    latin1 = '{"name": "Zoë"}'.encode("latin-1")
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        code, token = _room(c)
        sid = _sheet(c)
        json_type = {"Content-Type": "application/json"}
        for method, path, operation_id in (
                ("POST", f"/api/rooms/{code}/reveal", "reveal"),
                ("POST", "/api/rooms", "create_room"),
                ("POST", f"/api/rooms/{code}/seats", "take_seat"),
                ("POST", f"/api/desk/sheets/{sid}/hands", "record_hand"),
                ("PUT", f"/api/desk/sheets/{sid}/hands/1", "edit_hand")):
            for raw in (latin1, b"%e\xff\xfe", b'{"name": "Zo\xc3"}'):
                r = c.request(method, path, content=raw, headers={
                    **json_type, "Authorization": f"Bearer {token}"})
                msg = _refused(r, 422, "bad_json", schema, operation_id)
                assert "UTF-8" in msg
            # UTF-8 that is not JSON, and JSON nested past the parser: the same status and code
            r = c.request(method, path, content=b"{not json", headers=json_type)
            _refused(r, 422, "bad_json", schema, operation_id)
            r = c.request(method, path, content=b"[" * 100_000, headers=json_type)
            _refused(r, 422, "bad_json", schema, operation_id)
        # nothing was made or changed
        assert c.get(f"/api/rooms/{code}").json()["seats"][1]["kind"] == "open"
        assert c.get(f"/api/desk/sheets/{sid}").json()["history"] == []


def test_a_key_given_twice_is_refused_wherever_a_person_sends_json(
        srv: Running, schema: dict[str, Any], tmp_path: Path) -> None:
    """JSON keeps the last of two equal keys: a scoresheet with ``"hands"`` twice was accepted
    and scored nothing. The API, the WebSocket, scoresheets, records and tournament files refuse
    it with a clear sentence naming the key."""
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        sheets_before = len(c.get("/api/desk/sheets").json()["sheets"])
        twice = ('{"pairs": [["Ann", "Abe"], ["Bea", "Bo"]], "hands": [{"call": "kemps", '
                 '"by": "Ann", "right": false}], "hands": []}')
        for path, operation_id in (("/api/desk/sheets", "create_sheet"),
                                   ("/api/desk/sheets/import", "import_sheet")):
            r = c.post(path, content=twice, headers={"Content-Type": "application/json"})
            msg = _refused(r, 422, "duplicate_key", schema, operation_id)
            assert "'hands'" in msg and "twice" in msg
        assert len(c.get("/api/desk/sheets").json()["sheets"]) == sheets_before
        # nested, and in a room's body: the same
        r = c.post("/api/rooms", content='{"name": "Ann", "options": {"word": "KENT", '
                   '"word": "KEMPS"}}', headers={"Content-Type": "application/json"})
        assert "'word'" in _refused(r, 422, "duplicate_key", schema, "create_room")
        # a key that is not a plain identifier is not repeated back
        r = c.post("/api/rooms", content='{"<b>x</b>": 1, "<b>x</b>": 2}',
                   headers={"Content-Type": "application/json"})
        assert "<b>" not in _refused(r, 422, "duplicate_key", schema, "create_room")
        code, token = _room(c)

    async def frame() -> dict[str, Any]:
        async with websockets.connect(f"{srv.ws}/ws/{code}?token={token}") as ws:
            await ws.send('{"type": "ping", "id": 1, "id": 2}')
            while True:
                m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if m["type"] == "error":
                    return dict(m)

    err = asyncio.run(frame())
    assert err["code"] == "duplicate_key" and "'id'" in err["message"]

    # files a person writes: a scoresheet, a match record, a tournament file
    with pytest.raises(ScoreError) as sheet:
        from_json(twice)
    assert sheet.value.code == "bad_sheet" and "'hands'" in sheet.value.message
    with pytest.raises(RecordError) as record:
        MatchRecord.from_json('{"format": "kemps-match", "names": [], "names": ["A"]}')
    assert record.value.code == "bad_record" and "'names'" in record.value.message
    tournament = tmp_path / "event.json"
    tournament.write_text('{"format": "kemps-tournament", "teams": [], "teams": []}',
                          encoding="utf-8")
    with pytest.raises(ScoreError) as event:
        store.load(tournament)
    assert event.value.code == "bad_file" and "'teams'" in event.value.message


def test_parse_json_reads_utf8_json_once_per_key() -> None:
    assert parse_json(b'{"a": [1, {"b": null}], "c": "\\u00e9"}') == {"a": [1, {"b": None}],
                                                                       "c": "é"}
    assert parse_json('{"a": {"x": 1}, "b": {"x": 2}}') == {"a": {"x": 1}, "b": {"x": 2}}
    for raw, code in ((b"\xef\xbb\xbf{}", "bad_json"), ('{"a": 1, "a": 1}', "duplicate_key"),
                      ("[" * 100_000, "bad_json"), ("", "bad_json"),
                      ('{"a": 1}'.encode("utf-16"), "bad_json")):
        with pytest.raises(JSONInputError) as err:
            parse_json(raw)
        assert err.value.code == code, raw[:20]


# -- something the address names that does not exist: 404 ---------------------------------------
def test_a_match_a_hand_or_a_seat_named_in_the_address_and_missing_is_404(
        srv: Running, schema: dict[str, Any]) -> None:
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        tid, _ = _tournament(c)
        for what, operation_id in (("room", "play_online"), ("sheet", "match_sheet")):
            r = c.post(f"/api/desk/tournaments/{tid}/matches/0/{what}")
            _refused(r, 404, "no_such_match", schema, operation_id)
        r = c.post(f"/api/desk/tournaments/{tid}/matches/0/result", json={"letters": [3, 1]})
        _refused(r, 404, "no_such_match", schema, "record_result")
        sid = _sheet(c)
        r = c.put(f"/api/desk/sheets/{sid}/hands/1999", json={"call": "real_deal"})
        _refused(r, 404, "no_such_hand", schema, "edit_hand")
        _refused(c.delete(f"/api/desk/sheets/{sid}/hands/1999"), 404, "no_such_hand", schema,
                 "delete_hand")
        code, token = _room(c)
        r = c.delete(f"/api/rooms/{code}/seats/12", headers={"Authorization": f"Bearer {token}"})
        _refused(r, 404, "no_such_seat", schema, "clear_seat")
        # ids past what is stored are refused by their range, not looked up
        _refused(c.get("/api/desk/sheets/0"), 422, "bad_request", schema, "get_sheet")
        _refused(c.get(f"/api/desk/sheets/{2**62}"), 422, "bad_request", schema, "get_sheet")


# -- what the state refuses: 409 ---------------------------------------------------------------
def test_what_a_sheet_or_a_room_is_not_in_a_state_for_is_409(srv: Running,
                                                             schema: dict[str, Any]) -> None:
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        sid = _sheet(c)
        _refused(c.post(f"/api/desk/sheets/{sid}/undo"), 409, "nothing_to_undo", schema,
                 "undo_hand")
        # seat 12 at a four-seat table: this room has seats 0 to 3 (its host may add pairs)
        code, token = _room(c)
        r = c.post(f"/api/rooms/{code}/seats", json={"seat": 12, "name": "Cy"})
        assert "0 to 3" in _refused(r, 409, "no_such_seat", schema, "take_seat")
        r = c.post(f"/api/rooms/{code}/bots", json={"seat": 12},
                   headers={"Authorization": f"Bearer {token}"})
        _refused(r, 409, "no_such_seat", schema, "add_bot")
        assert all(s["kind"] != "bot" for s in c.get(f"/api/rooms/{code}").json()["seats"])
        # with seven pairs the seat is there
        assert c.put(f"/api/rooms/{code}/rules", json={"pairs": 7},
                     headers={"Authorization": f"Bearer {token}"}).status_code == 200
        assert c.post(f"/api/rooms/{code}/seats", json={"seat": 12, "name": "Cy"}
                      ).status_code == 200


# -- well formed, refused by the rules or the desk: 400, declared with what JSON Schema cannot say
def test_schema_valid_requests_the_rules_or_the_desk_refuse_are_declared_400s(
        srv: Running, schema: dict[str, Any]) -> None:
    """The fuzzer's 400s for schema-valid bodies, each now declared on its route with its code
    and a sentence saying which cross-field or cross-resource check it is."""
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        # call_word equal to stop_word (case aside): JSON Schema cannot compare two fields
        same = {"options": {"call_word": "Kent", "stop_word": "kent"}}
        r = c.post("/api/rooms", json={"name": "Ann", **same})
        assert "stop_word" in _refused(r, 400, "bad_option", schema, "create_room")
        code, token = _room(c)
        r = c.put(f"/api/rooms/{code}/rules", json=same,
                  headers={"Authorization": f"Bearer {token}"})
        _refused(r, 400, "bad_option", schema, "set_rules")
        # the same player twice in another spelling, in a sheet and a sheet import
        for path, operation_id in (("/api/desk/sheets", "create_sheet"),
                                   ("/api/desk/sheets/import", "import_sheet")):
            r = c.post(path, json={"pairs": [["Ann", "Abe"], ["ANN ", "Bo"]]})
            assert "different name" in _refused(r, 400, "bad_sheet", schema, operation_id)
        # two teams of one name in a tournament
        r = c.post("/api/desk/tournaments", json={"teams": ["Owls: Ann & Abe", "owls: Bea & Bo"]})
        _refused(r, 400, "bad_team", schema, "create_tournament")
        # letters_to "0": a name (a player may be called 0), and nobody here is
        sid = _sheet(c)
        r = c.post(f"/api/desk/sheets/{sid}/hands",
                   json={"call": "kemps", "by": "Ann", "right": True, "letters_to": "0"})
        _refused(r, 400, "unknown_player", schema, "record_hand")
        # an unknown team; a result from a scoresheet that does not exist
        tid, mid = _tournament(c)
        r = c.post(f"/api/desk/tournaments/{tid}/withdraw", json={"team": "Zebras"})
        _refused(r, 400, "unknown_team", schema, "withdraw")
        r = c.post(f"/api/desk/tournaments/{tid}/matches/{mid}/result", json={"sheet": 999_999})
        _refused(r, 400, "no_such_sheet", schema, "record_result")
        assert c.get(f"/api/desk/tournaments/{tid}").json()["tournament"]["log"] == []


def test_what_json_schema_can_say_is_in_the_schema_and_refused_422(
        srv: Running, schema: dict[str, Any]) -> None:
    """A body the schema forbids is 422 (the schema says so), never a 400 the schema hid: a
    pair of one player twice, a team listed twice, a hand with fields its call does not take, a
    blank name, a preset or bot level outside its enum, a bot request asking for nothing."""
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        code, token = _room(c)
        auth = {"Authorization": f"Bearer {token}"}
        sid = _sheet(c)
        tid, mid = _tournament(c)
        for method, path, body, operation_id in (
                ("POST", "/api/desk/sheets", {"pairs": [["Al", "Al"], ["Bea", "Bo"]]},
                 "create_sheet"),
                ("POST", "/api/desk/sheets", {"pairs": [PAIRS[0], PAIRS[0]]}, "create_sheet"),
                ("POST", "/api/desk/tournaments", {"teams": [TEAMS[0], TEAMS[0]]},
                 "create_tournament"),
                ("POST", f"/api/desk/sheets/{sid}/hands", {"call": "real_deal", "by": "Ann"},
                 "record_hand"),
                ("POST", f"/api/desk/sheets/{sid}/hands", {"call": "kemps", "by": "Ann"},
                 "record_hand"),
                ("POST", f"/api/desk/sheets/{sid}/hands", {"call": "table_talk"}, "record_hand"),
                ("POST", f"/api/rooms/{code}/seats", {"seat": 1, "name": "   "}, "take_seat"),
                ("POST", "/api/rooms", {"name": "Ann", "preset": "Pagat"}, "create_room"),
                ("POST", "/api/rooms", {"name": "Ann", "options": {"idle_sweep_s": 0.5}},
                 "create_room"),
                ("POST", f"/api/rooms/{code}/bots", {"level": "club"}, "add_bot"),
                ("POST", f"/api/rooms/{code}/bots", {"seat": 1, "level": "grandmaster"},
                 "add_bot"),
                # true is not 1 in JSON Schema (it was to pydantic's Literal[1, 2]: Python's
                # True == 1), nor false 0
                ("POST", "/api/rooms", {"name": "Ann", "options": {"decks": True}},
                 "create_room"),
                ("POST", "/api/desk/sheets", {"version": True, "pairs": PAIRS}, "create_sheet"),
                ("POST", f"/api/desk/tournaments/{tid}/matches/{mid}/result",
                 {"letters": [3, 1], "loser": False}, "record_result")):
            r = c.request(method, path, json=body, headers=auth)
            assert r.status_code == 422, (body, r.text)
            assert r.json()["code"] in _documented(schema, operation_id, 422), r.text
        assert c.get(f"/api/desk/tournaments/{tid}").json()["tournament"]["log"] == []
        # and the schema says each of them
        parts = json.dumps(schema["components"]["schemas"])
        assert '"uniqueItems": true' in parts
        bots = schema["components"]["schemas"]["BotBody"]
        assert [sorted(x["required"]) for x in bots["anyOf"]] == [["seat"], ["fill"], ["speed"]]
        hand = _operation(schema, "record_hand")["requestBody"]["content"]["application/json"]
        assert set(hand["schema"]["discriminator"]["mapping"]) == {
            "kemps", "stop", "double", "double_stop", "real_deal", "table_talk"}


def test_every_route_declares_its_refusals_and_each_400_says_what_json_schema_cannot(
        schema: dict[str, Any]) -> None:
    operations = {op["operationId"]: op for ops in schema["paths"].values()
                  for op in ops.values()}
    assert set(operations) == set(ROUTES)
    for name, op in operations.items():
        declared = {int(s) for s, r in op["responses"].items()  # refusals: the error body
                    if "enum" in json.dumps(r.get("content", {}).get("application/json", {})
                                            .get("schema", {}).get("properties", {})
                                            .get("code", {}))}
        assert declared == set(ROUTES[name]), name
        if 400 in declared:
            why = op["responses"]["400"]["description"]
            assert name in WHY_400 and WHY_400[name] in why, name
        for status in declared:
            codes = _documented(schema, name, status)
            assert codes and len(codes) == len(set(codes)), (name, status)
    # one status per code on a route: the table decides the status (kemps.server.api.status_for)
    for name, by_status in ROUTES.items():
        codes = [c for cs in by_status.values() for c in cs]
        assert len(codes) == len(set(codes)), name


# -- how many seats one client takes -------------------------------------------------------------
def test_one_token_one_seat_and_a_bound_on_seats_per_address(tmp_path: Path) -> None:
    """A person takes one seat: a request carrying a seat's token is refused ``already_seated``
    (409); one client address holds at most ``seats_per_address`` seats of a table (429
    ``too_many_seats``; 4 by default, here 2); a seat given up frees its place."""
    with server_thread(sqlite_url(tmp_path), seats_per_address=2) as srv, \
            httpx.Client(base_url=srv.url, timeout=20) as c:
        schema = c.get("/openapi.json").json()
        code, host = _room(c)
        r = c.post(f"/api/rooms/{code}/seats", json={"seat": 1, "name": "Ann again"},
                   headers={"Authorization": f"Bearer {host}"})
        _refused(r, 409, "already_seated", schema, "take_seat")
        second = c.post(f"/api/rooms/{code}/seats", json={"seat": 2, "name": "Cy"})
        assert second.status_code == 200, second.text
        r = c.post(f"/api/rooms/{code}/seats", json={"seat": 3, "name": "Dee"})
        assert "2 seats" in _refused(r, 429, "too_many_seats", schema, "take_seat")
        seats = c.get(f"/api/rooms/{code}").json()["seats"]
        assert [s["kind"] for s in seats] == ["human", "open", "human", "open"]
        # Cy leaves: the address may take a seat again; bots are not counted
        cy = {"Authorization": f"Bearer {second.json()['token']}"}
        assert c.delete(f"/api/rooms/{code}/seats/2", headers=cy).status_code == 200
        assert c.post(f"/api/rooms/{code}/seats", json={"seat": 3, "name": "Dee"}
                      ).status_code == 200
        assert c.post(f"/api/rooms/{code}/bots", json={"fill": True},
                      headers={"Authorization": f"Bearer {host}"}).status_code == 200
        # another table is another count
        other, _ = _room(c)
        assert c.post(f"/api/rooms/{other}/seats", json={"seat": 1, "name": "Eve"}
                      ).status_code == 200
        assert c.post(f"/api/rooms/{other}/seats", json={"seat": 2, "name": "Flo"}
                      ).status_code == 429
