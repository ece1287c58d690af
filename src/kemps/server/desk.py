"""The scorekeeper and the tournament desk on the server: pages and a JSON API under ``/api/desk``.

Pages: ``GET /score`` (``?sheet=ID`` opens a stored scoresheet) and ``GET /tournament``
(``?id=ID``). The API (bodies and answers are JSON; the bodies are the models of
:mod:`kemps.server.bodies`, declared in ``/openapi.json``; every refusal is ``{"code", "message"}``
with the status and codes each route declares, from :data:`kemps.server.api.ROUTES`: 422 for a
body that cannot be read or lacks the declared shape, 400 for a well-formed request the
scorekeeper or the desk refuse, 404 for a sheet, hand, tournament or match the address names that
does not exist, 409 for a sheet or match not in a state for it):

Scoresheets (docs/scoresheet.md; a *sheet view* is ``{"id", "created_at", "updated_at", "title",
"tournament_id", "match_id", "sheet", "summary", "history", "pairs", "rules"}``):

* ``POST /api/desk/sheets`` -- create from a scoresheet object (``{"title", "preset", "options",
  "pairs": [["Alice", "Cara"], {"name": "Sharks", "players": [...]}], "hands": [...]}``; ``hands``
  may be left out). ``POST /api/desk/sheets/import`` is the same (an exported sheet's ``result``
  is ignored and worked out again). Answers 201 with the sheet view.
* ``GET /api/desk/sheets`` -- ``{"sheets": [{"id", "title", "pairs", "hands", "over",
  "updated_at", "tournament_id", "match_id"}]}``; ``GET /api/desk/sheets/{id}`` -- the view.
* ``POST /api/desk/sheets/{id}/hands`` -- record one hand (body: the scoresheet hand, e.g.
  ``{"call": "kemps", "by": "Alice", "right": true}``); the view plus ``"last"`` (the scored hand).
* ``POST /api/desk/sheets/{id}/undo``; ``PUT /api/desk/sheets/{id}/hands/{n}`` (body: a hand);
  ``DELETE /api/desk/sheets/{id}/hands/{n}`` -- the view.
* ``GET /api/desk/sheets/{id}/export.csv`` and ``export.json`` -- downloads.

Tournaments (docs/tournament.md; a *tournament view* is ``{"id", "created_at", "updated_at",
"tournament": Tournament.to_dict(), "rooms": [link...], "sheets": [{"id", "match_id", "over"}]}``):

* ``POST /api/desk/tournaments`` -- ``{"name", "teams": ["Alice & Cara", "Sharks: Ben & Dev",
  {"name", "players"}], "tables", "letters", "fake_signals", "go_start", "one_card", "seed"}``
  (only ``teams`` is required); 201 with the view.
* ``GET /api/desk/tournaments`` (list) and ``GET /api/desk/tournaments/{id}`` (the view; a room
  whose result finished while nobody listened is caught up here).
* ``PUT /api/desk/tournaments/{id}/settings`` -- ``{"letters", "fake_signals", "go_start",
  "one_card"}`` before match one.
* ``POST /api/desk/tournaments/{id}/matches/{match}/result`` -- ``{"letters": [home, away] or
  {team: n}, "loser": team (table talk only), "replace": false}`` or ``{"sheet": SHEET_ID}``.
* ``POST /api/desk/tournaments/{id}/withdraw`` -- ``{"team": name or player}``; the view plus
  ``"forfeited"`` (match ids).
* ``POST /api/desk/tournaments/{id}/matches/{match}/sheet`` -- a new scoresheet for the match,
  linked to it (201, the sheet view).
* ``POST /api/desk/tournaments/{id}/matches/{match}/room`` -- "play online": a room under the
  match's rules, linked to the match (the home team plays as pair 1, seats 1 and 3; the away team
  as pair 2). When that room's match ends its letters are recorded by themselves (one finish
  listener per server). Answers ``{"code", "url", "link", "home", "away"}``.

Error codes besides the scorekeeper's and the desk's own (docs/scoresheet.md, docs/tournament.md,
each with its status on the server): ``bad_request`` / ``bad_json`` / ``duplicate_key`` /
``bad_text`` (422), ``no_such_sheet`` / ``no_such_tournament`` / ``no_such_match`` /
``no_such_hand`` (404; ``no_such_sheet`` is 400 when a result's body names a missing sheet),
``match_decided`` (409: a sheet or room for a match that already has a result).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.responses import FileResponse, Response

from kemps.errors import KempsError, ScoreError
from kemps.scorekeeper import Match, from_sheet, to_csv, to_json, to_sheet
from kemps.server import desk_storage as db
from kemps.server.answers import (
    OnlineAnswer,
    SheetAnswer,
    SheetsAnswer,
    TournamentAnswer,
    TournamentsAnswer,
    answer,
)
from kemps.server.api import MAX_ROW_ID, StrictJSONRoute, refusals
from kemps.server.bodies import (
    MAX_HANDS,
    HandBody,
    ResultBody,
    SettingsBody,
    SheetBody,
    SheetResult,
    TournamentBody,
    WithdrawBody,
)
from kemps.server.errors import ServerError
from kemps.server.room import Room
from kemps.tournament import Team, Tournament, parse_team

log = logging.getLogger("kemps.server")
STATIC = FilePath(__file__).resolve().parent / "static"
PREFIX = "/api/desk"
SheetId = Annotated[int, Path(ge=1, le=MAX_ROW_ID, description="a scoresheet's id")]
HandNumber = Annotated[int, Path(ge=1, le=MAX_HANDS, description="a hand's number from 1")]
TournamentId = Annotated[int, Path(ge=1, le=MAX_ROW_ID, description="a tournament's id")]
MatchId = Annotated[str, Path(min_length=1, max_length=16, description="a match of the "
                              "schedule", examples=["M1"])]


def _link(operation: str, **parameters: str) -> dict[str, Any]:
    return {"operationId": operation, "parameters": parameters}


# Links for the stateful phase of API testing: a new sheet's or tournament's id leads on.
SHEET_LINKS: dict[str, Any] = {
    name: _link(name, sheet_id="$response.body#/id")
    for name in ("get_sheet", "record_hand", "undo_hand", "export_csv", "export_json")}
# a hand just recorded exists: it can be edited or removed
HAND_LINKS: dict[str, Any] = SHEET_LINKS | {
    name: _link(name, sheet_id="$response.body#/id", number="$response.body#/last/number")
    for name in ("edit_hand", "delete_hand")}
TOURNAMENT_LINKS: dict[str, Any] = {
    name: _link(name, tournament_id="$response.body#/id")
    for name in ("get_tournament", "settle", "withdraw")} | {
    name: _link(name, tournament_id="$response.body#/id",
                match_id="$response.body#/tournament/schedule/0/id")
    for name in ("record_result", "match_sheet", "play_online")}
EXPORT_CSV: dict[int | str, dict[str, Any]] = {200: {"content": {"text/csv": {
    "schema": {"type": "string"}}}, "description": "The hands as CSV, a download."}}
EXPORT_JSON: dict[int | str, dict[str, Any]] = {200: {"content": {"application/json": {
    "schema": {"type": "object"}}}, "description": "The scoresheet with its result, a download."}}


class Desk:
    """The desk's per-server state: one lock for its writes, and the finish listener (this object
    is the listener: ``desk(room, summary)``)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.lock = asyncio.Lock()
        self.tasks: set[asyncio.Task[None]] = set()

    @property
    def storage(self) -> Any:
        return self.server.storage

    def __call__(self, room: Room, summary: dict[str, Any]) -> None:
        """A room's match ended: if it plays a tournament match, record its letters (in a task)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: the next look at the tournament catches up
            return
        task = loop.create_task(self.room_finished(room.code, summary))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def room_finished(self, code: str, summary: dict[str, Any]) -> None:
        """Record a linked room's result into its tournament (refusals are kept on the link)."""
        try:
            link = await db.room_link(self.storage, code)
            if link is not None and link["status"] == "playing":
                await self.take_room_result(link, summary)
        except Exception:  # never break the server for the desk
            log.exception("could not record room %s into its tournament", code)

    async def take_room_result(self, link: dict[str, Any], summary: dict[str, Any]) -> None:
        outcome: dict[str, Any] = {}

        def change(state: dict[str, Any]) -> dict[str, Any]:
            t = Tournament.from_dict(state)
            letters, loser = room_letters(t, link["match_id"], summary)
            t.record(link["match_id"], letters, loser=loser)
            outcome.update(letters=list(letters), loser=loser)
            return t.to_dict()

        async with self.lock:
            fresh = await db.room_link(self.storage, link["room_code"])
            if fresh is None or fresh["status"] != "playing":
                return
            try:
                await db.change_tournament(self.storage, link["tournament_id"], change)
            except KempsError as err:
                await db.settle_room(self.storage, link["room_code"], "refused", err.to_dict())
                return
            await db.settle_room(self.storage, link["room_code"], "recorded", outcome)

    async def catch_up(self, tournament_id: int) -> None:
        """Take results of linked rooms that finished while no listener heard them."""
        for link in await db.rooms_of_tournament(self.storage, tournament_id):
            if link["status"] != "playing":
                continue
            room = self.server.rooms.get(link["room_code"])
            if room is not None and room.status != "finished":
                continue
            summary = await db.first_finished_match(self.storage, link["room_code"])
            if summary is not None and summary.get("over"):
                await self.take_room_result(link, summary)


