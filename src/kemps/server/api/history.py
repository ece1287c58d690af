"""The finished matches: the list, newest first, and one match with its public record."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from kemps.actions import SIGNAL_ACTIONS
from kemps.server import limits
from kemps.server.answers import HistoryAnswer, MatchAnswer, answer
from kemps.server.api import MAX_ROW_ID, StrictJSONRoute, refusals
from kemps.server.api.common import TheServer
from kemps.server.errors import ServerError

router = APIRouter(route_class=StrictJSONRoute)


@router.get("/api/history", response_model=None, responses=refusals("history") | answer(
    HistoryAnswer, links={"history_match": {"operationId": "history_match", "parameters": {
        "match_id": "$response.body#/matches/0/id"}}}))
async def history(server: TheServer,
                  limit: Annotated[int, Query(description="at most this many (1 to 500; "
                                              "others are brought into that range)")] = 100,
                  room: Annotated[str | None, Query(max_length=16, description="only this "
                                                    "room's (archived or not)")] = None,
                  ) -> dict[str, Any]:
    """Finished matches, newest first (``room``: of that room only, archived or not)."""
    limit = max(1, min(limit, 500))
    if room is not None:
        return {"matches": await limits.room_history(server.storage, room.strip().upper(),
                                                     limit)}
    return {"matches": await server.storage.history(limit)}


@router.get("/api/history/{match_id}", response_model=None,
            responses=refusals("history_match") | answer(MatchAnswer))
async def history_match(server: TheServer, match_id: Annotated[int, Path(ge=1, le=MAX_ROW_ID)]
                        ) -> dict[str, Any]:
    """One finished match with its record. The pairs' signal agreements are left out of the
    public record (the rules never reveal them, and a pair may keep a signal for the
    rematch); without them the record still replays to the same hands and letters."""
    found = await server.storage.match(match_id) if 0 < match_id < 2**62 else None
    if found is None:
        raise ServerError("no_such_match", f"There is no finished match {match_id}.", 404)
    record = dict(found["record"])
    record["actions"] = [a for a in record.get("actions", [])
                         if a.get("type") not in SIGNAL_ACTIONS]
    found["record"] = record
    found["signals_withheld"] = True
    return found
