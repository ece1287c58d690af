"""The page (src/kemps/server/static/) in a real headless Chromium, against a real server.

Playwright's sync API with the system's Chromium (``/usr/bin/chromium``, or ``KEMPS_CHROMIUM``);
in CI (KEMPS_REQUIRE_BROWSER=1) they never skip; on a machine without Chromium they skip with a
message. Each test runs its own server (``tests/serving.py``) on a fresh SQLite file.

Screenshots of every screen are taken by tests/test_page_screens.py (``KEMPS_SCREENSHOTS=DIR``);
``shots_dir`` here is the folder they go to.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from websockets.sync.client import connect as ws_connect

from kemps.rule_options import BY_NAME
from serving import free_port, server_process, server_thread, sqlite_url

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WAIT_MS = 45_000  # a condition, not a pause: long only when a loaded machine is slow


@contextlib.contextmanager
def new_page(browser: Browser, viewport: dict[str, int] = DESKTOP,
             context: BrowserContext | None = None) -> Iterator[Page]:
    """A page that fails the test on any uncaught script error."""
    own = context is None
    ctx = context or browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    page = ctx.new_page()
    page.set_viewport_size(viewport)  # type: ignore[arg-type]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield page
    finally:
        if own:
            ctx.close()
        else:
            page.close()
    assert not errors, f"script errors on the page: {errors}"


def shots_dir(tmp_path: Path) -> Path:
    out = Path(os.environ.get("KEMPS_SCREENSHOTS") or tmp_path / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def cards(page: Page, zone: str) -> list[str]:
    """The card texts shown face up in ``zone`` (``hand`` or ``middle``)."""
    found: list[str] = page.locator(f'[data-zone="{zone}"]').evaluate_all(
        "els => els.map(e => e.dataset.card)")
    return found


def create_room(page: Page, url: str, name: str, target: int | None = None) -> str:
    """Create a room through the page's form; returns its code."""
    page.goto(url + "/")
    page.get_by_label("Your name").first.fill(name)
    if target is not None:
        page.locator("#create-options > summary").click()
        field = page.locator("#create-options-grid-target")
        field.fill(str(target))
        field.press("Tab")
        expect(page.locator("#create-summary")).to_contain_text(f"{target} letters lose")
    page.get_by_role("button", name="Create room").click()
    expect(page.locator("#lobby")).to_be_visible()
    code = page.locator("#room-code").inner_text()
    assert re.fullmatch(r"[A-Z0-9]{4,8}", code)
    assert page.url.endswith(f"/room/{code}")
    return code


def start_with_bots(page: Page) -> None:
    """As the host: fill the open seats with bots and start; the huddle panel comes up."""
    page.get_by_role("button", name="Fill empty seats with bots").click()
    expect(page.locator(".lseat.bot")).to_have_count(3)
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator("#huddle")).to_be_visible()


def make_gesture(page: Page, gesture: str) -> None:
    """Make ``gesture`` (one of the other gestures) from the page's palette: the Gestures button
    opens it, a click on the gesture makes it (and closes it)."""
    if page.locator("#gestures").is_hidden():
        page.locator("#gestures-toggle").click()
    page.locator(f'#gestures .gesture[data-gesture="{gesture}"]').click()


def wait_for_hand(page: Page) -> None:
    expect(page.locator('[data-zone="hand"]')).to_have_count(4, timeout=WAIT_MS)
    expect(page.locator('#middle [data-zone="middle"]').first).to_be_visible(timeout=WAIT_MS)


