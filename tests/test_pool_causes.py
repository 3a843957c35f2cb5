"""The cause line on a cluster with dedicated tainted pools (fixtures/snapshots/aks-pools.json:
two system nodes tainted CriticalAddonsOnly, two user nodes, a spot node and a GPU node in
three zones): counted per exact reason, as the scheduler's message counts it, among the
nodes the pod could plausibly use, and for the copy that failed."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT

SNAPSHOT = str(ROOT / "fixtures/snapshots/aks-pools.json")

CASES = [
    (
        "a zone spread whose 2nd copy the spread and cpu refuse points at the spread, not at "
        "the spot and GPU taints counted together",
        "02-web-zone-spread.yaml",
        ("PodTopologySpread", "topologySpreadConstraints", 1),
        "line 16: topologySpreadConstraints — 1 node(s) didn't match pod topology spread "
        "constraints",
    ),
    (
        "a CronJob whose only GPU node is busy points at its request, not at its nodeSelector",
        "03-train-busy-gpu.yaml",
        ("NodeResourcesFit", "request", 1),
        "line 25: containers[0].resources.requests.cpu: 2 — the largest free cpu on a user node "
        "is 1500m",
    ),
]


def _check(name: str, *more: str) -> tuple[str, dict[str, Any]]:
    manifest = str(ROOT / "fixtures/pools" / name)
    argv = ["check", manifest, "--snapshot", SNAPSHOT, "--autoscaling", "off", *more]
    out = io.StringIO()
    main([*argv, "--json", "-"], Streams(io.BytesIO(), out, io.StringIO(), env={}))
    [workload] = json.loads(out.getvalue())["workloads"]
    text = io.StringIO()
    main(argv, Streams(io.BytesIO(), text, io.StringIO(), env={}))
    return text.getvalue(), workload


@pytest.mark.parametrize(
    ("manifest", "cause", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_cause_on_a_cluster_with_spot_and_gpu_pools(
    manifest: str, cause: tuple[str, str, int], line: str
) -> None:
    text, workload = _check(manifest)
    found = workload["cause"]
    assert (found["plugin"], found["term"], found["nodes"]) == cause
    assert f"\n              {line}\n" in text


BREAKDOWNS = [
    (
        "a zone spread's 2nd replica: the spread refuses the user node the first one took",
        "02-web-zone-spread.yaml",
        1,
        {
            "aks-user-0": ["node(s) didn't match pod topology spread constraints"],
            "aks-user-1": ["Insufficient cpu"],
        },
    ),
]


@pytest.mark.parametrize(
    ("manifest", "first_fits", "outcomes"),
    [c[1:] for c in BREAKDOWNS],
    ids=[c[0] for c in BREAKDOWNS],
)
def test_the_per_node_breakdown_is_the_failing_copy_s(
    manifest: str, first_fits: int, outcomes: dict[str, list[str]]
) -> None:
    _, workload = _check(manifest)
    assert workload["verdict"] == "PARTIAL"
    assert workload["replicas"]["firstFits"] == first_fits
    by_node = {node: group["reasons"] for group in workload["outcomes"] for node in group["nodes"]}
    assert {node: by_node[node] for node in outcomes} == outcomes
    comment = io.StringIO()
    argv = ["check", str(ROOT / "fixtures/pools" / manifest), "--snapshot", SNAPSHOT]
    main(
        [*argv, "--autoscaling", "off", "--comment", "-"],
        Streams(io.BytesIO(), comment, io.StringIO(), env={}),
    )
    for node, reasons in outcomes.items():
        assert f"{reasons[0].replace(chr(39), '&#39;')}: {node}" in comment.getvalue()
