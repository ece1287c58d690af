"""Open tables (issue 32, :mod:`kemps.server.tables`): the list, quick match, a host listing a
room or not, and a person joining an open table (docs/protocol.md, "Open tables")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from kemps.rules import find_preset
from kemps.server.answers import JoinedAnswer, RoomAnswer, TablesAnswer, answer
from kemps.server.api import StrictJSONRoute, refusals
from kemps.server.api.common import (
    Authorization,
    RoomCode,
    TheServer,
    bearer,
    client_address,
    seat_address,
)
from kemps.server.bodies import JoinBody, ListedBody, Preset, QuickBody, RulesBody
from kemps.server.errors import STORAGE_WAIT_MESSAGES, ServerError
from kemps.server.tables import MAX_TABLES, seat_player

router = APIRouter(route_class=StrictJSONRoute)


@router.get("/api/tables", response_model=None,
            responses=refusals("tables") | answer(TablesAnswer))
async def tables(server: TheServer,
                 preset: Annotated[Preset | None, Query(description="only this preset's "
                                                        "tables")] = None) -> dict[str, Any]:
    """The open tables: listed rooms with a free seat (empty, or a bot's a person may take),
    oldest listing first, at most ``max``; with many nodes, every node's."""
    name = find_preset(preset).name if preset is not None else None
    return {"tables": await server.tables.tables(name), "max": MAX_TABLES}


@router.post("/api/tables/quick", response_model=None,
             responses=refusals("quick_match") | answer(JoinedAnswer))
async def quick_match(server: TheServer, body: QuickBody, request: Request) -> dict[str, Any]:
    """Quick match: a seat at the best open table of ``preset`` (most people first), else a new
    listed room with bots in the other seats, its match started, you its host. Returns code,
    seat, token, room and ``quick`` (``joined`` or ``opened``)."""
    problem = server.writer.refusal()
    if problem is not None:
        raise ServerError(problem, STORAGE_WAIT_MESSAGES[problem], 503)
    rules = RulesBody(preset=body.preset).rule_set()
    forwarded = None if "x-kemps-forwarded" in request.headers else client_address(request)
    joined = await server.tables.quick(rules, body.name, seat_address(server, request),
                                       forwarded, body.player_key)
    await server.durable()
    return joined


@router.put("/api/rooms/{code}/listed", response_model=None,
            responses=refusals("set_listed") | answer(RoomAnswer))
async def set_listed(server: TheServer, code: RoomCode, body: ListedBody, request: Request,
                     authorization: Authorization = None) -> dict[str, Any]:
    """(Host) list the room at ``GET /api/tables`` or not; the room (its ``listed``)."""
    room = await server.open_room(code)
    room.require_host(bearer(authorization))
    server.tables.set_listed(room, body.listed, client_address(request))
    return room.public()


@router.post("/api/rooms/{code}/join", response_model=None,
             responses=refusals("join_table") | answer(JoinedAnswer))
async def join_table(server: TheServer, code: RoomCode, body: JoinBody, request: Request,
                     authorization: Authorization = None) -> dict[str, Any]:
    """Sit at an open table: ``seat`` if given, else its first empty seat, else a bot's seat
    (in the lobby or between hands; the bot leaves). Returns code, seat, token and room."""
    room = await server.open_room(code)
    if room.seat_of(bearer(authorization)) is not None:
        raise ServerError("already_seated", "You hold a seat at this table already.", 409)
    joined = server.tables.join_here(room, body.name, body.seat, seat_address(server, request),
                                     seat_player(body.player_key))
    await server.durable()
    return joined
