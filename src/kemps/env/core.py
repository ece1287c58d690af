"""Kemps as a PettingZoo Parallel environment, on the match driver, in ticks of table time.

One environment step is one tick of ``tick_s`` seconds of table time (default 0.1 s). Each agent
(a seat not played by a bot) gives one action a tick, an index of :mod:`kemps.env.layout`, chosen
on the observation of the tick before. Inside a tick ``[t, t + tick_s)``:

1. Each agent's action is due at ``t + reaction_s[agent]`` (its reaction offset; an offset of a
   tick or more applies it in a later tick). Due actions are applied in time order, the faster
   first; actions due at the same time go in an order drawn each tick from the episode's seeded
   generator.
2. Before each agent action, the driver runs everything due up to its time (deals, the table's
   timers, the bots' moves): at equal times the table and the bots go first.
3. At the end the driver runs everything due up to ``t + tick_s`` (excluded from the next tick).

An action the table refuses (a card someone else took first, a call after the hand ended) changes
nothing; the agent's info says ``rejected`` with the table's code. Like a person's hands, an
agent never acts twice within ``min_gap_s`` (the driver's :data:`kemps.driver.MIN_GAP_S`, which
the bots keep too): while it cools down, only the no-op is in its mask (others are refused with
``too_soon``).

Observations (:mod:`kemps.env.observe`) come from the seat's view and the events it saw: nothing
hidden. Rewards are per pair, the same for both partners: each letter the pair takes is -1 (with
``scoring="letters"``), each point it scores +1 (``"points"``); when the match ends each pair
gets ``win_reward * (1 - 2 (rank - 1) / (pairs - 1))``: +``win_reward`` for first place (shared
ranks share it), -``win_reward`` for last.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import ParallelEnv

from kemps.actions import Action, action_to_dict
from kemps.bots import make_bot
from kemps.bots.base import Bot
from kemps.cards import Card
from kemps.driver import MIN_GAP_S, READY_HUDDLE_S, MatchDriver, Step
from kemps.env import layout as lay
from kemps.env import observe
from kemps.errors import KempsError, Rejected
from kemps.events import (
    Discarded,
    Event,
    Grabbed,
    HandDealt,
    HandEnded,
    HoldExpired,
    MatchEnded,
    Scored,
    Swept,
)
from kemps.narrate import describe
from kemps.record import MatchRecord
from kemps.rules import RuleSet, find_preset
from kemps.sim import default_names
from kemps.table import Table
from kemps.views import SeatView, events_for, letters_text, view_for

#: Seconds of table time in one step.
TICK_S: Final = 0.1
Episode = Literal["hand", "match"]
#: ``"flat"``: an agent's observation is the flat vector (its mask in ``infos[agent]
#: ["action_mask"]``); ``"dict"``: a Dict of ``observation`` and ``action_mask``.
ObservationForm = Literal["flat", "dict"]
AgentObs = dict[str, npt.NDArray[Any]]
Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]


class EnvError(KempsError):
    """A bad environment option or action (codes ``bad_option``, ``bad_action``)."""


def agent_name(seat: int) -> str:
    """The agent id of ``seat``: ``"seat_0"``..."""
    return f"seat_{seat}"


class KempsParallelEnv(ParallelEnv):  # type: ignore[misc]  # PettingZoo is untyped
    """A Kemps table as a PettingZoo :class:`ParallelEnv` (see the module docstring).

    Attributes: ``possible_agents`` / ``agents`` (``"seat_S"``), ``rules``, ``layout``
    (:class:`kemps.env.layout.ActionLayout`), ``driver`` (the current episode's
    :class:`kemps.driver.MatchDriver`), ``tick`` (steps taken this episode), ``now`` (table
    seconds).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "kemps_v0",
                                "is_parallelizable": True}

    def __init__(self, rules: RuleSet | str = "pagat", *, pairs: int | None = None,
                 options: Mapping[str, Any] | None = None, episode: Episode = "match",
                 agent_seats: Sequence[int] | None = None, bot_level: str = "club",
                 bot_speed: str | None = None, bots: Mapping[int, str] | None = None,
                 tick_s: float = TICK_S, reaction_s: float | Mapping[int, float] = 0.0,
                 min_gap_s: float = MIN_GAP_S, huddle_s: float = READY_HUDDLE_S,
                 max_ticks: int | None = None, win_reward: float = 1.0,
                 render_mode: str | None = None, observation: ObservationForm = "flat"
                 ) -> None:
        """Args:
            rules: a :class:`RuleSet` or a preset name (``"pagat"``, ``"points-to-five"``...).
            pairs: the number of pairs (2..12), replacing the rules' own.
            options: rule options on top (``{"double_calls": True}``), validated by the rules.
            episode: ``"match"`` (until the match ends) or ``"hand"`` (until the first hand ends).
            agent_seats: the seats played by agents (default: every seat not in ``bots``).
            bot_level / bot_speed: the level and speed of the bots in the other seats
                (:data:`kemps.bots.LEVELS`, :data:`kemps.bots.SPEEDS`).
            bots: seat -> level for particular bot seats (overrides ``bot_level``).
            tick_s: seconds of table time per step (0.01..1).
            reaction_s: each agent's reaction offset in seconds (0..5), one for all or per seat.
            min_gap_s: no agent acts twice within this many seconds (0 turns it off).
            huddle_s: seconds between hands (and before the first deal) for signal agreements.
            max_ticks: truncate the episode after this many steps (default: 6,000 for a hand,
                60,000 for a match: 10 and 100 minutes of table time at 0.1 s).
            win_reward: the size of the match-end reward (0 turns it off).
            render_mode: ``"ansi"`` (render returns the tick's narration) or ``"human"``
                (prints it), or None.
            observation: ``"flat"`` (default): each agent's observation is the flat float32
                vector of :mod:`kemps.env.observe` and its action mask (int8, one per action)
                is ``infos[agent]["action_mask"]``; ``"dict"``: a Dict of the two
                (``{"observation": ..., "action_mask": ...}``; the mask is in the infos too).

        Raises:
            EnvError: ``bad_option`` naming what is wrong; RuleError from the rules.
        """
        base = find_preset(rules) if isinstance(rules, str) else rules
        changes = dict(options or {})
        if pairs is not None:
            changes["pairs"] = pairs
        self.rules: RuleSet = base.replace(**changes) if changes else base
        n = self.rules.players
        bot_levels = dict(bots or {})
        for seat in bot_levels:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise EnvError("bad_option", f"bots: there is no seat {seat!r} (0..{n - 1}).")
        if agent_seats is None:
            seats = [s for s in range(n) if s not in bot_levels]
        else:
            seats = sorted(set(agent_seats))
            if any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < n
                   for s in seats):
                raise EnvError("bad_option", f"agent_seats must be seats from 0 to {n - 1}.")
            if set(seats) & set(bot_levels):
                raise EnvError("bad_option", "A seat cannot be both an agent and a bot.")
        if not seats:
            raise EnvError("bad_option", "At least one seat must be an agent.")
        for s in range(n):
            if s not in seats and s not in bot_levels:
                bot_levels[s] = bot_level
        for level in set(bot_levels.values()):
            make_bot(level, 0, self.rules, random.Random(0), bot_speed)  # validates the names
        if episode not in ("hand", "match"):
            raise EnvError("bad_option", "episode must be 'hand' or 'match'.")
        if not _number(tick_s) or not 0.01 <= tick_s <= 1.0:
            raise EnvError("bad_option", "tick_s must be 0.01 to 1 seconds.")
        if isinstance(reaction_s, Mapping) and not set(reaction_s) <= set(seats):
            raise EnvError("bad_option", "reaction_s names seats that are not agents': "
                           f"{sorted(set(reaction_s) - set(seats), key=str)}.")
        offsets = ({s: reaction_s for s in seats} if not isinstance(reaction_s, Mapping)
                   else {s: reaction_s.get(s, 0.0) for s in seats})
        if not all(_number(r) and 0 <= r <= 5 for r in offsets.values()):
            raise EnvError("bad_option", "reaction_s must be 0 to 5 seconds.")
        if not _number(min_gap_s) or not 0 <= min_gap_s <= 5:
            raise EnvError("bad_option", "min_gap_s must be 0 to 5 seconds.")
        if not _number(huddle_s) or not 0 <= huddle_s <= 600:
            raise EnvError("bad_option", "huddle_s must be 0 to 600 seconds.")
        if max_ticks is not None and (isinstance(max_ticks, bool) or not isinstance(max_ticks, int)
                                      or max_ticks < 1):
            raise EnvError("bad_option", "max_ticks must be a whole number of at least 1.")
        if not _number(win_reward):
            raise EnvError("bad_option", "win_reward must be a number.")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError("bad_option", "render_mode must be 'ansi', 'human' or None.")
        if observation not in ("flat", "dict"):
            raise EnvError("bad_option", "observation must be 'flat' or 'dict'.")
        self.episode: Episode = episode
        self.bot_levels = bot_levels
        self.bot_speed = bot_speed
        self.seats: tuple[int, ...] = tuple(seats)
        self.tick_s = float(tick_s)
        self.reaction_s = {s: float(r) for s, r in offsets.items()}
        self.min_gap_s = float(min_gap_s)
        self.huddle_s = float(huddle_s)
        self.max_ticks = max_ticks if max_ticks is not None else (
            6_000 if episode == "hand" else 60_000)
        self.win_reward = float(win_reward)
        self.render_mode = render_mode
        self.layout = lay.ActionLayout(n)
        self.possible_agents: list[str] = [agent_name(s) for s in self.seats]
        self.agents: list[str] = []
        self.observation_form: ObservationForm = observation
        obs_len = observe.size(n, self.rules.pairs)
        self.flat_space = spaces.Box(0.0, 1.0, (obs_len,), np.float32)
        self.mask_space = spaces.Box(0, 1, (self.layout.size,), np.int8)
        self._obs_space: spaces.Space[Any] = (
            self.flat_space if observation == "flat" else
            spaces.Dict({"observation": self.flat_space, "action_mask": self.mask_space}))
        self._act_space = spaces.Discrete(self.layout.size)
        self._obs_spaces = {a: self._obs_space for a in self.possible_agents}
        self._act_spaces = {a: self._act_space for a in self.possible_agents}
        self._master = random.Random()
        self._seeded = False
        self.driver: MatchDriver | None = None
        self.tick = 0
        self.now = 0.0
        self._events: list[Event] = []
        self._pending: list[tuple[float, float, int, int, int]] = []
        self._actions: dict[int, Action] = {}
        self._last_move: dict[int, float] = {}
        self._held: dict[int, tuple[Card, ...]] = {}
        self._acted_on: dict[int, Any] = {}
        # seat -> ((table version, table clock), view): a view depends on the table's state
        # alone, which changes only with its version (a new view is made after each change)
        self._views: dict[int, tuple[tuple[int, float], SeatView]] = {}
        # seat -> (view, held, the static part of its observation) / (view, held, cooling, mask)
        self._static: dict[int, tuple[SeatView, tuple[Card, ...], Vector]] = {}
        self._masks: dict[int, tuple[SeatView, tuple[Card, ...], bool, Mask]] = {}
        self._order_rng = random.Random(0)
        self._seq = 0

    # == PettingZoo API ============================================================================
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same space for every agent: with ``observation="flat"`` a
        :class:`gymnasium.spaces.Box` (float32 in [0, 1], :func:`kemps.env.observe.size` long);
        with ``"dict"`` a :class:`gymnasium.spaces.Dict` of that (``observation``) and
        ``action_mask`` (int8, one per action)."""
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The same :class:`gymnasium.spaces.Discrete` for every agent (:attr:`layout`)."""
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start an episode: seat the table, its bots, and run to the first observation.

        ``seed`` makes the episode (and, with no seed later, the episodes after it) exactly
        reproducible: the first dealer, the deals, the bots' choices and the order of ties all
        come from it. ``options`` is accepted for the API and not used (configure the table when
        making the environment).
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise EnvError("bad_option", "A seed is a whole number.")
            self._master.seed(int(seed))
            self._seeded = True
        elif not self._seeded:
            self._master.seed(random.SystemRandom().randrange(2**63))
            self._seeded = True
        self._begin()
        obs: dict[str, Any] = {}
        infos: dict[str, dict[str, Any]] = {}
        for a, s in zip(self.possible_agents, self.seats):
            vec, mask = self._observe(s)
            obs[a] = self._form(vec, mask)
            infos[a] = {"tick": 0, "rejected": None, "action_mask": mask}
        return obs, infos

    def step(self, actions: Mapping[str, Any]) -> tuple[
            dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool],
            dict[str, dict[str, Any]]]:
        """One tick: apply the agents' actions (a missing agent does nothing), run the table and
        the bots, and return ``(observations, rewards, terminations, truncations, infos)`` for
        the agents alive at the start of the tick. Each agent's info holds ``tick``,
        ``rejected`` (the table's code for a refused action, else None) and ``action_mask``.

        Raises:
            EnvError: ``bad_action`` for an agent that is not playing or an action that is not
                an index of the action space (nothing changes); ``no_episode`` before reset.
        """
        if self.driver is None or not self.agents:
            raise EnvError("no_episode", "Call reset() first: no episode is running.")
        picked: dict[int, int] = {}
        for agent, action in actions.items():
            if agent not in self.agents:
                raise EnvError("bad_action", f"{agent!r} is not playing in this episode.")
            index = _index(action, self.layout.size)
            if index is None:
                raise EnvError("bad_action", f"{agent}: {action!r} is not an action index "
                               f"(0..{self.layout.size - 1}).")
            picked[int(agent.rsplit("_", 1)[1])] = index
        rejected, rewards, done, cut = self._play(picked)
        agents = list(self.agents)
        pairs = self.rules.pairs
        obs: dict[str, Any] = {}
        rew: dict[str, float] = {}
        infos: dict[str, dict[str, Any]] = {}
        for a in agents:
            seat = int(a.rsplit("_", 1)[1])
            vec, mask = self._observe(seat)
            obs[a] = self._form(vec, mask)
            rew[a] = rewards[seat % pairs]
            infos[a] = {"tick": self.tick, "rejected": rejected[seat], "action_mask": mask}
        terms = dict.fromkeys(agents, done)
        truncs = dict.fromkeys(agents, cut)
        if done or cut:
            self.agents = []
        if self.render_mode == "human":
            print(self._render_text())
        return obs, rew, terms, truncs, infos

    def render(self) -> str | None:
        """``"ansi"``: the last tick as narrated lines (a spectator's, so nothing hidden) under a
        status line; ``"human"``: prints it; no render mode: None."""
        if self.render_mode is None:
            return None
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (no processes, files or windows)."""

    def state(self) -> npt.NDArray[np.float32]:
        """Not provided: the whole state holds every hidden card (use :meth:`record`)."""
        raise NotImplementedError("kemps.env has no global state vector; see record().")

    # == for researchers ==========================================================================
    def seat_table(self, episode_seed: int) -> tuple[MatchDriver, random.Random]:
        """The driver of the episode seeded ``episode_seed`` (its record's ``meta["seed"]``), not
        yet started, and the generator of its tick order: what :meth:`reset` plays on (the
        benchmark replays an episode through it)."""
        rng = random.Random(episode_seed)
        rules, n = self.rules, self.rules.players
        first_dealer = rng.randrange(n)
        bots: dict[int, Bot] = {}
        for s in range(n):
            bot_rng = random.Random(rng.randrange(2**32))
            if s in self.bot_levels:
                bots[s] = make_bot(self.bot_levels[s], s, rules, bot_rng, self.bot_speed)
        order_rng = random.Random(rng.randrange(2**32))
        deal_rng = random.Random(rng.randrange(2**32))
        driver = MatchDriver(
            rules, default_names(n), first_dealer, bots, deal_rng, ready_huddle_s=self.huddle_s,
            meta={"seed": episode_seed, "environment": "kemps.env", "agents": list(self.seats),
                  "bots": {str(s): lv for s, lv in sorted(self.bot_levels.items())},
                  "tick_s": self.tick_s})
        return driver, order_rng

    def record(self) -> MatchRecord:
        """The episode so far as a match record (``record().save(path)``; ``kemps replay path``
        replays it)."""
        if self.driver is None:
            raise EnvError("no_episode", "Call reset() first: no episode is running.")
        return self.driver.recorder.record

    def record_table(self) -> Table:
        """The episode's table (read it; changing it breaks the episode)."""
        if self.driver is None:
            raise EnvError("no_episode", "Call reset() first: no episode is running.")
        return self.driver.table

    def observe_seat(self, seat: int) -> AgentObs:
        """The observation of agent seat ``seat`` now, in both parts whatever the form:
        ``{"observation": vector, "action_mask": mask}`` (what the last step returned for it;
        its view made afresh from the table)."""
        if seat not in self.seats:
            raise EnvError("bad_action", f"Seat {seat!r} is not an agent's.")
        self._views.pop(seat, None)
        vec, mask = self._observe(seat)
        return {"observation": vec, "action_mask": mask}

    def decode(self, agent: str, index: int) -> Action | None:
        """The table action that ``index`` names for ``agent`` now, on its last observation (None
        for the no-op or an empty slot), for logs and tests.

        Raises:
            EnvError: ``bad_action`` for an agent not in the episode or an index out of range;
                ``no_episode`` before reset.
        """
        if self.driver is None:
            raise EnvError("no_episode", "Call reset() first: no episode is running.")
        if agent not in self.possible_agents:
            raise EnvError("bad_action", f"{agent!r} is not an agent of this environment.")
        checked = _index(index, self.layout.size)
        if checked is None:
            raise EnvError("bad_action", f"{index!r} is not an action index "
                           f"(0..{self.layout.size - 1}).")
        seat = self.seats[self.possible_agents.index(agent)]
        return lay.decode(self.layout, checked, self._acted_on[seat], self.rules)

    # == inside ====================================================================================
    def _cooling(self, seat: int, due: float) -> bool:
        last = self._last_move.get(seat)
        return last is not None and due < last + self.min_gap_s

    def _begin(self) -> None:
        """Seat a new table from the next episode seed and run it to the first observation."""
        episode_seed = self._master.randrange(2**63)
        self.driver, self._order_rng = self.seat_table(episode_seed)
        self.tick = 0
        self.now = 0.0
        self._pending = []
        self._actions = {}
        self._seq = 0
        self._last_move = {}
        self._views = {}
        self._static = {}
        self._masks = {}
        self._held = {s: () for s in self.seats}
        self.agents = list(self.possible_agents)
        self.driver.start(0.0)
        self._events = [e for step in self.driver.wake(0.0) for e in step.events]
        self._track(self._events)

    def _play(self, picked: Mapping[int, int]) -> tuple[dict[int, str | None], list[float],
                                                        bool, bool]:
        """One tick with the agents' checked action indices (seat -> index; a missing seat does
        nothing): ``(rejected code per seat, reward per pair, terminated, truncated)``."""
        driver = self.driver
        if driver is None:
            raise EnvError("no_episode", "Call reset() first: no episode is running.")
        table = driver.table
        start, end = self.now, (self.tick + 1) * self.tick_s
        rejected: dict[int, str | None] = dict.fromkeys(self.seats)
        ties = {s: self._order_rng.random() for s in self.seats}
        for seat in self.seats:
            index = picked.get(seat, 0)
            if index == 0:
                continue
            due = start + self.reaction_s[seat]
            if self._cooling(seat, due):
                rejected[seat] = "too_soon"
                continue
            view = self._acted_on[seat]
            action = lay.decode(self.layout, index, view, self.rules)
            if action is None:
                rejected[seat] = "no_such_move"
                continue
            self._seq += 1
            self._last_move[seat] = due
            heapq.heappush(self._pending, (due, ties[seat], self._seq, seat, index))
            self._actions[self._seq] = action
        events: list[Event] = []
        while self._pending and self._pending[0][0] < end and not table.is_over():
            due, _, seq, seat, _ = heapq.heappop(self._pending)
            action = self._actions.pop(seq)
            events += _flatten(driver.wake(due))
            if table.is_over():
                break
            try:
                events += driver.act(seat, action, due).events
            except Rejected as err:
                rejected[seat] = err.code
        if not table.is_over():
            events += _flatten(driver.wake(end))
        self.tick += 1
        self.now = end
        self._events = events
        if events:
            self._track(events)
        rewards = self._rewards(events)
        done = table.is_over() or (
            self.episode == "hand" and any(isinstance(e, HandEnded) for e in events))
        cut = not done and self.tick >= self.max_ticks
        return rejected, rewards, done, cut

    def _form(self, vec: Vector, mask: Mask) -> Any:
        return vec if self.observation_form == "flat" else {"observation": vec,
                                                             "action_mask": mask}

    def _view(self, seat: int) -> SeatView:
        """The seat's view now, made again only when the table has changed since the last."""
        driver = self.driver
        if driver is None:
            raise EnvError("no_episode", "Call reset() first: no episode is running.")
        table = driver.table
        key = (table.version, table.clock)
        cached = self._views.get(seat)
        if cached is not None and cached[0] == key:
            return cached[1]
        view = view_for(table, seat)
        self._views[seat] = (key, view)
        return view

    def _observe(self, seat: int, out: Vector | None = None, mask_out: Mask | None = None
                 ) -> tuple[Vector, Mask]:
        """The seat's observation vector and action mask now (written into ``out`` and
        ``mask_out`` when given, rows of the right length; else new arrays)."""
        view = self._view(seat)
        self._acted_on[seat] = view
        seen = events_for(self._events, seat, self.rules.pairs) if self._events else []
        due = self.now + self.reaction_s[seat]
        cooling = self._cooling(seat, due)
        held = self._held[seat]
        static, mask = self._parts(seat, view, held, cooling, due)
        if out is None:
            vec = static.copy()
        else:
            vec = out
            vec[:] = static
        ones: list[int] = []
        at: list[int] = []
        values: list[float] = []
        observe.dynamic_into(ones, at, values, 0, view, seen, self.rules, self.now, cooling)
        if ones:
            vec[ones] = 1.0
        if at:
            vec[at] = values
        if mask_out is None:
            return vec, mask.copy()
        mask_out[:] = mask
        return vec, mask_out

    def _parts(self, seat: int, view: SeatView, held: tuple[Card, ...], cooling: bool,
               due: float) -> tuple[Vector, Mask]:
        """The part of the seat's observation that depends on its view and held cards alone
        (:func:`kemps.env.observe.static_into`) and its mask, each made again only when the
        view (made again whenever the table changes), the held cards or the cooling down have
        changed (at an ``attention`` table the mask also moves with the time: made each time).
        Read-only arrays, shared between ticks: copy them."""
        cached = self._static.get(seat)
        if cached is not None and cached[0] is view and cached[1] is held:
            static = cached[2]
        else:
            static = np.zeros(self.flat_space.shape, np.float32)
            ones: list[int] = []
            at: list[int] = []
            values: list[float] = []
            observe.static_into(ones, at, values, 0, view, self.rules, held)
            static[ones] = 1.0
            static[at] = values
            self._static[seat] = (view, held, static)
        key = (view, held, cooling)
        made = self._masks.get(seat)
        if (made is not None and made[0] is view and made[1] is held and made[2] == cooling
                and not self.rules.attention):
            return static, made[3]
        mask = lay.action_mask(self.layout, view, self.rules, held, cooling, due)
        self._masks[seat] = (*key, mask)
        return static, mask

    def _track(self, events: list[Event]) -> None:
        """Keep each agent's picked-up cards from its own events (S4: a discard must be another
        card than the ones just picked up; the oldest picked-up cards count as put down first,
        as the table counts them)."""
        track_held(self._held, events)

    def _rewards(self, events: list[Event]) -> list[float]:
        pairs = self.rules.pairs
        out = [0.0] * pairs
        sign = -1.0 if self.rules.scoring == "letters" else 1.0
        for e in events:
            if isinstance(e, Scored):
                out[e.pair] += sign * e.amount
            elif isinstance(e, MatchEnded) and self.win_reward:
                for p, rank in enumerate(e.ranks):
                    out[p] += self.win_reward * (1 - 2 * (rank - 1) / (pairs - 1))
        return out

    def _render_text(self) -> str:
        driver = self.driver
        if driver is None:
            return "(no episode)"
        table = driver.table
        r = self.rules
        middle = " ".join("--" if c is None else c.text for c in view_for(table, None).middle)
        scores = " / ".join(letters_text(r.word, s) or "-" if r.scoring == "letters" else str(s)
                            for s in table.scores)
        head = (f"t={self.now:.1f}s tick {self.tick} hand {table.hand_no} {table.phase} | "
                f"middle {middle} | {scores}")
        lines = [line for e in self._events if (line := describe(table, e)) is not None]
        return "\n".join([head, *("  " + line for line in lines)])


def track_held(held: dict[int, tuple[Card, ...]], events: Sequence[Event]) -> None:
    """Update ``held`` (seat -> the cards it picked up and still holds, for the seats it names)
    from ``events`` in order (S4: a discard must be another card than the ones just picked up;
    the oldest picked-up cards count as put down first, as the table counts them). The
    environment keeps its agents' cards with it; :mod:`kemps.env.live` a live seat's, from the
    events the server tells that seat (its own grabs and discards are never redacted)."""
    for e in events:
        if isinstance(e, Grabbed) and e.seat in held:
            held[e.seat] = held[e.seat] + e.took
        elif isinstance(e, Discarded) and e.seat in held:
            held[e.seat] = held[e.seat][len(e.gave):]
        elif isinstance(e, HoldExpired) and e.seat in held:
            held[e.seat] = ()
        elif isinstance(e, Swept | HandDealt | HandEnded):
            for s in held:
                held[s] = ()


def _number(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and value == value


def _index(action: object, size: int) -> int | None:
    if action is None:
        return 0
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
        action = action.reshape(()).item()
    if isinstance(action, bool | np.bool_):
        return None
    if isinstance(action, int | np.integer) and 0 <= int(action) < size:
        return int(action)
    return None


def _flatten(steps: list[Step]) -> list[Event]:
    return [e for step in steps for e in step.events]


def action_dict(action: Action | None) -> dict[str, Any] | None:
    """The JSON form of a decoded action (None stays None)."""
    return None if action is None else action_to_dict(action)
