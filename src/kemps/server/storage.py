"""Storage behind a small interface (boardgame.io ``StorageAPI`` idea), on SQLAlchemy 2 async.

Three tables (schema managed by Alembic, ``kemps/server/migrations``): ``rooms`` (lobby state, rules,
seats with token hashes and ready flags, status, the host, the next deal time, the table clock where
it last stood, the last finished match), ``entries`` (each room's match record as it
grows: one row per accepted action or fired timer batch, in order) and ``matches`` (finished
matches: rules, pairs, per-hand results, letters, ranking and the full record). Works on SQLite
(``sqlite+aiosqlite://``, the default; WAL mode, ``synchronous=FULL``) and PostgreSQL
(``postgresql+asyncpg://``). Every call has a bounded wait (SQLite's busy timeout, asyncpg's connect
and command timeouts), so a hanging database becomes an error that the :class:`Writer` retries.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
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
    bindparam,
    delete,
    event,
    false,
    insert,
    select,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
SQLITE_BUSY_S = 2.0  # how long one SQLite call waits for a lock before it fails (and is retried)
WRITER_CACHE_KB = 256  # the batch writer's SQLite page cache (KB)
PG_TIMEOUT_S = 5.0  # asyncpg: connect and command timeouts
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
    # Table seconds where the clock last stood (stored at each commit of the room's row, every
    # CLOCK_EVERY_S while playing, and at shutdown): a restart resumes the clock here.
    table_time: Mapped[float | None] = mapped_column(Float, nullable=True)
    deal_at: Mapped[float | None] = mapped_column(Float, nullable=True)  # table seconds
    last_match_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Limits (kemps.server.limits): whether the host lets spectators watch, and when (wall-clock
    # seconds) the room was archived for having no player connected; an archived room is kept
    # but never restored.
    spectators: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    archived_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    # Many nodes (kemps.server.nodes): the highest fencing token a node has claimed this room
    # with; only a node holding at least this token may write the room (0: a single node).
    fence: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # A camera table (issue 24, kemps.server.signalling): its seated people play on video.
    camera: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


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


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Write-ahead log (readers never block the writer) and a full sync at each commit: a
    committed transaction survives the process being killed and the machine losing power."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


async def _upsert_room(session: AsyncSession, row: dict[str, Any]) -> None:
    """Insert a room's row, or update the stored one in place (keys as :class:`RoomRow`'s)."""
    existing = await session.get(RoomRow, row["code"])
    if existing is None:
        session.add(RoomRow(**row))
    else:
        for key, value in row.items():
            setattr(existing, key, value)


#: The JSON columns of each table the batch writer fills by hand (SQLAlchemy's ``JSON`` type
#: stores ``json.dumps`` of the value, ``None`` as ``'null'``: the batch writer does the same).
_ROOM_JSON = frozenset({"rules", "seats"})
_MATCH_JSON = frozenset({"rules", "names", "summary", "record"})


class SqliteBatchWriter:
    """Writes :meth:`Storage.write_batch`'s transactions to a SQLite file on one thread of its
    own, with the standard library's ``sqlite3``: one hop to that thread and one back per
    transaction, the statements as plain SQL text. Through SQLAlchemy and aiosqlite the same
    transaction took a hop per statement and rebuilt each statement (a third of the server's CPU
    per action at 1,000 players). It stores exactly the rows SQLAlchemy stores
    (``tests/test_server_storage.py``) with the same pragmas (WAL, ``synchronous=FULL``) and the
    same busy timeout, so a locked or full database fails the batch and the :class:`Writer`
    retries it, as before."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kemps-sqlite")
        self._db: sqlite3.Connection | None = None
        # The file this writer writes to, for its whole life: a file put in its place is never
        # written (kemps.server.rescue: the server must be started again on it, on purpose).
        self._file: tuple[int, int] | None = None
        self._upserts: dict[tuple[str, ...], str] = {}
        self.vanished = False  # the database file was found deleted or replaced
        self.rescued: Path | None = None  # where the vanished database was copied
        self.rescue_folder: Path | None = None  # where to copy it (None: rescue.rescue_dir)

    def _room_upsert(self, keys: tuple[str, ...]) -> str:
        """The room rows' upsert for these columns, written once per set of columns."""
        sql = self._upserts.get(keys)
        if sql is None:
            sql = self._upserts[keys] = (
                f"INSERT INTO rooms ({', '.join(keys)}) VALUES ({', '.join('?' * len(keys))}) "
                "ON CONFLICT (code) DO UPDATE SET "
                + ", ".join(f"{k} = excluded.{k}" for k in keys if k != "code"))
        return sql

    def _identity(self) -> tuple[int, int]:
        """The database file's device and inode; ``sqlite3.OperationalError`` when it is gone."""
        try:
            found = os.stat(self.path)
        except OSError as err:
            raise sqlite3.OperationalError(f"the database file is gone ({err})") from None
        return found.st_dev, found.st_ino

    def _check_file(self) -> None:
        """A database file deleted (or replaced) under the running server would take every
        commit to a file nobody will read again, acknowledged all the same: fail the batch
        instead, so the tables pause (and stay paused: the server must be started again, which
        says what to do). The first time, what the open connection still reads of the vanished
        file (every committed step) is copied aside (:func:`kemps.server.rescue.sqlite_backup`).
        """
        try:
            same = self._identity() == self._file
        except sqlite3.OperationalError:
            same = False
        if same:
            return
        db, self._db = self._db, None
        if db is not None:
            if not self.vanished:
                from kemps.server.rescue import rescue_dir, sqlite_backup

                self.rescued = sqlite_backup(db, self.path, self.rescue_folder or rescue_dir(
                    f"sqlite:///{self.path}"))
            with contextlib.suppress(sqlite3.Error):
                db.close()
        self.vanished = True
        raise sqlite3.OperationalError("the database file is gone or was replaced under the "
                                       "running server")

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            # mode=rw: never make a new, empty database where the file was (see _check_file)
            db = sqlite3.connect(f"{Path(self.path).absolute().as_uri()}?mode=rw", uri=True,
                                 timeout=SQLITE_BUSY_S, isolation_level=None)
            if self._file is None:
                self._file = self._identity()
            _sqlite_pragmas(db, None)
            # Appending rows needs few pages: a small page cache keeps the memory it takes
            # from growing with the database (the default is up to 2 MB).
            db.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KB}")
            self._db = db
        return self._db

    async def write(self, rooms: list[dict[str, Any]], entries: list[dict[str, Any]],
                    clocks: dict[str, float], matches: list[dict[str, Any]]) -> list[int]:
        """One transaction, as :meth:`Storage.write_batch` (no fencing: a single node)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._write, rooms, entries, clocks,
                                          matches)

    def _write(self, rooms: list[dict[str, Any]], entries: list[dict[str, Any]],
               clocks: dict[str, float], matches: list[dict[str, Any]]) -> list[int]:
        if self.vanished:
            raise sqlite3.OperationalError("the database file is gone or was replaced under "
                                           "the running server")
        db = self._connection()
        self._check_file()
        try:
            db.execute("BEGIN IMMEDIATE")
            if rooms:
                keys = tuple(rooms[0])
                db.executemany(self._room_upsert(keys),
                               [[json.dumps(r[k]) if k in _ROOM_JSON else r[k] for k in keys]
                                for r in rooms])
            if entries:
                db.executemany(
                    "INSERT INTO entries (room_code, match_no, seq, t, kind, payload) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (room_code, match_no, seq) DO NOTHING",
                    [(e["room_code"], e["match_no"], e["seq"], e["t"], e["kind"],
                      json.dumps(e["payload"])) for e in entries])
            if clocks:
                db.executemany("UPDATE rooms SET table_time = ? WHERE code = ?",
                               [(t, code) for code, t in clocks.items()])
            ids = []
            for m in matches:
                found = db.execute("SELECT id FROM matches WHERE room_code = ? AND match_no = ?",
                                   (m["room_code"], m["match_no"])).fetchone()
                if found is None:
                    row = {"finished_at": time.time(), **m}
                    keys = tuple(row)
                    cursor = db.execute(
                        f"INSERT INTO matches ({', '.join(keys)}) "
                        f"VALUES ({', '.join('?' * len(keys))})",
                        [json.dumps(row[k]) if k in _MATCH_JSON else row[k] for k in keys])
                    ids.append(int(cursor.lastrowid or 0))
                else:
                    ids.append(int(found[0]))
            db.execute("COMMIT")
            return ids
        except BaseException:
            # A failed batch leaves nothing behind: roll back; a connection that cannot is
            # replaced by a new one at the next batch.
            try:
                if db.in_transaction:
                    db.execute("ROLLBACK")
            except sqlite3.Error:
                self._db = None
                with contextlib.suppress(sqlite3.Error):
                    db.close()
            raise

    async def close(self) -> None:
        """Close the connection on its thread and stop the thread."""
        def closing() -> None:
            if self._db is not None:
                self._db.close()
                self._db = None

        loop = asyncio.get_running_loop()
        with contextlib.suppress(Exception):
            await loop.run_in_executor(self._executor, closing)
        self._executor.shutdown(wait=False)


def _sqlite_file(url: str) -> str | None:
    """The file of a SQLite URL, or None (another database, in memory, or URI options that the
    batch writer would not honour)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.query:
        return None
    if not parsed.database or parsed.database == ":memory:":
        return None
    return parsed.database


