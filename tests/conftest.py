"""Shared fixtures: a database URL (SQLite, and PostgreSQL where one answers) and a browser.

PostgreSQL: ``KEMPS_TEST_POSTGRES_URL`` (default ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``).
Where none answers those tests skip with a message, unless ``KEMPS_REQUIRE_POSTGRES=1`` (set by
``.ci/run``), which makes them fail. The browser is Debian's Chromium (``KEMPS_CHROMIUM`` to point
elsewhere) driven by Playwright; without one the browser tests skip with a message, unless
``KEMPS_REQUIRE_BROWSER=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from serving import sqlite_url

PG_URL = os.environ.get("KEMPS_TEST_POSTGRES_URL",
                        "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
CHROMIUM = os.environ.get("KEMPS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]


def postgres_answers() -> bool:
    """True when something listens on PostgreSQL's port on this machine."""
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1.0):
            return True
    except OSError:
        return False


def reset_postgres() -> None:
    """Drop every table the server makes (and Alembic's version table) from the test database."""
    from kemps.server.nodebench import empty_database

    empty_database(PG_URL)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database: a SQLite file, then (second parameter) the PostgreSQL test database."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    if not postgres_answers():
        if os.environ.get("KEMPS_REQUIRE_POSTGRES") == "1":
            pytest.fail("KEMPS_REQUIRE_POSTGRES=1 but no PostgreSQL answers on 127.0.0.1:5432")
        pytest.skip("no PostgreSQL on 127.0.0.1:5432 (CI requires one: KEMPS_REQUIRE_POSTGRES=1)")
    reset_postgres()
    yield PG_URL
    reset_postgres()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """A headless Chromium (Playwright ``Browser``) for the module's tests."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("KEMPS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"KEMPS_REQUIRE_BROWSER=1 but there is no Chromium at {CHROMIUM}")
        pytest.skip(f"no Chromium at {CHROMIUM}: install it (apt-get install chromium) to run "
                    "the browser tests")
    from playwright.sync_api import expect, sync_playwright

    # Every expect(...) waits up to 20 s for its condition, not Playwright's 5 s: on a loaded
    # machine a page's socket has taken more than 5 s to connect (test_page_people's spectator,
    # "connecting…" at load 30). A condition that holds returns at once; only a failure waits.
    expect.set_options(timeout=20_000)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS)
        try:
            yield b
        finally:
            b.close()
