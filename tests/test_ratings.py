"""Ratings (kemps.server.ratings, issue 32): each update checked against the openskill library's
own figures on the same inputs, rated exactly once (a second pass, a restarted process, two
raters at once, a failure half-way), and the tournament desk's seeding by rating.

Issue 32: "each person and each pair rated from finished online matches with a well-kept rating
library ..., bots rated too, so a person's rating means something from the first match"; "the
tournament desk can seed groups by rating". The matches are seed 000's worked game
(tests/rating_matches.py) with scripted results.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select

from kemps.server import ratings
from kemps.server.players import player_id
from kemps.server.ratings import (
    MatchPlayerRow,
    RatedMatchRow,
    RatingRow,
    pair_subject,
    plan,
    rate,
    rate_pending,
)
from kemps.server.seeding import seeded_order, serpentine
from kemps.server.storage import Storage
from rating_matches import key_of, store, worked_match
from serving import server_process, server_thread, sqlite_url

LIB = PlackettLuce()  # the library's own model, as the documentation shows it
A, B, C, D, E = (player_id(key_of(n)) for n in range(5))


def fresh() -> Any:
    return LIB.rating()


def close(got: tuple[float, float], want: Any) -> None:
    assert got[0] == pytest.approx(want.mu, rel=1e-12, abs=1e-12)
    assert got[1] == pytest.approx(want.sigma, rel=1e-12, abs=1e-12)


# -- the update against the library ------------------------------------------------------------
def test_a_first_match_moves_people_and_pairs_as_openskill_does() -> None:
    """Seats 0 and 2 are pair 0 (partners sit opposite); Alice & Cara win the worked game."""
    update = rate([A, B, C, D], [1, 2], {})
    want = LIB.rate([[fresh(), fresh()], [fresh(), fresh()]], ranks=[1, 2])
    close(update.ratings[A], want[0][0])
    close(update.ratings[C], want[0][1])
    close(update.ratings[B], want[1][0])
    close(update.ratings[D], want[1][1])
    duos = LIB.rate([[fresh()], [fresh()]], ranks=[1, 2])
    close(update.ratings[pair_subject(A, C)], duos[0][0])
    close(update.ratings[pair_subject(D, B)], duos[1][0])
    assert update.ratings[A][0] > 25 > update.ratings[B][0]
    assert update.won == {A: True, C: True, B: False, D: False,
                          pair_subject(A, C): True, pair_subject(B, D): False}
    assert update.before == [pytest.approx(fresh().ordinal())] * 4
    assert update.after[0] == pytest.approx(want[0][0].ordinal())


def test_stored_ratings_bots_ties_and_guests_as_openskill_does() -> None:
    """Three pairs, a tie for second, a bot level in two seats (the mean of its seats' new
    ratings), a guest (the default rating, never stored), stored ratings carried in."""
    current = {A: (28.0, 6.0), B: (22.5, 7.25), "bot:sharp": (30.0, 2.0),
               pair_subject(A, B): (27.0, 5.0)}
    # pairs: 0 = seats 0, 3; 1 = seats 1, 4; 2 = seats 2, 5
    players = [A, "bot:sharp", None, B, "bot:sharp", C]
    update = rate(players, [2, 1, 2], current)
    r = LIB.rating
    want = LIB.rate([[r(mu=28.0, sigma=6.0), r(mu=22.5, sigma=7.25)],
                     [r(mu=30.0, sigma=2.0), r(mu=30.0, sigma=2.0)],
                     [fresh(), fresh()]], ranks=[2, 1, 2])
    close(update.ratings[A], want[0][0])
    close(update.ratings[B], want[0][1])
    close(update.ratings[C], want[2][1])
    bot = update.ratings["bot:sharp"]
    assert bot[0] == pytest.approx((want[1][0].mu + want[1][1].mu) / 2, rel=1e-12)
    assert bot[1] == pytest.approx((want[1][0].sigma + want[1][1].sigma) / 2, rel=1e-12)
    duos = LIB.rate([[r(mu=27.0, sigma=5.0)], [fresh()], [fresh()]], ranks=[2, 1, 2])
    close(update.ratings[pair_subject(A, B)], duos[0][0])
    close(update.ratings[pair_subject("bot:sharp", "bot:sharp")], duos[1][0])
    assert None not in update.ratings and not any("None" in k for k in update.ratings)
    assert len(update.ratings) == 6  # A, B, C, the bot level, two pairs (not the guest's)
    assert update.won["bot:sharp"] and not update.won[A]


def test_what_cannot_be_rated_is_named() -> None:
    summary = worked_match([A, B, C, D])["summary"]
    assert plan(summary, 2) == ([A, B, C, D], [1, 2])
    assert plan({**summary, "players": ["bot:club"] * 4}, 2) == "no_person"
    assert plan({**summary, "players": [None, "bot:club", "bot:club", "bot:club"]}, 2) == \
        ([None, "bot:club", "bot:club", "bot:club"], [1, 2])
    assert plan({**summary, "over": False}, 2) == "unfinished"
    assert plan({k: v for k, v in summary.items() if k != "players"}, 2) == "no_players"
    assert plan({**summary, "players": [A, B]}, 2) == "no_players"
    with pytest.raises(ValueError):
        rate([A, B, C], [1, 2], {})


# -- stored, exactly once ----------------------------------------------------------------------
async def _table(storage: Storage, row: type) -> list[Any]:
    async with storage.sessions() as s:
        return list((await s.execute(select(row))).scalars())


def test_each_match_is_rated_once_across_a_restart_and_two_raters(database_url: str) -> None:
    """Three rated matches and two passed over; a second pass, a restarted process and two
    raters at once change nothing; the stored figures are the library's, in match order."""
    first = worked_match([A, B, C, D], match_no=1)  # A & C beat B & D
    second = worked_match([A, C, B, "bot:sharp"], ranks=[2, 1], match_no=2)  # C & bot beat A & B
    bots = worked_match(["bot:club"] * 4, match_no=3)
    unfinished = worked_match([A, B, C, D], match_no=4)
    unfinished["summary"]["over"] = False

    async def run() -> tuple[dict[str, RatingRow], list[Any], list[Any], list[int]]:
        storage = Storage(database_url)
        await storage.start()
        try:
            ids = await store(storage, first, second, bots, unfinished)
            assert await rate_pending(storage) == 4
            assert await rate_pending(storage) == 0
        finally:
            await storage.close()
        again, other = Storage(database_url), Storage(database_url)  # a restart, and a 2nd node
        await again.start()
        await other.start()
        try:
            ids += await store(again, worked_match([D, E, B, C], match_no=5))  # D & B beat E & C
            await asyncio.gather(rate_pending(again), rate_pending(other))
            assert [await ratings.rate_match(again, i) for i in ids] == ["already"] * 5
            assert await ratings.rate_match(again, 10**9) == "missing"
            return ({r.subject: r for r in await _table(again, RatingRow)},
                    await _table(again, RatedMatchRow), await _table(again, MatchPlayerRow), ids)
        finally:
            await again.close()
            await other.close()

    rows, rated, seats, ids = asyncio.run(run())
    assert sorted((r.match_id, r.outcome) for r in rated) == [
        (ids[0], "rated"), (ids[1], "rated"), (ids[2], "no_person"), (ids[3], "unfinished"),
        (ids[4], "rated")]
    r = LIB.rating
    m1 = LIB.rate([[fresh(), fresh()], [fresh(), fresh()]], ranks=[1, 2])
    a1, c1, b1, d1 = m1[0][0], m1[0][1], m1[1][0], m1[1][1]
    m2 = LIB.rate([[r(mu=a1.mu, sigma=a1.sigma), r(mu=b1.mu, sigma=b1.sigma)],
                   [r(mu=c1.mu, sigma=c1.sigma), fresh()]], ranks=[2, 1])
    a2, b2, c2, bot = m2[0][0], m2[0][1], m2[1][0], m2[1][1]
    # match 5: seats D, E, B, C: pair 0 = D & B (won), pair 1 = E & C
    m5 = LIB.rate([[r(mu=d1.mu, sigma=d1.sigma), r(mu=b2.mu, sigma=b2.sigma)],
                   [fresh(), r(mu=c2.mu, sigma=c2.sigma)]], ranks=[1, 2])
    want = {A: (a2, 2, 1), B: (m5[0][1], 3, 1), C: (m5[1][1], 3, 2), D: (m5[0][0], 2, 1),
            E: (m5[1][0], 1, 0), "bot:sharp": (bot, 1, 1)}
    for subject, (rating, matches, wins) in want.items():
        row = rows[subject]
        close((row.mu, row.sigma), rating)
        assert (row.matches, row.wins) == (matches, wins), subject
        assert row.ordinal == pytest.approx(rating.ordinal(), rel=1e-12)
    assert rows[A].kind == "person" and rows["bot:sharp"].kind == "bot"
    assert rows["bot:sharp"].name == "Sharp bot" and rows[A].name == "Alice"
    duo_ac = LIB.rate([[fresh()], [fresh()]], ranks=[1, 2])[0][0]
    duo_ab = LIB.rate([[fresh()], [fresh()]], ranks=[2, 1])[0][0]  # new in match 2, lost
    close((rows[pair_subject(A, C)].mu, rows[pair_subject(A, C)].sigma), duo_ac)
    close((rows[pair_subject(A, B)].mu, rows[pair_subject(A, B)].sigma), duo_ab)
    assert rows[pair_subject(A, B)].matches == 1 and rows[pair_subject(A, C)].matches == 1
    assert "bot:club" not in rows
    assert len(seats) == 12 and len({(s.match_id, s.seat) for s in seats}) == 12


