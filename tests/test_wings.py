"""The server's wings talk through public interfaces (issue 28): read from the code itself."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "src" / "kemps" / "server"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_the_cluster_knows_the_server_only_as_its_host() -> None:
    """cluster.py imports nothing of the app (no circle) and calls nothing private on its host:
    every use of ``self.host`` names a member of the ``Host`` interface."""
    source = (SERVER / "cluster.py").read_text(encoding="utf-8")
    assert "kemps.server.app" not in _imports(SERVER / "cluster.py")
    tree = ast.parse(source)
    host = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Host")
    members = {n.name for n in host.body if isinstance(n, ast.FunctionDef)}
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Attribute) and n.value.attr == "host"
            and isinstance(n.value.value, ast.Name) and n.value.value.id == "self"}
    assert used and used <= members, used - members
    assert not any(name.startswith("_") for name in used)


def test_the_server_is_a_host(tmp_path: Path) -> None:
    """Every member of the cluster's Host interface is there on the server process's object
    (mypy holds the types: ``Cluster(self)`` in Server)."""
    from kemps.server.cluster import Host
    from kemps.server.process import Server
    from kemps.server.settings import Settings

    server = Server(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'k.sqlite'}"))
    members = [n for n in vars(Host) if not n.startswith("_")]
    assert {"settings", "clock", "storage", "writer", "limits", "rooms", "adopt"} <= set(members)
    for name in members:
        assert hasattr(server, name), name


def test_every_route_of_the_json_api_lives_in_a_router_of_the_api_wing() -> None:
    """create_app assembles routers; it declares no route itself (issue 28: routers, not
    closures). Every route the app serves comes from a router of kemps.server.api, the desk or
    the replays, once, and the app's own module holds no route decorator."""
    from fastapi.routing import APIRoute

    from kemps.server import desk, replays
    from kemps.server.api import history, meta, pages, rooms

    source = (SERVER / "app.py").read_text(encoding="utf-8")
    assert "@app." not in source and "@router." not in source
    routers = (desk.router, replays.router, pages.router, meta.router, rooms.router,
               history.router)
    names = [r.name for router in routers for r in router.routes if isinstance(r, APIRoute)]
    assert len(names) == len(set(names))
    for wing in (pages, meta, rooms, history):
        assert wing.router.routes, wing.__name__
    assert {"page", "presets", "health", "create_room", "take_seat", "start", "history",
            "history_match"} <= set(names)
