"""The replay page (static/replay.html, replay.js) in a real headless Chromium, against a real
server, on a match played against bots there (tests/replaying.py: sharp bots, a short stall,
two letters lose; the module's fixture plays it once, 15-35 s, before the first test).

Each test then stays well under 30 s: the replay opens on the first deal with the live table's
people (their looks and gestures) and its controls in view at 1366x768 and 390x844; played at 4x
to the end with the last hand's
tell strip checked against the record's events; a link opening at hand 2 (and one at a moment);
the stats panel's every figure equal to ``kemps replay --stats --json`` on the record the page
offers for download.

Screenshots: ``KEMPS_SCREENSHOTS=docs/screenshots .venv/bin/python -m pytest
tests/test_replay_page.py -k screenshots`` writes replay.png, replay-phone.png,
replay-stats.png and replay-stats-phone.png there (else to the test's temporary folder).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect
from typer.testing import CliRunner

from kemps.cli import app
from kemps.events import Called, Gestured, HandDealt, Swapped
from kemps.record import MatchRecord, replay
from kemps.tell import STRIP_S
from replaying import Played, play_bot_match
from serving import Running, server_thread, sqlite_url
from test_page import DESKTOP, PHONE, new_page, shots_dir

DESKTOP_WIDE = {"width": 1366, "height": 768}


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Played, str]]:
    """A server, a match played against bots on it, and that match's record as the replay page
    offers it for download (JSON text). The room has ended, so every pair's signals show."""
    tmp = tmp_path_factory.mktemp("replay-page")
    with server_thread(sqlite_url(tmp), bot_huddle_s=0.2, huddle_s=30, room_idle_s=1.0) as srv:
        played = play_bot_match(srv.url, end=True)
        record = httpx.get(f"{srv.url}/api/replays/{played.match_id}/record", timeout=10)
        record.raise_for_status()
        yield srv, played, record.text


def strip_of(record: MatchRecord, call: Called) -> list[tuple[float, int, str, str]]:
    """From the record's events: the gestures and swaps of the STRIP_S seconds up to a call."""
    events = replay(record).events
    hand_start = max(e.t for e in events if isinstance(e, HandDealt) and e.t <= call.t)
    out = []
    for e in events:
        if isinstance(e, Gestured | Swapped) and hand_start <= e.t and \
                call.t - STRIP_S <= e.t <= call.t:
            out.append((round(e.t, 3), e.seat, "gesture" if isinstance(e, Gestured) else "swap",
                        e.gesture if isinstance(e, Gestured) else ""))
    return out


def test_played_at_4x_to_the_end_the_last_tell_matches_the_record(
        browser: Browser, match: tuple[Running, Played, str]) -> None:
    srv, played, text = match
    record = MatchRecord.from_json(text)
    events = replay(record).events
    last_hand = max(e.hand_no for e in events if isinstance(e, HandDealt))
    last_deal = max(e.t for e in events if isinstance(e, HandDealt))
    calls = [e for e in events if isinstance(e, Called) and e.t >= last_deal]
    assert calls, "the last hand ends with a call"
    end = record.end or 0.0
    with new_page(browser) as page:
        page.goto(f"{srv.url}/replay/{played.match_id}")
        box = page.locator("#replay")
        expect(box).to_be_visible()
        expect(box).to_have_attribute("data-hand", "1")  # it opens on the first deal
        page.locator("#speed").select_option("4")
        page.get_by_role("button", name="▶ Play").click()
        expect(box).to_have_attribute("data-playing", "true")
        # It moves at four table seconds a second: after 1 s of wall time, past 2 s of play.
        page.wait_for_timeout(1000)
        assert float(box.get_attribute("data-t") or 0) >= 2.0
        expect(box).to_have_attribute("data-ended", "true", timeout=int(end / 4 * 1000) + 8000)
        expect(box).to_have_attribute("data-playing", "false")
        expect(box).to_have_attribute("data-hand", str(last_hand))
        expect(page.locator("#center-note")).to_have_text("Match over")
        # Every hand face up at the end: each seat's four cards.
        expect(page.locator('[data-zone="seat"]')).to_have_count(4 * len(record.names))
        # The tell strip of the last hand: each call, and the record's gestures and swaps of
        # the five seconds before it, in order, with their seats.
        expect(page.locator("#tell-hand")).to_have_text(str(last_hand))
        articles = page.locator("#tell .call-tell")
        expect(articles).to_have_count(len(calls))
        for k, call in enumerate(calls):
            art = articles.nth(k)
            assert float(art.get_attribute("data-t") or -1) == pytest.approx(call.t, abs=1e-3)
            assert art.get_attribute("data-by") == str(call.seat)
            shown = art.locator(".si").evaluate_all(
                "els => els.map(e => [Number(e.dataset.t), Number(e.dataset.seat), "
                "e.dataset.what, e.dataset.gesture])")
            assert [tuple(x) for x in shown] == strip_of(record, call)
            assert record.names[call.seat] in art.locator(".tell-text").inner_text()
        # The log ends with the match's last sentence.
        expect(page.locator("#log li").last).to_contain_text("Match over")


