"""The command line end to end over the shipped fixtures: exit codes, stdout, JSON report."""

from __future__ import annotations

import gc
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.run import POD_SECURITY_UNCHECKED
from tests.conftest import ROOT
from tests.engine_support import NO_VICTIMS, NOT_HELPFUL, preempting
from tests.report_schema import validate_report

FIXTURES = ROOT / "fixtures"
AKS = "fixtures/snapshots/aks-six-nodes.json"
NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)


def run(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(stdin=io.BytesIO(stdin), stdout=out, stderr=err, env={}, now=NOW)
    code = main(list(argv), streams)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def json_report(*argv: str, stdin: bytes = b"") -> tuple[int, dict[str, Any]]:
    code, out, _ = run("check", *argv, "--json", "-", stdin=stdin)
    report = json.loads(out)
    validate_report(report)
    return code, report


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["name"]: w for w in report["workloads"]}


def test_seed_fixtures_give_every_verdict(golden: Callable[[str, str], None]) -> None:
    code, out, err = run("check", "fixtures/manifests", "--snapshot", AKS)
    assert code == 1
    golden("check-aks.txt", out)
    # each ERROR once, in its place in the summary
    assert "fixtures/manifests/05-broken.yaml:12" in out and err == ""


def test_seed_fixtures_json_report(golden: Callable[[str, str], None]) -> None:
    code, report = json_report("fixtures/manifests", "--snapshot", AKS)
    assert code == 1
    workloads = by_name(report)
    assert workloads["web-small"]["verdict"] == "YES"
    assert workloads["web-small"]["outcomes"][1] == {
        "reasons": [],
        "plugin": None,
        "code": None,
        "count": 3,
        "nodes": ["aks-user-0", "aks-user-1", "aks-user-2"],
    }
    assert workloads["web-big"]["verdict"] == "NO"
    assert workloads["web-big"]["message"] == (
        "0/6 nodes are available: 3 Insufficient cpu, "
        "3 node(s) had untolerated taint {CriticalAddonsOnly: true}."
        " no new claims to deallocate, preemption: 0/6 nodes are available: 3 No preemption "
        "victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    )
    assert workloads["nightly-report"]["verdict"] == "ADDON_ONLY"
    assert workloads["log-agent"]["verdict"] == "PARTIAL"
    assert workloads["legacy-cron-runner"]["verdict"] == "SKIPPED"
    assert workloads["cache"]["verdict"] == "YES" and workloads["cache"]["warnings"]
    errors = [w for w in report["workloads"] if w["verdict"] == "ERROR"]
    assert [(e["file"], e["line"]) for e in errors] == [("fixtures/manifests/05-broken.yaml", 12)]
    assert report["otherDocuments"] == {"Service": 1}
    golden("check-aks.json", json.dumps(report, indent=2) + "\n")


def test_same_input_same_bytes() -> None:
    first = run("check", "fixtures/manifests", "--snapshot", AKS, "--json", "-")
    second = run("check", "fixtures/manifests", "--snapshot", AKS, "--json", "-")
    assert first == second


@pytest.mark.parametrize(
    ("manifest", "code", "verdict", "message"),
    [
        (
            "fixtures/q10/before.yaml",
            1,
            "NO",
            "0/1 nodes are available: 1 node(s) had untolerated taint {PERMISSION: granted}."
            + preempting(1, (1, NOT_HELPFUL)),
        ),
        ("fixtures/q10/after.yaml", 0, "YES", None),
    ],
    ids=["before the toleration the taint is named", "after the toleration it fits"],
)
def test_q10_permission_taint(
    manifest: str, code: int, verdict: str, message: str | None, golden: Callable[[str, str], None]
) -> None:
    got, report = json_report(manifest, "--snapshot", "fixtures/snapshots/q10-permission.json")
    assert got == code
    assert (report["workloads"][0]["verdict"], report["workloads"][0]["message"]) == (
        verdict,
        message,
    )
    _, out, _ = run("check", manifest, "--snapshot", "fixtures/snapshots/q10-permission.json")
    golden(f"q10-{Path(manifest).stem}.txt", out)


def test_an_existing_pods_anti_affinity_leaves_no_node(
    golden: Callable[[str, str], None],
) -> None:
    """Each cloud-node-manager pod of the six-node snapshot forbids a second one on its
    node (required anti-affinity on kubernetes.io/hostname): a debug copy that tolerates the
    system pool's taint fits no node, and the scheduler says why."""
    manifest = "fixtures/anti-affinity/second-cloud-node-manager.yaml"
    code, report = json_report(manifest, "--snapshot", AKS)
    assert code == 1
    (workload,) = report["workloads"]
    assert (workload["verdict"], workload["message"]) == (
        "NO",
        "0/6 nodes are available: 6 node(s) didn't satisfy existing pods anti-affinity rules."
        + preempting(6, (6, NO_VICTIMS)),
    )
    _, out, _ = run("check", manifest, "--snapshot", AKS)
    golden("check-aks-anti-affinity.txt", out)


def test_scheduler_version_switches_the_taint_dialect() -> None:
    _, report = json_report(
        "fixtures/manifests/02-web-big.yaml", "--snapshot", AKS, "--scheduler-version", "v1.35.0"
    )
    assert report["workloads"][0]["message"] == (
        "0/6 nodes are available: 3 Insufficient cpu, 3 node(s) had untolerated taint(s)."
        + preempting(6, (3, NO_VICTIMS), (3, NOT_HELPFUL))
    )
    _code, out, _ = run(
        "check",
        "fixtures/manifests/02-web-big.yaml",
        "--snapshot",
        AKS,
        "--scheduler-version",
        "v1.35.0",
    )
    assert "CriticalAddonsOnly=true:NoSchedule" in out


def test_stdin_is_read_with_dash() -> None:
    text = (FIXTURES / "manifests" / "02-web-big.yaml").read_bytes()
    code, report = json_report("-", "--snapshot", AKS, stdin=text)
    assert code == 1
    assert report["workloads"][0]["file"] == "<stdin>"


@pytest.mark.parametrize("stdin", [b"", b"\n  \n"], ids=["empty", "blank"])
def test_an_empty_pipe_fails_the_gate(stdin: bytes) -> None:
    """`kustomize build broken | fitgate check -` in a shell without pipefail: the render
    failed and wrote nothing; passing the gate on that would hide every workload."""
    code, out, err = run("check", "-", "--snapshot", AKS, stdin=stdin)
    assert code == 1
    assert "standard input is empty: nothing to check" in out and err == ""
    assert "1 ERROR" in out


def test_errors_go_to_standard_error_when_a_report_takes_standard_output() -> None:
    code, out, err = run("check", "fixtures/manifests", "--snapshot", AKS, "--json", "-")
    assert code == 1 and out.startswith("{")
    assert err.startswith("fitgate: fixtures/manifests/05-broken.yaml:12: did not find")


def test_fail_on_narrows_what_fails() -> None:
    code, _, _ = run(
        "check",
        "fixtures/manifests/03-batch-tolerates-system.yaml",
        "--snapshot",
        AKS,
        "--fail-on",
        "NO",
    )
    assert code == 0


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["check", "fixtures/manifests", "--snapshot", "missing.json"], "missing.json"),
        (["check", "nowhere", "--snapshot", AKS], "nowhere"),
        (["check", "--fail-on", "MAYBE", "--snapshot", AKS], ""),
    ],
    ids=["a missing snapshot", "a missing manifest path", "an unknown verdict name"],
)
def test_cannot_run_exits_2(argv: list[str], needle: str) -> None:
    code, _, err = run(*argv)
    assert code == 2
    assert needle in err


