"""The tournament file: JSON read and written whole (docs/tournament.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from kemps.errors import ScoreError
from kemps.json_input import JSONInputError, parse_json
from kemps.tournament.model import Tournament


def load(path: str | Path) -> Tournament:
    """Read a tournament file and rebuild the tournament from it.

    Raises:
        ScoreError: ``bad_file`` when the file cannot be read or is not a tournament; else as
            :meth:`Tournament.from_dict`.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ScoreError("bad_file", f"Cannot read {path}: {err}.") from None
    try:
        data = parse_json(text)
    except JSONInputError as err:  # not JSON, or a key given twice in one object
        raise ScoreError("bad_file", f"{path}: {err.message}") from None
    return Tournament.from_dict(data)


def save(tournament: Tournament, path: str | Path) -> None:
    """Write the whole tournament to ``path`` (through a temporary file, then renamed, so a crash
    never leaves half a file).

    Raises:
        ScoreError: ``bad_file`` when it cannot be written.
    """
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    try:
        tmp.write_text(json.dumps(tournament.to_dict(), ensure_ascii=False, indent=1) + "\n",
                       encoding="utf-8")
        os.replace(tmp, target)
    except OSError as err:
        raise ScoreError("bad_file", f"Cannot write {path}: {err}.") from None
