"""The tournament itself (the desk drives it): seed 002's format for an evening of matches (S2 "A tournament (our format)").

Pure: no clock, no files, no global random (the lot is drawn from the tournament's recorded
``seed``). :mod:`kemps.tournament.store` reads and writes the JSON file.

The format (S2 rows 1-8, RULES-NOTES "The tournament format"):

* Teams of two, registered once and fixed for the event.
* Up to five teams: one round robin. Six or more: two groups (teams alternate in registration order:
  1st, 3rd, 5th... to group A; 2nd, 4th... to group B), each a round robin; the group winners play a
  final.
* Short matches: the first team to take ``letters`` letters (3 = K-E-M by default) loses; the final is
  played to the full word. The three settings (fake signals, the "Go" start, one card at a time) are
  agreed before match one and fixed after (:meth:`Tournament.settle`).
* Ranking: matches won, then fewer letters taken over the event, then head-to-head (matches won
  between the tied teams), then a lot drawn from the recorded seed. The lot is drawn only once every
  match of the group is decided; until then teams still level share a rank. A withdrawn team ranks
  below every team still in.
* A withdrawn team's unplayed matches are forfeits: the opponent wins, and no letters are counted for
  either side.

Use::

    t = Tournament(["Alice & Cara", "Ben & Dev", "Eve & Finn", "Gus & Hana"], tables=2, seed=7)
    t.schedule()                      # which teams play next, at which table
    t.record("M1", (3, 1))            # letters in the schedule's order (home, away)
    t.record_match("M2", scorekeeper_match)
    t.withdraw("Gus & Hana")
    t.standings()                     # tables per group, tie-breaks stated, champion
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from kemps.errors import ScoreError
from kemps.rules import RuleSet, find_preset
from kemps.scorekeeper.match import Match
from kemps.scoring import spelled

MatchStatus = Literal["waiting", "at_table", "played", "forfeit"]
BASE_PRESET: Final = "seed2-standard"
MAX_TEAMS: Final = 32
MAX_NAME: Final = 60
GROUPS_FROM: Final = 6
FORMAT: Final = "kemps-tournament"
VERSION: Final = 1  # S2: "Six teams or more: split into two groups"


@dataclass(frozen=True, slots=True)
class Team:
    """A team of two, fixed for the event (S2 row 1)."""

    name: str
    players: tuple[str, str]


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """The things settled before match one (S2 row 8) and the short-match length (S2 row 3).

    ``letters``: letters that lose a short match (3 = K-E-M); ``fake_signals``: ``"allowed"`` or
    ``"banned"``; ``go_start``: nobody touches the middle until the dealer says "Go";
    ``one_card``: one card at a time.
    """

    letters: int = 3
    fake_signals: str = "allowed"
    go_start: bool = False
    one_card: bool = False


@dataclass(slots=True)
class TournamentMatch:
    """One match of the schedule.

    ``id`` is ``M1``... (one round robin), ``A1``/``B1``... (groups) or ``F`` (the final);
    ``teams`` are team indexes (home, away); ``letters`` and ``loser`` (0 = home, 1 = away) once
    played; ``forfeit_by`` the withdrawn team for a forfeit; ``table`` while at a table.
    """

    id: str
    stage: Literal["league", "group", "final"]
    group: str
    round: int
    teams: tuple[int, int]
    status: MatchStatus = "waiting"
    table: int | None = None
    letters: tuple[int, int] | None = None
    loser: int | None = None
    forfeit_by: int | None = None
    table_talk: bool = False

    @property
    def decided(self) -> bool:
        """Played or forfeited."""
        return self.status in ("played", "forfeit")

    def winner_team(self) -> int | None:
        """The winning team's index once decided."""
        if self.loser is None:
            return None
        return self.teams[1 - self.loser]


@dataclass(frozen=True, slots=True)
class TeamStanding:
    """One team's line: ``rank`` may be shared while teams are level and the group is unfinished;
    ``note`` states the tie-break that placed it, if any."""

    rank: int
    team: str
    players: tuple[str, str]
    group: str
    played: int
    won: int
    lost: int
    forfeits_won: int
    forfeits_lost: int
    letters: int
    withdrawn: bool
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"rank": self.rank, "team": self.team, "players": list(self.players),
                "group": self.group, "played": self.played, "won": self.won, "lost": self.lost,
                "forfeits_won": self.forfeits_won, "forfeits_lost": self.forfeits_lost,
                "letters": self.letters, "withdrawn": self.withdrawn, "note": self.note}


