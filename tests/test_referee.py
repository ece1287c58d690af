"""The referee's seat: a person sits as the dealer who is not playing (issue 32).

S2 tournament row 7: "Give each table a dealer who is not playing, to sweep the cards and judge the
first touch. The dealer's ruling stands." At a table whose dealer does not play (the tournament
preset) one person may sit as that dealer: they say Go and sweep (S2 variations row 1 "nobody
touches the middle cards until the dealer says \"Go\""), see every hand and every gesture as it
happens (they play for nobody), and see the server's arrival order of contested touches; every
player is told a referee watches. The referee never sees a pair's signals (S1 "Your signal must be
secret from the other team"), and players see nothing more because a referee sits.

The views are pure (``kemps.views.referee_view``, ``referee_events_for``) and tested on a scripted
table; the seat itself on a real server over real WebSockets, everything scripted (four people,
none of them a bot, the table's own Go and sweep timers two minutes away): two rooms play the same
script, one with a referee and one without, and the players' and a spectator's streams have the
very same shape.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kemps.actions import Deal, Go, Swap
from kemps.cards import parse_card
from kemps.errors import Rejected
from kemps.events import Gestured, HandDealt, Moved, SignalsAgreed
from kemps.messages import referee_events_out
from kemps.rules import find_preset
from kemps.table import Table, stacked_order
from kemps.views import event_for, referee_events_for, referee_view, view_for
from secrecy import PRIVATE_KINDS, Listener, signal_leaks
from serving import Running, server_thread, sqlite_url

NAMES = ["Alice", "Ben", "Cara", "Dev"]
#: The table's own Go and idle sweep far away: only the referee (or the host) says Go and sweeps.
SLOW = {"start_countdown_s": 120.0, "idle_sweep_s": 120.0, "attention": True}


# -- the views: pure ------------------------------------------------------------------------------
def dealt_table() -> tuple[Table, list[Any]]:
    rules = find_preset("tournament")
    table = Table(rules, NAMES)
    order = stacked_order(rules, ["7H 7S 7D 2C", "8H 8S 8D 3C", "4H 4S 5D 6C", "JH JS QD KC"],
                          middle="7C 9D 9S 9H", dealer=None)
    log = table.apply(Deal(order), now=0.0)
    log += table.apply(Go(None), now=1.0)
    return table, log


def test_the_referee_view_shows_every_hand_and_contested_touches_in_arrival_order() -> None:
    table, log = dealt_table()
    log += table.apply(Swap(0, (parse_card("7C"),), (parse_card("2C"),)), now=2.0)
    with pytest.raises(Rejected) as lost:  # Ben's touch of the 7C arrived after Alice's
        table.apply(Swap(1, (parse_card("7C"),), (parse_card("3C"),)), now=2.04)
    assert lost.value.code == "card_gone"
    seen = referee_view(table, log, [(2.04, 1, (parse_card("7C"),))])
    assert seen.hands == tuple(tuple(h) for h in table.hands)
    assert seen.to_dict()["hands"][0] == ["7H", "7S", "7D", "7C"]
    assert seen.to_dict()["contested"] == [{"card": "7C", "touches": [
        {"seat": 0, "t": 2.0, "took": True}, {"seat": 1, "t": 2.04, "took": False}]}]
    # a refused touch of a card nobody took this hand is no contest; an earlier hand's neither
    assert referee_view(table, log, [(2.5, 2, (parse_card("KS"),))]).contested == ()
    assert referee_view(table, log, [(-1.0, 1, (parse_card("7C"),))]).contested == ()


def test_the_referee_is_told_every_hand_and_gesture_but_no_pairs_signals() -> None:
    table, log = dealt_table()
    dealt = next(e for e in log if isinstance(e, HandDealt))
    unseen = Gestured(3.0, 1, "nod", False, (1,))  # attention: a gesture nobody looked at
    agreed = SignalsAgreed(0.5, 0, 0, ("nod",))
    told = referee_events_for([dealt, unseen, agreed], table.pairs)
    assert told == [dealt, unseen]  # the deal whole, the gesture named, no signals
    assert all(len(h) == 4 for h in told[0].hands)  # type: ignore[attr-defined]
    # a seat and a spectator are told no more than before
    assert event_for(unseen, 2, table.pairs) == Moved(3.0, 1)
    assert event_for(unseen, None, table.pairs) == Moved(3.0, 1)
    assert event_for(dealt, 2, table.pairs).hands[0] == ()  # type: ignore[union-attr]
    out = referee_events_out(table, [dealt, unseen, agreed])
    assert [d["type"] for d in out] == ["hand_dealt", "gestured"]
    assert out[1]["text"] is not None and "Ben" in out[1]["text"]
    assert view_for(table, None).hand == ()


# -- the seat on a real server --------------------------------------------------------------------
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


def shape(obj: Any, key: str = "") -> Any:
    """``obj`` with every leaf replaced by its type's name (cards and times differ from room to
    room), the room's ``referee`` entry blanked: what two rooms' streams must share."""
    if key == "referee":
        return "referee"
    if isinstance(obj, dict):
        return {k: shape(v, k) for k, v in obj.items()}
    if isinstance(obj, list):
        return [shape(v) for v in obj]
    return type(obj).__name__


def answered(x: Listener, ref: int) -> dict[str, Any]:
    wait_for(f"the answer to {ref}", lambda: any(
        m["type"] in ("ok", "rejected") and m.get("id") == ref for m in x.seen()))
    return next(m for m in x.seen() if m["type"] in ("ok", "rejected") and m.get("id") == ref)


def room_with(srv: Running, referee: bool) -> tuple[str, list[str], Listener | None]:
    made = httpx.post(f"{srv.url}/api/rooms", json={"name": NAMES[0], "preset": "tournament",
                                                     "options": SLOW}, timeout=10)
    assert made.status_code == 201, made.text
    code, tokens = made.json()["code"], [made.json()["token"]]
    for seat in (1, 2, 3):
        r = httpx.post(f"{srv.url}/api/rooms/{code}/seats",
                       json={"seat": seat, "name": NAMES[seat]}, timeout=10)
        r.raise_for_status()
        tokens.append(r.json()["token"])
    judge = None
    if referee:
        r = httpx.post(f"{srv.url}/api/rooms/{code}/referee", json={"name": "Rita"}, timeout=10)
        assert r.status_code == 200, r.text
        assert r.json()["room"]["referee"] == {"name": "Rita", "connected": False}
        again = httpx.post(f"{srv.url}/api/rooms/{code}/referee", json={"name": "Rob"},
                           timeout=10)
        assert (again.status_code, again.json()["code"]) == (409, "referee_taken")
        judge = Listener(f"{srv.ws}/ws/{code}?token={r.json()['token']}")
        wait_for("the referee's state", lambda: any(m["type"] == "state" for m in judge.seen()))
    return code, tokens, judge


def play_script(srv: Running, referee: bool) -> tuple[list[Listener], Listener | None]:
    """A room of four people (and a referee when ``referee``): pair 0 agrees a signal, everyone
    is ready, the dealer says Go (the referee, or the host for the table), Alice takes a middle
    card and Ben's touch of it arrives second, Ben nods, the dealer sweeps. Returns the seats'
    and a spectator's listeners (index 4), and the referee's."""
    code, tokens, judge = room_with(srv, referee)
    people = [Listener(f"{srv.ws}/ws/{code}?token={t}") for t in tokens]
    people.append(Listener(f"{srv.ws}/ws/{code}"))
    for x in people:
        wait_for("a state", lambda x=x: any(m["type"] == "state" for m in x.seen()))  # type: ignore[misc]
    r = httpx.post(f"{srv.url}/api/rooms/{code}/start",
                   headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10)
    r.raise_for_status()
    for x in people:
        wait_for("the huddle", lambda x=x: x.view() is not None)  # type: ignore[misc]
    people[0].send({"type": "action", "id": 1,
                    "action": {"type": "agree_signals", "signals": ["nod"]}})
    assert answered(people[0], 1)["type"] == "ok"
    # Ben's pair agrees its own, so that his nod below is never his pair's signal: a pair that
    # agrees none is given one at random before the deal, and the tournament preset bans fakes
    # (S2 signals row 5), so a drawn nod would refuse it (1 run in 20 did).
    people[1].send({"type": "action", "id": 11,
                    "action": {"type": "agree_signals", "signals": ["touch_ear"]}})
    assert answered(people[1], 11)["type"] == "ok"
    for x in people[:4]:
        x.send({"type": "ready"})
    for x in people:
        wait_for("the deal", lambda x=x: (x.view() or {}).get("phase") == "dealt")  # type: ignore[misc]

    def dealer(ref: int, kind: str) -> None:
        if judge is not None:
            judge.send({"type": "action", "id": ref, "action": {"type": kind}})
            assert answered(judge, ref)["type"] == "ok"
        else:  # the host acts for the table, as before
            people[0].send({"type": "action", "id": ref,
                            "action": {"type": kind, "as_dealer": True}})
            assert answered(people[0], ref)["type"] == "ok"

    dealer(2, "go")
    for x in people:
        wait_for("play", lambda x=x: (x.view() or {}).get("phase") == "play")  # type: ignore[misc]
    view_a, view_b = people[0].view(), people[1].view()
    assert view_a is not None and view_b is not None
    card = view_a["middle"][0]
    people[0].send({"type": "action", "id": 3, "action": {
        "type": "swap", "take": [card], "give": [view_a["hand"][0]]}})
    assert answered(people[0], 3)["type"] == "ok"
    people[1].send({"type": "action", "id": 4, "action": {
        "type": "swap", "take": [card], "give": [view_b["hand"][0]]}})
    assert answered(people[1], 4)["code"] == "card_gone"
    people[1].send({"type": "action", "id": 5, "action": {"type": "gesture", "gesture": "nod"}})
    nod = answered(people[1], 5)
    assert nod["type"] == "ok", nod
    dealer(6, "stall")
    for x in people:
        wait_for("the sweep", lambda x=x: any(  # type: ignore[misc]
            e["type"] == "swept" for m in x.seen() if m["type"] == "update"
            for e in m["events"]))
    if judge is not None:
        wait_for("the referee's sweep", lambda: any(
            e["type"] == "swept" for m in judge.seen() if m["type"] == "update"
            for e in m["events"]))
    return people, judge


def test_a_referee_sees_every_hand_and_gesture_says_go_sweeps_and_players_see_nothing_more(
        server: Running) -> None:
    plain, _ = play_script(server, referee=False)
    watched, judge = play_script(server, referee=True)
    assert judge is not None
    try:
        told = judge.seen()
        updates = [m for m in told if m["type"] == "update"]
        # Every hand as it is now: each equal to the hand its own player is shown.
        last = updates[-1]["referee"]
        for seat in range(4):
            assert last["hands"][seat] == watched[seat].view()["hand"]  # type: ignore[index]
            assert len(last["hands"][seat]) == 4
        # The deal whole, every gesture named (attention: nobody looked at Ben, so the players
        # and the spectator were told only that he moved), and the contested touch in order.
        events = [e for m in updates for e in m["events"]]
        dealt = next(e for e in events if e["type"] == "hand_dealt")
        assert all(len(h) == 4 for h in dealt["hands"])
        assert any(e["type"] == "gestured" and e["seat"] == 1 and e["gesture"] == "nod"
                   for e in events)
        for x in watched[2:]:
            seen = [e for m in x.seen() if m["type"] == "update" for e in m["events"]]
            assert any(e["type"] == "moved" and e["seat"] == 1 for e in seen)
            assert not any(e["type"] == "gestured" and e["seat"] == 1 for e in seen)
        contested = [m["referee"]["contested"] for m in updates if m["referee"]["contested"]]
        assert contested, "the referee was not shown the contested touch"
        touches = contested[0][0]["touches"]
        assert [(t["seat"], t["took"]) for t in touches] == [(0, True), (1, False)]
        assert touches[0]["t"] <= touches[1]["t"]
        # The referee's Go and sweep were the dealer's (seat None): everyone was told.
        assert any(e["type"] == "play_opened" for e in events)
        assert any(e["type"] == "swept" for e in events)  # dealer_only: swept at once
        # Players are told a referee watches.
        for x in watched:
            rooms = [m["room"] for m in x.seen() if m["type"] in ("room", "state")]
            assert rooms[-1]["referee"]["name"] == "Rita"
        # The referee plays for nobody and knows no pair's signals.
        judge.send({"type": "action", "id": 9, "action": {"type": "gesture",
                                                          "gesture": "nod"}})
        assert answered(judge, 9)["code"] == "not_dealer"
        assert not any(e.get("type") in PRIVATE_KINDS for m in told
                       for e in m.get("events", []) + m.get("log", []))
        assert signal_leaks(told, 0, 2, ("Alice", "Cara")) == []
        assert signal_leaks(told, 1, 2, ("Ben", "Dev")) == []
        # Players and spectators see nothing more because a referee sits: the other pair's
        # seats, Alice's partner and the spectator got streams of the very same shape as at the
        # table without one (the host's own stream has its acknowledgements as the dealer).
        for who in (1, 2, 3, 4):
            mine = [m for m in watched[who].seen()]
            theirs = [m for m in plain[who].seen()]
            mine, theirs = mine[:len(mine)], theirs[:len(mine)]
            assert [shape(m) for m in mine] == [shape(m) for m in theirs], who
            for m in mine:
                assert m["type"] not in ("state", "update") or "referee" not in m, who
    finally:
        for x in [*plain, *watched, judge]:
            x.close()


def test_only_a_table_whose_dealer_does_not_play_has_a_referees_seat(server: Running) -> None:
    made = httpx.post(f"{server.url}/api/rooms", json={"name": "Alice", "preset": "pagat"},
                      timeout=10).json()
    r = httpx.post(f"{server.url}/api/rooms/{made['code']}/referee", json={"name": "Rita"},
                   timeout=10)
    assert (r.status_code, r.json()["code"]) == (409, "no_referee_seat")
    made = httpx.post(f"{server.url}/api/rooms", json={"name": "Alice", "preset": "tournament"},
                      timeout=10).json()
    for body in ({"name": ""}, {"name": "x" * 41}, {}, {"name": "Rita", "seat": 1}):
        r = httpx.post(f"{server.url}/api/rooms/{made['code']}/referee", json=body, timeout=10)
        assert r.status_code == 422, (body, r.text)
    assert httpx.get(f"{server.url}/api/rooms/{made['code']}").json()["referee"] is None
    # The host changes the rules to a dealer who plays: the referee is seated no more.
    code = made["code"]
    r = httpx.post(f"{server.url}/api/rooms/{code}/referee", json={"name": "Rita"}, timeout=10)
    judge = Listener(f"{server.ws}/ws/{code}?token={r.json()['token']}")
    try:
        wait_for("the referee's state", lambda: any(
            m["type"] == "state" and "referee" in m for m in judge.seen()))
        r = httpx.put(f"{server.url}/api/rooms/{code}/rules", json={"preset": "pagat"},
                      headers={"Authorization": f"Bearer {made['token']}"}, timeout=10)
        assert r.status_code == 200, r.text
        assert r.json()["referee"] is None
        wait_for("the referee told", lambda: any(
            m["type"] == "error" and m["code"] == "not_referee" for m in judge.seen()))
        last_state = [m for m in judge.seen() if m["type"] == "state"][-1]
        assert "referee" not in last_state
    finally:
        judge.close()
