"""Agents at live tables: a policy of :mod:`kemps.env` plays a seat of a live room over the
WebSocket, with the environment's own observation and action encoding (``kemps agent``).

The seat is played through :class:`kemps.server.client.TableClient` (the server's ``state`` and
``update`` messages decoded into the engine's :class:`~kemps.views.SeatView` and events, the
table clock, ``ready`` between hands, refusals), with a bot that only listens; the decisions are
made here:

1. A **decision** is taken whenever the seat is told something (a view, events, a refusal, the
   table resuming) and, when nothing comes, every ``reaction_s`` seconds; never while the table
   is paused, before the first view, or while an action decided earlier waits to go out.
2. The observation is :func:`kemps.env.observe.encode` of the seat's view now, the events told
   since the last decision (as the server redacted them for this seat: the road the environment's
   :func:`kemps.views.events_for` takes), the rules, the table time now, the cooling down and the
   cards the seat picked up (:func:`kemps.env.core.track_held`, as the environment keeps them);
   the mask is :func:`kemps.env.layout.action_mask` of the same, with the action due at
   ``now + reaction_s``. For the same view, events, time and held cards the vector and the mask
   are those :class:`kemps.env.KempsParallelEnv` gives that seat (the test compares them).
3. ``policy(observation, mask)`` answers an index; :func:`kemps.env.layout.decode` turns it into
   the table action on the view it saw, exactly as the environment does (0, or an index naming
   an empty slot: nothing is sent).
4. The action goes out ``reaction_s`` seconds of table time after the observation (a person's
   reaction; the environment's ``reaction_s``), never within ``min_gap_s`` of the seat's last
   action (:data:`kemps.driver.MIN_GAP_S`, the environment's and the bots' gap). A table that
   pauses holds it until it resumes. The table may still refuse it (a card someone took first):
   the refusal is counted by its code, as the environment's ``rejected`` info. The next
   decision waits until the table has answered and, if it took the action, told the seat its
   event (at most :data:`LAND_WAIT_S`): a person sees their move land, and no decision is taken
   on a view that does not hold the seat's own last move (the environment's agents always see
   the tick's moves applied).

So the seat sends at most one action every ``max(reaction_s, min_gap_s)`` seconds (with the
lowest reaction, 0.2 s, five a second), plus one ``ready`` a hand: well inside the server's 20
messages a second a seat (docs/protocol.md, "Limits").

One difference from the environment: the environment asks every agent once a tick (0.1 s of
table time); here the policy is asked when something changes and every ``reaction_s`` otherwise,
and "this tick" in the observation holds the events told since the last decision.
"""

from __future__ import annotations

import asyncio
import importlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from kemps.actions import Action
from kemps.bots.base import Plan
from kemps.cards import Card
from kemps.driver import MIN_GAP_S
from kemps.env import layout as lay
from kemps.env import observe
from kemps.env.core import track_held
from kemps.errors import KempsError, Rejected
from kemps.events import Event, MatchEnded
from kemps.rules import RuleSet
from kemps.server.client import TableClient
from kemps.views import SeatView

#: A policy: the flat observation and the action mask of one seat -> an action index.
Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]

#: A person's reaction, seconds between what the seat sees and its action (default, bounds).
REACTION_S: Final = 0.7
REACTION_BOUNDS_S: Final = (0.2, 5.0)

#: Seconds the agent waits at most, after an action, for the table's answer and its update.
LAND_WAIT_S: Final = 1.0

_ROOM_PAGE: Final = re.compile(r"^/room/([A-Za-z0-9_-]+)/?$")


class AgentError(KempsError):
    """A bad ``kemps agent`` argument or a policy that answers no action index (codes
    ``bad_option``, ``bad_policy``), or a room the agent cannot sit at (the server's code)."""


def load_policy(ref: str) -> Policy:
    """The policy named ``module:attribute`` (``kemps.env.policies:random_legal``).

    Raises:
        AgentError: ``bad_policy`` when the module cannot be imported, has no such attribute, or
            the attribute is not callable.
    """
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise AgentError("bad_policy", f"Name the policy as module:function, not {ref!r}.")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise AgentError("bad_policy", f"Cannot import {module_name!r}: {err}.") from err
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise AgentError("bad_policy", f"{module_name!r} has no {attr!r}.")
        target = getattr(target, part)
    if not callable(target):
        raise AgentError("bad_policy", f"{ref!r} is not callable.")
    policy: Policy = target
    return policy


