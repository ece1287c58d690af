"""The leaderboard (/leaderboard) and the player page (/player/{id}) in real Chromium (issue 32):
people, pairs and bots ranked with links to each player; a player's rating, matches, partners
and signals; the remembered player's own page binds a name; the main page sits with the key
the browser keeps. The matches are seed 000's worked game (tests/rating_matches.py).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from kemps.server.players import player_id
from kemps.server.ratings import rate_pending
from kemps.server.storage import Storage
from rating_matches import key_of, store, worked_match
from serving import Running, server_thread, sqlite_url
from test_page import DESKTOP, PHONE, new_page, shots_dir

A, B, C, D, E = (player_id(key_of(n)) for n in range(5))
WAIT_MS = 30_000


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """Three rated matches: A & C beat B & D twice, then C & a sharp bot beat A & E."""
    url = sqlite_url(tmp_path_factory.mktemp("board"))

    async def put() -> None:
        storage = Storage(url)
        await storage.start()
        try:
            await store(storage, worked_match([A, B, C, D]),
                        worked_match([A, B, C, D], match_no=2),
                        worked_match([A, C, E, "bot:sharp"], ranks=[2, 1], match_no=3))
            await rate_pending(storage)
        finally:
            await storage.close()

    with ThreadPoolExecutor(1) as pool:  # Playwright's loop may run on this thread already
        pool.submit(asyncio.run, put()).result()
    with server_thread(url) as server:
        yield server


def test_the_leaderboard_ranks_people_pairs_and_bots(browser: Browser, running: Running,
                                                     tmp_path: Path) -> None:
    board = httpx.get(f"{running.url}/api/leaderboard", timeout=10).json()["rows"]
    with new_page(browser) as page:
        page.goto(f"{running.url}/leaderboard")
        rows = page.locator("#board tbody tr")
        expect(rows).to_have_count(5, timeout=WAIT_MS)
        expect(page.locator("#status")).to_contain_text("5 rated people")
        assert [rows.nth(i).get_attribute("data-id") for i in range(5)] == \
            [r["id"] for r in board]
        first = rows.first
        expect(first.locator("td").nth(0)).to_have_text("1")
        expect(first.locator("td").nth(1)).to_have_text(board[0]["name"])
        expect(first.locator("td").nth(2)).to_have_text(f"{board[0]['rating']:.2f}")
        page.get_by_role("button", name="Pairs").click()
        expect(page).to_have_url(re.compile(r"kind=pair"), timeout=WAIT_MS)
        expect(rows.first).to_have_attribute("data-id", re.compile(r"^pair:"), timeout=WAIT_MS)
        expect(rows.first.get_by_role("link")).to_have_count(2)
        page.get_by_role("button", name="Bots").click()
        expect(rows).to_have_count(1, timeout=WAIT_MS)
        expect(rows.first).to_contain_text("Sharp bot")
        page.screenshot(path=str(shots_dir(tmp_path) / "leaderboard-bots.png"))
        page.get_by_role("button", name="People").click()
        expect(rows).to_have_count(5, timeout=WAIT_MS)
        rows.first.get_by_role("link").click()
        expect(page).to_have_url(f"{running.url}/player/{board[0]['id']}", timeout=WAIT_MS)
        expect(page.locator("#player-name")).to_have_text(board[0]["name"], timeout=WAIT_MS)


def test_the_player_page_shows_matches_partners_and_signals(browser: Browser,
                                                            running: Running,
                                                            tmp_path: Path) -> None:
    data = httpx.get(f"{running.url}/api/players/{A}", timeout=10).json()
    with new_page(browser, PHONE) as page:
        page.goto(f"{running.url}/player/{A}")
        expect(page.locator("#player-name")).to_have_text("Alice", timeout=WAIT_MS)
        expect(page.locator("#fig-rating")).to_have_text(f"{data['rating']['rating']:.2f}")
        expect(page.locator("#fig-place")).to_have_text(str(data["place"]))
        expect(page.locator("#fig-matches")).to_have_text("3")
        expect(page.locator("#fig-wins")).to_have_text("2")
        expect(page.locator("#fig-given")).to_have_text(str(data["signals"]["given"]))
        expect(page.locator("#fig-caught")).to_have_text(str(data["signals"]["caught"]))
        rows = page.locator("#matches tbody tr")
        expect(rows).to_have_count(3)
        assert [rows.nth(i).get_attribute("data-match") for i in range(3)] == ["3", "2", "1"]
        expect(rows.first).to_contain_text("2nd")
        expect(rows.nth(1)).to_contain_text("won")
        expect(rows.first.get_by_role("link", name="Replay of match 3")).to_have_attribute(
            "href", "/replay/3")
        partners = page.locator("#partners li")
        expect(partners).to_have_count(2)
        expect(partners.first).to_contain_text("2 matches, 2 won, pair rating")
        expect(page.locator("#bind-form")).to_be_hidden()  # not this browser's player
        page.screenshot(path=str(shots_dir(tmp_path) / "player-phone.png"), full_page=True)
        partners.first.get_by_role("link").click()
        expect(page).to_have_url(f"{running.url}/player/{C}", timeout=WAIT_MS)
        # Cara's id sat as "Ben" in match 3: a player is named by the latest seat they took
        expect(page.locator("#player-name")).to_have_text("Ben", timeout=WAIT_MS)
        expect(page.locator("#matches tbody tr")).to_have_count(3)
        page.goto(f"{running.url}/player/p-0000000000000000")
        expect(page.locator("#status")).to_contain_text("There is no player with that id",
                                                        timeout=WAIT_MS)


def test_the_browser_sits_with_its_key_and_binds_a_name(browser: Browser,
                                                        running: Running) -> None:
    """The main page keeps a key, sits with it (the seat is that player's) and binds the name it
    sat with; the player's own page then offers to change that name."""
    context = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
    try:
        with new_page(browser, DESKTOP, context) as page:
            page.goto(running.url)
            page.locator("#create-name").fill("Quinn")
            page.get_by_role("button", name="Create room").click()
            expect(page).to_have_url(re.compile(r"/room/[A-Z0-9]+$"), timeout=WAIT_MS)
            code = page.url.rsplit("/", 1)[1]
            key = page.evaluate("localStorage.getItem('kemps.playerKey')")
            assert re.fullmatch(r"[A-Za-z0-9_-]{43}", key)
            pid = player_id(key)
            room = running.app.state.server.rooms[code]  # type: ignore[attr-defined]
            assert room.seats[0].player == pid and room.seats[0].name == "Quinn"
            page.wait_for_function("localStorage.getItem('kemps.playerId') !== null",
                                   timeout=WAIT_MS)
            assert page.evaluate("localStorage.getItem('kemps.playerId')") == pid
            page.goto(f"{running.url}/player/{pid}")
            expect(page.locator("#player-name")).to_have_text("Quinn", timeout=WAIT_MS)
            expect(page.locator("#fig-rating")).to_have_text("unrated")
            expect(page.locator("#no-matches")).to_be_visible()
            expect(page.locator("#bind-form")).to_be_visible()
            page.locator("#bind-name").fill("Quinn the Bold")
            page.get_by_role("button", name="Keep this name").click()
            expect(page.locator("#status")).to_have_text("Your name is kept.", timeout=WAIT_MS)
            expect(page.locator("#player-name")).to_have_text("Quinn the Bold")
            assert httpx.get(f"{running.url}/api/players/{pid}", timeout=10).json()["name"] \
                == "Quinn the Bold"
            page.reload()
            assert page.evaluate("localStorage.getItem('kemps.playerKey')") == key  # kept
    finally:
        context.close()
