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
Dealer = Literal["rotate_left", "fixed", "non_playing"]
Sweep = Literal["any_player_unless_objection", "all_agree", "dealer_only"]
StockExhausted = Literal["real_deal", "reshuffle_swept"]
StopTarget = Literal["pair", "player"]
StopScope = Literal["any", "opposite"]
RightKempsLetters = Literal["every_other_pair", "one_pair"]
Scoring = Literal["letters", "points"]
TableTalk = Literal["forbidden", "allowed"]
FakeSignals = Literal["allowed", "banned"]
DoubleStopOn = Literal["four_of_a_kind", "two_of_a_kind"]

#: The most pairs a table seats: as many as two decks can deal (S1 "a larger even number of
#: people", S2 "Six, eight or more"): four cards a player, four to the middle and a fresh middle.
MAX_PAIRS: Final = 12

_CHOICES: Final[dict[str, tuple[object, ...]]] = {
    "decks": ("auto", 1, 2),
    "start": ("on_deal", "on_go", "countdown"),
    "dealer": ("rotate_left", "fixed", "non_playing"),
    "sweep": ("any_player_unless_objection", "all_agree", "dealer_only"),
    "stock_exhausted": ("real_deal", "reshuffle_swept"),
    "stop_target": ("pair", "player"),
    "stop_scope": ("any", "opposite"),
    "right_kemps_letters": ("every_other_pair", "one_pair"),
    "scoring": ("letters", "points"),
    "table_talk": ("forbidden", "allowed"),
    "fake_signals": ("allowed", "banned"),
    "double_stop_on": ("four_of_a_kind", "two_of_a_kind"),
}
_BOOLS: Final = ("heard_signals", "table_chat", "multi_swap", "immune_while_holding",
                 "wrong_call_ends_round", "double_calls", "attention")
#: Options added after match-record format 1, with the value that plays the game as it was: a
#: record carries one only when it differs (so a record of such a game is byte for byte as before,
#: and every older record reads as that game).
_LATE_OPTIONS: Final[dict[str, object]] = {"attention": False}
_SECONDS: Final = ("start_countdown_s", "hold_limit_s", "sweep_countdown_s", "idle_sweep_s",
                   "objection_s")
