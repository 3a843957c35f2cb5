"""A PreScore that fails: NodeAffinity's PreScore (framework/plugins/nodeaffinity/
node_affinity.go) parses the preferred terms with component-helpers'
NewPreferredSchedulingTerms, which refuses what the API server lets through (a Gt or Lt value
that is not an integer, a value that is no label value). RunPreScorePlugins
(framework/runtime/framework.go) wraps the error as ``running PreScore plugin
"NodeAffinity": ...`` and the pod's scheduling cycle fails with it, left Pending; with one
feasible node, schedulePod (schedule_one.go) binds it without scoring (kube-scheduler
v1.34)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.version import dialect_for
from gate.model import Location, Verdict, Workload, WorkloadResult
from gate.scheduler.engine.evaluate import Evaluator
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.placement.copyrules import Ledger
from gate.scheduler.placement.prescore import prescore_error
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot, container

PREFIX = 'running PreScore plugin "NodeAffinity": '
INTEGER = "for 'Gt', 'Lt' operators, the value must be an integer"
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def _preferring(*terms: tuple[int, list[dict[str, Any]]]) -> dict[str, Any]:
    preferred = [
        {"weight": weight, "preference": {"matchExpressions": exprs}} for weight, exprs in terms
    ]
    return {
        "containers": [container(requests={"cpu": "100m"})],
        "affinity": {
            "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}
        },
    }


def _expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


ERRORS: list[tuple[str, dict[str, Any], str | None]] = [
    (
        "a Gt value that is not an integer fails the PreScore (NewRequirement)",
        _preferring((1, [_expr("rank", "Gt", "abc")])),
        PREFIX + f'[0].matchExpressions[0].values[0]: Invalid value: "abc": {INTEGER}',
    ),
    (
        "an error is placed by the term and expression it is in",
        _preferring(
            (5, [_expr("disk", "In", "ssd")]), (3, [_expr("a", "In", "x"), _expr("n", "Lt", "1.5")])
        ),
        PREFIX + f'[1].matchExpressions[1].values[0]: Invalid value: "1.5": {INTEGER}',
    ),
    (
        "a value that is no label value fails under its key (validateLabelValue)",
        _preferring((1, [_expr("disk", "In", "a b")])),
        PREFIX + f'[0].matchExpressions[0].values[0][disk]: Invalid value: "a b": {LABEL_VALUE}',
    ),
    (
        "several errors are bracketed and comma separated (Aggregate.Error)",
        _preferring((1, [_expr("rank", "Gt", "x")]), (2, [_expr("rank", "Lt", "y")])),
        PREFIX
        + f'[[0].matchExpressions[0].values[0]: Invalid value: "x": {INTEGER}, '
        + f'[1].matchExpressions[0].values[0]: Invalid value: "y": {INTEGER}]',
    ),
    (
        "an operator it does not know fails as not supported",
        _preferring((1, [_expr("rank", "Near", "1")])),
        PREFIX + '[0].matchExpressions[0].operator: Unsupported value: "Near": supported values: '
        '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
    ),
    (
        "integer Gt and Lt values parse",
        _preferring((1, [_expr("rank", "Gt", "3"), _expr("rank", "Lt", "010")])),
        None,
    ),
    (
        "a negative Gt value parses as an integer but is no label value",
        _preferring((1, [_expr("rank", "Gt", "-3")])),
        PREFIX + f'[0].matchExpressions[0].values[0][rank]: Invalid value: "-3": {LABEL_VALUE}',
    ),
    (
        "a term of weight 0 is passed over unread",
        _preferring((0, [_expr("rank", "Gt", "abc")])),
        None,
    ),
]


@pytest.mark.parametrize(
    ("spec", "expected"), [(s, e) for _, s, e in ERRORS], ids=[i for i, _, _ in ERRORS]
)
def test_prescore_error_is_upstream_s(spec: dict[str, Any], expected: str | None) -> None:
    assert prescore_error(pod_profile(spec)) == expected


def _evaluate(nodes: int, replicas: int, spec: dict[str, Any]) -> WorkloadResult:
    snapshot = cluster_snapshot([api_node(f"n{i}") for i in range(nodes)])
    snap = build_snapshot(snapshot, "snapshot.json")
    evaluator = Evaluator.for_snapshot(snap, dialect_for(snap.info.server_version))
    workload = Workload(
        kind="Deployment",
        namespace="default",
        name="w",
        location=Location("w.yaml", 1),
        replicas=replicas,
        pod_spec=spec,
    )
    return evaluator.evaluate(workload)


BAD = _preferring((1, [_expr("rank", "Gt", "abc")]))
FAILED = PREFIX + f'[0].matchExpressions[0].values[0]: Invalid value: "abc": {INTEGER}'

PLACED: list[tuple[str, int, int, Verdict, str | None]] = [
    ("with two feasible nodes scores run and the pod stays pending", 2, 1, Verdict.ERROR, FAILED),
    ("past the scored sample the scores still run and fail", 120, 3, Verdict.ERROR, FAILED),
    ("with one feasible node no score runs and every copy lands there", 1, 2, Verdict.YES, None),
]


@pytest.mark.parametrize(
    ("nodes", "replicas", "verdict", "reason"),
    [p[1:] for p in PLACED],
    ids=[p[0] for p in PLACED],
)
def test_a_failing_prescore_keeps_copies_off_where_scores_run(
    nodes: int, replicas: int, verdict: Verdict, reason: str | None
) -> None:
    result = _evaluate(nodes, replicas, BAD)
    assert (result.verdict, result.reason) == (verdict, reason)


def test_a_node_the_run_s_earlier_copies_fill_is_not_feasible_for_scores_to_run() -> None:
    """Two nodes, one taken by an earlier workload's copy: the pod finds one feasible node
    beside it, so it lands unscored, as upstream binds it once that copy is bound."""
    snapshot = cluster_snapshot([api_node(f"n{i}", cpu="1") for i in range(2)])
    snap = build_snapshot(snapshot, "snapshot.json")
    evaluator = Evaluator.for_snapshot(snap, dialect_for(snap.info.server_version))
    ledger = Ledger()

    def workload(name: str, spec: dict[str, Any]) -> Workload:
        return Workload("Deployment", "default", name, Location("w.yaml", 1), 1, spec)

    filler = {"containers": [container(requests={"cpu": "900m"})]}
    assert evaluator.evaluate(workload("filler", filler), ledger).verdict is Verdict.YES
    bad = _preferring((1, [_expr("rank", "Gt", "abc")]))
    bad["containers"] = [container(requests={"cpu": "500m"})]
    alone = evaluator.evaluate(workload("bad", bad))
    beside = evaluator.evaluate(workload("bad", bad), ledger)
    assert (alone.verdict, alone.reason) == (Verdict.ERROR, FAILED)
    assert (beside.verdict, beside.reason) == (Verdict.YES, None)