class Storage:
    """The server's database. Create, then ``await start()`` (migrates to the newest schema)."""

    def __init__(self, url: str) -> None:
        self.url = url
        if url.startswith("sqlite"):
            self.engine: AsyncEngine = create_async_engine(
                url, connect_args={"timeout": SQLITE_BUSY_S})
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        elif "asyncpg" in url:
            # No pre-ping (a round trip per commit): a stale pooled connection (a database
            # restart) fails its batch, which is invalidated and retried on a fresh one.
            self.engine = create_async_engine(
                url, connect_args={"timeout": PG_TIMEOUT_S, "command_timeout": PG_TIMEOUT_S})
        else:
            self.engine = create_async_engine(url, pool_pre_ping=True)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        file = _sqlite_file(url)
        self.batches = SqliteBatchWriter(file) if file is not None else None
        self._statements: dict[tuple[str, tuple[str, ...]], Any] = {}
        self.database_id: int | None = None  # a SQLite database's id (kemps.server.rescue)

    @property
    def sqlite_path(self) -> str | None:
        """The SQLite file of this database, or None (another database)."""
        return self.batches.path if self.batches is not None else None

    async def start(self, check: bool = False, accept: bool = False) -> None:
        """Create or upgrade the schema (Alembic ``upgrade head``).

        ``check`` (the server's start): a SQLite database that is gone or not the one this
        server used is refused, unless ``accept`` (:func:`kemps.server.rescue.check_database`);
        once migrated it is stamped with its id.

        Raises:
            DatabaseRefused: ``database_gone``, ``database_replaced`` (nothing made or changed).
        """
        from kemps.server import rescue

        path = self.sqlite_path
        if check:
            rescue.check_database(path, accept)
        async with self.engine.begin() as conn:
            await conn.run_sync(_upgrade, self.url)
        if check and path is not None:
            self.database_id = await asyncio.to_thread(rescue.stamp, path)

    async def close(self) -> None:
        """Release connections."""
        if self.batches is not None:
            await self.batches.close()
        await self.engine.dispose()

    async def save_room(self, row: dict[str, Any]) -> None:
        """Insert or update a room (keys as :class:`RoomRow`'s columns)."""
        async with self.sessions.begin() as s:
            await _upsert_room(s, row)

    async def claim(self, code: str, fence: int) -> bool:
        """Raise a room's fencing token to ``fence`` (a node taking the room over): from the
        commit on, a node with a lower token can no longer write the room. Returns False when the
        stored token is already higher (someone newer owns it)."""
        rooms_t: Any = RoomRow.__table__
        async with self.engine.begin() as conn:
            found = (await conn.execute(select(rooms_t.c.fence).where(
                rooms_t.c.code == code).with_for_update())).scalar()
            if found is not None and found > fence:
                return False
            if found is not None:
                await conn.execute(update(rooms_t).where(rooms_t.c.code == code)
                                   .values(fence=fence))
        return True

    async def fence(self, code: str) -> int:
        """The room's stored fencing token (0: none, or no such room)."""
        rooms_t: Any = RoomRow.__table__
        async with self.engine.connect() as conn:
            found = (await conn.execute(select(rooms_t.c.fence).where(
                rooms_t.c.code == code))).scalar()
        return int(found or 0)

    async def _fenced(self, conn: Any, codes: set[str], fences: dict[str, int]) -> set[str]:
        """The rooms among ``codes`` whose stored fencing token is higher than this node's (rows
        locked until the commit, so a takeover cannot slip in between)."""
        rooms_t: Any = RoomRow.__table__
        rows = (await conn.execute(select(rooms_t.c.code, rooms_t.c.fence).where(
            rooms_t.c.code.in_(sorted(codes))).with_for_update())).all()
        return {code for code, stored in rows if stored > fences.get(code, 0)}

    async def write_batch(self, rooms: list[dict[str, Any]], entries: list[dict[str, Any]],
                          clocks: dict[str, float], matches: list[dict[str, Any]],
                          fences: dict[str, int] | None = None,
                          fenced_out: set[str] | None = None) -> list[int]:
        """Write rooms (insert or update), record entries, table clocks (``{code: table
        seconds}``) and finished matches in one transaction, in that order; returns the matches'
        ids. Idempotent, so a batch whose commit may or may not have happened can be retried: an
        entry already there (same room, match, seq) is skipped, a match already stored for that
        room and match number keeps its id.

        ``fences`` (many nodes): this node's fencing token per room; a room whose stored token is
        higher belongs to a newer owner: nothing of it is written, and its code is added to
        ``fenced_out`` (its matches get id 0)."""
        if self.batches is not None and not fences:
            return await self.batches.write(rooms, entries, clocks, matches)
        dialect = self.engine.dialect.name
        ins: Any = (pg_insert if dialect == "postgresql" else
                    sqlite_insert if dialect == "sqlite" else None)
        if ins is None:  # another database: the portable (slower) road (a single node only)
            return await self._write_batch_orm(rooms, entries, clocks, matches)
        matches_t: Any = MatchRow.__table__
        ids: dict[int, int] = {}
        # Core statements on one connection: the fewest round trips per commit.
        async with self.engine.begin() as conn:
            if fences:  # many nodes: leave out every room a newer owner has claimed
                codes = ({r["code"] for r in rooms} | {e["room_code"] for e in entries}
                         | set(clocks) | {m["room_code"] for m in matches})
                fenced = await self._fenced(conn, codes, fences)
                if fenced_out is not None:
                    fenced_out |= fenced
                rooms = [r for r in rooms if r["code"] not in fenced]
                entries = [e for e in entries if e["room_code"] not in fenced]
                clocks = {c: t for c, t in clocks.items() if c not in fenced}
            else:
                fenced = set()
            if rooms:  # one upsert statement for every room row
                await conn.execute(self._statement("rooms", tuple(rooms[0]), ins), rooms)
            if entries:
                await conn.execute(self._statement("entries", (), ins), entries)
            if clocks:
                await conn.execute(self._statement("clocks", (), ins),
                                   [{"b_code": code, "b_t": t} for code, t in clocks.items()])
            for i, m in enumerate(matches):
                if m["room_code"] in fenced:
                    continue
                found = (await conn.execute(select(matches_t.c.id).where(
                    matches_t.c.room_code == m["room_code"],
                    matches_t.c.match_no == m["match_no"]))).scalar()
                if found is None:
                    found = (await conn.execute(insert(matches_t).values(
                        finished_at=time.time(), **m).returning(matches_t.c.id))).scalar_one()
                ids[i] = int(found)
        return [ids.get(i, 0) for i in range(len(matches))]

    def _statement(self, kind: str, keys: tuple[str, ...], ins: Any) -> Any:
        """The batch's statements, built once (for a room row, once per set of keys): building
        one, ``excluded`` above all, cost more than running it at every commit."""
        found = self._statements.get((kind, keys))
        if found is None:
            rooms_t: Any = RoomRow.__table__
            if kind == "rooms":
                upsert = ins(rooms_t)
                found = upsert.on_conflict_do_update(
                    index_elements=["code"],
                    set_={k: upsert.excluded[k] for k in keys if k != "code"})
            elif kind == "entries":
                found = ins(EntryRow.__table__).on_conflict_do_nothing(
                    index_elements=["room_code", "match_no", "seq"])
            else:
                found = (update(rooms_t).where(rooms_t.c.code == bindparam("b_code"))
                         .values(table_time=bindparam("b_t")))
            self._statements[(kind, keys)] = found
        return found

    async def _write_batch_orm(self, rooms: list[dict[str, Any]], entries: list[dict[str, Any]],
                               clocks: dict[str, float], matches: list[dict[str, Any]]
                               ) -> list[int]:
        ids: list[int] = []
        async with self.sessions.begin() as s:
            for row in rooms:
                await _upsert_room(s, row)
            await s.flush()
            if entries:
                await s.execute(insert(EntryRow), entries)
            for code, t in clocks.items():
                room = await s.get(RoomRow, code)
                if room is not None:
                    room.table_time = t
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

    async def rooms(self) -> list[dict[str, Any]]:
        """Every stored room's row (for operators: ``kemps rooms list``)."""
        async with self.sessions() as s:
            rows = (await s.execute(select(RoomRow).order_by(RoomRow.created_at))).scalars()
            return [{c.name: getattr(r, c.name) for c in RoomRow.__table__.columns} for r in rows]

    async def room_record(self, code: str) -> tuple[dict[str, Any], list[EntryRow]] | None:
        """One room's row and its current match's steps in order, or None."""
        async with self.sessions() as s:
            room = await s.get(RoomRow, code)
            if room is None:
                return None
            entries = (await s.execute(
                select(EntryRow).where(EntryRow.room_code == room.code,
                                       EntryRow.match_no == room.match_no)
                .order_by(EntryRow.seq))).scalars().all()
            return {c.name: getattr(room, c.name) for c in RoomRow.__table__.columns}, list(entries)

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


