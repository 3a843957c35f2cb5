"""How many pods a workload wants: its replica fields, and the autoscalers of the same run.

The controllers' rules (docs/reference.md, "A workload is all of its pods"):

- Deployment, ReplicaSet, StatefulSet, ReplicationController: ``spec.replicas``, default 1;
  none for a paused Deployment, which starts no pod of its template until resumed
  (whatever an autoscaler sets its replicas to).
- Job: ``parallelism`` (default 1), capped by ``completions`` when set; a suspended Job runs
  none (pkg/controller/job/job_controller.go ``manageJob``: ``wantActive`` is
  ``min(parallelism, completions - succeeded)``, and 0 while ``suspend`` is true), unless a
  Kueue queue manages it (the ``kueue.x-k8s.io/queue-name`` label): Kueue creates such Jobs
  suspended and resumes them when it admits them, so they are judged as resumed.
- CronJob: the Job its ``jobTemplate`` makes; none while the CronJob itself is suspended.
- Pod: 1. DaemonSet and PodTemplate: no count (a DaemonSet wants one pod per targeted node).

An autoscaler in the same run that targets the workload (same namespace, kind and name) sets
the minimum: a HorizontalPodAutoscaler's ``minReplicas`` (default 1), a KEDA ScaledObject's
``minReplicaCount`` (default 0; a workload scaled to zero still needs room for one pod when it
wakes, so the minimum is at least 1). Its maximum is the headroom a report can state.

Every count is read by :mod:`gate.inputs.counts`: one that is no int32 from 0 up is a
:class:`~gate.inputs.counts.BadCount`, which makes the workload an ERROR.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from gate.inputs.counts import BadCount, read_count
from gate.k8s.intstr import scaled as _scaled
from gate.model import AutoscalerRef, Scaling, Workload
from gate.untyped import at

# KEDA's defaults, keda.sh/v1alpha1 ScaledObject: minReplicaCount 0, maxReplicaCount 100.
_KEDA_MIN_DEFAULT = 0
_KEDA_MAX_DEFAULT = 100
_HPA_MIN_DEFAULT = 1
_ABSENT = -1  # a required count that is not there (an HPA's maxReplicas)

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
"""The label by which a Kueue LocalQueue manages a Job: Kueue creates it suspended and
resumes it when the queue admits it."""


@dataclass(frozen=True, slots=True)
class Autoscaler:
    """An autoscaler found in the run, by what it scales."""

    kind: str  # HorizontalPodAutoscaler or ScaledObject
    name: str
    minimum: int
    maximum: int
    problem: BadCount | None = None
    """A count of its own that is none (``minReplicas: "2"``): what it scales is an ERROR."""
    others: tuple[tuple[str, str], ...] = ()
    """Further autoscalers (kind, name) of the same workload: it is then an ERROR."""
    from_zero: bool = False
    """It scales a target of 0 replicas up: KEDA's ScaledObject, or an HPA whose
    ``minReplicas`` is 0 (HPAScaleToZero)."""

    def disabled(self, replicas: int | None) -> bool:
        """An HPA of a ``minReplicas`` other than 0 whose target has 0 replicas scales
        nothing (horizontal.go ``reconcileAutoscaler``: ScalingActive False,
        ``ScalingDisabled``); KEDA's ScaledObject wakes a target scaled to zero itself."""
        return replicas == 0 and not self.from_zero

    def invalid(self, namespace: str) -> str | None:
        """Why the workload it scales cannot be judged, naming the autoscaler's field, or
        every autoscaler when several scale it (pkg/controller/podautoscaler/horizontal.go:
        an HPA whose pods another HPA also selects gets ``ScalingActive=False``, reason
        ``AmbiguousSelector``, and scales nothing; KEDA scales through an HPA of its own)."""
        if self.others:
            named = ", ".join(
                f"{kind} {namespace}/{name}"
                for kind, name in ((self.kind, self.name), *self.others)
            )
            return (
                f"controlled by multiple autoscalers: {named} (AmbiguousSelector: the HPA "
                "controller scales it by none of them)"
            )
        if self.problem is None:
            return None
        return f"{self.kind} {namespace}/{self.name}: {self.problem}"


