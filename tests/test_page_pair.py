"""Issue 25, "Your pair is yours": a bot partner proposes a signal change in the huddle and the
person answers it; the pair's signals change only when the person accepts.

Why (the issue): "A bot partner changed the pair's agreed signals without asking after a right
Kemps, to a heard one (whistle) that every seat hears." The rule: S1 "each two player team goes
away and privately agrees a signal"; S0 "pairs may agree a new signal before the next round".

A real server and Chromium. Pat sits with a club bot for a partner at a table that allows heard
signals. The rig: club bots always want a new signal between hands (``change_anyway`` 1.0, as if
every signal had been read) and the one with a person for a partner picks the whistle, then a
tap on the table. Pat agrees a nod; each hand Pat ends at once with a wrong Kemps (a letter to
Pat's pair, and the huddle again). The first proposal (the whistle: the page says everyone at
the table hears it) Pat turns down with "Keep ours": the nod stands. The second Pat accepts:
the pair's signal is the tap. The proposal is screenshotted at 1366x768 and 390x844, its
buttons in view at both. A spectator's WebSocket is told none of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from kemps.bots import strength
from kemps.bots.player import KempsBot
from secrecy import Listener, signal_leaks
from serving import server_thread, sqlite_url
from test_page import WAIT_MS, create_room, new_page, shots_dir, start_with_bots

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}


@pytest.fixture
def eager_bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Club bots that want a new signal every huddle; a person's partner picks the whistle,
    then a tap on the table (bots partnered with bots choose as they always do)."""
    monkeypatch.setitem(strength.LEVELS, "club", replace(strength.CLUB, change_anyway=1.0))
    script = iter(["whistle", "tap_table", "wink", "yawn"])
    choose = KempsBot._choose_signal

    def scripted(self: KempsBot) -> str:
        return next(script) if self.partner_person and self.signals else choose(self)

    monkeypatch.setattr(KempsBot, "_choose_signal", scripted)
    yield


def view(page: Page) -> dict[str, object]:
    found: dict[str, object] = page.evaluate("() => window.kemps.S.view")
    return found


def end_the_hand(page: Page) -> None:
    """Ready for the deal, then a wrong Kemps the moment play opens: the hand ends (pagat), and
    the huddle opens again."""
    page.keyboard.press("r")
    expect(page.locator("#huddle")).to_be_hidden(timeout=WAIT_MS)
    page.wait_for_function("() => window.kemps.S.view.phase === 'play'", timeout=WAIT_MS)
    page.keyboard.press("k")
    expect(page.locator("#huddle")).to_be_visible(timeout=WAIT_MS)


def in_view(page: Page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"] + 0.5, (selector, box, size)
    assert box["y"] + box["height"] <= size["height"] + 0.5, (selector, box, size)


def test_a_bot_partner_proposes_and_the_person_keeps_ours_then_accepts(
        browser: Browser, tmp_path: Path, eager_bots: None) -> None:
    shots = shots_dir(tmp_path)
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser, DESKTOP) as page:
        code = create_room(page, srv.url, "Pat")
        token = page.evaluate("() => window.kemps.S.token")
        r = httpx.put(f"{srv.url}/api/rooms/{code}/rules", headers={
            "Authorization": f"Bearer {token}"}, json={"preset": "pagat", "pairs": 2,
                                                         "options": {"heard_signals": True}})
        assert r.status_code == 200 and r.json()["rules"]["heard_signals"] is True, r.text
        start_with_bots(page)
        spectator = Listener(f"{srv.ws}/ws/{code}")  # sees no proposal, no answer, no signal
        me, partner = view(page)["seat"], view(page)["partner"]
        assert isinstance(partner, int)
        partner_name = page.evaluate(f"() => window.kemps.S.view.names[{partner}]")

        # The first huddle: Pat agrees a nod (the bot's own first choice, if it came first,
        # is replaced: the pair had none).
        page.locator("#sig-nod").check()
        page.locator("#agree-signals").click()
        page.wait_for_function("() => window.kemps.S.view.signals.join() === 'nod'",
                               timeout=WAIT_MS)
        expect(page.locator("#proposal")).to_be_hidden()

        # Hand 1 ends; the partner proposes the whistle, which everyone hears.
        end_the_hand(page)
        proposal = page.locator("#proposal")
        expect(proposal).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#proposal-text")).to_contain_text(
            f"{partner_name}, your partner, proposes a new signal: whistles")
        expect(page.locator("#proposal-text .heard-note")).to_contain_text(
            "everyone at the table hears it")
        expect(page.locator("#proposal-text")).to_contain_text("Keep ours: nods")
        assert view(page)["proposal"] == {"seat": partner, "signals": ["whistle"]}
        assert view(page)["signals"] == ["nod"]  # a proposal changes nothing yet
        in_view(page, "#proposal-accept")
        in_view(page, "#proposal-keep")
        page.screenshot(path=str(shots / "proposal-1366x768.png"))
        page.set_viewport_size(PHONE)  # type: ignore[arg-type]
        expect(page.locator("#proposal-accept")).to_be_visible()
        page.locator("#proposal").scroll_into_view_if_needed()
        in_view(page, "#proposal-accept")
        in_view(page, "#proposal-keep")
        page.screenshot(path=str(shots / "proposal-390x844.png"))
        page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]

        page.get_by_role("button", name="Keep ours").click()
        expect(proposal).to_be_hidden(timeout=WAIT_MS)
        assert view(page)["signals"] == ["nod"] and view(page)["proposal"] is None
        expect(page.locator("#signals-now")).to_have_text("Agreed: nods.")
        expect(page.locator("#log")).to_contain_text("Pat keeps the pair's signal")

        # Hand 2 ends; the partner proposes a tap on the table, and Pat accepts.
        end_the_hand(page)
        expect(proposal).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#proposal-text")).to_contain_text("proposes a new signal: taps the table")
        expect(page.locator("#proposal-text .heard-note")).to_have_count(0)  # a seen gesture
        page.get_by_role("button", name="Accept").click()
        expect(proposal).to_be_hidden(timeout=WAIT_MS)
        page.wait_for_function("() => window.kemps.S.view.signals.join() === 'tap_table'",
                               timeout=WAIT_MS)
        expect(page.locator("#signals-now")).to_have_text("Agreed: taps the table.")
        expect(page.locator("#log")).to_contain_text(re.compile(r"agree a signal: tap table"))
        assert view(page)["seat"] == me
        seen = spectator.seen()
        spectator.close()
        assert sum(e.get("type") == "called" for m in seen for e in m.get("events", ())) == 2
        assert signal_leaks(seen, 0, 2) == []
