"""A file name whose bytes are not UTF-8 reaches every report as U+FFFD (issue point: a
snapshot named so used to put a lone surrogate in the JSON report, which fitgate's own merge
then refused)."""

from __future__ import annotations

import io
import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT

NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
MANIFEST = str(ROOT / "fixtures" / "manifests" / "01-web-small.yaml")
AKS = ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(io.BytesIO(), out, err, env={}, now=NOW))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def odd_snapshot(tmp_path: Path) -> str:
    """The fixture snapshot under a name with a byte (0xFF) that UTF-8 cannot hold."""
    name = os.fsdecode(bytes(tmp_path) + b"/snap\xff.json")
    try:
        shutil.copyfile(AKS, name)
    except (OSError, UnicodeEncodeError):  # a file system that only takes UTF-8 names
        pytest.skip("the file system refuses non-UTF-8 names")
    return name


def test_json_report_names_the_snapshot_with_a_replacement_character(
    odd_snapshot: str, tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, out, _ = run("check", MANIFEST, "--snapshot", odd_snapshot, f"--json={report}")
    assert code == 0
    data = report.read_bytes()
    assert b"\\udcff" not in data
    assert json.loads(data)["snapshot"]["source"].endswith("snap\ufffd.json")
    assert "\udcff" not in out


def test_a_merge_reads_the_shard_reports_of_such_a_snapshot(
    odd_snapshot: str, tmp_path: Path
) -> None:
    shards = []
    for index in (1, 2):
        shard = tmp_path / f"shard-{index}.json"
        code, _, err = run(
            "check", MANIFEST, "--snapshot", odd_snapshot, f"--shard={index}/2", f"--json={shard}"
        )
        assert code == 0, err
        shards.append(str(shard))
    merged = tmp_path / "merged.json"
    code, _, err = run("merge", *shards, f"--json={merged}")
    assert code == 0, err
    assert json.loads(merged.read_text())["snapshot"]["source"].endswith("snap\ufffd.json")


def test_an_unreadable_snapshot_is_named_with_a_replacement_character(tmp_path: Path) -> None:
    missing = os.fsdecode(bytes(tmp_path) + b"/gone\xfe.json")
    code, _, err = run("check", MANIFEST, "--snapshot", missing)
    assert code == 2
    assert "gone\ufffd.json: cannot read snapshot" in err
