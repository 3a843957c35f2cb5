"""JUnit XML for CI test tabs: one ``<testsuite>`` per snapshot, one ``<testcase>`` per
workload.

Each consumer reads a different part of the format, so the output satisfies them all:

- Jenkins validates against its ``junit-10.xsd`` and splits ``classname`` at the last dot
  into package and class: ``<cluster>.<namespace>.<Kind>`` shows as package
  ``<cluster>.<namespace>``, class ``<Kind>``.
- GitLab shows a failure's text, not its ``message``, reads ``file``, and keeps only the
  first of several test cases with one classname and name: later duplicates get their
  location appended so none is hidden.
- mikepenz/action-junit-report annotates ``file`` at ``line``.
- dorny/test-reporter needs ``time`` on every element.

``time`` is always ``0.000``: evaluating a workload takes microseconds, so a measured
time would say nothing while making the same inputs give different bytes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gate.model import SNAPSHOT_CAVEAT, VERDICT_ORDER, Change, Report, Verdict, WorkloadResult
from gate.reports.escape import xml_attr, xml_text
from gate.reports.reading import read_properties
from gate.reports.reporter import ReportContext
from gate.reports.views import Views
from gate.reports.wording import (
    change_note,
    display_title,
    document_line,
    field_line,
    gone_line,
    headline,
    reason_groups,
    repo_path,
    requests_text,
    where,
)

TIME = "0.000"
NODES_SHOWN = 20


def status(result: WorkloadResult, fail_on: frozenset[Verdict]) -> str | None:
    """The child element a test case gets, or None when it passed.

    A verdict in ``fail_on`` fails the test (an ``ERROR`` as ``<error>``, since the
    document was never evaluated); outside it, an unevaluated document is skipped and any
    other verdict passes, so the test tab agrees with the gate's exit code. Against a
    baseline, a workload that failed before and is no worse is skipped: every consumer
    shows skipped tests apart from failures, with the message saying it still fails.
    """
    if result.verdict in fail_on and not result.allowed:
        if result.compared is not None and not result.compared.fails:
            return "skipped"  # failing before this change too: not this change's failure
        return "error" if result.verdict is Verdict.ERROR else "failure"
    if result.verdict in (Verdict.SKIPPED, Verdict.ERROR):
        return "skipped"
    return None


def _attrs(pairs: Mapping[str, object]) -> str:
    return "".join(f' {key}="{xml_attr(str(value))}"' for key, value in pairs.items())


def _breakdown(result: WorkloadResult, views: Views) -> list[str]:
    """The failure text, which GitLab shows instead of the message attribute. Each line
    starts with fitgate's own words, never with text from the manifests."""
    lines = [
        f"{result.verdict.value}: {display_title(result)} at {where(result)}",
        f"why: {headline(result, views)}",
    ]
    note = change_note(result)
    if note:
        lines.append(f"baseline: {note}")
    pointed = field_line(result)
    if pointed is not None:
        lines.append(f"field at {pointed}" if result.field_at else f"field: {pointed}")
    if result.requests:
        lines.append(f"requests: {requests_text(result)}")
    lines.extend(g.line(NODES_SHOWN) for g in reason_groups(result, views))
    return lines


def _text(lines: list[str]) -> str:
    return "\n".join(xml_text(line) for line in lines)


def _children(result: WorkloadResult, fail_on: frozenset[Verdict], views: Views) -> Iterator[str]:
    kind = status(result, fail_on)
    message = headline(result, views)
    note = change_note(result)
    compared = result.compared
    still = compared is not None and compared.change is Change.STILL_FAILING
    if kind == "skipped":
        shown = f"{result.verdict.value} ({note}, not new): {message}" if still else message
        yield f"<skipped{_attrs({'message': shown})}/>"
    elif kind is not None:
        attrs = _attrs({"type": result.verdict.value, "message": message})
        yield f"<{kind}{attrs}>{_text(_breakdown(result, views))}</{kind}>"
    out = [f"warning: {w.text}" for w in result.warnings]
    if kind is None and result.verdict is not Verdict.YES:
        # An allowed ADDON_ONLY says why in its message; its verdict may be in failOn.
        why = "" if result.allowed else " (not in --fail-on)"
        out.insert(0, f"{result.verdict.value}{why}: {message}")
    elif kind is None and result.gates:  # a gated YES says what holds it
        out.insert(0, f"{result.verdict.value}: {message}")
    if note and kind not in ("failure", "error") and not still:  # else the element says it
        out.insert(0, f"baseline: {note}")
    if out:
        yield f"<system-out>{_text(out)}</system-out>"


