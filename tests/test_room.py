"""The room (kemps.server.room) without a socket: a real storage writer and event loop, a
connection that only collects what it is sent, and the match driver underneath.

These check what the room adds to the driver: one timer armed at the driver's next wake-up, every
step stored before it is told, each event sent with its sentence, the hand's log in the state, and
a restart from storage that rebuilds the same table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from kemps.errors import Rejected
from kemps.rules import find_preset
from kemps.server.connections import Connection
from kemps.server.errors import ServerError
from kemps.server.room import Room
from kemps.server.settings import Settings
from kemps.server.storage import Storage, Writer
from kemps.views import view_for

SETTINGS = Settings(huddle_s=30.0, bot_huddle_s=0.05, away_grace_s=0.3)


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


async def open_room(db: Path) -> tuple[Storage, Writer, Room]:
    storage = Storage(f"sqlite+aiosqlite:///{db}")
    await storage.start()
    writer = Writer(storage)
    writer.start()
    room = Room("ROOMA", find_preset("pagat").replace(target=1), SETTINGS, writer)
    room.take_seat(0, "Alice")
    room.fill_with_bots("simple")  # simple bots: only a pair's first seat proposes a signal
    return storage, writer, room


async def play(db: Path, seconds: float) -> tuple[Room, Collector, Collector, dict[str, Any]]:
    storage, writer, room = await open_room(db)
    seated = Collector(0, room.seats[0].token_hash)
    watcher = Collector(None)
    tasks = [asyncio.create_task(c.writer()) for c in (seated, watcher)]
    room.attach(seated)
    room.attach(watcher)
    room.start()
    assert abs((room.deal_at or 0) - 30.0) < 1.0  # a person not yet ready: the full huddle
    room.handle_action(0, {"type": "agree_signals", "signals": ["touch_ear"]})
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
    room, seated, watcher, _ = asyncio.run(play(tmp_path / "k.db", 3.0))
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
    told = [e for m in updates for e in m["events"]]
    assert all("text" in e for e in told)
    opened = next(e for e in told if e["type"] == "play_opened")
    assert opened["text"].startswith("Middle: ") and opened["text"].endswith("Play!")
    agreed = next(e for e in told if e["type"] == "signals_agreed")
    assert agreed["text"] == "Alice and Cleo agree a signal: touch ear."
    # the last update's view is the table as it stands, for that seat
    last_view = updates[-1]["view"]
    assert last_view == view_for(driver.table, 0).to_dict()


def test_a_late_connection_gets_the_hands_log_in_its_state(tmp_path: Path) -> None:
    room, seated, _, _ = asyncio.run(play(tmp_path / "k.db", 2.0))
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


def test_no_pair_is_dealt_a_hand_without_a_signal_and_a_rematch_keeps_the_signals(
        tmp_path: Path) -> None:
    """Issue 12: a pair cannot start a hand without an agreed signal. Alice leads her pair and
    her simple-bot partner never proposes; when the deal comes due the table agrees one for
    them (told to the pair only), then deals. A rematch keeps each pair's signals."""

    async def run() -> tuple[Room, Collector, Collector, tuple[str, ...]]:
        storage, writer, room = await open_room(tmp_path / "k.db")
        alice = Collector(0, room.seats[0].token_hash)
        bram = Collector(1, None)  # a seat of the other pair, to see what reaches it
        tasks = [asyncio.create_task(c.writer()) for c in (alice, bram)]
        room.attach(alice)
        room.conns.add(bram)
        room.start()
        room.mark_ready(0)
        await settle(2.5)
        assert room.driver is not None and room.driver.table.phase == "play"
        first_signals = tuple(room.driver.table.signals)
        room.status = "finished"  # the match is over: a rematch
        room.start()
        kept = tuple(room.driver.table.signals)
        assert kept == first_signals
        await writer.sync(5.0)
        await settle(0.05)
        room.close()
        await writer.stop()
        for t in tasks:
            t.cancel()
        await storage.close()
        return room, alice, bram, kept

    _, alice, bram, kept = asyncio.run(run())
    assert all(kept)  # both pairs have a signal
    mine = [e for m in alice.of("update") for e in m["events"] if e["type"] == "signals_agreed"
            and e["pair"] == 0]
    assert mine and mine[0]["seat"] == 0 and len(mine[0]["signals"]) == 1
    # the other pair never hears what Alice's pair agreed
    assert not [e for m in bram.of("update") for e in m["events"]
                if e["type"] == "signals_agreed" and e["pair"] == 0]


