"""A simple bot: enough to play whole matches headless (issue "rules engine", item 7).

It collects one rank (the one it holds most of), takes matching cards from the middle, signals its
partner with the pair's agreed gesture once it holds four of a kind and then stops swapping, calls
Kemps when it sees its partner's signal, calls Stop Kemps when an opponent repeats a gesture that
was seen just before one of that pair's right calls, proposes a stall when the middle holds nothing
it wants, and makes the odd idle gesture. Every move waits a human reaction time. Stronger bots are
a separate piece of work (bots issue); this one is deliberately plain.

In the huddle the pair's first seat agrees a signal (a new one when the old was read, and often
for no reason). With a person for a partner (:meth:`SimpleBot.on_partner`) the pair's signals
are the person's too: it agrees one only while the pair has none, proposes a new one only when
the old was read, and leaves the answer to the person (S1 "privately agrees a signal"); it
accepts whatever its partner proposes.
"""

from __future__ import annotations

import random
from typing import Final

from kemps.actions import (
    Action,
    AgreeSignals,
    Call,
    Go,
    Look,
    ProposeSignals,
    ProposeStall,
    Swap,
)
from kemps.actions import Gesture as GestureAction
from kemps.bots.base import Plan, stop_call_on
from kemps.bots.eyes import Eyes
from kemps.bots.seatcards import CARD_MOVES, FollowsCards, SeatCards
from kemps.cards import Card
from kemps.errors import Rejected
from kemps.events import (
    Called,
    Chatted,
    Event,
    Gestured,
    GestureSeen,
    HandDealt,
    HandEnded,
    Looked,
    Moved,
    PlayOpened,
    Revealed,
    SignalsAgreed,
    SignalsDeclined,
    SignalsProposed,
    StallCancelled,
    StallProposed,
    Swapped,
    Swept,
)
from kemps.gestures import HEARD, SEEN
from kemps.rules import RuleSet
from kemps.views import SeatView

LOOK_FIRST_S: Final = 2.0  # attention: the longest the first signal waits for the eyes (s)
FOLLOWER_WAIT_S: Final = 1.5  # with a person partner, the second seat leaves the person this long
MEMORY_S: Final = 6.0  # how far back before a call a gesture counts as "the signal"
_NOT_CHANGES: Final = frozenset({Gestured, Chatted, Looked, Moved})
#: The events _observe acts on beyond Swapped and Gestured (others only move cards, or nothing).
_OBSERVED: Final = frozenset({Swept, StallProposed, StallCancelled, PlayOpened, HandDealt, Called,
                              SignalsAgreed, SignalsProposed, SignalsDeclined, Revealed,
                              HandEnded})


