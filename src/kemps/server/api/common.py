"""What the routers of the JSON API share: the server process they serve (a dependency), the
room code and ``Authorization`` parameters, the client's address and the seat's token."""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated

from fastapi import Depends, Header, Path, Request, WebSocket

from kemps.server.process import Server

#: The page's files (``/static``, the pages the routes serve).
STATIC = FilePath(__file__).resolve().parent.parent / "static"


def the_server(request: Request) -> Server:
    """The server process the app serves (``app.state.server``, set by ``create_app``)."""
    server: Server = request.app.state.server
    return server


TheServer = Annotated[Server, Depends(the_server)]
RoomCode = Annotated[str, Path(min_length=1, max_length=16, description="the room's join code",
                               examples=["K7QMX"])]
Authorization = Annotated[str | None, Header(max_length=200, description="`Bearer TOKEN`: the "
                                             "token of a seat (host routes: the host's)")]


def client_address(request: Request | WebSocket) -> str:
    """The client's address (what the per-address limits count): the peer's, or, from a peer in
    ``KEMPS_TRUSTED_PROXIES``, the one its ``X-Forwarded-For`` names (uvicorn puts it in the
    scope; ``kemps serve`` configures it)."""
    return request.client.host if request.client is not None else ""


def seat_address(server: Server, request: Request) -> str | None:
    """The address the seats-per-address bound counts; None (not counted) for a request another
    node forwarded (many nodes): it comes from that node, not from the client."""
    if server.cluster is not None and "x-kemps-forwarded" in request.headers:
        return None
    return client_address(request)


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None