def install(app: FastAPI) -> Desk:
    """The app's :class:`Desk`, made and registered as a finish listener once (idempotent)."""
    desk: Desk | None = getattr(app.state, "desk", None)
    server = app.state.server
    if desk is None:
        desk = Desk(server)
        app.state.desk = desk
    if not any(isinstance(x, Desk) for x in server.finish_listeners):
        server.finish_listeners.append(desk)
    return desk


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    desk = install(app)
    # Rooms restored after a restart: those that play a tournament match keep its rules.
    for code in await db.open_room_codes(desk.storage):
        room = desk.server.rooms.get(code)
        if room is not None:
            room.rules_locked = True
    yield
    for task in list(desk.tasks):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)


def _desk(request: Request) -> Desk:
    return install(request.app)


DeskDep = Annotated[Desk, Depends(_desk)]
router = APIRouter(lifespan=_lifespan, route_class=StrictJSONRoute)


# -- helpers ----------------------------------------------------------------------------------------
def _no_sheet(sheet_id: int) -> ServerError:
    return ServerError("no_such_sheet", f"There is no scoresheet {sheet_id}.", 404)


def _no_tournament(tournament_id: int) -> ServerError:
    return ServerError("no_such_tournament", f"There is no tournament {tournament_id}.", 404)


def sheet_view(row: dict[str, Any], match: Match) -> dict[str, Any]:
    """The answer about one scoresheet: the stored row, the sheet, the standings (``summary``),
    every hand scored (``history``), the pairs and the full rules."""
    return {"id": row["id"], "created_at": row["created_at"], "updated_at": row["updated_at"],
            "title": match.title, "tournament_id": row.get("tournament_id"),
            "match_id": row.get("match_id"), "sheet": to_sheet(match),
            "summary": match.summary(), "history": [h.to_dict() for h in match.history],
            "pairs": [{"name": p.name, "players": list(p.players)} for p in match.pairs],
            "rules": match.rules.to_dict()}


