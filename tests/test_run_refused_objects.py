"""A LimitRange, PriorityClass, PersistentVolume or PersistentVolumeClaim the run ships that
the API server refuses is an ERROR of its own document, in the API server's words, and is
never applied: ``kubectl apply`` of the run fails there, and the run's pods meet the cluster
without it (ValidateLimitRange, ValidatePersistentVolume, ValidatePersistentVolumeClaim in
pkg/apis/core/validation; ValidatePriorityClass in pkg/apis/scheduling/validation)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot


def _limit_range(**item: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "limits", "namespace": "web"},
        "spec": {"limits": [{"type": "Container", **item}]},
    }


def _priority_class(name: str, value: int, **more: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **more,
    }


WEB = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "web"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]},
        },
    },
}
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def _priority_refused(name: str, errors: str) -> str:
    return f'PriorityClass.scheduling.k8s.io "{name}" is invalid: {errors}'


CASES = [
    pytest.param(
        _limit_range(default={"cpu": "100m"}, max={"cpu": "50m"}),
        (
            "LimitRange",
            "web",
            'LimitRange "limits" is invalid: [spec.limits[0].defaultRequest[cpu]: Invalid '
            'value: "100m": default request value 100m is greater than max value 50m, '
            'spec.limits[0].default[cpu]: Invalid value: "50m": default value 100m is greater '
            "than max value 50m]",
        ),
        id="a limit range whose default is over its max is refused",
    ),
    pytest.param(
        _limit_range(default={"cpu": "1"}, defaultRequest={"cpu": "2"}),
        (
            "LimitRange",
            "web",
            'LimitRange "limits" is invalid: spec.limits[0].defaultRequest[cpu]: Invalid '
            'value: "2": default request value 2 is greater than default limit value 1',
        ),
        id="a limit range whose default request is over its default is refused",
    ),
    pytest.param(
        _priority_class("Gold", 100),
        (
            "PriorityClass",
            "",
            _priority_refused("Gold", f'metadata.name: Invalid value: "Gold": {SUBDOMAIN}'),
        ),
        id="a priority class whose name is no dns subdomain is refused",
    ),
    pytest.param(
        _priority_class("huge", 2_000_000_000),
        (
            "PriorityClass",
            "",
            _priority_refused(
                "huge",
                "value: Forbidden: maximum allowed value of a user defined priority is 1000000000",
            ),
        ),
        id="a user's priority class over a billion is refused",
    ),
    pytest.param(
        _priority_class("quiet", 10, preemptionPolicy="Sometimes"),
        (
            "PriorityClass",
            "",
            _priority_refused(
                "quiet",
                'preemptionPolicy: Unsupported value: "Sometimes": supported values: '
                '"PreemptLowerPriority", "Never"',
            ),
        ),
        id="a priority class of an unknown preemption policy is refused",
    ),
    pytest.param(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "web"},
            "spec": {"accessModes": ["ReadWriteOnce"]},
        },
        (
            "PersistentVolumeClaim",
            "web",
            'PersistentVolumeClaim "data" is invalid: spec.resources[storage]: Required value',
        ),
        id="a claim without a storage request is refused in the api server's words",
    ),
    pytest.param(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "pv1"},
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "local": {"path": "/mnt"},
            },
        },
        (
            "PersistentVolume",
            "",
            'PersistentVolume "pv1" is invalid: spec.nodeAffinity: Required value: '
            "Local volume requires node affinity",
        ),
        id="a local volume without node affinity is refused in the api server's words",
    ),
    pytest.param(_limit_range(default={"cpu": "100m"}), None, id="a valid limit range is none"),
    pytest.param(_priority_class("gold", 100), None, id="a valid priority class is none"),
]


@pytest.mark.parametrize(("shipped", "refusal"), CASES)
def test_a_refused_object_of_the_run_is_an_error_of_its_document(
    shipped: dict[str, Any], refusal: tuple[str, str, str] | None
) -> None:
    snapshot = build_snapshot(cluster_snapshot([api_node("n1")]), "s.json")
    documents = [Document(Location("m.yaml", 1), shipped), Document(Location("m.yaml", 20), WEB)]
    results = list(check(documents, snapshot, RunOptions()).results)
    web = results[-1]
    assert (web.name, web.verdict) == ("web", Verdict.YES)
    if refusal is None:
        assert len(results) == 1
        return
    found = results[0]
    assert (found.kind, found.namespace, found.reason) == refusal
    assert (found.verdict, found.location) == (Verdict.ERROR, Location("m.yaml", 1))


def test_a_refused_limit_range_sets_no_default() -> None:
    """Its default would have given the pod a cpu request; refused, it gives none."""
    snapshot = build_snapshot(cluster_snapshot([api_node("n1", cpu="1")]), "s.json")
    big = _limit_range(default={"cpu": "2"}, defaultRequest={"cpu": "3"})
    documents = [Document(Location("m.yaml", 1), big), Document(Location("m.yaml", 20), WEB)]
    [refused, web] = check(documents, snapshot, RunOptions()).results
    assert refused.verdict is Verdict.ERROR
    assert web.verdict is Verdict.YES