def test_invalid_snapshot_names_object_and_field(tmp_path: Path) -> None:
    snapshot = json.loads((FIXTURES / "snapshots" / "aks-six-nodes.json").read_text())
    snapshot["nodes"][4]["status"]["allocatable"]["cpu"] = "two"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(snapshot))
    code, _, err = run("check", "fixtures/manifests", "--snapshot", str(bad))
    assert code == 2
    assert 'nodes[4] (Node "aks-user-1"): status.allocatable' in err
    assert "two" in err
    assert "Traceback" not in err


def test_duplicate_node_names_are_invalid(tmp_path: Path) -> None:
    snapshot = json.loads((FIXTURES / "snapshots" / "aks-six-nodes.json").read_text())
    snapshot["nodes"].append(snapshot["nodes"][0])
    bad = tmp_path / "dup.json"
    bad.write_text(json.dumps(snapshot))
    code, _, err = run("check", "fixtures/manifests", "--snapshot", str(bad))
    assert code == 2 and "duplicate node name" in err


def test_kubectl_list_snapshot_gives_the_same_verdicts(tmp_path: Path) -> None:
    snapshot = json.loads((FIXTURES / "snapshots" / "aks-six-nodes.json").read_text())
    listing = {"apiVersion": "v1", "kind": "List", "items": snapshot["nodes"] + snapshot["pods"]}
    path = tmp_path / "list.json"
    path.write_text(json.dumps(listing))
    _, own = json_report("fixtures/manifests", "--snapshot", AKS)
    _, kubectl = json_report("fixtures/manifests", "--snapshot", str(path))
    assert [w["verdict"] for w in own["workloads"]] == [w["verdict"] for w in kubectl["workloads"]]
    outcomes = [w["outcomes"] for w in own["workloads"]]
    assert outcomes == [w["outcomes"] for w in kubectl["workloads"]]
    assert kubectl["snapshot"]["capturedAt"] is None


