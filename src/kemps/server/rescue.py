"""When the database is gone: never a silent fresh start, and what a server holds saved.

Issue 26: "A vanished database is a silent fresh start: the server notices that the SQLite file
is gone and pauses (good), but a restart creates an empty database without a word, and 84
acknowledged actions that the paused server still held in memory are gone for good."

* **At start** (:func:`check_database`): a SQLite database is stamped with an id (SQLite's
  ``application_id`` in the file's header: no table, no migration) and the server keeps that id
  beside it in a small file, ``<database>.id``. A server that finds the file gone, or another
  database in its place (another id), refuses to start with a plain message that says what to do;
  ``kemps serve --accept-database`` (``KEMPS_ACCEPT_DATABASE=1``) starts on purpose with what is
  there (an empty new database when there is none) and keeps its id from then on. A backup of
  the same database carries the same id: putting one back needs no flag.
* **While running**, when the SQLite file is found deleted or replaced (the batch writer checks
  it before every commit; the tables pause), the server copies the database it still has open
  (SQLite's backup, from the open connection to the deleted file: every committed step, every
  finished match) to ``<database>.rescued-<time>.sqlite``, and writes a **rescue dump**: every
  room it holds, its lobby row and every step of its current match, rebuilt from memory, and the
  match a finished room played (:func:`write_dump`). A dump is also written when the server stops
  while storage is away, and on ``SIGUSR1`` at any time (for a PostgreSQL database dropped under a
  running server, say).
* ``kemps rooms load DUMP --database-url URL`` (:func:`load_dump`) puts a dump's rooms into a
  database (a new one, or the old one back): a room the database already holds as far or further
  is left as it is. A dump loaded into a new SQLite file stamps it with the dump's id, so the
  server takes it as its own database again.

The dump is JSON: ``{"format": "kemps-rescue", "version": 1, "made_at": Unix seconds,
"reason", "database": {"url" (no password), "id"}, "rooms": [{"row": the rooms row, "steps":
[{"match_no", "seq", "t", "kind", "payload"}], "match": the finished match's row or null}]}``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from kemps.errors import KempsError

if TYPE_CHECKING:
    from kemps.server.room import Room
    from kemps.server.storage import Storage

log = logging.getLogger("kemps.server")
FORMAT: Final = "kemps-rescue"
VERSION: Final = 1


class DatabaseRefused(KempsError):
    """The server will not start on this database (``database_gone``, ``database_replaced``)."""


# == the database's id =============================================================================
def witness(path: str | Path) -> Path:
    """The file beside a SQLite database where the server keeps its id: ``<database>.id``."""
    p = Path(path)
    return p.with_name(p.name + ".id")


def sqlite_id(path: str | Path) -> int:
    """The id in a SQLite file's header (``application_id``; 0: none), read without writing."""
    db = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        return int(db.execute("PRAGMA application_id").fetchone()[0])
    finally:
        db.close()


def stamp(path: str | Path, wanted: int | None = None) -> int:
    """Give a SQLite database an id (``wanted``, else its own, else a new random one) and keep it
    in its witness file; returns the id."""
    db = sqlite3.connect(str(path), timeout=5)
    try:
        found = int(db.execute("PRAGMA application_id").fetchone()[0])
        value = wanted or found or random.randint(1, 2**31 - 1)
        if value != found:
            db.execute(f"PRAGMA application_id = {int(value)}")
            db.commit()
    finally:
        db.close()
    keep = witness(path)
    temp = keep.with_name(keep.name + ".tmp")
    temp.write_text(f"{value}\n")
    temp.replace(keep)
    return value


def check_database(path: str | None, accept: bool) -> None:
    """Refuse a SQLite database that is gone or not the one this server used (see the module
    text); nothing is made or changed. ``path`` None (another database): nothing to check.

    Raises:
        DatabaseRefused: ``database_gone`` or ``database_replaced``, with what to do.
    """
    if path is None or accept:
        return
    keep = witness(path)
    if not keep.exists():
        return  # a first start here (or a database from before ids): it is stamped at start
    try:
        expected = int(keep.read_text().strip() or "0")
    except ValueError:
        expected = 0
    afresh = ("To start afresh on purpose, with an empty database (every room and finished "
              "match of the old one left behind): kemps serve --accept-database "
              "(or KEMPS_ACCEPT_DATABASE=1).")
    put_back = (f"put the file back (from a backup, or the copy the server saved when it found "
                f"it gone: {Path(path).name}.rescued-*.sqlite), or load a rescue dump into a new "
                f"one (kemps rooms load kemps-rescue-*.json --database-url "
                f"sqlite+aiosqlite:///{path}); then start again.")
    if not Path(path).exists():
        raise DatabaseRefused(
            "database_gone", f"The database {path} is gone: this server used one there (id "
            f"{expected}, kept in {keep.name}), and it will not make an empty one in its place "
            f"without a word. To go on where the tables stood: {put_back} {afresh}")
    try:
        found = sqlite_id(path)
    except sqlite3.Error:
        found = 0
    if found != expected:
        raise DatabaseRefused(
            "database_replaced", f"The database {path} is not the one this server used (its id "
            f"is {found or 'none'}; this server's is {expected}, kept in {keep.name}): it was "
            f"replaced. To go on with the one this server used: {put_back} To use the one that "
            "is there now on purpose: kemps serve --accept-database (or "
            "KEMPS_ACCEPT_DATABASE=1).")


