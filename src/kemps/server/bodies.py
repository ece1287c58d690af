"""The JSON API's request bodies as pydantic models: their JSON Schema is what ``/openapi.json``
declares, and they are what the routes validate (a body of another shape is answered 422 with the
shared error body; see :mod:`kemps.server.api`).

Every text field goes through :func:`kemps.text.Text` (clean Unicode, a length in characters).
The models check everything JSON Schema can say, and their schema says exactly what they check
(a body the schema allows is never refused 422; the one exception is a lone surrogate in a text,
which an ECMA pattern cannot name without refusing every emoji): shapes, types, ranges from the rules where they
are static, names with a character other than spaces, two players of a pair or a team who differ,
teams listed once, which fields each kind of scoresheet hand takes. What depends on more than one
field in a way JSON Schema cannot state, or on stored state (an option combination, a player
named in a hand, a team's name twice in another spelling), is checked by the rules, the
scorekeeper and the desk, and refused with 400 and their codes; each route lists those refusals
(:data:`kemps.server.api.WHY_400`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    create_model,
    model_validator,
)

from kemps import bots
from kemps.errors import RuleError
from kemps.rule_options import BY_NAME, Option
from kemps.rules import MAX_PAIRS, RuleSet, find_preset, preset_names
from kemps.scorekeeper.match import MAX_NAME as MAX_PLAYER_NAME
from kemps.scorekeeper.match import MAX_NOTE, SHEET_CALLS
from kemps.text import VISIBLE_PATTERN, CleanText
from kemps.tournament.model import BASE_PRESET as TOURNAMENT_PRESET
from kemps.tournament.model import MAX_NAME as MAX_TEAM_NAME
from kemps.tournament.model import MAX_TEAMS

MAX_HANDS = 2000  # hands on one scoresheet (a match of 999 decided hands and its real deals)
MAX_EVENT_NAME = 200
PRESET_NAMES = sorted({n for name, aliases in preset_names().items() for n in (name, *aliases)})

#: Letters a tournament match can end with: its word's letters (S2: the final is played to the
#: whole word, short matches to fewer).
MAX_TOURNAMENT_LETTERS = len(find_preset(TOURNAMENT_PRESET).word)

Name = Annotated[str, CleanText(MAX_PLAYER_NAME, 1, "name", ("Alice",), visible=True)]
PlayerName = Annotated[str, CleanText(MAX_PLAYER_NAME, 1, "player's name", ("Alice",),
                                      visible=True)]
TeamName = Annotated[str, CleanText(MAX_TEAM_NAME, 1, "team's name", ("Sharks",), visible=True)]
Note = Annotated[str, CleanText(MAX_NOTE, 0, "note")]
Title = Annotated[str, CleanText(MAX_NOTE, 0, "title", ("Club night, table 2",))]
Word = Annotated[str, CleanText(40, 1, "word", ("Kent",), visible=True)]
StopWord = Annotated[str, CleanText(40, 1, "word", ("Stop Kent",), visible=True)]
#: A browser's private player key (issue 32, kemps.server.players): the seat is then remembered
#: as that player's (rated); left out, a guest's.
PlayerKey = Annotated[str, Field(min_length=32, max_length=128, pattern=r"^[A-Za-z0-9_-]+$",
                                 description="the browser's private player key (the server "
                                 "keeps only its hash and the public player id)")]


def _known_preset(name: str) -> str:
    if name not in PRESET_NAMES:  # as the schema's enum says (the rules' own lookup is looser)
        raise ValueError("not a preset or alias (GET /api/presets)")
    return name


Preset = Annotated[str, AfterValidator(_known_preset),
                   WithJsonSchema({"type": "string", "enum": PRESET_NAMES,
                                   "description": "a preset or alias (GET /api/presets)",
                                   "examples": ["pagat", "kent"]})]
BotLevel = Literal[bots.LEVELS]  # type: ignore[valid-type]  # the tuple of levels, weakest first
BotSpeed = Literal[bots.SPEEDS]  # type: ignore[valid-type]  # the tuple of speeds, slowest first
# 0 (off) or at least a second (the rules: a dealer sweeping every few milliseconds is a storm)
IdleSweep = Annotated[float, Field(ge=0, le=600), WithJsonSchema({"anyOf": [
    {"type": "number", "enum": [0]}, {"type": "number", "minimum": 1, "maximum": 600}]})]


def _whole(value: Any) -> Any:
    """JSON's ``3.0`` is the whole number 3 (as JSON Schema's ``integer`` counts it)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WHOLE = BeforeValidator(_whole)  # after int's own checks are set up: strict, no "3", no true
