"""Outages of what a server leans on (its database, and with many nodes Redis), answered like any
refusal: HTTP 503 with a stable code, a plain sentence and ``Retry-After``; a WebSocket is told
``error`` with the code and closed with 1013 (try again later). Never a 500, never a traceback.

* ``redis_unavailable``: Redis (leases, heartbeats, placement; docs/scale.md) does not answer. A
  node keeps serving the rooms it holds (their tables play on: storage is PostgreSQL, and the
  fencing token there still says who may write); what needs Redis (making a room, finding or
  taking over a room held elsewhere) waits.
* ``storage_unavailable``: a read of the database failed (a write that fails pauses the tables;
  :class:`kemps.server.storage.Writer`).

:func:`install` adds the handlers to the app (its routes); :func:`answer_asgi` and
:func:`close_socket` are for the code outside the routes (the forwarding middleware, the table's
socket).
"""

from __future__ import annotations

import json
import math
import sqlite3
from functools import cache
from typing import Any, Final

from kemps.server.errors import ServerError

#: WebSocket close code for "the server is away for a moment: try again later" (RFC 6455 1013).
CLOSE_TRY_AGAIN: Final = 1013
REDIS_MESSAGE: Final = ("The servers cannot reach Redis, which says where each table is played; "
                        "tables go on where they are. Try again in a moment.")
STORAGE_MESSAGE: Final = ("The server cannot read its database right now; nothing stored is "
                          "lost. Try again in a moment.")


@cache
def redis_errors() -> tuple[type[BaseException], ...]:
    """The errors of the Redis client (none when redis-py is not installed)."""
    try:
        from redis.exceptions import RedisError
    except ImportError:  # a single node needs no Redis client
        return ()
    return (RedisError,)


@cache
def storage_errors() -> tuple[type[BaseException], ...]:
    """The errors a database that does not answer (or is gone) raises through SQLAlchemy."""
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    return (DBAPIError, PoolTimeout, sqlite3.Error, ConnectionError, TimeoutError)


def fault_for(err: BaseException) -> ServerError | None:
    """The refusal for an outage behind ``err`` (503, ``redis_unavailable`` or
    ``storage_unavailable``), or None when ``err`` is no outage."""
    if isinstance(err, ServerError):
        return err if err.status == 503 else None
    if isinstance(err, redis_errors()):
        return ServerError("redis_unavailable", REDIS_MESSAGE, 503)
    if isinstance(err, storage_errors()):
        return ServerError("storage_unavailable", STORAGE_MESSAGE, 503)
    return None


def retry_after(err: ServerError) -> str:
    return str(max(1, math.ceil(err.retry_after_s or 1)))


def install(app: Any) -> None:
    """Answer an outage met in any route with its 503 (see the module text)."""
    from kemps.server.api import SafeJSONResponse

    async def outage(_: Any, err: Exception) -> Any:
        fault = fault_for(err)
        assert fault is not None  # registered for exactly these types
        return SafeJSONResponse(fault.to_dict(), status_code=503,
                                headers={"Retry-After": retry_after(fault)})

    for kind in (*redis_errors(), *storage_errors()):
        app.add_exception_handler(kind, outage)


async def answer_asgi(send: Any, err: ServerError) -> None:
    """Send ``err`` as the whole HTTP answer, from ASGI middleware (outside the routes)."""
    body = json.dumps(err.to_dict()).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    if err.retry_after_s is not None:
        headers.append((b"retry-after", retry_after(err).encode()))
    await send({"type": "http.response.start", "status": err.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def close_socket(ws: Any, err: ServerError) -> None:
    """Tell a WebSocket client ``err`` and close it with 1013 (try again later); accepted first
    if it was not yet. A client already gone is not an error."""
    from starlette.websockets import WebSocketState

    from kemps.server.protocol import error_message

    try:
        if ws.client_state == WebSocketState.CONNECTING:
            await ws.accept()
        await ws.send_json(error_message(err.code, err.message))
        await ws.close(code=CLOSE_TRY_AGAIN)
    except Exception:  # noqa: BLE001 - it hung up: nothing more to tell
        pass


__all__ = ["CLOSE_TRY_AGAIN", "answer_asgi", "close_socket", "fault_for", "install",
           "redis_errors", "storage_errors"]
