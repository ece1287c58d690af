"""Ratings from finished online matches (issue 32), with OpenSkill's Plackett-Luce model.

Why OpenSkill (the ``openskill`` package, 6.x): it models teams natively (a Kemps pair is a team of
two; a table of three pairs is one ranking of three teams, which Plackett-Luce rates in one
update), it is maintained (releases through 2026), typed, and MIT licensed. Microsoft's TrueSkill
is patented for non-personal use and its Python package has had no release since 2018.

Who is rated (the *subjects*), each with OpenSkill's ``mu`` and ``sigma``:

* each **person** by their public player id (``p-`` and 16 hex digits: :mod:`kemps.server.players`);
  a person who sat without a key is a *guest*: rated at OpenSkill's default for that match only,
  never stored;
* each **bot level** as a player of its own (``bot:club``, ``bot:sharp``...): the bots are
  rated like people, so beating a table of sharp bots counts, and a newcomer's first match moves
  their rating by what that win or loss means against known opponents;
* each **pair** of two player ids (``pair:ID1+ID2``, the ids in sorted order): a team of one in a
  second ranking of the same match (a pair with a guest is not stored).

One match, one update (:func:`rate`): the people's teams are the pairs' two seats, ranked by the
match's final ranking (``summary["pairs"][i]["rank"]``, 1 = won, ties shared); the pairs' ranking
is the same. A subject who sits in more than one seat of the match (a bot level playing several
seats) takes the mean of its seats' new ``mu`` and ``sigma``. A subject's *rating* (what the
leaderboard sorts by) is OpenSkill's ordinal, ``mu - 3 * sigma``: 0 for a new subject.

Exactly once, durably (:class:`Rater`): a match is rated in one transaction that first writes its
``rated_matches`` row (its primary key is the match's id: a second attempt, after a restart or on
another node, finds it and changes nothing) and then the ratings and its ``match_players`` rows.
Matches are rated in the order they were stored; on PostgreSQL a transaction-scoped advisory lock
keeps two nodes from rating at once. A match that cannot be rated (no person at the table, not
played to its end, no player ids: stored before this module) is marked with that outcome and
passed over. The rater wakes when a match of this node ends, at start (what a stopped server had
not rated yet) and every :data:`SCAN_EVERY_S` (matches of other nodes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy import Boolean, Float, Integer, String, UniqueConstraint, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from kemps.server.storage import Base, MatchRow, Storage

if TYPE_CHECKING:
    from openskill.models import PlackettLuce, PlackettLuceRating

log = logging.getLogger("kemps.server")



@cache
def model() -> PlackettLuce:
    """The model every rating is computed with: OpenSkill's Plackett-Luce with its defaults (mu
    25, sigma 25/3), made on first use (the library is not imported at the server's start)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()

#: Seconds between two looks for matches not rated yet (those of other nodes, or a retry).
SCAN_EVERY_S: Final = 30.0
#: Seconds before a failed rating is tried again (the database away, a busy SQLite file).
RETRY_S: Final = 1.0
#: Matches rated in one pass before the rater yields.
BATCH: Final = 50
_PG_LOCK: Final = 320_032  # the advisory lock's key on PostgreSQL (issue 32)


class PlayerRow(Base):
    """A remembered player: the hash of their browser's private key, their public id and the
    name they bound (:mod:`kemps.server.players`)."""

    __tablename__ = "players"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)


class RatingRow(Base):
    """One rated subject: a player id, a bot level or a pair (``kind``: person, bot, pair)."""

    __tablename__ = "ratings"
    subject: Mapped[str] = mapped_column(String(90), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(90))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float, index=True)
    matches: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[float] = mapped_column(Float)


class RatedMatchRow(Base):
    """A finished match rated (``outcome`` ``rated``) or passed over (why), exactly once."""

    __tablename__ = "rated_matches"
    match_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    outcome: Mapped[str] = mapped_column(String(16))
    rated_at: Mapped[float] = mapped_column(Float)


class MatchPlayerRow(Base):
    """One rated seat of a match: who sat, their partner, the pair's rank and the rating's move."""

    __tablename__ = "match_players"
    __table_args__ = (UniqueConstraint("match_id", "seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(Integer, index=True)
    player: Mapped[str] = mapped_column(String(40), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    pair: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(40))
    partner: Mapped[str] = mapped_column(String(40))
    partner_name: Mapped[str] = mapped_column(String(40))
    rank: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool] = mapped_column(Boolean)
    ordinal_before: Mapped[float] = mapped_column(Float)
    ordinal_after: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float] = mapped_column(Float)


# -- the update, pure ---------------------------------------------------------------------------
def ordinal(mu: float, sigma: float) -> float:
    """A rating as the leaderboard shows it: OpenSkill's ordinal, ``mu - 3 * sigma``."""
    return float(model().rating(mu=mu, sigma=sigma).ordinal())