def room_letters(t: Tournament, match_id: str, summary: Mapping[str, Any]
                 ) -> tuple[tuple[int, int], int | None]:
    """Per-team letters (home, away) and the table-talk loser side from a room's match summary.

    The room's pairs are matched to the match's teams by their players' names; where the names do
    not tell (people sat under other names), pair 0 is the home team and pair 1 the away team.

    Raises:
        ScoreError: ``bad_result`` for a summary that is not a finished two-pair match.
    """
    m = t.match(match_id)
    pairs = summary.get("pairs")
    if not isinstance(pairs, list) or len(pairs) != 2 or not summary.get("over"):
        raise ScoreError("bad_result", f"The room for match {m.id} did not finish a match of two "
                         "pairs.")
    teams = [t.teams[i] for i in m.teams]
    side_of: dict[int, int] = {}
    for p in pairs:
        names = {str(n).strip().lower() for n in p.get("players", [])}
        hits = [k for k, team in enumerate(teams) if names == {x.lower() for x in team.players}]
        if len(hits) == 1:
            side_of[int(p["pair"])] = hits[0]
    if sorted(side_of) != [0, 1] or sorted(side_of.values()) != [0, 1]:
        side_of = {0: 0, 1: 1}
    letters = [0, 0]
    for p in pairs:
        letters[side_of[int(p["pair"])]] = int(p["score"])
    loser = None
    for hand in summary.get("hands", []) or []:
        if isinstance(hand, Mapping) and hand.get("table_talk") is not None:
            loser = side_of.get(int(hand["table_talk"]))
    return (letters[0], letters[1]), loser


