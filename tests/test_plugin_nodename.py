"""NodeName (gate.scheduler.plugins.nodename): a pod that names a node fits only there.

The three cases of upstream's ``TestNodeName``
(pkg/scheduler/framework/plugins/nodename/node_name_test.go, kube-scheduler v1.34), with
their expected statuses; then what the plugin record tells the engine.
"""

from __future__ import annotations

import pytest

from gate.k8s.version import Dialect
from gate.model import Cause, Code, Family, Term
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins.nodename import PLUGIN, REASON_NODE_NAME, node_name
from tests.builders import cluster, node

DIALECT = Dialect()
MISMATCH = Rejection(
    "NodeName",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ("node(s) didn't match the requested node name",),
)

CASES: list[tuple[str, str, str, Rejection | None]] = [
    ("no host specified", "", "node", None),
    ("host matches", "foo", "foo", None),
    ("host doesn't match", "bar", "foo", MISMATCH),
    ("a name that differs only in case does not match", "Foo", "foo", MISMATCH),
]


@pytest.mark.parametrize(
    ("named", "node_called", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_node_name(named: str, node_called: str, expected: Rejection | None) -> None:
    pod = pod_profile({"containers": [], "nodeName": named})
    view = node(node_called)
    assert node_name(pod, view, DIALECT) == expected
    assert PLUGIN.check(PLUGIN.prepare(pod, cluster(view)), view, DIALECT) == expected


def test_the_reason_is_upstreams_err_reason() -> None:
    assert REASON_NODE_NAME == "node(s) didn't match the requested node name"
    assert PLUGIN.reasons == (REASON_NODE_NAME,)


PASSES: list[tuple[str, str, bool]] = [
    ("a pod naming no node skips the filter", "", True),
    ("a pod naming a node is asked node by node", "foo", False),
]


@pytest.mark.parametrize(("named", "skipped"), [c[1:] for c in PASSES], ids=[c[0] for c in PASSES])
def test_prefilter_skips_only_a_pod_naming_no_node(named: str, skipped: bool) -> None:
    pod = pod_profile({"containers": [], "nodeName": named})
    assert PLUGIN.passes(PLUGIN.prepare(pod, cluster())) is skipped


def test_pods_naming_different_nodes_get_different_answers() -> None:
    first, second = (pod_profile({"containers": [], "nodeName": n}) for n in ("a", "b"))
    assert PLUGIN.key(first, cluster()) != PLUGIN.key(second, cluster())
    assert PLUGIN.key(first, cluster()) == PLUGIN.key(pod_profile({"nodeName": "a"}), cluster())


def test_a_rejection_points_at_the_pods_node_name() -> None:
    cause = Cause(
        family=Family.SELECTOR,
        plugin="NodeName",
        term=Term.NODE_NAME,
        reason=REASON_NODE_NAME,
        nodes=1,
        index=None,
        port=None,
        resource="",
        requested="",
        free=None,
        free_on_addon=False,
    )
    assert PLUGIN.fields({"nodeName": "bar"}, cause) == [("nodeName",)]