def test_a_bot_stands_in_for_a_person_who_is_away_and_hands_the_seat_back(
        tmp_path: Path) -> None:
    """Issue 12 "Leaving": after away_grace_s without a connection a bot plays the seat (the
    pair is not spelled out by an idle seat); it leaves the moment the person is back."""

    async def run() -> list[Any]:
        storage, writer, room = await open_room(tmp_path / "k.db")
        seated = Collector(0, room.seats[0].token_hash)
        room.attach(seated)
        room.start()
        room.handle_action(0, {"type": "agree_signals", "signals": ["wink"]})
        room.mark_ready(0)
        await settle(2.0)  # the bots' pair agrees its signal, then the deal
        assert room.driver is not None and room.driver.table.phase == "play"
        room.detach(seated)  # Alice closes the tab
        seen = [room.seats[0].stand_in, 0 in room.driver.bots]
        await settle(0.6)  # past the grace time
        seen += [room.seats[0].stand_in, 0 in room.driver.bots,
                 room.public()["seats"][0]["stand_in"]]
        await settle(0.5)
        plays_for_her = bool(room.driver.planned(0)) or any(
            getattr(e, "seat", None) == 0 for e in room.driver.log[-20:])
        again = Collector(0, room.seats[0].token_hash)
        room.attach(again)  # she is back
        seen += [room.seats[0].stand_in, 0 in room.driver.bots, plays_for_her,
                 room.driver.planned(0)]
        room.close()
        await writer.stop()
        await storage.close()
        return seen

    seen = asyncio.run(run())
    assert seen[:2] == [None, False]  # within the grace time nobody stands in
    assert seen[2:5] == ["simple", True, "simple"]  # the level the room's bots play
    assert seen[5:9] == [None, False, True, []]  # back: the bot and its plans are gone


def test_the_host_replaces_or_removes_a_person_during_a_match(tmp_path: Path) -> None:
    """Issue 12 "Leaving": the host can also replace (a bot now, handed back when the person
    acts) or remove (a bot to the end; the person watches) a seat."""

    async def run() -> list[Any]:
        storage, writer, room = await open_room(tmp_path / "k.db")
        room.clear_seat(2)  # seat 2 (Alice's partner): a second person
        token = room.take_seat(2, "Cara")
        alice = Collector(0, room.seats[0].token_hash)
        cara = Collector(2, room.seats[2].token_hash)
        tasks = [asyncio.create_task(c.writer()) for c in (alice, cara)]
        room.attach(alice)
        room.attach(cara)
        room.start()
        room.handle_action(0, {"type": "agree_signals", "signals": ["wink"]})
        room.mark_ready(0)
        room.mark_ready(2)
        await settle(2.0)
        assert room.driver is not None and room.driver.table.phase == "play"
        seen: list[Any] = []
        room.add_bot(2, "club")  # replace Cara now, though she is connected
        seen += [room.seats[2].stand_in, 2 in room.driver.bots]
        try:
            room.add_bot(2, "club")
        except ServerError as err:
            seen.append(err.code)
        # Cara acts: she is back, the bot leaves (her swap may lose a race; that is fine)
        with contextlib.suppress(Rejected):  # a refused stall still brings her back
            room.handle_action(2, {"type": "stall"})
        seen += [room.seats[2].stand_in, 2 in room.driver.bots]
        room.clear_seat(2)  # the host removes her for good
        seen += [room.seats[2].kind, room.seats[2].token_hash, 2 in room.driver.bots,
                 room.seat_of(token), cara.seat]
        room.close()
        await writer.stop()
        for t in tasks:
            t.cancel()
        await storage.close()
        return seen

    seen = asyncio.run(run())
    assert seen[:3] == ["club", True, "not_a_person"]
    assert seen[3:5] == [None, False]
    assert seen[5:] == ["bot", None, True, None, None]


