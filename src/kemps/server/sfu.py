"""Janus's VideoRoom as the SFU of camera tables larger than the mesh serves (issue 24;
docs/camera.md "Larger tables: the SFU").

In a mesh every person sends their video to every other; past about eight players that is more
upstream than a home connection has. Through an SFU (a selective forwarding unit) each person sends
one stream up, and Janus forwards it. This module makes each camera table's rooms on Janus through
its HTTP API (``KEMPS_JANUS_API``) and ends them with the table: one **table room** that every
seated person of the table may join (its PIN is sent to the seated only, in ``camera_config``), and
one **pair room** per pair (its PIN to that pair's two seats only), so that a pair's huddle goes
through a room the opponents cannot enter. Each seat publishes under a feed id of its own, known to
the seated only, which names its seat to the others' pages.

What each page publishes where is the page's to keep, as in the mesh (``static/js/sfu.js``): into
the table room during a hand and in the lobby (nothing in the huddle); into its pair room in the
huddle only.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from typing import Any

import httpx

from kemps.errors import KempsError
from kemps.server.camera import SfuConfig

log = logging.getLogger("kemps.server")
JANUS_TIMEOUT_S = 5.0


class SfuError(KempsError):
    """Janus did not make or end a room (code ``sfu_unavailable``)."""


@dataclass
class TableRooms:
    """One camera table's rooms on Janus: the table room and one per pair, each with its PIN;
    ``secret`` ends them; ``feeds`` each seat's publisher id."""

    table: int
    table_pin: str
    pairs: list[tuple[int, str]]
    secret: str
    feeds: dict[int, int] = field(default_factory=dict)

    def for_seat(self, url: str, seat: int) -> dict[str, Any]:
        """What ``seat``'s page needs (``camera_config``'s ``sfu``): Janus's address, the table
        room and its PIN, its pair's room and PIN (never another pair's), every seat's feed id,
        its own."""
        room, pin = self.pairs[seat % len(self.pairs)]
        return {"url": url, "room": self.table, "pin": self.table_pin, "pair_room": room,
                "pair_pin": pin, "feed": self.feeds[seat],
                "feeds": {str(s): f for s, f in self.feeds.items()}}


class Janus:
    """Makes and ends camera tables' rooms through Janus's HTTP API (one short session, on one
    HTTP client, each time: a table's rooms are made once, when its first person joins the
    video)."""

    def __init__(self, config: SfuConfig) -> None:
        self.config = config
        self._client: httpx.AsyncClient | None = None

    async def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        assert self._client is not None  # within _videoroom
        body = {**body, "transaction": secrets.token_hex(6)}
        try:
            r = await self._client.post(self.config.api.rstrip("/") + path, json=body)
            answer: dict[str, Any] = r.json()
        except (httpx.HTTPError, ValueError) as err:
            raise SfuError("sfu_unavailable", f"The SFU (Janus) did not answer: "
                           f"{type(err).__name__}.") from None
        if answer.get("janus") == "error":
            raise SfuError("sfu_unavailable", f"The SFU (Janus) refused: "
                           f"{answer.get('error', {}).get('reason', 'no reason given')}.")
        return answer

    async def _videoroom(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send each VideoRoom request on one session and handle; their answers' data."""
        async with httpx.AsyncClient(timeout=JANUS_TIMEOUT_S) as client:
            self._client = client
            try:
                return await self._requests(requests)
            finally:
                self._client = None

    async def _requests(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        session = (await self._post("", {"janus": "create"}))["data"]["id"]
        try:
            handle = (await self._post(f"/{session}", {
                "janus": "attach", "plugin": "janus.plugin.videoroom"}))["data"]["id"]
            out = []
            for request in requests:
                if self.config.admin_key and request["request"] == "create":
                    request = {**request, "admin_key": self.config.admin_key}
                answer = await self._post(f"/{session}/{handle}",
                                          {"janus": "message", "body": request})
                data = answer.get("plugindata", {}).get("data", {})
                if "error" in data:
                    raise SfuError("sfu_unavailable", f"The SFU (Janus) refused: {data['error']}.")
                out.append(data)
            return out
        finally:
            try:
                await self._post(f"/{session}", {"janus": "destroy"})
            except SfuError:
                pass

    async def make(self, code: str, players: int) -> TableRooms:
        """A table's rooms, private (not listed), each with a PIN, for ``players`` publishers.

        Raises:
            SfuError: ``sfu_unavailable`` when Janus does not answer or refuses.
        """
        secret = secrets.token_urlsafe(16)

        def room(name: str) -> tuple[int, str, dict[str, Any]]:
            number, pin = secrets.randbelow(2**52) + 1, secrets.token_urlsafe(12)
            return number, pin, {
                "request": "create", "room": number, "description": f"kemps {code} {name}",
                "is_private": True, "pin": pin, "secret": secret, "publishers": players,
                "audiocodec": "opus", "videocodec": "vp8", "bitrate": 512_000,
                "fir_freq": 5, "permanent": False}

        table = room("table")
        pairs = [room(f"pair {p + 1}") for p in range(players // 2)]
        await self._videoroom([table[2], *(p[2] for p in pairs)])
        feeds = {seat: secrets.randbelow(2**52) + 1 for seat in range(players)}
        return TableRooms(table[0], table[1], [(p[0], p[1]) for p in pairs], secret, feeds)

    async def end(self, rooms: TableRooms) -> None:
        """End a table's rooms (every publisher and subscriber in them is let go)."""
        await self._videoroom([{"request": "destroy", "room": number, "secret": rooms.secret}
                               for number in (rooms.table, *(p[0] for p in rooms.pairs))])
