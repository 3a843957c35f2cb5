"""``fitgate check --shard K/N``: one of N disjoint parts of the workloads, for a CI matrix.

Every shard reads every manifest (reading is cheap next to evaluating and reporting a huge
monorepo) and numbers what it extracts, in input order; shard K reports the items whose
position is K-1 modulo N. Round-robin on input order is deterministic, needs no state, and
spreads a directory of similar workloads over every shard. A verdict may depend on the
run's other workloads (the room new ones take, the autoscalers' headroom they spend), so a
shard also places every other workload that may change what its own are judged beside --
not those that only replace their own pods on fixed nodes, nor any past its last item --
and its verdicts are the whole run's. A shard's JSON report carries
what ``fitgate merge`` needs to give back the one-run reports byte for byte: the positions
of its workloads, a digest of the whole input (so shards of different inputs are refused),
the cluster name, the snapshot's node names in order (its outcome groups name every node,
whatever ``--json-nodes`` says, and the merge puts them back in that order), and each
workload's untolerated taint per node (human reports name it; the machine report's reason
strings may not, since kube-scheduler v1.35).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from gate.inputs.workloads import Extracted, OtherDocument
from gate.model import Report, Shard, ShardReport
from gate.model.contract import MAX_SHARDS

if TYPE_CHECKING:
    from hashlib import _Hash

_SHARD = re.compile(r"([0-9]{1,9})/([0-9]{1,9})")


def parse_shard(text: str) -> Shard:
    """``K/N`` with 1 <= K <= N <= :data:`MAX_SHARDS` (an argparse type: a bad value exits
    2 with usage)."""
    match = _SHARD.fullmatch(text.strip())
    index, count = (int(match[1]), int(match[2])) if match else (0, 0)
    if not 1 <= index <= count <= MAX_SHARDS:
        shown = repr(text[:30] + "..." if len(text) > 30 else text)
        raise argparse.ArgumentTypeError(
            f"{shown}: expected K/N with 1 <= K <= N <= {MAX_SHARDS:,}, e.g. 2/4"
        )
    return Shard(index, count)


def _identity(item: Extracted) -> bytes:
    if isinstance(item, OtherDocument):
        return f"other\0{item.kind}\n".encode()
    return f"{item.location}\0{item.kind}\0{item.namespace}\0{item.name}\n".encode()


class Selection:
    """Marks a shard's items in the extracted stream and remembers their positions."""

    def __init__(self, shard: Shard | None) -> None:
        self.shard = shard
        self._positions: list[int] = []
        self._digest: _Hash | None = None
        if shard is not None:  # only a shard's report carries the input's digest
            import hashlib  # here: a run without a shard hashes nothing

            self._digest = hashlib.sha256()
        self._items = 0

    def mark(self, items: Iterable[Extracted]) -> Iterator[tuple[Extracted, bool]]:
        """Every item, with whether this shard reports it (every item without a shard)."""
        digest = self._digest
        for position, item in enumerate(items):
            if digest is not None:
                digest.update(_identity(item))
            self._items += 1
            taken = self.shard is None or self.shard.takes(position)
            if taken and not isinstance(item, OtherDocument):
                self._positions.append(position)
            yield item, taken

    def report(self, report: Report, cluster: str, nodes: tuple[str, ...]) -> Report:
        """``report`` itself without a shard; else the shard's report (``nodes``: the
        snapshot's node names, in the order of every result's outcomes)."""
        if self.shard is None or self._digest is None:
            return report
        return ShardReport(
            snapshot=report.snapshot,
            results=report.results,
            fail_on=report.fail_on,
            other_documents=report.other_documents,
            version=report.version,
            warnings=report.warnings,
            read=report.read,
            policy=report.policy,
            max_new_nodes=report.max_new_nodes,
            shard=self.shard,
            positions=tuple(self._positions),
            items=self._items,
            inputs=self._digest.hexdigest(),
            cluster=cluster,
            nodes=nodes,
        )