def _team(item: Any) -> Team | str:
    if isinstance(item, str):
        return parse_team(item)
    if isinstance(item, Mapping):
        players = item.get("players")
        name = item.get("name")
        if (not isinstance(players, list) or len(players) != 2
                or not all(isinstance(p, str) and p.strip() for p in players)):
            raise ScoreError("bad_team", "A team is {\"name\": ..., \"players\": [two names]}.")
        a, b = (p.strip() for p in players)
        if name is not None and not isinstance(name, str):
            raise ScoreError("bad_team", "A team's name is a text.")
        return Team((name or "").strip() or f"{a} & {b}", (a, b))
    raise ScoreError("bad_team", "A team is written 'Alice & Cara' or 'Sharks: Alice & Cara'.")


async def _tournament_view(desk: Desk, row: dict[str, Any]) -> dict[str, Any]:
    links = await db.rooms_of_tournament(desk.storage, row["id"])
    sheets = []
    for s in await db.sheets_of_tournament(desk.storage, row["id"]):
        try:
            over = from_sheet(s["sheet"]).over
        except KempsError:
            over = False
        sheets.append({"id": s["id"], "match_id": s["match_id"], "over": over})
    return {"id": row["id"], "created_at": row["created_at"], "updated_at": row["updated_at"],
            "tournament": row["state"], "rooms": links, "sheets": sheets}


async def _load_tournament(desk: Desk, tournament_id: int) -> tuple[dict[str, Any], Tournament]:
    row = await db.get_tournament(desk.storage, tournament_id)
    if row is None:
        raise _no_tournament(tournament_id)
    return row, Tournament.from_dict(row["state"])


# -- pages ------------------------------------------------------------------------------------------
def _static(name: str) -> FileResponse:
    return FileResponse(STATIC / name)


@router.get("/score", include_in_schema=False)
async def score_page() -> FileResponse:
    """The scorekeeper page."""
    return _static("score.html")


@router.get("/tournament", include_in_schema=False)
async def tournament_page() -> FileResponse:
    """The tournament desk page."""
    return _static("tournament.html")


# -- scoresheets ------------------------------------------------------------------------------------
@router.post(PREFIX + "/sheets", status_code=201, response_model=None,
             responses=refusals("create_sheet") | answer(SheetAnswer, 201, links=SHEET_LINKS))
async def create_sheet(body: SheetBody, desk: DeskDep) -> dict[str, Any]:
    """Create a scoresheet (or import one): the body is a scoresheet; answers the sheet view.

    Raises ScoreError ``bad_sheet`` / a hand's refusal with its number, RuleError for the rules.
    """
    match = from_sheet(body.sheet())
    async with desk.lock:
        row = await db.create_sheet(desk.storage, to_sheet(match), match.title)
    return sheet_view(row, match)


@router.post(PREFIX + "/sheets/import", status_code=201, response_model=None,
             responses=refusals("import_sheet") | answer(SheetAnswer, 201, links=SHEET_LINKS))
async def import_sheet(body: SheetBody, desk: DeskDep) -> dict[str, Any]:
    """Import an exported scoresheet JSON (its ``result`` is worked out again)."""
    return await create_sheet(body, desk)


@router.get(PREFIX + "/sheets", response_model=None, responses=refusals("list_sheets") | answer(SheetsAnswer))
async def list_sheets(desk: DeskDep, limit: int = 100) -> dict[str, Any]:
    """Stored scoresheets, most recently changed first."""
    out = []
    for row in await db.list_sheets(desk.storage, max(1, min(limit, 500))):
        try:
            m = from_sheet(row["sheet"])
        except KempsError:
            continue
        out.append({"id": row["id"], "title": m.title, "pairs": [p.name for p in m.pairs],
                    "hands": len(m.history), "over": m.over, "updated_at": row["updated_at"],
                    "tournament_id": row["tournament_id"], "match_id": row["match_id"]})
    return {"sheets": out}


@router.get(PREFIX + "/sheets/{sheet_id:int}", response_model=None,
            responses=refusals("get_sheet") | answer(SheetAnswer))
async def get_sheet(sheet_id: SheetId, desk: DeskDep) -> dict[str, Any]:
    """One scoresheet's view. Raises ServerError ``no_such_sheet`` (404)."""
    row = await db.get_sheet(desk.storage, sheet_id)
    if row is None:
        raise _no_sheet(sheet_id)
    return sheet_view(row, from_sheet(row["sheet"]))