_STRICT = ConfigDict(extra="forbid", strict=True)


def _no_repeats(items: Any) -> Any:
    """JSON Schema's ``uniqueItems``, checked as it says: no two items of the JSON array equal as
    JSON values (before the items become models, which would make ``{"players": [...]}`` and
    ``{"name": null, "players": [...]}`` equal; the arrays it guards hold only text and objects
    of text, where Python's equality is JSON's)."""
    if isinstance(items, list):
        seen: list[Any] = []
        for item in items:
            if item in seen:
                raise ValueError("the items must differ (each one once)")
            seen.append(item)
    return items


UNIQUE = (BeforeValidator(_no_repeats), Field(json_schema_extra={"uniqueItems": True}))


def _idle_sweep(value: float) -> float:
    if 0 < value < 1:
        raise ValueError("idle_sweep_s is 0 (off) or at least 1 second")
    return value


class _RuleOptionsBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"double_calls": True, "word": "KENT", "call_word": "Kent"}]})

    def changes(self) -> dict[str, Any]:
        """The options given (not ``null``), as ``RuleSet.replace`` takes them."""
        return {k: v for k, v in self.model_dump(exclude_none=True).items()}


#: What JSON Schema says of an option beyond its kind and limits (the rules' own checks of it).
_OPTION_TYPES: dict[str, Any] = {
    "idle_sweep_s": Annotated[IdleSweep, AfterValidator(_idle_sweep)],
    "word": Annotated[str, Field(pattern=r"^[A-Z]{2,12}$")],
    "call_word": Word,
    "stop_word": StopWord,
}


def _option_type(option: Option) -> Any:
    """The body's type for one rule option, from its declaration (:mod:`kemps.rule_options`)."""
    if option.name in _OPTION_TYPES:
        return _OPTION_TYPES[option.name]
    if option.kind == "choice":
        words = Literal[tuple(c for c in option.choices if isinstance(c, str))]  # type: ignore[valid-type]
        counts = sorted(c for c in option.choices if isinstance(c, int))
        if counts:  # not Literal[1, 2]: Python's True == 1 would let ``true`` through as 1
            return words | Annotated[int, Field(ge=counts[0], le=counts[-1]), WHOLE]
        return words
    if option.kind == "bool":
        return bool
    if option.kind == "seconds":
        return Annotated[float, Field(ge=option.low, le=option.high)]
    if option.kind == "int":
        return Annotated[int, Field(ge=option.low, le=option.high), WHOLE]
    return Annotated[str, CleanText(option.max_length, 1, option.name)]


_RULE_OPTIONS_DOC = """Rule options changed on top of a preset (docs/rules.md; ``null`` or left out: the
    preset's value). Options that only make sense together (e.g. ``immune_while_holding`` needs
    ``hold_limit_s`` > 0) are checked by the rules: ``bad_option`` (400)."""

if TYPE_CHECKING:
    class RuleOptions(_RuleOptionsBody):
        """Every rule option of :mod:`kemps.rule_options`, each optional."""
else:
    # One field per rule option in the rule set's order, typed from the option's declaration.
    RuleOptions = create_model(
        "RuleOptions", __base__=_RuleOptionsBody, __doc__=_RULE_OPTIONS_DOC, __module__=__name__,
        name=(Word | None, Field(default=None, description="ignored: follows from the preset")),
        **{f.name: (_option_type(BY_NAME[f.name]) | None, None)
           for f in dataclasses.fields(RuleSet) if f.name in BY_NAME})


