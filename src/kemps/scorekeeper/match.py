"""The scorekeeper: a match scored by hand at a real table, one short entry per hand.

Pure: no I/O (see :mod:`kemps.scorekeeper.sheet` for the scoresheet file). Every hand is scored by
the same rules as the online table (:mod:`kemps.scoring`). A hand that breaks the rules is refused
with a :class:`~kemps.errors.ScoreError` whose message starts ``"Hand N: "``, and nothing changes.

Use::

    m = Match([["Alice", "Cara"], ["Ben", "Dev"]], preset="squarescores")
    m.record({"call": "kemps", "by": "Alice", "right": True})   # Ben & Dev take K
    m.record({"call": "stop", "by": "Dev", "on": "Alice", "right": True})
    m.standings()   # smaller count in front, ties share a rank
    m.undo(); m.edit(1, {...}); m.delete(1); m.history

Seating: the first players of the pairs sit clockwise in pair order, then the second players, so
partners sit opposite (``[[Alice, Cara], [Ben, Dev]]`` seats Alice, Ben, Cara, Dev). Seating
matters only for ``stop_scope="opposite"``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from kemps.errors import Rejected, ScoreError
from kemps.rules import DEFAULT_PRESET, MAX_PAIRS, PRESETS, RuleSet, find_preset
from kemps.scoring import (
    Award,
    add_award,
    call_award,
    call_target,
    ends_hand,
    hands_limit_reached,
    needs_letters_to,
    pair_of,
    partner_of,
    rank_pairs,
    score_limit_reached,
    spelled,
)

#: The ``call`` values of a scoresheet hand, and the engine's call kind for each call.
SHEET_CALLS: Final[tuple[str, ...]] = ("kemps", "stop", "double", "double_stop", "real_deal",
                                       "table_talk")
_KIND: Final[dict[str, str]] = {"kemps": "kemps", "stop": "stop", "double": "double_kemps",
                                "double_stop": "double_stop"}
_FIELDS: Final[tuple[str, ...]] = ("call", "by", "on", "right", "letters_to", "note")
MAX_NAME: Final = 40
MAX_NOTE: Final = 200

Ref = str | int  # a player or pair name, or a pair index (0-based)


@dataclass(frozen=True, slots=True)
class Entry:
    """One hand as written on the scoresheet.

    ``call`` is one of :data:`SHEET_CALLS`; ``by`` the calling player; ``on`` a player or a pair
    (pair name or 0-based index); ``right`` whether the call was right; ``letters_to`` the pair
    that takes the letter in the open one-pair case; ``note`` free text. Fields a call does not need
    are ``None``.
    """

    call: str
    by: str | None = None
    on: Ref | None = None
    right: bool | None = None
    letters_to: Ref | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The sheet form: only the fields that are set."""
        return {k: getattr(self, k) for k in _FIELDS if getattr(self, k) is not None}

    @classmethod
    def parse(cls, data: Entry | Mapping[str, Any], number: int) -> Entry:
        """Read one hand of a sheet (``number`` is used in error messages).

        Raises:
            ScoreError: ``bad_hand`` for a hand that is not an object, an unknown field or call, or
                a field of the wrong type.
        """
        if isinstance(data, Entry):
            data = data.to_dict()
        where = f"Hand {number}"
        if not isinstance(data, Mapping):
            raise ScoreError("bad_hand", f"{where}: a hand is an object like "
                             '{"call": "kemps", "by": "Alice", "right": true}.')
        unknown = [k for k in data if k not in _FIELDS]
        if unknown:
            raise ScoreError("bad_hand", f"{where}: there is no field {unknown[0]!r}; a hand has "
                             f"{', '.join(_FIELDS)}.")
        call = data.get("call")
        if call not in SHEET_CALLS:
            raise ScoreError("bad_hand", f"{where}: call must be one of {', '.join(SHEET_CALLS)}, "
                             f"not {call!r}.")
        by, on, right = data.get("by"), data.get("on"), data.get("right")
        letters_to, note = data.get("letters_to"), data.get("note")
        if by is not None and not isinstance(by, str):
            raise ScoreError("bad_hand", f"{where}: 'by' is a player's name.")
        for key, value in (("on", on), ("letters_to", letters_to)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, str | int)):
                raise ScoreError("bad_hand", f"{where}: {key!r} is a player's or pair's name, or "
                                 "a pair number counting from 0.")
        if right is not None and not isinstance(right, bool):
            raise ScoreError("bad_hand", f"{where}: 'right' is true or false.")
        if note is not None and (not isinstance(note, str) or len(note) > MAX_NOTE):
            raise ScoreError("bad_hand", f"{where}: 'note' is a text of at most {MAX_NOTE} "
                             "characters.")
        return cls(call, by, on, right, letters_to, note)


