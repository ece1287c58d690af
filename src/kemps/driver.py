"""The match driver: one table, its record, its bots and the time between hands, with no clock.

The simulator (:mod:`kemps.sim`) and the table server (:mod:`kemps.server.room`) both drive a match
through this one object, so the policy is written once: bots' plans per seat and channel (a newer
plan on a channel replaces the older), a seat's hands never moving twice within
:data:`MIN_GAP_S`, a rejected plan handed back to its bot, redacted events fanned out to the bots,
the deal after the huddle (sooner once every person at the table is ready), and the table's own
timers. Like the engine it does no I/O, owns no clock and no global random: every call carries
``now`` (table seconds) and the deals come from the generator it is given.

A driver is a discrete-event machine with a small interface::

    driver = MatchDriver(rules, names, first_dealer, bots={1: bot, 3: bot}, rng=rng)
    driver.start(now)                      # bots see the table; the first deal is scheduled
    steps = driver.act(seat, action, now)  # a person's action (raises Rejected, changes nothing)
    driver.mark_ready(seat, now)           # a person is ready for the next deal
    driver.next_wake()                     # when something is due next (None: nothing)
    steps = driver.wake(now)               # run what is due by ``now``: deals, timers, bot moves

A server that restarts rebuilds its driver from the stored steps: ``replay_step`` for each (no bot
is told), then ``resume(now)`` (bots see the table, the next deal is scheduled if none is).

Each :class:`Step` is one accepted action or one batch of fired timers, with its unredacted
events; :func:`kemps.views.events_for` gives each seat its share. At equal times a deal goes
first, then the table's timers, then bots' moves (in the order they were planned).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from kemps.actions import Action, AgreeSignals, Deal
from kemps.bots.base import Bot, Plan
from kemps.cards import shuffled_pack
from kemps.errors import Rejected
from kemps.events import CallJudged, Event, HandDealt, HandEnded
from kemps.gestures import PALETTE
from kemps.immutable import immutable
from kemps.record import Recorder
from kemps.rules import RuleSet
from kemps.table import Table
from kemps.views import events_for, needs_redacting, view_for

#: Seconds between hands while a person at the table has not said they are ready.
HUDDLE_S: Final = 45.0
#: Seconds between hands once every person is ready (or at a table of bots only).
READY_HUDDLE_S: Final = 3.0
#: A person's hands: a bot's seat never acts twice within this many seconds (people are held by
#: the server's per-seat message rate, kemps.server.limits; the environment holds its agents).
MIN_GAP_S: Final = 0.25
#: A hand this long with no call judged is stuck: the bots are nudged to let a card go.
STUCK_S: Final = 600.0
#: The most events of the current (or last) hand kept in :attr:`MatchDriver.log`.
LOG_LIMIT: Final = 500


@immutable
class Step:
    """One thing that happened at the table: an accepted ``action`` by ``seat`` (``None``: the
    table's, such as a deal) or, with ``action`` None, the table's timers firing; ``t`` is the
    table time it was applied at; ``events`` are unredacted (redact with
    :func:`kemps.views.events_for`)."""

    t: float
    seat: int | None
    action: Action | None
    events: list[Event]


class MatchDriver:
    """One match from the first deal to its end.

    Attributes (read them): ``recorder`` (its ``table`` and ``record``), ``bots`` (seat -> bot),
    ``people`` (seats played by people), ``ready`` (people ready for the next deal), ``deal_at``
    (when the next deal is due, or None), ``actions`` and ``rejected`` (counts of accepted
    actions, deals included, and of bot plans the table refused), ``nudges`` (times the
    stuck-hand guard nudged the bots), ``woke_at`` (the table time of the last thing :meth:`wake`
    ran: a deal, timers, a bot's move, stale or not, or a nudge; None before the first), ``log``
    (the unredacted events since the last deal, at most
    :data:`LOG_LIMIT` of the newest: the current hand, or between hands the last one and the
    huddle so far; redact with :func:`kemps.views.events_for` before showing it to anyone).
    """

    def __init__(self, rules: RuleSet, names: Sequence[str], first_dealer: int,
                 bots: Mapping[int, Bot], rng: random.Random, *,
                 people: Iterable[int] = (), huddle_s: float = HUDDLE_S,
                 ready_huddle_s: float = READY_HUDDLE_S, min_gap_s: float = MIN_GAP_S,
                 stuck_s: float = STUCK_S, signals_first: bool = False,
                 meta: dict[str, Any] | None = None) -> None:
        """Args:
            rules, names, first_dealer: the table (see :class:`kemps.table.Table`).
            bots: the seats played by bots, each with its bot.
            rng: where deals come from (pack orders and reshuffle seeds).
            people: the seats played by people (their readiness shortens the huddle).
            huddle_s / ready_huddle_s: seconds from a hand's end (or the start) to the next deal,
                while some person is not ready / once all are.
            min_gap_s: no seat's bot moves twice within this many seconds.
            stuck_s: the stuck-hand guard: when a hand goes this long with no call judged
                (partners holding each other's cards at a table that reshuffles swept cards can
                wait for each other for ever), every bot with an ``on_stuck(now) -> list[Plan]``
                method is asked to let something go, again after each further ``stuck_s``. It
                looks at nothing but the clock and the events, so it holds whatever the rules.
            signals_first: no pair is dealt a hand without an agreed signal (an online table: a
                pair that cannot signal cannot win a call). People are asked in the huddle and
                bot partners propose one; when the deal comes due and a pair still has none, the
                table agrees one for it (a gesture drawn from ``rng`` the rules allow as a
                signal, agreed by the pair's first seat, told to that pair only), then deals.
            meta: free-form data kept in the match record.
        """
        self.recorder = Recorder(rules, list(names), first_dealer, meta=meta)
        self.table: Table = self.recorder.table
        self.rules = rules
        self.bots = dict(bots)
        self.people = frozenset(people)
        self.ready: set[int] = set()
        self.rng = rng
        self.huddle_s = huddle_s
        self.ready_huddle_s = ready_huddle_s
        self.min_gap_s = min_gap_s
        self.deal_at: float | None = None
        self.actions = 0
        self.rejected = 0
        self.stuck_s = stuck_s
        self.nudge_at: float | None = None
        self.nudges = 0
        self.signals_first = signals_first
        # plans: heap of (time, seq, seat, channel, generation, action); a plan is live while its
        # generation is the newest for its (seat, channel).
        self._queue: list[tuple[float, int, int, str, int, Action]] = []
        self._generation: dict[tuple[int, str], int] = {}
        self._seq = 0
        self._last_move: dict[int, float] = {}
        self.log: list[Event] = []
        self.woke_at: float | None = None
        # bots told their seat's view after every step they see (``reads_views``: the learned
        # level, which observes on the research environment's encoders)
        self._viewers = {s for s, b in self.bots.items() if getattr(b, "reads_views", False)}

    # == inputs ====================================================================================
    def start(self, now: float) -> None:
        """Show every bot the table and schedule the first deal after the huddle."""
        for seat, bot in self.bots.items():
            self._tell_partner(seat)
            self._schedule(seat, bot.on_view(view_for(self.table, seat), now), now)
        self._schedule_deal(now)

    def act(self, seat: int | None, action: Action, now: float) -> Step:
        """Apply a person's (or the host's) action at ``now``.

        Raises:
            Rejected: the engine's rejection; nothing changed.
        """
        return self._apply(seat, action, now)

    def replay_step(self, t: float, action: Action | None) -> list[Event]:
        """Re-apply one stored step at table time ``t`` (``action`` None: the table's timers),
        telling no bot: how a restarted server rebuilds the match before :meth:`resume`.

        Raises:
            Rejected: the step does not apply (a damaged record); nothing changed.
        """
        if action is None:
            events = self.recorder.advance(t)
        else:
            events = self.recorder.apply(action, t)
            self.actions += 1
        self._track(events, self.table.clock)
        return events

    def resume(self, now: float) -> None:
        """After :meth:`replay_step`: every bot sees the table as it stands, and the next deal is
        scheduled (from ``now``) when the table is between hands and none is due."""
        for seat, bot in self.bots.items():
            self._tell_partner(seat)
            self._schedule(seat, bot.on_view(view_for(self.table, seat), now), now)
        if self.deal_at is None:
            self._schedule_deal(now)

    def seat_bot(self, seat: int, bot: Bot, now: float) -> None:
        """``bot`` plays ``seat`` from ``now`` (it stands in for a person who is away): it sees
        the table as it stands, and the deal no longer waits for that seat's readiness."""
        self.bots[seat] = bot
        self.people = self.people - {seat}
        if getattr(bot, "reads_views", False):
            self._viewers.add(seat)
        else:
            self._viewers.discard(seat)
        self._tell_partner(seat)
        self._tell_partner(self.table.partner_of(seat))
        self._schedule(seat, bot.on_view(view_for(self.table, seat), now), now)
        self._schedule_deal(now)

    def unseat_bot(self, seat: int) -> None:
        """The bot at ``seat`` leaves (its person is back) with every plan it had pending."""
        if self.bots.pop(seat, None) is None:
            return
        self._viewers.discard(seat)
        for key in self._generation:
            if key[0] == seat:
                self._generation[key] += 1  # its queued plans are stale now
        self.people = self.people | {seat}
        self._tell_partner(self.table.partner_of(seat))

    def _tell_partner(self, seat: int) -> None:
        """Tell the bot at ``seat`` (one with an ``on_partner(person: bool)`` method) whether a
        person plays its partner's seat now: such a bot proposes a change of the pair's signals
        to a person instead of agreeing it alone (docs/bots.md, "A person's pair")."""
        bot = self.bots.get(seat)
        on_partner = getattr(bot, "on_partner", None)
        if on_partner is not None:
            on_partner(self.table.partner_of(seat) in self.people)

    def planned(self, seat: int) -> list[Action]:
        """The moves ``seat``'s bot has planned and not yet made (stale plans left out)."""
        return [action for _, _, s, channel, gen, action in self._queue
                if s == seat and self._generation.get((s, channel)) == gen]

    def mark_ready(self, seat: int, now: float) -> bool:
        """A person is ready for the next deal; the deal comes sooner once all are. Returns
        whether the deal time changed."""
        self.ready.add(seat)
        return self._schedule_deal(now)

    def next_wake(self) -> float | None:
        """When :meth:`wake` next has something to do (a deal, a timer, a bot's move), or None."""
        t = self._queue[0][0] if self._queue else None
        for other in (self.table.next_deadline(), self.deal_at, self.nudge_at):
            if other is not None and (t is None or other < t):
                t = other
        return t

    def wake(self, now: float, on_step: Callable[[Step], None] | None = None) -> list[Step]:
        """Run everything due at or before ``now``, each at its own time, in time order.

        ``on_step`` is called with each step as soon as it is applied, before the next, while
        the table stands as that step left it (a server builds each seat's update then).

        Returns the steps that happened (empty when a due plan was stale or refused).
        """
        steps: list[Step] = []
        emit: Callable[[Step], None]
        if on_step is None:
            emit = steps.append
        else:
            def emit(step: Step) -> None:
                steps.append(step)
                on_step(step)

        table = self.table
        queue = self._queue
        while table.phase != "over":
            deadline = table.next_deadline()
            t = queue[0][0] if queue else None
            if deadline is not None and (t is None or deadline < t):
                t = deadline
            deal_at = self.deal_at
            if deal_at is not None and (t is None or deal_at < t):
                t = deal_at
            nudge = self.nudge_at
            if nudge is not None and (t is None or nudge < t) and nudge <= now:
                self.woke_at = nudge
                self._nudge(nudge)
                continue
            if t is None or t > now:
                break
            self.woke_at = t
            if self.deal_at is not None and t == self.deal_at:
                self.deal_at = None
                self.ready.clear()
                if self.signals_first:
                    self._give_signals(t, emit)
                order = tuple(shuffled_pack(self.rules.deck_count, self.rng))
                emit(self._apply(None, Deal(order, self.rng.randrange(2**31)), t))
            elif deadline is not None and t == deadline:
                events = self.recorder.advance(t)
                step = Step(table.clock, None, None, events)
                self._after(step)
                emit(step)
            else:
                step_or_none = self._bot_move(t)
                if step_or_none is not None:
                    emit(step_or_none)
        return steps

    # == inside ====================================================================================
    def _apply(self, seat: int | None, action: Action, now: float) -> Step:
        events = self.recorder.apply(action, now)  # raises Rejected: nothing changed
        self.actions += 1
        step = Step(self.table.clock, seat, action, events)
        self._after(step)
        return step

    def _after(self, step: Step) -> None:
        events, now = step.events, step.t
        pairs = self.rules.pairs
        # Most steps hold nothing to redact: then every seat sees the events as they are.
        mixed = needs_redacting(events)
        viewers = self._viewers
        for seat, bot in self.bots.items():
            seen = events_for(events, seat, pairs) if mixed else events
            if seen:
                plans = bot.on_events(seen, now)
                if plans:
                    self._schedule(seat, plans, now)
                if seat in viewers:
                    self._schedule(seat, bot.on_view(view_for(self.table, seat), now), now)
        self._track(events, now)
        if self.table.phase == "huddle" and self.deal_at is None and any(
                isinstance(e, HandEnded) for e in events):
            self._schedule_deal(now)

    def _track(self, events: list[Event], now: float) -> None:
        """The stuck-hand guard's clock and the hand's log."""
        log = self.log
        for e in events:
            kind = e.__class__  # events are final classes: identity is isinstance, cheaper
            if kind is HandDealt or kind is CallJudged:
                self.nudge_at = now + self.stuck_s
                if kind is HandDealt:
                    log.clear()
            elif kind is HandEnded:
                self.nudge_at = None
            log.append(e)
        if len(log) > LOG_LIMIT:
            del log[:len(log) - LOG_LIMIT]

    def _give_signals(self, now: float, emit: Callable[[Step], None]) -> None:
        """Before a deal (``signals_first``): a signal for every pair that agreed none."""
        allowed = [name for name, g in PALETTE.items()
                   if g.kind != "heard" or self.rules.heard_signals]
        for pair, signals in enumerate(self.table.signals):
            if not signals:
                emit(self._apply(pair, AgreeSignals(pair, (self.rng.choice(allowed),)), now))

    def _nudge(self, now: float) -> None:
        self.nudge_at = now + self.stuck_s
        self.nudges += 1
        for seat, bot in self.bots.items():
            on_stuck = getattr(bot, "on_stuck", None)
            if on_stuck is not None:
                self._schedule(seat, on_stuck(now), now)

    def _bot_move(self, t: float) -> Step | None:
        _, _, seat, channel, gen, action = heapq.heappop(self._queue)
        if self._generation.get((seat, channel)) != gen:
            return None  # replaced by a newer plan
        ready = self._last_move.get(seat, -self.min_gap_s) + self.min_gap_s
        if t < ready:
            self._seq += 1
            heapq.heappush(self._queue, (ready, self._seq, seat, channel, gen, action))
            return None
        self._last_move[seat] = t
        try:
            return self._apply(seat, action, t)
        except Rejected as err:
            self.rejected += 1
            self._schedule(seat, self.bots[seat].on_rejected(action, err, t), t)
            return None

    def _schedule(self, seat: int, plans: list[Plan], now: float) -> None:
        for plan in plans:
            key = (seat, plan.channel)
            gen = self._generation.get(key, 0) + 1
            self._generation[key] = gen
            if plan.action is None:
                continue  # a cancellation: the pending plan on this channel is now stale
            self._seq += 1
            heapq.heappush(self._queue, (now + plan.delay, self._seq, seat, plan.channel, gen,
                                         plan.action))

    def _schedule_deal(self, now: float) -> bool:
        if self.table.phase != "huddle":
            return False
        wait = self.ready_huddle_s if self.people <= self.ready else self.huddle_s
        at = now + wait
        if self.deal_at is not None and self.deal_at <= at:
            return False
        self.deal_at = at
        return True
