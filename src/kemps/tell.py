"""The tell: what a finished match shows about each pair's signals, from its record alone.

Kemps players argue after every hand about who signalled when, who saw it and who called how
fast. This module replays a match record action by action (through the engine, so every figure is
what the table saw) and reports, as JSON-ready data:

- per hand, for each call, the few seconds before it as a strip of moments ("Dev scratched his
  nose at 41.2 s; Ben called Kemps 0.68 s later"), the gestures that were real signals marked;
- per pair and agreed signal: how often it was given (a *use*: a gesture that was one of the
  giver's pair's agreed signals at that moment), how often with four of a kind and how often as a
  fake, how the next call of that hand answered it (the partner's Kemps, right or wrong; an
  opponent's Stop Kemps, right or wrong), the partner's reaction times (signal to call: median and
  spread), and "read after N uses": the use whose Stop Kemps was the first right one;
- per player: signals given, calls made, reaction times to the partner's signals.

Signals are the pairs' private agreements: a public match record leaves them out (see
``GET /api/history/{id}``), and then only calls and gestures are reported, no use is counted. A
record may also name pairs whose agreements are withheld (``meta["signals_withheld"]``, a list of
pair numbers: the replay API's record when a pair keeps its signal for a rematch): their
agreements are ignored even if present, and their gestures are neither signals nor non-signals
(``"signal": None``), their figures ``"withheld": True``.
Until the attention rule exists every seat sees every gesture, so "seen by" is every seat.

Shapes are documented on :func:`analyse`; times are table seconds; nothing here does I/O.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from kemps.events import (
    Called,
    CallJudged,
    Event,
    Gestured,
    HandDealt,
    HandEnded,
    SignalsAgreed,
    Swapped,
)
from kemps.gestures import PALETTE
from kemps.record import MatchRecord, replay_steps
from kemps.table import Table

#: Seconds of play shown before each call in its strip.
STRIP_S: Final = 5.0


@dataclass
class _Use:
    """One use of an agreed signal."""

    t: float
    hand: int
    seat: int
    pair: int
    gesture: str
    with_four: bool
    answer: str = "none"  # "partner" / "stopped" / "none"
    right: bool | None = None
    reaction_s: float | None = None


@dataclass
class _SignalStats:
    gesture: str
    uses: list[_Use] = field(default_factory=list)


def _spread(values: Sequence[float]) -> dict[str, Any]:
    """Median and spread of reaction times: ``{"n", "median", "min", "max"}`` (None when empty)."""
    if not values:
        return {"n": 0, "median": None, "min": None, "max": None}
    return {"n": len(values), "median": round(statistics.median(values), 3),
            "min": round(min(values), 3), "max": round(max(values), 3)}


def _call_name(table: Table, kind: str) -> str:
    r = table.rules
    return {"kemps": r.call_word, "stop": r.stop_word, "double_kemps": r.double_call_word,
            "double_stop": r.double_stop_word}.get(kind, kind)


def analyse(record: MatchRecord, strip_s: float = STRIP_S) -> dict[str, Any]:
    """The tell of every hand and the signal figures of every pair and player.

    Returns ``{"names", "signals_known": bool, "signals_withheld": [pair], "hands": [{"hand", "calls": [{"t", "by", "kind",
    "on_seat", "on_pair", "right", "after_signal_s", "strip": [{"t", "seat", "what", "gesture",
    "signal"}], "text"}]}], "pairs": [{"pair", "players", "withheld", "signals": [{"gesture", "uses",
    "with_four", "fakes", "partner_calls", "partner_right", "stopped", "stopped_right",
    "read_after", "fakes_drew": {"wrong_stop", "wrong_kemps", "nothing"}, "reaction_s": spread}]}],
    "players": [{"seat", "name", "signals_given", "kemps": {"right", "wrong"}, "stop": {"right",
    "wrong"}, "reaction_s": spread}]}`` where a spread is ``{"n", "median", "min", "max"}``.

    Raises:
        RecordError: ``bad_record`` when the record does not replay.
    """

    table = Table(record.rules, record.names, record.first_dealer)
    names = table.names
    withheld = withheld_pairs(record)
    agreed: list[tuple[str, ...]] = [()] * table.pairs
    signals_known = False
    hand = 0
    recent: list[tuple[float, int, str, str, bool]] = []  # (t, seat, what, gesture, signal)
    open_uses: list[_Use] = []  # uses of this hand not yet answered by a call
    stats: dict[tuple[int, str], _SignalStats] = {}
    hands: list[dict[str, Any]] = []
    players: list[dict[str, Any]] = [
        {"seat": s, "name": names[s], "signals_given": 0, "kemps": {"right": 0, "wrong": 0},
         "stop": {"right": 0, "wrong": 0}, "_reactions": []} for s in range(table.n)]
    pending: Called | None = None

    def known(pair: int) -> bool:
        """Whether this record tells which of ``pair``'s gestures were signals."""
        return signals_known and pair not in withheld

    def on_events(events: list[Event]) -> None:
        nonlocal hand, signals_known, pending, open_uses, recent
        for e in events:
            if isinstance(e, SignalsAgreed):
                if e.pair in withheld:
                    continue
                agreed[e.pair] = e.signals
                signals_known = True
            elif isinstance(e, HandDealt):
                hand = e.hand_no
                recent, open_uses = [], []
                hands.append({"hand": hand, "calls": []})
            elif isinstance(e, Gestured):
                pair = table.pair_of(e.seat)
                is_signal = e.gesture in agreed[pair]
                recent.append((e.t, e.seat, "gesture", e.gesture, is_signal))
                if is_signal and table.phase in ("dealt", "play"):
                    use = _Use(e.t, hand, e.seat, pair, e.gesture, table.holds_four(e.seat))
                    stats.setdefault((pair, e.gesture), _SignalStats(e.gesture)).uses.append(use)
                    open_uses.append(use)
                    players[e.seat]["signals_given"] += 1
            elif isinstance(e, Swapped):
                recent.append((e.t, e.seat, "swap", "", False))
            elif isinstance(e, Called):
                pending = e
            elif isinstance(e, CallJudged) and pending is not None:
                judged(pending, e)
                pending = None
            elif isinstance(e, HandEnded):
                open_uses = []

    def judged(c: Called, j: CallJudged) -> None:
        caller_pair = table.pair_of(c.seat)
        is_kemps = c.kind in ("kemps", "double_kemps")
        players[c.seat]["kemps" if is_kemps else "stop"]["right" if j.right else "wrong"] += 1
        # The use this call answers: the latest open use by the partner (Kemps) or by the
        # accused (Stop), whoever gave it.
        def answers(use: _Use) -> bool:
            if is_kemps:
                return use.seat == table.partner_of(c.seat)
            return use.pair != caller_pair and (
                c.on_seat == use.seat or (c.on_seat is None and c.on_pair == use.pair))

        answered = next((u for u in reversed(open_uses) if answers(u)), None)
        if answered is not None:
            answered.answer = "partner" if is_kemps else "stopped"
            answered.right = j.right
            answered.reaction_s = round(c.t - answered.t, 3)
            open_uses.remove(answered)
            if is_kemps:
                players[c.seat]["_reactions"].append(c.t - answered.t)
        strip = [{"t": round(t, 3), "seat": s, "what": what, "gesture": g or None,
                  "signal": sig if known(table.pair_of(s)) and what == "gesture" else None}
                 for t, s, what, g, sig in recent if c.t - strip_s <= t <= c.t]
        on = (names[c.on_seat] if c.on_seat is not None else
              " and ".join(names[s] for s in table.seats_of(c.on_pair))
              if c.on_pair is not None and not is_kemps else names[table.partner_of(c.seat)])
        word = _call_name(table, c.kind)
        if answered is not None:
            g = PALETTE[answered.gesture].label if answered.gesture in PALETTE else answered.gesture
            text = (f"{names[answered.seat]} {g} at {answered.t:.1f} s; {names[c.seat]} called "
                    f"{word} on {on} {c.t - answered.t:.2f} s later, "
                    f"{'right' if j.right else 'wrong'}.")
        elif known(caller_pair if is_kemps else (
                c.on_pair if c.on_pair is not None else table.pair_of(c.on_seat or 0))):
            text = (f"{names[c.seat]} called {word} on {on} at {c.t:.1f} s with no signal seen "
                    f"first, {'right' if j.right else 'wrong'}.")
        else:
            text = (f"{names[c.seat]} called {word} on {on} at {c.t:.1f} s, "
                    f"{'right' if j.right else 'wrong'} (that pair's signals are not revealed).")
        hands[-1]["calls"].append({
            "t": round(c.t, 3), "by": c.seat, "kind": c.kind, "on_seat": c.on_seat,
            "on_pair": c.on_pair, "right": j.right,
            "after_signal_s": None if answered is None else answered.reaction_s,
            "strip": strip, "text": text})

    for batch in replay_steps(record, table):
        on_events(batch)

    _late_calls(record, table, hands)
    pairs_out = []
    for p in range(table.pairs):
        rows = []
        for (pair, gesture), st in sorted(stats.items()):
            if pair != p:
                continue
            uses = st.uses
            read_after = next((k + 1 for k, u in enumerate(uses)
                               if u.answer == "stopped" and u.right), None)
            fakes = [u for u in uses if not u.with_four]
            rows.append({
                "gesture": gesture, "uses": len(uses),
                "with_four": sum(u.with_four for u in uses), "fakes": len(fakes),
                "partner_calls": sum(u.answer == "partner" for u in uses),
                "partner_right": sum(u.answer == "partner" and bool(u.right) for u in uses),
                "stopped": sum(u.answer == "stopped" for u in uses),
                "stopped_right": sum(u.answer == "stopped" and bool(u.right) for u in uses),
                "read_after": read_after,
                "fakes_drew": {"wrong_stop": sum(u.answer == "stopped" for u in fakes),
                               "wrong_kemps": sum(u.answer == "partner" for u in fakes),
                               "nothing": sum(u.answer == "none" for u in fakes)},
                "reaction_s": _spread([u.reaction_s for u in uses
                                       if u.answer == "partner" and u.reaction_s is not None]),
            })
        pairs_out.append({"pair": p, "players": [names[s] for s in table.seats_of(p)],
                          "withheld": p in withheld, "signals": rows})
    for row in players:
        row["reaction_s"] = _spread(row.pop("_reactions"))
        if table.pair_of(row["seat"]) in withheld:
            row["signals_given"] = None
    return {"names": list(names), "signals_known": signals_known,
            "signals_withheld": sorted(withheld), "hands": hands,
            "pairs": pairs_out, "players": players}


