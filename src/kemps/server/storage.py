"""Storage behind a small interface (boardgame.io ``StorageAPI`` idea), on SQLAlchemy 2 async.

Three tables (schema managed by Alembic, ``kemps/server/migrations``): ``rooms`` (lobby state, rules,
seats with token hashes, status, the table clock's epoch), ``entries`` (each room's match record as it
grows: one row per accepted action or fired timer batch, in order) and ``matches`` (finished
matches: rules, pairs, per-hand results, letters, ranking and the full record). Works on SQLite
(``sqlite+aiosqlite://``, the default) and PostgreSQL (``postgresql+asyncpg://``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import JSON, Float, Integer, String, UniqueConstraint, delete, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class Base(DeclarativeBase):
    """Declarative base of the server's tables."""


class RoomRow(Base):
    """A room: its lobby, rules and where its table stands."""

    __tablename__ = "rooms"
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    host_seat: Mapped[int] = mapped_column(Integer)
    match_no: Mapped[int] = mapped_column(Integer)
    first_dealer: Mapped[int] = mapped_column(Integer)
    epoch: Mapped[float] = mapped_column(Float)


class EntryRow(Base):
    """One step of a room's match record: an accepted action, or a timer batch (``kind="tick"``)."""

    __tablename__ = "entries"
    __table_args__ = (UniqueConstraint("room_code", "match_no", "seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_code: Mapped[str] = mapped_column(String(16), index=True)
    match_no: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    t: Mapped[float] = mapped_column(Float)
    kind: Mapped[str] = mapped_column(String(8))
    payload: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class MatchRow(Base):
    """A finished match."""

    __tablename__ = "matches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_code: Mapped[str] = mapped_column(String(16), index=True)
    match_no: Mapped[int] = mapped_column(Integer)
    finished_at: Mapped[float] = mapped_column(Float)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    names: Mapped[list[str]] = mapped_column(JSON)
    summary: Mapped[dict[str, Any]] = mapped_column(JSON)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)


def _upgrade(connection: Connection, url: str) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url)
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")


class Storage:
    """The server's database. Create, then ``await start()`` (migrates to the newest schema)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine = create_async_engine(url)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    async def start(self) -> None:
        """Create or upgrade the schema (Alembic ``upgrade head``)."""
        async with self.engine.begin() as conn:
            await conn.run_sync(_upgrade, self.url)

    async def close(self) -> None:
        """Release connections."""
        await self.engine.dispose()

    async def save_room(self, row: dict[str, Any]) -> None:
        """Insert or update a room (keys as :class:`RoomRow`'s columns)."""
        async with self.sessions.begin() as s:
            existing = await s.get(RoomRow, row["code"])
            if existing is None:
                s.add(RoomRow(**row))
            else:
                for key, value in row.items():
                    setattr(existing, key, value)

    async def append_entries(self, code: str, match_no: int,
                             entries: list[tuple[int, float, str, dict[str, Any] | None]]) -> None:
        """Append record steps ``(seq, t, kind, payload)`` of a room's current match."""
        async with self.sessions.begin() as s:
            s.add_all(EntryRow(room_code=code, match_no=match_no, seq=seq, t=t, kind=kind,
                               payload=payload) for seq, t, kind, payload in entries)

    async def clear_entries(self, code: str, match_no: int) -> None:
        """Forget a match's steps (used when a match is restarted from the lobby)."""
        async with self.sessions.begin() as s:
            await s.execute(delete(EntryRow).where(EntryRow.room_code == code,
                                                   EntryRow.match_no == match_no))

    async def unfinished_rooms(self) -> list[tuple[dict[str, Any], list[EntryRow]]]:
        """Every room not finished, with its current match's steps in order."""
        out: list[tuple[dict[str, Any], list[EntryRow]]] = []
        async with self.sessions() as s:
            rooms = (await s.execute(select(RoomRow).where(RoomRow.status != "closed"))).scalars()
            for room in rooms:
                entries = (await s.execute(
                    select(EntryRow).where(EntryRow.room_code == room.code,
                                           EntryRow.match_no == room.match_no)
                    .order_by(EntryRow.seq))).scalars().all()
                row = {c.name: getattr(room, c.name) for c in RoomRow.__table__.columns}
                out.append((row, list(entries)))
        return out

    async def save_match(self, code: str, match_no: int, rules: dict[str, Any], names: list[str],
                         summary: dict[str, Any], record: dict[str, Any]) -> int:
        """Store a finished match; returns its id."""
        async with self.sessions.begin() as s:
            row = MatchRow(room_code=code, match_no=match_no, finished_at=time.time(),
                           rules=rules, names=names, summary=summary, record=record)
            s.add(row)
            await s.flush()
            return row.id

    async def history(self, limit: int = 100) -> list[dict[str, Any]]:
        """Finished matches, newest first, without their records."""
        async with self.sessions() as s:
            rows = (await s.execute(select(MatchRow).order_by(MatchRow.id.desc()).limit(limit))
                    ).scalars()
            return [{"id": r.id, "room": r.room_code, "match_no": r.match_no,
                     "finished_at": r.finished_at, "rules": r.rules.get("name"),
                     "names": r.names, "summary": r.summary} for r in rows]

    async def match(self, match_id: int) -> dict[str, Any] | None:
        """One finished match with its record, or None."""
        async with self.sessions() as s:
            r = await s.get(MatchRow, match_id)
            if r is None:
                return None
            return {"id": r.id, "room": r.room_code, "match_no": r.match_no,
                    "finished_at": r.finished_at, "rules": r.rules, "names": r.names,
                    "summary": r.summary, "record": r.record}
