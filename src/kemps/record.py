"""The canonical match record: rules, seating, deals and timed actions, replayable exactly.

Format (documented in ``docs/record-format.md``)::

    {"format": "kemps-match", "version": 1,
     "rules": {...every RuleSet option...},
     "names": ["Alice", "Ben", "Cara", "Dev"], "first_dealer": 0,
     "actions": [{"t": 0.0, "type": "deal", "order": ["7H", ...], "reshuffle_seed": 5}, ...,
                 {"t": 1.25, "type": "swap", "seat": 2, "take": ["7C"], "give": ["6C"]}],
     "end": 63.5, "meta": {...free-form...}}

Only accepted actions are recorded (a rejection changes nothing). Timers fire from the times alone
(each timer event is stamped with its deadline), so replaying the actions in order, then advancing
to ``end``, reproduces the same events.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from kemps.actions import Action, action_from_dict, action_to_dict
from kemps.errors import KempsError, RecordError
from kemps.events import (
    Called,
    CallJudged,
    Event,
    HandDealt,
    HandEnded,
    MatchEnded,
    Scored,
    TableTalkRuled,
)
from kemps.json_input import JSONInputError, parse_json
from kemps.rules import RuleSet
from kemps.table import Table
from kemps.views import letters_text

FORMAT: Final = "kemps-match"
VERSION: Final = 1


@dataclass
class MatchRecord:
    """A match as data. ``actions`` are ``(t, action)`` pairs in the order applied; ``end`` is the
    last table time the driver advanced to (None: the last action's time)."""

    rules: RuleSet
    names: tuple[str, ...]
    first_dealer: int = 0
    actions: list[tuple[float, Action]] = field(default_factory=list)
    end: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form (see the module docstring)."""
        return {"format": FORMAT, "version": VERSION, "rules": self.rules.to_dict(record=True),
                "names": list(self.names), "first_dealer": self.first_dealer,
                "actions": [{"t": t, **action_to_dict(a)} for t, a in self.actions],
                "end": self.end, "meta": self.meta}

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text (one action per line when ``indent`` is None)."""
        if indent is not None:
            return json.dumps(self.to_dict(), indent=indent)
        d = self.to_dict()
        actions = d.pop("actions")
        head = json.dumps(d)[:-1]
        lines = ",\n  ".join(json.dumps(a, separators=(",", ":")) for a in actions)
        return f'{head}, "actions": [\n  {lines}\n]}}\n'

    @classmethod
    def from_dict(cls, data: Any) -> MatchRecord:
        """Read the JSON-ready form: a record, or a finished match as the server's
        ``GET /api/history/{id}`` answers it (``{"id", ..., "record": {...}}``), as it comes.

        Raises:
            RecordError: ``bad_record`` naming what is wrong (format, version, rules, an action's
                index and its problem); a record of a newer format version says so.
        """
        if (isinstance(data, dict) and "format" not in data and isinstance(data.get("record"), dict)
                and data["record"].get("format") == FORMAT):
            data = data["record"]  # a finished match from the history API
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError("bad_record", f"Not a kemps match record (format must be {FORMAT!r}, "
                              "or a finished match from /api/history/ID).")
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
            raise RecordError("bad_record", f"This record is format version {version}, newer than "
                              f"this kemps reads ({VERSION}): update kemps to replay it.")
        if version != VERSION or isinstance(version, bool):
            raise RecordError("bad_record", f"'version' must be the number {VERSION}, not "
                              f"{version!r}.")
        try:
            rules = RuleSet.from_dict(data.get("rules", {}))
        except KempsError as err:
            raise RecordError("bad_record", f"Rules: {err.message}") from None
        names = data.get("names")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise RecordError("bad_record", "'names' must be a list of player names.")
        actions: list[tuple[float, Action]] = []
        raw = data.get("actions")
        if not isinstance(raw, list):
            raise RecordError("bad_record", "'actions' must be a list.")
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise RecordError("bad_record", f"Action {i} is not an object.")
            item = dict(item)
            t = item.pop("t", None)
            if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
                raise RecordError("bad_record", f"Action {i} has no time 't' in seconds.")
            if actions and t < actions[-1][0]:
                raise RecordError("bad_record", f"Action {i} at {t:g}s comes before the action "
                                  f"ahead of it ({actions[-1][0]:g}s): times never decrease.")
            try:
                actions.append((float(t), action_from_dict(item)))
            except KempsError as err:
                raise RecordError("bad_record", f"Action {i}: {err.message}") from None
        end = data.get("end")
        if end is not None and (isinstance(end, bool) or not isinstance(end, int | float)
                                or not math.isfinite(end)):
            raise RecordError("bad_record", "'end' must be null or a time in seconds.")
        first = data.get("first_dealer", 0)
        meta = data.get("meta") or {}
        return cls(rules, tuple(names), first if isinstance(first, int) else -1, actions,
                   None if end is None else float(end), meta if isinstance(meta, dict) else {})

    @classmethod
    def from_json(cls, text: str) -> MatchRecord:
        """Parse JSON text. Raises :class:`RecordError` (``bad_record``) on bad JSON (also a key
        given twice in one object: :func:`kemps.json_input.parse_json`) or data."""
        try:
            data = parse_json(text)
        except JSONInputError as err:
            raise RecordError("bad_record", err.message) from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> MatchRecord:
        """Read a record file. Raises :class:`RecordError` when unreadable or malformed."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as err:
            raise RecordError("bad_record", f"Cannot read {path}: {err.strerror}.") from None
        except UnicodeDecodeError:
            raise RecordError("bad_record", f"{path} is not a text file (a record is UTF-8 "
                              "JSON).") from None
        return cls.from_json(text)

    def save(self, path: str | Path) -> None:
        """Write the record as JSON text.

        Raises:
            RecordError: ``bad_record`` when the file cannot be written (with the reason).
        """
        try:
            Path(path).write_text(self.to_json(), encoding="utf-8")
        except OSError as err:
            raise RecordError("bad_record", f"Cannot write {path}: {err.strerror}.") from None


class Recorder:
    """A table plus its growing record: apply and advance through it, and every accepted action is
    written down with its time."""

    def __init__(self, rules: RuleSet, names: Iterable[str] | None = None, first_dealer: int = 0,
                 meta: dict[str, Any] | None = None) -> None:
        self.table = Table(rules, list(names) if names is not None else None, first_dealer)
        self.record = MatchRecord(rules, self.table.names, first_dealer, meta=dict(meta or {}))

    def apply(self, action: Action, now: float) -> list[Event]:
        """:meth:`Table.apply`, recording the action when accepted (raises ``Rejected`` else).

        The record keeps the time the table applied it at (:attr:`Table.clock`): an action stamped
        earlier than the table's clock is applied, and recorded, at the clock, so the record's
        times never decrease and a record of accepted actions always replays."""
        events = self.table.apply(action, now)
        self.record.actions.append((self.table.clock, action))
        return events

    def advance(self, now: float) -> list[Event]:
        """:meth:`Table.advance`, remembering ``now`` as the record's end time (only advancing
        moves ``end``: replay advances to it, so it must not fire a timer the table did not)."""
        events = self.table.advance(now)
        end = max(now, self.table.clock)
        self.record.end = end if self.record.end is None else max(end, self.record.end)
        return events


@dataclass
class Replay:
    """A replayed match: the table at the end and every event, in order."""

    table: Table
    events: list[Event]


def replay_steps(record: MatchRecord, table: Table) -> Iterator[list[Event]]:
    """Apply ``record``'s actions to ``table`` (fresh, seated as the record says) one by one,
    yielding each action's events as it is applied, then those of advancing to ``record.end``:
    the one replay loop (:func:`replay`, the tell, the replay page).

    Raises:
        RecordError: ``bad_record`` naming the index of an action the table rejects.
    """
    for i, (t, action) in enumerate(record.actions):
        try:
            events = table.apply(action, t)
        except KempsError as err:
            raise RecordError("bad_record", f"Action {i} at {t:g}s was rejected: {err.code}: "
                              f"{err.message}") from None
        yield events
    if record.end is not None:
        yield table.advance(record.end)


def replay(record: MatchRecord) -> Replay:
    """Apply every action of ``record`` to a fresh table, then advance to ``record.end``.

    Raises:
        RecordError: ``bad_record`` when the seating is wrong or an action is rejected (naming its
            index and the rejection), i.e. the record does not describe a legal match.
    """
    try:
        table = Table(record.rules, record.names, record.first_dealer)
    except KempsError as err:
        raise RecordError("bad_record", f"Seating: {err.message}") from None
    events: list[Event] = []
    for batch in replay_steps(record, table):
        events += batch
    return Replay(table, events)


def match_summary(table: Table, events: Iterable[Event]) -> dict[str, Any]:
    """Per-hand results and the final standing, as JSON-ready data.

    Shape: ``{"rules": name, "pairs": [{"pair": 0, "players": [...], "score": 3, "spelled":
    "K-E-M", "rank": 1}], "hands": [{"hand": 1, "dealer": 0, "ended": "call", "calls": [{"by":
    "Alice", "seat": 0, "kind": "kemps", "on_seat": 2, "on_pair": 0, "right": true}], "scored":
    [{"pair": 1, "amount": 1, "total": 1}]}], "over": true, "winners": [0]}``.
    """
    r = table.rules
    hands: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    pending_call: Called | None = None
    for e in events:
        if isinstance(e, HandDealt):
            current = {"hand": e.hand_no, "dealer": e.dealer, "dealer_name": table.name_of(e.dealer),
                       "ended": None, "calls": [], "scored": []}
            hands.append(current)
        elif current is None:
            continue
        elif isinstance(e, Called):
            pending_call = e
        elif isinstance(e, CallJudged) and pending_call is not None:
            c = pending_call
            current["calls"].append({
                "by": table.names[c.seat], "seat": c.seat, "kind": c.kind,
                "on_seat": c.on_seat, "on": table.names[c.on_seat] if c.on_seat is not None
                else None, "on_pair": c.on_pair, "right": e.right})
            pending_call = None
        elif isinstance(e, Scored):
            current["scored"].append({"pair": e.pair, "amount": e.amount, "total": e.total})
        elif isinstance(e, TableTalkRuled):
            current["table_talk"] = e.pair
        elif isinstance(e, HandEnded):
            current["ended"] = e.reason
    over = table.phase == "over"
    ranks = table.ranks
    pairs = [{"pair": p, "players": [table.names[s] for s in table.seats_of(p)],
              "score": table.scores[p],
              "spelled": letters_text(r.word, table.scores[p]) if r.scoring == "letters"
              else str(table.scores[p]),
              "rank": None if ranks is None else ranks[p]} for p in range(table.pairs)]
    return {"rules": r.name, "scoring": r.scoring, "word": r.word, "pairs": pairs,
            "hands": hands, "over": over,
            "winners": [p for p in range(table.pairs) if ranks is not None and ranks[p] == 1]}


def ended_match(events: Iterable[Event]) -> MatchEnded | None:
    """The MatchEnded event among ``events``, if any."""
    for e in events:
        if isinstance(e, MatchEnded):
            return e
    return None
