"""Many server nodes on Redis and PostgreSQL: who is up, and which node owns which room.

A room lives in exactly one process, its *owner*. Ownership is a lease in Redis with a time to
live (:data:`LEASE_S`), renewed every :data:`RENEW_S` by the owner, and a *fencing token*: a
number from a per-room counter that only goes up. A node taking a room first raises the room's
token in PostgreSQL (:meth:`kemps.server.storage.Storage.claim`), then reads its record; every
later write of the room is checked against the stored token, so a node that lost its lease (cut
off from Redis, paused, presumed dead) can never write the room again, and nothing is written
twice. Nodes register with a heartbeat and their load; a room is created on the least-loaded node.

Keys (all under ``kemps:``): ``node:{id}`` (a hash: url, rooms, players, draining; expires
:data:`NODE_TTL_S` after the last heartbeat), ``nodes`` (the set of ids ever seen), ``owner:{code}``
(the owner's id, with the lease's expiry), ``fence:{code}`` (the counter).

A single node with no ``KEMPS_REDIS_URL`` never imports this module: everything works as before.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

LEASE_S: Final = 3.0  # a room's lease lives this long without a renewal
RENEW_S: Final = 1.0  # the owner renews its leases (and its heartbeat) this often
NODE_TTL_S: Final = 3.0  # a node missing heartbeats this long is taken for dead
PREFIX: Final = "kemps:"

# Renew a lease while it is still ours (compare and set, atomically in Redis). A lease that ran
# out while Redis was away (or that a restarted Redis forgot) is taken again when nobody has
# taken the room since: its fencing counter is still this node's token (or gone with the rest of
# Redis's keys: it is then set back to the token). Anyone who took the room in between raised the
# counter, and the lease stays lost. (PostgreSQL's fencing token decides in the end anyway.)
_RENEW: Final = """
local owner = redis.call('get', KEYS[1])
if owner == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
if owner then
  return 0
end
local fence = redis.call('get', KEYS[2])
if fence and fence ~= ARGV[3] then
  return 0
end
if not fence then
  redis.call('set', KEYS[2], ARGV[3])
end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""
# The next fencing token, at least ARGV[1] + 1: a Redis that lost its keys counts again from
# the token PostgreSQL holds, not from 1.
_NEXT_FENCE: Final = """
local now = tonumber(redis.call('get', KEYS[1]) or '0')
if now < tonumber(ARGV[1]) then
  redis.call('set', KEYS[1], ARGV[1])
end
return redis.call('incr', KEYS[1])
"""
_RELEASE: Final = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


@dataclass(frozen=True)
class NodeInfo:
    """One node as its last heartbeat described it: ``rooms`` and ``players`` it holds,
    ``draining`` (takes no new rooms), ``seen`` (Unix seconds)."""

    id: str
    url: str
    rooms: int
    players: int
    draining: bool
    seen: float


