"""A kustomize overlay's patch that sets the failing field is where the reports point: each
overlay is built by ``kubectl kustomize`` (the test extras' kubectl) over the fixture's base,
and its output piped into ``fitgate check - --origin-root OVERLAY``."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gate.cli import Streams, main
from gate.inputs.composed import RepositoryFiles
from gate.inputs.overlay import patches
from tests.conftest import ROOT
from tests.test_cli import AKS, NOW

KUBECTL = shutil.which("kubectl", path=str(Path(sys.executable).parent)) or shutil.which("kubectl")
BASE = ROOT / "fixtures" / "kustomize" / "base"
WORKER = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\n"
SMP = WORKER + (
    "spec:\n"
    "  template:\n"
    "    spec:\n"
    "      containers:\n"
    "        - name: worker\n"
    "          resources:\n"
    '            requests: {cpu: "CPU"}\n'
)
"""A strategic merge patch of the worker's cpu: its line 11."""
JSON6902 = (
    "- op: replace\n"
    "  path: /spec/template/spec/containers/0/resources/requests/cpu\n"
    '  value: "CPU"\n'
)
"""A JSON 6902 patch of the worker's cpu: the value on its line 3."""
ASKING_CPU = (BASE / "worker.yaml").read_text(encoding="utf-8").replace("500m", "CPU")
"""The base's worker, asking the cpu no node has."""
TARGET = "    target: {group: apps, version: v1, kind: Deployment, name: worker}\n"


def _kustomization(*lines: str) -> str:
    return "resources: [../base]\nbuildMetadata: [originAnnotations]\n" + "".join(lines)


# (id, the overlay's files, where the ::error points)
OVERLAYS = [
    (
        "a strategic merge patch file under patches",
        {"kustomization.yaml": _kustomization("patches:\n  - path: cpu.yaml\n"), "cpu.yaml": SMP},
        "overlay/cpu.yaml:11",
    ),
    (
        "a file under patchesStrategicMerge",
        {
            "kustomization.yaml": _kustomization("patchesStrategicMerge:\n  - cpu.yaml\n"),
            "cpu.yaml": SMP,
        },
        "overlay/cpu.yaml:11",
    ),
    (
        "a JSON 6902 file under patchesJson6902",
        {
            "kustomization.yaml": _kustomization("patchesJson6902:\n  - path: cpu.yaml\n" + TARGET),
            "cpu.yaml": JSON6902,
        },
        "overlay/cpu.yaml:3",
    ),
    (
        "an inline strategic merge patch, on its line of the kustomization",
        {
            "kustomization.yaml": _kustomization(
                "patches:\n  - patch: |-\n"
                + "".join(f"      {line}\n" for line in SMP.splitlines())
            )
        },
        "overlay/kustomization.yaml:15",
    ),
    (
        "a JSON 6902 replacing the whole resources: the cpu inside its value",
        {
            "kustomization.yaml": _kustomization("patches:\n  - path: cpu.yaml\n" + TARGET),
            "cpu.yaml": "- op: replace\n  path: /spec/template/spec/containers/0/resources\n"
            "  value:\n    requests:\n      memory: 512Mi\n      cpu: CPU\n",
        },
        "overlay/cpu.yaml:6",
    ),
    (
        "the last of two patches that set it, in kustomize's order",
        {
            "kustomization.yaml": _kustomization(
                "patchesJson6902:\n  - path: json.yaml\n" + TARGET,
                "patchesStrategicMerge:\n  - smp.yaml\n",
            ),
            "smp.yaml": SMP.replace("CPU", "1"),
            "json.yaml": JSON6902,
        },
        "overlay/json.yaml:3",
    ),
    (
        "a renamed object, patched by its name in the base",
        {
            "kustomization.yaml": _kustomization(
                "namePrefix: prod-\nnamespace: shop\npatches:\n  - path: cpu.yaml\n"
            ),
            "cpu.yaml": SMP,
        },
        "overlay/cpu.yaml:11",
    ),
    (
        "a patch of another field: the base's line",
        {
            "kustomization.yaml": _kustomization("patches:\n  - path: mem.yaml\n"),
            "mem.yaml": SMP.replace('cpu: "CPU"', "memory: 500Mi"),
            "../base/worker.yaml": ASKING_CPU,
        },
        "base/worker.yaml:18",
    ),
    (
        "a patch of another object: the base's line",
        {
            "kustomization.yaml": _kustomization("patches:\n  - path: api.yaml\n"),
            "api.yaml": SMP.replace("worker", "api").replace("CPU", "100m"),
            "../base/worker.yaml": ASKING_CPU,
        },
        "base/worker.yaml:18",
    ),
    (
        "a target by a regular expression selects nothing here: the base's line",
        {
            "kustomization.yaml": _kustomization(
                "patches:\n  - path: cpu.yaml\n    target: {kind: Deployment, name: work.*}\n"
            ),
            "cpu.yaml": JSON6902,
            "../base/worker.yaml": ASKING_CPU,
        },
        "base/worker.yaml:18",
    ),
]


