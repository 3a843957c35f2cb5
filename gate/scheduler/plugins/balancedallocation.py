"""NodeResourcesBalancedAllocation: a score only, for nodes whose cpu and memory stay in
step once the pod is placed.

Upstream ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`` (v1.34.1,
balancedResourceScorer) over the default resources cpu and memory, with the node's
requested amounts as they are (``useRequested`` true: no non-zero defaults). A pod that
requests neither (best effort) is not scored (PreScore returns Skip). Float arithmetic as
upstream; the result is truncated to an integer.
"""

from __future__ import annotations

from gate.scheduler.framework.scores import Placing, ScorePlugin, Workload
from gate.scheduler.plugins.noderesources import SCORED

# balanced_allocation.go BalancedAllocationName
NAME = "NodeResourcesBalancedAllocation"


def balanced_allocation(requested: tuple[int, ...], allocatable: tuple[int, ...]) -> int:
    """``(1 - std) * 100`` of the requested fractions (each capped at 1), truncated; for two
    resources the std is ``|f1 - f2| / 2``.

    >>> balanced_allocation((3000, 5000), (4000, 10000))  # fractions .75, .5: std .125
    87
    """
    fractions = [
        min(wanted / capacity, 1.0)
        for wanted, capacity in zip(requested, allocatable, strict=True)
        if capacity != 0
    ]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = (sum((f - mean) ** 2 for f in fractions) / len(fractions)) ** 0.5
    return int((1 - std) * 100)


Requests = tuple[int, int] | None
"""The pod's cpu and memory requests as written (None: best effort, not scored)."""


def _prescore(workload: Workload) -> Requests:
    cpu, memory = (workload.profile.requests.get(r, 0) for r in SCORED)
    return (cpu, memory) if cpu or memory else None


def _own(run: Placing, each: Requests, p: int) -> int | None:
    """The score of node ``p`` for the next copy, the copies it holds counted (None: a
    best-effort pod, not scored)."""
    if each is None:
        return None
    node, held, base = run.nodes[p], run.copies.get(p, 0) + 1, run.base[p]
    allocatable = (node.allocatable.get(SCORED[0], 0), node.allocatable.get(SCORED[1], 0))
    return balanced_allocation((base[0] + held * each[0], base[1] + held * each[1]), allocatable)


SCORE: ScorePlugin[Requests, None] = ScorePlugin(NAME, 1, "balanced", _prescore, own=_own)
"""Score: cpu and memory in step, as requested (not normalised)."""
