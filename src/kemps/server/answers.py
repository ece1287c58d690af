"""What the JSON API answers on success, as pydantic models for ``/openapi.json`` and ``/docs``.

They describe; they do not filter: routes return their dicts as before, and the API test
(Schemathesis's ``response_schema_conformance``, in CI) checks every answer against these models,
so the schema and the code cannot drift apart. Every model allows fields it does not name (a new
field added by the server keeps old clients and the schema valid); the fields it names are
required and typed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

_OPEN = ConfigDict(extra="allow")

_ROOM_EXAMPLE: dict[str, Any] = {
    "code": "K7QMX", "status": "lobby", "match_no": 0, "protocol": 1,
    "rules": {"name": "kent", "pairs": 2, "word": "KENT", "call_word": "Kent"},
    "host_seat": 0, "last_match_id": None,
    "seats": [{"seat": 0, "pair": 0, "partner": 2, "name": "Alice", "kind": "human",
               "level": None, "ready": False, "connected": True},
              {"seat": 1, "pair": 1, "partner": 3, "name": "", "kind": "open", "level": None,
               "ready": False, "connected": False}],
    "deal_at": None, "now": 0.0}


class SeatAnswer(BaseModel):
    """One seat of a room: who sits there (``kind`` open, human or bot) and whether they are
    connected and ready."""

    model_config = _OPEN
    seat: int
    pair: int
    partner: int
    name: str
    kind: Literal["open", "human", "bot"]
    level: str | None
    ready: bool
    connected: bool


class RoomAnswer(BaseModel):
    """A room's public state (no tokens, no cards). ``deal_at`` and ``now`` are table seconds."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [_ROOM_EXAMPLE]})
    code: str
    status: Literal["lobby", "playing", "finished"]
    match_no: int
    protocol: int
    rules: dict[str, Any] = Field(description="every rule option (docs/rules.md)")
    host_seat: int | None
    last_match_id: int | None
    seats: list[SeatAnswer]
    deal_at: float | None
    now: float


class JoinedAnswer(BaseModel):
    """A seat taken: its ``token`` is the only way to act for it (``Authorization: Bearer``)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [
        {"code": "K7QMX", "seat": 0, "token": "0f3c...", "room": _ROOM_EXAMPLE}]})
    code: str
    seat: int
    token: str
    room: RoomAnswer


class TableListed(BaseModel):
    """One open table (kemps.server.tables.entry)."""

    model_config = _OPEN
    code: str
    preset: str
    pairs: int
    seats: int
    seats_free: int
    open: int
    players: list[str]
    bots: list[str]
    status: str
    phase: str
    joinable: bool
    listed_at: float


class TablesAnswer(BaseModel):
    """The open tables, oldest listing first, at most ``max``."""

    model_config = _OPEN
    tables: list[TableListed]
    max: int


class RefereeAnswer(BaseModel):
    """The referee's seat taken: its ``token`` connects to ``/ws/{code}?token=`` as the dealer
    who is not playing (it says Go and sweeps; it sees every hand and gesture)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [
        {"code": "K7QMX", "referee": True, "token": "0f3c...", "room": _ROOM_EXAMPLE}]})
    code: str
    referee: bool
    token: str
    room: RoomAnswer


