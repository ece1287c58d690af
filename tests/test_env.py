"""kemps.env: PettingZoo's own API tests, seeding, no hidden information, exact action masks.

The environment is the research interface of issue 16: a PettingZoo Parallel environment on the
match driver (and its AEC form by PettingZoo's wrappers), observations from the seat's view only.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

from kemps.actions import Call, Gesture, Look, Swap
from kemps.env import EnvError, KempsParallelEnv, observe
from kemps.env import env as _aec_env
from kemps.env import layout as lay
from kemps.env import parallel_env as _parallel_env
from kemps.env.bench import run as bench_run
from kemps.errors import Rejected
from kemps.events import HandDealt
from kemps.record import MatchRecord, replay

# What PettingZoo's checks say of any environment whose observation is a Dict of an observation
# and an action mask (they exempt their own board games, which use the same Dict, by name):
# nothing else may come.
KNOWN_NOTES = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
)

CALLS = ("kemps", "double_kemps", "stop", "double_stop")
FORMS = ("flat", "dict")


# Most tests below read the Dict form (observation and mask side by side); the flat form, the
# default, carries the very same arrays (test_flat_and_dict_forms_carry_the_same_arrays).
def parallel_env(*args: Any, observation: str = "dict", **kw: Any) -> KempsParallelEnv:
    return _parallel_env(*args, observation=observation, **kw)


def env(*args: Any, observation: str = "dict", **kw: Any) -> Any:
    return _aec_env(*args, observation=observation, **kw)

# (preset, options): several presets and pair counts, each rule that changes the action space or
# the masks somewhere: one-card swaps and Stop on a player (S0) with a playing dealer's Go (S2
# variations row 1), grab-then-discard and double calls (S4), a dealer who is not playing (S2
# tournament row 7), the countdown start (Cash) with everyone agreeing to a fresh middle (S0).
TABLES = [
    ("pagat", {}),
    ("squarescores", {"pairs": 3, "start": "on_go"}),
    ("points-to-five", {}),
    ("seed2-tournament", {"pairs": 4}),
    ("cash", {"pairs": 2, "sweep": "all_agree"}),
    ("pagat", {"attention": True}),  # issue 11's rule: looks in the space, seen gestures only
]


def make(preset: str, options: dict[str, Any], **kw: Any) -> KempsParallelEnv:
    opts = dict(options)
    pairs = opts.pop("pairs", None)
    return parallel_env(preset, pairs=pairs, options=opts, **kw)


def make_aec(preset: str, options: dict[str, Any], **kw: Any) -> Any:
    opts = dict(options)
    pairs = opts.pop("pairs", None)
    return env(preset, pairs=pairs, options=opts, **kw)


def only_known_notes(run: Callable[[], None], form: str = "dict") -> list[str]:
    """Run a PettingZoo check; fail on any warning but, in the Dict form, the known
    Dict-observation notes (the flat form must give none at all)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    notes = [str(w.message) for w in caught]
    known = KNOWN_NOTES if form == "dict" else ()
    unknown = [m for m in notes if not m.startswith(known)] if known else notes
    assert not unknown, unknown
    return notes


def random_episode(par: KempsParallelEnv, seed: int, ticks: int = 10_000
                   ) -> Iterator[dict[str, dict[str, Any]]]:
    """Play masked-random actions, yielding the observations after every step."""
    obs, _ = par.reset(seed=seed)
    rng = np.random.default_rng(seed)
    yield obs
    for _ in range(ticks):
        if not par.agents:
            return
        actions = {}
        for a in par.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            pick = int(rng.choice(legal)) if rng.random() < 0.35 else 0
            # few calls, so that hands last long enough to reach many states
            if par.layout.name(pick)[0] in CALLS and rng.random() < 0.98:
                pick = 0
            actions[a] = pick
        obs, *_ = par.step(actions)
        yield obs


