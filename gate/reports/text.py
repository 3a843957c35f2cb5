"""The short human summary printed on standard output."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

from gate.memo import by_identity
from gate.model import (
    SNAPSHOT_CAVEAT,
    VERDICT_ORDER,
    NodeOutcome,
    Report,
    SnapshotInfo,
    Verdict,
    WorkloadResult,
)
from gate.scheduler.filters import is_room_reason

_MAX_NODES_LISTED = 5


def snapshot_age(captured_at: str | None, now: datetime) -> str | None:
    """``3h 5m`` style age of an RFC 3339 timestamp, or None when unknown or unparsable."""
    if not captured_at:
        return None
    try:
        taken = datetime.fromisoformat(captured_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if taken.tzinfo is None:
        taken = taken.replace(tzinfo=timezone.utc)
    seconds = max(0, int((now - taken).total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m"


def provenance(info: SnapshotInfo, now: datetime | None) -> str:
    where = info.context or info.source
    parts = [f"snapshot {where}: {info.nodes} nodes, {info.pods} pods"]
    if info.server_version:
        parts.append(f"server {info.server_version}")
    if info.captured_at:
        age = snapshot_age(info.captured_at, now) if now else None
        parts.append(f"taken {info.captured_at}" + (f" ({age} ago)" if age else ""))
    else:
        parts.append("time of capture unknown")
    return ", ".join(parts) + f"; {SNAPSHOT_CAVEAT}."


@by_identity(maxsize=4096)
def _taint_names(outcomes: tuple[NodeOutcome, ...]) -> str:
    counts = Counter(str(o.taint) for o in outcomes if o.taint is not None)
    return ", ".join(f"{n} x {taint}" for taint, n in sorted(counts.items()))


def _node_list(names: list[str]) -> str:
    shown = ", ".join(names[:_MAX_NODES_LISTED])
    more = len(names) - _MAX_NODES_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _detail(result: WorkloadResult) -> list[str]:
    verdict = result.verdict
    if verdict is Verdict.NO:
        lines = [result.message or ""]
        taints = _taint_names(result.nodes)
        if taints:
            lines.append(f"untolerated taints: {taints}")
        return lines
    if verdict is Verdict.YES:
        return [f"fits {len(result.fits)} of {len(result.nodes)} nodes"]
    if verdict is Verdict.ADDON_ONLY:
        return [f"only CriticalAddonsOnly (system) nodes fit: {_node_list(list(result.fits))}"]
    if verdict is Verdict.PARTIAL:
        return [_no_room(result.nodes)]
    return [result.reason or ""]


@by_identity(maxsize=4096)
def _no_room(outcomes: tuple[NodeOutcome, ...]) -> str:
    lacking = [
        f"{o.node} ({', '.join(o.reasons)})"
        for o in outcomes
        if o.reasons and all(is_room_reason(r) for r in o.reasons)
    ]
    return f"no room on {len(lacking)} targeted node(s): {_node_list(lacking)}"


def render_text(report: Report, now: datetime | None = None) -> str:
    lines = [provenance(report.snapshot, now)]
    width = max((len(v.value) for v in VERDICT_ORDER), default=0)
    for result in report.results:
        where = "" if result.name == str(result.location) else f"  ({result.location})"
        lines.append(f"{result.verdict.value:<{width}}  {result.title}{where}")
        lines.extend(f"{'':<{width}}    {d}" for d in _detail(result) if d)
        lines.extend(f"{'':<{width}}    warning: {w}" for w in result.warnings)
    lines.append(_summary_line(report))
    return "\n".join(lines) + "\n"


def _summary_line(report: Report) -> str:
    summary = report.summary
    counts = ", ".join(f"{summary.counts[v]} {v.value}" for v in VERDICT_ORDER if summary.counts[v])
    others = sum(n for _, n in report.other_documents)
    text = f"{summary.workloads} workload(s): {counts or 'none'}"
    if summary.warnings:
        text += f"; {summary.warnings} warning(s)"
    if others:
        text += f"; {others} other document(s) not checked"
    gate = "passed" if summary.passed else "FAILED"
    return f"{text}. Gate {gate}."
