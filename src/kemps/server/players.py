"""Players who are remembered without accounts, the leaderboard and the player page (issue 32).

**The key.** The page keeps a private key in the browser (``localStorage``: 32 random bytes,
URL-safe base64, 43 characters; any 32 to 128 characters of ``A-Z a-z 0-9 _ -`` are taken) and
sends it when it sits (``player_key`` in ``POST /api/rooms`` and ``POST /api/rooms/{code}/seats``)
and when it binds a name. The server never stores the key: the seat keeps the public player id
(:func:`player_id`, ``p-`` and 16 hex digits of a SHA-256 of the key), the ``players`` table the
key's own SHA-256 (another domain: the id tells nothing of the hash) beside that id and the name.
Whoever holds the key is that player; a lost key is a new player. Bots have stable ids per level
(:func:`bot_id`: ``bot:sharp``); a person who sits without a key is a guest, not remembered.

Routes (docs/protocol.md, "Players and ratings"):

* ``POST /api/players`` ``{"key": KEY, "name": "Alice"}``: remember the key (and bind the name;
  ``name`` left out: unchanged); answers ``{"id", "name"}``. At most :data:`NEW_PER_HOUR` new
  keys an hour from one address (``too_many_players``, 429).
* ``GET /api/leaderboard?kind=person&offset=0&limit=25``: rated people (``pair``: pairs, ``bot``:
  bot levels), best rating first, paged (``limit`` 1 to 100, ``offset`` 0 to 100,000).
* ``GET /api/players/{id}``: one player's (or bot level's) rating and place, matches (newest first,
  ``limit`` 1 to 20, ``before`` a match id to page on), partners, and signals given and caught
  in those matches from the tell (:func:`kemps.tell.analyse` on the record as the replay reveals
  it: a pair's signals withheld or still in force count as unknown, ``null``).
* ``/leaderboard`` and ``/player/{id}``: the pages.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path as FilePath
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, FastAPI, Path, Query, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict
from sqlalchemy import case, func, select

from kemps.scorekeeper.match import MAX_NAME
from kemps.server.api import StrictJSONRoute, refusals
from kemps.server.api.common import TheServer, client_address
from kemps.server.bodies import PlayerKey
from kemps.server.errors import ServerError
from kemps.server.ratings import MatchPlayerRow, PlayerRow, Rater, RatingRow, pair_subject
from kemps.server.replays import revealed_record, withheld_for
from kemps.server.storage import Storage
from kemps.tell import analyse
from kemps.text import CleanText

STATIC = FilePath(__file__).resolve().parent / "static"
KEY_PATTERN: Final = r"^[A-Za-z0-9_-]{32,128}$"
ID_PATTERN: Final = r"^(p-[0-9a-f]{16}|bot:[a-z]{1,16})$"
NEW_PER_HOUR: Final = 30  # new keys remembered per address and hour
MAX_PAGE: Final = 100  # leaderboard rows a request
MAX_OFFSET: Final = 100_000
MAX_MATCHES: Final = 20  # a player page's matches a request
MAX_PARTNERS: Final = 20
_TELL_CACHE: Final = 256  # tells kept in memory (match id and the pairs withheld)

PlayerId = Annotated[str, Path(min_length=5, max_length=40, pattern=ID_PATTERN,
                               description="a public player id (`p-` and 16 hex digits) or a "
                               "bot level's (`bot:sharp`)", examples=["bot:sharp"])]


def player_id(key: str) -> str:
    """The public player id of a private key (``p-`` and 16 hex digits)."""
    return "p-" + hashlib.sha256(b"kemps player id\0" + key.encode()).hexdigest()[:16]


def key_hash(key: str) -> str:
    """How a key is stored: a SHA-256 in a domain of its own (64 hex digits)."""
    return hashlib.sha256(b"kemps player key\0" + key.encode()).hexdigest()


def bot_id(level: str) -> str:
    """A bot level's player id: ``bot:sharp``."""
    return f"bot:{level}"


