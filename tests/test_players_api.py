"""Remembered players, the leaderboard and the player page over HTTP (kemps.server.players,
issue 32): every input bounded and refused with a clear code, a seat taken with a key remembered
as that player's, the leaderboard's order and pages, and the player page's matches, partners and
signals from the tell (the worked game of seed 000, S0 "A worked game"), never a withheld one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from kemps.record import MatchRecord
from kemps.server import reveal_storage
from kemps.server.players import NEW_PER_HOUR, player_id
from kemps.server.ratings import pair_subject, rate_pending
from kemps.server.storage import Storage
from kemps.tell import analyse
from rating_matches import key_of, store, worked_match
from serving import Running, server_thread, sqlite_url

A, B, C, D, E = (player_id(key_of(n)) for n in range(5))
WORKED_TELL = analyse(MatchRecord.from_dict(worked_match([A, B, C, D])["record"]))


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """A server whose database holds five rated matches (ids 1 to 5): the worked game with A & C
    beating B & D, then A with E against C and sharp bots (lost), then three more of A & C's
    wins (match 5 in room OTHER, whose pair 0 later withholds its signals)."""
    url = sqlite_url(tmp_path_factory.mktemp("players"))

    async def put() -> None:
        storage = Storage(url)
        await storage.start()
        try:
            await store(storage, worked_match([A, B, C, D]),
                        worked_match([A, C, E, "bot:sharp"], ranks=[2, 1], match_no=2),
                        worked_match([A, B, C, D], match_no=3),
                        worked_match([A, B, C, D], match_no=4),
                        worked_match([A, B, C, D], room="OTHER"))
            await reveal_storage.set_reveal(storage, "OTHER", 1, 0, False, 0)
            await rate_pending(storage)
        finally:
            await storage.close()

    asyncio.run(put())
    with server_thread(url) as server:
        yield server


def get(running: Running, path: str, **params: Any) -> httpx.Response:
    return httpx.get(running.url + path, params=params, timeout=10)


def test_a_key_is_remembered_by_its_hash_and_binds_a_name(running: Running) -> None:
    key = key_of(100)
    made = httpx.post(f"{running.url}/api/players", json={"key": key, "name": " Zoë "},
                      timeout=10)
    assert made.status_code == 200, made.text
    assert made.json() == {"id": player_id(key), "name": "Zoë"}
    kept = httpx.post(f"{running.url}/api/players", json={"key": key}, timeout=10).json()
    assert kept == {"id": player_id(key), "name": "Zoë"}
    renamed = httpx.post(f"{running.url}/api/players", json={"key": key, "name": "Zed"},
                         timeout=10).json()
    assert renamed["name"] == "Zed"
    page = get(running, f"/api/players/{player_id(key)}").json()
    assert page["name"] == "Zed" and page["rating"] is None and page["matches"] == []

    async def stored() -> list[tuple[str, str, str | None]]:
        from sqlalchemy import select

        from kemps.server.ratings import PlayerRow

        storage = Storage(running.app.state.server.settings.database_url)  # type: ignore[attr-defined]
        try:
            async with storage.sessions() as s:
                return [(r.id, r.key_hash, r.name) for r in (await s.execute(
                    select(PlayerRow).where(PlayerRow.id == player_id(key)))).scalars()]
        finally:
            await storage.close()

    rows = asyncio.run(stored())
    assert len(rows) == 1 and rows[0][0] == player_id(key) and key not in rows[0][1]
    assert len(rows[0][1]) == 64


@pytest.mark.parametrize("body", [
    {"key": "short"}, {"key": "k" * 129}, {"key": "k" * 42 + "!"}, {"key": "k" * 43 + " "},
    {"key": 12345}, {}, {"key": "k" * 43, "name": ""}, {"key": "k" * 43, "name": "n" * 41},
    {"key": "k" * 43, "name": "bad\u202ename"}, {"key": "k" * 43, "extra": 1}])
def test_a_bad_key_or_name_is_refused_and_changes_nothing(running: Running,
                                                         body: dict[str, Any]) -> None:
    before = get(running, "/api/leaderboard").json()
    got = httpx.post(f"{running.url}/api/players", json=body, timeout=10)
    assert got.status_code == 422, got.text
    assert got.json()["code"] in ("bad_request", "bad_text")
    assert "k" * 40 not in got.json()["message"]  # the refused input is never repeated
    assert get(running, f"/api/players/{player_id('k' * 43)}").status_code == 404
    assert get(running, "/api/leaderboard").json() == before


def test_new_keys_per_address_are_bounded(tmp_path: Any) -> None:
    with server_thread(sqlite_url(tmp_path)) as server:
        for n in range(NEW_PER_HOUR):
            ok = httpx.post(f"{server.url}/api/players", json={"key": key_of(200 + n)},
                            timeout=10)
            assert ok.status_code == 200, (n, ok.text)
        refused = httpx.post(f"{server.url}/api/players", json={"key": key_of(999)},
                             timeout=10)
        again = httpx.post(f"{server.url}/api/players", json={"key": key_of(200),
                                                              "name": "Known"}, timeout=10)
        unknown = httpx.get(f"{server.url}/api/players/{player_id(key_of(999))}", timeout=10)
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_players"
    assert float(refused.headers["Retry-After"]) > 0
    assert again.status_code == 200 and again.json()["name"] == "Known"  # known keys still bind
    assert unknown.status_code == 404 and unknown.json()["code"] == "no_such_player"


def test_a_seat_taken_with_a_key_is_that_players(running: Running) -> None:
    made = httpx.post(f"{running.url}/api/rooms", json={"name": "Ann", "player_key": key_of(7)},
                      timeout=10)
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    sat = httpx.post(f"{running.url}/api/rooms/{code}/seats",
                     json={"seat": 1, "name": "Guest"}, timeout=10)
    keyed = httpx.post(f"{running.url}/api/rooms/{code}/seats",
                       json={"seat": 2, "name": "Bo", "player_key": "short"}, timeout=10)
    assert sat.status_code == 200 and keyed.status_code == 422
    assert keyed.json()["code"] == "bad_request"
    room = running.app.state.server.rooms[code]  # type: ignore[attr-defined]
    assert [s.player for s in room.seats] == [player_id(key_of(7)), None, None, None]
    assert room.seats[2].kind == "open"  # the refused seat changed nothing
    assert key_of(7) not in str(room.row())  # the key itself is never stored


def test_quick_match_and_an_open_table_s_join_seat_the_keyed_player(running: Running) -> None:
    """Issue 32: a person seated by Quick match (a new listed table with bots) and one who joins
    that open table are each their key's player, as a seat taken by code is."""
    quick = httpx.post(f"{running.url}/api/tables/quick",
                       json={"name": "Quin", "preset": "kent", "player_key": key_of(8)},
                       timeout=20)
    assert quick.status_code == 200, quick.text
    code = quick.json()["code"]
    joined = httpx.post(f"{running.url}/api/rooms/{code}/join",
                        json={"name": "Jo", "player_key": key_of(9)}, timeout=20)
    assert joined.status_code == 200, joined.text
    room = running.app.state.server.rooms[code]  # type: ignore[attr-defined]
    assert room.seats[quick.json()["seat"]].player == player_id(key_of(8))
    assert room.seats[joined.json()["seat"]].player == player_id(key_of(9))
    assert sum(s.player is not None for s in room.seats) == 2  # the bots stay unkeyed
    bad = httpx.post(f"{running.url}/api/tables/quick",
                     json={"name": "Bad", "player_key": "short"}, timeout=20)
    assert (bad.status_code, bad.json()["code"]) == (422, "bad_request")


