"""The markdown PR comment and the job's step summary, from one jinja2 template.

The template ships as ``templates/comment.md.j2`` and can be replaced with
``--comment-template``. Every ``{{ value }}`` passes through :func:`markdown_text`
(the environment's ``finalize``), so a template cannot forget to escape untrusted text;
the template's literal text is markup. A value a template marks ``|safe`` is written raw:
that is the template author's decision. The environment is sandboxed because the
template file may itself come from the pull request under test.

GitHub refuses a comment over 65,536 characters and a step summary over 1 MiB. Rather
than cutting the text (which can leave a table or a ``<details>`` open), the report is
rendered again with fewer rows, emptying the least useful section first, until it fits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from datetime import datetime
from functools import cache
from typing import Any

from jinja2 import Environment, StrictUndefined, Template, TemplateError
from markupsafe import Markup

from gate import shipped_text
from gate.deadline import within
from gate.errors import UsageError
from gate.model import (
    COMMENT_LIMIT,
    VERDICT_ORDER,
    BaselineEntry,
    Change,
    Report,
    WorkloadResult,
    WorkloadWarning,
)
from gate.reports.escape import markdown_text
from gate.reports.policy import policy_lines
from gate.reports.reading import excluded_lines, read_line
from gate.reports.reporter import ReportContext
from gate.reports.views import Views
from gate.reports.wording import (
    NODES_SHOWN,
    baseline_counts,
    budget_sentence,
    change_note,
    counts,
    display_title,
    field_line,
    headline,
    provenance,
    reason_groups,
    requests_text,
    where,
)

SUMMARY_LIMIT = 1_048_576  # GitHub: a step summary upload is limited to 1 MiB
# --- the comment ----------------------------------------------------------------------------


def _md(text: str) -> Markup:
    """Escaped once when the rows are built, not at each of the renderings that
    :func:`fit_to_limit` may try; ``finalize`` passes it through untouched."""
    return Markup(markdown_text(text))


@dataclass(frozen=True, slots=True)
class Row:
    """A workload's row. ``workload`` never repeats ``location``: an unreadable document,
    named by its place, shows only its kind. ``change`` says how it compares with the
    baseline (empty without one, or when unchanged); ``distance`` how far it is from fitting
    (empty until the result carries it)."""

    verdict: Markup
    workload: Markup
    location: Markup
    message: Markup
    change: Markup
    before: Markup
    distance: Markup


@dataclass(frozen=True, slots=True)
class Group:
    count: int
    label: Markup
    nodes: Markup


@dataclass(frozen=True, slots=True)
class Breakdown:
    verdict: Markup
    workload: Markup
    location: Markup
    requests: Markup
    groups: tuple[Group, ...]


@dataclass(frozen=True, slots=True)
class WarningRow:
    workload: Markup
    location: Markup
    warning: Markup


@dataclass(frozen=True, slots=True)
class GoneRow:
    """A workload of the baseline this run does not have."""

    verdict: Markup
    workload: Markup
    location: Markup


WARNINGS_OPEN = 3
"""Up to this many warning rows show open; more are folded into a ``<details>``, so they
never push the failures' detail below the fold."""


@dataclass(frozen=True, slots=True)
class Sections:
    """Every row the comment could show, built once; a :class:`Budget` slices them.

    Against a baseline, ``failures`` are the new and worse ones (and errors), ``fixed``
    and ``still_failing`` have their own sections, and ``others`` holds the rest.
    """

    failures: tuple[Row, ...]
    breakdowns: tuple[Breakdown, ...]
    warnings: tuple[WarningRow, ...]
    others: tuple[Row, ...]
    fixed: tuple[Row, ...] = ()
    still_failing: tuple[Row, ...] = ()
    gone: tuple[GoneRow, ...] = ()

    @classmethod
    def of(cls, report: Report, views: Views) -> Sections:
        failing = [r for r in report.results if report.fails(r)]
        fixed = [r for r in report.results if _change(r) is Change.FIXED]
        still = [r for r in report.results if _change(r) is Change.STILL_FAILING]
        apart = {id(r) for r in (*failing, *fixed, *still)}
        gone = report.baseline.gone if report.baseline else ()
        md = _Escaped().__getitem__
        return cls(
            failures=tuple(_row(r, views, md) for r in failing),
            breakdowns=tuple(_breakdown(r, views, md) for r in failing if r.nodes),
            warnings=tuple(_warning(r, w, md) for r in report.results for w in r.warnings),
            others=tuple(_row(r, views, md) for r in report.results if id(r) not in apart),
            fixed=tuple(_row(r, views, md) for r in fixed),
            still_failing=tuple(_row(r, views, md) for r in still if not report.fails(r)),
            gone=tuple(_gone(e, md) for e in gone),
        )


