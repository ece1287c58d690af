"""The ``kemps`` command line: help, presets, run, simulate, replay, and clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from kemps.cli import app

runner = CliRunner()


def test_help_lists_the_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("run", "simulate", "replay", "presets", "rules", "bench"):
        assert command in result.output


def test_presets_and_rules() -> None:
    result = runner.invoke(app, ["presets"])
    assert result.exit_code == 0
    for name in ("pagat", "squarescores", "seed2-tournament", "points-to-five", "kent", "cash",
                 "canes", "peanut-butter"):
        assert name in result.output
    kent = runner.invoke(app, ["rules", "kent"])
    assert kent.exit_code == 0 and "KENT" in kent.output and "Stop Kent" in kent.output
    bad = runner.invoke(app, ["rules", "poker"])
    assert bad.exit_code == 2 and "unknown_preset" in bad.output


def test_run_prints_a_whole_match_and_writes_its_record(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    result = runner.invoke(app, ["run", "--seed", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Hand 1:" in result.output and "Match over." in result.output
    assert "Standings" in result.output
    replayed = runner.invoke(app, ["replay", str(out), "--json"])
    data = json.loads(replayed.output)
    assert data["over"] is True and len(data["winners"]) >= 1


def test_run_with_changed_options() -> None:
    result = runner.invoke(app, ["run", "--rules", "kent", "--pairs", "3", "--seed", "1",
                                 "--set", "double_calls=true"])
    assert result.exit_code == 0, result.output
    assert "3 pairs" in result.output and "Match over." in result.output
    bad = runner.invoke(app, ["run", "--set", "pairs=13"])
    assert bad.exit_code == 2 and "bad_option" in bad.output and "pairs" in bad.output
    worse = runner.invoke(app, ["run", "--set", "nonsense"])
    assert worse.exit_code == 2 and "option=value" in worse.output


def test_simulate_json_and_records(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", "--rules", "cash", "--pairs", "2", "--matches", "3",
                                 "--seed", "10", "--json", "--records", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [m["seed"] for m in data["matches"]] == [10, 11, 12]
    assert all(m["over"] for m in data["matches"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "match-10.json", "match-11.json", "match-12.json"]
    table = runner.invoke(app, ["simulate", "--matches", "2"])
    assert table.exit_code == 0 and "2 matches of pagat" in table.output


def test_replay_of_a_broken_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2 and "bad_record" in result.output


def test_python_dash_m_kemps() -> None:
    result = subprocess.run([sys.executable, "-m", "kemps", "--version"], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0 and result.stdout.startswith("kemps ")


def test_write_section_keeps_the_other_sections(tmp_path: Path) -> None:
    from kemps.cli import write_section

    doc = tmp_path / "bench.md"
    write_section(doc, "engine", "# Engine\nfast")
    write_section(doc, "server", "## Server\np99 3 ms")
    write_section(doc, "engine", "# Engine\nfaster")
    text = doc.read_text()
    assert "faster" in text and "fast\n" not in text and "p99 3 ms" in text
    assert text.index("Engine") < text.index("Server")


def test_serve_on_a_port_in_use_says_so_and_stops(tmp_path: Path) -> None:
    """`make run` beside another server: one sentence naming the port and how to choose another
    (exit 2), not uvicorn's error after the banner."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "kemps", "serve", "--port", str(port),
                               "--database-url", f"sqlite+aiosqlite:///{tmp_path / 'k.sqlite'}"],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done
    assert f"127.0.0.1:{port} is in use" in done.stderr and "KEMPS_PORT" in done.stderr
    assert "kemps server on" not in done.stdout
