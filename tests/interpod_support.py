"""Runs PodTopologySpread then InterPodAffinity alone, as upstream's plugin tests do, both
ways (node by node, and by node sets) and checks that the two agree, so that every
upstream case also holds the fast path to the reference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gate.k8s.version import Dialect
from gate.model import (
    INTER_POD_AFFINITY,
    POD_TOPOLOGY_SPREAD,
    ExistingPod,
    NodeView,
    Snapshot,
    SnapshotInfo,
)
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins import prepare

DIALECT = Dialect(named_taint=True)


def outcomes(
    spec: Mapping[str, Any],
    nodes: Sequence[NodeView],
    pods: Sequence[ExistingPod] = (),
    *,
    labels: Mapping[str, str] | None = None,
    namespace: str = "default",
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
    pinned: bool = False,
) -> dict[str, tuple[str, str] | None]:
    """Each node's (code, reason), or None where it passes both filters."""
    info = SnapshotInfo("test", None, None, None, None, len(nodes), len(pods))
    snapshot = Snapshot(info=info, nodes=tuple(nodes), pods=tuple(pods), namespaces=namespaces)
    cluster = Cluster.of(snapshot)
    index = cluster.index
    profile = pod_profile(spec, namespace, labels, pinned=pinned)
    cycle = [
        p
        for p in prepare(profile, cluster)
        if p.plugin.name in (POD_TOPOLOGY_SPREAD, INTER_POD_AFFINITY)
    ]

    def seen(rejection: Rejection | None) -> tuple[str, str] | None:
        return None if rejection is None else (rejection.code.value, rejection.reasons[0])

    by_node = {}
    for node in index.nodes:
        rejection = None
        for prepared in cycle:
            rejection = rejection or prepared.check(node, DIALECT)
        by_node[node.name] = seen(rejection)
    grouped: dict[str, tuple[str, str] | None] = {n.name: None for n in index.nodes}
    remaining = index.everyone
    for prepared in cycle:
        if prepared.passes():
            continue
        for bits, rejection in prepared.parts(index, DIALECT, remaining):
            bits &= remaining
            if rejection is None or not bits:
                continue
            remaining &= ~bits
            for i, node in enumerate(index.nodes):
                if bits >> i & 1:
                    grouped[node.name] = seen(rejection)
    assert grouped == by_node, "the node-set path must give the per-node answers"
    return by_node
