"""Selector and toleration semantics (gate.k8s.matching) seen through the verdict: how
label values are read, and which name pins conflict."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import api_node, cluster_snapshot
from tests.engine_support import NO_STATE, evaluate, pod_spec


def test_a_null_node_selector_value_is_the_empty_string() -> None:
    """map[string]string: Go decodes ``disk:`` (null) as "", which the label must equal."""
    nodes = [api_node("empty", labels={"disk": ""}), api_node("text", labels={"disk": "None"})]
    result = evaluate(cluster_snapshot(nodes), pod_spec("1", nodeSelector={"disk": None}))
    assert result.fits == ("empty",)


@pytest.mark.parametrize(
    "values", [{"values": []}, {"values": None}, {}], ids=["empty", "null", "absent"]
)
def test_a_name_pin_without_values_conflicts_in_prefilter(values: dict[str, Any]) -> None:
    """nodeaffinity PreFilter: sets.New(r.Values...) is empty for [], null and a missing key."""
    pin = {"key": "metadata.name", "operator": "In", **values}
    terms = [{"matchFields": [pin]}]
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": terms}}}  # fmt: skip
    result = evaluate(
        cluster_snapshot([api_node("a"), api_node("b")]), pod_spec("1", affinity=affinity)
    )
    assert result.message == "0/2 nodes are available: pod affinity terms conflict." + NO_STATE


def test_a_daemonsets_conflicting_name_pins_target_no_node_without_a_prefilter() -> None:
    """The DaemonSet controller matches the template's required terms node by node
    (nodeShouldRunDaemonPod) and pins each pod itself, so NodeAffinity's PreFilter never
    sees the template's conflict: every node fails the terms."""
    pins = [{"key": "metadata.name", "operator": "In", "values": [name]} for name in "ab"]
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": pins}]}}}  # fmt: skip
    snapshot = cluster_snapshot([api_node("a"), api_node("b")])
    result = evaluate(snapshot, pod_spec("1", affinity=affinity), kind="DaemonSet")
    assert {o.reasons for o in result.nodes} == {
        ("node(s) didn't match Pod's node affinity/selector",)
    }
