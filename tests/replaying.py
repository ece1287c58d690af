"""A finished match against bots on a real server, quickly, for the replay tests.

The host creates a room under fast settings (sharp bots, a short stall: ``idle_sweep_s`` 1.5 s,
``sweep_countdown_s`` 0.5 s; ``target`` letters lose), fills the other seats with bots, starts,
then has a bot play her own seat too (the host's "replace", POST /api/rooms/{code}/bots), and
waits for the match to end. Most such matches take 15 to 35 s of table time at two letters.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

FAST_OPTIONS: dict[str, Any] = {"idle_sweep_s": 1.5, "sweep_countdown_s": 0.5}


@dataclass
class Played:
    """A match played to its end: the room, the host's token and the finished match's id."""

    code: str
    token: str
    match_id: int

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def start_bot_match(url: str, target: int = 2, room: tuple[str, str] | None = None
                    ) -> tuple[str, str]:
    """Create a room (or take ``room``, (code, host token), made with FAST_OPTIONS), fill it
    with sharp bots, start, let a bot play the host's seat; returns (code, host token)."""
    if room is None:
        made = httpx.post(f"{url}/api/rooms", json={
            "name": "Alice", "preset": "pagat", "options": {"target": target, **FAST_OPTIONS}},
            timeout=10)
        made.raise_for_status()
        room = made.json()["code"], made.json()["token"]
    code, token = room
    auth = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{url}/api/rooms/{code}/bots", json={"fill": True, "level": "sharp",
                                                    "speed": "sharp"},
               headers=auth, timeout=10).raise_for_status()
    httpx.post(f"{url}/api/rooms/{code}/start", headers=auth, timeout=10).raise_for_status()
    httpx.post(f"{url}/api/rooms/{code}/bots", json={"seat": 0, "level": "sharp"},
               headers=auth, timeout=10).raise_for_status()
    return code, token


def wait_finished(url: str, code: str, match_no: int = 1, timeout_s: float = 120) -> int:
    """Wait until the room's match ``match_no`` is stored as finished; its id."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        room = httpx.get(f"{url}/api/rooms/{code}", timeout=10).json()
        if (room["status"] == "finished" and room["match_no"] == match_no
                and room["last_match_id"]):
            return int(room["last_match_id"])
        time.sleep(0.25)
    raise AssertionError(f"room {code} did not finish match {match_no} in {timeout_s:.0f} s")


def play_bot_match(url: str, target: int = 2, end: bool = False) -> Played:
    """A whole match against bots (see the module docstring). ``end``: the room then ends (the
    host, connected from the start so that the room stays open, leaves; the server's
    ``room_idle_s`` must be short), so that no pair's signals are in force any more and a
    replay shows every pair's (issue 26)."""
    if not end:
        code, token = start_bot_match(url, target)
        return Played(code, token, wait_finished(url, code))
    from secrecy import Listener

    made = httpx.post(f"{url}/api/rooms", json={
        "name": "Alice", "preset": "pagat", "options": {"target": target, **FAST_OPTIONS}},
        timeout=10)
    made.raise_for_status()
    code, token = made.json()["code"], made.json()["token"]
    host = Listener(f"{url.replace('http://', 'ws://')}/ws/{code}?token={token}")
    try:
        start_bot_match(url, target, room=(code, token))
        played = Played(code, token, wait_finished(url, code))
    finally:
        host.close()
    deadline = time.monotonic() + 60
    while httpx.get(f"{url}/api/rooms/{code}", timeout=10).status_code != 410:
        if time.monotonic() > deadline:
            raise AssertionError(f"room {code} was not archived after its host left")
        time.sleep(0.2)
    return played
