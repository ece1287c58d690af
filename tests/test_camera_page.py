"""The camera table in real Chromium (issue 24): four people in one room, each page its own
browser context with Chromium's fake camera and microphone (``--use-fake-device-for-media-stream
--use-fake-ui-for-media-stream``, 160x120 at 10 fps), video and audio peer to peer.

What is asserted is read from WebRTC's own counters (``RTCPeerConnection.getStats``: bytes and
frames decoded of each inbound stream, the chosen candidate pair) over 3 s:

- every page plays the three others' videos, frames decoding, in the ``<video data-seat="N">``
  tile at each one's seat around the table;
- between hands (the huddle) a page receives no audio or video bytes from its opponents and does
  from its partner; after the deal from everyone;
- at a silent table (the standard game: heard signals banned, S0 "Silent signals") no audio bytes
  flow during a hand; where heard signals and talk are allowed, they do;
- a refused camera leaves the seat playable (a swap is accepted), drawn as a person with a note;
- the same with every connection forced through TURN (``iceTransportPolicy: "relay"``) against
  Debian's coturn started here (skipped with a message where ``turnserver`` is absent, unless
  ``KEMPS_REQUIRE_TURN=1``, set by CI).

``KEMPS_SCREENSHOTS=docs/screenshots`` writes the README's ``camera-*.png``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from conftest import BROWSER_ARGS, CHROMIUM
from serving import Running, free_port, server_thread, sqlite_url
from test_page import PHONE, WAIT_MS, shots_dir, wait_for_hand

DESKTOP = {"width": 1366, "height": 768}
NAMES = ("Alice", "Bruno", "Cara", "Dev")
CAMERA_ARGS = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
               "--autoplay-policy=no-user-gesture-required"]
SMALL_VIDEO = "window.kempsCameraVideo = {width: 160, height: 120, frameRate: 10};"
REFUSE = ("navigator.mediaDevices.getUserMedia = async () => { "
          "throw new DOMException('Permission denied', 'NotAllowedError'); };")
# The page's receiving peer connections, each with the seat of each stream: in a mesh one per other
# seat; through the SFU one per room (table, pair), its streams' seats by mid.
RECEIVING = """() => {
  const cam = window.kemps.camera;
  if (cam.sfu) return cam.sfu.pcs.map((e) => ({pc: e.pc, seatOf: (mid) => e.mids[mid]}));
  return Object.entries(cam.pcs).map(([seat, e]) => ({pc: e.pc, seatOf: () => Number(seat)}));
}"""
# By the seat it comes from: bytes received of each kind, video frames decoded (getStats'
# inbound-rtp), and the types of the chosen candidate pair's two ends.
STATS = f"""async () => {{
  const out = {{}};
  for (const e of ({RECEIVING})()) {{
    const stats = await e.pc.getStats();
    let pair = null;
    const seats = [];
    stats.forEach((x) => {{
      if (x.type === 'transport' && x.selectedCandidatePairId) pair = stats.get(x.selectedCandidatePairId);
      if (x.type !== 'inbound-rtp') return;
      const seat = e.seatOf(x.mid);
      if (seat === undefined) return;
      const r = out[seat] = out[seat] || {{video: 0, audio: 0, frames: 0, local: null, remote: null}};
      r[x.kind] += x.bytesReceived;
      if (x.kind === 'video') r.frames += x.framesDecoded || 0;
      seats.push(seat);
    }});
    if (!pair) continue;
    for (const seat of seats) {{
      out[seat].local = stats.get(pair.localCandidateId).candidateType;
      out[seat].remote = stats.get(pair.remoteCandidateId).candidateType;
    }}
  }}
  return out;
}}"""


@pytest.fixture(scope="module")
def camera_browser() -> Iterator[Browser]:
    """A headless Chromium whose pages get the fake camera and microphone, allowed without a
    prompt, and may play audio without a click."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("KEMPS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"KEMPS_REQUIRE_BROWSER=1 but there is no Chromium at {CHROMIUM}")
        pytest.skip(f"no Chromium at {CHROMIUM}: install it to run the browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=BROWSER_ARGS + CAMERA_ARGS)
        try:
            yield b
        finally:
            b.close()


@contextmanager
def four_pages(browser: Browser, refuse: tuple[int, ...] = (),
               phone: tuple[int, ...] = ()) -> Iterator[list[Page]]:
    """Four pages, each in its own context (its own seat token), with small fake video; the seats
    in ``refuse`` deny the camera and microphone, those in ``phone`` have a phone's window."""
    with ExitStack() as stack:
        pages: list[Page] = []
        errors: list[str] = []
        for i in range(4):
            ctx = browser.new_context(viewport=PHONE if i in phone else DESKTOP)  # type: ignore[arg-type]
            stack.callback(ctx.close)
            ctx.add_init_script(SMALL_VIDEO)
            if i in refuse:
                ctx.add_init_script(REFUSE)
            page = ctx.new_page()
            page.on("pageerror", lambda e, i=i: errors.append(f"page {i}: {e}"))
            pages.append(page)
        yield pages
        assert not errors, f"script errors on the pages: {errors}"


def seat_people(srv: Running, pages: list[Page], body: dict[str, Any], home: bool = True) -> str:
    """A camera table with these rules, every page seated and in the lobby; its code. ``home``:
    Alice makes it on the home page (its Camera table box), else through the API; the others
    are seated through the API, their tokens in their pages before these load."""
    with httpx.Client(base_url=srv.url) as c:
        if home:
            a = pages[0]
            a.goto(srv.url + "/")
            a.get_by_label("Your name").first.fill(NAMES[0])
            a.locator("#create-camera").check()
            a.get_by_role("button", name="Create room").click()
            expect(a.locator("#lobby")).to_be_visible()
            code = a.locator("#room-code").inner_text()
            token = a.evaluate(f"() => JSON.parse(localStorage.getItem('kemps.seat.{code}')).token")
            r = c.put(f"/api/rooms/{code}/rules", json=body,
                      headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200 and r.json()["camera"] is True, r.text
        else:
            r = c.post("/api/rooms", json={"name": NAMES[0], "camera": True, **body})
            assert r.status_code == 201, r.text
            code = r.json()["code"]
            sit(pages[0], srv, code, 0, r.json()["token"])
        for seat in (1, 2, 3):
            r = c.post(f"/api/rooms/{code}/seats", json={"seat": seat, "name": NAMES[seat]})
            assert r.status_code == 200, r.text
            sit(pages[seat], srv, code, seat, r.json()["token"])
    for page in pages:
        expect(page.locator("#lobby-camera")).to_be_checked()
    return code


def sit(page: Page, srv: Running, code: str, seat: int, token: str) -> None:
    """Open the room on ``page`` holding ``seat`` (its token in the page before it loads)."""
    page.add_init_script(f"localStorage.setItem('kemps.seat.{code}', "
                         f"'{{\"seat\": {seat}, \"token\": \"{token}\"}}')")
    page.goto(f"{srv.url}/room/{code}")


def counters(pages: list[Page], seconds: float = 3.0) -> list[dict[int, dict[str, Any]]]:
    """What each page received from each other seat over ``seconds``: the growth of its
    counters, with the chosen candidate pair's types."""
    before = [page.evaluate(STATS) for page in pages]
    time.sleep(seconds)
    after = [page.evaluate(STATS) for page in pages]
    out = []
    for b, a in zip(before, after):
        out.append({int(seat): {"video": a[seat]["video"] - b.get(seat, {}).get("video", 0),
                                "audio": a[seat]["audio"] - b.get(seat, {}).get("audio", 0),
                                "frames": a[seat]["frames"] - b.get(seat, {}).get("frames", 0),
                                "local": a[seat]["local"], "remote": a[seat]["remote"]}
                    for seat in a})
    return out


def connected(pages: list[Page], seats: int = 3) -> None:
    """Every page has a connected peer connection to each other seat (mesh), or receives from
    each other seat through the SFU (at most 20 s)."""
    for page in pages:
        page.wait_for_function(f"""() => {{
            const cam = window.kemps.camera;
            if (cam.sfu) return new Set(cam.sfu.pcs.filter((e) => e.room === 'table'
                && e.pc.connectionState === 'connected').flatMap((e) => Object.values(e.mids))).size === {seats};
            return Object.values(cam.pcs).filter((e) => e.pc.connectionState === 'connected').length === {seats};
        }}""", timeout=WAIT_MS)


def plays_at_seat(page: Page, seat: int) -> bool:
    """The ``<video data-seat>`` at ``seat``'s place around the table shows, and plays the very
    stream that arrives from that seat."""
    return bool(page.evaluate(f"""(seat) => {{
        const v = document.querySelector(`#seats .seat[data-seat="${{seat}}"] video[data-seat="${{seat}}"]`);
        if (!v || v.hidden || v.paused || v.readyState < 2 || !v.videoWidth) return false;
        const r = v.getBoundingClientRect();
        const from = ({RECEIVING})().flatMap((e) => e.pc.getTransceivers()
            .filter((t) => e.seatOf(t.mid) === seat && t.receiver.track.kind === 'video')
            .map((t) => t.receiver.track));
        return r.width >= 60 && r.height >= 45 && from.includes(v.srcObject.getVideoTracks()[0]);
    }}""", seat))


def tile_box(page: Page, seat: int) -> tuple[float, float]:
    box = page.locator(f'#seats .seat[data-seat="{seat}"] .cam-tile').bounding_box()
    assert box is not None
    return box["width"], box["height"]


def palette_hidden(page: Page) -> None:
    """No gesture palette on ``page``: neither its toggle nor the pair's signal buttons."""
    expect(page.locator("#gestures-toggle")).to_be_hidden()
    expect(page.locator("#my-signal .gesture, #gestures .gesture")).to_have_count(0)


def deal(pages: list[Page]) -> None:
    """Alice (the host) starts the match: every page sees the huddle."""
    pages[0].get_by_role("button", name="Start the match").click()
    for page in pages:
        expect(page.locator("#huddle")).to_be_visible(timeout=WAIT_MS)


def ready(pages: list[Page]) -> None:
    """Everyone presses Ready: the hand is dealt on every page."""
    for page in pages:
        page.locator("#ready").click()
    for page in pages:
        wait_for_hand(page)


def huddle_then_silent_hand(pages: list[Page], shots: Path | None = None) -> None:
    """From the first huddle to the first hand of a silent table: in the huddle each page gets
    bytes from its partner only, the opponents' tiles say "huddling"; in the hand every page
    plays the three others' videos at their seats, and no audio flows."""
    deal(pages)
    got = counters(pages)
    for me, seen in enumerate(got):
        partner = (me + 2) % 4
        assert set(seen) == {0, 1, 2, 3} - {me}, seen
        for seat, c in seen.items():
            if seat == partner:
                assert c["video"] > 2000 and c["audio"] > 500 and c["frames"] > 5, (me, seen)
            else:
                assert c["video"] == 0 and c["audio"] == 0, (me, seat, seen)
        page = pages[me]
        for seat in seen:
            if seat == partner:
                assert plays_at_seat(page, seat), (me, seat)
            else:
                expect(page.locator(f'#seats .seat[data-seat="{seat}"] .cam-card')).to_have_text(
                    "huddling")
        expect(page.locator(".cam-who")).to_contain_text(
            f"Huddle: only {NAMES[partner]} sees and hears you")
        expect(page.locator("#huddle-talk")).to_contain_text("agree your signal by talking")
        expect(page.locator("#signal-choices")).to_be_hidden()
    if shots is not None:
        pages[0].screenshot(path=str(shots / "camera-huddle.png"))
        pages[1].screenshot(path=str(shots / "camera-huddle-phone.png"))
    ready(pages)
    got = counters(pages)
    for me, seen in enumerate(got):
        for seat, c in seen.items():
            assert c["video"] > 2000 and c["frames"] > 5, (me, seat, seen)
            assert c["audio"] == 0, (me, seat, seen)  # a silent table: no microphone in a hand
            assert plays_at_seat(pages[me], seat), (me, seat)
        expect(pages[me].locator(".cam-who")).to_contain_text("microphone is off")
        palette_hidden(pages[me])  # the signals are real here


def test_four_people_see_each_other_and_each_huddle_is_private(
        camera_browser: Browser, tmp_path: Path) -> None:
    """The standard game (heard signals banned: a silent table), peer to peer: see
    :func:`huddle_then_silent_hand`; the tiles are large enough to read a face."""
    shots = shots_dir(tmp_path)
    with server_thread(sqlite_url(tmp_path), huddle_s=120, bot_huddle_s=0.3) as srv, \
            four_pages(camera_browser, phone=(1,)) as pages:
        seat_people(srv, pages, {"preset": "pagat"})
        connected(pages)
        huddle_then_silent_hand(pages, shots)
        # Large enough to read a face: each other's tile at 1366x768 and on a phone.
        w, h = tile_box(pages[0], 2)
        assert w >= 150 and h >= 110, (w, h)
        w, h = tile_box(pages[1], 3)
        assert w >= 100 and h >= 75, (w, h)
        pages[0].screenshot(path=str(shots / "camera-hand.png"))
        pages[1].screenshot(path=str(shots / "camera-hand-phone.png"))


def test_bots_are_drawn_and_a_person_whose_partner_is_a_bot_has_the_palette(
        camera_browser: Browser, tmp_path: Path) -> None:
    """Alice and Bruno (opponents) with a bot partner each: they see each other from the lobby
    on; in the huddle neither sends to the other (each has only a bot to huddle with, and the
    huddle offers the palette's signals); in the hand they see each other, the bots are drawn
    people with no tile, and both have the palette to signal to their bots. A spectator's page
    has no video at all."""
    with server_thread(sqlite_url(tmp_path), huddle_s=120, bot_huddle_s=0.3) as srv, \
            four_pages(camera_browser) as pages:
        people = pages[:2]
        a = people[0]
        a.goto(srv.url + "/")
        a.get_by_label("Your name").first.fill("Alice")
        a.locator("#create-camera").check()
        a.get_by_role("button", name="Create room").click()
        expect(a.locator("#lobby-camera-line")).to_contain_text("Bots cannot see cameras")
        code = a.locator("#room-code").inner_text()
        r = httpx.post(f"{srv.url}/api/rooms/{code}/seats", json={"seat": 1, "name": "Bruno"})
        sit(people[1], srv, code, 1, r.json()["token"])
        # in the lobby already: each plays the other's video
        for me, page in enumerate(people):
            page.wait_for_function("""(seat) => { const v = document.querySelector(
                `#cam-strip video[data-seat="${seat}"]`); return v && !v.hidden && v.videoWidth > 0
                && v.readyState >= 2; }""", arg=1 - me, timeout=WAIT_MS)
        a.get_by_role("button", name="Fill empty seats with bots").click()
        expect(a.locator(".lseat.bot")).to_have_count(2)
        connected(people, seats=1)
        deal(people)
        got = counters(people)
        for me, page in enumerate(people):
            assert got[me][1 - me]["video"] == 0 and got[me][1 - me]["audio"] == 0, got
            expect(page.locator("#signal-choices input").first).to_be_visible()  # the palette
            expect(page.locator("#huddle-talk")).to_be_hidden()
            expect(page.locator(".cam-who")).to_contain_text("Huddle: nobody sees or hears you")
        ready(people)
        got = counters(people)
        spectator = pages[2]
        spectator.goto(f"{srv.url}/room/{code}")
        expect(spectator.locator("#watching")).to_be_visible()
        for me, page in enumerate(people):
            assert got[me][1 - me]["video"] > 2000 and got[me][1 - me]["frames"] > 5, got
            assert plays_at_seat(page, 1 - me)
            for bot in (2, 3):
                expect(page.locator(f'#seats .seat[data-seat="{bot}"] .person')).to_be_visible()
                expect(page.locator(f'#seats .seat[data-seat="{bot}"] video')).to_have_count(0)
            expect(page.locator("#gestures-toggle")).to_be_visible()
        expect(spectator.locator("#seats .seat .person")).to_have_count(4)
        expect(spectator.locator("video")).to_have_count(0)
        assert spectator.evaluate("() => window.kemps.camera.stream") is None


# == through TURN ===================================================================================
@contextmanager
def coturn(secret: str) -> Iterator[int]:
    """Debian's coturn on a free loopback port with the shared-secret scheme; its port."""
    binary = shutil.which("turnserver")
    if binary is None:
        if os.environ.get("KEMPS_REQUIRE_TURN") == "1":
            pytest.fail("KEMPS_REQUIRE_TURN=1 but there is no turnserver (coturn) here")
        pytest.skip("no turnserver here: apt-get install coturn to run the TURN test (CI "
                    "requires it: KEMPS_REQUIRE_TURN=1)")
    port = free_port()
    low = 40000 + (port % 20000)
    proc = subprocess.Popen(
        [binary, "--use-auth-secret", f"--static-auth-secret={secret}", "--realm=kemps.test",
         "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", f"--listening-port={port}",
         f"--min-port={low}", f"--max-port={low + 200}", "--allow-loopback-peers", "--no-tls",
         "--no-dtls", "--no-cli", "--fingerprint", "--no-stun-backward-compatibility",
         "--log-file=stdout"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:  # it answers on UDP: wait until its TCP listener (the same port) is up
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("turnserver did not start") from None
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_through_turn_a_talking_table_with_a_refused_camera(
        camera_browser: Browser, tmp_path: Path) -> None:
    """Every connection relayed by coturn (the server's ``KEMPS_ICE_TRANSPORT_POLICY=relay``,
    credentials minted per seat): the three with cameras play each other's video at their seats
    and, at a table that allows heard signals and talk, hear each other during the hand. Dev
    refused the camera: his seat plays on (a swap is accepted), drawn, with a note to the
    others, and he still sees them; he signals with the palette, the others do not have it."""
    secret = "kemps-test-secret"
    with coturn(secret) as port, server_thread(
            sqlite_url(tmp_path), huddle_s=120, bot_huddle_s=0.3,
            ice_servers=f'[{{"urls": "turn:127.0.0.1:{port}?transport=udp"}}]',
            turn_secret=secret, ice_transport_policy="relay") as srv, \
            four_pages(camera_browser, refuse=(3,)) as pages:
        code = seat_people(srv, pages, {"preset": "pagat", "options": {
            "heard_signals": True, "table_chat": True}}, home=False)
        connected(pages)
        deal(pages)
        ready(pages)
        got = counters(pages)
        for me, seen in enumerate(got):
            for seat, c in seen.items():
                assert c["local"] == "relay" and c["remote"] == "relay", (me, seat, c)
                if seat == 3:  # Dev sends nothing: no camera, no microphone
                    assert c["video"] == 0 and c["audio"] == 0, (me, c)
                    expect(pages[me].locator('#seats .seat[data-seat="3"] .cam-card')).to_have_text(
                        "did not allow the camera")
                    expect(pages[me].locator('#seats .seat[data-seat="3"] .person')).to_be_visible()
                    continue
                assert c["video"] > 2000 and c["frames"] > 5, (me, seat, c)
                if me != 3:  # Dev has no microphone; the others hear each other in the hand
                    assert c["audio"] > 500, (me, seat, c)
                assert plays_at_seat(pages[me], seat), (me, seat)
            if me != 3:
                palette_hidden(pages[me])
        dev = pages[3]
        expect(dev.locator(".cam-who")).to_contain_text("Nobody sees or hears you")
        expect(dev.locator("#gestures-toggle")).to_be_visible()  # the palette: his
        # Dev's seat plays: a swap is accepted.
        dev.locator('#hand [data-zone="hand"]').first.click()
        dev.locator('#middle [data-zone="middle"]').first.click()
        dev.wait_for_function("() => !window.kemps.S.pending", timeout=WAIT_MS)
        expect(dev.locator("#toast")).to_be_hidden()
        assert dev.evaluate("() => window.kemps.S.room.seats[3].kind") == "human"
        with httpx.Client(base_url=srv.url) as c:
            assert c.get(f"/api/rooms/{code}").json()["status"] == "playing"


# == through the SFU (Janus) ========================================================================
JANUS_PLUGINS = "/usr/lib/x86_64-linux-gnu/janus"
JANUS_OFF = {  # everything of the packaged Janus this test does not use
    "plugins": "libjanus_audiobridge.so,libjanus_duktape.so,libjanus_echotest.so,libjanus_lua.so,"
               "libjanus_nosip.so,libjanus_recordplay.so,libjanus_sip.so,libjanus_streaming.so,"
               "libjanus_textroom.so,libjanus_videocall.so,libjanus_voicemail.so",
    "transports": "libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_pfunix.so,libjanus_rabbitmq.so"}


@contextmanager
def janus(folder: Path, admin_key: str) -> Iterator[tuple[str, str]]:
    """Debian's Janus with its VideoRoom plugin and its HTTP and WebSocket transports on free
    loopback ports (a configuration folder of its own, written here), rooms made only with
    ``admin_key``; (its WebSocket URL for browsers, its HTTP API for the table server)."""
    binary = shutil.which("janus")
    if binary is None:
        if os.environ.get("KEMPS_REQUIRE_JANUS") == "1":
            pytest.fail("KEMPS_REQUIRE_JANUS=1 but there is no janus here")
        pytest.skip("no janus here: apt-get install janus to run the SFU test (CI requires it: "
                    "KEMPS_REQUIRE_JANUS=1)")
    lib = JANUS_PLUGINS if os.path.isdir(JANUS_PLUGINS) else "/usr/lib/janus"
    http, ws = free_port(), free_port()
    rtp = 41000 + (http % 20000)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "janus.jcfg").write_text(f"""general: {{
  configs_folder = "{folder}"
  plugins_folder = "{lib}/plugins"
  transports_folder = "{lib}/transports"
  events_folder = "{lib}/events"
  loggers_folder = "{lib}/loggers"
  debug_level = 3
}}
media: {{ rtp_port_range = "{rtp}-{rtp + 400}" }}
plugins: {{ disable = "{JANUS_OFF['plugins']}" }}
transports: {{ disable = "{JANUS_OFF['transports']}" }}
events: {{ broadcast = false }}
""")
    (folder / "janus.transport.http.jcfg").write_text(
        f'general: {{ http = true, port = {http}, ip = "127.0.0.1", base_path = "/janus", '
        f'https = false }}\nadmin: {{ admin_http = false }}\n')
    (folder / "janus.transport.websockets.jcfg").write_text(
        f'general: {{ ws = true, ws_port = {ws}, ws_ip = "127.0.0.1", wss = false }}\n'
        f'admin: {{ admin_ws = false }}\n')
    (folder / "janus.plugin.videoroom.jcfg").write_text(
        f'general: {{ admin_key = "{admin_key}" }}\n')
    api = f"http://127.0.0.1:{http}/janus"
    with (folder / "janus.log").open("wb") as out:
        proc = subprocess.Popen([binary, "-F", str(folder), "-C", str(folder / "janus.jcfg")],
                                stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    if httpx.get(f"{api}/info", timeout=1.0).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("janus did not start: "
                                       + (folder / "janus.log").read_text(errors="replace")[-2000:])
                time.sleep(0.2)
            yield f"ws://127.0.0.1:{ws}", api
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_through_janus_each_huddle_is_private_too(camera_browser: Browser,
                                                  tmp_path: Path) -> None:
    """The same table through Janus's VideoRoom (the SFU a table larger than the mesh uses; here
    every camera table does: ``KEMPS_MESH_MAX_PLAYERS=0``): each page publishes once to the table
    room and once to its pair's room, and what it publishes where follows the phase: see
    :func:`huddle_then_silent_hand`. The server made the rooms with Janus's admin key and ends
    them with the room."""
    with janus(tmp_path / "janus", "kemps-admin-key") as (ws_url, api):
        with server_thread(sqlite_url(tmp_path), huddle_s=120, bot_huddle_s=0.3,
                           janus_url=ws_url, janus_api=api, janus_admin_key="kemps-admin-key",
                           mesh_max_players=0) as srv, four_pages(camera_browser) as pages:
            code = seat_people(srv, pages, {"preset": "pagat"}, home=False)
            assert httpx.get(f"{srv.url}/api/rooms/{code}").json()["camera_route"] == "sfu"
            connected(pages)
            for page in pages:  # nothing went peer to peer
                assert page.evaluate("() => Object.keys(window.kemps.camera.pcs).length") == 0
            huddle_then_silent_hand(pages)
            sfu = pages[0].evaluate("() => window.kemps.camera.config.sfu")
            assert sfu["pair_room"] == pages[2].evaluate(
                "() => window.kemps.camera.config.sfu.pair_room") != pages[1].evaluate(
                "() => window.kemps.camera.config.sfu.pair_room")  # each pair its own room
            rooms = [sfu["room"], sfu["pair_room"]]
            assert janus_rooms(api, rooms) == [True, True]
        # the table server stopped: it ended the table's rooms on Janus
        deadline = time.monotonic() + 10
        while janus_rooms(api, rooms) != [False, False]:
            assert time.monotonic() < deadline, janus_rooms(api, rooms)
            time.sleep(0.2)


def janus_rooms(api: str, rooms: list[int]) -> list[bool]:
    """Whether each VideoRoom room exists on Janus (its HTTP API: a session, a handle,
    ``exists``)."""
    with httpx.Client(timeout=5) as c:
        session = c.post(api, json={"janus": "create", "transaction": "s"}).json()["data"]["id"]
        handle = c.post(f"{api}/{session}", json={
            "janus": "attach", "plugin": "janus.plugin.videoroom", "transaction": "a"}
        ).json()["data"]["id"]
        out = [bool(c.post(f"{api}/{session}/{handle}", json={
            "janus": "message", "transaction": "e", "body": {"request": "exists", "room": room}}
        ).json()["plugindata"]["data"]["exists"]) for room in rooms]
        c.post(f"{api}/{session}", json={"janus": "destroy", "transaction": "d"})
    return out
