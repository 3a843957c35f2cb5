"""The Karpenter benchmark case (benchmarks/karpenter.py) on the tiny size: its recording
carries NodePools, a NodeClaim per node of the pools Karpenter manages, an EC2NodeClass and
DaemonSets, its catalog is in KWOK's JSON, fitgate reads and judges both, and the module
prints its table (speed is measured only by ``python -m benchmarks.karpenter``, never
asserted here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.generate import SNAPSHOT_FILE, ensure_case
from benchmarks.karpenter import CATALOG_FILE, MANAGED, derive, main
from benchmarks.sizes import SIZES
from gate.inputs.catalog import read_catalog
from gate.model.karpenter import NODEPOOL_LABEL
from gate.snapshot.load import load_snapshot


def test_the_derived_recording_holds_the_pools_claims_and_catalog(tmp_path: Path) -> None:
    size = SIZES["tiny"]
    case = ensure_case(size, tmp_path)
    before = (case / SNAPSHOT_FILE).read_bytes()
    derived = derive(size, case)
    assert (case / SNAPSHOT_FILE).read_bytes() == before  # the case itself is left alone
    snapshot = load_snapshot(str(derived / SNAPSHOT_FILE))
    original = load_snapshot(str(case / SNAPSHOT_FILE))
    assert [n.name for n in snapshot.nodes] == [n.name for n in original.nodes]
    assert snapshot.autoscaling is not None and snapshot.autoscaling.karpenter is not None
    karpenter = snapshot.autoscaling.karpenter
    assert len(karpenter.pools) == 11
    assert [p.name for p in karpenter.pools if not p.ready] == ["legacy"]
    managed = [n for n in snapshot.nodes if n.labels.get("agentpool") in MANAGED]
    assert managed and all(n.labels[NODEPOOL_LABEL] for n in managed)
    launched = {c.node_name for c in karpenter.claims if c.node_name}
    assert launched == {n.name for n in managed}
    for node, was in zip(snapshot.nodes, original.nodes, strict=True):
        assert node.allocatable["cpu"] <= was.allocatable["cpu"]  # fuller, never larger
    assert snapshot.autoscaling.daemon_sets
    catalog = read_catalog(str(derived / CATALOG_FILE))
    assert 650 <= len(catalog.types) <= 800
    zones = {len({o.zone for o in t.offerings}) for t in catalog.types}
    assert zones == {3, 4, 5, 6}


def test_the_module_prints_its_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--size", "tiny", "--cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| floor total |" in out
    assert "| fitgate check, ClusterSnapshot + NodePools + catalog |" in out
    assert "reaching Karpenter: " in out
    report = json.loads((tmp_path / "tiny-v4-karpenter" / "out" / "karpenter.json").read_text())
    assert any(w.get("autoscale") for w in report["workloads"])