def swap_by_clicks(page: Page, how: str = "clicks") -> tuple[str, str]:
    """Swap the first hand card for a middle card with two clicks (or ``how="keys"``: Enter on
    one, Space on the other; ``"drag"``: drag the hand card onto the middle card); retries when a
    bot touched the middle card first (the page then shows the server's reason). Returns
    (given, taken)."""
    for _ in range(8):
        if page.evaluate("() => window.kemps.S.view.phase") in ("huddle", "over"):
            raise AssertionError("the hand is over: a bot decided it first")
        hand, middle = cards(page, "hand"), cards(page, "middle")
        if len(hand) != 4 or not middle:
            page.wait_for_timeout(200)
            continue
        give, take = hand[0], middle[-1]
        mine = page.locator(f'[data-zone="hand"][data-card="{give}"]')
        theirs = page.locator(f'[data-zone="middle"][data-card="{take}"]')
        try:
            if how == "drag":
                mine.drag_to(theirs, timeout=3000)
            else:
                if how == "keys":
                    mine.focus(timeout=3000)
                    page.keyboard.press("Enter")
                else:
                    mine.click(timeout=3000)
                expect(mine).to_have_attribute("aria-pressed", "true")
                if how == "keys":
                    theirs.focus(timeout=3000)
                    page.keyboard.press("Space")
                else:
                    theirs.click(timeout=3000)
        except (PlaywrightTimeoutError, AssertionError):
            # A bot took the middle card between our look and our click: clear and try again.
            page.keyboard.press("Escape")
            continue
        try:
            expect(page.locator(f'[data-zone="hand"][data-card="{take}"]')).to_have_count(
                1, timeout=3000)
            return give, take
        except AssertionError:
            continue  # card_gone: someone else took it first; try again
    raise AssertionError("could not swap a card in eight tries")


def in_some_hand(page: Page, swap: Callable[[Page], tuple[str, str]]) -> tuple[str, str]:
    """``swap(page)`` in the first hand the bots leave open long enough. A hand a bot decides
    before it (a dealt four of a kind, signalled and called) is followed by Ready (key R) for the
    next hand, or by a rematch when that hand ended the match (rooms made with ``target: 1``)."""
    for _ in range(4):
        wait_for_hand(page)
        try:
            return swap(page)
        except AssertionError as e:
            if "the hand is over" not in str(e):
                raise
            page.keyboard.press("Escape")  # the banner of that hand goes
            page.wait_for_function("() => !document.getElementById('huddle').hidden"
                                   " || !document.getElementById('match-end').hidden",
                                   timeout=WAIT_MS)
            if page.locator("#match-end").is_visible():
                page.get_by_role("button", name="Rematch").click()
            expect(page.locator("#huddle")).to_be_visible(timeout=WAIT_MS)
            page.keyboard.press("r")
    raise AssertionError("bots decided four hands in a row before a swap")


def assert_no_hidden_cards(page: Page) -> None:
    """Every card in the DOM is the player's own, in the middle, or revealed by the rules."""
    # One evaluation, so that the DOM and the view are read at the same moment (an update
    # arriving between two reads would make the middle differ).
    seen = page.evaluate("() => ({cards: [...document.querySelectorAll('[data-card]')]"
                         ".map((e) => e.dataset.card), faces: document.querySelectorAll("
                         "'#seats .card.face').length, view: window.kemps.S.view})")
    shown, view = set(seen["cards"]), seen["view"]
    allowed = set(view["hand"]) | {c for c in view["middle"] if c}
    for cs in view["revealed"].values():
        allowed |= set(cs)
    assert shown <= allowed, shown - allowed
    assert seen["faces"] == sum(len(c) for c in view["revealed"].values())


