"""Storage of the scorekeeper and the tournament desk (tables made by migration ``0002``).

Three tables on the server's metadata (:class:`kemps.server.storage.Base`):

* ``desk_scoresheets``: ``id``, ``created_at``/``updated_at`` (Unix seconds), ``title``, ``sheet``
  (the scoresheet JSON of docs/scoresheet.md, without ``result``), and, for a sheet opened for a
  tournament match, ``tournament_id`` and ``match_id``.
* ``desk_tournaments``: ``id``, times, ``name``, ``state`` (``Tournament.to_dict()``).
* ``desk_tournament_rooms``: a tournament match played online: ``tournament_id``, ``match_id``,
  ``room_code`` (unique), ``status`` (``playing`` until the room's result is back, then
  ``recorded``; ``refused`` when the tournament would not take it) and ``outcome`` (the letters
  recorded, or the refusal's code and message).

Every function takes the server's :class:`~kemps.server.storage.Storage` and works on SQLite and
PostgreSQL. Changes go through :func:`change_sheet` / :func:`change_tournament`, which lock the row
(``SELECT ... FOR UPDATE`` where the database has it) for the read-change-write.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Integer, String, select
from sqlalchemy.orm import Mapped, mapped_column

from kemps.server.storage import Base, MatchRow, Storage


class SheetRow(Base):
    """A scoresheet kept by the scorekeeper page."""

    __tablename__ = "desk_scoresheets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    title: Mapped[str | None] = mapped_column(String(200), nullable=True)
    sheet: Mapped[dict[str, Any]] = mapped_column(JSON)
    tournament_id: Mapped[int | None] = mapped_column(ForeignKey("desk_tournaments.id"),
                                                      nullable=True, index=True)
    match_id: Mapped[str | None] = mapped_column(String(8), nullable=True)


class TournamentRow(Base):
    """A tournament kept by the desk page (its set-up and log, as ``Tournament.to_dict()``)."""

    __tablename__ = "desk_tournaments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    name: Mapped[str] = mapped_column(String(200))
    state: Mapped[dict[str, Any]] = mapped_column(JSON)


class TournamentRoomRow(Base):
    """A tournament match played online in a room."""

    __tablename__ = "desk_tournament_rooms"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("desk_tournaments.id"), index=True)
    match_id: Mapped[str] = mapped_column(String(8))
    room_code: Mapped[str] = mapped_column(String(16), unique=True)
    created_at: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16))
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


def _valid_id(row_id: int) -> bool:
    """Ids are positive 63-bit integers; anything else names no row (and would overflow SQL)."""
    return 0 < row_id < 2**62


def _sheet_dict(r: SheetRow) -> dict[str, Any]:
    return {"id": r.id, "created_at": r.created_at, "updated_at": r.updated_at,
            "title": r.title, "sheet": r.sheet, "tournament_id": r.tournament_id,
            "match_id": r.match_id}


def _tournament_dict(r: TournamentRow) -> dict[str, Any]:
    return {"id": r.id, "created_at": r.created_at, "updated_at": r.updated_at, "name": r.name,
            "state": r.state}


def _link_dict(r: TournamentRoomRow) -> dict[str, Any]:
    return {"tournament_id": r.tournament_id, "match_id": r.match_id, "room_code": r.room_code,
            "created_at": r.created_at, "status": r.status, "outcome": r.outcome}


# -- scoresheets -----------------------------------------------------------------------------------
async def create_sheet(storage: Storage, sheet: dict[str, Any], title: str | None = None,
                       tournament_id: int | None = None, match_id: str | None = None
                       ) -> dict[str, Any]:
    """Store a new scoresheet; returns its row as ``{"id", "created_at", "updated_at", "title",
    "sheet", "tournament_id", "match_id"}``."""
    now = time.time()
    async with storage.sessions.begin() as s:
        row = SheetRow(created_at=now, updated_at=now, title=title, sheet=sheet,
                       tournament_id=tournament_id, match_id=match_id)
        s.add(row)
        await s.flush()
        return _sheet_dict(row)


async def get_sheet(storage: Storage, sheet_id: int) -> dict[str, Any] | None:
    """One scoresheet's row (as :func:`create_sheet` returns it), or ``None``."""
    if not _valid_id(sheet_id):
        return None
    async with storage.sessions() as s:
        row = await s.get(SheetRow, sheet_id)
        return None if row is None else _sheet_dict(row)


async def change_sheet(storage: Storage, sheet_id: int,
                       change: Callable[[dict[str, Any]], tuple[dict[str, Any], str | None]]
                       ) -> dict[str, Any] | None:
    """Read, change and write one scoresheet in one transaction (the row locked meanwhile).

    ``change(sheet)`` returns ``(new_sheet, title)``; whatever it raises propagates and nothing is
    written. Returns the new row, or ``None`` when there is no such sheet.
    """
    if not _valid_id(sheet_id):
        return None
    async with storage.sessions.begin() as s:
        row = (await s.execute(select(SheetRow).where(SheetRow.id == sheet_id)
                               .with_for_update())).scalar_one_or_none()
        if row is None:
            return None
        sheet, title = change(dict(row.sheet))
        row.sheet, row.title, row.updated_at = sheet, title, time.time()
        await s.flush()
        return _sheet_dict(row)


async def list_sheets(storage: Storage, limit: int = 100) -> list[dict[str, Any]]:
    """Scoresheets, most recently changed first."""
    async with storage.sessions() as s:
        rows = (await s.execute(select(SheetRow).order_by(SheetRow.updated_at.desc(),
                                                          SheetRow.id.desc()).limit(limit)
                                )).scalars()
        return [_sheet_dict(r) for r in rows]


