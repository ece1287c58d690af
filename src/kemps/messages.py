"""The events part of each per-seat message: what a seat, or a spectator, is told of events.

Pure, beside :mod:`kemps.views` (which decides what a seat may see): :func:`events_out` takes a
seat's events from :func:`kemps.views.events_for` (a spectator's from
:func:`kemps.views.spectator_events_for`), gives each its JSON form and its plain sentence
(:func:`kemps.narrate.describe`), and applies the spectator's hold rule (:func:`held_sight`).
The server builds every ``update`` from it; nothing here knows a socket or a clock.
"""

from __future__ import annotations

import json
from typing import Any

from kemps.actions import LookAt
from kemps.events import Event, Gestured, GestureSeen, Moved, event_to_dict
from kemps.narrate import describe
from kemps.table import Table
from kemps.views import SeatView, events_for, referee_events_for, spectator_events_for


def held_sight(event: Event) -> tuple[bool, Event | None]:
    """The spectator's hold rule at an attention table, for one event it may see.

    Returns ``(held, now)``: ``held`` True when the event is a sight of a gesture (a seen
    :class:`~kemps.events.Gestured` its look caught, ``seen_by`` not None, or a
    :class:`~kemps.events.GestureSeen` glance) to be told only when the hand ends; ``now`` is
    what the spectator is told at once instead: a seen gesture's :class:`~kemps.events.Moved`
    (the movement everyone saw), None for a glance (its movement was told when it was made), the
    event itself when nothing is held (a heard gesture, a movement, anything else).

    Why: told at once, a spectator's view would be a second pair of eyes for a player who opened
    one beside their seat (S2 signals row 9: a signal "where the other team has a fair chance to
    see it"; an unseen onlooker relaying it is no fair chance).
    """
    if event.__class__ is Gestured and event.seen_by is not None:
        return True, Moved(event.t, event.seat)
    if event.__class__ is GestureSeen:
        return True, None
    return False, event


def events_out(table: Table, events: list[Event], seat: int | None,
               look: LookAt | None = None, held: list[dict[str, Any]] | None = None,
               forms: dict[int, tuple[Event, dict[str, Any]]] | None = None
               ) -> list[dict[str, Any]]:
    """``events`` as ``seat`` may see them (None: a spectator, whose own private ``look`` at an
    attention table decides which gestures it sees), each as its JSON form with a ``text``
    field: the plain sentence the page shows (:func:`kemps.narrate.describe`), or None for an
    event not worth a line.

    ``held`` (a spectator at an attention table): each sight :func:`held_sight` holds is told
    now as what it returns (a movement, or nothing) and its full form appended to ``held``, to
    be told when the hand ends.

    ``forms`` (one update for many seats): each event's JSON form by the event's identity, made
    once for every seat that sees the very same event (each seat's ``text`` is its own)."""
    seen = events_for(events, seat, table.pairs) if seat is not None else \
        spectator_events_for(events, look, table.pairs)
    out = []
    for e in seen:
        if forms is None:
            d = event_to_dict(e)
        else:
            # Keyed by identity, and the event kept beside its form: a seat's own redacted copy
            # (a deal showing only its hand) is freed after that seat, and a later copy may
            # get the same id; only the very same object may share a form.
            found = forms.get(id(e))
            if found is None or found[0] is not e:
                found = forms[id(e)] = (e, event_to_dict(e))
            d = dict(found[1])
        d["text"] = describe(table, e, seat=seat, as_seen=True)
        if held is not None:
            kept, now = held_sight(e)
            if kept:
                held.append(d)
                if now is None:
                    continue
                d = event_to_dict(now)
                d["text"] = describe(table, now, seat=seat, as_seen=True)
        out.append(d)
    return out


def events_json(table: Table, events: list[Event], seat: int | None, look: LookAt | None,
                forms: dict[int, tuple[Event, str | None]]) -> str:
    """The JSON text of :func:`events_out` for a seat or spectator that is told every event at
    once (no ``held``), with each event's public form encoded once for every seat that sees the
    very same event (``forms``, by the event's identity, the event kept beside its text as in
    :func:`events_out`): the seat's own ``text`` is spliced in after it. The very same text as
    ``json.dumps(events_out(...))`` (``tests/test_view_json.py``)."""
    seen = events_for(events, seat, table.pairs) if seat is not None else \
        spectator_events_for(events, look, table.pairs)
    parts: list[str] = []
    dumps = json.dumps
    for e in seen:
        found = forms.get(id(e))
        if found is None or found[0] is not e:
            d = event_to_dict(e)
            # an event with a "text" field of its own (a chat line) keeps the seat's text in that
            # field's place: encoded whole for each seat, as before
            found = forms[id(e)] = (e, None if "text" in d else dumps(d)[:-1])
        text = describe(table, e, seat=seat, as_seen=True)
        head = found[1]
        if head is None:
            d = event_to_dict(e)
            d["text"] = text
            parts.append(dumps(d))
        else:
            parts.append(f'{head}, "text": {dumps(text)}}}')
    return f'[{", ".join(parts)}]'


def seat_json(view: SeatView, kept: dict[int, tuple[Any, ...]]) -> str:
    """The JSON text of ``view.seat_dict()``, kept in ``kept`` (by the seat) and reused while the
    seat's hand, signals and its pair's open proposal are equal and the table gives the very same
    :class:`LegalMoves` object (most updates: another seat's swap or gesture). The very same text
    as ``json.dumps(view.seat_dict())``."""
    legal, seat, hand, signals = view.legal, view.seat, view.hand, view.signals
    if legal is None or seat is None:
        return json.dumps(view.seat_dict())
    proposal = view.proposal
    found = kept.get(seat)
    if (found is None or found[0] is not legal or found[1] != hand or found[2] != signals
            or found[3] != proposal):
        found = kept[seat] = (legal, hand, signals, proposal, json.dumps(view.seat_dict()))
    return str(found[4])


def referee_events_out(table: Table, events: list[Event]) -> list[dict[str, Any]]:
    """``events`` as the referee (a dealer who is not playing, S2 tournament row 7) is told
    them, at once (:func:`kemps.views.referee_events_for`: every hand dealt, every gesture named,
    no pair's signals), each as its JSON form with its ``text`` sentence."""
    out = []
    for e in referee_events_for(events, table.pairs):
        d = event_to_dict(e)
        d["text"] = describe(table, e, seat=None, as_seen=True)
        out.append(d)
    return out
