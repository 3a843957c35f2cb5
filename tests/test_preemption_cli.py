"""End to end over fixtures/preemption and its snapshot (fixtures/snapshots/priorities.json):
a high-priority Deployment that fits only by evicting lower-priority pods, copy after copy
(PREEMPTS, naming the workloads that lose pods); one that no eviction helps (NO with the
scheduler's FitError and its PostFilter part); one whose class never preempts.

Worked by hand: user-a holds batch/crunch x2 (priority 10, 1500m each; their budget allows
one disruption), user-b web/cache (priority 0, 2 cpu) and web/api (priority 1000, 1500m);
each user node has 4 cpu, system-0 is tainted. pay/checkout's copies ask 2 cpu at priority
100000: the 1st evicts web/cache (user-b's highest victim is lowest), the 2nd one crunch pod
(its budget allows it), the 3rd web/api (the other crunch pod would break the budget)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.engine_support import NO_VICTIMS, NOT_HELPFUL, preempting
from tests.test_cli import by_name, json_report, run

SNAPSHOT = "fixtures/snapshots/priorities.json"
FIXTURES = "fixtures/preemption"
TAINTED = "1 node(s) had untolerated taint {CriticalAddonsOnly: true}"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_a_deployment_that_fits_by_evicting_names_whose_pods_go() -> None:
    code, report = json_report(f"{FIXTURES}/01-checkout.yaml", "--snapshot", SNAPSHOT)
    (checkout,) = report["workloads"]
    assert (code, checkout["verdict"], checkout["message"]) == (0, "PREEMPTS", None)
    assert checkout["preemption"] == {
        "copies": 3,
        "evicts": [
            {"kind": "Deployment", "namespace": "web", "name": "api", "pods": 1, "priority": 1000},
            {
                "kind": "Deployment",
                "namespace": "batch",
                "name": "crunch",
                "pods": 1,
                "priority": 10,
            },
            {"kind": "Deployment", "namespace": "web", "name": "cache", "pods": 1, "priority": 0},
        ],
    }
    assert report["summary"]["PREEMPTS"] == 1 and report["summary"]["passed"]


def test_preempts_fails_the_gate_when_asked() -> None:
    argv = (f"{FIXTURES}/01-checkout.yaml", "--snapshot", SNAPSHOT, "--fail-on", "PREEMPTS")
    code, _, _ = run("check", *argv)
    assert code == 1


MESSAGES = [
    pytest.param(
        "02-report.yaml",
        f"0/3 nodes are available: {TAINTED}, 2 Insufficient cpu."
        + preempting(3, (1, "Insufficient cpu"), (1, NO_VICTIMS), (1, NOT_HELPFUL)),
        id="evicting every lower-priority pod leaves too little room: the FitError ends with why",
    ),
    pytest.param(
        "03-ledger.yaml",
        f"0/3 nodes are available: {TAINTED}, 2 Insufficient cpu. no new claims to deallocate, "
        "preemption: not eligible due to preemptionPolicy=Never.",
        id="a class whose preemptionPolicy is Never waits for room",
    ),
]


@pytest.mark.parametrize(("manifest", "message"), MESSAGES)
def test_where_preemption_does_not_help(manifest: str, message: str) -> None:
    code, report = json_report(f"{FIXTURES}/{manifest}", "--snapshot", SNAPSHOT)
    (workload,) = report["workloads"]
    assert (code, workload["verdict"], workload["message"]) == (1, "NO", message)
    assert "preemption" not in workload


def test_every_report_of_the_fixtures(tmp_path: Path, golden: Callable[[str, str], None]) -> None:
    junit, comment, sarif = (tmp_path / n for n in ("r.xml", "c.md", "r.sarif"))
    code, out, _ = run(
        "check",
        FIXTURES,
        "--snapshot",
        SNAPSHOT,
        "--junit",
        str(junit),
        "--comment",
        str(comment),
        "--sarif",
        str(sarif),
    )
    assert code == 1
    golden("preemption/check.txt", out)
    golden("preemption/junit.xml", junit.read_text(encoding="utf-8"))
    golden("preemption/comment.md", comment.read_text(encoding="utf-8"))
    golden("preemption/check.sarif", sarif.read_text(encoding="utf-8"))
    names = by_name(json_report(FIXTURES, "--snapshot", SNAPSHOT)[1])
    assert {n: w["verdict"] for n, w in names.items()} == {
        "checkout": "PREEMPTS",
        "report": "NO",
        "ledger": "NO",
    }
