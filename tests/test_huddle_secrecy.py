"""A pair's huddle leaves no trace in anyone else's stream: not its content, not its rhythm.

The rules behind it: S1 "Your signal must be secret from the other team" and "each two player
team goes away and privately agrees a signal". A pair's proposals, answers and agreements go only
to that pair (``kemps.views.event_for``); beyond that, nobody outside the pair may even be told
that the pair did something, when, or how often: the other pair's seats and the spectators get
no message for such a step at all, and the version of their views does not move with it
(``kemps.views.told_version``, ``kemps.views.private_step``), so that a gap in the versions still
means only a message missed.

Two rooms on one real server, four people each (no bots: nothing acts on its own), every seat and
a spectator connected over real WebSockets. In room A pair 0 makes no huddle action; in room B
it makes six (an agreement, proposals, a refusal, an acceptance, a change). Then seat 1 says it is
ready (a change every connection is told of, sent after everything the six caused). The other
pair's seats and the spectator get the very same messages in both rooms, counted and compared
whole (wall-clock stamps, the room's code and its drawn dealer aside); pair 0's own seats were told all six. After
the deal, the versions of the other pair's seats run on without a gap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kemps.actions import AgreeSignals, DeclineSignals, ProposeSignals
from kemps.errors import Rejected
from kemps.events import SignalsAgreed
from kemps.gestures import SEEN
from kemps.rules import find_preset
from kemps.table import Table
from kemps.views import private_step, told_version, view_for
from secrecy import Listener
from serving import Running, server_thread, sqlite_url

NAMES = ["Alice", "Ben", "Cara", "Dev"]
#: Wall-clock stamps, the room's code and its first dealer (drawn for each room at its start):
#: the only things two rooms' streams may differ by.
VARYING = frozenset({"server_time", "now", "deal_at", "t", "opens_at", "stall_deadline", "code",
                     "dealer", "first_dealer"})
G = sorted(SEEN)[:4]
#: Pair 0's huddle in room B (seat, action), each awaited: six private steps.
HUDDLE: list[tuple[int, dict[str, Any]]] = [
    (0, {"type": "agree_signals", "signals": [G[0]]}),
    (2, {"type": "propose_signals", "signals": [G[1]]}),
    (0, {"type": "decline_signals"}),
    (2, {"type": "propose_signals", "signals": [G[2]]}),
    (0, {"type": "agree_signals", "signals": [G[2]]}),
    (2, {"type": "agree_signals", "signals": [G[3]]}),
]


def test_a_pairs_huddle_moves_only_its_own_seats_versions() -> None:
    """The engine counts a pair's private steps (``Table.private_versions``); each seat's view
    version (``told_version``) moves only with the steps it may see something of; a refused
    action moves nothing; a spectator's moves with the other pairs' seats'."""
    table = Table(find_preset("pagat").replace(pairs=3), ["A", "B", "C", "D", "E", "F"])
    table.apply(AgreeSignals(0, (G[0],)), 0.0)  # pair 0: seats 0 and 3
    table.apply(ProposeSignals(3, (G[1],)), 0.1)
    table.apply(DeclineSignals(0), 0.2)
    table.apply(AgreeSignals(4, (G[2],)), 0.3)  # pair 1: seats 1 and 4
    with pytest.raises(Rejected):
        table.apply(DeclineSignals(2), 0.4)  # pair 2 has no proposal: nothing changes
    assert (table.version, table.private_versions) == (4, [3, 1, 0])
    assert [told_version(table, s) for s in (0, 3, 1, 4, 2, 5, None)] == [3, 3, 1, 1, 0, 0, 0]
    assert [view_for(table, s).version for s in (0, 1, 2, None)] == [3, 1, 0, 0]
    assert private_step([SignalsAgreed(0.0, 1, 4, (G[2],))], 3) == 1
    assert private_step([], 3) is None


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Running]:
    with server_thread(sqlite_url(tmp_path), huddle_s=300.0, bot_huddle_s=0.2,
                       away_grace_s=300.0, rate_per_s=1000.0, rate_burst=1000.0) as running:
        yield running


