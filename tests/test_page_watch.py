"""Issue 25 on the page, "a table you can watch", in real Chromium against a real server.

People you can read: three browsers in one room at an attention table (Alice at 1366x768 with a
bot partner; Bruno and his partner Cara, on a 390x844 phone: no bot partner calls on a gesture) where heard gestures are allowed (the
``squarescores`` preset, S0), so the whole palette (22 gestures) can be made. Alice and Cara look
at Bruno: he is drawn large on both screens (at least a third of the felt's height) and the
others big enough to see a movement. Bruno makes every gesture of the palette; each screen's
picture of his person box is taken at 400 ms and at 600 ms into the gesture (its held pose).

"Told apart" is measured by a simple image distance, stated here: the mean absolute difference
of the RGB values (0-255) of two pictures of the person's box, over every pixel of it (captions
hidden, so that the figure alone is compared). For each gesture, its 600 ms picture must be
nearer its own 400 ms picture than any other gesture's 400 ms picture (a nearest-neighbour
reading); the smallest distance between two gestures' 400 ms pictures must be at least twice the
largest distance between the two pictures of one gesture. The figures are printed (``-s``).

Then: the palette fits each window without sideways scrolling; captions any player may turn on
(N); the Stop picker keyed Shift+N leaves the middle's keys alone and closes at a phase change;
the README's pictures of the large person mid-gesture (``KEMPS_SCREENSHOTS=docs/screenshots``
writes ``watch.png`` and ``watch-phone.png``; ``KEMPS_GESTURE_SHOTS=DIR`` keeps every gesture's
picture, the set shown to someone who has not seen the page).
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from serving import server_thread, sqlite_url
from test_page import PHONE, WAIT_MS, create_room, new_page, shots_dir, wait_for_hand
from test_page_people import join, looks_everywhere, person

DESKTOP_WIDE = {"width": 1366, "height": 768}
FRAMES_MS = (400, 600)
ODD_WITHIN = 4.0  # a gesture's own two pictures differ by at most about 1.9 (whistle's notes)
BRUNO, CARA = 1, 3


def box(page: Page, seat: int) -> dict[str, float]:
    found: dict[str, float] = page.locator(f'.seat[data-seat="{seat}"] .person-box').evaluate(
        "e => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; }")
    return found


def felt_height(page: Page) -> float:
    height: float = page.locator("#felt").evaluate("e => e.getBoundingClientRect().height")
    return height


def hold(page: Page, seat: int, gesture: str | None, ms: int = 0) -> None:
    """Hold ``seat``'s person ``ms`` into ``gesture`` (people.js holdGesture; None lets go)."""
    page.evaluate("async ([s, g, ms]) => (await import('/static/js/people.js')).holdGesture(s, g, ms)",
                  [seat, gesture, ms])


# In the page: the seat's person box stands still (no transition or animation running in it: a
# box growing to its size, a head turning, a caption fading; a held gesture's are paused) and,
# with a gesture, holds that gesture's frame (people.js holdGesture: data-held="GESTURE@MS").
STILL_JS = """([s, held]) => {
  const box = document.querySelector(`.seat[data-seat="${s}"] .person-box`);
  if (!box) return false;
  const person = box.querySelector('.person');
  if (held !== null && (!person || person.dataset.held !== held)) return false;
  return box.getAnimations({subtree: true}).every((a) => a.playState !== 'running');
}"""


def steady_shot(page: Page, seat: int, gesture: str | None = None, ms: int = 0) -> bytes:
    """The seat's person box pictured while the page says it stands still (STILL_JS: nothing
    running in it; pictured mid-move it would be misread) and, with ``gesture``, holds that
    gesture ``ms`` into it; kept only if the page still says so after the picture (on a loaded
    machine the gesture's event may come late and play it again from its start: then it is
    held again). Conditions the page exposes, not time."""
    box = page.locator(f'.seat[data-seat="{seat}"] .person-box')
    held = None if gesture is None else f"{gesture}@{ms}"
    for _ in range(20):
        if gesture is not None and person(page, seat).get_attribute("data-held") != held:
            hold(page, seat, gesture, ms)
        page.wait_for_function(STILL_JS, arg=[seat, held], timeout=WAIT_MS)
        png = box.screenshot(animations="allow")
        if page.evaluate(STILL_JS, [seat, held]):
            return png
    raise AssertionError(f"seat {seat}'s person did not stand still holding {held}")


