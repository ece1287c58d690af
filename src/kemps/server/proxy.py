"""A TCP proxy that cuts or hangs the road to a service, for fault injection (``kemps soak``, and
the fault tests): the database or Redis seen through it goes away, hangs and comes back, while
the machine's real service is never stopped.

:class:`CuttingProxy` runs in the event loop that starts it: :attr:`mode` ``"pass"`` relays bytes
both ways, ``"cut"`` closes every connection and refuses new ones, ``"hang"`` holds every byte
(a service that seems to hang).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Literal


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class CuttingProxy:
    """A proxy on a free loopback port (:attr:`port`) to ``host:port``."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = free_port()
        self.mode: Literal["pass", "cut", "hang"] = "pass"
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "cut":
            writer.transport.abort()
            return
        try:
            up_r, up_w = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, up_w))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    while self.mode == "hang":
                        await asyncio.sleep(0.05)
                    if self.mode == "cut":
                        break
                    dst.write(data)
                    await dst.drain()
            except (OSError, ConnectionError):
                pass
            finally:
                dst.transport.abort()

        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))
        self._writers.difference_update((writer, up_w))

    def abort_all(self) -> None:
        """Close every connection through the proxy at once (no goodbye)."""
        for w in list(self._writers):
            w.transport.abort()
        self._writers.clear()

    def cut(self) -> None:
        self.mode = "cut"
        self.abort_all()

    def hang(self) -> None:
        self.mode = "hang"

    def restore(self) -> None:
        self.mode = "pass"

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()


__all__ = ["CuttingProxy", "free_port"]
