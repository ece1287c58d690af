"""``Table.apply``'s fast path for a one-for-one swap (issue 15) says exactly what the general
path says: the same events (every field, of the same types), the same table afterwards, and the
same rejections, in whole matches and in random swaps, legal or not, at every preset."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

import kemps.table as table_module
from kemps.actions import Action, Deal, Go, Object, ProposeStall, Swap
from kemps.cards import Card, shuffled_pack
from kemps.errors import Rejected
from kemps.events import Event, Swapped
from kemps.record import MatchRecord
from kemps.rules import PRESETS, RuleSet, find_preset
from kemps.sim import simulate_match
from kemps.table import _STATE, Table

#: Every preset, and pagat where everyone must agree to a stall, and pagat with attention.
RULES: dict[str, RuleSet] = {
    **PRESETS,
    "pagat-all-agree": find_preset("pagat").replace(name="pagat", sweep="all_agree"),
    "pagat-attention": find_preset("pagat").replace(name="pagat", attention=True),
}


class _NotASwap:
    """Stands in for :class:`Swap` in the fast path's class test, so that it never matches."""


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fast path tests ``action.__class__ is Swap`` on the module's name; the handlers were
    # bound to the real class when the table was seated, so the general path still swaps.
    monkeypatch.setattr(table_module, "Swap", _NotASwap)


def _fields(e: Event) -> tuple[Any, ...]:
    return (e.__class__, *((f.name, v, v.__class__)
                           for f in dataclasses.fields(e)  # type: ignore[arg-type]
                           for v in [getattr(e, f.name)]))


def _state(t: Table) -> tuple[Any, ...]:
    return (t.version, t.clock, *(getattr(t, name) for name in _STATE))


def _outcome(t: Table, action: Action, now: float) -> tuple[Any, ...]:
    try:
        return ("ok", [_fields(e) for e in t.apply(action, now)])
    except Rejected as err:
        return ("rejected", err.code, err.message)


def test_a_fast_swap_event_has_every_field_as_the_constructor_sets_it() -> None:
    rules = find_preset("pagat")
    t = Table(rules)
    rng = random.Random(5)
    t.apply(Deal(tuple(shuffled_pack(rules.deck_count, rng)), 1), 0.0)
    take, give = next(c for c in t.middle if c is not None), t.hands[2][1]
    [e] = t.apply(Swap(2, (take,), (give,)), 0.5)
    assert e.__class__ is Swapped
    assert _fields(e) == _fields(Swapped(0.5, 2, (take,), (give,), (e.slots[0],)))
    assert e == Swapped(0.5, 2, (take,), (give,), e.slots)
    assert hash(e) == hash(Swapped(0.5, 2, (take,), (give,), e.slots))


@pytest.mark.parametrize("preset", ["pagat", "squarescores", "cash", "seed2-tournament",
                                    "points-to-five", "pagat-all-agree", "pagat-attention"])
def test_whole_matches_replay_the_same_without_the_fast_path(
        monkeypatch: pytest.MonkeyPatch, preset: str) -> None:
    rules = RULES[preset]
    records: list[MatchRecord] = [simulate_match(rules, seed, keep_events=False).record
                                  for seed in (1, 2)]
    for record in records:
        fast = Table(record.rules, record.names, record.first_dealer)
        general = Table(record.rules, record.names, record.first_dealer)
        for t, action in record.actions:
            with monkeypatch.context() as m:
                seen_fast = _outcome(fast, action, t)
                _general(m)
                seen_general = _outcome(general, action, t)
            assert seen_fast == seen_general
            assert _state(fast) == _state(general)