def decode(decoder: Page, pngs: list[bytes]) -> list[np.ndarray]:
    """PNGs as (h, w, 3) int arrays, decoded by the browser in one call (no image library)."""
    found = decoder.evaluate("""async (all) => Promise.all(all.map(async (b64) => {
        const blob = await (await fetch('data:image/png;base64,' + b64)).blob();
        const bm = await createImageBitmap(blob);
        const c = new OffscreenCanvas(bm.width, bm.height), x = c.getContext('2d');
        x.drawImage(bm, 0, 0);
        const d = x.getImageData(0, 0, bm.width, bm.height).data;
        let s = '';
        for (let i = 0; i < d.length; i += 8192) s += String.fromCharCode.apply(null, d.subarray(i, i + 8192));
        return [bm.width, bm.height, btoa(s)];
    }))""", [base64.b64encode(png).decode() for png in pngs])
    return [np.frombuffer(base64.b64decode(raw), dtype=np.uint8).reshape(h, w, 4)[..., :3].astype(np.int16)
            for w, h, raw in found]


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute RGB difference per pixel (0-255) over the common box."""
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    return float(np.abs(a[:h, :w] - b[:h, :w]).mean())


def in_hand(page: Page) -> bool:
    phase: str = page.evaluate("() => window.kemps.S.view && window.kemps.S.view.phase")
    return phase in ("dealt", "play")


@contextmanager
def watched_table(browser: Browser, tmp_path: Path) -> Iterator[tuple[Page, Page, Page]]:
    """Alice (1366x768, host, seat 0) with a bot partner (seat 2), Bruno (1) and his partner Cara
    (3, 390x844) at a squarescores table with attention; the first hand dealt."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=60) as srv, ExitStack() as stack:
        a = stack.enter_context(new_page(browser, DESKTOP_WIDE))
        b = stack.enter_context(new_page(browser))
        c = stack.enter_context(new_page(browser, PHONE))
        code = create_room(a, srv.url, "Alice")
        a.locator("#lobby-preset").select_option("squarescores")
        expect(a.locator("#lobby-options-attention")).to_have_value("true")
        join(b, srv.url, code, "Bruno", 1)
        join(c, srv.url, code, "Cara", CARA)
        a.get_by_role("button", name="Fill empty seats with bots").click()
        expect(a.locator(".lseat.bot")).to_have_count(1)
        a.get_by_role("button", name="Start the match").click()
        for page in (a, b, c):
            expect(page.locator("#huddle")).to_be_visible()
            page.keyboard.press("r")
        for page in (a, b, c):
            wait_for_hand(page)
        yield a, b, c


def watch_bruno(a: Page, b: Page, c: Page) -> None:
    """A new hand if the last one ended; then Alice (a click) and Cara (Shift+2) look at Bruno."""
    ready = """([me, s]) => { const v = window.kemps.S.view, e = document.querySelector(`.seat[data-seat="${s}"]`);
        return (v.phase === 'dealt' || v.phase === 'play') && v.looks[me] === s && e.classList.contains('near')
          && e.querySelector('.person-box').getAnimations().length === 0; }"""
    if a.evaluate(ready, [0, BRUNO]) and c.evaluate(ready, [CARA, BRUNO]) and in_hand(b):
        return  # already so (the quick way, once per gesture)
    if not all(in_hand(p) for p in (a, b, c)):
        for page in (a, b, c):
            expect(page.locator("#huddle")).to_be_visible(timeout=WAIT_MS)
            page.keyboard.press("r")
        for page in (a, b, c):
            wait_for_hand(page)
    if person(a, 0).get_attribute("data-look") != "seat-1":
        a.locator(f'.seat[data-seat="{BRUNO}"] .person-box').click()
    if person(c, CARA).get_attribute("data-look") != "seat-1":
        c.keyboard.press("Shift+Digit2")
    looks_everywhere((a, c), 0, "seat-1")
    looks_everywhere((a, c), CARA, "seat-1")
    for page in (a, c):  # drawn large: the box has grown to its size (a 0.25 s transition)
        page.wait_for_function("""(s) => { const e = document.querySelector(`.seat[data-seat="${s}"] .person-box`);
            return e.getAnimations().length === 0 && e.closest('.seat').classList.contains('near'); }""", arg=BRUNO)


