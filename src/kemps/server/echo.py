"""The echo floor for ``kemps bench-server``: the cheapest server the table server could be on the
same stack (uvicorn, the same WebSocket implementation, Starlette routing, JSON), with no rules,
no storage and no views.

It speaks just enough of the table's protocol for the load client: a connection to
``/ws/{code}?token=...`` gets a ``state`` with a fixed view in play; each ``action`` frame is
parsed, answered with ``ok`` (when it has an ``id``) and followed by an ``update`` of the table
server's size sent to every connection of that room, with ``version`` and ``server_time`` as the
real server sends them. ``ready`` frames are ignored. The same client, pacing and measurement
then give the floor that the table server's figures are divided by.

Run it with ``python -m kemps.server.echo PORT``.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Final

from starlette.applications import Starlette
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

#: A view in play, about the size of the table server's (hand, middle, counts, scores, legal).
VIEW: Final[dict[str, Any]] = {
    "seat": 0, "phase": "play", "hand_no": 1, "dealer": 0, "version": 0,
    "hand": ["7C", "7D", "2S", "KH"], "middle": ["3C", "9H", "QS", "5D"],
    "counts": [4, 4, 4, 4], "stock_count": 36, "scores": [0, 0], "letters": ["", ""],
    "signals": ["touch_ear"], "stall": None, "holding": None, "countdown": None,
    "legal": {"swap": True, "grab": False, "discard": False, "stall": True, "object": False,
              "gestures": ["touch_ear", "scratch_nose", "hand_on_chin", "blink", "wink",
                           "grimace", "nod", "shrug"], "kemps": True, "stop": [1],
              "double_kemps": False, "double_stop": []},
    "names": ["P0", "P1", "P2", "P3"], "pairs": 2, "word": "KEMPS",
}


class EchoRooms:
    """Connections by room code, and each room's version counter."""

    def __init__(self) -> None:
        self.rooms: dict[str, set[WebSocket]] = {}
        self.versions: dict[str, int] = {}


def create_echo_app() -> Starlette:
    """The echo floor as an ASGI app."""
    state = EchoRooms()

    async def presets(_request: Any) -> Any:  # the load client's "is it up?" probe
        from starlette.responses import JSONResponse

        return JSONResponse({"presets": []})

    async def table(ws: WebSocket) -> None:
        code = ws.path_params["code"]
        await ws.accept()
        conns = state.rooms.setdefault(code, set())
        conns.add(ws)
        await ws.send_text(json.dumps({"type": "state", "seat": 0, "room": {"code": code},
                                       "view": VIEW}))
        try:
            while True:
                message = json.loads(await ws.receive_text())
                if message.get("type") != "action":
                    continue
                version = state.versions.get(code, 0) + 1
                state.versions[code] = version
                if message.get("id") is not None:
                    await ws.send_text(json.dumps({"type": "ok", "id": message["id"]}))
                text = json.dumps({"type": "update", "version": version,
                                   "server_time": time.time(),
                                   "events": [{"type": "swapped", "t": 1.0, "seat": 0,
                                               "took": ["3C"], "gave": ["7D"], "text":
                                               "P0 takes 3C, throws 7D."}],
                                   "view": {**VIEW, "version": version}})
                for other in list(conns):
                    try:
                        await other.send_text(text)
                    except (WebSocketDisconnect, RuntimeError):
                        conns.discard(other)
        except WebSocketDisconnect:
            pass
        finally:
            conns.discard(ws)

    return Starlette(routes=[Route("/api/presets", presets),
                             WebSocketRoute("/ws/{code}", table)])


def main(argv: list[str]) -> None:
    """``python -m kemps.server.echo PORT``: serve the echo floor on 127.0.0.1:PORT."""
    import uvicorn

    uvicorn.run(create_echo_app(), host="127.0.0.1", port=int(argv[1]), log_level="warning",
                ws="websockets-sansio", ws_per_message_deflate=False)


if __name__ == "__main__":
    main(sys.argv)
