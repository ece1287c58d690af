"""What the JSON API answers, in one place: the shared error body, the statuses each route declares,
and the handlers that turn every refusal (ours, FastAPI's validation, Starlette's 404/405) into
that body.

Every refusal is ``{"code": "...", "message": "..."}`` (:class:`ErrorBody`): ``code`` a stable
snake_case machine code (docs/protocol.md lists them), ``message`` one plain sentence that never
repeats the refused input. A route declares its refusals with :func:`errors` (``responses=
errors(404, 409)``); a new code slots in by adding it to :data:`CODES` under its status.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from kemps.errors import KempsError
from kemps.text import TextError, check_text

log = logging.getLogger("kemps.server")

# The codes each status may carry (documentation and examples; the body's ``code`` is any code).
CODES: Final[dict[int, tuple[str, ...]]] = {
    400: ("bad_request", "bad_json", "bad_text", "bad_option", "unknown_preset", "unknown_level",
          "no_such_seat", "bad_sheet", "bad_hand", "bad_team", "bad_setting", "bad_result",
          "unknown_team", "unknown_player", "need_letters_to", "nothing_to_undo", "no_such_hand",
          "match_over", "settings_fixed", "forfeit", "event_over", "already_withdrawn",
          "already_recorded", "final_drawn"),
    403: ("not_seated", "not_host"),
    404: ("no_such_room", "no_such_match", "no_such_sheet", "no_such_tournament", "not_found"),
    405: ("method_not_allowed",),
    409: ("seat_taken", "seats_open", "not_in_lobby", "already_playing", "rules_locked",
          "match_decided"),
    422: ("bad_request", "bad_text"),
    429: ("too_many_requests",),
    503: ("storage_unavailable",),
}
_WHAT: Final[dict[int, str]] = {
    400: "Refused: a value the rules or the desk do not allow; nothing changed.",
    403: "Refused: the token holds no seat here, or not the host's.",
    404: "No such room, match, scoresheet or tournament.",
    405: "That method is not allowed here (the Allow header lists those that are).",
    409: "Refused: the room or match is not in a state for that; nothing changed.",
    422: "The request does not have the declared shape (a field missing, of the wrong type, out "
         "of range, or text that is not clean); nothing changed.",
    429: "Too many requests; try again later.",
    503: "The database does not answer; nothing was done.",
}


class ErrorBody(BaseModel):
    """Every refusal of the JSON API: ``{"code": "no_such_room", "message": "There is no room
    'QQQQQ'."}``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"code": "no_such_room", "message": "There is no room 'QQQQQ'."}]})
    code: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=40,
                      description="A stable machine code (docs/protocol.md lists them).")
    message: str = Field(description="One plain sentence for a person.")


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that may refuse with ``statuses`` (each with the shared
    :class:`ErrorBody` and one example per known code). 422 is always declared."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in sorted({*statuses, 422}):
        examples = {code: {"value": {"code": code, "message": "..."}}
                    for code in CODES.get(status, ())}
        out[status] = {"model": ErrorBody, "description": _WHAT.get(status, "Refused."),
                       "content": {"application/json": {"examples": examples}}}
    return out


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


def install_error_handlers(app: FastAPI) -> None:
    """Answer every refusal with :class:`ErrorBody` (never echoing the refused input)."""

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
        elif err.status_code == 400:
            body = {"code": "bad_json", "message": "The body is not valid JSON."}
        else:
            body = {"code": "http_error", "message": str(err.detail)}
        return SafeJSONResponse(body, status_code=err.status_code, headers=headers)


__all__ = ["CODES", "ErrorBody", "SafeJSONResponse", "allowed_methods", "errors",
           "install_error_handlers"]
