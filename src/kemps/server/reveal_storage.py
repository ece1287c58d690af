"""Storage of each pair's choice to show or withhold its signals in a finished match's replay.

One table (made by migration ``0006``), on the server's metadata
(:class:`kemps.server.storage.Base`): ``signal_reveals`` with ``room_code`` and ``match_no`` (the
match, as its row in ``matches`` names it: the row may not exist yet while the match is played),
``pair``, ``reveal`` (False: withheld), ``seat`` (who chose) and ``updated_at`` (Unix seconds).
No row means the default: revealed once the match ends. Works on SQLite and PostgreSQL.
"""

from __future__ import annotations

import time

from sqlalchemy import Boolean, Float, Integer, String, UniqueConstraint, select
from sqlalchemy.orm import Mapped, mapped_column

from kemps.server.storage import Base, Storage


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