def _case_names(report: Report, cluster: str) -> list[tuple[str, str]]:
    """``(classname, name)`` per result, unique: GitLab would drop every duplicate."""
    seen: set[tuple[str, str]] = set()
    names = []
    for result in report.results:
        classname = f"{cluster}.{result.namespace or '-'}.{result.kind or '-'}"
        name = result.name
        if (classname, name) in seen:
            name = f"{result.name} ({where(result)})"
        serial = 2
        while (classname, name) in seen:
            name, serial = f"{result.name} ({where(result)}) #{serial}", serial + 1
        seen.add((classname, name))
        names.append((classname, name))
    return names


def _testcase(
    result: WorkloadResult, classname: str, name: str, fail_on: frozenset[Verdict], views: Views
) -> str:
    attrs: dict[str, object] = {"classname": classname, "name": name}
    path = repo_path(result)
    if path is not None:  # GitLab and action-junit-report; not in Jenkins' schema
        attrs.update(file=path, line=document_line(result))
    attrs["time"] = TIME
    children = list(_children(result, fail_on, views))
    if not children:
        return f"    <testcase{_attrs(attrs)}/>"
    inner = "".join(f"\n      {c}" for c in children)
    return f"    <testcase{_attrs(attrs)}>{inner}\n    </testcase>"


def _properties(report: Report) -> list[str]:
    info = report.snapshot
    values: dict[str, object] = {
        "fitgate.version": report.version or "unknown",
        "snapshot.source": info.source,
        "snapshot.context": info.context or "unknown",
        "snapshot.capturedAt": info.captured_at or "unknown",
        "snapshot.caveat": SNAPSHOT_CAVEAT,
        "snapshot.serverVersion": info.server_version or "unknown",
        "snapshot.nodes": info.nodes,
        "snapshot.pods": info.pods,
        "gate.failOn": ",".join(v.value for v in VERDICT_ORDER if v in report.fail_on),
    }
    if report.nothing_judged is not None:
        values["gate.nothingJudged"] = report.nothing_judged
    if report.read is not None:
        values.update(read_properties(report.read))
    if report.baseline is not None:
        values["gate.baseline"] = report.baseline.source
        values.update(
            (f"baseline.gone.{n}", gone_line(e)) for n, e in enumerate(report.baseline.gone, 1)
        )
    rows = [f"      <property{_attrs({'name': k, 'value': v})}/>" for k, v in values.items()]
    rows.extend(
        f"      <property{_attrs({'name': 'fitgate.warning', 'value': w})}/>"
        for w in report.warnings
    )
    return ["    <properties>", *rows, "    </properties>"]


def counts(report: Report) -> dict[str, int]:
    """tests/failures/errors/skipped, from the same :func:`status` the cases use."""
    statuses = [status(r, report.fail_on) for r in report.results]
    return {
        "tests": len(statuses),
        "failures": statuses.count("failure"),
        "errors": statuses.count("error"),
        "skipped": statuses.count("skipped"),
    }


def render_junit(report: Report, cluster: str, views: Views | None = None) -> str:
    """The whole document; ``cluster`` names the suite and prefixes every classname."""
    views = views or Views()
    total = counts(report)
    # Jenkins' schema has no ``skipped`` on <testsuites>: the suite carries it.
    suites = {k: v for k, v in total.items() if k != "skipped"}
    cases = [
        _testcase(r, classname, name, report.fail_on, views)
        for r, (classname, name) in zip(report.results, _case_names(report, cluster), strict=True)
    ]
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<testsuites{_attrs({'name': 'fitgate', **suites, 'time': TIME})}>",
        f"  <testsuite{_attrs({'name': cluster, **total, 'time': TIME})}>",
        *_properties(report),
        *cases,
        "  </testsuite>",
        "</testsuites>",
    ]
    return "\n".join(lines) + "\n"


def write_junit(report: Report, context: ReportContext) -> str:
    return render_junit(report, context.cluster, context.views)
