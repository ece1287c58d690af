"""KempsBot: a bot that plays every part of Kemps the way people do, at a chosen :class:`Level`.

It sees only what its seat sees (the view and the redacted events the driver hands it) and answers
with :class:`~kemps.bots.base.Plan`s, so the same code runs on the simulated clock and on a live
table. What it does, from S0 ("What to collect", "Watching your partner", "Calling Stop Kemps",
"False signals", "Choosing a signal") and the S1 hints:

* Collecting: picks a rank early (the most held; at ``counting`` levels the most reachable with the
  middle, never a rank that is dead because a card of it was swept), takes matching cards, switches
  when the rank has not shown after two sweeps, throws what nobody collects (never an opponent's
  rank if another card will do; the partner's rank first at ``helps_partner`` levels), says the
  middle has stalled when it holds nothing wanted and objects when a stall would sweep a card it
  wants.
* Signalling: with four of a kind, gives the pair's agreed signal after a reaction time and again
  if the partner has not called; idle gestures from a personal habit go on at the same rate all
  hand (never the pair's signal), so the signal hides among them. A level that ``fakes`` gives a
  burnt old signal with three of a kind where ``fake_signals`` is allowed: the partner knows the old
  signal is no longer the pair's (both saw the new agreement in the huddle), so it never calls on it.
* Huddle: the pair's first seat agrees a new signal when the old one was probably read (a right Stop
  Kemps against the pair, or the pair's own right Kemps that let others time it). With a person
  for a partner (the driver says so: :meth:`KempsBot.on_partner`) it agrees a first signal only
  when the pair has none, and otherwise *proposes* the change (S1 "each two player team ...
  privately agrees a signal"): the person accepts, keeps the old one, or lets the proposal lapse
  at the deal, and the old one stands. It accepts whatever its partner proposes.
* Watching: calls Kemps on the partner's signal (if it notices: ``attention_partner``) after a
  reaction time; for opponents' gestures it asks its :class:`~kemps.bots.watch.Watcher` how likely a
  real signal is and calls Stop Kemps above ``stop_threshold``.

Randomness: all of it comes from the ``rng`` the bot is given (the simulator seeds it from the
match seed), so a match replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import accumulate
from typing import Any, Final

from kemps.actions import (
    Action,
    AgreeSignals,
    Call,
    Discard,
    Go,
    Grab,
    Look,
    LookAt,
    Object,
    ProposeSignals,
    ProposeStall,
    Swap,
)
from kemps.actions import Gesture as GestureAction
from kemps.bots.base import Plan, stop_call_on
from kemps.bots.eyes import READY_S, Eyes
from kemps.bots.seatcards import FollowsCards, SeatCards
from kemps.bots.strength import Level
from kemps.bots.watch import Watcher
from kemps.cards import Card
from kemps.errors import Rejected
from kemps.events import (
    Called,
    CallJudged,
    CallVoid,
    Discarded,
    Event,
    Gestured,
    GestureSeen,
    Grabbed,
    HandDealt,
    HandEnded,
    HoldExpired,
    Looked,
    MatchEnded,
    Moved,
    Objected,
    PlayOpened,
    Revealed,
    SignalsAgreed,
    SignalsDeclined,
    SignalsProposed,
    StallCancelled,
    StallProposed,
    StallResumed,
    Swapped,
    Swept,
)
from kemps.gestures import HEARD, SEEN
from kemps.rules import RuleSet
from kemps.views import SeatView

RESIGNAL_S: Final = (2.5, 4.0)  # the partner has not called: give the signal again after this
SWITCH_PER_SWEEP: Final = 6.0  # score lost by the rank collected per sweep it has not shown
STUCK_SWEEPS: Final = 6  # this many fresh middles with nothing to take: swap something anyway
HUMAN_MIN_S: Final = 0.3  # no planned move comes sooner than this after what prompted it
FOLLOWER_WAIT_S: Final = 1.5  # the pair's second seat waits this long for the first to propose
MISSED_CALL: Final = 0.9  # the chance that a signaller's partner sees the signal and calls
SIGNAL_AFTER_SWAP_S: Final = 1.5  # S0 "the signal comes a moment after" the last card taken
GLANCE_HOLD_S: Final = 0.6  # attention: a glance at a mover stays this long before the eyes move on


class KempsBot(FollowsCards):
    """One seat's bot at ``level``. ``rng`` is its own generator; times are table seconds.

    Implements the :class:`~kemps.bots.base.Bot` protocol.
    """

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random, level: Level) -> None:
        self.seat = seat
        self.rules = rules
        self.level = level
        self.rng = rng
        self.n = rules.players
        self.pairs = rules.pairs
        self.pair = seat % self.pairs
        self.partner = (seat + self.pairs) % self.n
        self.leader = seat < self.pairs
        self.palette: tuple[str, ...] = SEEN + (HEARD if rules.heard_signals else ())
        # A personal habit: a handful of favourite idle gestures, the rest rare.
        favourites = set(rng.sample(self.palette, 4))
        self.habit = [1.0 if g in favourites else level.habit_spread for g in self.palette]
        self.watch = Watcher(seat, rules, level)
        self.cards = SeatCards(seat)
        self.eyes = Eyes(seat, rules)  # attention tables (docs/rules.md "Attention")
        self.double_stops = (level.double_stops and rules.double_calls
                             and rules.double_stop_on == "two_of_a_kind")
        self.phase = "huddle"
        self.dealer: int | None = 0
        self.hand_no = 0
        self.scores: list[int] = [0] * self.pairs
        self.signals: tuple[str, ...] = ()
        self.burnt: set[str] = set()  # our pair's old signals the others have probably read
        self.decoys_used: dict[str, int] = {}
        self.change_signal = False
        self.agreed_for = -1
        # A person plays the partner's seat (on_partner): signals change only by proposal.
        self.partner_person = False
        self.proposed: tuple[str, ...] | None = None  # our proposal nobody has answered yet
        self._idle_for: tuple[str, ...] | None = None  # the signals _idle's choices leave out
        self._idle_options: list[str] = []
        self._idle_cum: list[float] = []
        self._stop_calls: dict[int, Call | None] = {}  # per signaller (see _stop_call)
        self._hand_key: tuple[Card, ...] = ()  # the hand ``_hand_counts`` counts (see _counts)
        self._hand_counts: dict[str, int] = {}
        self._reset_hand()

    def _reset_hand(self) -> None:
        self.holding: set[int] = set()
        self.sitting_still = False  # still_with_four: its idle gesture and stall are cancelled
        self.target: str | None = None
        self.sweeps_without = 0
        self.signalled_at: float | None = None
        self.faked = False
        self.stall_pending = False
        self.agreed_stall = False
        self.objected = False
        self.planned_swap: Swap | None = None
        self.planned_discard = False
        self.grabbed: tuple[Card, ...] = ()
        self.planned_stall = False
        self.planned_noise = False
        self.planned_call: str | None = None
        self.planned_object = False
        self.last_call: Called | None = None
        self.shown_four: list[int] = []
        self.last_belief = 0.0
        self._target_key: tuple[object, ...] = ()
        self._throw_key: tuple[object, ...] = ()
        self._throw: list[Card] = []
        # _best_swap's cards wanted from the middle, for the rank choice's key (the very
        # object) they were found with.
        self._swap_for: tuple[object, ...] | None = None
        self._swap_wanted: list[Card] = []
        self._target_in_middle: tuple[tuple[object, ...] | None, bool] = (None, True)
        self.given_up: dict[str, float] = {}  # ranks dropped this hand, and the penalty kept
        self.glance_until = float("-inf")  # attention: a glance at a mover holds the eyes
        self.signal_at: float | None = None  # attention: when a planned signal is due
        self.signal_held = False  # attention: the planned signal waits for an unwatched moment
        self.four_since: float | None = None  # attention: when it first held four this hand

    # -- small helpers -------------------------------------------------------------------------
    def _react(self, scale: float = 1.0) -> float:
        lo, hi = self.level.reaction_s
        return max(HUMAN_MIN_S, scale * self.rng.uniform(lo, hi))

    def _counts(self) -> dict[str, int]:
        """The hand's cards per rank. Kept until the hand changes (``_hand_key``, the hand as a
        tuple, is set alongside): callers must not change the dict."""
        hand = tuple(self.cards.hand)
        if hand == self._hand_key:
            return self._hand_counts
        counts: dict[str, int] = {}
        for c in hand:
            counts[c.rank] = counts.get(c.rank, 0) + 1
        self._hand_key = hand
        self._hand_counts = counts
        return counts

    def _four(self) -> bool:
        h = self.cards.hand
        return len(h) == 4 and h[0].rank == h[1].rank == h[2].rank == h[3].rank

    def _in_play(self) -> bool:
        return self.phase == "play" or self.phase == "dealt"

    # -- the Bot protocol ----------------------------------------------------------------------
    def on_partner(self, person: bool) -> None:
        """The driver says whether a person plays the partner's seat (before the views, and
        again when a bot stands in for that person or hands the seat back). With a person, the
        pair's signals are theirs too: this bot proposes a change instead of agreeing it."""
        self.partner_person = person

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        """Resynchronise from the seat's whole view (start of a match, or a reconnect)."""
        if view.hand_no != self.hand_no:
            self._reset_hand()
            self.watch.new_hand(view.hand_no)
        self.hand = list(view.hand)
        self.middle = list(view.middle)
        self.phase = view.phase
        self.dealer = view.dealer
        self.hand_no = view.hand_no
        self.scores = list(view.scores)
        self.signals = view.signals
        self.eyes.sync(view.looks)
        proposal = view.proposal
        if proposal is not None and view.phase == "huddle":
            if proposal[0] == self.partner:  # e.g. standing in for a person who was asked
                return self._accept(proposal[1])
            self.proposed = proposal[1]
        return self._decide(now)

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        """Follow the table from the events this seat may see, then decide."""
        plans: list[Plan] = []
        changed = looked = False
        for e in events:
            seen = self._observe(e, now)
            if seen:
                plans += seen
            cls = e.__class__
            if cls is Looked or cls is Moved:
                looked = True  # a look or a movement: only the eyes and the signal rethink
            elif not (cls is Gestured and e.seat != self.seat):  # type: ignore[union-attr]
                changed = True
        if changed:
            return plans + self._decide(now) if plans else self._decide(now)
        return plans + self._on_looks(now) if looked else plans

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        """A planned action was refused (someone was quicker, the hand ended): think again."""
        if isinstance(action, Swap | Grab):
            self.planned_swap = None
        elif isinstance(action, Discard):
            self.planned_discard = False
        elif isinstance(action, ProposeStall):
            self.planned_stall = False
            if error.code in ("stall_pending", "objection_pending"):
                self.stall_pending = True
        elif isinstance(action, GestureAction):
            self.planned_noise = False
        elif isinstance(action, Call):
            self.planned_call = None
        elif isinstance(action, Object):
            self.planned_object = False
        elif isinstance(action, Look):
            self.eyes.refused()
        return self._decide(now)

    def on_stuck(self, now: float) -> list[Plan]:
        """The driver's stuck-hand guard (:mod:`kemps.sim`): the hand has gone on for minutes
        with no call. Give the signal again if we hold four; otherwise drop the rank we
        collect and swap a random card of ours for a random card of the middle."""
        if not self._in_play() or not self.cards.hand:
            return []
        if self._four():
            if self.signals:
                return [Plan(self._react(), GestureAction(self.seat, self.signals[0]), "signal")]
            return []
        take = [c for c in self.cards.middle if c is not None]
        if not take:
            return []
        self.target = None
        self.sweeps_without = 0
        swap = Swap(self.seat, (self.rng.choice(take),), (self.rng.choice(self.cards.hand),))
        self.planned_swap = swap
        return [Plan(self._react(), swap, "cards")]

    # -- following the table -------------------------------------------------------------------
    def _observe(self, e: Event, now: float) -> list[Plan]:
        cls = e.__class__
        if cls is HandDealt:
            self._reset_hand()
        self.cards.follow(e)
        if self.eyes.on:
            w = self.watch
            self.eyes.follow(e)
            if isinstance(e, Moved):
                w.moved(e.seat, e.t)
                return self._glance(e.seat, now)
            if isinstance(e, GestureSeen):
                # Our glance landed while the gesture was still going on: seen, a moment late.
                seen = Gestured(e.made_at, e.seat, e.gesture, False)
                w.gestured(e.seat, e.gesture, e.made_at)
                return self._on_gesture(seen, now)
            if isinstance(e, Looked):
                return []
        see = _SEE.get(cls)  # one method a kind of event (below), found at once
        return see(self, e, now) if see is not None else []

    def _saw_swapped(self, e: Swapped, now: float) -> list[Plan]:
        self.watch.swapped(e.seat, e.took, e.gave, e.t)
        if e.seat == self.seat:
            self.planned_swap = None
            self.objected = False
            if (self.level.swap_gestures and not self._four()
                    and self.rng.random() < self.level.swap_gestures):
                # An idle gesture where a signal would come: the signal's timing hides.
                self.planned_noise = True
                return [Plan(self._react(0.8), GestureAction(self.seat, self._idle()),
                             "gesture")]
        return []

    def _saw_gestured(self, e: Gestured, now: float) -> list[Plan]:
        self.watch.gestured(e.seat, e.gesture, e.t)
        if e.seat == self.seat:
            if e.gesture in self.signals:
                # Our own signal: give it again if the partner has not called by then.
                if self._four() and self._in_play():
                    # (At an attention table the wait for an unwatched moment is over by then:
                    # S2 signals row 9, see _signal.)
                    self.signal_at = None
                    delay = self.rng.uniform(*RESIGNAL_S)
                    return [Plan(delay, GestureAction(self.seat, e.gesture), "signal")]
                return []
            self.planned_noise = False
            return []
        return self._on_gesture(e, now)

    def _saw_swept(self, e: Swept, now: float) -> list[Plan]:
        self.watch.swept_away(e.swept)
        self.stall_pending = self.agreed_stall = self.objected = False
        self.planned_stall = self.planned_object = False
        if self.target is not None and not self._middle_has(self.target):
            self.sweeps_without += 1
        return []

    def _saw_stall_proposed(self, e: StallProposed, now: float) -> list[Plan]:
        if e.deadline is None:  # all_agree: count ours
            if e.seat == self.seat:
                self.agreed_stall = True
                self.planned_stall = False
        else:
            self.stall_pending = True
            if e.seat == self.seat:
                self.planned_stall = False
            elif self.planned_stall:
                self.planned_stall = False
                return [Plan(0.0, None, "table")]
        return []

    def _saw_objected(self, e: Objected, now: float) -> list[Plan]:
        if e.seat == self.seat:
            self.objected = True
            self.planned_object = False
        return []

    def _saw_stall_resumed(self, e: StallResumed, now: float) -> list[Plan]:
        self.stall_pending = True
        return []

    def _saw_stall_cancelled(self, e: StallCancelled, now: float) -> list[Plan]:
        self.agreed_stall = False
        return []

    def _saw_grabbed(self, e: Grabbed, now: float) -> list[Plan]:
        self.watch.swapped(e.seat, e.took, (), e.t)
        self.holding.add(e.seat)
        if e.seat == self.seat:
            self.planned_swap = None
            self.grabbed = e.took
        return []

    def _saw_discarded(self, e: Discarded, now: float) -> list[Plan]:
        self.watch.swapped(e.seat, (), e.gave, e.t)
        self.holding.discard(e.seat)
        if e.seat == self.seat:
            self.planned_discard = False
            self.grabbed = ()
        return []

    def _saw_hold_expired(self, e: HoldExpired, now: float) -> list[Plan]:
        self.watch.returned(e.seat, e.returned)
        self.holding.discard(e.seat)
        if e.seat == self.seat:
            self.planned_discard = False
            self.grabbed = ()
        return []

    def _saw_play_opened(self, e: PlayOpened, now: float) -> list[Plan]:
        self.phase = "play"
        return []

    def _saw_hand_dealt(self, e: HandDealt, now: float) -> list[Plan]:
        w = self.watch
        if self.proposed is not None:
            # Our proposal lapsed unanswered: the old signal stands, as if the partner kept it.
            self.proposed = None
            self.change_signal = False
        self.phase = "dealt"
        self.dealer = e.dealer
        self.hand_no = e.hand_no
        w.new_hand(e.hand_no)
        return []

    def _saw_called(self, e: Called, now: float) -> list[Plan]:
        self.last_call = e
        self.shown_four = []
        return []

    def _saw_revealed(self, e: Revealed, now: float) -> list[Plan]:
        if e.full and len(e.cards) >= 4 and len({c.rank for c in e.cards}) == 1:
            self.shown_four.append(e.seat)
        return []

    def _saw_call_judged(self, e: CallJudged, now: float) -> list[Plan]:
        self._judged(e)
        if e.seat == self.seat and self.planned_call == "double_stop":
            self.planned_call = None
        return []

    def _saw_call_void(self, e: CallVoid, now: float) -> list[Plan]:
        if e.seat == self.seat and self.planned_call == "double_stop":
            self.planned_call = None  # the pair was holding a grabbed card: nothing happened
        return []

    def _saw_signals_agreed(self, e: SignalsAgreed, now: float) -> list[Plan]:
        self.signals = e.signals
        self.change_signal = False
        self.proposed = None
        if e.seat != self.seat and (not self.leader or self.partner_person):
            # The partner agreed (a person's choice stands): ours is not needed.
            return [Plan(0.0, None, "table")]
        return []

    def _saw_signals_proposed(self, e: SignalsProposed, now: float) -> list[Plan]:
        if e.seat == self.seat:
            self.proposed = e.signals
            return []
        self.proposed = None  # the partner's proposal replaces ours
        return self._accept(e.signals)

    def _saw_signals_declined(self, e: SignalsDeclined, now: float) -> list[Plan]:
        if e.seat != self.seat:
            # The partner keeps the pair's signal: it stays, and we do not ask again for it.
            self.proposed = None
            self.change_signal = False
        return []

    def _accept(self, signals: tuple[str, ...]) -> list[Plan]:
        """Agree the partner's proposal (after a reaction time), instead of any plan of ours."""
        self.agreed_for = self.hand_no
        return [Plan(self._react(), AgreeSignals(self.seat, signals), "table")]

    def _saw_hand_ended(self, e: HandEnded, now: float) -> list[Plan]:
        self.phase = "huddle"
        self.planned_call = None
        self.planned_swap = None
        self.planned_noise = False
        return [Plan(0.0, None, "cards"), Plan(0.0, None, "gesture"),
                Plan(0.0, None, "call"), Plan(0.0, None, "signal")]

    def _saw_match_ended(self, e: MatchEnded, now: float) -> list[Plan]:
        self.phase = "over"
        return []

    def _judged(self, e: CallJudged) -> None:
        call = self.last_call
        if call is None:
            return
        self.watch.judged(call.t, e.kind, e.right, call.on_pair, self.shown_four, e.checked)
        if e.right and any(s % self.pairs == self.pair for s in self.shown_four):
            # Our signal was shown to the table just before the call: probably read now.
            self.burnt.update(self.signals)
            if e.kind in ("stop", "double_stop") or self.rng.random() < \
                    self.level.change_after_kemps:
                self.change_signal = True

    def _on_gesture(self, e: Gestured, now: float) -> list[Plan]:
        if not self._in_play():
            return []
        lv = self.level
        if e.seat == self.partner:
            if e.gesture in self.signals and self.planned_call != "kemps":
                attention = lv.attention_partner
                if self.rng.random() < attention:
                    self.planned_call = "kemps"
                    # S0, S4: both partners hold four -- the double call scores double.
                    kemps = (Call(self.seat, "double_kemps") if self.rules.double_calls
                            and self._four() else Call(self.seat, "kemps"))
                    return [Plan(self._react(), kemps, "call")]
            return []
        if e.seat % self.pairs == self.pair or self.planned_call is not None:
            return []
        if self.rng.random() >= lv.attention_opponents:
            return []
        call = self._stop_call(e.seat)
        if call is None:
            return []
        looking = self.level.reads_looks and self.eyes.on and self.eyes.watching(
            e.seat, (e.seat + self.pairs) % self.n)
        belief = self.watch.belief(e.seat, e.gesture, now, self.cards.hand, self.cards.middle,
                                   looking)
        # The level's threshold is a floor of the stakes' one: the cheap test first.
        if belief < lv.stop_threshold or belief < self._stop_threshold(e.seat % self.pairs):
            return []
        self.planned_call = "stop"
        self.last_belief = belief
        return [Plan(self._react(), call, "call")]

    def _stake(self, award: tuple[tuple[int, int], ...]) -> float:
        """What ``award`` is worth to our pair, in letters (or points) against the average other
        pair; a letter that would put a pair out counts three."""
        r = self.rules
        letters = r.scoring == "letters"
        limit = r.losing_letters if letters else r.target
        worth = [0.0] * self.pairs
        for p, amount in award:
            final = self.scores[p] + amount >= limit if limit else False
            worth[p] += amount * (3.0 if final else 1.0)
        others = sum(worth[p] for p in range(self.pairs) if p != self.pair) / max(1,
                                                                                self.pairs - 1)
        value = worth[self.pair] - others
        return -value if letters else value

    def _stop_threshold(self, on_pair: int) -> float:
        """The chance of being right above which Stop Kemps on ``on_pair`` is worth calling
        (``bayes`` and ``full`` inference; ``naive`` levels use their fixed ``stop_threshold``).

        Expected worth of calling: p * right + (1 - p) * wrong; of keeping quiet: p * q * missed
        (the signaller's partner calls Kemps, q = the chance it notices). Call when
        p >= -wrong / (right - q * missed - wrong), never below the level's ``stop_threshold``.
        """
        lv = self.level
        if lv.inference == "naive":
            return lv.stop_threshold
        from kemps.scoring import call_award

        r = self.rules
        letters_to = (on_pair + 1) % self.pairs  # the pair on the Kemps caller's left
        right = self._stake(call_award(r, self.pair, "stop", on_pair, True))
        wrong = self._stake(call_award(r, self.pair, "stop", on_pair, False))
        missed = self._stake(call_award(r, on_pair, "kemps", on_pair, True,
                                        letters_to=letters_to))
        denom = right - MISSED_CALL * missed - wrong
        if denom <= 0.0 or wrong >= 0.0:
            return lv.stop_threshold
        return max(lv.stop_threshold, -wrong / denom)

    def _double_stop(self) -> list[Plan]:
        """S4 "You may also call double counter kemps if you think both opposing players have
        two of a kind" (``double_stop_on="two_of_a_kind"``, points-to-five): at ``double_stops``
        levels, called on a pair both of whose players were seen taking two cards of one rank
        and giving neither back (public swaps only, so it is never wrong), unless one of them
        holds a grabbed card (``immune_while_holding``: the call would do nothing)."""
        if not self.double_stops or self.phase != "play":
            return []
        held = self.watch.held
        for q in range(self.pairs):
            if q == self.pair:
                continue
            seats = (q, q + self.pairs)
            if any(s in self.holding for s in seats):
                continue
            if all(len({c.rank for c in held[s]}) < len(held[s]) for s in seats):
                self.planned_call = "double_stop"
                return [Plan(self._react(), Call(self.seat, "double_stop", on_pair=q), "call")]
        return []

    def _stop_call(self, signaller: int) -> Call | None:
        # Depends on the rules and the seats only: asked once per signaller.
        if signaller not in self._stop_calls:
            self._stop_calls[signaller] = stop_call_on(self.rules, self.seat, signaller)
        return self._stop_calls[signaller]

    # -- deciding --------------------------------------------------------------------------------
    def _decide(self, now: float) -> list[Plan]:
        phase = self.phase
        if phase == "huddle":
            return self._huddle()
        if phase == "dealt":
            plans: list[Plan] = []
            if self.rules.start == "on_go" and self.seat == self.dealer:
                plans.append(Plan(self._react(1.5), Go(self.seat), "table"))
            if self._four() and self.signalled_at is None:
                plans += self._signal(now)
            return plans
        if phase != "play" or not self.cards.hand:
            return []
        plans = self._double_stop() if self.double_stops and self.planned_call is None else []
        if len(self.cards.hand) > 4:  # holding a grabbed card (S4): discard before anything else
            if not self.planned_discard:
                give = self._discard_choice()
                if give:
                    self.planned_discard = True
                    plans.append(Plan(self._react(0.6), Discard(self.seat, give), "cards"))
            return plans
        if self._four():
            if self.signals:
                if self.signalled_at is None:
                    plans += self._signal(now)
                elif self.eyes.on:
                    plans += self._retime_signal(now)
            if self.level.still_with_four and self.signals:
                # S0 "stops swapping, sits a little stiller": no idle gesture, no stall.
                if not self.sitting_still:
                    self.sitting_still = True
                    plans += [Plan(0.0, None, "gesture"), Plan(0.0, None, "table")]
                self.planned_noise = self.planned_stall = True
                return plans + self._eyes_plans(now) if self.eyes.on else plans
            if not self.planned_noise:
                plans += self._noise()
            if not self.planned_stall:
                plans += self._stall()
            return plans + self._eyes_plans(now) if self.eyes.on else plans
        swap = self._best_swap()
        if swap is not None:
            if swap != self.planned_swap:
                self.planned_swap = swap
                move: Swap | Grab = swap
                if self._grabs() and swap.take:
                    move = Grab(self.seat, swap.take)  # S4: grab now, choose the discard after
                plans.append(Plan(self._react(), move, "cards"))
        else:
            if self.planned_swap is not None:
                self.planned_swap = None
                plans.append(Plan(0.0, None, "cards"))
            if self.objected and not self.planned_swap:
                plans += self._release()
            elif not self.planned_stall:
                plans += self._stall()
        if (self.stall_pending and not self.objected and not self.planned_object
                and self.rules.sweep == "any_player_unless_objection" and self._wanted_in_middle()):
            self.planned_object = True
            plans.append(Plan(self._react(0.7), Object(self.seat), "table"))
        if self.level.fakes and not self.faked and self.burnt:
            plans += self._fake(now)  # (it needs a burnt old signal: the cheap test here)
        if not self.planned_noise:
            plans += self._noise()
        return plans + self._eyes_plans(now) if self.eyes.on else plans

    def _huddle(self) -> list[Plan]:
        if self.agreed_for == self.hand_no:
            return []
        if self.partner_person:
            return self._huddle_with_person()
        if not self.leader:
            # The pair's second seat proposes only when the pair has no signal, or it was read,
            # and later than the first seat would: a person who leads and skips the huddle
            # still gets a signal from the bot. A proposal from the partner cancels it.
            if self.signals and not self.change_signal:
                return []
            self.agreed_for = self.hand_no
            choice = self._choose_signal()
            return [Plan(FOLLOWER_WAIT_S + self._react(), AgreeSignals(self.seat, (choice,)),
                         "table")]
        self.agreed_for = self.hand_no
        change = (not self.signals or self.change_signal
                  or self.rng.random() < self.level.change_anyway)
        if not change:
            return []
        return [Plan(self._react(), AgreeSignals(self.seat, (self._choose_signal(),)), "table")]

    def _huddle_with_person(self) -> list[Plan]:
        """The huddle when a person plays the partner's seat: the pair's signals are theirs too.
        With none agreed yet, agree one (the person may agree another instead: theirs stands);
        otherwise, when this bot would change the signal (read, or now and then for no reason),
        propose the change and leave it to the person (S1 "privately agrees a signal"). The
        pair's second seat waits longer, as it does with a bot partner, so a person who leads
        decides first."""
        self.agreed_for = self.hand_no
        wait = 0.0 if self.leader else FOLLOWER_WAIT_S
        if not self.signals:
            return [Plan(wait + self._react(), AgreeSignals(self.seat, (self._choose_signal(),)),
                         "table")]
        if not (self.change_signal or self.rng.random() < self.level.change_anyway):
            return []
        return [Plan(wait + self._react(), ProposeSignals(self.seat, (self._choose_signal(),)),
                     "table")]

    def _choose_signal(self) -> str:
        avoid = set(self.signals) | (self.burnt if self.level.counting else set())
        options = [g for g in self.palette if g not in avoid] or [
            g for g in self.palette if g not in self.signals]
        # Drawn evenly: never weighted by what the others do at the table, or a pair that floods
        # one gesture would choose our signal for us (issue 27) and know it.
        return self.rng.choice(options)

    def _signal(self, now: float) -> list[Plan]:
        if not self.signals:
            return []
        if self._careful():
            if self.four_since is None:
                self.four_since = now
            self.signalled_at = now
            delay = self._react(0.6) + self._pause()
            self.signal_held = not self._moment_to_signal(now)
            if self.signal_held:
                # Not yet the moment (see _moment_to_signal), and never later than the level's
                # wait: _retime_signal brings the signal forward when the moment comes.
                delay = max(delay, self._wait_over(now))
            self.signal_at = now + delay
            return [Plan(delay, GestureAction(self.seat, self.signals[0]), "signal")]
        self.signalled_at = now
        return [Plan(self._react(self.level.signal_scale) + self._pause(),
                     GestureAction(self.seat, self.signals[0]), "signal")]

    def _pause(self) -> float:
        """The drawn wait before a first signal (``signal_pause``), so that its timing is not
        tied to the bot's own last swap: a person does not always signal the moment the fourth
        card lands."""
        lv = self.level
        if lv.signal_pause and self.rng.random() < lv.signal_pause:
            return self.rng.uniform(*lv.signal_pause_s)
        return 0.0

    # -- eyes (attention tables) -------------------------------------------------------------------
    def _careful(self) -> bool:
        """Whether this bot times its signal by the looks at the table: at an ``attention``
        table, every level (see :meth:`_moment_to_signal`)."""
        return self.eyes.on and self.phase == "play"

    def _moment_to_signal(self, now: float) -> bool:
        """Whether to signal now, at an ``attention`` table. S0 "Calling Stop Kemps": "A player
        who has just made four of a kind stops swapping, sits a little stiller and looks at their
        partner; the signal comes a moment after": first its own eyes on the partner; then
        (``signal_watched``) the partner's on it, and (``signal_unseen``) no opponent's. Once the
        level's ``signal_wait_s`` has passed since it held four, it is the moment whoever looks
        (S2 signals row 9: the other team keeps "a fair chance to see it"; no bot waits without
        limit)."""
        if self._wait_over(now) <= 0.0:
            return True
        eyes, lv = self.eyes, self.level
        if lv.signal_look_first and eyes.mine != self.partner:
            return False
        if lv.signal_watched and not eyes.watching(self.partner, self.seat):
            return False
        return not (lv.signal_unseen and eyes.opponents_watching(self.seat))

    def _wait_over(self, now: float) -> float:
        """Seconds from ``now`` until the level's wait for the moment to signal is over (0 when
        it is over already)."""
        since = self.four_since if self.four_since is not None else now
        return max(0.0, since + self.level.signal_wait_s - now)

    def _retime_signal(self, now: float) -> list[Plan]:
        """A planned signal at an ``attention`` table, when a look changed: brought forward when
        the moment has come, or held back when it has gone (an opponent turned to us) while a
        person could still stop their hand: one reaction time before the signal, never under
        :data:`HUMAN_MIN_S`. Never held past the level's wait."""
        due = self.signal_at
        if due is None or due <= now:
            return []
        moment = self._moment_to_signal(now)
        if self.signal_held and moment:
            delay = self._react(0.6)  # S0: "the signal comes a moment after"
            if now + delay >= due:
                return []
            self.signal_held = False
        elif not self.signal_held and not moment and due - now > self._react():
            delay = self._wait_over(now)
            if now + delay <= due:
                return []
            self.signal_held = True
        else:
            return []
        self.signal_at = now + delay
        return [Plan(delay, GestureAction(self.seat, self.signals[0]), "signal")]

    def _on_looks(self, now: float) -> list[Plan]:
        """Someone looked somewhere (or moved): the eyes may move, and a planned signal may be
        due sooner or later (:meth:`_retime_signal`)."""
        if not self._in_play():
            return []
        plans: list[Plan] = []
        if self._four() and self.signals and self._careful():
            plans += self._signal(now) if self.signalled_at is None else self._retime_signal(now)
        return plans + self._eyes_plans(now) if self.eyes.on else plans

    def _glance(self, seat: int, now: float) -> list[Plan]:
        """``seat`` moved and we did not see which gesture: glance at it (within the gesture's
        second a glance still sees it) when it may be signalling and the level thinks to."""
        lv = self.level
        eyes = self.eyes
        if not self._in_play() or seat == self.seat or eyes.watching(self.seat, seat):
            return []
        if seat != self.partner:
            still = eyes.still_for(seat, now)
            if not ((lv.watch_opponents and still >= READY_S)
                    or (lv.glance_swapped and still <= SIGNAL_AFTER_SWAP_S)):
                return []
        if self.rng.random() >= (lv.glance_moved if seat == self.partner else lv.glance_opponents):
            return []
        delay = self._react(0.8)
        self.glance_until = now + delay + GLANCE_HOLD_S
        return eyes.look(seat, now, delay)

    def _look_target(self, now: float) -> LookAt:
        """Where to look (S0 "Watching your partner"): with four of a kind at the partner (S0
        "looks at their partner; the signal comes a moment after": it draws the partner's eyes);
        else at whoever may signal soonest: the partner when it has stopped taking cards or
        looks at us, an opponent (``watch_opponents``) who has stopped and looks at its partner;
        else the middle, collecting."""
        eyes, lv = self.eyes, self.level
        if self._four():
            return self.partner
        best: LookAt = "middle"
        score = READY_S
        partner = eyes.still_for(self.partner, now) * 1.2
        if eyes.watching(self.partner, self.seat):
            partner += READY_S  # the partner looks at us: ready, or waiting for our signal
        if partner >= score:
            best, score = self.partner, partner
        if lv.watch_opponents:
            for s in range(self.n):
                if s % self.pairs == self.pair:
                    continue
                weight = 1.0 if eyes.watching(s, (s + self.pairs) % self.n) else 0.5
                still = eyes.still_for(s, now) * weight
                if still > score:
                    best, score = s, still
        return best

    def _eyes_plans(self, now: float) -> list[Plan]:
        if not self.eyes.on or self.phase != "play" or now < self.glance_until:
            return []
        return self.eyes.look(self._look_target(now), now, self._react(0.7))

    def _idle(self) -> str:
        """An idle gesture from the personal habit, never the pair's signal."""
        if self._idle_for != self.signals:
            # The choices change only with the signals: kept, as ``cum_weights`` (the very
            # sums ``choices`` makes of the weights, so the same draw gives the same gesture).
            options = [(g, w) for g, w in zip(self.palette, self.habit) if g not in self.signals]
            self._idle_options = [g for g, _ in options]
            self._idle_cum = list(accumulate(w for _, w in options))
            self._idle_for = self.signals
        return self.rng.choices(self._idle_options, cum_weights=self._idle_cum)[0]

    def _noise(self) -> list[Plan]:
        self.planned_noise = True
        choice = self._idle()
        delay = max(HUMAN_MIN_S, self.rng.expovariate(1.0 / self.level.noise_every_s))
        return [Plan(delay, GestureAction(self.seat, choice), "gesture")]

    def _fake(self, now: float) -> list[Plan]:
        """S0 "False signals": give a burnt old signal with three of a kind, once a hand, at most
        twice per old signal, only where the rules allow it."""
        if self.rules.fake_signals != "allowed" or self.phase != "play" or not self.burnt:
            return []
        if max(self._counts().values(), default=0) != 3:
            return []
        decoys = [g for g in sorted(self.burnt) if g not in self.signals
                  and self.decoys_used.get(g, 0) < 2]
        if not decoys:
            return []
        if self.rng.random() > 0.5:
            self.faked = True  # not this hand
            return []
        g = decoys[0]
        self.faked = True
        self.decoys_used[g] = self.decoys_used.get(g, 0) + 1
        self.planned_noise = True
        return [Plan(self._react(1.2), GestureAction(self.seat, g), "gesture")]

    # -- collecting -------------------------------------------------------------------------------
    def _live(self, rank: str) -> bool:
        return not self.level.counting or rank not in self.watch.dead_ranks

    def _pick_target(self) -> str | None:
        counts = self._counts()
        if not counts:
            return None
        lv = self.level
        if not lv.counting:
            best = max(counts.values())
            if (self.target is None or counts.get(self.target, 0) < best
                    or (self.sweeps_without >= 2 and counts.get(self.target, 0) < 3)):
                if self.sweeps_without >= 2 and self.target is not None and len(counts) > 1:
                    choices = sorted(r for r in counts if r != self.target)
                else:
                    choices = sorted(r for r, k in counts.items() if k == best)
                self.target = self.rng.choice(choices)
                self.sweeps_without = 0
            return self.target
        w = self.watch
        middle = self.cards.middle
        key = (self._hand_key, tuple(middle), self.target, self.sweeps_without, w.version)
        if key == self._target_key:
            return self.target  # nothing it depends on has changed since the last answer
        reach = counts.copy()  # per rank: held, plus (below) lying in the middle
        for c in middle:
            if c is not None:
                reach[c.rank] = reach.get(c.rank, 0) + 1
        best_rank: str | None = None
        best_score = -1e9
        dead = w.dead_ranks
        opponents_took = w.took_by_opponents
        partner_took = w.took[self.partner]
        given_up = self.given_up
        target = self.target
        for rank in sorted(reach):
            if rank in dead:
                continue
            have = counts.get(rank, 0)
            k = reach[rank]
            # The others' takes (Watcher.interest) count against a rank, an opponent's 1.5 and
            # the partner's 1.0; every term is a small multiple of 0.5, so the sums are exact.
            score = (10.0 * (k if k < 4 else 4) + 2.0 * have
                     - (1.5 * opponents_took.get(rank, 0) + partner_took.get(rank, 0)))
            if rank == target:
                # S0: "if the rank you want has not shown in the middle after two sweeps, it is
                # probably in somebody else's hand": the longer, the likelier.
                score += 4.0 if self.sweeps_without < 2 else -SWITCH_PER_SWEEP * (
                    self.sweeps_without - 1)
            if given_up:
                score -= given_up.get(rank, 0.0)
            if score > best_score:
                best_rank, best_score = rank, score
        if best_rank is None:
            best_rank = max(sorted(counts), key=lambda r: counts[r])
        if best_rank != self.target:
            if self.target is not None and self.sweeps_without >= 2:
                # Given up: it keeps its penalty, or the bot would switch straight back.
                self.given_up[self.target] = SWITCH_PER_SWEEP * (self.sweeps_without - 1)
            self.target = best_rank
            self.sweeps_without = 0
        self._target_key = (key[0], key[1], self.target, self.sweeps_without, w.version)
        # Whether the middle holds the rank now collected (the swap's wanted cards), for this key.
        self._target_in_middle = (self._target_key,
                                  reach.get(best_rank, 0) > counts.get(best_rank, 0))
        return self.target

    def _throw_order(self, target: str) -> list[Card]:
        """The cards of the hand not of ``target``, the one to throw first first. The answer is
        kept until the hand, ``target`` or what the watcher knows changes: callers must not
        change the list."""
        w = self.watch
        counts = self._counts()
        key = (target, self._hand_key, w.version)
        if key == self._throw_key:
            return self._throw
        lv = self.level
        hand = [c for c in self.cards.hand if c.rank != target]
        if not lv.counting:
            self._throw = sorted(hand, key=lambda c: (counts[c.rank], c.index))
        else:
            # Per rank (the same for all its cards): not the partner's rank first, then one
            # that helps nobody (useless), then (helps_partner) the least taken by opponents,
            # then the fewest held; of equals, the lowest card index.
            helps = lv.helps_partner
            partner_rank = w.favourite(self.partner) if helps else None
            opponents_took = w.took_by_opponents
            useless = w.useless
            order: dict[str, tuple[int, int, int, int]] = {}
            for rank, k in counts.items():
                if rank != target:
                    order[rank] = (0 if rank == partner_rank else 1,
                                   0 if useless(rank, k - 1) else 1,
                                   opponents_took.get(rank, 0) if helps else 0, k)
            if len(hand) < 2:
                self._throw = hand
            else:
                self._throw = sorted(hand, key=lambda c: (order[c.rank], c.index))
        self._throw_key = key
        return self._throw

    def _best_swap(self) -> Swap | None:
        target = self._pick_target()
        if target is None:
            return None
        if self.level.counting and self._swap_for is self._target_key:
            # The rank choice found nothing changed (the same key object): nor has this.
            wanted = self._swap_wanted
        else:
            for_key, in_middle = self._target_in_middle
            if for_key is self._target_key and not in_middle:
                wanted = []
            else:
                wanted = [c for c in self.cards.middle if c is not None and c.rank == target]
            self._swap_wanted = wanted
            self._swap_for = self._target_key
        if self._hand_counts.get(target, 0) >= len(self.cards.hand):  # (counted just now)
            return None  # nothing to throw: every card is of the rank collected
        # The throw order is asked only when a card goes (most of the time nothing is wanted).
        if not wanted:
            w = self.watch
            idle = w.sweeps - w.sweeps_at_swap[self.seat]
            if idle >= STUCK_SWEEPS:
                return self._unstick(target, self._throw_order(target),
                                     give_up=idle >= 2 * STUCK_SWEEPS)
            if self.level.decoy_swaps and self.rng.random() < self.level.decoy_swaps / 8:
                return self._decoy_swap(target, self._throw_order(target))
            return None
        throw = self._throw_order(target)
        k = min(len(wanted), len(throw)) if self.rules.multi_swap else 1
        return Swap(self.seat, tuple(wanted[:k]), tuple(throw[:k]))

    def _unstick(self, target: str, throw: list[Card], give_up: bool) -> Swap | None:
        """Every card we want is in somebody's hand and theirs in ours (partners can hold each
        other's cards for ever where swept cards come back): let one go. First a card we do not
        collect, for the card of the middle that matches most of our hand; if that did not
        help either, give up the rank: throw a card of it and collect the rank taken."""
        take = [c for c in self.cards.middle if c is not None]
        if not take:
            return None
        counts = self._counts()
        pick = max(take, key=lambda c: (counts.get(c.rank, 0) if c.rank != target else -1,
                                        -c.index))
        if give_up:
            mine = [c for c in self.cards.hand if c.rank == target]
            if mine and pick.rank != target:
                self.target = pick.rank
                self.sweeps_without = 0
                return Swap(self.seat, (pick,), (mine[0],))
        return Swap(self.seat, (pick,), (throw[0],))

    def _decoy_swap(self, target: str, throw: list[Card]) -> Swap | None:
        """S1 hint: "confuse the other team by occasionally picking up cards you don't need"."""
        counts = self._counts()
        if counts.get(target, 0) >= 3 or len(throw) < 1:
            return None
        options = [c for c in self.cards.middle if c is not None and c.rank != target
                   and c.rank not in counts and not self._live(c.rank)]
        if not options:
            return None
        return Swap(self.seat, (options[0],), (throw[0],))

    def _grabs(self) -> bool:
        """Grab-then-discard (S4) where the table has a hold limit, at counting levels: one quick
        grab, the discard chosen after (and, where ``immune_while_holding``, safe from calls
        while holding)."""
        return self.rules.hold_limit_s > 0 and self.level.counting

    def _discard_choice(self) -> tuple[Card, ...]:
        """The cards to discard after a grab: as many as were grabbed, never a grabbed one (the
        table refuses it), the least useful first."""
        extra = len(self.cards.hand) - 4
        counts = self._counts()
        target = max(sorted(counts), key=lambda r: counts[r]) if counts else ""
        order = [c for c in self._throw_order(target) if c not in self.grabbed]
        if len(order) < extra:
            order += [c for c in self.cards.hand if c not in self.grabbed and c not in order]
        return tuple(order[:extra])

    def _wanted_in_middle(self) -> bool:
        if self.target is None or self._four():
            return False
        return self._middle_has(self.target)

    def _middle_has(self, rank: str) -> bool:
        """Whether a card of ``rank`` lies face up in the middle."""
        for c in self.cards.middle:  # noqa: SIM110 - a loop: any() makes a generator each call
            if c is not None and c.rank == rank:
                return True
        return False

    def _release(self) -> list[Plan]:
        """We objected and lost the card: take something so the countdown can go on (S4)."""
        target = self.target or ""
        throw = self._throw_order(target)
        take = [c for c in self.cards.middle if c is not None]
        if not throw or not take:
            return []
        swap = Swap(self.seat, (take[0],), (throw[0],))
        self.planned_swap = swap
        return [Plan(self._react(), swap, "cards")]

    def _stall(self) -> list[Plan]:
        sweep = self.rules.sweep
        if sweep == "dealer_only":
            if self.seat != self.dealer or self.stall_pending:
                return []
        elif sweep == "all_agree":
            if self.agreed_stall:
                return []
        elif self.stall_pending:
            return []
        partner_rank = self.watch.favourite(self.partner) if self.level.counting else None
        scale = self.level.stall_factor
        if partner_rank is not None and self._middle_has(partner_rank):
            scale *= 2.0  # give the partner time to take it
        self.planned_stall = True
        return [Plan(self._react(scale), ProposeStall(self.seat), "table")]