#: What an online table plays that the presets (and so the records of matches played by them) do
#: not: issue 11, "a new option, ``attention``, on by default at online tables, off keeps today's
#: game". A room asks for ``"options": {"attention": false}`` to play without it.
ONLINE_DEFAULTS: dict[str, Any] = {"attention": True}


class RulesBody(BaseModel):
    """A preset and option changes: ``{"preset": "kent", "pairs": 3, "options": {...}}``;
    ``"camera": true`` makes a camera table (issue 24; left out: as the room is, a new room
    none)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"preset": "kent", "pairs": 2, "options": {"double_calls": True}},
                     {"preset": "pagat", "camera": True}]})
    preset: Preset = "pagat"
    pairs: Annotated[int, Field(ge=2, le=MAX_PAIRS), WHOLE] | None = None
    options: RuleOptions = Field(default_factory=RuleOptions)
    camera: bool | None = Field(default=None, description="a camera table: the seated people "
                                "play on video, their signals are real (no palette), each pair's "
                                "huddle is private; attention is off (docs/camera.md)")

    def rule_set(self, camera: bool = False) -> RuleSet:
        """The rule set asked for: the preset with the online tables' defaults
        (:data:`ONLINE_DEFAULTS`: ``attention`` on) and the options given on top. The preset keeps
        its name unless an option is given. At a ``camera`` table attention is off: people look
        where they look, and the server cannot see it. Raises RuleError ``unknown_preset`` /
        ``bad_option`` (also for ``attention`` asked for at a camera table)."""
        rules = find_preset(self.preset)
        changes = self.options.changes()
        changes.pop("name", None)  # the rule set's name follows from the preset and changes
        if camera and changes.get("attention"):
            raise RuleError("bad_option", "Attention is off at a camera table: the players look "
                            "where they look, on their own screens.")
        name = rules.name if not changes else "custom"
        defaults = {**ONLINE_DEFAULTS, "attention": False} if camera else ONLINE_DEFAULTS
        online = {k: v for k, v in defaults.items() if k not in changes}
        if self.pairs is not None:
            changes["pairs"] = self.pairs
        return rules.replace(name=name, **online, **changes)


class CreateBody(RulesBody):
    """Create a room and sit at seat 0 as its host: ``{"name": "Alice", "preset": "pagat"}``."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"name": "Alice", "preset": "kent", "pairs": 2,
                      "options": {"double_calls": True}}]})
    name: Name
    player_key: PlayerKey | None = None
    listed: bool = Field(default=False, description="list the room at GET /api/tables (an "
                         "open table anyone may join); the host may change it later")


class SeatBody(BaseModel):
    """Take a seat: ``{"seat": 2, "name": "Cara"}`` (seats 0 to 2 * pairs - 1)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"seat": 2, "name": "Cara"}]})
    seat: Annotated[int, Field(ge=0, le=2 * MAX_PAIRS - 1), WHOLE]
    name: Name
    player_key: PlayerKey | None = None


class RefereeBody(BaseModel):
    """Sit as the table's referee, the dealer who is not playing (S2 tournament row 7):
    ``{"name": "Rita"}``."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"name": "Rita"}]})
    name: Name


