"""The short human summary printed on standard output, and the unreadable documents'
lines for standard error."""

from __future__ import annotations

from datetime import datetime

from gate.model import VERDICT_ORDER, Report, Verdict
from gate.reports.reporter import ReportContext
from gate.reports.views import Views
from gate.reports.wording import detail, provenance, summary_line


def render_text(report: Report, now: datetime | None = None, views: Views | None = None) -> str:
    views = views or Views()
    lines = [provenance(report.snapshot, now, report.warnings)]
    width = max((len(v.value) for v in VERDICT_ORDER), default=0)
    for result in report.results:
        where = "" if result.name == str(result.location) else f"  ({result.location})"
        lines.append(f"{result.verdict.value:<{width}}  {result.title}{where}")
        lines.extend(f"{'':<{width}}    {d}" for d in detail(result, views) if d)
        lines.extend(f"{'':<{width}}    warning: {w.text}" for w in result.warnings)
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def write_text(report: Report, context: ReportContext) -> str:
    return render_text(report, context.now, context.views)


def write_errors(report: Report, context: ReportContext) -> str:
    """One ``fitgate: file:line: reason`` line per unreadable document."""
    return "".join(
        f"fitgate: {r.location}: {r.reason}\n"
        for r in report.results
        if r.verdict is Verdict.ERROR and r.reason
    )
