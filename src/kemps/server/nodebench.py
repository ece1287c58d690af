"""The table server with 1, 2 and 3 nodes (``kemps bench-nodes``): the load of ``kemps
bench-server`` (:mod:`kemps.server.loadtest`: rooms of four human-paced players over real
WebSockets, latency from the actor's send to the last seat's receipt) spread over several
``kemps serve`` processes that share one PostgreSQL and one Redis (docs/scale.md).

Each room is made on a chosen node (round robin) and its players connect to that node, as a
routing-aware balancer would send them; with ``--through`` they connect to the nodes in turn
regardless of the owner, so about (n-1)/n of them are carried by a non-owner (the forwarding
hop). CPU per action and memory per player are summed over the nodes. Every count of nodes runs
in each round, alternating, each time on fresh processes and an emptied database, so the ratios
between counts come from the same minutes of the machine.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from dataclasses import dataclass, field

from kemps.server.cluster import FORWARDED  # served where it lands: the room is made there
from kemps.server.loadtest import (
    TARGET_P99_MS,
    StepResult,
    _make_rooms,
    _median_spread,
    _run_step,
    _Server,
)


@dataclass
class NodesResult:
    """Several runs of one load (``players``) on ``nodes`` nodes."""

    nodes: int
    players: int
    runs: list[StepResult] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # runs that measured nothing, and why


def empty_database(database_url: str) -> None:
    """Drop every table the server makes (and Alembic's version table): a benchmark's or a
    test's database holds nothing worth keeping."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    import kemps.server.desk_storage
    import kemps.server.ratings
    import kemps.server.reveal_storage  # noqa: F401  (their tables are in the metadata too)
    from kemps.server.storage import Base

    async def drop() -> None:
        engine = create_async_engine(database_url)
        async with engine.begin() as conn:
            for table in reversed(Base.metadata.sorted_tables):
                await conn.execute(text(f"DROP TABLE IF EXISTS {table.name} CASCADE"))
            await conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
        await engine.dispose()

    asyncio.run(drop())


def _empty_redis(redis_url: str) -> None:
    import redis

    r = redis.Redis.from_url(redis_url)
    try:
        for key in r.scan_iter("kemps:*"):
            r.delete(key)
    finally:
        r.close()


def run_nodes_step(nodes: int, players: int, seconds: float, database_url: str, redis_url: str,
                   seed: int = 0, through: bool = False) -> StepResult:
    """One run: ``nodes`` fresh ``kemps serve`` processes, ``players`` (a multiple of 4) in rooms
    spread over them round robin, measured for ``seconds``."""
    empty_database(database_url)
    _empty_redis(redis_url)
    servers: list[_Server] = []
    try:
        for i in range(nodes):
            server = _Server("table", database_url, env={
                "KEMPS_REDIS_URL": redis_url, "KEMPS_NODE_ID": f"n{i + 1}"})
            server.wait()  # one at a time: the first migrates the database
            servers.append(server)
        time.sleep(1.5)  # every node has sent its first heartbeat
        rooms, where = [], {}
        per_node = [players // 4 // nodes + (1 if i < players // 4 % nodes else 0)
                    for i in range(nodes)]
        for i, (server, count) in enumerate(zip(servers, per_node, strict=True)):
            made = asyncio.run(_make_rooms(server.url, count, "table",
                                           headers={FORWARDED: "bench"}))
            for j, (code, _) in enumerate(made):
                where[code] = servers[(i + 1 + j) % nodes].url if through else server.url
            rooms += made
        return asyncio.run(_run_step(servers[0], rooms, seconds, seed, where=where,
                                     pids=[s.proc.pid for s in servers]))
    finally:
        for server in servers:
            server.stop()


def run_nodes_benchmark(counts: tuple[int, ...], steps: tuple[int, ...], seconds: float,
                        runs: int, database_url: str, redis_url: str,
                        through: bool = False) -> list[NodesResult]:
    """For each load in ``steps``, ``runs`` rounds of every count of nodes in ``counts``."""
    out: list[NodesResult] = []
    for players in steps:
        results = {n: NodesResult(n, players) for n in counts}
        for run in range(runs):
            for n in counts:
                try:
                    results[n].runs.append(run_nodes_step(n, players, seconds, database_url,
                                                          redis_url, seed=run, through=through))
                except RuntimeError as err:  # reported with the figures, never dropped
                    results[n].failed.append(str(err))
        out += results.values()
    return out


def report(results: list[NodesResult], through: bool = False) -> str:
    """The markdown section for docs/benchmarks.md: per load, each count of nodes against one
    node in the same rounds (p99 and server CPU per action as ratios), then the figures."""
    import datetime
    import platform

    def med(r: NodesResult, attr: str) -> float:
        return float(statistics.median(float(getattr(x, attr)) for x in r.runs))

    runs = max((len(r.runs) for r in results), default=0)
    lines = [
        "## Many nodes (`kemps bench-nodes`)",
        "",
        f"Measured {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.platform()},"
        f" CPython {platform.python_version()}, {os.cpu_count()} CPUs; {runs} run(s) for each "
        "count of nodes, alternating, each on fresh `kemps serve` processes sharing PostgreSQL "
        "and Redis and an emptied database. The client and pacing of `kemps bench-server`; "
        + ("players connect to the nodes in turn, so most are carried by a non-owner (the "
           "forwarding hop). " if through else
           "each room is made on a node (round robin) and its players connect to that node. ")
        + "CPU and memory summed over the nodes. Medians of the runs, min-max in brackets.",
        "",
        "| Players | Nodes | p99 (ms) | p99 / one node | p50 (ms) | server CPU ms per action | "
        "CPU / one node | server CPU (cores, all nodes) | client CPU (cores) | incomplete | "
        f"p99 within {TARGET_P99_MS:g} ms | load (start-end) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        if not r.runs:
            lines.append(f"| {r.players:,} | {r.nodes} | no run measured anything: "
                         f"{'; '.join(r.failed)} |" + " |" * 10)
            continue
        one = next((x for x in results if x.players == r.players and x.nodes == 1 and x.runs),
                   None)
        p99 = med(r, "p99_ms")
        cpu = med(r, "server_cpu_ms_per_action")
        ratio_p99 = f"{p99 / max(1e-9, med(one, 'p99_ms')):.2f}x" if one else "-"
        ratio_cpu = f"{cpu / max(1e-9, med(one, 'server_cpu_ms_per_action')):.2f}x" if one \
            else "-"
        loads = [x for run in r.runs for x in run.load]
        lines.append(
            f"| {r.players:,} | {r.nodes} | {_median_spread([x.p99_ms for x in r.runs])} | "
            f"{ratio_p99} | {_median_spread([x.p50_ms for x in r.runs])} | "
            f"{_median_spread([x.server_cpu_ms_per_action for x in r.runs])} | {ratio_cpu} | "
            f"{_median_spread([x.server_cpu for x in r.runs])} | "
            f"{_median_spread([x.client_cpu for x in r.runs])} | "
            f"{sum(x.incomplete for x in r.runs)}"
            f"{f' (+{len(r.failed)} run(s) with none complete)' if r.failed else ''} | "
            f"{'yes' if p99 <= TARGET_P99_MS else 'no'} | {min(loads):.1f}-{max(loads):.1f} |")
    return "\n".join(lines) + "\n"
