"""Storage behind a small interface (boardgame.io ``StorageAPI`` idea), on SQLAlchemy 2 async.

Three tables (schema managed by Alembic, ``kemps/server/migrations``): ``rooms`` (lobby state, rules,
seats with token hashes, status, the table clock's epoch), ``entries`` (each room's match record as it
grows: one row per accepted action or fired timer batch, in order) and ``matches`` (finished
matches: rules, pairs, per-hand results, letters, ranking and the full record). Works on SQLite
(``sqlite+aiosqlite://``, the default) and PostgreSQL (``postgresql+asyncpg://``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    Integer,
    String,
    UniqueConstraint,
    delete,
    insert,
    select,
    true,
)
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
log = logging.getLogger("kemps.server")


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
    # Limits (kemps.server.limits): whether the host lets spectators watch, and when (wall-clock
    # seconds) the room was archived for having no player connected; an archived room is kept
    # but never restored.
    spectators: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    archived_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)


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

    async def write_batch(self, rooms: list[dict[str, Any]], entries: list[dict[str, Any]],
                          matches: list[dict[str, Any]]) -> list[int]:
        """Write rooms (insert or update), record entries and finished matches in one
        transaction, in that order; returns the new matches' ids."""
        ids: list[int] = []
        async with self.sessions.begin() as s:
            for row in rooms:
                existing = await s.get(RoomRow, row["code"])
                if existing is None:
                    s.add(RoomRow(**row))
                else:
                    for key, value in row.items():
                        setattr(existing, key, value)
            if entries:
                await s.execute(insert(EntryRow), entries)
            for m in matches:
                match = MatchRow(finished_at=time.time(), **m)
                s.add(match)
                await s.flush()
                ids.append(match.id)
        return ids

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
        """Every live room (not archived), with its current match's steps in order. Two queries
        in all, not one per room: start-up stays fast with thousands of rooms."""
        out: list[tuple[dict[str, Any], list[EntryRow]]] = []
        live = (RoomRow.status != "closed", RoomRow.archived_at.is_(None))
        async with self.sessions() as s:
            rooms = (await s.execute(select(RoomRow).where(*live))).scalars().all()
            steps: dict[str, list[EntryRow]] = {}
            found = await s.execute(
                select(EntryRow).join(RoomRow, (RoomRow.code == EntryRow.room_code)
                                      & (RoomRow.match_no == EntryRow.match_no))
                .where(*live).order_by(EntryRow.room_code, EntryRow.seq))
            for entry in found.scalars():
                steps.setdefault(entry.room_code, []).append(entry)
            for room in rooms:
                row = {c.name: getattr(room, c.name) for c in RoomRow.__table__.columns}
                out.append((row, steps.get(room.code, [])))
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
                     "finished_at": r.finished_at, "rules": r.rules,
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


class Writer:
    """Writes what the rooms produce, in order, in batches: everything queued within ``window_s``
    seconds goes to the database in one transaction. A room queues without waiting (its step stays
    synchronous); ``stop()`` writes what is left. A crash can lose at most the last window."""

    def __init__(self, storage: Storage, window_s: float = 0.05) -> None:
        self.storage = storage
        self.window_s = window_s
        self.rooms: dict[str, dict[str, Any]] = {}
        self.entries: list[dict[str, Any]] = []
        self.matches: list[tuple[dict[str, Any], Any]] = []
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    def room(self, row: dict[str, Any]) -> None:
        """Queue a room's newest state (a later one replaces an earlier, unwritten one)."""
        self.rooms[row["code"]] = row
        self._wake.set()

    def entry(self, code: str, match_no: int, seq: int, t: float, kind: str,
              payload: dict[str, Any] | None) -> None:
        """Queue one step of a room's record."""
        self.entries.append({"room_code": code, "match_no": match_no, "seq": seq, "t": t,
                             "kind": kind, "payload": payload})
        self._wake.set()

    def match(self, row: dict[str, Any], saved: Any) -> None:
        """Queue a finished match; ``saved(id)`` is called once it is written."""
        self.matches.append((row, saved))
        self._wake.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while not self._stopping:
            await self._wake.wait()
            self._wake.clear()
            if not self._stopping:
                await asyncio.sleep(self.window_s)
            await self.flush()

    async def flush(self) -> None:
        """Write everything queued now."""
        rooms, entries, matches = list(self.rooms.values()), self.entries, self.matches
        self.rooms, self.entries, self.matches = {}, [], []
        if not (rooms or entries or matches):
            return
        try:
            ids = await self.storage.write_batch(rooms, entries, [m for m, _ in matches])
        except Exception:
            log.exception("storage write failed; %d entries lost", len(entries))
            return
        for (_, saved), match_id in zip(matches, ids):
            saved(match_id)

    async def stop(self) -> None:
        """Write what is left and stop."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
        await self.flush()
