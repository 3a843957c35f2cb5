"""NodeResourcesBalancedAllocation: a score only, for nodes whose cpu and memory stay in
step once the pod is placed.

Upstream ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`` (v1.34.1,
balancedResourceScorer) over the default resources cpu and memory, with the node's
requested amounts as they are (``useRequested`` true: no non-zero defaults). A pod that
requests neither (best effort) is not scored (PreScore returns Skip). Float arithmetic as
upstream; the result is truncated to an integer.
"""

from __future__ import annotations

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
