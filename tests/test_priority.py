"""The Priority admission, case by case from upstream's table
(``plugin/pkg/admission/priority/admission_test.go``: ``TestPodAdmission`` and
``TestDefaultPriority``), and what the autoscaler reads of the priority it sets."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.completion import AdmissionRefused, complete_pod_spec
from gate.k8s.priority import (
    SYSTEM_CLASSES,
    PriorityRefused,
    admit_priority,
    classes_of,
    priority_class,
    with_run_classes,
)
from gate.model import AdmissionObjects, Document, Location, Verdict, WarningKind, WorkloadWarning
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from gate.snapshot.state import admission
from tests.builders import api_node, cluster_snapshot
from tests.engine_support import evaluate, pod_spec


def _class(name: str, value: int, default: bool = False, policy: str | None = None) -> Any:
    body: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }
    if default:
        body["globalDefault"] = True
    if policy is not None:
        body["preemptionPolicy"] = policy
    return body


# upstream's classes, by their variable names there
DEFAULT1 = _class("default1", 1000, default=True)
DEFAULT2 = _class("default2", 2000, default=True)
NONDEFAULT1 = _class("nondefault1", 2000)
SYSTEM_CLUSTER_CRITICAL = _class("system-cluster-critical", 2_000_000_000, default=True)
LOWER_PRIORITY_CLASS = _class("nopreemptionpolicy", 2000, True, "PreemptLowerPriority")
NEVER_CLASS = _class("nopreemptionpolicy", 2000, True, "Never")
INT_REFUSED = (
    "the integer value of priority (1000) must not be provided in pod spec; "
    "priority admission controller computed 0 from the given PriorityClass name"
)


def _objects(*classes: Any) -> AdmissionObjects:
    return admission([], [], list(classes))


# (id, recorded classes, the pod's spec, (priority, class name, policy) or the refusal)
ADMITTED: list[tuple[str, AdmissionObjects, dict[str, Any], tuple[int, str, str] | str]] = [
    (
        "a pod with a priority class takes its value",
        _objects(DEFAULT1, NONDEFAULT1),
        {"priorityClassName": "default1"},
        (1000, "default1", "PreemptLowerPriority"),
    ),
    (
        "a pod without a class takes the global default",
        _objects(DEFAULT1),
        {},
        (1000, "default1", "PreemptLowerPriority"),
    ),
    ("without any class a pod takes priority 0", _objects(), {}, (0, "", "PreemptLowerPriority")),
    (
        "without a default class a pod takes priority 0",
        _objects(NONDEFAULT1),
        {},
        (0, "", "PreemptLowerPriority"),
    ),
    (
        "a system class is known whether recorded or not",
        _objects(),
        {"priorityClassName": "system-cluster-critical"},
        (2_000_000_000, "system-cluster-critical", "PreemptLowerPriority"),
    ),
    (
        "system-node-critical is 1000 above system-cluster-critical",
        AdmissionObjects(),
        {"priorityClassName": "system-node-critical"},
        (2_000_001_000, "system-node-critical", "PreemptLowerPriority"),
    ),
    (
        "a class that does not exist is refused",
        _objects(DEFAULT1, NONDEFAULT1),
        {"priorityClassName": "non-existing"},
        "no PriorityClass with name non-existing was found",
    ),
    (
        "an integer priority with a class the cluster lacks is refused for the class",
        _objects(),
        {"priorityClassName": "default1", "priority": 1000},
        "no PriorityClass with name default1 was found",
    ),
    (
        "a system class in any namespace",
        _objects(SYSTEM_CLUSTER_CRITICAL),
        {"priorityClassName": "system-cluster-critical"},
        (2_000_000_000, "system-cluster-critical", "PreemptLowerPriority"),
    ),
    (
        "a priority equal to the one computed is admitted",
        _objects(NONDEFAULT1),
        {"priority": 0},
        (0, "", "PreemptLowerPriority"),
    ),
    (
        "a priority equal to the default class's is admitted",
        _objects(DEFAULT2),
        {"priority": 2000},
        (2000, "default2", "PreemptLowerPriority"),
    ),
    (
        "a priority that differs from the class's is refused",
        _objects(),
        {"priority": 1000},
        INT_REFUSED,
    ),
    (
        "a pod without a policy takes the class's",
        _objects(NEVER_CLASS),
        {"priorityClassName": "nopreemptionpolicy", "priority": 2000},
        (2000, "nopreemptionpolicy", "Never"),
    ),
    (
        "a policy equal to the class's is admitted",
        _objects(LOWER_PRIORITY_CLASS),
        {"priorityClassName": "nopreemptionpolicy", "preemptionPolicy": "PreemptLowerPriority"},
        (2000, "nopreemptionpolicy", "PreemptLowerPriority"),
    ),
    (
        "a policy that differs from the class's is refused",
        _objects(LOWER_PRIORITY_CLASS),
        {"priorityClassName": "nopreemptionpolicy", "preemptionPolicy": "Never"},
        "the string value of PreemptionPolicy (Never) must not be provided in pod spec; "
        "priority admission controller computed PreemptLowerPriority from the given "
        "PriorityClass name",
    ),
    (
        "several default classes resolve to the lowest",
        _objects(DEFAULT2, DEFAULT1),
        {},
        (1000, "default1", "PreemptLowerPriority"),
    ),
]


@pytest.mark.parametrize(
    ("objects", "spec", "expected"), [c[1:] for c in ADMITTED], ids=[c[0] for c in ADMITTED]
)
def test_the_priority_admission_sets_what_upstream_sets(
    objects: AdmissionObjects, spec: dict[str, Any], expected: tuple[int, str, str] | str
) -> None:
    admitted = dict(spec)
    if isinstance(expected, str):
        with pytest.raises(PriorityRefused) as refused:
            admit_priority(admitted, objects)
        assert str(refused.value) == expected
        return
    assert admit_priority(admitted, objects) == []
    got = (
        admitted["priority"],
        admitted.get("priorityClassName", ""),
        admitted["preemptionPolicy"],
    )
    assert got == expected


def test_an_unknown_class_is_a_warning_when_the_snapshot_recorded_no_classes() -> None:
    spec: dict[str, Any] = {"priorityClassName": "batch"}
    assert admit_priority(spec, AdmissionObjects()) == [
        WorkloadWarning(
            WarningKind.ADMISSION,
            'PriorityClass "batch": priority not known (the snapshot recorded none)',
        )
    ]
    assert "priority" not in spec


def test_completion_refuses_the_pod_as_the_priority_admission_does() -> None:
    spec = {"containers": [{"name": "c"}], "priorityClassName": "gold"}
    with pytest.raises(AdmissionRefused) as refused:
        complete_pod_spec(spec, "default", _objects(DEFAULT1))
    assert refused.value.message("w") == (
        'pods "w" is forbidden: no PriorityClass with name gold was found'
    )


def test_completion_sets_the_priority_the_autoscalers_read() -> None:
    spec = {"containers": [{"name": "c"}], "priorityClassName": "batch"}
    completed, warnings = complete_pod_spec(spec, "default", _objects(_class("batch", -100)))
    assert (completed["priority"], completed["preemptionPolicy"], warnings) == (
        -100,
        "PreemptLowerPriority",
        [],
    )


BATCH = _class("batch", -100)
NODE = api_node("n1")


def _recorded(**arrays: Any) -> dict[str, Any]:
    return cluster_snapshot([NODE], **arrays)


def _listed(*classes: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", **NODE}, *classes]}


# (id, snapshot document, the pod's class, verdict, reason)
JUDGED: list[tuple[str, dict[str, Any], str, Verdict, str | None]] = [
    (
        "a class recorded in a ClusterSnapshot is known",
        _recorded(priorityClasses=[BATCH]),
        "batch",
        Verdict.YES,
        None,
    ),
    (
        "a class listed in a kubectl List is known",
        _listed(BATCH),
        "batch",
        Verdict.YES,
        None,
    ),
    (
        "a class the recorded ones lack is the API server's refusal",
        _recorded(priorityClasses=[BATCH]),
        "gold",
        Verdict.ERROR,
        'pods "w" is forbidden: no PriorityClass with name gold was found',
    ),
    (
        "a List of classes that lacks it refuses it too",
        _listed(BATCH),
        "gold",
        Verdict.ERROR,
        'pods "w" is forbidden: no PriorityClass with name gold was found',
    ),
    (
        "a snapshot that recorded no classes judges the pod and warns",
        _recorded(),
        "gold",
        Verdict.YES,
        None,
    ),
]


@pytest.mark.parametrize(
    ("document", "name", "verdict", "reason"),
    [c[1:] for c in JUDGED],
    ids=[c[0] for c in JUDGED],
)
def test_a_workload_s_class_is_resolved_from_the_snapshot(
    document: dict[str, Any], name: str, verdict: Verdict, reason: str | None
) -> None:
    result = evaluate(document, pod_spec("1", "1Gi", priorityClassName=name))
    assert (result.verdict, result.reason) == (verdict, reason)


def test_priority_classes_are_read_from_either_format_alike() -> None:
    recorded = build_snapshot(_recorded(priorityClasses=[BATCH]), "s.json").admission
    listed = build_snapshot(_listed(BATCH), "s.json").admission
    unrecorded = build_snapshot(_recorded(), "s.json").admission
    assert recorded == listed == _objects(BATCH)
    assert (unrecorded.priority_classes, unrecorded.has_priority_classes) == ({}, False)


def _deployment(class_name: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {**pod_spec("1", "1Gi"), "priorityClassName": class_name},
            },
        },
    }


# (id, the run's manifests, verdict)
RUNS: list[tuple[str, list[dict[str, Any]], Verdict]] = [
    (
        "a class the run ships beside its workload is known",
        [{**_class("gold", 1000), "kind": "PriorityClass"}, _deployment("gold")],
        Verdict.YES,
    ),
    (
        "a class neither the cluster nor the run has is refused",
        [_deployment("gold")],
        Verdict.ERROR,
    ),
    (
        "a PriorityClass of another API group is no class",
        [{**_class("gold", 1000), "apiVersion": "example.com/v1"}, _deployment("gold")],
        Verdict.ERROR,
    ),
]


@pytest.mark.parametrize(("manifests", "verdict"), [c[1:] for c in RUNS], ids=[c[0] for c in RUNS])
def test_the_run_s_own_classes_are_applied_with_its_workloads(
    manifests: list[dict[str, Any]], verdict: Verdict
) -> None:
    snapshot = build_snapshot(_recorded(priorityClasses=[BATCH]), "s.json")
    documents = [Document(Location("m.yaml", 1 + 20 * i), b) for i, b in enumerate(manifests)]
    report = check(documents, snapshot, RunOptions())
    assert [r.verdict for r in report.results] == [verdict]


# (id, the recorded classes, the run's classes in order, the classes then known)
CREATED: list[tuple[str, list[Any], list[Any], list[Any]]] = [
    (
        "a class new to the cluster is created",
        [BATCH],
        [_class("gold", 1000)],
        [BATCH, _class("gold", 1000)],
    ),
    (
        # admission.go validatePriorityClass: "PriorityClass default1 is already marked as
        # default. Only one default can exist"
        "a second globalDefault class is refused while the cluster has one",
        [DEFAULT1],
        [_class("gold", 10, default=True)],
        [DEFAULT1],
    ),
    (
        "of two globalDefault classes the run ships, the second is refused",
        [BATCH],
        [_class("gold", 10, default=True), _class("silver", 5, default=True)],
        [BATCH, _class("gold", 10, default=True)],
    ),
    (
        "the default class itself may be applied again",
        [DEFAULT1],
        [DEFAULT1],
        [DEFAULT1],
    ),
    (
        # validation.go ValidatePriorityClassUpdate: value and preemptionPolicy are immutable
        "a class applied with another value keeps the recorded one",
        [BATCH],
        [_class("batch", 5)],
        [BATCH],
    ),
    (
        "a class applied with another preemption policy keeps the recorded one",
        [BATCH],
        [_class("batch", -100, policy="Never")],
        [BATCH],
    ),
    (
        "a class applied with only its globalDefault changed replaces the recorded one",
        [BATCH],
        [_class("batch", -100, default=True)],
        [_class("batch", -100, default=True)],
    ),
    (
        # validation.go ValidatePriorityClass: a user class is at most HighestUserDefinablePriority
        "a user class above one billion is refused",
        [BATCH],
        [_class("gold", 1_000_000_001)],
        [BATCH],
    ),
    (
        "a class of exactly one billion is created",
        [BATCH],
        [_class("gold", 1_000_000_000)],
        [BATCH, _class("gold", 1_000_000_000)],
    ),
    (
        # validation.go ValidatePriorityClass: the system- prefix is reserved
        "a class named with the system prefix is refused",
        [BATCH],
        [_class("system-gold", 10)],
        [BATCH],
    ),
    (
        # validation.go ValidatePriorityClass -> ValidatePreemptionPolicy: Unsupported value
        "a class whose preemption policy is neither Never nor PreemptLowerPriority is refused",
        [BATCH],
        [_class("gold", 10, policy="PreemptNever")],
        [BATCH],
    ),
    (
        # ValidatePreemptionPolicy: an empty policy is Required (the default fills only nil)
        "a class whose preemption policy is empty is refused",
        [BATCH],
        [_class("gold", 10, policy="")],
        [BATCH],
    ),
    (
        # validation.go ValidatePriorityClass -> ValidateObjectMeta(NameIsDNSSubdomain)
        "a class whose name is not a DNS subdomain is refused",
        [BATCH],
        [_class("Gold", 10), _class("gold_tier", 10), _class("gold.", 10)],
        [BATCH],
    ),
    (
        "a class named as a DNS subdomain of several labels is created",
        [BATCH],
        [_class("gold.tier-1", 10)],
        [BATCH, _class("gold.tier-1", 10)],
    ),
    (
        "a class whose preemption policy is Never is created",
        [BATCH],
        [_class("gold", 10, policy="Never")],
        [BATCH, _class("gold", 10, policy="Never")],
    ),
]


@pytest.mark.parametrize(
    ("recorded", "shipped", "known"), [c[1:] for c in CREATED], ids=[c[0] for c in CREATED]
)
def test_the_run_s_classes_are_created_as_the_api_server_creates_them(
    recorded: list[Any], shipped: list[Any], known: list[Any]
) -> None:
    snapshot = build_snapshot(_recorded(priorityClasses=recorded), "s.json")
    classes = classes_of(with_run_classes(snapshot.admission, shipped))
    builtin = {c.name for c in SYSTEM_CLASSES}
    expected = [priority_class(body) for body in known]
    assert {n: c for n, c in classes.items() if n not in builtin} == {
        c.name: c for c in expected if c is not None
    }


def test_a_refused_default_leaves_the_cluster_s_default_in_place() -> None:
    snapshot = build_snapshot(_recorded(priorityClasses=[DEFAULT1]), "s.json")
    objects = with_run_classes(snapshot.admission, [_class("gold", 10, default=True)])
    spec: dict[str, Any] = {}
    admit_priority(spec, objects)
    assert (spec["priorityClassName"], spec["priority"]) == ("default1", 1000)


def _workload(kind: str) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "containers": [{"name": "c", "image": "i"}],
        "priorityClassName": "gold",
    }
    template = {"metadata": {"labels": {"app": "w"}}, "spec": pod}
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": "w"}}, "template": template}
    if kind == "Job":
        pod["restartPolicy"] = "Never"
        spec = {"template": template}
    return {"apiVersion": "batch/v1" if kind == "Job" else "apps/v1", "kind": kind,
            "metadata": {"name": "w", "namespace": "default"}, "spec": spec}  # fmt: skip


# apiserver admission.NewForbidden's extractResourceName: a mutating plugin (Priority runs
# among them) sees a controller's pod before the API server generates its name, so its
# refusal quotes the pod's generateName (`pods "web-7c9d-" is forbidden: ...`); a
# StatefulSet names its pods itself.
NAMED = [
    pytest.param(
        "DaemonSet", 'pods "w-" is forbidden: ', id="a DaemonSet's pod is its generateName"
    ),
    pytest.param("Job", 'pods "w-" is forbidden: ', id="a Job's pod is its generateName"),
    pytest.param("StatefulSet", 'pods "w-0" is forbidden: ', id="a StatefulSet's pod is its name"),
]


@pytest.mark.parametrize(("kind", "head"), NAMED)
def test_a_priority_refusal_names_the_pod_before_its_name_is_generated(
    kind: str, head: str
) -> None:
    snapshot = build_snapshot(_recorded(priorityClasses=[BATCH]), "s.json")
    document = Document(Location("w.yaml", 1), _workload(kind))
    (result,) = check([document], snapshot, RunOptions()).results
    expected = head + "no PriorityClass with name gold was found"
    assert (result.verdict, result.reason) == (Verdict.ERROR, expected)


def test_a_deployment_s_refused_pod_is_its_replica_set_s_generate_name() -> None:
    snapshot = build_snapshot(_recorded(priorityClasses=[BATCH]), "s.json")
    document = Document(Location("w.yaml", 1), _workload("Deployment"))
    (result,) = check([document], snapshot, RunOptions()).results
    head, _, tail = (result.reason or "").partition('-" is forbidden: ')
    assert (head.startswith('pods "w-'), "-" in head[len('pods "w-') :], tail) == (
        True,
        False,
        "no PriorityClass with name gold was found",
    )
