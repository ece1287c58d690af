"""The one check for text that a stranger sends: names, chat, notes, titles, option values.

Text is accepted when it is valid Unicode (no lone surrogates: they cannot be written as UTF-8, so
a stored one would break every later answer that contains it), holds no control characters (C0,
DEL, C1) and no bidirectional overrides or isolates (U+202A-U+202E, U+2066-U+2069: they make a
name display as something else), and is within a length counted in characters (code points, as
JSON Schema's ``maxLength`` counts). Everything else, any script and emoji, is fine.

:func:`check_text` raises :class:`TextError` (code ``bad_text``, a sentence naming the field);
:func:`check_strings` applies it to every string (and key) of parsed JSON; :class:`CleanText` is
the same check as pydantic metadata for request models, and its JSON Schema states the limits.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

from kemps.errors import KempsError

BIDI_CONTROLS: Final = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))
# The characters refused anywhere in a text, as a regular-expression class (also JSON Schema's).
_REFUSED_CLASS: Final = r"\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_REFUSED: Final = re.compile(f"[{_REFUSED_CLASS}]")
TEXT_PATTERN: Final = r"^[^\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]*$"
#: Clean text with at least one character that is not a space (a name): the same class, and one
#: character outside it and outside ``\s`` (Python's ``str.strip`` removes exactly ``\s``).
VISIBLE_PATTERN: Final = (r"^[^\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]*"
                          r"[^\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
                          r"[^\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]*$")
MAX_DEPTH: Final = 32


class TextError(KempsError, ValueError):
    """Text that is not clean (code ``bad_text``); the message names the field and the problem.

    It is a ``ValueError`` so that pydantic reports it as the field's validation error."""


def check_text(value: str, field: str = "text", max_chars: int | None = None,
               min_chars: int = 0) -> str:
    """``value`` unchanged when it is clean text of ``min_chars`` to ``max_chars`` characters.

    Raises:
        TextError: ``bad_text`` for a lone surrogate, a control character, a bidirectional
            override or isolate, or a length out of range (the message never repeats the text).
    """
    bad = _REFUSED.search(value)
    if bad is not None:
        c = bad.group()
        if 0xD800 <= ord(c) <= 0xDFFF:
            why = "holds a lone surrogate (not valid Unicode)"
        elif c in BIDI_CONTROLS:
            why = f"holds a bidirectional control character (U+{ord(c):04X})"
        else:
            why = f"holds a control character (U+{ord(c):04X})"
        raise TextError("bad_text", f"The {field} {why}; send plain text.")
    if len(value) < min_chars:
        raise TextError("bad_text", f"The {field} needs at least {min_chars} character"
                        f"{'s' if min_chars != 1 else ''}.")
    if max_chars is not None and len(value) > max_chars:
        raise TextError("bad_text", f"The {field} may be at most {max_chars} characters.")
    return value


def check_strings(data: Any, field: str = "message", depth: int = 0) -> None:
    """Apply :func:`check_text` (no length limit) to every string and key inside parsed JSON.

    Raises:
        TextError: ``bad_text`` naming the first bad field (``action.text``); or for JSON nested
            deeper than :data:`MAX_DEPTH`.
    """
    if depth > MAX_DEPTH:
        raise TextError("bad_text", f"The {field} is nested too deep.")
    if isinstance(data, str):
        check_text(data, field)
    elif isinstance(data, Mapping):
        for key, value in data.items():
            name = check_text(str(key), f"{field} field name")
            check_strings(value, f"{field}.{name}" if field != "message" else name, depth + 1)
    elif isinstance(data, list | tuple):
        for item in data:
            check_strings(item, field, depth + 1)


@dataclass(frozen=True, slots=True)
class CleanText:
    """Pydantic metadata for a ``str`` field that passes :func:`check_text`:
    ``Annotated[str, CleanText(40, 1, "name", visible=True)]``. Its JSON Schema gives
    ``minLength``, ``maxLength``, the pattern of refused characters (with ``visible``: and at
    least one character that is not a space, :data:`VISIBLE_PATTERN`) and ``examples``."""

    max_chars: int
    min_chars: int = 0
    field: str = "text"
    examples: tuple[str, ...] = ()
    visible: bool = False

    def check(self, value: str) -> str:
        check_text(value, self.field, self.max_chars, self.min_chars)
        if self.visible and not value.strip():
            raise TextError("bad_text", f"The {self.field} needs a character other than spaces.")
        return value

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler
                                     ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> dict[str, Any]:
        out: dict[str, Any] = dict(handler(schema))
        out.update(type="string", maxLength=self.max_chars,
                   pattern=VISIBLE_PATTERN if self.visible else TEXT_PATTERN)
        if self.min_chars:
            out["minLength"] = self.min_chars
        if self.examples:
            out["examples"] = list(self.examples)
        return out


def utf8_size(raw: str | bytes) -> int:
    """A frame's size in bytes as it travels (UTF-8; a lone surrogate counts its 3 bytes)."""
    if isinstance(raw, bytes):
        return len(raw)
    return len(raw.encode("utf-8", "surrogatepass"))


__all__ = ["BIDI_CONTROLS", "TEXT_PATTERN", "VISIBLE_PATTERN", "CleanText", "TextError", "check_strings", "check_text",
           "utf8_size"]
