"""Run a real kemps server for tests: uvicorn on a free loopback port, in a thread or a process."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn

from kemps.server.app import create_app
from kemps.server.settings import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Running:
    """A running server: its base URL (``http://127.0.0.1:PORT``) and WebSocket base."""

    url: str
    port: int
    app: object | None = None

    @property
    def ws(self) -> str:
        return self.url.replace("http://", "ws://")


@contextlib.contextmanager
def server_thread(database_url: str, **settings: object) -> Iterator[Running]:
    """A server in a background thread (its own event loop), stopped cleanly on exit."""
    port = free_port()
    app = create_app(Settings(database_url=database_url, port=port, **settings))  # type: ignore[arg-type]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            ws="websockets-sansio", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a condition: long only on a loaded machine
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield Running(f"http://127.0.0.1:{port}", port, app)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@contextlib.contextmanager
def server_process(database_url: str, port: int | None = None,
                   env: dict[str, str] | None = None) -> Iterator[Running]:
    """``kemps serve`` as a real child process (for stop-and-restart tests)."""
    import tempfile

    port = port or free_port()
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kemps", "serve", "--port", str(port), "--database-url",
             database_url], env={**os.environ, **(env or {})}, stdout=log,
            stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120  # a condition: long only on a loaded machine
        while True:
            try:
                httpx.get(url + "/api/presets", timeout=1.0)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    proc.kill()
                    proc.wait()
                    log.seek(0)
                    raise RuntimeError("kemps serve did not start: "
                                       + log.read().decode(errors="replace")) from None
                time.sleep(0.1)
        try:
            yield Running(url, port)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def sqlite_url(tmp: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp / 'kemps-test.sqlite'}"