ScaleTarget = tuple[str, str, str]
"""(namespace, kind, name) of a scaled workload."""


Wanted = int | BadCount | None
"""Pods a workload runs at once, why its count is none, or None for a kind without one."""


def _job_pods(job_spec: object, where: tuple[str, ...], queued: bool) -> int | BadCount:
    parallelism = read_count(job_spec, ("parallelism",), 1, where=where, validated=True)
    completions = read_count(job_spec, ("completions",), _ABSENT, where=where, validated=True)
    if isinstance(parallelism, BadCount):
        return parallelism
    if isinstance(completions, BadCount):
        return completions
    if at(job_spec, ("suspend",)) is True and not queued:
        return 0
    return parallelism if completions == _ABSENT else min(parallelism, completions)


def queue_of(kind: str, body: Mapping[str, Any]) -> str | None:
    """The Kueue queue that resumes a suspended Job (or a CronJob's suspended Jobs) when it
    admits it; None when it is not suspended or no queue manages it."""
    job = {"Job": (), "CronJob": ("spec", "jobTemplate")}.get(kind)
    if job is None or at(body, (*job, "spec", "suspend")) is not True:
        return None
    queue = at(body, (*job, "metadata", "labels", QUEUE_LABEL))
    return queue if isinstance(queue, str) and queue else None


def wanted_pods(kind: str, body: Mapping[str, Any]) -> Wanted:
    """How many pods of its template the workload runs at once; a :class:`BadCount` when a
    count field holds no count; None when it has no count (DaemonSet, PodTemplate, kinds
    without one)."""
    if kind in ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"):
        replicas = read_count(body, ("spec", "replicas"), 1, validated=True)
        # A paused Deployment makes no ReplicaSet of a new template (deployment_controller.go
        # syncDeployment -> sync, getAllReplicaSetsAndSyncRevision without creating one).
        paused = kind == "Deployment" and at(body, ("spec", "paused")) is True
        return 0 if paused and isinstance(replicas, int) else replicas
    if kind == "Job":
        return _job_pods(at(body, ("spec",)), ("spec",), queue_of(kind, body) is not None)
    if kind == "CronJob":
        where = ("spec", "jobTemplate", "spec")
        pods = _job_pods(at(body, where), where, queue_of(kind, body) is not None)
        # A suspended CronJob starts no Job (cronjob_controllerv2.go syncCronJob).
        return 0 if at(body, ("spec", "suspend")) is True and isinstance(pods, int) else pods
    if kind == "Pod":
        return 1
    return None


def _namespace(body: Mapping[str, Any]) -> str:
    namespace = at(body, ("metadata", "namespace"))
    return namespace if isinstance(namespace, str) and namespace else "default"


def autoscaler_of(body: Mapping[str, Any]) -> tuple[ScaleTarget, Autoscaler] | None:
    """The workload an HPA or a KEDA ScaledObject scales, and its bounds; None for any other
    document or one whose target cannot be named."""
    kind = body.get("kind")
    target = at(body, ("spec", "scaleTargetRef"))
    name = at(target, ("name",))
    if not isinstance(name, str) or not name:
        return None
    own_name = at(body, ("metadata", "name"))
    own_name = own_name if isinstance(own_name, str) else "(unnamed)"
    if kind == "HorizontalPodAutoscaler":
        target_kind = at(target, ("kind",))
        low = read_count(body, ("spec", "minReplicas"), _HPA_MIN_DEFAULT)
        high = read_count(body, ("spec", "maxReplicas"), _ABSENT)
    elif kind == "ScaledObject":
        target_kind = at(target, ("kind",)) or "Deployment"
        low = read_count(body, ("spec", "minReplicaCount"), _KEDA_MIN_DEFAULT)
        high = read_count(body, ("spec", "maxReplicaCount"), _KEDA_MAX_DEFAULT)
    else:
        return None
    if not isinstance(target_kind, str) or high == _ABSENT:
        return None
    key = (_namespace(body), target_kind, name)
    if isinstance(low, BadCount):
        return key, Autoscaler(str(kind), own_name, minimum=1, maximum=1, problem=low)
    if isinstance(high, BadCount):
        return key, Autoscaler(str(kind), own_name, minimum=1, maximum=1, problem=high)
    from_zero = kind == "ScaledObject" or low == 0
    # A minimum of 0 (HPAScaleToZero, KEDA's default) wakes to one pod: judged as one.
    low = max(low, 1)
    return key, Autoscaler(
        kind=str(kind),
        name=own_name,
        minimum=low,
        maximum=max(high, low),
        from_zero=from_zero,
    )