async def _change_sheet(desk: Desk, sheet_id: int, how: Any) -> tuple[dict[str, Any], Match, Any]:
    """Apply ``how(match)`` to a stored sheet; nothing is written when it raises."""
    out: dict[str, Any] = {}

    def change(sheet: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        match = from_sheet(sheet)
        out["result"] = how(match)
        out["match"] = match
        return to_sheet(match), match.title

    async with desk.lock:
        row = await db.change_sheet(desk.storage, sheet_id, change)
    if row is None:
        raise _no_sheet(sheet_id)
    return row, out["match"], out["result"]


@router.post(PREFIX + "/sheets/{sheet_id:int}/hands", response_model=None,
             responses=refusals("record_hand") | answer(SheetAnswer, links=HAND_LINKS))
async def record_hand(sheet_id: SheetId, body: HandBody, desk: DeskDep) -> dict[str, Any]:
    """Record one hand; answers the view plus ``"last"`` (the scored hand).

    Raises ScoreError (``match_over``, ``not_your_partner``, ``need_letters_to``...): nothing is
    written.
    """
    hand = body.entry()
    row, match, last = await _change_sheet(desk, sheet_id, lambda m: m.record(hand))
    return {**sheet_view(row, match), "last": last.to_dict()}


@router.post(PREFIX + "/sheets/{sheet_id:int}/undo", response_model=None,
             responses=refusals("undo_hand") | answer(SheetAnswer))
async def undo_hand(sheet_id: SheetId, desk: DeskDep) -> dict[str, Any]:
    """Take back the last hand; the view plus ``"undone"``. Raises ``nothing_to_undo``."""
    row, match, undone = await _change_sheet(desk, sheet_id, lambda m: m.undo())
    return {**sheet_view(row, match), "undone": undone.to_dict()}


@router.put(PREFIX + "/sheets/{sheet_id:int}/hands/{number:int}", response_model=None,
            responses=refusals("edit_hand") | answer(SheetAnswer))
async def edit_hand(sheet_id: SheetId, number: HandNumber, body: HandBody, desk: DeskDep
                    ) -> dict[str, Any]:
    """Replace hand ``number`` (1-based); every total is worked out again. Raises
    ``no_such_hand`` or the first later hand the edit breaks."""
    hand = body.entry()
    row, match, _ = await _change_sheet(desk, sheet_id, lambda m: m.edit(number, hand))
    return sheet_view(row, match)


@router.delete(PREFIX + "/sheets/{sheet_id:int}/hands/{number:int}", response_model=None,
               responses=refusals("delete_hand") | answer(SheetAnswer))
async def delete_hand(sheet_id: SheetId, number: HandNumber, desk: DeskDep) -> dict[str, Any]:
    """Remove hand ``number``; later hands move up. Raises ``no_such_hand``."""
    row, match, _ = await _change_sheet(desk, sheet_id, lambda m: m.delete(number))
    return sheet_view(row, match)


@router.get(PREFIX + "/sheets/{sheet_id:int}/export.csv", response_class=Response,
            responses=refusals("export_csv") | EXPORT_CSV)
async def export_csv(sheet_id: SheetId, desk: DeskDep) -> Response:
    """The history as CSV (one row a hand), as a download."""
    row = await db.get_sheet(desk.storage, sheet_id)
    if row is None:
        raise _no_sheet(sheet_id)
    return Response(to_csv(from_sheet(row["sheet"])), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition":
                             f'attachment; filename="scoresheet-{sheet_id}.csv"'})


@router.get(PREFIX + "/sheets/{sheet_id:int}/export.json", response_class=Response,
            responses=refusals("export_json") | EXPORT_JSON)
async def export_json(sheet_id: SheetId, desk: DeskDep) -> Response:
    """The scoresheet with its result, as a download (importable)."""
    row = await db.get_sheet(desk.storage, sheet_id)
    if row is None:
        raise _no_sheet(sheet_id)
    return Response(to_json(from_sheet(row["sheet"])), media_type="application/json",
                    headers={"Content-Disposition":
                             f'attachment; filename="scoresheet-{sheet_id}.json"'})


# -- tournaments ------------------------------------------------------------------------------------
@router.post(PREFIX + "/tournaments", status_code=201, response_model=None,
             responses=refusals("create_tournament") | answer(TournamentAnswer, 201, links=TOURNAMENT_LINKS))