class SpectatorsBody(BaseModel):
    """Let spectators watch or not: ``{"allowed": false}``."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"examples": [{"allowed": False}]})
    allowed: bool


_SOMETHING_TO_DO: dict[str, Any] = {"anyOf": [
    {"required": ["seat"], "properties": {"seat": {"type": "integer"}}},
    {"required": ["fill"], "properties": {"fill": {"const": True}}},
    {"required": ["speed"], "properties": {"speed": {"type": "string"}}}]}


class BotBody(BaseModel):
    """Seat a bot, or fill every open seat: ``{"seat": 1, "level": "simple"}`` /
    ``{"fill": true}``; ``speed`` (``relaxed``, ``club``, ``sharp``) sets the room's bot speed
    too (alone as well: ``{"speed": "club"}``). A body with none of a ``seat``, ``"fill": true``
    or a ``speed`` asks for nothing: 422."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"seat": 1, "level": "simple"}, {"fill": True, "level": "club",
                                                      "speed": "relaxed"}],
        **_SOMETHING_TO_DO})
    seat: Annotated[int, Field(ge=0, le=2 * MAX_PAIRS - 1), WHOLE] | None = None
    level: BotLevel = Field(default="simple", description="a bot level, weakest first")
    fill: bool = False
    speed: BotSpeed | None = Field(default=None, description="the room's bot speed (reaction "
                                   "times), slowest first")

    @model_validator(mode="after")
    def _asks_for_something(self) -> BotBody:
        if self.seat is None and not self.fill and self.speed is None:
            raise ValueError("name a seat, ask to fill every open seat, or set the speed")
        return self


class ListedBody(BaseModel):
    """List the room as an open table or not: ``{"listed": true}``."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"examples": [{"listed": True}]})
    listed: bool


class JoinBody(BaseModel):
    """Sit at an open table: ``{"name": "Cara"}`` (the first empty seat, else a bot's), or
    ``{"name": "Cara", "seat": 3}``."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"examples": [{"name": "Cara"}]})
    name: Name
    seat: Annotated[int, Field(ge=0, le=2 * MAX_PAIRS - 1), WHOLE] | None = None
    player_key: PlayerKey | None = None


class QuickBody(BaseModel):
    """Quick match: ``{"name": "Cara", "preset": "pagat"}``."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"examples": [{"name": "Cara",
                                                               "preset": "pagat"}]})
    name: Name
    preset: Preset = "pagat"
    player_key: PlayerKey | None = None


# -- the desk ---------------------------------------------------------------------------------------
TwoPlayers = Annotated[list[PlayerName], Field(min_length=2, max_length=2), *UNIQUE]
PairRef = PlayerName | Annotated[int, Field(ge=0, le=MAX_PAIRS - 1), WHOLE]
PairName = Annotated[str, CleanText(MAX_PLAYER_NAME, 1, "pair's name", ("Sharks",), visible=True)]


class NamedPair(BaseModel):
    """A pair with a name: ``{"name": "Sharks", "players": ["Alice", "Cara"]}``."""

    model_config = _STRICT
    name: PairName | None = None
    players: TwoPlayers


#: The scoresheet's calls that a player makes (the others: ``real_deal``, ``table_talk``).
PLAYER_CALLS = tuple(c for c in SHEET_CALLS if c not in ("real_deal", "table_talk"))


class _Hand(BaseModel):
    note: Note | None = None

    def entry(self) -> dict[str, Any]:
        """The hand as the scorekeeper reads it (fields left out, or null, stay out)."""
        return self.model_dump(exclude_none=True)


class CallHand(_Hand):
    """A call (docs/scoresheet.md): ``{"call": "stop", "by": "Dev", "on": "Alice", "right":
    true}``; ``by`` who called and ``right`` whether it was right are needed, ``on`` names the
    player or pair called on (a player's or pair's name, or the pair's number from 0),
    ``letters_to`` the pair that takes the letter where the rules leave it open. Whether the
    rules need ``on`` or ``letters_to`` here is the scorekeeper's to say (400)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"call": "kemps", "by": "Alice", "right": True},
                     {"call": "stop", "by": "Ben", "on": "Alice", "right": False}]})
    call: Literal[PLAYER_CALLS]  # type: ignore[valid-type]  # the tuple of player calls
    by: PlayerName
    right: bool
    on: PairRef | None = None
    letters_to: PairRef | None = None


