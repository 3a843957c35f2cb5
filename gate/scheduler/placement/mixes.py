"""The run's new DaemonSets' pods kept by the mix of them a node holds.

A DaemonSet puts one pod on every node of a set, each asking the same: once a run's
DaemonSets are placed, thousands of nodes hold a few hundred mixes of their pods. The ledger
keeps each :class:`Mix` once, with the nodes holding it as a bitset (:func:`with_daemon`
splits the sets a new DaemonSet's nodes cut across), and writes a node's own entries only
when the node is read: placing a DaemonSet costs a step per mix, not per node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.model import HostPort


@dataclass(frozen=True, slots=True, eq=False)
class Mix:
    """What the DaemonSets' pods on a node take there, as the ledger keeps a node's
    entries: the resources they request (in the order the node's own entry would list
    them), their cpu and memory as the resource scores count them, the pod slots, the host
    ports, and by DaemonSet its pods. Never changed once made: nodes share it."""

    requested: dict[str, int]
    nonzero: tuple[int, int]
    pods: int
    ports: frozenset[HostPort]
    takers: dict[str, int]

    def plus(
        self,
        requests: Sequence[tuple[str, int]],
        nonzero: tuple[int, int],
        ports: frozenset[HostPort],
        taker: str,
    ) -> Mix:
        """This mix with one more pod of ``taker``: one asking ``requests`` (every amount
        added, as for a node's own entry) and counted ``nonzero`` by the scores."""
        requested = dict(self.requested)
        for resource, amount in requests:
            requested[resource] = requested.get(resource, 0) + amount
        takers = dict(self.takers)
        takers[taker] = takers.get(taker, 0) + 1
        return Mix(
            requested,
            (self.nonzero[0] + nonzero[0], self.nonzero[1] + nonzero[1]),
            self.pods + 1,
            self.ports | ports,
            takers,
        )


NONE = Mix({}, (0, 0), 0, frozenset(), {})
"""A node no DaemonSet's pod is on."""


def with_daemon(
    mixes: Sequence[tuple[int, Mix]],
    bits: int,
    requests: Sequence[tuple[str, int]],
    nonzero: tuple[int, int],
    ports: frozenset[HostPort],
    taker: str,
) -> list[tuple[int, Mix]]:
    """``mixes`` (disjoint sets of nodes as bitsets, each with the mix its nodes hold) once
    a DaemonSet's pod (:meth:`Mix.plus`'s arguments) is on every node of ``bits``: a set
    ``bits`` cuts is split in two, and the nodes of ``bits`` in no set form one."""
    found: list[tuple[int, Mix]] = []
    rest = bits
    for held, mix in mixes:
        inside = held & bits
        if not inside:
            found.append((held, mix))
            continue
        found.append((inside, mix.plus(requests, nonzero, ports, taker)))
        rest ^= inside
        if inside != held:
            found.append((held ^ inside, mix))
    if rest:
        found.append((rest, NONE.plus(requests, nonzero, ports, taker)))
    return found


def mix_at(mixes: Sequence[tuple[int, Mix]], position: int) -> Mix | None:
    """The mix held by the node at ``position`` (None: it holds no DaemonSet's pod)."""
    return next((mix for held, mix in mixes if held >> position & 1), None)
