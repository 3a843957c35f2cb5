"""PodTopologySpread's Filter, after upstream
pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go (v1.34):
TestSingleConstraint and TestMultipleConstraints, with the rows on minDomains,
nodeAffinityPolicy, nodeTaintsPolicy and matchLabelKeys. Each row: id, pod labels, pod
spec, nodes, existing pods, and per node "ok", "skew" or "label" (missing required label).
Every row is run node by node and by node sets (tests.interpod_support)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.selectors import SelectorError, parse_selector
from gate.k8s.spread import SpreadConstraint
from gate.model import ExistingPod, NodeView
from gate.scheduler.plugins.podtopologyspread.filtering import (
    REASON_SPREAD,
    REASON_SPREAD_MISSING_LABEL,
    SpreadState,
    uncounted_removed,
)
from tests.builders import existing_pod, exists, node, spread, taint
from tests.interpod_support import outcomes

WANT = {
    "ok": None,
    "skew": ("Unschedulable", REASON_SPREAD),
    "label": ("UnschedulableAndUnresolvable", REASON_SPREAD_MISSING_LABEL),
}


def zone_nodes(*, b_zone_key: str = "zone", x_node_key: str = "node") -> list[NodeView]:
    """Upstream's four nodes: node-a, node-b in zone1; node-x, node-y in zone2."""
    return [
        node("node-a", labels={"zone": "zone1", "node": "node-a"}),
        node("node-b", labels={b_zone_key: "zone1", "node": "node-b"}),
        node("node-x", labels={"zone": "zone2", x_node_key: "node-x"}),
        node("node-y", labels={"zone": "zone2", "node": "node-y"}),
    ]


def foo_pods(**per_node: int) -> list[ExistingPod]:
    """``n`` pods labelled ``foo`` on each node named by its suffix (a=2 -> 2 on node-a)."""
    return [
        existing_pod(f"node-{suffix}", {"foo": ""}, name=f"p-{suffix}{i}")
        for suffix, count in per_node.items()
        for i in range(count)
    ]


def spec_of(*constraints: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"containers": [{"name": "c"}], "topologySpreadConstraints": list(constraints), **more}


FOO_ZONE = spread(1, "zone", exists("foo"))
FOO_NODE = spread(1, "node", exists("foo"))

