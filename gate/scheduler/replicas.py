"""A workload's pods beyond its first: the running pods it replaces, and its copies counted.

The engine asks the filters about one pod per workload; this module says what follows for
all of them (SPEC section 4, "A workload is its pods, all of them"):

- **released**: the workload's own running pods (:mod:`gate.scheduler.ownership`) are the
  version its change replaces; their requests, pod slots and host ports go back to their
  nodes, and the inter-pod filters stop counting them;
- **placed**: the wanted copies are counted on the nodes that pass every filter for the
  first one (:mod:`gate.scheduler.placement`), the pod's own anti-affinity and spread
  constraints coupling them;
- **together**: a workload new to the cluster is also placed beside the run's other new
  workloads, in input order, on one ledger of the room they take;
- **one lost node**: the copies are placed again without the node holding most of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from gate.model import ExistingPod, NodeView, ReplicaFit, Scaling, WarningKind, WorkloadWarning
from gate.scheduler.filters import POD_TOPOLOGY_SPREAD, PodProfile
from gate.scheduler.placement import CopyRules, Ledger, Placement, SpreadRule, place
from gate.scheduler.plugins import CycleState
from gate.scheduler.podtopologyspread import SpreadState


def released_views(
    nodes: Sequence[NodeView],
    node_of: Sequence[int],
    pods: Sequence[ExistingPod],
    own: Sequence[int],
) -> dict[int, NodeView]:
    """The nodes holding the workload's own pods (positions in ``pods``), with those pods
    given back: their requests, their pod slots and their host ports. By node position."""
    taken: dict[int, list[ExistingPod]] = {}
    for i in own:
        taken.setdefault(node_of[i], []).append(pods[i])
    views = {}
    for position, gone in taken.items():
        node = nodes[position]
        requested = dict(node.requested)
        ports = set(node.used_ports)
        for pod in gone:
            for resource, amount in pod.requests.items():
                requested[resource] = requested.get(resource, 0) - amount
            ports.difference_update(pod.ports)
        views[position] = replace(
            node,
            requested=requested,
            pod_count=node.pod_count - len(gone),
            used_ports=frozenset(ports),
        )
    return views


def copy_rules(
    profile: PodProfile, cycle: CycleState, namespace_labels: Mapping[str, str] | None
) -> CopyRules:
    """What limits the copies beyond the first: requests, host ports, the required
    anti-affinity terms the pod's own labels match (one copy per domain of their key), and
    the DoNotSchedule spread constraints with the counts their PreFilter found."""
    own = {
        term.topology_key
        for term in profile.pod_anti_affinity
        if term.matches(profile.namespace, profile.labels, namespace_labels)
    }
    spread: tuple[SpreadRule, ...] = ()
    state = next((p.state for p in cycle if p.plugin.name == POD_TOPOLOGY_SPREAD), None)
    if isinstance(state, SpreadState):
        spread = tuple(
            SpreadRule(
                topology_key=constraint.topology_key,
                max_skew=constraint.max_skew,
                counts=state.counts[i],
                min_domains=constraint.min_domains,
                self_match=bool(state.self_match[i]),
            )
            for i, constraint in enumerate(state.constraints)
        )
    return CopyRules(
        requests=profile.requests,
        host_ports=profile.wanted_ports,
        one_per_domain=tuple(sorted(own)),
        spread=spread,
    )


def set_bits(bits: int) -> Iterator[int]:
    """Positions of the set bits, lowest first, one step per set bit."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def _pods_noun(kind: str) -> str:
    return "replicas" if kind in ("Deployment", "ReplicaSet", "StatefulSet") else "pods"


def count_copies(
    title: str,
    kind: str,
    wanted: int,
    views: Sequence[NodeView],
    fitting: int,
    rules: CopyRules,
    scaling: Scaling | None,
    ledger: Ledger | None,
    released: int,
) -> tuple[ReplicaFit, list[WorkloadWarning]]:
    """How many of ``wanted`` copies fit on the ``fitting`` nodes (a bitset over ``views``),
    alone and, for a workload new to the cluster (``ledger`` given), beside the run's other
    new workloads; with what an autoscaler's maximum would find and what one lost node
    would cost."""
    alone = place(wanted, views, rules, set_bits(fitting))
    warnings = []
    together: Placement | None = None
    beside: tuple[str, ...] = ()
    if ledger is not None:
        together = place(wanted, views, rules, set_bits(fitting), ledger=ledger)
        if together.fit < alone.fit:
            takers = (t for i in alone.copies for t in ledger.takers.get(views[i].name, ()))
            beside = tuple(dict.fromkeys(takers))
        for position, copies in together.copies.items():
            ledger.take(views[position].name, rules, copies, title)
    headroom = None
    if scaling is not None and scaling.maximum is not None:
        headroom = place(scaling.maximum, views, rules, set_bits(fitting)).fit
    if wanted >= 2 and alone.fit >= wanted:
        lost = _one_lost_node(kind, wanted, views, fitting, rules, alone, scaling)
        if lost is not None:
            warnings.append(lost)
    fit = ReplicaFit(
        wanted=wanted,
        alone=alone.fit,
        together=None if together is None else together.fit,
        beside=beside,
        autoscaler=scaling.autoscaler if scaling else None,
        maximum=scaling.maximum if scaling else None,
        headroom=headroom,
        released=released,
    )
    return fit, warnings


def _one_lost_node(
    kind: str,
    wanted: int,
    views: Sequence[NodeView],
    fitting: int,
    rules: CopyRules,
    alone: Placement,
    scaling: Scaling | None,
) -> WorkloadWarning | None:
    """N+1: the copies placed again without the node holding most of them (ties: the
    earlier node). A warning when the other nodes cannot take all of them back, or not as
    many as a disruption budget keeps. The node is never named: picking is scheduling."""
    busiest = max(alone.copies, key=lambda i: (alone.copies[i], -i))
    held = alone.copies[busiest]
    rest = place(wanted, views, rules, (i for i in set_bits(fitting) if i != busiest)).fit
    keep = scaling.must_keep if scaling else None
    if rest >= wanted and (keep is None or rest >= keep):
        return None
    noun = _pods_noun(kind)
    text = (
        f"if the node holding {held} of its {noun} failed, the other nodes could take "
        f"{rest} of {wanted}"
    )
    if keep is not None and scaling is not None and rest < keep:
        text += f", fewer than PodDisruptionBudget {scaling.budget} keeps ({keep})"
    return WorkloadWarning(WarningKind.LOST_NODE, text)
