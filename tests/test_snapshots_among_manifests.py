"""Snapshots stay out of the manifests: one kept beside them is skipped with a note, the run's
own ``--snapshot`` file is never read as one, and ``exclude`` globs leave files out."""

from __future__ import annotations

import io
import json
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.inputs.exclude import Exclusion, glob_matches
from gate.inputs.manifests import read_documents
from tests.conftest import ROOT

AKS = ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json"
WEB = ROOT / "fixtures" / "manifests" / "01-web-small.yaml"


def pod(name: str, read_back: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "default"}
    if read_back:
        metadata["resourceVersion"] = "4711"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
            "spec": {"containers": [{"name": "c", "image": "c"}]}}  # fmt: skip


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "resourceVersion": "1"}}


def listed(kind: str, *items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "items": list(items)}


SNAPSHOTS = {
    "kubectl get nodes,pods -o json": (
        listed("List", NODE, pod("p", read_back=True)),
        "a List of cluster objects: a cluster snapshot, not manifests; not checked",
    ),
    "a List of Nodes only": (
        listed("List", {"kind": "Node", "metadata": {"name": "n"}}),
        "a List of cluster objects: a cluster snapshot, not manifests; not checked",
    ),
    "kubectl get pods -A -o json": (
        listed("List", pod("a", read_back=True), pod("b", read_back=True)),
        "a List of cluster objects: a cluster snapshot, not manifests; not checked",
    ),
    "a PodList": (
        listed("PodList", pod("a")),
        "a PodList of cluster objects: a cluster snapshot, not manifests; not checked",
    ),
    "a NodeList": (
        listed("NodeList", NODE),
        "a NodeList of cluster objects: a cluster snapshot, not manifests; not checked",
    ),
    "fitgate's own ClusterSnapshot": (
        {"apiVersion": "fitgate/v1", "kind": "ClusterSnapshot", "nodes": [], "pods": []},
        "a fitgate ClusterSnapshot: a cluster snapshot, not manifests; not checked",
    ),
}


@pytest.mark.parametrize(
    "body,note", SNAPSHOTS.values(), ids=[f"{k} is skipped with a note" for k in SNAPSHOTS]
)
def test_a_snapshot_met_while_walking_is_skipped_with_a_note(
    tmp_path: Path, body: dict[str, Any], note: str
) -> None:
    (tmp_path / "cluster.json").write_text(json.dumps(body, indent=2))
    (document,) = read_documents([str(tmp_path)], io.BytesIO())
    assert (document.body, document.skipped, document.location.line) == (None, note, 1)


def test_a_list_of_pod_manifests_is_still_checked_item_by_item(tmp_path: Path) -> None:
    (tmp_path / "pods.json").write_text(json.dumps(listed("List", pod("a"), pod("b"))))
    documents = list(read_documents([str(tmp_path)], io.BytesIO()))
    assert [d.body["metadata"]["name"] for d in documents if d.body] == ["a", "b"]


def check(*argv: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    streams = Streams(
        io.BytesIO(),
        out,
        io.StringIO(),
        env={},
        now=datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc),
    )
    code = main(["check", *argv, "--json", "-"], streams)
    return code, json.loads(out.getvalue())


def test_the_run_s_own_snapshot_is_never_read_as_a_manifest(tmp_path: Path) -> None:
    shutil.copy(WEB, tmp_path / "web.yaml")
    shutil.copy(AKS, tmp_path / "snapshot.json")
    code, report = check(str(tmp_path), "--snapshot", str(tmp_path / "snapshot.json"))
    assert [(w["kind"], w["name"]) for w in report["workloads"]] == [("Deployment", "web-small")]
    assert code == 0


def test_another_snapshot_beside_the_manifests_is_a_visible_skip(tmp_path: Path) -> None:
    shutil.copy(WEB, tmp_path / "web.yaml")
    shutil.copy(AKS, tmp_path / "old-snapshot.json")
    code, report = check(str(tmp_path), "--snapshot", str(AKS))
    assert [(w["kind"], w["verdict"], w["reason"]) for w in report["workloads"]] == [
        (
            "Document",
            "SKIPPED",
            "a fitgate ClusterSnapshot: a cluster snapshot, not manifests; not checked",
        ),
        ("Deployment", "YES", None),
    ]
    assert code == 0


GLOBS = {
    "a file by its path": ("deploy/web.yaml", "deploy/web.yaml", True),
    "a folder and all under it": ("charts", "charts/db/templates/sts.yaml", True),
    "a folder written with a slash": ("charts/", "charts/db/templates/sts.yaml", True),
    "a star across folders": ("charts/*/tests/*", "charts/db/tests/t.yaml", True),
    "a leading double star at the top": ("**/tests/*", "tests/t.yaml", True),
    "a leading double star further down": ("**/tests/*", "a/b/tests/t.yaml", True),
    "a suffix": ("*.json", "snapshots/prod.json", True),
    "a leading ./ on either side": ("./deploy/*", "./deploy/web.yaml", True),
    "not a prefix of a name": ("test", "tests/t.yaml", False),
    "not another folder": ("charts/*/tests/*", "apps/db/tests/t.yaml", False),
}


@pytest.mark.parametrize(
    "pattern,path,excluded",
    GLOBS.values(),
    ids=[f"{k} {'is' if v[2] else 'is not'} excluded" for k, v in GLOBS.items()],
)
def test_exclude_globs(pattern: str, path: str, excluded: bool) -> None:
    assert glob_matches(pattern, path) is excluded


def test_an_exclusion_leaves_walked_files_out(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    shutil.copy(WEB, tmp_path / "web.yaml")
    shutil.copy(WEB, tmp_path / "tests" / "web.yaml")
    leave_out = Exclusion.of(["**/tests/*"])
    documents = list(read_documents([f"{tmp_path}/"], io.BytesIO(), leave_out=leave_out))
    assert [d.location.file for d in documents] == [f"{tmp_path}/web.yaml"]