_INTS: Final = ("pairs", "target", "hands", "double_right", "double_wrong")
_TEXTS: Final = ("word", "call_word", "stop_word")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One table's complete rules. Build with a preset and :meth:`replace`; all fields validated.

    Options (source in ../shared/RULES-NOTES.md, "Where they disagree"):
        name: the preset this came from, or ``"custom"`` after changes (display only).
        pairs: 2..12 pairs, partners opposite: as many as two decks deal (S1 "it is possible for a
            larger even number of people to play"; S2 "Six, eight or more can play").
        decks: ``"auto"`` (one deck up to 8 players, else two; S1, S2), 1 or 2.
        heard_signals: heard gestures (a cough, a word) allowed (S0) or only seen ones (S1, S2).
        table_chat: players may chat at the table (S0 "silent signals" forbids it).
        table_talk: ``"forbidden"``: a signal meaning anything but four of a kind loses the match
            (S1, S2); ``"allowed"`` (S4).
        fake_signals: ``"allowed"`` (S0, S1, S2) or ``"banned"`` (S2 "some rule books ban them").
        attention: where each player looks is modelled (S0 "Half of Kemps is watching your
            partner without looking as though you are"; "Watch the other pair's faces more than
            their hands"; S2 signals row 9 "keep every signal above the table, where the other
            team has a fair chance to see it"). Each seat looks at another seat, the middle or its
            own cards, in full view (a ``look`` action, at most once every
            :data:`kemps.gestures.LOOK_GAP_S` = 0.3 s); a swap or grab moves the taker's look to
            the middle; a seen gesture lasts :data:`kemps.gestures.GESTURE_S` = 1 s and only a seat
            whose look is on the gesturer at some moment of it sees which gesture it was (the
            others learn only that the player moved); heard gestures reach everyone. Off in every
            preset (today's game); online tables turn it on.
        dealer: ``"rotate_left"`` (S0), ``"fixed"`` (S1, S2) or ``"non_playing"``: a dealer who
            is not playing (S2 tournament row 7 "Give each table a dealer who is not playing, to
            sweep the cards and judge the first touch"); online that dealer is the table itself
            (it says Go ``start_countdown_s`` after the deal and sweeps after ``idle_sweep_s``
            with no card moving), and the host may act for it.
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
        objection_s: seconds an objection pauses the countdown before it lapses (S4 "the countdown
            is stopped until that player takes the card they want"; it lapses so that no player can
            hold the middle for a whole hand; each seat objects once per stall).
        idle_sweep_s: 0 = off; else (at least 1) the dealer proposes a stall after this many seconds
            with no swap; under ``sweep="dealer_only"`` only a dealer who is not playing uses it
            (S0 "only when the dealer says so": a playing dealer sweeps by hand)
            (S4 "after there is no action for a while").
        stock_exhausted: ``"real_deal"`` (S1, S2) or ``"reshuffle_swept"`` (S0).
        stop_target: Stop Kemps names a ``"pair"`` (S1, S2) or a ``"player"`` (S0, S4).
        stop_scope: Stop Kemps on ``"any"`` pair, or only on the ``"opposite"`` pair (S0, 6-8
            players). Pair ``p``'s two players sit on one line across the table; the pair opposite
            sits on the line across it, pair ``(p + pairs/2) % pairs``, so the relation is mutual.
            Needs an even number of pairs (with three pairs no pair sits across another).
        right_kemps_letters: with 3+ pairs a right Kemps gives a letter to ``"every_other_pair"``
            (S1, S2) or to ``"one_pair"``, the pair of the player to the caller's left (S0, see
            RULES-NOTES "Cases the seeds leave open").
        wrong_call_ends_round: S4 plays on after a wrong call.
        double_calls: Double Kemps and double Stop Kemps (S0, S2 Carré-Coupé, S4).
        double_right: letters/points for a right double call (S0, S4: 2).
        double_wrong: letters/points for a wrong double call (S0: 2, S4: 1).
        double_stop_on: a double Stop Kemps claims that both players of the pair hold
            ``"four_of_a_kind"`` (S0, S2 Carré-Coupé) or ``"two_of_a_kind"`` (S4 read literally:
            "double counter kemps if you think both opposing players have two of a kind").
        scoring: ``"letters"`` (fewest wins) or ``"points"`` (first to ``target`` wins).
        word: the penalty word (KEMPS; KENT and CASH from S2).
        target: letters that lose (0 = the whole word; S2 tournament 3 = K-E-M) or points that win.
        hands: 0 = no limit; else exactly this many decided hands are played and the pair that
            lost fewer wins (S1 Peanut Butter "The two teams agree beforehand how many hands should
            be played ... This must be an odd number"); spelling the word does not end it early.
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
#: Per option: (group, one-line description, seed). Groups follow how players talk about a table.
OPTION_DOCS: Final[dict[str, tuple[str, str, str]]] = {
    "pairs": ("Table", "Pairs at the table; partners sit opposite.", "S1, S2"),
    "decks": ("Table", "Decks: one up to eight players, two past that.", "S1, S2 variation 3"),
    "dealer": ("Table", "Who deals: the same player, the deal passing left, or a dealer who does "
               "not play (the table itself).", "S0, S1, S2 tournament row 7"),
    "start": ("Table", "When play opens: on the deal, on the dealer's Go, or after a 3-2-1 "
              "countdown with the middle face down.", "S1, S2 variations 1 and 6"),
    "start_countdown_s": ("Table", "Seconds of the start countdown (and before a dealer who does "
                          "not play says Go).", "S2 Cash"),
    "stop_target": ("Calls", "A Stop call names a pair or one player.", "S1, S2; S0, S4"),
    "stop_scope": ("Calls", "With 6+ players: Stop on any pair, or only on the pair opposite "
                   "(even numbers of pairs).", "S0"),
    "double_calls": ("Calls", "Double Kemps and double Stop Kemps may be called.",
                     "S0, S2 Carré-Coupé, S4"),
    "double_stop_on": ("Calls", "A double Stop claims both opponents hold four of a kind, or "
                       "(S4) two of a kind.", "S0; S4"),
    "wrong_call_ends_round": ("Calls", "A wrong call ends the hand (else play goes on).",
                              "S0, S1, S2; S4"),
    "immune_while_holding": ("Calls", "No call may be made on a player holding five cards.",
                             "S4"),
    "multi_swap": ("Swapping", "Swap several cards at once (else one card at a time).",
                   "S1, S2; S2 variation 2"),
    "hold_limit_s": ("Swapping", "Seconds a fifth card may be held when picking up first "
                     "(0 = every swap is one move).", "S4"),
    "sweep": ("The middle", "Who clears a stalled middle: anyone unless someone objects, "
              "everyone agreeing, or only the dealer.", "S0, S2"),
    "sweep_countdown_s": ("The middle", "Seconds from a stall call to the sweep.", "S4"),
    "idle_sweep_s": ("The middle", "Seconds with no card moving before the dealer calls the "
                     "stall (0 = never).", "S4"),
    "objection_s": ("The middle", "Seconds an objection pauses the stall countdown before it "
                    "lapses.", "S4"),
    "stock_exhausted": ("The middle", "When the stock runs out: a real deal (no letter) or the "
                        "swept cards reshuffled.", "S1, S2; S0"),
    "scoring": ("Scoring", "Letters lost (fewest wins) or points won (first to the target).",
                "S0, S4"),
    "word": ("Scoring", "The word a losing pair spells.", "S0, S2 variations 4-5"),
    "target": ("Scoring", "Letters that lose (0 = the whole word) or points that win.",
               "S2 tournament row 3, S4"),
    "hands": ("Scoring", "Play exactly this many hands, an odd number with two pairs (0 = no "
              "limit).", "S1, S2 Peanut Butter"),
    "right_kemps_letters": ("Scoring", "With 3+ pairs a right Kemps gives a letter to every "
                            "other pair, or to one.", "S1, S2; S0"),
    "double_right": ("Scoring", "Letters or points for a right double call.", "S0, S4"),
    "double_wrong": ("Scoring", "Letters or points for a wrong double call.", "S0, S4"),
    "call_word": ("Scoring", "The word for the call on your partner.", "S0, S2"),
    "stop_word": ("Scoring", "The word for the call on an opponent.", "S0, S2, S4"),
    "heard_signals": ("Signals", "Heard signals (a cough, a word) are allowed, not only seen "
                      "ones.", "S0; S1, S2"),
    "table_chat": ("Signals", "Players may talk at the table.", "S0 silent signals"),
    "table_talk": ("Signals", "A signal meaning anything but four of a kind loses the match, "
                   "or is allowed.", "S1, S2; S4"),
    "fake_signals": ("Signals", "Giving your signal without four of a kind is allowed or "
                     "banned.", "S2 signals row 5"),
    "attention": ("Signals", "Players look somewhere (a player, the middle, their cards) in full "
                  "view; a gesture (about a second) is seen only by those looking at the "
                  "gesturer, the others see only a movement; taking a card turns your eyes to the "
                  "middle.", "S0 Watching your partner, Calling Stop Kemps; S2 signals row 9"),
}

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
    """Every rule option as JSON-ready data for a rule form, in display order.

    Shape: ``{option: {"kind": "choice"|"bool"|"seconds"|"int"|"text", "choices": [...]
    (choice only), "min": n, "max": n (numbers), "group": str, "description": str, "seed": str}}``.
    """
    out: dict[str, dict[str, Any]] = {}
    limits = {"pairs": (2, MAX_PAIRS), "target": (0, 999), "hands": (0, 999),
              "double_right": (1, 5), "double_wrong": (1, 5), "objection_s": (1, 60)}
    for option, (group, description, seed) in OPTION_DOCS.items():
        entry: dict[str, Any] = {"group": group, "description": description, "seed": seed}
        if option in _CHOICES:
            entry.update(kind="choice", choices=list(_CHOICES[option]))
        elif option in _BOOLS:
            entry["kind"] = "bool"
        elif option in _SECONDS:
            lo, hi = limits.get(option, (0, 600))
            entry.update(kind="seconds", min=lo, max=hi)
        elif option in _INTS:
            lo, hi = limits[option]
            entry.update(kind="int", min=lo, max=hi)
        else:
            entry.update(kind="text", max_length=40 if option != "word" else 12)
        out[option] = entry
    return out
