"""Replays of finished matches: the page, its JSON, the record as revealed, and each pair's choice
to show or withhold its signals.

Routes (docs/protocol.md, "Replays"):

* ``GET /replay/{match_id}`` -- the replay page (static/replay.html; ``#t=41.2`` or
  ``?hand=2&t=3.5`` opens at a moment).
* ``GET /api/replays/{match_id}`` -- what the page needs (:func:`replay_view`): every event in
  order with its table time and its omniscient sentence (every hand face up: the match is over),
  the table after each step, the hands, the timeline's markers, the calls and judgements, and the
  tell (:func:`kemps.tell.analyse`) per hand and per pair.
* ``GET /api/replays/{match_id}/record`` -- the match record as the replay shows it (a
  download): with the signal agreements of the pairs that allow it, and
  ``meta.signals_withheld`` naming the others (``meta.signals_in_force``: those withheld because
  the pair still gives them); ``kemps replay --stats --json`` on it gives the page's stats panel.

**Signals in force are never shown.** A rematch keeps each pair's signals, and anyone may read
these routes without a token: a pair's agreements in a finished match are withheld from everyone
while they are in force (the room is open, and the pair gives one of those gestures now: in the
match being played, or, between matches, in the one a rematch would keep;
:func:`withheld_for`). They are shown once the pair changes them or the room ends (archived),
and then only if the pair allows it.
* ``POST /api/rooms/{code}/reveal`` -- ``{"reveal": false, "match_no": 3}`` with a seat's token
  (``Authorization: Bearer TOKEN``): that seat's pair withholds (or, ``true``, shows again) its
  signals in the replay of that match of the room. Signals are revealed only for finished
  matches, never while they are in force (below), and then by default; a pair that wants a
  match's signals never shown withholds them. The choice is open while the match is played, once it has ended, and while the
  room's next match is played (``match_no`` left out: the room's current or last match); after
  that it is fixed (``reveal_closed``, 409). Stored by :mod:`kemps.server.reveal_storage`.

Everything here reads storage through :class:`kemps.server.storage.Storage` and the reveal
table; nothing changes a room.
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from kemps.actions import ACTION_NAMES, SIGNAL_ACTIONS
from kemps.events import Event, Gestured, HandDealt, HandEnded, SignalsAgreed, event_to_dict
from kemps.narrate import describe
from kemps.record import MatchRecord, replay_steps
from kemps.server import reveal_storage
from kemps.server.api import MAX_ROW_ID, StrictJSONRoute, refusals
from kemps.server.bodies import WHOLE
from kemps.server.errors import ServerError
from kemps.server.storage import Storage
from kemps.table import Table
from kemps.tell import STRIP_S, analyse
from kemps.views import view_for

STATIC = FilePath(__file__).resolve().parent / "static"
MatchId = Annotated[int, Path(ge=1, le=MAX_ROW_ID,
                               description="a finished match's id (GET /api/history)")]
RoomCode = Annotated[str, Path(min_length=1, max_length=16, description="the room's join code",
                               examples=["K7QMX"])]
Authorization = Annotated[str | None, Header(max_length=200, description="`Bearer TOKEN`: the "
                                             "token of a seat of the pair")]
_OPEN = ConfigDict(extra="allow")


class RevealBody(BaseModel):
    """Show or withhold the seat's pair's signals in a match's replay: ``{"reveal": false}``
    (``match_no`` left out: the room's current or last match)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"reveal": False}, {"reveal": True, "match_no": 1}]})
    reveal: bool
    match_no: Annotated[int, Field(ge=1, le=2**31), WHOLE] | None = None


class RevealAnswer(BaseModel):
    """The pair's choice as stored."""

    model_config = _OPEN
    room: str
    match_no: int
    pair: int
    reveal: bool


class ReplayAnswer(BaseModel):
    """A finished match as its replay page plays it (see :func:`replay_view`)."""

    model_config = _OPEN
    id: int
    room: str
    match_no: int
    names: list[str]
    pairs: int
    end: float
    signals_withheld: list[int]
    signals_in_force: list[int]
    events: list[dict[str, Any]]
    states: list[dict[str, Any]]
    hands: list[dict[str, Any]]
    markers: list[dict[str, Any]]
    tell: dict[str, Any]


def revealed_record(found: dict[str, Any], withheld: frozenset[int]) -> MatchRecord:
    """The stored match's record without the agreements of the ``withheld`` pairs (and their
    proposals and answers: :data:`kemps.actions.SIGNAL_ACTIONS`), which
    ``meta["signals_withheld"]`` names (what the tell reads).

    Raises:
        RecordError: ``bad_record`` when the stored record does not read.
    """
    record = MatchRecord.from_dict(found["record"])
    pairs = record.rules.pairs
    if withheld:
        record.actions = [(t, a) for t, a in record.actions
                          if not (ACTION_NAMES[type(a)] in SIGNAL_ACTIONS
                                  and a.seat is not None and a.seat % pairs in withheld)]
        record.meta = {**record.meta, "signals_withheld": sorted(withheld)}
    return record


def _state(table: Table) -> dict[str, Any]:
    """The table as the replay draws it after a step: every hand face up (the match is over)."""
    public = view_for(table, None)
    return {"phase": public.phase, "hand_no": public.hand_no, "dealer": public.dealer,
            "hands": [[c.text for c in view_for(table, s).hand] for s in range(table.n)],
            "middle": [None if c is None else c.text for c in public.middle],
            "middle_face_down": public.middle_face_down, "stock_count": public.stock_count,
            "holding": list(public.holding), "scores": list(public.scores),
            "spelled": list(public.spelled), "looks": list(public.looks)}


def replay_view(found: dict[str, Any], withheld: frozenset[int]) -> dict[str, Any]:
    """The replay of a stored finished match (``Storage.match``'s dict) with the ``withheld``
    pairs' signals left out.

    Shape: ``{"id", "room", "match_no", "finished_at", "names", "pairs", "rules", "summary",
    "end": seconds, "signals_withheld": [pair], "events": [{...event_to_dict, "i", "s": index
    into states, "hand": hand number (0 before the first deal), "text": omniscient sentence or
    None, "signal": (gestures) True / False / None when unknown}], "states": [{"phase",
    "hand_no", "dealer", "hands": [[card]], "middle", "middle_face_down", "stock_count",
    "holding", "scores", "spelled", "looks": where each seat looks, [] without attention}],
    "hands": [{"hand", "dealer", "t", "end_t", "first",
    "last"}], "markers": [{"t", "kind": "signal" / "call" / "sweep", "i", "hand", "seat"}],
    "tell": kemps.tell.analyse, "tell_strip_s": seconds each call's strip shows}``; times are table seconds from the match's start.

    Raises:
        RecordError: ``bad_record`` when the stored record does not replay.
    """

    record = revealed_record(found, withheld)
    table = Table(record.rules, record.names, record.first_dealer)
    agreed: list[tuple[str, ...]] = [()] * table.pairs
    known = [False] * table.pairs
    events: list[dict[str, Any]] = []
    states: list[dict[str, Any]] = [_state(table)]
    hands: list[dict[str, Any]] = []
    markers: list[dict[str, Any]] = []
    hand = 0

    def take(batch: list[Event]) -> None:
        nonlocal hand
        if not batch:
            return
        states.append(_state(table))
        for e in batch:
            d = event_to_dict(e)
            d["i"], d["s"] = len(events), len(states) - 1
            if isinstance(e, HandDealt):
                hand = e.hand_no
                hands.append({"hand": hand, "dealer": e.dealer, "t": e.t, "end_t": None,
                              "first": d["i"], "last": d["i"]})
            d["hand"] = hand
            d["text"] = describe(table, e, omniscient=True)
            if isinstance(e, SignalsAgreed):
                agreed[e.pair], known[e.pair] = e.signals, True
            elif isinstance(e, Gestured):
                pair = table.pair_of(e.seat)
                d["signal"] = (e.gesture in agreed[pair]) if known[pair] else None
                if d["signal"] and hand:
                    markers.append({"t": e.t, "kind": "signal", "i": d["i"], "hand": hand,
                                    "seat": e.seat})
            elif d["type"] in ("called", "swept") and hand:
                markers.append({"t": e.t, "kind": "call" if d["type"] == "called" else "sweep",
                                "i": d["i"], "hand": hand, "seat": d.get("seat")})
            if hands and hand == hands[-1]["hand"]:
                hands[-1]["last"] = d["i"]
                if isinstance(e, HandEnded):
                    hands[-1]["end_t"] = e.t
            events.append(d)

    for batch in replay_steps(record, table):
        take(batch)
    end = max([record.end or 0.0] + [e["t"] for e in events[-1:]])
    return {"id": found["id"], "room": found["room"], "match_no": found["match_no"],
            "finished_at": found["finished_at"], "names": list(table.names),
            "pairs": table.pairs, "rules": record.rules.to_dict(), "summary": found["summary"],
            "end": end, "signals_withheld": sorted(withheld), "events": events,
            "states": states, "hands": hands, "markers": markers, "tell": analyse(record),
            "tell_strip_s": STRIP_S}


def _token(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


def in_force_pairs(record: dict[str, Any], now: dict[int, frozenset[str]]) -> frozenset[int]:
    """The pairs of a finished match's stored ``record`` (a dict) whose agreements in it share a
    gesture with what the pair gives now (``now``: :func:`reveal_storage.signals_in_force`): a
    rematch kept them, or the pair came back to one; all of that pair's agreements in the match
    are withheld then (an earlier one would tell the opponents how the pair chooses)."""
    pairs = int(record.get("rules", {}).get("pairs", 2)) or 2
    agreed: dict[int, set[str]] = {}
    for a in record.get("actions", []):
        if isinstance(a, dict) and a.get("type") == "agree_signals" and \
                isinstance(a.get("seat"), int):
            agreed.setdefault(a["seat"] % pairs, set()).update(map(str, a.get("signals") or ()))
    return frozenset(p for p, gestures in agreed.items() if gestures & now.get(p, frozenset()))


async def withheld_for(storage: Storage, found: dict[str, Any]
                       ) -> tuple[frozenset[int], frozenset[int]]:
    """The pairs whose agreements in the stored finished match ``found`` nobody outside the pair
    may read now: (every withheld pair, those of them withheld because they are in force).

    A pair's agreements are withheld while they are in force (the room is open and the pair
    still gives one of them: a rematch keeps each pair's signals) and, after that, if the pair
    chose so (``POST /api/rooms/{code}/reveal``)."""
    chosen = await reveal_storage.withheld_pairs(storage, found["room"], found["match_no"])
    in_force = in_force_pairs(found["record"], await reveal_storage.signals_in_force(
        storage, found["room"]))
    return chosen | in_force, in_force


async def _finished(request: Request, match_id: int
                    ) -> tuple[dict[str, Any], frozenset[int], frozenset[int]]:
    storage = request.app.state.server.storage
    found = await storage.match(match_id) if 0 < match_id < 2**62 else None
    if found is None:
        raise ServerError("no_such_match", f"There is no finished match {match_id}.", 404)
    withheld, in_force = await withheld_for(storage, found)
    return found, withheld, in_force


router = APIRouter(route_class=StrictJSONRoute)


@router.get("/replay/{match_id}", include_in_schema=False)
async def replay_page(match_id: str) -> FileResponse:
    return FileResponse(STATIC / "replay.html")


@router.get("/api/replays/{match_id}", response_model=None,
            responses=refusals("replay_json") | {200: {"model": ReplayAnswer,
                                           "description": "The match as its replay plays it."}})
async def replay_json(request: Request, match_id: MatchId) -> dict[str, Any]:
    """A finished match as the replay page plays it: events with times and omniscient
    sentences, the table after each step, hands, markers and the tell (see docs/protocol.md,
    "Replays"). Signals only of the pairs that allow it and no longer give them
    (``signals_withheld`` names the others; ``signals_in_force`` those still in force)."""
    found, withheld, in_force = await _finished(request, match_id)
    return {**replay_view(found, withheld), "signals_in_force": sorted(in_force)}


@router.get("/api/replays/{match_id}/record", response_class=Response, responses=refusals("replay_record") | {
    200: {"content": {"application/json": {"schema": {"type": "object"}}},
          "description": "The match record as the replay shows it, a download."}})
async def replay_record(request: Request, match_id: MatchId) -> Response:
    """The finished match's record with the signal agreements of the pairs that allow it and no
    longer give them (``meta.signals_withheld`` names the others), as a download."""
    found, withheld, in_force = await _finished(request, match_id)
    record = revealed_record(found, withheld)
    if in_force:
        record.meta = {**record.meta, "signals_in_force": sorted(in_force)}
    return Response(record.to_json(), media_type="application/json", headers={
        "Content-Disposition": f'attachment; filename="kemps-match-{found["id"]}.json"'})


@router.post("/api/rooms/{code}/reveal", response_model=None,
             responses=refusals("reveal") | {200: {"model": RevealAnswer,
                                                      "description": "The choice as stored."}})
async def reveal(request: Request, code: RoomCode, body: RevealBody,
                 authorization: Authorization = None) -> dict[str, Any]:
    """(A seat of the pair) show or withhold the pair's signals in the replay of a match of the
    room: open while that match is played, once it ended and while the next match is played."""
    server = request.app.state.server
    room = await server.open_room(code)
    seat = room.require_seat(_token(authorization))
    current = room.match_no
    match_no = body.match_no if body.match_no is not None else current
    open_now = match_no == current and room.status in ("playing", "finished")
    previous = match_no == current - 1 and room.status == "playing"
    if not (open_now or previous):
        raise ServerError("reveal_closed", "A pair chooses for the match being played, the one "
                          "just finished, or the one before the match being played; that one "
                          "is settled.", 409)
    pair = seat % room.rules.pairs
    await reveal_storage.set_reveal(server.storage, room.code, match_no, pair, body.reveal, seat)
    return {"room": room.code, "match_no": match_no, "pair": pair, "reveal": body.reveal}


__all__ = ["ReplayAnswer", "RevealBody", "in_force_pairs", "replay_view", "revealed_record",
           "router", "withheld_for"]
