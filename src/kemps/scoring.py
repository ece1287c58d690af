"""The scoring rules, as pure functions shared by the table engine and the scorekeeper.

Nothing here holds state or does I/O: the engine (:mod:`kemps.table`) and the scorekeeper
(:mod:`kemps.scorekeeper`) both call these, so a call scores the same at an online table and on a
paper scoresheet.

Seating (RULES-NOTES "Fixed by every seed"): seats ``0..2*pairs-1`` clockwise; seat ``s`` plays in
pair ``s % pairs``; its partner sits opposite at ``(s + pairs) % (2*pairs)``; its left is ``s + 1``.

Sources for each rule are named in the docstrings (S0 = seed 000 "SquareScores", S1 = Pagat,
S2 = seed 002, S4 = seed 004).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from kemps.errors import Rejected, ScoreError
from kemps.rules import RuleSet

CallKind = Literal["kemps", "stop", "double_kemps", "double_stop"]
CALL_KINDS: Final[tuple[str, ...]] = ("kemps", "stop", "double_kemps", "double_stop")

#: One award: ``(pair, amount)``; letters go to the pair that lost the hand, points to the winner.
Award = tuple[tuple[int, int], ...]


# -- seating ------------------------------------------------------------------------------------
def pair_of(seat: int, pairs: int) -> int:
    """The pair (``0..pairs-1``) that ``seat`` plays in."""
    return seat % pairs


def partner_of(seat: int, pairs: int) -> int:
    """The seat opposite ``seat``: its partner."""
    return (seat + pairs) % (2 * pairs)


def left_of(seat: int, pairs: int) -> int:
    """The next seat clockwise: the player on ``seat``'s left."""
    return (seat + 1) % (2 * pairs)


def seats_of(pair: int, pairs: int) -> tuple[int, int]:
    """The two seats of ``pair``."""
    return (pair, pair + pairs)


