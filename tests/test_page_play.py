"""Playing the table as a newcomer would (issue "A table a newcomer can play"): a whole match from
the keyboard alone, the call banner and the match-end recap, the key list, the remembered mute,
a lost race named in plain words, the pending swap, the spectator's label, the how-to-play page.

Each test runs its own server and headless Chromium (see tests/test_page.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect as ws_connect

from serving import server_thread, sqlite_url
from test_page import (
    WAIT_MS,
    cards,
    create_room,
    in_some_hand,
    new_page,
    shots_dir,
    start_with_bots,
    wait_for_hand,
)


def swap_by_keys(page: Page) -> tuple[str, str]:
    """Swap the first hand card (key A) for the first middle card (key 1); retried when a bot
    took the card first. Returns (given, taken)."""
    for _ in range(8):
        if page.evaluate("() => window.kemps.S.view.phase") in ("huddle", "over"):
            raise AssertionError("the hand is over: a bot decided it first")
        hand, middle = cards(page, "hand"), page.evaluate("() => window.kemps.S.view.middle")
        if len(hand) != 4 or not middle[0]:
            page.wait_for_timeout(200)
            continue
        page.keyboard.press("a")
        page.keyboard.press("1")
        try:
            expect(page.locator(f'[data-zone="hand"][data-card="{middle[0]}"]')).to_have_count(
                1, timeout=3000)
            return hand[0], middle[0]
        except AssertionError:
            page.keyboard.press("Escape")
    raise AssertionError("could not swap from the keyboard in eight tries")


def swap_in_some_hand(page: Page) -> tuple[str, str]:
    """``swap_by_keys`` in the first hand the bots leave open long enough (``in_some_hand``)."""
    return in_some_hand(page, swap_by_keys)


def test_a_whole_match_from_the_keyboard(browser: Browser, tmp_path: Path) -> None:
    """After the lobby, no mouse: Space ticks a signal in the huddle, Shift+A agrees it, R is
    Ready, A then 1 swaps, G gives the signal, L calls Stop Kemps (two pairs: the other pair is
    implied). The banner tells everyone the call and the verdict, the match-end screen names the
    winners and recaps the hand. The room is made with ``target: 1`` so one decided hand ends it.
    """
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser) as page:
        create_room(page, srv.url, "Alice", target=1)
        start_with_bots(page)
        page.locator("#signal-choices input").first.focus()
        page.keyboard.press("Space")
        page.keyboard.press("Shift+A")
        expect(page.locator("#signals-now")).to_contain_text("Agreed:")
        page.keyboard.press("r")
        expect(page.locator("#ready")).to_have_text("Ready ✓")
        page.locator("body").focus()
        give, take = swap_in_some_hand(page)
        assert take in cards(page, "hand") and give not in cards(page, "hand")
        page.keyboard.press("g")
        # (an online table follows looks: your own gesture is played on your person, no bubble)
        signal = page.evaluate("() => window.kemps.S.view.signals[0]")
        expect(page.locator(".seat.me .person")).to_have_attribute("data-played", signal)
        if page.evaluate("() => window.kemps.S.view.phase") in ("dealt", "play"):
            page.keyboard.press("l")
            expect(page.locator("#banner")).to_contain_text(re.compile("Right!|Wrong!"),
                                                            timeout=WAIT_MS)
        page.keyboard.press("Escape")  # the banner goes; the match-end screen follows
        expect(page.locator("#match-end")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#end-title")).to_have_text(re.compile(r"(You win the match!|win the match)$"))
        expect(page.locator("#recap-body tr")).to_have_count(1)
        expect(page.locator("#recap-body tr").first).to_contain_text(re.compile("right|wrong"))
        expect(page.locator("#recap-body tr").first).to_contain_text("take a letter: K")
        # The banner said who called what (it may have faded by now: its last words are logged).
        expect(page.locator("#log")).to_contain_text(re.compile(r"calls .(Stop )?Kemps!"))
        # After a reload the recap is the server's record of the match: every hand still there.
        page.reload()
        expect(page.locator("#match-end")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#recap-body tr")).to_have_count(1)
        expect(page.locator("#recap-body tr").first).to_contain_text(re.compile("right|wrong"))
        expect(page.locator("#recap-body tr").first).to_contain_text("take a letter: K")


# Counts the tones the page starts (the page's sound goes through AudioContext oscillators).
COUNT_TONES = """(() => {
  window.__tones = 0;
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    createOscillator() { window.__tones += 1; return super.createOscillator(); }
  };
})();"""


def test_the_call_banner_the_keys_and_the_sounds(browser: Browser, tmp_path: Path) -> None:
    """A call shows table-wide, to players and spectators alike ("Alice: Stop Kemps!"), with
    right or wrong and the letter taken; ? opens the key list and Esc closes it; a swap makes a
    sound, M mutes (no sound for the call then) and the mute survives a reload."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=3) as srv, \
            new_page(browser) as page, new_page(browser) as visitor:
        page.add_init_script(COUNT_TONES)
        code = create_room(page, srv.url, "Alice")
        start_with_bots(page)
        visitor.goto(f"{srv.url}/room/{code}")
        page.keyboard.press("?")
        expect(page.locator("#help")).to_be_visible()
        expect(page.locator("#keys-list")).to_contain_text("call Kemps")
        page.screenshot(path=shots_dir(tmp_path) / "keys.png")
        page.keyboard.press("Escape")
        expect(page.locator("#help")).to_be_hidden()
        page.keyboard.press("r")
        swap_in_some_hand(page)
        assert page.evaluate("() => window.__tones") > 0  # the swaps ticked
        page.keyboard.press("m")
        expect(page.locator("#mute")).to_have_text(re.compile("Sound off"))
        muted_at = page.evaluate("() => window.__tones")
        page.get_by_role("button", name=re.compile("^Stop Kemps")).click()
        for seen in (page, visitor):
            banner = seen.locator("#banner")
            expect(banner).to_contain_text(re.compile(r"(Alice|\w+): (Stop )?Kemps!"))
            expect(banner).to_contain_text(re.compile("Right!|Wrong!"))
            expect(banner).to_contain_text(re.compile(r"take a letter: K"))
        assert page.evaluate("() => window.__tones") == muted_at
        expect(page.locator("#huddle-last")).to_contain_text(re.compile("right|wrong"), timeout=WAIT_MS)
        page.reload()
        expect(page.locator("#mute")).to_have_text(re.compile("Sound off"))
        assert page.evaluate("() => localStorage.getItem('kemps.mute')") == "1"


