"""The scorekeeper page (/score) and the tournament desk page (/tournament) in a real headless
Chromium, against a real server on a fresh SQLite file (as tests/test_page.py: system Chromium;
in CI, KEMPS_REQUIRE_BROWSER=1, they never skip; without Chromium they skip with a message).

Screenshots: ``KEMPS_SCREENSHOTS=docs/screenshots .venv/bin/python -m pytest
tests/test_desk_page.py`` writes ``scorekeeper.png`` (mid-match) and ``tournament.png`` (final
standings) there; without the variable they go to the test's temporary folder.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from serving import server_thread, sqlite_url

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
QUICK = {"bot_huddle_s": 0.2, "huddle_s": 0.5}


@contextlib.contextmanager
def new_page(browser: Browser, viewport: dict[str, int] = DESKTOP) -> Iterator[Page]:
    """A page that fails the test on any uncaught script error."""
    ctx = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield page
    finally:
        ctx.close()
    assert not errors, f"script errors on the page: {errors}"


def shots_dir(tmp_path: Path) -> Path:
    out = Path(os.environ.get("KEMPS_SCREENSHOTS") or tmp_path / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out


# Seed 000's worked game as taps: (who called, the outcome button's accessible name; a Kemps
# call names the caller's partner)
SEED000 = [("Alice", "Kemps on Cara, right"), ("Ben", "Kemps on Dev, wrong"),
           ("Dev", "Stop Kemps on Alice, right"), ("Alice", "Stop Kemps on Ben, wrong"),
           ("Dev", "Kemps on Ben, right"), ("Cara", "Kemps on Alice, right"),
           ("Alice", "Kemps on Cara, right"), ("Dev", "Kemps on Ben, wrong")]


def tap_hand(page: Page, caller: str, outcome: str, expect_hands: int) -> None:
    """Two taps: the caller, then what happened; waits until the hand is on the sheet."""
    page.get_by_role("button", name=f"{caller} called", exact=True).click()
    page.get_by_role("button", name=outcome, exact=True).click()
    expect(page.locator("#hands li")).to_have_count(expect_hands)


def counts(page: Page) -> dict[str, int]:
    out: dict[str, int] = {}
    for row in page.locator("#standings .standing").all():
        out[row.locator(".who").inner_text()] = int(row.locator(".count").inner_text())
    return out


def test_score_seed000_in_the_browser_with_an_undo(browser: Browser, tmp_path: Path) -> None:
    """A new match on the page (2 pairs, squarescores), seed 000's eight hands tapped in two taps
    each, a mistaken hand undone on the way; Alice & Cara K-E-M (3), Ben & Dev K-E-M-P-S (5), the
    match over, Alice & Cara the winners; a reload keeps it all."""
    with server_thread(sqlite_url(tmp_path), **QUICK) as srv, new_page(browser, PHONE) as page:
        page.goto(srv.url + "/score")
        page.get_by_label("Rules").select_option("squarescores")
        for i, (a, b) in enumerate((("Alice", "Cara"), ("Ben", "Dev"))):
            page.get_by_label(f"Pair {i + 1}, first player").fill(a)
            page.get_by_label(f"Pair {i + 1}, second player").fill(b)
        page.get_by_role("button", name="Start scoring").click()
        expect(page.locator("#sheet-title")).to_have_text("Alice & Cara v Ben & Dev")
        assert "sheet=" in page.url
        for n, (caller, outcome) in enumerate(SEED000[:4], start=1):
            tap_hand(page, caller, outcome, n)
        # a mistaken hand, undone
        tap_hand(page, "Cara", "Kemps on Alice, wrong", 5)
        assert counts(page) == {"Alice & Cara": 3, "Ben & Dev": 2}
        page.get_by_role("button", name="Undo last hand").click()
        expect(page.locator("#hands li")).to_have_count(4)
        assert counts(page) == {"Alice & Cara": 2, "Ben & Dev": 2}
        tap_hand(page, *SEED000[4], 5)
        page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
        page.screenshot(path=str(shots_dir(tmp_path) / "scorekeeper.png"))
        page.set_viewport_size(PHONE)  # type: ignore[arg-type]
        for n, (caller, outcome) in enumerate(SEED000[5:], start=6):
            tap_hand(page, caller, outcome, n)
        expect(page.locator("#over-text")).to_have_text(
            "Match over after hand 8: Alice & Cara win.")
        # The rules line agrees with it (not "Hand 9 - match over" beside "after hand 8").
        expect(page.locator("#sheet-rules")).to_contain_text("Match over after hand 8.")
        expect(page.locator("#sheet-rules")).not_to_contain_text("Hand 9")
        # smaller count in front, the word spelled
        assert counts(page) == {"Alice & Cara": 3, "Ben & Dev": 5}
        expect(page.locator(".standing").first).to_have_attribute(
            "aria-label", "Alice & Cara: 3 letters (K-E-M)")
        expect(page.locator(".standing").nth(1)).to_have_attribute(
            "aria-label", "Ben & Dev: 5 letters (K-E-M-P-S)")
        expect(page.get_by_role("button", name="Alice called")).to_have_count(0)
        page.reload()
        expect(page.locator("#hands li")).to_have_count(8)
        assert counts(page) == {"Alice & Cara": 3, "Ben & Dev": 5}
        expect(page.locator("#over-text")).to_be_visible()


def test_a_small_tournament_to_its_champion(browser: Browser, tmp_path: Path) -> None:
    """Three teams registered on the page, one round robin on one table to K-E-M; each match called
    to the table is entered as letters; the standings and the champion as worked out by hand."""
    with server_thread(sqlite_url(tmp_path), **QUICK) as srv, new_page(browser) as page:
        page.goto(srv.url + "/tournament")
        page.get_by_label("Event name").fill("Club night")
        page.get_by_label("Teams, one a line").fill("Owls: Ann & Abe\nBats: Bea & Bo\n"
                                                   "Cats: Cy & Cal")
        page.get_by_label("Seed for drawn lots (optional)").fill("2026")
        page.get_by_role("button", name="Register the teams and draw").click()
        expect(page.locator("#ev-name")).to_have_text("Club night")
        assert "id=" in page.url
        strength = {"Owls": 0, "Bats": 1, "Cats": 2}  # Owls beat all, Bats beat Cats
        for played in range(3):
            now = page.locator("#now")
            expect(now.locator(".badge.table")).to_have_text("Table 1")
            teams = now.locator("strong").all_inner_texts()
            home, away = teams[0], teams[1]
            mid = page.locator('#schedule tr[data-status="at_table"]').get_attribute(
                "data-match")
            home_wins = strength[home] < strength[away]
            # Each letters box is labelled with its team's whole name, never cut.
            assert now.locator(".letters-team .team-name").all_inner_texts() == [home, away]
            now.get_by_label(f"Letters taken by {home} in {mid}").fill("1" if home_wins else "3")
            now.get_by_label(f"Letters taken by {away} in {mid}").fill("3" if home_wins else "1")
            now.get_by_role("button", name=f"Record {mid}").click()
            expect(page.locator('#schedule tr[data-status="played"]')).to_have_count(played + 1)
        expect(page.locator("#ev-champion")).to_have_text("Champion: Owls")
        rows = page.locator(".standings-table tbody tr")
        expect(rows).to_have_count(3)
        table = [[c.strip() for c in r.locator("td").all_inner_texts()[:6]] for r in rows.all()]
        # by hand: Owls 2 won, 2 letters; Bats 1 won, 1 + 3 = 4 letters; Cats 0 won, 6 letters
        assert [t[0] for t in table] == ["1", "2", "3"]
        assert [t[1].splitlines()[0] for t in table] == ["Owls", "Bats", "Cats"]
        assert [t[3] for t in table] == ["2", "1", "0"]
        assert [t[5] for t in table] == ["2", "4", "6"]
        expect(page.locator("#rule")).to_contain_text("head-to-head")
        expect(page.locator("#now")).to_contain_text("Every match is decided.")
        expect(page.locator("#wd-panel")).to_be_hidden()  # nothing left to withdraw from
        page.evaluate("document.getElementById('toast').hidden = true")
        page.screenshot(path=str(shots_dir(tmp_path) / "tournament.png"))


# Every group match of the six-team test: {the two teams: (winner, letters the winner took)};
# the loser takes the 3 letters (K-E-M) that lose a short match.
GROUP_RESULTS = {frozenset({"Owls", "Cats"}): ("Owls", 2), frozenset({"Owls", "Eels"}): ("Owls", 0),
                 frozenset({"Cats", "Eels"}): ("Cats", 1), frozenset({"Dogs", "Foxes"}): ("Dogs", 1),
                 frozenset({"Dogs", "Bats"}): ("Dogs", 2), frozenset({"Foxes", "Bats"}): ("Foxes", 0)}


def group_table(page: Page, group: str) -> list[list[str]]:
    """A group's standings as [rank, team, played, won, lost, letters] rows."""
    rows = page.locator(f'.standings-table[data-group="{group}"] tbody tr').all()
    out = []
    for r in rows:
        cells = [c.strip() for c in r.locator("td").all_inner_texts()[:6]]
        cells[1] = cells[1].splitlines()[0]
        out.append(cells)
    return out


