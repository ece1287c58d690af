"""The online table server: rooms, the authoritative table per room, WebSockets, storage, the page.

Modules: :mod:`settings` (where and what), :mod:`storage` (SQLAlchemy 2 async behind a small
interface), :mod:`protocol` (the WebSocket messages, validated), :mod:`room` (one authoritative table
per room: arbitration, timers, bots, per-seat views), :mod:`app` (FastAPI routes), :mod:`cli`
(``kemps serve``).
"""
