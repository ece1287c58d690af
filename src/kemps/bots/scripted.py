"""A scripted person who watches where S0 says to look and races for Stop Kemps.

S0 "Calling Stop Kemps": "Watch the other pair's faces more than their hands. A player who has
just made four of a kind stops swapping, sits a little stiller and looks at their partner; the
signal comes a moment after. Call Stop Kemps the instant you see the signal". The
:class:`ScriptedWatcher` does exactly that and nothing else, at a person's pace (every move one
:data:`PERSON_REACTION_S` after what prompted it), so that it measures whether the bots leave a
person who watches the right opponent at the right time a fair chance (S2 signals row 9: "keep
every signal above the table, where the other team has a fair chance to see it"; issue 25):

* it keeps its eyes on the middle;
* when an opponent who took a card in the last :data:`JUST_TOOK_S` seconds turns to look at its
  partner (the look is public at an ``attention`` table), it looks at that opponent;
* when the opponent it watches makes a gesture it sees (or hears) within :data:`WATCH_FOR_S`
  seconds and has taken no card since, it calls Stop Kemps on it; when the opponent takes a card
  again its eyes go back to the middle (and a call not yet made is dropped);
* it takes no cards, makes no gesture and calls no Kemps (it is a watcher, not a player).

It is a :class:`~kemps.bots.base.Bot`: it sees only its seat's view and events, in the simulator
(:func:`kemps.sim.simulate_match`) as over a real WebSocket (``kemps bench-watcher``), and records
what it did in :attr:`ScriptedWatcher.log` (its calls, and the gestures it saw) so that a bench
can compare them with the match record afterwards.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final

from kemps.actions import Action, Call, Look, LookAt
from kemps.bots.base import Bot, Plan, stop_call_on
from kemps.errors import Rejected
from kemps.events import (
    Called,
    CallJudged,
    Event,
    Gestured,
    GestureSeen,
    Grabbed,
    HandDealt,
    HandEnded,
    Looked,
    Moved,
    PlayOpened,
    Revealed,
    SignalsAgreed,
    Swapped,
)
from kemps.rules import RuleSet
from kemps.views import SeatView

PERSON_REACTION_S: Final = 0.7  # a person's reaction, seconds (issue 25)
JUST_TOOK_S: Final = 2.0  # "has just made four of a kind": took a card this recently
MOMENT_S: Final = 0.4  # "the signal comes a moment after" the look: at least this long ...
WATCH_FOR_S: Final = 3.0  # ... and at most this long (seconds)


@dataclass
class WatcherLog:
    """What the scripted watcher did: ``seen`` the ``(seat, made_at)`` of every opponent gesture
    it saw or heard; ``sent`` the table time of each of its Stop Kemps calls the table took;
    ``won`` / ``lost`` those judged right / wrong; ``late`` its calls refused because the hand
    was already over (a race lost to the other pair's Kemps)."""

    seen: list[tuple[int, float]] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)
    won: int = 0
    lost: int = 0
    late: int = 0

    @property
    def races(self) -> int:
        """Stop Kemps calls it made (taken by the table or too late)."""
        return len(self.sent) + self.late


