"""Several ``--snapshot`` files of one cluster, as ``kubectl get`` writes them, read as one:
the nodes, pods and DaemonSets in one List, the cluster-autoscaler-status ConfigMap asked for
by name in another. None replaces another; two that disagree are refused."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.apiserver import (
    CONFIG_MAPS,
    DAEMON_SETS,
    NODES,
    PODS,
    ApiServer,
    ApiState,
    write_kubeconfig,
)
from tests.conftest import ROOT
from tests.test_cli import json_report, run

RECORDED = "fixtures/snapshots/aks-autoscaled.json"
MANIFESTS = "fixtures/autoscaling"


def _recording() -> dict[str, Any]:
    recording: dict[str, Any] = json.loads(Path(RECORDED).read_text(encoding="utf-8"))
    return recording


def _kubectl_files(tmp_path: Path) -> tuple[str, str]:
    """``kubectl get nodes,pods,daemonsets -A -o json`` and ``kubectl -n kube-system get
    configmap cluster-autoscaler-status -o json`` of the recorded cluster."""
    recording = _recording()
    items = recording["nodes"] + recording["pods"] + recording["daemonSets"]
    listing = tmp_path / "cluster.json"
    listing.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    (status,) = recording["configMaps"]
    configmap = tmp_path / "ca-status.json"
    configmap.write_text(json.dumps(status))
    return str(listing), str(configmap)


def _verdicts(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(w["name"], w["verdict"]) for w in report["workloads"]]


def test_a_list_and_the_status_configmap_judge_as_the_recording(tmp_path: Path) -> None:
    listing, configmap = _kubectl_files(tmp_path)
    _, recorded = json_report(MANIFESTS, "--snapshot", RECORDED)
    _, joined = json_report(MANIFESTS, "--snapshot", listing, "--snapshot", configmap)
    assert "SCALES" in {verdict for _, verdict in _verdicts(recorded)}
    assert _verdicts(joined) == _verdicts(recorded)
    assert joined["snapshot"]["source"] == f"{listing} + {configmap}"


def test_the_list_alone_judges_todays_nodes(tmp_path: Path) -> None:
    listing, _ = _kubectl_files(tmp_path)
    _, alone = json_report(MANIFESTS, "--snapshot", listing)
    assert "SCALES" not in {verdict for _, verdict in _verdicts(alone)}


def test_an_object_in_both_files_is_read_once(tmp_path: Path) -> None:
    listing, _ = _kubectl_files(tmp_path)
    _, twice = json_report(MANIFESTS, "--snapshot", listing, "--snapshot", listing)
    _, once = json_report(MANIFESTS, "--snapshot", listing)
    assert twice["snapshot"]["nodes"] == once["snapshot"]["nodes"] == 6
    assert twice["snapshot"]["pods"] == once["snapshot"]["pods"]


def _changed_node(path: str, tmp_path: Path) -> str:
    listing = json.loads(Path(path).read_text())
    other = copy.deepcopy(listing)
    other["items"][0]["status"]["allocatable"]["cpu"] = "64"
    changed = tmp_path / "other.json"
    changed.write_text(json.dumps(other))
    return str(changed)


def test_two_files_that_disagree_are_refused(tmp_path: Path) -> None:
    listing, _ = _kubectl_files(tmp_path)
    other = _changed_node(listing, tmp_path)
    code, out, err = run("check", MANIFESTS, "--snapshot", listing, "--snapshot", other)
    assert (code, out) == (2, "")
    assert err == (
        f'fitgate: Node "aks-system-0" differs between {listing} and {other}: join snapshots '
        "of one cluster taken together\n"
    )


@pytest.mark.parametrize(
    ("second", "needle"),
    [
        (RECORDED, "holds the whole cluster: give it as the only --snapshot"),
        ("fixtures/manifests/01-web-small.yaml", "not JSON: snapshots are JSON"),
    ],
    ids=["a-recording", "a-manifest"],
)
def test_what_cannot_be_joined_is_one_line(tmp_path: Path, second: str, needle: str) -> None:
    listing, _ = _kubectl_files(tmp_path)
    code, _, err = run("check", MANIFESTS, "--snapshot", listing, "--snapshot", second)
    assert code == 2 and needle in err and err.count("\n") == 1


JSON_FORMS = (
    "snapshots are JSON (`kubectl get nodes,pods -A -o json`, or `fitgate snapshot -o FILE`)"
)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("apiVersion: v1\nkind: List\nitems: []\n", f"not JSON: {JSON_FORMS}"),
        ("", f"the snapshot file is empty: {JSON_FORMS}"),
        ('{"kind": ', "not a JSON snapshot: Expecting value: line 1 column 10 (char 9)"),
    ],
    ids=["yaml", "empty", "broken-json"],
)
def test_a_snapshot_that_is_not_json_names_what_a_snapshot_is(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "snapshot.yaml"
    path.write_text(text)
    code, out, err = run("check", "fixtures/manifests", "--snapshot", str(path))
    assert (code, out, err) == (2, "", f"fitgate: {path}: {said}\n")


@pytest.mark.parametrize(
    ("kind", "shown"),
    [("ConfigMap", "ConfigMap"), ("Config\nMap\x1b[31m", "Config Map\ufffd[31m")],
    ids=["the-status-configmap", "a-kind-over-two-lines"],
)
def test_one_object_alone_is_told_to_join_a_list(tmp_path: Path, kind: str, shown: str) -> None:
    (status,) = _recording()["configMaps"]
    path = tmp_path / "ca-status.json"
    path.write_text(json.dumps({**status, "kind": kind}))
    code, _, err = run("check", MANIFESTS, "--snapshot", str(path))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"fitgate: {path}: one {shown} is no snapshot: give the cluster's nodes")
    assert err.endswith("as the first --snapshot and this file as another\n")


def _documented_commands() -> list[str]:
    """The commands docs/reference.md gives for joining kubectl's files ("Snapshot formats")."""
    reference = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    blocks: list[str] = re.findall(r"```sh\n(.*?)```", reference, flags=re.DOTALL)
    [block] = [b for b in blocks if "configmap cluster-autoscaler-status" in b]
    return block.strip().splitlines()


def test_the_documented_kubectl_commands_judge_as_the_recording(tmp_path: Path) -> None:
    """kubectl itself, against a cluster that serves the recording's objects, writes the two
    files the reference names; fitgate reads them as it says, with the recording's verdicts."""
    kubectl = shutil.which("kubectl", path=str(Path(sys.executable).parent)) or "kubectl"
    recording = _recording()
    state = ApiState()
    for path, key in ((NODES, "nodes"), (PODS, "pods"), (DAEMON_SETS, "daemonSets")):
        state.serve(path, recording[key])
    state.serve(CONFIG_MAPS, recording["configMaps"])
    *record, check = _documented_commands()
    assert [c.split()[0] for c in record] == ["kubectl", "kubectl"]
    with ApiServer(state) as server:
        config = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        env = {"PATH": f"{Path(kubectl).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        env |= {"KUBECONFIG": str(config), "HOME": str(tmp_path)}
        for command in record:
            done = subprocess.run(
                ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr
    words = check.split()
    assert words[:3] == ["fitgate", "check", "deploy/"]
    snapshot_args = [w if w.startswith("--") else str(tmp_path / w) for w in words[3:]]
    _, recorded = json_report(MANIFESTS, "--snapshot", RECORDED)
    _, joined = json_report(MANIFESTS, *snapshot_args)
    assert "SCALES" in {verdict for _, verdict in _verdicts(recorded)}
    assert _verdicts(joined) == _verdicts(recorded)