def checked_key(key: str | None) -> str | None:
    """The player id of a key given with a seat (None: a guest).

    Raises:
        ServerError: ``bad_player_key`` (422) when it is not 32 to 128 URL-safe characters.
    """
    if key is None:
        return None
    if not isinstance(key, str) or re.fullmatch(KEY_PATTERN, key) is None:
        raise ServerError("bad_player_key", "A player key has 32 to 128 characters of A-Z, "
                          "a-z, 0-9, _ and -.", 422)
    return player_id(key)


class PlayerBody(BaseModel):
    """Remember a browser's key, and bind a name to it: ``{"key": "...", "name": "Alice"}``."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [
        {"key": "k" * 43, "name": "Alice"}]})
    key: PlayerKey
    name: Annotated[str, CleanText(MAX_NAME, 1, "name", ("Alice",), visible=True)] | None = None


class PlayerAnswer(BaseModel):
    """The remembered player: ``{"id": "p-...", "name": "Alice"}``."""

    model_config = ConfigDict(extra="allow")
    id: str
    name: str | None


class LeaderboardAnswer(BaseModel):
    """One page of the leaderboard."""

    model_config = ConfigDict(extra="allow")
    kind: str
    offset: int
    limit: int
    total: int
    rows: list[dict[str, Any]]


class PlayerPageAnswer(BaseModel):
    """A player page's figures."""

    model_config = ConfigDict(extra="allow")
    id: str
    kind: str
    name: str | None
    rating: dict[str, Any] | None
    matches: list[dict[str, Any]]
    partners: list[dict[str, Any]]
    signals: dict[str, Any]


class NewKeys:
    """How many new keys each address had remembered in the last hour (one server's memory,
    bounded: at most 10,000 addresses, the quiet ones forgotten first)."""

    def __init__(self) -> None:
        self.seen: dict[str, deque[float]] = {}

    def allow(self, address: str, now: float) -> bool:
        times = self.seen.setdefault(address, deque())
        while times and times[0] < now - 3600:
            times.popleft()
        if len(times) >= NEW_PER_HOUR:
            return False
        times.append(now)
        if len(self.seen) > 10_000:  # forget the quiet addresses, then the oldest
            for old in [a for a, t in self.seen.items() if not t or t[-1] < now - 3600]:
                del self.seen[old]
            while len(self.seen) > 10_000:
                del self.seen[next(iter(self.seen))]
        return True


_tells: OrderedDict[tuple[int, frozenset[int]], list[dict[str, Any]]] = OrderedDict()


def _rating(row: RatingRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"mu": round(row.mu, 4), "sigma": round(row.sigma, 4),
            "rating": round(row.ordinal, 4), "matches": row.matches, "wins": row.wins}


def _row(place: int, row: RatingRow) -> dict[str, Any]:
    out: dict[str, Any] = {"place": place, "id": row.subject, "kind": row.kind,
                           "name": row.name, **(_rating(row) or {})}
    if row.kind == "pair":
        out["players"] = row.subject[5:].split("+")
    return out


async def remember(storage: Storage, key: str, name: str | None, address: str,
                   now: float, new_keys: NewKeys) -> dict[str, Any]:
    """Remember ``key`` (its hash and id) and bind ``name`` (None: keep the name bound);
    ``{"id", "name"}``. Raises ServerError ``too_many_players`` (429)."""
    pid, digest = player_id(key), key_hash(key)
    async with storage.sessions.begin() as s:
        row = await s.get(PlayerRow, pid)
        if row is None:
            if not new_keys.allow(address, now):
                raise ServerError("too_many_players", "Too many new players from your address "
                                  "this hour; try again later.", 429, retry_after_s=600)
            row = PlayerRow(id=pid, key_hash=digest, name=name, created_at=now, updated_at=now)
            s.add(row)
        elif name is not None:
            row.name, row.updated_at = name, now
        if name is not None:
            rated = await s.get(RatingRow, pid)
            if rated is not None:
                rated.name = name
        return {"id": pid, "name": row.name}