def room_address(url: str, code: str | None = None) -> tuple[str, str]:
    """``(server base URL, room code)`` from a room page's address
    (``http://host:8000/room/AB12``) or a server's address and ``code``.

    Raises:
        AgentError: ``bad_option`` for an address that is neither, or two different codes.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise AgentError("bad_option", f"Give the room's address as http(s)://..., not {url!r}.")
    base = f"{parts.scheme}://{parts.netloc}"
    page = _ROOM_PAGE.match(parts.path)
    if page is not None:
        if code is not None and code != page.group(1):
            raise AgentError("bad_option", f"The address names room {page.group(1)}, "
                             f"not {code}.")
        return base, page.group(1)
    if parts.path.strip("/"):
        raise AgentError("bad_option", f"{url!r} is not a room page (.../room/CODE).")
    if code is None:
        raise AgentError("bad_option", "Give a room page's address or --code CODE.")
    return base, code


def take_seat(base: str, code: str, name: str, seat: int | None = None,
              timeout_s: float = 10.0) -> tuple[int, str]:
    """Take ``seat`` (default: the first open seat) of room ``code`` as a person does
    (``POST /api/rooms/{code}/seats``): ``(seat, token)``.

    Raises:
        AgentError: the server's code and message for a refusal (``seat_taken``,
            ``no_such_room``...), ``no_open_seat`` when no seat is open.
    """
    import httpx

    with httpx.Client(base_url=base, timeout=timeout_s) as http:
        if seat is None:
            got = http.get(f"/api/rooms/{code}")
            _raise_for(got)
            open_seats = [s["seat"] for s in got.json()["seats"] if s.get("kind") == "open"]
            if not open_seats:
                raise AgentError("no_open_seat", f"Room {code} has no open seat.")
            seat = open_seats[0]
        answer = http.post(f"/api/rooms/{code}/seats", json={"seat": seat, "name": name})
        _raise_for(answer)
        body = answer.json()
        return int(body["seat"]), str(body["token"])


def _raise_for(response: Any) -> None:
    if response.status_code < 400:
        return
    try:
        body = response.json()
        detail = body.get("detail", body) if isinstance(body, dict) else {}
        code = str(detail.get("code", "refused"))
        message = str(detail.get("message", response.text))
    except ValueError:
        code, message = "refused", response.text
    raise AgentError(code, f"{message} (HTTP {response.status_code})")


class _Listener:
    """The bot the table client plays: it only listens, and wakes the agent's decisions."""

    def __init__(self, agent: LiveAgent, seat: int) -> None:
        self.seat = seat
        self.agent = agent

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        self.agent._told()
        return []

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        self.agent._heard(events)
        return []

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        self.agent.refused[error.code] += 1
        self.agent._told()
        return []


@dataclass
class Summary:
    """What ``kemps agent`` prints at the end: the seat, the decisions taken, the actions sent
    (by kind), accepted and refused (by code), and the match's end as the seat was told it
    (``ranks`` / ``scores`` per pair, None if the match did not end)."""

    seat: int | None
    decisions: int = 0
    sent: Counter[str] = field(default_factory=Counter)
    accepted: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    unsent: int = 0
    ranks: tuple[int, ...] | None = None
    scores: tuple[int, ...] | None = None

    def lines(self, rules: RuleSet | None) -> list[str]:
        """The summary as plain lines."""
        out = [f"seat {self.seat}: {self.decisions} decisions, {sum(self.sent.values())} "
               f"actions sent ({', '.join(f'{k} {n}' for k, n in sorted(self.sent.items()))}), "
               f"{self.accepted} accepted, {sum(self.refused.values())} refused"
               + (f" ({', '.join(f'{k} {n}' for k, n in sorted(self.refused.items()))})"
                  if self.refused else "")]
        if self.ranks is None or self.scores is None or self.seat is None:
            out.append("the match did not end")
            return out
        pairs = len(self.ranks)
        mine = self.seat % pairs
        unit = "letters" if rules is None or rules.scoring == "letters" else "points"
        out.append(f"match over: our pair (pair {mine}) ranks {self.ranks[mine]} of {pairs}; "
                   f"{unit} by pair: {list(self.scores)}")
        return out


