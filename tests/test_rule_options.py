"""Each rule option is declared once (kemps.rule_options) and everything else is drawn from it:
the rule set's checks and field types, the option schema the page's rule form reads (labels
included), the JSON API's ``RuleOptions`` body and docs/rules.md's option table."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any

import pytest

from kemps.errors import RuleError
from kemps.rule_options import BY_NAME, OPTIONS, markdown_table
from kemps.rules import RuleSet, find_preset, option_schema

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def test_every_rule_set_option_is_declared_exactly_once() -> None:
    fields = [f.name for f in dataclasses.fields(RuleSet) if f.name not in ("name", "aliases")]
    assert sorted(fields) == sorted(o.name for o in OPTIONS)
    assert len(BY_NAME) == len(OPTIONS)
    for o in OPTIONS:
        assert o.group and o.label and o.line and o.seed and o.doc, o.name
        assert "S" in o.seed, o.name  # every option cites the seeds it comes from


def test_a_choice_field_takes_its_type_from_the_declaration() -> None:
    hints = typing.get_type_hints(RuleSet)
    for o in OPTIONS:
        if o.kind == "choice":
            assert typing.get_args(hints[o.name]) == o.choices, o.name
        else:
            assert {"bool": bool, "seconds": float, "int": int, "text": str}[o.kind] is hints[
                o.name], o.name


@pytest.mark.parametrize("option", [o for o in OPTIONS if o.kind == "choice"],
                         ids=lambda o: o.name)
def test_the_rules_refuse_a_value_the_declaration_does_not_list(option: Any) -> None:
    with pytest.raises(RuleError) as err:
        RuleSet().replace(**{option.name: "surely_not_a_value"})
    assert err.value.code == "bad_option" and option.name in str(err.value)


def test_the_served_schema_is_the_declaration() -> None:
    schema = option_schema()
    assert list(schema) == [o.name for o in OPTIONS]  # display order
    for o in OPTIONS:
        entry = schema[o.name]
        assert (entry["kind"], entry["group"], entry["label"], entry["description"],
                entry["seed"]) == (o.kind, o.group, o.label, o.line, o.seed)
        if o.kind == "choice":
            assert entry["choices"] == list(o.choices)
        if o.kind in ("seconds", "int"):
            assert (entry["min"], entry["max"]) == (o.low, o.high)


def test_the_api_body_takes_values_and_limits_from_the_declaration() -> None:
    """stop_scope's values are written in one place: the body's JSON Schema lists exactly them,
    and so for every choice; numbers carry the declared limits."""
    from kemps.server.bodies import RuleOptions

    props = RuleOptions.model_json_schema()["properties"]
    for o in OPTIONS:
        typed = [t for t in props[o.name]["anyOf"] if t.get("type") != "null"]
        if o.kind == "choice":
            listed = [v for t in typed for v in t.get("enum", [t["const"]] if "const" in t else [])]
            counts = [t for t in typed if t.get("type") == "integer"]
            listed += [n for t in counts for n in range(t["minimum"], t["maximum"] + 1)]
            assert listed == list(o.choices), o.name
        elif o.kind in ("seconds", "int") and o.name != "idle_sweep_s":
            assert (typed[0]["minimum"], typed[0]["maximum"]) == (o.low, o.high), o.name
    assert RuleOptions.model_validate({"stop_scope": "opposite"}).changes() == {
        "stop_scope": "opposite"}


def test_docs_rules_md_carries_the_declared_option_table() -> None:
    """docs/rules.md's table is the declaration's (``python -m kemps.rule_options`` prints it)."""
    table = markdown_table(find_preset("pagat").to_dict())
    assert table in DOC.read_text(encoding="utf-8"), (
        "docs/rules.md's option table differs from kemps.rule_options; paste this:\n" + table)
    assert table.count("\n| `") == len(OPTIONS)
