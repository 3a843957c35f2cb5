"""Workloads x node views -> verdicts, and the scheduler's FitError message.

Each filter runs once per class of the nodes' part that it reads (see
:mod:`gate.scheduler.nodeindex`): cost grows with the number of such classes, not with the number of
nodes, and verdicts, messages and counts are computed on sets of nodes. Only the per-node
outcome list is as long as the node list, and it is gathered at C speed
(:mod:`gate.scheduler.outcomes`). Pods whose answer depends on a node's name (``nodeName``,
``matchFields``) are evaluated node by node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from typing import Any

from gate.errors import QuantityError
from gate.k8s.completion import AdmissionRefused, complete_pod_spec
from gate.k8s.matching import name_narrowing, parse_terms, required_terms, scalar_text
from gate.k8s.quantity import format_amount
from gate.k8s.resources import is_sidecar, pod_request_amounts
from gate.k8s.version import Dialect
from gate.k8s.warnings import unchecked_warnings
from gate.model import HostPort, NodeOutcome, NodeView, Verdict, Workload, WorkloadResult
from gate.scheduler.filters import (
    REASON_AFFINITY_CONFLICT,
    REASON_NARROWED,
    REASON_NO_NODES,
    PodProfile,
    Rejection,
    is_room_reason,
    run_filters,
)
from gate.scheduler.nodeindex import Groups, NodeIndex, filter_groups
from gate.scheduler.outcomes import OutcomeTables
from gate.snapshot.load import Snapshot

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
    return _fit_error_text(total, Counter(reason for o in outcomes for reason in o.reasons))


def _fit_error_text(total: int, histogram: Mapping[str, int]) -> str:
    entries = sorted((f"{count} {reason}" for reason, count in histogram.items()), key=_bytes)
    return f"0/{total} nodes are available: {', '.join(entries)}."


def _group_fit_error(total: int, groups: Groups) -> str:
    """:func:`fit_error` from node sets: each reason counted once per node of its set."""
    histogram: Counter[str] = Counter()
    for rejection, bits in groups.items():
        for reason in rejection.reasons:
            histogram[reason] += bits.bit_count()
    return _fit_error_text(total, histogram)


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
    """A map[string]string as the API server stores it: a null value is the empty string."""
    if not isinstance(value, Mapping):
        return {}
    return {str(k): scalar_text(v) for k, v in value.items()}


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


def _frozen(value: object) -> Hashable:
    """A hashable stand-in equal only for equal data of equal types (``1``, ``1.0`` and
    ``True`` are equal in Python, not to the filters)."""
    kind = value.__class__
    if kind is str:  # most of what a pod spec holds, so asked first
        return value
    if kind is dict or isinstance(value, Mapping):
        return tuple((_frozen(k), _frozen(v)) for k, v in value.items())  # type: ignore[attr-defined]
    if kind is list or kind is tuple:
        return (list, *map(_frozen, value))  # type: ignore[call-overload]
    return (kind, value)


def _scheduling_key(spec: Mapping[str, Any], profile: PodProfile) -> Hashable | None:
    """Everything :func:`filter_groups` reads of a pod (its label keys follow from the
    selector and the terms), or None when some part cannot be hashed."""
    key = (
        _frozen(profile.tolerations),
        tuple(profile.node_selector.items()),
        _frozen(required_terms(spec)),
        profile.wanted_ports,
        tuple(profile.requests.items()),
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _key_text(value: object) -> str:
    """A label key as gate.k8s.matching reads it (``_text``): None is "", booleans lower-case."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _label_keys(spec: Mapping[str, Any], profile: PodProfile) -> set[str]:
    """Every label key the pod's nodeSelector and required affinity terms read."""
    keys = set(profile.node_selector)
    for term in required_terms(spec) or []:
        expressions = term.get("matchExpressions") if isinstance(term, Mapping) else None
        for expression in expressions if isinstance(expressions, list) else []:
            if isinstance(expression, Mapping):
                keys.add(_key_text(expression.get("key")))
    return keys


def _per_node(
    nodes: Sequence[NodeView], profile: PodProfile, dialect: Dialect
) -> list[Rejection | None]:
    return [run_filters(profile, node, dialect) for node in nodes]


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
class _Answer:
    """What the filters say of every node for one pod, and what follows from it."""

    outcomes: tuple[NodeOutcome, ...]
    any_fit: bool
    addon_only: bool  # every node that fits is an add-on node
    message: str | None  # the FitError, when no node fits
    lacking: bool  # some node rejects it for room alone