# == PettingZoo's own tests =========================================================================
# The flat form (the default) on every table; the Dict form on one (the same arrays, tested below).
@pytest.mark.parametrize(("preset", "options", "form"), [
    *[(p, o, "flat") for p, o in [*TABLES, ("pagat", {"pairs": 12})]], (*TABLES[0], "dict")])
def test_parallel_api_test(preset: str, options: dict[str, Any], form: str) -> None:
    only_known_notes(lambda: parallel_api_test(make(preset, options, observation=form),
                                               num_cycles=400), form)


@pytest.mark.parametrize(("preset", "options", "form"), [
    *[(p, o, "flat") for p, o in TABLES[:3]], (*TABLES[0], "dict")])
def test_aec_api_test(preset: str, options: dict[str, Any], form: str) -> None:
    notes = only_known_notes(lambda: api_test(make_aec(preset, options, observation=form),
                                              num_cycles=200), form)
    assert bool(notes) == (form == "dict")  # PettingZoo did look at the Dict observation


@pytest.mark.parametrize("form", FORMS)
def test_api_test_with_bots_in_some_seats(form: str) -> None:
    only_known_notes(lambda: api_test(env("pagat", agent_seats=[0, 2], bot_level="club",
                                          observation=form), num_cycles=200), form)
    only_known_notes(lambda: parallel_api_test(
        parallel_env("points-to-five", pairs=3, agent_seats=[1], bot_level="sharp",
                     observation=form), num_cycles=200), form)


@pytest.mark.parametrize(("preset", "options", "form"), [
    *[(p, o, "flat") for p, o in TABLES[:2]], (*TABLES[0], "dict")])
def test_seed_tests(preset: str, options: dict[str, Any], form: str) -> None:
    only_known_notes(lambda: seed_test(lambda: make_aec(preset, options, agent_seats=[0, 1],
                                                        observation=form), num_cycles=150), form)
    only_known_notes(lambda: parallel_seed_test(lambda: make(preset, options, observation=form),
                                                num_cycles=150), form)


def test_flat_and_dict_forms_carry_the_same_arrays() -> None:
    """The default flat form: a Box observation (no Dict for PettingZoo to warn about), the
    mask in the infos; the Dict form holds the very same arrays, step for step."""
    flat = _parallel_env("points-to-five", pairs=3, agent_seats=[0, 4], bot_level="club")
    both = parallel_env("points-to-five", pairs=3, agent_seats=[0, 4], bot_level="club")
    assert flat.observation_form == "flat"
    assert flat.observation_space("seat_0") == flat.flat_space
    assert flat.flat_space.shape == both.observation_space("seat_0")["observation"].shape
    obs_f, info_f = flat.reset(seed=9)
    obs_d, info_d = both.reset(seed=9)
    rng = np.random.default_rng(9)
    steps = 0
    while flat.agents:
        for a in flat.agents:
            assert obs_f[a].dtype == np.float32 and flat.observation_space(a).contains(obs_f[a])
            assert np.array_equal(obs_f[a], obs_d[a]["observation"])
            assert np.array_equal(info_f[a]["action_mask"], obs_d[a]["action_mask"])
            assert np.array_equal(info_d[a]["action_mask"], obs_d[a]["action_mask"])
        acts = {a: int(rng.choice(np.flatnonzero(info_f[a]["action_mask"])))
                for a in flat.agents}
        obs_f, _, _, _, info_f = flat.step(acts)
        obs_d, _, _, _, info_d = both.step(acts)
        steps += 1
    assert steps > 100 and flat.record().to_json() == both.record().to_json()
    # the documented layout: parts in order, end to end, as long as the vector
    parts = observe.parts(6, 3)
    assert [p[1] for p in parts] == [0, *np.cumsum([p[2] for p in parts])[:-1]]
    assert sum(p[2] for p in parts) == observe.size(6, 3) == flat.flat_space.shape[0]
    assert dict((p[0], p[1]) for p in parts)["picked up"] == 4 + 8 * 18 + 13


