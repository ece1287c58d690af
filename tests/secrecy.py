"""Secrecy checks shared by the signal tests: every HTTP route of the app walked, every answer
(and every WebSocket message) searched for what would tell a pair's signal agreements.

``routes(app)`` lists every route the app serves (included routers too); ``walk`` requests each
one with every method it takes, its path filled in from known values, anonymously and with the
tokens given; ``signal_leaks(obj, pair, pairs)`` names whatever in one JSON answer tells which of
``pair``'s gestures are (or were) its agreed signals.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

#: The actions and events that tell a pair's signals (kemps.actions.SIGNAL_ACTIONS and their
#: events), and the words of their sentences (kemps.narrate).
PRIVATE_KINDS = frozenset({"agree_signals", "signals_agreed", "propose_signals",
                           "signals_proposed", "decline_signals", "signals_declined"})
PRIVATE_SENTENCES = ("agree a signal", "proposes a new signal", "keeps the pair's signal")

#: Path parameters the walk knows how to fill (a new one fails the walk until it is added).
PARAMETER = re.compile(r"{([a-z_]+)(?::[a-z]+)?}")


def routes(app: Any) -> list[tuple[str, frozenset[str]]]:
    """Every ``(path, methods)`` the app routes to, included routers' routes too; mounts (static
    files, the offline docs' assets) as ``(path, {"MOUNT"})``."""
    found: list[tuple[str, frozenset[str]]] = []

    def visit(items: list[Any]) -> None:
        for r in items:
            if hasattr(r, "original_router"):
                visit(r.original_router.routes)
            elif getattr(r, "methods", None):
                found.append((r.path, frozenset(r.methods)))
            elif hasattr(r, "app") and hasattr(r, "path"):
                found.append((r.path, frozenset({"MOUNT"})))

    visit(list(app.routes))
    return found


@dataclass
class Answer:
    method: str
    path: str
    status: int
    body: Any  # the parsed JSON, or the text
    json: bool
    headers: dict[str, str] = field(default_factory=dict)


def walk(base_url: str, app: Any, values: dict[str, str],
         tokens: list[str | None]) -> list[Answer]:
    """Request every route of ``app`` once per method, the path's parameters from ``values``:
    GET once per token (None: anonymously); other methods anonymously, with an empty JSON object
    (so they change nothing: refused for the token or the body; with a seat's token a DELETE
    would clear the seat). The history is asked for the room too (``?room=CODE``)."""
    answers: list[Answer] = []
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for path, methods in routes(app):
            if "MOUNT" in methods:
                continue
            names = PARAMETER.findall(path)
            missing = [n for n in names if n not in values]
            assert not missing, f"the walk cannot fill {missing} of {path}: add them"
            url = PARAMETER.sub(lambda m: values[m.group(1)], path)
            queries = [""] + (["?room=" + values["code"]] if path == "/api/history" else [])
            for method in sorted(methods - {"HEAD", "OPTIONS"}):
                for token in tokens if method == "GET" else [None]:
                    headers = {"Authorization": f"Bearer {token}"} if token else {}
                    for query in queries:
                        kwargs: dict[str, Any] = {"headers": headers}
                        if method != "GET":
                            kwargs["json"] = {}
                        r = client.request(method, url + query, **kwargs)
                        is_json = r.headers.get("content-type", "").startswith(
                            "application/json")
                        answers.append(Answer(method, path + query, r.status_code,
                                              r.json() if is_json else r.text, is_json,
                                              dict(r.headers)))
    return answers


def _nodes(obj: Any) -> Iterator[Any]:
    yield obj
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _nodes(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _nodes(v)


def signal_leaks(obj: Any, pair: int, pairs: int, players: tuple[str, ...] = ()) -> list[str]:
    """What in ``obj`` (a parsed JSON answer or message) tells ``pair``'s signal agreements:
    an agreement, a proposal or an answer to one (action or event) of the pair; a gesture or tell strip entry of one of its
    seats marked signal or not; a signal marker of its seats; the tell's figures of the pair or
    its players; a call judged against its signal; a sentence telling an agreement that names
    one of ``players`` (the pair's names; none given: any agreement's sentence; a proposal's or
    its answer's likewise)."""
    seats = {pair, pair + pairs}
    found: list[str] = []
    for node in _nodes(obj):
        if isinstance(node, str):
            if any(words in node for words in PRIVATE_SENTENCES) and (
                    not players or any(n in node for n in players)):
                found.append(f"sentence {node!r}")
            continue
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        seat = node.get("seat") if isinstance(node.get("seat"), int) else None
        if isinstance(kind, str) and kind in PRIVATE_KINDS and (
                node.get("pair") == pair or (seat is not None and seat % pairs == pair)):
            found.append(f"agreement {node}")
        if node.get("signal") is not None and seat in seats:
            found.append(f"gesture marked signal={node['signal']} by seat {seat}")
        if node.get("kind") == "signal" and seat in seats:
            found.append(f"signal marker {node}")
        if node.get("pair") == pair and "withheld" in node and (
                node["withheld"] is not True or node.get("signals")):
            found.append(f"the pair's figures {node}")
        if seat in seats and node.get("signals_given") is not None:
            found.append(f"a player's signals given {node}")
        if node.get("after_signal_s") is not None and (
                node.get("by") in seats if node.get("kind") == "kemps"
                else node.get("on_pair") == pair or node.get("on_seat") in seats):
            found.append(f"a call timed from the pair's signal {node}")
    return found


def answer_leaks(answers: list[Answer], pair: int, pairs: int, players: tuple[str, ...],
                 room_code: str) -> list[str]:
    """Every leak of ``pair``'s signals in the walked answers; a text (not JSON) answer must
    carry nothing of the room at all (the pages and exports are the same for every room)."""
    out: list[str] = []
    for a in answers:
        if a.json:
            out += [f"{a.method} {a.path} ({a.status}): {leak}"
                    for leak in signal_leaks(a.body, pair, pairs, players)]
        elif room_code in a.body:
            out.append(f"{a.method} {a.path} ({a.status}): a text answer names the room")
    return out


@dataclass
class Listener:
    """A WebSocket client on a thread of its own that keeps every message it is sent."""

    url: str
    messages: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._open = threading.Event()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        assert self._open.wait(30), "the WebSocket did not open"
        if self._failed is not None:
            raise self._failed

    def _read(self) -> None:
        try:
            with connect(self.url, max_size=2**22, open_timeout=20) as ws:
                self.ws = ws
                self._open.set()
                for raw in ws:
                    with self._lock:
                        self.messages.append(json.loads(raw))
        except ConnectionClosed:
            return
        except BaseException as err:  # noqa: BLE001  (told to the test that opened it)
            self._failed = err
        finally:
            self._open.set()

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def seen(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.messages)

    def view(self) -> dict[str, Any] | None:
        """The latest view this client was sent."""
        return next((m["view"] for m in reversed(self.seen()) if m.get("view")), None)

    def close(self) -> None:
        self.ws.close()
        self._thread.join(timeout=10)
