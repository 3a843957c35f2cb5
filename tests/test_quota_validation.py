"""A ResourceQuota of the run is held to the API server's validation (v1.34
``pkg/apis/core/validation/validation.go`` ValidateResourceQuota; its cases follow
``validation_test.go`` TestValidateResourceQuota): one it refuses is an ERROR in its words,
and never limits the run's pods."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.quotavalidation import quota_problem
from gate.model import Document, Location, Verdict, WorkloadResult
from gate.run import RunOptions, check, extracted
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot, container

_OPERATOR_DETAIL = (
    "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
    "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
    "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
)


def _quota(spec: dict[str, Any], name: str = "compute") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": "web"},
        "spec": spec,
    }


def _expression(scope: str, operator: str, *values: str) -> dict[str, Any]:
    found: dict[str, Any] = {"scopeName": scope, "operator": operator}
    if values:
        found["values"] = list(values)
    return found


def _selected(hard: dict[str, str], *expressions: dict[str, Any]) -> dict[str, Any]:
    return {"hard": hard, "scopeSelector": {"matchExpressions": list(expressions)}}


# (id, the quota's spec, the errors the API server lists; None: it creates the quota)
CASES: list[tuple[str, dict[str, Any], str | None]] = [
    ("a quota of standard resources is created", {"hard": {"cpu": "2", "pods": "4"}}, None),
    (
        "a BestEffort quota of pods alone is created",
        {"hard": {"pods": "4"}, "scopes": ["BestEffort"]},
        None,
    ),
    (
        "a PriorityClass selector with In and values is created",
        _selected({"pods": "4", "cpu": "2"}, _expression("PriorityClass", "In", "high")),
        None,
    ),
    (
        "extended resources and object counts are created whole",
        {"hard": {"requests.nvidia.com/gpu": "2", "count/deployments.apps": "3"}},
        None,
    ),
    (
        "a BestEffort scope cannot limit cpu (validateResourceQuotaScopes)",
        {"hard": {"requests.cpu": "1", "pods": "2"}, "scopes": ["BestEffort"]},
        'spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource',
    ),
    (
        "an unknown scope is unsupported",
        {"hard": {"pods": "2"}, "scopes": ["Nightly"]},
        'spec.scopes: Invalid value: ["Nightly"]: unsupported scope',
    ),
    (
        "Terminating beside NotTerminating conflicts",
        {"hard": {"pods": "2"}, "scopes": ["Terminating", "NotTerminating"]},
        'spec.scopes: Invalid value: ["Terminating","NotTerminating"]: conflicting scopes',
    ),
    (
        "a selector's BestEffort cannot limit memory, printed as the internal selector",
        _selected({"memory": "1Gi"}, _expression("BestEffort", "Exists")),
        "spec.scopeSelector.matchExpressions: Invalid value: "
        '{"MatchExpressions":[{"ScopeName":"BestEffort","Operator":"Exists","Values":null}]}: '
        "unsupported scope applied to resource",
    ),
    (
        "a selector's unknown scope is named alone",
        _selected({"pods": "2"}, _expression("Nightly", "Exists")),
        'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Nightly": '
        "unsupported scope",
    ),
    (
        "NotBestEffort takes Exists alone, not DoesNotExist",
        _selected({"pods": "2"}, _expression("NotBestEffort", "DoesNotExist")),
        'spec.scopeSelector.matchExpressions.operator: Invalid value: "DoesNotExist": '
        + _OPERATOR_DETAIL,
    ),
    (
        "PriorityClass In without values needs one",
        _selected({"pods": "2"}, _expression("PriorityClass", "NotIn")),
        "spec.scopeSelector.matchExpressions.values: Required value: must be at least one "
        "value when `operator` is 'In' or 'NotIn' for scope selector",
    ),
    (
        "PriorityClass Exists takes no value",
        _selected({"pods": "2"}, _expression("PriorityClass", "Exists", "high")),
        'spec.scopeSelector.matchExpressions.values: Invalid value: ["high"]: must be no '
        "value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
    ),
    (
        "an unknown operator is no selector operator",
        _selected({"pods": "2"}, _expression("PriorityClass", "Gt", "1")),
        'spec.scopeSelector.matchExpressions.operator: Invalid value: "Gt": '
        "not a valid selector operator",
    ),
    (
        "a selector's conflicting scopes are printed with spec.scopes",
        _selected(
            {"pods": "2"},
            _expression("BestEffort", "Exists"),
            _expression("NotBestEffort", "Exists"),
        ),
        "spec.scopeSelector.matchExpressions: Invalid value: null: conflicting scopes",
    ),
    (
        "a fraction of pods is not an integer, printed as the quantity defaulted",
        {"hard": {"pods": "1.0001"}},
        'spec.hard[pods]: Invalid value: "1001m": must be an integer',
    ),
    (
        "an object count is an extended resource, so an integer",
        {"hard": {"count/pods": "500m"}},
        'spec.hard[count/pods]: Invalid value: "500m": must be an integer',
    ),
    (
        "a negative quantity is refused",
        {"hard": {"requests.memory": "-1Gi"}},
        'spec.hard[requests.memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
    ),
    (
        "an unqualified name is neither standard nor for quota",
        {"hard": {"gpus": "1"}},
        '[spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or fully '
        'qualified, spec.hard[gpus]: Invalid value: "gpus": must be a standard resource for '
        "quota]",
    ),
    (
        "storage is a standard resource but no quota's",
        {"hard": {"storage": "1Gi"}},
        'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
    ),
]


@pytest.mark.parametrize(("spec", "errors"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_api_server_refuses_a_quota_as_validate_resource_quota_does(
    spec: dict[str, Any], errors: str | None
) -> None:
    found = quota_problem(_quota(spec))
    if errors is None:
        assert found is None
    else:
        assert found == f'ResourceQuota "compute" is invalid: {errors}'


def test_a_quantity_that_does_not_parse_is_refused_when_decoded() -> None:
    found = quota_problem(_quota({"hard": {"cpu": "lots"}}))
    assert found == 'spec.hard.cpu: invalid quantity "lots"'


def test_a_quota_named_against_the_rules_is_refused_for_its_name() -> None:
    found = quota_problem(_quota({"hard": {"pods": "1"}}, name="Compute"))
    assert found is not None
    assert found.startswith('ResourceQuota "Compute" is invalid: metadata.name: Invalid value: ')


NODES = [api_node(f"n{i}", cpu="8", memory="32Gi") for i in range(2)]
WEB = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "web"},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [container("web", requests={"cpu": "1"})]},
        },
    },
}


def _results(quota: dict[str, Any]) -> list[WorkloadResult]:
    snapshot = build_snapshot(cluster_snapshot(NODES), "s.json")
    documents = [Document(Location("m.yaml", 1), quota), Document(Location("m.yaml", 20), WEB)]
    return list(check(documents, snapshot, RunOptions()).results)


def test_a_refused_quota_is_an_error_and_limits_no_pod() -> None:
    refused = _quota({"hard": {"pods": "1", "requests.cpu": "1"}, "scopes": ["BestEffort"]})
    [quota, web] = _results(refused)
    assert (quota.kind, quota.namespace, quota.name) == ("ResourceQuota", "web", "compute")
    assert (quota.verdict, quota.location) == (Verdict.ERROR, Location("m.yaml", 1))
    assert quota.reason == (
        'ResourceQuota "compute" is invalid: spec.scopes: Invalid value: ["BestEffort"]: '
        "unsupported scope applied to resource"
    )
    assert (web.verdict, web.quota) == (Verdict.YES, None)


def test_a_quota_the_api_server_creates_is_no_result_and_limits_the_pods() -> None:
    [web] = _results(_quota({"hard": {"pods": "1"}}))
    assert web.verdict is Verdict.PARTIAL and web.quota is not None


def _recorded(spec: dict[str, Any]) -> dict[str, Any]:
    """The cluster's quota ``compute``: synced, with room for one pod."""
    return _quota(spec) | {"status": {"hard": {"pods": "1"}, "used": {"pods": "0"}}}


