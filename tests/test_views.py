"""Per-outcome views: derived once per outcome tuple and shared by every writer given the
same context; never a view of another tuple."""

from __future__ import annotations

from gate.model import NodeOutcome
from gate.reports.junit import write_junit
from gate.reports.markdown import write_comment
from gate.reports.reporter import ReportContext
from gate.reports.views import Outcomes, Views, fitting_nodes
from gate.reports.wording import reason_groups
from tests.report_builders import CLUSTER, NOW, fixture_report


def test_a_view_is_derived_once_per_tuple_and_never_for_an_equal_one() -> None:
    calls: list[Outcomes] = []

    def count(nodes: Outcomes) -> int:
        calls.append(nodes)
        return len(nodes)

    views = Views()
    first = (NodeOutcome("a", ()), NodeOutcome("b", ("Insufficient cpu",)))
    twin = tuple(list(first))
    assert first == twin and first is not twin
    assert views.of(count, first) == 2 and views.of(count, first) == 2
    assert len(calls) == 1  # the same tuple is not derived again
    assert views.of(count, twin) == 2
    assert len(calls) == 2  # an equal but different tuple is derived on its own
    assert views.of(fitting_nodes, first) == ("a",)


def test_writers_given_one_context_share_its_views() -> None:
    report = fixture_report()
    context = ReportContext(CLUSTER, NOW)
    write_junit(report, context)
    failing = [r for r in report.results if r.nodes and r.verdict in report.fail_on]
    assert failing
    shared = [reason_groups(r, context.views) for r in failing]
    write_comment(report, context)
    assert all(
        reason_groups(r, context.views) is groups for r, groups in zip(failing, shared, strict=True)
    )
