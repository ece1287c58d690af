"""Alembic environment: migrations run on the connection the server hands over (async engine,
``connection.run_sync``), or on ``sqlalchemy.url`` when run from the alembic command line."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from kemps.server.storage import Base

target_metadata = Base.metadata
config = context.config


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        url = config.get_main_option("sqlalchemy.url") or ""
        engine = create_engine(url.replace("+aiosqlite", "").replace("+asyncpg", "+psycopg"))
        with engine.connect() as conn:
            context.configure(connection=conn, target_metadata=target_metadata)
            with context.begin_transaction():
                context.run_migrations()
        return
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


run()
