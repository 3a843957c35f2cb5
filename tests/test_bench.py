"""The benchmark runs end to end on a tiny case and prints its table (speed itself is
measured only by ``python -m benchmarks``, never asserted here)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks.__main__ import main
from benchmarks.generate import (
    LIST_FILE,
    MANIFESTS_DIR,
    SNAPSHOT_FILE,
    ensure_case,
    ensure_case_apart,
)
from benchmarks.runner import Measurement, Results, measure, measure_median, table
from benchmarks.sizes import SIZES
from gate.snapshot.load import load_snapshot

STORAGE = ("PersistentVolume", "PersistentVolumeClaim")
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
    second = ensure_case_apart(SIZES["tiny"], tmp_path / "b")  # as the runner generates it
    for name in (LIST_FILE, SNAPSHOT_FILE):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    listing = json.loads((first / LIST_FILE).read_text())
    kinds = {item["kind"] for item in listing["items"]}
    assert kinds == {"Node", "Pod", "Namespace", *STORAGE, "StorageClass", "CSINode"}
    # a StatefulSet's copy mounts its claim, bound to a volume: as many of each
    claims = [i for i in listing["items"] if i["kind"] == "PersistentVolumeClaim"]
    assert len(claims) == sum(i["kind"] == "PersistentVolume" for i in listing["items"]) > 0
    both = [load_snapshot(str(first / name)).storage for name in (SNAPSHOT_FILE, LIST_FILE)]
    kept = [(s.claims.keys(), s.volumes.keys(), s.csi_nodes.keys()) for s in both if s]
    assert len(kept) == 2 and kept[0] == kept[1]
    nodes = [i for i in listing["items"] if i["kind"] == "Node"]
    assert len(nodes) == SIZES["tiny"].nodes
    assert all(n["status"]["images"] and n["status"]["conditions"] for n in nodes)
    assert load_snapshot(str(first / LIST_FILE)) == load_snapshot(str(first / LIST_FILE))
    manifests = sorted((first / MANIFESTS_DIR).rglob("*.yaml"))
    assert len(manifests) == SIZES["tiny"].files


def test_the_runner_prints_every_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--size", "tiny", "--cache", str(tmp_path), "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    for row in ROWS:
        assert row in out
    assert "size tiny" in out and "taint classes" in out


def test_a_measurement_is_the_median_of_its_runs(tmp_path: Path) -> None:
    # Each run sleeps for the next of three durations, whatever order they come in.
    script = tmp_path / "sleepy.py"
    script.write_text(
        "import pathlib, time\n"
        "p = pathlib.Path('count'); n = int(p.read_text()) if p.exists() else 0\n"
        "p.write_text(str(n + 1)); time.sleep((1.2, 0.0, 0.6)[n]); print(n)\n"
    )
    measured = measure_median([sys.executable, str(script)], tmp_path, 3)
    assert measured.output.strip() == "2"  # the middle run, however long each took


def test_each_run_starts_without_the_previous_runs_reports(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    script = tmp_path / "writer.py"
    script.write_text(
        "import pathlib\np = pathlib.Path('report.json'); print(p.exists()); p.write_text('{}')\n"
    )
    measured = measure_median([sys.executable, str(script)], tmp_path, 3, [report])
    assert measured.output.strip() == "False"
    assert report.exists()


def test_an_earlier_checkout_is_timed_compiled_and_imported_beside_the_reports(
    tmp_path: Path,
) -> None:
    checkout = tmp_path / "earlier"
    (checkout / "gate").mkdir(parents=True)
    (checkout / "gate" / "__init__.py").write_text("")
    (checkout / "gate" / "probe.py").write_text("ANSWER = 42\n")
    report = tmp_path / "report.json"
    report.write_text("{}")
    script = tmp_path / "which.py"
    script.write_text("import gate.probe\nprint(gate.probe.__file__)\n")
    measured = measure([sys.executable, str(script)], tmp_path, [report], checkout)
    # The checkout's module, not one beside the report a run removes first.
    assert Path(measured.output.strip()) == checkout / "gate" / "probe.py"
    assert not report.exists()
    assert list((checkout / "gate" / "__pycache__").glob("probe.*.pyc"))


@pytest.mark.parametrize(
    ("size", "seconds", "verdicts"),
    [
        pytest.param("large", 0.5, ["met", "met", "met"], id="large-within-targets"),
        pytest.param("large", 9.0, ["MISSED", "MISSED", "met"], id="large-too-slow"),
        pytest.param("medium", 9.0, ["(large case only)"] * 3, id="medium-not-judged"),
    ],
)
def test_targets_are_judged_on_the_large_case(
    size: str, seconds: float, verdicts: list[str]
) -> None:
    floor = Measurement(10.0, 8_000.0, "")
    fitgate = Measurement(seconds, 150.0, "")
    phases = {"load": 0.1, "read": 0.1, "evaluate": 0.01, "reports": 0.1}
    phases |= {"nodes": 5, "taint_classes": 1, "port_classes": 1, "workloads": 3}
    inputs = {"list": 1, "snapshot": 1, "manifests": 1, "files": 1}
    printed = table(Results(SIZES[size], inputs, floor, floor, fitgate, fitgate, phases))
    judged = [line.rsplit(": ", 1)[1].rstrip(" |") for line in printed.splitlines()
              if line.startswith(("| fitgate check", "| evaluation only"))]  # fmt: skip
    assert judged == verdicts
    with_one = Results(
        SIZES[size], inputs, floor, floor, fitgate, fitgate, phases, fitgate, fitgate
    )
    rows = ("| fitgate check, kubectl List, --processes 1 |",
            "| fitgate check, ClusterSnapshot, --processes 1 |")  # fmt: skip
    lines = table(with_one).splitlines()
    assert all([line for line in lines if line.startswith(row)] for row in rows)