class _Escaped(dict[str, Markup]):
    """The rows' texts, each escaped once: most cells repeat (empty, a verdict, a reason,
    the first nodes of a pool), a large run's 19,840 cells are 5,152 texts."""

    def __missing__(self, text: str) -> Markup:
        escaped = self[text] = _md(text)
        return escaped


def _change(result: WorkloadResult) -> Change | None:
    return result.compared.change if result.compared is not None else None


def _workload_cell(result: WorkloadResult) -> str:
    """The workload's title, or only its kind when the title is its place (an unreadable
    document is named ``Document file:line``), which the file column already shows."""
    if result.name == str(result.location):
        return result.kind
    return display_title(result)


def _distance(result: WorkloadResult) -> str:
    """The field behind the workload's main reason and how far it is from fitting (its
    request against the largest free amount among the nodes that pass the other filters),
    for the "why" column; empty when no node that counts rejects it."""
    return field_line(result) or ""


Escape = Callable[[str], Markup]
"""The rows' one markdown escape (:func:`_md`), as the rows are built."""


def _row(result: WorkloadResult, views: Views, md: Escape) -> Row:
    return Row(
        verdict=md(result.verdict.value),
        workload=md(_workload_cell(result)),
        location=md(where(result)),
        message=md(headline(result, views)),
        change=md(change_note(result) or ""),
        before=md(str(result.compared.before or "") if result.compared else ""),
        distance=md(_distance(result)),
    )


def _warning(result: WorkloadResult, warning: WorkloadWarning, md: Escape) -> WarningRow:
    return WarningRow(md(display_title(result)), md(where(result)), md(warning.text))


def _gone(entry: BaselineEntry, md: Escape) -> GoneRow:
    place = f"{entry.file}:{entry.line}" if entry.file and entry.line else ""
    title = entry.kind if place and entry.name == place else entry.title
    return GoneRow(md(entry.verdict.value), md(title), md(place))


def _breakdown(result: WorkloadResult, views: Views, md: Escape) -> Breakdown:
    groups = tuple(
        Group(g.count, md(g.label), md(g.listed(NODES_SHOWN))) for g in reason_groups(result, views)
    )
    requests = requests_text(result) or "none"
    return Breakdown(
        verdict=md(result.verdict.value),
        workload=md(display_title(result)),
        location=md(where(result)),
        requests=md(requests),
        groups=groups,
    )


@dataclass(frozen=True, slots=True)
class Budget:
    """How many rows of each section to show; ``SHRINK_ORDER`` empties them in turn."""

    failures: int
    breakdowns: int
    warnings: int
    others: int
    fixed: int = 0
    still_failing: int = 0
    gone: int = 0


# Least useful first: passing workloads, then warnings, then what the baseline already had
# and what left it, per-node detail, what got fixed; the failure table goes last, and the
# status line with every count is never dropped.
SHRINK_ORDER = (
    "others",
    "warnings",
    "still_failing",
    "gone",
    "breakdowns",
    "fixed",
    "failures",
)
_SECTION_NAMES = {
    "failures": "failing workloads",
    "breakdowns": "per-node breakdowns",
    "warnings": "warnings",
    "others": "workloads not failing the gate",
    "fixed": "fixed workloads",
    "still_failing": "workloads still failing",
    "gone": "workloads gone",
}


def _baseline(report: Report) -> dict[str, Any] | None:
    if report.baseline is None:
        return None
    return {
        "source": report.baseline.source,
        "counts": baseline_counts(report),
        "policy_changes": list(report.baseline.policy_changes),
    }


def _context(
    report: Report, cluster: str, now: datetime | None, sections: Sections
) -> dict[str, Any]:
    """The template's variables but the rows (:func:`_rows`), the same whatever rows
    show; the shipped template's header comment lists them."""
    summary = report.summary
    return {
        "cluster": cluster,
        "passed": summary.passed,
        "counts": counts(report),
        "warning_count": summary.warnings,
        "other_documents": sum(n for _, n in report.other_documents),
        "provenance": provenance(
            report.snapshot, now, report.warnings, cluster=cluster, read=report.read
        ),
        "fail_on": ", ".join(v.value for v in VERDICT_ORDER if v in report.fail_on),
        "version": report.version,
        "baseline": _baseline(report),
        "warnings_folded": len(sections.warnings) > WARNINGS_OPEN,
        "read": "" if report.read is None else read_line(report.read),
        "read_details": [] if report.read is None else excluded_lines(report.read),
        "nothing_judged": report.nothing_judged or "",
        "new_nodes": budget_sentence(report) or "",
        "policy": policy_lines(report.policy, report.fail_on),
    }


