"""The JSON API's request bodies as pydantic models: their JSON Schema is what ``/openapi.json``
declares, and they are what the routes validate (a body of another shape is answered 422 with the
shared error body; see :mod:`kemps.server.api`).

Every text field goes through :func:`kemps.text.Text` (clean Unicode, a length in characters).
The models check shapes, types and ranges; what depends on more than one field or on stored state
(an option combination, a player named in a hand, a team's name twice) is checked by the rules,
the scorekeeper and the desk, and refused with 400 and their codes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from kemps import bots
from kemps.rules import MAX_PAIRS, RuleSet, find_preset, preset_names
from kemps.scorekeeper.match import MAX_NAME as MAX_PLAYER_NAME
from kemps.scorekeeper.match import MAX_NOTE, SHEET_CALLS
from kemps.text import TEXT_PATTERN, CleanText
from kemps.tournament.model import MAX_NAME as MAX_TEAM_NAME
from kemps.tournament.model import MAX_TEAMS

MAX_HANDS = 2000  # hands on one scoresheet (a match of 999 decided hands and its real deals)
MAX_EVENT_NAME = 200
PRESET_NAMES = sorted({n for name, aliases in preset_names().items() for n in (name, *aliases)})

Name = Annotated[str, CleanText(MAX_PLAYER_NAME, 1, "name", ("Alice",))]
PlayerName = Annotated[str, CleanText(MAX_PLAYER_NAME, 1, "player's name", ("Alice",))]
TeamName = Annotated[str, CleanText(MAX_TEAM_NAME, 1, "team's name", ("Sharks",))]
Note = Annotated[str, CleanText(MAX_NOTE, 0, "note")]
Title = Annotated[str, CleanText(MAX_NOTE, 0, "title", ("Club night, table 2",))]
Word = Annotated[str, CleanText(40, 1, "word", ("Kent",))]
Preset = Annotated[str, WithJsonSchema({"type": "string", "enum": PRESET_NAMES,
                                        "description": "a preset or alias (GET /api/presets)",
                                        "examples": ["pagat", "kent"]})]
BotLevel = Annotated[str, CleanText(20, 1, "bot level"),
                     WithJsonSchema({"type": "string", "enum": list(bots.LEVELS),
                                     "description": "a bot level, weakest first",
                                     "examples": ["simple"]})]
Seconds = Annotated[float, Field(ge=0, le=600)]


def _whole(value: Any) -> Any:
    """JSON's ``3.0`` is the whole number 3 (as JSON Schema's ``integer`` counts it)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WHOLE = BeforeValidator(_whole)  # after int's own checks are set up: strict, no "3", no true
_STRICT = ConfigDict(extra="forbid", strict=True)


