"""Replays watched together (kemps.server.together, static/together.js): a shared room of a
finished match's replay in which one person drives and everyone follows and chats.

Issue 32: "anyone with a finished match's link may open a shared replay room; the one who opened
it drives play, step and the moment, everyone in it follows and talks in its chat; a link to a
moment works inside it"; "each new input bounded and refused with a clear code; no hidden card
or signal reaches a seat or spectator that may not see it (the secrecy tests extended to ... the
shared replay)".

The finished match is seed 000's worked game (S0 "A worked game"; docs/examples), stored twice
before the server starts: once as a room whose pairs show their signals, once as a room whose
second pair withholds them (``POST /api/rooms/{code}/reveal``'s choice, stored directly), so that
nothing here waits for bots. Real servers in threads, real WebSocket clients (tests/secrecy.py's
``Listener``) and real Chromium pages; every wait is on a condition with a generous deadline.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from kemps.record import MatchRecord, replay
from kemps.server import reveal_storage
from kemps.server.storage import Storage
from kemps.server.together import MAX_CHAT_CHARS, MAX_TOGETHER_BYTES, TogetherSettings
from secrecy import Listener, signal_leaks
from serving import Running, server_thread, sqlite_url
from test_page import new_page

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed000-worked-game.json"
WAIT_S = 30.0  # every condition is awaited this long at most (a loaded machine is slow, not wrong)
WAIT_MS = int(WAIT_S * 1000)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int, int]:
    """A SQLite database holding the worked game twice: (its URL, the match whose signals show,
    the match whose pair 1 withholds its signals)."""
    url = sqlite_url(tmp_path_factory.mktemp("together"))
    record = json.loads(EXAMPLE.read_text())

    async def store() -> tuple[int, int]:
        storage = Storage(url)
        await storage.start()
        try:
            shown = await storage.save_match("WORKD", 1, record["rules"], record["names"], {},
                                             record)
            hidden = await storage.save_match("HIDDN", 1, record["rules"], record["names"], {},
                                              record)
            await reveal_storage.set_reveal(storage, "HIDDN", 1, 1, False, 1)
            return shown, hidden
        finally:
            await storage.close()

    # On a thread of its own: Playwright's sync API may already run a loop on this one.
    with ThreadPoolExecutor(1) as pool:
        shown, hidden = pool.submit(asyncio.run, store()).result()
    return url, shown, hidden


@pytest.fixture()
def srv(stored: tuple[str, int, int]) -> Iterator[Running]:
    with server_thread(stored[0]) as running:
        yield running


def limits(srv: Running, **values: Any) -> None:
    """Set the server's shared-replay limits (read at each check) for this test."""
    assert srv.app is not None
    srv.app.state.together.settings = TogetherSettings(**values)  # type: ignore[attr-defined]


def open_room(srv: Running, match_id: int, name: str = "Ann") -> dict[str, Any]:
    r = httpx.post(f"{srv.url}/api/replays/{match_id}/together", json={"name": name}, timeout=30)
    assert r.status_code == 200, r.text
    return dict(r.json())


