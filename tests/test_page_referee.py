"""The referee's seat in real Chromium (issue 32): a third page sits as the dealer who is not
playing, sees both pairs' hands, says Go and sweeps.

S2 tournament row 7: "Give each table a dealer who is not playing, to sweep the cards and judge the
first touch. The dealer's ruling stands." Four people at a tournament table (Alice and Ben on
pages, Cara and Dev seated through the API and never connected, so nothing acts on its own), the
table's own Go and idle sweep two minutes away: only the referee's buttons open play and sweep.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from serving import server_thread, sqlite_url
from test_page import DESKTOP, WAIT_MS, cards, new_page, wait_for_hand

NAMES = ["Alice", "Ben", "Cara", "Dev"]


def seated(page: Page, url: str, code: str, seat: int, token: str) -> None:
    """Open the room on ``page`` as the person holding ``seat`` (the token where the page keeps
    it, as if they had sat down there)."""
    page.goto(url + "/")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                  [f"kemps.seat.{code}", json.dumps({"seat": seat, "token": token})])
    page.goto(f"{url}/room/{code}")


def test_a_third_page_sits_as_referee_sees_both_hands_says_go_and_sweeps(
        browser: Browser, tmp_path: Path) -> None:
    with server_thread(sqlite_url(tmp_path), huddle_s=3.0, bot_huddle_s=0.5,
                       away_grace_s=300.0) as srv, \
            new_page(browser, DESKTOP) as alice, new_page(browser, DESKTOP) as ben, \
            new_page(browser, DESKTOP) as rita:
        made = httpx.post(f"{srv.url}/api/rooms", json={
            "name": "Alice", "preset": "tournament",
            "options": {"start_countdown_s": 120.0, "idle_sweep_s": 120.0}}, timeout=10)
        assert made.status_code == 201, made.text
        code, tokens = made.json()["code"], [made.json()["token"]]
        for seat in (1, 2, 3):
            r = httpx.post(f"{srv.url}/api/rooms/{code}/seats",
                           json={"seat": seat, "name": NAMES[seat]}, timeout=10)
            r.raise_for_status()
            tokens.append(r.json()["token"])
        seated(alice, srv.url, code, 0, tokens[0])
        seated(ben, srv.url, code, 1, tokens[1])
        for page in (alice, ben):
            expect(page.locator("#lobby")).to_be_visible(timeout=WAIT_MS)
        # A spectator's page offers the referee's seat; Rita takes it.
        rita.goto(f"{srv.url}/room/{code}")
        expect(rita.locator("#lobby")).to_be_visible(timeout=WAIT_MS)
        offer = rita.locator("#lobby-referee")
        offer.get_by_label("Referee's name").fill("Rita")
        offer.get_by_role("button", name="Sit as referee").click()
        expect(rita.locator("#lobby-referee")).to_contain_text("You are the referee",
                                                               timeout=WAIT_MS)
        # The players are told a referee watches.
        for page in (alice, ben):
            expect(page.locator("#lobby-referee")).to_contain_text("A referee watches: Rita",
                                                                   timeout=WAIT_MS)
        httpx.post(f"{srv.url}/api/rooms/{code}/start",
                   headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10
                   ).raise_for_status()
        for page in (alice, ben):
            wait_for_hand(page)
            expect(page.locator("#referee-panel")).to_contain_text("A referee watches: Rita")
        panel = rita.locator("#referee-panel")
        expect(panel).to_contain_text("You are the referee", timeout=WAIT_MS)
        # Both pairs' hands, each as its own player sees it; the players see only their own.
        for seat, page in ((0, alice), (1, ben)):
            shown = panel.locator(f'.referee-hands li[data-seat="{seat}"] .referee-cards')
            expect(shown).to_have_attribute("data-cards", _four_cards(), timeout=WAIT_MS)
            assert sorted(shown.get_attribute("data-cards").split()) == sorted(  # type: ignore[union-attr]
                cards(page, "hand"))
        for seat in (2, 3):
            expect(panel.locator(f'.referee-hands li[data-seat="{seat}"] .referee-cards')
                   ).to_have_attribute("data-cards", _four_cards())
        for page in (alice, ben):
            expect(page.locator(".referee-hands")).to_have_count(0)
        # Go: play opens for everyone (the table's own Go is two minutes away).
        go = panel.get_by_role("button", name="Go!")
        expect(go).to_be_enabled(timeout=WAIT_MS)
        go.click()
        sweep = panel.get_by_role("button", name="Sweep the middle")
        expect(sweep).to_be_enabled(timeout=WAIT_MS)
        expect(alice.locator("#log")).to_contain_text("Play!", timeout=WAIT_MS)
        before = cards(alice, "middle")
        assert len(before) == 4
        sweep.click()
        for page in (alice, ben, rita):
            expect(page.locator("#log")).to_contain_text("Swept", timeout=WAIT_MS)
        expect(alice.locator('#middle [data-zone="middle"]').first).not_to_have_attribute(
            "data-card", before[0], timeout=WAIT_MS)


def _four_cards() -> object:
    import re

    return re.compile(r"^\S+ \S+ \S+ \S+$")
