"""One error family for the whole project.

Every error carries a stable machine ``code`` (goes over the wire, is matched in tests) and a plain
``message`` (goes to the person). Nothing here asserts: bad input raises one of these and changes
nothing.
"""

from __future__ import annotations

from collections.abc import Callable


class KempsError(Exception):
    """Base of every error kemps raises on purpose.

    Attributes:
        code: stable snake_case machine code, e.g. ``"card_gone"``.
        message: one plain sentence for a person.
    """

    code: str = "kemps_error"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """The wire form: ``{"code": ..., "message": ...}``."""
        return {"code": self.code, "message": self.message}


class CardError(KempsError, ValueError):
    """A card or card text that does not parse (code ``bad_card``)."""


class RuleError(KempsError, ValueError):
    """A rule set option, or combination of options, that is not allowed.

    The code is ``bad_option`` or ``unknown_preset``; the message names the option.
    """


def said(value: object, limit: int = 24) -> str:
    """``value`` as a message may quote it: its repr, cut to ``limit`` characters (a stranger's
    300-digit seat number is not echoed back whole)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Rejected(KempsError):
    """An action the table refused. The table's state is unchanged.

    ``code`` is one of :data:`REJECTION_CODES` (stable; they go over the wire). The engine may give
    the message as a function that makes it: it is built only when read (most rejections, lost
    races in a simulation, are never shown to anyone; issue 15).
    """

    def __init__(self, code: str, message: str | Callable[[], str]) -> None:
        # No Exception.__init__ with a formatted text: str() and the message are made on demand.
        self.code = code
        self._message = message

    @property
    def message(self) -> str:  # the plain sentence, made at the first read
        made = self._message
        if not isinstance(made, str):
            made = self._message = made()
        return made

    @message.setter
    def message(self, text: str) -> None:
        self._message = text

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"Rejected({self.code!r}, {self.message!r})"

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (self.__class__, (self.code, self.message))


REJECTION_CODES: frozenset[str] = frozenset({
    "bad_action", "bad_deal", "no_such_seat", "match_over", "hand_over", "hand_in_play",
    "not_started", "card_gone", "not_in_hand", "one_card_at_a_time", "uneven_swap",
    "holding_five", "not_holding", "same_card", "not_dealer", "no_stall", "stall_pending",
    "objection_pending", "already_objected", "already_agreed", "not_your_partner", "own_pair", "not_opposite",
    "need_target", "calls_disabled", "heard_forbidden", "chat_forbidden", "unknown_gesture",
    "fake_signal", "no_huddle", "table_talk_allowed", "no_attention", "bad_look", "same_look",
    "look_too_soon", "no_proposal",
})


LIMIT_CODES: frozenset[str] = frozenset({
    "too_many_rooms", "rooms_full", "room_archived", "spectators_full", "no_spectators",
    "connection_replaced", "too_many_connections", "flooding", "too_many_seats",
    "signal_flooding",
})
"""The server's refusals of work beyond its limits (docs/protocol.md, "Limits"): stable; they go over
the wire with a plain sentence, and the refused request changed nothing."""


class SettingError(KempsError, ValueError):
    """A server setting (an argument or a ``KEMPS_*`` environment variable) that is not a number
    or below its minimum (code ``bad_setting``); the server does not start."""


class RecordError(KempsError, ValueError):
    """A match record that cannot be read or replayed (code ``bad_record``)."""


class ScoreError(KempsError, ValueError):
    """A scoresheet, scorekeeper hand or tournament step that breaks the rules; nothing changed.

    Codes are listed in docs/scoresheet.md and docs/tournament.md; messages name the hand or match.
    """