class Batch:
    """What one transaction writes: room rows, record entries, table clocks and finished matches,
    with what to do once it is committed."""

    def __init__(self) -> None:
        self.rooms: dict[str, dict[str, Any]] = {}
        self.entries: list[dict[str, Any]] = []
        self.clocks: dict[str, float] = {}
        self.matches: list[tuple[dict[str, Any], Callable[[int], None]]] = []
        self.notify: dict[Callable[[], None], None] = {}  # ordered set
        self.ticket = 0

    def __bool__(self) -> bool:
        return bool(self.rooms or self.entries or self.clocks or self.matches)


class Writer:
    """Group commit: writes what the rooms produce, in order, and tells them once it is durable.

    Everything queued while one transaction is in flight (and within ``window_s`` seconds of the
    first item) goes into the next transaction. Every queued item gets a *ticket* (1, 2, ...);
    :attr:`committed` is the highest ticket known to be committed, and each room's ``notify``
    callback runs after every commit that carried one of its items: the room then releases the
    messages it held back (nothing is told before its entry is committed).

    Faults pause, never destroy: a transaction that fails (or stays in flight longer than
    ``stall_s``) makes the writer *unavailable* (``on_health(False, since)``, ``since`` the wall
    time the failing commit began) and is retried, whole and in order, with exponential back-off
    from ``retry_min_s`` to ``retry_max_s`` (with jitter, 50-100% of the step), for ever; nothing
    is dropped. The first success calls ``on_health(True, now)``. Retries are idempotent (an entry
    already written is skipped, a finished match is stored once). The queue is bounded:
    :meth:`refusal` answers ``storage_busy`` once ``max_pending`` entries wait, and
    ``storage_unavailable`` while a commit fails; the rooms then refuse new actions.
    """

    def __init__(self, storage: Storage, *, window_s: float = 0.002, max_pending: int = 20_000,
                 retry_min_s: float = 0.05, retry_max_s: float = 2.0, stall_s: float = 1.0,
                 commit_timeout_s: float = 20.0,
                 on_health: Callable[[bool, float], None] | None = None,
                 on_fenced: Callable[[str], None] | None = None) -> None:
        self.storage = storage
        self.window_s = window_s
        self.max_pending = max_pending
        self.retry_min_s = retry_min_s
        self.retry_max_s = retry_max_s
        self.stall_s = stall_s
        self.commit_timeout_s = commit_timeout_s
        self.on_health = on_health
        # Many nodes: this node's fencing token per room it owns; a commit that finds a room
        # fenced (a newer owner) writes nothing of it and calls on_fenced(code) before any room
        # is told of the commit, so nothing of that room is acknowledged.
        self.fences: dict[str, int] = {}
        self.on_fenced = on_fenced
        self.queued = 0
        self.committed = 0
        self.healthy = True
        self.last_error: str | None = None
        self.commits = 0
        self.failures = 0
        self._next = Batch()
        self._inflight = 0  # entries in the transaction being written
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    # -- queueing (synchronous: a room's step never waits) -----------------------------------------
    def _ticket(self, notify: Callable[[], None] | None) -> int:
        self.queued += 1
        self._next.ticket = self.queued
        if notify is not None:
            self._next.notify[notify] = None
        self._wake.set()
        return self.queued

    def room(self, row: dict[str, Any], notify: Callable[[], None] | None = None) -> int:
        """Queue a room's newest state (a later one replaces an earlier, unwritten one); returns
        its ticket."""
        self._next.rooms[row["code"]] = row
        self._next.clocks.pop(row["code"], None)
        return self._ticket(notify)

    def entry(self, code: str, match_no: int, seq: int, t: float, kind: str,
              payload: dict[str, Any] | None, notify: Callable[[], None] | None = None) -> int:
        """Queue one step of a room's record; returns its ticket."""
        self._next.entries.append({"room_code": code, "match_no": match_no, "seq": seq, "t": t,
                                   "kind": kind, "payload": payload})
        return self._ticket(notify)

    def clock(self, code: str, table_time: float) -> None:
        """Queue where a room's table clock stands (seconds), so a restart resumes there."""
        row = self._next.rooms.get(code)
        if row is not None:
            row["table_time"] = table_time
        else:
            self._next.clocks[code] = table_time
        self._wake.set()

    def match(self, row: dict[str, Any], saved: Callable[[int], None]) -> int:
        """Queue a finished match; ``saved(id)`` is called once it is committed."""
        self._next.matches.append((row, saved))
        return self._ticket(None)

    @property
    def pending(self) -> int:
        """Entries queued or in flight, not yet committed."""
        return len(self._next.entries) + self._inflight

    def refusal(self) -> str | None:
        """Why new actions must wait: ``storage_unavailable``, ``storage_busy``, or None."""
        if not self.healthy:
            return "storage_unavailable"
        if self.pending >= self.max_pending:
            return "storage_busy"
        return None

    async def sync(self, timeout: float | None = None) -> bool:
        """Wait until everything queued so far is committed; False if ``timeout`` (seconds) ran out
        first (it stays queued and is written when storage allows)."""
        ticket = self.queued
        if self.committed >= ticket:
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((ticket, future))
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            return False
        return True

    # -- the writing task ---------------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            if not self._next:
                if self._stopping:
                    return
                self._wake.clear()
                await self._wake.wait()
                if self.window_s > 0 and not self._stopping:
                    await asyncio.sleep(self.window_s)
                continue
            batch, self._next = self._next, Batch()
            await self._commit(batch)

    async def _commit(self, batch: Batch) -> None:
        self._inflight = len(batch.entries)
        delay = self.retry_min_s
        loop = asyncio.get_running_loop()
        while True:
            began = time.time()
            fenced: set[str] = set()
            # A hanging database: once stall_s passes without an answer, the tables pause while
            # we go on waiting (a timer, not a second task: this runs at every commit).
            stalled = loop.call_later(self.stall_s, self._set_health, False, began,
                                      "storage does not answer")
            try:
                async with asyncio.timeout(self.commit_timeout_s):
                    ids = await self.storage.write_batch(
                        list(batch.rooms.values()), batch.entries, batch.clocks,
                        [m for m, _ in batch.matches], dict(self.fences) or None, fenced)
                break
            except Exception as err:  # noqa: BLE001  (any storage failure: keep the batch, retry)
                stalled.cancel()
                self.failures += 1
                self._set_health(False, began, f"{type(err).__name__}: {err}"[:300])
                log.warning("storage write failed (%d entries kept, retry in %.2f s): %s",
                            len(batch.entries), delay, err)
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self.retry_max_s)
            finally:
                stalled.cancel()
        self._inflight = 0
        self.commits += 1
        self.committed = max(self.committed, batch.ticket)  # a clocks-only batch has none
        self._set_health(True, time.time(), None)
        for code in sorted(fenced):
            log.warning("room %s belongs to a newer owner: this node wrote nothing of it", code)
            self.fences.pop(code, None)
            if self.on_fenced is not None:
                self._safely(self.on_fenced, code)
        for (row, saved), match_id in zip(batch.matches, ids):
            if row["room_code"] not in fenced:
                self._safely(saved, match_id)
        for notify in batch.notify:
            self._safely(notify)
        waiting, self._waiters = self._waiters, []
        for ticket, future in waiting:
            if ticket <= self.committed:
                if not future.done():
                    future.set_result(None)
            else:
                self._waiters.append((ticket, future))

    @staticmethod
    def _safely(fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except Exception:  # a room's failure must not stop the writer
            log.exception("after-commit callback failed")

    def _set_health(self, healthy: bool, since: float, error: str | None) -> None:
        if error is not None:
            self.last_error = error
        if healthy == self.healthy:
            return
        self.healthy = healthy
        if healthy:
            log.warning("storage is back; tables resume")
        else:
            log.warning("storage unavailable (%s); tables pause", error)
        if self.on_health is not None:
            self._safely(self.on_health, healthy, since)

    async def stop(self, timeout: float = 5.0) -> bool:
        """Write what is queued and stop, within ``timeout`` seconds. Returns False when storage
        did not take it all in time: what was left was never acknowledged to anyone."""
        self._stopping = True
        self._wake.set()
        if self._task is None:
            return not self._next
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
            log.warning("stopped with %d unacknowledged entries unwritten (storage did not "
                        "answer within %.1f s)", self.pending, timeout)
            return False
        return True
