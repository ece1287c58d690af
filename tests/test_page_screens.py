"""Every screen at desktop (1280x800) and phone (390x844) size, as the README shows them: the
lobby, the huddle, a hand in play, the call banner and the match end, plus home and how to play.

``KEMPS_SCREENSHOTS=docs/screenshots .venv/bin/python -m pytest tests/test_page_screens.py``
writes them there (viewport shots: what is in view without scrolling); without the variable they
go to the test's temporary folder. The same player is seated in both windows (one browser
context, one seat token)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect

from serving import server_thread, sqlite_url
from test_page import (
    DESKTOP,
    PHONE,
    WAIT_MS,
    create_room,
    in_some_hand,
    new_page,
    shots_dir,
    swap_by_clicks,
    wait_for_hand,
)


def test_every_screen_at_desktop_and_phone_size(browser: Browser, tmp_path: Path) -> None:
    out = shots_dir(tmp_path)
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser, DESKTOP) as desk:
        desk.goto(srv.url + "/")
        desk.locator("#create-name").fill("Alice")
        desk.locator("#create-options > summary").click()
        expect(desk.locator("#create-options-grid-word")).to_be_visible()
        desk.screenshot(path=out / "home.png")
        desk.goto(srv.url + "/how-to-play")
        expect(desk.locator("#presets dt").first).to_be_visible()
        desk.screenshot(path=out / "how-to-play.png")
        code = create_room(desk, srv.url, "Alice", target=1)
        desk.get_by_role("button", name="Fill empty seats with bots").click()
        expect(desk.locator(".lseat.bot")).to_have_count(3)
        with new_page(browser, PHONE, context=desk.context) as phone:
            phone.goto(f"{srv.url}/room/{code}")
            expect(phone.locator(".lseat.bot")).to_have_count(3)
            desk.screenshot(path=out / "lobby.png")
            phone.screenshot(path=out / "lobby-phone.png")
            desk.get_by_role("button", name="Start the match").click()
            for page in (desk, phone):
                expect(page.locator("#huddle")).to_be_visible()
                expect(page.locator("#deal-countdown")).to_contain_text("First deal in")
            for page in (desk, phone):  # each window's ticks are its own until agreed
                page.get_by_role("checkbox", name="Touch ear").check()
                page.get_by_role("checkbox", name="Wink").check()
            desk.screenshot(path=out / "huddle.png")
            phone.screenshot(path=out / "huddle-phone.png")
            desk.get_by_role("button", name="Agree these signals").click()
            desk.get_by_role("button", name="Ready").click()
            # Bots may decide a hand before the first swap: then a rematch deals again.
            in_some_hand(desk, swap_by_clicks)
            wait_for_hand(phone)
            phone.wait_for_timeout(300)
            desk.screenshot(path=out / "table.png")
            phone.screenshot(path=out / "table-phone.png")
            if desk.evaluate("() => window.kemps.S.view.phase") in ("dealt", "play"):
                desk.get_by_role("button", name=re.compile("^Stop Kemps")).click()
            for page in (desk, phone):
                expect(page.locator("#banner")).to_contain_text(re.compile("Right!|Wrong!"),
                                                                timeout=WAIT_MS)
            desk.wait_for_timeout(300)
            # The banner over the table; the match-end screen once it goes.
            desk.screenshot(path=out / "call-banner.png")
            phone.screenshot(path=out / "call-banner-phone.png")
            for page in (desk, phone):
                page.keyboard.press("Escape")  # the banner goes (if it has not yet)
                expect(page.locator("#match-end")).to_be_visible()
                expect(page.locator("#recap-body tr")).to_have_count(1)
            desk.screenshot(path=out / "match-end.png")
            phone.screenshot(path=out / "match-end-phone.png")
