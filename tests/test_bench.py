"""The benchmark runs end to end on a tiny case and prints its table (speed itself is
measured only by ``python -m gate.bench``, never asserted here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.bench.__main__ import main
from gate.bench.generate import LIST_FILE, MANIFESTS_DIR, SNAPSHOT_FILE, ensure_case
from gate.bench.sizes import SIZES
from gate.snapshot import load_snapshot

ROWS = (
    "| floor: json.load(kubectl List) |",
    "| floor: CSafeLoader(manifests) |",
    "| floor total |",
    "| fitgate check, kubectl List |",
    "| fitgate check, ClusterSnapshot |",
    "| evaluation only (engine, after loading) |",
)


def test_generated_cases_are_deterministic_and_valid(tmp_path: Path) -> None:
    first = ensure_case(SIZES["tiny"], tmp_path / "a")
    second = ensure_case(SIZES["tiny"], tmp_path / "b")
    for name in (LIST_FILE, SNAPSHOT_FILE):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    listing = json.loads((first / LIST_FILE).read_text())
    kinds = {item["kind"] for item in listing["items"]}
    assert kinds == {"Node", "Pod"}
    nodes = [i for i in listing["items"] if i["kind"] == "Node"]
    assert len(nodes) == SIZES["tiny"].nodes
    assert all(n["status"]["images"] and n["status"]["conditions"] for n in nodes)
    assert load_snapshot(str(first / LIST_FILE)) == load_snapshot(str(first / LIST_FILE))
    manifests = sorted((first / MANIFESTS_DIR).rglob("*.yaml"))
    assert len(manifests) == SIZES["tiny"].files


def test_the_runner_prints_every_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--size", "tiny", "--cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for row in ROWS:
        assert row in out
    assert "size tiny" in out and "taint classes" in out