class RuleOptions(BaseModel):
    """Rule options changed on top of a preset (docs/rules.md; ``null`` or left out: the
    preset's value). Options that only make sense together (e.g. ``immune_while_holding`` needs
    ``hold_limit_s`` > 0) are checked by the rules: ``bad_option`` (400)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"double_calls": True, "word": "KENT", "call_word": "Kent"}]})
    name: Word | None = Field(default=None, description="ignored: follows from the preset")
    pairs: Annotated[int, Field(ge=2, le=MAX_PAIRS), WHOLE] | None = None
    decks: Literal["auto", 1, 2] | None = None
    heard_signals: bool | None = None
    table_chat: bool | None = None
    table_talk: Literal["forbidden", "allowed"] | None = None
    fake_signals: Literal["allowed", "banned"] | None = None
    attention: bool | None = None
    dealer: Literal["rotate_left", "fixed", "non_playing"] | None = None
    start: Literal["on_deal", "on_go", "countdown"] | None = None
    start_countdown_s: Seconds | None = None
    multi_swap: bool | None = None
    hold_limit_s: Seconds | None = None
    immune_while_holding: bool | None = None
    sweep: Literal["any_player_unless_objection", "all_agree", "dealer_only"] | None = None
    sweep_countdown_s: Seconds | None = None
    idle_sweep_s: Seconds | None = None
    objection_s: Annotated[float, Field(ge=1, le=60)] | None = None
    stock_exhausted: Literal["real_deal", "reshuffle_swept"] | None = None
    stop_target: Literal["pair", "player"] | None = None
    stop_scope: Literal["any", "opposite"] | None = None
    right_kemps_letters: Literal["every_other_pair", "one_pair"] | None = None
    wrong_call_ends_round: bool | None = None
    double_calls: bool | None = None
    double_right: Annotated[int, Field(ge=1, le=5), WHOLE] | None = None
    double_wrong: Annotated[int, Field(ge=1, le=5), WHOLE] | None = None
    double_stop_on: Literal["four_of_a_kind", "two_of_a_kind"] | None = None
    scoring: Literal["letters", "points"] | None = None
    word: Annotated[str, Field(pattern=r"^[A-Z]{2,12}$")] | None = None
    # letters that lose (the engine checks it against the word) or points that win (up to 999)
    target: Annotated[int, Field(ge=0, le=999), WHOLE] | None = None
    hands: Annotated[int, Field(ge=0, le=999), WHOLE] | None = None
    call_word: Word | None = None
    stop_word: Word | None = None

    def changes(self) -> dict[str, Any]:
        """The options given (not ``null``), as ``RuleSet.replace`` takes them."""
        return {k: v for k, v in self.model_dump(exclude_none=True).items()}


#: What an online table plays that the presets (and so the records of matches played by them) do
#: not: issue 11, "a new option, ``attention``, on by default at online tables, off keeps today's
#: game". A room asks for ``"options": {"attention": false}`` to play without it.
ONLINE_DEFAULTS: dict[str, Any] = {"attention": True}


class RulesBody(BaseModel):
    """A preset and option changes: ``{"preset": "kent", "pairs": 3, "options": {...}}``."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"preset": "kent", "pairs": 2, "options": {"double_calls": True}}]})
    preset: Preset = "pagat"
    pairs: Annotated[int, Field(ge=2, le=MAX_PAIRS), WHOLE] | None = None
    options: RuleOptions = Field(default_factory=RuleOptions)

    def rule_set(self) -> RuleSet:
        """The rule set asked for: the preset with the online tables' defaults
        (:data:`ONLINE_DEFAULTS`: ``attention`` on) and the options given on top. The preset keeps
        its name unless an option is given. Raises RuleError ``unknown_preset`` / ``bad_option``."""
        rules = find_preset(self.preset)
        changes = self.options.changes()
        changes.pop("name", None)  # the rule set's name follows from the preset and changes
        name = rules.name if not changes else "custom"
        online = {k: v for k, v in ONLINE_DEFAULTS.items() if k not in changes}
        if self.pairs is not None:
            changes["pairs"] = self.pairs
        return rules.replace(name=name, **online, **changes)


class CreateBody(RulesBody):
    """Create a room and sit at seat 0 as its host: ``{"name": "Alice", "preset": "pagat"}``."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"name": "Alice", "preset": "kent", "pairs": 2,
                      "options": {"double_calls": True}}]})
    name: Name


class SeatBody(BaseModel):
    """Take a seat: ``{"seat": 2, "name": "Cara"}`` (seats 0 to 2 * pairs - 1)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"seat": 2, "name": "Cara"}]})
    seat: Annotated[int, Field(ge=0, le=2 * MAX_PAIRS - 1), WHOLE]
    name: Name


class SpectatorsBody(BaseModel):
    """Let spectators watch or not: ``{"allowed": false}``."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"examples": [{"allowed": False}]})
    allowed: bool


class BotBody(BaseModel):
    """Seat a bot, or fill every open seat: ``{"seat": 1, "level": "simple"}`` /
    ``{"fill": true}``; ``speed`` (``relaxed``, ``club``, ``sharp``) sets the room's bot speed
    too (alone as well: ``{"speed": "club"}``)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"seat": 1, "level": "simple"}, {"fill": True, "level": "club",
                                                      "speed": "relaxed"}]})
    seat: Annotated[int, Field(ge=0, le=2 * MAX_PAIRS - 1), WHOLE] | None = None
    level: BotLevel = "simple"
    fill: bool = False
    speed: Annotated[str, CleanText(20, 1, "bot speed"),
                     WithJsonSchema({"type": "string", "enum": list(bots.SPEEDS),
                                          "description": "the room's bot speed (reaction times), "
                                          "slowest first"})] | None = None


# -- the desk ---------------------------------------------------------------------------------------
TwoPlayers = Annotated[list[PlayerName], Field(min_length=2, max_length=2)]
PairRef = PlayerName | Annotated[int, Field(ge=0, le=MAX_PAIRS - 1), WHOLE]


class NamedPair(BaseModel):
    """A pair with a name: ``{"name": "Sharks", "players": ["Alice", "Cara"]}``."""

    model_config = _STRICT
    name: TeamName | None = None
    players: TwoPlayers


