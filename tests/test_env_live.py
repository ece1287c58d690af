"""Agents at live tables (issue 30): ``kemps agent`` plays whole matches over real WebSockets
against a real ``kemps serve``, on the environment's own observation and action encoding."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from tests.serving import server_process, sqlite_url

from kemps.env import KempsParallelEnv
from kemps.env.live import AgentError, LiveAgent, load_policy, room_address
from kemps.env.policies import RandomLegal, random_legal
from kemps.views import events_for


def _call(http: httpx.Client, method: str, path: str, token: str | None = None,
          body: dict[str, Any] | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = http.request(method, path, json=body, headers=headers)
    assert r.status_code < 400, f"{method} {path}: {r.status_code} {r.text[:300]}"
    return r.json()


def _wait_connected(http: httpx.Client, code: str, seat: int, procs: list[subprocess.Popen[str]],
                    timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        seats = _call(http, "GET", f"/api/rooms/{code}")["seats"]
        if seats[seat]["kind"] == "human" and seats[seat]["connected"]:
            return
        for p in procs:
            if p.poll() is not None:
                raise AssertionError(f"an agent ended early: {p.communicate()}")
        time.sleep(0.1)
    raise AssertionError(f"seat {seat} was not connected within {timeout_s} s")


def test_two_agents_play_a_whole_match_over_real_websockets(tmp_path: Path) -> None:
    """Two ``python -m kemps agent`` processes (seat 2 taken through the HTTP API from the room
    page's address, seat 0 the host's, by its token; a third asking for seat 2 is refused,
    ``seat_taken``, exit 2) and two sharp bots play a match to its end
    at a table where one letter loses (S2 tournament: ``target`` letters lose); both agents exit
    0 with their summary, and the server's stored record holds actions of both agents' seats."""
    env = dict(os.environ)
    with server_process(sqlite_url(tmp_path)) as srv, httpx.Client(base_url=srv.url,
                                                                    timeout=30) as http:
        made = _call(http, "POST", "/api/rooms", body={"name": "Host", "preset": "pagat",
                                                        "pairs": 2, "options": {"target": 1}})
        code, host = made["code"], made["token"]
        agent = [sys.executable, "-m", "kemps", "agent", "--reaction", "0.3", "--minutes", "1.5"]
        procs: list[subprocess.Popen[str]] = []
        try:
            procs.append(subprocess.Popen(
                [*agent, f"{srv.url}/room/{code}", "--seat", "2", "--name", "Ada", "--seed", "1"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
            _wait_connected(http, code, 2, procs)
            taken = subprocess.run([*agent, f"{srv.url}/room/{code}", "--seat", "2"],
                                   capture_output=True, text=True, env=env, timeout=60)
            assert taken.returncode == 2 and "seat_taken" in taken.stderr, taken
            # a token of no seat here would only watch: refused at once, not left running
            watcher = subprocess.run([*agent, srv.url, "--code", code, "--token", "not-a-seat"],
                                     capture_output=True, text=True, env=env, timeout=60)
            assert watcher.returncode == 2 and "not_seated" in watcher.stderr, watcher
            procs.append(subprocess.Popen(
                [*agent, srv.url, "--code", code, "--token", host, "--seed", "2"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
            _wait_connected(http, code, 0, procs)
            _call(http, "POST", f"/api/rooms/{code}/bots", host, {"seat": 1, "level": "club"})
            _call(http, "POST", f"/api/rooms/{code}/bots", host,
                  {"seat": 3, "level": "club", "speed": "sharp"})
            _call(http, "POST", f"/api/rooms/{code}/start", host)
            outs = [p.communicate(timeout=100) for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
        for p, (out, err) in zip(procs, outs, strict=True):
            assert p.returncode == 0, (out, err)
            assert "match over" in out, out
            # each decision waits to see the seat's last move land: never a swap of a card the
            # seat already gave away (the cards a seat holds change only by its own moves)
            assert "not_in_hand" not in out, out
        assert "seat 2:" in outs[0][0] and "seat 0:" in outs[1][0]
        listed = _call(http, "GET", f"/api/history?room={code}")["matches"]
        assert len(listed) == 1
        record = _call(http, "GET", f"/api/history/{listed[0]['id']}")["record"]
        by_seat = {s: [a for a in record["actions"] if a.get("seat") == s] for s in range(4)}
        assert by_seat[0] and by_seat[2], {s: len(a) for s, a in by_seat.items()}
        # each agent's summary counts the actions the server accepted from it
        for seat, (out, _) in ((2, outs[0]), (0, outs[1])):
            line = next(x for x in out.splitlines() if x.startswith(f"seat {seat}:"))
            accepted = int(line.split(" accepted")[0].rsplit(" ", 1)[1])
            assert accepted >= len([a for a in by_seat[seat] if a["type"] != "ready"]) > 0


def test_the_live_observation_is_the_environments() -> None:
    """For the same view, events, time, held cards and last action, the live agent's observation
    and mask are exactly what KempsParallelEnv gives the seat (one encoder, not two)."""
    par = KempsParallelEnv("pagat", pairs=2, agent_seats=[0, 2], bot_level="club",
                           reaction_s=0.3)
    obs, infos = par.reset(seed=5)
    policy = RandomLegal(3)
    live = LiveAgent(policy, reaction_s=0.3)
    compared = 0
    for _ in range(400):
        actions = {a: policy(obs[a], infos[a]["action_mask"]) for a in par.agents}
        obs, _, _, _, infos = par.step(actions)
        if not par.agents:
            break
        for a in par.agents:
            seat = int(a.split("_")[1])
            view = par._acted_on[seat]
            seen = events_for(par._events, seat, par.rules.pairs)
            live._held = {seat: par._held[seat]}
            live._last_action_t = par._last_move.get(seat)
            got, mask, _, _ = live.observe(view, seen, par.rules, par.now)
            assert np.array_equal(got, obs[a])
            assert np.array_equal(mask, infos[a]["action_mask"])
            compared += 1
    assert compared > 200


def test_policies_and_addresses() -> None:
    """The ready policy picks only allowed indices, repeatably from its seed; a bad policy
    name or room address is refused with its code."""
    mask = np.zeros(20, dtype=np.int8)
    mask[[0, 4, 9]] = 1
    obs = np.zeros(3, dtype=np.float32)
    a, b = RandomLegal(7), RandomLegal(7)
    picks = [a(obs, mask) for _ in range(200)]
    assert set(picks) == {0, 4, 9}
    assert picks == [b(obs, mask) for _ in range(200)]
    assert load_policy("kemps.env.policies:random_legal") is random_legal
    for ref in ("kemps.env.policies", "no.such.module:f", "kemps.env.policies:nothing",
                "kemps.env.policies:__doc__"):
        with pytest.raises(AgentError) as err:
            load_policy(ref)
        assert err.value.code == "bad_policy"
    assert room_address("http://h:8000/room/AB12") == ("http://h:8000", "AB12")
    assert room_address("https://h", "XY") == ("https://h", "XY")
    for url, code in (("http://h:8000", None), ("ftp://h/room/AB", None),
                      ("http://h/room/AB", "CD"), ("http://h/lobby", "CD")):
        with pytest.raises(AgentError) as err:
            room_address(url, code)
        assert err.value.code == "bad_option"
    with pytest.raises(AgentError):
        LiveAgent(random_legal, reaction_s=0.05)

    def raises(obs: object, mask: object) -> int:
        raise RuntimeError("boom")

    with pytest.raises(AgentError) as err:  # a user's policy that fails: one line, its code
        LiveAgent(raises)._ask(obs, mask, 20)
    assert err.value.code == "bad_policy" and "RuntimeError: boom" in str(err.value)


def test_a_pause_holds_the_agents_action_and_a_refusal_is_counted() -> None:
    """Fed the server's messages without a network: the agent decides on the first ``state``,
    holds its action while the table is paused (the table clock stands still), sends it
    ``reaction_s`` of table time after it saw the table, without ``seat``, and counts a
    refusal by its code."""
    import asyncio
    import json

    from kemps.rules import find_preset
    from kemps.server.client import TableClient
    from kemps.table import Table
    from kemps.views import view_for

    rules = find_preset("pagat").replace(attention=True)
    asked: list[int] = []

    def last_allowed(obs: Any, mask: Any) -> int:
        assert obs.shape == (604,) and mask.shape == (166,)
        asked.append(int(mask.sum()))
        return int(np.flatnonzero(mask)[-1])

    class Socket:
        def __init__(self) -> None:
            self.sent: list[dict[str, Any]] = []

        async def send(self, text: str) -> None:
            self.sent.append(json.loads(text))

    async def main() -> tuple[LiveAgent, list[list[dict[str, Any]]]]:
        agent = LiveAgent(last_allowed, reaction_s=0.2)
        client = TableClient("ws://x", "ABCDE", "t", agent._make_listener, auto_ready=False)
        ws = Socket()
        client._ws = ws
        decider = asyncio.create_task(agent._decide(client))
        table = Table(rules, ["A", "B", "C", "D"], 0)
        await client.handle({"type": "state", "seat": 1, "view": view_for(table, 1).to_dict(),
                             "log": [], "room": {"code": "ABCDE", "rules": rules.to_dict(),
                                                 "now": 0.0, "match_no": 1, "seats": []}})
        await asyncio.sleep(0.05)
        await client.handle({"type": "paused", "code": "storage_unavailable", "message": "x"})
        await asyncio.sleep(0.5)
        while_paused = list(ws.sent)
        await client.handle({"type": "resumed"})
        await asyncio.sleep(0.4)
        after = list(ws.sent)
        sent = [m for m in ws.sent if m["type"] == "action"]
        await client.handle({"type": "rejected", "id": sent[0]["id"], "code": "no_huddle",
                             "message": "x"})
        decider.cancel()
        return agent, [while_paused, after]

    agent, (while_paused, after) = asyncio.run(main())
    assert asked and asked[0] > 1  # the policy was asked, with more than the no-op allowed
    assert while_paused == []
    actions = [m["action"] for m in after if m["type"] == "action"]
    assert actions and all("seat" not in a for a in actions)
    assert agent.refused == {"no_huddle": 1}
