"""A workload's verdict once cluster-autoscaler has scaled what it would (the README's
"Verdicts"): the engine's result for today's nodes, and the copies no node took handed to
the run's :class:`~gate.scheduler.autoscaler.session.Autoscaling`.

``SCALES`` when every copy fits, some only on new nodes; ``PARTIAL`` when even every group
at its headroom holds only some; ``NO`` when none fits now or after any scale-up, keeping
the scheduler's message beside CA's ``pod didn't trigger scale-up: ...``. Blockers that may
pass (:data:`~gate.scheduler.autoscaler.limits.TRANSIENT`, a status that may have changed)
give ``SCALES`` with a warning, unless the configuration says ``autoscaling.transient:
fail``: they then count as the others do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from gate.model import (
    Autoscale,
    GroupScaleUp,
    Verdict,
    WarningKind,
    WorkloadResult,
    WorkloadWarning,
)
from gate.scheduler.autoscaler.decision import Decision
from gate.scheduler.autoscaler.session import Autoscaling
from gate.scheduler.framework import CycleState
from gate.scheduler.profile import PodProfile

TRANSIENT_WARNING = (
    "{blocked} {noun} blocked only by what may pass ({message}; a group in backoff or not "
    "ready, or a status that may have changed): counted as fitting (autoscaling.transient: warn)"
)
TRANSIENT_FAILING = (
    "{blocked} {noun} blocked only by what may pass ({message}; a group in backoff or not "
    "ready, or a status that may have changed): counted as blocked (autoscaling.transient: fail)"
)
UNJUDGED = "cluster-autoscaler would add no node for its pods: {why}"


def after_scale_up(
    result: WorkloadResult,
    session: Autoscaling,
    spec: Mapping[str, Any],
    cycle: CycleState,
    pod: PodProfile,
) -> WorkloadResult:
    """``result`` (``NO`` or ``PARTIAL`` on today's nodes) once the copies no node took are
    given to the autoscaler; unchanged when CA would not consider them."""
    placed = result.placement
    if placed is None or result.verdict not in (Verdict.NO, Verdict.PARTIAL):
        return result
    if spec.get("nodeName"):  # bound by name: no scheduler, no autoscaler
        return result
    now = placed.fit
    decision = session.decide(result.kind, spec, cycle, pod, placed.wanted - now)
    if decision is None:
        return result
    if decision.unjudged:
        warning = WorkloadWarning(WarningKind.AUTOSCALING, UNJUDGED.format(why=decision.unjudged))
        return replace(result, warnings=(*result.warnings, warning))
    autoscale = _autoscale(now, decision, session.uncertain)
    verdict, warnings = _verdict(autoscale, session.transient_fails)
    return replace(
        result,
        verdict=verdict,
        message=result.message if verdict is Verdict.NO else None,  # the FitError, for NO
        cause=None if verdict is Verdict.SCALES else result.cause,
        autoscale=autoscale,
        warnings=(*result.warnings, *warnings),
    )


def _autoscale(now: int, decision: Decision, uncertain: bool) -> Autoscale:
    """The decision as reports carry it; an uncertain status makes every blocker one that
    may pass."""
    return Autoscale(
        fits_now=now,
        scale_up=tuple(
            GroupScaleUp(s.group, s.nodes, s.copies, s.start, s.end, s.maximum)
            for s in decision.scale_up
        ),
        blocked=decision.blocked,
        reasons=dict(sorted(decision.reasons.items())),
        message=decision.message,
        transient=decision.transient or (uncertain and decision.blocked > 0),
    )


def _verdict(autoscale: Autoscale, transient_fails: bool) -> tuple[Verdict, list[WorkloadWarning]]:
    """The verdict, and the warning transient blockers give."""
    warnings: list[WorkloadWarning] = []
    blocked = autoscale.blocked
    if blocked and autoscale.transient:
        noun = "copy" if blocked == 1 else "copies"
        text = TRANSIENT_FAILING if transient_fails else TRANSIENT_WARNING
        message = autoscale.message or "the autoscaler status may have changed"
        warnings.append(
            WorkloadWarning(
                WarningKind.AUTOSCALING, text.format(blocked=blocked, noun=noun, message=message)
            )
        )
        if not transient_fails:
            return Verdict.SCALES, warnings
    if not blocked:
        return Verdict.SCALES, warnings
    if autoscale.fits_now + autoscale.after == 0:
        return Verdict.NO, warnings
    return Verdict.PARTIAL, warnings
