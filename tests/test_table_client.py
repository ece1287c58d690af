"""kemps.server.client.TableClient without a network: the server's messages fed to
:meth:`TableClient.handle` as a WebSocket would bring them, its sends caught. The bot is told what
the driver tells a bot (kemps.driver: a newer plan on a channel replaces the older; a refused
action back to ``on_rejected``), actions go out without ``seat``, a paused table holds the plans,
and the table clock follows the table times the server stamps. The real-WebSocket run is
tests/test_bench_watcher.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from kemps.actions import Action, Gesture, Look
from kemps.bots.base import Plan
from kemps.errors import Rejected
from kemps.events import Event, Gestured, HandEnded, event_to_dict
from kemps.rules import find_preset
from kemps.server.client import TableClient
from kemps.table import Table
from kemps.views import SeatView, view_for

RULES = find_preset("pagat").replace(attention=True)


class Recorder:
    """A bot that plans what the test tells it to and remembers what it was told."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.views: list[SeatView] = []
        self.told: list[Event] = []
        self.refused: list[tuple[Action, str]] = []
        self.next: list[Plan] = []

    def on_view(self, view: SeatView, now: float) -> list[Plan]:
        self.views.append(view)
        return []

    def on_events(self, events: list[Event], now: float) -> list[Plan]:
        self.told += events
        plans, self.next = self.next, []
        return plans

    def on_rejected(self, action: Action, error: Rejected, now: float) -> list[Plan]:
        self.refused.append((action, error.code))
        return []


class Socket:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


def _state(now: float) -> dict[str, Any]:
    table = Table(RULES, ["A", "B", "C", "D"], 0)
    return {"type": "state", "seat": 1, "view": view_for(table, 1).to_dict(), "log": [],
            "room": {"code": "ABCDE", "rules": RULES.to_dict(), "now": now, "match_no": 1,
                     "seats": [{"seat": s, "ready": s != 1} for s in range(4)]}}


def _update(*events: Event) -> dict[str, Any]:
    table = Table(RULES, ["A", "B", "C", "D"], 0)
    return {"type": "update", "version": 1, "server_time": 0.0,
            "events": [{**event_to_dict(e), "text": None} for e in events],
            "view": view_for(table, 1).to_dict()}


def test_plans_replace_by_channel_and_go_out_without_a_seat() -> None:
    async def main() -> tuple[Recorder, Socket, TableClient]:
        made: list[Recorder] = []

        def make(seat: int, rules: Any) -> Recorder:
            made.append(Recorder(seat))
            return made[0]

        client = TableClient("ws://x", "ABCDE", "t", make, min_gap_s=0.0)
        ws = client._ws = Socket()
        player = asyncio.create_task(client._play())
        await client.handle(_state(10.0))
        bot = made[0]
        assert bot.seat == 1 and len(bot.views) == 1 and bot.views[0].seat == 1
        assert ws.sent == [{"type": "ready"}]  # between hands, as the page's quick play does
        # Two plans on "gesture": the second replaces the first; one on "look" stands.
        bot.next = [Plan(0.05, Gesture(1, "nod"), "gesture"), Plan(0.01, Look(1, 2), "look")]
        await client.handle(_update(Gestured(10.0, 0, "yawn", False, None)))
        bot.next = [Plan(0.02, Gesture(1, "wink"), "gesture")]
        await client.handle(_update(Gestured(10.01, 2, "yawn", False, None)))
        await asyncio.sleep(0.2)
        player.cancel()
        return bot, ws, client

    bot, ws, client = asyncio.run(main())
    actions = [m["action"] for m in ws.sent if m["type"] == "action"]
    assert actions == [{"type": "look", "at": 2}, {"type": "gesture", "gesture": "wink"}]
    assert [type(e) for e in bot.told] == [Gestured, Gestured]
    assert client.sent == 2


def test_a_refusal_reaches_the_bot_and_a_pause_holds_the_plans() -> None:
    async def main() -> tuple[Recorder, Socket, TableClient, int]:
        bot = Recorder(1)
        client = TableClient("ws://x", "ABCDE", "t", lambda s, r: bot, min_gap_s=0.0,
                             auto_ready=False)
        ws = client._ws = Socket()
        player = asyncio.create_task(client._play())
        await client.handle(_state(0.0))
        await client.handle({"type": "paused", "code": "storage_unavailable", "message": "x"})
        bot.next = [Plan(0.01, Gesture(1, "nod"), "gesture")]
        await client.handle(_update(Gestured(0.0, 0, "yawn", False, None)))
        await asyncio.sleep(0.1)
        held = len(ws.sent)
        await client.handle({"type": "resumed"})
        await asyncio.sleep(0.1)
        sent = [m for m in ws.sent if m["type"] == "action"]
        await client.handle({"type": "rejected", "code": "hand_over", "message": "Over.",
                             "id": sent[0]["id"]})
        await client.handle(_update(HandEnded(1.0, 1, "call", True)))
        assert not client._over.is_set()
        # The room says its match is finished: run() ends even without a match_ended told.
        await client.handle({"type": "room", "room": {**client.room, "status": "finished"}})
        assert client._over.is_set() and not client.ended
        player.cancel()
        return bot, ws, client, held

    bot, ws, client, held = asyncio.run(main())
    assert held == 0  # nothing went out while the table was paused
    assert [m["action"] for m in ws.sent] == [{"type": "gesture", "gesture": "nod"}]
    assert bot.refused == [(Gesture(1, "nod"), "hand_over")]
    assert client.refused == 1 and not client.paused


def test_the_table_clock_follows_the_server_stamps() -> None:
    async def main() -> tuple[float, float]:
        client = TableClient("ws://x", "ABCDE", "t", lambda s, r: Recorder(s), auto_ready=False)
        client._ws = Socket()
        await client.handle(_state(50.0))
        first = client.table_now()
        await asyncio.sleep(0.05)
        # An event stamped later than the clock thought: the clock moves up to it.
        await client.handle(_update(Gestured(first + 2.0, 0, "yawn", False, None)))
        return first, client.table_now()

    first, later = asyncio.run(main())
    assert 50.0 <= first < 50.05
    assert first + 2.0 <= later < first + 2.05
