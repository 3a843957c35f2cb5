"""GitHub workflow annotations: the verdicts on the changed lines of the pull request.

Each line is a workflow command (``::error file=...,line=...,title=...::message``) for
standard output, pointing at the line of the field that made the no (the first line of the
workload's document when no field can be named), which the message names first. GitHub shows at
most 10 error and 10 warning annotations per step, so the most severe come first, and one
notice says how many more there are rather than letting them vanish silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.model import Report, Verdict, WarningKind, WorkloadResult
from gate.reports.escape import workflow_message, workflow_property
from gate.reports.reporter import ReportContext
from gate.reports.views import Views
from gate.reports.wording import (
    NODES_SHOWN,
    budget_sentence,
    display_title,
    document_line,
    field_sentence,
    headline,
    pointed_line,
    reason_groups,
    repo_path,
)

SHOWN_PER_LEVEL = 10  # GitHub: "10 error annotations and 10 warning annotations per step"
# Most severe first: a document that cannot be read, then a pod that lands nowhere, then
# one that lands on too few or on the wrong nodes.
SEVERITY: tuple[Verdict, ...] = (
    Verdict.ERROR,
    Verdict.NO,
    Verdict.PARTIAL,
    Verdict.ADDON_ONLY,
    Verdict.SCALES,
    Verdict.PREEMPTS,
    Verdict.SKIPPED,
    Verdict.YES,
)
WARN_BY_DEFAULT = frozenset({Verdict.ADDON_ONLY, Verdict.PARTIAL, Verdict.PREEMPTS})
"""A PREEMPTS passes, but evicts someone's pods: it is warned about where the diff is read."""


@dataclass(frozen=True, slots=True)
class Annotation:
    level: str
    result: WorkloadResult
    title: str
    message: str
    line: int

    def command(self) -> str:
        properties = []
        path = repo_path(self.result)
        if path is not None:  # standard input has no place in the diff
            properties += [f"file={workflow_property(path)}", f"line={self.line}"]
        properties.append(f"title={workflow_property(self.title)}")
        return f"::{self.level} {','.join(properties)}::{workflow_message(self.message)}"


def _verdict_annotation(
    level: str, result: WorkloadResult, views: Views, cluster: str | None
) -> Annotation:
    lines = [headline(result, views)]
    pointed = field_sentence(result)
    if pointed is not None:
        lines.insert(0, pointed)
    if result.verdict is not Verdict.YES:
        lines += [g.line(NODES_SHOWN) for g in reason_groups(result, views)]
    on = f" on {cluster}" if cluster else ""
    title = f"fitgate {result.verdict.value}{on}: {display_title(result)}"
    return Annotation(level, result, title, "\n".join(lines), pointed_line(result))


def _missing_requests(result: WorkloadResult) -> Annotation | None:
    found = [w.text for w in result.warnings if w.kind is WarningKind.ZERO_REQUEST]
    if not found:
        return None
    title = f"fitgate: missing requests in {display_title(result)}"
    return Annotation("warning", result, title, "\n".join(found), document_line(result))


def _by_severity(results: list[WorkloadResult]) -> list[WorkloadResult]:
    return sorted(results, key=lambda r: SEVERITY.index(r.verdict))


def collect(
    report: Report,
    warn_on: frozenset[Verdict] | None = None,
    missing_requests: bool = True,
    views: Views | None = None,
    cluster: str | None = None,
) -> tuple[list[Annotation], list[Annotation]]:
    """Every error and warning annotation, most severe first, before GitHub's cap.

    Errors are the verdicts in ``report.fail_on``; warnings are ``warn_on`` (by default
    ``ADDON_ONLY`` and ``PARTIAL`` when they do not fail the gate) and, when
    ``missing_requests``, containers without cpu or memory requests.
    """
    views = views or Views()
    warn = (WARN_BY_DEFAULT if warn_on is None else warn_on) - report.fail_on
    failing = _by_severity([r for r in report.results if report.fails(r)])
    warned = _by_severity([r for r in report.results if r.verdict in warn])
    errors = [_verdict_annotation("error", r, views, cluster) for r in failing]
    warnings = [_verdict_annotation("warning", r, views, cluster) for r in warned]
    if missing_requests:
        found = (_missing_requests(r) for r in report.results)
        warnings += [a for a in found if a is not None]
    return errors, warnings


def render_annotations(
    report: Report,
    warn_on: frozenset[Verdict] | None = None,
    missing_requests: bool = True,
    views: Views | None = None,
    cluster: str | None = None,
) -> list[str]:
    """The workflow command lines to print, at most 10 per level plus one notice."""
    errors, warnings = collect(report, warn_on, missing_requests, views, cluster)
    lines = [a.command() for a in errors[:SHOWN_PER_LEVEL] + warnings[:SHOWN_PER_LEVEL]]
    more_errors = max(0, len(errors) - SHOWN_PER_LEVEL)
    more_warnings = max(0, len(warnings) - SHOWN_PER_LEVEL)
    if more_errors or more_warnings:
        message = (
            f"{more_errors} more error and {more_warnings} more warning annotations are not "
            f"shown (GitHub shows {SHOWN_PER_LEVEL} of each per step): the job summary "
            "lists every workload."
        )
        lines.append(f"::notice title=fitgate::{workflow_message(message)}")
    if report.nothing_judged is not None:  # no workload to point at: the run's own error
        lines.append(f"::error title=fitgate::{workflow_message(report.nothing_judged)}")
    budget = budget_sentence(report)
    if report.over_budget and budget:  # no workload fails: the run as a whole does
        lines.append(f"::error title=fitgate::{workflow_message(budget)}")
    return lines


def write_annotations(report: Report, context: ReportContext) -> str:
    """Every workflow command, one a line, as ``render_annotations`` picks them."""
    lines = render_annotations(report, views=context.views, cluster=context.cluster)
    return "".join(f"{line}\n" for line in lines)
