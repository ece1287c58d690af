"""The benchmark report: a quick run produces every figure's row with a positive number.

No timing assertions: only that each figure is measured and reported with a verdict.
"""

from __future__ import annotations

import re

import pytest

from kemps.actions import Deal
from kemps.bench import deep_size, mid_hand_table, record_stream, rules_for, run_benchmarks
from kemps.cards import shuffled_pack

ROWS = (
    "Table.apply actions/s (pagat, 2 pairs)",
    "Table.apply actions/s (pagat, 6 pairs)",
    "Simulated hands/s (pagat, 2 pairs, 4 simple bots)",
    "Simulated matches/s (pagat, 2 pairs, 4 simple bots)",
    "Table memory, tracemalloc (pagat, 2 pairs)",
    "Table memory, deep sys.getsizeof (pagat, 2 pairs)",
    "Replay actions/s (pagat, 2 pairs)",
)
TARGETED = ROWS[:3] + ROWS[4:6]


@pytest.fixture(scope="module")
def report() -> str:
    return run_benchmarks(quick=True)


def _row(report: str, label: str) -> list[str]:
    for line in report.splitlines():
        if line.startswith(f"| {label} |"):
            return [c.strip() for c in line.strip().strip("|").split("|")]
    raise AssertionError(f"no row {label!r} in the report")


@pytest.mark.parametrize("label", ROWS)
def test_row_has_positive_number(report: str, label: str) -> None:
    measured = _row(report, label)[1]
    m = re.match(r"([\d,]+(?:\.\d+)?) ", measured)
    assert m, measured
    assert float(m.group(1).replace(",", "")) > 0


@pytest.mark.parametrize("label", TARGETED)
def test_targeted_rows_say_met_or_not(report: str, label: str) -> None:
    verdict = _row(report, label)[3]
    assert verdict in ("met", "**NOT met**")


def test_report_has_machine_date_command_and_method(report: str) -> None:
    for heading in ("## Machine", "## Command", "## How measured"):
        assert heading in report
    assert "os.cpu_count()" in report
    assert "platform.processor()" in report
    assert "make bench" in report and "kemps bench" in report
    assert re.search(r"on \d{4}-\d\d-\d\d \d\d:\d\d", report)


def test_stream_replays_as_simulated() -> None:
    stream = record_stream(rules_for(2), seed=3)
    assert len(stream.items) >= len(stream.record.actions) > 0
    assert any(isinstance(a, Deal) for _, a in stream.items)
    times = [t for t, _ in stream.items]
    assert times == sorted(times)


def test_deep_size_counts_a_mid_hand_table() -> None:
    import random

    rules = rules_for(2)
    rng = random.Random(1)
    table = mid_hand_table(rules, Deal(tuple(shuffled_pack(rules.deck_count, rng)), 5))
    assert table.phase == "play"
    total, parts = deep_size(table)
    assert total > sum(parts.values()) > 0
    assert parts["hands"] > 0 and parts["middle"] > 0


@pytest.mark.parametrize("level", ["simple", "sharp"])
def test_the_simulator_is_given_as_a_ratio_to_a_floor_of_the_same_run(report: str,
                                                                       level: str) -> None:
    """Issue 29: the simulator's speed against a floor measured in the same run (the same
    matches' accepted actions in a bare loop of applies), median and spread; the bots, driver
    and views cost something on top, so the ratio is above 1."""
    line = next(x for x in report.splitlines()
                if x.startswith(f"| simulated matches, 4 {level} bots"))
    row = [c.strip() for c in line.strip().strip("|").split("|")]
    m = re.fullmatch(r"([\d.]+)x \(([\d.]+)-([\d.]+)\)", row[3])
    assert m, row[3]
    median, low, high = (float(x) for x in m.groups())
    assert 1.0 < low <= median <= high
