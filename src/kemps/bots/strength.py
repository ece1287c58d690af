"""Bot strengths as data: the :class:`Level` of each bot level and the reaction-time speeds.

The bottom of the bots' module order (nothing here imports another bot module): a level is data
(:mod:`kemps.bots.watch` reads it, :mod:`kemps.bots.player` plays it, :mod:`kemps.bots.levels`
builds bots from it). Levels, weakest first: ``simple`` (the engine's plain
:class:`~kemps.bots.simple.SimpleBot`, with no :class:`Level`), ``casual``, ``club``, ``sharp``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from kemps.errors import KempsError

Inference = Literal["naive", "bayes", "full"]


@dataclass(frozen=True, slots=True)
class Level:
    """One playing strength. Times are seconds; chances are 0..1.

    Attributes:
        name: the level's name (``casual``, ``club``, ``sharp``).
        reaction_s: (low, high) of a uniform human reaction time; every move waits one.
        attention_partner: chance to notice the partner's gesture when it is made.
        attention_opponents: chance to notice an opponent's gesture.
        inference: ``naive`` (the last gesture before a revealed four of a kind is the signal,
            for two hands), ``bayes`` (a belief per opponent and gesture from public evidence:
            identified signals, how often the pair keeps a signal, gestures that drew no call),
            ``full`` (``bayes`` plus the moment: card counting from public swaps and sweeps, and
            a player who has just taken a card of the rank it collects).
        stop_threshold: the belief that a gesture is a real signal above which Stop Kemps is
            called (a wrong one costs a letter; one not made usually costs one too, once the
            signaller's partner calls, so anything above 1/3 is worth it in expectation).
        counting: knows a rank is dead for everybody once a card of it was swept (one deck),
            and chooses the rank to collect from hand and middle together.
        helps_partner: throws the partner's rank into the middle, and never the rank an
            opponent collects when another card will do.
        noise_every_s: mean seconds between idle gestures (exponential), its personal habit.
        change_after_kemps: chance to agree a new signal after the pair's own right Kemps
            (the other side could time the signal); after a right Stop Kemps against the pair
            the signal is always changed.
        change_anyway: chance to change the signal between hands for no reason.
        fakes: may give a burnt old signal with three of a kind (only where the rules allow
            fake signals); the partner knows the old signal is no longer the pair's.
        decoy_swaps: chance, when the middle holds nothing wanted, to swap a useless card for
            another anyway, so that stopping swapping tells the table less.
        stall_factor: reaction times to wait before saying the middle has stalled.
        habit_spread: weight of a rare idle gesture against a favourite one (1 = every gesture
            alike), so that idle gestures are not all from a few favourites.
        still_with_four: once it holds four of a kind it sits still (S0 "stops swapping, sits
            a little stiller"): no idle gesture and no stall, only its signal, given again
            while the partner has not called, so that no gesture but the signal gives a reader
            a chance to call Stop Kemps on a hand that holds four.
        signal_scale: its first signal comes this many reaction times after it made four (never
            sooner than 0.3 s): sharp gives it the moment the card lands, so that the partner's
            call leaves the others as little time as it can.
        signal_pause: chance that, having just made four with its own swap, it waits a drawn
            ``signal_pause_s`` more before its signal, so that the signal is not tied to its own
            swap (issue 13: "the first signal came within 1 s of the same player's own swap in
            401 of 401 cases").
        signal_pause_s: (low, high) of that extra wait, seconds.
        swap_gestures: chance of an idle gesture one reaction time after each of its own swaps
            that does not make four, so that a gesture just after a swap (the moment a real
            signal comes) says little: the signal's timing hides among them.

    At an ``attention`` table (docs/rules.md "Attention"; ignored elsewhere), how it uses its eyes
    (S0 "Watching your partner", "Calling Stop Kemps"):
        glance_moved: chance to glance at its partner when it saw the partner move (a gesture it
            did not see): within the gesture's second the glance still sees it.
        glance_opponents: the same for an opponent who has stopped taking cards
            (``watch_opponents`` levels): a player watching its partner or the middle catches an
            opponent's small movement at the edge of its eye less often.
        watch_opponents: looks at an opponent who has stopped taking cards, the more when that
            opponent looks at its partner (S0 "stops swapping, sits a little stiller and looks at
            their partner; the signal comes a moment after").
        signal_watched: gives its signal only while its partner looks at it (measured in
            docs/arena-results.md: waiting for the partner's eyes loses more hands than it saves;
            no level does it).
        signal_unseen: gives its signal only while no opponent looks at it (S2 signals row 9 gives
            the other team "a fair chance to see it"; a careful pair gives it no more than that).
        signal_look_first: its own eyes reach its partner before its first signal (S0 "looks
            at their partner; the signal comes a moment after"). Every level does. Without it
            the moment is only the other conditions; measured in docs/arena-results.md (issue
            27): sharp without it held the ``camper`` family, which signals at once, but a
            person watching where S0 says (issue 25, ``ScriptedWatcher``) then saw fewer first
            signals and won far fewer of its Stop Kemps races, so no level leaves it off.
        signal_wait_s: the longest it waits for the moment to signal (its eyes on its partner,
            and the other conditions above) once it holds four of a kind before it signals
            anyway, whoever looks: finite at every level (S2 signals row 9: "keep every signal
            above the table, where the other team has a fair chance to see it"; issue 25).
        reads_looks: a gesture by an opponent who looks at its partner is likelier a signal.
        glance_swapped: glances (``glance_opponents``) at an opponent seen moving a moment
            after it took a card (S0 "the signal comes a moment after"), even while it watches
            its partner.

    Calls:
        double_stops: calls double Stop Kemps where the table plays S4's "double counter kemps"
            on two of a kind, once both players of an opposing pair were seen taking two cards
            of one rank.
    """

    name: str
    reaction_s: tuple[float, float]
    attention_partner: float
    attention_opponents: float
    inference: Inference
    stop_threshold: float
    counting: bool
    helps_partner: bool
    noise_every_s: float
    change_after_kemps: float
    change_anyway: float
    fakes: bool
    decoy_swaps: float
    stall_factor: float
    habit_spread: float = 0.125
    swap_gestures: float = 0.0
    still_with_four: bool = False
    signal_scale: float = 0.8
    signal_pause: float = 0.0
    signal_pause_s: tuple[float, float] = (0.7, 2.5)
    glance_moved: float = 0.0
    glance_opponents: float = 0.0
    watch_opponents: bool = False
    signal_watched: bool = False
    signal_unseen: bool = False
    signal_look_first: bool = True
    signal_wait_s: float = 2.0
    reads_looks: bool = False
    glance_swapped: bool = False
    double_stops: bool = False


CASUAL: Final = Level(
    name="casual", reaction_s=(0.45, 1.25), attention_partner=0.9, attention_opponents=0.6,
    inference="naive", stop_threshold=0.7, counting=False, helps_partner=False,
    noise_every_s=6.0, change_after_kemps=0.0, change_anyway=0.1, fakes=False,
    decoy_swaps=0.0, stall_factor=3.5, glance_moved=0.5, glance_opponents=0.6,
    glance_swapped=True)
CLUB: Final = Level(
    name="club", reaction_s=(0.4, 1.05), attention_partner=0.93, attention_opponents=0.8,
    inference="bayes", stop_threshold=0.55, counting=True, helps_partner=False,
    noise_every_s=9.0, change_after_kemps=0.6, change_anyway=0.15, fakes=False,
    decoy_swaps=0.0, stall_factor=2.5, glance_moved=0.6, glance_opponents=0.3,
    watch_opponents=True, signal_unseen=True, signal_wait_s=2.0)
SHARP: Final = Level(
    name="sharp", reaction_s=(0.32, 0.85), attention_partner=0.97, attention_opponents=0.95,
    inference="full", stop_threshold=0.5, counting=True, helps_partner=True,
    noise_every_s=7.0, change_after_kemps=1.0, change_anyway=0.2, fakes=True,
    decoy_swaps=0.25, stall_factor=2.0, habit_spread=0.5, swap_gestures=0.35, glance_moved=0.75,
    glance_opponents=0.4, watch_opponents=True, signal_unseen=True, reads_looks=True,
    double_stops=True, still_with_four=True, signal_scale=0.6)

LEVELS: Final[dict[str, Level]] = {lv.name: lv for lv in (CASUAL, CLUB, SHARP)}
LEVEL_NAMES: Final = ("simple", "casual", "club", "sharp")
#: Levels that are not a set of hand-made traits: ``learned``, the trained network
#: (:mod:`kemps.bots.learned`, docs/research.md "A trained agent"; needs numpy).
EXTRA_LEVELS: Final = ("learned",)
#: Every level a seat can be given: the hand-made ones (weakest first), then the others.
ALL_LEVEL_NAMES: Final = LEVEL_NAMES + EXTRA_LEVELS

# Reaction-time profiles (low, high) seconds: a bot of any level can be slowed or sped up so that
# people can race it. ``relaxed`` leaves a person who reacts in about half a second a fair chance
# in a race for a call or a card; ``club`` and ``sharp`` are those levels' own times.
SPEEDS: Final[dict[str, tuple[float, float]]] = {
    "relaxed": (0.6, 1.5), "club": CLUB.reaction_s, "sharp": SHARP.reaction_s}
SPEED_NAMES: Final = ("relaxed", "club", "sharp")
DEFAULT_SPEED_WITH_PEOPLE: Final = "relaxed"  # the room default when people sit at the table

def find_name(name: str, known: tuple[str, ...], code: str, what: str) -> str:
    """``name`` as one of ``known`` (case and spaces ignored), or KempsError ``code`` naming the
    known ones (the bots' levels, speeds and opponent families are all found this way)."""
    key = str(name).strip().lower()
    if key not in known:
        raise KempsError(code, f"No {what} is called {name!r}; known: {', '.join(known)}.")
    return key


def find_level(name: str) -> str:
    """The canonical level name for ``name`` (case and spaces ignored).

    Raises:
        KempsError: ``unknown_level`` naming the known levels.
    """
    return find_name(name, ALL_LEVEL_NAMES, "unknown_level", "bot level")


def find_speed(name: str) -> str:
    """The canonical speed name for ``name`` (case and spaces ignored).

    Raises:
        KempsError: ``unknown_speed`` naming the known speeds.
    """
    return find_name(name, SPEED_NAMES, "unknown_speed", "bot speed")
