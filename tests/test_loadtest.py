"""The server load benchmark runs end to end (tiny sizes; the figures are not checked here: speed
targets live in docs/benchmarks.md, written by ``kemps bench-server``)."""

from __future__ import annotations

from kemps.server.loadtest import report, run_server_benchmark


def test_a_tiny_load_step_measures_the_table_server_against_the_echo_floor() -> None:
    results = run_server_benchmark(steps=(8,), seconds=3.0, runs=1)
    assert len(results) == 1
    c = results[0]
    for r in c.table + c.echo:
        assert r.players == 8 and r.updates > 0 and r.actions > 0
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


def test_start_up_restores_only_the_live_rooms_of_a_full_database() -> None:
    """Tiny sizes: with the limits only the live rooms (two mid-match, replayed) come back; as
    before the limits, every stored room did."""
    from kemps.server.startup_bench import report as startup_report
    from kemps.server.startup_bench import run_startup_benchmark

    cases = run_startup_benchmark(live=6, playing=2, archived=40, repeats=1)
    assert [(c.stored, c.restored) for c in cases] == [(46, 6), (46, 46)]
    assert "| 46 | 6 |" in startup_report(cases, 6, 2, 40)
