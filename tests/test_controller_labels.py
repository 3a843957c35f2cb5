"""The labels a workload's pods carry beyond its template's (gate.k8s.podlabels), and
what they change in the selectors the pods meet.

Upstream: pkg/controller/deployment/sync.go ``getNewReplicaSet`` adds
``pod-template-hash`` to the ReplicaSet's template; pkg/registry/batch/job/strategy.go
``generateSelector`` adds ``batch.kubernetes.io/job-name``, ``job-name``,
``batch.kubernetes.io/controller-uid`` and ``controller-uid`` to a Job's template unless it
sets them, and nothing when ``manualSelector`` is true; pkg/registry/core/pod/strategy.go
applies ``matchLabelKeys`` with the created pod's labels, which then carry them.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.inputs.workloads import TEMPLATE_PATHS, extract
from gate.k8s.podlabels import CONTROLLER_UID, JOB_NAME, TEMPLATE_HASH, controller_labels
from gate.model import Document, Location, Verdict, Workload, WorkloadResult
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container


def _template(labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": labels},
        "spec": {"containers": [container("c", requests={"cpu": "1"})], **spec},
    }


def _deployment(name: str, replicas: int, **pod: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": _template({"app": "web"}, **pod),
        },
    }


def _job(name: str, labels: dict[str, str], kind: str = "Job", **job: Any) -> dict[str, Any]:
    spec = {"template": _template(labels, restartPolicy="Never"), **job}
    if kind == "CronJob":
        return {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": name},
            "spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": spec}},
        }
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


def _workload(manifest: dict[str, Any]) -> Workload:
    found = extract(Document(Location("m.yaml", 1), manifest), TEMPLATE_PATHS)
    assert isinstance(found, Workload)
    return found


JOB_KEYS = {*JOB_NAME, *CONTROLLER_UID}

# (id, manifest, the label keys the controller adds to its pods)
ADDED: list[tuple[str, dict[str, Any], set[str]]] = [
    ("a deployment's pods carry its template hash", _deployment("web", 1), {TEMPLATE_HASH}),
    ("a job's pods carry its name and uid", _job("pi", {"app": "pi"}), JOB_KEYS),
    ("a cronjob's job's pods carry its name and uid", _job("pi", {}, "CronJob"), JOB_KEYS),
    (
        "a job's template label of the same key is kept",
        _job("pi", {"job-name": "mine"}),
        JOB_KEYS - {"job-name"},
    ),
    (
        "a job with a manual selector gets no label",
        _job("pi", {"a": "b"}, manualSelector=True, selector={"matchLabels": {"a": "b"}}),
        set(),
    ),
    (
        "a statefulset's pods get no label alike for every copy",
        {**_deployment("db", 1), "kind": "StatefulSet"},
        set(),
    ),
    ("a bare pod gets no label", api_pod("one", None), set()),
]


@pytest.mark.parametrize(
    ("manifest", "keys"), [row[1:] for row in ADDED], ids=[row[0] for row in ADDED]
)
def test_a_controller_adds_its_labels(manifest: dict[str, Any], keys: set[str]) -> None:
    assert set(_workload(manifest).controller_labels) == keys


def test_a_job_s_name_labels_are_its_name_and_its_uid_labels_agree() -> None:
    added = _workload(_job("pi", {})).controller_labels
    assert [added[key] for key in JOB_NAME] == ["pi", "pi"]
    assert len({added[key] for key in CONTROLLER_UID}) == 1


def test_deployments_of_other_names_have_other_hashes() -> None:
    assert controller_labels("Deployment", "web", {}) != controller_labels("Deployment", "api", {})


def _run(manifests: list[dict[str, Any]], pods: list[dict[str, Any]]) -> WorkloadResult:
    nodes = [
        api_node(name, cpu=cpu, labels={"kubernetes.io/hostname": name})
        for name, cpu in (("node-a", "8"), ("node-b", "500m"))
    ]
    snapshot = build_snapshot(cluster_snapshot(nodes, pods, server_version="v1.34.1"), "s.json")
    documents = [Document(Location("m.yaml", 1), body) for body in manifests]
    [result] = check(documents, snapshot, RunOptions()).results
    return result


def _other_set_pod(index: int) -> dict[str, Any]:
    """A pod of another Deployment's ReplicaSet, with the same app label, on node-a."""
    pod = api_pod(f"canary-7f9c-{index}", "node-a", containers=[container("c")])
    pod["metadata"]["labels"] = {"app": "web", "pod-template-hash": "7f9c"}
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "canary-7f9c"}]
    return pod


SPREAD_BY_HASH = {
    "maxSkew": 1,
    "topologyKey": "kubernetes.io/hostname",
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "web"}},
    "matchLabelKeys": [TEMPLATE_HASH],
}
ANTI_AFFINITY_BY_JOB = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {
                "topologyKey": "kubernetes.io/hostname",
                "labelSelector": {"matchLabels": {"job-name": "batch"}},
            }
        ]
    }
}


def test_a_spread_by_template_hash_counts_only_the_new_template_s_pods() -> None:
    """Another ReplicaSet's pods with the same app label sit on node-a; node-b lacks the
    CPU: counting them, the spread would refuse node-a too."""
    web = _deployment("web", 1, topologySpreadConstraints=[SPREAD_BY_HASH])
    pods = [_other_set_pod(i) for i in range(2)]
    result = _run([web], pods)
    assert (result.verdict, result.message) == (Verdict.YES, None)


def test_a_job_s_copies_match_their_own_anti_affinity_by_job_name() -> None:
    """Its pods carry ``job-name: batch``: two cannot share node-a, and node-b is short."""
    job = _job("batch", {"app": "batch"}, parallelism=2, completions=2)
    job["spec"]["template"]["spec"]["affinity"] = ANTI_AFFINITY_BY_JOB
    result = _run([job], [])
    assert result.verdict is Verdict.PARTIAL
