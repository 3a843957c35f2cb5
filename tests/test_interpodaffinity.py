"""InterPodAffinity's Filter, after upstream
pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go (v1.34):
TestRequiredAffinitySingleNode and TestRequiredAffinityMultipleNodes, plus rows on
matchLabelKeys / mismatchLabelKeys and on snapshots without namespaces. Upstream's
namespace "" is "default" here. Each row is run node by node and by node sets."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.selectors import SelectorError
from gate.model import ExistingPod, NodeView
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins.interpodaffinity.filtering import (
    REASON_AFFINITY,
    REASON_ANTI_AFFINITY,
    REASON_EXISTING_ANTI_AFFINITY,
    AffinityState,
    affinity_groups,
    affinity_state,
)
from tests.builders import existing_pod, node, pod_term
from tests.interpod_support import outcomes

WANT = {
    "ok": None,
    "affinity": ("UnschedulableAndUnresolvable", REASON_AFFINITY),
    "anti": ("Unschedulable", REASON_ANTI_AFFINITY),
    "existing": ("Unschedulable", REASON_EXISTING_ANTI_AFFINITY),
}
SECURITYSCAN = {"service": "securityscan"}
S1 = {"security": "S1"}
TEAMS = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


def spec_of(
    affinity: list[dict[str, Any]] | None = None, anti: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c"}], "affinity": {}}
    if affinity is not None:
        spec["affinity"]["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": affinity
        }
    if anti is not None:
        spec["affinity"]["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": anti
        }
    return spec


def term_in(key: str, topology: str, values: list[str], **more: Any) -> dict[str, Any]:
    return pod_term(key, "In", values, topology, **more)


def term_exists(key: str, topology: str) -> dict[str, Any]:
    return pod_term(key, "Exists", None, topology)


NODE1 = node("node1", labels={"region": "r1", "zone": "z11"})
SCAN_POD = existing_pod("node1", SECURITYSCAN)

# TestRequiredAffinitySingleNode: (id, pod labels, pod namespace, spec, existing pods, want)
SINGLE: list[tuple[str, dict[str, str], str, dict[str, Any], list[ExistingPod], str]] = [
    (
        "A pod that has no required pod affinity scheduling rules can schedule onto a node "
        "with no existing pods",
        {},
        "default",
        spec_of(),
        [],
        "ok",
    ),
    (
        "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
        "operator that matches the existing pod",
        S1,
        "default",
        spec_of([term_in("service", "region", ["securityscan", "value2"])]),
        [SCAN_POD],
        "ok",
    ),
    (
        "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity "
        "using not in operator in labelSelector that matches the existing pod",
        S1,
        "default",
        spec_of([pod_term("service", "NotIn", ["securityscan3", "value3"], "region")]),
        [SCAN_POD],
        "ok",
    ),
    (
        "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
        S1,
        "default",
        spec_of([term_in("service", "", ["securityscan", "value2"], namespaces=["DiffNameSpace"])]),
        [existing_pod("node1", SECURITYSCAN, namespace="ns")],
        "affinity",
    ),
    (
        "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
        SECURITYSCAN,
        "default",
        spec_of([term_in("service", "", ["antivirusscan", "value2"])]),
        [SCAN_POD],
        "affinity",
    ),
    (
        "satisfies the PodAffinity with different label Operators in multiple "
        "RequiredDuringSchedulingIgnoredDuringExecution",
        S1,
        "default",
        spec_of(
            [
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "service", "operator": "Exists"},
                            {"key": "wrongkey", "operator": "DoesNotExist"},
                        ]
                    },
                    "topologyKey": "region",
                },
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "service", "operator": "In", "values": ["securityscan"]},
                            {"key": "service", "operator": "NotIn", "values": ["WrongValue"]},
                        ]
                    },
                    "topologyKey": "region",
                },
            ]
        ),
        [SCAN_POD],
        "ok",
    ),
    (
        "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot "
        "schedule onto the node because one of the matchExpression item don't match.",
        S1,
        "default",
        spec_of(
            [
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "service", "operator": "Exists"},
                            {"key": "wrongkey", "operator": "DoesNotExist"},
                        ]
                    },
                    "topologyKey": "region",
                },
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "service", "operator": "In", "values": ["securityscan2"]},
                            {"key": "service", "operator": "NotIn", "values": ["WrongValue"]},
                        ]
                    },
                    "topologyKey": "region",
                },
            ]
        ),
        [SCAN_POD],
        "affinity",
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
        S1,
        "default",
        spec_of(
            [term_in("service", "region", ["securityscan", "value2"])],
            [term_in("service", "node", ["antivirusscan", "value2"])],
        ),
        [SCAN_POD],
        "ok",
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
        "existing pod",
        S1,
        "default",
        spec_of(
            [term_in("service", "region", ["securityscan", "value2"])],
            [term_in("service", "node", ["antivirusscan", "value2"])],
        ),
        [
            existing_pod(
                "node1",
                SECURITYSCAN,
                anti_affinity=(term_in("service", "node", ["antivirusscan", "value2"]),),
            )
        ],
        "ok",
    ),
    (
        "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
        S1,
        "default",
        spec_of(
            [term_in("service", "region", ["securityscan", "value2"])],
            [term_in("service", "zone", ["securityscan", "value2"])],
        ),
        [SCAN_POD],
        "anti",
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity "
        "symmetry with the existing pod",
        SECURITYSCAN,
        "default",
        spec_of(
            [term_in("service", "region", ["securityscan", "value2"])],
            [term_in("service", "node", ["antivirusscan", "value2"])],
        ),
        [
            existing_pod(
                "node1",
                SECURITYSCAN,
                anti_affinity=(term_in("service", "zone", ["securityscan", "value2"]),),
            )
        ],
        "existing",
    ),
    (
        "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
        SECURITYSCAN,
        "default",
        spec_of([pod_term("service", "NotIn", ["securityscan", "value2"], "region")]),
        [existing_pod("node2", SECURITYSCAN)],
        "affinity",
    ),
    (
        "verify that PodAntiAffinity from existing pod is respected when pod has no "
        "AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
        SECURITYSCAN,
        "default",
        spec_of(),
        [
            existing_pod(
                "node1",
                SECURITYSCAN,
                anti_affinity=(term_in("service", "zone", ["securityscan", "value2"]),),
            )
        ],
        "existing",
    ),
    (
        "verify that PodAntiAffinity from existing pod is respected when pod has no "
        "AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
        SECURITYSCAN,
        "default",
        spec_of(),
        [
            existing_pod(
                "node1",
                SECURITYSCAN,
                anti_affinity=(pod_term("service", "NotIn", ["securityscan", "value2"], "zone"),),
            )
        ],
        "ok",
    ),
    (
        "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
        "symmetry with incoming pod",
        SECURITYSCAN,
        "default",
        spec_of(anti=[term_exists("service", "region"), term_exists("security", "region")]),
        [existing_pod("node1", S1, anti_affinity=(term_exists("security", "zone"),))],
        "anti",
    ),
    (
        "PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each "
        "other on AffinityTerms",
        SECURITYSCAN,
        "default",
        spec_of(anti=[term_exists("service", "zone"), term_exists("security", "zone")]),
        [existing_pod("node1", S1, anti_affinity=(term_exists("security", "zone"),))],
        "anti",
    ),
    (
        "PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each "
        "other on AffinityTerms",
        S1,
        "default",
        spec_of(anti=[term_exists("security", "zone")]),
        [
            existing_pod(
                "node1",
                SECURITYSCAN,
                anti_affinity=(term_exists("service", "zone"), term_exists("security", "zone")),
            )
        ],
        "existing",
    ),
    (
        "PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each "
        "other on AffinityTerms",
        {"abc": "", "xyz": ""},
        "default",
        spec_of(anti=[term_exists("abc", "zone"), term_exists("def", "zone")]),
        [
            existing_pod(
                "node1",
                {"def": "", "xyz": ""},
                anti_affinity=(term_exists("abc", "zone"), term_exists("def", "zone")),
            )
        ],
        "anti",
    ),
    (
        "PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each "
        "other on AffinityTerms",
        {"def": "", "xyz": ""},
        "default",
        spec_of(anti=[term_exists("abc", "zone"), term_exists("def", "zone")]),
        [
            existing_pod(
                "node1",
                {"abc": "", "xyz": ""},
                anti_affinity=(term_exists("abc", "zone"), term_exists("def", "zone")),
            )
        ],
        "anti",
    ),
    (
        "affinity with NamespaceSelector",
        S1,
        "default",
        spec_of(
            [
                term_in(
                    "service",
                    "region",
                    ["securityscan", "value2"],
                    namespaceSelector={
                        "matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]
                    },
                )
            ]
        ),
        [existing_pod("node1", SECURITYSCAN, namespace="subteam1.team1")],
        "ok",
    ),
    (
        "affinity with non-matching NamespaceSelector",
        S1,
        "default",
        spec_of(
            [
                term_in(
                    "service",
                    "region",
                    ["securityscan", "value2"],
                    namespaceSelector={
                        "matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]
                    },
                )
            ]
        ),
        [existing_pod("node1", SECURITYSCAN, namespace="subteam1.team2")],
        "affinity",
    ),
    (
        "anti-affinity with matching NamespaceSelector",
        S1,
        "subteam1.team1",
        spec_of(
            anti=[
                term_in(
                    "service",
                    "zone",
                    ["securityscan", "value2"],
                    namespaceSelector={
                        "matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]
                    },
                )
            ]
        ),
        [existing_pod("node1", SECURITYSCAN, namespace="subteam2.team1")],
        "anti",
    ),
    (
        "anti-affinity with matching all NamespaceSelector",
        S1,
        "subteam1.team1",
        spec_of(
            anti=[term_in("service", "zone", ["securityscan", "value2"], namespaceSelector={})]
        ),
        [existing_pod("node1", SECURITYSCAN, namespace="subteam2.team1")],
        "anti",
    ),
    (
        "anti-affinity with non-matching NamespaceSelector",
        S1,
        "subteam1.team1",
        spec_of(
            anti=[
                term_in(
                    "service",
                    "zone",
                    ["securityscan", "value2"],
                    namespaceSelector={
                        "matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]
                    },
                )
            ]
        ),
        [existing_pod("node1", SECURITYSCAN, namespace="subteam1.team2")],
        "ok",
    ),
]


@pytest.mark.parametrize(
    ("labels", "namespace", "spec", "pods", "want"),
    [c[1:] for c in SINGLE],
    ids=[c[0] for c in SINGLE],
)
def test_required_affinity_single_node(
    labels: dict[str, str], namespace: str, spec: dict[str, Any], pods: list[ExistingPod], want: str
) -> None:
    got = outcomes(spec, [NODE1], pods, labels=labels, namespace=namespace, namespaces=TEAMS)
    assert got == {"node1": WANT[want]}


CHINA = {"region": "China"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
INDIA = {"region": "India"}


def three(a: dict[str, str], b: dict[str, str], c: dict[str, str]) -> list[NodeView]:
    return [node("nodeA", labels=a), node("nodeB", labels=b), node("nodeC", labels=c)]


def host(name: str, **labels: str) -> NodeView:
    return node(name, labels={**labels, "hostname": name})


R1Z1 = [host("nodeA", region="r1", zone="z1"), host("nodeB", region="r1", zone="z1")]
R1Z1Z2 = [host("nodeA", region="r1", zone="z1"), host("nodeB", region="r1", zone="z2")]

# TestRequiredAffinityMultipleNodes: (id, pod labels, pod namespace, spec, nodes, pods, want)
MULTIPLE: list[
    tuple[str, dict[str, str], str, dict[str, Any], list[NodeView], list[ExistingPod], str]
] = [
    (
        "A pod can be scheduled onto all the nodes that have the same topology key & label value "
        "with one of them has an existing pod that matches the affinity rules",
        {},
        "default",
        spec_of([term_in("foo", "region", ["bar"])]),
        three(CHINA, CHINA_AZ1, INDIA),
        [existing_pod("nodeA", {"foo": "bar"})],
        "ok ok affinity",
    ),
    (
        "The affinity rule is to schedule all of the pods of this collection to the same zone. "
        "The first pod of the collection should not be blocked from being scheduled onto any "
        "node, even there's no existing pod that matches the rule anywhere.",
        {"foo": "bar", "service": "securityscan"},
        "default",
        spec_of([term_in("foo", "zone", ["bar"]), term_in("service", "zone", ["securityscan"])]),
        [host("nodeA", zone="az1"), host("nodeB", zone="az2")],
        [existing_pod("nodeA", {"foo": "bar"})],
        "ok ok",
    ),
    (
        "The first pod of the collection can only be scheduled on nodes labelled with the "
        "requested topology keys",
        {"foo": "bar", "service": "securityscan"},
        "default",
        spec_of([term_in("foo", "zone", ["bar"]), term_in("service", "zone", ["securityscan"])]),
        [host("nodeA", zoneLabel="az1"), host("nodeB", zoneLabel="az2")],
        [existing_pod("nodeA", {"foo": "bar"})],
        "affinity affinity",
    ),
    (
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
        "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
        {},
        "default",
        spec_of(anti=[term_in("foo", "region", ["abc"])]),
        [host("nodeA", region="r1"), host("nodeB", region="r1")],
        [existing_pod("nodeA", {"foo": "abc"})],
        "anti anti",
    ),
    (
        "This test ensures that anti-affinity matches a pod when any term of the anti-affinity "
        "rule matches a pod.",
        {},
        "default",
        spec_of(
            anti=[term_in("foo", "region", ["abc"]), term_in("service", "zone", ["securityscan"])]
        ),
        [host("nodeA", region="r1", zone="z1"), host("nodeB", region="r1", zone="z2")],
        [existing_pod("nodeA", {"foo": "abc", "service": "securityscan"})],
        "anti anti",
    ),
    (
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
        "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB "
        "but can be scheduled onto nodeC",
        {},
        "default",
        spec_of(anti=[term_in("foo", "region", ["abc"])]),
        three(CHINA, CHINA_AZ1, INDIA),
        [existing_pod("nodeA", {"foo": "abc"})],
        "anti anti ok",
    ),
    (
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
        "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but "
        "can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity "
        "rule but in different namespace)",
        {"foo": "123"},
        "NS1",
        spec_of(anti=[term_in("foo", "region", ["bar"])]),
        three(CHINA, CHINA_AZ1, INDIA),
        [
            existing_pod("nodeA", {"foo": "bar"}, namespace="NS1"),
            existing_pod(
                "nodeC", {}, namespace="NS2", anti_affinity=(term_in("foo", "region", ["123"]),)
            ),
        ],
        "anti anti ok",
    ),
    (
        "Test existing pod's anti-affinity: if an existing pod has a term with invalid "
        "topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the "
        "term is also checked",
        {"foo": ""},
        "default",
        spec_of(),
        R1Z1,
        [existing_pod("nodeA", {}, anti_affinity=(term_exists("foo", "invalid-node-label"),))],
        "ok ok",
    ),
    (
        "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if "
        "topologyKey matches",
        {},
        "default",
        spec_of(anti=[term_exists("foo", "invalid-node-label")]),
        R1Z1,
        [existing_pod("nodeA", {"foo": ""})],
        "ok ok",
    ),
    (
        "Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it "
        "violates each existingPod's terms on all nodes",
        {"foo": "", "bar": ""},
        "default",
        spec_of(),
        R1Z1Z2,
        [
            existing_pod("nodeA", {}, anti_affinity=(term_exists("foo", "zone"),)),
            existing_pod("nodeA", {}, anti_affinity=(term_exists("bar", "region"),)),
        ],
        "existing existing",
    ),
    (
        "Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at "
        "least violates one anti-affinity rule of existingPod",
        {},
        "default",
        spec_of(anti=[term_exists("foo", "zone"), term_exists("bar", "region")]),
        R1Z1Z2,
        [existing_pod("nodeA", {"foo": ""}), existing_pod("nodeB", {"bar": ""})],
        "anti anti",
    ),
    (
        "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
        "it's counted as a single term match - case when one term has invalid topologyKey",
        {"foo": "", "bar": ""},
        "default",
        spec_of(),
        R1Z1Z2,
        [
            existing_pod(
                "nodeA",
                {},
                anti_affinity=(
                    term_exists("foo", "invalid-node-label"),
                    term_exists("bar", "zone"),
                ),
            )
        ],
        "existing ok",
    ),
    (
        "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
        "it's counted as a single term match - case when one term has invalid topologyKey",
        {},
        "default",
        spec_of(anti=[term_exists("foo", "invalid-node-label"), term_exists("bar", "zone")]),
        R1Z1Z2,
        [existing_pod("nodeA", {"foo": "", "bar": ""})],
        "anti ok",
    ),
    (
        "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
        "it's counted as a single term match - case when all terms have valid topologyKey",
        {"foo": "", "bar": ""},
        "default",
        spec_of(),
        R1Z1Z2,
        [
            existing_pod(
                "nodeA",
                {},
                anti_affinity=(term_exists("foo", "region"), term_exists("bar", "zone")),
            )
        ],
        "existing existing",
    ),
    (
        "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
        "it's counted as a single term match - case when all terms have valid topologyKey",
        {},
        "default",
        spec_of(anti=[term_exists("foo", "region"), term_exists("bar", "zone")]),
        R1Z1Z2,
        [existing_pod("nodeA", {"foo": "", "bar": ""})],
        "anti anti",
    ),
    (
        "Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one "
        "anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
        {"foo": "", "bar": ""},
        "default",
        spec_of(),
        [*R1Z1Z2, host("nodeC", region="r1", zone="z3")],
        [
            existing_pod(
                "nodeA",
                {},
                anti_affinity=(term_exists("foo", "zone"), term_exists("labelA", "zone")),
            ),
            existing_pod(
                "nodeB",
                {},
                anti_affinity=(term_exists("bar", "zone"), term_exists("labelB", "zone")),
            ),
        ],
        "existing existing ok",
    ),
    (
        "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check "
        "if all topologyKeys match",
        {},
        "default",
        spec_of([term_exists("foo", "region"), term_exists("bar", "zone")]),
        R1Z1,
        [existing_pod("nodeA", {"foo": "", "bar": ""})],
        "ok ok",
    ),
    (
        "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check "
        "if all topologyKeys match, and the match logic should be satisfied on the same pod",
        {},
        "default",
        spec_of([term_exists("foo", "region"), term_exists("bar", "zone")]),
        R1Z1Z2,
        [existing_pod("nodeA", {"foo": ""}), existing_pod("nodeB", {"bar": ""})],
        "affinity affinity",
    ),
    # Beyond the upstream tables: semantics the issue lists.
    (
        "matchLabelKeys narrows an anti-affinity term to the pods sharing the pod's value",
        {"app": "web", "version": "2"},
        "default",
        spec_of(anti=[term_in("app", "hostname", ["web"], matchLabelKeys=["version"])]),
        [host("nodeA"), host("nodeB")],
        [existing_pod("nodeA", {"app": "web", "version": "1"})],
        "ok ok",
    ),
    (
        "mismatchLabelKeys keeps only the pods with another value of the key",
        {"app": "web", "tenant": "a"},
        "default",
        spec_of(anti=[term_exists("app", "hostname") | {"mismatchLabelKeys": ["tenant"]}]),
        [host("nodeA"), host("nodeB")],
        [
            existing_pod("nodeA", {"app": "web", "tenant": "a"}),
            existing_pod("nodeB", {"app": "x", "tenant": "b"}),
        ],
        "ok anti",
    ),
    (
        "a first pod whose term covers another namespace gets no exception",
        {"foo": "bar"},
        "default",
        spec_of([term_in("foo", "zone", ["bar"], namespaces=["other"])]),
        [host("nodeA", zone="z1")],
        [],
        "affinity",
    ),
    (
        "a matching pod on a node without the key does not count, so the first-pod exception "
        "still applies",
        {"foo": "bar"},
        "default",
        spec_of([term_in("foo", "zone", ["bar"])]),
        [host("nodeA", zone="z1"), host("nodeB")],
        [existing_pod("nodeB", {"foo": "bar"})],
        "ok affinity",
    ),
    (
        "an existing pod's hostname anti-affinity blocks only its own node",
        {"app": "db"},
        "default",
        spec_of(),
        [host("nodeA"), host("nodeB")],
        [existing_pod("nodeA", {"app": "db"}, anti_affinity=(term_in("app", "hostname", ["db"]),))],
        "existing ok",
    ),
    (
        "terminating pods still count for inter-pod affinity",
        {},
        "default",
        spec_of(anti=[term_exists("foo", "hostname")]),
        [host("nodeA"), host("nodeB")],
        [existing_pod("nodeA", {"foo": ""}, terminating=True)],
        "anti ok",
    ),
]


@pytest.mark.parametrize(
    ("labels", "namespace", "spec", "nodes", "pods", "want"),
    [c[1:] for c in MULTIPLE],
    ids=[c[0] for c in MULTIPLE],
)
def test_required_affinity_multiple_nodes(
    labels: dict[str, str],
    namespace: str,
    spec: dict[str, Any],
    nodes: list[NodeView],
    pods: list[ExistingPod],
    want: str,
) -> None:
    got = outcomes(spec, nodes, pods, labels=labels, namespace=namespace, namespaces={"NS1": {}})
    assert got == {n.name: WANT[w] for n, w in zip(nodes, want.split(), strict=True)}


SELECTED = term_in(
    "service",
    "region",
    ["securityscan"],
    namespaceSelector={"matchLabels": {"team": "team1"}},
)


@pytest.mark.parametrize(
    ("namespaces", "want"),
    [
        (TEAMS, None),
        (None, ("UnschedulableAndUnresolvable", REASON_AFFINITY)),
    ],
    ids=[
        "a namespaceSelector selects the recorded namespaces by their labels",
        "a snapshot without namespaces lets a namespaceSelector select none",
    ],
)
def test_namespace_selector_needs_recorded_namespaces(
    namespaces: dict[str, dict[str, str]] | None, want: tuple[str, str] | None
) -> None:
    pods = [existing_pod("node1", SECURITYSCAN, namespace="subteam1.team1")]
    assert outcomes(spec_of([SELECTED]), [NODE1], pods, namespaces=namespaces) == {"node1": want}


def test_an_existing_pods_namespace_selector_reads_the_incoming_pods_namespace_labels() -> None:
    guard = term_exists("service", "region") | {
        "namespaceSelector": {"matchLabels": {"team": "team1"}}
    }
    pods = [existing_pod("node1", {}, namespace="subteam1.team2", anti_affinity=(guard,))]
    into_team1 = outcomes(
        spec_of(), [NODE1], pods, labels=SECURITYSCAN, namespace="subteam2.team1", namespaces=TEAMS
    )
    into_team2 = outcomes(
        spec_of(), [NODE1], pods, labels=SECURITYSCAN, namespace="subteam2.team2", namespaces=TEAMS
    )
    assert into_team1 == {"node1": ("Unschedulable", REASON_EXISTING_ANTI_AFFINITY)}
    assert into_team2 == {"node1": None}


def test_an_invalid_label_value_is_an_error_naming_the_term() -> None:
    bad = spec_of([term_in("service", "region", ["{{.bad-value.}}"])])
    with pytest.raises(SelectorError, match=r"podAffinity\.requiredDuringScheduling.*\[0\]"):
        outcomes(bad, [NODE1])


_ZONED = [
    node(f"n{i}", labels={"zone": f"z{i % 3}", "kubernetes.io/hostname": f"n{i}"}) for i in range(6)
]


@settings(max_examples=60, deadline=None)
@given(
    placed=st.lists(
        st.tuples(st.integers(0, 5), st.sampled_from(["a", "b"]), st.sampled_from(["x", "y"])),
        max_size=12,
    ),
    gone=st.sets(st.integers(0, 11)),
    topology=st.sampled_from(["zone", "kubernetes.io/hostname"]),
)
def test_a_view_counts_the_affinity_pairs_of_an_index_built_without_its_pods(
    placed: list[tuple[int, str, str]], gone: set[int], topology: str
) -> None:
    """The index keeps the pairs of each set of required affinity terms it was asked for;
    a view without some pods (a workload's own, released) neither reads nor fills them:
    asked before and after a view, the index and the view each count as an index built
    from their pods alone."""
    pods = [
        existing_pod(f"n{n}", {"app": app, "tier": tier}, name=f"p{i}")
        for i, (n, app, tier) in enumerate(placed)
    ]
    profile = pod_profile(
        spec_of([term_in("app", topology, ["a"]), term_in("tier", "zone", ["x"])]), "default"
    )
    terms = profile.pod_affinity
    nodes = NodeIndex.of(_ZONED)

    def counts(index: PodIndex) -> object:
        return affinity_state("default", {}, terms, (), None, nodes, index).affinity_counts

    index = PodIndex(pods, _ZONED)
    gone = {i for i in gone if i < len(pods)}
    kept = [p for i, p in enumerate(pods) if i not in gone]
    first = counts(index)
    assert counts(index.without(gone)) == counts(PodIndex(kept, _ZONED))
    assert counts(index) == first == counts(PodIndex(pods, _ZONED))


@settings(max_examples=60, deadline=None)
@given(
    placed=st.lists(
        st.tuples(st.integers(0, 5), st.sampled_from(["a", "b"]), st.sampled_from(["x", "y"])),
        max_size=12,
    ),
    topology=st.sampled_from(["zone", "kubernetes.io/hostname"]),
    host=st.integers(0, 5),
)
def test_the_nodes_of_counted_pairs_kept_across_states_are_those_worked_out_afresh(
    placed: list[tuple[int, str, str]], topology: str, host: int
) -> None:
    """The index's own states share the nodes their affinity counts form pairs on: asked
    again, of other counts (a first copy bound) and of other nodes, the Filter answers as
    a state that kept nothing."""
    pods = [
        existing_pod(f"n{n}", {"app": app, "tier": tier}, name=f"p{i}")
        for i, (n, app, tier) in enumerate(placed)
    ]
    profile = pod_profile(spec_of([term_in("app", topology, ["a"])]), "default")
    index = PodIndex(pods, _ZONED)
    nodes, fewer = NodeIndex.of(_ZONED), NodeIndex.of(_ZONED[::2])

    def state() -> AffinityState:
        return affinity_state("default", {}, profile.pod_affinity, (), None, nodes, index)

    bound = replace(state(), affinity_counts={(topology, _ZONED[host].labels[topology]): 1})
    for asked, among in ((state(), nodes), (bound, nodes), (state(), fewer), (state(), nodes)):
        fresh = replace(asked, counted={})
        assert affinity_groups(asked, among, among.everyone) == affinity_groups(
            fresh, among, among.everyone
        )
