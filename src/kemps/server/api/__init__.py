"""What the JSON API answers, in one place: every route's refusals (statuses and codes), the
shared error body, how request bodies are read, and the handlers that turn every refusal (ours,
FastAPI's validation, Starlette's 404/405) into that body.

Every refusal is ``{"code": "...", "message": "..."}`` (:class:`ErrorBody`): ``code`` a stable
snake_case machine code (docs/protocol.md lists them), ``message`` one plain sentence that never
repeats the refused input. :data:`ROUTES` lists each route's refusals by status; a route declares
them with :func:`refusals` (``responses=refusals("take_seat")``), and the same table decides the
status a code is answered with on that route (:func:`status_for`), so the schema and the server
cannot disagree. Request bodies are read by :class:`StrictJSONRoute`: UTF-8 JSON with every key
once (:func:`kemps.json_input.parse_json`), else 422 before anything runs.

The routes are in the routers beside this module, one a wing: :mod:`~kemps.server.api.pages`,
:mod:`~kemps.server.api.meta`, :mod:`~kemps.server.api.rooms`, :mod:`~kemps.server.api.history`
(what they share: :mod:`~kemps.server.api.common`); ``kemps.server.app.create_app`` assembles them
with the desk's and the replays'.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Coroutine, Mapping
from email.message import Message
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from kemps.errors import KempsError
from kemps.json_input import JSONInputError, parse_json
from kemps.server.errors import ServerError
from kemps.text import TextError, check_text

log = logging.getLogger("kemps.server")

#: The largest id of a stored row (sheet, tournament, finished match): ids are positive 62-bit
#: integers, so any id in the schema's range can be looked up (a larger one would overflow SQL).
MAX_ROW_ID: Final = 2**62 - 1
#: The refusals of a request body that cannot be read or lacks the declared shape (422).
BODY_CODES: Final = ("bad_request", "bad_json", "duplicate_key", "bad_text")
#: The refusals of a request whose address (path, query, headers) lacks the declared shape.
PARAM_CODES: Final = ("bad_request", "bad_text")
_HAND: Final = ("unknown_player", "unknown_pair", "calls_disabled", "not_your_partner",
                "need_target", "own_pair", "not_opposite", "need_letters_to", "bad_letters_to",
                "table_talk_allowed")
Refusals = Mapping[int, tuple[str, ...]]
_ROOM: Final[Refusals] = {404: ("no_such_room", "not_found"), 410: ("room_archived",)}
_LOBBY_CHANGE: Final[Refusals] = {503: ("storage_unavailable", "storage_busy")}
_BODY: Final[Refusals] = {413: ("too_large",), 422: BODY_CODES}
_PARAMS: Final[Refusals] = {422: PARAM_CODES}
_SEATED: Final[Refusals] = {403: ("not_seated", "not_host")}


def _merge(*parts: Refusals) -> Refusals:
    out: dict[int, tuple[str, ...]] = {}
    for part in parts:
        for status, codes in part.items():
            out[status] = tuple(dict.fromkeys((*out.get(status, ()), *codes)))
    return out


#: Every refusal of every route, by status: the route's ``responses`` in ``/openapi.json`` (each
#: status with its codes as an ``enum``, so a client and a fuzzer can hold the server to them),
#: and the status a code is answered with on that route (:func:`status_for`): documentation and
#: behaviour from one table. 400 is a well-formed request the rules or the desk refuse (what JSON
#: Schema cannot say: :data:`WHY_400`); 404 something the address names that does not exist; 409
#: a request the resource's current state refuses; 422 a request that cannot be read or lacks
#: the declared shape.
ROUTES: Final[dict[str, Refusals]] = {
    "presets": {}, "health": {}, "protocol_schema": {},
    "create_room": _merge({400: ("bad_option", "camera_table_too_large"), 429: ("too_many_rooms", "too_many_listed"),
                           503: ("rooms_full",)}, _LOBBY_CHANGE, _BODY),
    # remembered players and ratings (kemps.server.players)
    "remember_player": _merge({429: ("too_many_players",)}, _BODY),
    "leaderboard": _PARAMS,
    "get_player": _merge({404: ("no_such_player", "not_found")}, _PARAMS),
    "get_room": _merge(_ROOM, _PARAMS),
    "take_seat": _merge(_ROOM, {409: ("seat_taken", "no_such_seat", "not_in_lobby",
                                      "already_seated", "room_broken"),
                                429: ("too_many_seats",)}, _LOBBY_CHANGE, _BODY),
    "take_referee": _merge(_ROOM, {409: ("no_referee_seat", "referee_taken", "match_over",
                                         "room_broken")}, _LOBBY_CHANGE, _BODY),
    "add_bot": _merge(_SEATED, _ROOM, {409: ("seat_taken", "no_such_seat", "not_in_lobby",
                                             "not_a_person", "room_broken")},
                      _LOBBY_CHANGE, _BODY),
    "clear_seat": _merge(_SEATED, _ROOM, {404: ("no_such_seat",),
                                          409: ("not_in_lobby", "not_a_person", "room_broken")},
                         _LOBBY_CHANGE, _PARAMS),
    "set_rules": _merge({400: ("bad_option", "camera_table_too_large")}, _SEATED, _ROOM,
                        {409: ("not_in_lobby", "rules_locked", "room_broken")},
                        _LOBBY_CHANGE, _BODY),
    "set_spectators": _merge(_SEATED, _ROOM, {409: ("room_broken",)}, _LOBBY_CHANGE, _BODY),
    "start": _merge(_SEATED, _ROOM, {409: ("already_playing", "seats_open", "room_broken")},
                    _LOBBY_CHANGE, _PARAMS),
    # open tables (kemps.server.tables)
    "tables": _PARAMS,
    "quick_match": _merge({409: ("room_broken",), 429: ("too_many_rooms", "too_many_listed",
                                                        "too_many_seats"),
                           503: ("rooms_full",)}, _LOBBY_CHANGE, _BODY),
    "set_listed": _merge(_SEATED, _ROOM, {409: ("room_broken",), 429: ("too_many_listed",)},
                         _BODY),
    "join_table": _merge(_ROOM, {409: ("not_listed", "table_full", "seat_taken",
                                       "no_such_seat", "not_in_lobby", "not_between_hands",
                                       "already_seated", "room_broken"),
                                 429: ("too_many_seats",)}, _LOBBY_CHANGE, _BODY),
    "reveal": _merge(_SEATED, _ROOM, {409: ("reveal_closed",)}, _BODY),
    "history": _PARAMS,
    "history_match": _merge({404: ("no_such_match", "not_found")}, _PARAMS),
    "replay_json": _merge({404: ("no_such_match", "not_found")}, _PARAMS),
    "replay_record": _merge({404: ("no_such_match", "not_found")}, _PARAMS),
    # the desk: scoresheets
    "create_sheet": _merge({400: ("bad_sheet", "bad_option", "match_over", *_HAND)}, _BODY),
    "import_sheet": _merge({400: ("bad_sheet", "bad_option", "match_over", *_HAND)}, _BODY),
    "list_sheets": _PARAMS,
    "get_sheet": _merge({404: ("no_such_sheet", "not_found")}, _PARAMS),
    "record_hand": _merge({400: _HAND, 404: ("no_such_sheet", "not_found"),
                           409: ("match_over",)}, _BODY),
    "undo_hand": _merge({404: ("no_such_sheet", "not_found"), 409: ("nothing_to_undo",)},
                        _PARAMS),
    "edit_hand": _merge({400: _HAND, 404: ("no_such_sheet", "no_such_hand", "not_found"),
                         409: ("match_over",)}, _BODY, _PARAMS),
    "delete_hand": _merge({404: ("no_such_sheet", "no_such_hand", "not_found"),
                           409: ("match_over",)}, _PARAMS),
    "export_csv": _merge({404: ("no_such_sheet", "not_found")}, _PARAMS),
    "export_json": _merge({404: ("no_such_sheet", "not_found")}, _PARAMS),
    # the desk: tournaments
    "create_tournament": _merge({400: ("bad_team",)}, _BODY),
    "list_tournaments": _PARAMS,
    "get_tournament": _merge({404: ("no_such_tournament", "not_found")}, _PARAMS),
    "settle": _merge({404: ("no_such_tournament", "not_found"), 409: ("settings_fixed",)},
                     _BODY),
    "record_result": _merge({400: ("bad_result", "unknown_team", "no_such_sheet"),
                             404: ("no_such_tournament", "no_such_match", "not_found"),
                             409: ("already_recorded", "forfeit", "final_drawn")}, _BODY),
    "withdraw": _merge({400: ("unknown_team",), 404: ("no_such_tournament", "not_found"),
                        409: ("already_withdrawn", "event_over")}, _BODY),
    "match_sheet": _merge({404: ("no_such_tournament", "no_such_match", "not_found"),
                           409: ("match_decided",)}, _PARAMS),
    "play_online": _merge({404: ("no_such_tournament", "no_such_match", "not_found"),
                           409: ("match_decided",), 429: ("too_many_rooms",),
                           503: ("rooms_full",)}, _PARAMS),
}
#: An outage any route may meet (:mod:`kemps.server.outages`): the database does not answer, or,
#: with many nodes, Redis does not or the room is moving to another node. Always 503 with
#: ``Retry-After``. (The health check answers 503 with its own body: it reports, never refuses.)
_OUTAGE: Final[Refusals] = {503: ("storage_unavailable", "redis_unavailable", "room_moving")}
ROUTES.update({route: _merge(codes, _OUTAGE) for route, codes in ROUTES.items()
               if route != "health"})

_RULES_400: Final = (
    "a combination of rule options the rules refuse (`bad_option`): `stop_word` equal to "
    "`call_word` (case and spaces aside); `decks` too few for the players; `target` beyond the "
    "word's letters, or points with neither `target` nor `hands`; an even `hands` for two pairs; "
    "`stop_scope` `opposite` with an odd number of pairs; a dealer who is not playing without "
    "`idle_sweep_s` (unless `sweep` is `all_agree`); `immune_while_holding` without "
    "`hold_limit_s`. Options not given are the preset's, so these depend on the preset too")
_HAND_400: Final = (
    "a hand the scorekeeper refuses under the sheet's players and rules (docs/scoresheet.md): "
    "`by`, `on` or `letters_to` naming nobody at this table (`unknown_player`, `unknown_pair`); "
    "a Kemps call on someone other than the caller's partner, a Stop call without the target "
    "the rules need, on the caller's own pair or not across the table; a double call where "
    "double calls are off; `letters_to` missing where the rules leave the letter open, or given "
    "where they do not; a table-talk ruling where table talk is allowed")
_SHEET_400: Final = (
    "a scoresheet the scorekeeper refuses (`bad_sheet`): a player named twice (case and spaces "
    "aside), two pairs of one name or a pair named like a player, `options.pairs` other than the "
    "pairs listed; " + _RULES_400 + "; and any of its hands as a single hand would be (" +
    _HAND_400 + "), or a hand after the match has ended (`match_over`); the message names the "
    "hand")
#: What each route refuses with 400: the cross-field and cross-resource checks that JSON Schema
#: cannot state (the request is well formed; the rules or the desk refuse it).
WHY_400: Final[dict[str, str]] = {
    "create_room": _RULES_400, "set_rules": _RULES_400,
    "create_sheet": _SHEET_400, "import_sheet": _SHEET_400,
    "record_hand": _HAND_400, "edit_hand": _HAND_400,
    "create_tournament": (
        "teams the desk refuses (`bad_team`): two teams of one name or a player in two teams "
        "(case and spaces aside), or a team text that is not 'Alice & Cara' or 'Sharks: Alice & "
        "Cara'"),
    "record_result": (
        "a result the desk refuses: letters that do not finish a match of this stage (both "
        "teams at its losing count, neither, or one beyond it: a short match ends at the "
        "settings' letters, the final at five) or a `loser` whose opponents had already taken "
        "the losing letters (`bad_result`), teams that do not play this match (`unknown_team`), "
        "a scoresheet that does not exist (`no_such_sheet`), is not finished, plays another "
        "length or other teams (`bad_result`)"),
    "withdraw": "a team that is not registered (`unknown_team`: no team or player of that name)",
}
_WHAT: Final[dict[int, str]] = {
    400: "Refused: a well-formed request the rules or the desk do not allow; nothing changed.",
    403: "Refused: the token holds no seat here, or not the host's.",
    404: "Something the address names does not exist (`not_found`: the address itself).",
    405: "That method is not allowed here (the Allow header lists those that are).",
    409: "Refused: the room, sheet or match is not in a state for that; nothing changed.",
    410: "The room was archived after a long time with no player connected.",
    413: "The request body is larger than the server reads (256 KB).",
    422: "The request cannot be read or does not have the declared shape (a body that is not "
         "UTF-8 JSON, a key given twice, a field missing, extra, of the wrong type or out of "
         "range, text that is not clean); nothing changed.",
    429: "Too many requests from your address; try again later (`Retry-After`).",
    503: "The server cannot take that now (its storage or, with many nodes, Redis does not "
         "answer, the room is moving to another node, or the server is full); nothing was "
         "done; try again after `Retry-After` seconds.",
}


class ErrorBody(BaseModel):
    """Every refusal of the JSON API: ``{"code": "no_such_room", "message": "There is no room
    'QQQQQ'."}``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"code": "no_such_room", "message": "There is no room 'QQQQQ'."}]})
    code: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=40,
                      description="A stable machine code (docs/protocol.md lists them).")
    message: str = Field(description="One plain sentence for a person.")