# In the page: every gesture drawn on the seat's person from now on (data-gesture set), in order.
SHOWN_JS = """(s) => {
  window.__shown = [];
  if (window.__shownObserver) window.__shownObserver.disconnect();
  window.__shownObserver = new MutationObserver((muts) => {
    for (const m of muts) {
      const p = m.target, g = p.dataset.gesture, seat = p.closest('.seat');
      if (g && seat && Number(seat.dataset.seat) === s) window.__shown.push(g);
    }
  });
  window.__shownObserver.observe(document.getElementById('seats'),
    {subtree: true, attributes: true, attributeFilter: ['data-gesture']});
}"""


def make_seen(a: Page, b: Page, c: Page, gesture: str) -> None:
    """Bruno makes ``gesture`` while Alice and Cara look at him; on both screens it is then held
    at FRAMES_MS[0]. Made again if a hand ended meanwhile (between hands nobody is watched)."""
    for _ in range(3):
        watch_bruno(a, b, c)
        for page in (a, c):
            page.evaluate(SHOWN_JS, BRUNO)
        b.evaluate("(g) => window.kemps.sendAction({type: 'gesture', gesture: g})", gesture)
        try:
            for page in (a, c):  # seen on both screens: held there at once
                # Shown (the page plays it for 1.1 s only: a poll of the attribute on a loaded
                # machine can miss it; the page's own record of what it drew does not).
                page.wait_for_function("(g) => window.__shown.includes(g)", arg=gesture, timeout=15000)
                hold(page, BRUNO, gesture, FRAMES_MS[0])
            return
        except (AssertionError, PlaywrightTimeoutError):
            if all(in_hand(p) for p in (a, b, c)):
                raise
            for page in (a, c):
                hold(page, BRUNO, None)
    raise AssertionError(f"{gesture} was not seen in three hands")


