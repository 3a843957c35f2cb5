"""What a score plugin is, and how the default profile's scores add up.

Upstream ``pkg/scheduler/framework/runtime/framework.go`` (RunScorePlugins: each plugin
scores every feasible node, its NormalizeScore runs over them all, then each score is
multiplied by the plugin's weight and the products summed),
``framework/plugins/helper/normalize_score.go`` (DefaultNormalizeScore) and
``apis/config/v1/default_plugins.go`` (the weights). Every score is an integer in
``[0, MAX_NODE_SCORE]`` after normalising, as upstream's ``int64`` arithmetic leaves it.

Each score plugin is one :class:`ScorePlugin` record in its plugin module (``SCORE``):
its name, its weight, its PreScore (what it works out once per workload, its part of
:class:`~gate.scheduler.placement.copyrules.ScoreRules`), its raw score of a feasible node and its
normalisation. ``gate.scheduler.plugins.SCORES`` lists them in the profile's order;
placement (:mod:`gate.scheduler.placement.classes`) loops over that list.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from gate.k8s.podaffinity import AffinityTerm
from gate.model import NodeView

if TYPE_CHECKING:
    from gate.scheduler.framework.nodeindex import NodeIndex
    from gate.scheduler.framework.podindex import PodIndex
    from gate.scheduler.framework.profile import PodProfile

# framework/interface.go MaxNodeScore
MAX_NODE_SCORE = 100


@dataclass(frozen=True, slots=True)
class Workload:
    """What the score plugins' PreScore reads of one workload's pod: its kind, its
    profile, the snapshot's nodes and pods (those the workload's own pods leave), and the
    namespaces' labels (None: not read)."""

    kind: str
    profile: PodProfile
    nodes: NodeIndex
    pods: PodIndex
    namespaces: Mapping[str, Mapping[str, str]] | None = None


@dataclass(frozen=True, slots=True)
class Incoming:
    """Who a workload's pod is, as the terms of the pods bound before it read it: its
    namespace, its labels and its namespace's labels (None: not read)."""

    namespace: str
    labels: Mapping[str, str] = field(default_factory=dict)
    namespace_labels: Mapping[str, str] | None = None


Carried = tuple[tuple[int, AffinityTerm], ...]
"""The terms a pod carries that score a pod scheduled after it (InterPodAffinity's
processExistingPod): its required affinity terms weighted by hardPodAffinityWeight, its
preferred affinity terms by their weight, its preferred anti-affinity terms by minus theirs."""


class Placing(Protocol):
    """What a score plugin reads of copies being placed: the nodes by position, the copies
    each holds so far, and by node the cpu and memory its pods (and the run's earlier
    copies) hold, as requested and as scored (non-zero)."""

    @property
    def nodes(self) -> Sequence[NodeView]: ...
    @property
    def copies(self) -> Mapping[int, int]: ...
    @property
    def base(self) -> Mapping[int, tuple[int, int]]: ...
    @property
    def nonzero(self) -> Mapping[int, tuple[int, int]]: ...


class Earlier(Protocol):
    """The copies the run's earlier new workloads placed, bound by the time the workload's
    pods are scheduled: by namespace, each workload's name and its pods' labels; where the
    copies of some of them are, as ``(node position, copies)``; by name, the terms those
    that carry any score a later pod by (:data:`Carried`)."""

    @property
    def nodes(self) -> Sequence[NodeView]: ...
    @property
    def workloads(self) -> Mapping[str, Sequence[tuple[str, Mapping[str, str]]]]: ...
    @property
    def terms(self) -> Mapping[str, Carried]: ...
    def copies_of(self, names: Set[str]) -> list[tuple[int, int]]: ...


Feasible = Sequence[tuple[int, Set[int]]]
"""The feasible nodes a plugin scores: classes of alike nodes, each by one of its nodes."""

P = TypeVar("P")
S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class ScorePlugin(Generic[P, S]):
    """One score plugin of the default profile. ``prescore`` works out what it reads of
    the workload's pod, once (its PreScore: ``P``), kept in the field ``part`` of the
    workload's :class:`~gate.scheduler.placement.copyrules.ScoreRules` (None: it reads nothing).
    Its raw score of a node is one of three kinds, the cheapest that holds:

    - ``node``: read off the node alone, once (the same for every copy);
    - ``own``: read off the node and the copies it holds, never normalised (None: the
      plugin skips this pod);
    - ``score``: over the feasible nodes at once, from a state ``S`` the copies change
      (``start`` makes it for a placement, ``land`` applies a copy landing on a node;
      ``reads`` is what the score reads of a node that is the same for every copy, so
      that nodes alike in it are scored alike). None: the plugin skips this pod.

    ``normalize`` maps the raw scores of the feasible nodes onto ``[0, MAX_NODE_SCORE]``
    (None: they are already). ``beside`` counts the run's earlier copies in a PreScore that
    reads the snapshot's pods, as it counts those (None: it reads no pod's labels).
    ``fails``: why its PreScore fails for a pod (None: it does not), which fails the
    pod's scheduling cycle wherever scores run."""

    name: str
    weight: int
    part: str | None = None
    prescore: Callable[[Workload], P] | None = None
    normalize: Callable[[Sequence[Any]], list[int]] | None = None
    node: Callable[[P, NodeView], int] | None = None
    own: Callable[[Placing, P, int], int | None] | None = None
    start: Callable[[Placing, P], S] | None = None
    land: Callable[[Placing, P, S, int], None] | None = None
    score: Callable[[Placing, P, S, Feasible], list[int | None] | None] | None = None
    reads: Callable[[Placing, P, int], Hashable] | None = None
    beside: Callable[[P, Incoming, Earlier], P] | None = None
    fails: Callable[[PodProfile], str | None] | None = None


def default_normalize(scores: Sequence[int], reverse: bool = False) -> list[int]:
    """DefaultNormalizeScore(MaxNodeScore, reverse): scale ``[0, max]`` to ``[0, 100]``
    with integer division, then flip when ``reverse``; all zero stays zero (or becomes 100
    reversed).

    >>> default_normalize([0, 1, 3])
    [0, 33, 100]
    >>> default_normalize([0, 1, 3], reverse=True)
    [100, 67, 0]
    """
    highest = max(scores, default=0)
    if highest == 0:
        return [MAX_NODE_SCORE if reverse else 0 for _ in scores]
    scaled = [MAX_NODE_SCORE * score // highest for score in scores]
    return [MAX_NODE_SCORE - s for s in scaled] if reverse else scaled


def reversed_normalize(scores: Sequence[int]) -> list[int]:
    """DefaultNormalizeScore(MaxNodeScore, reverse: true)."""
    return default_normalize(scores, reverse=True)
