"""Every rule option declared once: its values, group, label, one line, seeds and meaning.

One :class:`Option` per rule option (../shared/RULES-NOTES.md, "Where they disagree"), in the
order a rule form shows them. Everything else is drawn from here: the value checks of
:class:`kemps.rules.RuleSet` (its fields take their ``Literal`` types from the aliases below),
the option schema served at ``GET /api/presets`` (the page's rule form and its labels), the
JSON API's ``RuleOptions`` body (``kemps.server.bodies``) and the option table of docs/rules.md
(:func:`markdown_table`; a test holds the doc to it, ``python -m kemps.rule_options`` prints it).

Adding an option: a field on ``RuleSet`` (with its default), one :class:`Option` here, its
engine rule in ``table.py``; then paste :func:`markdown_table` into docs/rules.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, get_args

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

Kind = Literal["choice", "bool", "seconds", "int", "text"]

#: The most pairs a table seats: as many as two decks can deal (S1 "a larger even number of
#: people", S2 "Six, eight or more"): four cards a player, four to the middle and a fresh middle.
MAX_PAIRS: Final = 12


@dataclass(frozen=True, slots=True)
class Option:
    """One rule option.

    name: the ``RuleSet`` field. kind: ``"choice"`` (one of ``choices``), ``"bool"``,
    ``"seconds"`` (a float from ``low`` to ``high``), ``"int"`` (a whole number from ``low`` to
    ``high``) or ``"text"`` (at most ``max_length`` characters). group: the rule form's heading.
    label: the form's label. line: one sentence, the form's help. seed: the seeds it comes from
    (S0..S4). doc: what it means, with the seeds' sentences.
    """

    name: str
    kind: Kind
    group: str
    label: str
    line: str
    seed: str
    doc: str
    choices: tuple[object, ...] = ()
    low: int = 0
    high: int = 600
    max_length: int = 40


def _choice(name: str, values: object, group: str, label: str, line: str, seed: str,
            doc: str) -> Option:
    return Option(name, "choice", group, label, line, seed, doc, choices=get_args(values))


OPTIONS: Final[tuple[Option, ...]] = (
    # -- Table ------------------------------------------------------------------------------------
    Option("pairs", "int", "Table", "Pairs",
           "Pairs at the table; partners sit opposite.", "S1, S2",
           f"2..{MAX_PAIRS} pairs, partners opposite: as many as two decks deal (S1 \"it is "
           "possible for a larger even number of people to play\"; S2 \"Six, eight or more can "
           "play\").", low=2, high=MAX_PAIRS),
    _choice("decks", Decks, "Table", "Decks",
            "Decks: one up to eight players, two past that.", "S1, S2 variation 3",
            "`auto` (one deck up to 8 players, else two; S1, S2), 1 or 2."),
    _choice("dealer", Dealer, "Table", "Dealer",
            "Who deals: the same player, the deal passing left, or a dealer who does not play "
            "(the table itself).", "S0, S1, S2 tournament row 7",
            "`rotate_left` (S0), `fixed` (S1, S2) or `non_playing`: a dealer who is not playing "
            "(S2 tournament row 7 \"Give each table a dealer who is not playing, to sweep the "
            "cards and judge the first touch\"); online that dealer is the table itself (it says "
            "Go `start_countdown_s` after the deal and sweeps after `idle_sweep_s` with no card "
            "moving), and the host may act for it."),
    _choice("start", Start, "Table", "Start of play",
            "When play opens: on the deal, on the dealer's Go, or after a 3-2-1 countdown with "
            "the middle face down.", "S1, S2 variations 1 and 6",
            "`on_deal` (S1), `on_go` (S2 variation), `countdown` (S2 Cash: middle face down, "
            "turned after \"three, two, one, go\")."),
    Option("start_countdown_s", "seconds", "Table", "Start countdown (s)",
           "Seconds of the start countdown (and before a dealer who does not play says Go).",
           "S2 Cash", "Length of that countdown, seconds (S2 Cash \"three, two, one, go\")."),
    # -- Calls ------------------------------------------------------------------------------------
    _choice("stop_target", StopTarget, "Calls", "Stop call names a",
            "A Stop call names a pair or one player.", "S1, S2; S0, S4",
            "Stop Kemps names a `pair` (S1, S2) or a `player` (S0, S4)."),
    _choice("stop_scope", StopScope, "Calls", "Stop call on",
            "With 6+ players: Stop on any pair, or only on the pair opposite (even numbers of "
            "pairs).", "S0",
            "Stop Kemps on `any` pair, or only on the `opposite` pair (S0, 6-8 players: \"others "
            "only on the pair opposite\"). Pair `p`'s two players sit on one line across the "
            "table; the pair opposite sits on the line across it, pair `(p + pairs/2) % pairs`, "
            "so the relation is mutual. Needs an even number of pairs (with three pairs no pair "
            "sits across another)."),
    Option("double_calls", "bool", "Calls", "Double calls",
           "Double Kemps and double Stop Kemps may be called.", "S0, S2 Carré-Coupé, S4",
           "Double Kemps and double Stop Kemps (S0, S2 Carré-Coupé, S4)."),
    _choice("double_stop_on", DoubleStopOn, "Calls", "Double Stop claims",
            "A double Stop claims both opponents hold four of a kind, or (S4) two of a kind.",
            "S0; S4",
            "A double Stop Kemps claims that both players of the pair hold `four_of_a_kind` "
            "(S0, S2 Carré-Coupé) or `two_of_a_kind` (S4 read literally: \"double counter kemps "
            "if you think both opposing players have two of a kind\")."),
    Option("wrong_call_ends_round", "bool", "Calls", "A wrong call ends the hand",
           "A wrong call ends the hand (else play goes on).", "S0, S1, S2; S4",
           "A wrong call ends the hand (S0, S1, S2); S4 plays on after a wrong call."),
    Option("immune_while_holding", "bool", "Calls", "Immune while holding five",
           "No call may be made on a player holding five cards.", "S4",
           "S4: no call may be made on a player holding five cards (needs `hold_limit_s`)."),
    # -- Swapping ---------------------------------------------------------------------------------
    Option("multi_swap", "bool", "Swapping", "Swap several cards at once",
           "Swap several cards at once (else one card at a time).", "S1, S2; S2 variation 2",
           "Several cards per swap (S1, S2 \"take two, discard two\") or one for one (S0, S2 "
           "variation 2)."),
    Option("hold_limit_s", "seconds", "Swapping", "Hold a fifth card (s, 0 = atomic swaps)",
           "Seconds a fifth card may be held when picking up first (0 = every swap is one "
           "move).", "S4",
           "0 = swaps are atomic; above 0 = S4's grab-then-discard, a fifth card held at most "
           "this many seconds."),
    # -- The middle -------------------------------------------------------------------------------
    _choice("sweep", Sweep, "The middle", "Who sweeps a stalled middle",
            "Who clears a stalled middle: anyone unless someone objects, everyone agreeing, or "
            "only the dealer.", "S0, S2",
            "Who clears the middle: any player unless someone objects (S0), all agree or the "
            "dealer only (S0 variants, S2)."),
    Option("sweep_countdown_s", "seconds", "The middle", "Stall countdown (s)",
           "Seconds from a stall call to the sweep.", "S4",
           "Seconds between a stall proposal and the sweep (S4 \"counts down from three\")."),
    Option("idle_sweep_s", "seconds", "The middle", "Idle sweep after (s, 0 = off)",
           "Seconds with no card moving before the dealer calls the stall (0 = never).", "S4",
           "0 = off; else (at least 1) the dealer proposes a stall after this many seconds with "
           "no swap (S4 \"after there is no action for a while\"); under `sweep: dealer_only` "
           "only a dealer who is not playing uses it (S0 \"only when the dealer says so\": a "
           "playing dealer sweeps by hand)."),
    Option("objection_s", "seconds", "The middle", "An objection lapses after (s)",
           "Seconds an objection pauses the stall countdown before it lapses.", "S4",
           "Seconds an objection pauses the countdown before it lapses (S4 \"the countdown is "
           "stopped until that player takes the card they want\"; it lapses so that no player "
           "can hold the middle for a whole hand; each seat objects once per stall).",
           low=1, high=60),
    _choice("stock_exhausted", StockExhausted, "The middle", "When the stock runs out",
            "When the stock runs out: a real deal (no letter) or the swept cards reshuffled.",
            "S1, S2; S0", "`real_deal` (S1, S2) or `reshuffle_swept` (S0)."),
    # -- Scoring ----------------------------------------------------------------------------------
    _choice("scoring", Scoring, "Scoring", "Scoring",
            "Letters lost (fewest wins) or points won (first to the target).", "S0, S4",
            "`letters` (fewest wins) or `points` (first to `target` wins; S0 variant, S4)."),
    Option("word", "text", "Scoring", "Word",
           "The word a losing pair spells.", "S0, S2 variations 4-5",
           "The penalty word, 2 to 12 capital letters (KEMPS; KENT and CASH from S2 variations "
           "rows 4-5).", max_length=12),
    Option("target", "int", "Scoring",
           "Target (letters that lose / points that win; 0 = word)",
           "Letters that lose (0 = the whole word) or points that win.",
           "S2 tournament row 3, S4",
           "Letters that lose (0 = the whole word; S2 tournament 3 = K-E-M) or points that win "
           "(S4: 5).", high=999),
    Option("hands", "int", "Scoring", "Hands (0 = no limit)",
           "Play exactly this many hands, an odd number with two pairs (0 = no limit).",
           "S1, S2 Peanut Butter",
           "0 = no limit; else exactly this many decided hands are played and the pair that "
           "lost fewer wins (S1 Peanut Butter \"The two teams agree beforehand how many hands "
           "should be played ... This must be an odd number\"); spelling the word does not end "
           "it early.", high=999),
    _choice("right_kemps_letters", RightKempsLetters, "Scoring",
            "Right call letters (3+ pairs)",
            "With 3+ pairs a right Kemps gives a letter to every other pair, or to one.",
            "S1, S2; S0",
            "With 3+ pairs a right Kemps gives a letter to `every_other_pair` (S1, S2) or to "
            "`one_pair`, the pair of the player to the caller's left (S0, see RULES-NOTES "
            "\"Cases the seeds leave open\")."),
    Option("double_right", "int", "Scoring", "Right double call scores",
           "Letters or points for a right double call.", "S0, S4",
           "Letters or points for a right double call (S0, S4: 2).", low=1, high=5),
    Option("double_wrong", "int", "Scoring", "Wrong double call scores",
           "Letters or points for a wrong double call.", "S0, S4",
           "Letters or points for a wrong double call (S0: 2, S4: 1).", low=1, high=5),
    Option("call_word", "text", "Scoring", "Call word",
           "The word for the call on your partner.", "S0, S2",
           "The word for Kemps at this table (\"Kent\", \"Cash\", \"Peanut butter\")."),
    Option("stop_word", "text", "Scoring", "Stop word",
           "The word for the call on an opponent.", "S0, S2, S4",
           "The word for Stop Kemps (\"Stop Kent\", \"Counter Cash\", \"Jelly\"); it differs "
           "from `call_word`."),
    # -- Signals ----------------------------------------------------------------------------------
    Option("heard_signals", "bool", "Signals", "Heard signals (a cough, a word)",
           "Heard signals (a cough, a word) are allowed, not only seen ones.", "S0; S1, S2",
           "Heard gestures (a cough, a word) allowed (S0) or only seen ones (S1, S2)."),
    Option("table_chat", "bool", "Signals", "Table chat",
           "Players may talk at the table.", "S0 silent signals",
           "Players may chat at the table (S0 \"silent signals\" forbids it)."),
    _choice("table_talk", TableTalk, "Signals", "Table talk",
            "A signal meaning anything but four of a kind loses the match, or is allowed.",
            "S1, S2; S4",
            "`forbidden`: a signal meaning anything but four of a kind loses the match (S1, "
            "S2 row 8); `allowed` (S4)."),
    _choice("fake_signals", FakeSignals, "Signals", "Fake signals",
            "Giving your signal without four of a kind is allowed or banned.",
            "S2 signals row 5",
            "`allowed` (S0, S1, S2) or `banned` (S2 \"some rule books ban them\")."),
    Option("attention", "bool", "Signals", "Attention: where players look counts",
           "Players look somewhere (a player, the middle, their cards) in full view; a gesture "
           "(about a second) is seen only by those looking at the gesturer, the others see only "
           "a movement; taking a card turns your eyes to the middle.",
           "S0 Watching your partner, Calling Stop Kemps; S2 signals row 9",
           "Where each player looks is modelled (S0 \"Half of Kemps is watching your partner "
           "without looking as though you are\"; \"Watch the other pair's faces more than their "
           "hands\"; S2 signals row 9 \"keep every signal above the table, where the other team "
           "has a fair chance to see it\"). Each seat looks at another seat, the middle or its "
           "own cards, in full view (a `look` action, at most once every 0.3 s, "
           "`kemps.gestures.LOOK_GAP_S`); a swap or grab moves the taker's look to the middle; a "
           "seen gesture lasts 1 s (`kemps.gestures.GESTURE_S`) and only a seat whose look is on "
           "the gesturer at some moment of it sees which gesture it was (the others learn only "
           "that the player moved); heard gestures reach everyone. Off in every preset (today's "
           "game); online tables turn it on (see \"Attention\" below)."),
)

#: Each option by name, in display order.
BY_NAME: Final[dict[str, Option]] = {o.name: o for o in OPTIONS}


def of_kind(kind: Kind) -> tuple[str, ...]:
    """The names of the options of one kind, in display order."""
    return tuple(o.name for o in OPTIONS if o.kind == kind)


def _json(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def values_text(option: Option) -> str:
    """What values ``option`` takes, as docs/rules.md states them."""
    if option.kind == "choice":
        return ", ".join(f"`{_json(c)}`" for c in option.choices)
    if option.kind == "bool":
        return "`true`, `false`"
    if option.kind == "seconds":
        return f"seconds, {option.low} to {option.high}"
    if option.kind == "int":
        return f"whole number, {option.low} to {option.high}"
    return f"text, up to {option.max_length} characters"


def markdown_table(defaults: dict[str, object]) -> str:
    """docs/rules.md's option table: one row per option, in display order, with its default
    (``defaults``: option -> value, the pagat preset's)."""
    rows = ["| option | group | values | default | what it means | seeds |",
            "|---|---|---|---|---|---|"]
    for o in OPTIONS:
        rows.append(f"| `{o.name}` | {o.group} | {values_text(o)} | `{_json(defaults[o.name])}` "
                    f"| {o.doc} | {o.seed} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # pragma: no cover - prints the table for docs/rules.md
    from kemps.rules import find_preset

    print(markdown_table(find_preset("pagat").to_dict()), end="")