# (id, pod labels, spec, nodes, existing pods, want per node a, b, x, y or as listed)
CASES: list[tuple[str, dict[str, str], dict[str, Any], list[NodeView], list[ExistingPod], str]] = [
    # TestSingleConstraint
    ("no existing pods", {"foo": ""}, spec_of(FOO_ZONE), zone_nodes(), [], "ok ok ok ok"),
    (
        "no existing pods, incoming pod doesn't match itself",
        {"foo": ""},
        spec_of(spread(1, "zone", exists("bar"))),
        zone_nodes(),
        [],
        "ok ok ok ok",
    ),
    (
        "existing pods in a different namespace do not count",
        {"foo": ""},
        spec_of(FOO_ZONE),
        zone_nodes(),
        [
            existing_pod("node-a", {"foo": ""}, namespace="ns1"),
            existing_pod("node-a", {"foo": ""}, namespace="ns2"),
            existing_pod("node-x", {"foo": ""}),
            existing_pod("node-y", {"foo": ""}),
        ],
        "ok ok skew skew",
    ),
    (
        "pods spread across zones as 3/3, all nodes fit",
        {"foo": ""},
        spec_of(FOO_ZONE),
        zone_nodes(),
        foo_pods(a=2, b=1, y=3),
        "ok ok ok ok",
    ),
    (
        "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        {"foo": ""},
        spec_of(FOO_ZONE),
        zone_nodes(b_zone_key="zon"),
        foo_pods(a=1, b=1, x=1, y=1),
        "ok label skew skew",
    ),
    (
        "pod cannot be scheduled as all nodes don't have label 'rack'",
        {"foo": ""},
        spec_of(spread(1, "rack", exists("foo"))),
        zone_nodes(),
        [],
        "label label label label",
    ),
    (
        "pods spread across nodes as 2/1/0/3, only node-x fits",
        {"foo": ""},
        spec_of(FOO_NODE),
        zone_nodes(),
        foo_pods(a=2, b=1, y=3),
        "skew skew ok skew",
    ),
    (
        "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        {"foo": ""},
        spec_of(spread(2, "node", exists("foo"))),
        zone_nodes(),
        foo_pods(a=2, b=1, y=3),
        "skew ok ok skew",
    ),
    (
        "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        {"bar": ""},
        spec_of(FOO_NODE),
        zone_nodes(),
        foo_pods(a=2, b=1, y=3),
        "skew ok ok skew",
    ),
    (
        # Upstream runs this filter alone, so node-b and node-x pass it; NodeAffinity
        # rejects them in a real run.
        "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        {"foo": ""},
        spec_of(
            FOO_NODE,
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {
                                        "key": "node",
                                        "operator": "In",
                                        "values": ["node-a", "node-y"],
                                    }
                                ]
                            }
                        ]
                    }
                }
            },
        ),
        zone_nodes(),
        foo_pods(a=2, b=1, y=3),
        "ok ok ok skew",
    ),
    (
        "terminating Pods should be excluded",
        {"foo": ""},
        spec_of(FOO_NODE),
        [node("node-a", labels={"node": "node-a"}), node("node-b", labels={"node": "node-b"})],
        [
            existing_pod("node-a", {"foo": ""}, terminating=True),
            existing_pod("node-b", {"foo": ""}),
        ],
        "ok skew",
    ),
    (
        "pods spread across nodes as 2/2/1, the number of domains < minDomains, "
        "so the global minimum is 0 and only the node with one pod fits maxSkew 2",
        {"foo": ""},
        spec_of(spread(2, "node", exists("foo"), minDomains=4)),
        [node(f"node-{s}", labels={"node": f"node-{s}"}) for s in "abc"],
        foo_pods(a=2, b=2, c=1),
        "skew skew ok",
    ),
    (
        "pods spread across nodes as 2/2/1, the number of domains >= minDomains, all fit",
        {"foo": ""},
        spec_of(spread(2, "node", exists("foo"), minDomains=2)),
        [node(f"node-{s}", labels={"node": f"node-{s}"}) for s in "abc"],
        foo_pods(a=2, b=2, c=1),
        "ok ok ok",
    ),
    (
        "NodeAffinityPolicy honored with labelSelectors: node-x, outside the nodeSelector, "
        "is no domain, so the minimum is node-b's 1",
        {"foo": ""},
        spec_of(FOO_NODE, nodeSelector={"foo": ""}),
        [
            node("node-a", labels={"node": "node-a", "foo": ""}),
            node("node-b", labels={"node": "node-b", "foo": ""}),
            node("node-x", labels={"node": "node-x"}),
            node("node-y", labels={"node": "node-y", "foo": ""}),
        ],
        foo_pods(a=1, b=1, y=2),
        "ok ok ok skew",
    ),
    (
        "NodeAffinityPolicy ignored with labelSelectors: node-x counts as an empty domain",
        {"foo": ""},
        spec_of(
            spread(1, "node", exists("foo"), nodeAffinityPolicy="Ignore"), nodeSelector={"foo": ""}
        ),
        [
            node("node-a", labels={"node": "node-a", "foo": ""}),
            node("node-b", labels={"node": "node-b", "foo": ""}),
            node("node-x", labels={"node": "node-x"}),
            node("node-y", labels={"node": "node-y", "foo": ""}),
        ],
        foo_pods(a=1, b=1, y=2),
        "skew skew ok skew",
    ),
    (
        "NodeTaintsPolicy honored: the tainted empty node-x is no domain",
        {"foo": ""},
        spec_of(spread(1, "node", exists("foo"), nodeTaintsPolicy="Honor")),
        [
            node("node-a", labels={"node": "node-a"}),
            node("node-b", labels={"node": "node-b"}),
            node("node-x", labels={"node": "node-x"}, taints=(taint("foo", "", "NoSchedule"),)),
            node("node-y", labels={"node": "node-y"}),
        ],
        foo_pods(a=1, b=1, y=2),
        "ok ok ok skew",
    ),
    (
        "NodeTaintsPolicy ignored by default: the tainted empty node-x sets the minimum to 0",
        {"foo": ""},
        spec_of(FOO_NODE),
        [
            node("node-a", labels={"node": "node-a"}),
            node("node-b", labels={"node": "node-b"}),
            node("node-x", labels={"node": "node-x"}, taints=(taint("foo", "", "NoSchedule"),)),
            node("node-y", labels={"node": "node-y"}),
        ],
        foo_pods(a=1, b=1, y=2),
        "skew skew ok skew",
    ),
    (
        "matchLabelKeys: only the pods sharing the pod's value of the key count",
        {"foo": "", "bar": "a"},
        spec_of(spread(1, "node", exists("foo"), matchLabelKeys=["bar"])),
        [node(f"node-{s}", labels={"node": f"node-{s}"}) for s in "ab"],
        [
            existing_pod("node-a", {"foo": "", "bar": "a"}),
            existing_pod("node-b", {"foo": "", "bar": "b"}),
            existing_pod("node-b", {"foo": "", "bar": "b"}),
        ],
        "skew ok",
    ),
    (
        "matchLabelKeys: a key the pod lacks (pod-template-hash) is ignored",
        {"foo": ""},
        spec_of(spread(1, "node", exists("foo"), matchLabelKeys=["pod-template-hash"])),
        [node(f"node-{s}", labels={"node": f"node-{s}"}) for s in "ab"],
        [
            existing_pod("node-a", {"foo": "", "pod-template-hash": "1"}),
            existing_pod("node-a", {"foo": "", "pod-template-hash": "2"}),
        ],
        "skew ok",
    ),
    (
        "ScheduleAnyway constraints are scores and never filter",
        {"foo": ""},
        spec_of(spread(1, "rack", exists("foo"), when="ScheduleAnyway")),
        zone_nodes(),
        foo_pods(a=3),
        "ok ok ok ok",
    ),
    (
        "an empty labelSelector counts no existing pod, so only missing labels fail",
        {"foo": ""},
        spec_of(spread(1, "node", {})),
        zone_nodes(x_node_key="other"),
        foo_pods(a=3, b=1),
        "ok ok label ok",
    ),
    (
        "a null labelSelector matches nothing, not even the pod itself",
        {"foo": ""},
        spec_of(spread(1, "node", None)),
        zone_nodes(),
        foo_pods(a=3),
        "ok ok ok ok",
    ),
    # TestMultipleConstraints
    (
        "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        {"foo": ""},
        spec_of(FOO_ZONE, FOO_NODE),
        zone_nodes(),
        foo_pods(a=2, b=1, y=3),
        "skew skew ok skew",
    ),
    (
        "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        {"foo": ""},
        spec_of(FOO_ZONE, FOO_NODE),
        zone_nodes(),
        foo_pods(a=2, b=1, y=4),
        "skew skew skew skew",
    ),
    (
        "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        {"foo": "", "bar": ""},
        spec_of(FOO_ZONE, spread(1, "node", exists("bar"))),
        zone_nodes(),
        [existing_pod("node-a", {"foo": ""}), existing_pod("node-y", {"bar": ""})],
        "skew skew ok skew",
    ),
    (
        "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        {"foo": "", "bar": ""},
        spec_of(FOO_ZONE, spread(1, "node", exists("bar"))),
        zone_nodes(),
        [
            existing_pod("node-a", {"foo": ""}),
            existing_pod("node-x", {"bar": ""}),
            existing_pod("node-y", {"bar": ""}),
        ],
        "skew skew skew skew",
    ),
    (
        "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        {"foo": "", "bar": ""},
        spec_of(FOO_ZONE, spread(1, "node", exists("bar"))),
        zone_nodes(),
        [
            existing_pod("node-a", {"foo": ""}),
            existing_pod("node-a", {"foo": "", "bar": ""}),
            existing_pod("node-y", {"foo": ""}),
            existing_pod("node-y", {"foo": "", "bar": ""}),
            existing_pod("node-y", {"foo": ""}),
        ],
        "skew ok skew skew",
    ),
    (
        "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' "
        "constraint",
        {"bar": ""},
        spec_of(FOO_ZONE, spread(1, "node", exists("bar"))),
        zone_nodes(),
        [
            existing_pod("node-a", {"foo": ""}),
            existing_pod("node-x", {"bar": ""}),
            existing_pod("node-y", {"bar": ""}),
        ],
        "ok ok skew skew",
    ),
    (
        "two Constraints on zone and node, absence of label 'node' on node-x, "
        "spreads = [1/1, 1/0/0/1]",
        {"foo": ""},
        spec_of(FOO_ZONE, FOO_NODE),
        zone_nodes(x_node_key="other"),
        [existing_pod("node-a", {"foo": ""}), existing_pod("node-y", {"foo": ""})],
        "skew ok label skew",
    ),
]


