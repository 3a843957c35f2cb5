"""The snapshot line names the configuration the run applied, or says none was found, so a
run from the repository root that misses ``fixtures/.fitgate.yaml`` says so."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT
from tests.test_cli import NOW

NONE_FOUND = (
    "Configuration: none (no .fitgate.yaml in the working directory or above it; "
    "--config FILE names one)."
)


@pytest.mark.parametrize(
    ("cwd", "argv", "said", "web_big"),
    [
        (ROOT, [], NONE_FOUND, "NO"),
        (ROOT / "fixtures", [], "Configuration: .fitgate.yaml.", "SKIPPED"),
        (
            ROOT,
            ["--config", "fixtures/.fitgate.yaml"],
            "Configuration: fixtures/.fitgate.yaml.",
            "SKIPPED",
        ),
    ],
    ids=["root-none-found", "found-upwards", "given"],
)
def test_the_snapshot_line_names_the_configuration(
    monkeypatch: pytest.MonkeyPatch, cwd: Path, argv: list[str], said: str, web_big: str
) -> None:
    monkeypatch.chdir(cwd)
    manifests = str(ROOT / "fixtures" / "manifests")
    snapshot = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
    out, report = io.StringIO(), io.StringIO()
    streams = Streams(io.BytesIO(), out, io.StringIO(), now=NOW)
    main(["check", manifests, "--snapshot", snapshot, *argv, "--json", "-"], streams)
    document = json.loads(out.getvalue())
    assert document["read"]["config"] == (None if said == NONE_FOUND else said.split(": ")[1][:-1])
    text = io.StringIO()
    main(
        ["check", manifests, "--snapshot", snapshot, *argv],
        Streams(io.BytesIO(), text, report, now=NOW),
    )
    first = text.getvalue().splitlines()[0]
    assert f"a snapshot is a point in time: it is wrong a second later. {said}" in first
    [big] = [w for w in document["workloads"] if w["name"] == "web-big"]
    assert big["verdict"] == web_big
