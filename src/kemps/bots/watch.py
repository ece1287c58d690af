"""Watching the table: what a seat can learn about the others from public events only.

A :class:`Watcher` is fed the events a seat receives (already redacted by
:func:`kemps.views.event_for`) and its own hand, and keeps:

* per hand, the cards each player is known to hold (taken from the middle and not given back),
  the ranks each player takes, the cards swept away, each player's gestures and last swap;
* per match, for every opponent pair, the gestures identified as its signal (the gestures its
  shown player made just before a right call), how often the pair has kept its signal from one
  identification to the next, how many of its gestures turned out to be signals, and how often a
  Stop Kemps on one of its gestures was wrong (a fake, or a signal it had dropped).

:meth:`Watcher.belief` turns that into the chance that a gesture just made by an opponent is a real
signal over four of a kind: "per opponent, per gesture" (a pair shares its signal, so evidence on
one player counts for the partner too). Nothing here sees a hidden card; the seed for "what the
signal is" is S0 "Calling Stop Kemps" ("Dev had seen the ear touched once and needed nothing
more") and "What to collect" ("a player taking every nine is two nines away from a signal").
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from operator import itemgetter
from typing import Final

from kemps.bots.strength import Level
from kemps.cards import RANKS, Card
from kemps.rules import RuleSet

IDENTIFY_S: Final = 4.0  # a gesture this long before a right call may have been the signal
QUIET_S: Final = 3.0  # a gesture followed by no call for this long was not a live signal
TOOK_LR: Final = (1.0, 1.0, 1.8, 5.0, 30.0)  # odds factor by cards of one rank seen taken
UNSEEN_SIGNAL: Final = 0.06  # ``full``: chance that a gesture of a pair never read is its signal
QUIET_FACTOR: Final = 0.3  # ``full``: per time the gesture drew no call since it was last read
FAKE_PRIOR: Final = (1.5, 0.5)  # ``full``: (real, fake) pseudo-counts of a pair's live signals
SWAPPED_AFTER_S: Final = 8.0  # a signal followed by a swap this soon, with no call: a fake
STILL_LR: Final = 3.0  # passed over a card of its own rank in a fresh middle: stopped swapping
LOOKING_LR: Final = 1.8  # attention: the gesturer looks at its partner (S0 "looks at their partner")


_when: Final = itemgetter(0)  # a gesture's time, in ``Watcher.gests``


def _odds_to_p(odds: float) -> float:
    return odds / (1.0 + odds)


class Watcher:
    """Public-evidence bookkeeping and beliefs for the bot in ``seat`` (see the module doc).

    Times are table seconds. ``rules`` gives the seating and the pack (4 or 8 copies a rank).
    """

    def __init__(self, seat: int, rules: RuleSet, level: Level) -> None:
        self.seat = seat
        self.n = rules.players
        self.pairs = rules.pairs
        self.pair = seat % self.pairs
        self.copies = 4 * rules.deck_count
        self.level = level
        # per match, per pair
        self.idents: list[list[tuple[int, dict[str, float]]]] = [[] for _ in range(self.pairs)]
        # (kept, changed) pseudo-counts of a pair keeping its signal once it was read: pairs
        # that know the table change a read signal (S0 "Choosing a signal"), so a read signal is
        # believed kept once the pair has shown that it keeps them.
        self.keep: list[list[float]] = [[1.0, 3.0] for _ in range(self.pairs)]
        self.gestures_seen = [0] * self.pairs
        self.signals_seen = [0.0] * self.pairs
        self.wrong_stops_on = [0] * self.pairs
        # ``full``: per pair, each gesture's count of times it drew no call since the pair's
        # signal was last read, and the pair's live signals that proved real or fake.
        self.quiet: list[dict[str, int]] = [{} for _ in range(self.pairs)]
        self.real = [0.0] * self.pairs
        self.fakes = [0.0] * self.pairs
        self.call_times: list[float] = []
        self.hand_no = 0
        self.new_hand(0)

    # -- per hand ---------------------------------------------------------------------------
    def new_hand(self, hand_no: int) -> None:
        """Forget the last hand's cards and gestures (beliefs about signals stay)."""
        if getattr(self, "gests", None):
            self._count_quiet()
        self.call_times = []
        self.faked: set[float] = set()
        self.passed_over: list[bool] = [False] * self.n
        self.hand_no = hand_no
        self.version = getattr(self, "version", 0) + 1
        self.held: list[list[Card]] = [[] for _ in range(self.n)]
        # ``held`` counted per rank, kept with it (the card counting asks per rank on every
        # decision): per seat, and summed over every seat but ours.
        self.held_ranks: list[dict[str, int]] = [{} for _ in range(self.n)]
        self.held_by_others: dict[str, int] = {}
        self.most_held_by_one_other: dict[str, int] = {}  # the most one other seat holds
        # The ranks nobody can make four of with us (see ``dead``), kept as swept and held
        # counts change.
        self.dead_ranks: set[str] = set()
        self.took: list[dict[str, int]] = [{} for _ in range(self.n)]
        # ``took`` summed over the opponents, and each seat's ``favourite``, kept with it.
        self.took_by_opponents: dict[str, int] = {}
        self.favourites: list[str | None] = [None] * self.n
        self.swept: dict[str, int] = {}
        self.gests: list[tuple[float, int, str]] = []
        self.gest_key: dict[float, int] = {}  # an opponent gesture's time -> its moment_key
        # per (pair, gesture): when a player of the pair first made it this hand (``gests``'s
        # earliest such entry, kept so that "made before" needs no scan)
        self.first_made: dict[tuple[int, str], float] = {}
        self.moves: list[tuple[float, int]] = []  # attention: gestures we did not see (when, who)
        self.last_swap: list[float | None] = [None] * self.n
        self.last_took_rank: list[str | None] = [None] * self.n
        self.sweeps = 0
        self.sweeps_at_swap = [0] * self.n

    def swapped(self, seat: int, took: tuple[Card, ...], gave: tuple[Card, ...], t: float) -> None:
        """``seat`` took ``took`` from the middle and gave ``gave`` (also grabs and discards)."""
        self.passed_over[seat] = False
        self.version += 1
        p = seat % self.pairs
        opponent = p != self.pair
        idents = self.idents[p]
        if opponent and idents and self.level.inference == "full":
            # A live signal given, no call after it, and the giver goes on swapping: a fake.
            read = idents[-1][1]  # (identified)
            gests = self.gests
            # ``gests`` is in time order: from the newest back to SWAPPED_AFTER_S before ``t``
            # (each time counts once, whichever of its gestures marks it).
            for i in range(len(gests) - 1, -1, -1):
                gt, gs, g = gests[i]
                if t - gt > SWAPPED_AFTER_S:
                    break
                if (gs == seat and gt not in self.faked and read.get(g, 0.0) >= 0.5
                        and not any(gt <= ct <= t for ct in self.call_times)):
                    self.faked.add(gt)
                    self.fakes[p] += 1.0
        held = self.held[seat]
        if held:  # (a card given back that was taken this hand)
            for c in gave:
                if c in held:
                    held.remove(c)
                    self._count_held(seat, c.rank, -1)
        counts = self.took[seat]
        for c in took:
            held.append(c)
            rank = c.rank
            self._count_held(seat, rank, 1)
            k = counts[rank] = counts.get(rank, 0) + 1
            if opponent:
                self.took_by_opponents[rank] = self.took_by_opponents.get(rank, 0) + 1
            # Takes only grow: the favourite (most taken, of equals the first in text order)
            # changes only to a rank that has just drawn level or gone ahead.
            fav = self.favourites[seat]
            best = counts[fav] if fav is not None else 0
            if k > best or (k == best and fav is not None and rank < fav):
                self.favourites[seat] = rank
        if took:
            self.last_took_rank[seat] = took[-1].rank
        self.last_swap[seat] = t
        self.sweeps_at_swap[seat] = self.sweeps

    def returned(self, seat: int, cards: tuple[Card, ...]) -> None:
        """Grabbed cards went back to the middle (S4 hold limit)."""
        self.version += 1
        held = self.held[seat]
        for c in cards:
            if c in held:
                held.remove(c)
                self._count_held(seat, c.rank, -1)

    def _count_held(self, seat: int, rank: str, k: int) -> None:
        """Keep ``held_ranks`` and ``held_by_others`` equal to ``held`` counted per rank."""
        ranks = self.held_ranks[seat]
        ranks[rank] = ranks.get(rank, 0) + k
        if seat != self.seat:
            self.held_by_others[rank] = self.held_by_others.get(rank, 0) + k
            most = self.most_held_by_one_other.get(rank, 0)
            if ranks[rank] > most:
                self.most_held_by_one_other[rank] = ranks[rank]
            elif k < 0 and ranks[rank] - k == most:  # the seat that held most gave one back
                self.most_held_by_one_other[rank] = max(
                    self.held_ranks[s].get(rank, 0) for s in range(self.n) if s != self.seat)
            self._check_dead(rank)

    def _check_dead(self, rank: str) -> None:
        if self.swept.get(rank, 0) + self.held_by_others.get(rank, 0) > self.copies - 4:
            self.dead_ranks.add(rank)
        else:
            self.dead_ranks.discard(rank)

    def swept_away(self, cards: tuple[Card, ...]) -> None:
        """The middle was swept: these cards are out of the hand."""
        self.sweeps += 1
        self.version += 1
        # Whoever collects a rank that was in the middle and did not take it passed it over.
        ranks = {c.rank for c in cards}
        for s, fav in enumerate(self.favourites):
            if s != self.seat and fav is not None and fav in ranks:
                self.passed_over[s] = True
        for c in cards:
            self.swept[c.rank] = self.swept.get(c.rank, 0) + 1
            self._check_dead(c.rank)

    def gestured(self, seat: int, gesture: str, t: float) -> None:
        """Anyone's gesture (ours included: the others see them too), made at ``t`` (a glance
        that caught it late reports it at the time it was made)."""
        if self.gests and t < self.gests[-1][0]:
            bisect.insort(self.gests, (t, seat, gesture))
        else:
            self.gests.append((t, seat, gesture))
        p = seat % self.pairs
        if t < self.first_made.get((p, gesture), float("inf")):
            self.first_made[(p, gesture)] = t
        if p != self.pair:
            self.gestures_seen[p] += 1
            self.gest_key[t] = self.moment_key(seat)

    def moment_key(self, seat: int) -> int:
        """How many cards of one rank ``seat`` was seen taking and still holds (0 when none,
        or when it holds two ranks)."""
        held = self.held[seat]
        if not held:
            return 0
        first = held[0].rank
        for c in held:
            if c.rank != first:
                return 0
        return len(held)

    def moved(self, seat: int, t: float) -> None:
        """``seat`` made a gesture we did not see (``attention`` tables: a ``Moved`` event; a
        glance may still catch it, and then :meth:`gestured` reports it with the same time)."""
        self.moves.append((t, seat))

    # -- cards -------------------------------------------------------------------------------
    def known_elsewhere(self, rank: str, seat: int, hand: Sequence[Card],
                        middle: Sequence[Card | None]) -> int:
        """Cards of ``rank`` known not to be in ``seat``'s hand (swept, ours, in the middle,
        taken by somebody else and not given back)."""
        k = self.swept.get(rank, 0) + self.held_by_others.get(rank, 0)
        if seat != self.seat:
            for c in hand:
                if c.rank == rank:
                    k += 1
            k -= self.held_ranks[seat].get(rank, 0)
        for m in middle:
            if m is not None and m.rank == rank:
                k += 1
        return k

    def dead(self, rank: str, hand: Sequence[Card], middle: Sequence[Card | None]) -> bool:
        """True when nobody can hold four of ``rank`` with us: too many are swept or held."""
        return rank in self.dead_ranks

    def useless(self, rank: str, kept: int) -> bool:
        """True when a card of ``rank`` thrown into the middle helps nobody: with ``kept`` more of
        it staying in our hand, no other player can make four of it."""
        # Every other seat s fails when base + others - held[s] > limit: the one holding most
        # of the rank decides.
        return (self.swept.get(rank, 0) + kept + self.held_by_others.get(rank, 0)
                - self.most_held_by_one_other.get(rank, 0) > self.copies - 4)

    def interest(self, seat: int, rank: str) -> int:
        """How many cards of ``rank`` ``seat`` has taken this hand."""
        return self.took[seat].get(rank, 0)

    def opponents_interest(self, rank: str) -> int:
        """How many cards of ``rank`` the opponents together have taken this hand."""
        return self.took_by_opponents.get(rank, 0)

    def favourite(self, seat: int) -> str | None:
        """The rank ``seat`` has taken most this hand (its probable collection; of equals the
        first in text order), or None."""
        return self.favourites[seat]

    # -- learning from calls ------------------------------------------------------------------
    def judged(self, call_t: float, kind: str, right: bool, on_pair: int | None,
               shown_four: list[int], checked: tuple[int, ...]) -> None:
        """A call was judged. ``shown_four`` are the seats revealed holding four of a kind."""
        self.call_times.append(call_t)
        if right and shown_four:
            for s in shown_four:
                self._identify(s, call_t)
        elif not right and kind in ("stop", "double_stop") and on_pair is not None:
            self.wrong_stops_on[on_pair] += 1
            if on_pair != self.pair:
                # Called on, and wrong: the gestures just before it were fakes or idle.
                read = self.identified(on_pair)
                for t, s, g in self._made_between(call_t - IDENTIFY_S, call_t):
                    if (s % self.pairs == on_pair and read.get(g, 0.0) >= 0.5
                            and t not in self.faked):
                        self.faked.add(t)
                        self.fakes[on_pair] += 1.0

    def _made_between(self, lo: float, hi: float) -> list[tuple[float, int, str]]:
        """The hand's gestures made from ``lo`` to ``hi`` (both included), in time order."""
        gests = self.gests
        return gests[bisect.bisect_left(gests, lo, key=_when):
                     bisect.bisect_right(gests, hi, key=_when)]

    def _identify(self, shown: int, call_t: float) -> None:
        p = shown % self.pairs
        before = [(t, g) for t, s, g in self._made_between(call_t - IDENTIFY_S, call_t)
                  if s == shown]
        if not before:
            return
        weights: dict[str, float] = {}
        if self.level.inference == "naive":
            # The last gesture we saw is the signal only if the player made none after it that
            # we did not see (an attention table: we may have been looking elsewhere).
            last = before[-1][0]
            seen = {t for t, s, _ in self.gests if s == shown}
            if any(s == shown and last < t <= call_t and t not in seen for t, s in self.moves):
                return
            weights[before[-1][1]] = 1.0
        else:
            for i, (_, g) in enumerate(reversed(before)):
                weights[g] = max(weights.get(g, 0.0), 1.0 if i == 0 else 0.35)
            total = sum(weights.values())
            weights = {g: w / total for g, w in weights.items()}
        idents = self.idents[p]
        if self.level.inference == "full" and p != self.pair:
            self.quiet[p] = {}  # read afresh: earlier quiet gestures say nothing of this one
            if idents and sum(w * weights.get(g, 0.0) for g, w in idents[-1][1].items()) >= 0.5:
                self.real[p] += 1.0  # the signal read before proved real again
        if idents and idents[-1][0] == self.hand_no:
            idents[-1] = (self.hand_no, weights)
            return
        if idents:
            prev = idents[-1][1]
            same = sum(w * weights.get(g, 0.0) for g, w in prev.items())
            self.keep[p][0] += same
            self.keep[p][1] += 1.0 - same
        idents.append((self.hand_no, weights))
        if p != self.pair:
            self.signals_seen[p] += 1.0

    def identified(self, pair: int) -> dict[str, float]:
        """The last identification of ``pair``'s signal (gesture -> weight), or empty."""
        idents = self.idents[pair]
        return idents[-1][1] if idents else {}

    def _count_quiet(self) -> None:
        """At the end of a hand: each opponent gesture that drew no call within ``QUIET_S``."""
        calls = self.call_times
        for t, s, g in self.gests:
            p = s % self.pairs
            if p == self.pair or any(t <= ct <= t + QUIET_S for ct in calls):
                continue
            q = self.quiet[p]
            q[g] = q.get(g, 0) + 1

    def made_before(self, pair: int, gesture: str, t: float) -> bool:
        """Whether a player of ``pair`` made ``gesture`` this hand before ``t``."""
        return self.first_made.get((pair, gesture), t) < t

    def idle_before(self, seat: int, gesture: str, t: float) -> bool:
        """Whether ``gesture``, made now by ``seat``, was made by its pair this hand before
        ``t`` with no call after it, and ``seat`` has not been seen taking another card of the
        one rank it holds since (:meth:`moment_key` has not grown): then it was not a live
        signal, nor is it now. When it has grown, the earlier one says nothing of this one (S0
        "False signals": a pair fakes its live signal with three of a kind and gives it again,
        for real, once the fourth card lands)."""
        p = seat % self.pairs
        if not self.first_made.get((p, gesture), t) < t:
            return False
        now_key = self.moment_key(seat)
        gests = self.gests
        for i in range(bisect.bisect_left(gests, t, key=_when) - 1, -1, -1):
            gt, gs, g = gests[i]
            if g == gesture and gs % self.pairs == p:
                return not (gs == seat and 0 < self.gest_key.get(gt, 0) < now_key)
        return True

    def looks_lr(self, looking_at_partner: bool) -> float:
        """Odds factor from where the gesturer looks (``attention`` tables): S0 "A player who has
        just made four of a kind stops swapping, sits a little stiller and looks at their
        partner; the signal comes a moment after"."""
        return LOOKING_LR if looking_at_partner else 1.0

    # -- belief ---------------------------------------------------------------------------------
    def belief(self, seat: int, gesture: str, now: float, hand: Sequence[Card],
               middle: Sequence[Card | None], looking_at_partner: bool = False) -> float:
        """The chance that ``gesture``, just made by opponent ``seat``, signals four of a kind.

        ``naive``: 1 when it is the gesture last identified as the pair's signal within two
        hands, else 0. ``bayes``: identified signal times the pair's keep rate, else the pair's
        share of gestures that were signals; a gesture the pair already made this hand with no
        call following is discounted, and so are pairs caught faking. ``full`` adds the moment:
        what the player is known to hold and whether it has just taken a card of its rank.
        """
        p = seat % self.pairs
        idents = self.idents[p]
        if self.level.inference == "full":
            return self._full_belief(seat, gesture, now, hand, middle, looking_at_partner)
        if self.level.inference == "naive":
            if idents and self.hand_no - idents[-1][0] <= 2 and gesture in idents[-1][1]:
                if self.made_before(p, gesture, now - QUIET_S):
                    return 0.0  # made before this hand with no call after it: not live
                return 1.0
            return 0.0
        a, b = self.keep[p]
        c = (idents[-1][1].get(gesture, 0.0) * a / (a + b)) if idents else 0.0
        share = (self.signals_seen[p] + 0.5) / (self.gestures_seen[p] + 2.0)
        prob = c + (1.0 - c) * share
        if self.made_before(p, gesture, now - QUIET_S):
            prob *= 0.15  # made earlier this hand with no call after it: not live now
        prob *= (self.signals_seen[p] + 1.0) / (self.signals_seen[p] + 1.0
                                                 + self.wrong_stops_on[p])
        return prob

    def _full_belief(self, seat: int, gesture: str, now: float, hand: Sequence[Card],
                     middle: Sequence[Card | None], looking_at_partner: bool = False) -> float:
        """``full``: P(the gesture is the pair's live signal) x P(a live signal of this pair is
        real, not a fake), in odds times the moment's evidence (:meth:`_moment`)."""
        # The moment first: when the cards say the player cannot hold four, nothing else counts.
        lr = self._moment(seat, now, hand, middle)
        if lr <= 0.0:
            return 0.0
        lr *= self.looks_lr(looking_at_partner)
        p = seat % self.pairs
        idents = self.idents[p]
        if idents:
            a, b = self.keep[p]
            pi = idents[-1][1].get(gesture, 0.0) * a / (a + b)
            pi = max(pi, UNSEEN_SIGNAL * (1.0 - pi))
        else:
            pi = UNSEEN_SIGNAL  # S0: "Do not call on a hunch"
        # A pair whose gestures have mostly been signals (it makes few idle ones), and this is
        # the one read.
        if idents:
            share = (self.signals_seen[p] + 0.1) / (self.gestures_seen[p] + 2.0)
            pi = max(pi, share * idents[-1][1].get(gesture, 0.0))
        pi *= QUIET_FACTOR ** self.quiet[p].get(gesture, 0)
        if self.idle_before(seat, gesture, now - QUIET_S):
            pi *= 0.15  # made earlier this hand with no call after it: not live now
        r0, f0 = FAKE_PRIOR
        prob = pi * (self.real[p] + r0) / (self.real[p] + self.fakes[p] + r0 + f0)
        prob = min(prob, 0.999)
        return _odds_to_p(prob / (1.0 - prob) * lr)

    def _moment(self, seat: int, now: float, hand: Sequence[Card],
                middle: Sequence[Card | None]) -> float:
        """Odds factor from the cards: 0 when the player cannot hold four of a kind."""
        held = self.held[seat]
        ranks = {c.rank for c in held}
        limit = self.copies - 4
        if len(ranks) > 1:
            return 0.0  # known to hold two ranks
        if ranks:
            rank = next(iter(ranks))
            if self.known_elsewhere(rank, seat, hand, middle) > limit:
                return 0.0
            lr = TOOK_LR[min(len(held), 4)]
        else:
            for r in RANKS:  # some rank it may still hold four of?
                if self.known_elsewhere(r, seat, hand, middle) <= limit:
                    break
            else:
                return 0.0
            lr = 1.0
        last = self.last_swap[seat]
        if last is not None and now - last <= 3.0 and self.last_took_rank[seat] in ranks:
            lr *= 1.8  # S0: "a player who has just made four of a kind stops swapping"
        elif self.sweeps - self.sweeps_at_swap[seat] >= 2:
            lr *= 1.3
        if self.level.inference == "full" and self.passed_over[seat]:
            lr *= STILL_LR  # S0: "stops swapping, sits a little stiller"
        return lr
