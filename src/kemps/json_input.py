"""JSON that a person sends or writes, read strictly: UTF-8 only, and every key once.

Python's ``json.loads`` keeps the last value of a key given twice (``{"hands": [...], "hands":
[]}`` is a sheet with no hands) and guesses UTF-16 or UTF-32 from the first bytes; JSON text
exchanged between systems is UTF-8 (RFC 8259, section 8.1) and the names within an object
SHOULD be unique (section 4). Everything the project reads from a person goes through
:func:`parse_json`: the API's request bodies (:mod:`kemps.server.api`), the table's WebSocket
frames (:mod:`kemps.server.protocol`), scoresheets (:mod:`kemps.scorekeeper.sheet`), match records
(:mod:`kemps.record`) and tournament files (:mod:`kemps.tournament.store`). Each caller turns
:class:`JSONInputError` into its own error (``bad_sheet``, ``bad_record``...) with the same sentence.
Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from kemps.errors import KempsError

#: A key simple enough to be named in a message (anything else is "a key": never echoed).
_NAMEABLE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")


class JSONInputError(KempsError, ValueError):
    """JSON text that is refused: ``bad_json`` (not UTF-8, not JSON, nested too deep) or
    ``duplicate_key`` (a key given twice in one object). The message is one plain sentence and
    never repeats the text, only a key that is a plain identifier."""


def _key_name(key: str) -> str:
    return repr(key) if _NAMEABLE.fullmatch(key) else "a key"


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # (in C: a frame's few objects cost about a microsecond each)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JSONInputError("duplicate_key", f"The key {_key_name(key)} is given twice "
                                     "in one object; give each key once (JSON keeps only one "
                                     "of them).")
            seen.add(key)
    return out


def parse_json(text: str | bytes) -> Any:
    """``text`` as JSON (bytes must be UTF-8, without a byte order mark).

    Raises:
        JSONInputError: ``bad_json`` for bytes that are not UTF-8, text that is not JSON, or
            nesting too deep for the parser; ``duplicate_key`` for a key given twice in one object.
    """
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise JSONInputError("bad_json", f"Not valid UTF-8 (byte {err.start}): JSON is sent "
                                 "and stored as UTF-8 text.") from None
    try:
        return json.loads(text, object_pairs_hook=_object)
    except json.JSONDecodeError as err:
        raise JSONInputError("bad_json", f"Not valid JSON (line {err.lineno}, column "
                             f"{err.colno}): {err.msg}.") from None
    except RecursionError:
        raise JSONInputError("bad_json", "Not valid JSON here: nested too deep.") from None


__all__ = ["JSONInputError", "parse_json"]