def test_six_teams_two_groups_and_a_final(browser: Browser, tmp_path: Path) -> None:
    """Six teams registered on the page split into two groups of three (registration order
    alternates: 1st, 3rd, 5th to group A), two tables by default; every group match called to a
    table is entered as letters to K-E-M; then the final (group winners, to the full word) is drawn
    into the schedule, entered, and the champion shown; the group standings as worked out by hand."""
    with server_thread(sqlite_url(tmp_path), **QUICK) as srv, new_page(browser) as page:
        page.goto(srv.url + "/tournament")
        page.get_by_label("Event name").fill("Spring cup")
        page.get_by_label("Teams, one a line").fill(
            "Owls: Ann & Abe\nBats: Bea & Bo\nCats: Cy & Cal\nDogs: Di & Dan\n"
            "Eels: Ed & Eva\nFoxes: Fay & Fin")
        page.get_by_label("Seed for drawn lots (optional)").fill("2026")
        page.get_by_role("button", name="Register the teams and draw").click()
        expect(page.locator("#ev-name")).to_have_text("Spring cup")
        expect(page.locator("#ev-settings")).to_contain_text(
            "6 teams, two groups (A: Owls, Cats, Eels; B: Bats, Dogs, Foxes) and a final; 2 tables")
        schedule = page.locator("#schedule tbody tr")
        expect(schedule).to_have_count(6)  # 3 matches a group, no final yet
        expect(page.locator("#schedule tr[data-match='F']")).to_have_count(0)
        expect(page.locator("#now .badge.table")).to_have_text(["Table 1", "Table 2"])
        now = page.locator("#now")
        for played in range(6):
            row = page.locator('#schedule tr[data-status="at_table"]').first
            mid = row.get_attribute("data-match")
            assert mid is not None and mid[0] in "AB"
            home, away = row.locator("td").nth(1).inner_text().split(" v ")
            winner, got = GROUP_RESULTS[frozenset({home, away})]
            now.get_by_label(f"Letters taken by {home} in {mid}").fill(
                str(got if winner == home else 3))
            now.get_by_label(f"Letters taken by {away} in {mid}").fill(
                str(got if winner == away else 3))
            now.get_by_role("button", name=f"Record {mid}").click()
            expect(page.locator('#schedule tr[data-status="played"]')).to_have_count(played + 1)
        # by hand, group A: Owls beat Cats 2-3 and Eels 0-3: 2 won, 2 + 0 = 2 letters;
        #   Cats lost to Owls (3), beat Eels 1-3: 1 won, 3 + 1 = 4; Eels 0 won, 3 + 3 = 6.
        # group B: Dogs beat Foxes 1-3 and Bats 2-3: 2 won, 1 + 2 = 3 letters;
        #   Foxes lost to Dogs (3), beat Bats 0-3: 1 won, 3 + 0 = 3; Bats 0 won, 3 + 3 = 6.
        assert group_table(page, "A") == [["1", "Owls", "2", "2", "0", "2"],
                                          ["2", "Cats", "2", "1", "1", "4"],
                                          ["3", "Eels", "2", "0", "2", "6"]]
        assert group_table(page, "B") == [["1", "Dogs", "2", "2", "0", "3"],
                                          ["2", "Foxes", "2", "1", "1", "3"],
                                          ["3", "Bats", "2", "0", "2", "6"]]
        expect(page.locator("#ev-champion")).to_be_hidden()
        # the final: the group winners (A's home), drawn into the schedule and called to a table
        expect(schedule).to_have_count(7)
        final = page.locator("#schedule tr[data-match='F']")
        expect(final).to_have_attribute("data-status", "at_table")
        expect(final.locator("td").nth(0)).to_contain_text("final")
        expect(final.locator("td").nth(1)).to_have_text("Owls v Dogs")
        expect(now).to_contain_text("F: Owls v Dogs — to K-E-M-P-S")
        expect(page.locator("#standings")).to_contain_text("Final: Owls v Dogs")
        # the final to the full word: Owls take K-E-M-P-S (5) and lose; Dogs K-E-M-P (4)
        now.get_by_label("Letters taken by Owls in F").fill("5")
        now.get_by_label("Letters taken by Dogs in F").fill("4")
        now.get_by_role("button", name="Record F").click()
        expect(page.locator("#ev-champion")).to_have_text("Champion: Dogs")
        expect(final).to_have_attribute("data-status", "played")
        expect(final).to_contain_text("Dogs win: Owls K-E-M-P-S, Dogs K-E-M-P")
        expect(page.locator("#standings")).to_contain_text("Final: Owls v Dogs — Dogs win")
        expect(page.locator("#now")).to_contain_text("Every match is decided.")
        expect(page.locator("#wd-panel")).to_be_hidden()
        # the group standings stand as they were (the final is not a group match)
        assert group_table(page, "A")[0] == ["1", "Owls", "2", "2", "0", "2"]
        assert group_table(page, "B")[0] == ["1", "Dogs", "2", "2", "0", "3"]
        page.reload()
        expect(page.locator("#ev-champion")).to_have_text("Champion: Dogs")
