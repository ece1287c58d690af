"""The rooms: create one, read it, take a seat, seat bots, clear a seat, change the rules, let
spectators in or not, start the match (docs/protocol.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from kemps.rules import MAX_PAIRS
from kemps.server.answers import JoinedAnswer, RefereeAnswer, RoomAnswer, answer
from kemps.server.api import StrictJSONRoute, refusals
from kemps.server.api.common import (
    Authorization,
    RoomCode,
    TheServer,
    bearer,
    client_address,
    seat_address,
)
from kemps.server.bodies import (
    BotBody,
    CreateBody,
    RefereeBody,
    RulesBody,
    SeatBody,
    SpectatorsBody,
)
from kemps.server.errors import STORAGE_WAIT_MESSAGES, ServerError
from kemps.server.signalling import check_camera_table
from kemps.server.tables import seat_player

router = APIRouter(route_class=StrictJSONRoute)

# Links for the stateful phase of API testing: from a seat's token to what it may do.
JOINED = {name: {"operationId": name, "parameters": {
    "code": "$response.body#/code",
    **({"header.authorization": "Bearer {$response.body#/token}"} if auth else {})}}
    for name, auth in (("get_room", False), ("take_seat", False), ("add_bot", True),
                       ("set_rules", True), ("start", True))}
JOINED["clear_seat"] = {"operationId": "clear_seat", "parameters": {
    "code": "$response.body#/code", "seat": "$response.body#/seat",
    "header.authorization": "Bearer {$response.body#/token}"}}
# a seat every new room has open, and a full table the host can start (merged into the body
# the fuzzer makes, whose seat would mostly be past a four-seat table)
JOINED["take_seat"]["requestBody"] = {"seat": 1}
JOINED["add_bot"]["requestBody"] = {"fill": True}


@router.post("/api/rooms", status_code=201, response_model=None,
             responses=refusals("create_room") | answer(JoinedAnswer, 201, links=JOINED))
async def create_room(server: TheServer, body: CreateBody, request: Request
                      ) -> dict[str, Any]:
    """Create a room; the creator takes seat 0 and hosts. Returns code, seat and token.
    Refused ``too_many_rooms`` (429) or ``rooms_full`` (503), with ``Retry-After``."""
    problem = server.writer.refusal()
    if problem is not None:
        raise ServerError(problem, STORAGE_WAIT_MESSAGES[problem], 503)
    camera = bool(body.camera)
    rules = body.rule_set(camera)  # a bad rule set is refused before it costs a room
    if camera:
        check_camera_table(server.settings, rules.players)
    if body.listed:  # an open table (kemps.server.tables): refused before it costs a room
        server.tables.check_address(client_address(request))
    room = await server.create_room(rules, client_address(request))
    room.camera = camera
    token = room.take_seat(0, body.name, seat_player(body.player_key))
    server.limits.seat_taken(room, 0, seat_address(server, request))
    room.host_seat = 0
    if body.listed:
        server.tables.set_listed(room, True, client_address(request))
    await server.durable()
    return {"code": room.code, "seat": 0, "token": token, "room": room.public()}


@router.get("/api/rooms/{code}", response_model=None,
            responses=refusals("get_room") | answer(RoomAnswer))
async def get_room(server: TheServer, code: RoomCode) -> dict[str, Any]:
    """The room's public state (seats, rules, status)."""
    return (await server.open_room(code)).public()


@router.post("/api/rooms/{code}/seats", response_model=None,
             responses=refusals("take_seat") | answer(JoinedAnswer, links=JOINED))
async def take_seat(server: TheServer, code: RoomCode, body: SeatBody, request: Request,
                    authorization: Authorization = None) -> dict[str, Any]:
    """Sit down; the token returned is the only way to act for that seat. A person takes one
    seat: a request with the token of a seat of this room is refused ``already_seated``
    (409; clear that seat first to move), and one client address holds at most
    ``seats_per_address`` seats of a table (``too_many_seats``, 429)."""
    room = await server.open_room(code)
    if room.seat_of(bearer(authorization)) is not None:
        raise ServerError("already_seated", "You hold a seat at this table already; clear "
                          "it first to move to another.", 409)
    address = seat_address(server, request)
    server.limits.check_seat(room, address)
    token = room.take_seat(body.seat, body.name, seat_player(body.player_key))
    server.limits.seat_taken(room, body.seat, address)
    await server.durable()
    return {"code": room.code, "seat": body.seat, "token": token, "room": room.public()}


