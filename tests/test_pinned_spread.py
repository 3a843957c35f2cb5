"""A DaemonSet's PodTopologySpread state, worked out once per DaemonSet, is each node's
own PreFilter state: the pod pinned to node X counts the domains of X alone under
``nodeAffinityPolicy: Honor``, and every eligible node under ``Ignore``; asked by groups of
nodes alike, the Filter gives each node its own answer."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.version import Dialect
from gate.model import ExistingPod, NodeView, Snapshot, SnapshotInfo
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.placement.copies import set_bits
from gate.scheduler.plugins.podtopologyspread import (
    PinnedSpread,
    _selector_bits,
    _tolerated,
    prepare_spread,
    split_spread,
)
from gate.scheduler.plugins.podtopologyspread.filtering import spread_state
from tests.builders import existing_pod, exists, node, spread, taint

ZONES = ("z1", "z2", "z3")


@st.composite
def nodes(draw: st.DrawFn) -> list[NodeView]:
    """Nodes in a few zones, some without a zone or host label, some tainted, some
    outside the pool the pod's nodeSelector asks for."""
    found = []
    for i in range(draw(st.integers(1, 7))):
        labels = {"pool": draw(st.sampled_from(("a", "b")))}
        if draw(st.integers(0, 5)):
            labels["zone"] = draw(st.sampled_from(ZONES))
        if draw(st.integers(0, 5)):
            labels["host"] = f"n{i}"
        taints = (taint("dedicated", "x"),) if draw(st.booleans()) else ()
        found.append(node(f"n{i}", labels=labels, taints=taints))
    return found


@st.composite
def pods(draw: st.DrawFn, names: list[str]) -> list[ExistingPod]:
    return [
        existing_pod(
            draw(st.sampled_from(names)),
            {"foo": ""} if draw(st.integers(0, 3)) else {"bar": ""},
            name=f"p{i}",
            terminating=draw(st.integers(0, 7)) == 0,
        )
        for i in range(draw(st.integers(0, 12)))
    ]


@st.composite
def constraints(draw: st.DrawFn) -> list[dict[str, Any]]:
    return [
        spread(
            draw(st.integers(1, 2)),
            draw(st.sampled_from(("zone", "host"))),
            exists("foo"),
            nodeAffinityPolicy=draw(st.sampled_from(("Honor", "Ignore"))),
            nodeTaintsPolicy=draw(st.sampled_from(("Honor", "Ignore"))),
            minDomains=draw(st.integers(1, 2)),
        )
        for _ in range(draw(st.integers(1, 2)))
    ]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), listed=nodes(), wanted=constraints(), selector=st.booleans())
def test_each_nodes_state_is_the_prefilter_state_of_the_pod_pinned_to_it(
    data: st.DataObject, listed: list[NodeView], wanted: list[dict[str, Any]], selector: bool
) -> None:
    running = data.draw(pods([n.name for n in listed]))
    info = SnapshotInfo("test", None, None, None, None, len(listed), len(running))
    cluster = Cluster.of(Snapshot(info=info, nodes=tuple(listed), pods=tuple(running)))
    spec = {
        "containers": [{"name": "c"}],
        "topologySpreadConstraints": wanted,
        "tolerations": [{"key": "dedicated", "operator": "Exists"}] if selector else [],
        **({"nodeSelector": {"pool": "a"}} if selector else {}),
    }
    pod = pod_profile(spec, "default", {"foo": ""}, pinned=True)
    state = prepare_spread(pod, cluster)
    assert isinstance(state, PinnedSpread)
    index, others = cluster.index, cluster.others
    selected = _selector_bits(pod, index)
    taints = _tolerated(pod, index)
    for position in range(len(listed)):
        alone = spread_state(
            pod.spread,
            pod.namespace,
            pod.labels,
            others.nodes,
            others.pods,
            selected & 1 << position,
            taints,
        )
        assert state.state_for(position) == alone
    answers = {
        position: rejection
        for bits, rejection in split_spread(index, state, Dialect(), index.everyone)
        for position in set_bits(bits)
    }
    assert answers == {
        position: state.state_for(position).filter(view.labels)
        for position, view in enumerate(listed)
    }, "the nodes by their answer must give each node's own answer"