def test_text_no_utf8_can_hold_is_shown_as_replacement_characters(tmp_path: Path) -> None:
    """Lone surrogates: a JSON ``\\udc80`` escape (in a manifest or the snapshot) and a file
    name that is not UTF-8. Go's decoder, and so the cluster, reads each as U+FFFD. A name
    holding one is no DNS subdomain: the API server refuses the pod in words that quote it."""
    snapshot = json.loads((ROOT / AKS).read_text())
    snapshot["nodes"][0]["metadata"]["name"] = "aks\udc80node"
    (tmp_path / "snapshot.json").write_text(json.dumps(snapshot))
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web\udc80"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }
    (manifests / "pod.json").write_text(json.dumps(pod))
    named = (FIXTURES / "manifests" / "01-web-small.yaml").read_bytes()
    (manifests / "web\udcff.yaml").write_bytes(named)
    out = tmp_path / "out"
    code, stdout, _ = run(
        "check", str(manifests), "--snapshot", str(tmp_path / "snapshot.json"),
        "--json", f"{out}.json", "--junit", f"{out}.xml",
        "--comment", f"{out}.md", "--summary", f"{out}.summary.md",
    )  # fmt: skip
    assert code == 1
    report = json.loads(Path(f"{out}.json").read_text(encoding="utf-8"))
    validate_report(report)
    assert [w["name"] for w in report["workloads"]] == ["web\ufffd", "web-small"]
    assert report["workloads"][0]["verdict"] == "ERROR"
    assert report["workloads"][0]["reason"].startswith(
        'Pod "web\ufffd" is invalid: metadata.name: Invalid value: "web\ufffd": '
    )
    assert report["workloads"][1]["file"] == f"{manifests}/web\ufffd.yaml"
    assert "aks\ufffdnode" in report["workloads"][1]["outcomes"][0]["nodes"]
    assert "web\ufffd" in stdout
    for suffix in (".xml", ".md", ".summary.md"):
        assert "\ufffd" in Path(f"{out}{suffix}").read_text(encoding="utf-8")


def test_json_on_a_real_stdout_is_the_json_file_byte_for_byte(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "gate", "check", "fixtures/manifests", "--snapshot", AKS]
    written = subprocess.run([*argv, "--json", str(tmp_path / "r.json")], cwd=ROOT, check=False)
    piped = subprocess.run([*argv, "--json", "-"], cwd=ROOT, capture_output=True, check=False)
    assert written.returncode == piped.returncode == 1
    assert piped.stdout == (tmp_path / "r.json").read_bytes()


@pytest.mark.parametrize("argv", [["check", "fixtures/manifests", "--snapshot", AKS], ["nope"]])
def test_the_cycle_collector_is_back_on_after_a_run(argv: list[str]) -> None:
    assert gc.isenabled()
    run(*argv)
    assert gc.isenabled()


BUSY = "fixtures/snapshots/aks-busy.json"


def test_replica_fixtures_each_alone(golden: Callable[[str, str], None]) -> None:
    """One manifest per replica case, each checked alone against the busy snapshot (its
    user nodes packed by the running shop and edge-proxy), as docs/reference.md shows them."""
    outputs = []
    for manifest in sorted((FIXTURES / "replicas").glob("*.yaml")):
        named = re.search(r"against (fixtures/snapshots/\S+\.json)", manifest.read_text())
        snapshot = named.group(1) if named else BUSY  # a case that needs nodes of its own
        where = str(manifest.relative_to(FIXTURES.parent))
        _, out, _ = run("check", where, "--snapshot", snapshot)
        outputs.append(out)
    golden("check-replicas-each.txt", "".join(outputs))


def test_replica_fixtures_together(golden: Callable[[str, str], None]) -> None:
    """The same manifests as one change: new workloads are placed beside each other."""
    code, report = json_report("fixtures/replicas", "--snapshot", BUSY)
    assert code == 1
    replicas = {w["name"]: w["replicas"] for w in report["workloads"]}
    assert replicas["shop"]["released"] == 3 and replicas["shop"]["together"] is None
    assert replicas["frontend"]["autoscaler"] == {
        "kind": "HorizontalPodAutoscaler",
        "name": "frontend",
        "maximum": 20,
        "fit": 12,
    }
    _, out, _ = run("check", "fixtures/replicas", "--snapshot", BUSY)
    golden("check-replicas.txt", out)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("argv", [["--version"], ["check", "--help"], ["--help"]])
def test_help_and_version_to_a_full_standard_output_exit_2(
    argv: list[str], unbuffered: str
) -> None:
    """argparse writes them itself, and drops a write that fails: it is said here."""
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "gate", *argv],
            cwd=ROOT,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            env=env,
        )
    assert done.returncode == 2
    assert done.stderr.startswith("fitgate: cannot write the output: ")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_standard_output_is_one_line_exit_2() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "gate",
                "check",
                "fixtures/manifests/01-web-small.yaml",
                "--snapshot",
                AKS,
            ],
            cwd=ROOT,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr.startswith("fitgate: cannot write the output: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_an_unusable_snapshot_server_version_is_unknown_with_a_warning(tmp_path: Path) -> None:
    document = json.loads((ROOT / AKS).read_text(encoding="utf-8"))
    document["source"]["serverVersion"] = "v1." + "9" * 50
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, report = json_report(
        "fixtures/manifests/01-web-small.yaml", "--snapshot", str(path), "--autoscaling", "off"
    )
    assert code == 0
    warning, pod_security = report["warnings"]
    assert pod_security == POD_SECURITY_UNCHECKED.format(count=1)
    assert warning.startswith("snapshot serverVersion: version 'v1.999")
    assert warning.endswith("is not a Kubernetes version such as v1.34.1: taken as unknown")