def test_the_leaderboard_is_ordered_and_paged(running: Running) -> None:
    people = get(running, "/api/leaderboard").json()
    assert people["kind"] == "person" and people["total"] == 5
    rows = people["rows"]
    assert [r["place"] for r in rows] == [1, 2, 3, 4, 5]
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    by_id = {r["id"]: r for r in rows}
    assert by_id[A]["matches"] == 5 and by_id[A]["wins"] == 4 and by_id[A]["name"] == "Alice"
    assert by_id[C]["wins"] == 5 and rows[0]["id"] == C
    assert all(r["rating"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-3) for r in rows)
    page = get(running, "/api/leaderboard", offset=2, limit=2).json()
    assert [r["id"] for r in page["rows"]] == [r["id"] for r in rows[2:4]]
    assert [r["place"] for r in page["rows"]] == [3, 4] and page["total"] == 5
    assert get(running, "/api/leaderboard", offset=5).json()["rows"] == []
    pairs = get(running, "/api/leaderboard", kind="pair").json()["rows"]
    assert pairs[0]["id"] == pair_subject(A, C) and sorted(pairs[0]["players"]) == sorted([A, C])
    assert pairs[0]["matches"] == 4 and pairs[0]["name"] in ("Alice & Cara", "Cara & Alice")
    bots = get(running, "/api/leaderboard", kind="bot").json()["rows"]
    assert [(b["id"], b["name"], b["matches"]) for b in bots] == [("bot:sharp", "Sharp bot", 1)]


