"""What a stranger sends is refused as documented: an over-large frame is told before the close,
an action naming a seat is refused like any unknown field, and X-Forwarded-For is believed only
from the proxies the operator names.

Issue 26: "Frames of 64 KiB or more are closed with 1009 and no `error` message, which
docs/protocol.md says every dropped connection gets first; an action carrying a `seat` field is
silently applied as the sender's instead of refused like any other unknown field;
`X-Forwarded-For` is trusted from any loopback peer, so a local process can pass the per-address
room limit." Every test runs `kemps serve` as a real process (uvicorn configured as in
production) and talks to it over real sockets.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from kemps.server.protocol import MAX_FRAME_BYTES
from serving import Running, server_process, sqlite_url


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("frames"))) as srv:
        yield srv


async def _next(ws: Any, timeout: float = 10.0) -> dict[str, Any]:
    return dict(json.loads(await asyncio.wait_for(ws.recv(), timeout)))


async def _answer(ws: Any) -> dict[str, Any]:
    """The next message that answers what the client sent (``room`` broadcasts skipped)."""
    while True:
        m = await _next(ws)
        if m["type"] != "room":
            return m


def test_a_frame_over_64_kib_is_told_too_large_before_the_close(served: Running) -> None:
    made = httpx.post(f"{served.url}/api/rooms", json={"name": "Alice"}, timeout=10).json()

    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], int | None]:
        async with websockets.connect(f"{served.ws}/ws/{made['code']}?token={made['token']}",
                                      max_size=2**22) as ws:
            assert (await _next(ws))["type"] == "state"
            # Over the message limit (4096 bytes) but under the frame's: told, kept open.
            await ws.send(json.dumps({"type": "ping", "pad": "x" * 10_000}))
            big_message = await _answer(ws)
            await ws.send(json.dumps({"type": "ping", "id": 5}))
            pong = await _answer(ws)
            # Over the frame's limit: one error, then the close with 1009.
            await ws.send("x" * (MAX_FRAME_BYTES + 1))
            told = await _answer(ws)
            with pytest.raises(websockets.ConnectionClosed):
                await _next(ws)
            return big_message, pong, told, ws.close_code

    big_message, pong, told, close_code = asyncio.run(run())
    assert (big_message["type"], big_message["code"]) == ("error", "too_large")
    assert pong == {"type": "pong", "id": 5, "now": pong["now"]}
    assert (told["type"], told["code"]) == ("error", "too_large")
    assert "64 KiB" in told["message"]
    assert close_code == 1009
    # The server took no harm: the room answers.
    assert httpx.get(f"{served.url}/api/rooms/{made['code']}", timeout=10).status_code == 200


def test_an_action_naming_a_seat_is_refused_and_changes_nothing(served: Running) -> None:
    """The seat is the token's; an action that names one (any, its own too) is refused
    ``bad_action`` like any field an action does not have, and nothing is applied."""
    made = httpx.post(f"{served.url}/api/rooms", json={"name": "Alice"}, timeout=10).json()
    code, auth = made["code"], {"Authorization": f"Bearer {made['token']}"}
    httpx.post(f"{served.url}/api/rooms/{code}/bots", json={"fill": True}, headers=auth,
               timeout=10).raise_for_status()

    async def run() -> list[dict[str, Any]]:
        async with websockets.connect(f"{served.ws}/ws/{code}?token={made['token']}",
                                      max_size=2**22) as ws, \
                websockets.connect(f"{served.ws}/ws/{code}", max_size=2**22) as watcher:
            await _next(ws)
            await _next(watcher)
            r = httpx.post(f"{served.url}/api/rooms/{code}/start", headers=auth, timeout=10)
            assert r.status_code == 200, r.text
            answers = []
            agree = {"type": "agree_signals", "signals": ["wink"]}
            for ref, action in ((1, {**agree, "seat": 1}), (2, {**agree, "seat": 0}),
                                (3, {**agree, "colour": "red"}), (4, agree)):
                await ws.send(json.dumps({"type": "action", "id": ref, "action": action}))
                while True:
                    m = await _next(ws)
                    if m.get("id") == ref:
                        answers.append(m)
                        break
            await watcher.send(json.dumps({"type": "action", "id": 9, "action": {
                "type": "look", "at": "middle", "seat": 2}}))
            while True:
                m = await _next(watcher)
                if m.get("id") == 9:
                    answers.append(m)
                    break
            return answers

    seat1, seat0, colour, plain, look = asyncio.run(run())
    for refused in (seat1, seat0, colour, look):
        assert (refused["type"], refused["code"]) == ("rejected", "bad_action"), refused
    assert "'seat'" in seat1["message"] and "'seat'" in seat0["message"]
    assert "'seat'" in look["message"]
    assert plain == {"type": "ok", "id": 4}


def _rooms_made(url: str, addresses: list[str]) -> list[int]:
    return [httpx.post(f"{url}/api/rooms", json={"name": "Alice"}, timeout=10,
                       headers={"X-Forwarded-For": a}).status_code for a in addresses]


def test_x_forwarded_for_is_believed_only_from_configured_proxies(tmp_path: Path) -> None:
    """KEMPS_ROOM_BURST=2 with no refill: by default every room below comes from this test's
    own address, whatever the header says (the third is refused); with this address named a
    trusted proxy each header's address has its own bucket."""
    limits = {"KEMPS_ROOM_BURST": "2", "KEMPS_ROOMS_PER_MIN": "0.01"}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with server_process(sqlite_url(tmp_path / "a"), env=limits) as srv:
        assert _rooms_made(srv.url, ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) == [201, 201, 429]
    with server_process(sqlite_url(tmp_path / "b"),
                        env={**limits, "KEMPS_TRUSTED_PROXIES": "127.0.0.1"}) as srv:
        assert _rooms_made(srv.url, ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) == [201, 201, 201]
        assert _rooms_made(srv.url, ["10.0.0.1", "10.0.0.1"]) == [201, 429]
        # No header: the peer's own address, this test's (its own bucket).
        r = httpx.post(f"{srv.url}/api/rooms", json={"name": "Alice"}, timeout=10)
        assert r.status_code == 201


def test_a_trusted_proxy_that_is_not_an_address_stops_the_server(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "kemps", "serve", "--port", "1", "--database-url",
         sqlite_url(tmp_path / "a")], capture_output=True, text=True, timeout=60,
        env={**os.environ, "KEMPS_TRUSTED_PROXIES": "10.0.0.2, the balancer"})
    assert done.returncode == 2
    assert "KEMPS_TRUSTED_PROXIES" in done.stderr and "'the balancer'" in done.stderr
