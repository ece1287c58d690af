"""The room (kemps.server.room) without a socket: a real storage writer and event loop, a
connection that only collects what it is sent, and the match driver underneath.

These check what the room adds to the driver: one timer armed at the driver's next wake-up, every
step stored before it is told, each event sent with its sentence, the hand's log in the state, and
a restart from storage that rebuilds the same table.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from kemps.rules import find_preset
from kemps.server.connections import Connection
from kemps.server.room import Room
from kemps.server.settings import Settings
from kemps.server.storage import Storage, Writer
from kemps.views import view_for

SETTINGS = Settings(huddle_s=30.0, bot_huddle_s=0.05)


class Collector(Connection):
    """A connection whose messages land in a list instead of a socket."""

    def __init__(self, seat: int | None, token_hash: str | None = None) -> None:
        super().__init__(self._keep, seat, token_hash)
        self.messages: list[dict[str, Any]] = []

    async def _keep(self, text: str) -> None:
        self.messages.append(json.loads(text))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]


async def settle(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def play(db: Path, seconds: float) -> tuple[Room, Collector, Collector, dict[str, Any]]:
    storage = Storage(f"sqlite+aiosqlite:///{db}")
    await storage.start()
    writer = Writer(storage)
    writer.start()
    room = Room("ROOMA", find_preset("pagat").replace(target=1), SETTINGS, writer)
    room.take_seat(0, "Alice")
    room.fill_with_bots("club")
    seated = Collector(0, room.seats[0].token_hash)
    watcher = Collector(None)
    tasks = [asyncio.create_task(c.writer()) for c in (seated, watcher)]
    room.attach(seated)
    room.attach(watcher)
    room.start()
    assert abs((room.deal_at or 0) - 30.0) < 1.0  # a person not yet ready: the full huddle
    room.mark_ready(0)  # the only person is ready: the deal comes after bot_huddle_s
    await settle(seconds)
    await writer.sync(5.0)
    await settle(0.05)
    row = room.row()
    room.close()
    await writer.stop()
    for t in tasks:
        t.cancel()
    await storage.close()
    return room, seated, watcher, row


def test_the_room_drives_its_match_through_the_driver_and_tells_each_seat_in_words(
        tmp_path: Path) -> None:
    room, seated, watcher, _ = asyncio.run(play(tmp_path / "k.db", 1.5))
    driver = room.driver
    assert driver is not None and driver.actions > 1  # the deal and the bots' swaps
    updates = seated.of("update")
    assert updates, "no update reached the seated connection"
    dealt = [e for m in updates for e in m["events"] if e["type"] == "hand_dealt"]
    assert dealt and dealt[0]["text"].startswith("Hand 1:")
    # my own hand is in my deal, nobody else's; the spectator sees none
    hands = dealt[0]["hands"]
    assert len(hands[0]) == 4 and all(h == [] for h in hands[1:])
    spectator_deal = next(e for m in watcher.of("update") for e in m["events"]
                          if e["type"] == "hand_dealt")
    assert all(h == [] for h in spectator_deal["hands"])
    swaps = [e for m in updates for e in m["events"] if e["type"] == "swapped"]
    assert swaps and all(e["text"] and " takes " in e["text"] for e in swaps)
    # the last update's view is the table as it stands, for that seat
    last_view = updates[-1]["view"]
    assert last_view == view_for(driver.table, 0).to_dict()


def test_a_late_connection_gets_the_hands_log_in_its_state(tmp_path: Path) -> None:
    room, seated, _, _ = asyncio.run(play(tmp_path / "k.db", 1.0))
    driver = room.driver
    assert driver is not None
    state = room.state_for(0)
    log = state["log"]
    assert log[0]["type"] == "hand_dealt" and log[0]["text"].startswith("Hand 1:")
    # the log is what the seat was told since the deal, event for event
    told = [e for m in seated.of("update") for e in m["events"]]
    first = next(i for i, e in enumerate(told) if e["type"] == "hand_dealt")
    assert log == told[first:]
    spectator_log = room.state_for(None)["log"]
    assert all(h == [] for h in spectator_log[0]["hands"])


def test_a_restored_room_has_the_same_table_and_log(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    room, _, _, _ = asyncio.run(play(db, 1.0))
    assert room.driver is not None

    async def restore() -> Room:
        storage = Storage(f"sqlite+aiosqlite:///{db}")
        await storage.start()
        [(row, entries)] = await storage.unfinished_rooms()
        again = Room.restore(row, entries, SETTINGS, Writer(storage))
        await storage.close()
        return again

    again = asyncio.run(restore())
    assert again.driver is not None
    for seat in (0, 1, None):
        assert view_for(again.driver.table, seat).to_dict() == \
            view_for(room.driver.table, seat).to_dict()
        assert again.state_for(seat)["log"] == room.state_for(seat)["log"]
    assert again.driver.actions == room.driver.actions
