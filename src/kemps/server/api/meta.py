"""What the server says about itself: the presets and the option schema, its health, and the
WebSocket protocol's messages as JSON Schema."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from kemps.gestures import PALETTE
from kemps.rules import MAX_PAIRS, PRESET_NOTES, PRESETS, option_schema, preset_names
from kemps.server.answers import HealthAnswer, PresetsAnswer, answer
from kemps.server.api import SafeJSONResponse, StrictJSONRoute, refusals
from kemps.server.api.common import TheServer
from kemps.server.bodies import ONLINE_DEFAULTS
from kemps.server.lobby import bot_levels, bot_speeds
from kemps.server.protocol import PROTOCOL_VERSION, protocol_json_schema

router = APIRouter(route_class=StrictJSONRoute)


@router.get("/api/presets", response_model=None,
            responses=refusals("presets") | answer(PresetsAnswer))
async def presets() -> dict[str, Any]:
    """Every preset with its options, aliases and a one-line note; the option schema (kind,
    choices or limits, group, description, seed: :func:`kemps.rules.option_schema`); the
    gesture palette and the bot levels; ``online_defaults``, what a room plays on top of its
    preset unless its options say otherwise (:data:`kemps.server.bodies.ONLINE_DEFAULTS`)."""
    return {"presets": {n: {"aliases": list(a), "rules": PRESETS[n].to_dict(),
                            "note": PRESET_NOTES.get(n, "")}
                        for n, a in preset_names().items()},
            "options": option_schema(), "max_pairs": MAX_PAIRS,
            "gestures": {g.name: {"kind": g.kind, "label": g.label}
                         for g in PALETTE.values()},
            "bot_levels": list(bot_levels()), "bot_speeds": list(bot_speeds()),
            "protocol": PROTOCOL_VERSION, "online_defaults": dict(ONLINE_DEFAULTS)}


@router.get("/api/health", response_model=None,
            responses=refusals("health") | answer(HealthAnswer) | {
                503: {"model": HealthAnswer, "description": "This server cannot take play now "
                      "(its storage, or with many nodes Redis, does not answer): the same body, "
                      "with the status that says why."}})
async def health(server: TheServer) -> JSONResponse:
    """Whether this server can take play now, and what it holds; for a load balancer's
    health check (200 or 503) and for operators. With many nodes, the cluster's nodes and
    totals as their heartbeats in Redis give them (docs/scale.md)."""
    body: dict[str, Any] = {
        "status": "ok" if server.writer.healthy else "storage_unavailable",
        "rooms": len(server.rooms),
        "players": sum(len(r.conns) for r in server.rooms.values()),
        "tasks": len(asyncio.all_tasks()),
        "node": None, "draining": False, "cluster": None}
    if server.cluster is not None:
        body["node"] = server.cluster.nodes.id
        body["draining"] = server.cluster.nodes.draining
        body["cluster"] = await server.cluster.summary()
        if body["cluster"] is None and body["status"] == "ok":
            body["status"] = "redis_unavailable"
    if body["status"] == "ok":
        return SafeJSONResponse(body)
    return SafeJSONResponse(body, status_code=503, headers={"Retry-After": "2"})


@router.get("/api/protocol.json", responses=refusals("protocol_schema"))
async def protocol_schema() -> dict[str, Any]:
    """The WebSocket protocol's messages as JSON Schema (``client``: what a client may send,
    validated by the server with these very models; ``server``: what it answers)."""
    return protocol_json_schema()
