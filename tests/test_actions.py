"""Actions' JSON form: round trips, and every malformed action refused with ``bad_action``."""

from __future__ import annotations

import pytest

from kemps.actions import (
    AgreeSignals,
    Call,
    Chat,
    Deal,
    Discard,
    Gesture,
    Go,
    Grab,
    Object,
    ProposeStall,
    RuleTableTalk,
    Swap,
    action_from_dict,
    action_to_dict,
)
from kemps.cards import new_pack, parse_cards
from kemps.errors import Rejected

EXAMPLES = [
    Deal(tuple(new_pack(1)), reshuffle_seed=9), Go(1),
    Swap(2, parse_cards("7C"), parse_cards("6C")), Swap(0, parse_cards("7C 8C"), parse_cards("2D 3D")),
    Grab(3, parse_cards("QS")), Discard(3, parse_cards("2H")), ProposeStall(0), Object(1),
    Gesture(2, "touch_ear"), Chat(0, "nice weather"), AgreeSignals(0, ("yawn", "nod")),
    Call(0, "kemps"), Call(1, "stop", on_pair=0), Call(1, "stop", on_seat=2),
    Call(0, "double_kemps"), Call(1, "double_stop", on_pair=0), RuleTableTalk(1),
]


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: type(a).__name__)
def test_round_trip(action: object) -> None:
    data = action_to_dict(action)  # type: ignore[arg-type]
    assert action_from_dict(data) == action


@pytest.mark.parametrize("data, fragment", [
    (None, "object"), ([], "object"), ({}, "Unknown action type"),
    ({"type": "teleport"}, "Unknown action type"),
    ({"type": "swap", "seat": 0, "take": ["7C"]}, "needs the field 'give'"),
    ({"type": "swap", "seat": 0, "take": "7C", "give": ["6C"]}, "list of cards"),
    ({"type": "swap", "seat": 0, "take": ["ZZ"], "give": ["6C"]}, "not a card"),
    ({"type": "swap", "seat": "0", "take": ["7C"], "give": ["6C"]}, "whole number"),
    ({"type": "swap", "seat": True, "take": ["7C"], "give": ["6C"]}, "whole number"),
    ({"type": "swap", "seat": 0, "take": ["7C"], "give": ["6C"], "x": 1}, "no field 'x'"),
    ({"type": "call", "seat": 0, "kind": "shout"}, "Unknown call"),
    ({"type": "call", "seat": 0, "kind": 5}, "must be text"),
    ({"type": "gesture", "seat": 0, "gesture": ["wink"]}, "must be text"),
    ({"type": "agree_signals", "seat": 0, "signals": "wink"}, "gesture names"),
    ({"type": "deal", "seat": 0, "order": []}, "the table's"),
    ({"type": "take", "seat": 0}, "Unknown action type"),
])
def test_malformed_actions_are_refused(data: object, fragment: str) -> None:
    with pytest.raises(Rejected) as err:
        action_from_dict(data)
    assert err.value.code == "bad_action"
    assert fragment in err.value.message


def test_every_rejection_code_in_the_engine_is_documented() -> None:
    """The codes are a stable, listed set: each one raised anywhere in src/ is in REJECTION_CODES,
    and every listed code is raised somewhere."""
    import re
    from pathlib import Path

    from kemps.errors import REJECTION_CODES

    src = Path(__file__).resolve().parent.parent / "src" / "kemps"
    used = set()
    for path in src.rglob("*.py"):
        used |= set(re.findall(r'Rejected\(\s*"([a-z_]+)"', path.read_text()))
    assert used == REJECTION_CODES