def test_full_match_against_bots(browser: Browser, tmp_path: Path) -> None:
    """A player creates a room, fills three seats with bots, agrees a signal with the bot partner,
    swaps by clicks and plays until the match ends with a ranking, then asks for a rematch.

    To keep it short the room is created with the option ``target: 1`` (the first letter loses),
    so the first decided hand ends the match; the player decides it with a Stop Kemps call of their
    own (the simple bots are human-paced and may play a minute or more before calling). The huddle
    waits 30 s for people who have not pressed Ready, 0.5 s once everyone has.
    """
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser) as page:
        page.goto(srv.url + "/")
        page.locator("#create-name").fill("Alice")
        page.locator("#create-options > summary").click()
        expect(page.locator("#create-options-grid-word")).to_have_value("KEMPS")
        # the form's labels come from the options' one declaration (kemps.rule_options)
        expect(page.locator('label[for="create-options-grid-stop_scope"]')).to_have_text(
            BY_NAME["stop_scope"].label)
        code = create_room(page, srv.url, "Alice", target=1)
        start_with_bots_lobby = page.locator(".lseat")
        expect(start_with_bots_lobby).to_have_count(4)
        page.get_by_role("button", name="Fill empty seats with bots").click()
        expect(page.locator(".lseat.bot")).to_have_count(3)
        expect(page.locator("#lobby-pairs")).to_contain_text("opposite")
        page.get_by_role("button", name="Start the match").click()

        # The huddle: only this pair's panel; agree one signal with the bot partner.
        expect(page.locator("#huddle")).to_be_visible()
        expect(page.locator("#huddle-partner")).to_have_text("Cleo")  # the bot across, by name
        expect(page.locator("#deal-countdown")).to_contain_text("First deal in")
        page.get_by_role("checkbox", name="Touch ear").check()
        page.get_by_role("checkbox", name="Wink").check()
        page.get_by_role("button", name="Agree these signals").click()
        expect(page.locator("#signals-now")).to_contain_text("touches an ear; winks")
        expect(page.locator('.gesture.secret[data-gesture="touch_ear"]')).to_be_visible()
        page.get_by_role("button", name="Ready").click()

        # The table: four cards, the middle, the others' backs; swap by two clicks.
        wait_for_hand(page)
        expect(page.locator("#seats .seat:not(.me) .card.back")).to_have_count(12)
        expect(page.locator("#stock")).to_contain_text("Stock:")
        assert_no_hidden_cards(page)
        give, take = in_some_hand(page, swap_by_clicks)
        expect(page.locator(".seat.me .last")).to_contain_text("took")
        assert take in cards(page, "hand") and give not in cards(page, "hand")
        with new_page(browser, PHONE, context=page.context) as phone:
            phone.goto(f"{srv.url}/room/{code}")
            wait_for_hand(phone)
        assert_no_hidden_cards(page)

        # Decide the hand: Stop Kemps (two pairs: the other pair is implied).
        stop = page.get_by_role("button", name=re.compile("^Stop Kemps"))
        if page.evaluate("() => window.kemps.S.view.phase") in ("dealt", "play"):
            stop.click()
            # The banner of the deciding call first, then (at once on Esc) the match-end screen.
            expect(page.locator("#banner")).to_contain_text(re.compile("Right!|Wrong!"),
                                                            timeout=WAIT_MS)
        page.keyboard.press("Escape")  # the banner goes (if it has not yet)
        expect(page.locator("#match-end")).to_be_visible(timeout=WAIT_MS)
        ranking = page.locator("#ranking li")
        expect(ranking).to_have_count(2)
        expect(ranking.first).to_contain_text("1st")
        expect(page.locator("#result-body")).to_contain_text(re.compile("right|wrong"))
        expect(page.locator("#scores")).to_contain_text("K")
        # the finished match's replay, once it is stored (issue 14: linked from the match end)
        expect(page.locator("#match-replay")).to_have_attribute(
            "href", re.compile(r"^/replay/\d+$"), timeout=WAIT_MS)
        assert_no_hidden_cards(page)

        # Rematch: the same seats, a new huddle.
        page.get_by_role("button", name="Rematch").click()
        expect(page.locator("#huddle")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#match-end")).to_be_hidden()
        # The signals agreed last are ticked again (agreed still, or offered to agree again).
        expect(page.get_by_role("checkbox", name="Touch ear")).to_be_checked()
        expect(page.get_by_role("checkbox", name="Wink")).to_be_checked()
        expect(page.locator("#signals-now")).to_contain_text(re.compile("Agreed|last signals"))

        # The history page lists the finished match with its ranking and a link to its record.
        page.goto(srv.url + "/history")
        row = page.locator("#matches tbody tr").first
        expect(row).to_contain_text(code)
        expect(row).to_contain_text("1st")
        expect(row.get_by_role("link", name=re.compile("JSON"))).to_have_attribute(
            "href", re.compile(r"^/api/history/\d+$"))


def test_second_browser_joins_by_code_and_sees_gestures(browser: Browser,
                                                        tmp_path: Path) -> None:
    """A friend in another browser joins by the room code; each sees the other's gestures on the
    gesturer's seat. The host turns attention off in the lobby (today's game: every seat sees every
    gesture, as a bubble and played on the person)."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=3) as srv, \
            new_page(browser) as host, new_page(browser) as friend:
        code = create_room(host, srv.url, "Alice")
        friend.goto(srv.url + "/")
        friend.get_by_label("Room code").fill(code.lower())
        friend.get_by_role("button", name="Join").click()
        expect(friend.locator("#lobby")).to_be_visible()
        friend.locator("#lobby").get_by_label("Your name").fill("Bruno")
        friend.get_by_role("button", name="Sit at seat 2").click()
        expect(host.locator('.lseat[data-seat="1"]')).to_contain_text("Bruno")
        expect(friend.locator("#lobby-wait")).to_contain_text("Waiting for Alice")
        expect(host.locator("#lobby-options-attention")).to_have_value("true")  # online default
        host.locator("#lobby-options-attention").select_option("false")
        expect(friend.locator("#lobby-options-attention")).to_have_value("false")
        host.get_by_role("button", name="Fill empty seats with bots").click()
        host.get_by_role("button", name="Start the match").click()
        for page in (host, friend):
            expect(page.locator("#game")).to_be_visible()
            expect(page.locator("#huddle")).to_be_visible()
        # Alice and Bruno are in different pairs: neither sees the other's huddle choices.
        host.get_by_role("checkbox", name="Nod").check()
        host.get_by_role("button", name="Agree these signals").click()
        expect(host.locator("#signals-now")).to_contain_text("nods")
        expect(friend.locator("#signals-now")).to_contain_text("No signals agreed yet")

        make_gesture(host, "wink")
        expect(friend.locator('.seat[data-seat="0"] .bubble')).to_have_text("winks")
        # (data-played: the last gesture drawn on the person, kept after its 1.1 s show)
        expect(friend.locator('.seat[data-seat="0"] .person')).to_have_attribute(
            "data-played", "wink")
        make_gesture(friend, "scratch_nose")
        expect(host.locator('.seat[data-seat="1"] .bubble')).to_have_text(
            "scratches their nose")
        expect(host.locator("#log")).to_contain_text("Bruno scratches their nose")
        # Bruno's own page shows his gesture on his own seat too.
        expect(friend.locator('.seat[data-seat="1"] .bubble')).to_have_text(
            "scratches their nose")


def test_the_host_turns_spectators_off_in_the_lobby(browser: Browser, tmp_path: Path) -> None:
    """The lobby shows how many watch; the host unticks "Spectators may watch": the spectator's
    page says why it was closed and stops reconnecting; the setting shows to everyone."""
    with server_thread(sqlite_url(tmp_path)) as srv, new_page(browser) as host, \
            new_page(browser) as watcher:
        code = create_room(host, srv.url, "Alice")
        box = host.get_by_label("Spectators may watch")
        expect(box).to_be_checked()
        watcher.goto(f"{srv.url}/room/{code}")
        expect(watcher.locator("#lobby")).to_be_visible()
        expect(watcher.get_by_label("Spectators may watch")).to_be_disabled()
        expect(host.locator("#spectators-count")).to_have_text("1 watching (at most 50)")
        box.uncheck()
        expect(watcher.locator("#toast")).to_contain_text("turned spectators off")
        expect(watcher.locator("#conn")).to_have_text("no spectators")
        expect(host.locator("#spectators-count")).to_contain_text("only seated players")
        assert httpx.get(f"{srv.url}/api/rooms/{code}").json()["spectators"]["allowed"] is False
        watcher.wait_for_timeout(1500)  # it does not come back
        expect(watcher.locator("#conn")).to_have_text("no spectators")


def test_reload_keeps_the_seat(browser: Browser, tmp_path: Path) -> None:
    """The seat token lives in localStorage per room: a reload shows the same hand, still seated.
    A visitor by the shareable link watches as a spectator and sees no hand."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=3) as srv, \
            new_page(browser) as page:
        code = create_room(page, srv.url, "Alice")
        start_with_bots(page)
        page.get_by_role("button", name="Ready").click()
        wait_for_hand(page)
        before = cards(page, "hand")
        page.reload()
        wait_for_hand(page)
        assert cards(page, "hand") == before
        expect(page.locator(".seat.me .seat-name")).to_have_text("Alice")
        expect(page.locator(".seat.me .tags")).to_contain_text("you")
        stored = page.evaluate(f"() => JSON.parse(localStorage.getItem('kemps.seat.{code}'))")
        assert stored["seat"] == 0 and stored["token"]
        # Swapping from the keyboard and by dragging, still seated after the reload.
        give, take = swap_by_clicks(page, "keys")
        assert take in cards(page, "hand") and give not in cards(page, "hand")
        give, take = swap_by_clicks(page, "drag")
        assert take in cards(page, "hand") and give not in cards(page, "hand")

        with new_page(browser) as visitor:
            visitor.goto(f"{srv.url}/room/{code}")
            expect(visitor.locator('#middle [data-zone="middle"]').first).to_be_visible(
                timeout=WAIT_MS)
            assert cards(visitor, "hand") == []
            expect(visitor.locator("#me")).to_be_hidden()
            assert visitor.locator("#seats .card.face").count() == 0
            expect(visitor.locator("#seats .card.back")).to_have_count(16)


def _ready(ws_url: str, code: str, token: str) -> None:
    """Say Ready for a seat over a plain WebSocket (the other three players of the test)."""
    with ws_connect(f"{ws_url}/ws/{code}?token={token}") as ws:
        json.loads(ws.recv())
        ws.send(json.dumps({"type": "ready"}))
        time.sleep(0.2)


def test_restart_mid_hand_restores_the_table(browser: Browser, tmp_path: Path) -> None:
    """A real ``kemps serve`` process is stopped mid-hand and started again on the same SQLite
    file and port: after a reload the page shows the same hand and middle, and play goes on.

    Four people hold the seats (three taken over the JSON API, one in the browser) and the idle
    sweep is off, so nothing moves on its own and the table can be compared exactly."""
    port = free_port()
    db = sqlite_url(tmp_path)
    with server_process(db, port=port) as srv:
        made = httpx.post(f"{srv.url}/api/rooms", json={
            "name": "Alice", "preset": "pagat", "options": {"idle_sweep_s": 0}}).json()
        code = made["code"]
        tokens = [made["token"]]
        for seat, name in ((1, "Bruno"), (2, "Cara"), (3, "Dev")):
            r = httpx.post(f"{srv.url}/api/rooms/{code}/seats", json={"seat": seat, "name": name})
            tokens.append(r.json()["token"])
        httpx.post(f"{srv.url}/api/rooms/{code}/start",
                   headers={"Authorization": f"Bearer {tokens[0]}"}).raise_for_status()
        page_cm = new_page(browser)
        page = page_cm.__enter__()
        page.goto(srv.url + "/")
        page.evaluate(f"() => localStorage.setItem('kemps.seat.{code}', "
                      f"JSON.stringify({{seat: 0, token: {json.dumps(tokens[0])}}}))")
        page.goto(f"{srv.url}/room/{code}")
        expect(page.locator("#huddle")).to_be_visible()
        for token in tokens[1:]:
            _ready(srv.ws, code, token)
        page.get_by_role("button", name="Ready").click()
        wait_for_hand(page)
        hand, middle = cards(page, "hand"), cards(page, "middle")
        assert len(middle) == 4
    try:
        expect(page.locator("#conn")).to_contain_text("reconnecting", timeout=WAIT_MS)
        with server_process(db, port=port):
            page.reload()
            wait_for_hand(page)
            assert cards(page, "hand") == hand
            assert cards(page, "middle") == middle
            expect(page.locator(".seat.me .seat-name")).to_have_text("Alice")
            give, take = swap_by_clicks(page)
            assert take in middle and give in hand
            expect(page.locator(f'[data-zone="middle"][data-card="{give}"]')).to_have_count(1)
            # A swap for a card that is no longer there is refused, and the page says why.
            stale = next(c for c in middle if c not in cards(page, "middle"))
            page.evaluate("([take, give]) => window.kemps.sendAction({type: 'swap', take: [take], give: [give]})",
                          [stale, cards(page, "hand")[1]])
            expect(page.locator("#toast")).to_contain_text("no longer in the middle")
    finally:
        page_cm.__exit__(None, None, None)


def test_the_api_docs_render_with_no_internet(browser: Browser, tmp_path: Path) -> None:
    """/docs shows every route from files the server serves itself (no CDN: this machine, like
    many a club's, has no internet), with its bodies and answers."""
    with server_thread(sqlite_url(tmp_path)) as srv, new_page(browser) as page:
        html = httpx.get(f"{srv.url}/docs").text
        assert "cdn." not in html and "/static-offline-docs/swagger-ui-bundle.js" in html
        page.goto(f"{srv.url}/docs")
        expect(page.locator(".opblock").first).to_be_visible(timeout=20000)
        paths = set(httpx.get(f"{srv.url}/openapi.json").json()["paths"])
        shown = set(page.locator(".opblock-summary-path").evaluate_all(
            "els => els.map(e => e.dataset.path || e.textContent.trim())"))
        assert {p for p in paths if p.startswith("/api/rooms")} <= shown, paths - shown
