"""Headless play: the simulated clock is deterministic per seed, and bots see only their seat."""

from __future__ import annotations

import random

from kemps.bots.simple import SimpleBot
from kemps.rules import find_preset
from kemps.sim import simulate_match


def test_same_seed_same_match_different_seed_different_match() -> None:
    rules = find_preset("pagat")
    a, b, c = (simulate_match(rules, s) for s in (4, 4, 5))
    assert a.record.to_dict() == b.record.to_dict()
    assert a.record.to_dict() != c.record.to_dict()


def test_a_match_finishes_with_one_loser_spelling_the_word() -> None:
    result = simulate_match(find_preset("pagat"), seed=21)
    t = result.table
    assert result.finished and t.phase == "over"
    assert max(t.scores) == 5 and t.ranks is not None
    assert sorted(t.ranks)[0] == 1
    assert result.actions == len(result.record.actions)


def test_unfinished_when_time_runs_out() -> None:
    result = simulate_match(find_preset("pagat"), seed=21, max_time_s=20.0)
    assert not result.finished and result.table.phase != "over"
    assert result.time_s <= 20.0


def test_bots_are_human_paced() -> None:
    """No seat acts faster than a person could: one seat never acts twice within 0.25 s."""
    result = simulate_match(find_preset("pagat"), seed=8)
    last: dict[int, float] = {}
    for t, action in result.record.actions:
        seat = action.seat
        if seat is None:
            continue
        if seat in last:
            assert t - last[seat] >= 0.25 - 1e-9, (seat, t, last[seat])
        last[seat] = t


def test_bots_only_get_their_own_hand() -> None:
    """The deal a bot receives holds its own cards only."""
    seen: list[list[int]] = []

    class Spy(SimpleBot):
        def on_events(self, events, now):  # type: ignore[no-untyped-def]
            from kemps.events import HandDealt

            for e in events:
                if isinstance(e, HandDealt):
                    seen.append([len(h) for h in e.hands])
            return super().on_events(events, now)

    def factory(seat: int, rules, rng: random.Random) -> SimpleBot:  # type: ignore[no-untyped-def]
        return Spy(seat, rules, rng)

    simulate_match(find_preset("pagat"), seed=2, bots=factory, max_time_s=60)
    assert seen and all(sorted(counts) == [0, 0, 0, 4] for counts in seen)


class _Stubborn(SimpleBot):
    """Never takes a card from the middle (it waits for its partner, for ever) until the driver
    says the hand is stuck; ``listens`` False: it has no ``on_stuck`` at all."""

    stuck = False

    def _best_swap(self):  # type: ignore[no-untyped-def]
        return super()._best_swap() if self.stuck else None


class _Listens(_Stubborn):
    def on_stuck(self, now: float) -> list:  # type: ignore[type-arg]
        self.stuck = True
        return super().on_stuck(now)


def test_the_driver_nudges_the_bots_when_a_hand_is_stuck() -> None:
    """The stuck-hand guard of the driver loop (kemps.sim.STUCK_S), with bots that never swap on
    their own at a table that reshuffles swept cards (squarescores): the hand would never end.
    Bots that answer the nudge finish the match; bots that cannot are nudged over and over and
    the match runs out of time, so it is the guard that ends the stuck hands."""
    from kemps.sim import STUCK_S

    rules = find_preset("squarescores")
    deaf = simulate_match(rules, 3, bots=lambda s, r, g: _Stubborn(s, r, g), keep_events=False,
                          max_time_s=4 * STUCK_S)
    assert not deaf.finished and deaf.nudges >= 3
    heard = simulate_match(rules, 3, bots=lambda s, r, g: _Listens(s, r, g), keep_events=False)
    assert heard.finished and heard.nudges >= 1


def test_no_stuck_hands_between_bot_levels_where_swept_cards_come_back() -> None:
    """Club and sharp pairs at squarescores: no hand needs the driver's nudge (the bots let a
    card go themselves when partners hold each other's cards), and every match finishes."""
    from kemps.bots.levels import bot_factory

    rules = find_preset("squarescores")
    club, sharp = bot_factory("club"), bot_factory("sharp")
    for k in range(40):
        a, b = (club, sharp) if k % 2 else (sharp, club)
        result = simulate_match(rules, 9_000 + k, bots=[a, b, a, b], keep_events=False)
        assert result.finished and result.nudges == 0, k