@pytest.mark.parametrize(("preset", "options"), [TABLES[0], TABLES[3]])
def test_render_test(preset: str, options: dict[str, Any]) -> None:
    def fn(render_mode: str | None = None) -> Any:
        return env(preset, pairs=options.get("pairs"), agent_seats=[0], render_mode=render_mode)

    only_known_notes(lambda: render_test(fn))
    par = parallel_env("pagat", render_mode="ansi", agent_seats=[0, 2])
    texts = []
    for _ in random_episode(par, seed=3, ticks=200):
        text = par.render()
        assert isinstance(text, str)
        texts.append(text)
    joined = "\n".join(texts)
    assert "deals." in joined and "middle" in joined  # the narration, kemps.narrate's lines
    assert parallel_env("pagat").render() is None


# == seeding ======================================================================================
def test_same_seed_same_episode_and_record_replays() -> None:
    def episode(seed: int) -> tuple[list[Any], str]:
        par = parallel_env("pagat", agent_seats=[0, 2], bot_level="club")
        seen = [{a: o["observation"].tobytes() for a, o in obs.items()}
                for obs in random_episode(par, seed)]
        return seen, par.record().to_json()

    first, record = episode(11)
    again, record_again = episode(11)
    _, record_other = episode(12)
    assert first == again and record == record_again
    assert record != record_other
    # The episode is a match record that replays (``kemps replay`` reads the same JSON).
    loaded = MatchRecord.from_json(record)
    done = replay(loaded)
    assert json.loads(record)["meta"]["agents"] == [0, 2]
    assert done.table.phase == "over"


def test_reset_without_seed_continues_the_seeded_sequence() -> None:
    a, b = parallel_env("pagat"), parallel_env("pagat")
    a.reset(seed=5)
    b.reset(seed=5)
    oa, _ = a.reset()
    ob, _ = b.reset()
    assert a.record().meta["seed"] == b.record().meta["seed"]
    assert all(np.array_equal(oa[k]["observation"], ob[k]["observation"]) for k in oa)


def test_ties_inside_a_tick_are_broken_by_the_seeded_draw_and_faster_goes_first() -> None:
    """Two agents reach for the same middle card in the same tick: with equal reaction offsets
    the seeded draw decides who gets it (S1 "the first player to touch it gets it"), and it
    differs between seeds; with a faster offset, the faster always does."""
    def race(seed: int, reaction: dict[int, float]) -> tuple[str | None, str | None]:
        par = parallel_env("pagat", reaction_s=reaction, min_gap_s=0.0, huddle_s=0.0)
        par.reset(seed=seed)
        while par.driver is not None and par.driver.table.phase != "play":
            par.step({})
        take = lay.start_of(par.layout, "swap")  # middle slot 0 for hand slot 0
        _, _, _, _, infos = par.step({"seat_0": take, "seat_1": take})
        return infos["seat_0"]["rejected"], infos["seat_1"]["rejected"]

    winners = {race(seed, {}) for seed in range(12)}
    assert winners == {(None, "card_gone"), ("card_gone", None)}
    for seed in range(6):
        assert race(seed, {0: 0.05}) == ("card_gone", None)
        assert race(seed, {1: 0.05}) == (None, "card_gone")


# == nothing hidden ===============================================================================
def _shuffle_hidden(par: KempsParallelEnv, seat: int, rng: random.Random) -> bool:
    """Replace every card hidden from ``seat``: other hands (not yet shown) and the stock get the
    same cards in another order, and the deal events of the last tick follow. True when something
    hidden changed."""
    assert par.driver is not None
    table = par.driver.table
    others = [s for s in range(table.n) if s != seat and s not in table.revealed]
    pool = [c for s in others for c in table.hands[s]] + list(table.stock)
    before = [list(table.hands[s]) for s in others], list(table.stock)
    rng.shuffle(pool)
    for s in others:
        k = len(table.hands[s])
        table.hands[s], pool = pool[:k], pool[k:]
    table.stock = pool
    par._events = [e if not isinstance(e, HandDealt) else dataclasses.replace(
        e, hands=tuple(tuple(table.hands[s]) if s in others else h
                       for s, h in enumerate(e.hands))) for e in par._events]
    return before != ([list(table.hands[s]) for s in others], list(table.stock))