def autoscalers(bodies: Iterable[Mapping[str, Any]]) -> dict[ScaleTarget, Autoscaler]:
    """Every autoscaler of the run by its target; when several name the same workload, the
    first carries the others (:meth:`Autoscaler.invalid`: the workload is an ERROR)."""
    found: dict[ScaleTarget, Autoscaler] = {}
    for body in bodies:
        entry = autoscaler_of(body)
        if entry is None:
            continue
        key, scaler = entry
        first = found.setdefault(key, scaler)
        if first is not scaler:
            found[key] = replace(first, others=(*first.others, (scaler.kind, scaler.name)))
    return found


def max_unavailable(body: Mapping[str, Any], wanted: int, surge: int) -> int:
    """Old pods a Deployment's RollingUpdate may take down before new ones are ready:
    ``maxUnavailable`` (default 25%, rounded down), 1 when it and ``maxSurge`` both come to
    0 (pkg/controller/deployment/util ResolveFenceposts)."""
    return _unavailable(
        at(body, ("spec", "strategy", "rollingUpdate", "maxUnavailable")), wanted, surge
    )


def _unavailable(given: object, wanted: int, surge: int) -> int:
    unavailable = _scaled("25%" if given is None else given, wanted, round_up=False) or 0
    return 1 if unavailable == 0 and surge == 0 else unavailable


def max_surge(kind: str, body: Mapping[str, Any], wanted: int) -> int:
    """New pods a rollout may start before old ones go: a Deployment's RollingUpdate
    ``maxSurge`` (default 25%, rounded up; pkg/controller/deployment/util ResolveFenceposts),
    0 for Recreate and for every other kind (StatefulSets and DaemonSets replace a pod after
    deleting it unless told otherwise; a DaemonSet's maxSurge is read likewise)."""
    strategy = rolling_update(kind, body)
    if strategy is None:
        return 0
    default: object = "25%" if kind == "Deployment" else 0
    surge = at(strategy, ("maxSurge",))
    return _surge(default if surge is None else surge, wanted)


def _surge(given: object, wanted: int) -> int:
    return _scaled(given, wanted, round_up=True) or 0


def rolling_update(kind: str, body: Mapping[str, Any]) -> object:
    """The ``rollingUpdate`` of a Deployment's or a DaemonSet's RollingUpdate strategy (the
    default type); None for another strategy or kind."""
    strategy_key = {"Deployment": "strategy", "DaemonSet": "updateStrategy"}.get(kind)
    if strategy_key is None:
        return None
    strategy = at(body, ("spec", strategy_key))
    kind_of_strategy = at(strategy, ("type",)) or "RollingUpdate"
    if kind_of_strategy != "RollingUpdate":
        return None
    return at(strategy, ("rollingUpdate",)) or {}


def rescaled(scaling: Scaling, wanted: int) -> Scaling:
    """A Deployment's rollout for ``wanted`` replicas (an autoscaler's), from its written
    ``maxSurge`` and ``maxUnavailable``: the deployment controller reads them against
    ``spec.replicas``, which the autoscaler sets."""
    if scaling.rolling_update is None:
        return scaling
    given_surge, given_unavailable = scaling.rolling_update
    surge = _surge("25%" if given_surge is None else given_surge, wanted)
    unavailable = _unavailable(given_unavailable, wanted, surge)
    return replace(scaling, surge=surge, unavailable=unavailable if surge else None)


