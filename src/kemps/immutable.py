"""``@immutable``: the project's value classes (events, actions, views, plans) as slots dataclasses
that are immutable by contract rather than by ``frozen=True``.

A frozen dataclass sets every field through ``object.__setattr__`` in its ``__init__``, which made
building one about four times slower than a plain slots class (issue 15: a fifth of
``Table.apply``, more of a server update). A class decorated here is a slots dataclass with ``==``
and a hash over its fields, as a frozen one has; the type checker treats it as frozen (this is a
``dataclass_transform`` with ``frozen_default``), so assigning to a field is a type error, and
``tests/test_events_immutable.py`` plays whole matches with every field assignable once only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, dataclass_transform

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True, eq_default=True)
def immutable(cls: type[_T]) -> type[_T]:
    """A slots dataclass with ``==`` and a hash over its fields, frozen for the type checker."""
    made: Callable[[type[_T]], type[_T]] = dataclass(slots=True, eq=True, unsafe_hash=True)
    return made(cls)