class ScriptedWatcher:
    """The watcher for ``seat`` (see the module doc). ``rng`` is unused (it has no chance in
    it); ``reaction_s`` is the person's reaction in seconds."""

    def __init__(self, seat: int, rules: RuleSet, rng: random.Random | None = None,
                 reaction_s: float = PERSON_REACTION_S) -> None:
        self.seat = seat
        self.rules = rules
        self.pairs = rules.pairs
        self.n = rules.players
        self.reaction_s = reaction_s
        self.log = WatcherLog()
        self.last_take: list[float | None] = [None] * self.n
        self.looks: list[LookAt] = ["hand"] * self.n
        self.target: int | None = None  # the opponent it watches (or is about to)
        self.target_since = 0.0
        self.called = False
        self.playing = False
        self.made: set[tuple[int, str]] = set()  # (pair, gesture) seen this hand
        self.fooled: set[tuple[int, str]] = set()  # (pair, gesture) that drew a wrong call
        self.called_on: tuple[int, str] | None = None
        self.shown_signals: dict[int, list[str]] = {}  # pair -> its signals seen shown, in order
        self.gests: list[tuple[float, int, str]] = []  # this hand's gestures seen (t, seat, g)
        self.moves: list[tuple[float, int]] = []  # this hand's movements not seen (t, seat)
        self.shown: int | None = None

    def _opponent(self, s: int) -> bool:
        return s % self.pairs != self.seat % self.pairs

    def _partner_of(self, s: int) -> int:
        return (s + self.pairs) % self.n

    def _look(self, at: LookAt, now: float) -> list[Plan]:
        if not self.rules.attention:
            return []
        return [Plan(self.reaction_s, Look(self.seat, at), "look")]

    # -- the Bot protocol -----------------------------------------------------------------------
    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        """Follow the phase (a match start or a reconnect)."""
        self.playing = view.phase == "play"
        if view.looks:
            self.looks = list(view.looks)
        return []

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        """A refused call came after the hand was over (the other pair's Kemps won the race);
        a refused look is simply dropped."""
        if isinstance(action, Call):
            self.log.late += 1
        return []

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        """Watch, look and call as the module doc says."""
        plans: list[Plan] = []
        for e in events:
            plans += self._see(e, now)
        return plans

    def _see(self, e: Event, now: float) -> list[Plan]:
        if isinstance(e, HandDealt):
            self.last_take = [None] * self.n
            self.target = None
            self.called = False
            self.playing = False
            self.made = set()
            self.gests = []
            self.moves = []
            return []
        if isinstance(e, PlayOpened):
            self.playing = True
            return self._look("middle", now)
        if isinstance(e, HandEnded):
            self.playing = False
            return [Plan(0.0, None, "look"), Plan(0.0, None, "call")]
        if isinstance(e, Swapped | Grabbed):
            self.last_take[e.seat] = e.t
            if e.seat == self.target:
                self.target = None  # it took a card: it has not stopped swapping
                return self._look("middle", now) + [Plan(0.0, None, "call")]
            return []
        if isinstance(e, Looked):
            self.looks[e.seat] = e.at
            return self._looked(e, now)
        if isinstance(e, Moved):
            self.moves.append((e.t, e.seat))
            return []
        if isinstance(e, Gestured | GestureSeen):
            made = e.t if isinstance(e, Gestured) else e.made_at
            if e.seat != self.seat and self._opponent(e.seat):
                self.log.seen.append((e.seat, made))
                self.gests.append((made, e.seat, e.gesture))
                plans = self._gesture(e.seat, e.gesture, made, now)
                self.made.add((e.seat % self.pairs, e.gesture))
                return plans
            return []
        if isinstance(e, Called):
            if e.seat == self.seat:
                self.log.sent.append(e.t)
            self.shown = None
            return []
        if isinstance(e, Revealed):
            if e.full and len(e.cards) == 4 and len({c.rank for c in e.cards}) == 1:
                self.shown = e.seat
            return []
        if isinstance(e, CallJudged) and e.right and self.shown is not None:
            # Its four was shown: the last gesture seen from it before the call was the signal
            # (S0: "Dev had seen the ear touched once and needed nothing more").
            before = [(t, g) for t, s, g in self.gests if s == self.shown and e.t - t <= 4.0]
            unseen = [t for t, s in self.moves if s == self.shown and e.t - t <= 4.0]
            if before and self._opponent(self.shown) and not any(
                    t > before[-1][0] for t in unseen):
                self.shown_signals.setdefault(self.shown % self.pairs, []).append(before[-1][1])
        if isinstance(e, CallJudged) and e.seat == self.seat and e.kind == "stop":
            if e.right:
                self.log.won += 1
            else:
                self.log.lost += 1
                if self.called_on is not None:
                    self.fooled.add(self.called_on)
        return []

    def _looked(self, e: Looked, now: float) -> list[Plan]:
        if not self.playing or self.called or not self._opponent(e.seat):
            return []
        if e.at != self._partner_of(e.seat):
            return []
        took = self.last_take[e.seat]
        if took is None or e.t - took > JUST_TOOK_S:
            return []
        # S0: "A player who has just made four of a kind stops swapping, sits a little stiller
        # and looks at their partner": watch that one.
        self.target = e.seat
        self.target_since = e.t
        return self._look(e.seat, now)

    def _gesture(self, seat: int, gesture: str, made: float, now: float) -> list[Plan]:
        if not self.playing or self.called:
            return []
        key = (seat % self.pairs, gesture)
        if key in self.made or key in self.fooled:
            # Seen from that pair this hand already and nothing came of it, or it drew a wrong
            # call before (S0 "False signals": "It works once, perhaps twice").
            return []
        shown = self.shown_signals.get(key[0], [])
        if not shown:
            return []  # S0 "Do not call on a hunch": nothing of this pair's signals seen yet
        if len(shown) < 2 or shown[-1] == shown[-2]:
            # A pair that kept the signal it was seen giving: call on that one only.
            if gesture != shown[-1]:
                return []
        elif (gesture in shown or seat != self.target
              or not MOMENT_S <= made - self.target_since <= WATCH_FOR_S
              or self.looks[seat] != self._partner_of(seat)):
            # A pair that changes a signal once shown (an old one now is a fake), or not seen
            # yet: only a gesture at the moment S0 names, from the player it describes.
            return []
        call = stop_call_on(self.rules, self.seat, seat)
        if call is None:
            return []
        # S0: "Call Stop Kemps the instant you see the signal".
        self.called = True
        self.called_on = key
        return [Plan(self.reaction_s, call, "call")]


