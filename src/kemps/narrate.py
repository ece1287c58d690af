"""Plain-English lines for events, for match logs (``kemps run``, ``kemps replay``).

Narration goes through :func:`kemps.views.event_for` like every other output: by default it tells
what a spectator may know; ``omniscient=True`` (a simulation's own log) also shows the dealt hands.
"""

from __future__ import annotations

from kemps.cards import cards_text
from kemps.events import (
    Called,
    CallJudged,
    CallVoid,
    Chatted,
    Discarded,
    Event,
    Gestured,
    GestureSeen,
    Grabbed,
    HandDealt,
    HandEnded,
    HoldExpired,
    Looked,
    MatchEnded,
    Moved,
    Objected,
    ObjectionLapsed,
    PlayOpened,
    Revealed,
    Scored,
    SignalsAgreed,
    SignalsDeclined,
    SignalsProposed,
    StallCancelled,
    StallProposed,
    StallResumed,
    StockReshuffled,
    Swapped,
    Swept,
    TableTalkRuled,
)
from kemps.gestures import PALETTE
from kemps.table import Table
from kemps.views import event_for, letters_text

_ORDINAL = {1: "first", 2: "second", 3: "third"}


def pair_name(table: Table, pair: int) -> str:
    """``"Alice and Cara"``."""
    a, b = table.seats_of(pair)
    return f"{table.names[a]} and {table.names[b]}"


def signals_said(signals: tuple[str, ...]) -> str:
    """Signals as a line names them, a heard one marked as such: ``"nod or whistle (whistle is
    heard: everyone at the table hears it)"`` (a heard signal reaches every seat, the other pairs'
    too, wherever they look; S0 "a blink, a cough, a word")."""
    said = " or ".join(name.replace("_", " ") for name in signals)
    heard = [name.replace("_", " ") for name in signals if PALETTE[name].kind == "heard"]
    if heard:
        one = len(heard) == 1
        said += (f" ({' and '.join(heard)} {'is' if one else 'are'} heard: everyone at the table "
                 f"hears {'it' if one else 'them'})")
    return said


def describe(table: Table, event: Event, omniscient: bool = False,
             seat: int | None = None, as_seen: bool = False) -> str | None:
    """One line for ``event`` (None for events not worth a line), as ``seat`` may see it (None: a
    spectator) unless ``omniscient``; ``as_seen``: ``event`` is already what the viewer was told
    (redacted by :mod:`kemps.views`, e.g. for a spectator's own look), so it is worded as it is.
    ``table`` supplies names and rules (its current state is not read). The server sends these
    lines with each event, so every screen words a move alike."""
    e = event if omniscient or as_seen else event_for(event, seat, table.pairs)
    if e is None:
        return None
    names, r = table.names, table.rules
    call_words = {"kemps": r.call_word, "stop": r.stop_word,
                  "double_kemps": r.double_call_word, "double_stop": r.double_stop_word}
    if isinstance(e, HandDealt):
        line = f"Hand {e.hand_no}: {table.name_of(e.dealer)} deals."
        if omniscient:
            line += " " + "; ".join(f"{names[s]} {cards_text(h)}" for s, h in enumerate(e.hands))
        return line
    if isinstance(e, PlayOpened):
        return f"Middle: {cards_text(e.middle)}. Play!"
    if isinstance(e, Swapped):
        return f"{names[e.seat]} takes {cards_text(e.took)}, throws {cards_text(e.gave)}."
    if isinstance(e, Grabbed):
        return f"{names[e.seat]} picks up {cards_text(e.took)}."
    if isinstance(e, Discarded):
        return f"{names[e.seat]} throws {cards_text(e.gave)}."
    if isinstance(e, HoldExpired):
        return f"{names[e.seat]} held too long; {cards_text(e.returned)} goes back."
    if isinstance(e, StallProposed):
        proposer = table.name_of(e.seat)
        if e.deadline is None:
            return f"{proposer} agrees to a fresh middle ({e.agreed} of {table.n})."
        who = f"{proposer} (dealer, nothing moving)" if e.auto else proposer
        return f"{who} says the middle has stalled."
    if isinstance(e, Objected):
        return f"{names[e.seat]} objects."
    if isinstance(e, ObjectionLapsed):
        return f"{names[e.seat]}'s objection lapses."
    if isinstance(e, StallResumed):
        return "The countdown starts again."
    if isinstance(e, StallCancelled):
        return "The middle changed; agreement to sweep lapses."
    if isinstance(e, Swept):
        if all(c is None for c in e.middle):
            return f"Swept {cards_text(e.swept)}; the stock is empty."
        return f"Swept {cards_text(e.swept)}; new middle {cards_text(e.middle)} " \
               f"({e.stock_count} left)."
    if isinstance(e, StockReshuffled):
        return f"The swept cards are shuffled into a new stock of {e.stock_count}."
    if isinstance(e, Gestured):
        return f"{names[e.seat]} {PALETTE[e.gesture].label}."
    if isinstance(e, Moved):
        return f"{names[e.seat]} moves."
    if isinstance(e, Looked):
        where = {"middle": "the middle", "hand": "their cards"}
        at = where[e.at] if isinstance(e.at, str) else names[e.at]
        return f"{names[e.seat]} looks at {at}."
    if isinstance(e, GestureSeen):
        who = "A spectator" if e.by is None else names[e.by]
        return f"{who} glances at {names[e.seat]}, who {PALETTE[e.gesture].label}."
    if isinstance(e, Chatted):
        return f"{names[e.seat]}: \u201c{e.text}\u201d"
    if isinstance(e, SignalsAgreed):
        return f"{pair_name(table, e.pair)} agree a signal: {signals_said(e.signals)}."
    if isinstance(e, SignalsProposed):
        return f"{names[e.seat]} proposes a new signal: {signals_said(e.signals)}."
    if isinstance(e, SignalsDeclined):
        return f"{names[e.seat]} keeps the pair's signal: the proposal is off."
    if isinstance(e, Called):
        if e.kind in ("kemps", "double_kemps"):
            on = names[e.on_seat] if e.on_seat is not None else "?"
        elif e.on_seat is not None:
            on = names[e.on_seat]
        else:
            on = pair_name(table, e.on_pair if e.on_pair is not None else 0)
        return f"{names[e.seat]} calls \u201c{call_words[e.kind]}!\u201d on {on}."
    if isinstance(e, CallVoid):
        return f"{names[e.held_by]} is holding five cards: the call does not count."
    if isinstance(e, Revealed):
        return f"{names[e.seat]} shows {cards_text(e.cards)}."
    if isinstance(e, CallJudged):
        return "Right!" if e.right else "Wrong!"
    if isinstance(e, Scored):
        if e.unit == "letter":
            return f"{pair_name(table, e.pair)} take {e.amount} letter{'s' * (e.amount > 1)}: " \
                   f"{letters_text(r.word, e.total)}."
        return f"{pair_name(table, e.pair)} score {e.amount}: {e.total} point" \
               f"{'s' * (e.total != 1)}."
    if isinstance(e, TableTalkRuled):
        return f"Table talk by {pair_name(table, e.pair)}: they lose the match."
    if isinstance(e, HandEnded):
        if e.reason == "real_deal":
            return f"Real deal: hand {e.hand_no} ends with no letter."
        return None
    if isinstance(e, MatchEnded):
        order = sorted(range(table.pairs), key=lambda p: e.ranks[p])
        unit = "letters" if r.scoring == "letters" else "points"
        parts = [f"{e.ranks[p]}. {pair_name(table, p)} ({e.scores[p]} {unit})" for p in order]
        return "Match over. " + "  ".join(parts)
    return None