@pytest.mark.parametrize(("preset", "options"), [TABLES[0], TABLES[1], TABLES[2]])
def test_observation_never_depends_on_hidden_cards(preset: str, options: dict[str, Any]) -> None:
    """A property over random episodes: put other hands' cards and the stock in another order
    and every agent's observation (and mask) stays equal (S0 "everybody else keeps their cards
    hidden"; the view road of kemps.views)."""
    rng = random.Random(7)
    changed = 0
    for seed in range(3):
        par = make(preset, options)
        for i, _ in enumerate(random_episode(par, seed, ticks=400)):
            if i % 9 or not par.agents:
                continue
            for agent, seat in zip(par.possible_agents, par.seats):
                before = par.observe_seat(seat)
                twin = copy.deepcopy(par)
                changed += _shuffle_hidden(twin, seat, rng)
                after = twin.observe_seat(seat)
                assert np.array_equal(before["observation"], after["observation"]), agent
                assert np.array_equal(before["action_mask"], after["action_mask"]), agent
    assert changed > 20  # the property was tried on states that had something to hide


def test_observation_shows_own_cards_and_public_moves() -> None:
    """The other side of the property: what the seat may see does change its observation."""
    par = parallel_env("pagat", huddle_s=0.0)
    obs, _ = par.reset(seed=2)
    while par.driver is not None and par.driver.table.phase != "play":
        obs, *_ = par.step({})
    before = obs["seat_0"]["observation"]
    twin = copy.deepcopy(par)
    assert twin.driver is not None
    table = twin.driver.table
    table.hands[0][0], table.stock[-1] = table.stock[-1], table.hands[0][0]
    assert not np.array_equal(before, twin.observe_seat(0)["observation"])
    gesture = lay.start_of(par.layout, "gesture") + lay.GESTURES.index("wink")
    obs, *_ = par.step({"seat_1": gesture})
    after = par.observe_seat(0)["observation"]
    twin2 = copy.deepcopy(par)
    twin2._events = []
    assert not np.array_equal(after, twin2.observe_seat(0)["observation"])


# == the action mask ==============================================================================
class _Trial:
    """Would the table accept an index from a seat now? Tried on a copy of the table (a refusal
    leaves the copy as it was, so a new copy is made only after an acceptance)."""

    def __init__(self, par: KempsParallelEnv) -> None:
        assert par.driver is not None
        self.par, self.table = par, par.driver.table
        self.copy = copy.deepcopy(self.table)

    def accepted(self, seat: int, index: int) -> bool:
        par = self.par
        action = par.decode(par.possible_agents[par.seats.index(seat)], index)
        if action is None:
            return False
        try:
            self.copy.apply(action, par.now + par.reaction_s[seat])
        except Rejected:
            return False
        self.copy = copy.deepcopy(self.table)
        return True


@pytest.mark.parametrize(("preset", "options"), TABLES)
def test_action_mask_is_exactly_the_accepted_actions(preset: str, options: dict[str, Any]
                                                     ) -> None:
    """On sampled states, an index is in the mask exactly when the table accepts its action (the
    no-op always; nothing while the seat cools down, as the driver's minimum gap says)."""
    par = make(preset, options)
    kinds: set[str] = set()
    for i, obs in enumerate(random_episode(par, seed=4, ticks=600)):
        if i % 7 or not par.agents:
            continue
        trial = _Trial(par)
        for agent, seat in zip(par.possible_agents, par.seats):
            mask = obs[agent]["action_mask"]
            cooling = par._cooling(seat, par.now + par.reaction_s[seat])
            for index in range(1, par.layout.size):
                ok = not cooling and trial.accepted(seat, index)
                assert mask[index] == ok, (agent, par.layout.name(index), par.driver.table
                                           .state_text() if par.driver else None)
                if ok:
                    kinds.add(par.layout.name(index)[0])
            assert mask[0] == 1
    also = {"squarescores": {"go", "object"}, "cash": {"stall"},
            "points-to-five": {"grab", "discard", "double_kemps", "double_stop"}}
    if options.get("attention"):
        also["pagat"] = {"look", "look_middle"}
    assert {"swap", "gesture", "kemps", "stop", "agree", "agree_add"} | also.get(preset, set()) \
        <= kinds, kinds