def test_a_rating_that_fails_half_way_leaves_nothing(database_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The claim and the ratings are one transaction: a failure after the claim rolls it back,
    and the next pass rates the match once."""

    def broken(*_: Any) -> Any:
        raise RuntimeError("the rater died half-way")

    async def run() -> tuple[list[Any], list[Any]]:
        storage = Storage(database_url)
        await storage.start()
        try:
            await store(storage, worked_match([A, B, C, D]))
            with monkeypatch.context() as m:
                m.setattr(ratings, "rate", broken)
                with pytest.raises(RuntimeError):
                    await rate_pending(storage)
            assert await _table(storage, RatedMatchRow) == []
            assert await _table(storage, RatingRow) == []
            assert await rate_pending(storage) == 1
            return await _table(storage, RatingRow), await _table(storage, RatedMatchRow)
        finally:
            await storage.close()

    rows, rated = asyncio.run(run())
    assert {r.subject: r.matches for r in rows} == {
        A: 1, B: 1, C: 1, D: 1, pair_subject(A, C): 1, pair_subject(B, D): 1}
    assert [r.outcome for r in rated] == ["rated"]


def _leaderboard(url: str) -> dict[str, Any]:
    got = httpx.get(f"{url}/api/leaderboard", params={"kind": "person"}, timeout=10)
    got.raise_for_status()
    return {row["id"]: row for row in got.json()["rows"]}


def _wait_rated(url: str, player: str, matches: int) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        rows = _leaderboard(url)
        if rows.get(player, {}).get("matches") == matches:
            return rows
        time.sleep(0.1)
    raise AssertionError(f"{player} was not rated in {matches} matches within 120 s")


def test_a_restarted_server_rates_what_it_missed_and_nothing_twice(tmp_path: Any) -> None:
    """``kemps serve`` as a real process: it rates a stored match at start; stopped and started
    again (with one more match stored meanwhile) it rates only the new one."""
    url = sqlite_url(tmp_path)

    async def put(*matches: dict[str, Any]) -> None:
        storage = Storage(url)
        await storage.start()
        try:
            await store(storage, *matches)
        finally:
            await storage.close()

    asyncio.run(put(worked_match([A, B, C, D])))
    with server_process(url) as running:
        first = _wait_rated(running.url, A, 1)
    asyncio.run(put(worked_match([A, E, B, D], ranks=[2, 1], match_no=2)))
    with server_process(url) as running:
        rows = _wait_rated(running.url, E, 1)
    assert first[A]["matches"] == 1 and rows[A]["matches"] == 2
    assert rows[C]["matches"] == 1 and rows[C]["rating"] == first[C]["rating"]
    assert rows[B]["matches"] == 2 and rows[D]["matches"] == 2


# -- seeding the desk's groups -----------------------------------------------------------------
def test_serpentine_order_balances_two_groups() -> None:
    assert serpentine(6) == [0, 1, 3, 2, 4, 5]
    assert serpentine(7) == [0, 1, 3, 2, 4, 5, 6]
    assert serpentine(8) == [0, 1, 3, 2, 4, 5, 7, 6]
    # strengths by registration: the strongest is team 5, then 0, 3, 1, 4, 2 (3 and 1 tie:
    # registration order)
    order = seeded_order([9.0, 2.0, -1.0, 2.0, 0.5, 11.0])
    assert order == [5, 0, 3, 1, 4, 2]
    group_a, group_b = order[0::2], order[1::2]
    assert group_a == [5, 3, 4] and group_b == [0, 1, 2]


def test_the_desk_seeds_groups_by_rating(tmp_path: Any) -> None:
    """Six teams: three strong pairs (rated through the worked game) are spread over both groups
    in serpentine order; without the option registration order stands."""
    url = sqlite_url(tmp_path)
    # A & C (Alice, Cara) beat B & D (Ben, Dev) twice.

    async def put() -> None:
        storage = Storage(url)
        await storage.start()
        try:
            await store(storage, worked_match([A, B, C, D]), worked_match([A, B, C, D],
                                                                         match_no=2))
            await rate_pending(storage)
        finally:
            await storage.close()

    asyncio.run(put())
    teams = [{"name": "Newbies", "players": ["Nia", "Ola"]},
             {"name": "Losers", "players": ["Ben", "Dev"], "player_ids": [B, D]},
             {"name": "Mixed", "players": ["Eve", "Finn"], "player_ids": [E, player_id(key_of(9))]},
             "Winners: Alice & Cara",  # known by their names (one rated person each)
             {"name": "Fresh", "players": ["Gus", "Hana"]},
             {"name": "Others", "players": ["Ivo", "Jo"]}]
    with server_thread(url) as running:
        made = httpx.post(f"{running.url}/api/desk/tournaments",
                          json={"teams": teams, "seed": 5, "seed_by_rating": True}, timeout=10)
        assert made.status_code == 201, made.text
        plain = httpx.post(f"{running.url}/api/desk/tournaments",
                           json={"teams": teams, "seed": 5}, timeout=10)
        bad = httpx.post(f"{running.url}/api/desk/tournaments", json={"teams": [
            {"players": ["Ada", "Bo"], "player_ids": ["p-1", B]}, "Cy & Di"]}, timeout=10)
    body = made.json()
    seeding = body["seeding"]
    assert [s["team"] for s in seeding] == ["Winners", "Newbies", "Fresh", "Mixed", "Others",
                                            "Losers"]
    by_team = {s["team"]: s for s in seeding}
    assert by_team["Winners"]["from"] == "pair" and by_team["Winners"]["player_ids"] == [A, C]
    assert by_team["Losers"]["from"] == "pair" and by_team["Losers"]["rating"] < 0
    assert by_team["Mixed"]["from"] == "players" and by_team["Mixed"]["rating"] == 0
    assert by_team["Newbies"]["player_ids"] == [None, None]
    ranked = sorted(seeding, key=lambda s: -s["rating"])
    assert ranked[0]["team"] == "Winners" and ranked[-1]["team"] == "Losers"
    groups = body["tournament"]["groups"]
    # strongest Winners (1st) in A, then the four at 0 in registration order: Newbies (2nd, B),
    # Mixed (3rd, B), Fresh (4th, A), Others (5th, A), Losers last (6th, B)
    assert groups == {"A": ["Winners", "Fresh", "Others"], "B": ["Newbies", "Mixed", "Losers"]}
    assert plain.json()["tournament"]["groups"] == {
        "A": ["Newbies", "Mixed", "Fresh"], "B": ["Losers", "Winners", "Others"]}
    assert "seeding" not in plain.json()
    assert bad.status_code == 422 and bad.json()["code"] == "bad_request"
