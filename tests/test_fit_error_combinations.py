"""Which reason a node shows when several of a pod's constraints fail on it, and how the
FitError counts them beside a PreFilter's narrowing and DefaultPreemption's own FitError.

Upstream (v1.34.1): framework/types.go ``FitError.Error`` (every node's reasons counted,
the nodes a PreFilterResult leaves out under the absent nodes' status), schedule_one.go
``findNodesThatFitPod`` (names the PreFilterResult holds that are no node of the snapshot
are passed over), nodeaffinity/node_affinity.go ``PreFilter`` (a term that pins no name
narrows nothing), podtopologyspread/filtering.go and interpodaffinity/filtering.go
``Filter`` (the first failing check decides the node's reason), and
preemption/preemption.go ``Preempt`` with default_preemption.go ``SelectVictimsOnNode``.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.version import Dialect
from gate.model import ExistingPod, Location, NodeView, Snapshot, SnapshotInfo, Workload
from gate.scheduler.engine.evaluate import Evaluator
from tests.builders import container, existing_pod, node, pod_term, spread
from tests.engine_support import NO_VICTIMS, NOT_HELPFUL, preempting

HOST = "kubernetes.io/hostname"
NARROWED = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
SELECTOR = "node(s) didn't match Pod's node affinity/selector"
SKEW = "node(s) didn't match pod topology spread constraints"
MISSING = SKEW + " (missing required label)"
AFFINITY = "node(s) didn't match pod affinity rules"
CPU = "Insufficient cpu"


def _snapshot(nodes: list[NodeView], pods: list[ExistingPod]) -> Snapshot:
    info = SnapshotInfo("s.json", None, None, None, "v1.34.1", len(nodes), len(pods))
    return Snapshot(info=info, nodes=tuple(nodes), pods=tuple(pods), namespaces={"default": {}})


def _message(nodes: list[NodeView], pods: list[ExistingPod], spec: dict[str, Any]) -> str | None:
    workload = Workload(
        kind="Deployment",
        namespace="default",
        name="w",
        location=Location("w.yaml", 1),
        replicas=1,
        pod_spec={"containers": [container(requests={"cpu": "1"})], **spec},
        labels={"app": "web"},
    )
    evaluator = Evaluator.for_snapshot(_snapshot(nodes, pods), Dialect(named_taint=True))
    return evaluator.evaluate(workload).message


def _fields_pin(*terms: list[str] | None) -> dict[str, Any]:
    """Required node affinity of one term per entry: a list pins those names, None asks
    for a label no node lacks."""
    written: list[dict[str, Any]] = []
    for names in terms:
        if names is None:
            written.append({"matchExpressions": [{"key": HOST, "operator": "Exists"}]})
        else:
            pin = {"key": "metadata.name", "operator": "In", "values": names}
            written.append({"matchFields": [pin]})
    required = {"nodeSelectorTerms": written}
    return {
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}
    }


def _hosts(*names: str, **labels: str) -> list[NodeView]:
    return [node(n, labels={HOST: n, **labels}) for n in names]


def _racks() -> list[NodeView]:
    """Nodes a and c carry a rack and a zone and have no room for the pod; node b shares a's
    rack, has no zone, and so is no domain the spread counts (every key is needed)."""
    return [
        node("a", cpu=500, labels={HOST: "a", "rack": "r1", "zone": "z1"}),
        node("b", labels={HOST: "b", "rack": "r1"}),
        node("c", cpu=500, labels={HOST: "c", "rack": "r2", "zone": "z1"}),
    ]


def _spread(key: str) -> dict[str, Any]:
    return spread(1, key, {"matchLabels": {"app": "web"}})


CASES = [
    pytest.param(
        _hosts("a", "b"),
        [],
        _fields_pin(["ghost"]),
        f"0/2 nodes are available: 2 {NARROWED}." + preempting(2, (2, NOT_HELPFUL)),
        id="a pin to a name no node has leaves every node out of the PreFilter's result",
    ),
    pytest.param(
        _hosts("a", "b"),
        [],
        {"nodeSelector": {"pool": "gpu"}, **_fields_pin(["a", "ghost"])},
        f"0/2 nodes are available: 1 {SELECTOR}, 1 {NARROWED}." + preempting(2, (2, NOT_HELPFUL)),
        id="the pinned node the selector refuses and the node left out are counted apart",
    ),
    pytest.param(
        _hosts("a", "b"),
        [],
        {"nodeSelector": {"pool": "gpu"}, **_fields_pin(["ghost"], None)},
        f"0/2 nodes are available: 2 {SELECTOR}." + preempting(2, (2, NOT_HELPFUL)),
        id="a term that pins no name narrows nothing, so every node meets the Filter",
    ),
    pytest.param(
        _racks(),
        [existing_pod("a", {"app": "web"}, name=f"w{i}") for i in range(2)],
        {"topologySpreadConstraints": [_spread("rack"), _spread("zone")]},
        f"0/3 nodes are available: 1 {SKEW}, 2 {CPU}."
        + preempting(3, (1, NO_VICTIMS), (2, NOT_HELPFUL)),
        id="the spread constraint listed first decides: its skew, not the next one's label",
    ),
    pytest.param(
        _racks(),
        [existing_pod("a", {"app": "web"}, name=f"w{i}") for i in range(2)],
        {"topologySpreadConstraints": [_spread("zone"), _spread("rack")]},
        f"0/3 nodes are available: 1 {MISSING}, 2 {CPU}." + preempting(3, (3, NOT_HELPFUL)),
        id="listed first, the constraint whose label the node lacks decides, and no eviction helps",
    ),
    pytest.param(
        _hosts("a", "b", zone="z1"),
        [existing_pod("a", {"app": "db"}, name="d1")],
        {
            "affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        pod_term("app", "In", ["cache"], "zone")
                    ]
                },
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        pod_term("app", "In", ["db"], "zone")
                    ]
                },
            }
        },
        f"0/2 nodes are available: 2 {AFFINITY}." + preempting(2, (2, NOT_HELPFUL)),
        id="pod affinity is checked before anti-affinity on a node failing both",
    ),
]


@pytest.mark.parametrize(("nodes", "pods", "spec", "expected"), CASES)
def test_the_reason_each_node_shows_and_how_they_are_counted(
    nodes: list[NodeView], pods: list[ExistingPod], spec: dict[str, Any], expected: str
) -> None:
    assert _message(nodes, pods, spec) == expected
