"""kemps.env.gym_env: one learning seat at a table of bots, a Gymnasium environment.

Issue 30: partner and opponents chosen separately; Gymnasium's own check_env passes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from kemps.env import EnvError, gym_env, parallel_env


@pytest.mark.parametrize(("preset", "kwargs"), [
    ("pagat", {}),
    ("points-to-five", {"pairs": 3, "seat": 4, "partner": "club", "opponents": "casual"}),
])
def test_gymnasium_check_env_passes(preset: str, kwargs: dict[str, object]) -> None:
    env = gym_env(preset=preset, **kwargs)  # type: ignore[arg-type]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    assert [str(w.message) for w in caught] == []


def test_one_seat_learns_with_its_partner_and_opponents_as_chosen() -> None:
    env = gym_env(preset="points-to-five", pairs=3, seat=1, partner="club", opponents="sharp",
                  seed=7, episode="hand")
    assert env.par.seats == (1,)
    assert env.par.bot_levels == {4: "club", 0: "sharp", 2: "sharp", 3: "sharp", 5: "sharp"}
    obs, info = env.reset()
    assert env.observation_space.contains(obs)
    again, _ = gym_env(preset="points-to-five", pairs=3, seat=1, partner="club",
                       opponents="sharp", episode="hand").reset(seed=7)
    assert np.array_equal(obs, again)  # the seed given when made is the first reset's
    # the same table as a parallel environment with seat 1 its only agent, stepped alongside
    par = parallel_env("points-to-five", pairs=3, agent_seats=[1], episode="hand",
                       bots={4: "club", 0: "sharp", 2: "sharp", 3: "sharp", 5: "sharp"})
    par.reset(seed=7)
    rng = np.random.default_rng(7)
    rewards: list[float] = []
    steps, done = 0, False
    while not done:
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, term, trunc, info = env.step(action)
        p_obs, p_rew, *_ = par.step({"seat_1": action})
        assert np.array_equal(obs, p_obs["seat_1"]) and reward == p_rew["seat_1"]
        rewards.append(float(reward))
        steps += 1
        done = term or trunc
    assert env.par.record().meta["agents"] == [1] and steps > 10
    assert env.par.record().to_json() == par.record().to_json()
    # The hand's score reached the learning seat's pair (pair 1 of 3) as its reward, no more and
    # no less (seed 7: the pair scores in this hand, 2 points at the time of writing).
    assert sum(rewards) == env.par.record_table().scores[1] != 0
    with pytest.raises(EnvError) as err:
        gym_env(seat=4)
    assert err.value.code == "bad_option"
    with pytest.raises(EnvError):
        gym_env(bots={1: "club"})