def _error_schema(codes: tuple[str, ...]) -> dict[str, Any]:
    """:class:`ErrorBody`'s schema with ``code`` one of ``codes``."""
    schema = ErrorBody.model_json_schema()
    schema.pop("examples", None)
    schema["properties"]["code"]["enum"] = list(codes)
    return schema


def refusals(route: str) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of ``route`` for its refusals (:data:`ROUTES`): each status with the
    shared error body, its codes as an ``enum``, one example per code, and for 400 what the
    rules or the desk refuse that JSON Schema cannot state (:data:`WHY_400`)."""
    out: dict[int | str, dict[str, Any]] = {}
    for status, codes in sorted(ROUTES[route].items()):
        what = _WHAT.get(status, "Refused.")
        if status == 400 and route in WHY_400:
            what = f"{what} The request has the declared shape but is refused for {WHY_400[route]}."
        examples = {code: {"value": {"code": code, "message": "..."}} for code in codes}
        out[status] = {"description": what, "content": {"application/json": {
            "schema": _error_schema(codes), "examples": examples}}}
    return out


def status_for(route: str | None, err: KempsError) -> int:
    """The status ``err`` is answered with on ``route``: the one :data:`ROUTES` lists its code
    under, else the error's own (a :class:`ServerError`'s ``status``), else 400."""
    for status, codes in ROUTES.get(route or "", {}).items():
        if err.code in codes:
            return status
    return err.status if isinstance(err, ServerError) else 400


class SafeJSONResponse(JSONResponse):
    """JSON that is always valid UTF-8: text the server holds with a lone surrogate (stored before
    text was checked) is sent escaped (``\\ud800``) instead of failing the whole answer."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None,
                          separators=(",", ":"))
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(content, ensure_ascii=True, allow_nan=False,
                              separators=(",", ":")).encode("ascii")


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    """A field path for a message, without repeating unclean or long keys a client sent."""
    parts: list[str] = []
    for part in loc:
        if part in ("body", "query", "path", "header") and not parts:
            continue
        text = str(part)
        if isinstance(part, str) and ("[" in text or "(" in text or text[:1].isupper()):
            continue  # which member of a union or model pydantic tried: not a field
        try:
            check_text(text, max_chars=40)
        except TextError:
            text = "?"
        parts.append(text)
    return ".".join(parts) or "body"