class HandBody(BaseModel):
    """One hand of a scoresheet (docs/scoresheet.md): ``{"call": "kemps", "by": "Alice",
    "right": true}``. ``on`` and ``letters_to`` name a player or a pair (its name, a player of it,
    or its number from 0). Which fields a call needs is checked by the scorekeeper (400)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"call": "kemps", "by": "Alice", "on": "Cara", "right": True},
                     {"call": "real_deal"}]})
    call: Literal[SHEET_CALLS]  # type: ignore[valid-type]  # the tuple of sheet calls
    by: PlayerName | None = None
    on: PairRef | None = None
    right: bool | None = None
    letters_to: PairRef | None = None
    note: Note | None = None

    def entry(self) -> dict[str, Any]:
        """The hand as the scorekeeper reads it (fields left out stay out)."""
        return self.model_dump(exclude_none=True)


class SheetBody(BaseModel):
    """A scoresheet (docs/scoresheet.md) to create or import; an exported sheet's ``result`` is
    ignored and worked out again."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [{
        "title": "Club night, table 2", "preset": "squarescores",
        "pairs": [["Alice", "Cara"], ["Ben", "Dev"]],
        "hands": [{"call": "kemps", "by": "Alice", "on": "Cara", "right": True}]}]})
    format: Literal["kemps-scoresheet"] = "kemps-scoresheet"
    version: Literal[1] = 1
    title: Title | None = None
    preset: Preset | None = None
    options: RuleOptions | None = None
    pairs: Annotated[list[TwoPlayers | NamedPair], Field(min_length=2, max_length=6)]
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


class TeamBody(BaseModel):
    """A team: ``{"name": "Sharks", "players": ["Ben", "Dev"]}`` (no name: ``"Ben & Dev"``)."""

    model_config = _STRICT
    name: TeamName | None = None
    players: TwoPlayers


TeamText = Annotated[str, CleanText(2 * MAX_PLAYER_NAME + MAX_TEAM_NAME + 8, 1, "team",
                ("Alice & Cara", "Sharks: Ben & Dev",))]


class SettingsBody(BaseModel):
    """S2's settings, agreed before match one: ``{"letters": 3, "fake_signals": "allowed",
    "go_start": false, "one_card": false}`` (left out: unchanged)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"letters": 3, "fake_signals": "banned"}]})
    letters: Annotated[int, Field(ge=1, le=5), WHOLE] | None = None
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
    teams: Annotated[list[TeamText | TeamBody], Field(min_length=2, max_length=MAX_TEAMS)]
    tables: Annotated[int, Field(ge=1, le=MAX_TEAMS), WHOLE] | None = None
    seed: Annotated[int, Field(ge=0, le=2**31 - 1), WHOLE] | None = None


_LETTERS_BY_TEAM = {"type": "object", "minProperties": 2, "maxProperties": 2,
                    "propertyNames": {"type": "string", "minLength": 1,
                                      "maxLength": 2 * MAX_PLAYER_NAME + MAX_TEAM_NAME + 8,
                                      "pattern": TEXT_PATTERN},
                    "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 12},
                    "description": "letters by team (its name or one of its players)"}
Letters = Annotated[int, Field(ge=0, le=12), WHOLE]


class LettersResult(BaseModel):
    """A match's result from each team's letters: ``{"letters": [home, away]}`` or ``{"letters":
    {team: n, team: n}}``; ``"loser"`` only for a match lost by table talk (a team, or 0 = home /
    1 = away); ``"replace": true`` corrects a recorded result."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [
        {"letters": [3, 1]}, {"letters": {"Sharks": 2, "Alice & Cara": 3}, "replace": True}]})
    letters: (Annotated[list[Letters], Field(min_length=2, max_length=2)]
              | Annotated[dict[TeamText, Letters], Field(min_length=2, max_length=2),
                          WithJsonSchema(_LETTERS_BY_TEAM)])
    loser: TeamText | Literal[0, 1] | None = None
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
    team: TeamText


__all__ = [
    "ONLINE_DEFAULTS",
    "BotBody",
    "CreateBody",
    "HandBody",
    "LettersResult",
    "ResultBody",
    "RuleOptions",
    "RulesBody",
    "SeatBody",
    "SettingsBody",
    "SheetBody",
    "SheetResult",
    "TeamBody",
    "TournamentBody",
    "WithdrawBody",
]