# == saving what a server holds =====================================================================
def rescue_dir(database_url: str) -> Path:
    """Where rescue files go: ``KEMPS_RESCUE_DIR``, else the SQLite database's folder when it
    is still there, else the working folder."""
    from kemps.server.storage import _sqlite_file

    chosen = os.environ.get("KEMPS_RESCUE_DIR")
    if chosen:
        return Path(chosen)
    file = _sqlite_file(database_url)
    if file is not None and Path(file).absolute().parent.is_dir():
        return Path(file).absolute().parent
    return Path.cwd()


def _stamp_now() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def sqlite_backup(db: sqlite3.Connection, database: str, folder: Path) -> Path | None:
    """Copy the database ``db`` has open (the file may be deleted: the connection still reads
    it) to ``<database>.rescued-<time>.sqlite`` in ``folder``; None when that fails."""
    target = folder / f"{Path(database).name}.rescued-{_stamp_now()}.sqlite"
    try:
        out = sqlite3.connect(str(target))
        try:
            db.backup(out)
        finally:
            out.close()
    except (sqlite3.Error, OSError) as err:
        log.error("could not copy the vanished database to %s: %s", target, err)
        return None
    log.error("the database %s was deleted or replaced under the running server: every step it "
              "had committed is copied to %s (put it back in its place, then start again)",
              database, target)
    return target


def dump_rooms(rooms: Iterable[Room], reason: str, database_url: str,
               database_id: int | None) -> dict[str, Any]:
    """The rescue dump of ``rooms`` (see the module text)."""
    from sqlalchemy.engine import make_url

    out = []
    for room in rooms:
        if room.status == "broken":  # its stored rows stay as they were: nothing new in memory
            continue
        match = None
        if room.status == "finished" and room.driver is not None:
            match = room.finished_row()
        out.append({"row": room.row(), "steps": room.steps(), "match": match})
    return {"format": FORMAT, "version": VERSION, "made_at": time.time(), "reason": reason,
            "database": {"url": make_url(database_url).render_as_string(hide_password=True),
                         "id": database_id},
            "rooms": out}


def write_dump(rooms: Iterable[Room], reason: str, database_url: str,
               database_id: int | None, folder: Path) -> Path | None:
    """Write the rescue dump to ``folder/kemps-rescue-<time>-<pid>.json`` (whole or not at all);
    None when it cannot be written (said in the log)."""
    data = dump_rooms(rooms, reason, database_url, database_id)
    target = folder / f"kemps-rescue-{_stamp_now()}-{os.getpid()}.json"
    temp = target.with_name(target.name + ".tmp")
    try:
        temp.write_text(json.dumps(data))
        temp.replace(target)
    except OSError as err:
        log.error("could not write the rescue dump to %s: %s", target, err)
        with contextlib.suppress(OSError):
            temp.unlink()
        return None
    steps = sum(len(r["steps"]) for r in data["rooms"])
    log.error("rescue dump of %d rooms (%d record steps) written to %s (%s); load it with: kemps "
              "rooms load %s --database-url URL", len(data["rooms"]), steps, target, reason,
              target)
    return target


async def load_dump(storage: Storage, data: dict[str, Any]) -> list[dict[str, Any]]:
    """Put a dump's rooms into ``storage`` (migrated); per room ``{"code", "match_no", "steps",
    "loaded": bool, "why"}``. A room the database holds as far or further is left as it is.

    Raises:
        KempsError: ``bad_dump`` for a file that is not a rescue dump.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(
            data.get("rooms"), list):
        raise KempsError("bad_dump", "That file is not a kemps rescue dump.")
    if data.get("version") != VERSION:
        raise KempsError("bad_dump", f"That dump is of version {data.get('version')!r}; this "
                         f"kemps reads version {VERSION}.")
    report = []
    for item in data["rooms"]:
        row, steps, match = item["row"], item["steps"], item.get("match")
        code = row["code"]
        found = await storage.room_record(code)
        entry = {"code": code, "match_no": row["match_no"], "steps": len(steps)}
        if found is not None:
            stored, entries = found
            if (stored["match_no"], len(entries)) >= (row["match_no"], len(steps)):
                report.append({**entry, "loaded": False, "why": f"the database has it as far "
                               f"(match {stored['match_no']}, {len(entries)} steps) or further"})
                continue
        await storage.write_batch([row], [{"room_code": code, **s} for s in steps], {},
                                  [match] if match else [])
        report.append({**entry, "loaded": True, "why": ""})
    return report


__all__ = ["DatabaseRefused", "check_database", "dump_rooms", "load_dump", "rescue_dir",
           "sqlite_backup", "stamp", "witness", "write_dump"]