# -- whom a call is on ----------------------------------------------------------------------------
def call_target(rules: RuleSet, seat: int, kind: str, on_seat: int | None = None,
                on_pair: int | None = None) -> tuple[int | None, int]:
    """Check a call and say whom it is on: ``(on_seat, on_pair)``.

    Kemps and Double Kemps are on the caller's partner (S0 "You never call Kemps for your own
    hand"): the result is ``(partner, own pair)``. Stop Kemps names a player when
    ``stop_target="player"`` (S0, S4) and a pair otherwise (S1, S2; ``on_seat`` is then ``None``);
    with two pairs the opposing pair may be left out. Double Stop Kemps always names a pair (S4
    "double counter kemps" on both opponents). ``stop_scope="opposite"`` allows only the pair
    opposite (S0 "others only on the pair opposite"; :func:`opposite_pair`, a mutual relation).

    Raises:
        Rejected: ``bad_action`` (unknown call kind, a target that is not a whole number, no such
            pair), ``calls_disabled`` (a double
            call where ``double_calls`` is off), ``not_your_partner``, ``no_such_seat``,
            ``need_target``, ``own_pair``, ``not_opposite``.
    """
    pairs = rules.pairs
    if kind not in CALL_KINDS:
        raise Rejected("bad_action", f"Unknown call {kind!r}.")
    if kind in ("double_kemps", "double_stop") and not rules.double_calls:
        raise Rejected("calls_disabled", "Double calls are not played at this table.")
    for name, value in (("on_seat", on_seat), ("on_pair", on_pair)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise Rejected("bad_action", f"{name} must be a whole number.")
    own = pair_of(seat, pairs)
    partner = partner_of(seat, pairs)
    if kind in ("kemps", "double_kemps"):
        if (on_seat is not None and on_seat != partner) or (on_pair is not None and on_pair != own):
            raise Rejected("not_your_partner", f"{rules.call_word} is called only on the "
                           "caller's partner.")
        return partner, own
    if on_seat is not None and not 0 <= on_seat < 2 * pairs:
        raise Rejected("no_such_seat", f"There is no seat {on_seat} at this table.")
    if on_pair is not None and not 0 <= on_pair < pairs:
        raise Rejected("bad_action", f"There is no pair {on_pair} at this table.")
    if rules.stop_target == "player" and kind == "stop":
        if on_seat is None:
            raise Rejected("need_target", f"Name the player {rules.stop_word} is called on.")
        if on_pair is not None and on_pair != pair_of(on_seat, pairs):
            raise Rejected("bad_action", "That player is not in that pair.")
        on_pair = pair_of(on_seat, pairs)
    else:
        if on_pair is None and on_seat is not None:
            on_pair = pair_of(on_seat, pairs)
        if on_pair is None:
            if pairs != 2:
                raise Rejected("need_target", f"Name the pair {rules.stop_word} is called on.")
            on_pair = 1 - own
        on_seat = None
    if on_pair == own:
        raise Rejected("own_pair", f"{rules.stop_word} cannot be called on the caller's own "
                       "pair.")
    if rules.stop_scope == "opposite" and on_pair != opposite_pair(own, pairs):
        raise Rejected("not_opposite", f"At this table {rules.stop_word} is called only on the "
                       "pair opposite.")
    return on_seat, on_pair


def opposite_pair(pair: int, pairs: int) -> int:
    """The pair opposite ``pair`` (S0, six or eight players: "others only on the pair opposite").

    A pair's two players sit on one line across the table (seats ``p`` and ``p + pairs``); the
    pair opposite sits on the line at right angles to it, a quarter of the way round:
    ``(pair + pairs/2) % pairs``. The relation is mutual (RULES-NOTES: "if pair A may stop pair
    B, B may stop A") and needs an even number of pairs; with two pairs it is the other pair.
    """
    return (pair + pairs // 2) % pairs


def stop_targets(rules: RuleSet, seat: int, kind: str = "stop") -> list[tuple[int | None, int]]:
    """Every ``(on_seat, on_pair)`` that a Stop call of ``kind`` by ``seat`` may name now, by
    :func:`call_target` itself: players when Stop names a player, else pairs. Empty for a kind
    the table does not play."""
    pairs = rules.pairs
    out: list[tuple[int | None, int]] = []
    by_player = rules.stop_target == "player" and kind == "stop"
    for target in range(2 * pairs if by_player else pairs):
        try:
            if by_player:
                out.append(call_target(rules, seat, kind, on_seat=target))
            else:
                out.append(call_target(rules, seat, kind, on_pair=target))
        except Rejected:
            continue
    return out


def needs_letters_to(rules: RuleSet, kind: str, right: bool) -> bool:
    """True for the case the seeds leave open: a right (Double) Kemps with three or more pairs
    under ``right_kemps_letters="one_pair"`` and letters scoring (S0 gives "exactly one letter" but
    names no pair). The scorekeeper asks which pair; an online table gives it to the pair of the
    player on the caller's left (RULES-NOTES "Cases the seeds leave open")."""
    return (rules.scoring == "letters" and right and kind in ("kemps", "double_kemps")
            and rules.pairs > 2 and rules.right_kemps_letters == "one_pair")


# -- who takes what -------------------------------------------------------------------------------
def call_award(rules: RuleSet, caller_pair: int, kind: str, on_pair: int, right: bool,
               letters_to: int | None = None) -> Award:
    """Who takes what for one judged call: ``((pair, amount), ...)`` in pair order.

    Letters (S0 table, S2 "Calling Kemps and Stop Kemps"): a wrong call of either kind is a letter
    to the caller's pair; a right Stop Kemps is a letter to the pair stopped; a right Kemps is a
    letter to every other pair (S1, S2) or, under ``right_kemps_letters="one_pair"`` with three or
    more pairs, to the one pair ``letters_to`` (S0; see :func:`needs_letters_to`). Points (S0
    "Points instead of letters", S4): a right call is a point to the caller's pair; a wrong Stop
    Kemps is a point to the pair accused; a wrong Kemps is a point to every other pair
    (RULES-NOTES "Points with three or more pairs"). Double calls score ``double_right`` if right
    and ``double_wrong`` if wrong (S0: 2 and 2; S4: 2 and 1); every other call scores 1.

    Raises:
        ScoreError: ``need_letters_to`` when the open case needs ``letters_to`` and it is missing;
            ``bad_letters_to`` when ``letters_to`` is the caller's own pair or no pair at all.
    """
    pairs = rules.pairs
    double = kind in ("double_kemps", "double_stop")
    amount = (rules.double_right if right else rules.double_wrong) if double else 1
    is_kemps = kind in ("kemps", "double_kemps")
    others = [p for p in range(pairs) if p != caller_pair]
    if rules.scoring == "letters":
        if not right:
            takers = [caller_pair]
        elif not is_kemps:
            takers = [on_pair]
        elif needs_letters_to(rules, kind, right):
            if letters_to is None:
                raise ScoreError("need_letters_to", "Which pair takes the letter? At this table "
                                 "a right call gives one letter to one other pair (S0); "
                                 "answer with letters_to.")
            if not 0 <= letters_to < pairs or letters_to == caller_pair:
                raise ScoreError("bad_letters_to", "The letter for a right call goes to another "
                                 "pair at the table, not the caller's own.")
            takers = [letters_to]
        else:
            takers = others
    elif right:
        takers = [caller_pair]
    elif is_kemps:
        takers = others
    else:
        takers = [on_pair]
    return tuple((p, amount) for p in takers)


def add_award(rules: RuleSet, scores: Sequence[int], award: Award
              ) -> tuple[tuple[int, ...], Award]:
    """New scores after ``award``, and what each pair was actually given.

    Letters stop at the count that loses (a pair cannot hold more than the word; S0 "the app ends
    the match the moment a pair reaches five letters"); points are not capped, and neither are
    letters when an agreed number of hands is played (S1 Peanut Butter: every hand is played and
    the letters count the hands each pair lost).
    """
    new = list(scores)
    given: list[tuple[int, int]] = []
    for pair, amount in award:
        total = new[pair] + amount
        if rules.scoring == "letters" and not rules.hands:
            total = min(total, rules.losing_letters)
        given.append((pair, total - new[pair]))
        new[pair] = total
    return tuple(new), tuple(given)


def score_limit_reached(rules: RuleSet, scores: Sequence[int]) -> bool:
    """True when a pair has spelled the word (or the ``target`` letters) or reached the target
    points: the match ends at once (S0 "Ending"; S4 "The first one to five points wins"). Never
    when an agreed number of hands is played: S1 Peanut Butter "The two teams agree beforehand
    how many hands should be played", so every one is played and only then is the match decided
    (:func:`hands_limit_reached`)."""
    if rules.hands:
        return False
    limit = rules.losing_letters if rules.scoring == "letters" else rules.target
    return bool(limit) and any(s >= limit for s in scores)


def hands_limit_reached(rules: RuleSet, decided_hands: int) -> bool:
    """True when an agreed number of hands has been played (S2 Peanut Butter); real deals do not
    count as hands (RULES-NOTES)."""
    return bool(rules.hands) and decided_hands >= rules.hands


def ends_hand(rules: RuleSet, right: bool) -> bool:
    """Whether a judged call ends the hand: always when right; when wrong unless the table plays
    on (S4, ``wrong_call_ends_round=False``)."""
    return right or rules.wrong_call_ends_round


def rank_pairs(rules: RuleSet, scores: Sequence[int], loser: int | None = None
               ) -> tuple[int, ...]:
    """Rank per pair: fewest letters (or most points) first, equal scores sharing a rank (S0 "the
    others are ranked by their letters"); a pair ruled out for table talk ranks last (S1, S2)."""
    sign = 1 if rules.scoring == "letters" else -1
    keys = [(p == loser, sign * s) for p, s in enumerate(scores)]
    return tuple(1 + sum(1 for k in keys if k < mine) for mine in keys)


def spelled(rules: RuleSet, letters: int) -> str:
    """The letters a pair holds, spelled: ``"K-E-M"`` for 3 under KEMPS; ``"-"`` for none."""
    return "-".join(rules.word[:letters]) or "-"