# What a bot does on each kind of event it follows (KempsBot._observe): one method a kind, looked
# up by the event's class rather than asked of a chain of isinstance tests. These are KempsBot's
# own methods: a subclass changes what it does on an event by overriding _observe.
_SEE: Final[dict[type, Callable[[KempsBot, Any, float], list[Plan]]]] = {
    Swapped: KempsBot._saw_swapped,
    Gestured: KempsBot._saw_gestured,
    Swept: KempsBot._saw_swept,
    StallProposed: KempsBot._saw_stall_proposed,
    Objected: KempsBot._saw_objected,
    StallResumed: KempsBot._saw_stall_resumed,
    StallCancelled: KempsBot._saw_stall_cancelled,
    Grabbed: KempsBot._saw_grabbed,
    Discarded: KempsBot._saw_discarded,
    HoldExpired: KempsBot._saw_hold_expired,
    PlayOpened: KempsBot._saw_play_opened,
    HandDealt: KempsBot._saw_hand_dealt,
    Called: KempsBot._saw_called,
    Revealed: KempsBot._saw_revealed,
    CallJudged: KempsBot._saw_call_judged,
    CallVoid: KempsBot._saw_call_void,
    SignalsAgreed: KempsBot._saw_signals_agreed,
    SignalsProposed: KempsBot._saw_signals_proposed,
    SignalsDeclined: KempsBot._saw_signals_declined,
    HandEnded: KempsBot._saw_hand_ended,
    MatchEnded: KempsBot._saw_match_ended,
}
