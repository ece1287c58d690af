"""The worked game of seed 000 (S0, "A worked game"), played through the engine from stacked decks
and timed actions, and the same match through ``kemps replay``.

Alice and Cara (seats 0 and 2, pair 0) against Ben and Dev (seats 1 and 3, pair 1), SquareScores
rules (S0: the deal passes to the left, heard signals allowed, Stop Kemps on "the player accused").
S0 gives six rounds, then "Two rounds later Ben and Dev take their fourth and fifth letters": the
seed does not say how, so rounds 7 and 8 here are a right Kemps by Alice and a wrong one by Dev.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kemps.actions import AgreeSignals, Call, Deal, Gesture, Swap
from kemps.cards import parse_card
from kemps.cli import app
from kemps.events import Event, MatchEnded, Revealed
from kemps.record import MatchRecord, Recorder, match_summary, replay
from kemps.rules import find_preset
from kemps.table import stacked_order
from kemps.views import letters_text

ALICE, BEN, CARA, DEV = 0, 1, 2, 3
RULES = find_preset("squarescores")
EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed000-worked-game.json"


def play_worked_game() -> tuple[Recorder, list[Event], list[tuple[int, int]]]:
    """Play S0's worked game; return the recorder, all events and the letters after each round."""
    rec = Recorder(RULES, ["Alice", "Ben", "Cara", "Dev"], first_dealer=0,
                   meta={"source": "seed 000, 'A worked game'"})
    events: list[Event] = []
    after: list[tuple[int, int]] = []
    clock = [0.0]

    def at(dt: float, action: object) -> None:
        clock[0] += dt
        events.extend(rec.apply(action, clock[0]))  # type: ignore[arg-type]

    def deal(hands: list[str], middle: str = "") -> None:
        order = stacked_order(RULES, hands, middle=middle, dealer=rec.table.dealer)
        at(1.0, Deal(order, reshuffle_seed=0))

    def end_round() -> None:
        assert rec.table.phase == "huddle" or rec.table.phase == "over"
        after.append((rec.table.scores[0], rec.table.scores[1]))

    # Before the first deal: touching an ear, and a scratch of the nose.
    at(0.5, AgreeSignals(ALICE, ("touch_ear",)))
    at(0.5, AgreeSignals(DEV, ("scratch_nose",)))

    # Round 1: Cara makes four sevens and touches her ear; Alice calls Kemps, and Cara has it.
    deal(["2C 3D 4H 5S", "8C 8D 9C JD", "7H 7S 7D 2D", "KC KD QC QD"], middle="7C AS AH 3C")
    at(1.2, Swap(CARA, (parse_card("7C"),), (parse_card("2D"),)))
    at(0.8, Gesture(CARA, "touch_ear"))
    at(0.9, Call(ALICE, "kemps"))
    end_round()

    # Round 2: Dev scratches his nose; Ben calls Kemps, but Dev holds three nines and a hope.
    deal(["2C 3D 4H 5S", "8C 8D TC JD", "6H 6S 2D 3H", "9H 9S 9D 4C"])
    at(2.0, Gesture(DEV, "scratch_nose"))
    at(0.7, Call(BEN, "kemps"))
    end_round()

    # Round 3: Dev has worked out the ear; Alice touches hers, and Dev calls Stop Kemps on her.
    deal(["5C 5D 5H 5S", "8C 8D TC JD", "6H 6S 2D 3H", "9H 9S 9D 4C"])
    at(1.5, Gesture(ALICE, "touch_ear"))
    at(0.6, Call(DEV, "stop", on_seat=ALICE))
    end_round()

    # Round 4: Alice is sure Ben is signalling and calls Stop Kemps; nobody has four of a kind.
    deal(["5C 5D 6H 6S", "8C 8D TC JD", "7H 7S 2D 3H", "9H 9S 4D 4C"])
    at(1.0, Gesture(BEN, "scratch_nose"))
    at(0.8, Call(ALICE, "stop", on_seat=BEN))
    end_round()

    # Round 5: both pairs change signals; Ben coughs, Dev calls Kemps, and Ben has four kings.
    at(0.5, AgreeSignals(CARA, ("yawn",)))
    at(0.5, AgreeSignals(BEN, ("cough",)))
    deal(["5C 5D 6H 6S", "KH KS KD 2C", "7H 7S 2D 3H", "9H 9S 4D 4C"], middle="KC 8H 8S TD")
    at(1.4, Swap(BEN, (parse_card("KC"),), (parse_card("2C"),)))
    at(0.9, Gesture(BEN, "cough"))
    at(0.8, Call(DEV, "kemps"))
    end_round()

    # Round 6: Cara calls Kemps on Alice's new signal, a yawn, and Alice has four twos.
    deal(["2C 2D 2H 2S", "KH KS KD 3C", "7H 7S 4D 3H", "9H 9S 5D 4C"])
    at(1.1, Gesture(ALICE, "yawn"))
    at(0.7, Call(CARA, "kemps"))
    end_round()

    # Rounds 7 and 8 ("two rounds later"): Ben and Dev take their fourth and fifth letters.
    deal(["2C 3D 4H 5S", "KH KS KD 3C", "AC AD AH AS", "9H 9S 5D 4C"])
    at(1.3, Gesture(CARA, "yawn"))
    at(0.7, Call(ALICE, "kemps"))
    end_round()
    deal(["2C 3D 4H 5S", "KH KS KD 3C", "AC AD 6H 6S", "9H 9S 5D 4C"])
    at(1.6, Gesture(BEN, "cough"))
    at(0.6, Call(DEV, "kemps"))
    end_round()
    return rec, events, after