def test_people_you_can_read_and_tell_apart(browser: Browser, tmp_path: Path) -> None:
    keep = os.environ.get("KEMPS_GESTURE_SHOTS")
    crops = Path(keep) if keep else tmp_path / "gestures"
    crops.mkdir(parents=True, exist_ok=True)
    with watched_table(browser, tmp_path) as (a, b, c), new_page(browser) as decoder:
        watch_bruno(a, b, c)
        viewers = {"1366x768": a, "390x844": c}
        sizes: dict[str, Any] = {}
        for label, page in viewers.items():
            # The player you look at is large; the others big enough to see a movement.
            felt = felt_height(page)
            near = box(page, BRUNO)
            expect(page.locator(f'.seat[data-seat="{BRUNO}"]')).to_have_class(re.compile(r"\bnear\b"))
            others = [box(page, s)["h"] for s in (0, 2, 3) if s != (0 if page is a else CARA)]
            sizes[label] = {"felt_h": round(felt), "near_h": round(near["h"]), "near_w": round(near["w"]),
                            "near_share": round(near["h"] / felt, 3), "far_h": [round(h) for h in others]}
            assert near["h"] >= felt / 3, sizes[label]
            assert min(others) >= 0.18 * felt, sizes[label]
            # Every gesture of the palette in view, no sideways scrolling (E opens it).
            page.keyboard.press("e")
            palette = page.locator("#gestures")
            expect(palette).to_be_visible()
            buttons = palette.locator(".gesture")
            expect(buttons).to_have_count(22 - len(page.evaluate("() => window.kemps.S.view.signals")))
            view = page.viewport_size or {}
            for r in buttons.evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())"):
                assert r["left"] >= 0 and r["right"] <= view["width"] and r["top"] >= 0 \
                    and r["bottom"] <= view["height"], (label, r)
            assert page.evaluate("() => document.getElementById('gestures').scrollWidth <= "
                                 "document.getElementById('gestures').clientWidth + 1")
            assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
            page.keyboard.press("Escape")
            expect(palette).to_be_hidden()
            # The figure alone is compared: captions (heard gestures have one) are hidden.
            page.add_style_tag(content=".hide-captions .bubble { visibility: hidden !important; }")
            page.evaluate("() => document.body.classList.add('hide-captions')")
        print(json.dumps({"sizes": sizes}))

        gestures: list[str] = a.evaluate("() => Object.keys(window.kemps.S.gestures)")
        assert len(gestures) == 22
        shots: dict[str, dict[str, list[bytes]]] = {label: {} for label in viewers}
        idle_png = {label: steady_shot(p, BRUNO) for label, p in viewers.items()}
        def picture(g: str) -> None:
            """Bruno makes ``g``; each screen pictures him held at each of FRAMES_MS."""
            for _ in range(3):  # again if the hand ended (a call's banner) while it was pictured
                make_seen(a, b, c, g)
                for label, page in viewers.items():
                    shots[label][g] = []
                    for ms in FRAMES_MS:
                        png = steady_shot(page, BRUNO, g, ms)
                        (crops / f"{label}-{g}-{ms}.png").write_bytes(png)
                        shots[label][g].append(png)
                    if g == "touch_ear":  # the README's pictures: the large person mid-gesture
                        hold(page, BRUNO, g, 450)
                        page.evaluate("() => document.body.classList.remove('hide-captions')")
                        page.screenshot(path=shots_dir(tmp_path) / ("watch.png" if page is a else "watch-phone.png"))
                        page.evaluate("() => document.body.classList.add('hide-captions')")
                    hold(page, BRUNO, None)
                if all(in_hand(p) and p.locator("#banner").is_hidden() for p in (a, c)):
                    break

        def odd_ones() -> list[str]:
            """Gestures whose two pictures on a screen differ far more than any gesture's own
            motion does (above ODD_WITHIN): pictured at a moment the page did not show the held
            gesture (a loaded machine, about one run in five); those are pictured again. The
            bar is then judged on the pictures as they are."""
            odd: list[str] = []
            for label in viewers:
                flat = decode(decoder, [png for g in gestures for png in shots[label][g]])
                odd += [g for i, g in enumerate(gestures)
                        if distance(flat[2 * i], flat[2 * i + 1]) > ODD_WITHIN and g not in odd]
            return odd

        todo = list(gestures)
        for _ in range(3):  # the whole palette, then at most twice what came out odd
            for g in todo:
                picture(g)
            todo = odd_ones()
            if not todo:
                break

        report: dict[str, Any] = {}
        for label in viewers:
            flat = decode(decoder, [idle_png[label]] + [png for g in gestures for png in shots[label][g]])
            idle = flat[0]
            fr = {g: flat[1 + 2 * i:3 + 2 * i] for i, g in enumerate(gestures)}
            within = {g: distance(fr[g][0], fr[g][1]) for g in gestures}
            between = {(g, h): distance(fr[g][0], fr[h][0]) for i, g in enumerate(gestures)
                       for h in gestures[i + 1:]}
            to_idle = {g: distance(fr[g][0], idle) for g in gestures}
            misread = []
            for g in gestures:
                nearest = min(gestures, key=lambda h: distance(fr[g][1], fr[h][0]))
                if nearest != g:
                    misread.append((g, nearest))
            closest = min(between, key=lambda k: between[k])
            ranked = sorted(between, key=lambda k: between[k])[:5]
            report[label] = {"within_max": round(max(within.values()), 2),
                             "within_max_gesture": max(within, key=lambda k: within[k]),
                             "between_min": round(between[closest], 2), "closest_pair": closest,
                             "closest_five": [(k, round(between[k], 2)) for k in ranked],
                             "within_top": sorted(((round(v, 2), g) for g, v in within.items()), reverse=True)[:4],
                             "to_idle_min": round(min(to_idle.values()), 2),
                             "to_idle_min_gesture": min(to_idle, key=lambda k: to_idle[k]),
                             "misread": misread}
        print(json.dumps({"distances": report}))
        for label, r in report.items():
            assert not r["misread"], (label, r)
            assert r["between_min"] >= 2 * r["within_max"], (label, r)
        for page in viewers.values():
            page.evaluate("() => document.body.classList.remove('hide-captions')")
        captions_and_the_stop_picker(a, b, c)

