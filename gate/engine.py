"""Workloads x node views -> verdicts, and the scheduler's FitError message.

Nodes that look the same to a pod (same cordon, taints, labels, free resources, pod
count and used ports) are evaluated once: cost grows with the number of such classes,
not with the number of nodes. Pods whose answer depends on a node's name (``nodeName``,
``matchFields``) are evaluated per node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.completion import complete_pod_spec
from gate.errors import QuantityError
from gate.filters import (
    REASON_AFFINITY_CONFLICT,
    REASON_NARROWED,
    REASON_NO_NODES,
    Dialect,
    PodProfile,
    Rejection,
    is_room_reason,
    run_filters,
)
from gate.matching import name_narrowing, parse_terms, required_terms
from gate.model import HostPort, NodeOutcome, NodeView, Verdict, Workload, WorkloadResult
from gate.quantity import format_amount
from gate.resources import is_sidecar, pod_request_amounts
from gate.snapshot import Snapshot
from gate.unchecked import unchecked_warnings

# DaemonSet controller, pkg/controller/daemon/util/daemonset_util.go AddOrUpdateDaemonPodTolerations
DAEMONSET_TOLERATIONS: tuple[tuple[str, str], ...] = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
DAEMONSET_HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")


def fit_error(total: int, outcomes: Iterable[NodeOutcome]) -> str:
    """FitError.Error(): ``0/N nodes are available:`` and the reason histogram, each entry
    ``<count> <reason>``, sorted byte-wise (so ``10 ...`` sorts before ``2 ...``)."""
    histogram = Counter(reason for o in outcomes for reason in o.reasons)
    entries = sorted((f"{count} {reason}" for reason, count in histogram.items()), key=_bytes)
    return f"0/{total} nodes are available: {', '.join(entries)}."


def _bytes(text: str) -> bytes:
    return text.encode("utf-8")


def _daemonset_tolerations(spec: Mapping[str, Any]) -> list[Any]:
    """AddOrUpdateDaemonPodTolerations: Exists tolerations replace same key+effect ones."""
    wanted = list(DAEMONSET_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(DAEMONSET_HOST_NETWORK_TOLERATION)
    current = [t for t in spec.get("tolerations") or [] if isinstance(t, Mapping)]
    for key, effect in wanted:
        current = [t for t in current if not (t.get("key") == key and t.get("effect") == effect)]
        current.append({"key": key, "operator": "Exists", "effect": effect})
    return current


def _wanted_ports(spec: Mapping[str, Any]) -> tuple[HostPort, ...]:
    containers = [c for c in spec.get("containers") or [] if isinstance(c, Mapping)]
    containers += [
        c for c in spec.get("initContainers") or [] if isinstance(c, Mapping) and is_sidecar(c)
    ]
    ports = []
    for container in containers:
        for port in container.get("ports") or []:
            host_port = port.get("hostPort") if isinstance(port, Mapping) else None
            if isinstance(host_port, int) and host_port > 0:
                assert isinstance(port, Mapping)
                ports.append(
                    HostPort(
                        ip=str(port.get("hostIP") or "0.0.0.0"),
                        protocol=str(port.get("protocol") or "TCP"),
                        port=host_port,
                    )
                )
    return tuple(ports)


def _text_map(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {
        str(k): "true" if v is True else "false" if v is False else str(v) for k, v in value.items()
    }


def pod_profile(spec: Mapping[str, Any]) -> PodProfile:
    terms = required_terms(spec)
    return PodProfile(
        node_name=str(spec.get("nodeName") or ""),
        tolerations=tuple(t for t in spec.get("tolerations") or [] if isinstance(t, Mapping)),
        node_selector=_text_map(spec.get("nodeSelector")),
        affinity_terms=None if terms is None else parse_terms(terms),
        wanted_ports=_wanted_ports(spec),
        requests=pod_request_amounts(spec),
    )


def _depends_on_name(spec: Mapping[str, Any]) -> bool:
    terms = required_terms(spec) or []
    return bool(spec.get("nodeName")) or any(
        isinstance(t, Mapping) and t.get("matchFields") for t in terms
    )


def _class_key(node: NodeView) -> tuple[object, ...]:
    free = tuple(sorted((r, a - node.requested.get(r, 0)) for r, a in node.allocatable.items()))
    over = tuple(sorted((r, a) for r, a in node.requested.items() if r not in node.allocatable))
    return (
        node.unschedulable,
        node.taints,
        tuple(sorted(node.labels.items())),
        free,
        over,
        node.pod_count,
        node.used_ports,
    )


@dataclass(frozen=True, slots=True)
class NodeClasses:
    """Nodes grouped by everything the filters read except the name."""

    nodes: tuple[NodeView, ...]
    class_of: tuple[int, ...]
    representatives: tuple[NodeView, ...]

    @classmethod
    def of(cls, nodes: Sequence[NodeView]) -> NodeClasses:
        index: dict[tuple[object, ...], int] = {}
        class_of = []
        representatives: list[NodeView] = []
        for node in nodes:
            key = _class_key(node)
            if key not in index:
                index[key] = len(representatives)
                representatives.append(node)
            class_of.append(index[key])
        return cls(tuple(nodes), tuple(class_of), tuple(representatives))

    def evaluate(
        self, profile: PodProfile, dialect: Dialect, by_name: bool
    ) -> list[Rejection | None]:
        if by_name:
            return [run_filters(profile, node, dialect) for node in self.nodes]
        per_class = [run_filters(profile, node, dialect) for node in self.representatives]
        return [per_class[c] for c in self.class_of]


def _outcome(node: NodeView, rejection: Rejection | None) -> NodeOutcome:
    if rejection is None:
        return NodeOutcome(node=node.name, reasons=())
    return NodeOutcome(node=node.name, reasons=rejection.reasons, taint=rejection.taint)


def _requests_text(profile: PodProfile) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name, format_amount(name, amount))
        for name, amount in sorted(profile.requests.items())
        if amount > 0
    )


@dataclass(frozen=True, slots=True)
class Evaluator:
    """Evaluates workloads against one snapshot, sharing its node classes."""

    snapshot: Snapshot
    dialect: Dialect
    classes: NodeClasses

    @classmethod
    def for_snapshot(cls, snapshot: Snapshot, dialect: Dialect) -> Evaluator:
        return cls(snapshot, dialect, NodeClasses.of(snapshot.nodes))

    def evaluate(self, workload: Workload) -> WorkloadResult:
        spec, warnings = complete_pod_spec(
            workload.pod_spec, workload.namespace, self.snapshot.admission
        )
        daemonset = workload.kind == "DaemonSet"
        if daemonset:
            spec["tolerations"] = _daemonset_tolerations(spec)
        try:
            profile = pod_profile(spec)
        except QuantityError as exc:
            return self._result(workload, Verdict.ERROR, reason=str(exc))
        warnings = [*workload.warnings, *warnings, *unchecked_warnings(workload.pod_spec)]
        if daemonset:
            return self._daemonset(workload, spec, profile, warnings)
        return self._pod(workload, spec, profile, warnings)

    def _result(self, workload: Workload, verdict: Verdict, **fields: Any) -> WorkloadResult:
        return WorkloadResult(
            kind=workload.kind,
            namespace=workload.namespace,
            name=workload.name,
            location=workload.location,
            replicas=workload.replicas,
            verdict=verdict,
            **fields,
        )

    def _pod(
        self, workload: Workload, spec: Mapping[str, Any], profile: PodProfile, warnings: list[str]
    ) -> WorkloadResult:
        nodes = self.classes.nodes
        requests = _requests_text(profile)
        if not nodes:
            return self._result(
                workload,
                Verdict.NO,
                message=REASON_NO_NODES,
                requests=requests,
                warnings=tuple(warnings),
            )
        outcomes = self._pod_outcomes(spec, profile)
        fits = [n for n, o in zip(nodes, outcomes, strict=False) if o.fits]
        if not fits:
            verdict, message = Verdict.NO, self._message(spec, outcomes)
        elif all(n.is_addon_node for n in fits):
            verdict, message = Verdict.ADDON_ONLY, None
        else:
            verdict, message = Verdict.YES, None
        return self._result(
            workload,
            verdict,
            message=message,
            nodes=tuple(outcomes),
            requests=requests,
            warnings=tuple(warnings),
        )

    def _pod_outcomes(self, spec: Mapping[str, Any], profile: PodProfile) -> list[NodeOutcome]:
        nodes = self.classes.nodes
        terms = required_terms(spec)
        narrowed = name_narrowing(terms) if terms else None
        if narrowed is not None and not narrowed:
            conflict = Rejection((REASON_AFFINITY_CONFLICT,))
            return [_outcome(n, conflict) for n in nodes]
        rejections = self.classes.evaluate(profile, self.dialect, _depends_on_name(spec))
        outside = Rejection((REASON_NARROWED,))
        return [
            _outcome(n, outside if narrowed is not None and n.name not in narrowed else r)
            for n, r in zip(nodes, rejections, strict=False)
        ]

    def _message(self, spec: Mapping[str, Any], outcomes: Sequence[NodeOutcome]) -> str:
        terms = required_terms(spec)
        narrowed = name_narrowing(terms) if terms else None
        if narrowed is not None and not narrowed:
            return f"0/{len(outcomes)} nodes are available: {REASON_AFFINITY_CONFLICT}."
        return fit_error(len(outcomes), outcomes)

    def _daemonset(
        self, workload: Workload, spec: Mapping[str, Any], profile: PodProfile, warnings: list[str]
    ) -> WorkloadResult:
        """One pod per targeted node, pinned to it: the filters without narrowing."""
        nodes = self.classes.nodes
        rejections = self.classes.evaluate(profile, self.dialect, _depends_on_name(spec))
        outcomes = tuple(_outcome(n, r) for n, r in zip(nodes, rejections, strict=False))
        targeted = [o for o in outcomes if o.fits or all(is_room_reason(r) for r in o.reasons)]
        if not targeted:
            warnings.append("the DaemonSet targets no node of the snapshot: it creates no pod")
        lacking = [o for o in targeted if not o.fits]
        verdict = Verdict.PARTIAL if lacking else Verdict.YES
        return self._result(
            workload,
            verdict,
            nodes=outcomes,
            requests=_requests_text(profile),
            warnings=tuple(warnings),
        )