def _rows(sections: Sections, budget: Budget) -> dict[str, Any]:
    """The rows ``budget`` shows of each section, how many it hides, and what was
    shortened."""
    rows: dict[str, Any] = {"shortened": []}
    for name in SHRINK_ORDER:
        section = getattr(sections, name)
        shown = section[: getattr(budget, name)]
        hidden = len(section) - len(shown)
        rows[name] = shown
        rows[f"{name}_hidden"] = hidden
        if hidden:
            rows["shortened"].append(f"{hidden} of {len(section)} {_SECTION_NAMES[name]}")
    return rows


def _finalize(value: object) -> Markup:
    """Applied to every ``{{ }}``: the one markdown escape, unless already markup."""
    if isinstance(value, Markup):
        return value
    return Markup(markdown_text("" if value is None else str(value)))


def _environment(kind: type[Environment], *, autoescape: bool = True) -> Environment:
    return kind(
        autoescape=autoescape,
        finalize=_finalize,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def compile_template(source: str) -> Template:
    """A user's template, in jinja2's sandbox with budgets (:mod:`gate.reports.sandbox`):
    it may read the context, nothing else, and build nothing too large to hold."""
    # Imported here: fitgate's own template is rendered outside the sandbox.
    from gate.reports.sandbox import BudgetedSandbox, bounded_format

    environment = _environment(BudgetedSandbox)
    environment.filters["format"] = bounded_format
    return environment.from_string(source)


def _budgeted_render(compiled: Template, context: dict[str, Any]) -> str:
    """Render within ``TEMPLATE_SECONDS`` and ``TEMPLATE_OUTPUT``. A loop that prints
    nothing yields nothing to check, so the deadline is kept from outside
    (:func:`gate.deadline.within`): the run ends with an error, not waiting for it."""
    from gate.reports import sandbox  # here: only a user's template is rendered on a budget
    from gate.reports.sandbox import TemplateBudget

    def work() -> str:
        size, parts = 0, []
        for part in compiled.generate(context):
            size += len(part)
            if size > sandbox.TEMPLATE_OUTPUT:
                raise TemplateBudget(f"the output passed {sandbox.TEMPLATE_OUTPUT} characters")
            parts.append(part)
        return "".join(parts)

    def late() -> Exception:
        return TemplateBudget(f"rendering took more than {sandbox.TEMPLATE_SECONDS:g} s")

    return within(sandbox.TEMPLATE_SECONDS, work, late)


def shipped_template() -> str:
    return shipped_text("reports/templates/comment.md.j2")


@cache
def _compiled_shipped_template() -> Template:
    """fitgate's own template, compiled once and outside the sandbox, whose checks on every
    attribute read cost a third of rendering a large comment; the text is the same.

    Without autoescaping, too: every ``{{ }}`` still passes through ``finalize``, the one
    escape, and jinja2 then writes its text instead of escaping it again, which took half
    of each rendering. Autoescaping changes nothing else this template does (its one
    filter with a say in it, ``join``, joins plain text the same either way); a test
    holds it equal to the same text rendered as a user's template."""
    return _environment(Environment, autoescape=False).from_string(shipped_template())


def _size(text: str) -> int:
    """UTF-8 bytes: never fewer than the characters GitHub counts, and the unit of the
    step summary's limit."""
    return len(text.encode("utf-8"))


def fit_to_limit(render: Callable[[Budget], str], full: Budget, limit: int) -> str | None:
    """The fullest rendering within ``limit``: sections are emptied in ``SHRINK_ORDER``,
    and the first one whose emptying suffices is cut back as little as possible. None when
    even every section emptied does not fit."""
    text = render(full)
    if _size(text) <= limit:
        return text
    budget = full
    for name in SHRINK_ORDER:
        if not getattr(budget, name):
            continue  # nothing of it shows: emptying it would render the same text again
        too_long = text
        budget = replace(budget, **{name: 0})
        text = render(budget)
        if _size(text) <= limit:
            return _most_rows(render, budget, name, (text, too_long, getattr(full, name)), limit)
    return None


_INTERPOLATIONS = 4


def _most_rows(
    render: Callable[[Budget], str],
    budget: Budget,
    name: str,
    bracket: tuple[str, str, int],
    limit: int,
) -> str:
    """The longest rendering under ``limit`` with between 0 and ``rows`` rows of ``name``,
    given the renderings with 0 rows (fits) and with ``rows`` (too long).

    Rows are about the same size, so interpolating the size usually lands within a row or
    two of the answer: 5,000 failures of ~110 bytes and a 65,536 limit give 589 rows in
    three renderings instead of a dozen. Bisection takes over if it does not converge.
    """
    best, too_long, high = bracket
    low, low_size, high_size = 0, _size(best), _size(too_long)
    tries = 0
    while high - low > 1:
        if tries < _INTERPOLATIONS:
            guess = low + (limit - low_size) * (high - low) // max(1, high_size - low_size)
        else:
            guess = (low + high) // 2
        middle = min(max(guess, low + 1), high - 1)
        text = render(replace(budget, **{name: middle}))
        if _size(text) <= limit:
            low, low_size, best = middle, _size(text), text
        else:
            high, high_size = middle, _size(text)
        tries += 1
    return best


MINIMAL_NAME = 200
"""The most characters of the cluster's name the minimal comment shows (a context name can
be as long as a kubeconfig allows): the minimal comment is then at most a few kilobytes,
within any of GitHub's limits, and its marker the same from run to run."""


def _minimal(report: Report, cluster: str) -> str:
    """Marker and every count, for a template that cannot fit even with no rows."""
    summary = report.summary
    name = markdown_text(cluster if len(cluster) <= MINIMAL_NAME else cluster[:MINIMAL_NAME] + "…")
    counted = " · ".join(f"{n} {label}" for label, n in counts(report))
    state = "passed" if summary.passed else "failed"
    return (
        f"<!-- fitgate:{name} -->\n**fitgate {state} on {name}**: {counted}.\n\n"
        "The full comment exceeds GitHub's size limit; the JSON and JUnit reports list "
        "every workload.\n"
    )


def render_comment(
    report: Report,
    cluster: str,
    now: datetime | None,
    template: str | None = None,
    limit: int = COMMENT_LIMIT,
    views: Views | None = None,
    template_name: str = "",
) -> str:
    """The PR comment: failures first, every count always, within ``limit`` bytes.

    ``template`` is the text of a user's jinja2 template replacing the shipped one (read
    from ``template_name``); a template that fails to compile or render, or passes one of
    its budgets, is a :class:`UsageError` (exit 2) in one line naming it and its line.
    """
    try:
        compiled = _compiled_shipped_template() if template is None else compile_template(template)
        return _fitted(compiled, report, cluster, now, limit, views or Views())
    except _TEMPLATE_FAILURES as exc:
        if template is None:
            raise
        name = f"comment template {template_name}" if template_name else "comment template"
        from gate.reports.sandbox import refusal  # here: only a user's template is refused

        raise UsageError(refusal(name, exc)) from None


# What a user's template can raise while it renders: jinja2's own errors (syntax,
# undefined names, the sandbox's refusals and budgets), the operations it runs
# (``{{ 1 / 0 }}``), and the interpreter's own limits (a macro calling itself).
_TEMPLATE_FAILURES = (
    TemplateError,
    ArithmeticError,
    LookupError,
    TypeError,
    ValueError,
    RecursionError,
    MemoryError,
)


def _fitted(
    compiled: Template,
    report: Report,
    cluster: str,
    now: datetime | None,
    limit: int,
    views: Views,
) -> str:
    sections = views.of_report(Sections.of, report)
    full = Budget(**{f.name: len(getattr(sections, f.name)) for f in fields(Budget)})

    unchanged = _context(report, cluster, now, sections)

    def render(budget: Budget) -> str:
        context = {**unchanged, **_rows(sections, budget)}
        if compiled is _compiled_shipped_template():
            return compiled.render(context)
        return _budgeted_render(compiled, context)

    text = fit_to_limit(render, full, limit)
    return _minimal(report, cluster) if text is None else text


def render_summary(
    report: Report, cluster: str, now: datetime | None, views: Views | None = None
) -> str:
    """The step summary: the comment's content within GitHub's 1 MiB summary limit."""
    return render_comment(report, cluster, now, limit=SUMMARY_LIMIT, views=views)


def write_comment(report: Report, context: ReportContext) -> str:
    """The PR comment, from the context's template when it names one."""
    return render_comment(
        report,
        context.cluster,
        context.now,
        context.comment_template,
        views=context.views,
        template_name=context.comment_template_name,
    )


def write_summary(report: Report, context: ReportContext) -> str:
    return render_summary(report, context.cluster, context.now, context.views)
