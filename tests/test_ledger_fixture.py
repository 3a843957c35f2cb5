"""A new DaemonSet on the run's shared ledger, on an ordinary AKS cluster
(fixtures/snapshots/aks-new-user.json: two system nodes tainted CriticalAddonsOnly, two user
nodes, a spot node and a GPU node in three zones; aks-user-1 has 560m cpu free). node-exporter
(150m on every user and system node) and a two-replica StatefulSet (500m, one per node)
cannot both have their pods: the run fails whatever the order of the documents, and however
it is sharded (fixtures/ledger/). Two Deployments that each need five of the user group's
seven remaining nodes share that headroom as they share free room, sharded or not
(fixtures/headroom/ against fixtures/snapshots/aks-autoscaled.json)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT

SNAPSHOT = str(ROOT / "fixtures/snapshots/aks-new-user.json")
AUTOSCALED = str(ROOT / "fixtures/snapshots/aks-autoscaled.json")
HEADROOM = str(ROOT / "fixtures/headroom")
LEDGER = ROOT / "fixtures/ledger"
EXPORTER, DB, CRUNCH = (
    str(LEDGER / name) for name in ("01-node-exporter.yaml", "02-db.yaml", "03-crunch.yaml")
)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), Streams(io.BytesIO(), out, io.StringIO(), env={}))
    return code, out.getvalue()


def verdicts(*manifests: str) -> tuple[int, dict[str, dict[str, Any]]]:
    code, out = run("check", *manifests, "--snapshot", SNAPSHOT, "--json", "-")
    return code, {w["name"]: w for w in json.loads(out)["workloads"]}


ORDERS = {
    "the DaemonSet listed first": (EXPORTER, DB),
    "the StatefulSet listed first": (DB, EXPORTER),
}


@pytest.mark.parametrize("manifests", ORDERS.values(), ids=ORDERS.keys())
def test_a_new_daemonset_and_a_statefulset_that_cannot_both_fit_fail_the_run(
    manifests: tuple[str, str],
) -> None:
    """The DaemonSet's pods land first on every node it targets: the StatefulSet lacks the
    room, and says beside what."""
    code, found = verdicts(*manifests)
    assert code == 1
    exporter, db = found["node-exporter"], found["db"]
    assert (exporter["verdict"], exporter["replicas"]["together"]) == ("YES", 4)
    assert db["verdict"] == "PARTIAL"
    replicas = db["replicas"]
    assert (replicas["alone"], replicas["together"]) == (2, 1)
    assert replicas["beside"] == ["monitoring/node-exporter"]


def test_the_statefulset_names_the_daemonset_and_why_each_user_node_refuses_its_2nd() -> None:
    """aks-user-0 holds the 1st replica (its anti-affinity), aks-user-1 has 410m left beside
    the node-exporter pod: the 2nd replica's message counts each once."""
    _, text = run("check", DB, EXPORTER, "--snapshot", SNAPSHOT)
    assert "fits alone; beside monitoring/node-exporter, 1 of 2 replicas fit" in text
    assert (
        "the 2nd: 0/6 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod "
        "anti-affinity rules, " in text
    )


def test_a_workload_that_fits_alone_is_partial_beside_the_daemonset_and_the_statefulset() -> None:
    code, found = verdicts(str(LEDGER))
    assert code == 1
    crunch = found["crunch"]
    assert crunch["verdict"] == "PARTIAL"
    assert crunch["replicas"]["beside"] == ["monitoring/node-exporter", "shop/db"]


RUNS = {
    "a new DaemonSet, a StatefulSet and a Job that fits alone": (str(LEDGER), SNAPSHOT),
    "two Deployments that each need five of the group's seven new nodes": (
        HEADROOM,
        AUTOSCALED,
    ),
}


@pytest.mark.parametrize("count", [2, 3])
@pytest.mark.parametrize(("manifests", "snapshot"), RUNS.values(), ids=RUNS.keys())
def test_the_run_sharded_and_merged_gives_the_whole_runs_answers(
    tmp_path: Path, manifests: str, snapshot: str, count: int
) -> None:
    whole = run("check", manifests, "--snapshot", snapshot, "--json", str(tmp_path / "w.json"))
    shards = []
    for index in range(1, count + 1):
        path = tmp_path / f"shard-{index}.json"
        argv = ("--shard", f"{index}/{count}", "--json", str(path))
        run("check", manifests, "--snapshot", snapshot, *argv)
        shards.append(str(path))
    merged = run("merge", *shards, "--json", str(tmp_path / "m.json"))
    assert merged == whole
    assert whole[0] == 1
    assert (tmp_path / "m.json").read_bytes() == (tmp_path / "w.json").read_bytes()


def test_the_second_deployment_finds_the_groups_headroom_spent() -> None:
    code, out = run("check", HEADROOM, "--snapshot", AUTOSCALED, "--json", "-")
    found = {w["name"]: w["verdict"] for w in json.loads(out)["workloads"]}
    assert (code, found) == (1, {"api": "SCALES", "worker": "PARTIAL"})
