"""The node-set path of PodTopologySpread and InterPodAffinity gives, on random clusters,
exactly the node-by-node answers (tests.interpod_support checks both on every call)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from gate.k8s.selectors import parse_selector
from gate.model import ExistingPod, NodeView
from gate.scheduler.framework.podindex import PodIndex
from tests.builders import existing_pod, node, pod_term, spread, taint
from tests.interpod_support import outcomes

APPS = ("web", "db", "cache")
NAMESPACES = {"default": {"team": "a"}, "other": {"team": "b"}}


def _nodes(rng: random.Random) -> list[NodeView]:
    found = []
    for i in range(rng.randrange(1, 9)):
        labels = {"kubernetes.io/hostname": f"n{i}"}
        if rng.random() < 0.85:
            labels["zone"] = rng.choice(("z1", "z2", "z3"))
        if rng.random() < 0.5:
            labels["pool"] = rng.choice(("user", "system"))
        taints = (taint("dedicated", "x"),) if rng.random() < 0.2 else ()
        found.append(node(f"n{i}", labels=labels, taints=taints))
    return found


def _term(rng: random.Random) -> dict[str, Any]:
    key = rng.choice(("kubernetes.io/hostname", "zone"))
    term = pod_term("app", rng.choice(("In", "NotIn")), [rng.choice(APPS)], key)
    if rng.random() < 0.2:
        term["namespaceSelector"] = rng.choice(({}, {"matchLabels": {"team": "b"}}))
    return term


def _pods(rng: random.Random, nodes: list[NodeView]) -> list[ExistingPod]:
    pods = []
    for i in range(rng.randrange(0, 12)):
        anti = (_term(rng),) if rng.random() < 0.2 else ()
        pods.append(
            existing_pod(
                rng.choice(nodes).name,
                {"app": rng.choice(APPS)},
                namespace=rng.choice(tuple(NAMESPACES)),
                name=f"p{i}",
                terminating=rng.random() < 0.1,
                anti_affinity=anti,
            )
        )
    return pods


def _spec(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    constraints = []
    for _ in range(rng.randrange(0, 3)):
        more: dict[str, Any] = {}
        if rng.random() < 0.3:
            more["minDomains"] = rng.randrange(1, 5)
        if rng.random() < 0.3:
            more["nodeTaintsPolicy"] = "Honor"
        if rng.random() < 0.3:
            more["nodeAffinityPolicy"] = "Ignore"
        key = rng.choice(("kubernetes.io/hostname", "zone"))
        constraints.append(
            spread(rng.randrange(1, 3), key, {"matchLabels": {"app": "web"}}, **more)
        )
    if constraints:
        spec["topologySpreadConstraints"] = constraints
    if rng.random() < 0.4:
        spec["nodeSelector"] = {"pool": "user"}
    affinity: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        if rng.random() < 0.4:
            terms = [_term(rng) for _ in range(rng.randrange(1, 3))]
            affinity[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": terms}
    if affinity:
        spec["affinity"] = affinity
    return spec


@pytest.mark.parametrize("seed", range(300), ids=lambda s: f"random cluster {s}")
def test_node_sets_agree_with_node_by_node(seed: int) -> None:
    rng = random.Random(seed)
    nodes = _nodes(rng)
    pods = _pods(rng, nodes)
    spec = _spec(rng)
    labels = {"app": rng.choice(APPS)}
    pinned = rng.random() < 0.2
    namespaces = NAMESPACES if rng.random() < 0.8 else None
    outcomes(spec, nodes, pods, labels=labels, namespaces=namespaces, pinned=pinned)


def _selector(rng: random.Random) -> dict[str, Any]:
    expressions = []
    for _ in range(rng.randrange(0, 3)):
        operator = rng.choice(("In", "NotIn", "Exists", "DoesNotExist"))
        expression: dict[str, Any] = {"key": rng.choice(("app", "tier")), "operator": operator}
        if operator in ("In", "NotIn"):
            expression["values"] = rng.sample(APPS, rng.randrange(1, 3))
        expressions.append(expression)
    selector: dict[str, Any] = {"matchExpressions": expressions}
    if rng.random() < 0.3:
        selector["matchLabels"] = {"app": rng.choice(APPS)}
    return selector


@pytest.mark.parametrize("seed", range(200), ids=lambda s: f"random pods {s}")
def test_the_pod_index_finds_what_a_scan_finds(seed: int) -> None:
    rng = random.Random(seed)
    nodes = _nodes(rng)
    pods = _pods(rng, nodes)
    for pod in pods:
        if rng.random() < 0.5:
            pod.labels["tier"] = rng.choice(APPS)  # type: ignore[index]
    index = PodIndex(pods, nodes)
    for _ in range(5):
        selector = parse_selector(_selector(rng))
        namespaces = rng.choice((None, frozenset({"default"}), frozenset({"default", "other"})))
        scan = tuple(
            i
            for i, p in enumerate(index.pods)
            if (namespaces is None or p.namespace in namespaces) and selector.matches(p.labels)
        )
        assert index.matching(namespaces, selector) == scan
    labels = {"app": rng.choice(APPS)}
    candidates = index.anti_affinity_candidates(labels)
    for term, nodes_of in index.anti_affinity_terms():
        if term.matches("default", labels, {}):
            assert (term, nodes_of) in candidates