def _validation_message(err: RequestValidationError) -> tuple[str, str]:
    found = list(err.errors())
    for each in found:  # unclean text is named as such, also inside a union's other tries
        cause = (each.get("ctx") or {}).get("error")
        if isinstance(cause, KempsError):
            return cause.code, cause.message
    first = found[0] if found else {}
    where = _where(first.get("loc", ()))
    if first.get("type") == "json_invalid":
        return "bad_json", "The body is not valid JSON."
    msg = str(first.get("msg", "not valid"))
    return "bad_request", f"Field {where}: {msg}."


_METHODS: Final = ("GET", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(app: FastAPI, scope: dict[str, Any]) -> list[str]:
    """Every method some route of ``app`` answers at the path of ``scope``."""
    methods = [m for m in _METHODS
               if any(route.matches({**scope, "type": "http", "method": m})[0] == Match.FULL
                      for route in app.router.routes)]
    return methods


def _is_json(content_type: str | None) -> bool:
    """Whether FastAPI reads a body of this type as JSON (``application/json``, ``+json``)."""
    if not content_type:
        return False
    message = Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json"))


class StrictJSONRoute(APIRoute):
    """An API route whose JSON body is read by :func:`kemps.json_input.parse_json` before
    FastAPI sees it: a body that is not UTF-8, not JSON, or gives a key twice in one object is
    answered 422 (``bad_json``, ``duplicate_key``) and the route does not run. (FastAPI alone
    answers bytes that are not UTF-8 with a bare 400, and keeps the last of two equal keys.)

    Every router of the app uses it (``APIRouter(route_class=StrictJSONRoute)``)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            if _is_json(request.headers.get("content-type")):
                body = await request.body()
                if body:
                    try:
                        request._json = parse_json(body)  # FastAPI's request.json() reads it
                    except JSONInputError as err:
                        raise ServerError(err.code, err.message, 422) from None
            return await handler(request)

        return strict


def install_error_handlers(app: FastAPI) -> None:
    """Answer every refusal with :class:`ErrorBody` (never echoing the refused input), with the
    status :data:`ROUTES` gives its code on the route (:func:`status_for`) and ``Retry-After``
    for a limit that says when to come back."""

    @app.exception_handler(KempsError)
    async def refused(request: Request, err: KempsError) -> JSONResponse:
        route = getattr(request.scope.get("route"), "name", None)
        headers = None
        retry = getattr(err, "retry_after_s", None)
        if retry is not None:
            headers = {"Retry-After": str(max(1, math.ceil(retry)))}
        return SafeJSONResponse(err.to_dict(), status_code=status_for(route, err),
                                headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, err: RequestValidationError) -> JSONResponse:
        code, message = _validation_message(err)
        return SafeJSONResponse({"code": code, "message": message}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        headers = dict(err.headers or {})
        if err.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(app, dict(request.scope)))
            body = {"code": "method_not_allowed", "message": f"{request.method} is not allowed "
                    f"here; use {headers['Allow'] or 'another path'}."}
        elif err.status_code == 404:
            body = {"code": "not_found", "message": "There is nothing at this address."}
        elif err.status_code == 400:  # FastAPI could not read the body: as unreadable, 422
            return SafeJSONResponse({"code": "bad_json", "message": "The body cannot be read as "
                                     "JSON."}, status_code=422, headers=headers)
        else:
            body = {"code": "http_error", "message": str(err.detail)}
        return SafeJSONResponse(body, status_code=err.status_code, headers=headers)


__all__ = ["BODY_CODES", "MAX_ROW_ID", "ROUTES", "WHY_400", "ErrorBody", "SafeJSONResponse", "StrictJSONRoute",
           "allowed_methods", "install_error_handlers", "refusals", "status_for"]