# -- tournaments -----------------------------------------------------------------------------------
async def create_tournament(storage: Storage, name: str, state: dict[str, Any]
                            ) -> dict[str, Any]:
    """Store a new tournament; returns ``{"id", "created_at", "updated_at", "name", "state"}``."""
    now = time.time()
    async with storage.sessions.begin() as s:
        row = TournamentRow(created_at=now, updated_at=now, name=name, state=state)
        s.add(row)
        await s.flush()
        return _tournament_dict(row)


async def get_tournament(storage: Storage, tournament_id: int) -> dict[str, Any] | None:
    """One tournament's row, or ``None``."""
    if not _valid_id(tournament_id):
        return None
    async with storage.sessions() as s:
        row = await s.get(TournamentRow, tournament_id)
        return None if row is None else _tournament_dict(row)


async def change_tournament(storage: Storage, tournament_id: int,
                            change: Callable[[dict[str, Any]], dict[str, Any]]
                            ) -> dict[str, Any] | None:
    """Read, change and write one tournament's state in one transaction (row locked meanwhile).

    ``change(state)`` returns the new state; whatever it raises propagates and nothing is written.
    Returns the new row, or ``None`` when there is no such tournament.
    """
    if not _valid_id(tournament_id):
        return None
    async with storage.sessions.begin() as s:
        row = (await s.execute(select(TournamentRow).where(TournamentRow.id == tournament_id)
                               .with_for_update())).scalar_one_or_none()
        if row is None:
            return None
        row.state = change(dict(row.state))
        row.updated_at = time.time()
        await s.flush()
        return _tournament_dict(row)


async def list_tournaments(storage: Storage, limit: int = 100) -> list[dict[str, Any]]:
    """Tournaments, most recently changed first (with their state)."""
    async with storage.sessions() as s:
        rows = (await s.execute(select(TournamentRow).order_by(
            TournamentRow.updated_at.desc(), TournamentRow.id.desc()).limit(limit))).scalars()
        return [_tournament_dict(r) for r in rows]


async def sheets_of_tournament(storage: Storage, tournament_id: int) -> list[dict[str, Any]]:
    """The scoresheets opened for a tournament's matches, oldest first."""
    async with storage.sessions() as s:
        rows = (await s.execute(select(SheetRow).where(SheetRow.tournament_id == tournament_id)
                                .order_by(SheetRow.id))).scalars()
        return [_sheet_dict(r) for r in rows]


# -- tournament matches played online --------------------------------------------------------------
async def link_room(storage: Storage, tournament_id: int, match_id: str, room_code: str
                    ) -> dict[str, Any]:
    """Record that ``room_code`` plays ``match_id`` of the tournament (status ``playing``);
    returns ``{"tournament_id", "match_id", "room_code", "created_at", "status", "outcome"}``."""
    async with storage.sessions.begin() as s:
        row = TournamentRoomRow(tournament_id=tournament_id, match_id=match_id,
                                room_code=room_code, created_at=time.time(), status="playing",
                                outcome=None)
        s.add(row)
        await s.flush()
        return _link_dict(row)


async def rooms_of_tournament(storage: Storage, tournament_id: int) -> list[dict[str, Any]]:
    """Every room linked to the tournament, oldest first."""
    async with storage.sessions() as s:
        rows = (await s.execute(select(TournamentRoomRow)
                                .where(TournamentRoomRow.tournament_id == tournament_id)
                                .order_by(TournamentRoomRow.id))).scalars()
        return [_link_dict(r) for r in rows]


async def room_link(storage: Storage, room_code: str) -> dict[str, Any] | None:
    """The tournament match a room plays, or ``None``."""
    async with storage.sessions() as s:
        row = (await s.execute(select(TournamentRoomRow).where(
            TournamentRoomRow.room_code == room_code))).scalar_one_or_none()
        return None if row is None else _link_dict(row)


async def settle_room(storage: Storage, room_code: str, status: str, outcome: dict[str, Any]
                      ) -> None:
    """Mark a linked room's result as ``recorded`` or ``refused``, with what happened."""
    async with storage.sessions.begin() as s:
        row = (await s.execute(select(TournamentRoomRow).where(
            TournamentRoomRow.room_code == room_code))).scalar_one_or_none()
        if row is not None:
            row.status, row.outcome = status, outcome


async def first_finished_match(storage: Storage, room_code: str) -> dict[str, Any] | None:
    """The summary of the first match a room finished (stored by the server), or ``None``: used
    to catch up on a result that finished while no listener was there (a restart)."""
    async with storage.sessions() as s:
        row = (await s.execute(select(MatchRow).where(MatchRow.room_code == room_code)
                               .order_by(MatchRow.id).limit(1))).scalar_one_or_none()
        return None if row is None else dict(row.summary)


__all__ = ["SheetRow", "TournamentRoomRow", "TournamentRow", "change_sheet", "change_tournament",
           "create_sheet", "create_tournament", "first_finished_match", "get_sheet",
           "get_tournament", "link_room", "list_sheets", "list_tournaments", "room_link",
           "rooms_of_tournament", "settle_room", "sheets_of_tournament"]


async def open_room_codes(storage: Storage) -> list[str]:
    """The codes of every room that plays a tournament match whose result has not come back."""
    async with storage.sessions() as s:
        rows = (await s.execute(select(TournamentRoomRow.room_code)
                                .where(TournamentRoomRow.status == "playing"))).scalars()
        return list(rows)
