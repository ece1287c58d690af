"""The ``learned`` bot level (kemps.bots.learned) and its training script (kemps.env.train):
a short training run end to end, weights that load and play, seeded matches that repeat, the
arena and a room seating the level, and the action encoding it is labelled with.

Issue 30: "a trained agent ... the trained weights shipped in the package (small) as a bot level
(`learned`) that rooms and the arena can seat, playing with numpy alone".
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import numpy as np
import pytest

from kemps.actions import action_to_dict
from kemps.arena import run_arena
from kemps.bots import LEVELS, make_bot
from kemps.bots.learned import (
    WEIGHTS_FILE,
    LearnedBot,
    LearnedPolicy,
    Network,
    derived_size,
    encode_action,
    shipped_network,
)
from kemps.bots.levels import bot_factory
from kemps.env import layout as lay
from kemps.env import observe, parallel_env
from kemps.env.train import main as train_main
from kemps.errors import KempsError
from kemps.events import Called, Gestured, StallProposed, Swapped
from kemps.rules import find_preset
from kemps.sim import simulate_match
from kemps.views import view_for

PAGAT = find_preset("pagat")
SHORT = PAGAT.replace(target=2)  # two letters lose: short matches


def test_a_short_training_run_writes_weights_that_load_and_play(tmp_path: Path) -> None:
    out = tmp_path / "w.npz"
    assert train_main(["--rounds", "2", "--matches", "1", "--epochs", "1", "--hidden", "16",
                       "--seed", "3", "--out", str(out)]) == 0
    net = Network.load(out)
    assert net.inputs == observe.size(4, 2) and net.outputs == lay.ActionLayout(4).size
    assert [w.shape for w, _ in net.layers] == [(observe.size(4, 2) + derived_size(4), 16),
                                                 (16, 166)]
    # the new weights play as the learned level
    bots = [lambda s, r, g: LearnedBot(s, r, g, network=net), bot_factory("simple")] * 2
    result = simulate_match(SHORT, 5, bots=bots, keep_events=False, max_time_s=300.0)
    assert result.actions > 10


def test_bad_weights_are_refused_with_a_code(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    np.savez(bad, W0=np.zeros((3, 4)), b0=np.zeros(5))
    with pytest.raises(KempsError) as err:
        Network.load(bad)
    assert err.value.code == "bad_weights"
    small = Network([(np.zeros((10, 166), np.float32), np.zeros(166, np.float32))])
    with pytest.raises(KempsError) as err:
        LearnedBot(0, PAGAT, random.Random(1), network=small)
    assert err.value.code == "bad_weights"


def test_the_shipped_weights_are_small_and_fit_a_two_pair_table() -> None:
    import kemps.bots

    path = Path(kemps.bots.__file__).parent / WEIGHTS_FILE
    assert path.stat().st_size < 400_000
    net = shipped_network()
    assert net.inputs == observe.size(4, 2) and net.outputs == lay.ActionLayout(4).size
    assert "learned" in LEVELS
    with pytest.raises(KempsError) as err:  # trained for two pairs: three are refused
        make_bot("learned", 0, PAGAT.replace(pairs=3), random.Random(1))
    assert err.value.code == "bad_weights"


def test_a_seeded_match_with_learned_bots_repeats_exactly() -> None:
    def once() -> str:
        bots = [bot_factory("learned"), bot_factory("simple")] * 2
        result = simulate_match(SHORT, 11, bots=bots, keep_events=False)
        assert result.finished
        return json.dumps(result.record.to_dict(), sort_keys=True)

    first = once()
    assert once() == first
    moves = json.loads(first)
    assert any(a.get("seat") in (0, 2) and a["type"] in ("swap", "gesture", "call")
               for a in moves["actions"]), "the learned seats never moved"


def test_the_arena_seats_the_learned_level() -> None:
    [pairing] = run_arena(SHORT, ["learned", "simple"], 2, seed=4)
    assert {pairing.first, pairing.second} == {"learned", "simple"} and pairing.matches == 2
    assert pairing.first_wins + pairing.second_wins + pairing.draws == 2


def test_the_policy_for_kemps_agent_takes_an_allowed_action() -> None:
    par = parallel_env("pagat", agent_seats=[0], bot_level="simple")
    obs, infos = par.reset(seed=2)
    chosen = []
    policy = LearnedPolicy()
    policy.seed(5)
    for _ in range(200):
        mask = infos["seat_0"]["action_mask"]
        index = policy(obs["seat_0"], mask)
        assert mask[index] == 1
        chosen.append(index)
        obs, _, _term, _trunc, infos = par.step({"seat_0": index})
        if not par.agents:
            break
    assert any(i != 0 for i in chosen)


def test_encode_action_is_the_inverse_of_decode_on_every_allowed_index() -> None:
    """Every action the mask allows, decoded on the view and encoded again, gives its index
    (the labels of the training script are exact)."""
    rules = PAGAT.replace(multi_swap=True)
    par = parallel_env(rules, agent_seats=[0, 1], bot_level="club")
    layout = lay.ActionLayout(4)
    _, infos = par.reset(seed=9)
    checked = 0
    for _ in range(150):
        for agent in par.agents:
            seat = int(agent.split("_")[1])
            view = view_for(par.record_table(), seat)
            for index in np.flatnonzero(infos[agent]["action_mask"]):
                action = lay.decode(layout, int(index), view, rules)
                if action is None:
                    continue
                assert encode_action(4, action, view, rules) == index, action_to_dict(action)
                checked += 1
        actions = {a: par.action_space(a).sample(mask=infos[a]["action_mask"]) for a in par.agents}
        _obs, _, _, _, infos = par.step(actions)
        if not par.agents:
            break
    assert checked > 500


def test_a_room_seats_learned_bots_and_they_play(tmp_path: Path) -> None:
    from kemps.server.room import Room
    from kemps.server.settings import Settings
    from kemps.server.storage import Storage, Writer

    async def run() -> tuple[set[int], list[type]]:
        storage = Storage(f"sqlite+aiosqlite:///{tmp_path / 'k.db'}")
        await storage.start()
        writer = Writer(storage)
        writer.start()
        room = Room("LRND1", PAGAT, Settings(huddle_s=30.0, bot_huddle_s=0.05), writer)
        room.take_seat(0, "Alice")
        room.fill_with_bots("learned")
        room.start()
        room.handle_action(0, {"type": "agree_signals", "signals": ["touch_ear"]})
        room.mark_ready(0)
        learned = {s for s, b in (room.driver.bots.items() if room.driver else ())
                   if isinstance(b, LearnedBot)}
        moved: list[type] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 45.0
        while loop.time() < deadline:
            log = room.driver.log if room.driver is not None else []
            moved = [e.__class__ for e in log if isinstance(
                e, Swapped | Gestured | Called | StallProposed) and e.seat in learned]
            if moved:
                break
            await asyncio.sleep(0.1)
        room.close()
        await writer.stop()
        await storage.close()
        return learned, moved

    learned, moved = asyncio.run(run())
    assert learned == {1, 2, 3}
    assert moved, "no learned bot moved within 45 s of the deal"