def _seat_people(url: str, names: list[str]) -> tuple[str, list[str]]:
    made = httpx.post(f"{url}/api/rooms", json={
        "name": names[0], "preset": "pagat", "options": {"idle_sweep_s": 0}}).json()
    tokens = [made["token"]]
    for seat, name in enumerate(names[1:], start=1):
        r = httpx.post(f"{url}/api/rooms/{made['code']}/seats", json={"seat": seat, "name": name})
        tokens.append(r.json()["token"])
    return made["code"], tokens


def test_a_lost_race_says_who_was_first(browser: Browser, tmp_path: Path) -> None:
    """Bruno (over a plain WebSocket) takes a middle card; Alice's page then asks for the same
    card: it says "Bruno was first", in words and card faces, never a code. A click shows the
    swap as pending at once, before any answer."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv:
        code, tokens = _seat_people(srv.url, ["Alice", "Bruno", "Cara", "Dev"])
        httpx.post(f"{srv.url}/api/rooms/{code}/start",
                   headers={"Authorization": f"Bearer {tokens[0]}"}).raise_for_status()
        with new_page(browser) as page, \
                ws_connect(f"{srv.ws}/ws/{code}?token={tokens[1]}") as bruno:
            page.goto(srv.url + "/")
            page.evaluate(f"() => localStorage.setItem('kemps.seat.{code}', "
                          f"JSON.stringify({{seat: 0, token: {json.dumps(tokens[0])}}}))")
            page.goto(f"{srv.url}/room/{code}")
            expect(page.locator("#huddle")).to_be_visible()
            json.loads(bruno.recv())
            bruno.send(json.dumps({"type": "ready"}))
            for token in tokens[2:]:
                with ws_connect(f"{srv.ws}/ws/{code}?token={token}") as ws:
                    json.loads(ws.recv())
                    ws.send(json.dumps({"type": "ready"}))
                    page.wait_for_timeout(200)
            page.get_by_role("button", name="Ready").click()
            wait_for_hand(page)
            # The pending state shows in the same task as the click, before any message.
            pending = page.evaluate("""() => {
                document.querySelector('[data-zone="hand"]').click();
                document.querySelector('[data-zone="middle"]').click();
                return document.querySelectorAll('button.card.pending').length; }""")
            assert pending == 2
            expect(page.locator("button.card.pending")).to_have_count(0, timeout=5000)
            # Bruno takes a middle card (from his view as of now: "sync" sends it); then Alice's
            # page asks for it.
            bruno.send(json.dumps({"type": "sync"}))
            while True:
                state = json.loads(bruno.recv())
                if state.get("type") == "state":
                    view = state["view"]
                    break
            taken = next(c for c in view["middle"] if c)
            bruno.send(json.dumps({"type": "action", "id": 1, "action": {
                "type": "swap", "take": [taken], "give": [view["hand"][0]]}}))
            expect(page.locator('.seat[data-seat="1"] .last')).to_contain_text("took")
            page.evaluate("([take, give]) => window.kemps.sendSwap([take], [give])",
                          [taken, cards(page, "hand")[0]])
            toast = page.locator("#toast")
            expect(toast).to_contain_text("Bruno was first")
            assert not re.search(r"\b[2-9TJQKA][CDHS]\b", toast.inner_text())


def test_spectators_see_that_they_watch_and_everyone_sees_how_many(browser: Browser,
                                                                  tmp_path: Path) -> None:
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=3) as srv, \
            new_page(browser) as page, new_page(browser) as visitor:
        code = create_room(page, srv.url, "Alice")
        start_with_bots(page)
        page.keyboard.press("r")
        wait_for_hand(page)
        expect(page.locator("#watching")).to_be_hidden()
        visitor.goto(f"{srv.url}/room/{code}")
        expect(visitor.locator("#watching")).to_have_text("You are watching")
        expect(page.locator("#watchers")).to_have_text("1 watching")
        expect(visitor.locator("#watchers")).to_have_text("1 watching")
        visitor.screenshot(path=shots_dir(tmp_path) / "spectator.png")


def test_the_four_of_a_kind_nudge(browser: Browser, tmp_path: Path) -> None:
    """Holding four of a kind, the hint stops explaining swaps and says to give the signal; when
    the partner gives the pair's signal, it says to call."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser) as page:
        create_room(page, srv.url, "Alice")
        start_with_bots(page)
        page.get_by_role("checkbox", name="Wink").check()
        page.get_by_role("button", name="Agree these signals").click()
        page.get_by_role("button", name="Ready").click()
        wait_for_hand(page)
        expect(page.locator("#hint")).to_contain_text("Swap")
        # The page's own view, as if the deal had given four sevens (the server's hand is not
        # touched: this checks what the page says about a hand, not the rules).
        hint = page.evaluate("""() => { const S = window.kemps.S;
            S.view = {...S.view, phase: 'play', hand: ['7C', '7D', '7H', '7S']}; window.kemps.render();
            return document.getElementById('hint').textContent; }""")
        assert "You hold four 7s" in hint and "Wink" in hint, hint
        # The partner makes the pair's signal (an update as the server sends it): the hint says
        # to call.
        hint = page.evaluate("""() => { const {S, handleMessage} = window.kemps;
            handleMessage({type: 'update', version: S.view.version, view: S.view, events: [
              {type: 'gestured', seat: S.view.partner, gesture: 'wink', heard: false, t: 1,
               text: 'Cleo winks.'}]});
            return document.getElementById('hint').textContent; }""")
        assert "just gave your signal (Wink): call Kemps!" in hint, hint


