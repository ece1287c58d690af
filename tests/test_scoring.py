"""The shared scoring rules (kemps.scoring): unit checks, and the table engine and the scorekeeper
agreeing on whole simulated matches (every judged call of a bot match entered as a scoresheet)."""

from __future__ import annotations

from typing import Any

import pytest

from kemps.errors import Rejected, ScoreError
from kemps.events import Called, CallJudged, HandEnded, TableTalkRuled
from kemps.rules import find_preset
from kemps.scorekeeper import Match
from kemps.scoring import (
    add_award,
    call_award,
    call_target,
    needs_letters_to,
    rank_pairs,
    score_limit_reached,
    spelled,
)
from kemps.sim import simulate_match


def test_call_award_letters_and_points() -> None:
    pagat3 = find_preset("pagat").replace(pairs=3, double_calls=True)
    assert call_award(pagat3, 0, "kemps", 0, True) == ((1, 1), (2, 1))
    assert call_award(pagat3, 0, "stop", 2, True) == ((2, 1),)
    assert call_award(pagat3, 1, "double_stop", 2, False) == ((1, 2),)
    points = pagat3.replace(scoring="points", target=5, double_wrong=1)
    assert call_award(points, 0, "kemps", 0, False) == ((1, 1), (2, 1))
    assert call_award(points, 0, "double_kemps", 0, False) == ((1, 1), (2, 1))
    assert call_award(points, 0, "stop", 2, False) == ((2, 1),)
    assert call_award(points, 0, "double_stop", 2, True) == ((0, 2),)


def test_the_open_one_pair_case() -> None:
    s0 = find_preset("squarescores").replace(pairs=3)
    assert needs_letters_to(s0, "kemps", True)
    assert not needs_letters_to(s0, "kemps", False)
    assert not needs_letters_to(s0, "stop", True)
    assert not needs_letters_to(find_preset("squarescores"), "kemps", True)  # two pairs
    with pytest.raises(ScoreError) as err:
        call_award(s0, 0, "kemps", 0, True)
    assert err.value.code == "need_letters_to"
    assert call_award(s0, 0, "kemps", 0, True, letters_to=2) == ((2, 1),)
    with pytest.raises(ScoreError):
        call_award(s0, 0, "kemps", 0, True, letters_to=0)


def test_targets_limits_ranks_and_spelling() -> None:
    r = find_preset("seed2-tournament")  # K-E-M loses
    assert call_target(r, 1, "stop") == (None, 0)
    assert call_target(r, 1, "kemps") == (3, 1)
    with pytest.raises(Rejected) as err:
        call_target(r, 1, "kemps", on_seat=0)
    assert err.value.code == "not_your_partner"
    assert add_award(r, (2, 0), ((0, 2),)) == ((3, 0), ((0, 1),))  # capped at K-E-M
    assert score_limit_reached(r, (3, 0)) and not score_limit_reached(r, (2, 2))
    assert rank_pairs(r, (1, 3, 1)) == (1, 3, 1)
    assert rank_pairs(r, (1, 3, 1), loser=0) == (3, 2, 1)
    assert spelled(r, 0) == "-" and spelled(r, 3) == "K-E-M"


def _sheet_from_events(table_names: tuple[str, ...], pairs: int, events: list[Any]
                       ) -> list[dict[str, Any]]:
    kinds = {"kemps": "kemps", "stop": "stop", "double_kemps": "double",
             "double_stop": "double_stop"}
    hands: list[dict[str, Any]] = []
    called: Called | None = None
    for ev in events:
        if isinstance(ev, Called):
            called = ev
        elif isinstance(ev, CallJudged) and called is not None:
            h: dict[str, Any] = {"call": kinds[ev.kind], "by": table_names[ev.seat],
                                 "right": ev.right}
            if called.on_seat is not None:
                h["on"] = table_names[called.on_seat]
            elif called.on_pair is not None:
                h["on"] = called.on_pair
            # the online table's answer to the open case: the pair on the caller's left
            h["letters_to"] = (ev.seat + 1) % (2 * pairs) % pairs
            hands.append(h)
            called = None
        elif isinstance(ev, HandEnded) and ev.reason == "real_deal":
            hands.append({"call": "real_deal"})
        elif isinstance(ev, TableTalkRuled):
            hands.append({"call": "table_talk", "on": ev.pair})
    return hands


@pytest.mark.parametrize("preset, pairs, changes", [
    ("pagat", 2, {}), ("pagat", 3, {}), ("pagat", 4, {"double_calls": True}),
    ("squarescores", 3, {}), ("squarescores", 4, {"scoring": "points", "target": 5}),
    ("points-to-five", 2, {}), ("points-to-five", 3, {}), ("peanut-butter", 2, {}),
    ("seed2-tournament", 2, {}),
])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_engine_and_scorekeeper_agree_on_whole_matches(preset: str, pairs: int,
                                                       changes: dict[str, Any], seed: int) -> None:
    rules = find_preset(preset).replace(pairs=pairs, **changes)
    sim = simulate_match(rules, seed=seed)
    assert sim.finished
    table = sim.table
    hands = _sheet_from_events(table.names, pairs, sim.events)
    # letters_to is accepted only where it agrees with the rules, so it may stay on every call
    names = [[table.names[p], table.names[p + pairs]] for p in range(pairs)]
    m = Match(names, preset=preset, options={**changes})
    for h in hands:
        if "letters_to" in h and not (
                needs_letters_to(m.rules, {"double": "double_kemps"}.get(h["call"], h["call"]),
                                 h["right"])):
            del h["letters_to"]
        m.record(h)
    assert m.scores == tuple(table.scores)
    assert m.over
    assert m.ranks() == table.ranks
