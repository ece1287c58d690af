"""The rule set: every option in ../shared/RULES-NOTES.md, validated, and the named presets.

A :class:`RuleSet` is immutable data (python-chess ``variant.py`` style): a preset is a named
instance, :func:`find_preset` resolves a name or alias, and :meth:`RuleSet.replace` changes options on
top of a preset with the whole combination validated again. A bad option or combination raises
:class:`~kemps.errors.RuleError` whose message names the option.

Durations are seconds (float). Counts are ints.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from kemps.errors import RuleError
from kemps.rule_options import (
    MAX_PAIRS,
    OPTIONS,
    Dealer,
    Decks,
    DoubleStopOn,
    FakeSignals,
    RightKempsLetters,
    Scoring,
    Start,
    StockExhausted,
    StopScope,
    StopTarget,
    Sweep,
    TableTalk,
    of_kind,
)

__all__ = ["DEFAULT_PRESET", "MAX_PAIRS", "OPTION_DOCS", "PRESETS", "PRESET_NOTES", "RuleSet",
           "find_preset", "option_schema", "preset_names"]

#: Each option's values (a choice's, from its ``Literal`` in :mod:`kemps.rule_options`).
_CHOICES: Final[dict[str, tuple[object, ...]]] = {
    o.name: o.choices for o in OPTIONS if o.kind == "choice"}
_BOOLS: Final = of_kind("bool")
#: Options added after match-record format 1, with the value that plays the game as it was: a
#: record carries one only when it differs (so a record of such a game is byte for byte as before,
#: and every older record reads as that game).
_LATE_OPTIONS: Final[dict[str, object]] = {"attention": False}
_SECONDS: Final = of_kind("seconds")
_INTS: Final = of_kind("int")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One table's complete rules. Build with a preset and :meth:`replace`; all fields validated.

    Options: each declared once in :data:`kemps.rule_options.OPTIONS` (its values, group, label,
    seeds and meaning; source ../shared/RULES-NOTES.md, "Where they disagree"), tabled in
    docs/rules.md and served at ``GET /api/presets``. Besides them, ``name`` is the preset this
    came from, or ``"custom"`` after changes (display only), and ``aliases`` a preset's other
    names.
    """

    name: str = "custom"
    pairs: int = 2
    decks: Decks = "auto"
    heard_signals: bool = False
    table_chat: bool = True
    table_talk: TableTalk = "forbidden"
    fake_signals: FakeSignals = "allowed"
    attention: bool = False
    dealer: Dealer = "fixed"
    start: Start = "on_deal"
    start_countdown_s: float = 3.0
    multi_swap: bool = True
    hold_limit_s: float = 0.0
    immune_while_holding: bool = False
    sweep: Sweep = "any_player_unless_objection"
    sweep_countdown_s: float = 3.0
    idle_sweep_s: float = 10.0
    stock_exhausted: StockExhausted = "real_deal"
    stop_target: StopTarget = "pair"
    stop_scope: StopScope = "any"
    objection_s: float = 5.0
    right_kemps_letters: RightKempsLetters = "every_other_pair"
    wrong_call_ends_round: bool = True
    double_calls: bool = False
    double_right: int = 2
    double_wrong: int = 2
    double_stop_on: DoubleStopOn = "four_of_a_kind"
    scoring: Scoring = "letters"
    word: str = "KEMPS"
    target: int = 0
    hands: int = 0
    call_word: str = "Kemps"
    stop_word: str = "Stop Kemps"
    aliases: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        self._validate()

    # -- derived values ---------------------------------------------------------------------
    @property
    def players(self) -> int:
        """Number of seats: two per pair."""
        return 2 * self.pairs

    @property
    def deck_count(self) -> int:
        """Decks actually used: ``decks``, or for ``"auto"`` 1 up to eight players, else 2."""
        if self.decks == "auto":
            return 1 if self.players <= 8 else 2
        return int(self.decks)

    @property
    def losing_letters(self) -> int:
        """Letters that put a pair out (letters scoring): ``target`` or the whole word."""
        return self.target or len(self.word)

    @property
    def double_call_word(self) -> str:
        """Display word for Double Kemps at this table."""
        return f"Double {self.call_word}"

    @property
    def double_stop_word(self) -> str:
        """Display word for double Stop Kemps at this table."""
        return f"Double {self.stop_word}"

    # -- changes and serialisation ------------------------------------------------------------
    def replace(self, **changes: Any) -> RuleSet:
        """A new rule set with ``changes`` applied and validated; ``name`` becomes ``"custom"``
        unless given.

        Raises:
            RuleError: ``bad_option`` for an unknown option or a bad value/combination.
        """
        known = {f.name for f in dataclasses.fields(self)} - {"aliases"}
        for key in changes:
            if key not in known:
                raise RuleError("bad_option", f"There is no rule option named {key!r}.")
        if "name" not in changes and any(getattr(self, k) != v for k, v in changes.items()):
            changes["name"] = "custom"
        return dataclasses.replace(self, aliases=(), **changes)

    def to_dict(self, record: bool = False) -> dict[str, Any]:
        """Every option as JSON-ready data. ``record=True``: the form stored in match records,
        where an option added after record format 1 (``attention``) is left out while it plays
        the game as before (off), so such records are byte for byte what they were."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name != "aliases"}
        if record:
            for option, old in _LATE_OPTIONS.items():
                if out[option] == old:
                    del out[option]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Inverse of :meth:`to_dict`; missing options take the defaults.

        Raises:
            RuleError: ``bad_option`` for an unknown option or a bad value.
        """
        if not isinstance(data, Mapping):
            raise RuleError("bad_option", "Rules must be an object of option names and values.")
        return cls().replace(**dict(data))

    def differences(self, other: RuleSet) -> dict[str, Any]:
        """Options whose values differ from ``other`` (``name`` excluded), as {option: value}."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: v for k, v in mine.items() if k != "name" and theirs[k] != v}

    # -- validation ---------------------------------------------------------------------------
    def _validate(self) -> None:
        def bad(option: str, why: str) -> RuleError:
            return RuleError("bad_option", f"Option {option!r}: {why}")

        for option, choices in _CHOICES.items():
            value = getattr(self, option)
            if isinstance(value, bool) or value not in choices:
                raise bad(option, f"{value!r} is not one of {', '.join(map(repr, choices))}.")
        for option in _BOOLS:
            if not isinstance(getattr(self, option), bool):
                raise bad(option, "must be true or false.")
        for option in _SECONDS:
            value = getattr(self, option)
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    0 <= value <= 600):
                raise bad(option, "must be a number of seconds from 0 to 600.")
        for option in _INTS:
            if isinstance(getattr(self, option), bool) or not isinstance(getattr(self, option), int):
                raise bad(option, "must be a whole number.")
        if not 2 <= self.pairs <= MAX_PAIRS:
            raise bad("pairs", f"a table seats 2 to {MAX_PAIRS} pairs, not {self.pairs}.")
        if 52 * self.deck_count < 4 * self.players + 8:
            # Four cards a player, four in the middle, and a stock for at least one fresh middle.
            raise bad("decks", f"{self.deck_count} deck(s) cannot deal four cards to "
                      f"{self.players} players and four to the middle and leave a stock to "
                      "refresh it; use 'auto' or 2.")
        if not isinstance(self.word, str) or not self.word.isalpha() or not (
                2 <= len(self.word) <= 12):
            raise bad("word", "must be 2 to 12 letters, like KEMPS or KENT.")
        if self.word != self.word.upper():
            raise bad("word", "must be written in capitals, like KEMPS.")
        if self.scoring == "letters" and not 0 <= self.target <= len(self.word):
            raise bad("target", f"with letters it counts the letters that lose, 1 to "
                      f"{len(self.word)} (0 = the whole word {self.word}).")
        if self.scoring == "points" and self.target < 1 and self.hands == 0:
            raise bad("target", "with points, set the points that win (e.g. 5) or a number of "
                      "hands.")
        if not 0 <= self.hands <= 999:
            raise bad("hands", "must be 0 (no limit) to 999.")
        if self.hands and self.pairs == 2 and self.hands % 2 == 0:
            # S1 Peanut Butter: "This must be an odd number"; S2: "An odd number, so two teams
            # cannot finish tied".
            raise bad("hands", f"two pairs play an odd number of hands, so they cannot finish "
                      f"tied; {self.hands} is even.")
        if self.stop_scope == "opposite" and self.pairs % 2:
            raise bad("stop_scope", f"'opposite' needs an even number of pairs: with "
                      f"{self.pairs} pairs no pair sits across the table from another. Use 'any'.")
        if not 1 <= self.objection_s <= 60:
            raise bad("objection_s", "an objection lapses after 1 to 60 seconds, so that nobody "
                      "can hold the middle for a whole hand.")
        if self.dealer == "non_playing" and self.idle_sweep_s <= 0 and self.sweep != "all_agree":
            raise bad("idle_sweep_s", "a dealer who is not playing sweeps when nothing has moved "
                      "for idle_sweep_s seconds; set it (e.g. 10).")
        if not 1 <= self.double_right <= 5 or not 1 <= self.double_wrong <= 5:
            raise bad("double_right" if not 1 <= self.double_right <= 5 else "double_wrong",
                      "must be 1 to 5.")
        if 0 < self.idle_sweep_s < 1:
            # A dealer who sweeps every few milliseconds turns the table into a timer storm.
            raise bad("idle_sweep_s", "must be 0 (off) or at least 1 second.")
        if self.immune_while_holding and self.hold_limit_s == 0:
            raise bad("immune_while_holding", "needs hold_limit_s above 0 (grab-then-discard); "
                      "with atomic swaps nobody ever holds five cards.")
        for option in ("call_word", "stop_word", "name"):
            value = getattr(self, option)
            if not isinstance(value, str) or not value.strip() or len(value) > 40:
                raise bad(option, "must be a short non-empty text.")
        if self.call_word.strip().lower() == self.stop_word.strip().lower():
            raise bad("stop_word", "must differ from call_word, or nobody can tell the calls "
                      "apart.")


# -- presets (RULES-NOTES "Presets") ------------------------------------------------------------
_PAGAT: Final = RuleSet(
    name="pagat", aliases=("kemps", "s1", "standard"),
    heard_signals=False, table_chat=True, dealer="fixed", start="on_deal", multi_swap=True,
    sweep="any_player_unless_objection", stock_exhausted="real_deal", stop_target="pair",
    right_kemps_letters="every_other_pair")

PRESETS: Final[dict[str, RuleSet]] = {p.name: p for p in (
    _PAGAT,
    RuleSet(name="squarescores", aliases=("s0", "square-scores"),
            heard_signals=True, table_chat=True, dealer="rotate_left", start="on_deal",
            multi_swap=False, sweep="any_player_unless_objection",
            stock_exhausted="reshuffle_swept", stop_target="player", stop_scope="any",
            right_kemps_letters="one_pair", double_calls=False, double_right=2, double_wrong=2),
    RuleSet(name="seed2-standard", aliases=("s2",),
            heard_signals=False, dealer="fixed", start="on_deal", multi_swap=True,
            sweep="dealer_only", stock_exhausted="real_deal", stop_target="pair"),
    # S2 tournament row 7: "Give each table a dealer who is not playing, to sweep the cards and
    # judge the first touch"; row 8: fake signals, the "Go" start, one card at a time settled.
    RuleSet(name="seed2-tournament", aliases=("tournament",),
            heard_signals=False, dealer="non_playing", start="on_go", multi_swap=False,
            fake_signals="banned", sweep="dealer_only", stock_exhausted="real_deal",
            stop_target="pair", target=3),
    # S4 read literally, its double counter kemps on two of a kind included.
    RuleSet(name="points-to-five", aliases=("s4", "points", "counter-kemps"),
            heard_signals=True, table_talk="allowed", dealer="fixed", multi_swap=True,
            hold_limit_s=3.0, immune_while_holding=True, sweep="any_player_unless_objection",
            sweep_countdown_s=3.0, idle_sweep_s=5.0, stop_target="player",
            wrong_call_ends_round=False, double_calls=True, double_right=2, double_wrong=1,
            double_stop_on="two_of_a_kind", scoring="points", target=5, call_word="Kemps",
            stop_word="Counter Kemps"),
    # S2 variations rows 4-5: Kent spells K-E-N-T, Cash C-A-S-H.
    _PAGAT.replace(name="kent", word="KENT", call_word="Kent", stop_word="Stop Kent"),
    _PAGAT.replace(name="cash", word="CASH", call_word="Cash", stop_word="Counter Cash",
                   start="countdown", start_countdown_s=3.0, stock_exhausted="real_deal"),
    # S0 "Kent, Cash, Canes and Signals ... the name is often the call ... The rules, the letters
    # and the signals are the same wherever you sit": the call changes, the word stays KEMPS.
    _PAGAT.replace(name="canes", call_word="Canes", stop_word="Stop Canes"),
    _PAGAT.replace(name="signals", call_word="Signals", stop_word="Stop Signals"),
    _PAGAT.replace(name="peanut-butter", heard_signals=True, hands=5,
                   call_word="Peanut butter", stop_word="Jelly"),
)}
_ALIASES: Final[dict[str, str]] = {"jelly": "peanut-butter", "peanutbutter": "peanut-butter",
                                    "counter-cash": "cash"}
for _preset in PRESETS.values():
    _ALIASES.update({a: _preset.name for a in _preset.aliases})

DEFAULT_PRESET: Final = "pagat"


def find_preset(name: str) -> RuleSet:
    """The preset called ``name`` or one of its aliases (case, spaces and underscores ignored).

    Raises:
        RuleError: ``unknown_preset`` listing the known names.
    """
    key = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    key = _ALIASES.get(key, key)
    if key not in PRESETS:
        raise RuleError("unknown_preset", f"No preset is called {name!r}; known: "
                        f"{', '.join(sorted(PRESETS))}.")
    return PRESETS[key]


def preset_names() -> dict[str, tuple[str, ...]]:
    """Every preset name with its aliases."""
    names: dict[str, list[str]] = {n: [] for n in PRESETS}
    for alias, target in sorted(_ALIASES.items()):
        names[target].append(alias)
    return {n: tuple(a) for n, a in names.items()}


# -- the option schema (served to the page: one source for its rule form) -------------------------
#: Per option: (group, one-line description, seed), from :mod:`kemps.rule_options`.
OPTION_DOCS: Final[dict[str, tuple[str, str, str]]] = {
    o.name: (o.group, o.line, o.seed) for o in OPTIONS}

#: One line per preset, for people choosing a table.
PRESET_NOTES: Final[dict[str, str]] = {
    "pagat": "The classic game (Pagat): swap freely, Stop Kemps on a pair, five letters lose.",
    "squarescores": "SquareScores' table: one card at a time, the deal passes left, Stop on a "
                    "player, swept cards reshuffled.",
    "seed2-standard": "The standard sheet: only the dealer sweeps the middle.",
    "seed2-tournament": "Club tournament: first to K-E-M loses, a dealer who does not play, Go "
                        "start, one card at a time, no fake signals.",
    "points-to-five": "House points game: first to five points, pick up then discard, wrong "
                      "calls play on, double calls.",
    "kent": "Kent: call \"Kent\", the word is K-E-N-T.",
    "cash": "Cash: call \"Cash\" and \"Counter Cash\", middle turned on 3-2-1, the word is C-A-S-H.",
    "canes": "Canes: the same game, the call is \"Canes\".",
    "signals": "Signals: the same game, the call is \"Signals\".",
    "peanut-butter": "Peanut Butter: \"Peanut butter\" and \"Jelly\", spoken signals, five "
                     "hands played.",
}


def option_schema() -> dict[str, dict[str, Any]]:
    """Every rule option as JSON-ready data for a rule form, in display order, from its one
    declaration (:data:`kemps.rule_options.OPTIONS`).

    Shape: ``{option: {"kind": "choice"|"bool"|"seconds"|"int"|"text", "choices": [...]
    (choice only), "min": n, "max": n (numbers), "max_length": n (text), "group": str,
    "label": str, "description": str, "seed": str}}``.
    """
    out: dict[str, dict[str, Any]] = {}
    for option in OPTIONS:
        entry: dict[str, Any] = {"group": option.group, "description": option.line,
                                 "seed": option.seed}
        if option.kind == "choice":
            entry.update(kind="choice", choices=list(option.choices))
        elif option.kind == "bool":
            entry["kind"] = "bool"
        elif option.kind in ("seconds", "int"):
            entry.update(kind=option.kind, min=option.low, max=option.high)
        else:
            entry.update(kind="text", max_length=option.max_length)
        entry["label"] = option.label
        out[option.name] = entry
    return out