class LiveAgent:
    """One seat of a live room played by ``policy`` (see the module docstring).

    ``reaction_s``: seconds from an observation to its action (0.2 to 5); ``min_gap_s``: no two
    actions closer (at least :data:`kemps.driver.MIN_GAP_S`). Read after :meth:`play`:
    ``summary`` (:class:`Summary`), ``client`` (the :class:`TableClient`: its ``events``, ``view``,
    ``room``), ``observations`` (how many were made).

    Raises:
        AgentError: ``bad_option`` for a reaction or gap out of bounds.
    """

    def __init__(self, policy: Policy, *, reaction_s: float = REACTION_S,
                 min_gap_s: float = MIN_GAP_S) -> None:
        low, high = REACTION_BOUNDS_S
        if not low <= reaction_s <= high:
            raise AgentError("bad_option", f"The reaction must be {low} to {high} seconds, "
                             f"not {reaction_s}.")
        if not MIN_GAP_S <= min_gap_s <= high:
            raise AgentError("bad_option", f"The gap between actions must be {MIN_GAP_S} to "
                             f"{high} seconds, not {min_gap_s}.")
        self.policy = policy
        self.reaction_s = float(reaction_s)
        self.min_gap_s = float(min_gap_s)
        self.client: TableClient | None = None
        self.summary = Summary(seat=None)
        self.refused: Counter[str] = self.summary.refused
        self.observations = 0
        self._seen: list[Event] = []
        self._held: dict[int, tuple[Card, ...]] = {}
        self._changed = asyncio.Event()
        self._last_action_t: float | None = None  # table time of the last action sent
        self._layout: lay.ActionLayout | None = None
        self._own = 0  # events told of this seat's own doing
        self._stopping = False

    # == told by the listener ======================================================================
    def _told(self) -> None:
        self._changed.set()

    def _heard(self, events: list[Event]) -> None:
        self._seen += events
        seat = self.summary.seat
        self._own += sum(1 for e in events if getattr(e, "seat", None) == seat)
        track_held(self._held, events)
        for e in events:
            if isinstance(e, MatchEnded):
                self.summary.ranks, self.summary.scores = e.ranks, e.scores
        self._changed.set()

    def _make_listener(self, seat: int, rules: RuleSet) -> _Listener:
        self._held = {seat: ()}
        self._layout = lay.ActionLayout(rules.players)
        self.summary.seat = seat
        return _Listener(self, seat)

    # == observing =================================================================================
    def observe(self, view: SeatView, seen: list[Event], rules: RuleSet, now: float
                ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], float, bool]:
        """``(observation, mask, due, cooling)`` of the seat now (table seconds ``now``), on the
        environment's encoders; ``due`` is when an action chosen on it would go out."""
        due = now + self.reaction_s
        cooling = self._last_action_t is not None and due < self._last_action_t + self.min_gap_s
        seat = view.seat if view.seat is not None else 0
        held = self._held.get(seat, ())
        layout = self._layout or lay.ActionLayout(len(view.names))
        obs = observe.encode(view, seen, rules, now, cooling, held)
        mask = lay.action_mask(layout, view, rules, held, cooling, due)
        return obs, mask, due, cooling

    # == playing ===================================================================================
    async def play(self, ws_base: str, code: str, token: str,
                   timeout_s: float | None = None) -> Summary:
        """Play the seat of ``token`` in room ``code`` until its match ends (or the connection
        closes), then close; returns :attr:`summary`.

        Raises:
            TimeoutError: ``timeout_s`` passed first.
            AgentError: ``bad_policy`` for a policy answer that is not an action index.
            KempsError: from the table client (``bad_view`` / ``bad_event``).
        """
        client = TableClient(ws_base, code, token, self._make_listener, auto_ready=True,
                             until_match_end=True, min_gap_s=self.min_gap_s)
        self.client = client
        decider = asyncio.create_task(self._decide(client))
        failure: BaseException | None = None

        def stop_on_failure(task: asyncio.Task[None]) -> None:
            nonlocal failure
            if not task.cancelled() and task.exception() is not None:
                failure = task.exception()
                client.stop()

        decider.add_done_callback(stop_on_failure)
        try:
            await client.run(timeout_s)
        finally:
            self._stopping = True  # the decisions end even if a cancel is lost (below)
            decider.cancel()
            await asyncio.gather(decider, return_exceptions=True)
        if failure is not None:
            raise failure
        self.summary.accepted = client.accepted
        return self.summary

    async def _decide(self, client: TableClient) -> None:
        # (asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a cancel that
        # comes as the event is set, and this loop would then run on after the match)
        while not self._stopping and not client.ended:
            try:
                async with asyncio.timeout(self.reaction_s):
                    await self._changed.wait()
            except TimeoutError:
                pass
            self._changed.clear()
            if client.stated and client.seat is None:
                # the server took the token as a spectator's (a token of no seat here)
                raise AgentError("not_seated", "That token holds no seat in this room: the agent "
                                 "would only watch. Take a seat (leave out --token) or give the "
                                 "seat's own token.")
            view, rules, layout = client.view, client.rules, self._layout
            if (view is None or rules is None or layout is None or client.paused
                    or client.offset is None or view.seat is None or client.ended):
                continue
            seen, self._seen = self._seen, []
            obs, mask, due, _ = self.observe(view, seen, rules, client.table_now())
            self.observations += 1
            index = self._ask(obs, mask, layout.size)
            self.summary.decisions += 1
            if index == 0:
                continue
            action = lay.decode(layout, index, view, rules)
            if action is None:
                self.summary.unsent += 1  # an empty slot: the environment's "no_such_move"
                continue
            await self._wait_until(client, due)
            if client.ended or self._stopping:
                return
            self._last_action_t = client.table_now()
            self.summary.sent[action.__class__.__name__] += 1
            answered, accepted, own = client.accepted + client.refused, client.accepted, self._own
            await client.act(action)
            await self._see_it_land(client, answered, accepted, own)

    def _ask(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8], size: int) -> int:
        try:
            answer = self.policy(obs, mask)
        except Exception as err:  # a user's code: one line saying what it did, not a traceback
            raise AgentError("bad_policy", f"The policy raised {type(err).__name__}: {err}"
                             ) from err
        if isinstance(answer, np.ndarray) and answer.shape in ((), (1,)):
            answer = answer.reshape(()).item()
        if (isinstance(answer, bool | np.bool_) or not isinstance(answer, int | np.integer)
                or not 0 <= int(answer) < size):
            raise AgentError("bad_policy", f"The policy answered {answer!r}, not an action "
                             f"index (0..{size - 1}).")
        return int(answer)

    async def _see_it_land(self, client: TableClient, answered: int, accepted: int,
                           own: int) -> None:
        """Until the table has answered the action just sent and, if it took it, the seat has
        been told its own event (the server's ``ok`` comes just before that ``update``), at
        most :data:`LAND_WAIT_S`: a person sees their move land before the next, so the next
        decision is never taken on a view without it."""
        loop = asyncio.get_running_loop()
        end = loop.time() + LAND_WAIT_S
        while not client.ended and not self._stopping and loop.time() < end:
            if client.accepted + client.refused > answered and (
                    client.accepted == accepted or self._own > own):
                return
            await asyncio.sleep(0.01)

    async def _wait_until(self, client: TableClient, due: float) -> None:
        """Until table time ``due`` and ``min_gap_s`` after the last action (the table clock
        stands still while paused)."""
        if self._last_action_t is not None:
            due = max(due, self._last_action_t + self.min_gap_s)
        while not client.ended and not self._stopping:
            left = due - client.table_now()
            if left <= 0 and not client.paused:
                return
            await asyncio.sleep(0.05 if client.paused else max(left, 0.0))


