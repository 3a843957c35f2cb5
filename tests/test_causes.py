"""The cause of a failing workload (gate/scheduler/engine/causes.py): which rejection counts, how a
tie is broken, and how far the request is from a fit."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.version import Dialect
from gate.model import NodeView, Term
from gate.scheduler.engine.causes import cause_of
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import filter_groups
from tests.builders import cluster, node, prepared, taint
from tests.engine_support import pod_spec

DIALECT = Dialect(named_taint=True)
ADDON = taint("CriticalAddonsOnly", "true")
GIB = 2**30


def _cause(spec: dict[str, Any], *nodes: NodeView, daemonset: bool = False) -> tuple[Any, ...]:
    pod = pod_profile(spec)
    cycle = prepared(pod, *nodes)
    index = cluster(*nodes).index
    groups = filter_groups(index, cycle, DIALECT)
    found = cause_of(index, cycle, groups, DIALECT, targeted_only=daemonset)
    assert found is not None
    return (
        found.term,
        found.resource,
        found.nodes,
        found.requested,
        found.free,
        found.free_on_addon,
    )


CASES = {
    "a tie goes to the filter that runs last": (
        pod_spec(cpu="3"),
        (node("tainted", taints=(taint("dedicated", "db"),)), node("small", cpu=2000)),
        False,
        (Term.REQUEST, "cpu", 1, "3", "2", False),
    ),
    "add-on nodes do not outvote the user nodes": (
        pod_spec(cpu="3"),
        (
            node("system-0", cpu=2000, taints=(ADDON,)),
            node("system-1", cpu=2000, taints=(ADDON,)),
            node("user", taints=(taint("dedicated", "db"),)),
        ),
        False,
        (Term.TOLERATIONS, "", 1, "", None, False),
    ),
    "two resources short on the same nodes: cpu, as fitsRequest compares it first": (
        pod_spec(cpu="3", memory="16Gi"),
        (node("a", cpu=2000, memory=8 * GIB), node("b", cpu=1000, memory=4 * GIB)),
        False,
        (Term.REQUEST, "cpu", 2, "3", "2", False),
    ),
    "a DaemonSet counts only the nodes it targets": (
        pod_spec(cpu="3", nodeSelector={"pool": "db"}),
        (node("a"), node("b"), node("db", cpu=2000, labels={"pool": "db"})),
        True,
        (Term.REQUEST, "cpu", 1, "3", "2", False),
    ),
    "without user nodes every node counts, and the room left is an add-on node's": (
        pod_spec(cpu="3", tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}]),
        (node("system-0", cpu=2000, taints=(ADDON,)), node("system-1", cpu=1000, taints=(ADDON,))),
        False,
        (Term.REQUEST, "cpu", 2, "3", "2", True),
    ),
    "what running pods take is not free": (
        pod_spec(cpu="3"),
        (
            node("a", cpu=4000, requested={"cpu": 2500}),
            node("b", cpu=4000, requested={"cpu": 1750}),
        ),
        False,
        (Term.REQUEST, "cpu", 2, "3", "2250m", False),
    ),
}


@pytest.mark.parametrize(("spec", "nodes", "daemonset", "expected"), CASES.values(), ids=CASES)
def test_the_cause(
    spec: dict[str, Any], nodes: tuple[NodeView, ...], daemonset: bool, expected: tuple[Any, ...]
) -> None:
    assert _cause(spec, *nodes, daemonset=daemonset) == expected
