"""A camera table's setting and its video set-up relay over real sockets (issue 24).

The server relays WebRTC set-up between the seated people of one room only, each message bounded
and each seat's rate limited apart from its play (kemps.server.signalling): a spectator, a token
of another room and a stranger are refused; an oversized or flooding seat is refused and the room
plays on. Real uvicorn servers (tests/serving.py), real httpx and websockets clients.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from kemps.errors import SettingError
from kemps.server.camera import IceConfig, turn_credential
from kemps.server.protocol import MAX_SIGNAL_BYTES
from kemps.server.settings import Settings
from serving import Running, server_thread, sqlite_url
from test_server_protocol import Client, connect, seat_everyone, start

OFFER = ["v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
         "a=group:BUNDLE 0 1", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0"]


def rtc(to: int, peer: str, kind: str = "offer", **extra: Any) -> dict[str, Any]:
    if kind == "candidate":
        return {"type": "rtc", "to": to, "peer": peer, "kind": kind,
                "candidate": extra.get("candidate", "candidate:1 1 udp 2122260223 10.0.0.2 "
                                       "50000 typ host"), "mid": "0", "mline": 0}
    return {"type": "rtc", "to": to, "peer": peer, "kind": kind, "sdp": extra.get("sdp", OFFER)}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Running]:
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.2, huddle_s=0.5,
                       signal_per_s=20.0, signal_burst=60.0) as running:
        yield running


def camera_room(server: Running, **body: Any) -> tuple[str, list[str]]:
    """A camera table with a person in every seat; its code and the seats' tokens."""
    code, tokens = seat_everyone(server)
    r = httpx.put(f"{server.url}/api/rooms/{code}/rules", json={"preset": "pagat", "camera": True,
                                                                **body},
                  headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 200, r.text
    return code, tokens


async def join(client: Client, video: str = "on", audio: str = "on") -> str:
    """``client`` joins its seat's video; its peer id (from camera_config)."""
    await client.send({"type": "camera", "video": video, "audio": audio})
    config = await client.until(lambda m: m["type"] == "camera_config")
    return str(config["peer"])


async def error(client: Client, code: str) -> dict[str, Any]:
    return await client.until(lambda m: m["type"] == "error" and m["code"] == code)


def test_the_camera_setting_is_made_changed_shown_and_kept(tmp_path: Path) -> None:
    """POST /api/rooms and PUT .../rules take ``camera``; the public state shows it; attention is
    off at a camera table (asking for it is refused); a PUT without it keeps it; a table too
    large for the mesh without an SFU is refused; a restart keeps it."""
    url = sqlite_url(tmp_path)
    with server_thread(url) as srv, httpx.Client(base_url=srv.url) as c:
        r = c.post("/api/rooms", json={"name": "Alice", "camera": True})
        assert r.status_code == 201, r.text
        room, code, token = r.json()["room"], r.json()["code"], r.json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        assert room["camera"] is True and room["camera_route"] == "mesh"
        assert room["rules"]["attention"] is False  # online tables default to it: not here
        plain = c.post("/api/rooms", json={"name": "Ben"}).json()["room"]
        assert plain["camera"] is False and plain["camera_route"] is None
        assert plain["rules"]["attention"] is True
        r = c.post("/api/rooms", json={"name": "Cara", "camera": True,
                                       "options": {"attention": True}})
        assert r.status_code == 400 and r.json()["code"] == "bad_option", r.text
        # a PUT without camera keeps it; with camera false the online default comes back
        r = c.put(f"/api/rooms/{code}/rules", json={"preset": "kent"}, headers=auth)
        assert r.json()["camera"] is True and r.json()["rules"]["attention"] is False
        r = c.put(f"/api/rooms/{code}/rules", json={"preset": "kent", "camera": False},
                  headers=auth)
        assert r.json()["camera"] is False and r.json()["rules"]["attention"] is True
        # ten players are more than the mesh serves, and this server has no SFU
        r = c.put(f"/api/rooms/{code}/rules", json={"preset": "pagat", "pairs": 5,
                                                    "camera": True}, headers=auth)
        assert r.status_code == 400 and r.json()["code"] == "camera_table_too_large", r.text
        assert c.get(f"/api/rooms/{code}").json()["camera"] is False  # nothing changed
        r = c.put(f"/api/rooms/{code}/rules", json={"preset": "pagat", "pairs": 4,
                                                    "camera": True}, headers=auth)
        assert r.status_code == 200 and r.json()["camera"] is True, r.text
        r = c.put(f"/api/rooms/{code}/rules", json={"camera": "yes"}, headers=auth)
        assert r.status_code == 422
    with server_thread(url) as srv:
        room = httpx.get(f"{srv.url}/api/rooms/{code}").json()
        assert room["camera"] is True and len(room["seats"]) == 8


def test_set_up_is_relayed_between_the_seated_people_of_one_room_only(
        server: Running) -> None:
    """Seated people join and relay; a spectator, a token of another room and a stranger are
    refused and never hear anything of the video; a stale peer or a window that did not join is
    refused; a room that is not a camera table refuses it all."""

    async def run() -> None:
        code, tokens = camera_room(server)
        other_code, other_tokens = seat_everyone(server)  # not a camera table
        people = [await connect(server, code, t) for t in tokens]
        stranger = await connect(server, code)  # no token: a spectator
        # another room's token: told it holds no seat here, then watches as a spectator
        foreign = Client(await websockets.connect(f"{server.ws}/ws/{code}?token="
                                                  f"{other_tokens[1]}"))
        assert (await foreign.next())["code"] == "not_seated"
        assert (await foreign.next())["seat"] is None
        # every seated connection learns who is in the video at once (nobody yet)
        for p in people:
            seats = await p.until(lambda m: m["type"] == "camera_seats")
            assert seats["seats"] == []
        peers = [await join(people[0]), await join(people[1], video="refused", audio="absent")]
        assert peers[0] != peers[1]
        for p in people:  # each seat is told the video's seats with their devices
            told = await p.until(lambda m: m["type"] == "camera_seats" and len(m["seats"]) == 2)
            assert told["seats"] == [
                {"seat": 0, "peer": peers[0], "video": "on", "audio": "on"},
                {"seat": 1, "peer": peers[1], "video": "refused", "audio": "absent"}]
        # 0 -> 1: the offer arrives as sent, with who sent it
        await people[0].send(rtc(1, peers[1]))
        got = await people[1].until(lambda m: m["type"] == "rtc")
        assert got == {"type": "rtc", "from": 0, "peer": peers[0], "kind": "offer", "sdp": OFFER}
        await people[1].send(rtc(0, peers[0], "candidate"))
        got = await people[0].until(lambda m: m["type"] == "rtc")
        assert got["from"] == 1 and got["kind"] == "candidate" and got["mline"] == 0
        # the type spelled with an escape is the same message (read the long way round)
        await people[0].send(json.dumps(rtc(1, peers[1], "candidate")).replace('"rtc"',
                                                                              '"\\u0072tc"'))
        got = await people[1].until(lambda m: m["type"] == "rtc" and m["kind"] == "candidate")
        assert got["from"] == 0
        # refusals: a spectator, another room's token, a stale peer, a window that did not join,
        # to itself, a seat not in the video
        for outsider in (stranger, foreign):
            await outsider.send(rtc(0, peers[0]))
            await error(outsider, "not_seated")
            await outsider.send({"type": "camera", "video": "on", "audio": "on"})
            await error(outsider, "not_seated")
        await people[0].send(rtc(1, "0badbeef"))
        await error(people[0], "peer_gone")
        await people[0].send(rtc(2, peers[1]))
        await error(people[0], "peer_gone")
        await people[2].send(rtc(0, peers[0]))
        await error(people[2], "camera_off")
        await people[0].send(rtc(0, peers[0]))
        await error(people[0], "bad_message")
        await people[0].send({**rtc(1, peers[1]), "candidate": "x"})  # an offer with a candidate
        await error(people[0], "bad_message")
        # a second window of seat 0 takes over its video: the first is no longer its camera
        second = await connect(server, code, tokens[0])
        new_peer = await join(second)
        assert new_peer != peers[0]
        await people[1].until(lambda m: m["type"] == "camera_seats" and m["seats"][0]["peer"]
                              == new_peer)
        await people[0].send(rtc(1, peers[1]))
        await error(people[0], "camera_off")
        # the seat's new window leaves: seat 0 is out of the video for everyone
        await second.ws.close()
        await people[1].until(lambda m: m["type"] == "camera_seats" and [
            s["seat"] for s in m["seats"]] == [1])
        # nothing of the video ever reached the outsiders
        for outsider in (stranger, foreign):
            await outsider.send({"type": "ping", "id": 5})
            await outsider.until(lambda m: m.get("type") == "pong")
            kinds = {m["type"] for m in outsider.messages}
            assert not kinds & {"camera_seats", "camera_config", "rtc"}, kinds
        # a room that is not a camera table refuses it
        plain = await connect(server, other_code, other_tokens[0])
        await plain.send({"type": "camera", "video": "on", "audio": "on"})
        await error(plain, "no_camera")
        for c in (*people, stranger, foreign, plain):
            await c.ws.close()

    asyncio.run(run())


def test_an_oversized_or_flooding_seat_is_refused_and_the_room_plays_on(
        server: Running) -> None:
    """Seat 0 floods the relay with hundreds of large offers mid-hand: it is refused
    ``signal_flooding`` beyond its burst and ``too_large`` beyond 16 KB, while seat 1 swaps and
    is answered, and seat 0's own moves still go through."""

    async def run() -> None:
        code, tokens = camera_room(server)
        people = [await connect(server, code, t) for t in tokens]
        start(server, code, tokens[0])
        for p in people:
            await p.send({"type": "ready"})
        for p in people:
            await p.until_phase("play")
        peers = [await join(p) for p in people[:2]]
        big = ["a=x-" + "y" * 900] * 11  # about 10 KB: more than 4096, within 16384
        frame = json.dumps(rtc(1, peers[1], sdp=big))
        assert 4096 < len(frame) < MAX_SIGNAL_BYTES
        oversize = json.dumps(rtc(1, peers[1], sdp=["a=x-" + "y" * 1000] * 17))
        assert len(oversize) > MAX_SIGNAL_BYTES
        await people[0].send(oversize)
        await error(people[0], "too_large")
        sent = 300
        flood = asyncio.gather(*(people[0].ws.send(frame) for _ in range(sent)))
        # meanwhile seat 1 plays a swap and is answered
        assert people[1].view is not None
        view = people[1].view
        take = next(c for c in view["middle"] if c)
        await people[1].send({"type": "action", "id": 7, "action": {
            "type": "swap", "take": [take], "give": [view["hand"][0]]}})
        await flood
        answer = await people[1].until(lambda m: m.get("id") == 7)
        assert answer["type"] in ("ok", "rejected"), answer  # answered either way
        await people[0].send({"type": "ping", "id": 1})  # the flooder still plays
        await people[0].until(lambda m: m.get("type") == "pong" and m.get("id") == 1)
        refused = [m for m in people[0].messages if m.get("code") == "signal_flooding"]
        assert not any(m.get("code") == "flooding" for m in people[0].messages)
        # after a pause the seat's set-up flows again; everything relayed before it has arrived
        await asyncio.sleep(1.0)
        await people[0].send(rtc(1, peers[1], "candidate"))
        await people[1].until(lambda m: m["type"] == "rtc" and m["kind"] == "candidate")
        relayed = [m for m in people[1].messages if m["type"] == "rtc" and m["kind"] == "offer"]
        # a burst of 60 messages and 512 KB: about 50 offers of 10 KB pass, the rest are refused
        assert 40 <= len(relayed) <= 60, len(relayed)
        assert len(refused) + len(relayed) == sent, (len(refused), len(relayed))
        for p in people:
            await p.ws.close()

    asyncio.run(run())


def test_turn_credentials_are_minted_per_seat_and_expire(tmp_path: Path) -> None:
    """A TURN server gets coturn's shared-secret credential for the seat (username
    ``EXPIRY:ROOM-SEAT``, password base64(HMAC-SHA1(secret, username))), never a fixed one."""
    servers = json.dumps([{"urls": "stun:stun.example.org:3478"},
                          {"urls": ["turn:turn.example.org:3478?transport=udp"]}])
    with server_thread(sqlite_url(tmp_path), ice_servers=servers, turn_secret="s3cret",
                       turn_ttl_s=600.0) as srv:
        async def run() -> None:
            code, tokens = camera_room(srv)
            me = await connect(srv, code, tokens[2])
            await me.send({"type": "camera", "video": "on", "audio": "on"})
            config = await me.until(lambda m: m["type"] == "camera_config")
            stun, turn = config["ice_servers"]
            assert stun == {"urls": ["stun:stun.example.org:3478"]}
            expiry, who = turn["username"].split(":")
            assert who == f"{code}-2" and abs(int(expiry) - (time.time() + 600)) < 30
            assert int(expiry) == config["expires_at"]
            mac = hmac.new(b"s3cret", turn["username"].encode(), hashlib.sha1).digest()
            assert turn["credential"] == base64.b64encode(mac).decode()
            assert "s3cret" not in json.dumps(config)
            await me.ws.close()

        asyncio.run(run())
    assert turn_credential("k", "AB-1", 10) == ("10:AB-1", base64.b64encode(
        hmac.new(b"k", b"10:AB-1", hashlib.sha1).digest()).decode())


@pytest.mark.parametrize("servers,secret,policy", [
    ('[{"urls": "turn:t.example.org", "credential": "pw", "username": "u"}]', "s", "all"),
    ('[{"urls": "turn:t.example.org"}]', None, "all"),
    ('[{"urls": "http://t.example.org"}]', None, "all"),
    ('{"urls": "stun:s.example.org"}', None, "all"),
    ("not json", None, "all"),
    ('[{"urls": "stun:s.example.org"}]', None, "relay"),
    ("[]", None, "sometimes"),
])
def test_ice_settings_that_would_leak_or_cannot_work_stop_the_server(
        servers: str, secret: str | None, policy: str) -> None:
    with pytest.raises(SettingError) as caught:
        IceConfig.parse(servers, secret, 3600.0, policy)
    assert caught.value.code == "bad_setting"
    with pytest.raises(SettingError):
        Settings(ice_servers=servers, turn_secret=secret, ice_transport_policy=policy)


def test_an_sfu_that_does_not_answer_is_said_and_the_table_plays_on(tmp_path: Path) -> None:
    """Every camera table through an SFU (``KEMPS_MESH_MAX_PLAYERS=0``) whose Janus does not
    answer: a seat joining the video is told ``sfu_unavailable``; nothing is relayed peer to peer
    (``sfu_table``); the match starts and deals as ever."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.2, huddle_s=0.5, mesh_max_players=0,
                       janus_url="ws://127.0.0.1:9/janus",
                       janus_api="http://127.0.0.1:9/janus") as srv:
        async def run() -> None:
            code, tokens = camera_room(srv)
            assert httpx.get(f"{srv.url}/api/rooms/{code}").json()["camera_route"] == "sfu"
            people = [await connect(srv, code, t) for t in tokens]
            await people[0].send({"type": "camera", "video": "on", "audio": "on"})
            told = await error(people[0], "sfu_unavailable")
            assert "plays on" in told["message"]
            await people[0].send(rtc(1, "0badbeef"))
            await error(people[0], "sfu_table")
            start(srv, code, tokens[0])
            for p in people:
                await p.send({"type": "ready"})
            for p in people:
                await p.until_phase("play")
            for p in people:
                await p.ws.close()

        asyncio.run(run())


def test_the_rules_decide_the_microphone_during_a_hand() -> None:
    """S0 "Silent signals": "A stricter table forbids spoken signals altogether, and sometimes
    talking of any kind: the signal must be something seen, not heard." The standard game bans
    heard signals (S2: "A signal is seen, not heard"): silent; heard signals and talk allowed:
    the microphones are sent."""
    from kemps.rules import find_preset
    from kemps.server.camera import SfuConfig, hand_audio

    pagat = find_preset("pagat")
    assert not pagat.heard_signals and not hand_audio(pagat)
    assert hand_audio(pagat.replace(heard_signals=True, table_chat=True))
    assert not hand_audio(pagat.replace(heard_signals=True, table_chat=False))
    assert SfuConfig().route(8) == "mesh" and SfuConfig().route(10) is None
    assert SfuConfig(url="ws://j:8188").route(10) == "sfu"
    assert SfuConfig(url="ws://j:8188", mesh_max_players=0).route(4) == "sfu"
    servers, expires = IceConfig.parse('[{"urls": "stun:s.example.org"}]').for_seat("AB-0", 0.0)
    assert servers == [{"urls": ["stun:s.example.org"]}] and expires is None
