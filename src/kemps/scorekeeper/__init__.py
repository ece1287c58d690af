"""The scorekeeper: score a match played with real cards (seed 000 "SquareScores").

Public API (pure; the web layer stores the sheet JSON and calls these):

* :class:`Match` -- ``Match(pairs, preset, options)``, ``.record(hand)``, ``.undo()``,
  ``.edit(n, hand)``, ``.delete(n)``, ``.history``, ``.standings()``, ``.summary()``, ``.over``.
* :func:`from_sheet` / :func:`to_sheet` (dicts), :func:`from_json` / :func:`to_json` (text),
  :func:`to_csv`, :func:`load` / :func:`save` (files).

Errors are :class:`kemps.errors.ScoreError` with a stable ``code`` (docs/scoresheet.md).
"""

from kemps.scorekeeper.match import SHEET_CALLS, Entry, HandResult, Match, Pair, Standing
from kemps.scorekeeper.sheet import from_json, from_sheet, load, save, to_csv, to_json, to_sheet

__all__ = ["SHEET_CALLS", "Entry", "HandResult", "Match", "Pair", "Standing", "from_json",
           "from_sheet", "load", "save", "to_csv", "to_json", "to_sheet"]
