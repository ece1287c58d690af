"""Storage of each pair's choice to show or withhold its signals in a finished match's replay.

One table (made by migration ``0006``), on the server's metadata
(:class:`kemps.server.storage.Base`): ``signal_reveals`` with ``room_code`` and ``match_no`` (the
match, as its row in ``matches`` names it: the row may not exist yet while the match is played),
``pair``, ``reveal`` (False: withheld), ``seat`` (who chose) and ``updated_at`` (Unix seconds).
No row means the default: revealed once the match ends and its signals are no longer in force.
Works on SQLite and PostgreSQL.

Signals in force (:func:`signals_in_force`): a rematch keeps each pair's signals, so what a pair
agreed in a finished match may still be what it gives at the table. They are read from the
stored record (the room's row and its current match's steps), never from a node's memory: every
node answers the same, and an agreement counts once it is committed, before anyone is told of it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Boolean, Float, Integer, String, UniqueConstraint, select
from sqlalchemy.orm import Mapped, mapped_column

from kemps.server.storage import Base, EntryRow, RoomRow, Storage


class RevealRow(Base):
    """One pair's choice for one match of a room."""

    __tablename__ = "signal_reveals"
    __table_args__ = (UniqueConstraint("room_code", "match_no", "pair"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_code: Mapped[str] = mapped_column(String(16))
    match_no: Mapped[int] = mapped_column(Integer)
    pair: Mapped[int] = mapped_column(Integer)
    reveal: Mapped[bool] = mapped_column(Boolean)
    seat: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[float] = mapped_column(Float)


async def withheld_pairs(storage: Storage, room_code: str, match_no: int) -> frozenset[int]:
    """The pairs that withhold their signals from the replay of that match."""
    async with storage.sessions() as s:
        rows = (await s.execute(select(RevealRow.pair).where(
            RevealRow.room_code == room_code, RevealRow.match_no == match_no,
            RevealRow.reveal.is_(False)))).scalars()
        return frozenset(int(p) for p in rows)


async def set_reveal(storage: Storage, room_code: str, match_no: int, pair: int, reveal: bool,
                     seat: int) -> None:
    """Store ``pair``'s choice for that match (the latest choice stands)."""
    async with storage.sessions.begin() as s:
        row = (await s.execute(select(RevealRow).where(
            RevealRow.room_code == room_code, RevealRow.match_no == match_no,
            RevealRow.pair == pair))).scalar_one_or_none()
        if row is None:
            s.add(RevealRow(room_code=room_code, match_no=match_no, pair=pair, reveal=reveal,
                            seat=seat, updated_at=time.time()))
        else:
            row.reveal, row.seat, row.updated_at = reveal, seat, time.time()


def current_signals(agreements: Iterable[dict[str, Any]], pairs: int) -> dict[int, frozenset[str]]:
    """Each pair's signals after ``agreements`` (``agree_signals`` actions as stored: ``{"seat",
    "signals"}``, in order; the latest of a pair stands)."""
    found: dict[int, frozenset[str]] = {}
    for a in agreements:
        seat, signals = a.get("seat"), a.get("signals")
        if isinstance(seat, int) and isinstance(signals, list | tuple):
            found[seat % pairs] = frozenset(str(g) for g in signals)
    return found


async def signals_in_force(storage: Storage, room_code: str) -> dict[int, frozenset[str]]:
    """The signals each pair of the room gives now, or would take into a rematch: the latest
    agreement of each pair in the room's current match (being played, or finished with the room
    open for a rematch, which keeps them). Empty once the room has ended (archived, or gone):
    nothing of it is in force any more. A pair with no agreement in the current match has none
    in force (a rematch that could not keep them, e.g. a table that now forbids heard signals)."""
    agree = EntryRow.payload["type"].as_string() == "agree_signals"
    async with storage.sessions() as s:
        room = (await s.execute(select(RoomRow.match_no, RoomRow.rules, RoomRow.archived_at)
                                .where(RoomRow.code == room_code))).one_or_none()
        if room is None or room.archived_at is not None or room.match_no < 1:
            return {}
        payloads = (await s.execute(select(EntryRow.payload).where(
            EntryRow.room_code == room_code, EntryRow.match_no == room.match_no, agree)
            .order_by(EntryRow.seq))).scalars()
        pairs = int((room.rules or {}).get("pairs", 2)) or 2
        return current_signals((p for p in payloads if isinstance(p, dict)), pairs)