def test_grab_then_discard_mask_tracks_the_picked_up_card() -> None:
    """S4: after picking up, the seat may discard any card but the one it just picked up (S1
    "Discard a different card"), and may not swap until it has discarded."""
    par = parallel_env("points-to-five", huddle_s=0.0, min_gap_s=0.0)
    obs, _ = par.reset(seed=1)
    while par.driver is not None and par.driver.table.phase != "play":
        obs, *_ = par.step({})
    grab = lay.start_of(par.layout, "grab")
    obs, _, _, _, infos = par.step({"seat_0": grab})
    assert infos["seat_0"]["rejected"] is None
    mask = obs["seat_0"]["action_mask"]
    discard = lay.start_of(par.layout, "discard")
    assert list(mask[discard:discard + 5]) == [1, 1, 1, 1, 0]  # the fifth card is the grabbed
    # ... and the observation says which hand slot holds the picked-up card
    picked = obs["seat_0"]["observation"][4 + 8 * 18 + 13:4 + 8 * 18 + 13 + 8]
    assert list(picked) == [0, 0, 0, 0, 1, 0, 0, 0]
    assert not mask[lay.start_of(par.layout, "swap"):grab].any()


def test_decode_names_the_cards_the_agent_saw() -> None:
    par = parallel_env("pagat", huddle_s=0.0)
    par.reset(seed=9)
    while par.driver is not None and par.driver.table.phase != "play":
        par.step({})
    view = par._acted_on[0]
    two = lay.start_of(par.layout, "swap") + 16  # middle slots (0, 1) for hand slots (0, 1)
    assert par.decode("seat_0", two) == Swap(0, (view.middle[0], view.middle[1]),
                                            (view.hand[0], view.hand[1]))
    assert par.decode("seat_0", lay.start_of(par.layout, "kemps")) == Call(0, "kemps")
    stop = lay.start_of(par.layout, "stop")
    assert par.decode("seat_0", stop + 1) == Call(0, "stop", on_pair=1)
    assert par.decode("seat_0", stop + 2) is None  # a pair target is listed once
    g = lay.start_of(par.layout, "gesture")
    assert par.decode("seat_0", g) == Gesture(0, lay.GESTURES[0])
    assert par.decode("seat_0", 0) is None
    for agent, index in (("seat_7", 0), ("seat_0", -1), ("seat_0", par.layout.size)):
        with pytest.raises(EnvError):
            par.decode(agent, index)


def test_layout_blocks_are_stable() -> None:
    """Indices keep their meaning; the attention rule's look filled the block reserved for it,
    and the look at the middle came as a block of its own after the last (layout version 2).
    At a table without attention no look is ever in the mask."""
    layout = lay.ActionLayout(4)
    assert [b[0] for b in layout.blocks] == [
        "noop", "swap", "grab", "discard", "stall", "object", "go", "gesture", "kemps",
        "double_kemps", "stop", "double_stop", "agree", "agree_add", "look", "look_middle"]
    assert layout.size == 1 + 69 + 4 + 8 + 3 + 22 + 2 + 4 + 4 + 22 + 22 + 4 + 1 == 154 + 3 * 4
    assert layout.name(layout.size - 1) == ("look_middle", 0) and layout.version == 2
    with pytest.raises(ValueError):
        layout.name(layout.size)
    par = parallel_env("pagat", huddle_s=0.0)
    obs, _ = par.reset(seed=1)
    look = layout.start("look")
    for _ in range(40):
        assert not obs["seat_0"]["action_mask"][look:].any()
        obs, *_ = par.step({})
    assert par.decode("seat_0", look + 1) == Look(0, 1)
    assert par.decode("seat_0", look) == Look(0, "hand")
    assert par.decode("seat_0", layout.start("look_middle")) == Look(0, "middle")