@dataclass(slots=True)
class Standings:
    """Standings of the whole event.

    ``groups``: group name (``""`` for one round robin) to its ranked lines; ``tie_breaks``: every
    tie-break applied, in words; ``rule``: the ranking rule in words; ``final``: the final's match
    if drawn; ``champion``: the winning team's name once decided.
    """

    groups: dict[str, list[TeamStanding]]
    tie_breaks: list[str]
    rule: str
    final: TournamentMatch | None = None
    champion: str | None = None
    complete: bool = False
    forfeits: list[str] = field(default_factory=list)

    def to_dict(self, teams: Sequence[Team]) -> dict[str, Any]:
        """JSON-ready form."""
        final = None
        if self.final is not None:
            f = self.final
            final = {"id": f.id, "teams": [teams[i].name for i in f.teams], "status": f.status,
                     "letters": list(f.letters) if f.letters else None,
                     "winner": teams[w].name if (w := f.winner_team()) is not None else None}
        return {"rule": self.rule, "complete": self.complete, "champion": self.champion,
                "groups": {g: [s.to_dict() for s in rows] for g, rows in self.groups.items()},
                "tie_breaks": list(self.tie_breaks), "forfeits": list(self.forfeits),
                "final": final}


def parse_team(text: str) -> Team:
    """``"Alice & Cara"`` (named after its players) or ``"Sharks: Alice & Cara"``.

    Raises:
        ScoreError: ``bad_team`` unless it names exactly two players.
    """
    if not isinstance(text, str):
        raise ScoreError("bad_team", "A team is written 'Alice & Cara' or 'Sharks: Alice & Cara'.")
    name, _, rest = text.partition(":")
    if not rest:
        name, rest = "", text
    players = [p.strip() for p in rest.replace(" and ", "&").split("&")]
    if len(players) != 2 or not all(players):
        raise ScoreError("bad_team", f"{text!r}: a team is two players, written 'Alice & Cara' "
                         "or 'Sharks: Alice & Cara'.")
    return Team(name.strip() or f"{players[0]} & {players[1]}", (players[0], players[1]))


