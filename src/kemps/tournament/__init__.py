"""The tournament desk: seed 002's format for a club evening (see :mod:`kemps.tournament.model`).

Public API (pure; the web layer stores :meth:`Tournament.to_dict` and calls these):

* ``Tournament(teams, tables=, letters=, fake_signals=, go_start=, one_card=, seed=)`` -- create.
* ``.settle(...)`` before match one; ``.schedule()``; ``.match_rules(id)``; ``.new_scoresheet(id)``.
* ``.record(id, letters, loser=None, replace=False)`` -- any finished match's per-team letters
  (an online room's result); ``.record_match(id, scorekeeper_match)``.
* ``.withdraw(team)``; ``.standings()`` (``Standings``, ``.to_dict(t.teams)``).
* ``.to_dict()`` / ``Tournament.from_dict(data)``; :func:`load` / :func:`save` for files.

Errors are :class:`kemps.errors.ScoreError` with stable codes (docs/tournament.md).
"""

from kemps.tournament.model import (
    Standings,
    Team,
    TeamStanding,
    Tournament,
    TournamentMatch,
    TournamentSettings,
    parse_team,
    round_robin,
)
from kemps.tournament.store import load, save

__all__ = [
    "Standings",
    "Team",
    "TeamStanding",
    "Tournament",
    "TournamentMatch",
    "TournamentSettings",
    "load",
    "parse_team",
    "round_robin",
    "save",
]