def test_a_link_opens_at_hand_2_and_at_a_moment(browser: Browser,
                                                match: tuple[Running, Played, str]) -> None:
    srv, played, text = match
    events = replay(MatchRecord.from_json(text)).events
    deal2 = next(e for e in events if isinstance(e, HandDealt) and e.hand_no == 2)
    with new_page(browser) as page:
        # The history page links the replay.
        page.goto(f"{srv.url}/history")
        row = page.locator(f'#matches tbody tr[data-id="{played.match_id}"]')
        row.get_by_role("link", name="Replay of").click()
        expect(page).to_have_url(f"{srv.url}/replay/{played.match_id}")
        expect(page.locator("#title")).to_contain_text(played.code)
        page.goto(f"{srv.url}/replay/{played.match_id}?hand=2")
        box = page.locator("#replay")
        expect(box).to_have_attribute("data-hand", "2")
        assert float(box.get_attribute("data-t") or 0) == pytest.approx(deal2.t, abs=1e-3)
        expect(page.locator("#hand")).to_have_value("2")
        expect(page.locator("#tell-hand")).to_have_text("2")
        # The table shows hand 2 as dealt: every seat's cards face up.
        for seat, cards in enumerate(deal2.hands):
            shown = page.locator(f'.seat[data-seat="{seat}"] [data-zone="seat"]').evaluate_all(
                "els => els.map(e => e.dataset.card)")
            assert shown == [c.text for c in cards]
        expect(page.locator("#now-text")).to_contain_text("Hand 2")
        # Step forward one event, then the link to this moment opens there in a new page.
        page.get_by_role("button", name="Step forward one event").click()
        t = float(box.get_attribute("data-t") or 0)
        href = page.locator("#moment-link").get_attribute("href") or ""
        assert href.startswith(f"/replay/{played.match_id}#t=")
        assert float(href.split("#t=")[1]) == pytest.approx(t, abs=2e-3)
        with new_page(browser) as other:
            other.goto(srv.url + href)
            expect(other.locator("#replay")).to_have_attribute("data-hand", "2")
            expect(other.locator("#replay")).to_have_attribute(
                "data-idx", box.get_attribute("data-idx") or "")
        # ?hand=2&t=X: X seconds into hand 2, X half of hand 2's length (a hand the bots end
        # with a call 0.9 s after the deal is shorter than any fixed X: the page would clamp to
        # the match's end, as it should).
        hand2_end = min([e.t for e in events if isinstance(e, HandDealt) and e.t > deal2.t]
                        + [MatchRecord.from_json(text).end or deal2.t])
        into = round((hand2_end - deal2.t) / 2, 3)
        page.goto(f"{srv.url}/replay/{played.match_id}?hand=2&t={into}")
        expect(box).to_have_attribute("data-hand", "2")
        assert float(box.get_attribute("data-t") or 0) == pytest.approx(deal2.t + into, abs=2e-3)


def leaves(data: Any, path: str = "") -> dict[str, Any]:
    """Every number (or null) of a JSON value by its dotted path."""
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for k, v in data.items():
            out |= leaves(v, f"{path}.{k}" if path else k)
        return out
    if isinstance(data, list):
        out = {}
        for i, v in enumerate(data):
            out |= leaves(v, f"{path}.{i}")
        return out
    if data is None or (isinstance(data, int | float) and not isinstance(data, bool)):
        return {path: data}
    return {}


def test_the_stats_panel_equals_kemps_replay_stats_json(
        browser: Browser, match: tuple[Running, Played, str], tmp_path: Path) -> None:
    srv, played, text = match
    path = tmp_path / "m.json"
    path.write_text(text)
    out = CliRunner().invoke(app, ["replay", str(path), "--stats", "--json"])
    assert out.exit_code == 0, out.output
    cli = json.loads(out.output)
    want = {k: v for k, v in leaves({"pairs": cli["pairs"], "players": cli["players"]}).items()
            if not k.endswith((".pair", ".seat"))}
    with new_page(browser) as page:
        page.goto(f"{srv.url}/replay/{played.match_id}")
        panel = page.locator("#stats")
        expect(panel).to_be_visible()
        shown = dict(panel.locator("[data-stat]").evaluate_all(
            "els => els.map(e => [e.dataset.stat, JSON.parse(e.dataset.value ?? 'null')])"))
        assert shown == want
        # And the numbers read on the page are those values.
        for cell in panel.locator("[data-stat]:visible").all()[:40]:
            value = json.loads(cell.get_attribute("data-value") or "null")
            read = cell.inner_text()
            if value is None:
                assert read == "\u2013"  # an en dash
            elif isinstance(value, int):
                assert read == str(value)
            else:
                assert read.startswith(f"{value:.2f}")
        # The page's download is the record the CLI read.
        assert page.locator("#download").get_attribute("href") == \
            f"/api/replays/{played.match_id}/record"


