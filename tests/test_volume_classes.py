"""The volume plugins' per-class answers (``reads``, ``passes``) are their per-node
answers: every filter run over classes of nodes gives what it gives node by node."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.model import NodeView
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import filter_groups, run_filters
from gate.scheduler.plugins import prepare
from tests.builders import node
from tests.volume_support import (
    DIALECT,
    claim,
    cluster_of,
    storage,
    storage_class,
    volume,
    with_claims,
)

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
TERM = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a"]}]}
OBJECTS = storage(
    storage_class("late", volumeBindingMode="WaitForFirstConsumer", provisioner="p"),
    volume("pv-zone", {ZONE: "a__b"}),
    volume("pv-beta", {BETA_ZONE: "a"}),
    volume("pv-affinity", nodeAffinity={"required": {"nodeSelectorTerms": [TERM]}}),
    claim("zonal", volumeName="pv-zone", bound=True),
    claim("beta", volumeName="pv-beta", bound=True),
    claim("pinned", volumeName="pv-affinity", bound=True),
    claim("waiting", storageClassName="late"),
    claim("immediate"),
)
LABELS = st.fixed_dictionaries(
    {},
    optional={
        ZONE: st.sampled_from(["a", "b", "c"]),
        REGION: st.sampled_from(["r1", "r2"]),
        BETA_ZONE: st.sampled_from(["a", "b"]),
    },
)
CLAIMS = st.lists(
    st.sampled_from(["zonal", "beta", "pinned", "waiting", "immediate", "missing"]),
    max_size=2,
)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(LABELS, min_size=1, max_size=6), claims=CLAIMS)
def test_classes_answer_as_nodes_do(labels: list[dict[str, str]], claims: list[str]) -> None:
    nodes: tuple[NodeView, ...] = tuple(
        node(f"n{i}", labels=node_labels) for i, node_labels in enumerate(labels)
    )
    where = cluster_of(OBJECTS, *nodes)
    cycle = prepare(pod_profile(with_claims(*claims)), where)
    per_node = [run_filters(cycle, n, DIALECT) for n in nodes]
    groups = filter_groups(where.index, cycle, DIALECT)
    per_class = [
        next((r for r, bits in groups.items() if bits >> i & 1), None) for i in range(len(nodes))
    ]
    assert per_class == per_node