class PresetsAnswer(BaseModel):
    """Every preset (with aliases, every option and a one-line note), the rule options' schema
    (kind, choices or limits, group, description, seed), the most pairs a table seats, the
    gesture palette, the bot levels, and the options an online room plays unless told otherwise
    (``online_defaults``: ``attention`` on)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [
        {"presets": {"kent": {"aliases": ["kent"], "rules": {"word": "KENT"},
                              "note": "Kent: call \"Kent\", the word is K-E-N-T."}},
         "options": {"pairs": {"kind": "int", "min": 2, "max": 12, "group": "Table",
                               "description": "Pairs at the table; partners sit opposite.",
                               "seed": "S1, S2"}},
         "max_pairs": 12,
         "gestures": {"touch_ear": {"kind": "seen", "label": "Touch your ear"}},
         "bot_levels": ["simple", "casual", "club", "sharp"], "protocol": 1,
         "online_defaults": {"attention": True}}]})
    presets: dict[str, dict[str, Any]]
    options: dict[str, dict[str, Any]]
    max_pairs: int
    gestures: dict[str, dict[str, Any]]
    bot_levels: list[str]
    protocol: int
    online_defaults: dict[str, Any] = {}


class MatchListed(BaseModel):
    """A finished match in the list: rules, names and the per-hand summary, without its record."""

    model_config = _OPEN
    id: int
    room: str
    match_no: int
    finished_at: float
    rules: dict[str, Any]
    names: list[str]
    summary: dict[str, Any]


class HistoryAnswer(BaseModel):
    """Finished matches, newest first."""

    model_config = _OPEN
    matches: list[MatchListed]


class MatchAnswer(MatchListed):
    """One finished match with its match record (docs/record-format.md), without the pairs'
    signal agreements (``signals_withheld``)."""

    record: dict[str, Any]
    signals_withheld: bool


class SheetAnswer(BaseModel):
    """A scoresheet's view: the stored sheet, its standings (``summary``), every hand scored
    (``history``), the pairs and the full rules (``last`` / ``undone``: the hand just recorded or
    taken back)."""

    model_config = _OPEN
    id: int
    created_at: float
    updated_at: float
    title: str | None
    tournament_id: int | None
    match_id: str | None
    sheet: dict[str, Any]
    summary: dict[str, Any]
    history: list[dict[str, Any]]
    pairs: list[dict[str, Any]]
    rules: dict[str, Any]


class SheetListed(BaseModel):
    """A stored scoresheet in the list."""

    model_config = _OPEN
    id: int
    title: str | None
    pairs: list[str]
    hands: int
    over: bool
    updated_at: float
    tournament_id: int | None
    match_id: str | None


class SheetsAnswer(BaseModel):
    """Stored scoresheets, most recently changed first."""

    model_config = _OPEN
    sheets: list[SheetListed]


class TournamentAnswer(BaseModel):
    """A tournament's view: its state (``Tournament.to_dict``: teams, schedule, standings), the
    rooms playing its matches and its scoresheets (``forfeited`` after a withdrawal)."""

    model_config = _OPEN
    id: int
    created_at: float
    updated_at: float
    tournament: dict[str, Any]
    rooms: list[dict[str, Any]]
    sheets: list[dict[str, Any]]


class TournamentListed(BaseModel):
    """A stored tournament in the list."""

    model_config = _OPEN
    id: int
    name: str | None
    teams: int
    champion: str | None
    updated_at: float


class TournamentsAnswer(BaseModel):
    """Stored tournaments, most recently changed first."""

    model_config = _OPEN
    tournaments: list[TournamentListed]


class OnlineAnswer(BaseModel):
    """A room for a tournament match: its code, its page, the link, and which seats each team
    takes (home: seats 1 and 3, away: 2 and 4)."""

    model_config = _OPEN
    code: str
    url: str
    link: dict[str, Any]
    home: dict[str, Any]
    away: dict[str, Any]


class HealthAnswer(BaseModel):
    """Whether this server can take play now (``status`` ok; ``storage_unavailable`` or, with
    many nodes, ``redis_unavailable``, each with a 503, so a load balancer sends no one), what it holds (``rooms``, ``players``: connections to its tables), and with many nodes
    (``KEMPS_REDIS_URL``) this ``node``, whether it is ``draining``, and the ``cluster``'s nodes
    and totals from their heartbeats in Redis (each a second old at most)."""

    model_config = _OPEN
    status: Literal["ok", "storage_unavailable", "redis_unavailable"]
    rooms: int
    players: int
    node: str | None
    draining: bool
    cluster: dict[str, Any] | None


def answer(model: type[BaseModel], status: int = 200, description: str = "",
           links: dict[str, Any] | None = None) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` entry that declares a route's success answer as ``model``."""
    out: dict[str, Any] = {"model": model, "description": description or
                           (model.__doc__ or "").strip().split("\n\n")[0]}
    if links:
        out["links"] = links
    return {status: out}


__all__ = ["HealthAnswer", "HistoryAnswer", "JoinedAnswer", "MatchAnswer", "OnlineAnswer", "PresetsAnswer",
           "RoomAnswer", "SheetAnswer", "SheetsAnswer", "TournamentAnswer", "TournamentsAnswer",
           "answer"]