def _built(folder: Path, files: dict[str, str]) -> bytes:
    """``kubectl kustomize`` of the overlay ``files`` describe, beside a copy of the base."""
    shutil.copytree(BASE, folder / "base")
    (folder / "overlay").mkdir()
    for name, text in files.items():
        (folder / "overlay" / name).write_text(text.replace("CPU", "2"), encoding="utf-8")
    assert KUBECTL is not None
    built = subprocess.run(
        [KUBECTL, "kustomize", str(folder / "overlay")], capture_output=True, check=True
    )
    return built.stdout


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is in the test extras")
@pytest.mark.parametrize(
    ("files", "pointed"), [c[1:] for c in OVERLAYS], ids=[c[0] for c in OVERLAYS]
)
def test_the_annotation_points_at_the_overlays_patch_that_sets_the_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], pointed: str
) -> None:
    stream = _built(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    streams = Streams(
        stdin=io.BytesIO(stream),
        stdout=out,
        stderr=io.StringIO(),
        env={"GITHUB_ACTIONS": "true"},
        now=NOW,
    )
    sarif = tmp_path / "r.sarif"
    argv = ["check", "-", "--snapshot", str(ROOT / AKS), "--origin-root", "overlay"]
    assert main([*argv, "--sarif", str(sarif)], streams) == 1
    path, line = pointed.split(":")
    assert (
        f"::error file={path},line={line},title=fitgate NO on aks-prod%3A Deployment "
        in out.getvalue()
    )
    [found] = json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    place = found["locations"][0]["physicalLocation"]
    assert (place["artifactLocation"]["uri"], place["region"]["startLine"]) == (path, int(line))


def test_a_file_is_composed_once_however_often_it_is_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("kind: A\n---\nkind: B\n")
    files = RepositoryFiles(keep=1)
    first = files.documents(str(path))
    path.write_text("kind: C\n")
    assert files.documents(str(path)) is first and first is not None and len(first) == 2
    assert files.documents(str(tmp_path / "none.yaml")) is None  # the other file pushes it out
    assert files.documents(str(path)) is not first


def test_a_patch_outside_the_repository_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kustomize refuses such a path itself; a kustomization written by hand is not read
    past the working directory (a device or a FIFO would never end)."""
    (tmp_path / "overlay").mkdir()
    (tmp_path / "overlay" / "inside.yaml").write_text(SMP)
    outside = ["/dev/zero", "../../../../../../etc/hostname", "missing.yaml", "inside.yaml"]
    entries = "".join(f"  - path: {path}\n" for path in outside)
    (tmp_path / "overlay" / "kustomization.yaml").write_text(_kustomization("patches:\n", entries))
    monkeypatch.chdir(tmp_path)
    assert [p.file for p in patches(RepositoryFiles(), "overlay")] == ["overlay/inside.yaml"]
