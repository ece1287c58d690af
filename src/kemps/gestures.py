"""The fixed gesture palette: what a player can do in full view (or hearing) of the table.

S0 "Players and equipment": "a blink, a cough, a word, a hand on the chin"; S2 "Signals: what is
allowed" row 3: "a tap, a wink, a grimace, cards held a certain way". Seen gestures are always
allowed; heard ones only where ``RuleSet.heard_signals`` is true (S1, S2: "words are not allowed";
S0's "silent signals" variant).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal


@dataclass(frozen=True, slots=True)
class Gesture:
    """One palette entry. ``name`` is the stable wire id; ``label`` is for people."""

    name: str
    kind: Literal["seen", "heard"]
    label: str


PALETTE: Final[dict[str, Gesture]] = {g.name: g for g in (
    Gesture("touch_ear", "seen", "touches an ear"),
    Gesture("scratch_nose", "seen", "scratches their nose"),
    Gesture("hand_on_chin", "seen", "puts a hand on their chin"),
    Gesture("blink", "seen", "blinks"),
    Gesture("wink", "seen", "winks"),
    Gesture("grimace", "seen", "grimaces"),
    Gesture("tap_table", "seen", "taps the table"),
    Gesture("thumb_on_edge", "seen", "puts a thumb on the table's edge"),
    Gesture("glance_ceiling", "seen", "glances at the ceiling"),
    Gesture("rub_eye", "seen", "rubs an eye"),
    Gesture("fold_arms", "seen", "folds their arms"),
    Gesture("nod", "seen", "nods"),
    Gesture("stretch", "seen", "stretches"),
    Gesture("fan_cards", "seen", "fans their cards"),
    Gesture("tilt_head", "seen", "tilts their head"),
    Gesture("yawn", "seen", "yawns"),
    Gesture("cough", "heard", "coughs"),
    Gesture("sniff", "heard", "sniffs"),
    Gesture("whistle", "heard", "whistles"),
    Gesture("hum", "heard", "hums"),
    Gesture("clear_throat", "heard", "clears their throat"),
    Gesture("say_word", "heard", "says a word"),
)}

SEEN: Final = tuple(n for n, g in PALETTE.items() if g.kind == "seen")
HEARD: Final = tuple(n for n, g in PALETTE.items() if g.kind == "heard")
MAX_SIGNALS: Final = 3

# -- attention (``RuleSet.attention``; S0 "Half of Kemps is watching your partner without looking
# as though you are") ---------------------------------------------------------------------------
#: A seen gesture lasts this many seconds: a seat whose look is on the gesturer at any moment in
#: ``[t, t + GESTURE_S)`` sees which gesture it was (at the gesture, or when its look lands).
GESTURE_S: Final = 1.0
#: A seat changes its look at most once every this many seconds (human pace: the eyes settle on
#: something for about a third of a second); a faster look is refused (``look_too_soon``).
LOOK_GAP_S: Final = 0.3
#: Where a seat can look besides another seat: the middle, or its own cards.
LOOK_PLACES: Final = ("middle", "hand")