def captions_and_the_stop_picker(a: Page, b: Page, c: Page) -> None:
    """Captions any player may switch on (N, the CC button), not only with reduced motion; the
    Stop picker (two players to stop at squarescores) is keyed Shift+N, leaves 1-4 to the
    middle, and closes at any change of phase."""
    watch_bruno(a, b, c)
    expect(a.locator("#captions")).to_have_attribute("aria-pressed", "false")
    a.keyboard.press("n")
    expect(a.locator("#captions")).to_have_attribute("aria-pressed", "true")
    b.evaluate("() => window.kemps.sendAction({type: 'gesture', gesture: 'nod'})")
    expect(a.locator(f'.seat[data-seat="{BRUNO}"] .bubble')).to_have_text("nods")
    expect(person(c, BRUNO)).to_have_attribute("data-gesture", "nod")
    expect(c.locator(f'.seat[data-seat="{BRUNO}"] .bubble')).to_have_text("")  # Cara's are off
    # Kept for the next visit.
    assert a.evaluate("() => localStorage.getItem('kemps.captions')") == "on"
    c.locator("#captions").click()
    expect(c.locator("#captions")).to_have_attribute("aria-pressed", "true")

    # The Stop picker: Alice may stop Bruno (one place to her left) or Cara (three).
    watch_bruno(a, b, c)
    a.locator("body").focus()
    a.keyboard.press("l")
    picker = a.locator("#picker")
    expect(picker).to_be_visible()
    picks = picker.locator("button[data-pick]")
    assert sorted(picks.evaluate_all("els => els.map(e => e.dataset.pick)")) == ["1", "3"]
    a.keyboard.press("2")  # the middle's second card, not a Stop call
    expect(a.locator('#middle [data-zone="middle"][aria-pressed="true"]')).to_have_count(1)
    expect(picker).to_be_visible()
    assert a.evaluate("() => window.kemps.S.view.phase") in ("dealt", "play")
    # A change of phase (the hand ends: an update as the server sends it) closes the choice.
    a.evaluate("""() => { const {S, handleMessage} = window.kemps;
        handleMessage({type: 'update', version: S.view.version, events: [],
                       view: {...S.view, phase: 'huddle'}}); }""")
    expect(picker).to_be_hidden()


# What a phone's table shows around the seats, as (seat or None, kind, selector within it).
PARTS = {"caption": ".bubble.show", "plate": ".plate", "tags": ".tags .tag", "cards": ".seat-cards",
         "last": ".last", "person": ".person-box"}
MIDDLE_PARTS = {"middle": "#middle", "stock line": ".stock-line", "you saw": "#you-saw"}


def layout_boxes(page: Page) -> list[dict[str, Any]]:
    """Every shown part of every seat and of the middle, with its box in window pixels."""
    found: list[dict[str, Any]] = page.evaluate("""([parts, middle]) => {
        const out = [];
        const add = (seat, kind, e) => {
          const r = e.getBoundingClientRect();
          const cs = getComputedStyle(e);
          if (r.width < 1 || r.height < 1 || cs.visibility === 'hidden' || cs.display === 'none') return;
          if (e.matches('.last') && !e.textContent) return;
          out.push({seat, kind, x: r.left, y: r.top, right: r.right, bottom: r.bottom, text: e.textContent.slice(0, 40)});
        };
        for (const seat of document.querySelectorAll('#seats .seat'))
          for (const [kind, sel] of Object.entries(parts))
            for (const e of seat.querySelectorAll(sel)) add(Number(seat.dataset.seat), kind, e);
        for (const [kind, sel] of Object.entries(middle))
          for (const e of document.querySelectorAll(sel)) add(null, kind, e);
        return out;
    }""", [PARTS, MIDDLE_PARTS])
    return found


