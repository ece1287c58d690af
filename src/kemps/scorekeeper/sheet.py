"""The scoresheet file: JSON in and out, and CSV out (format in docs/scoresheet.md).

A sheet is::

    {"format": "kemps-scoresheet", "version": 1, "title": "...",
     "preset": "squarescores", "options": {"double_calls": true},
     "pairs": [["Alice", "Cara"], ["Ben", "Dev"]],        # or {"name": ..., "players": [...]}
     "hands": [{"call": "kemps", "by": "Alice", "right": true}, ...]}

Only ``pairs`` and ``hands`` are required (``preset`` defaults to ``pagat``). An exported sheet adds
``"result"`` (the standings, worked out again on import, never trusted).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from kemps.errors import ScoreError
from kemps.json_input import JSONInputError, parse_json
from kemps.rules import DEFAULT_PRESET
from kemps.scorekeeper.match import Match, Pair

FORMAT: Final = "kemps-scoresheet"
VERSION: Final = 1
_KEYS: Final = ("format", "version", "title", "preset", "options", "pairs", "hands", "result")


def from_sheet(data: object) -> Match:
    """The match a sheet describes, every hand scored.

    Raises:
        ScoreError: ``bad_sheet`` for a malformed sheet; a hand that breaks the rules, with its
            number (``"Hand N: ..."``). RuleError for an unknown preset or bad option.
    """
    if not isinstance(data, Mapping):
        raise ScoreError("bad_sheet", "A scoresheet is a JSON object with 'pairs' and 'hands'.")
    unknown = [k for k in data if k not in _KEYS]
    if unknown:
        raise ScoreError("bad_sheet", f"A scoresheet has no field {unknown[0]!r}; it has "
                         f"{', '.join(_KEYS)}.")
    if data.get("format", FORMAT) != FORMAT:
        raise ScoreError("bad_sheet", f"'format' must be {FORMAT!r}.")
    if data.get("version", VERSION) != VERSION:
        raise ScoreError("bad_sheet", f"This kemps reads scoresheet version {VERSION}.")
    preset = data.get("preset", DEFAULT_PRESET)
    options = data.get("options", {})
    if not isinstance(preset, str):
        raise ScoreError("bad_sheet", "'preset' is a preset name (see 'kemps presets').")
    if not isinstance(options, Mapping):
        raise ScoreError("bad_sheet", "'options' is an object of rule options and values.")
    raw_pairs = data.get("pairs")
    if not isinstance(raw_pairs, list):
        raise ScoreError("bad_sheet", "'pairs' is a list of pairs, each a list of two names.")
    pairs: list[list[str] | Pair] = []
    names: list[str | None] = []
    for i, p in enumerate(raw_pairs):
        if isinstance(p, Mapping):
            extra = [k for k in p if k not in ("name", "players")]
            if extra or not isinstance(p.get("name", ""), str):
                raise ScoreError("bad_sheet", f"Pair {i}: an object with 'name' and 'players'.")
            pairs.append(p.get("players"))  # type: ignore[arg-type]  # checked by Match
            names.append(p.get("name"))
        else:
            pairs.append(p)
            names.append(None)
    hands = data.get("hands", [])
    if not isinstance(hands, list):
        raise ScoreError("bad_sheet", "'hands' is a list of hands in order.")
    match = Match(pairs, preset=preset, options=options, pair_names=names,
                  title=data.get("title"))
    match.replace_all(hands)
    return match


def to_sheet(match: Match, result: bool = False) -> dict[str, Any]:
    """The sheet for ``match`` (what :func:`from_sheet` reads back); with ``result`` the standings
    are added under ``"result"``."""
    sheet: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if match.title:
        sheet["title"] = match.title
    sheet["preset"] = match.preset
    if match.options:
        sheet["options"] = dict(match.options)
    sheet["pairs"] = [list(p.players) if p.name == f"{p.players[0]} & {p.players[1]}"
                      else {"name": p.name, "players": list(p.players)} for p in match.pairs]
    sheet["hands"] = [e.to_dict() for e in match.entries]
    if result:
        sheet["result"] = match.summary()
    return sheet


def to_json(match: Match, result: bool = True) -> str:
    """The sheet as JSON text, one hand a line (export)."""
    sheet = to_sheet(match, result=result)
    hands = sheet.pop("hands")
    res = sheet.pop("result", None)
    head = json.dumps(sheet, ensure_ascii=False)[:-1]
    lines = ",\n  ".join(json.dumps(h, ensure_ascii=False) for h in hands)
    text = f'{head}, "hands": [\n  {lines}\n]' if hands else f'{head}, "hands": []'
    if res is not None:
        text += f', "result": {json.dumps(res, ensure_ascii=False)}'
    return text + "}\n"


def from_json(text: str) -> Match:
    """Import a sheet from JSON text.

    Raises:
        ScoreError: ``bad_sheet`` for text that is not JSON or gives a key twice in one object
            (:func:`kemps.json_input.parse_json`: a second ``"hands"`` would silently replace the
            first); else as :func:`from_sheet`.
    """
    try:
        data = parse_json(text)
    except JSONInputError as err:
        raise ScoreError("bad_sheet", err.message) from None
    return from_sheet(data)


def to_csv(match: Match) -> str:
    """The history as CSV: one row a hand with what each pair took and its total after it.

    Columns: ``hand, call, by, on, right, letters_to, note, <pair> took, <pair> total, ...,
    counts, match_over``.
    """
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    header = ["hand", "call", "by", "on", "right", "letters_to", "note"]
    for p in match.pairs:
        header += [f"{p.name} took", f"{p.name} total"]
    w.writerow(header + ["counts", "match_over"])
    for r in match.history:
        e = r.entry
        given = dict(r.given)
        row: list[object] = [r.number, e.call, e.by or "", "" if e.on is None else e.on,
                             "" if e.right is None else str(e.right).lower(),
                             "" if e.letters_to is None else e.letters_to, e.note or ""]
        for i in range(len(match.pairs)):
            row += [given.get(i, 0), r.scores[i]]
        w.writerow(row + [str(r.counts).lower(), str(r.ends_match).lower()])
    return out.getvalue()


def load(path: str | Path) -> Match:
    """Read a scoresheet file.

    Raises:
        ScoreError: ``bad_sheet`` when the file cannot be read; else as :func:`from_json`.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ScoreError("bad_sheet", f"Cannot read {path}: {err}.") from None
    return from_json(text)


def save(match: Match, path: str | Path) -> None:
    """Write the sheet (with its result) as JSON.

    Raises:
        ScoreError: ``bad_sheet`` when the file cannot be written.
    """
    try:
        Path(path).write_text(to_json(match), encoding="utf-8")
    except OSError as err:
        raise ScoreError("bad_sheet", f"Cannot write {path}: {err}.") from None


__all__ = ["FORMAT", "from_json", "from_sheet", "load", "save", "to_csv", "to_json",
           "to_sheet"]
