"""Filtering per class of nodes gives every node the rejection that running the filters on
that node gives, and the gathered outcome tuples are the per-node ones."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.version import Dialect
from gate.model import Code, HostPort, NodeOutcome, NodeView
from gate.scheduler.engine.evaluate import _group_fit_error, fit_error
from gate.scheduler.engine.outcomes import OutcomeTables
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Rejection, SharedParts, filter_groups, run_filters
from tests.builders import node, prepared, taint

TAINTS = [
    taint("CriticalAddonsOnly", "true"),
    taint("gpu", "yes"),
    taint("gpu", "yes", "NoExecute"),
    taint("soft", "x", "PreferNoSchedule"),
]
PORTS = [HostPort("0.0.0.0", "TCP", 8080), HostPort("10.0.0.1", "UDP", 53)]
LABEL_KEYS = ["zone", "pool", "n"]


@st.composite
def nodes(draw: st.DrawFn) -> list[NodeView]:
    found = []
    for number in range(draw(st.integers(0, 12))):
        extra = draw(st.sampled_from([{}, {"example.com/gpu": 2}, {"hugepages-2Mi": 0}]))
        found.append(
            node(
                f"n{number}",
                cpu=draw(st.sampled_from([1000, 2000, 4000])),
                memory=draw(st.sampled_from([2**30, 2**32])),
                pods=draw(st.sampled_from([0, 2, 110])),
                labels={
                    k: draw(st.sampled_from(["a", "b", "7", "12"]))
                    for k in LABEL_KEYS
                    if draw(st.booleans())
                },
                taints=tuple(draw(st.lists(st.sampled_from(TAINTS), max_size=2, unique=True))),
                unschedulable=draw(st.booleans()),
                requested={"cpu": draw(st.sampled_from([0, 500, 1500])), "memory": 2**29},
                pod_count=draw(st.sampled_from([0, 1, 2])),
                extra=extra,
                used_ports=frozenset(draw(st.lists(st.sampled_from(PORTS), max_size=2))),
            )
        )
    return found


operators = st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus"])


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    requests = {
        k: v
        for k, v in {
            "cpu": draw(st.sampled_from(["0", "100m", "1", "3"])),
            "memory": draw(st.sampled_from(["1Mi", "1Gi", "5Gi"])),
            "example.com/gpu": draw(st.sampled_from([None, "0", "1", "3"])),
            "hugepages-2Mi": draw(st.sampled_from([None, "2Mi"])),
        }.items()
        if v is not None
    }
    ports = [
        {"containerPort": p.port, "hostPort": p.port, "protocol": p.protocol}
        for p in draw(st.lists(st.sampled_from(PORTS), max_size=1))
    ]
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": requests}, "ports": ports}],
        "tolerations": draw(
            st.lists(
                st.sampled_from(
                    [
                        {"key": "gpu", "operator": "Exists"},
                        {"key": "CriticalAddonsOnly", "operator": "Equal", "value": "true"},
                        {"key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
                        {"operator": "Exists", "effect": "NoExecute"},
                    ]
                ),
                max_size=2,
            )
        ),
    }
    if draw(st.booleans()):
        spec["nodeSelector"] = {draw(st.sampled_from(LABEL_KEYS)): draw(st.sampled_from("ab"))}
    if draw(st.booleans()):
        expression = {
            "key": draw(st.sampled_from(LABEL_KEYS)),
            "operator": draw(operators),
            "values": draw(st.lists(st.sampled_from(["a", "b", "7", "10"]), max_size=2)),
        }
        terms = draw(st.sampled_from([[{"matchExpressions": [expression]}], [{}], []]))
        required = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
        spec["affinity"] = {"nodeAffinity": required}
    return spec


@settings(max_examples=150, deadline=None)
@given(nodes(), specs(), st.booleans())
def test_classes_give_each_node_its_own_rejection(
    found: list[NodeView], spec: dict[str, Any], named: bool
) -> None:
    dialect = Dialect(named_taint=named)
    cycle = prepared(pod_profile(spec), *found)
    index = NodeIndex.of(found)
    groups = filter_groups(index, cycle, dialect)
    expected = [run_filters(cycle, n, dialect) for n in found]
    got: list[Rejection | None] = [None] * len(found)
    for rejection, bits in groups.items():
        for number in range(len(found)):
            if bits >> number & 1:
                assert got[number] is None  # the sets are disjoint
                got[number] = rejection
    assert got == expected
    outcomes = OutcomeTables(index.nodes).outcomes(groups)
    assert outcomes == tuple(
        NodeOutcome(n.name, r.reasons, r.taint, r.plugin, r.code) if r else NodeOutcome(n.name, ())
        for n, r in zip(found, expected, strict=True)
    )
    if expected and all(expected):
        assert _group_fit_error(len(found), groups) == fit_error(len(found), outcomes)


def test_many_groups_fall_back_to_a_plain_gather() -> None:
    many = [node(f"n{i}") for i in range(300)]
    groups = {Rejection("P", Code.UNSCHEDULABLE, (f"reason {i}",)): 1 << i for i in range(300)}
    outcomes = OutcomeTables(tuple(many)).outcomes(groups)
    assert [o.reasons for o in outcomes] == [(f"reason {i}",) for i in range(300)]


@settings(max_examples=60, deadline=None)
@given(nodes(), st.lists(specs(), min_size=2, max_size=6), st.booleans())
def test_one_index_serves_many_pods_alike(
    found: list[NodeView], many: list[dict[str, Any]], named: bool
) -> None:
    # The index keeps what each toleration list met per taint class: a later pod must
    # still get exactly what the filters give it.
    dialect = Dialect(named_taint=named)
    index = NodeIndex.of(found)
    for spec in many:
        cycle = prepared(pod_profile(spec), *found)
        groups = filter_groups(index, cycle, dialect)
        got = [
            next((r for r, bits in groups.items() if bits >> i & 1), None)
            for i in range(len(found))
        ]
        assert got == [run_filters(cycle, n, dialect) for n in found]


@settings(max_examples=60, deadline=None)
@given(nodes(), st.lists(specs(), min_size=2, max_size=6), st.booleans())
def test_splits_shared_between_pods_give_the_groups_a_pod_alone_gets(
    found: list[NodeView], many: list[dict[str, Any]], named: bool
) -> None:
    # A shared split is kept as its rejections only: the groups, and their order (the
    # cause reads them in order), must be those worked out without sharing.
    dialect = Dialect(named_taint=named)
    index = NodeIndex.of(found)
    shared: SharedParts = {}
    for spec in [*many, *many]:
        cycle = prepared(pod_profile(spec), *found)
        alone = filter_groups(index, cycle, dialect)
        assert list(filter_groups(index, cycle, dialect, shared).items()) == list(alone.items())


@settings(max_examples=50, deadline=None)
@given(views=nodes(), key=st.sampled_from(LABEL_KEYS))
def test_the_nodes_with_a_label_are_those_carrying_it_whatever_its_value(
    views: list[NodeView], key: str
) -> None:
    index = NodeIndex.of(views)
    carrying = sum(1 << i for i, view in enumerate(views) if key in view.labels)
    assert index.with_label(key) == carrying
    assert index.with_label(key) == carrying  # asked again, kept
