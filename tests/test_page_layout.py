"""The table in view: at 1280x800, 1366x768 and a 390x844 phone, with no scrolling, a seated
player sees their four cards, the middle, their partner, the calls (Kemps / Stop) and their signal
during a hand (and every player drawn as a person, none of them on a card, a call or
the signal), and the huddle's Agree and Ready buttons when it opens (issue "A table a newcomer
can play", items 1 and 2).

Each size is its own test against a real server and three bots; the boxes measured are printed
(``-s``) so a layout change can be compared by eye.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from serving import server_thread, sqlite_url
from test_page import create_room, new_page, shots_dir, start_with_bots, wait_for_hand

SIZES = {"1280x800": {"width": 1280, "height": 800}, "1366x768": {"width": 1366, "height": 768},
         "390x844": {"width": 390, "height": 844}}

# What must be in view, as CSS selectors on the table page.
HUDDLE = {"agree": "#agree-signals", "ready": "#ready", "countdown": "#deal-countdown"}
HAND = {"your cards": '[data-zone="hand"]', "the middle": '#middle [data-zone="middle"]',
        "your partner": ".seat.partner .plate", "calls": "#actions button.call",
        "your signal": "#my-signal .gesture.secret", "the people": ".seat .person"}
# The people (issue 11) never sit on what a hand is played with.
CLEAR_OF_PEOPLE = ("your cards", "the middle", "calls", "your signal")


def boxes(page: Page, wanted: dict[str, str]) -> dict[str, list[dict[str, float]]]:
    """Every element of each selector, as its bounding box in viewport pixels, plus the
    window's scroll offset (which must stay 0)."""
    found: dict[str, list[dict[str, float]]] = page.evaluate(
        """(wanted) => {
          const out = {};
          for (const [name, sel] of Object.entries(wanted))
            out[name] = [...document.querySelectorAll(sel)].map((e) => {
              const r = e.getBoundingClientRect();
              return {x: Math.round(r.left), y: Math.round(r.top),
                      right: Math.round(r.right), bottom: Math.round(r.bottom)};
            });
          out.scroll = [{x: window.scrollX, y: window.scrollY, right: 0, bottom: 0}];
          return out;
        }""", wanted)
    return found


def people_in_the_way(found: dict[str, list[dict[str, float]]]) -> list[str]:
    """Each person's box that overlaps a card, a call or the signal."""
    bad = []
    for p in found["the people"]:
        for name in CLEAR_OF_PEOPLE:
            for r in found[name]:
                if p["x"] < r["right"] and r["x"] < p["right"] and p["y"] < r["bottom"] \
                        and r["y"] < p["bottom"]:
                    bad.append(f"a person at {p} overlaps {name} at {r}")
    return bad


def out_of_view(found: dict[str, list[dict[str, float]]], size: dict[str, int]) -> list[str]:
    bad = []
    for name, rects in found.items():
        if name == "scroll":
            if rects[0]["x"] or rects[0]["y"]:
                bad.append(f"the window is scrolled to {rects[0]}")
            continue
        if not rects:
            bad.append(f"{name}: not on the page")
        for r in rects:
            if r["right"] - r["x"] < 4 or r["bottom"] - r["y"] < 4:
                bad.append(f"{name}: {r} is not shown")
            elif r["x"] < 0 or r["y"] < 0 or r["right"] > size["width"] or r["bottom"] > size["height"]:
                bad.append(f"{name}: {r} is outside {size['width']}x{size['height']}")
    return bad


@pytest.mark.parametrize(("label", "pairs"), [(label, 2) for label in SIZES]
                         + [("1366x768", 4), ("390x844", 4)])
def test_everything_needed_in_a_hand_is_in_view(browser: Browser, tmp_path: Path,
                                                label: str, pairs: int) -> None:
    size = SIZES[label]
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser, size) as page:
        create_room(page, srv.url, "Alice")
        # The lobby's seats fit across the window (they were clipped at the sides on a phone).
        seats = boxes(page, {"lobby seats": ".lseat"})["lobby seats"]
        wide = [r for r in seats if r["x"] < 0 or r["right"] > size["width"]]
        assert len(seats) == 4 and not wide, wide
        if pairs == 2:
            start_with_bots(page)
        else:  # eight players: the rules' pairs, then bots in the seven open seats
            page.locator("#lobby-pairs-select").select_option(str(pairs))
            expect(page.locator(".lseat")).to_have_count(2 * pairs)
            page.get_by_role("button", name="Fill empty seats with bots").click()
            expect(page.locator(".lseat.bot")).to_have_count(2 * pairs - 1)
            page.get_by_role("button", name="Start the match").click()
            expect(page.locator("#huddle")).to_be_visible()
        expect(page.locator("#deal-countdown")).to_contain_text("First deal in")
        huddle = boxes(page, HUDDLE)
        bad = out_of_view(huddle, size)
        page.get_by_role("checkbox", name="Touch ear").check()
        page.get_by_role("button", name="Agree these signals").click()
        expect(page.locator("#my-signal .gesture.secret")).to_have_count(1)
        # Scrolled away between hands (to the score, the log): the deal brings the table back.
        scrolled = page.evaluate(
            "() => { window.scrollTo(0, document.body.scrollHeight); return window.scrollY; }")
        if label == "390x844":  # the phone has the score and the log below the table
            assert scrolled > 0
        page.get_by_role("button", name="Ready").click()
        wait_for_hand(page)
        expect(page.locator('#middle [data-zone="middle"]')).to_have_count(4)
        hand = boxes(page, HAND)
        bad += out_of_view(hand, size)
        assert len(hand["the people"]) == 2 * pairs
        bad += people_in_the_way(hand)
        page.screenshot(path=shots_dir(tmp_path) / f"in-view-{label}-{pairs}-pairs.png")
        print(json.dumps({"size": label, "pairs": pairs, "huddle": huddle, "hand": hand}))
        assert not bad, bad