LATE_S: Final = 3.0  # a refused call this soon after a judged call was a call too late


def _late_calls(record: MatchRecord, table: Table, hands: list[dict[str, Any]]) -> None:
    """Who called too late: the refused calls a server keeps in the record's meta
    (``late_calls``, each ``{"t", "seat", "kind", "code"}``) within :data:`LATE_S` after a judged
    call are added to that call (``"late": [{"seat", "kind", "after_s"}]``) and to its sentence
    ("Alice called Stop Kemps 0.21 s too late")."""
    late = record.meta.get("late_calls") if isinstance(record.meta, dict) else None
    if not isinstance(late, list):
        return
    calls = [c for h in hands for c in h["calls"]]
    for item in late:
        if not isinstance(item, dict) or item.get("code") != "hand_over":
            continue
        t, seat, kind = item.get("t"), item.get("seat"), item.get("kind")
        if not isinstance(t, int | float) or not isinstance(seat, int) or \
                not 0 <= seat < table.n or not isinstance(kind, str):
            continue
        before = [c for c in calls if c["t"] <= t <= c["t"] + LATE_S]
        if not before:
            continue
        call = before[-1]
        after = round(t - call["t"], 3)
        call.setdefault("late", []).append({"seat": seat, "kind": kind, "after_s": after})
        call["text"] += (f" {table.names[seat]} called {_call_name(table, kind)} {after:.2f} s "
                         "too late.")


