"""Copies whose own selectors read the labels that differ from one copy to the next: a
StatefulSet's ``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index``
(pkg/controller/statefulset/stateful_set_utils.go ``updateIdentity``), an indexed Job's
``batch.kubernetes.io/job-completion-index`` (pkg/controller/job/indexed_job_utils.go
``addCompletionIndexLabel``).

The API server merges a term's ``matchLabelKeys`` (``key In [value]``) and
``mismatchLabelKeys`` (``key NotIn [value]``) into its selector with the created pod's own
labels (pkg/registry/core/pod/strategy.go ``applyLabelKeysToLabelSelector``), so each copy
selects the others by its own values; the scheduler then counts each bound copy against the
next copy's selectors (podtopologyspread/filtering.go ``calPreFilterState``,
interpodaffinity/filtering.go ``getIncomingAffinityAntiAffinityCounts``). Each copy is
placed with its own labels.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.podlabels import COMPLETION_INDEX, POD_INDEX, POD_NAME, REVISION_HASH
from gate.model import Document, Location, Verdict, WorkloadResult
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container

HOSTNAME = "kubernetes.io/hostname"
NO_VICTIMS = (
    " no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption "
    "victims found for incoming pod, 1 Preemption is not helpful for scheduling."
)
"""The PostFilter's words for a copy refused by anti-affinity on one node, by cpu on the
other, with no pod to preempt."""
ANTI_REFUSED = (
    "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod anti-affinity "
    "rules." + NO_VICTIMS
)


def _template(labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": labels},
        "spec": {"containers": [container("c", requests={"cpu": "1"})], **spec},
    }


def _statefulset(replicas: int, **pod: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "replicas": replicas,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": _template({"app": "db"}, **pod),
        },
    }


def _indexed_job(pods: int, **pod: Any) -> dict[str, Any]:
    template = _template({"app": "db"}, restartPolicy="Never", **pod)
    spec = {"parallelism": pods, "completions": pods, "completionMode": "Indexed"}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "db"},
        "spec": {**spec, "template": template},
    }


def _anti(**term: Any) -> dict[str, Any]:
    listed = [{"topologyKey": HOSTNAME, **term}]
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": listed}}


def _spread(**term: Any) -> list[dict[str, Any]]:
    return [{"maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": "DoNotSchedule", **term}]


APP = {"matchLabels": {"app": "db"}}


def _run(
    manifest: dict[str, Any], cpus: tuple[str, ...] = ("8", "500m"), pods: tuple[Any, ...] = ()
) -> WorkloadResult:
    nodes = [
        api_node(f"node-{i}", cpu=cpu, labels={HOSTNAME: f"node-{i}"}) for i, cpu in enumerate(cpus)
    ]
    raw = cluster_snapshot(nodes, list(pods), server_version="v1.34.1")
    snapshot = build_snapshot(raw, "s.json")
    [result] = check([Document(Location("m.yaml", 1), manifest)], snapshot, RunOptions()).results
    return result


# (id, manifest, node cpus, verdict, copies placed, message)
CASES: list[tuple[str, dict[str, Any], tuple[str, ...], Verdict, int, str | None]] = [
    (
        "a statefulset's anti-affinity to any pod name keeps its copies apart",
        _statefulset(
            3,
            affinity=_anti(
                labelSelector={"matchExpressions": [{"key": POD_NAME, "operator": "Exists"}]}
            ),
        ),
        ("8", "500m"),
        Verdict.PARTIAL,
        1,
        ANTI_REFUSED,
    ),
    (
        "a spread whose matchLabelKeys hold the pod index counts each copy alone",
        _statefulset(
            3, topologySpreadConstraints=_spread(labelSelector=APP, matchLabelKeys=[POD_INDEX])
        ),
        ("8", "500m"),
        Verdict.YES,
        3,
        None,
    ),
    (
        "anti-affinity whose mismatchLabelKeys hold the pod name keeps copies apart",
        _statefulset(3, affinity=_anti(labelSelector=APP, mismatchLabelKeys=[POD_NAME])),
        ("8", "500m"),
        Verdict.PARTIAL,
        1,
        ANTI_REFUSED,
    ),
    (
        "anti-affinity to the first pod's name keeps only the later copies off its node",
        _statefulset(3, affinity=_anti(labelSelector={"matchLabels": {POD_NAME: "db-0"}})),
        ("8", "8"),
        Verdict.YES,
        3,
        None,
    ),
    (
        "an indexed job's anti-affinity by matchLabelKeys of its index lets its pods share",
        _indexed_job(3, affinity=_anti(labelSelector=APP, matchLabelKeys=[COMPLETION_INDEX])),
        ("8", "500m"),
        Verdict.YES,
        3,
        None,
    ),
    (
        "an indexed job's anti-affinity by mismatchLabelKeys of its index keeps them apart",
        _indexed_job(3, affinity=_anti(labelSelector=APP, mismatchLabelKeys=[COMPLETION_INDEX])),
        ("8", "500m"),
        Verdict.PARTIAL,
        1,
        ANTI_REFUSED,
    ),
]


@pytest.mark.parametrize(
    ("manifest", "cpus", "verdict", "placed", "message"),
    [row[1:] for row in CASES],
    ids=[row[0] for row in CASES],
)
def test_each_copy_is_placed_with_its_own_labels(
    manifest: dict[str, Any],
    cpus: tuple[str, ...],
    verdict: Verdict,
    placed: int,
    message: str | None,
) -> None:
    result = _run(manifest, cpus)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit, result.message) == (verdict, placed, message)


def test_a_partial_by_copy_labels_counts_the_first_copy_s_nodes() -> None:
    """The outcomes are the refused copy's; the nodes the first fits are said apart."""
    result = _run(_statefulset(3, affinity=_anti(labelSelector=APP, mismatchLabelKeys=[POD_NAME])))
    assert result.placement is not None and result.placement.first_fits == 1


def _old_revision_pod(index: int) -> dict[str, Any]:
    """A pod of the same app of another revision, on node-0."""
    pod = api_pod(f"old-{index}", "node-0", containers=[container("c")])
    pod["metadata"]["labels"] = {"app": "db", REVISION_HASH: "db-5d8f7c9b4"}
    return pod


def test_a_spread_by_revision_counts_only_the_new_revision_s_pods() -> None:
    """Counting the old revision's two pods, the spread would refuse node-0, and node-1 is
    short of cpu."""
    manifest = _statefulset(
        1, topologySpreadConstraints=_spread(labelSelector=APP, matchLabelKeys=[REVISION_HASH])
    )
    result = _run(manifest, pods=tuple(_old_revision_pod(i) for i in range(2)))
    assert (result.verdict, result.message) == (Verdict.YES, None)
