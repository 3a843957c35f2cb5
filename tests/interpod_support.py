"""Runs the inter-pod filters both ways (node by node, and by node sets) and checks that
the two agree, so that every upstream case also holds the fast path to the reference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gate.k8s.version import Dialect
from gate.model import ExistingPod, NodeView
from gate.scheduler.filters import node_affinity
from gate.scheduler.interpod import IncomingPod, interpod_checks, passing, tolerated
from gate.scheduler.nodeindex import NodeIndex
from gate.scheduler.podindex import PodIndex
from gate.scheduler.pods import pod_profile


def outcomes(
    spec: Mapping[str, Any],
    nodes: Sequence[NodeView],
    pods: Sequence[ExistingPod] = (),
    *,
    labels: Mapping[str, str] | None = None,
    namespace: str = "default",
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, tuple[str, str] | None]:
    """Each node's (code, reason), or None where it passes both filters."""
    index = NodeIndex.of(nodes)
    pod_index = PodIndex(pods, index.nodes)
    profile = pod_profile(spec)
    dialect = Dialect(named_taint=True)
    checks = interpod_checks(
        IncomingPod(namespace, labels or {}, spec),
        index,
        pod_index,
        namespaces,
        lambda: passing(
            index,
            lambda n: node_affinity(profile, n, dialect) is None,
            {k for n in nodes for k in n.labels},
        ),
        lambda: tolerated(index, profile.tolerations),
    )
    by_node = {}
    for node in index.nodes:
        failure = checks.filter(node)
        by_node[node.name] = None if failure is None else (failure.code, failure.reason)
    grouped: dict[str, tuple[str, str] | None] = {n.name: None for n in index.nodes}
    for bits, failure in checks.groups(index, index.everyone):
        for i, node in enumerate(index.nodes):
            if bits >> i & 1:
                assert grouped[node.name] is None, "groups must be disjoint"
                grouped[node.name] = (failure.code, failure.reason)
    assert grouped == by_node, "the node-set path must give the per-node answers"
    return by_node