@dataclass
class WatchFigures:
    """What a scripted watcher achieved over some hands: of the other pairs' ``first_signals``
    (each player's first signal in a hand), ``seen`` it saw (as made, or by a look that landed
    within the gesture's second) or heard; ``races`` Stop Kemps calls it made, ``won`` judged
    right, ``wrong`` judged wrong, ``late`` refused because the other pair's Kemps came first."""

    first_signals: int = 0
    seen: int = 0
    races: int = 0
    won: int = 0
    wrong: int = 0
    late: int = 0

    def add(self, other: WatchFigures) -> None:
        """Add ``other``'s counts to these."""
        for name in ("first_signals", "seen", "races", "won", "wrong", "late"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def seen_share(self) -> float:
        """Share of the first signals it saw (0 when there were none)."""
        return self.seen / self.first_signals if self.first_signals else 0.0

    @property
    def won_share(self) -> float:
        """Share of its Stop Kemps races it won (0 when it started none)."""
        return self.won / self.races if self.races else 0.0


def watch_figures(events: list[Event], log: WatcherLog, seat: int, pairs: int) -> WatchFigures:
    """Score a watcher's ``log`` against a match's unredacted ``events`` (in order): a player's
    first signal in a hand is its first gesture of its pair's agreed signal in that hand (the
    bots give their live signal only with four of a kind; their fakes use old signals)."""
    out = WatchFigures(races=log.races, won=log.won, wrong=log.lost, late=log.late)
    seen = {(s, round(t, 6)) for s, t in log.seen}
    signals: list[tuple[str, ...]] = [() for _ in range(pairs)]
    signalled: set[int] = set()
    mine = seat % pairs
    for e in events:
        if isinstance(e, HandDealt):
            signalled.clear()
        elif isinstance(e, SignalsAgreed):
            signals[e.pair] = e.signals
        elif isinstance(e, Gestured):
            p = e.seat % pairs
            if p != mine and e.gesture in signals[p] and e.seat not in signalled:
                signalled.add(e.seat)
                out.first_signals += 1
                if (e.seat, round(e.t, 6)) in seen:
                    out.seen += 1
    return out


def play_watched(rules: RuleSet, seed: int, level: str, speed: str | None = None,
                 seat: int = 0) -> WatchFigures:
    """One simulated match: a :class:`ScriptedWatcher` in ``seat``, bots of ``level`` (at
    ``speed``, :data:`kemps.bots.levels.SPEEDS`) in every other seat, its partner included.

    Raises:
        KempsError: ``unknown_level`` / ``unknown_speed``.
    """
    from kemps.bots.levels import bot_factory
    from kemps.sim import simulate_match

    bots = bot_factory(level, speed)
    made: list[ScriptedWatcher] = []

    def build(s: int, r: RuleSet, rng: random.Random) -> Bot:
        if s != seat:
            return bots(s, r, rng)
        watcher = ScriptedWatcher(s, r, rng)
        made.append(watcher)
        return watcher

    events: list[Event] = []
    simulate_match(rules, seed, bots=build, keep_events=False, on_events=events.extend)
    return watch_figures(events, made[0].log, seat, rules.pairs)


__all__ = ["JUST_TOOK_S", "PERSON_REACTION_S", "WATCH_FOR_S", "ScriptedWatcher", "WatchFigures",
           "WatcherLog", "play_watched", "watch_figures"]