@router.post("/api/rooms/{code}/referee", response_model=None,
             responses=refusals("take_referee") | answer(RefereeAnswer))
async def take_referee(server: TheServer, code: RoomCode, body: RefereeBody) -> dict[str, Any]:
    """Sit as the referee of a table whose dealer does not play (the tournament preset; S2
    tournament row 7 "Give each table a dealer who is not playing, to sweep the cards and judge
    the first touch"): the token returned connects as that dealer, who says Go and sweeps, sees
    every hand and gesture as it happens and the arrival order of contested touches. One
    referee a table (``referee_taken``); every player is told one watches (``room.referee``)."""
    room = await server.open_room(code)
    token = room.take_referee(body.name)
    await server.durable()
    return {"code": room.code, "referee": True, "token": token, "room": room.public()}


@router.post("/api/rooms/{code}/bots", response_model=None,
             responses=refusals("add_bot") | answer(RoomAnswer))
async def add_bot(server: TheServer, code: RoomCode, body: BotBody,
                  authorization: Authorization = None) -> dict[str, Any]:
    """(Host) seat a bot at ``seat``, or at every open seat (``fill``); the room. During a
    match, a bot plays a person's ``seat`` at once (the host's "replace": it hands the seat
    back when the person acts or reconnects); 409 ``not_a_person`` if a bot plays it."""
    room = await server.open_room(code)
    room.require_host(bearer(authorization))
    if body.speed is not None:
        room.set_bot_speed(body.speed)
    if body.fill:
        room.fill_with_bots(body.level)
    elif body.seat is not None:  # else the body set the speed alone (BotBody needs one)
        room.add_bot(body.seat, body.level)
    await server.durable()
    return room.public()


@router.delete("/api/rooms/{code}/seats/{seat}", response_model=None,
               responses=refusals("clear_seat") | answer(RoomAnswer))
async def clear_seat(server: TheServer, code: RoomCode,
                     seat: Annotated[int, Path(ge=0, le=2 * MAX_PAIRS - 1)],
                     authorization: Authorization = None) -> dict[str, Any]:
    """(Host, or the seat itself) clear a seat; the room. During a match the person gives
    the seat up for good: a bot plays it to the end and their connections watch."""
    room = await server.open_room(code)
    who = room.require_seat(bearer(authorization))
    if who != room.host_seat and who != seat:
        raise ServerError("not_host", "Only the host may clear someone else's seat.", 403)
    room.clear_seat(seat)
    await server.durable()
    return room.public()


@router.put("/api/rooms/{code}/rules", response_model=None,
            responses=refusals("set_rules") | answer(RoomAnswer))
async def set_rules(server: TheServer, code: RoomCode, body: RulesBody,
                    authorization: Authorization = None) -> dict[str, Any]:
    """(Host, in the lobby) change the preset and options (``camera``: make it a camera
    table or not; left out: as it is); the room."""
    room = await server.open_room(code)
    room.require_host(bearer(authorization))
    camera = room.camera if body.camera is None else body.camera
    rules = body.rule_set(camera)
    if camera:
        check_camera_table(server.settings, rules.players)
    room.set_rules(rules, camera)
    await server.durable()
    return room.public()


@router.put("/api/rooms/{code}/spectators", response_model=None,
            responses=refusals("set_spectators") | answer(RoomAnswer))
async def set_spectators(server: TheServer, code: RoomCode, body: SpectatorsBody,
                         authorization: Authorization = None) -> dict[str, Any]:
    """(Host) let spectators watch or not; turning them off closes those watching."""
    room = await server.open_room(code)
    room.require_host(bearer(authorization))
    room.set_spectators(body.allowed)
    if not body.allowed and server.limits.end_spectators(room):
        room.broadcast_room()
    await server.durable()
    return room.public()


@router.post("/api/rooms/{code}/start", response_model=None,
             responses=refusals("start") | answer(RoomAnswer))
async def start(server: TheServer, code: RoomCode, authorization: Authorization = None
                ) -> dict[str, Any]:
    """(Host) start the match, or a rematch with the same pairs; once the host has left (no
    connection), any seated player may start the rematch."""
    room = await server.open_room(code)
    seat = room.require_seat(bearer(authorization))
    host_here = any(c.seat == room.host_seat for c in room.conns)
    if seat != room.host_seat and (room.status == "lobby" or host_here):
        raise ServerError("not_host", "Only the host starts the match (anyone seated may "
                          "start a rematch once the host has left).", 403)
    room.start()
    await server.durable()
    return room.public()