def wait_for(what: str, check: Callable[[], bool], timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def normal(obj: Any) -> Any:
    """``obj`` with every wall-clock stamp, the room's code and its dealer blanked."""
    if isinstance(obj, dict):
        return {k: None if k in VARYING else normal(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [normal(v) for v in obj]
    return obj


def open_room(srv: Running, preset: str) -> tuple[str, list[str], list[Listener]]:
    """A started room of four people: its code, the seats' tokens, and a listener for each
    seat and one spectator (index 4), and at a tournament table its referee (index 5), all
    connected before the start."""
    made = httpx.post(f"{srv.url}/api/rooms", json={"name": NAMES[0], "preset": preset},
                      timeout=10)
    made.raise_for_status()
    code, tokens = made.json()["code"], [made.json()["token"]]
    watchers: list[str | None] = [None]
    if preset == "tournament":  # the referee (issue 32): one more who may not see a huddle
        r = httpx.post(f"{srv.url}/api/rooms/{code}/referee", json={"name": "Rita"}, timeout=10)
        r.raise_for_status()
        watchers.append(r.json()["token"])
    for seat in (1, 2, 3):
        r = httpx.post(f"{srv.url}/api/rooms/{code}/seats",
                       json={"seat": seat, "name": NAMES[seat]}, timeout=10)
        r.raise_for_status()
        tokens.append(r.json()["token"])
    listeners: list[Listener] = []
    for i, token in enumerate([*tokens, *watchers]):
        listeners.append(Listener(f"{srv.ws}/ws/{code}" + (f"?token={token}" if token else "")))
        wait_for("the connection's state", lambda i=i: any(  # type: ignore[misc]
            m["type"] == "state" for m in listeners[i].seen()))
    r = httpx.post(f"{srv.url}/api/rooms/{code}/start",
                   headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10)
    r.raise_for_status()
    for x in listeners:
        wait_for("the match's first view", lambda x=x: x.view() is not None)  # type: ignore[misc]
    return code, tokens, listeners


def act(x: Listener, ref: int, action: dict[str, Any]) -> None:
    x.send({"type": "action", "id": ref, "action": action})
    wait_for(f"the ok of action {ref}", lambda: any(
        m["type"] in ("ok", "rejected") and m.get("id") == ref for m in x.seen()))
    refused = [m for m in x.seen() if m["type"] == "rejected" and m.get("id") == ref]
    assert not refused, refused


def ready_seen(x: Listener, seat: int) -> bool:
    return any(m["type"] == "room" and m["room"]["seats"][seat]["ready"] for m in x.seen())


def play_huddle(srv: Running, steps: list[tuple[int, dict[str, Any]]], preset: str
                ) -> tuple[list[Listener], list[list[dict[str, Any]]]]:
    """Open a room, play ``steps`` in pair 0's huddle, then seat 1 says it is ready; returns the
    listeners and every stream as it stood once all were told of seat 1's Ready."""
    _, _, listeners = open_room(srv, preset)
    for ref, (seat, action) in enumerate(steps, start=1):
        act(listeners[seat], ref, action)
    listeners[1].send({"type": "ready"})
    for x in listeners:
        wait_for("seat 1's Ready", lambda x=x: ready_seen(x, 1))  # type: ignore[misc]
    streams = []
    for x in listeners:
        seen = x.seen()
        last = max(i for i, m in enumerate(seen) if m["type"] == "room"
                   and m["room"]["seats"][1]["ready"])
        streams.append(seen[:last + 1])
    return listeners, streams


def updates(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in stream if m["type"] == "update"]


@pytest.mark.parametrize("preset", ["pagat", "tournament"])
def test_another_pairs_huddle_sends_the_others_nothing_at_all(server: Running,
                                                              preset: str) -> None:
    """At a tournament table a referee watches too (index 5): told nothing of it either."""
    quiet, quiet_streams = play_huddle(server, [], preset)
    busy, busy_streams = play_huddle(server, HUDDLE, preset)
    outsiders = (1, 3, 4, 5) if preset == "tournament" else (1, 3, 4)
    try:
        # Pair 0 was told every one of its six steps, each with a version one higher.
        for seat in (0, 2):
            told = updates(busy_streams[seat])
            assert len(told) == len(updates(quiet_streams[seat])) + len(HUDDLE)
            versions = [m["version"] for m in told]
            assert versions == list(range(versions[0], versions[0] + len(versions)))
            assert busy_streams[seat][-1]["room"]["seats"][1]["ready"]
        assert busy[0].view()["signals"] == [G[3]]  # type: ignore[index]
        # The other pair's seats, the spectator (and the referee): the very same stream in both
        # rooms.
        for who in outsiders:
            assert len(busy_streams[who]) == len(quiet_streams[who]), who
            assert [m["type"] for m in busy_streams[who]] == [
                m["type"] for m in quiet_streams[who]]
            assert normal(busy_streams[who]) == normal(quiet_streams[who]), who
        # The deal: every seat's versions run on without a gap (no resync asked for), and a
        # sync gives the version the seat was told.
        for x in busy[:4]:
            x.send({"type": "ready"})
        for x in busy:
            wait_for("the deal", lambda x=x: (x.view() or {}).get("hand_no") == 1)  # type: ignore[misc]
        for who in outsiders:
            told = [m["version"] for m in updates(busy[who].seen())]
            assert told == list(range(told[0], told[0] + len(told))), (who, told)
            quiet_told = [m["version"] for m in updates(quiet_streams[who])]
            assert told[:len(quiet_told)] == quiet_told
        before = len(busy[1].seen())
        busy[1].send({"type": "sync"})
        wait_for("the state again", lambda: any(m["type"] == "state"
                                                for m in busy[1].seen()[before:]))
        state = next(m for m in busy[1].seen()[before:] if m["type"] == "state")
        assert state["view"]["version"] == updates(busy[1].seen())[-1]["view"]["version"]
    finally:
        for x in quiet + busy:
            x.close()
