"""Memoising by identity, for derived views of the large tuples results share.

The engine hands one tuple of per-node outcomes to every workload that behaves alike on
every node (a few hundred tuples for thousands of workloads), and each report derives the
same views from them again. Hashing a 5,000-node tuple costs as much as deriving the view,
so the cache is keyed by the tuple's identity and holds the tuple to keep that identity
valid; it is bounded so a long-lived process does not keep every tuple alive.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import wraps
from typing import TypeVar

Key = TypeVar("Key")
Value = TypeVar("Value")


def by_identity(maxsize: int) -> Callable[[Callable[[Key], Value]], Callable[[Key], Value]]:
    """Cache a one-argument pure function on the identity of its argument."""

    def decorate(function: Callable[[Key], Value]) -> Callable[[Key], Value]:
        entries: OrderedDict[int, tuple[Key, Value]] = OrderedDict()

        @wraps(function)
        def cached(argument: Key) -> Value:
            hit = entries.get(id(argument))
            if hit is not None and hit[0] is argument:
                entries.move_to_end(id(argument))
                return hit[1]
            value = function(argument)
            entries[id(argument)] = (argument, value)
            if len(entries) > maxsize:
                entries.popitem(last=False)
            return value

        return cached

    return decorate