def test_how_to_play_in_the_tables_words(browser: Browser, tmp_path: Path) -> None:
    """/how-to-play explains the game with the call words of the chosen rule set, lists every
    preset with its name and one line, and the table links to it with its room's words."""
    with server_thread(sqlite_url(tmp_path)) as srv, new_page(browser) as page:
        presets = httpx.get(f"{srv.url}/api/presets").json()["presets"]
        page.goto(f"{srv.url}/how-to-play")
        expect(page.locator("h1")).to_have_text("How to play Kemps")
        expect(page.locator("#presets dt")).to_have_count(len(presets))
        expect(page.locator("#presets")).to_contain_text("The classic game (Pagat)")
        for section in ("Stall and Object", "The signal", "The calls", "Letters"):
            expect(page.get_by_role("heading", name=re.compile(section))).to_be_visible()
        page.goto(f"{srv.url}/how-to-play?preset=kent")
        expect(page.locator("h1")).to_have_text("How to play Kent")
        expect(page.locator(".letters-table")).to_contain_text("Stop Kent")
        expect(page.locator("main")).to_contain_text("K-E-N-T")
        code = create_room(page, srv.url, "Alice")
        expect(page.locator("#howto-link")).to_have_attribute("href", f"/how-to-play?room={code}")


def test_a_reload_keeps_the_log_and_the_last_result(browser: Browser, tmp_path: Path) -> None:
    """The server sends the hand's log with the state: after a reload mid-hand the log still
    says who dealt and who swapped; a spectator who comes in mid-hand reads the same; after a
    reload between hands the result still says who called, right or wrong, and who took the
    letter."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser) as page, new_page(browser) as visitor:
        code = create_room(page, srv.url, "Alice")
        start_with_bots(page)
        page.get_by_role("checkbox", name="Nod").check()
        page.get_by_role("button", name="Agree these signals").click()
        page.get_by_role("button", name="Ready").click()
        swap_in_some_hand(page)
        page.reload()
        wait_for_hand(page)
        log = page.locator("#log")
        expect(log).to_contain_text(re.compile(r"Hand \d+:"))
        expect(log).to_contain_text("Alice takes")
        visitor.goto(f"{srv.url}/room/{code}")
        expect(visitor.locator("#log")).to_contain_text("Alice takes")
        # Card codes read as faces ("A♦", never "AD").
        assert not re.search(r"\b[2-9TJQKA][CDHS]\b", log.inner_text())
        if page.locator("#huddle").is_hidden():
            page.get_by_role("button", name=re.compile("^Stop Kemps")).click()
        expect(page.locator("#huddle")).to_be_visible(timeout=WAIT_MS)
        page.reload()
        expect(page.locator("#huddle")).to_be_visible()
        expect(page.locator("#huddle-last")).to_contain_text(re.compile("right|wrong"))
        expect(page.locator("#result-body")).to_contain_text(re.compile(r"called .*(right|wrong)"))
        expect(page.locator("#result-body")).to_contain_text("take a letter: K")
        expect(log).to_contain_text(re.compile("calls"))


def test_a_player_who_leaves_is_away_then_a_bot_plays_until_they_return(browser: Browser,
                                                                       tmp_path: Path) -> None:
    """Bruno closes his tab mid-match: Alice, on a phone, sees "away" on his seat; after the
    grace time (1 s here) "bot plays"; Bruno opens the room again (his token is still in the
    browser) and has his seat back. The host may also put a bot on a seat at once, or remove a
    person (a bot plays to the end) from the "Seats" panel."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30,
                       away_grace_s=1.0) as srv, \
            new_page(browser, {"width": 390, "height": 844}) as host:
        code = create_room(host, srv.url, "Alice")
        friend_context = browser.new_context()
        try:
            with new_page(browser, context=friend_context) as friend:
                friend.goto(f"{srv.url}/room/{code}")
                friend.locator("#lobby").get_by_label("Your name").fill("Bruno")
                friend.get_by_role("button", name="Sit at seat 2").click()
                expect(host.locator('.lseat[data-seat="1"]')).to_contain_text("Bruno")
                host.get_by_role("button", name="Fill empty seats with bots").click()
                host.get_by_role("button", name="Start the match").click()
                expect(friend.locator("#huddle")).to_be_visible()
                expect(host.locator('.seat[data-seat="1"] .tags')).not_to_contain_text("away")
                expect(host.locator("#host-seats")).to_contain_text("Bruno — here")
            tags = host.locator('.seat[data-seat="1"] .tags')
            away = host.locator('.seat[data-seat="1"] .tag-away')
            expect(away).to_be_visible(timeout=WAIT_MS)
            box = away.bounding_box()
            assert box is not None and box["width"] > 10 and 0 <= box["x"] <= 390 - box["width"]
            expect(tags).to_contain_text("bot plays", timeout=WAIT_MS)
            expect(host.locator("#host-seats")).to_contain_text("bot plays for now")
            with new_page(browser, context=friend_context) as back:
                back.goto(f"{srv.url}/room/{code}")
                expect(back.locator(".seat.me .seat-name")).to_have_text("Bruno")
                expect(tags).not_to_contain_text("bot plays", timeout=WAIT_MS)
                expect(tags).not_to_contain_text("away")
                # The host's replace: a bot plays for Bruno now, though he is here.
                host.locator("#host-seats").get_by_role("button", name="A bot plays for Bruno now").click()
                expect(tags).to_contain_text("bot plays")
                # And remove: a bot to the end; Bruno watches.
                host.on("dialog", lambda d: d.accept())
                host.locator("#host-seats").get_by_role(
                    "button", name="Remove Bruno: a bot plays to the end").click()
                expect(back.locator("#watching")).to_be_visible(timeout=WAIT_MS)
                expect(host.locator("#host-panel")).to_be_hidden()
        finally:
            friend_context.close()