@pytest.mark.parametrize(
    ("labels", "spec", "nodes", "pods", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_spread_filter_matches_upstream(
    labels: dict[str, str],
    spec: dict[str, Any],
    nodes: list[NodeView],
    pods: list[ExistingPod],
    want: str,
) -> None:
    got = outcomes(spec, nodes, pods, labels=labels)
    assert got == {n.name: WANT[w] for n, w in zip(nodes, want.split(), strict=True)}


def test_a_selector_the_api_server_refuses_is_an_error_naming_its_field() -> None:
    bad = spread(1, "zone", {"matchExpressions": [{"key": "foo", "operator": "In"}]})
    with pytest.raises(SelectorError, match=r"topologySpreadConstraints\[0\]\.labelSelector"):
        outcomes(spec_of(bad), zone_nodes())


def _removal_state(selector: dict[str, Any]) -> SpreadState:
    """One constraint over zone, two domains counted: zone1 2, zone2 1."""
    constraint = SpreadConstraint(1, "zone", parse_selector(selector))
    return SpreadState((constraint,), ({"zone1": 2, "zone2": 1},), (True,))


_FOO = {"matchLabels": {"foo": ""}}
REMOVALS = [
    pytest.param(
        _FOO,
        {"zone": "zone1"},
        [existing_pod("n", {"foo": ""}, terminating=True)],
        1,
        id="a terminating victim the selector matches is taken off its zone",
    ),
    pytest.param(
        _FOO,
        {"zone": "zone1"},
        [existing_pod("n", {"foo": ""})],
        2,
        id="a victim the PreFilter counted is already gone from a state run without it",
    ),
    pytest.param(
        _FOO,
        {"zone": "zone1"},
        [existing_pod("n", {"bar": ""}, terminating=True)],
        2,
        id="a terminating victim the selector does not match leaves the count",
    ),
    pytest.param(
        _FOO,
        {"zone": "zone1"},
        [existing_pod("n", {"foo": ""}, namespace="other", terminating=True)],
        2,
        id="a terminating victim of another namespace leaves the count",
    ),
    pytest.param(
        {},
        {"zone": "zone1"},
        [existing_pod("n", {"bar": ""}), existing_pod("n")],
        0,
        id="under an empty selector every victim of the namespace is taken off",
    ),
    pytest.param(
        _FOO,
        {"rack": "r1"},
        [existing_pod("n", {"foo": ""}, terminating=True)],
        2,
        id="a node without the topology key changes nothing",
    ),
]


@pytest.mark.parametrize(("selector", "labels", "victims", "zone1"), REMOVALS)
def test_removing_victims_as_remove_pod_does(
    selector: dict[str, Any], labels: dict[str, str], victims: list[ExistingPod], zone1: int
) -> None:
    """podtopologyspread/filtering.go updateWithPod (delta -1) on a state whose PreFilter
    ran without the victims: it takes off the ones calPreFilterState never counted."""
    state = uncounted_removed(_removal_state(selector), "default", labels, victims)
    assert state.counts == ({"zone1": zone1, "zone2": 1},)