def withheld_pairs(record: MatchRecord) -> frozenset[int]:
    """The pairs whose signal agreements ``record`` withholds (``meta["signals_withheld"]``;
    anything there but pair numbers is ignored)."""
    raw = record.meta.get("signals_withheld")
    if not isinstance(raw, list):
        return frozenset()
    return frozenset(p for p in raw if isinstance(p, int) and not isinstance(p, bool))


def stats_lines(analysis: dict[str, Any]) -> list[str]:
    """The analysis as short lines for a terminal (``kemps replay --stats``)."""
    out: list[str] = []
    for h in analysis["hands"]:
        for c in h["calls"]:
            out.append(f"Hand {h['hand']}: {c['text']}")
    if not analysis["signals_known"]:
        out.append("The record holds no signal agreements (a public record leaves them out): "
                   "no signal figures.")
    for p in analysis["pairs"]:
        who = " and ".join(p["players"])
        if p.get("withheld"):
            out.append(f"{who} keep their signals to themselves: no signal figures.")
        for s in p["signals"]:
            label = PALETTE[s["gesture"]].label if s["gesture"] in PALETTE else s["gesture"]
            rt = s["reaction_s"]
            react = (f"; partner called {rt['median']:.2f} s after (median of {rt['n']}, "
                     f"{rt['min']:.2f}-{rt['max']:.2f})" if rt["n"] else "")
            read = (f"; read by the other side after {s['read_after']} use"
                    f"{'' if s['read_after'] == 1 else 's'}" if s["read_after"] else "")
            out.append(f"{who}, signal '{label}': given {s['uses']}x ({s['with_four']} with four "
                       f"of a kind, {s['fakes']} fake), partner called {s['partner_calls']}x "
                       f"({s['partner_right']} right), stopped {s['stopped']}x "
                       f"({s['stopped_right']} right){react}{read}.")
    return out
