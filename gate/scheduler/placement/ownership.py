"""Which pods already in the cluster a workload's change replaces.

A pull request that changes a workload replaces its running pods: they are
released before the workload is evaluated. A pod belongs to the workload when it is in the
same namespace and one of its ownerReferences names the workload, or the object its
controller makes in between:

- Deployment ``web``: a ReplicaSet ``web-<pod-template-hash>``, the hash being the pod's own
  ``pod-template-hash`` label (pkg/controller/deployment/sync.go names ReplicaSets so).
- CronJob ``nightly``: a Job ``nightly-<scheduled time in minutes>``
  (pkg/controller/cronjob/utils.go ``getJobName``).
- Every other kind: an ownerReference of that kind and name; a bare Pod, the pod of its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gate.model import ExistingPod

TEMPLATE_HASH_LABEL = "pod-template-hash"


def _owners(pod: ExistingPod) -> Iterable[tuple[str, str]]:
    """Every (kind, name) whose change replaces ``pod``."""
    if not pod.owners:
        yield "Pod", pod.name  # a bare pod is replaced by a pod of its own name
    for kind, name in pod.owners:
        yield kind, name
        if kind == "ReplicaSet":
            template_hash = pod.labels.get(TEMPLATE_HASH_LABEL)
            if template_hash and name.endswith(f"-{template_hash}"):
                yield "Deployment", name[: -len(template_hash) - 1]
        elif kind == "Job":
            prefix, _, suffix = name.rpartition("-")
            if prefix and suffix.isdigit():
                yield "CronJob", prefix


@dataclass(frozen=True, slots=True)
class Ownership:
    """The snapshot's pods by the workloads that own them, indexed once per run."""

    owned: Mapping[tuple[str, str, str], tuple[int, ...]]

    @classmethod
    def of(cls, pods: Sequence[ExistingPod]) -> Ownership:
        # Pods of one workload share their namespace, owners and template hash (a bare pod
        # is its own): they are grouped first, and owners derived once per group.
        groups: dict[tuple[str, tuple[tuple[str, str], ...], str | None], list[int]] = {}
        for index, pod in enumerate(pods):
            owners = pod.owners
            tail = pod.labels.get(TEMPLATE_HASH_LABEL) if owners else pod.name
            key = (pod.namespace, owners, tail)
            found = groups.get(key)
            if found is None:
                groups[key] = [index]
            else:
                found.append(index)
        owned: dict[tuple[str, str, str], list[int]] = {}
        merged: set[tuple[str, str, str]] = set()
        for (namespace, _, _), indices in groups.items():
            for kind, name in _owners(pods[indices[0]]):
                key3 = (namespace, kind, name)
                found = owned.get(key3)
                if found is None:
                    owned[key3] = indices
                else:
                    if key3 not in merged:
                        owned[key3] = found = list(found)
                        merged.add(key3)
                    found.extend(indices)
        # A workload owning several groups (a Deployment's ReplicaSets) lists its pods in
        # snapshot order, as one pass over the pods would.
        return cls({k: tuple(sorted(v) if k in merged else v) for k, v in owned.items()})

    def pods_of(self, kind: str, namespace: str, name: str) -> tuple[int, ...]:
        """Positions, in the snapshot's pods, of those ``kind namespace/name`` replaces."""
        return self.owned.get((namespace, kind, name), ())


def owning_objects(pods: Iterable[ExistingPod]) -> dict[tuple[str, str], int]:
    """How many objects of each kind each namespace holds, as the pods' owners name them
    (:func:`_owners`: a ReplicaSet's Deployment, a Job's CronJob), by (namespace, kind)."""
    seen = {(p.namespace, kind, name) for p in pods for kind, name in _owners(p) if kind != "Pod"}
    counts: dict[tuple[str, str], int] = {}
    for namespace, kind, _ in seen:
        counts[namespace, kind] = counts.get((namespace, kind), 0) + 1
    return counts


def workload_of(pod: ExistingPod) -> tuple[str, str]:
    """The workload that owns ``pod`` as the snapshot knows it, as (kind, name): the
    outermost owner its references lead to (a ReplicaSet's Deployment, a Job's CronJob),
    else its first owner; a bare pod is its own."""
    found = ("Pod", pod.name)
    for kind, name in _owners(pod):
        if found[0] == "Pod" or kind in ("Deployment", "CronJob"):
            found = (kind, name)
    return found