# == episodes, rewards, bad input ==================================================================
def test_an_episode_against_club_bots_finishes() -> None:
    par = parallel_env("pagat", agent_seats=[0, 2], bot_level="club")
    total = {a: 0.0 for a in par.possible_agents}
    obs, _ = par.reset(seed=21)
    rng = np.random.default_rng(0)
    steps = 0
    while par.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in par.agents}
        obs, rewards, terms, truncs, _ = par.step(actions)
        steps += 1
        for a, r in rewards.items():
            total[a] += r
    assert par.driver is not None and par.driver.table.phase == "over"
    assert terms == {"seat_0": True, "seat_2": True} and not any(truncs.values())
    table = par.driver.table
    # Rewards per pair: -1 a letter, then +-1 for the match (two pairs: first +1, last -1).
    ranks = table.ranks
    assert ranks is not None
    assert total["seat_0"] == total["seat_2"] == -table.scores[0] + (1 if ranks[0] == 1 else -1)


def test_one_hand_episode_ends_with_the_hand() -> None:
    par = parallel_env("points-to-five", pairs=3, episode="hand", agent_seats=[0],
                       bot_level="casual")
    for _ in random_episode(par, seed=5):
        pass
    assert par.driver is not None and par.driver.table.hand_no == 1
    assert par.driver.table.phase in ("huddle", "over")


def test_rewards_in_points_with_three_pairs() -> None:
    """Points scoring (S4): +1 a point to both partners; at the end +1 first, 0 second, -1 last."""
    par = parallel_env("points-to-five", pairs=3, max_ticks=4000)
    total = dict.fromkeys(par.possible_agents, 0.0)
    obs, _ = par.reset(seed=8)
    rng = np.random.default_rng(8)
    while par.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                   if rng.random() < 0.2 else 0 for a in par.agents}
        obs, rewards, *_ = par.step(actions)
        for a, r in rewards.items():
            total[a] += r
    table = par.record_table()
    assert table.ranks is not None  # the match ended (points come fast from wrong calls)
    for seat, agent in enumerate(par.possible_agents):
        pair = seat % 3
        assert total[agent] == table.scores[pair] + {1: 1.0, 2: 0.0, 3: -1.0}[table.ranks[pair]]


def test_truncation_after_max_ticks() -> None:
    par = parallel_env("pagat", max_ticks=5)
    par.reset(seed=1)
    for _ in range(4):
        _, _, _, truncs, _ = par.step({})
        assert not any(truncs.values())
    _, _, terms, truncs, _ = par.step({})
    assert all(truncs.values()) and not any(terms.values()) and par.agents == []


def test_bad_input_is_refused_and_changes_nothing() -> None:
    par = parallel_env("pagat")
    with pytest.raises(EnvError) as err:
        par.step({})
    assert err.value.code == "no_episode"
    par.reset(seed=1)
    before = par.record().to_json(), par.tick
    for bad in ({"seat_0": -1}, {"seat_0": 10_000}, {"seat_0": 1.5}, {"seat_0": True},
                {"seat_9": 0}, {"seat_0": "swap"}):
        with pytest.raises(EnvError) as err:
            par.step(bad)
        assert err.value.code == "bad_action"
    assert (par.record().to_json(), par.tick) == before
    with pytest.raises(EnvError):
        par.reset(seed="one")  # type: ignore[arg-type]
    a, b = parallel_env("pagat"), parallel_env("pagat")
    a.reset(seed=np.int64(4))
    b.reset(seed=4)
    assert a.record().meta["seed"] == b.record().meta["seed"]
    for kwargs in ({"episode": "set"}, {"tick_s": 0}, {"agent_seats": [7]}, {"bots": {9: "club"}},
                   {"agent_seats": []}, {"reaction_s": -1}, {"render_mode": "rgb_array"},
                   {"agent_seats": [0], "bots": {0: "club"}}, {"agent_seats": [0],
                                                               "reaction_s": {1: 0.1}},
                   {"observation": "tuple"}):
        with pytest.raises(EnvError) as err:
            parallel_env("pagat", **kwargs)
        assert err.value.code == "bad_option"


