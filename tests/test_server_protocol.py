"""The table server over real sockets: lobby API, WebSocket protocol, arbitration, security.

Every test runs a real uvicorn server on a loopback port (tests/serving.py) and talks to it with
real HTTP (httpx) and WebSocket (websockets) clients.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from kemps.cards import new_pack
from kemps.views import told_version
from serving import Running, server_thread, sqlite_url

NAMES = ["Alice", "Ben", "Cara", "Dev"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Running]:
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.2, huddle_s=0.5,
                       rate_per_s=100000.0, rate_burst=100000.0) as running:
        yield running


def seat_everyone(server: Running, preset: str = "pagat", options: dict[str, Any] | None = None,
                  pairs: int = 2) -> tuple[str, list[str]]:
    """A room with a person in every seat (all driven by the test); returns code and tokens."""
    with httpx.Client(base_url=server.url) as c:
        r = c.post("/api/rooms", json={"name": NAMES[0], "preset": preset, "pairs": pairs,
                                       "options": options or {}})
        assert r.status_code == 201, r.text
        code, tokens = r.json()["code"], [r.json()["token"]]
        for seat in range(1, 2 * pairs):
            r = c.post(f"/api/rooms/{code}/seats", json={"seat": seat, "name": f"P{seat}"})
            assert r.status_code == 200, r.text
            tokens.append(r.json()["token"])
    return code, tokens


def start(server: Running, code: str, token: str) -> None:
    r = httpx.post(f"{server.url}/api/rooms/{code}/start",
                   headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text


class Client:
    """One WebSocket client that keeps every message it receives."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def next(self, timeout: float = 10.0) -> dict[str, Any]:
        m = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.messages.append(m)
        if "view" in m:
            self.view = m["view"]
        return m

    async def until(self, pred: Any, timeout: float = 15.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            m = await self.next(max(0.01, end - loop.time()))
            if pred(m):
                return m

    async def until_phase(self, phase: str) -> dict[str, Any]:
        if self.view is not None and self.view["phase"] == phase:
            return self.view
        await self.until(lambda m: m.get("view", {}).get("phase") == phase)
        assert self.view is not None
        return self.view


async def connect(server: Running, code: str, token: str | None = None) -> Client:
    url = f"{server.ws}/ws/{code}" + (f"?token={token}" if token else "")
    client = Client(await websockets.connect(url, max_size=2**22))
    first = await client.next()
    assert first["type"] == "state"
    return client


async def play_ready(server: Running, preset: str = "pagat", options: dict[str, Any] | None = None
                     ) -> tuple[str, list[str], list[Client]]:
    """Everyone seated and connected, match started, first hand dealt and in play."""
    code, tokens = seat_everyone(server, preset, options)
    clients = [await connect(server, code, t) for t in tokens]
    start(server, code, tokens[0])
    for c in clients:
        await c.send({"type": "ready"})
    for c in clients:
        await c.until_phase("play")
    return code, tokens, clients


def test_lobby_api_and_errors(server: Running) -> None:
    with httpx.Client(base_url=server.url) as c:
        presets = c.get("/api/presets").json()
        assert "kent" in presets["presets"] and "touch_ear" in presets["gestures"]
        r = c.post("/api/rooms", json={"name": "Alice", "preset": "kent", "pairs": 3})
        code, token = r.json()["code"], r.json()["token"]
        room = c.get(f"/api/rooms/{code}").json()
        assert room["rules"]["word"] == "KENT" and len(room["seats"]) == 6
        assert "token" not in json.dumps(room) and "token_hash" not in json.dumps(room)
        # the shareable code is case-insensitive
        assert c.get(f"/api/rooms/{code.lower()}").status_code == 200
        assert c.get("/api/rooms/NOPE9").json()["code"] == "no_such_room"
        taken = c.post(f"/api/rooms/{code}/seats", json={"seat": 0, "name": "Eve"})
        assert taken.status_code == 409 and taken.json()["code"] == "seat_taken"
        bad = c.post("/api/rooms", json={"name": "X", "preset": "poker"})  # not in the enum
        assert bad.status_code == 422 and bad.json()["code"] == "bad_request"
        worse = c.post("/api/rooms", json={"name": "X", "options": {"decks": 7}})
        assert worse.status_code == 422 and "decks" in worse.json()["message"]
        # only the host adds bots and starts
        r2 = c.post(f"/api/rooms/{code}/seats", json={"seat": 1, "name": "Ben"})
        ben = r2.json()["token"]
        no = c.post(f"/api/rooms/{code}/bots", json={"fill": True},
                    headers={"Authorization": f"Bearer {ben}"})
        assert no.status_code == 403 and no.json()["code"] == "not_host"
        early = c.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
        assert early.status_code == 409 and early.json()["code"] == "seats_open"
        ok = c.post(f"/api/rooms/{code}/bots", json={"fill": True},
                    headers={"Authorization": f"Bearer {token}"})
        assert [s["kind"] for s in ok.json()["seats"]] == ["human", "human"] + ["bot"] * 4
        started = c.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
        assert started.json()["status"] == "playing"
        late = c.post(f"/api/rooms/{code}/seats", json={"seat": 2, "name": "Cara"})
        assert late.status_code == 409


def test_two_clients_race_for_one_card_and_exactly_one_gets_it(server: Running) -> None:
    async def run() -> None:
        _, _, clients = await play_ready(server)
        a, b = clients[0], clients[1]
        assert a.view is not None and b.view is not None
        card = a.view["middle"][0]
        await asyncio.gather(
            a.send({"type": "action", "id": 1, "action": {"type": "swap", "take": [card],
                                                          "give": [a.view["hand"][0]]}}),
            b.send({"type": "action", "id": 1, "action": {"type": "swap", "take": [card],
                                                          "give": [b.view["hand"][0]]}}))
        answers = [await c.until(lambda m: m.get("id") == 1 and m["type"] in ("ok", "rejected"))
                   for c in (a, b)]
        kinds = sorted(m["type"] for m in answers)
        assert kinds == ["ok", "rejected"]
        loser = next(m for m in answers if m["type"] == "rejected")
        assert loser["code"] == "card_gone"
        winner = a if answers[0]["type"] == "ok" else b
        await winner.until(lambda m: m["type"] == "update" and card in m["view"]["hand"])
        for c in clients:
            await c.ws.close()

    asyncio.run(run())


def malformed_messages(rng: random.Random, n: int, hand: list[str], middle: list[str]
                       ) -> list[str]:
    """``n`` random frames that seat 1 (pair 1, partner 3) must have refused: bad JSON, wrong
    shapes, wrong types, unknown types, oversize, actions that are illegal for it right now."""
    pack = [c.text for c in new_pack(1)]
    others = [c for c in pack if c not in hand and c not in middle]
    makers = [
        lambda: rng.choice(["", "{", "[]", "null", "42", '"x"', "{'a':1}", "\x00\x01", "[1,2"]),
        lambda: json.dumps({"type": rng.choice(["", "move", "DEAL", "chat", None, 7])}),
        lambda: json.dumps({"type": "action"}),
        lambda: json.dumps({"type": "action", "action": rng.choice([[], "swap", 3, None])}),
        lambda: json.dumps({"type": "action", "action": {"type": "deal", "order": pack}}),
        lambda: json.dumps({"type": "action", "action": {"type": "table_talk", "pair": 1}}),
        lambda: json.dumps({"type": "action", "action": {"type": "swap",
                                                         "take": [rng.choice(others)],
                                                         "give": [rng.choice(hand)]}}),
        lambda: json.dumps({"type": "action", "action": {"type": "swap",
                                                         "take": [rng.choice(middle)],
                                                         "give": [rng.choice(others)]}}),
        lambda: json.dumps({"type": "action", "action": {"type": "swap", "take": ["ZZ"],
                                                         "give": ["7H"]}}),
        lambda: json.dumps({"type": "action", "action": {"type": "gesture",
                                                         "gesture": rng.choice(["cough", "moon",
                                                                                "", "x" * 50])}}),
        lambda: json.dumps({"type": "action", "action": {"type": "call", "kind": "kemps",
                                                         "on_seat": rng.choice([0, 2, 9, -1])}}),
        lambda: json.dumps({"type": "action", "action": {"type": "call", "kind": "stop",
                                                         "on_pair": rng.choice([1, 5])}}),
        lambda: json.dumps({"type": "action", "action": {"type": "agree_signals",
                                                         "signals": ["wink"]}}),
        lambda: json.dumps({"type": "action", "action": {"type": "object"}}),
        lambda: json.dumps({"type": "action", "action": {"type": "go"}}),
        lambda: json.dumps({"type": "ready"}),
        lambda: json.dumps({"type": "ping", "id": "x"}),
        lambda: json.dumps({"type": "sync", "extra": 1}),
        lambda: json.dumps({"type": "table_talk", "pair": 9}),
        lambda: json.dumps({"type": "action", "action": {"type": "swap", "take": [],
                                                         "give": []}, "id": -5}),
        lambda: json.dumps({"type": "action", "action": {"type": "chat", "text": "x" * 5000}}),
        lambda: "x" * 5000,
    ]
    return [rng.choice(makers)() for _ in range(n)]


def test_ten_thousand_malformed_messages_are_each_answered_and_change_nothing(
        server: Running) -> None:
    async def run() -> None:
        _, _, clients = await play_ready(server, options={"idle_sweep_s": 0.0})
        me = clients[1]  # not the dealer-only seat; seat 1
        assert me.view is not None
        before = dict(me.view)
        frames = malformed_messages(random.Random(1), 10_000, me.view["hand"],
                                    [c for c in me.view["middle"] if c])
        answers = 0
        for start_at in range(0, len(frames), 200):  # in bursts of 200, reading every answer
            batch = frames[start_at:start_at + 200]
            for frame in batch:
                await me.ws.send(frame)
            got = 0
            while got < len(batch):
                m = await me.next(timeout=30)
                assert m["type"] not in ("ok", "update"), m
                if m["type"] in ("error", "rejected"):
                    got += 1
            answers += got
        assert answers == 10_000
        await me.send({"type": "sync"})
        state = await me.until(lambda m: m["type"] == "state")
        assert state["view"]["version"] == before["version"]
        assert state["view"]["hand"] == before["hand"]
        assert state["view"]["middle"] == before["middle"]
        assert state["view"]["scores"] == before["scores"]
        # the connection and the table live on: a legal action still works
        await me.send({"type": "action", "id": 99, "action": {"type": "gesture",
                                                              "gesture": "nod"}})
        await me.until(lambda m: m.get("id") == 99 and m["type"] == "ok")
        for c in clients:
            await c.ws.close()

    asyncio.run(run())


def test_flooding_is_answered_and_the_connection_lives(tmp_path: Path) -> None:
    with server_thread(sqlite_url(tmp_path), rate_per_s=5.0, rate_burst=5.0) as srv:
        async def run() -> None:
            code, tokens = seat_everyone(srv)
            me = await connect(srv, code, tokens[0])
            for i in range(30):
                await me.send({"type": "ping", "id": i})
            got = [await me.next() for _ in range(30)]
            kinds = [m["type"] for m in got if m["type"] in ("pong", "error")]
            assert kinds.count("pong") >= 5 and any(
                m.get("code") == "flooding" for m in got)
            await asyncio.sleep(1.0)
            await me.send({"type": "ping", "id": 999})
            await me.until(lambda m: m.get("id") == 999 and m["type"] == "pong")
            await me.ws.close()

        asyncio.run(run())


def test_tokens_seats_spectators_and_reconnect(server: Running) -> None:
    async def run() -> None:
        code, tokens, clients = await play_ready(server)
        first_hand = clients[2].view["hand"] if clients[2].view else None
        # a spectator sees no hand and cannot act
        spectator = await connect(server, code)
        await spectator.send({"type": "sync"})
        st = await spectator.until(lambda m: m["type"] == "state")
        assert st["seat"] is None and st["view"]["hand"] == []
        await spectator.send({"type": "action", "action": {"type": "gesture", "gesture": "nod"}})
        err = await spectator.until(lambda m: m["type"] == "error")
        assert err["code"] == "not_seated"
        # a wrong token is a spectator too, and says so
        stranger = Client(await websockets.connect(f"{server.ws}/ws/{code}?token=forged"))
        warn = await stranger.next()
        assert warn["type"] == "error" and warn["code"] == "not_seated"
        # a seat cannot act for another seat: the seat comes from the token, and an action
        # that names one is refused like any field an action does not have (issue 26)
        await clients[0].send({"type": "action", "id": 5, "action": {
            "type": "gesture", "gesture": "nod", "seat": 3}})
        refused = await clients[0].until(lambda m: m.get("id") == 5)
        assert (refused["type"], refused["code"]) == ("rejected", "bad_action")
        await clients[0].send({"type": "action", "id": 6, "action": {
            "type": "gesture", "gesture": "nod"}})
        # (an online table follows where players look, so seat 3, looking at its own cards, is
        # told only that seat 0 moved)
        made = ("gestured", "moved")
        upd = await clients[3].until(lambda m: m["type"] == "update" and any(
            e["type"] in made for e in m["events"]))
        assert [e["seat"] for e in upd["events"] if e["type"] in made] == [0]
        # drop and come back with the token: same seat, full current view
        await clients[2].ws.close()
        again = await connect(server, code, tokens[2])
        assert again.messages[0]["seat"] == 2
        assert again.messages[0]["view"]["hand"] == first_hand or again.messages[0]["view"][
            "version"] > 0
        for c in (*clients, spectator, stranger, again):
            await c.ws.close()

    asyncio.run(run())


CARD = __import__("re").compile(r'"([2-9TJQKA][CDHS](?:\.2)?)"')


def _snapshots(db_file: Path, code: str, match_no: int) -> dict[int, dict[int, dict[str, Any]]]:
    """The server's own truth, version by version: replay the room's stored entries exactly as the
    room applied them (actions and timer ticks) and keep every seat's hand, the stock, what has
    been revealed."""
    import sqlite3

    from kemps.actions import action_from_dict
    from kemps.record import Recorder
    from kemps.rules import RuleSet

    con = sqlite3.connect(db_file)
    rules_json, seats_json, first = con.execute(
        "select rules, seats, first_dealer from rooms where code = ?", (code,)).fetchone()
    rows = con.execute("select t, kind, payload from entries where room_code = ? and match_no = ? "
                       "order by seq", (code, match_no)).fetchall()
    con.close()
    rec = Recorder(RuleSet.from_dict(json.loads(rules_json)),
                   [s["name"] for s in json.loads(seats_json)], first)
    out: dict[int, dict[int, dict[str, Any]]] = {}  # seat -> its view's version -> the truth

    def snap() -> None:
        t = rec.table
        truth = {"hands": [[c.text for c in h] for h in t.hands],
                 "stock": {c.text for c in t.stock},
                 "revealed": {c.text for cards in t.revealed.values() for c in cards}}
        for seat in range(t.n):  # each seat's versions skip other pairs' private huddles
            out.setdefault(seat, {})[told_version(t, seat)] = truth

    snap()
    for t, kind, payload in rows:
        if kind == "tick":
            rec.advance(t)
        else:
            rec.apply(action_from_dict(json.loads(payload)), t)
        snap()
    return out


@pytest.mark.parametrize("preset", ["pagat", "squarescores", "cash", "points-to-five"])
def test_no_message_to_a_seat_holds_a_card_it_may_not_see(tmp_path: Path, preset: str) -> None:
    """Over many random games played by four clients, every message a seat received is checked
    against the server's own state at that version: no stock card, and no card of another hand
    unless the rules revealed it or it moved in public in that very message."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.1, huddle_s=0.3,
                       rate_per_s=100000.0, rate_burst=100000.0) as srv:
        rng = random.Random(7)
        logs: dict[int, list[str]] = {s: [] for s in range(4)}
        code = ""

        async def seat_loop(me: Client, seat: int, stop: asyncio.Event) -> None:
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(me.ws.recv(), 0.02)
                    logs[seat].append(raw)
                    m = json.loads(raw)
                    if "view" in m:
                        me.view = m["view"]
                    if m["type"] == "room" and m["room"]["status"] == "finished":
                        stop.set()
                    continue
                except TimeoutError:
                    pass
                v = me.view
                if v is None:
                    continue
                roll = rng.random()
                if v["phase"] == "huddle":
                    if roll < 0.5:
                        await me.send({"type": "action", "action": {
                            "type": "agree_signals", "signals": [rng.choice(["wink", "nod"])]}})
                    await me.send({"type": "ready"})
                elif v["phase"] == "play":
                    middle = [c for c in v["middle"] if c]
                    if roll < 0.55 and middle and v["hand"]:
                        await me.send({"type": "action", "action": {
                            "type": "swap", "take": [rng.choice(middle)],
                            "give": [rng.choice(v["hand"])]}})
                    elif roll < 0.75:
                        await me.send({"type": "action", "action": {"type": "gesture",
                                                                    "gesture": "wink"}})
                    elif roll < 0.85:
                        await me.send({"type": "action", "action": {"type": "stall"}})
                    elif roll < 0.87:
                        call: dict[str, Any] = {"type": "call", "kind": "kemps"}
                        if roll < 0.86:  # a Stop Kemps on a random opponent
                            target = rng.choice([(seat + 1) % 4, (seat + 3) % 4])
                            call = {"type": "call", "kind": "stop", "on_seat": target}
                        await me.send({"type": "action", "action": call})

        async def run() -> None:
            nonlocal code
            code, tokens = seat_everyone(srv, preset, options={
                "target": 10 if preset == "points-to-five" else 3, "idle_sweep_s": 1.0, "sweep_countdown_s": 0.3,
                "start_countdown_s": 0.3})
            clients = [await connect(srv, code, t) for t in tokens]
            for s, c in enumerate(clients):
                logs[s].extend(json.dumps(m) for m in c.messages)
            start(srv, code, tokens[0])
            stop = asyncio.Event()
            await asyncio.wait_for(asyncio.gather(
                *(seat_loop(c, s, stop) for s, c in enumerate(clients))), 240)
            for c in clients:
                await c.ws.close()

        asyncio.run(run())
        import time as _time

        _time.sleep(0.5)  # let the ordered writer flush the last entries
    truth = _snapshots(tmp_path / "kemps-test.sqlite", code, 1)
    checked = 0
    hands_dealt = 0
    for seat, raws in logs.items():
        for raw in raws:
            m = json.loads(raw)
            view = m.get("view")
            if view is None:
                continue
            state = truth[seat][view["version"]]
            assert view["hand"] == state["hands"][seat]
            public = set()
            for e in m.get("events", []):
                if e["type"] == "hand_dealt":
                    hands_dealt += 1
                    assert [len(h) for i, h in enumerate(e["hands"]) if i != seat] == [0, 0, 0]
                for key in ("took", "gave", "swept", "middle", "returned", "cards"):
                    public |= {c for c in e.get(key) or [] if c}
            others = {c for i, h in enumerate(state["hands"]) if i != seat for c in h}
            for card in CARD.findall(raw):
                assert card not in state["stock"], (seat, card, "stock")
                if card in others:
                    assert card in state["revealed"] or card in public, (seat, card)
            checked += 1
    # Four seats saw at least two deals (random play can end a points match in two hands).
    assert checked > 200 and hands_dealt >= 4 * 2


def test_a_removed_player_keeps_no_seat_and_sees_no_cards(server: Running) -> None:
    """Security review: a socket opened for a seat that is later cleared, re-taken, or removed by
    fewer pairs becomes a spectator at once: it never sees the next occupant's hand and cannot act
    for them."""
    async def run() -> None:
        with httpx.Client(base_url=server.url) as c:
            r = c.post("/api/rooms", json={"name": "Host", "preset": "pagat", "pairs": 3})
            code, host = r.json()["code"], r.json()["token"]
            alice = c.post(f"/api/rooms/{code}/seats", json={"seat": 1, "name": "Alice"}
                           ).json()["token"]
            eve = c.post(f"/api/rooms/{code}/seats", json={"seat": 5, "name": "Eve"}
                         ).json()["token"]
            wa = await connect(server, code, alice)
            we = await connect(server, code, eve)
            assert c.delete(f"/api/rooms/{code}/seats/1", headers=_auth(host)).status_code == 200
            gone = await wa.until(lambda m: m["type"] == "error")
            assert gone["code"] == "not_seated"
            bob = c.post(f"/api/rooms/{code}/seats", json={"seat": 1, "name": "Bob"}
                         ).json()["token"]
            # fewer pairs: seat 5 no longer exists
            ok = c.put(f"/api/rooms/{code}/rules", json={"preset": "pagat", "pairs": 2},
                       headers=_auth(host))
            assert ok.status_code == 200, ok.text
            gone = await we.until(lambda m: m["type"] == "error")
            assert gone["code"] == "not_seated"
            c.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers=_auth(host))
            started = c.post(f"/api/rooms/{code}/start", headers=_auth(host))
            assert started.status_code == 200, started.text
        wb = await connect(server, code, bob)
        await wb.send({"type": "ready"})
        await wa.send({"type": "ready"})
        err = await wa.until(lambda m: m["type"] == "error")
        assert err["code"] == "not_seated"
        view = await wb.until_phase("play")
        bobs_hand = view["hand"]
        # Alice's old socket got the deal as a spectator: no hand at all
        deal = await wa.until(lambda m: m["type"] == "update" and m["view"]["phase"] == "play")
        assert deal["view"]["hand"] == [] and deal["view"]["seat"] is None
        assert not any(card in json.dumps(deal) for card in bobs_hand
                       if card not in deal["view"]["middle"])
        for c2 in (wa, we, wb):
            await c2.ws.close()

    asyncio.run(run())


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_binary_deeply_nested_and_odd_requests_are_answered(server: Running) -> None:
    """Security review: a binary frame and a deeply nested JSON frame are answered with errors
    and the connection lives on; rule options naming the rule set and huge ids do not crash the
    API; a dealer who sweeps every millisecond (a timer storm) is refused."""
    async def run() -> None:
        code, tokens = seat_everyone(server)
        me = await connect(server, code, tokens[0])
        await me.ws.send(b'{"type": "ping"}')
        assert (await me.until(lambda m: m["type"] == "error"))["code"] == "bad_message"
        await me.ws.send('{"type": "ping", "x": ' + "[" * 1000 + "]" * 1000 + "}")
        assert (await me.until(lambda m: m["type"] == "error"))["code"] == "bad_json"
        await me.send({"type": "ping", "id": 5})
        await me.until(lambda m: m["type"] == "pong" and m["id"] == 5)
        await me.ws.close()

    asyncio.run(run())
    with httpx.Client(base_url=server.url) as c:
        named = c.post("/api/rooms", json={"name": "A", "options": {"name": "mine"}})
        assert named.status_code == 201, named.text
        storm = c.post("/api/rooms", json={"name": "A", "options": {"idle_sweep_s": 0.001}})
        assert storm.status_code == 422 and "idle_sweep_s" in storm.json()["message"]
        for path in ("/api/history/", "/api/desk/sheets/", "/api/desk/tournaments/"):
            # past the ids the schema declares (and SQL holds): refused by range, never looked up
            assert c.get(path + str(10**30)).status_code == 422, path
            assert c.get(path + str(2**62 - 1)).status_code == 404, path


def test_the_option_schema_is_served_and_matches_the_rule_set(server: Running) -> None:
    """GET /api/presets serves every rule option's kind, choices or limits, description and seed
    (the page builds its rule form from it) and a note per preset; a room of 12 pairs opens."""
    from kemps.rules import MAX_PAIRS, PRESETS, RuleSet

    with httpx.Client(base_url=server.url) as c:
        data = c.get("/api/presets").json()
        options = data["options"]
        assert set(options) == set(RuleSet().to_dict()) - {"name"}
        assert options["dealer"]["choices"] == ["rotate_left", "fixed", "non_playing"]
        assert options["objection_s"]["kind"] == "seconds" and options["objection_s"]["min"] == 1
        assert options["pairs"]["max"] == MAX_PAIRS == data["max_pairs"]
        assert all(o["description"] and o["seed"] for o in options.values())
        assert set(data["presets"]) == set(PRESETS) and all(
            p["note"] for p in data["presets"].values())
        big = c.post("/api/rooms", json={"name": "Alice", "preset": "pagat", "pairs": 12})
        assert big.status_code == 201 and len(big.json()["room"]["seats"]) == 24
        odd = c.post("/api/rooms", json={"name": "Alice", "preset": "pagat", "pairs": 3,
                                         "options": {"stop_scope": "opposite"}})
        assert odd.status_code == 400 and "stop_scope" in odd.json()["message"]


def test_the_host_acts_for_a_dealer_who_is_not_playing(server: Running) -> None:
    """S2 tournament row 7 ("a dealer who is not playing, to sweep the cards"): online the table
    deals and says Go by itself; the host may say Go and sweep for it (``"as_dealer": true``),
    nobody else may, and the view lists the only Stop targets the rules allow."""
    async def run() -> None:
        code, tokens = seat_everyone(server, "seed2-tournament")
        clients = [await connect(server, code, t) for t in tokens]
        start(server, code, tokens[0])
        for c in clients:
            await c.send({"type": "ready"})
        view = await clients[1].until_phase("dealt")
        assert view["dealer"] is None
        assert view["legal"]["stop"] == [{"on_seat": None, "on_pair": 0}]
        assert not view["legal"]["go"] and not view["legal"]["swap"]  # the dealer says Go
        await clients[1].send({"type": "action", "id": 1, "action": {"type": "go",
                                                                     "as_dealer": True}})
        refused = await clients[1].until(lambda m: m.get("id") == 1)
        assert refused["type"] == "rejected"
        assert refused["code"] == "not_dealer"
        await clients[0].send({"type": "action", "id": 2, "action": {"type": "go",
                                                                     "as_dealer": True}})
        await clients[1].until_phase("play")
        await clients[0].send({"type": "action", "id": 3, "action": {"type": "stall",
                                                                     "as_dealer": True}})
        answer = await clients[0].until(lambda m: m.get("id") == 3)
        assert answer["type"] == "ok", answer
        swept = await clients[2].until(lambda m: any(
            e.get("type") == "swept" for e in m.get("events", [])))
        assert swept["view"]["stock_count"] == 52 - 16 - 8
        for c in clients:
            await c.ws.close()

    asyncio.run(run())
def test_bot_speed_is_a_room_setting_relaxed_with_people(server: Running) -> None:
    with httpx.Client(base_url=server.url) as c:
        assert c.get("/api/presets").json()["bot_speeds"] == ["relaxed", "club", "sharp"]
        r = c.post("/api/rooms", json={"name": "Alice", "preset": "pagat"})
        code, token = r.json()["code"], r.json()["token"]
        assert c.get(f"/api/rooms/{code}").json()["bot_speed"] == "relaxed"  # a person sits
        bad = c.post(f"/api/rooms/{code}/bots", json={"speed": "warp"}, headers=_auth(token))
        assert bad.status_code == 422 and bad.json()["code"] == "bad_request"  # not in the enum
        assert c.get(f"/api/rooms/{code}").json()["bot_speed"] == "relaxed"  # unchanged
        ok = c.post(f"/api/rooms/{code}/bots", json={"speed": "sharp"}, headers=_auth(token))
        assert ok.status_code == 200 and ok.json()["bot_speed"] == "sharp"
        filled = c.post(f"/api/rooms/{code}/bots", json={"fill": True, "level": "club",
                                                         "speed": "club"}, headers=_auth(token))
        assert filled.json()["bot_speed"] == "club"
        assert [s["level"] for s in filled.json()["seats"]][1:] == ["club"] * 3
        started = c.post(f"/api/rooms/{code}/start", headers=_auth(token))
        assert started.json()["status"] == "playing" and started.json()["bot_speed"] == "club"


def test_the_host_starts_a_rematch_and_anyone_may_once_the_host_has_gone(
        server: Running) -> None:
    """Issue 12 item 12: one player's Rematch must not restart the table for everyone while the
    host is there; when the host has left, any seated player may start it."""
    code, tokens = seat_everyone(server)
    start(server, code, tokens[0])

    async def end_then_rematch() -> tuple[int, str, int]:
        host = await connect(server, code, tokens[0])
        await host.send({"type": "table_talk", "pair": 1})  # the host rules: pair 1 loses
        await host.until(lambda m: m.get("type") == "room" and m["room"]["status"] == "finished")
        refused = httpx.post(f"{server.url}/api/rooms/{code}/start",
                             headers={"Authorization": f"Bearer {tokens[1]}"})
        await host.ws.close()
        await asyncio.sleep(0.3)  # the server sees the host gone
        allowed = httpx.post(f"{server.url}/api/rooms/{code}/start",
                             headers={"Authorization": f"Bearer {tokens[1]}"})
        return refused.status_code, refused.json()["code"], allowed.status_code

    status, code_name, later = asyncio.run(end_then_rematch())
    assert (status, code_name) == (403, "not_host")
    assert later == 200
    room = httpx.get(f"{server.url}/api/rooms/{code}").json()
    assert room["status"] == "playing" and room["match_no"] == 2


@pytest.mark.parametrize("raw", [
    '{"type": "action", "id": 7, "action": {"type": "swap", "take": ["7C"], "give": ["2D"]}}',
    '{"type": "action", "action": {"type": "gesture", "gesture": "nod"}}',
    '{"type": "action", "id": null, "action": {}}',
    '{"type": "action", "id": 0, "action": {"type": "call", "kind": "kemps"}}',
    '{"type": "action", "id": 2147483648, "action": {"type": "ready"}}',
    '{"type": "action", "id": 2147483649, "action": {}}',
    '{"type": "action", "id": -1, "action": {}}',
    '{"type": "action", "id": true, "action": {}}',
    '{"type": "action", "id": 1.0, "action": {}}',
    '{"type": "action", "id": "7", "action": {}}',
    '{"type": "action", "id": 1}',
    '{"type": "action", "id": 1, "action": []}',
    '{"type": "action", "id": 1, "action": {}, "extra": 1}',
])
def test_the_fast_action_path_agrees_with_the_model(raw: str) -> None:
    """Issue 15: the common action message skips pydantic; it must accept exactly what the
    model accepts, with the same fields set, and leave everything else to the model's errors."""
    import json as _json

    from pydantic import ValidationError

    from kemps.server.protocol import ActionMessage, ProtocolError, parse_client_message

    data = _json.loads(raw)
    try:
        expected: ActionMessage | None = ActionMessage.model_validate(data)
    except ValidationError:
        expected = None
    if expected is None:
        with pytest.raises(ProtocolError):
            parse_client_message(raw)
    else:
        got = parse_client_message(raw)
        assert got == expected and got.model_fields_set == expected.model_fields_set
        assert got.model_dump() == expected.model_dump()
