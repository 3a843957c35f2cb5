"""The autoscaled benchmark case (benchmarks/autoscaled.py) on the tiny size: its recording
carries a status of 50 node groups that fitgate reads and judges, and the module prints its
table (speed is measured only by ``python -m benchmarks.autoscaled``, never asserted here).
The status is the YAML form of cluster-autoscaler 1.30+ (clusterstate/api/types.go)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.autoscaled import CONFIG_FILE, GROUPS, derive, main
from benchmarks.generate import SNAPSHOT_FILE, ensure_case
from benchmarks.sizes import SIZES
from gate.snapshot.load import load_snapshot


def test_the_derived_recording_holds_fifty_groups_matched_or_configured(tmp_path: Path) -> None:
    size = SIZES["tiny"]
    case = ensure_case(size, tmp_path)
    before = (case / SNAPSHOT_FILE).read_bytes()
    derived = derive(size, case)
    assert (case / SNAPSHOT_FILE).read_bytes() == before  # the case itself is left alone
    snapshot = load_snapshot(str(derived / SNAPSHOT_FILE))
    assert snapshot.nodes == load_snapshot(str(case / SNAPSHOT_FILE)).nodes
    assert snapshot.autoscaling is not None
    status = snapshot.autoscaling.status
    assert status is not None and len(status.groups) == GROUPS
    pools = {node.labels["kubernetes.azure.com/agentpool"] for node in snapshot.nodes}
    named = {g.name for g in status.groups if g.target}
    assert named == {f"aks-{pool}-12345678-vmss" for pool in pools}
    assert sum(g.target for g in status.groups) == size.nodes
    configured = (derived / CONFIG_FILE).read_text()
    assert configured.count("- id: aks-pool") == GROUPS - len(named)


def test_the_module_prints_its_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--size", "tiny", "--cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| floor total |" in out
    assert "| fitgate check, ClusterSnapshot + autoscaler status |" in out
    report = (tmp_path / "tiny-v4-autoscaled" / "out" / "autoscaled.json").read_text()
    assert "didn't trigger scale-up" in report
    assert "verdicts: " in out