class Nodes:
    """This node's view of the cluster, over one Redis connection (redis-py's asyncio client).

    ``node_id`` names this node; ``url`` is where other nodes (and a load balancer) reach it.
    """

    def __init__(self, redis_url: str, node_id: str, url: str) -> None:
        import redis.asyncio as aioredis

        self.redis: Any = aioredis.from_url(redis_url, decode_responses=True,
                                            socket_timeout=2.0, socket_connect_timeout=2.0)
        self.id = node_id
        self.url = url
        self.draining = False
        self._renew = self.redis.register_script(_RENEW)
        self._next_fence = self.redis.register_script(_NEXT_FENCE)
        self._release = self.redis.register_script(_RELEASE)

    async def close(self) -> None:
        await self.redis.aclose()

    # == nodes =====================================================================================
    async def heartbeat(self, rooms: int, players: int) -> None:
        """Say this node is up, with its load (expires after :data:`NODE_TTL_S`)."""
        key = f"{PREFIX}node:{self.id}"
        async with self.redis.pipeline(transaction=True) as p:
            p.hset(key, mapping={"url": self.url, "rooms": rooms, "players": players,
                                 "draining": int(self.draining), "seen": time.time()})
            p.pexpire(key, int(NODE_TTL_S * 1000))
            p.sadd(f"{PREFIX}nodes", self.id)
            await p.execute()

    async def leave(self) -> None:
        """This node stops (a clean shutdown): it is no longer listed."""
        await self.redis.delete(f"{PREFIX}node:{self.id}")

    async def nodes(self) -> list[NodeInfo]:
        """Every node up now (heartbeat within :data:`NODE_TTL_S`), by id."""
        ids = sorted(await self.redis.smembers(f"{PREFIX}nodes"))
        async with self.redis.pipeline(transaction=False) as p:
            for node_id in ids:
                p.hgetall(f"{PREFIX}node:{node_id}")
            hashes = await p.execute()
        out = []
        for node_id, h in zip(ids, hashes, strict=True):
            if h:
                out.append(NodeInfo(node_id, h["url"], int(h["rooms"]), int(h["players"]),
                                    h.get("draining") == "1", float(h["seen"])))
        return out

    async def node(self, node_id: str) -> NodeInfo | None:
        """One node, if it is up."""
        for n in await self.nodes():
            if n.id == node_id:
                return n
        return None

    async def place(self) -> NodeInfo | None:
        """The node a new room should live on: the least loaded (players, then rooms) of those
        up and not draining; None when none is listed (this node then takes it)."""
        up = [n for n in await self.nodes() if not n.draining]
        return min(up, key=lambda n: (n.players, n.rooms, n.id), default=None)

    async def set_draining(self, node_id: str, draining: bool = True) -> None:
        """Mark a node as draining (it takes no new rooms and hands its rooms over after their
        hands end); read by that node at its next heartbeat."""
        await self.redis.set(f"{PREFIX}drain:{node_id}", int(draining))

    async def read_draining(self) -> bool:
        self.draining = (await self.redis.get(f"{PREFIX}drain:{self.id}")) == "1"
        return self.draining

    # == leases ====================================================================================
    async def owner(self, code: str) -> str | None:
        """The id of the node holding ``code``'s lease now, or None."""
        owner: str | None = await self.redis.get(f"{PREFIX}owner:{code}")
        return owner

    async def owned(self) -> dict[str, list[str]]:
        """Every room held now, by the id of the node that holds its lease (codes sorted); for
        operators (a scan of the lease keys, not for a hot path)."""
        codes = [key.removeprefix(f"{PREFIX}owner:")
                 async for key in self.redis.scan_iter(match=f"{PREFIX}owner:*", count=1000)]
        owners = await self.redis.mget([f"{PREFIX}owner:{c}" for c in codes]) if codes else []
        out: dict[str, list[str]] = {}
        for code, owner in zip(codes, owners, strict=True):
            if owner is not None:  # its lease ran out between the scan and the read
                out.setdefault(owner, []).append(code)
        return {owner: sorted(held) for owner, held in sorted(out.items())}

    async def acquire(self, code: str) -> int | None:
        """Take ``code``'s lease if nobody holds it: returns this node's new fencing token (to
        claim the room in PostgreSQL before reading it), or None when another node holds it."""
        got = await self.redis.set(f"{PREFIX}owner:{code}", self.id, nx=True,
                                   px=int(LEASE_S * 1000))
        if not got:
            return None
        return int(await self.redis.incr(f"{PREFIX}fence:{code}"))

    async def next_fence(self, code: str, above: int) -> int | None:
        """A fencing token above ``above`` (the token PostgreSQL holds for the room: a Redis
        that lost its keys counts from 1 again), while this node holds the lease; None when it
        no longer does."""
        if await self.owner(code) != self.id:
            return None
        return int(await self._next_fence(keys=[f"{PREFIX}fence:{code}"], args=[above]))

    async def renew(self, tokens: dict[str, int]) -> list[str]:
        """Renew this node's leases (``{code: its fencing token}``), taking again those that ran
        out while nobody took the room (see ``_RENEW``); returns the codes whose lease is no
        longer ours."""
        if not tokens:
            return []
        codes = list(tokens)
        # one round trip for all of them: a node with hundreds of rooms renews them every second
        async with self.redis.pipeline(transaction=False) as p:
            for code in codes:
                await self._renew(keys=[f"{PREFIX}owner:{code}", f"{PREFIX}fence:{code}"],
                                  args=[self.id, int(LEASE_S * 1000), tokens[code]], client=p)
            renewed = await p.execute()
        return [code for code, ok in zip(codes, renewed, strict=True) if not ok]

    async def release(self, code: str) -> None:
        """Give ``code``'s lease up (a draining node after the hand, a room archived)."""
        await self._release(keys=[f"{PREFIX}owner:{code}"], args=[self.id])