class RealDealHand(_Hand):
    """A real deal: nobody scores (``{"call": "real_deal"}``); it names nobody."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"call": "real_deal"}]})
    call: Literal["real_deal"]
    by: None = None
    on: None = None
    right: None = None
    letters_to: None = None


class TableTalkHand(_Hand):
    """A ruling that a pair used table talk and loses the match: ``{"call": "table_talk", "on":
    1}`` (``on``: the pair, or one of its players; ``by``: who asked for the ruling, if
    anyone)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"call": "table_talk", "on": 1}]})
    call: Literal["table_talk"]
    on: PairRef
    by: PlayerName | None = None
    right: None = None
    letters_to: None = None


#: One hand of a scoresheet, by its ``call``: which fields each kind of hand takes is part of the
#: schema (a real deal names nobody; a call needs ``by`` and ``right``; a table-talk ruling ``on``).
HandBody = Annotated[CallHand | RealDealHand | TableTalkHand, Field(discriminator="call")]


class SheetBody(BaseModel):
    """A scoresheet (docs/scoresheet.md) to create or import; an exported sheet's ``result`` is
    ignored and worked out again."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [{
        "title": "Club night, table 2", "preset": "squarescores",
        "pairs": [["Alice", "Cara"], ["Ben", "Dev"]],
        "hands": [{"call": "kemps", "by": "Alice", "on": "Cara", "right": True}]}]})
    format: Literal["kemps-scoresheet"] = "kemps-scoresheet"
    version: Annotated[int, Field(ge=1, le=1), WHOLE] = 1
    title: Title | None = None
    preset: Preset | None = None
    options: RuleOptions | None = None
    pairs: Annotated[list[TwoPlayers | NamedPair], Field(min_length=2, max_length=MAX_PAIRS),
                     *UNIQUE]
    hands: Annotated[list[HandBody], Field(max_length=MAX_HANDS)] = Field(default_factory=list)
    result: dict[str, Any] | None = Field(default=None, description="ignored on import")

    def sheet(self) -> dict[str, Any]:
        """The sheet as the scorekeeper reads it."""
        out: dict[str, Any] = {"format": self.format, "version": self.version,
                               "pairs": [p.model_dump(exclude_none=True)
                                         if isinstance(p, NamedPair) else list(p)
                                         for p in self.pairs],
                               "hands": [h.entry() for h in self.hands]}
        if self.title is not None:
            out["title"] = self.title
        if self.preset is not None:
            out["preset"] = self.preset
        if self.options is not None:
            out["options"] = self.options.changes()
        return out


#: A public player id (kemps.server.players): ``p-`` and 16 hex digits.
PlayerIdText = Annotated[str, Field(pattern=r"^p-[0-9a-f]{16}$", min_length=18, max_length=18)]


class TeamBody(BaseModel):
    """A team: ``{"name": "Sharks", "players": ["Ben", "Dev"]}`` (no name: ``"Ben & Dev"``);
    ``player_ids``: the two players' public ids, in the order of ``players`` (seeding by rating,
    docs/tournament.md)."""

    model_config = _STRICT
    name: TeamName | None = None
    players: TwoPlayers
    player_ids: Annotated[list[PlayerIdText], Field(min_length=2, max_length=2)] | None = None


TeamText = Annotated[str, CleanText(2 * MAX_PLAYER_NAME + MAX_TEAM_NAME + 8, 1, "team",
                                    ("Alice & Cara", "Sharks: Ben & Dev"), visible=True)]
#: A registered team, named by its name or one of its players (at most a team name's length).
TeamRef = Annotated[str, CleanText(max(MAX_TEAM_NAME, MAX_PLAYER_NAME), 1, "team",
                                   ("Sharks", "Ben"), visible=True)]


class SettingsBody(BaseModel):
    """S2's settings, agreed before match one: ``{"letters": 3, "fake_signals": "allowed",
    "go_start": false, "one_card": false}`` (left out: unchanged)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"letters": 3, "fake_signals": "banned"}]})
    letters: Annotated[int, Field(ge=1, le=MAX_TOURNAMENT_LETTERS), WHOLE] | None = None
    fake_signals: Literal["allowed", "banned"] | None = None
    go_start: bool | None = None
    one_card: bool | None = None

    def settings(self) -> dict[str, Any]:
        """The settings given, as ``Tournament.settle`` takes them."""
        return {k: v for k, v in self.model_dump(exclude_none=True).items()
                if k in ("letters", "fake_signals", "go_start", "one_card")}


