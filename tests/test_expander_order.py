"""Which node group grows does not depend on the order of recorded objects: on the AKS
cluster with user, spot and GPU pools (fixtures/snapshots/aks-pools.json), a Job both the
user and the spot group could take names both, with what each would add, however the
status ConfigMap lists the groups (cluster-autoscaler-1.34.5 expander/: ``random``, the
default, chooses at random)."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT

SNAPSHOT = ROOT / "fixtures/snapshots/aks-pools.json"
JOB = str(ROOT / "fixtures/pools/01-job-user-or-spot.yaml")
USER, SPOT = "aks-user-12345678-vmss", "aks-spot-12345678-vmss"


def _shuffled(tmp_path: Path, seed: int) -> Path:
    """The snapshot with its status's node groups, its nodes and its pods in another order."""
    document = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    shuffle = random.Random(seed).shuffle
    status = document["configMaps"][0]["data"]["status"]
    head, _, groups = status.partition("nodeGroups:\n")
    entries = ["- name:" + g for g in groups.split("- name:") if g]
    shuffle(entries)
    document["configMaps"][0]["data"]["status"] = head + "nodeGroups:\n" + "".join(entries)
    shuffle(document["nodes"])
    shuffle(document["pods"])
    path = tmp_path / f"aks-pools-{seed}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _check(snapshot: Path) -> tuple[str, dict[str, Any]]:
    out = io.StringIO()
    streams = Streams(io.BytesIO(), out, io.StringIO(), env={}, now=None)
    main(["check", JOB, "--snapshot", str(snapshot), "--json", "-"], streams)
    [workload] = json.loads(out.getvalue())["workloads"]
    text = io.StringIO()
    main(["check", JOB, "--snapshot", str(snapshot)], Streams(io.BytesIO(), text, io.StringIO()))
    return text.getvalue(), workload


def test_a_job_either_pool_takes_names_both_options() -> None:
    text, workload = _check(SNAPSHOT)
    assert workload["verdict"] == "SCALES"
    options = [(o["group"], o["from"], o["to"]) for o in workload["autoscale"]["options"]]
    assert options == [(SPOT, 1, 3), (USER, 2, 4)]
    assert (
        f"the expander picks at random among {{{SPOT} 1->3 (max: 3)}}, {{{USER} 2->4 (max: 4)}}"
        in text
    )


@pytest.mark.parametrize("seed", [1, 2, 3], ids=lambda s: f"recorded objects shuffled (seed {s})")
def test_the_answer_does_not_depend_on_the_order_of_recorded_objects(
    tmp_path: Path, seed: int
) -> None:
    assert _unordered(_check(_shuffled(tmp_path, seed))[1]) == _unordered(_check(SNAPSHOT)[1])


def _unordered(workload: dict[str, Any]) -> dict[str, Any]:
    """The workload, its outcome groups and their nodes (in node order, by design) as sets."""
    outcomes = sorted(
        json.dumps({**o, "nodes": sorted(o["nodes"])}, sort_keys=True) for o in workload["outcomes"]
    )
    return {**workload, "outcomes": outcomes}
