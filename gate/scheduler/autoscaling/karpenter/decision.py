"""What Karpenter would do for a workload's copies that fit no existing node: the NodePools
launching nodes for them, and for the copies left, each Ready pool's error and the
``FailedScheduling`` event they make (pkg/controllers/provisioning/scheduling/events.go
``PodFailedToScheduleEvent``: ``Failed to schedule pod, `` and the errors multierr joins)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gate.model import KARPENTER_EVENT


@dataclass(frozen=True, slots=True)
class PoolScaleUp:
    """A NodePool launching ``nodes`` new nodes holding ``copies`` copies; ``instance_types``
    the types a new node may take, in Karpenter's order (price, then name)."""

    pool: str
    nodes: int
    copies: int
    instance_types: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PoolDecision:
    """For ``wanted`` copies that fit no existing node: the pools that launch nodes for
    them, how many are ``placed``, and for the first copy no pool takes, each Ready pool's
    error in pool order as ``(pool, reason, text)``: ``reason`` a short stable key,
    ``text`` Karpenter's own. ``unjudged``: why nothing can be judged."""

    wanted: int
    scale_up: tuple[PoolScaleUp, ...] = ()
    placed: int = 0
    errors: tuple[tuple[str, str, str], ...] = ()
    unjudged: str = ""

    @property
    def blocked(self) -> int:
        return self.wanted - self.placed

    @property
    def nodes(self) -> int:
        return sum(s.nodes for s in self.scale_up)

    @property
    def reasons(self) -> dict[str, int]:
        """Each reason with the number of pools giving it."""
        return dict(Counter(reason for _, reason, _ in self.errors))

    @property
    def message(self) -> str:
        """Karpenter's FailedScheduling event for a blocked copy ("" when none is)."""
        if not self.blocked or not self.errors:
            return ""
        return KARPENTER_EVENT + "; ".join(t for _, _, t in self.errors)