def test_a_spectator_s_own_look_decides_which_gestures_it_sees(tmp_path: Path) -> None:
    """Issue 11: spectators follow the attention rule with a look of their own that no one else
    sees (S0 "Half of Kemps is watching"), so a spectator cannot relay what a player missed; and
    what a spectator's look saw is told only when the hand ends (S2 row 9: a signal "where the
    other team has a fair chance to see it": a player's own spectator tab, watching for them, is
    no fair chance), the movement at once."""

    async def run() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str],
                             list[dict[str, Any]]]:
        storage = Storage(f"sqlite+aiosqlite:///{tmp_path / 'k.db'}")
        await storage.start()
        writer = Writer(storage)
        writer.start()
        rules = find_preset("pagat").replace(attention=True, idle_sweep_s=0.0)
        room = Room("LOOKS", rules, SETTINGS, writer)
        room.take_seat(0, "Alice")
        room.take_seat(1, "Ben")
        room.fill_with_bots("simple")
        watching, elsewhere = Collector(None), Collector(None)
        tasks = [asyncio.create_task(c.writer()) for c in (watching, elsewhere)]
        room.attach(watching)
        room.attach(elsewhere)
        room.start()
        room.handle_action(0, {"type": "agree_signals", "signals": ["wink"]})
        room.handle_action(1, {"type": "agree_signals", "signals": ["nod"]})
        room.mark_ready(0)
        room.mark_ready(1)
        await settle(0.4)
        assert room.driver is not None and room.driver.table.phase == "play"
        room.spectator_look(watching, 1, ref=5)  # looks at Ben; the other watches the middle
        room.spectator_look(elsewhere, "middle")
        refused = []
        try:
            room.spectator_look(elsewhere, "hand")  # a spectator has no hand
        except Rejected as err:
            refused.append(err.code)
        await settle(0.35)
        room.handle_action(1, {"type": "gesture", "gesture": "scratch_nose"})
        await writer.sync(5.0)
        await settle(0.05)
        during = [e for m in watching.of("update") for e in m["events"]
                  if e["type"] in ("gestured", "moved", "gesture_seen") and e["seat"] == 1]
        room.handle_action(0, {"type": "call", "kind": "kemps"})  # ends the hand, right or wrong
        await writer.sync(5.0)
        await settle(0.05)
        room.close()
        await writer.stop()
        for t in tasks:
            t.cancel()
        await storage.close()
        seen = [e for m in watching.of("update") for e in m["events"]
                if e["type"] in ("gestured", "moved") and e["seat"] == 1]
        missed = [e for m in elsewhere.of("update") for e in m["events"]
                  if e["type"] in ("gestured", "moved") and e["seat"] == 1]
        return seen, missed, refused, during

    seen, missed, refused, during = asyncio.run(run())
    # during the hand: the movement only, for both spectators
    assert [e["type"] for e in during] == ["moved"] and "gesture" not in during[0]
    # the hand over: the spectator who looked at Ben is told what it saw; the other never
    assert [e["type"] for e in seen] == ["moved", "gestured"]
    assert seen[1]["gesture"] == "scratch_nose" and "Ben" in seen[1]["text"]
    assert [e["type"] for e in missed] == ["moved"] and "gesture" not in missed[0]
    assert refused == ["bad_look"]


def test_a_call_too_late_is_kept_for_the_tell(tmp_path: Path) -> None:
    """Issue 14's "called Stop Kemps 0.21 s too late": the record keeps accepted actions only,
    so the room keeps each refused call in the match record's meta (``late_calls``)."""

    async def run() -> list[dict[str, Any]]:
        storage, writer, room = await open_room(tmp_path / "k.db")
        room.set_rules(find_preset("pagat"))  # a whole match: one call ends only the hand
        room.start()
        room.handle_action(0, {"type": "agree_signals", "signals": ["wink"]})
        room.mark_ready(0)
        await settle(2.0)
        assert room.driver is not None and room.driver.table.phase == "play"
        room.handle_action(0, {"type": "call", "kind": "kemps"})  # ends the hand, right or wrong
        with contextlib.suppress(Rejected):
            room.handle_action(0, {"type": "call", "kind": "kemps"})  # too late: hand_over
        late = list(room.driver.recorder.record.meta.get("late_calls", []))
        room.close()
        await writer.stop()
        await storage.close()
        return late

    late = asyncio.run(run())
    assert [(c["seat"], c["kind"], c["code"]) for c in late] == [(0, "kemps", "hand_over")]
