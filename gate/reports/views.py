"""What reports derive from a tuple of per-node outcomes, derived once per tuple.

The engine hands one tuple of per-node outcomes to every workload that behaves alike on
every node (a few hundred tuples for thousands of workloads), and several reports show the
same views of it: the nodes that fit, the reasons grouped, the headline. Hashing a
5,000-node tuple costs as much as deriving the view, so a view is kept by the tuple's
identity, and the tuple is held so that identity is not reused while the views live.
A :class:`Views` lives as long as the writers that share it (one run's reports): it needs
no bound, since the report holds every tuple anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import attrgetter, not_
from typing import Any, TypeVar, cast

from gate.model import NodeOutcome

Outcomes = tuple[NodeOutcome, ...]
View = TypeVar("View")


class Views:
    """Views of outcome tuples, each derived once per (view, tuple).

    >>> views, calls = Views(), []
    >>> def count(nodes: Outcomes) -> int:
    ...     calls.append(nodes)
    ...     return len(nodes)
    >>> nodes = (NodeOutcome("a", ()),)
    >>> views.of(count, nodes), views.of(count, nodes), len(calls)
    (1, 1, 1)
    """

    __slots__ = ("_derived", "_held")

    def __init__(self) -> None:
        self._held: dict[int, Outcomes] = {}
        self._derived: dict[tuple[Callable[[Outcomes], Any], int], Any] = {}

    def of(self, derive: Callable[[Outcomes], View], nodes: Outcomes) -> View:
        """``derive(nodes)``, computed the first time these very ``nodes`` are asked for."""
        key = (derive, id(nodes))
        if key in self._derived:
            return cast(View, self._derived[key])
        self._held.setdefault(id(nodes), nodes)
        value = self._derived[key] = derive(nodes)
        return value


_NODE, _REASONS = attrgetter("node"), attrgetter("reasons")


def fitting_nodes(nodes: Outcomes) -> tuple[str, ...]:
    """The names of the nodes the pod fits (no reasons), in node order; gathered at C speed,
    since a run asks it of hundreds of 5,000-node tuples."""
    return tuple(compress(map(_NODE, nodes), map(not_, map(_REASONS, nodes))))
