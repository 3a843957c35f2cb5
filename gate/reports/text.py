"""The short human summary printed on standard output, and the unreadable documents'
lines for standard error."""

from __future__ import annotations

from datetime import datetime

from gate.model import VERDICT_ORDER, Report, Verdict
from gate.reports.escape import terminal_text
from gate.reports.policy import autoscaling_line
from gate.reports.reading import excluded_lines, read_line
from gate.reports.reporter import ReportContext
from gate.reports.views import Views
from gate.reports.wording import change_note, detail, gone_line, provenance, summary_line, where

# SGR sequences (ECMA-48) for the verdict words on a terminal: each word is reset after.
_COLOURS = {
    Verdict.YES: "\x1b[32m",  # green
    Verdict.SCALES: "\x1b[36m",  # cyan
    Verdict.PREEMPTS: "\x1b[35m",  # magenta
    Verdict.NO: "\x1b[31m",  # red
    Verdict.ERROR: "\x1b[31m",
    Verdict.PARTIAL: "\x1b[33m",  # yellow
    Verdict.ADDON_ONLY: "\x1b[33m",
    Verdict.SKIPPED: "\x1b[2m",  # dim
}
_RESET = "\x1b[0m"


def render_text(
    report: Report,
    now: datetime | None = None,
    views: Views | None = None,
    *,
    quiet: bool = False,
    colour: bool = False,
    cluster: str | None = None,
) -> str:
    """The summary: the snapshot line, each workload with its detail lines, the status
    line. ``quiet`` keeps only the workloads that fail the gate and the status line;
    ``colour`` colours the verdict words. Text from the pull request or the cluster is
    escaped line by line (:func:`~gate.reports.escape.terminal_text`) before any colour
    is added, so only fitgate's own sequences reach a terminal."""
    views = views or Views()
    width = max((len(v.value) for v in VERDICT_ORDER), default=0)
    line = provenance(report.snapshot, now, report.warnings, cluster=cluster, read=report.read)
    lines = [] if quiet else [terminal_text(line)]
    for result in report.results:
        if quiet and not report.fails(result):
            continue
        place = "" if result.name == str(result.location) else f"  ({where(result)})"
        word = result.verdict.value
        pad = " " * (width - len(word))
        if colour:
            word = f"{_COLOURS[result.verdict]}{word}{_RESET}"
        note = change_note(result)
        title = result.title + place + (f"  [{note}]" if note else "")
        lines.append(f"{word}{pad}  {terminal_text(title)}")
        lines.extend(f"{'':<{width}}    {terminal_text(d)}" for d in detail(result, views) if d)
        lines.extend(f"{'':<{width}}    warning: {terminal_text(w.text)}" for w in result.warnings)
    if report.baseline is not None and not quiet:
        lines.extend(
            f"{'GONE':<{width}}  {terminal_text(gone_line(e))}" for e in report.baseline.gone
        )
    if report.read is not None and not quiet:
        lines.append(terminal_text(read_line(report.read)))
        lines.extend(f"    {terminal_text(line)}" for line in excluded_lines(report.read))
    if report.policy is not None and not quiet:  # what a pull request may change
        lines.extend(
            terminal_text(f"autoscaling input: {autoscaling_line(i)}") for i in report.policy.inputs
        )
    lines.append(terminal_text(summary_line(report)))  # it names the baseline's file
    return "\n".join(lines) + "\n"


def write_text(report: Report, context: ReportContext) -> str:
    return render_text(
        report,
        context.now,
        context.views,
        quiet=context.quiet,
        colour=context.colour,
        cluster=context.cluster,
    )


def write_errors(report: Report, context: ReportContext) -> str:
    """One ``fitgate: file:line: reason`` line per unreadable document."""
    return "".join(
        f"fitgate: {terminal_text(f'{r.location}: {r.reason}')}\n"
        for r in report.results
        if r.verdict is Verdict.ERROR and r.reason
    )
