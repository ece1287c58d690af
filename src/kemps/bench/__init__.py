"""Engine benchmarks: :mod:`kemps.bench.measure` takes the figures, :mod:`kemps.bench.report`
writes ``docs/benchmarks.md`` from them (``make bench`` / ``kemps bench``)."""

from kemps.bench.measure import deep_size, mid_hand_table, record_stream, rules_for
from kemps.bench.report import run_benchmarks

__all__ = ["deep_size", "mid_hand_table", "record_stream", "rules_for", "run_benchmarks"]