@dataclass(frozen=True, slots=True)
class DisruptionBudget:
    """A PodDisruptionBudget of the run: its namespace, selector and what it keeps up."""

    name: str
    namespace: str
    match_labels: Mapping[str, str]
    min_available: object = None
    max_unavailable: object = None

    def selects(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """Only ``matchLabels`` selectors are read; an empty one selects nothing here (a PDB
        with an empty selector selects every pod of its namespace, which is no single
        workload's budget)."""
        return (
            namespace == self.namespace
            and bool(self.match_labels)
            and all(labels.get(k) == v for k, v in self.match_labels.items())
        )

    def must_keep(self, wanted: int) -> int | None:
        """Pods that must stay available out of ``wanted`` (policy/v1 semantics:
        minAvailable rounds up, maxUnavailable rounds up what may go)."""
        if self.min_available is not None:
            return _scaled(self.min_available, wanted, round_up=True)
        if self.max_unavailable is not None:
            gone = _scaled(self.max_unavailable, wanted, round_up=True)
            return None if gone is None else max(wanted - gone, 0)
        return None


def disruption_budget_of(body: Mapping[str, Any]) -> DisruptionBudget | None:
    if body.get("kind") != "PodDisruptionBudget":
        return None
    labels = at(body, ("spec", "selector", "matchLabels"))
    name = at(body, ("metadata", "name"))
    return DisruptionBudget(
        name=name if isinstance(name, str) else "(unnamed)",
        namespace=_namespace(body),
        match_labels={str(k): str(v) for k, v in labels.items()}
        if isinstance(labels, Mapping)
        else {},
        min_available=at(body, ("spec", "minAvailable")),
        max_unavailable=at(body, ("spec", "maxUnavailable")),
    )


@dataclass(frozen=True, slots=True)
class RunScaling:
    """The autoscalers and disruption budgets of a run, found before any workload is read
    (an HPA may come after its Deployment in the input)."""

    autoscalers: Mapping[ScaleTarget, Autoscaler]
    budgets: tuple[DisruptionBudget, ...] = ()

    @classmethod
    def of(cls, bodies: Iterable[Mapping[str, Any]]) -> RunScaling:
        bodies = list(bodies)
        budgets = (disruption_budget_of(body) for body in bodies)
        return cls(autoscalers(bodies), tuple(b for b in budgets if b is not None))

    def invalid(self, workload: Workload) -> str | None:
        """Why the workload cannot be judged: its autoscaler gives a count that is none."""
        scaler = self.autoscalers.get((workload.namespace, workload.kind, workload.name))
        return None if scaler is None else scaler.invalid(workload.namespace)

    def apply(self, workload: Workload) -> Workload:
        """The workload with what the run says of its pods: an autoscaler's minimum
        replaces its own count, and its bounds and a disruption budget join its scaling."""
        scaler = self.autoscalers.get((workload.namespace, workload.kind, workload.name))
        # a paused Deployment's replicas, set by any autoscaler, scale no ReplicaSet of its
        # template (deployment_controller.go syncDeployment -> sync: none is created)
        if scaler is not None and (scaler.disabled(workload.replicas) or workload.paused):
            scaler = None
        wanted = scaler.minimum if scaler is not None else workload.replicas
        budget = next(
            (b for b in self.budgets if b.selects(workload.namespace, workload.labels)), None
        )
        must_keep = budget.must_keep(wanted) if budget is not None and wanted else None
        if scaler is None and must_keep is None:
            return workload
        own = workload.scaling
        scaling = replace(
            rescaled(own, wanted or 0)
            if own is not None and scaler is not None
            else own or Scaling(),
            autoscaler=AutoscalerRef(scaler.kind, scaler.name) if scaler else None,
            maximum=scaler.maximum if scaler else None,
            budget=budget.name if budget is not None and must_keep is not None else None,
            must_keep=must_keep,
        )
        return replace(workload, replicas=wanted, scaling=scaling)
