"""A run's workloads judged in two parts at once, on a machine's two cores
(``check --processes``).

A workload's verdict may depend on the run's earlier workloads (the room new ones take,
the quota they spend, the autoscalers' headroom): that is what a shard already knows how to
honour (:mod:`gate.ci.shard`), by placing every earlier workload that could change its own
verdicts without reporting it. The run's DaemonSets are judged and placed first, once (a
DaemonSet's pods take their room before any other workload's); then the run is cut in two
at a position: this process judges the workloads before it, a forked one the workloads
from it on, after placing the earlier workloads that its own are judged beside. Both start
from the same state (the snapshot and the run's DaemonSets placed), so each verdict is the
one a single process gives; only the wall time changes. Whenever the second process fails in any
way, this one judges the whole run again.
"""

from __future__ import annotations

from collections.abc import Sequence

SPLIT_FROM = 100
"""Fewer reported workloads are judged by one process: forking and handing the results
over cost more than a second core saves on them."""
FIRST_SHARE = 0.555
"""The share of the reported workloads this process judges: the second also places the
earlier workloads its own are judged beside, which costs it about a sixth of the run on
the benchmark's large case."""


def cut_position(reported: Sequence[int], split_from: int | None = None) -> int | None:
    """Where the run is cut, given the positions of its reported workloads: the position
    of the first workload the second process judges; None when the run is judged whole
    (too few workloads).

    >>> cut_position(list(range(0, 400, 2)), split_from=100)
    222
    >>> cut_position(list(range(10)), split_from=100) is None
    True
    """
    if len(reported) < (SPLIT_FROM if split_from is None else split_from):
        return None
    return reported[min(len(reported) - 1, max(1, round(len(reported) * FIRST_SHARE)))]
