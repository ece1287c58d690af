"""``kemps soak``: a short soak in the suite, and the check it makes of acknowledged actions.

Issue 26: "a bounded command (`kemps soak --minutes M`) that runs many rooms of bots and a few
connecting and dropping clients against one server for M minutes, with faults injected at random
(kill -9 and restart, storage paused, clients cut), and reports memory, open files, tasks, p99
latency and acknowledged actions lost, over time; a short run in CI". The long run's figures are
in docs/benchmarks.md ("Soak").
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from kemps.server.soak import _check_acks, slope_per_min
from kemps.server.storage import Storage
from serving import sqlite_url


def test_a_short_soak_loses_nothing_acknowledged(tmp_path: Path) -> None:
    """Half a minute, three rooms of bots and two players, a fault every ~5 s (the first three
    are one of each kind): nothing acknowledged lost, no unhandled error, every sample taken."""
    out = tmp_path / "soak.json"
    done = subprocess.run(
        [sys.executable, "-m", "kemps", "soak", "--minutes", "0.5", "--rooms", "3",
         "--players", "2", "--fault-every", "5", "--sample-s", "3", "--seed", "7",
         "--json", str(out)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["ok"] and report["lost"] == 0, report["lost_examples"]
    assert report["tracebacks"] == 0 and report["internal_errors"] == 0
    assert report["acknowledged"] > 20
    assert {kind for _, kind, _ in report["faults"]} == {"kill", "storage", "cut"}
    assert len(report["restart_s"]) >= 2  # started, and started again after the kill
    samples = report["samples"]
    assert len(samples) >= 8
    assert max(s["life"] for s in samples) >= 2
    # every sample of a server that answered has its figures (one starting again may not)
    answered = [s for s in samples if s["tasks"]]
    assert len(answered) >= 4
    assert all(s["rss_mb"] > 30 and s["files"] > 3 and s["threads"] for s in answered)
    assert any(s["p99_ms"] for s in samples)
    assert "Acknowledged actions lost: 0" in done.stdout


def test_the_check_counts_an_acknowledged_action_missing_from_the_record(
        tmp_path: Path) -> None:
    """The soak's loss check against a real database: a stored action acknowledged once is
    there; acknowledged twice, or never stored, it is lost."""
    url = sqlite_url(tmp_path)
    swap = {"type": "swap", "seat": 0, "take": ["7C"], "give": ["2D"]}

    async def run() -> list[int]:
        storage = Storage(url)
        await storage.start()
        await storage.append_entries("SOAKS", 1, [(0, 1.5, "action", swap), (1, 2.0, "tick",
                                                                             None)])
        await storage.close()
        stored = ("SOAKS", 1, json.dumps(swap, sort_keys=True))
        other = ("SOAKS", 2, json.dumps(swap, sort_keys=True))
        return [(await _check_acks(url, acks))[0]
                for acks in ([stored], [stored, stored], [stored, other])]

    assert asyncio.run(run()) == [0, 1, 1]


def test_slopes() -> None:
    assert slope_per_min([(0, 1.0), (1, 3.0), (2, 5.0), (3, 7.0)]) == 2.0
    assert slope_per_min([(0, 1.0), (1, 1.0), (2, 1.0)]) is None  # too few points