@pytest.mark.parametrize("params", [
    {"limit": 0}, {"limit": 101}, {"offset": -1}, {"offset": 100_001}, {"kind": "everyone"},
    {"limit": "many"}])
def test_leaderboard_bounds(running: Running, params: dict[str, Any]) -> None:
    got = get(running, "/api/leaderboard", **params)
    assert got.status_code == 422 and got.json()["code"] == "bad_request", got.text


def test_the_player_page_has_matches_partners_and_the_tell(running: Running) -> None:
    page = get(running, f"/api/players/{A}").json()
    assert page["kind"] == "person" and page["name"] == "Alice"
    assert page["rating"]["matches"] == 5 and page["place"] == 2
    assert [m["match_id"] for m in page["matches"]] == [5, 4, 3, 2, 1]
    newest, lost = page["matches"][0], page["matches"][3]
    assert newest["room"] == "OTHER" and newest["partner"] == {"id": C, "name": "Cara"}
    assert newest["won"] and newest["rank"] == 1 and newest["seat"] == 0
    assert lost["partner"] == {"id": E, "name": "Cara"} and not lost["won"]  # E sat as Cara
    assert lost["rating_after"] < lost["rating_before"]
    alice = WORKED_TELL["players"][0]
    told = page["matches"][1]["signals"]
    assert told == {"given": alice["signals_given"], "caught": alice["stop"]["right"],
                    "kemps_right": alice["kemps"]["right"],
                    "kemps_wrong": alice["kemps"]["wrong"],
                    "stop_right": alice["stop"]["right"], "stop_wrong": alice["stop"]["wrong"]}
    # match 5: Alice & Cara withhold their signals: none given is told, the calls still are
    assert newest["signals"]["given"] is None
    assert newest["signals"]["kemps_right"] == alice["kemps"]["right"]
    totals = page["signals"]
    assert totals["matches"] == 5 and totals["given_known"] == 4
    assert totals["given"] == 4 * alice["signals_given"]
    partners = {p["id"]: p for p in page["partners"]}
    assert partners[C]["matches"] == 4 and partners[C]["wins"] == 4
    assert partners[E]["matches"] == 1 and partners[E]["wins"] == 0
    assert partners[C]["pair_rating"] is not None
    older = get(running, f"/api/players/{A}", limit=2).json()
    assert [m["match_id"] for m in older["matches"]] == [5, 4] and older["next_before"] == 4
    rest = get(running, f"/api/players/{A}", limit=2, before=4).json()
    assert [m["match_id"] for m in rest["matches"]] == [3, 2] and rest["next_before"] == 2
    last = get(running, f"/api/players/{A}", limit=2, before=2).json()
    assert [m["match_id"] for m in last["matches"]] == [1] and last["next_before"] is None
    bot = get(running, "/api/players/bot:sharp").json()
    assert bot["kind"] == "bot" and bot["name"] == "Sharp bot" and bot["rating"]["wins"] == 1
    dev = get(running, f"/api/players/{D}").json()
    assert dev["matches"][0]["signals"]["caught"] == WORKED_TELL["players"][3]["stop"]["right"]


