"""kemps.env.vector_env: many tables stepped in one call, each exactly a single environment.

Issue 30: a vectorised environment with the engine's rules unchanged (the same records, proven
against the bare match driver), its observations and masks batched as numpy arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kemps.env import EnvError, KempsVectorEnv, parallel_env, vector_env
from kemps.env.bench import driver_replay


def _play(vec: KempsVectorEnv, ticks: int, seed: int) -> list[dict[str, Any]]:
    """Masked-random actions for ``ticks`` steps; every step's arrays (copied)."""
    rng = np.random.default_rng(seed)
    obs, infos = vec.reset()
    out = [{"obs": obs.copy(), "mask": infos["action_mask"].copy()}]
    for _ in range(ticks):
        actions = vec.sample_actions(rng)
        obs, rewards, term, trunc, infos = vec.step(actions)
        out.append({"actions": actions, "obs": obs.copy(), "mask": infos["action_mask"].copy(),
                    "rewards": rewards.copy(), "term": term.copy(), "trunc": trunc.copy(),
                    "final_obs": infos.get("final_obs", {}),
                    "final_record": infos.get("final_record", {})})
    return out


@pytest.mark.parametrize(("preset", "options"), [
    ("pagat", {"episode": "hand"}),
    ("points-to-five", {"pairs": 3, "agent_seats": [0, 3], "bot_level": "club",
                        "episode": "hand"}),
])
def test_each_table_is_a_single_environment_step_for_step(preset: str, options: dict[str, Any]
                                                          ) -> None:
    """Table i of a vector environment seeded s plays what parallel_env(...).reset(seed=s + i)
    plays given the same actions: the same observations, masks, rewards, ends, and after an
    end (autoreset, same step) the same next episode as the single environment's reset()."""
    vec = vector_env(3, preset, seed=40, **options)
    steps = _play(vec, 250, seed=1)
    k = len(vec.seats)
    assert steps[0]["obs"].shape == (3, k, vec.single_observation_space.shape[1])
    assert steps[0]["mask"].shape == (3, k, vec.layout.size)
    ends = 0
    for i in range(3):
        par = parallel_env(preset, **options)
        obs, infos = par.reset(seed=40 + i)
        agents = par.possible_agents
        assert np.array_equal(np.stack([obs[a] for a in agents]), steps[0]["obs"][i])
        for step in steps[1:]:
            acts = {a: int(step["actions"][i, j]) for j, a in enumerate(agents)}
            obs, rew, term, trunc, infos = par.step(acts)
            now = np.stack([obs[a] for a in agents])
            assert np.array_equal([rew[a] for a in agents], step["rewards"][i])
            assert bool(term[agents[0]]) == step["term"][i]
            assert bool(trunc[agents[0]]) == step["trunc"][i]
            if not par.agents:  # ended: the vector's final observation, then the next episode
                ends += 1
                assert np.array_equal(now, step["final_obs"][i])
                assert step["final_record"][i].to_json() == par.record().to_json()
                obs, infos = par.reset()
                now = np.stack([obs[a] for a in agents])
            else:
                assert i not in step["final_obs"]
            assert np.array_equal(now, step["obs"][i])
            assert np.array_equal(np.stack([infos[a]["action_mask"] for a in agents]),
                                  step["mask"][i])
    assert ends >= 3  # the autoreset was crossed


def test_records_equal_the_bare_driver_replay() -> None:
    """The rules are unchanged: every whole match the vector environment played, replayed
    through a bare MatchDriver (same seed, the agents' accepted actions at their times, no
    environment), gives the very same record, byte for byte."""
    vec = vector_env(4, "pagat", seed=7, agent_seats=[0, 2], bot_level="club")
    rng = np.random.default_rng(7)
    vec.reset()
    records = []
    for _ in range(3000):
        _, _, term, _, infos = vec.step(vec.sample_actions(rng))
        records += [infos["final_record"][i] for i in np.flatnonzero(term)]
        if len(records) >= 3:
            break
    assert len(records) >= 3
    for record in records:
        assert record.to_json() == driver_replay(vec.tables[0], record).to_json()
        assert record.meta["agents"] == [0, 2]


def test_spaces_masks_and_bad_input() -> None:
    vec = vector_env(5, "pagat", seed=3)
    obs, infos = vec.reset()
    assert vec.observation_space.contains(obs)
    assert vec.mask_space.contains(infos["action_mask"])
    assert (infos["action_mask"][:, :, 0] == 1).all()  # the no-op is always allowed
    rng = np.random.default_rng(0)
    for _ in range(40):  # past the huddle: masked-random actions are all legal
        acts = vec.sample_actions(rng)
        assert vec.action_space.contains(acts)
        assert np.take_along_axis(infos["action_mask"], acts[:, :, None], 2).all()
        obs, rewards, term, trunc, infos = vec.step(acts)
        assert not infos["rejected"][acts == 0].any()
        assert rewards.shape == (5, 4) and term.shape == trunc.shape == (5,)
    for bad in (np.zeros((5, 3), np.int64), np.zeros((5, 4)), np.full((5, 4), 10_000)):
        with pytest.raises(EnvError) as err:
            vec.step(bad)
        assert err.value.code == "bad_action"
    for kwargs in ({"num_envs": 0}, {"num_envs": 2, "render_mode": "ansi"},
                   {"num_envs": 2, "tick_s": 0}):
        with pytest.raises(EnvError) as err:
            vector_env(**kwargs)
        assert err.value.code == "bad_option"
    with pytest.raises(EnvError):
        vector_env(2).step(np.zeros((2, 4), np.int64))  # before reset