async def create_tournament(body: TournamentBody, desk: DeskDep) -> dict[str, Any]:
    """Register the teams and draw the schedule; answers the tournament view.

    Raises ScoreError ``bad_team``, ``bad_setting``; ServerError ``bad_request``.
    """
    seed = body.seed if body.seed is not None else secrets.randbelow(1_000_000)
    teams = [x if isinstance(x, str) else x.model_dump(exclude_none=True,
                                                       exclude={"player_ids"})
             for x in body.teams]
    built = [_team(x) for x in teams]
    seeding: list[dict[str, Any]] | None = None
    if body.seed_by_rating:  # kemps.server.seeding: strongest first, in serpentine order
        from kemps.server.seeding import seeded_order, team_strengths

        parsed = [x if isinstance(x, Team) else parse_team(x) for x in built]
        strengths = await team_strengths(
            desk.storage, [x.players for x in parsed],
            [None if isinstance(x, str) else x.player_ids for x in body.teams])
        order = seeded_order([s["rating"] for s in strengths])
        built = [built[i] for i in order]
        seeding = [{"team": parsed[i].name, **strengths[i]} for i in order]
    t = Tournament(built, tables=body.tables, seed=seed,
                   name=(body.name or "").strip() or None, **body.settings())
    async with desk.lock:
        row = await db.create_tournament(desk.storage, t.name, t.to_dict())
    view = await _tournament_view(desk, row)
    if seeding is not None:
        view["seeding"] = seeding
    return view


@router.get(PREFIX + "/tournaments", response_model=None,
            responses=refusals("list_tournaments") | answer(TournamentsAnswer))
async def list_tournaments(desk: DeskDep, limit: int = 100) -> dict[str, Any]:
    """Stored tournaments, most recently changed first: ``{"tournaments": [{"id", "name",
    "teams", "champion", "updated_at"}]}``."""
    rows = await db.list_tournaments(desk.storage, max(1, min(limit, 500)))
    return {"tournaments": [{"id": r["id"], "name": r["name"],
                             "teams": len(r["state"].get("teams", [])),
                             "champion": (r["state"].get("standings") or {}).get("champion"),
                             "updated_at": r["updated_at"]} for r in rows]}


@router.get(PREFIX + "/tournaments/{tournament_id:int}", response_model=None,
            responses=refusals("get_tournament") | answer(TournamentAnswer))
async def get_tournament(tournament_id: TournamentId, desk: DeskDep) -> dict[str, Any]:
    """The tournament view (schedule, standings, linked rooms and sheets). Raises
    ``no_such_tournament`` (404)."""
    if await db.get_tournament(desk.storage, tournament_id) is None:
        raise _no_tournament(tournament_id)
    await desk.catch_up(tournament_id)
    row = await db.get_tournament(desk.storage, tournament_id)
    assert row is not None
    return await _tournament_view(desk, row)


async def _change_tournament(desk: Desk, tournament_id: int, how: Any
                             ) -> tuple[dict[str, Any], Any]:
    out: dict[str, Any] = {}

    def change(state: dict[str, Any]) -> dict[str, Any]:
        t = Tournament.from_dict(state)
        out["result"] = how(t)
        return t.to_dict()

    async with desk.lock:
        row = await db.change_tournament(desk.storage, tournament_id, change)
    if row is None:
        raise _no_tournament(tournament_id)
    return row, out["result"]


@router.put(PREFIX + "/tournaments/{tournament_id:int}/settings", response_model=None,
            responses=refusals("settle") | answer(TournamentAnswer))
async def settle(tournament_id: TournamentId, desk: DeskDep, body: SettingsBody | None = None
                 ) -> dict[str, Any]:
    """Change the settings before match one (no body: none changes). Raises ``settings_fixed``,
    ``bad_setting``."""
    data = body.settings() if body is not None else {}
    row, _ = await _change_tournament(desk, tournament_id, lambda t: t.settle(**data))
    return await _tournament_view(desk, row)


@router.post(PREFIX + "/tournaments/{tournament_id:int}/matches/{match_id}/result",
             response_model=None, responses=refusals("record_result") | answer(TournamentAnswer))