def until(what: Callable[[], Any], why: str) -> Any:
    """Poll ``what`` until it returns something true (its value), for up to WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while True:
        found = what()
        if found:
            return found
        assert time.monotonic() < deadline, f"waited {WAIT_S:.0f} s: {why}"
        time.sleep(0.02)


def last(listener: Listener, kind: str, **match: Any) -> dict[str, Any] | None:
    """The latest message of ``kind`` (with those field values) a client was sent."""
    return next((m for m in reversed(listener.seen()) if m.get("type") == kind
                 and all(m.get(k) == v for k, v in match.items())), None)


def error(listener: Listener, code: str) -> dict[str, Any]:
    found: dict[str, Any] = until(lambda: last(listener, "error", code=code),
                                  f"an error {code}; got {listener.seen()[-3:]}")
    return found


def refused_on_connect(url: str) -> tuple[dict[str, Any], int | None]:
    """Connect, and return the error the server sends before it closes, and its close code."""
    with connect(url, open_timeout=20) as ws:
        message = json.loads(ws.recv(timeout=WAIT_S))
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=WAIT_S)
        return message, ws.close_code


def test_the_driver_moves_followers_follow_chat_and_the_drive_is_handed_on(
        srv: Running, stored: tuple[str, int, int]) -> None:
    match_id = stored[1]
    events = replay(MatchRecord.from_json(EXAMPLE.read_text())).events
    room = open_room(srv, match_id)
    assert room["url"] == f"/together/{room['code']}" and room["match_id"] == match_id
    base = f"{srv.ws}/ws/together/{room['code']}"
    ann = Listener(f"{base}?token={room['token']}")
    ben, cara = Listener(base), Listener(f"{base}?token=not-the-drivers")
    try:
        hello = [until(lambda x=x: last(x, "together"), "the welcome") for x in (ann, ben, cara)]
        assert [h["driver"] for h in hello] == [True, False, False]
        assert hello[0]["name"] == "Ann" and hello[0]["match_id"] == match_id
        assert hello[1]["position"]["by"] is None
        ids = [h["you"] for h in hello]
        # Ann drives: a step to event 5, then playing at 2x; both followers are told.
        e5 = events[5]
        ann.send({"type": "position", "idx": 5, "t": e5.t, "hand": 1, "playing": False,
                  "speed": 1})
        for x in (ben, cara):
            until(lambda x=x: last(x, "position", idx=5), "the step reaches the followers")
        ann.send({"type": "position", "idx": 5, "t": e5.t, "hand": 1, "playing": True,
                  "speed": 2})
        got = until(lambda: last(ben, "position", playing=True), "play reaches Ben")
        assert (got["t"], got["speed"], got["by"]) == (e5.t, 2.0, ids[0])
        # A follower may not drive, nor hand the driving on: refused, and nothing moves.
        ben.send({"type": "position", "idx": 9, "t": events[9].t, "hand": 1, "playing": False,
                  "speed": 1})
        assert "drives" in error(ben, "not_driver")["message"]
        cara.send({"type": "hand_drive", "to": ids[2]})
        error(cara, "not_driver")
        assert last(ann, "position") is None
        # Past the match's end: refused.
        ann.send({"type": "position", "idx": len(events) + 5, "t": 1.0, "hand": 1,
                  "playing": False, "speed": 1})
        error(ann, "bad_position")
        # Chat reaches everyone, with the sender's name (after a change of name) and moment.
        ben.send({"type": "name", "name": "Ben"})
        until(lambda: any(w["name"] == "Ben" for w in (last(ann, "watchers") or {}).get(
            "watchers", [])), "Ben's name reaches Ann")
        ben.send({"type": "chat", "text": "  Did you see her wink?  ", "t": 3.5})
        for x in (ann, ben, cara):
            line = until(lambda x=x: last(x, "chat"), "the chat line")
            assert (line["name"], line["text"], line["t"], line["from"]) == \
                ("Ben", "Did you see her wink?", 3.5, ids[1])
        # Ann hands the driving to Cara: Cara gets a fresh token and drives; Ann follows.
        ann.send({"type": "hand_drive", "to": ids[2]})
        token = until(lambda: last(cara, "drive"), "Cara is handed the driving")["token"]
        until(lambda: [w["driver"] for w in (last(ben, "watchers") or {}).get("watchers", [])]
              == [False, False, True], "everyone sees Cara drive")
        cara.send({"type": "position", "idx": 9, "t": events[9].t, "hand": 1, "playing": False,
                   "speed": 1})
        until(lambda: last(ann, "position", idx=9), "Cara's step reaches Ann")
        ann.send({"type": "position", "idx": 2, "t": events[2].t, "hand": 1, "playing": False,
                  "speed": 1})
        error(ann, "not_driver")
        # The new token drives from a new connection too (a reload), and the room stood where
        # Cara left it; Ann's old token does not.
        again = Listener(f"{base}?token={token}")
        old = Listener(f"{base}?token={room['token']}")
        try:
            hello2 = until(lambda: last(again, "together"), "the welcome")
            assert hello2["driver"] is True and hello2["position"]["idx"] == 9
            assert until(lambda: last(old, "together"), "the welcome")["driver"] is False
            assert hello2["chat"][-1]["text"] == "Did you see her wink?"
        finally:
            again.close()
            old.close()
    finally:
        for x in (ann, ben, cara):
            x.close()


def test_every_limit_is_refused_with_a_code(srv: Running, stored: tuple[str, int, int]) -> None:
    limits(srv, rooms_per_address=2, max_watchers=2, chat_burst=3, chat_per_s=0.05,
           rate_burst=30, rate_per_s=0.5)
    match_id = stored[1]
    # Opening: a finished match only, a clean name, two rooms per address.
    r = httpx.post(f"{srv.url}/api/replays/999999/together", json={"name": "Ann"}, timeout=30)
    assert (r.status_code, r.json()["code"]) == (404, "no_such_match")
    for body in ({"name": ""}, {"name": "An\u202en"}, {"name": "x" * 41}, {},
                 {"name": "Ann", "admin": True}):
        r = httpx.post(f"{srv.url}/api/replays/{match_id}/together", json=body, timeout=30)
        assert r.status_code == 422, (body, r.text)
        assert r.json()["code"] in ("bad_text", "bad_request"), r.text
    first, _ = open_room(srv, match_id), open_room(srv, match_id)
    r = httpx.post(f"{srv.url}/api/replays/{match_id}/together", json={"name": "Ann"},
                   timeout=30)
    assert (r.status_code, r.json()["code"]) == (429, "too_many_together")
    assert float(r.headers["Retry-After"]) > 0
    # A code that names no room; a room full of watchers.
    message, close = refused_on_connect(f"{srv.ws}/ws/together/QQQQQQ")
    assert (message["code"], close) == ("no_such_together", 4404)
    base = f"{srv.ws}/ws/together/{first['code']}"
    ann, ben = Listener(f"{base}?token={first['token']}"), Listener(base)
    try:
        for x in (ann, ben):
            until(lambda x=x: last(x, "together"), "the welcome")
        message, close = refused_on_connect(base)
        assert (message["code"], close) == ("watchers_full", 4429)
        # Messages: too large, not JSON, unknown, a chat line too long or unclean.
        ben.ws.send(json.dumps({"type": "chat", "text": "y" * (MAX_TOGETHER_BYTES + 10)}))
        error(ben, "too_large")
        ben.ws.send("{not json")
        error(ben, "bad_json")
        ben.send({"type": "seek", "t": 3})
        error(ben, "bad_message")
        ben.send({"type": "chat", "text": "z" * (MAX_CHAT_CHARS + 1)})
        assert "at most" in error(ben, "bad_text")["message"]
        ben.send({"type": "chat", "text": "bad\x07bell"})
        until(lambda: sum(m.get("code") == "bad_text" for m in ben.seen()) == 2, "bad_text")
        errors = sum(m.get("type") == "error" for m in ben.seen())
        ben.send({"type": "position", "idx": 1, "t": float("nan"), "hand": 1,
                  "playing": False, "speed": 1})
        told = until(lambda: [m for m in ben.seen() if m.get("type") == "error"][errors:],
                     "NaN refused")
        assert told[0]["code"] in ("bad_json", "bad_message"), told
        # The chat rate: three lines at once, the fourth refused (and not sent to anyone).
        for k in range(4):
            ben.send({"type": "chat", "text": f"line {k}"})
        error(ben, "chat_flooding")
        until(lambda: [m["text"] for m in ann.seen() if m.get("type") == "chat"]
              == ["line 0", "line 1", "line 2"], "three lines reach Ann")
        # The message rate: past the burst, a message is answered flooding and ignored.
        for k in range(40):
            ann.send({"type": "ping", "id": k})
        error(ann, "flooding")
        pongs = [m for m in ann.seen() if m.get("type") == "pong"]
        assert 20 <= len(pongs) < 40
    finally:
        ann.close()
        ben.close()


def test_an_idle_room_closes_and_says_so(srv: Running, stored: tuple[str, int, int]) -> None:
    limits(srv, idle_s=1.0, empty_s=0.5)
    room = open_room(srv, stored[1])
    base = f"{srv.ws}/ws/together/{room['code']}"
    ann = Listener(f"{base}?token={room['token']}")
    try:
        until(lambda: last(ann, "together"), "the welcome")
        assert error(ann, "together_closed")["message"].startswith(
            f"The shared replay {room['code']} closed")
    finally:
        ann.close()
    message, close = refused_on_connect(base)
    assert (message["code"], close) == ("no_such_together", 4404)
    # Nobody connected: closed after empty_s, and the address may open another.
    for _ in range(3):
        room = open_room(srv, stored[1])
    until(lambda: httpx.post(f"{srv.url}/api/replays/{stored[1]}/together",
                             json={"name": "Ann"}, timeout=30).status_code == 200,
          "the empty rooms close")


def test_a_shared_replay_keeps_a_withheld_pair_withheld(
        browser: Browser, srv: Running, stored: tuple[str, int, int]) -> None:
    """The second stored match's pair 1 (Ben & Dev) withholds its signals: the shared room's
    messages carry nothing of them, and its pages show what the single replay page shows."""
    match_id = stored[2]
    view = httpx.get(f"{srv.url}/api/replays/{match_id}", timeout=30).json()
    assert view["signals_withheld"] == [1]
    assert signal_leaks(view, 1, 2, ("Ben", "Dev")) == []
    assert signal_leaks(view, 0, 2, ("Alice", "Cara")) != []  # shown: the search finds them
    room = open_room(srv, match_id)
    assert signal_leaks(room, 1, 2) == []
    base = f"{srv.ws}/ws/together/{room['code']}"
    ann, ben = Listener(f"{base}?token={room['token']}"), Listener(base)
    try:
        until(lambda: last(ann, "together"), "the welcome")
        with new_page(browser) as page:
            page.goto(f"{srv.url}{room['url']}")
            expect(page.locator("#together")).to_have_attribute("data-driver", "false",
                                                                timeout=WAIT_MS)
            expect(page.locator("#withheld")).to_contain_text("Ben & Dev")
            expect(page.locator("#markers .mk.signal")).to_have_count(
                sum(1 for m in view["markers"] if m["kind"] == "signal"))
            e = view["events"][7]
            ann.send({"type": "position", "idx": 7, "t": e["t"], "hand": e["hand"],
                      "playing": False, "speed": 1})
            expect(page.locator("#replay")).to_have_attribute("data-idx", "7", timeout=WAIT_MS)
            page.locator("#tg-text").fill("hello")
            page.locator("#tg-text").press("Enter")
            until(lambda: last(ann, "chat"), "the chat line")
            until(lambda: last(ben, "chat"), "the chat line")
        for messages in (ann.seen(), ben.seen()):
            assert signal_leaks(messages, 1, 2) == []
            assert not any(key in json.dumps(messages) for key in (
                "signals_agreed", "agree_signals", '"events"', '"hands"', '"signal"'))
    finally:
        ann.close()
        ben.close()


# == the page ======================================================================================
def attr(page: Page, name: str) -> str:
    return page.locator("#replay").get_attribute(f"data-{name}") or ""


def follows(driver: Page, followers: list[Page], *names: str) -> None:
    """Every follower's ``#replay`` shows the driver's ``data-{name}`` (within the deadline)."""
    for name in names:
        want = attr(driver, name)
        for page in followers:
            expect(page.locator("#replay")).to_have_attribute(f"data-{name}", want,
                                                              timeout=WAIT_MS)


def test_two_pages_follow_the_driver_and_talk(browser: Browser, srv: Running,
                                             stored: tuple[str, int, int]) -> None:
    match_id = stored[1]
    view = httpx.get(f"{srv.url}/api/replays/{match_id}", timeout=30).json()
    with new_page(browser) as ann, new_page(browser) as ben, new_page(browser) as cara:
        # Ann opens the replay and a shared room from it.
        ann.goto(f"{srv.url}/replay/{match_id}")
        expect(ann.locator("#replay")).to_have_attribute("data-hand", "1", timeout=WAIT_MS)
        ann.locator("#tg-name").fill("Ann")
        ann.get_by_role("button", name="Watch together").click()
        expect(ann.locator("#together")).to_have_attribute("data-driver", "true",
                                                           timeout=WAIT_MS)
        link = ann.locator("#tg-link").input_value()
        assert "/together/" in link and ann.url.startswith(link)
        for page, name in ((ben, "Ben"), (cara, "Cara")):
            page.goto(link)
            expect(page.locator("#together")).to_have_attribute("data-driver", "false",
                                                                timeout=WAIT_MS)
            expect(page.locator("#tg-status")).to_contain_text("Ann drives")
            page.locator("#tg-myname").fill(name)
            page.locator("#tg-myname").press("Enter")
            # A follower's controls are locked.
            for control in ("#play", "#fwd", "#back", "#speed", "#hand", "#scrub"):
                expect(page.locator(control)).to_be_disabled()
        followers = [ben, cara]
        follows(ann, followers, "idx", "t", "hand")
        expect(ann.locator("#tg-watchers li")).to_have_count(3, timeout=WAIT_MS)
        expect(ann.locator("#tg-watchers")).to_contain_text("Cara", timeout=WAIT_MS)
        # Steps.
        for _ in range(3):
            ann.get_by_role("button", name="Step forward one event").click()
        follows(ann, followers, "idx", "t", "hand")
        # A hand.
        ann.locator("#hand").select_option("3")
        expect(ann.locator("#replay")).to_have_attribute("data-hand", "3")
        follows(ann, followers, "idx", "t", "hand")
        # A seek on the timeline, to a moment in hand 5.
        at = view["hands"][4]["t"] + 0.25
        ann.locator("#scrub").fill(f"{at:.2f}")
        expect(ann.locator("#replay")).to_have_attribute("data-hand", "5")
        follows(ann, followers, "idx", "t", "hand")
        # A link to a moment inside the room: the driver's goes there and takes everyone.
        moment = view["hands"][-2]["t"] + 0.5  # hand 7 of 8: the plays below are short
        ann.goto(f"{link}#t={moment:.3f}")
        expect(ann.locator("#replay")).to_have_attribute("data-t", f"{moment:.3f}",
                                                         timeout=WAIT_MS)
        follows(ann, followers, "idx", "t", "hand")
        # Played at 0.25x (the match's end is 19 s away), then paused: everyone played, and
        # everyone stops where the driver stopped.
        ann.locator("#speed").select_option("0.25")
        expect(ben.locator("#speed")).to_have_value("0.25", timeout=WAIT_MS)
        ann.get_by_role("button", name="▶ Play").click()
        for page in followers:
            expect(page.locator("#replay")).to_have_attribute("data-playing", "true",
                                                              timeout=WAIT_MS)
        ann.get_by_role("button", name="❚❚ Pause").click()
        expect(ann.locator("#replay")).to_have_attribute("data-playing", "false")
        follows(ann, followers, "idx", "t", "hand", "playing")
        assert float(attr(ann, "t")) > moment
        # Then at 4x to the end: everyone ends where the driver ends.
        ann.locator("#speed").select_option("4")
        expect(cara.locator("#speed")).to_have_value("4", timeout=WAIT_MS)
        ann.get_by_role("button", name="▶ Play").click()
        for page in (ann, *followers):
            expect(page.locator("#replay")).to_have_attribute("data-ended", "true",
                                                              timeout=WAIT_MS)
        follows(ann, followers, "idx", "t", "hand", "playing")
        # Chat: Ben's line reaches Ann and Cara, with his name and the moment.
        ben.locator("#tg-text").fill("Cara's wink was the signal")
        ben.locator("#tg-text").press("Enter")
        for page in (ann, cara):
            line = page.locator("#tg-chat li").last
            expect(line).to_contain_text("Cara's wink was the signal", timeout=WAIT_MS)
            expect(line.locator("b")).to_have_text("Ben")
        # Ann hands the driving to Ben; Ben steps back and Ann and Cara follow.
        ann.locator('#tg-watchers li:has-text("Ben") button').click()
        expect(ben.locator("#together")).to_have_attribute("data-driver", "true",
                                                           timeout=WAIT_MS)
        expect(ann.locator("#together")).to_have_attribute("data-driver", "false",
                                                           timeout=WAIT_MS)
        expect(ann.locator("#fwd")).to_be_disabled()
        ben.get_by_role("button", name="Step back one event").click()
        ben.get_by_role("button", name="Step back one event").click()
        follows(ben, [ann, cara], "idx", "t", "hand")
        assert int(attr(ann, "idx")) == len(view["events"]) - 3


def test_docs_list_every_watcher_message_and_each_example_parses() -> None:
    """docs/protocol.md's table of what a watcher sends is exactly the messages the server
    reads, and each model's example is read as that message (a field more is refused)."""
    from kemps.server.together import CLIENT_TYPES, TogetherError, parse_together_message

    doc = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    section = doc.split("#### Watcher to server", 1)[1].split("\n#", 1)[0]
    assert set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)) == \
        set(CLIENT_TYPES)
    for kind, model in CLIENT_TYPES.items():
        example = re.search(r"``(\{.*?\})``", model.__doc__ or "", flags=re.DOTALL)
        assert example is not None, kind
        assert type(parse_together_message(example.group(1))) is model
        with pytest.raises(TogetherError) as caught:
            parse_together_message(json.dumps({**json.loads(example.group(1)), "extra": 1}))
        assert caught.value.code == "bad_message"
