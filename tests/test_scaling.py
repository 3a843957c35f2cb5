"""Wanted pods per kind, and the autoscalers of the same run (gate.inputs.scaling)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.inputs.counts import BadCount
from gate.inputs.scaling import (
    Autoscaler,
    RunScaling,
    Wanted,
    autoscaler_of,
    autoscalers,
    disruption_budget_of,
    max_surge,
    wanted_pods,
)
from gate.inputs.workloads import TEMPLATE_PATHS, extract
from gate.model import Document, Location, Workload

WANTED: list[tuple[str, str, dict[str, Any], Wanted]] = [
    ("a Deployment wants its replicas", "Deployment", {"spec": {"replicas": 10}}, 10),
    ("a Deployment without replicas wants one", "Deployment", {"spec": {}}, 1),
    ("a Deployment scaled to zero wants none", "Deployment", {"spec": {"replicas": 0}}, 0),
    # pkg/controller/deployment/deployment_controller.go syncDeployment: a paused
    # Deployment syncs without creating the new template's ReplicaSet.
    (
        "a paused Deployment starts none of its template",
        "Deployment",
        {"spec": {"replicas": 3, "paused": True}},
        0,
    ),
    (
        "a paused Deployment's count that is none is still an error",
        "Deployment",
        {"spec": {"replicas": "3", "paused": True}},
        BadCount(("spec", "replicas"), "3", validated=True),
    ),
    (
        "an unpaused Deployment wants its replicas",
        "Deployment",
        {"spec": {"replicas": 3, "paused": False}},
        3,
    ),
    ("a StatefulSet wants its replicas", "StatefulSet", {"spec": {"replicas": 3}}, 3),
    ("a ReplicaSet wants its replicas", "ReplicaSet", {"spec": {"replicas": 2}}, 2),
    ("a ReplicationController defaults to one", "ReplicationController", {"spec": {}}, 1),
    (
        "a replica count that is a bool is no count",
        "Deployment",
        {"spec": {"replicas": True}},
        BadCount(("spec", "replicas"), True, validated=True),
    ),
    ("a Job wants its parallelism", "Job", {"spec": {"parallelism": 4}}, 4),
    (
        "a Job's parallelism is capped by completions",
        "Job",
        {"spec": {"parallelism": 4, "completions": 2}},
        2,
    ),
    ("a Job without parallelism runs one pod", "Job", {"spec": {"completions": 5}}, 1),
    ("a suspended Job runs none", "Job", {"spec": {"parallelism": 4, "suspend": True}}, 0),
    (
        "a suspended Job a Kueue queue manages is judged as resumed",
        "Job",
        {
            "metadata": {"labels": {"kueue.x-k8s.io/queue-name": "team-a"}},
            "spec": {"parallelism": 4, "suspend": True},
        },
        4,
    ),
    (
        "a CronJob's suspended Jobs a Kueue queue manages are judged as resumed",
        "CronJob",
        {
            "spec": {
                "jobTemplate": {
                    "metadata": {"labels": {"kueue.x-k8s.io/queue-name": "team-a"}},
                    "spec": {"parallelism": 2, "suspend": True},
                }
            }
        },
        2,
    ),
    (
        "a Job's queue label counts only on the Job, not on its pod template",
        "Job",
        {
            "spec": {
                "parallelism": 4,
                "suspend": True,
                "template": {"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "a"}}},
            }
        },
        0,
    ),
    ("a Job with completions 0 runs none", "Job", {"spec": {"completions": 0}}, 0),
    (
        "a Job's completions that is no count names its field",
        "Job",
        {"spec": {"completions": -1}},
        BadCount(("spec", "completions"), -1, validated=True),
    ),
    (
        "a CronJob's parallelism that is no count names its field",
        "CronJob",
        {"spec": {"jobTemplate": {"spec": {"parallelism": 1.5}}}},
        BadCount(("spec", "jobTemplate", "spec", "parallelism"), 1.5, validated=True),
    ),
    (
        "a CronJob wants its job's pods",
        "CronJob",
        {"spec": {"jobTemplate": {"spec": {"parallelism": 3, "completions": 6}}}},
        3,
    ),
    ("a CronJob without a job count runs one pod", "CronJob", {"spec": {"jobTemplate": {}}}, 1),
    (
        "a suspended CronJob starts no Job",
        "CronJob",
        {"spec": {"suspend": True, "jobTemplate": {"spec": {"parallelism": 3}}}},
        0,
    ),
    (
        "a suspended CronJob's count that is no count still names its field",
        "CronJob",
        {"spec": {"suspend": True, "jobTemplate": {"spec": {"parallelism": "3"}}}},
        BadCount(("spec", "jobTemplate", "spec", "parallelism"), "3", validated=True),
    ),
    ("a Pod wants one", "Pod", {"spec": {}}, 1),
    ("a DaemonSet has no count", "DaemonSet", {"spec": {}}, None),
    ("a PodTemplate has no count", "PodTemplate", {"template": {}}, None),
]


@pytest.mark.parametrize(
    ("kind", "body", "wanted"), [w[1:] for w in WANTED], ids=[w[0] for w in WANTED]
)
def test_wanted_pods(kind: str, body: dict[str, Any], wanted: Wanted) -> None:
    assert wanted_pods(kind, body) == wanted


def _hpa(target: str = "web", kind: str = "Deployment", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web-hpa", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": target}, **spec},
    }


SCALERS: list[tuple[str, dict[str, Any], tuple[tuple[str, str, str], Autoscaler] | None]] = [
    (
        "an HPA sets its minReplicas and maxReplicas",
        _hpa(minReplicas=3, maxReplicas=20),
        (("shop", "Deployment", "web"), Autoscaler("HorizontalPodAutoscaler", "web-hpa", 3, 20)),
    ),
    (
        "an HPA without minReplicas has a minimum of one",
        _hpa(maxReplicas=5),
        (("shop", "Deployment", "web"), Autoscaler("HorizontalPodAutoscaler", "web-hpa", 1, 5)),
    ),
    ("an HPA without maxReplicas is not usable", _hpa(minReplicas=2), None),
    (
        # pkg/apis/autoscaling/validation validateHorizontalPodAutoscalerSpec: minReplicas
        # >= minReplicasLowerBound, 0 with the HPAScaleToZero gate (registry/autoscaling
        # validationOptionsForHorizontalPodAutoscaler); such an HPA wakes to one pod.
        "an HPA with minReplicas 0 is judged at one pod",
        _hpa(minReplicas=0, maxReplicas=5),
        (
            ("shop", "Deployment", "web"),
            Autoscaler("HorizontalPodAutoscaler", "web-hpa", 1, 5, from_zero=True),
        ),
    ),
    (
        "an HPA's minReplicas that is text is no count",
        _hpa(minReplicas="2", maxReplicas=5),
        (
            ("shop", "Deployment", "web"),
            Autoscaler(
                "HorizontalPodAutoscaler",
                "web-hpa",
                1,
                1,
                problem=BadCount(("spec", "minReplicas"), "2"),
            ),
        ),
    ),
    (
        "an HPA's maxReplicas past int32 is no count",
        _hpa(maxReplicas=2**31),
        (
            ("shop", "Deployment", "web"),
            Autoscaler(
                "HorizontalPodAutoscaler",
                "web-hpa",
                1,
                1,
                problem=BadCount(("spec", "maxReplicas"), 2**31),
            ),
        ),
    ),
    (
        "a KEDA ScaledObject's negative maxReplicaCount is no count",
        {
            "kind": "ScaledObject",
            "metadata": {"name": "w"},
            "spec": {"scaleTargetRef": {"name": "web"}, "maxReplicaCount": -1},
        },
        (
            ("default", "Deployment", "web"),
            Autoscaler(
                "ScaledObject", "w", 1, 1, problem=BadCount(("spec", "maxReplicaCount"), -1)
            ),
        ),
    ),
    (
        "an HPA of a StatefulSet names it",
        _hpa(kind="StatefulSet", maxReplicas=4),
        (("shop", "StatefulSet", "web"), Autoscaler("HorizontalPodAutoscaler", "web-hpa", 1, 4)),
    ),
    (
        "a KEDA ScaledObject defaults to a Deployment, 0..100, woken to one",
        {
            "apiVersion": "keda.sh/v1alpha1",
            "kind": "ScaledObject",
            "metadata": {"name": "web-so"},
            "spec": {"scaleTargetRef": {"name": "web"}},
        },
        (
            ("default", "Deployment", "web"),
            Autoscaler("ScaledObject", "web-so", 1, 100, from_zero=True),
        ),
    ),
    (
        "a KEDA ScaledObject's counts",
        {
            "kind": "ScaledObject",
            "metadata": {"name": "w"},
            "spec": {"scaleTargetRef": {"name": "web"}, "minReplicaCount": 2, "maxReplicaCount": 7},
        },
        (("default", "Deployment", "web"), Autoscaler("ScaledObject", "w", 2, 7, from_zero=True)),
    ),
    ("a Service is no autoscaler", {"kind": "Service", "spec": {}}, None),
    (
        "an HPA without a target name is not usable",
        {"kind": "HorizontalPodAutoscaler", "spec": {"scaleTargetRef": {}, "maxReplicas": 3}},
        None,
    ),
]


@pytest.mark.parametrize(
    ("body", "expected"), [s[1:] for s in SCALERS], ids=[s[0] for s in SCALERS]
)
def test_autoscaler_of(
    body: dict[str, Any], expected: tuple[tuple[str, str, str], Autoscaler] | None
) -> None:
    assert autoscaler_of(body) == expected


def test_two_autoscalers_of_one_workload_are_ambiguous_never_one_dropped() -> None:
    second = {
        **_hpa(minReplicas=30, maxReplicas=40),
        "metadata": {"name": "b", "namespace": "shop"},
    }
    found = autoscalers([_hpa(minReplicas=1, maxReplicas=1), second])
    scaler = found[("shop", "Deployment", "web")]
    assert scaler.others == (("HorizontalPodAutoscaler", "b"),)
    assert scaler.invalid("shop") == (
        "controlled by multiple autoscalers: HorizontalPodAutoscaler shop/web-hpa, "
        "HorizontalPodAutoscaler shop/b (AmbiguousSelector: the HPA controller scales it by "
        "none of them)"
    )


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_any_document_gives_a_count_or_none_never_an_error(spec: object) -> None:
    for kind in ("Deployment", "Job", "CronJob", "HorizontalPodAutoscaler", "ScaledObject"):
        body = {"kind": kind, "spec": spec, "metadata": {"name": "x"}}
        count = wanted_pods(kind, body)
        assert count is None or isinstance(count, BadCount) or 0 <= count < 2**31
        entry = autoscaler_of(body)
        assert entry is None or 1 <= entry[1].minimum <= entry[1].maximum


SURGE: list[tuple[str, str, dict[str, Any], int, int]] = [
    ("a Deployment surges 25% by default, rounded up", "Deployment", {"spec": {}}, 10, 3),
    (
        "a Deployment's maxSurge as a number",
        "Deployment",
        {"spec": {"strategy": {"rollingUpdate": {"maxSurge": 2}}}},
        10,
        2,
    ),
    (
        "a Deployment's maxSurge as a percent",
        "Deployment",
        {"spec": {"strategy": {"rollingUpdate": {"maxSurge": "50%"}}}},
        3,
        2,
    ),
    (
        "a Recreate Deployment never surges",
        "Deployment",
        {"spec": {"strategy": {"type": "Recreate"}}},
        10,
        0,
    ),
    ("a DaemonSet surges only when told", "DaemonSet", {"spec": {}}, 5, 0),
    (
        "a DaemonSet with maxSurge surges",
        "DaemonSet",
        {"spec": {"updateStrategy": {"rollingUpdate": {"maxSurge": 1}}}},
        5,
        1,
    ),
    ("a StatefulSet never surges", "StatefulSet", {"spec": {}}, 3, 0),
]


@pytest.mark.parametrize(
    ("kind", "body", "wanted", "surge"), [s[1:] for s in SURGE], ids=[s[0] for s in SURGE]
)
def test_max_surge(kind: str, body: dict[str, Any], wanted: int, surge: int) -> None:
    assert max_surge(kind, body, wanted) == surge


def _pdb(**spec: Any) -> dict[str, Any]:
    return {
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec},
    }


BUDGETS: list[tuple[str, dict[str, Any], int, int | None]] = [
    ("minAvailable as a number", _pdb(minAvailable=2), 4, 2),
    ("minAvailable as a percent rounds up", _pdb(minAvailable="50%"), 3, 2),
    ("maxUnavailable leaves the rest", _pdb(maxUnavailable=1), 4, 3),
    ("maxUnavailable as a percent rounds up what may go", _pdb(maxUnavailable="30%"), 4, 2),
    ("a budget without either keeps nothing", _pdb(), 4, None),
    # intstr.GetScaledValueFromIntOrPercent: strconv.Atoi reads ASCII digits only
    ("a percent of other digits is no percent", _pdb(minAvailable="²%"), 4, None),
]


@pytest.mark.parametrize(
    ("body", "wanted", "keep"), [b[1:] for b in BUDGETS], ids=[b[0] for b in BUDGETS]
)
def test_disruption_budget_must_keep(body: dict[str, Any], wanted: int, keep: int | None) -> None:
    budget = disruption_budget_of(body)
    assert budget is not None and budget.must_keep(wanted) == keep


def test_a_budget_selects_by_match_labels_in_its_namespace() -> None:
    budget = disruption_budget_of(_pdb(minAvailable=1))
    assert budget is not None
    assert budget.selects("shop", {"app": "web", "tier": "front"})
    assert not budget.selects("other", {"app": "web"})
    assert not budget.selects("shop", {"app": "api"})


def _deployment(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            },
            **spec,
        },
    }


def _hpa_of_web(low: int) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": low,
            "maxReplicas": 20,
        },
    }


def _scaled_workload(deployment: dict[str, Any], *others: dict[str, Any]) -> Workload:
    found = extract(Document(Location("m.yaml", 1), deployment), TEMPLATE_PATHS)
    assert isinstance(found, Workload)
    return RunScaling.of([deployment, *others]).apply(found)


# (id, the Deployment's spec, the HPA's minReplicas, replicas, surge, maxUnavailable);
# pkg/controller/deployment/util/deployment_util.go ResolveFenceposts reads the
# percentages against spec.replicas, which the HPA sets
# (pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler).
ROLLOUTS: list[tuple[str, dict[str, Any], int, int, int, int | None]] = [
    ("an hpa's replicas set the default 25% rollout", {}, 10, 10, 3, 2),
    (
        "an hpa's replicas set a written percent rollout",
        {"strategy": {"rollingUpdate": {"maxSurge": "50%", "maxUnavailable": "10%"}}},
        10,
        10,
        5,
        1,
    ),
    (
        "a written number stays whatever the hpa's replicas",
        {"replicas": 2, "strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}},
        8,
        8,
        1,
        0,
    ),
    (
        "a percent of an hpa's replicas rounds surge up and unavailable down",
        {"strategy": {"rollingUpdate": {"maxSurge": "10%", "maxUnavailable": "10%"}}},
        4,
        4,
        1,
        0,
    ),
]


@pytest.mark.parametrize(
    ("spec", "low", "replicas", "surge", "unavailable"),
    [r[1:] for r in ROLLOUTS],
    ids=[r[0] for r in ROLLOUTS],
)
def test_an_autoscaler_s_replicas_set_the_rollout(
    spec: dict[str, Any], low: int, replicas: int, surge: int, unavailable: int | None
) -> None:
    workload = _scaled_workload(_deployment(**spec), _hpa_of_web(low))
    assert workload.scaling is not None
    found = (workload.replicas, workload.scaling.surge, workload.scaling.unavailable)
    assert found == (replicas, surge, unavailable)


def test_an_hpa_scales_no_target_of_zero_replicas() -> None:
    """horizontal.go reconcileAutoscaler: ``ScalingDisabled``, the target stays at 0."""
    workload = _scaled_workload(_deployment(replicas=0), _hpa_of_web(3))
    assert workload.replicas == 0
    assert workload.scaling is None or workload.scaling.autoscaler is None


def _scaled_object_of_web() -> dict[str, Any]:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"name": "web"}},
    }


# (id, the Deployment's spec, its autoscaler, the replicas judged)
PAUSED: list[tuple[str, dict[str, Any], dict[str, Any], int]] = [
    ("a KEDA ScaledObject wakes a Deployment at zero", {"replicas": 0}, _scaled_object_of_web(), 1),
    (
        "a KEDA ScaledObject starts no pod of a paused Deployment",
        {"paused": True},
        _scaled_object_of_web(),
        0,
    ),
    ("nor does an HPA scaling to zero", {"paused": True}, _hpa_of_web(0), 0),
    ("nor an HPA", {"paused": True, "replicas": 3}, _hpa_of_web(2), 0),
]


@pytest.mark.parametrize(
    ("spec", "scaler", "replicas"), [r[1:] for r in PAUSED], ids=[r[0] for r in PAUSED]
)
def test_a_paused_deployment_is_scaled_by_no_autoscaler(
    spec: dict[str, Any], scaler: dict[str, Any], replicas: int
) -> None:
    """deployment_controller.go syncDeployment: a paused Deployment syncs
    (getAllReplicaSetsAndSyncRevision, createIfNotExisted false) and scales only the
    ReplicaSets it has: a new one has none, whatever replicas an autoscaler sets."""
    assert _scaled_workload(_deployment(**spec), scaler).replicas == replicas