async def record_result(tournament_id: TournamentId, match_id: MatchId, body: ResultBody,
                        desk: DeskDep) -> dict[str, Any]:
    """Record a match: ``{"letters": [home, away], "loser": null, "replace": false}`` or
    ``{"sheet": SHEET_ID, "replace": false}``. Raises the desk's codes (``bad_result``,
    ``already_recorded``, ``forfeit``...) and ``no_such_sheet``; nothing changes on a refusal."""
    replace = body.replace
    if isinstance(body, SheetResult):
        sheet_id = body.sheet
        srow = await db.get_sheet(desk.storage, sheet_id)
        if srow is None:  # the address exists; the body names a sheet that does not
            raise ServerError("no_such_sheet", f"There is no scoresheet {sheet_id}.", 400)
        sheet_match = from_sheet(srow["sheet"])
        row, _ = await _change_tournament(
            desk, tournament_id, lambda t: t.record_match(match_id, sheet_match, replace=replace))
    else:
        letters, loser = body.letters, body.loser
        row, _ = await _change_tournament(
            desk, tournament_id,
            lambda t: t.record(match_id, letters, loser=loser, replace=replace))
    return await _tournament_view(desk, row)


@router.post(PREFIX + "/tournaments/{tournament_id:int}/withdraw", response_model=None,
             responses=refusals("withdraw") | answer(TournamentAnswer))
async def withdraw(tournament_id: TournamentId, body: WithdrawBody, desk: DeskDep
                   ) -> dict[str, Any]:
    """Withdraw a team (``{"team": name or player}``): its unplayed matches are forfeits.
    Raises ``unknown_team``, ``already_withdrawn``, ``event_over``."""
    team = body.team
    row, forfeited = await _change_tournament(desk, tournament_id, lambda t: t.withdraw(team))
    return {**await _tournament_view(desk, row), "forfeited": [m.id for m in forfeited]}


@router.post(PREFIX + "/tournaments/{tournament_id:int}/matches/{match_id}/sheet",
             status_code=201, response_model=None,
             responses=refusals("match_sheet") | answer(SheetAnswer, 201))
async def match_sheet(tournament_id: TournamentId, match_id: MatchId, desk: DeskDep
                      ) -> dict[str, Any]:
    """A new scoresheet for a match (its teams, under its rules), linked to it. Raises
    ``no_such_match``, ``match_decided`` (409)."""
    _, t = await _load_tournament(desk, tournament_id)
    m = t.match(match_id)
    if m.decided:
        raise ServerError("match_decided", f"Match {m.id} already has a result.", 409)
    match = t.new_scoresheet(m.id)
    async with desk.lock:
        row = await db.create_sheet(desk.storage, to_sheet(match), match.title,
                                    tournament_id=tournament_id, match_id=m.id)
    return sheet_view(row, match)


@router.post(PREFIX + "/tournaments/{tournament_id:int}/matches/{match_id}/room",
             response_model=None, responses=refusals("play_online") | answer(OnlineAnswer))
async def play_online(tournament_id: TournamentId, match_id: MatchId, request: Request,
                      desk: DeskDep) -> dict[str, Any]:
    """Play a scheduled match online: a room under the match's rules, linked to the match (an
    open room already linked to it is given again). Raises ``no_such_match``, ``match_decided``
    (409)."""
    _, t = await _load_tournament(desk, tournament_id)
    m = t.match(match_id)
    if m.decided:
        raise ServerError("match_decided", f"Match {m.id} already has a result.", 409)
    home, away = (t.teams[i] for i in m.teams)
    teams = {"home": {"name": home.name, "players": list(home.players), "seats": [1, 3]},
             "away": {"name": away.name, "players": list(away.players), "seats": [2, 4]}}
    async with desk.lock:
        for link in await db.rooms_of_tournament(desk.storage, tournament_id):
            room = desk.server.rooms.get(link["room_code"])
            if link["match_id"] == m.id and link["status"] == "playing" and room is not None \
                    and room.status != "finished":
                return {"code": room.code, "url": f"/room/{room.code}", "link": link, **teams}
        room = await desk.server.create_room(
            t.match_rules(m.id), request.client.host if request.client is not None else "")
        room.rules_locked = True  # whoever sits first hosts, but may not change the match's rules
        link = await db.link_room(desk.storage, tournament_id, m.id, room.code)
    return {"code": room.code, "url": f"/room/{room.code}", "link": link, **teams}


__all__ = ["PREFIX", "Desk", "install", "room_letters", "router", "sheet_view"]