@pytest.mark.parametrize("preset", sorted(RULES))
def test_random_swaps_legal_or_not_give_the_same_outcome(
        monkeypatch: pytest.MonkeyPatch, preset: str) -> None:
    """Random one-card (and odd) swaps, many of them refused (a card not held, a card gone, a
    stall pending, play not open, a bad seat), at random times (some going back in time, so
    the clock holds them), among stall proposals and objections, on two tables dealt alike:
    one with the fast path, one without."""
    rules = RULES[preset]
    rng = random.Random(preset)
    fast, general = Table(rules), Table(rules)
    pack = shuffled_pack(rules.deck_count, rng)
    deal = Deal(tuple(pack), 7)
    for tab in (fast, general):
        tab.apply(deal, 0.0)
    now = 0.0
    seen = {"ok": 0, "rejected": 0}
    seats: list[Any] = [*range(rules.players), -1, rules.players, True, 1.0]
    for _ in range(600):
        now += rng.choice([0.0, 0.2, 1.0, 4.0, -0.5])
        seat = rng.choice(seats) if rng.random() < 0.05 else rng.randrange(rules.players)
        hand = fast.hands[seat] if seat.__class__ is int and 0 <= seat < rules.players else []
        middle = [c for c in fast.middle if c is not None]
        take: Card = rng.choice(middle) if middle and rng.random() < 0.9 else rng.choice(pack)
        give: Card = rng.choice(hand) if hand and rng.random() < 0.9 else rng.choice(pack)
        action: Action = Swap(seat, (take,), (give,))
        if rng.random() < 0.08:
            action = ProposeStall(rng.randrange(rules.players))
        elif rng.random() < 0.05:
            action = Object(rng.randrange(rules.players))
        elif rng.random() < 0.03:
            action = Swap(seat, (take, give), (give,))
        elif rng.random() < 0.03:
            action = Swap(seat, [take], [give])  # type: ignore[arg-type]
        elif rng.random() < 0.03:
            action = Swap(seat, rng.choice([(), (take,)]), rng.choice([(), (give,)]))
        elif rng.random() < 0.03:
            action = Swap(seat, (take, rng.choice(pack)), (give, rng.choice(pack)))
        elif rng.random() < 0.02:
            action = Swap(seat, (take.text,), (give,))  # type: ignore[arg-type]
        when = float("nan") if rng.random() < 0.01 else now
        with monkeypatch.context() as m:
            seen_fast = _outcome(fast, action, when)
            _general(m)
            seen_general = _outcome(general, action, when)
        assert seen_fast == seen_general
        assert _state(fast) == _state(general)
        seen[seen_fast[0]] += 1
        if rng.random() < 0.3:  # the timers fire (a refused action put back any that were due)
            assert fast.advance(now) == general.advance(now)
        if fast.phase == "dealt" and rules.start == "on_go" and rng.random() < 0.2:
            assert _outcome(fast, Go(fast.dealer), now) == _outcome(general, Go(general.dealer), now)
        if fast.phase == "huddle":
            deal = Deal(tuple(shuffled_pack(rules.deck_count, rng)), rng.randrange(99))
            for tab in (fast, general):
                tab.apply(deal, now)
        elif fast.phase == "over":
            break
    assert seen["ok"] > 100 and seen["rejected"] > 100


@pytest.mark.parametrize("preset", ["pagat", "squarescores", "seed2-tournament",
                                    "points-to-five", "pagat-all-agree", "pagat-attention"])
def test_the_rejection_snapshot_copies_the_state_as_the_generic_copy_does(preset: str) -> None:
    """``Table._snapshot`` copies each state value by its known shape (it runs whenever a timer
    fires before an action); at every step of whole matches it equals the generic deep copy
    (``_copied``), and stays equal to it while the match goes on (nothing in it is shared with
    the table)."""
    rules = RULES[preset]
    taken: list[tuple[tuple[Any, ...], tuple[Any, ...]]] = []
    for seed in (3, 4):
        record = simulate_match(rules, seed, keep_events=False).record
        t = Table(record.rules, record.names, record.first_dealer)
        for step, (now, action) in enumerate(record.actions):
            if step % 3 == 0:
                generic = tuple(table_module._copied(getattr(t, name)) for name in _STATE)
                snapshot = t._snapshot()
                assert snapshot[1:] == generic
                assert [v.__class__ for v in snapshot[1:]] == [v.__class__ for v in generic]
                taken.append((snapshot, generic))
            t.apply(action, now)
    assert len(taken) > 30
    for snapshot, generic in taken:  # the table moved on; the copies did not
        assert snapshot[1:] == generic