class TournamentBody(SettingsBody):
    """Register the teams and draw the schedule (docs/tournament.md); only ``teams`` is
    required. ``seed``: the seed of every drawn lot (left out: chosen at random, recorded)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [{
        "name": "Club evening", "teams": ["Alice & Cara", "Sharks: Ben & Dev",
                                          {"name": "Owls", "players": ["Eve", "Finn"]}],
        "tables": 1, "letters": 3, "seed": 42}]})
    name: Annotated[str, CleanText(MAX_EVENT_NAME, 0, "event's name")] | None = None
    teams: Annotated[list[TeamText | TeamBody], Field(min_length=2, max_length=MAX_TEAMS),
                     *UNIQUE]
    tables: Annotated[int, Field(ge=1, le=MAX_TEAMS), WHOLE] | None = None
    seed: Annotated[int, Field(ge=0, le=2**31 - 1), WHOLE] | None = None
    #: Register the teams strongest first, in serpentine order, so that two groups are about as
    #: strong (kemps.server.seeding; docs/tournament.md, "Seeding by rating").
    seed_by_rating: bool = False


_LETTERS_BY_TEAM = {"type": "object", "minProperties": 2, "maxProperties": 2,
                    "propertyNames": {"type": "string", "minLength": 1,
                                      "maxLength": max(MAX_TEAM_NAME, MAX_PLAYER_NAME),
                                      "pattern": VISIBLE_PATTERN},
                    "additionalProperties": {"type": "integer", "minimum": 0,
                                             "maximum": MAX_TOURNAMENT_LETTERS},
                    "description": "letters by team (its name or one of its players)"}
Letters = Annotated[int, Field(ge=0, le=MAX_TOURNAMENT_LETTERS), WHOLE]


class LettersResult(BaseModel):
    """A match's result from each team's letters: ``{"letters": [home, away]}`` or ``{"letters":
    {team: n, team: n}}``; ``"loser"`` only for a match lost by table talk (a team, or 0 = home /
    1 = away); ``"replace": true`` corrects a recorded result."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [
        {"letters": [3, 1]}, {"letters": {"Sharks": 2, "Alice & Cara": 3}, "replace": True}]})
    letters: (Annotated[list[Letters], Field(min_length=2, max_length=2)]
              | Annotated[dict[TeamRef, Letters], Field(min_length=2, max_length=2),
                          WithJsonSchema(_LETTERS_BY_TEAM)])
    loser: TeamRef | Annotated[int, Field(ge=0, le=1), WHOLE] | None = None
    replace: bool = False


class SheetResult(BaseModel):
    """A match's result from a stored scoresheet: ``{"sheet": 7}`` (``"replace": true``
    corrects a recorded result)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"sheet": 7}]})
    sheet: Annotated[int, Field(ge=1, le=2**31 - 1), WHOLE]
    replace: bool = False


ResultBody = LettersResult | SheetResult


class WithdrawBody(BaseModel):
    """Withdraw a team: ``{"team": "Sharks"}`` (its name or one of its players)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"team": "Sharks"}]})
    team: TeamRef


__all__ = [
    "ONLINE_DEFAULTS",
    "BotBody",
    "CallHand",
    "CreateBody",
    "HandBody",
    "LettersResult",
    "RealDealHand",
    "ResultBody",
    "RuleOptions",
    "RulesBody",
    "SeatBody",
    "SettingsBody",
    "SheetBody",
    "SheetResult",
    "TableTalkHand",
    "TeamBody",
    "TournamentBody",
    "WithdrawBody",
]
