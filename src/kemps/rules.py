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
from typing import Any, Final, Literal

from kemps.errors import RuleError

Decks = Literal["auto", 1, 2]
Start = Literal["on_deal", "on_go", "countdown"]
Dealer = Literal["rotate_left", "fixed"]
Sweep = Literal["any_player_unless_objection", "all_agree", "dealer_only"]
StockExhausted = Literal["real_deal", "reshuffle_swept"]
StopTarget = Literal["pair", "player"]
StopScope = Literal["any", "opposite"]
RightKempsLetters = Literal["every_other_pair", "one_pair"]
Scoring = Literal["letters", "points"]
TableTalk = Literal["forbidden", "allowed"]
FakeSignals = Literal["allowed", "banned"]

_CHOICES: Final[dict[str, tuple[object, ...]]] = {
    "decks": ("auto", 1, 2),
    "start": ("on_deal", "on_go", "countdown"),
    "dealer": ("rotate_left", "fixed"),
    "sweep": ("any_player_unless_objection", "all_agree", "dealer_only"),
    "stock_exhausted": ("real_deal", "reshuffle_swept"),
    "stop_target": ("pair", "player"),
    "stop_scope": ("any", "opposite"),
    "right_kemps_letters": ("every_other_pair", "one_pair"),
    "scoring": ("letters", "points"),
    "table_talk": ("forbidden", "allowed"),
    "fake_signals": ("allowed", "banned"),
}
_BOOLS: Final = ("heard_signals", "table_chat", "multi_swap", "immune_while_holding",
                 "wrong_call_ends_round", "double_calls")
_SECONDS: Final = ("start_countdown_s", "hold_limit_s", "sweep_countdown_s", "idle_sweep_s")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One table's complete rules. Build with a preset and :meth:`replace`; all fields validated.

    Options (source in ../shared/RULES-NOTES.md, "Where they disagree"):
        name: the preset this came from, or ``"custom"`` after changes (display only).
        pairs: 2..6 pairs, partners opposite (S2 "2-6 teams").
        decks: ``"auto"`` (one deck up to 8 players, else two; S1, S2), 1 or 2.
        heard_signals: heard gestures (a cough, a word) allowed (S0) or only seen ones (S1, S2).
        table_chat: players may chat at the table (S0 "silent signals" forbids it).
        table_talk: ``"forbidden"``: a signal meaning anything but four of a kind loses the match
            (S1, S2); ``"allowed"`` (S4).
        fake_signals: ``"allowed"`` (S0, S1, S2) or ``"banned"`` (S2 "some rule books ban them").
        dealer: ``"rotate_left"`` (S0) or ``"fixed"`` (S1, S2).
        start: ``"on_deal"`` (S1), ``"on_go"`` (S2 variation), ``"countdown"`` (S2 Cash: middle face
            down, turned after "three, two, one, go").
        start_countdown_s: length of that countdown, seconds.
        multi_swap: several cards per swap (S1, S2) or one for one (S0, S2 variation).
        hold_limit_s: 0 = swaps are atomic; > 0 = S4's grab-then-discard, a fifth card held at most
            this many seconds.
        immune_while_holding: S4, no call may be made on a player holding five cards.
        sweep: who clears the middle (S0 any player unless someone objects, S0 variants all agree or
            dealer only).
        sweep_countdown_s: seconds between a stall proposal and the sweep (S4 "counts down from three").
        idle_sweep_s: 0 = off; else (at least 1) the dealer proposes a stall after this many seconds
            with no swap
            (S4 "after there is no action for a while").
        stock_exhausted: ``"real_deal"`` (S1, S2) or ``"reshuffle_swept"`` (S0).
        stop_target: Stop Kemps names a ``"pair"`` (S1, S2) or a ``"player"`` (S0, S4).
        stop_scope: Stop Kemps on ``"any"`` pair, or only the ``"opposite"`` pair, defined here as the
            pair of the player sitting to the caller's left (S0, 6-8 players).
        right_kemps_letters: with 3+ pairs a right Kemps gives a letter to ``"every_other_pair"``
            (S1, S2) or to ``"one_pair"``, the pair of the player to the caller's left (S0, see
            RULES-NOTES "Cases the seeds leave open").
        wrong_call_ends_round: S4 plays on after a wrong call.
        double_calls: Double Kemps and double Stop Kemps (S0, S2 Carré-Coupé, S4).
        double_right: letters/points for a right double call (S0, S4: 2).
        double_wrong: letters/points for a wrong double call (S0: 2, S4: 1).
        scoring: ``"letters"`` (fewest wins) or ``"points"`` (first to ``target`` wins).
        word: the penalty word (KEMPS, KENT, CASH, CANES).
        target: letters that lose (0 = the whole word; S2 tournament 3 = K-E-M) or points that win.
        hands: 0 = no limit; else the match ends after this many decided hands (Peanut Butter).
        call_word: the word for Kemps at this table ("Kent", "Cash", "Peanut butter").
        stop_word: the word for Stop Kemps ("Stop Kent", "Counter Cash", "Jelly").
    """

    name: str = "custom"
    pairs: int = 2
    decks: Decks = "auto"
    heard_signals: bool = False
    table_chat: bool = True
    table_talk: TableTalk = "forbidden"
    fake_signals: FakeSignals = "allowed"
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
    right_kemps_letters: RightKempsLetters = "every_other_pair"
    wrong_call_ends_round: bool = True
    double_calls: bool = False
    double_right: int = 2
    double_wrong: int = 2
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

    def to_dict(self) -> dict[str, Any]:
        """Every option as JSON-ready data (the form stored in match records)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name != "aliases"}

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
        for option in ("pairs", "target", "hands", "double_right", "double_wrong"):
            if isinstance(getattr(self, option), bool) or not isinstance(getattr(self, option), int):
                raise bad(option, "must be a whole number.")
        if not 2 <= self.pairs <= 6:
            raise bad("pairs", f"a table seats 2 to 6 pairs, not {self.pairs}.")
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
    name="pagat", aliases=("kemps", "s1", "standard", "signals"),
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
    RuleSet(name="seed2-tournament", aliases=("tournament",),
            heard_signals=False, dealer="fixed", start="on_go", multi_swap=False,
            fake_signals="banned", sweep="dealer_only", stock_exhausted="real_deal",
            stop_target="pair", target=3),
    RuleSet(name="points-to-five", aliases=("s4", "points", "counter-kemps"),
            heard_signals=True, table_talk="allowed", dealer="fixed", multi_swap=True,
            hold_limit_s=3.0, immune_while_holding=True, sweep="any_player_unless_objection",
            sweep_countdown_s=3.0, idle_sweep_s=5.0, stop_target="player",
            wrong_call_ends_round=False, double_calls=True, double_right=2, double_wrong=1,
            scoring="points", target=5, call_word="Kemps", stop_word="Counter Kemps"),
    _PAGAT.replace(name="kent", word="KENT", call_word="Kent", stop_word="Stop Kent"),
    _PAGAT.replace(name="cash", word="CASH", call_word="Cash", stop_word="Counter Cash",
                   start="countdown", start_countdown_s=3.0, stock_exhausted="real_deal"),
    _PAGAT.replace(name="canes", word="CANES", call_word="Canes", stop_word="Stop Canes"),
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
