"""Wanted pods per kind, and the autoscalers of the same run (gate.inputs.scaling)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.inputs.scaling import Autoscaler, autoscaler_of, autoscalers, wanted_pods

WANTED: list[tuple[str, str, dict[str, Any], int | None]] = [
    ("a Deployment wants its replicas", "Deployment", {"spec": {"replicas": 10}}, 10),
    ("a Deployment without replicas wants one", "Deployment", {"spec": {}}, 1),
    ("a Deployment scaled to zero wants none", "Deployment", {"spec": {"replicas": 0}}, 0),
    ("a StatefulSet wants its replicas", "StatefulSet", {"spec": {"replicas": 3}}, 3),
    ("a ReplicaSet wants its replicas", "ReplicaSet", {"spec": {"replicas": 2}}, 2),
    ("a ReplicationController defaults to one", "ReplicationController", {"spec": {}}, 1),
    (
        "a replica count that is a bool is the default",
        "Deployment",
        {"spec": {"replicas": True}},
        1,
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
        "a CronJob wants its job's pods",
        "CronJob",
        {"spec": {"jobTemplate": {"spec": {"parallelism": 3, "completions": 6}}}},
        3,
    ),
    ("a CronJob without a job count runs one pod", "CronJob", {"spec": {"jobTemplate": {}}}, 1),
    ("a Pod wants one", "Pod", {"spec": {}}, 1),
    ("a DaemonSet has no count", "DaemonSet", {"spec": {}}, None),
    ("a PodTemplate has no count", "PodTemplate", {"template": {}}, None),
]


@pytest.mark.parametrize(
    ("kind", "body", "wanted"), [w[1:] for w in WANTED], ids=[w[0] for w in WANTED]
)
def test_wanted_pods(kind: str, body: dict[str, Any], wanted: int | None) -> None:
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
        (("default", "Deployment", "web"), Autoscaler("ScaledObject", "web-so", 1, 100)),
    ),
    (
        "a KEDA ScaledObject's counts",
        {
            "kind": "ScaledObject",
            "metadata": {"name": "w"},
            "spec": {"scaleTargetRef": {"name": "web"}, "minReplicaCount": 2, "maxReplicaCount": 7},
        },
        (("default", "Deployment", "web"), Autoscaler("ScaledObject", "w", 2, 7)),
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


def test_the_first_autoscaler_of_a_workload_wins() -> None:
    found = autoscalers([_hpa(minReplicas=2, maxReplicas=4), _hpa(minReplicas=9, maxReplicas=9)])
    assert found == {
        ("shop", "Deployment", "web"): Autoscaler("HorizontalPodAutoscaler", "web-hpa", 2, 4)
    }


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
        assert count is None or count >= 0
        entry = autoscaler_of(body)
        assert entry is None or 1 <= entry[1].minimum <= entry[1].maximum
