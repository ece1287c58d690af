"""The JSON forms of a view written out field by field (issue 15: fast) say exactly what a walk
over the dataclass fields says, and a server update spliced from a public part encoded once and
a per-seat part parses to the very same message as one encoded whole."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from kemps.bots import bot_factory
from kemps.cards import Card
from kemps.record import replay_steps
from kemps.rules import find_preset
from kemps.server.room import update_text
from kemps.sim import simulate_match
from kemps.table import LegalMoves, Table
from kemps.views import SEAT_FIELDS, SeatView, view_for


def _walk(value: Any) -> Any:
    if isinstance(value, Card):
        return value.text
    if isinstance(value, LegalMoves):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.name in ("stop", "double_stop"):
                v = [{"on_seat": a, "on_pair": b} for a, b in v]
            out[f.name] = _walk(v)
        return out
    if isinstance(value, SeatView):
        return {f.name: _walk(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _walk(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_walk(v) for v in value]
    return value


@pytest.mark.parametrize("preset", ["pagat", "points-to-five", "seed2-tournament", "cash"])
def test_view_json_is_the_field_walk(preset: str) -> None:
    rules = find_preset(preset)
    record = simulate_match(rules, 5, bots=bot_factory("club"), max_time_s=300.0).record
    table = Table(record.rules, record.names, record.first_dealer)
    checked = 0
    for _ in replay_steps(record, table):
        views = [view_for(table, s) for s in (*range(rules.players), None)]
        publics = {json.dumps(v.public_dict(), sort_keys=True) for v in views}
        assert len(publics) == 1  # the public part is the same for every seat
        for v in views:
            assert v.to_dict() == _walk(v)
            assert list(v.to_dict()) == [f.name for f in dataclasses.fields(SeatView)]
            assert set(v.seat_dict()) == set(SEAT_FIELDS)
            whole = {"type": "update", "version": table.version, "server_time": 12.5,
                     "events": [{"type": "x", "seat": v.seat}], "view": v.to_dict()}
            spliced = update_text(table.version, 12.5, json.dumps(whole["events"]),
                                  json.dumps(v.public_dict()), json.dumps(v.seat_dict()))
            assert json.loads(spliced) == whole
        checked += 1
    assert checked > 30