class SimpleBot(FollowsCards):
    """A plain, human-paced bot for one seat. ``rng`` is the bot's own random generator."""

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random,
                 reaction_s: tuple[float, float] = (0.45, 1.3), noise_every_s: float = 15.0
                 ) -> None:
        self.seat = seat
        self.rules = rules
        self.n = rules.players
        self.pairs = rules.pairs
        self.pair = seat % self.pairs
        self.partner = (seat + self.pairs) % self.n
        self.rng = rng
        self.reaction_s = reaction_s
        self.noise_every_s = noise_every_s
        self.palette = SEEN + (HEARD if rules.heard_signals else ())
        self.cards = SeatCards(seat)
        self.eyes = Eyes(seat, rules)  # attention tables: it watches its partner (S0)
        self.phase = "huddle"
        self.dealer: int | None = 0
        self.signals: tuple[str, ...] = ()
        self.target: str | None = None
        self.sweeps_without_target = 0
        self.signalled_at: float | None = None
        self.awaiting_look = False  # attention: the first signal waits for the eyes on the partner
        self.stall_pending = False
        self.agreed_stall = False
        self.hand_no = 0
        self.recent: list[tuple[float, int, str]] = []  # (t, seat, gesture) this hand
        self.read: dict[int, set[str]] = {}  # opponent seat -> gestures believed to be its signal
        self.was_read = False  # an opponent's right Stop Kemps on our pair: change signal
        self.agreed_for_hand = -1
        self.partner_person = False  # a person plays the partner's seat (on_partner)
        self.proposed = False  # our proposal waits for the partner's answer
        self._last_call: Called | None = None
        # What is already planned (so that an unrelated event does not restart a reaction time).
        self.planned_swap: Swap | None = None
        self.planned_stall = False
        self.planned_noise = False
        self.switched = False
        # _best_swap's answer and what it was worked out from (copies of the cards' lists).
        self._swap_middle: list[Card | None] | None = None
        self._swap_hand: list[Card] | None = None
        self._swap_target: str | None = None
        self._swap_switched = False
        self._swap_memo: Swap | None = None
        self._counted_hand: list[Card] | None = None
        self._rank_counts: dict[str, int] = {}
        self._noise_for: tuple[str, ...] | None = None
        # At a table without attention (and unless a subclass decides or observes otherwise)
        # on_events follows a swap itself and, in play, calls _decide_play directly.
        cls = type(self)
        self._play_direct = (not self.eyes.on and cls._decide is SimpleBot._decide
                             and cls._decide_cards is SimpleBot._decide_cards)
        self._swaps_direct = not self.eyes.on and cls._observe is SimpleBot._observe
        self._noise_list: list[str] = []

    # -- helpers ------------------------------------------------------------------------------
    def _react(self, scale: float = 1.0) -> float:
        lo, hi = self.reaction_s
        # random.Random.uniform(lo, hi), written out (the same draw, the same arithmetic).
        return scale * (lo + (hi - lo) * self.rng.random())

    def _four(self) -> bool:
        h = self.cards.hand
        return len(h) == 4 and h[0].rank == h[1].rank == h[2].rank == h[3].rank

    def _counts(self) -> dict[str, int]:
        hand = self.cards.hand
        if hand != self._counted_hand:  # lists of interned cards: compared by identity, in C
            counts: dict[str, int] = {}
            for c in hand:
                counts[c.rank] = counts.get(c.rank, 0) + 1
            self._counted_hand, self._rank_counts = hand[:], counts
        return self._rank_counts

    def _pick_target(self) -> None:
        if self.switched:
            return
        counts = self._counts()
        best = max(counts.values())
        if self.target is None or counts.get(self.target, 0) < best:
            choices = sorted(r for r, k in counts.items() if k == best)
            self.target = self.rng.choice(choices)
            self.sweeps_without_target = 0

    # -- the Bot protocol -----------------------------------------------------------------------
    def on_partner(self, person: bool) -> None:
        """The driver says whether a person plays the partner's seat (see the module's text)."""
        self.partner_person = person

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        """Resynchronise from the seat's view; agree signals in the huddle."""
        self.hand = list(view.hand)
        self.middle = list(view.middle)
        self.phase = view.phase
        self.dealer = view.dealer
        self.signals = view.signals
        self.hand_no = view.hand_no
        self.eyes.sync(view.looks)
        if self.hand and view.phase in ("dealt", "play"):
            self._pick_target()
        proposal = view.proposal
        if proposal is not None and view.phase == "huddle":
            if proposal[0] == self.partner:  # e.g. standing in for a person who was asked
                return self._accept(proposal[1])
            self.proposed = True
        return self._decide(now)

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        """Follow the table from public events (and our own deal) and decide what to do."""
        plans: list[Plan] = []
        changed = False
        seat, observe = self.seat, self._observe
        for e in events:
            if e.__class__ is Swapped and self._swaps_direct:
                # The commonest event, followed here as _observe follows it (no call).
                swapped: Swapped = e
                self.cards.follow(swapped)
                if swapped.seat == seat:
                    self.planned_swap = None
                    self.switched = False
                changed = True
                continue
            seen = observe(e, now)
            if seen:
                plans += seen
            # Someone else's gesture, chat or look changes nothing this bot decides on but calls.
            if not changed and not (e.__class__ in _NOT_CHANGES
                                    and e.seat != seat):  # type: ignore[union-attr]
                changed = True
        if changed:
            decided = (self._decide_play(now) if self._play_direct and self.phase == "play"
                       else self._decide(now))
            if decided:
                return plans + decided
        return plans

    def on_stuck(self, now: float) -> list[Plan]:
        """The driver's stuck-hand guard (:mod:`kemps.sim`): minutes without a call. Signal
        again with four; otherwise swap a random card for a random card of the middle."""
        if self.phase != "play" or not self.hand:
            return []
        if self._four():
            if not self.signals:
                return []
            return [Plan(self._react(), GestureAction(self.seat, self.signals[0]), "gesture")]
        take = [c for c in self.middle if c is not None]
        if not take:
            return []
        swap = Swap(self.seat, (self.rng.choice(take),), (self.rng.choice(self.hand),))
        self.planned_swap = swap
        self.target = None
        self.switched = False
        return [Plan(self._react(), swap, "cards")]

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        """A rejected move (usually ``card_gone``: someone was quicker): think again."""
        if isinstance(action, ProposeStall):
            self.stall_pending = True
            self.planned_stall = False
        elif isinstance(action, Swap):
            self.planned_swap = None
        elif isinstance(action, GestureAction):
            self.planned_noise = False
        elif isinstance(action, Look):
            self.eyes.refused()
        return self._decide(now)

    # -- following the table ---------------------------------------------------------------------
    def _observe(self, e: Event, now: float) -> list[Plan]:
        # Events are final classes: a class test is isinstance, cheaper (bots see ~100 a hand).
        cls = e.__class__
        if cls in CARD_MOVES:
            self.cards.follow(e)
        if self.eyes.on:
            self.eyes.follow(e)
            if isinstance(e, Moved):
                # The partner moved and we were not looking: a glance may still catch it.
                if e.seat == self.partner and self.phase == "play":
                    return self.eyes.look(e.seat, now, self._react(0.9))
                return []
            if isinstance(e, GestureSeen):  # our glance landed during the gesture
                self.recent.append((e.made_at, e.seat, e.gesture))
                return self._on_gesture(Gestured(e.made_at, e.seat, e.gesture, False))
        if cls is Swapped:
            if e.seat == self.seat:  # type: ignore[union-attr]
                self.planned_swap = None
                self.switched = False
        elif cls is Gestured:
            made: Gestured = e  # type: ignore[assignment]
            if made.seat == self.seat:
                self.planned_noise = False
                if made.gesture in self.signals:
                    self.awaiting_look = False
            self.recent.append((made.t, made.seat, made.gesture))
            return self._on_gesture(made)
        elif cls not in _OBSERVED:
            return []
        elif e.__class__ is Swept:
            self.stall_pending = False
            self.planned_stall = False
            self.agreed_stall = False
            target = self.target
            if target is not None:
                for c in self.cards.middle:
                    if c is not None and c.rank == target:
                        break
                else:  # the target rank is not in the new middle
                    self.sweeps_without_target += 1
                    if self.sweeps_without_target >= 2:
                        # S0 "What to collect": switch when the rank has not shown after two
                        # sweeps.
                        self.target = None
                        self._pick_target_excluding_current()
        elif e.__class__ is StallProposed:
            self.stall_pending = e.deadline is not None
            if e.seat == self.seat:
                self.planned_stall = False
            elif self.planned_stall and self.stall_pending:
                self.planned_stall = False  # someone said it first: no need to say it again
                return [Plan(0.0, None, "table")]
            if e.seat == self.seat and e.deadline is None:
                self.agreed_stall = True
        elif e.__class__ is StallCancelled:
            self.agreed_stall = False
        elif e.__class__ is PlayOpened:
            self.phase = "play"
        elif e.__class__ is HandDealt:
            if self.proposed:  # our proposal lapsed unanswered: the old signal stands
                self.proposed = self.was_read = False
            self.phase = "dealt"
            self.dealer = e.dealer
            self.hand_no = e.hand_no
            self.target = None
            self.signalled_at = None
            self.awaiting_look = False
            self.stall_pending = False
            self.agreed_stall = False
            self.recent = []
            self.switched = False
            self.planned_swap = None
            self.planned_stall = False
            self._pick_target()
        elif e.__class__ is Called:
            self._last_call = e
        elif e.__class__ is SignalsAgreed:
            self.signals = e.signals
            if self.partner_person:
                self.proposed = self.was_read = False
                if e.seat != self.seat:
                    return [Plan(0.0, None, "table")]  # the person's choice stands
        elif e.__class__ is SignalsProposed:
            if e.seat == self.seat:
                self.proposed = True
                return []
            self.proposed = False
            return self._accept(e.signals)
        elif e.__class__ is SignalsDeclined:
            if e.seat != self.seat:  # the partner keeps the pair's signal: we do not ask again
                self.proposed = self.was_read = False
        elif e.__class__ is Revealed:
            self._learn(e)
        elif e.__class__ is HandEnded:
            self.phase = "huddle"
            if self.planned_noise:
                # An idle gesture planned in this hand must not land in the next one, where it
                # might be the pair's new signal and draw a wrong Kemps from the partner.
                self.planned_noise = False
                return [Plan(0.0, None, "gesture")]
        return []

    def _pick_target_excluding_current(self) -> None:
        # S0 "What to collect": switch when the rank has not shown after two sweeps. Take up a
        # rank that is in the middle now, so that cards move (at a table that reshuffles the
        # swept cards, bots that only ever wait for their own ranks could wait forever).
        showing = sorted({c.rank for c in self.middle if c is not None})
        self.target = self.rng.choice(showing or sorted(self._counts()))
        self.sweeps_without_target = 0
        self.switched = True  # keep this rank until a card has moved

    def _learn(self, e: Revealed) -> None:
        """Public evidence: a hand shown holding four of a kind after a call. The gestures that
        seat made just before the call are probably its pair's signal."""
        if not e.full or len({c.rank for c in e.cards}) != 1:
            return
        shown = e.seat
        if shown % self.pairs == self.pair:
            call = self._last_call
            if call is not None and call.kind in ("stop", "double_stop"):
                self.was_read = True
            return
        for t, s, g in self.recent:
            if s == shown and e.t - t <= MEMORY_S:
                self.read.setdefault(shown, set()).add(g)
                self.read.setdefault((shown + self.pairs) % self.n, set()).add(g)

    def _on_gesture(self, e: Gestured) -> list[Plan]:
        if self.phase not in ("dealt", "play"):
            return []
        if e.seat == self.partner and e.gesture in self.signals:
            return [Plan(self._react(1.2), Call(self.seat, "kemps"), "call")]
        if e.seat % self.pairs != self.pair and e.gesture in self.read.get(e.seat, ()):
            return self._plan_stop(e.seat)
        return []

    def _plan_stop(self, signaller: int) -> list[Plan]:
        call = stop_call_on(self.rules, self.seat, signaller)
        return [] if call is None else [Plan(self._react(1.1), call, "call")]

    # -- deciding ---------------------------------------------------------------------------------
    def _decide(self, now: float) -> list[Plan]:
        plans = self._decide_cards(now)
        if self.eyes.on and self.phase == "play":
            # S0 "Watching your partner": back to the partner after every card taken.
            plans += self.eyes.look(self.partner, now, self._react(1.0))
        return plans

    def _decide_cards(self, now: float) -> list[Plan]:
        plans: list[Plan] = []
        if self.phase == "play":
            return self._decide_play(now)
        if self.phase == "huddle":
            if self.partner_person:
                return self._huddle_with_person()
            if (self.seat < self.pairs and self.agreed_for_hand != self.hand_no and (
                    not self.signals or self.was_read or self.rng.random() < 0.3)):
                self.agreed_for_hand = self.hand_no
                self.was_read = False
                options = [g for g in self.palette if g not in self.signals]
                plans.append(Plan(self._react(), AgreeSignals(
                    self.seat, (self.rng.choice(options),)), "table"))
            return plans
        if self.phase == "dealt":
            if self.rules.start == "on_go" and self.seat == self.dealer:
                plans.append(Plan(self._react(1.5), Go(self.seat), "table"))
            return plans
        return plans

    def _huddle_with_person(self) -> list[Plan]:
        """With a person partner: agree a signal while the pair has none (the person may agree
        another: theirs stands), propose a new one when the old was read; never more."""
        if self.agreed_for_hand == self.hand_no:
            return []
        self.agreed_for_hand = self.hand_no
        if self.signals and not self.was_read:
            return []
        wait = 0.0 if self.seat < self.pairs else FOLLOWER_WAIT_S
        choice = (self.rng.choice([g for g in self.palette if g not in self.signals]),)
        if not self.signals:
            return [Plan(wait + self._react(), AgreeSignals(self.seat, choice), "table")]
        return [Plan(wait + self._react(), ProposeSignals(self.seat, choice), "table")]

    def _accept(self, signals: tuple[str, ...]) -> list[Plan]:
        """Agree the partner's proposal (after a reaction time), instead of any plan of ours."""
        self.agreed_for_hand = self.hand_no
        return [Plan(self._react(), AgreeSignals(self.seat, signals), "table")]

    def _decide_play(self, now: float) -> list[Plan]:
        hand = self.cards.hand
        if not hand:
            return []
        plans: list[Plan] = []
        if len(hand) == 4 and hand[0].rank == hand[1].rank == hand[2].rank == hand[3].rank:
            # four of a kind (_four)
            if not self.signals:
                return plans
            if self.eyes.on and self.signalled_at is None:
                # S0 "Calling Stop Kemps": "looks at their partner; the signal comes a moment
                # after". Look first; signal once the eyes are there, or after LOOK_FIRST_S
                # whatever happened (no bot waits without limit: S2 signals row 9).
                self.signalled_at = now
                self.awaiting_look = True
                return plans + [Plan(LOOK_FIRST_S, GestureAction(self.seat, self.signals[0]),
                                     "gesture")]
            if self.awaiting_look:
                if self.eyes.mine == self.partner:
                    self.awaiting_look = False
                    plans.append(Plan(self._react(0.8), GestureAction(
                        self.seat, self.signals[0]), "gesture"))
                return plans
            if self.signalled_at is None or now - self.signalled_at > 5.0:
                self.signalled_at = now
                plans.append(Plan(self._react(0.8), GestureAction(self.seat, self.signals[0]),
                                  "gesture"))
            return plans
        swap = self._best_swap()
        if swap is not None:
            planned = self.planned_swap
            if swap is not planned and swap != planned:  # the same object is the same swap
                self.planned_swap = swap
                plans.append(Plan(self._react(), swap, "cards"))
        elif not self.planned_stall:
            plans += self._stall_plan()
        if not self.planned_noise:
            plans += self._noise()
        return plans

    def _noise_options(self) -> list[str]:
        # The idle gestures: the palette without the pair's signals (worked out once per signals).
        signals = self.signals
        if signals is not self._noise_for:
            self._noise_for = signals
            self._noise_list = [g for g in self.palette if g not in signals]
        return self._noise_list

    def _best_swap(self) -> Swap | None:
        # Bots decide after almost every event; when neither the cards nor the target changed,
        # the answer has not either (and _pick_target would draw nothing from the generator).
        # The cards' lists are compared with copies kept from last time (no key built per call).
        cards = self.cards
        middle, hand = cards.middle, cards.hand
        target, known = self.target, self._swap_middle
        if (known is not None and hand == self._swap_hand and target == self._swap_target
                and self.switched == self._swap_switched):
            if middle == known:
                return self._swap_memo
            # Only the middle changed. _find_swap reads it only for the cards of the target rank
            # (slot by slot): when no slot that changed held or holds one, the answer stands.
            for before, after in zip(known, middle):
                if before is not after and ((before is not None and before.rank == target)
                                            or (after is not None and after.rank == target)):
                    break
            else:
                known[:] = middle
                return self._swap_memo
        swap = self._find_swap()
        # _find_swap moves no card; it may change only the target (and with it nothing else).
        self._swap_middle, self._swap_hand = middle[:], hand[:]
        self._swap_target, self._swap_switched = self.target, self.switched
        self._swap_memo = swap
        return swap

    def _find_swap(self) -> Swap | None:
        self._pick_target()
        target = self.target
        wanted = [c for c in self.middle if c is not None and c.rank == target]
        if not wanted:
            return None
        counts = self._counts()
        # The cards to give, fewest of their rank first, then by index: sorted on
        # (count, index, card) triples (indexes differ, so cards themselves are never compared).
        throw = sorted([(counts[c.rank], c.index, c) for c in self.cards.hand if c.rank != target])
        if not throw:
            return None
        k = min(len(wanted), len(throw)) if self.rules.multi_swap else 1
        return Swap(self.seat, tuple(wanted[:k]), tuple([t[2] for t in throw[:k]]))

    def _stall_plan(self) -> list[Plan]:
        plans = self._stall_choice()
        self.planned_stall = bool(plans)
        return plans

    def _stall_choice(self) -> list[Plan]:
        sweep = self.rules.sweep
        if sweep == "dealer_only":
            if self.seat == self.dealer and not self.stall_pending:
                return [Plan(self._react(4.0), ProposeStall(self.seat), "table")]
            return []
        if sweep == "all_agree":
            if not self.agreed_stall:
                return [Plan(self._react(2.0), ProposeStall(self.seat), "table")]
            return []
        if not self.stall_pending:
            return [Plan(self._react(4.0), ProposeStall(self.seat), "table")]
        return []

    def _noise(self) -> list[Plan]:
        self.planned_noise = True
        options = self._noise_options()
        delay = 0.5 + self.rng.expovariate(1.0 / self.noise_every_s)  # never faster than a person
        return [Plan(delay, GestureAction(self.seat, self.rng.choice(options)), "gesture")]
