"""The WebSocket protocol is described once: the pydantic models the server validates with give the
JSON Schema served at ``/api/protocol.json``, and docs/protocol.md lists exactly its message types."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from kemps.server.protocol import (
    CLIENT_TYPES,
    MAX_MESSAGE_BYTES,
    SERVER_TYPES,
    ProtocolError,
    parse_client_message,
    protocol_json_schema,
)
from serving import server_thread, sqlite_url

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def _doc_types(heading: str) -> set[str]:
    """The message types in the first column of the table under ``### heading``."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"### {heading}", 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE))


def _schema_types(schema: dict[str, object], side: str) -> set[str]:
    part = schema[side]
    assert isinstance(part, dict)
    return set(part["discriminator"]["mapping"])


def test_docs_list_every_message_type_of_the_schema_and_no_other() -> None:
    schema = protocol_json_schema()
    assert _doc_types("Client to server") == _schema_types(schema, "client") == set(CLIENT_TYPES)
    assert _doc_types("Server to client") == _schema_types(schema, "server") == set(SERVER_TYPES)
    assert f"at most {MAX_MESSAGE_BYTES} bytes" in DOC.read_text(encoding="utf-8")


def test_the_schema_is_the_models_the_server_validates_with() -> None:
    schema = protocol_json_schema()
    for kind, model in CLIENT_TYPES.items():
        described = schema["$defs"][model.__name__]
        assert described["properties"]["type"]["const"] == kind
        assert described.get("additionalProperties") is False  # extra fields are refused
        # The example in the model's docstring is a message the server accepts as that type.
        example = re.search(r"``(\{.*?\})``", model.__doc__ or "", flags=re.DOTALL)
        assert example is not None, kind
        assert type(parse_client_message(example.group(1))) is model
        # And a field the schema does not name is refused.
        with pytest.raises(ProtocolError) as caught:
            parse_client_message(json.dumps({**json.loads(example.group(1)), "extra": 1}))
        assert caught.value.code == "bad_message"
    for kind, model in SERVER_TYPES.items():
        assert schema["$defs"][model.__name__]["properties"]["type"]["const"] == kind


def test_the_schema_is_served(tmp_path: Path) -> None:
    with server_thread(sqlite_url(tmp_path)) as srv:
        served = httpx.get(srv.url + "/api/protocol.json", timeout=10)
        docs = httpx.get(srv.url + "/docs", timeout=10)
        openapi = httpx.get(srv.url + "/openapi.json", timeout=10).json()
    assert served.status_code == 200
    assert served.json() == json.loads(json.dumps(protocol_json_schema()))
    assert docs.status_code == 200 and "/openapi.json" in docs.text
    # Every route declares its refusals with the one error body (its codes for each status as
    # an enum), 422 wherever it takes a parameter or a body, and every body has examples.
    for path, operations in openapi["paths"].items():
        for method, op in operations.items():
            refusals = {s: r for s, r in op["responses"].items() if s.startswith("4")}
            if op.get("parameters") or "requestBody" in op:
                assert "422" in refusals, (method, path)
            for status, answer in refusals.items():
                schema = answer["content"]["application/json"]["schema"]
                assert schema["title"] == "ErrorBody", (method, path, status)
                assert schema["required"] == ["code", "message"], (method, path, status)
                assert schema["properties"]["code"]["enum"], (method, path, status)
            if "requestBody" in op:
                body = op["requestBody"]["content"]["application/json"]["schema"]
                names = [r["$ref"].rsplit("/", 1)[1] for r in
                         ([body] if "$ref" in body else
                          body.get("anyOf", []) + body.get("oneOf", []))
                         if "$ref" in r]
                assert names, (method, path, body)
                for name in names:
                    assert openapi["components"]["schemas"][name].get("examples"), name
