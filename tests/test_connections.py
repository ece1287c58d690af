"""A connection's outbox (``kemps.server.connections``): messages go out in order, what was
queued before a close still goes, and a client too far behind is cut off with a reason and its
own close code, its backlog dropped (it reconnects and gets the whole state)."""

from __future__ import annotations

import asyncio
import json

from kemps.server.connections import CLOSE_TOO_SLOW, OUTBOX_LIMIT, Connection


def test_messages_go_out_in_order_and_a_close_still_sends_what_was_queued() -> None:
    sent: list[str] = []

    async def send(text: str) -> None:
        await asyncio.sleep(0)  # a socket that yields, like a real one
        sent.append(text)

    async def run() -> None:
        conn = Connection(send, 0)
        writer = asyncio.create_task(conn.writer())
        conn.push({"type": "a"})
        await asyncio.sleep(0.01)  # the writer waits for more
        for i in range(5):
            conn.push(json.dumps({"type": "b", "i": i}))
        conn.close()
        conn.push({"type": "after the close"})  # not taken
        await asyncio.wait_for(writer, 1)
        assert conn.close_code == 1000

    asyncio.run(run())
    assert [json.loads(t)["type"] for t in sent] == ["a", "b", "b", "b", "b", "b"]
    assert [json.loads(t)["i"] for t in sent[1:]] == [0, 1, 2, 3, 4]


def test_a_client_too_far_behind_is_told_why_and_closed_with_its_own_code() -> None:
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)

    async def run() -> Connection:
        conn = Connection(send, None)
        for i in range(OUTBOX_LIMIT):  # nothing sent yet: the writer has not started
            conn.push({"type": "update", "version": i})
        assert not conn.closed and len(conn.outbox) == OUTBOX_LIMIT
        conn.push({"type": "update", "version": OUTBOX_LIMIT})
        assert conn.closed
        await asyncio.wait_for(conn.writer(), 1)
        return conn

    conn = asyncio.run(run())
    assert conn.close_code == CLOSE_TOO_SLOW == 4408
    assert [json.loads(t) for t in sent] == [{
        "type": "error", "code": "too_slow", "message": "Your connection fell too far behind "
        "the table; reconnect to get the table as it stands."}]
