"""Seeding a tournament's groups by rating (issue 32; docs/tournament.md, "Seeding by rating").

The desk splits six or more teams into two groups by registration order (1st, 3rd, 5th... to
group A; 2nd, 4th... to group B: seed 002, "Six teams or more: split into two groups"). With
``"seed_by_rating": true`` the desk first orders the teams by strength, strongest first, and
registers them in *serpentine* order (:func:`serpentine`: 1st, 2nd, 4th, 3rd, 5th, 6th, 8th, 7th...),
so that the alternate split gives group A the 1st, 4th, 5th, 8th... strongest and group B the 2nd,
3rd, 6th, 7th...: both groups about as strong. With one round robin (five teams or fewer) the
order changes only who plays whom first.

A team's strength (:func:`team_strengths`): its pair's rating (``kemps.server.ratings``: the pair of
its two player ids) when that pair has played rated matches together; otherwise the mean of its two
players' ratings, a player unknown or unrated counting as a new player (0, OpenSkill's ordinal of a
new rating). A player is known by the public player id given with the team (``"player_ids"``), or
else by their name when exactly one rated person bears it (case aside). Equal strengths keep
registration order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select

from kemps.server.ratings import RatingRow, pair_subject
from kemps.server.storage import Storage


def serpentine(count: int) -> list[int]:
    """Ranks (0 = strongest) in the order to register them so that alternate groups are balanced:
    ``serpentine(6) == [0, 1, 3, 2, 4, 5]``."""
    out: list[int] = []
    for start in range(0, count, 2):
        block = [r for r in (start, start + 1) if r < count]
        out.extend(block if (start // 2) % 2 == 0 else block[::-1])
    return out


async def _person(storage: Storage, given: str | None, name: str) -> str | None:
    """The rated person's id: ``given``, else the one rated person named ``name``."""
    if given:
        return given
    async with storage.sessions() as s:
        found = list((await s.execute(select(RatingRow.subject).where(
            RatingRow.kind == "person", func.lower(RatingRow.name) == name.strip().lower())
            .limit(2))).scalars())
    return found[0] if len(found) == 1 else None


async def team_strengths(storage: Storage, players: Sequence[tuple[str, str]],
                         ids: Sequence[Sequence[str] | None]) -> list[dict[str, Any]]:
    """Each team's strength: ``{"rating": float, "from": "pair" | "players", "player_ids":
    [id or None, id or None]}`` (``players``: each team's two names; ``ids``: each team's two
    player ids where given)."""
    out = []
    for names, given in zip(players, ids):
        pids = [await _person(storage, given[k] if given else None, names[k]) for k in (0, 1)]
        async with storage.sessions() as s:
            subjects = [p for p in pids if p]
            if all(pids):
                subjects.append(pair_subject(str(pids[0]), str(pids[1])))
            rows = {r.subject: r.ordinal for r in (await s.execute(select(RatingRow).where(
                RatingRow.subject.in_(subjects)))).scalars()} if subjects else {}
        duo = pair_subject(str(pids[0]), str(pids[1])) if all(pids) else None
        if duo is not None and duo in rows:
            out.append({"rating": round(rows[duo], 4), "from": "pair", "player_ids": pids})
        else:
            mean = sum(rows.get(p, 0.0) if p else 0.0 for p in pids) / 2
            out.append({"rating": round(mean, 4), "from": "players", "player_ids": pids})
    return out


def seeded_order(strengths: Sequence[float]) -> list[int]:
    """The teams' indexes in the order to register them: strongest first (ties in registration
    order), laid out :func:`serpentine`."""
    ranked = sorted(range(len(strengths)), key=lambda i: (-strengths[i], i))
    return [ranked[r] for r in serpentine(len(ranked))]


__all__ = ["seeded_order", "serpentine", "team_strengths"]