def overlaps(boxes: list[dict[str, Any]]) -> list[str]:
    """Pairs of parts that overlap (by more than a pixel), but for a caption on its own person
    and the parts of one seat with each other (its plate beside its tags, and so on)."""
    bad = []
    for i, p in enumerate(boxes):
        for q in boxes[i + 1:]:
            if p["seat"] is not None and p["seat"] == q["seat"] and "caption" not in (p["kind"], q["kind"]):
                continue
            if p["seat"] == q["seat"] and {p["kind"], q["kind"]} == {"caption", "person"}:
                continue
            if p["x"] < q["right"] - 1 and q["x"] < p["right"] - 1 and p["y"] < q["bottom"] - 1 \
                    and q["y"] < p["bottom"] - 1:
                bad.append(f"{p['kind']} of {p['seat']} ({p['text']!r}) overlaps {q['kind']} of "
                           f"{q['seat']} ({q['text']!r})")
    return bad


def test_one_click_to_play_and_the_moments_on_a_phone(browser: Browser, tmp_path: Path) -> None:
    """At 390x844: "Play against bots" on the home page deals you in (a bot partner, two bot
    opponents, the default preset); every caption (a gesture seen with captions on, a heard one,
    a chat line, each seat's last move) sits clear of the middle, the names, the tags, the cards
    and the other seats, inside the window, and the page is no wider than the phone; no emoji on
    the page (an empty box without an emoji font); a call's banner, then the huddle, never one
    over the other."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser, PHONE) as page:
        page.goto(srv.url + "/")
        expect(page.locator("#create-options > summary")).to_be_visible()  # the settings, one click away
        page.get_by_role("button", name="Play against bots").click()
        wait_for_hand(page)
        assert re.search(r"/room/[A-Z0-9]+$", page.url)
        room = page.evaluate("() => window.kemps.S.room")
        me = page.evaluate("() => window.kemps.S.seat")
        assert room["rules"]["name"] == "pagat" and room["rules"]["attention"] is True
        assert [s["kind"] for s in room["seats"] if s["seat"] != me] == ["bot", "bot", "bot"]
        partner = page.evaluate("() => window.kemps.S.view.partner")
        expect(page.locator(".seat.partner .tag-partner")).to_be_visible()
        assert room["seats"][partner]["kind"] == "bot"

        # Captions on; then a gesture seen on each seat, a chat line, and each seat's last move
        # (an update as the server sends one).
        page.locator("#captions").click()
        page.evaluate("""() => { const {S, handleMessage} = window.kemps, n = S.view.names.length;
            const others = [...Array(n).keys()].filter((s) => s !== S.seat);
            const ev = [];
            for (const s of others) ev.push({type: 'swapped', seat: s, took: ['QS', 'QD'], gave: ['4C', '8C'], slots: [], t: 1, text: null});
            ev.push({type: 'gestured', seat: others[0], gesture: 'thumb_on_edge', heard: false, t: 1, text: null});
            ev.push({type: 'gestured', seat: others[1], gesture: 'glance_ceiling', heard: false, t: 1, text: null});
            ev.push({type: 'chatted', seat: others[2], text: 'Good luck everyone, and watch my partner closely!', t: 1});
            handleMessage({type: 'update', version: S.view.version, view: S.view, events: ev}); }""")
        expect(page.locator(".bubble.show")).to_have_count(3)
        boxes = layout_boxes(page)
        width = page.evaluate("() => window.innerWidth")
        outside = [b for b in boxes if b["x"] < 0 or b["right"] > width]
        bad = overlaps(boxes)
        page.screenshot(path=tmp_path / "moments-phone.png")
        print(json.dumps(boxes))
        assert not outside, outside
        assert not bad, bad
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        # Each other player in turn drawn large (a tap: you look at them), at its tallest: the
        # dealer's tag and a last move on two lines. Its seat grows down; the middle moves clear.
        others = page.evaluate("() => [...Array(window.kemps.S.view.names.length).keys()]"
                               ".filter((s) => s !== window.kemps.S.seat)")
        for s in others:
            page.locator(f'.seat[data-seat="{s}"] .person-box').click()
            page.evaluate("""(s) => { const {S, handleMessage} = window.kemps;
                handleMessage({type: 'update', version: S.view.version, view: {...S.view, dealer: s},
                  events: [{type: 'swapped', seat: s, took: ['QS', 'QD', 'QH'], gave: ['4C', '8C', '9C'],
                            slots: [], t: 1, text: null}]}); }""", s)
            page.wait_for_function("""(s) => document.querySelector(`.seat[data-seat="${s}"]`)
                .classList.contains('near') && document.getAnimations().length === 0""",
                                   arg=s, timeout=WAIT_MS)
            # The middle's own move (0.2 s) after the seat's is over: its box the same twice
            # 150 ms apart, nothing running (a condition, not a fixed 0.4 s).
            page.evaluate("() => { window.__middleAt = null; }")
            page.wait_for_function("""() => { const r = document.getElementById('middle').getBoundingClientRect();
                const at = [r.left, r.top, r.width, r.height].join(), was = window.__middleAt;
                window.__middleAt = at;
                return was === at && document.getAnimations().length === 0; }""",
                                   polling=150, timeout=WAIT_MS)
            boxes = layout_boxes(page)
            bad = overlaps(boxes)
            outside = [b for b in boxes if b["x"] < 0 or b["right"] > width]
            if bad or outside:
                page.screenshot(path=tmp_path / f"near-{s}-phone.png")
                print("boxes with the player large:", json.dumps(boxes))
            assert not bad, (s, bad)
            assert not outside, (s, outside)
        # No emoji anywhere (text or CSS content); the heard mark is an inline SVG.
        emoji = page.evaluate("""() => {
            const found = [];
            const is = (t) => [...(t || '')].some((ch) => ch.codePointAt(0) >= 0x1F000);
            for (const e of document.querySelectorAll('*')) {
              for (const pseudo of ['::before', '::after'])
                if (is(getComputedStyle(e, pseudo).content)) found.push(e.className + pseudo);
              for (const n of e.childNodes) if (n.nodeType === 3 && is(n.textContent)) found.push(n.textContent);
            }
            return found; }""")
        assert not emoji, emoji
        page.evaluate("""() => { const {S, handleMessage} = window.kemps;
            handleMessage({type: 'update', version: S.view.version, view: S.view, events: [
              {type: 'gestured', seat: S.view.partner, gesture: 'cough', heard: true, t: 1, text: null}]}); }""")
        heard = page.locator(f'.seat[data-seat="{partner}"] .bubble.heard')
        expect(heard).to_have_text("coughs")
        mark = heard.evaluate("e => { const s = getComputedStyle(e, '::before'); return [s.content, s.backgroundImage]; }")
        assert mark[0] in ('""', "none") and "svg" in mark[1], mark

        # A call ends the hand: its banner, then the huddle; never both at once.
        page.evaluate("""() => { window.__both = false; const tick = () => {
            const b = document.getElementById('banner'), h = document.getElementById('huddle');
            if (!b.hidden && !h.hidden) window.__both = true; requestAnimationFrame(tick); }; tick(); }""")
        page.get_by_role("button", name=re.compile("^Stop Kemps")).click()
        expect(page.locator("#banner")).to_contain_text(re.compile("Right!|Wrong!"), timeout=WAIT_MS)
        expect(page.locator("#huddle")).to_be_hidden()
        expect(page.locator("#huddle")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#banner")).to_be_hidden()
        assert page.evaluate("() => window.__both") is False