def _seat_tells(found: dict[str, Any], withheld: frozenset[int]) -> list[dict[str, Any]]:
    """The tell's figures of each seat of a stored match, as the replay reveals it."""
    key = (int(found["id"]), withheld)
    cached = _tells.get(key)
    if cached is not None:
        _tells.move_to_end(key)
        return cached
    tell = analyse(revealed_record(found, withheld))
    out = [{"given": p["signals_given"] if tell["signals_known"] else None,
            "caught": p["stop"]["right"], "kemps_right": p["kemps"]["right"],
            "kemps_wrong": p["kemps"]["wrong"], "stop_right": p["stop"]["right"],
            "stop_wrong": p["stop"]["wrong"]} for p in tell["players"]]
    _tells[key] = out
    while len(_tells) > _TELL_CACHE:
        _tells.popitem(last=False)
    return out


async def player_view(storage: Storage, pid: str, before: int | None, limit: int
                      ) -> dict[str, Any]:
    """What ``GET /api/players/{id}`` answers. Raises ServerError ``no_such_player`` (404)."""
    async with storage.sessions() as s:
        player = await s.get(PlayerRow, pid)
        rating = await s.get(RatingRow, pid)
        if player is None and rating is None:
            raise ServerError("no_such_player", "There is no player with that id.", 404)
        place = None
        if rating is not None:
            place = 1 + int((await s.execute(select(func.count()).select_from(RatingRow).where(
                RatingRow.kind == rating.kind, RatingRow.ordinal > rating.ordinal))).scalar_one())
        query = select(MatchPlayerRow).where(MatchPlayerRow.player == pid)
        if before is not None:
            query = query.where(MatchPlayerRow.match_id < before)
        seats = list((await s.execute(query.order_by(MatchPlayerRow.match_id.desc(),
                                                     MatchPlayerRow.seat)
                                      .limit(limit + 1))).scalars())
        more = len(seats) > limit
        seats = seats[:limit]
        partners_q = (select(MatchPlayerRow.partner, func.count(), func.sum(
            case((MatchPlayerRow.won, 1), else_=0)), func.max(
            MatchPlayerRow.partner_name)).where(MatchPlayerRow.player == pid,
                                                MatchPlayerRow.partner != "")
            .group_by(MatchPlayerRow.partner).order_by(func.count().desc(),
                                                       MatchPlayerRow.partner)
            .limit(MAX_PARTNERS))
        partner_rows = list((await s.execute(partners_q)).all())
        duos = {pair_subject(pid, str(p[0])): str(p[0]) for p in partner_rows}
        duo_ratings = {r.subject: r for r in (await s.execute(select(RatingRow).where(
            RatingRow.subject.in_(sorted(duos))))).scalars()} if duos else {}
    matches = []
    totals = {"given": 0, "given_known": 0, "caught": 0, "kemps_right": 0, "kemps_wrong": 0,
              "stop_right": 0, "stop_wrong": 0}
    for seat in seats:
        found = await storage.match(seat.match_id)
        signals: dict[str, Any] | None = None
        room = None
        if found is not None:
            room = found["room"]
            withheld, _ = await withheld_for(storage, found)
            tells = await asyncio.to_thread(_seat_tells, found, withheld)
            if seat.seat < len(tells):
                signals = tells[seat.seat]
        if signals is not None:
            for k in ("caught", "kemps_right", "kemps_wrong", "stop_right", "stop_wrong"):
                totals[k] += int(signals[k])
            if signals["given"] is not None:
                totals["given"] += int(signals["given"])
                totals["given_known"] += 1
        matches.append({
            "match_id": seat.match_id, "room": room, "finished_at": seat.finished_at,
            "seat": seat.seat, "pair": seat.pair, "name": seat.name, "rank": seat.rank,
            "won": seat.won, "partner": {"id": seat.partner or None, "name": seat.partner_name},
            "rating_before": round(seat.ordinal_before, 4),
            "rating_after": round(seat.ordinal_after, 4), "signals": signals})
    partners = []
    for partner, count, wins, name in partner_rows:
        duo = duo_ratings.get(pair_subject(pid, str(partner)))
        partners.append({"id": partner, "name": name,
                         "matches": int(count), "wins": int(wins or 0),
                         "pair_rating": None if duo is None else round(duo.ordinal, 4)})
    kind = "bot" if pid.startswith("bot:") else "person"
    name = (player.name if player is not None else None) or \
        (rating.name if rating is not None else None)
    return {"id": pid, "kind": kind, "name": name, "rating": _rating(rating), "place": place,
            "matches": matches, "next_before": seats[-1].match_id if more and seats else None,
            "partners": partners, "signals": {**totals, "matches": len(matches)}}


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The server's :class:`~kemps.server.ratings.Rater`: a finish listener, started after the
    server (its storage migrated), stopped before it."""
    server = app.state.server
    rater = Rater(server.storage)
    app.state.rater = rater
    app.state.new_keys = NewKeys()
    server.finish_listeners.append(rater)
    rater.start()
    try:
        yield
    finally:
        await rater.stop()


router = APIRouter(route_class=StrictJSONRoute, lifespan=_lifespan)


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard_page() -> FileResponse:
    return FileResponse(STATIC / "leaderboard.html")


@router.get("/player/{pid}", include_in_schema=False)
async def player_page(pid: str) -> FileResponse:
    return FileResponse(STATIC / "player.html")


@router.post("/api/players", response_model=None, responses=refusals("remember_player") | {
    200: {"model": PlayerAnswer, "description": "The remembered player."}})
async def remember_player(server: TheServer, body: PlayerBody, request: Request
                          ) -> dict[str, Any]:
    """Remember a browser's private key (the server keeps its hash and the public id) and bind
    ``name`` to it (left out: the name stays). Raises ``too_many_players`` (429)."""
    name = body.name.strip() if body.name is not None else None
    return await remember(server.storage, body.key, name or None, client_address(request),
                          time.time(), request.app.state.new_keys)


@router.get("/api/leaderboard", response_model=None, responses=refusals("leaderboard") | {
    200: {"model": LeaderboardAnswer, "description": "One page of the leaderboard."}})
async def leaderboard(
        server: TheServer,
        kind: Annotated[Literal["person", "pair", "bot"], Query(
            description="people, pairs or bot levels")] = "person",
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="rows to skip")] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="rows (1 to 100)")] = 25,
) -> dict[str, Any]:
    """Rated people (or pairs, or bot levels), best rating (OpenSkill's ordinal, ``mu - 3 *
    sigma``) first: ``{"kind", "offset", "limit", "total", "rows": [{"place", "id", "kind",
    "name", "mu", "sigma", "rating", "matches", "wins", "players" (pairs)}]}``."""
    async with server.storage.sessions() as s:
        total = int((await s.execute(select(func.count()).select_from(RatingRow)
                                     .where(RatingRow.kind == kind))).scalar_one())
        rows = (await s.execute(select(RatingRow).where(RatingRow.kind == kind).order_by(
            RatingRow.ordinal.desc(), RatingRow.matches.desc(), RatingRow.subject)
            .offset(offset).limit(limit))).scalars()
        return {"kind": kind, "offset": offset, "limit": limit, "total": total,
                "rows": [_row(offset + i + 1, r) for i, r in enumerate(rows)]}


@router.get("/api/players/{pid}", response_model=None, responses=refusals("get_player") | {
    200: {"model": PlayerPageAnswer, "description": "The player's figures."}})
async def get_player(
        server: TheServer, pid: PlayerId,
        before: Annotated[int | None, Query(ge=1, le=2**62 - 1, description="only matches "
                                            "with a smaller id (the answer's next_before)")]
        = None,
        limit: Annotated[int, Query(ge=1, le=MAX_MATCHES, description="matches (1 to 20)")]
        = 10,
) -> dict[str, Any]:
    """A player's (or bot level's) rating and place, their matches newest first with the
    partner, the pair's rank, the rating before and after and the signals given and caught
    (the tell; ``null`` where the pair's signals are withheld), their partners, and the
    signals' totals over the matches shown. Raises ``no_such_player`` (404)."""
    return await player_view(server.storage, pid, before, limit)


__all__ = ["PlayerBody", "bot_id", "checked_key", "key_hash", "player_id", "remember", "router"]