@dataclass(frozen=True, slots=True)
class Evaluator:
    """Evaluates workloads against one snapshot, sharing its node classes."""

    snapshot: Snapshot
    dialect: Dialect
    index: NodeIndex
    tables: OutcomeTables
    answers: dict[Hashable, _Answer] = field(default_factory=dict)

    @classmethod
    def for_snapshot(cls, snapshot: Snapshot, dialect: Dialect) -> Evaluator:
        index = NodeIndex.of(snapshot.nodes)
        return cls(snapshot, dialect, index, OutcomeTables(index.nodes))

    def _answer(self, spec: Mapping[str, Any], profile: PodProfile) -> _Answer:
        """What the filters say of every node for this pod. Workloads that ask the filters
        the same questions get the same answer: it is worked out once."""
        key = _scheduling_key(spec, profile)
        found = self.answers.get(key) if key is not None else None
        if found is None:
            groups = filter_groups(self.index, profile, self.dialect, _label_keys(spec, profile))
            found = self._work_out(groups)
            if key is not None:
                self.answers[key] = found
        return found

    def _work_out(self, groups: Groups) -> _Answer:
        fitting = self.index.everyone & ~reduce(or_, groups.values(), 0)
        return _Answer(
            outcomes=self.tables.outcomes(groups),
            any_fit=bool(fitting),
            addon_only=not fitting & ~self.index.addon,
            message=None if fitting else _group_fit_error(len(self.index.nodes), groups),
            lacking=any(all(map(is_room_reason, r.reasons)) for r in groups),
        )

    def evaluate(self, workload: Workload) -> WorkloadResult:
        try:
            spec, warnings = complete_pod_spec(
                workload.pod_spec,
                workload.namespace,
                self.snapshot.admission,
                pod_level_resources=self.dialect.pod_level_resources,
            )
        except AdmissionRefused as exc:
            return self._result(workload, Verdict.ERROR, reason=str(exc))
        daemonset = workload.kind == "DaemonSet"
        if daemonset:
            spec["tolerations"] = _daemonset_tolerations(spec)
        try:
            profile = pod_profile(spec)
        except QuantityError as exc:
            return self._result(workload, Verdict.ERROR, reason=str(exc))
        unchecked = unchecked_warnings(workload.pod_spec, spec)
        warnings = [*workload.warnings, *warnings, *unchecked]
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
        nodes = self.index.nodes
        requests = _requests_text(profile)
        if not nodes:
            return self._result(
                workload,
                Verdict.NO,
                message=REASON_NO_NODES,
                requests=requests,
                warnings=tuple(warnings),
            )
        outcomes: Sequence[NodeOutcome]
        if _depends_on_name(spec):
            outcomes = self._named_outcomes(spec, profile)
            fits = [n for n, o in zip(nodes, outcomes, strict=False) if o.fits]
            any_fit, addon_only = bool(fits), all(n.is_addon_node for n in fits)
            message = self._message(spec, outcomes) if not fits else None
        else:
            answer = self._answer(spec, profile)
            outcomes, message = answer.outcomes, answer.message
            any_fit, addon_only = answer.any_fit, answer.addon_only
        if not any_fit:
            verdict = Verdict.NO
        elif addon_only:
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

    def _named_outcomes(self, spec: Mapping[str, Any], profile: PodProfile) -> list[NodeOutcome]:
        nodes = self.index.nodes
        terms = required_terms(spec)
        narrowed = name_narrowing(terms) if terms else None
        if narrowed is not None and not narrowed:
            conflict = Rejection((REASON_AFFINITY_CONFLICT,))
            return [_outcome(n, conflict) for n in nodes]
        rejections = _per_node(nodes, profile, self.dialect)
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
        nodes = self.index.nodes
        if _depends_on_name(spec):
            rejections = _per_node(nodes, profile, self.dialect)
            outcomes = tuple(_outcome(n, r) for n, r in zip(nodes, rejections, strict=False))
            any_fit = any(o.fits for o in outcomes)
            lacking = any(o.reasons and all(map(is_room_reason, o.reasons)) for o in outcomes)
        else:
            answer = self._answer(spec, profile)
            outcomes, any_fit, lacking = answer.outcomes, answer.any_fit, answer.lacking
        if not any_fit and not lacking:
            warnings.append("the DaemonSet targets no node of the snapshot: it creates no pod")
        verdict = Verdict.PARTIAL if lacking else Verdict.YES
        return self._result(
            workload,
            verdict,
            nodes=outcomes,
            requests=_requests_text(profile),
            warnings=tuple(warnings),
        )
