"""A workload's verdict after cluster-autoscaler's decision (gate/scheduler/autoscaling/
verdicts.py), and the sentences reports print for it (gate/reports/wording.py)."""

from __future__ import annotations

import pytest

from gate.model import (
    Autoscale,
    Blocked,
    GroupScaleUp,
    Location,
    ReplicaFit,
    Verdict,
    WarningKind,
    WorkloadResult,
)
from gate.reports.wording import headline, scale_up_lines
from gate.scheduler.autoscaling.verdicts import _verdict

USER = GroupScaleUp(group="aks-user", nodes=2, copies=2, start=3, end=5, maximum=10)
FULL = GroupScaleUp(group="aks-user", nodes=7, copies=7, start=3, end=10, maximum=10)
MAX_SIZE = "max node group size reached"
BACKOFF = "in backoff after failed scale-up"


def autoscale(
    now: int, *groups: GroupScaleUp, blocked: int = 0, reason: str = "", transient: bool = False
) -> Autoscale:
    reasons = {reason: 1} if reason else {}
    message = f"pod didn't trigger scale-up: 1 {reason}" if reason else ""
    return Autoscale(
        fits_now=now,
        scale_up=groups,
        blocked=Blocked(copies=blocked, reasons=reasons, message=message, transient=transient),
    )


VERDICTS = {
    "every copy placed, some on new nodes": (autoscale(3, USER), False, Verdict.SCALES, False),
    "copies beyond the maximum, some placed": (
        autoscale(3, FULL, blocked=2, reason=MAX_SIZE),
        False,
        Verdict.PARTIAL,
        False,
    ),
    "no copy placed now or after any scale-up": (
        autoscale(0, blocked=2, reason=MAX_SIZE),
        False,
        Verdict.NO,
        False,
    ),
    "transient blockers only, warned": (
        autoscale(3, blocked=2, reason=BACKOFF, transient=True),
        False,
        Verdict.SCALES,
        True,
    ),
    "transient blockers with transient: fail": (
        autoscale(3, blocked=2, reason=BACKOFF, transient=True),
        True,
        Verdict.PARTIAL,
        True,
    ),
    "transient blockers of every copy with transient: fail": (
        autoscale(0, blocked=2, reason=BACKOFF, transient=True),
        True,
        Verdict.NO,
        True,
    ),
}


@pytest.mark.parametrize(
    ("scaled", "fails", "verdict", "warned"), VERDICTS.values(), ids=VERDICTS.keys()
)
def test_the_verdict_after_scale_up(
    scaled: Autoscale, fails: bool, verdict: Verdict, warned: bool
) -> None:
    got, warnings = _verdict(scaled, fails)
    assert got is verdict
    assert [w.kind for w in warnings] == ([WarningKind.AUTOSCALING] if warned else [])


def _result(
    verdict: Verdict, scaled: Autoscale, wanted: int, message: str | None = None
) -> WorkloadResult:
    return WorkloadResult(
        kind="Deployment",
        namespace="shop",
        name="web",
        location=Location("web.yaml", 1),
        replicas=wanted,
        verdict=verdict,
        message=message,
        placement=ReplicaFit(wanted=wanted, alone=scaled.fits_now),
        autoscale=scaled,
    )


FIT_ERROR = "0/6 nodes are available: 3 Insufficient cpu."
LINES = {
    "SCALES names each group and the new nodes": (
        _result(Verdict.SCALES, autoscale(3, USER), 5),
        ["fits after scale-up: {aks-user 3->5 (max: 10)} (2 new nodes)"],
    ),
    "PARTIAL counts now, after and blocked": (
        _result(Verdict.PARTIAL, autoscale(3, FULL, blocked=2, reason=MAX_SIZE), 12),
        [
            "10 of 12 replicas fit: 3 now, 7 after {aks-user 3->10 (max: 10)}; "
            "2 blocked: max node group size reached"
        ],
    ),
    "NO shows the scheduler's and CA's events": (
        _result(Verdict.NO, autoscale(0, blocked=1, reason=MAX_SIZE), 1, FIT_ERROR),
        [FIT_ERROR, "pod didn't trigger scale-up: 1 max node group size reached"],
    ),
    "SCALES with transient blockers only": (
        _result(Verdict.SCALES, autoscale(3, blocked=2, reason=BACKOFF, transient=True), 5),
        [
            "fits once the node groups recover: pod didn't trigger scale-up: 1 in backoff "
            "after failed scale-up"
        ],
    ),
}


@pytest.mark.parametrize(("result", "lines"), LINES.values(), ids=LINES.keys())
def test_what_the_reports_say_after_scale_up(result: WorkloadResult, lines: list[str]) -> None:
    assert scale_up_lines(result) == lines
    assert headline(result) == " ".join(lines)