def test_cooling_down_leaves_only_the_noop() -> None:
    par = parallel_env("pagat", huddle_s=0.0)
    obs, _ = par.reset(seed=3)
    gesture = lay.start_of(par.layout, "gesture")
    obs, _, _, _, infos = par.step({"seat_0": gesture})
    assert infos["seat_0"]["rejected"] is None
    assert obs["seat_0"]["action_mask"].sum() == 1  # 0.1 s later: inside the 0.25 s gap
    obs, _, _, _, infos = par.step({"seat_0": gesture})
    assert infos["seat_0"]["rejected"] == "too_soon"
    par.step({})
    obs, *_ = par.step({})
    assert obs["seat_0"]["action_mask"].sum() > 1


# == the benchmark ================================================================================
def test_benchmark_runs_and_replays_the_same_table_work() -> None:
    """The benchmark's floors (the same matches through Table.apply, and the same actions
    through the driver alone, which must reproduce the environment's match records) and its
    vector run give every figure, in the same run; no timing is asserted."""
    result = bench_run(ticks=300, repeats=1, seed=1, best_of=1, tables=4, vector_steps=2)
    assert result["same_records"] is True
    (run,) = result["runs"]
    assert run["steps"] >= 300 and run["matches"] >= 1
    assert run["applies"] > run["matches"]  # at least a deal and a move a match
    assert result["step_per_apply"] == pytest.approx(run["step_us"] / run["apply_us"])
    assert result["env_per_driver"] == pytest.approx(
        run["env_steps_per_s"] / run["driver_ticks_per_s"])
    assert result["vector_seat_actions_per_cpu_s"] > 0
    assert len(result["load"]) == 2


def test_a_reaction_of_more_than_a_tick_applies_the_action_later() -> None:
    """An agent with a 0.35 s reaction acts on what it saw 0.35 s of table time before."""
    par = parallel_env("pagat", agent_seats=[0], reaction_s=0.35, huddle_s=0.0)
    par.reset(seed=2)
    gesture = lay.start_of(par.layout, "gesture") + lay.GESTURES.index("nod")
    par.step({"seat_0": gesture})
    mine = [t for t, a in par.record().actions if a.seat == 0]
    assert mine == []  # not yet: due at 0.35 s, the tick ended at 0.1 s
    for _ in range(3):
        par.step({})
    mine = [t for t, a in par.record().actions if a.seat == 0]
    assert mine == [pytest.approx(0.35)]


def test_example_random_agent_against_club_bots() -> None:
    from kemps.env.example import play

    (result,) = play(matches=1, seed=3)
    assert result["rank"] in (1, 2) and result["ticks"] > 0
    assert result["reward"] == -result["scores"][0] + (1 if result["rank"] == 1 else -1)


def test_an_episode_saved_as_a_record_replays_with_kemps_replay(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kemps.cli import app

    par = parallel_env("pagat", agent_seats=[0, 2], bot_level="club")
    for _ in random_episode(par, seed=6):
        pass
    path = tmp_path / "episode.json"
    par.record().save(path)
    result = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    table = par.record_table()
    assert data["over"] is True
    assert [p["score"] for p in data["pairs"]] == table.scores