def run_agent(url: str, policy_ref: str, *, code: str | None = None, name: str = "Agent",
              seat: int | None = None, token: str | None = None,
              reaction_s: float = REACTION_S, seed: int | None = None,
              timeout_s: float | None = None) -> tuple[LiveAgent, RuleSet | None]:
    """``kemps agent``: load the policy (``seed(seed)`` if it has one and a seed is given), take
    a seat (or use ``token``, a seat already held), play the match; ``(agent, rules)``.

    Raises:
        AgentError: ``bad_option`` / ``bad_policy`` / the server's refusal of the seat.
        TimeoutError: ``timeout_s`` passed before the match ended.
        ConnectionError: the server cannot be reached, or refuses the WebSocket (a wrong
            token: close 4401...).
    """
    policy = load_policy(policy_ref)
    if seed is not None:
        seeder = getattr(policy, "seed", None)
        if callable(seeder):
            seeder(seed)
    import httpx
    import websockets

    agent = LiveAgent(policy, reaction_s=reaction_s)
    base, room = room_address(url, code)
    try:
        if token is None:
            _, token = take_seat(base, room, name, seat)
        ws_base = "ws" + base[len("http"):]
        asyncio.run(agent.play(ws_base, room, token, timeout_s))
    except (httpx.TransportError, websockets.WebSocketException) as err:
        raise ConnectionError(f"{base}, room {room}: {err}") from err
    return agent, agent.client.rules if agent.client is not None else None


__all__ = ["REACTION_BOUNDS_S", "REACTION_S", "AgentError", "LiveAgent", "Policy", "Summary",
           "load_policy", "room_address", "run_agent", "take_seat"]
