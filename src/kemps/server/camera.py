"""The camera table's set-up that is not a room's: which ICE servers a browser uses to reach the
others, the short-lived TURN credentials minted for each seat, whether a table's video goes peer to
peer (a mesh) or through an SFU, and what a table's rules mean for its microphones.

A camera table (a room with ``"camera": true``, issue 24) sends video and audio between its seated
people with the browser's own WebRTC; the server only relays the connection set-up
(:mod:`kemps.server.signalling`). Media never passes through or is stored by the table server. To
cross the internet the browsers need STUN (to learn their public address) and, behind strict
NATs, TURN (a relay): ``KEMPS_ICE_SERVERS`` lists them (docs/camera.md).

TURN credentials follow coturn's shared-secret scheme (the "TURN REST API",
``turnserver --use-auth-secret --static-auth-secret=SECRET``): the username is
``"EXPIRY:SEAT-ID"`` (``EXPIRY`` in Unix seconds), the password ``base64(HMAC-SHA1(SECRET,
username))``. The table server and coturn share ``SECRET``; the page only ever sees a credential
that expires (``KEMPS_TURN_TTL_S``), minted for its seat, never a fixed password.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from kemps.errors import SettingError
from kemps.rules import RuleSet

#: How long a minted TURN credential lasts by default (seconds): longer than a match, since a
#: TURN allocation is refreshed with the credential it was made with; a new connection (a reload, a
#: reconnect) is minted a fresh one.
DEFAULT_TURN_TTL_S: Final = 6 * 3600.0
#: The largest table the mesh serves by default: every person sends to every other, so upstream
#: grows with the players (docs/camera.md gives the measured figures); larger tables need the SFU.
DEFAULT_MESH_MAX_PLAYERS: Final = 8
_SCHEMES: Final = ("stun:", "stuns:", "turn:", "turns:")
_MAX_SERVERS: Final = 8

IcePolicy = Literal["all", "relay"]
Route = Literal["mesh", "sfu"]


def turn_credential(secret: str, seat_id: str, expires_at: int) -> tuple[str, str]:
    """coturn's shared-secret credential for ``seat_id`` until ``expires_at`` (Unix seconds):
    ``(username, password)`` with username ``"EXPIRY:SEAT-ID"`` and password
    ``base64(HMAC-SHA1(secret, username))``."""
    username = f"{expires_at}:{seat_id}"
    digest = hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()
    return username, base64.b64encode(digest).decode()


@dataclass(frozen=True)
class IceConfig:
    """The ICE servers of every camera table (``KEMPS_ICE_SERVERS``, parsed by :meth:`parse`),
    the TURN secret they share with coturn and how long a minted credential lasts.

    ``servers`` are RTCIceServer objects without credentials: ``{"urls": [...]}``. Every server
    with a ``turn:`` or ``turns:`` URL gets a credential minted per seat (:meth:`for_seat`);
    without ``turn_secret`` a TURN server is refused at start-up (``bad_setting``).
    """

    servers: tuple[dict[str, Any], ...] = ()
    turn_secret: str | None = None
    turn_ttl_s: float = DEFAULT_TURN_TTL_S
    policy: IcePolicy = "all"

    @classmethod
    def parse(cls, text: str | None, turn_secret: str | None = None,
              turn_ttl_s: float = DEFAULT_TURN_TTL_S, policy: str = "all") -> IceConfig:
        """``text``: JSON, a list of RTCIceServer objects (``{"urls": "stun:..."}`` or ``{"urls":
        ["turn:host:3478?transport=udp", "turns:host:5349"]}``), or empty for none.

        Raises:
            SettingError: ``bad_setting`` for text that is not such a list, a URL of another
                scheme, a fixed ``username`` or ``credential`` (the page would show it: use
                ``KEMPS_TURN_SECRET``), TURN without a secret, a TTL under a minute or a policy
                other than ``all`` or ``relay``.
        """
        if policy not in ("all", "relay"):
            raise SettingError("bad_setting", "KEMPS_ICE_TRANSPORT_POLICY is all or relay, not "
                               f"{policy[:20]!r}.")
        if not math.isfinite(turn_ttl_s) or turn_ttl_s < 60:
            raise SettingError("bad_setting", "KEMPS_TURN_TTL_S must be at least 60 seconds.")
        if turn_secret is not None and not turn_secret:
            turn_secret = None
        servers: list[dict[str, Any]] = []
        if text and text.strip():
            try:
                data = json.loads(text)
            except ValueError:
                raise SettingError("bad_setting", "KEMPS_ICE_SERVERS must be JSON: a list of "
                                   '{"urls": ...} objects.') from None
            if not isinstance(data, list) or len(data) > _MAX_SERVERS:
                raise SettingError("bad_setting", "KEMPS_ICE_SERVERS must be a JSON list of at "
                                   f"most {_MAX_SERVERS} ICE servers.")
            for entry in data:
                servers.append(_server(entry))
        if any(_is_turn(s) for s in servers) and turn_secret is None:
            raise SettingError("bad_setting", "A TURN server in KEMPS_ICE_SERVERS needs "
                               "KEMPS_TURN_SECRET (coturn's static-auth-secret): the page gets "
                               "short-lived credentials minted from it, never a fixed password.")
        if policy == "relay" and not any(_is_turn(s) for s in servers):
            raise SettingError("bad_setting", "KEMPS_ICE_TRANSPORT_POLICY=relay needs a TURN "
                               "server in KEMPS_ICE_SERVERS.")
        return cls(tuple(servers), turn_secret, float(turn_ttl_s),
                   policy)  # type: ignore[arg-type]  # checked above

    def for_seat(self, seat_id: str, now: float) -> tuple[list[dict[str, Any]], int | None]:
        """The ICE servers for one seat's connection at wall time ``now``: TURN servers with a
        credential minted for ``seat_id`` (``"ROOM-SEAT"``), and when it expires (Unix seconds;
        None without TURN)."""
        expires: int | None = None
        out: list[dict[str, Any]] = []
        for server in self.servers:
            entry: dict[str, Any] = {"urls": list(server["urls"])}
            if _is_turn(server) and self.turn_secret is not None:
                expires = int(now + self.turn_ttl_s)
                entry["username"], entry["credential"] = turn_credential(
                    self.turn_secret, seat_id, expires)
            out.append(entry)
        return out, expires


def _is_turn(server: dict[str, Any]) -> bool:
    return any(u.startswith(("turn:", "turns:")) for u in server["urls"])


def _server(entry: object) -> dict[str, Any]:
    if not isinstance(entry, dict) or "urls" not in entry:
        raise SettingError("bad_setting", 'Each ICE server in KEMPS_ICE_SERVERS is an object with '
                           '"urls".')
    if "credential" in entry or "username" in entry:
        raise SettingError("bad_setting", "KEMPS_ICE_SERVERS must not hold a username or "
                           "credential: the page would show it to every player. Give TURN's "
                           "shared secret as KEMPS_TURN_SECRET instead.")
    extra = set(entry) - {"urls"}
    if extra:
        raise SettingError("bad_setting", f"Unknown field {sorted(extra)[0][:20]!r} in an ICE "
                           "server of KEMPS_ICE_SERVERS (only urls).")
    urls = entry["urls"]
    if isinstance(urls, str):
        urls = [urls]
    if not isinstance(urls, list) or not urls or len(urls) > _MAX_SERVERS or not all(
            isinstance(u, str) and u.startswith(_SCHEMES) and 6 <= len(u) <= 300
            and u.isprintable() for u in urls):
        raise SettingError("bad_setting", "ICE server URLs in KEMPS_ICE_SERVERS are stun:, "
                           "stuns:, turn: or turns: URLs (at most 300 characters each).")
    return {"urls": tuple(urls)}


@dataclass(frozen=True)
class SfuConfig:
    """Janus's VideoRoom as the camera tables' SFU (``KEMPS_JANUS_URL``, docs/camera.md).

    ``url``: where browsers reach Janus's WebSocket API (``ws://`` or ``wss://``); ``api``: where
    this server reaches Janus's HTTP API to make and end each table's rooms (default: Janus's
    packaged ``http://127.0.0.1:8088/janus``); ``admin_key``: the VideoRoom plugin's
    ``admin_key``, if its configuration sets one (then only this server can make rooms).
    ``mesh_max_players``: tables with more players use the SFU (0: every camera table does).
    """

    url: str | None = None
    api: str = "http://127.0.0.1:8088/janus"
    admin_key: str | None = None
    mesh_max_players: int = DEFAULT_MESH_MAX_PLAYERS

    @classmethod
    def parse(cls, url: str | None, api: str | None, admin_key: str | None,
              mesh_max_players: int) -> SfuConfig:
        """Raises SettingError ``bad_setting`` for a URL that is not ``ws(s)://`` (browsers)
        or ``http(s)://`` (the API)."""
        url = url or None
        if url is not None and (urlsplit(url).scheme not in ("ws", "wss")
                                or not urlsplit(url).hostname):
            raise SettingError("bad_setting", "KEMPS_JANUS_URL is Janus's WebSocket address as "
                               "browsers reach it: ws://HOST:8188 or wss://HOST/janus-ws.")
        api = api or cls.api
        if urlsplit(api).scheme not in ("http", "https") or not urlsplit(api).hostname:
            raise SettingError("bad_setting", "KEMPS_JANUS_API is Janus's HTTP API as this server "
                               "reaches it: http://127.0.0.1:8088/janus.")
        return cls(url, api, admin_key or None, mesh_max_players)

    def route(self, players: int) -> Route | None:
        """How a camera table of ``players`` sends its video: ``"mesh"`` (peer to peer) up to
        ``mesh_max_players``, ``"sfu"`` beyond when an SFU is set, None when the table is too
        large for the mesh and no SFU is set."""
        if players <= self.mesh_max_players:
            return "mesh"
        return "sfu" if self.url is not None else None


def hand_audio(rules: RuleSet) -> bool:
    """Whether microphones are sent during a hand at a camera table with these rules.

    S0 "Silent signals": "A stricter table forbids spoken signals altogether, and sometimes
    talking of any kind: the signal must be something seen, not heard. It stops a pair hiding a
    code word in ordinary chat." A table that bans heard signals (``heard_signals`` off, the
    standard game: S2 "A signal is seen, not heard") or talk (``table_chat`` off) is silent
    during a hand: video only. Between hands (each pair's private huddle), in the lobby and after
    the match everyone may talk.
    """
    return rules.heard_signals and rules.table_chat