def pair_subject(a: str, b: str) -> str:
    """The subject of the pair of player ids ``a`` and ``b`` (in either order)."""
    first, second = sorted((a, b))
    return f"pair:{first}+{second}"


def kind_of(subject: str) -> str:
    """``person``, ``bot`` or ``pair``."""
    return "pair" if subject.startswith("pair:") else "bot" if subject.startswith("bot:") \
        else "person"


@dataclass
class Update:
    """What one match changes: each subject's new ``(mu, sigma)`` and whether it won, and each
    seat's rating before and after (ordinals; a guest's seat too)."""

    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)
    won: dict[str, bool] = field(default_factory=dict)
    before: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)


def rate(players: Sequence[str | None], ranks: Sequence[int],
         current: dict[str, tuple[float, float]]) -> Update:
    """One match's update.

    Args:
        players: the player id of each seat (``None``: a guest); seat ``s`` plays in pair
            ``s % pairs`` (its partner sits opposite, ``s + pairs``), ``pairs = len(ranks)``.
        ranks: each pair's final rank (1 = won; equal ranks tie).
        current: the stored ``(mu, sigma)`` of every subject that has one; others start at the
            model's default.

    Raises:
        ValueError: fewer than two pairs, or seats that are not two per pair.
    """
    pairs = len(ranks)
    if pairs < 2 or len(players) != 2 * pairs:
        raise ValueError("a rated match has two seats for each of at least two pairs")

    lib = model()

    def start(subject: str | None) -> PlackettLuceRating:
        if subject is None or subject not in current:
            return lib.rating()
        mu, sigma = current[subject]
        return lib.rating(mu=mu, sigma=sigma)

    teams = [[start(players[p]), start(players[p + pairs])] for p in range(pairs)]
    ranked = lib.rate(teams, ranks=[float(r) for r in ranks])
    out = Update()
    seats: dict[str, list[PlackettLuceRating]] = {}
    out.before = [0.0] * len(players)
    out.after = [0.0] * len(players)
    for p in range(pairs):
        for k, seat in enumerate((p, p + pairs)):
            out.before[seat] = float(teams[p][k].ordinal())
            out.after[seat] = float(ranked[p][k].ordinal())
            subject = players[seat]
            if subject is not None:
                seats.setdefault(subject, []).append(ranked[p][k])
                out.won[subject] = out.won.get(subject, False) or ranks[p] == 1
    for subject, rated in seats.items():
        out.ratings[subject] = (sum(r.mu for r in rated) / len(rated),
                                sum(r.sigma for r in rated) / len(rated))
    duos: list[str | None] = []
    for p in range(pairs):
        a, b = players[p], players[p + pairs]
        duos.append(pair_subject(a, b) if a is not None and b is not None else None)
    ranked_duos = lib.rate([[start(d)] for d in duos], ranks=[float(r) for r in ranks])
    for p, duo in enumerate(duos):
        if duo is not None:
            out.ratings[duo] = (ranked_duos[p][0].mu, ranked_duos[p][0].sigma)
            out.won[duo] = ranks[p] == 1
    return out


def plan(summary: dict[str, Any], pairs: int) -> tuple[list[str | None], list[int]] | str:
    """The players and ranks a stored match is rated on, or why it is passed over: ``unfinished``
    (not played to its end), ``no_players`` (stored without player ids), ``no_person`` (bots
    only)."""
    players = summary.get("players")
    if not isinstance(players, list) or len(players) != 2 * pairs or pairs < 2:
        return "no_players"
    rows = summary.get("pairs")
    if not summary.get("over") or not isinstance(rows, list) or len(rows) != pairs:
        return "unfinished"
    ranks = [row.get("rank") if isinstance(row, dict) else None for row in rows]
    if any(not isinstance(r, int) or isinstance(r, bool) for r in ranks):
        return "unfinished"
    ids = [p if isinstance(p, str) and p else None for p in players]
    if all(p is not None and p.startswith("bot:") for p in ids):  # a guest (None) is a person
        return "no_person"
    return ids, [int(r) for r in ranks]  # type: ignore[arg-type]


# -- storage -----------------------------------------------------------------------------------
class _Missing(Exception):
    """No match of that id: the claim is rolled back."""


