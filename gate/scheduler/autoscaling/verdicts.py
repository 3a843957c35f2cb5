"""A workload's verdict once the autoscalers have added what they would (the README's
"Verdicts"): the engine's result for today's nodes, and the copies no node took handed to
the run's :class:`~gate.scheduler.autoscaling.session.Autoscaling`: cluster-autoscaler's
node groups first, Karpenter's NodePools for what they leave.

``SCALES`` when every copy fits, some only on new nodes; ``PARTIAL`` when even every group
at its headroom and every NodePool within its limits hold only some; ``NO`` when none fits
now or after any scale-up, keeping the scheduler's message beside the autoscalers' (CA's
``pod didn't trigger scale-up: ...``, each NodePool's refusal in Karpenter's words).
Blockers that may pass (:data:`~gate.scheduler.autoscaling.clusterautoscaler.limits.TRANSIENT`, a
status that may have changed) give ``SCALES`` with a warning, unless the configuration says
``autoscaling.transient: fail``: they then count as the others do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

from msgspec import UNSET, UnsetType

from gate.model import (
    NODE_POOL,
    NOT_BLOCKED,
    TYPES_LISTED,
    Autoscale,
    Blocked,
    GroupScaleUp,
    PoolRefusal,
    Verdict,
    WarningKind,
    WorkloadResult,
    WorkloadWarning,
)
from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision
from gate.scheduler.autoscaling.karpenter import PoolDecision
from gate.scheduler.autoscaling.session import Autoscaling
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState

TRANSIENT_WARNING = (
    "{blocked} {noun} blocked only by what may pass ({message}; a group in backoff or not "
    "ready, or a status that may have changed): counted as fitting (autoscaling.transient: warn)"
)
TRANSIENT_FAILING = (
    "{blocked} {noun} blocked only by what may pass ({message}; a group in backoff or not "
    "ready, or a status that may have changed): counted as blocked (autoscaling.transient: fail)"
)
UNRECOVERABLE = (
    "blocked by node groups not ready or in backoff, which even recovered would not take "
    "every copy: a group's maximum and the cluster's limits bound what recovery adds"
)
UNJUDGED = "cluster-autoscaler would add no node for its pods: {why}"
UNJUDGED_POOLS = "Karpenter would launch no node for its pods: {why}"


def after_scale_up(
    result: WorkloadResult,
    session: Autoscaling,
    cycle: CycleState,
    pod: PodProfile,
    zones: Mapping[str, int] | None = None,
    *,
    cluster: Cluster,
) -> WorkloadResult:
    """``result`` (``NO`` or ``PARTIAL`` on today's nodes) once the copies no node took
    are given to the node groups, and what they leave to the NodePools; unchanged when no
    autoscaler would consider them. ``zones``: the copies placed now, by zone;
    ``cluster``: the one ``cycle`` was prepared in."""
    placed = result.placement
    if placed is None or result.verdict not in (Verdict.NO, Verdict.PARTIAL, Verdict.ADDON_ONLY):
        return result
    if pod.node_name:  # bound by name: no scheduler, no autoscaler
        return result
    now = placed.fit
    left = placed.wanted - now
    warnings = list(result.warnings)
    decision = session.decide(result.kind, cycle, pod, left)
    if decision is not None and decision.unjudged:
        warnings.append(
            WorkloadWarning(WarningKind.AUTOSCALING, UNJUDGED.format(why=decision.unjudged))
        )
        decision = None
    if decision is not None and not decision.recoverable:
        warnings.append(WorkloadWarning(WarningKind.AUTOSCALING, UNRECOVERABLE))
    after_groups = left if decision is None else decision.blocked
    pools = session.provision(result.kind, cycle, pod, after_groups, zones or {}, cluster=cluster)
    if pools is not None and pools.unjudged:
        # Karpenter was asked and refused: the copies are blocked by it, said in the report
        warnings.append(
            WorkloadWarning(WarningKind.AUTOSCALING, UNJUDGED_POOLS.format(why=pools.unjudged))
        )
    if decision is None and pools is None:
        return replace(result, warnings=tuple(warnings))
    autoscale = _autoscale(now, decision, pools, session)
    verdict, said = _verdict(autoscale, session.transient_fails)
    if result.verdict is Verdict.ADDON_ONLY:
        # copies fit now only on CriticalAddonsOnly nodes: that stays the verdict (the worse
        # of the two), and what the autoscalers do or refuse for the rest is reported
        return replace(result, autoscale=autoscale, warnings=(*warnings, *said))
    return replace(
        result,
        verdict=verdict,
        message=result.message if verdict is Verdict.NO else None,  # the FitError, for NO
        cause=None if verdict is Verdict.SCALES else result.cause,
        autoscale=autoscale,
        warnings=(*warnings, *said),
    )


def _autoscale(
    now: int, groups: Decision | None, pools: PoolDecision | None, session: Autoscaling
) -> Autoscale:
    """The decisions as reports carry them: the node groups' scale-ups, then the
    NodePools'; the copies neither takes, with the reasons of each that was asked. An
    uncertain cluster-autoscaler status makes every blocker one that may pass, unless a
    NodePool refused the copies too."""
    scale_up = [
        GroupScaleUp(
            group=s.group,
            nodes=s.nodes,
            copies=s.copies,
            start=s.start,
            end=s.end,
            maximum=s.maximum,
        )
        for s in (groups.scale_up if groups is not None else ())
    ]
    for launch in pools.scale_up if pools is not None else ():
        start = session.pool_size(launch.pool)
        session.grow_pool(launch.pool, launch.nodes)
        scale_up.append(
            GroupScaleUp(
                kind=NODE_POOL,
                group=launch.pool,
                nodes=launch.nodes,
                copies=launch.copies,
                start=start,
                end=start + launch.nodes,
                maximum=None,
                instance_types=launch.instance_types[:TYPES_LISTED],
                type_count=(
                    len(launch.instance_types)
                    if len(launch.instance_types) > TYPES_LISTED
                    else UNSET
                ),
            )
        )
    options: tuple[GroupScaleUp, ...] | UnsetType = UNSET
    if groups is not None and groups.options:
        options = tuple(
            GroupScaleUp(
                group=s.group,
                nodes=s.nodes,
                copies=s.copies,
                start=s.start,
                end=s.end,
                maximum=s.maximum,
            )
            for s in groups.options
        )
    blocked = pools.blocked if pools is not None else groups.blocked if groups else 0
    if not blocked:
        return Autoscale(
            fits_now=now, scale_up=tuple(scale_up), blocked=NOT_BLOCKED, options=options
        )
    reasons: Counter[str] = Counter()
    events = []
    transient = True
    if groups is not None:
        reasons.update(groups.reasons)
        events.append(groups.message)
        transient = groups.transient or session.uncertain
    refusals: tuple[PoolRefusal, ...] = ()
    if pools is not None:
        reasons.update({pools.unjudged: 1} if pools.unjudged else pools.reasons)
        events.append(pools.message)
        refusals = tuple(PoolRefusal(pool, reason, text) for pool, reason, text in pools.errors)
        transient = False
    return Autoscale(
        fits_now=now,
        scale_up=tuple(scale_up),
        blocked=Blocked(
            copies=blocked,
            reasons=dict(sorted(reasons.items())),
            message="\n".join(e for e in events if e),
            transient=transient,
            pools=refusals or UNSET,  # absent from the report when no NodePool refused
        ),
        options=options,
    )


def _verdict(autoscale: Autoscale, transient_fails: bool) -> tuple[Verdict, list[WorkloadWarning]]:
    """The verdict, and the warning transient blockers give."""
    warnings: list[WorkloadWarning] = []
    blocked = autoscale.blocked.copies
    if blocked and autoscale.blocked.transient:
        noun = "copy" if blocked == 1 else "copies"
        text = TRANSIENT_FAILING if transient_fails else TRANSIENT_WARNING
        message = autoscale.blocked.message or "the autoscaler status may have changed"
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