# (id, the recorded quota's scopes, the run's quota's scopes, the run's update refused)
UPDATES: list[tuple[str, list[str], list[str], bool]] = [
    ("the same scopes in another order are no change", ["NotBestEffort", "NotTerminating"],
     ["NotTerminating", "NotBestEffort"], False),
    ("no scope where there was one changes them", ["NotBestEffort"], [], True),
    ("a scope added changes them", [], ["NotBestEffort"], True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("held", "scopes", "refused"), [c[1:] for c in UPDATES], ids=[c[0] for c in UPDATES]
)
def test_a_run_s_quota_updating_the_cluster_s_keeps_its_scopes(
    held: list[str], scopes: list[str], refused: bool
) -> None:
    """ValidateResourceQuotaUpdate: ``spec.scopes`` is immutable, compared as a set."""
    old = _recorded({"hard": {"pods": "1"}, "scopes": held})
    new = _quota({"hard": {"pods": "5"}, "scopes": scopes})
    found = quota_problem(new, old)
    if refused:
        shown = "[" + ",".join(f'"{s}"' for s in scopes) + "]"
        assert found == (
            f'ResourceQuota "compute" is invalid: spec.scopes: Invalid value: {shown}: '
            "field is immutable"
        )
    else:
        assert found is None


@pytest.mark.parametrize(
    "extracted_first",
    [False, True],
    ids=["judged from the documents", "judged from items extracted without the snapshot"],
)
def test_a_refused_update_leaves_the_cluster_s_quota_in_force(extracted_first: bool) -> None:
    document = cluster_snapshot(NODES)
    document["resourceQuotas"] = [_recorded({"hard": {"pods": "1"}})]
    snapshot = build_snapshot(document, "s.json")
    update = _quota({"hard": {"pods": "10"}, "scopes": ["NotBestEffort"]})
    documents = [Document(Location("m.yaml", 1), update), Document(Location("m.yaml", 20), WEB)]
    items = extracted(documents) if extracted_first else None
    [quota, web] = check(documents, snapshot, RunOptions(), items=items).results
    assert quota.verdict is Verdict.ERROR and quota.reason is not None
    assert quota.reason.endswith(
        'spec.scopes: Invalid value: ["NotBestEffort"]: field is immutable'
    )
    assert web.verdict is Verdict.PARTIAL and web.quota is not None and web.quota.created == 1


def test_an_update_keeping_the_scopes_raises_the_cluster_s_limit() -> None:
    document = cluster_snapshot(NODES)
    document["resourceQuotas"] = [_recorded({"hard": {"pods": "1"}})]
    snapshot = build_snapshot(document, "s.json")
    update = _quota({"hard": {"pods": "10"}})
    documents = [Document(Location("m.yaml", 1), update), Document(Location("m.yaml", 20), WEB)]
    [web] = check(documents, snapshot, RunOptions()).results
    assert web.verdict is Verdict.YES


@given(
    st.dictionaries(
        st.sampled_from(["pods", "cpu", "requests.memory", "limits.cpu", "count/pods"]),
        st.integers(min_value=0, max_value=10**6).map(str),
    ),
    st.sampled_from(["NotTerminating", "Terminating", "NotBestEffort", "PriorityClass"]),
)
def test_whole_counts_of_a_pod_quota_under_any_pod_scope_are_created(
    hard: dict[str, str], scope: str
) -> None:
    """A scope that limits pods may limit their count and compute (the object counts are
    no standard quota resource, so no scope is asked of them)."""
    assert quota_problem(_quota({"hard": hard, "scopes": [scope]})) is None