def test_screenshots(browser: Browser, match: tuple[Running, Played, str],
                     tmp_path: Path) -> None:
    """The replay mid-hand a moment after a signal, with the tell of the call it drew, and the
    stats panel, desktop and phone."""
    srv, played, _ = match
    view = httpx.get(f"{srv.url}/api/replays/{played.match_id}", timeout=10).json()
    answered = [c for h in view["tell"]["hands"] for c in h["calls"] if c["after_signal_s"]]
    call = answered[0] if answered else view["tell"]["hands"][0]["calls"][0]
    at = call["t"] - (call["after_signal_s"] or 0.5) + 0.2
    out = shots_dir(tmp_path)
    for name, viewport in (("replay", DESKTOP), ("replay-phone", PHONE)):
        with new_page(browser, viewport) as page:
            page.goto(f"{srv.url}/replay/{played.match_id}#t={at:.3f}")
            expect(page.locator("#replay")).to_be_visible()
            expect(page.locator("#tell .call-tell")).not_to_have_count(0)
            page.screenshot(path=out / f"{name}.png", full_page=name == "replay")
            stats = page.locator("#stats")
            stats.scroll_into_view_if_needed()
            stats.screenshot(path=out / f"{name.replace('replay', 'replay-stats')}.png")
    assert (out / "replay.png").stat().st_size > 10_000


def test_the_people_their_looks_and_gestures_and_the_controls_in_view(
        browser: Browser, match: tuple[Running, Played, str]) -> None:
    """The same table as live play: a person per seat, each looking where the record says,
    each gesture played on its person at its moment; at both sizes the playback controls are in
    view without scrolling and the middle overlaps no seat's cards."""
    srv, played, _ = match
    view = httpx.get(f"{srv.url}/api/replays/{played.match_id}", timeout=10).json()
    first = view["hands"][0]
    # A gesture with nothing that ends its hand within 0.4 s after it (the bots may end a hand,
    # even the first, a moment after a signal, or with no gesture at all: any hand will do).
    ends = [e["t"] for e in view["events"] if e["type"] in ("called", "hand_ended", "hand_dealt",
                                                           "match_ended")]
    # Nor another gesture of the same seat within those 0.45 s (the bots' idle gestures and
    # decoys come close together): the person then plays the later one.
    def clear(e: dict[str, Any]) -> bool:
        return not any(e["t"] < t <= e["t"] + 0.45 for t in ends) and not any(
            o is not e and o["type"] == "gestured" and o["seat"] == e["seat"]
            and e["t"] <= o["t"] <= e["t"] + 0.45 for o in view["events"])

    gesture = next(e for e in view["events"] if e["type"] == "gestured" and clear(e))
    # A look that no other look of the same seat follows within 0.01 s.
    looked = next(e for e in view["events"] if e["type"] == "looked" and e["t"] > gesture["t"]
                  and not any(o is not e and o["type"] == "looked" and o["seat"] == e["seat"]
                              and e["t"] <= o["t"] <= e["t"] + 0.01 for o in view["events"]))
    for viewport in (DESKTOP_WIDE, PHONE):
        with new_page(browser, viewport) as page:
            page.goto(f"{srv.url}/replay/{played.match_id}")
            box = page.locator("#replay")
            expect(box).to_have_attribute("data-hand", str(first["hand"]))
            assert float(box.get_attribute("data-t") or -1) == pytest.approx(first["t"], abs=1e-3)
            expect(page.locator(".seat .person")).to_have_count(len(view["names"]))
            controls = page.evaluate("""() => ['#play', '#back', '#fwd', '#speed', '#hand', '#scrub'].map((s) => {
                const r = document.querySelector(s).getBoundingClientRect();
                return [s, r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth]; })""")
            assert all(ok for _, ok in controls), (viewport, controls)
            assert page.evaluate("() => scrollY === 0 && document.documentElement.scrollWidth <= innerWidth")
            clash = page.evaluate("""() => {
                const m = document.getElementById('middle').getBoundingClientRect(), out = [];
                for (const c of document.querySelectorAll('.seat-cards .card')) {
                  const r = c.getBoundingClientRect();
                  if (r.left < m.right && m.left < r.right && r.top < m.bottom && m.top < r.bottom) out.push(c.dataset.card);
                }
                return out; }""")
            assert not clash, (viewport, clash)
            # A gesture, 0.4 s in: played on the gesturer's person.
            page.goto(f"{srv.url}/replay/{played.match_id}#t={gesture['t'] + 0.4:.3f}")
            expect(page.locator(f'.seat[data-seat="{gesture["seat"]}"] .person')).to_have_attribute(
                "data-gesture", gesture["gesture"])
            # A look: the looker's head turned where the record says.
            page.goto(f"{srv.url}/replay/{played.match_id}#t={looked['t'] + 0.001:.3f}")
            at = looked["at"]
            expect(page.locator(f'.seat[data-seat="{looked["seat"]}"] .person')).to_have_attribute(
                "data-look", f"seat-{at}" if isinstance(at, int) else at)
