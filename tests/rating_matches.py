"""Finished matches to rate, stored as the server stores them (issue 32's rating tests).

Every match is seed 000's worked game (docs/examples/seed000-worked-game.json, S0 "A worked game":
Alice & Cara beat Ben & Dev), with the player ids of its seats in ``summary["players"]`` (as
``Room.finished_row`` writes them) and, where a test scripts another result, its ranks replaced.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kemps.record import MatchRecord, match_summary, replay
from kemps.server.storage import Storage

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed000-worked-game.json"


def worked_match(players: Sequence[str | None], ranks: Sequence[int] | None = None,
                 room: str = "RATED", match_no: int = 1) -> dict[str, Any]:
    """The worked game as a ``matches`` row's fields (for :meth:`Storage.save_match`), seats
    0..3 played by ``players``; ``ranks``: pair 0's and pair 1's final ranks (default the game's
    own, 1 and 2)."""
    record = json.loads(EXAMPLE.read_text())
    replayed = replay(MatchRecord.from_dict(record))
    summary = match_summary(replayed.table, replayed.events)
    if ranks is not None:
        for row, rank in zip(summary["pairs"], ranks):
            row["rank"] = rank
    summary["players"] = list(players)
    return {"code": room, "match_no": match_no, "rules": record["rules"],
            "names": record["names"], "summary": summary, "record": record}


async def store(storage: Storage, *matches: dict[str, Any]) -> list[int]:
    """Store finished matches in order; their ids."""
    return [await storage.save_match(**m) for m in matches]


def key_of(n: int) -> str:
    """A browser's private key, the ``n``-th of the tests (43 URL-safe characters)."""
    return f"test-key-{n:04d}".ljust(43, "k")
