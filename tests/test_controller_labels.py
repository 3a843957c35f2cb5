"""The labels a workload's pods carry beyond its template's (gate.k8s.podlabels), and
what they change in the selectors the pods meet.

Upstream: pkg/controller/deployment/sync.go ``getNewReplicaSet`` adds
``pod-template-hash`` to the ReplicaSet's template; pkg/registry/batch/job/strategy.go
``generateSelector`` adds ``batch.kubernetes.io/job-name``, ``job-name``,
``batch.kubernetes.io/controller-uid`` and ``controller-uid`` to a Job's template unless it
sets them, and nothing when ``manualSelector`` is true; pkg/registry/core/pod/strategy.go
applies ``matchLabelKeys`` with the created pod's labels, which then carry them.
pkg/controller/statefulset/stateful_set_utils.go ``updateIdentity`` sets
``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index`` on each pod
(upstream's TestUpdateIdentityWithPodIndexLabel: the index label is the name's ordinal) and
``newVersionedStatefulSetPod`` its revision's name as ``controller-revision-hash``;
pkg/controller/daemon/util ``CreatePodTemplate`` sets ``pod-template-generation`` and
``controller-revision-hash`` (upstream's TestCreatePodTemplate);
pkg/controller/job/indexed_job_utils.go ``addCompletionIndexLabel`` sets
``batch.kubernetes.io/job-completion-index`` on an indexed Job's pod.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.inputs.workloads import TEMPLATE_PATHS, extract
from gate.k8s.podlabels import (
    COMPLETION_INDEX,
    CONTROLLER_UID,
    JOB_NAME,
    POD_INDEX,
    POD_NAME,
    REVISION_HASH,
    TEMPLATE_GENERATION,
    TEMPLATE_HASH,
    controller_labels,
    copy_labels,
    differs_by_copy,
    revision_hash,
)
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
        # the API server refuses another value (validateGeneratedSelector: must be 'pi')
        "a job's template label of the same key is kept",
        _job("pi", {"job-name": "pi"}),
        JOB_KEYS - {"job-name"},
    ),
    (
        "a job with a manual selector gets no label",
        _job("pi", {"a": "b"}, manualSelector=True, selector={"matchLabels": {"a": "b"}}),
        set(),
    ),
    (
        "a statefulset's pods carry their name, index and revision",
        {**_deployment("db", 1), "kind": "StatefulSet"},
        {POD_NAME, POD_INDEX, REVISION_HASH},
    ),
    (
        "a daemonset's pods carry its revision and template generation",
        {**_deployment("agent", 1), "kind": "DaemonSet"},
        {REVISION_HASH, TEMPLATE_GENERATION},
    ),
    (
        "an indexed job's pods carry their completion index",
        _job("pi", {}, completionMode="Indexed", completions=2),
        JOB_KEYS | {COMPLETION_INDEX},
    ),
    (
        "an indexed job with a manual selector still carries its completion index",
        _job(
            "pi",
            {"a": "b"},
            completionMode="Indexed",
            manualSelector=True,
            selector={"matchLabels": {"a": "b"}},
        ),
        {COMPLETION_INDEX},
    ),
    (
        "an indexed cronjob's job's pods carry their completion index",
        _job("pi", {}, "CronJob", completionMode="Indexed", completions=2),
        JOB_KEYS | {COMPLETION_INDEX},
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


def _statefulset(name: str, replicas: int, **spec: Any) -> dict[str, Any]:
    manifest = _deployment(name, replicas)
    manifest["kind"] = "StatefulSet"
    manifest["spec"]["selector"] = {"matchLabels": {"app": name}}
    manifest["spec"]["template"]["metadata"]["labels"] = {"app": name}
    manifest["spec"].update(spec)
    return manifest


# (id, manifest, the values of the labels the first pod carries)
FIRST_POD: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    (
        "a statefulset's first pod is ordinal 0",
        _statefulset("db", 3),
        {POD_NAME: "db-0", POD_INDEX: "0"},
    ),
    (
        "a statefulset's first pod is its ordinals' start",
        _statefulset("db", 3, ordinals={"start": 5}),
        {POD_NAME: "db-5", POD_INDEX: "5"},
    ),
    (
        "a template's own pod-name label is set over",
        {
            **_statefulset("db", 1),
            "spec": {
                **_statefulset("db", 1)["spec"],
                "template": _template({"app": "db", POD_NAME: "mine", POD_INDEX: "9"}),
            },
        },
        {POD_NAME: "db-0", POD_INDEX: "0"},
    ),
    (
        "an indexed job's first pod is index 0",
        _job("pi", {}, completionMode="Indexed", completions=2),
        {COMPLETION_INDEX: "0"},
    ),
    (
        "an indexed job's template label of the index is set over",
        _job("pi", {COMPLETION_INDEX: "7"}, completionMode="Indexed", completions=2),
        {COMPLETION_INDEX: "0"},
    ),
    (
        "a new daemonset's template generation is 1",
        {**_deployment("agent", 1), "kind": "DaemonSet"},
        {TEMPLATE_GENERATION: "1"},
    ),
    (
        "a daemonset's written template generation is kept",
        {
            **_deployment("agent", 1),
            "kind": "DaemonSet",
            "metadata": {
                "name": "agent",
                "annotations": {"deprecated.daemonset.template.generation": "4"},
            },
        },
        {TEMPLATE_GENERATION: "4"},
    ),
]


@pytest.mark.parametrize(
    ("manifest", "values"), [row[1:] for row in FIRST_POD], ids=[row[0] for row in FIRST_POD]
)
def test_the_first_pod_carries_its_own_values(
    manifest: dict[str, Any], values: dict[str, str]
) -> None:
    labels = _workload(manifest).controller_labels
    assert {key: labels.get(key) for key in values} == values


def test_a_statefulset_s_revision_is_named_after_it() -> None:
    labels = controller_labels("StatefulSet", "db", {})
    assert labels[REVISION_HASH].startswith("db-")
    assert labels[REVISION_HASH] != controller_labels("StatefulSet", "web", {})[REVISION_HASH]


def test_each_copy_carries_its_ordinal() -> None:
    """Upstream's TestUpdateIdentityWithPodIndexLabel: the index label is the name's."""
    assert copy_labels("StatefulSet", "db", 1) == {POD_NAME: "db-1", POD_INDEX: "1"}
    assert copy_labels("Job", "pi", 2, indexed=True) == {COMPLETION_INDEX: "2"}
    assert copy_labels("Job", "pi", 2) == {}
    assert copy_labels("Deployment", "web", 2) == {}


def _anti(term: dict[str, Any]) -> dict[str, Any]:
    return {
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", **term}
                ]
            }
        }
    }


def _spread(term: dict[str, Any], when: str = "DoNotSchedule") -> dict[str, Any]:
    return {
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": when, **term}
        ]
    }


EXISTS = {"matchExpressions": [{"key": POD_NAME, "operator": "Exists"}]}

# (id, kind, indexed, pod spec, whether a copy's selectors tell the copies apart)
DIFFERING: list[tuple[str, str, bool, dict[str, Any], bool]] = [
    (
        "matchLabelKeys of the pod name tell a statefulset's copies apart",
        "StatefulSet",
        False,
        _spread({"labelSelector": {"matchLabels": {"app": "db"}}, "matchLabelKeys": [POD_NAME]}),
        True,
    ),
    (
        "mismatchLabelKeys of the pod index tell them apart",
        "StatefulSet",
        False,
        _anti({"labelSelector": {"matchLabels": {"app": "db"}}, "mismatchLabelKeys": [POD_INDEX]}),
        True,
    ),
    (
        "a selector on a pod name's value tells them apart",
        "StatefulSet",
        False,
        _anti({"labelSelector": {"matchLabels": {POD_NAME: "db-0"}}}),
        True,
    ),
    (
        "a selector on the key alone does not",
        "StatefulSet",
        False,
        _anti({"labelSelector": EXISTS}),
        False,
    ),
    (
        "a soft spread constraint only scores",
        "StatefulSet",
        False,
        _spread({"labelSelector": {"matchLabels": {POD_NAME: "db-0"}}}, "ScheduleAnyway"),
        False,
    ),
    (
        "a deployment's pods carry no label of their own",
        "Deployment",
        False,
        _anti({"labelSelector": {"matchLabels": {POD_NAME: "db-0"}}}),
        False,
    ),
    (
        "an indexed job's completion index tells its pods apart",
        "Job",
        True,
        _anti(
            {
                "labelSelector": {
                    "matchExpressions": [
                        {"key": COMPLETION_INDEX, "operator": "In", "values": ["0"]}
                    ]
                }
            }
        ),
        True,
    ),
    (
        "a job that is not indexed carries no index",
        "Job",
        False,
        _anti({"labelSelector": {"matchLabels": {COMPLETION_INDEX: "0"}}}),
        False,
    ),
]


@pytest.mark.parametrize(
    ("kind", "indexed", "spec", "differs"),
    [row[1:] for row in DIFFERING],
    ids=[row[0] for row in DIFFERING],
)
def test_which_selectors_tell_copies_apart(
    kind: str, indexed: bool, spec: dict[str, Any], differs: bool
) -> None:
    assert differs_by_copy(kind, spec, indexed=indexed) is differs


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


def _refusal(manifest: dict[str, Any]) -> str | None:
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="8")]), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), manifest)], snapshot, RunOptions()).results
    return result.reason


def _named(name: str, replicas: int = 2, **spec: Any) -> dict[str, Any]:
    return _statefulset(name, replicas, **spec)


LONG = "a" * 53
# (id, manifest, the API server's refusal of the StatefulSet's first pod, or None)
POD_REFUSED: list[tuple[str, dict[str, Any], str | None]] = [
    ("a name of 52 characters leaves a revision label of 63", _named("a" * 52), None),
    (
        "a name of 53 makes the revision's name too long a label value",
        _named(LONG),
        f'Pod "{LONG}-0" is invalid: metadata.labels: Invalid value: '
        f'"{LONG}-{revision_hash("StatefulSet", LONG)}": must be no more than 63 characters',
    ),
    ("no replica, no pod to refuse", _named(LONG, 0), None),
    (
        "a name with a dot is refused with the StatefulSet itself (ValidateStatefulSetName)",
        _named("db.v1"),
        'StatefulSet.apps "db.v1" is invalid: metadata.name: Invalid value: "db.v1": must not '
        "contain dots",
    ),
    (
        "a serviceName that is no DNS label makes no subdomain",
        _named("db", serviceName="db.svc"),
        'Pod "db-0" is invalid: spec.subdomain: Invalid value: "db.svc": must not contain dots',
    ),
    (
        "the first pod named is the ordinals' start",
        _named("db", serviceName="db.svc", ordinals={"start": 3}),
        'Pod "db-3" is invalid: spec.subdomain: Invalid value: "db.svc": must not contain dots',
    ),
]


@pytest.mark.parametrize(
    ("manifest", "reason"), [row[1:] for row in POD_REFUSED], ids=[row[0] for row in POD_REFUSED]
)
def test_a_statefulset_whose_pods_the_api_server_refuses(
    manifest: dict[str, Any], reason: str | None
) -> None:
    """ValidatePodCreate of the pod newStatefulSetPod makes: its labels
    (IsValidLabelValue) before its hostname and subdomain (IsDNS1123Label); the StatefulSet
    itself, named as a DNS label, was taken: a StatefulSet named past 52 characters
    makes no pod."""
    assert _refusal(manifest) == reason
