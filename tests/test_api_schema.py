"""The HTTP API says what it does: Schemathesis, with every check, against a real ``kemps serve``
(issue 31: zero findings from an outside fuzzer).

The configuration (seed, examples per operation) is in ``tests/schemathesis.toml``: every check
with Schemathesis's own expected statuses, but that the routes declaring a 400 (what the rules or
the desk refuse that JSON Schema cannot say, kemps.server.api.WHY_400) may answer a schema-valid
request with it; the test below holds that list to the schema. The schema's links lead the
stateful phase from a new room, sheet, hand or tournament to the routes that use it. Any failure,
or any server error, fails this test with Schemathesis's report. About 4,500 requests: about 70 s
on a two-core machine at load 3-6, about four minutes at load 30.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from serving import server_process, sqlite_url

CONFIG = Path(__file__).resolve().parent / "schemathesis.toml"


def _schemathesis() -> str:
    found = Path(sys.executable).parent / "schemathesis"
    return str(found) if found.exists() else (shutil.which("schemathesis") or "schemathesis")


@pytest.mark.slow
def test_schemathesis_all_checks_pass(tmp_path: Path) -> None:
    with server_process(sqlite_url(tmp_path)) as srv:
        schema = httpx.get(srv.url + "/openapi.json", timeout=10).json()
        assert schema["paths"], "the server declares no routes"
        proc = subprocess.run(
            [_schemathesis(), "--config-file", str(CONFIG), "--no-color", "run",
             srv.url + "/openapi.json", "--checks", "all", "--report", "har",
             "--report-har-path", str(tmp_path / "run.har")],
            cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
            stdin=subprocess.DEVNULL, env={**os.environ, "NO_COLOR": "1"})
        alive = httpx.get(srv.url + "/api/presets", timeout=10).status_code
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-12000:]
    assert alive == 200
    # It really ran: every operation tested, each phase passed, thousands of cases.
    tested = re.search(r"Tested:\s+(\d+)", out)
    assert tested is not None and int(tested.group(1)) == sum(
        len(ops) for ops in schema["paths"].values()), out[-3000:]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert re.search(rf"✅\s+{phase}", out), f"phase {phase} did not pass:\n{out[-3000:]}"
    cases = re.search(r"(\d+) generated", out)
    assert cases is not None and int(cases.group(1)) >= 3000, out[-3000:]
    # The stateful phase reached rooms, seats, sheets and tournaments that exist (random join
    # codes are only ever found through the links).
    ok = _successes(tmp_path / "run.har")
    for want in (("GET", "/api/rooms/{code}"), ("GET", "/api/desk/tournaments/{id}"),
                 ("POST", "/api/desk/sheets/{id}/hands"), ("GET", "/api/desk/sheets/{id}")):
        assert ok[want] > 0, (want, ok)
    assert ok["POST", "/api/rooms/{code}/seats"] + ok["POST", "/api/rooms/{code}/bots"] + ok[
        "PUT", "/api/rooms/{code}/rules"] > 0, ok


def test_only_the_routes_that_declare_a_400_may_answer_a_schema_valid_request_with_it(
        tmp_path: Path) -> None:
    """The fuzzer's one allowance (tests/schemathesis.toml) is exactly the routes whose schema
    declares a 400 with what it refuses; everywhere else a schema-valid request answered 400 or
    422 fails the run, as Schemathesis's defaults say."""
    from kemps.server.api import ROUTES, WHY_400

    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert "positive_data_acceptance" not in config.get("checks", {})  # the defaults elsewhere
    [allowance] = config["operations"]
    allowed = allowance["checks"]["positive_data_acceptance"]["expected-statuses"]
    assert "400" in allowed and "422" not in allowed
    declaring = {name for name, statuses in ROUTES.items() if 400 in statuses}
    assert set(allowance["include-operation-id"]) == declaring == set(WHY_400)
    from kemps.server.app import create_app
    from kemps.server.settings import Settings

    schema = create_app(Settings(database_url=sqlite_url(tmp_path))).openapi()  # as served
    served = {op["operationId"] for ops in schema["paths"].values() for op in ops.values()
              if "400" in op["responses"]}
    assert served == declaring


def _successes(har: Path) -> Counter[tuple[str, str]]:
    """2xx answers in a HAR file, by method and route (ids and codes as placeholders)."""
    out: Counter[tuple[str, str]] = Counter()
    for entry in json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]:
        if not 200 <= entry["response"]["status"] < 300:
            continue
        path = urlsplit(entry["request"]["url"]).path
        if path != "/api/rooms":
            path = re.sub(r"^/api/rooms/[^/]+", "/api/rooms/{code}", path)
        path = re.sub(r"/(sheets|tournaments)/\d+", r"/\1/{id}", path)
        out[entry["request"]["method"], path] += 1
    return out


def test_the_rule_options_body_names_every_rule_option() -> None:
    """The API's rule-options body and the rule set cannot drift apart: every option of
    kemps.rules is accepted by the body, and nothing else."""
    from kemps.rules import RuleSet
    from kemps.server.bodies import RuleOptions

    assert set(RuleOptions.model_fields) == set(RuleSet().to_dict())