def round_robin(teams: Sequence[int]) -> list[list[tuple[int, int]]]:
    """Rounds of a round robin by the circle method: every team meets every other once; with an
    odd number one team rests each round."""
    slots: list[int | None] = list(teams)
    if len(slots) % 2:
        slots.append(None)
    n = len(slots)
    rounds: list[list[tuple[int, int]]] = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = slots[i], slots[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        slots = [slots[0], slots[-1]] + slots[1:-1]
    return rounds


class Tournament:
    """One event at the desk. Attributes (read only): ``name``, ``teams``, ``groups`` (group name
    to team indexes), ``matches``, ``settings``, ``tables``, ``seed``, ``withdrawn`` (team indexes,
    in order), ``log`` (every recorded result and withdrawal, in order: what the file stores)."""

    def __init__(self, teams: Sequence[Team | str | Sequence[str]], tables: int | None = None,
                 letters: int = 3, fake_signals: str = "allowed", go_start: bool = False,
                 one_card: bool = False, seed: int = 0, name: str | None = None) -> None:
        """Register the teams and draw the schedule.

        Args:
            teams: each a :class:`Team`, ``"Alice & Cara"`` / ``"Sharks: Alice & Cara"``, or two
                player names; 2 to 32 teams, every team and player named once.
            tables: tables in the room (default: one per match of a round).
            letters: letters that lose a short match (1-5; 3 = K-E-M).
            fake_signals, go_start, one_card: S2's three settings.
            seed: the seed every drawn lot comes from (recorded; choose it at random and keep it).
            name: the event's name.

        Raises:
            ScoreError: ``bad_team``, ``bad_setting``.
        """
        built = [t if isinstance(t, Team) else parse_team(t) if isinstance(t, str)
                 else _team_of(t) for t in (teams if isinstance(teams, Sequence) else [])]
        if not 2 <= len(built) <= MAX_TEAMS or isinstance(teams, str):
            raise ScoreError("bad_team", f"Register 2 to {MAX_TEAMS} teams of two.")
        for t in built:
            if not all(0 < len(x) <= 40 for x in t.players) or not 0 < len(t.name) <= MAX_NAME:
                raise ScoreError("bad_team", f"{t.name!r}: names of 1 to 40 characters.")
        keys = [t.name.lower() for t in built]
        if len(set(keys)) != len(keys):
            raise ScoreError("bad_team", "Every team needs a different name.")
        people = [p.lower() for t in built for p in t.players]
        if len(set(people)) != len(people):
            dup = next(p for p in people if people.count(p) > 1)
            raise ScoreError("bad_team", f"{dup!r} is registered twice; a player plays in one "
                             "team for the whole event (S2 row 1).")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ScoreError("bad_setting", "The seed is a whole number.")
        self.name = name or "Kemps tournament"
        self.teams: tuple[Team, ...] = tuple(built)
        self.seed = seed
        self.settings = TournamentSettings()
        self.settle(letters=letters, fake_signals=fake_signals, go_start=go_start,
                    one_card=one_card)
        n = len(built)
        if n >= GROUPS_FROM:
            self.groups: dict[str, tuple[int, ...]] = {"A": tuple(range(0, n, 2)),
                                                      "B": tuple(range(1, n, 2))}
        else:
            self.groups = {"": tuple(range(n))}
        default_tables = sum(len(g) // 2 for g in self.groups.values())
        tables = default_tables if tables is None else tables
        if isinstance(tables, bool) or not isinstance(tables, int) or not 1 <= tables <= 100:
            raise ScoreError("bad_setting", "Tables: a whole number from 1 to 100.")
        self.tables = tables
        self.matches: list[TournamentMatch] = self._draw()
        self.withdrawn: list[int] = []
        self.log: list[dict[str, Any]] = []
        self._assign_tables()

    # -- setup ---------------------------------------------------------------------------------
    def _draw(self) -> list[TournamentMatch]:
        per_group = {g: round_robin(ids) for g, ids in self.groups.items()}
        matches: list[TournamentMatch] = []
        count = dict.fromkeys(self.groups, 0)
        for r in range(max(len(v) for v in per_group.values())):
            for g, rounds in per_group.items():
                if r >= len(rounds):
                    continue
                for home, away in rounds[r]:
                    count[g] += 1
                    mid = f"{g or 'M'}{count[g]}"
                    matches.append(TournamentMatch(mid, "group" if g else "league", g, r + 1,
                                                   (home, away)))
        return matches

    def settle(self, letters: int | None = None, fake_signals: str | None = None,
               go_start: bool | None = None, one_card: bool | None = None) -> TournamentSettings:
        """Agree the settings before match one (S2 row 8: "Then every table plays the same game").

        Raises:
            ScoreError: ``settings_fixed`` once a result is in; ``bad_setting`` for a bad value.
        """
        if getattr(self, "log", None):
            raise ScoreError("settings_fixed", "The settings were agreed before match one and "
                             "cannot change now that results are in (S2 row 8).")
        s = self.settings
        new = TournamentSettings(s.letters if letters is None else letters,
                       s.fake_signals if fake_signals is None else fake_signals,
                       s.go_start if go_start is None else go_start,
                       s.one_card if one_card is None else one_card)
        word = find_preset(BASE_PRESET).word
        if isinstance(new.letters, bool) or not isinstance(new.letters, int) or not (
                1 <= new.letters <= len(word)):
            raise ScoreError("bad_setting", f"Short matches are played to 1 to {len(word)} "
                             "letters (3 = K-E-M).")
        if new.fake_signals not in ("allowed", "banned"):
            raise ScoreError("bad_setting", "Fake signals are 'allowed' or 'banned'.")
        if not isinstance(new.go_start, bool) or not isinstance(new.one_card, bool):
            raise ScoreError("bad_setting", "go_start and one_card are true or false.")
        self.settings = new
        return new

    # -- reading ---------------------------------------------------------------------------------
    def match(self, match_id: str) -> TournamentMatch:
        """The match called ``match_id`` (case ignored).

        Raises:
            ScoreError: ``no_such_match``.
        """
        key = str(match_id).strip().upper()
        for m in self.matches:
            if m.id == key:
                return m
        extra = " The final is drawn once both groups are complete." if (
            key == "F" and len(self.groups) == 2) else ""
        raise ScoreError("no_such_match", f"There is no match {match_id!r}.{extra}")

    def team_index(self, ref: str | int) -> int:
        """A team's index from its name, one of its players, or its index.

        Raises:
            ScoreError: ``unknown_team``.
        """
        if isinstance(ref, int) and not isinstance(ref, bool):
            if 0 <= ref < len(self.teams):
                return ref
        elif isinstance(ref, str):
            k = ref.strip().lower()
            for i, t in enumerate(self.teams):
                if t.name.lower() == k:
                    return i
            for i, t in enumerate(self.teams):
                if k in (p.lower() for p in t.players):
                    return i
        raise ScoreError("unknown_team", f"No team called {ref!r}; the teams are "
                         f"{', '.join(t.name for t in self.teams)}.")

    def match_rules(self, match_id: str) -> RuleSet:
        """The rules a match is played under: seed 002's game with the agreed settings, short
        (``letters``) or, for the final, the full word (S2 row 3)."""
        m = self.match(match_id)
        s = self.settings
        return find_preset(BASE_PRESET).replace(
            pairs=2, target=0 if m.stage == "final" else s.letters,
            fake_signals=s.fake_signals, start="on_go" if s.go_start else "on_deal",
            multi_swap=not s.one_card)

    def new_scoresheet(self, match_id: str) -> Match:
        """A scorekeeper match for ``match_id``: its two teams under :meth:`match_rules`."""
        m = self.match(match_id)
        home, away = (self.teams[i] for i in m.teams)
        return Match.from_rules(self.match_rules(match_id), [home.players, away.players],
                                pair_names=[home.name, away.name],
                                title=f"{self.name}, match {m.id}")

    @property
    def over(self) -> bool:
        """True once the champion is known."""
        return self.standings().champion is not None

    def schedule(self) -> list[dict[str, Any]]:
        """Every match in playing order, as ``{"id", "stage", "group", "round", "home", "away",
        "status", "table", "result", "order"}``: ``status`` is ``at_table`` (playing now, at
        ``table``), ``waiting`` (``order`` 1 is next to be called), ``played`` or ``forfeit``
        (``result`` says who won and by what; a forfeit is stated as such)."""
        rows = []
        order = 0
        for m in self.matches:
            home, away = (self.teams[i].name for i in m.teams)
            if m.status == "waiting":
                order += 1
            rows.append({"id": m.id, "stage": m.stage, "group": m.group, "round": m.round,
                         "home": home, "away": away, "status": m.status, "table": m.table,
                         "order": order if m.status == "waiting" else None,
                         "letters_to_lose": (len(find_preset(BASE_PRESET).word)
                                             if m.stage == "final" else self.settings.letters),
                         "result": self._result_text(m)})
        return rows

    def _result_text(self, m: TournamentMatch) -> str:
        if not m.decided:
            return ""
        w = self.teams[m.winner_team() or 0].name if m.winner_team() is not None else "?"
        if m.status == "forfeit":
            return (f"{w} win by forfeit ({self.teams[m.forfeit_by or 0].name} withdrew; no "
                    "letters counted)")
        got = m.letters or (0, 0)
        rules = self.match_rules(m.id)
        a, b = (self.teams[i].name for i in m.teams)
        text = f"{w} win: {a} {spelled(rules, got[0])}, {b} {spelled(rules, got[1])}"
        if m.table_talk:
            text += f" ({self.teams[m.teams[m.loser or 0]].name} lost for table talk)"
        return text

    # -- results ---------------------------------------------------------------------------------
    def record(self, match_id: str, letters: Sequence[int] | Mapping[str, int],
               loser: str | int | None = None, replace: bool = False) -> TournamentMatch:
        """Record a finished match from each team's letters (the function an online room's result
        comes back through).

        Args:
            match_id: e.g. ``"A3"``.
            letters: ``(home, away)`` in the schedule's order, or ``{team name or player: n}``.
            loser: only for a match lost by ruling (table talk, S1/S2): that team (name, player,
                or 0 = home / 1 = away); otherwise the team that took the losing letters lost.
            replace: correct a result already recorded (refused once the final is drawn, except
                for the final itself).

        Raises:
            ScoreError: ``no_such_match``, ``already_recorded``, ``forfeit``, ``final_drawn``,
                ``bad_result`` (not a finished match to this length), ``unknown_team``. Nothing
                changes.
        """
        m = self.match(match_id)
        if m.status == "forfeit":
            raise ScoreError("forfeit", f"Match {m.id} is a forfeit: "
                             f"{self.teams[m.forfeit_by or 0].name} withdrew.")
        if m.status == "played" and not replace:
            raise ScoreError("already_recorded", f"Match {m.id} already has a result; correct "
                             "it with replace.")
        if replace and m.stage != "final" and any(x.stage == "final" for x in self.matches):
            raise ScoreError("final_drawn", f"The final is already drawn; match {m.id}'s result "
                             "can no longer change.")
        pair = self._letters(m, letters)
        limit = len(find_preset(BASE_PRESET).word) if m.stage == "final" else self.settings.letters
        if any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= limit for x in pair):
            raise ScoreError("bad_result", f"Match {m.id}: letters are whole numbers from 0 to "
                             f"{limit}.")
        lose: int
        if loser is not None:
            lose = self._side(m, loser)
            if pair[1 - lose] >= limit:
                raise ScoreError("bad_result", f"Match {m.id}: the other team already took "
                                 f"{limit} letters and lost.")
            table_talk = pair[lose] < limit
        else:
            at_limit = [i for i in (0, 1) if pair[i] >= limit]
            if len(at_limit) != 1:
                rules = self.match_rules(m.id)
                raise ScoreError("bad_result", f"Match {m.id} is played to "
                                 f"{spelled(rules, limit)}: it ends when exactly one team has "
                                 f"taken {limit} letters, not {pair[0]}-{pair[1]}.")
            lose, table_talk = at_limit[0], False
        m.letters, m.loser, m.status, m.table, m.table_talk = pair, lose, "played", None, table_talk
        self.log.append({"action": "record", "match": m.id, "letters": list(pair),
                         "loser": lose if loser is not None else None, "replace": replace})
        self._advance()
        return m

    def record_match(self, match_id: str, match: Match, replace: bool = False) -> TournamentMatch:
        """Record a match scored with the scorekeeper. Its pairs are matched to the two teams by
        players (or by team name); it must be over and played to this match's length.

        Raises:
            ScoreError: ``bad_result`` (not over, points, wrong length, other teams), and as
                :meth:`record`.
        """
        m = self.match(match_id)
        rules = self.match_rules(m.id)
        if match.rules.scoring != "letters" or match.rules.losing_letters != rules.losing_letters:
            raise ScoreError("bad_result", f"Match {m.id} is played for letters to "
                             f"{spelled(rules, rules.losing_letters)}; the sheet plays "
                             f"{match.rules.scoring} to a different end.")
        if not match.over:
            raise ScoreError("bad_result", f"The sheet for match {m.id} is not finished.")
        if len(match.pairs) != 2:
            raise ScoreError("bad_result", f"Match {m.id} is two teams at one table (S2 row 2).")
        sides: list[int] = []
        for p in match.pairs:
            found = [i for i, t in enumerate(self.teams) if t.name.lower() == p.name.lower()
                     or {x.lower() for x in t.players} == {x.lower() for x in p.players}]
            if len(found) != 1 or found[0] not in m.teams:
                raise ScoreError("bad_result", f"The sheet's pair {p.name!r} is not one of match "
                                 f"{m.id}'s teams ({self.teams[m.teams[0]].name}, "
                                 f"{self.teams[m.teams[1]].name}).")
            sides.append(found[0])
        if sides[0] == sides[1]:
            raise ScoreError("bad_result", "The sheet lists one team twice.")
        letters = {self.teams[t].name: match.scores[i] for i, t in enumerate(sides)}
        tt = match.table_talk_loser
        return self.record(m.id, letters, loser=None if tt is None else self.teams[sides[tt]].name,
                           replace=replace)

    def withdraw(self, team: str | int) -> list[TournamentMatch]:
        """Withdraw a team: its unplayed matches become forfeits, won by the opponent (stated as
        forfeits); its played results stand. Returns the matches forfeited.

        Raises:
            ScoreError: ``unknown_team``, ``already_withdrawn``, ``event_over``.
        """
        i = self.team_index(team)
        if i in self.withdrawn:
            raise ScoreError("already_withdrawn", f"{self.teams[i].name} has already withdrawn.")
        if self.standings().champion is not None:
            raise ScoreError("event_over", "The event is over; nothing is left to withdraw from.")
        self.withdrawn.append(i)
        self.log.append({"action": "withdraw", "team": self.teams[i].name})
        forfeited = self._forfeit_pending()
        self._advance()
        return forfeited

    def _forfeit_pending(self) -> list[TournamentMatch]:
        out = []
        for m in self.matches:
            if m.decided:
                continue
            gone = [t for t in m.teams if t in self.withdrawn]
            if gone:
                m.status, m.table, m.forfeit_by = "forfeit", None, gone[0]
                m.loser = m.teams.index(gone[0])
                out.append(m)
        return out

    def _letters(self, m: TournamentMatch, letters: Sequence[int] | Mapping[str, int]
                 ) -> tuple[int, int]:
        if isinstance(letters, Mapping):
            got: dict[int, int] = {}
            for ref, n in letters.items():
                got[self._side(m, ref)] = n
            if set(got) != {0, 1}:
                raise ScoreError("bad_result", f"Match {m.id}: give the letters of both teams.")
            return got[0], got[1]
        if isinstance(letters, str) or not isinstance(letters, Sequence) or len(letters) != 2:
            raise ScoreError("bad_result", f"Match {m.id}: give two letter counts, home then away.")
        return letters[0], letters[1]

    def _side(self, m: TournamentMatch, ref: str | int) -> int:
        if isinstance(ref, int) and not isinstance(ref, bool) and ref in (0, 1):
            return ref
        i = self.team_index(ref)
        if i not in m.teams:
            raise ScoreError("unknown_team", f"{self.teams[i].name} does not play in match {m.id}.")
        return m.teams.index(i)

    # -- flow ------------------------------------------------------------------------------------
    def _advance(self) -> None:
        """Draw the final once both groups are decided; send waiting matches to free tables."""
        if len(self.groups) == 2 and not any(m.stage == "final" for m in self.matches):
            group_ms = [m for m in self.matches if m.stage == "group"]
            if all(m.decided for m in group_ms):
                st = self.standings()
                first = [rows[0] for rows in st.groups.values()]
                a, b = (self.team_index(r.team) for r in first)
                self.matches.append(TournamentMatch("F", "final", "", 0, (a, b)))
                self._forfeit_pending()
        self._assign_tables()

    def _assign_tables(self) -> None:
        busy_tables = {m.table for m in self.matches if m.status == "at_table"}
        busy_teams = {t for m in self.matches if m.status == "at_table" for t in m.teams}
        free = [t for t in range(1, self.tables + 1) if t not in busy_tables]
        for m in self.matches:
            if not free:
                break
            if m.status == "waiting" and not busy_teams & set(m.teams):
                m.status, m.table = "at_table", free.pop(0)
                busy_teams |= set(m.teams)

    # -- saving ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The whole tournament as JSON-ready data. What :meth:`from_dict` reads is the set-up
        (teams, tables, settings, seed) and the ``log``; ``schedule`` and ``standings`` are
        written for people and other programs and worked out again on load."""
        s = self.settings
        return {"format": FORMAT, "version": VERSION, "name": self.name, "seed": self.seed,
                "tables": self.tables,
                "settings": {"letters": s.letters, "fake_signals": s.fake_signals,
                             "go_start": s.go_start, "one_card": s.one_card},
                "teams": [{"name": t.name, "players": list(t.players)} for t in self.teams],
                "log": [dict(e) for e in self.log],
                "groups": {g: [self.teams[i].name for i in ids] for g, ids in self.groups.items()},
                "schedule": self.schedule(),
                "standings": self.standings().to_dict(self.teams)}

    @classmethod
    def from_dict(cls, data: object) -> Tournament:
        """Rebuild a tournament by registering its teams and replaying its log.

        Raises:
            ScoreError: ``bad_file`` for a malformed file; any refusal of a logged step, with
                the step's number.
        """
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise ScoreError("bad_file", f"Not a tournament file (format {FORMAT!r}).")
        if data.get("version") != VERSION:
            raise ScoreError("bad_file", f"This kemps reads tournament files version {VERSION}.")
        settings = data.get("settings", {})
        teams = data.get("teams")
        log = data.get("log", [])
        if not isinstance(settings, Mapping) or not isinstance(teams, list) or not isinstance(
                log, list):
            raise ScoreError("bad_file", "A tournament file has 'teams' (a list), 'settings' "
                             "(an object) and 'log' (a list).")
        unknown = [k for k in settings if k not in ("letters", "fake_signals", "go_start",
                                                    "one_card")]
        if unknown:
            raise ScoreError("bad_file", f"There is no setting {unknown[0]!r}.")
        built: list[Team | Sequence[str]] = []
        for t in teams:
            if not isinstance(t, Mapping) or not isinstance(t.get("players"), list):
                raise ScoreError("bad_file", "Each team is {\"name\": ..., \"players\": [a, b]}.")
            two = _team_of(t["players"])
            name = t.get("name", two.name)
            if not isinstance(name, str):
                raise ScoreError("bad_file", "A team's name is a text.")
            built.append(Team(name.strip(), two.players))
        tour = cls(built, tables=data.get("tables"), seed=data.get("seed", 0),
                name=data.get("name"), **dict(settings))
        for n, step in enumerate(log, start=1):
            if not isinstance(step, Mapping):
                raise ScoreError("bad_file", f"Log step {n} is not an object.")
            try:
                if step.get("action") == "record":
                    tour.record(step.get("match", ""), step.get("letters", ()),
                             loser=step.get("loser"), replace=bool(step.get("replace")))
                elif step.get("action") == "withdraw":
                    tour.withdraw(step.get("team", ""))
                else:
                    raise ScoreError("bad_file", f"unknown action {step.get('action')!r}.")
            except ScoreError as err:
                raise ScoreError(err.code, f"Log step {n}: {err.message}") from None
        return tour

    # -- standings -------------------------------------------------------------------------------
    def standings(self) -> Standings:
        """The standings now: each group ranked (S2 rows 4-5 and the project's further tie-breaks),
        every tie-break stated, the final and the champion once known."""
        notes: list[str] = []
        groups: dict[str, list[TeamStanding]] = {}
        all_done = True
        for g, ids in self.groups.items():
            ms = [m for m in self.matches if m.group == g and m.stage != "final"]
            done = all(m.decided for m in ms)
            all_done = all_done and done
            groups[g] = self._rank(g, ids, ms, done, notes)
        final = next((m for m in self.matches if m.stage == "final"), None)
        champion = None
        if final is not None and final.decided:
            champion = self.teams[final.winner_team() or 0].name
        elif len(self.groups) == 1 and all_done:
            champion = groups[""][0].team
        forfeits = [f"{m.id}: {self._result_text(m)}" for m in self.matches
                    if m.status == "forfeit"]
        rule = ("Ranked by matches won, then fewer letters taken over the event, then "
                "head-to-head (matches won between the teams still level), then a lot drawn from "
                f"seed {self.seed} once every match of the group is decided. A forfeit counts as "
                "a match won for the opponent, with no letters counted; a withdrawn team ranks "
                "below every team still in.")
        return Standings(groups, notes, rule, final, champion, champion is not None, forfeits)

    def _rank(self, g: str, ids: Sequence[int], ms: Sequence[TournamentMatch], done: bool,
              notes: list[str]) -> list[TeamStanding]:
        stats = {i: {"played": 0, "won": 0, "lost": 0, "fw": 0, "fl": 0, "letters": 0}
                 for i in ids}
        for m in ms:
            if not m.decided:
                continue
            w = m.winner_team()
            for side, t in enumerate(m.teams):
                s = stats[t]
                if m.status == "played":
                    s["played"] += 1
                    s["letters"] += (m.letters or (0, 0))[side]
                winner = t == w
                s["won" if winner else "lost"] += 1
                if m.status == "forfeit":
                    s["fw" if winner else "fl"] += 1
        label = f"Group {g}" if g else "The table"

        def key(i: int) -> tuple[bool, int, int]:
            return (i in self.withdrawn, -stats[i]["won"], stats[i]["letters"])

        # teams level on matches won, then split by letters, then by head-to-head and the lot
        by_wins: list[list[int]] = []
        for i in sorted(ids, key=lambda i: (key(i), i)):
            if by_wins and key(by_wins[-1][0])[:2] == key(i)[:2]:
                by_wins[-1].append(i)
            else:
                by_wins.append([i])
        ordered: list[tuple[list[int], str]] = []
        for same_wins in by_wins:
            blocks: list[list[int]] = []
            for i in same_wins:
                if blocks and key(blocks[-1][0]) == key(i):
                    blocks[-1].append(i)
                else:
                    blocks.append([i])
            won = stats[same_wins[0]]["won"]
            if len(blocks) > 1:
                detail = ", ".join(f"{self.teams[i].name} {stats[i]['letters']}"
                                   for i in same_wins)
                notes.append(f"{label}: {self._names(same_wins)} level on "
                             f"{_n(won, 'match', 'matches')} won; fewer letters over the event "
                             f"decides: {detail}.")
            for block in blocks:
                if len(block) == 1:
                    ordered.append((block, "fewer letters" if len(blocks) > 1 else ""))
                    continue
                level = (f"{self._names(block)} level on {_n(won, 'match', 'matches')} won and "
                         f"{_n(stats[block[0]]['letters'], 'letter', 'letters')}")
                ordered += self._head_to_head(block, ms, done, notes, f"{label}: {level}")
        rows: list[TeamStanding] = []
        pos = 1
        for block, note in ordered:
            for i in block:
                s = stats[i]
                team = self.teams[i]
                rows.append(TeamStanding(pos, team.name, team.players, g, s["played"], s["won"],
                                         s["lost"], s["fw"], s["fl"], s["letters"],
                                         i in self.withdrawn, note))
            pos += len(block)
        return rows

    def _head_to_head(self, block: list[int], ms: Sequence[TournamentMatch], done: bool,
                      notes: list[str], level: str) -> list[tuple[list[int], str]]:
        wins = dict.fromkeys(block, 0)
        for m in ms:
            if m.decided and set(m.teams) <= set(block):
                w = m.winner_team()
                if w is not None:
                    wins[w] += 1
        subs: list[list[int]] = []
        for i in sorted(block, key=lambda i: (-wins[i], i)):
            if subs and wins[subs[-1][0]] == wins[i]:
                subs[-1].append(i)
            else:
                subs.append([i])
        if len(subs) > 1:
            detail = ", ".join(f"{self.teams[i].name} {wins[i]}" for sub in subs for i in sub)
            if len(block) == 2:
                a, b = subs[0][0], subs[1][0]
                notes.append(f"{level}; head-to-head: {self.teams[a].name} beat "
                             f"{self.teams[b].name}.")
            else:
                notes.append(f"{level}; head-to-head wins among them: {detail}.")
            out: list[tuple[list[int], str]] = []
            for sub in subs:
                if len(sub) == 1:
                    out.append((sub, "head-to-head"))
                else:
                    out += self._head_to_head(sub, ms, done, notes,
                                              f"{self._names(sub)} still level")
            return out
        if not done:
            notes.append(f"{level} and head-to-head; they share a rank until the group is "
                         f"complete, then a lot drawn from seed {self.seed} decides.")
            return [(block, "level")]
        order = sorted(block, key=lambda i: self.teams[i].name)
        rng = random.Random(f"kemps-lot/{self.seed}/" + "/".join(self.teams[i].name
                                                                   for i in order))
        rng.shuffle(order)
        notes.append(f"{level} and head-to-head; order drawn by lot from seed {self.seed}: "
                     f"{', '.join(self.teams[i].name for i in order)}.")
        return [([i], "drawn lot") for i in order]

    def _names(self, ids: Sequence[int]) -> str:
        names = [self.teams[i].name for i in ids]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _n(k: int, one: str, many: str) -> str:
    return f"{k} {one if k == 1 else many}"


def _team_of(players: Sequence[str]) -> Team:
    if isinstance(players, str) or len(players) != 2 or not all(
            isinstance(p, str) and p.strip() for p in players):
        raise ScoreError("bad_team", "A team is two player names.")
    a, b = (p.strip() for p in players)
    return Team(f"{a} & {b}", (a, b))
