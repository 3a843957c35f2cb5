"""Evaluating one workload against a snapshot document, as the engine tests do."""

from __future__ import annotations

from typing import Any

from gate.k8s.version import dialect_for
from gate.model import Location, Workload, WorkloadResult
from gate.scheduler.engine.evaluate import Evaluator
from gate.snapshot.load import build_snapshot
from tests.builders import container


def evaluate(
    snapshot: dict[str, Any], spec: dict[str, Any], kind: str = "Pod", namespace: str = "default"
) -> WorkloadResult:
    snap = build_snapshot(snapshot, "snapshot.json")
    evaluator = Evaluator.for_snapshot(snap, dialect_for(snap.info.server_version))
    workload = Workload(
        kind=kind,
        namespace=namespace,
        name="w",
        location=Location("w.yaml", 1),
        replicas=1,
        pod_spec=spec,
    )
    return evaluator.evaluate(workload)


def pod_spec(cpu: str | None = None, memory: str | None = None, **spec: Any) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    return {"containers": [container(requests=requests)], **spec}


NO_STATE = " not found"
"""The PostFilter's part of a FitError after a PreFilter refused the pod: DynamicResources'
PreFilter never ran, and its PostFilter fails on the state it did not write."""
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"


def preempting(total: int, *entries: tuple[int, str]) -> str:
    """The PostFilter's part of a FitError when nothing is nominated: DynamicResources', then
    DefaultPreemption's histogram, ``entries`` as (count, reason) in their byte order."""
    histogram = ", ".join(f"{count} {reason}" for count, reason in entries)
    return f" no new claims to deallocate, preemption: 0/{total} nodes are available: {histogram}."
