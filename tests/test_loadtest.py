"""The server load benchmark runs end to end (tiny sizes; the figures are not checked here: speed
targets live in docs/benchmarks.md, written by ``kemps bench-server``)."""

from __future__ import annotations

import pytest

from kemps.server.loadtest import report, run_server_benchmark


def test_a_tiny_load_step_measures_the_table_server_against_the_echo_floor() -> None:
    results = run_server_benchmark(steps=(8,), seconds=3.0, runs=1)
    assert len(results) == 1
    c = results[0]
    for r in c.table + c.echo:
        assert r.ok, r.failure
        assert r.players == 8 and r.updates > 0 and r.actions > 0
        # every timed action sent is in exactly one column: none dropped silently
        assert r.sent == r.measured + r.rejected + r.incomplete + r.unanswered
        assert r.sent >= r.measured > 0 and min(r.rejected, r.incomplete, r.unanswered) >= 0
        assert 0 < r.p50_ms <= r.p99_ms <= r.max_ms
        # read from the server process's /proc: at 10 ms a tick, a few seconds of an idle echo
        # may well read 0; the reader itself is checked on this process below
        assert r.server_cpu_ms_per_action >= 0 and r.kb_per_player >= 0
    assert [r.kind for r in c.table] == ["table"] and [r.kind for r in c.echo] == ["echo"]
    import os
    import sys

    from kemps.server.loadtest import _proc_cpu_s, _proc_rss_kb

    if sys.platform.startswith("linux"):
        assert _proc_cpu_s(os.getpid()) > 0 and _proc_rss_kb(os.getpid()) > 1000
    text = report(results)
    assert "| 8 |" in text and "p99 ratio" in text and "echo" in text
    t = c.table[0]
    assert (f"| 8 | table | 1 | {t.sent:,} | {t.measured:,} | {t.rejected:,} | "
            f"{t.incomplete:,} | {t.unanswered:,} |") in text


def test_a_failed_run_is_reported_with_its_reason_and_the_others_still_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: one failed run no longer aborts the benchmark and writes nothing."""
    from kemps.server import loadtest

    def step(kind: str, players: int, seconds: float, seed: int = 0,
             database_url: str | None = None) -> loadtest.StepResult:
        if kind == "table" and seed == 1:
            raise RuntimeError("no complete updates were measured (a test's failure)")
        return loadtest.StepResult(kind, players, seconds, updates=90, actions=100,
                                   p50_ms=2.0, p99_ms=8.0 if kind == "table" else 2.0,
                                   max_ms=9.0, sent=100, rejected=4, incomplete=1,
                                   unanswered=5, server_cpu_ms_per_action=0.6
                                   if kind == "table" else 0.3)

    monkeypatch.setattr(loadtest, "run_step", step)
    results = loadtest.run_server_benchmark(steps=(1000,), seconds=1.0, runs=3)
    c = results[0]
    assert [r.ok for r in c.table] == [True, False, True] and all(r.ok for r in c.echo)
    assert "a test's failure" in c.table[1].failure
    # ratios round by round, only where both runs of the round gave figures
    assert loadtest.round_ratios(c, "p99_ms") == [4.0, 4.0]
    text = loadtest.report(results)
    assert "| 1,000 | table | 2 | **failed** (below)" in text
    assert "- 1,000 players, table, run 2: RuntimeError: no complete updates" in text
    assert "| 1,000 | table | 3 | 100 | 90 | 4 | 1 | 5 |" in text
    assert "| 1 / 0 |" in text  # failed runs, table / echo
    assert "**NOT met** (4.0x)" in text


def test_start_up_restores_only_the_live_rooms_of_a_full_database() -> None:
    """Tiny sizes: with the limits only the live rooms (two mid-match, replayed) come back; as
    before the limits, every stored room did."""
    from kemps.server.startup_bench import report as startup_report
    from kemps.server.startup_bench import run_startup_benchmark

    cases = run_startup_benchmark(live=6, playing=2, archived=40, repeats=1)
    assert [(c.stored, c.restored) for c in cases] == [(46, 6), (46, 46)]
    assert "| 46 | 6 |" in startup_report(cases, 6, 2, 40)