def test_the_host_starts_the_rematch(browser: Browser, tmp_path: Path) -> None:
    """At the match end the host has the Rematch button; another seated player is told whom the
    table waits for (one stray click no longer restarts the table for everyone)."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser) as host, new_page(browser) as friend:
        code = create_room(host, srv.url, "Alice", target=1)
        friend.goto(f"{srv.url}/room/{code}")
        friend.locator("#lobby").get_by_label("Your name").fill("Bruno")
        friend.get_by_role("button", name="Sit at seat 2").click()
        expect(host.locator('.lseat[data-seat="1"]')).to_contain_text("Bruno")
        host.get_by_role("button", name="Fill empty seats with bots").click()
        host.get_by_role("button", name="Start the match").click()
        for page in (host, friend):
            expect(page.locator("#huddle")).to_be_visible()
            page.keyboard.press("r")
        wait_for_hand(friend)
        if friend.evaluate("() => window.kemps.S.view.phase") in ("dealt", "play"):
            friend.keyboard.press("l")
            for page in (host, friend):
                expect(page.locator("#banner")).to_contain_text(re.compile("Right!|Wrong!"),
                                                                timeout=WAIT_MS)
        for page in (host, friend):
            page.keyboard.press("Escape")  # the banner goes (if it has not yet)
            expect(page.locator("#match-end")).to_be_visible(timeout=WAIT_MS)
        expect(host.get_by_role("button", name="Rematch")).to_be_visible()
        expect(friend.get_by_role("button", name="Rematch")).to_be_hidden()
        expect(friend.locator("#rematch-wait")).to_have_text(
            "Waiting for Alice (the host) to start a rematch.")


def test_whom_to_stop_from_the_keys_at_three_pairs(browser: Browser, tmp_path: Path) -> None:
    """With three pairs a Stop call asks whom: L opens the choice (the pairs the view lists as
    targets), Shift and a target's place to your left picks it (1-4 stay the middle's keys: a
    middle card is picked while the choice is open), and the banner says whom the call was on."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser) as page:
        create_room(page, srv.url, "Alice")
        page.locator("#lobby-pairs-select").select_option("3")
        expect(page.locator(".lseat")).to_have_count(6)
        page.get_by_role("button", name="Fill empty seats with bots").click()
        expect(page.locator(".lseat.bot")).to_have_count(5)
        page.get_by_role("button", name="Start the match").click()
        expect(page.locator("#huddle")).to_be_visible()
        page.keyboard.press("r")
        swap_in_some_hand(page)
        targets = page.evaluate("() => window.kemps.S.view.legal.stop")
        assert len(targets) == 2
        page.keyboard.press("l")
        picker = page.locator("#picker")
        expect(picker).to_be_visible()
        expect(picker.locator("button[data-pick]")).to_have_count(2)
        first_button = picker.locator("button[data-pick]").first
        label = first_button.get_attribute("aria-label") or ""
        first = label.split(" on ", 1)[1].split(" (Shift+")[0]  # "Stop Kemps on Bram & Esme (Shift+1)"
        place = first_button.get_attribute("data-pick")
        # The middle's key picks a middle card, the choice stays open.
        page.keyboard.press("1")
        expect(page.locator('#middle [data-zone="middle"][aria-pressed="true"]')).to_have_count(1)
        expect(picker).to_be_visible()
        page.keyboard.press(f"Shift+Digit{place}")
        expect(page.locator("#banner")).to_contain_text(f"on {first}", timeout=WAIT_MS)


def test_at_an_attention_table_a_click_on_a_player_turns_your_look(browser: Browser,
                                                                 tmp_path: Path) -> None:
    """An ``attention`` table (looks modelled): a click on a player's plate sends a look at them;
    the view's looks say so and the plate is marked as the one you watch."""
    with server_thread(sqlite_url(tmp_path), bot_huddle_s=0.5, huddle_s=30) as srv, \
            new_page(browser) as page:
        create_room(page, srv.url, "Alice")
        page.locator("#lobby-options details.more > summary").click()
        page.locator("#lobby-options-attention").select_option("true")
        expect(page.locator("#lobby-options-attention")).to_have_value("true")
        start_with_bots(page)
        page.keyboard.press("r")
        wait_for_hand(page)
        bram = page.locator('.seat[data-seat="1"] .plate')
        expect(bram).to_have_class(re.compile("lookable"))
        bram.click()
        page.wait_for_function("() => window.kemps.S.view.looks[0] === 1", timeout=WAIT_MS)
        expect(bram).to_have_class(re.compile("looked-at"))