def test_worked_game_letters_round_by_round() -> None:
    """S0 "A worked game": the letters after each round are exactly the seed's."""
    _, _, after = play_worked_game()
    assert after == [(0, 1), (0, 2), (1, 2), (2, 2), (3, 2), (3, 3), (3, 4), (3, 5)]
    assert [letters_text("KEMPS", b) for _, b in after[:6]] == [
        "K", "K-E", "K-E", "K-E", "K-E", "K-E-M"]


def test_worked_game_ends_alice_and_cara_win_three_against_five() -> None:
    """S0: "Ben and Dev take their fourth and fifth letters, spell K-E-M-P-S, and the match is
    over: Alice and Cara win it on three letters against five"."""
    rec, events, _ = play_worked_game()
    table = rec.table
    assert table.phase == "over"
    assert table.scores == [3, 5]
    assert table.ranks == (1, 2)
    ended = [e for e in events if isinstance(e, MatchEnded)]
    assert len(ended) == 1 and ended[0].scores == (3, 5)
    summary = match_summary(table, events)
    assert summary["winners"] == [0]
    assert [p["spelled"] for p in summary["pairs"]] == ["K-E-M", "K-E-M-P-S"]


def test_worked_game_reveals_only_the_called_hands() -> None:
    """S0: "The player who was signalling, or the player accused, turns their hand face up ...
    everybody else keeps their cards hidden"."""
    _, events, _ = play_worked_game()
    shown = [(e.seat, " ".join(c.text for c in e.cards)) for e in events
             if isinstance(e, Revealed)]
    assert shown == [
        (CARA, "7H 7S 7D 7C"),  # round 1: the partner called on
        (DEV, "9H 9S 9D 4C"),   # round 2: wrong Kemps, Dev shows three nines and a hope
        (ALICE, "5C 5D 5H 5S"),  # round 3: the player accused
        (BEN, "8C 8D TC JD"),   # round 4: the player accused, nothing
        (BEN, "KH KS KD KC"),   # round 5
        (ALICE, "2C 2D 2H 2S"),  # round 6
        (CARA, "AC AD AH AS"),  # round 7
        (BEN, "KH KS KD 3C"),   # round 8
    ]


def test_worked_game_dealer_passes_left() -> None:
    """S0: "The deal passes to the left"."""
    rec, events, _ = play_worked_game()
    summary = match_summary(rec.table, events)
    assert [h["dealer"] for h in summary["hands"]] == [0, 1, 2, 3, 0, 1, 2, 3]


def test_worked_game_record_replays_exactly(tmp_path: Path) -> None:
    """The canonical record replays to the same events, also through JSON text."""
    rec, events, _ = play_worked_game()
    assert replay(rec.record).events == events
    again = MatchRecord.from_json(rec.record.to_json())
    assert replay(again).events == events


def test_worked_game_through_kemps_replay(tmp_path: Path) -> None:
    """The same match under ``kemps replay --json``: per-hand calls and the final standing."""
    rec, _, _ = play_worked_game()
    path = tmp_path / "worked.json"
    rec.record.save(path)
    result = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["over"] is True and data["winners"] == [0]
    assert [(p["score"], p["rank"]) for p in data["pairs"]] == [(3, 1), (5, 2)]
    calls = [(c["by"], c["kind"], c["right"]) for h in data["hands"] for c in h["calls"]]
    assert calls == [("Alice", "kemps", True), ("Ben", "kemps", False), ("Dev", "stop", True),
                     ("Alice", "stop", False), ("Dev", "kemps", True), ("Cara", "kemps", True),
                     ("Alice", "kemps", True), ("Dev", "kemps", False)]
    plain = CliRunner().invoke(app, ["replay", str(path)])
    assert plain.exit_code == 0 and "Match over." in plain.output


def test_shipped_example_record_is_the_worked_game() -> None:
    """docs/examples/seed000-worked-game.json is this match (users can ``kemps replay`` it)."""
    _, events, _ = play_worked_game()
    shipped = MatchRecord.load(EXAMPLE)
    assert replay(shipped).events == events


if __name__ == "__main__":  # regenerate the shipped example
    play_worked_game()[0].record.save(EXAMPLE)