@pytest.mark.parametrize(("path", "status", "code"), [
    (f"/api/players/{player_id('nobody' * 8)}", 404, "no_such_player"),
    ("/api/players/bot:nobody", 404, "no_such_player"),
    ("/api/players/p-XYZ", 422, "bad_request"),
    ("/api/players/" + "p-" + "0" * 40, 422, "bad_request"),
    ("/api/players/bot:Sharp", 422, "bad_request"),
    (f"/api/players/{A}?limit=21", 422, "bad_request"),
    (f"/api/players/{A}?limit=0", 422, "bad_request"),
    (f"/api/players/{A}?before=0", 422, "bad_request"),
])
def test_player_page_refusals(running: Running, path: str, status: int, code: str) -> None:
    got = httpx.get(running.url + path, timeout=10)
    assert got.status_code == status and got.json()["code"] == code, got.text


def test_a_match_finished_at_a_table_is_rated_with_its_players(running: Running) -> None:
    """A room's finished match carries who sat (``summary["players"]``) and is rated at once:
    the host sat with a key, a bot played her seat (the host's "replace": still her seat),
    sharp bots in the others."""
    from openskill.models import PlackettLuce

    from replaying import FAST_OPTIONS, wait_finished

    key = key_of(300)
    bot_before = get(running, "/api/players/bot:sharp").json()["rating"]  # the fixture's
    made = httpx.post(f"{running.url}/api/rooms", json={
        "name": "Hope", "preset": "pagat", "player_key": key,
        "options": {"target": 1, **FAST_OPTIONS}}, timeout=10)
    made.raise_for_status()
    code, token = made.json()["code"], made.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{running.url}/api/rooms/{code}/bots", json={
        "fill": True, "level": "sharp", "speed": "sharp"}, headers=auth,
        timeout=10).raise_for_status()
    httpx.post(f"{running.url}/api/rooms/{code}/start", headers=auth,
               timeout=10).raise_for_status()
    httpx.post(f"{running.url}/api/rooms/{code}/bots", json={"seat": 0, "level": "sharp"},
               headers=auth, timeout=10).raise_for_status()
    match_id = wait_finished(running.url, code, timeout_s=240)
    summary = httpx.get(f"{running.url}/api/history/{match_id}", timeout=10).json()["summary"]
    pid = player_id(key)
    assert summary["players"] == [pid, "bot:sharp", "bot:sharp", "bot:sharp"]
    deadline = time.monotonic() + 120
    while True:
        page = httpx.get(f"{running.url}/api/players/{pid}", timeout=10)
        if page.status_code == 200 and page.json()["rating"] is not None:
            break
        assert time.monotonic() < deadline, "the finished match was not rated in 120 s"
        time.sleep(0.1)
    lib = PlackettLuce()
    bot = lib.rating(mu=bot_before["mu"], sigma=bot_before["sigma"])
    ranks = [float(p["rank"]) for p in summary["pairs"]]
    want = lib.rate([[lib.rating(), bot], [bot, bot]], ranks=ranks)[0][0]
    rating = page.json()["rating"]
    assert rating["mu"] == pytest.approx(want.mu, abs=1e-3)
    assert rating["sigma"] == pytest.approx(want.sigma, abs=1e-3)
    assert rating["matches"] == 1 and rating["wins"] == int(ranks[0] == 1)
    assert page.json()["matches"][0]["partner"] == {"id": "bot:sharp",
                                                    "name": summary["pairs"][0]["players"][1]}