@dataclass(frozen=True, slots=True)
class Pair:
    """A pair: its display name and its two players (partners sit opposite)."""

    name: str
    players: tuple[str, str]


@dataclass(frozen=True, slots=True)
class HandResult:
    """One recorded hand, scored.

    Attributes:
        number: 1-based position on the sheet ("Hand N").
        entry: the hand as written.
        caller: the calling player's name (``None`` for a real deal or an unattributed ruling).
        on_pair: the pair the call or ruling is about (``None`` for a real deal).
        on_player: the player a Kemps or a player-named Stop Kemps is on.
        given: ``((pair, amount), ...)``: letters taken (letters scoring) or points won.
        scores: every pair's letters or points after this hand.
        ends_hand: the hand ended here (a wrong call at an S4 table plays on).
        counts: a decided hand, counted toward an agreed number of hands (real deals never).
        ends_match: the match ended with this hand.
        text: one sentence for the history.
    """

    number: int
    entry: Entry
    caller: str | None
    on_pair: int | None
    on_player: str | None
    given: Award
    scores: tuple[int, ...]
    ends_hand: bool
    counts: bool
    ends_match: bool
    text: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``given`` as ``[[pair, amount], ...]``)."""
        d = dataclasses.asdict(self)
        d["entry"] = self.entry.to_dict()
        d["given"] = [list(g) for g in self.given]
        d["scores"] = list(self.scores)
        return d


@dataclass(frozen=True, slots=True)
class Standing:
    """One pair's line in the standings.

    ``score`` is letters (fewer is better) or points (more is better), as ``unit`` says;
    ``spelled`` is e.g. ``"K-E-M"`` (letters) or ``"3 points"``; ``rank`` is shared by equal
    scores; ``out`` marks the pair that spelled the word, or was ruled out for table talk.
    """

    pair: int
    name: str
    players: tuple[str, str]
    score: int
    unit: str
    spelled: str
    rank: int
    out: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        d = dataclasses.asdict(self)
        d["players"] = list(self.players)
        return d


@dataclass(frozen=True, slots=True)
class _State:
    scores: tuple[int, ...]
    decided: int = 0
    over_at: int | None = None  # hand number that ended the match
    loser: int | None = None  # table talk


class Match:
    """A match for 2-4 pairs scored hand by hand (S0 "SquareScores"), under any preset and options.

    Attributes (read only): ``preset`` (name), ``options`` (changes on top of it), ``rules`` (the
    resulting :class:`RuleSet`, ``pairs`` set from the pairs given), ``pairs`` (tuple of
    :class:`Pair`), ``title``, ``history`` (tuple of :class:`HandResult`).
    """

    def __init__(self, pairs: Sequence[Sequence[str] | Pair], preset: str = DEFAULT_PRESET,
                 options: Mapping[str, Any] | None = None, pair_names: Sequence[str | None]
                 | None = None, title: str | None = None) -> None:
        """Start a match.

        Args:
            pairs: each pair as its two player names (or a :class:`Pair`); 2 to 4 pairs (the
                rules allow up to 12: S1 "a larger even number of people").
            preset: a preset name or alias (``kemps presets``).
            options: rule options changed on top of the preset (``pairs`` is set from ``pairs``).
            pair_names: display names per pair (default ``"Alice & Cara"``).
            title: free text, e.g. the date and place.

        Raises:
            ScoreError: ``bad_sheet`` for bad pairs, names or title.
            RuleError: ``unknown_preset`` / ``bad_option`` for the rules.
        """
        if isinstance(pairs, str | bytes) or not isinstance(pairs, Sequence) or not (
                2 <= len(pairs) <= MAX_PAIRS):
            raise ScoreError("bad_sheet", f"Give 2 to {MAX_PAIRS} pairs, each a list of two "
                             "player names.")
        names = list(pair_names) if pair_names is not None else [None] * len(pairs)
        if len(names) != len(pairs):
            raise ScoreError("bad_sheet", "Give one pair name per pair.")
        built: list[Pair] = []
        for i, (p, name) in enumerate(zip(pairs, names)):
            if isinstance(p, Pair):
                players: Sequence[object] = p.players
                name = name or p.name
            else:
                players = p
            if (isinstance(players, str) or not isinstance(players, Sequence) or len(players) != 2
                    or not all(_good_name(x) for x in players)):
                raise ScoreError("bad_sheet", f"Pair {i}: give exactly two player names of 1 to "
                                 f"{MAX_NAME} characters.")
            two = (str(players[0]).strip(), str(players[1]).strip())
            if name is not None and not _good_name(name):
                raise ScoreError("bad_sheet", f"Pair {i}: a pair name is 1 to {MAX_NAME} "
                                 "characters.")
            built.append(Pair(name.strip() if name else f"{two[0]} & {two[1]}", two))
        everyone = [x.lower() for p in built for x in p.players]
        if len(set(everyone)) != len(everyone):
            raise ScoreError("bad_sheet", "Every player needs a different name.")
        pair_keys = [p.name.lower() for p in built]
        if len(set(pair_keys)) != len(pair_keys):
            raise ScoreError("bad_sheet", "Every pair needs a different name.")
        if any(k in everyone for k in pair_keys):
            raise ScoreError("bad_sheet", "A pair may not have the same name as a player.")
        if title is not None and (not isinstance(title, str) or len(title) > MAX_NOTE):
            raise ScoreError("bad_sheet", f"The title is a text of at most {MAX_NOTE} characters.")
        opts = dict(options or {})
        if "pairs" in opts and opts["pairs"] != len(built):
            raise ScoreError("bad_sheet", f"The options say {opts['pairs']!r} pairs but the sheet "
                             f"lists {len(built)}.")
        opts.pop("pairs", None)
        base = find_preset(preset)
        changes = dict(opts)
        if base.pairs != len(built):
            changes["pairs"] = len(built)
        rules = base.replace(**changes) if changes else base
        self.preset = base.name
        self.options: dict[str, Any] = opts
        self.rules: RuleSet = rules
        self.pairs: tuple[Pair, ...] = tuple(built)
        self.title = title
        self._results: list[HandResult] = []
        seat_names = [p.players[0] for p in built] + [p.players[1] for p in built]
        self._seat_names: tuple[str, ...] = tuple(seat_names)
        self._seats = {x.lower(): s for s, x in enumerate(seat_names)}
        self._pair_index = {p.name.lower(): i for i, p in enumerate(built)}

    @classmethod
    def from_rules(cls, rules: RuleSet, pairs: Sequence[Sequence[str] | Pair],
                   pair_names: Sequence[str | None] | None = None,
                   title: str | None = None) -> Match:
        """A match under a ready :class:`RuleSet` (e.g. a tournament's match rules): the preset is
        ``rules.name`` when it names one (else the default) and the options are the differences.

        Raises:
            ScoreError, RuleError: as for the constructor.
        """
        base = PRESETS.get(rules.name, find_preset(DEFAULT_PRESET))
        options = rules.differences(base)
        options.pop("pairs", None)
        return cls(pairs, preset=base.name, options=options, pair_names=pair_names, title=title)

    # -- reading -------------------------------------------------------------------------------
    @property
    def history(self) -> tuple[HandResult, ...]:
        """Every recorded hand, in order."""
        return tuple(self._results)

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every recorded hand as written."""
        return tuple(r.entry for r in self._results)

    @property
    def scores(self) -> tuple[int, ...]:
        """Letters (or points) per pair now."""
        return self._state().scores

    @property
    def over(self) -> bool:
        """True once a pair has spelled the word (or reached the target points, or the agreed
        number of hands is played, or a pair lost for table talk)."""
        return self._state().over_at is not None

    @property
    def decided_hands(self) -> int:
        """Hands decided so far (real deals and wrong calls that play on do not count)."""
        return self._state().decided

    @property
    def table_talk_loser(self) -> int | None:
        """The pair ruled out for table talk (it lost the match), or ``None``."""
        return self._state().loser

    def ranks(self) -> tuple[int, ...]:
        """Rank per pair (in pair order); equal scores share a rank; a table-talk loser is last."""
        st = self._state()
        return rank_pairs(self.rules, st.scores, st.loser)

    def standings(self) -> list[Standing]:
        """Every pair's line, best first (fewest letters / most points; ties share a rank and keep
        pair order)."""
        st = self._state()
        ranks = rank_pairs(self.rules, st.scores, st.loser)
        letters = self.rules.scoring == "letters"
        rows = []
        for i, p in enumerate(self.pairs):
            s = st.scores[i]
            # With an agreed number of hands nobody is out before the last one (S1 Peanut Butter).
            out = (i == st.loser) or (letters and not self.rules.hands
                                      and s >= self.rules.losing_letters)
            rows.append(Standing(i, p.name, p.players, s, "letters" if letters else "points",
                                 spelled(self.rules, s) if letters else f"{s} point"
                                 f"{'' if s == 1 else 's'}", ranks[i], out))
        return sorted(rows, key=lambda r: (r.rank, r.pair))

    def winners(self) -> tuple[int, ...]:
        """The pairs ranked first once the match is over (empty before)."""
        if not self.over:
            return ()
        return tuple(i for i, r in enumerate(self.ranks()) if r == 1)

    def summary(self) -> dict[str, Any]:
        """The standings as JSON-ready data: ``{"rules", "scoring", "hands", "decided_hands",
        "over", "ended_at", "winners", "standings": [...]}``."""
        st = self._state()
        return {"preset": self.preset, "options": dict(self.options),
                "scoring": self.rules.scoring,
                "word": self.rules.word, "losing_letters": self.rules.losing_letters,
                "target": self.rules.target, "hands": len(self._results),
                "decided_hands": st.decided, "over": st.over_at is not None,
                "ended_at": st.over_at,
                "winners": [self.pairs[i].name for i in self.winners()],
                "standings": [s.to_dict() for s in self.standings()]}

    # -- changing --------------------------------------------------------------------------------
    def record(self, entry: Entry | Mapping[str, Any]) -> HandResult:
        """Score one more hand and add it to the history.

        Raises:
            ScoreError: the hand breaks the rules (message ``"Hand N: ..."``): ``bad_hand``,
                ``unknown_player``, ``unknown_pair``, ``match_over``, ``not_your_partner``,
                ``own_pair``, ``not_opposite``, ``need_target``, ``calls_disabled``,
                ``need_letters_to``, ``bad_letters_to``, ``table_talk_allowed``. Nothing changes.
        """
        number = len(self._results) + 1
        result, _ = self._step(self._state(), Entry.parse(entry, number), number)
        self._results.append(result)
        return result

    def undo(self) -> HandResult:
        """Take back the last hand and return it.

        Raises:
            ScoreError: ``nothing_to_undo`` when no hand is recorded.
        """
        if not self._results:
            raise ScoreError("nothing_to_undo", "No hand has been recorded yet.")
        return self._results.pop()

    def edit(self, number: int, entry: Entry | Mapping[str, Any]) -> HandResult:
        """Replace hand ``number`` (1-based) and work out every total again.

        Raises:
            ScoreError: ``no_such_hand``; or the first hand the edit makes invalid (for example a
                hand after the match now ends), with its number. Nothing changes.
        """
        i = self._index(number)
        entries: list[Entry | Mapping[str, Any]] = list(self.entries)
        entries[i] = entry
        self._replace_all(entries, f"editing hand {number}")
        return self._results[i]

    def delete(self, number: int) -> HandResult:
        """Remove hand ``number`` (1-based; later hands move up) and work out the totals again.

        Raises:
            ScoreError: ``no_such_hand``, or a later hand the removal makes invalid. Nothing
                changes.
        """
        i = self._index(number)
        removed = self._results[i]
        entries: list[Entry | Mapping[str, Any]] = list(self.entries)
        del entries[i]
        self._replace_all(entries, f"removing hand {number}")
        return removed

    def replace_all(self, entries: Sequence[Entry | Mapping[str, Any]]) -> None:
        """Replace the whole history with ``entries`` (as when importing a sheet).

        Raises:
            ScoreError: the first hand that breaks the rules, with its number. Nothing changes.
        """
        self._replace_all(list(entries), None)

    # -- internals ---------------------------------------------------------------------------------
    def _index(self, number: int) -> int:
        if isinstance(number, bool) or not isinstance(number, int) or not (
                1 <= number <= len(self._results)):
            raise ScoreError("no_such_hand", f"There is no hand {number!r}; hands are numbered 1 "
                             f"to {len(self._results)}.")
        return number - 1

    def _replace_all(self, entries: list[Entry | Mapping[str, Any]], why: str | None) -> None:
        state = _State(tuple([0] * len(self.pairs)))
        results: list[HandResult] = []
        for n, raw in enumerate(entries, start=1):
            try:
                result, state = self._step(state, Entry.parse(raw, n), n)
            except ScoreError as err:
                if why is None:
                    raise
                raise ScoreError(err.code, f"{err.message} (after {why}; nothing was changed)"
                                 ) from None
            results.append(result)
        self._results = results

    def _state(self) -> _State:
        state = _State(tuple([0] * len(self.pairs)))
        for r in self._results:
            state = self._after(state, r)
        return state

    def _after(self, state: _State, r: HandResult) -> _State:
        loser = state.loser
        if r.entry.call == "table_talk":
            loser = r.on_pair
        return _State(r.scores, state.decided + int(r.counts),
                      r.number if r.ends_match else state.over_at, loser)

    def _step(self, state: _State, e: Entry, n: int) -> tuple[HandResult, _State]:
        where = f"Hand {n}"
        r = self.rules
        if state.over_at is not None:
            raise ScoreError("match_over", f"{where}: the match ended with hand {state.over_at}; "
                             "no hand can follow it.")
        if e.call == "real_deal":
            for key in ("by", "on", "right", "letters_to"):
                if getattr(e, key) is not None:
                    raise ScoreError("bad_hand", f"{where}: a real deal takes no {key!r}.")
            result = HandResult(n, e, None, None, None, (), state.scores, True, False, False,
                                f"{where}: real deal, nobody scores.")
            return result, self._after(state, result)
        if e.call == "table_talk":
            return self._table_talk(state, e, n)
        # a call
        if e.by is None:
            raise ScoreError("bad_hand", f"{where}: say who called ('by').")
        if e.right is None:
            raise ScoreError("bad_hand", f"{where}: say whether the call was right ('right': "
                             "true or false).")
        seat = self._seat(e.by, where)
        caller = self._seat_names[seat]
        kind = _KIND[e.call]
        word = {"kemps": r.call_word, "stop": r.stop_word, "double_kemps": r.double_call_word,
                "double_stop": r.double_stop_word}[kind]
        on_seat: int | None = None
        on_pair: int | None = None
        if e.on is not None:
            on_seat, on_pair = self._target(e.on, where)
        try:
            on_seat, resolved_pair = call_target(r, seat, kind, on_seat, on_pair)
        except Rejected as err:
            hint = ""
            if err.code == "not_your_partner":
                hint = f" ({caller}'s partner is {self._seat_names[partner_of(seat, r.pairs)]})"
            raise ScoreError(err.code, f"{where}: {caller}'s {word}: {err.message}{hint}"
                             ) from None
        own = pair_of(seat, r.pairs)
        letters_to = None if e.letters_to is None else self._pair_ref(e.letters_to, where,
                                                                      "letters_to")
        open_case = needs_letters_to(r, kind, e.right)
        try:
            award = call_award(r, own, kind, resolved_pair, e.right,
                               letters_to if open_case else None)
        except ScoreError as err:
            choices = ", ".join(f"{p.name!r} ({i})" for i, p in enumerate(self.pairs) if i != own)
            raise ScoreError(err.code, f"{where}: {caller}'s right {word}: {err.message} "
                             f"Choose one of {choices}.") from None
        if letters_to is not None and not open_case and award != ((letters_to, award[0][1]),):
            raise ScoreError("bad_letters_to", f"{where}: letters_to answers only the open case "
                             "(a right Kemps with 3+ pairs under right_kemps_letters: one_pair); "
                             f"here the rules give it to "
                             f"{', '.join(self.pairs[p].name for p, _ in award)}.")
        scores, given = add_award(r, state.scores, award)
        ends = ends_hand(r, e.right)
        decided = state.decided + int(ends)
        over = score_limit_reached(r, scores) or (ends and hands_limit_reached(r, decided))
        on_player = self._seat_names[on_seat] if on_seat is not None else None
        target = on_player or self.pairs[resolved_pair].name
        takes = "; ".join(self._took(p, a, scores[p]) for p, a in given)
        text = (f"{where}: {caller} calls {word} on {target}, "
                f"{'right' if e.right else 'wrong'}. {takes}."
                + ("" if ends else " Play goes on.") + (" Match over." if over else ""))
        result = HandResult(n, e, caller, resolved_pair, on_player, given, scores, ends, ends,
                            over, text)
        return result, self._after(state, result)

    def _table_talk(self, state: _State, e: Entry, n: int) -> tuple[HandResult, _State]:
        where = f"Hand {n}"
        if self.rules.table_talk != "forbidden":
            raise ScoreError("table_talk_allowed", f"{where}: table talk is allowed at this "
                             "table, so there is nothing to rule.")
        for key in ("right", "letters_to"):
            if getattr(e, key) is not None:
                raise ScoreError("bad_hand", f"{where}: a table-talk ruling takes no {key!r}.")
        if e.on is None:
            raise ScoreError("bad_hand", f"{where}: say which pair used table talk ('on': a "
                             "player or pair).")
        on_seat, on_pair = self._target(e.on, where)
        pair = on_pair if on_pair is not None else pair_of(on_seat or 0, self.rules.pairs)
        caller = self._seat_names[self._seat(e.by, where)] if e.by is not None else None
        text = (f"{where}: table talk ruled against {self.pairs[pair].name}, who lose the match "
                "(S1, S2). Match over.")
        result = HandResult(n, e, caller, pair, None, (), state.scores, True, False, True, text)
        return result, self._after(state, result)

    def _took(self, pair: int, amount: int, total: int) -> str:
        name = self.pairs[pair].name
        if self.rules.scoring == "letters":
            return (f"{name} take {'a letter' if amount == 1 else f'{amount} letters'} "
                    f"({spelled(self.rules, total)})")
        return f"{name} win {'a point' if amount == 1 else f'{amount} points'} ({total})"

    def _seat(self, name: str, where: str) -> int:
        seat = self._seats.get(name.strip().lower())
        if seat is None:
            raise ScoreError("unknown_player", f"{where}: nobody called {name!r} plays in this "
                             f"match; the players are {', '.join(self._seat_names)}.")
        return seat

    def _target(self, ref: Ref, where: str) -> tuple[int | None, int | None]:
        """A player name gives a seat; a pair name or index gives a pair."""
        if isinstance(ref, str) and ref.strip().lower() in self._seats:
            return self._seats[ref.strip().lower()], None
        return None, self._pair_ref(ref, where, "on")

    def _pair_ref(self, ref: Ref, where: str, key: str) -> int:
        if isinstance(ref, int):
            if not 0 <= ref < len(self.pairs):
                raise ScoreError("unknown_pair", f"{where}: {key!r} {ref} is no pair; pairs are "
                                 f"numbered 0 to {len(self.pairs) - 1}.")
            return ref
        k = ref.strip().lower()
        if k in self._pair_index:
            return self._pair_index[k]
        if k in self._seats:
            return pair_of(self._seats[k], self.rules.pairs)
        raise ScoreError("unknown_player", f"{where}: {ref!r} is neither a player nor a pair in "
                         "this match.")

    def seat_names(self) -> tuple[str, ...]:
        """Player names by seat (clockwise)."""
        return self._seat_names

    def __repr__(self) -> str:
        return (f"Match({[list(p.players) for p in self.pairs]!r}, preset={self.preset!r}, "
                f"hands={len(self._results)}, scores={self.scores})")


def _good_name(x: object) -> bool:
    return isinstance(x, str) and 0 < len(x.strip()) <= MAX_NAME


__all__ = ["SHEET_CALLS", "Entry", "HandResult", "Match", "Pair", "Standing"]