async def rate_match(storage: Storage, match_id: int, clock: Callable[[], float] = time.time
                     ) -> str:
    """Rate the stored match ``match_id`` once: its outcome (``rated``, a reason it was passed
    over, ``already`` when it was rated before, ``missing`` when there is no such match)."""
    postgres = storage.engine.dialect.name == "postgresql"
    try:
        async with storage.sessions.begin() as s:
            if postgres:
                await s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})
            now = clock()
            # The claim first: a second attempt stops at it (IntegrityError), and on SQLite the
            # transaction holds the write lock from its first statement (a read first could not
            # take it after another connection's commit).
            claim = RatedMatchRow(match_id=match_id, outcome="rating", rated_at=now)
            s.add(claim)
            await s.flush()
            match = await s.get(MatchRow, match_id)
            if match is None:
                raise _Missing
            pairs = int((match.rules or {}).get("pairs") or len(match.names) // 2)
            planned = plan(match.summary or {}, pairs)
            outcome = planned if isinstance(planned, str) else "rated"
            claim.outcome = outcome
            if isinstance(planned, str):
                return outcome
            players, ranks = planned
            names = [str(n)[:40] for n in match.names]
            subjects = {p for p in players if p is not None}
            subjects |= {pair_subject(a, b) for a, b in
                         zip(players[:pairs], players[pairs:]) if a is not None and b is not None}
            stored = {r.subject: r for r in (await s.execute(
                select(RatingRow).where(RatingRow.subject.in_(sorted(subjects))))).scalars()}
            bound = {r.id: r.name for r in (await s.execute(select(PlayerRow).where(
                PlayerRow.id.in_(sorted(p for p in subjects if kind_of(p) == "person")))))
                .scalars() if r.name}
            update = rate(players, ranks, {k: (r.mu, r.sigma) for k, r in stored.items()})
            shown = {p: bound.get(p) or names[i] for i, p in enumerate(players) if p is not None}
            for subject, (mu, sigma) in update.ratings.items():
                kind = kind_of(subject)
                if kind == "pair":
                    a, b = subject[5:].split("+")
                    name = f"{shown.get(a, a)} & {shown.get(b, b)}"
                elif kind == "bot":
                    name = subject[4:].capitalize() + " bot"
                else:
                    name = shown[subject]
                row = stored.get(subject)
                if row is None:
                    row = RatingRow(subject=subject, kind=kind, matches=0, wins=0)
                    s.add(row)
                row.name, row.mu, row.sigma = name[:90], mu, sigma
                row.ordinal = ordinal(mu, sigma)
                row.matches += 1
                row.wins += int(update.won[subject])
                row.updated_at = now
            for seat, player in enumerate(players):
                if player is None:
                    continue
                mate = (seat + pairs) % (2 * pairs)
                s.add(MatchPlayerRow(
                    match_id=match_id, player=player, seat=seat, pair=seat % pairs,
                    name=names[seat], partner=players[mate] or "", partner_name=names[mate],
                    rank=ranks[seat % pairs], won=ranks[seat % pairs] == 1,
                    ordinal_before=update.before[seat], ordinal_after=update.after[seat],
                    finished_at=match.finished_at))
            return outcome
    except IntegrityError:  # rated before (or by another node just now)
        return "already"
    except _Missing:
        return "missing"


async def unrated(storage: Storage, limit: int = BATCH) -> list[int]:
    """The ids of stored matches not rated yet, oldest first (at most ``limit``)."""
    async with storage.sessions() as s:
        rated = select(RatedMatchRow.match_id).where(RatedMatchRow.match_id == MatchRow.id)
        rows = await s.execute(select(MatchRow.id).where(~rated.exists())
                               .order_by(MatchRow.id).limit(limit))
        return [int(i) for i in rows.scalars()]


async def rate_pending(storage: Storage, clock: Callable[[], float] = time.time) -> int:
    """Rate every stored match not rated yet, oldest first; how many were looked at."""
    done = 0
    while True:
        ids = await unrated(storage)
        for match_id in ids:
            await rate_match(storage, match_id, clock)
        done += len(ids)
        if len(ids) < BATCH:
            return done


class Rater:
    """The server's rater: a finish listener (``rater(room, summary)`` wakes it) and one task
    that rates what is not rated yet (see the module docstring)."""

    def __init__(self, storage: Storage, clock: Callable[[], float] = time.time,
                 every_s: float = SCAN_EVERY_S) -> None:
        self.storage = storage
        self.clock = clock
        self.every_s = every_s
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def __call__(self, *_: Any) -> None:
        self._wake.set()

    def start(self) -> None:
        """Start rating (a first pass at once: what a stopped server left)."""
        if self._task is None:
            self._wake.set()
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop; a match being rated is either committed whole or not at all."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        wait = self.every_s
        while True:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait)
            self._wake.clear()
            batches = self.storage.batches
            if batches is not None and (batches.vanished or not os.path.exists(batches.path)):
                continue  # a SQLite file gone or replaced: never made anew here (rescue.py)
            try:
                await rate_pending(self.storage, self.clock)
                wait = self.every_s
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away or busy: try again soon
                log.warning("rating finished matches failed; trying again", exc_info=True)
                wait = RETRY_S


__all__ = ["MatchPlayerRow", "PlayerRow", "RatedMatchRow", "Rater", "RatingRow",
           "Update", "kind_of", "model", "ordinal", "pair_subject", "plan", "rate", "rate_match",
           "rate_pending", "unrated"]
