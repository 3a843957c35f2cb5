"""``--cluster-name`` names the cluster in every report, so that two clusters' reports (their
sticky comments above all, found by their marker) stay apart on one pull request; without it
the recorded context does, else the snapshot file's name."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT
from tests.test_cli import AKS, NOW


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _kubectl_list(tmp_path: Path) -> str:
    recording = json.loads((ROOT / AKS).read_text(encoding="utf-8"))
    items = recording["nodes"] + recording["pods"]
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def _reports(tmp_path: Path, *argv: str) -> dict[str, str]:
    names = {"comment": "c.md", "json": "r.json", "junit": "r.xml", "sarif": "r.sarif"}
    paths = {flag: tmp_path / name for flag, name in names.items()}
    options = [word for flag, path in paths.items() for word in (f"--{flag}", str(path))]
    out = io.StringIO()
    streams = Streams(io.BytesIO(), out, io.StringIO(), env={"GITHUB_ACTIONS": "true"}, now=NOW)
    assert main(["check", "fixtures/manifests", *argv, *options], streams) == 1
    texts = {flag: path.read_text(encoding="utf-8") for flag, path in paths.items()}
    return texts | {"text": out.getvalue()}


def _names(reports: dict[str, str]) -> dict[str, object]:
    """Where each report names the cluster."""
    comment = reports["comment"].splitlines()
    annotations = [line for line in reports["text"].splitlines() if line.startswith("::error")]
    return {
        "marker": comment[0],
        "heading": comment[1],
        "json": json.loads(reports["json"])["snapshot"]["cluster"],
        "junit": ET.fromstring(reports["junit"]).find("testsuite").get("name"),  # type: ignore[union-attr]
        "sarif": json.loads(reports["sarif"])["runs"][0]["automationDetails"]["id"],
        "annotation": annotations[0].split("title=", 1)[1].split("%3A", 1)[0],
        "text": reports["text"].splitlines()[0].split(":", 1)[0],
    }


def _expected(name: str, snapshot_line: str) -> dict[str, object]:
    return {
        "marker": f"<!-- fitgate:{name} -->",
        "heading": f"### ❌ fitgate failed on {name}",
        "json": name,
        "junit": name,
        "sarif": f"fitgate/{name}/",
        "annotation": f"fitgate ERROR on {name}",
        "text": snapshot_line,
    }


@pytest.mark.parametrize(
    ("argv", "name", "line"),
    [
        (["--cluster-name", "prod-eu"], "prod-eu", "snapshot {list} (cluster prod-eu)"),
        ([], "snapshot", "snapshot {list} (cluster snapshot)"),
    ],
    ids=["named", "a-list-named-after-its-file"],
)
def test_a_kubectl_list_is_named_in_every_report(
    tmp_path: Path, argv: list[str], name: str, line: str
) -> None:
    snapshot = _kubectl_list(tmp_path)
    reports = _reports(tmp_path, "--snapshot", snapshot, *argv)
    assert _names(reports) == _expected(name, line.format(list=snapshot))


@pytest.mark.parametrize(
    ("argv", "name", "line"),
    [
        ([], "aks-prod", "snapshot aks-prod"),
        (
            ["--cluster-name", "aks-prod-westeurope"],
            "aks-prod-westeurope",
            "snapshot aks-prod (cluster aks-prod-westeurope)",
        ),
    ],
    ids=["the-recorded-context", "named-over-the-context"],
)
def test_a_recording_is_named_by_its_context_unless_named(
    tmp_path: Path, argv: list[str], name: str, line: str
) -> None:
    assert _names(_reports(tmp_path, "--snapshot", AKS, *argv)) == _expected(name, line)


def test_two_clusters_comments_stay_apart(tmp_path: Path) -> None:
    east, west = tmp_path / "east", tmp_path / "west"
    east.mkdir()
    west.mkdir()
    snapshot = _kubectl_list(tmp_path)
    first = _reports(east, "--snapshot", snapshot, "--cluster-name", "east")["comment"]
    second = _reports(west, "--snapshot", snapshot, "--cluster-name", "west")["comment"]
    assert first.splitlines()[0] != second.splitlines()[0]


@pytest.mark.parametrize(
    "given", ["", "   ", "a\nb", "x" * 254], ids=["empty", "blank", "two-lines", "too-long"]
)
def test_a_name_that_is_no_name_is_refused(given: str) -> None:
    err = io.StringIO()
    streams = Streams(io.BytesIO(), io.StringIO(), err, now=NOW)
    assert main(["check", "--snapshot", AKS, "--cluster-name", given], streams) == 2
    assert (
        "--cluster-name: expected a name on one line, 1 to 253 printable characters"
        in err.getvalue()
    )
