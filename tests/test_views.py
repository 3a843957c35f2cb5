"""Per-outcome views: derived once per outcomes value and shared by every writer given the
same context, never a view of another value; derived from the sets of nodes that share an
outcome, they equal the views walked node by node."""

from __future__ import annotations

import doctest
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate import model
from gate.cli import write_sarif
from gate.model import (
    ROOM_PLUGINS,
    Code,
    NodeOutcome,
    NodeOutcomes,
    Report,
    Taint,
    Verdict,
    WorkloadResult,
)
from gate.model.contract import Untolerated
from gate.reports import views, wording
from gate.reports.annotations import write_annotations
from gate.reports.jsonreport import Group, Shown, _ListedNames, _untolerated, outcome_groups
from gate.reports.junit import write_junit
from gate.reports.markdown import Sections, write_comment, write_summary
from gate.reports.reporter import ReportContext
from gate.reports.views import Outcomes, Views, fitting_count, fitting_nodes
from gate.reports.wording import NODES_SHOWN, detail, headline, node_list, reason_groups
from tests.report_builders import CLUSTER, NOW, fixture_report, result


def test_a_view_is_derived_once_per_tuple_and_never_for_an_equal_one() -> None:
    calls: list[NodeOutcomes] = []

    def count(nodes: NodeOutcomes) -> int:
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


def test_the_comment_and_the_step_summary_lay_out_rows_derived_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = fixture_report()
    derived: list[Report] = []
    derive = Sections.of

    def counted(cls: type[Sections], report: Report, views: Views) -> Sections:
        derived.append(report)
        return derive(report, views)

    monkeypatch.setattr(Sections, "of", classmethod(counted))
    context = ReportContext(CLUSTER, NOW)
    comment, summary = write_comment(report, context), write_summary(report, context)
    assert derived == [report]
    assert (comment, summary) == (write_comment(report, ReportContext(CLUSTER, NOW)), summary)
    assert len(derived) == 2  # another context derives its own


def test_every_writer_sharing_a_context_says_a_workloads_headline_derived_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = fixture_report()
    derived: list[WorkloadResult] = []
    derive = wording._headline

    def counted(result: WorkloadResult, views: Views) -> str:
        derived.append(result)
        return derive(result, views)

    monkeypatch.setattr(wording, "_headline", counted)
    context = ReportContext(CLUSTER, NOW)
    for writer in (write_junit, write_comment, write_summary, write_annotations, write_sarif):
        writer(report, context)
    assert sorted(map(id, derived)) == sorted(set(map(id, derived)))
    assert len(derived) == len(report.results)


# --- every view, derived from the sets of nodes, equals the view walked node by node ---------

_TAINT = Taint("dedicated", "gpu", "NoSchedule")
_SHOWN = (
    NodeOutcome("", ("Insufficient cpu",), plugin="NodeResourcesFit", code=Code.UNSCHEDULABLE),
    NodeOutcome("", ("Insufficient cpu", "Too many pods"), plugin="NodeResourcesFit"),
    NodeOutcome("", ("Insufficient cpu",), plugin="NodePorts"),  # same reasons, other plugin
    NodeOutcome("", ("node(s) had untolerated taint {dedicated: gpu}",), _TAINT, "TaintToleration"),
    NodeOutcome("", ("node(s) had untolerated taint {dedicated: gpu}",), _TAINT, "NodeAffinity"),
    NodeOutcome("", ("node(s) didn't match Pod's node affinity/selector",), None, "NodeAffinity"),
    NodeOutcome("", ("node(s) didn't match pod anti-affinity rules",), None, "InterPodAffinity"),
)


@st.composite
def node_outcomes(draw: st.DrawFn) -> tuple[NodeOutcome, ...]:
    """Up to 70 nodes, each fitting or rejected with one of a few outcomes, some with an
    equal taint of their own (as outcomes read back from a report have)."""
    kinds = draw(st.lists(st.tuples(st.integers(-1, len(_SHOWN) - 1), st.booleans()), max_size=70))
    built = []
    for i, (kind, own_taint) in enumerate(kinds):
        if kind < 0:
            built.append(NodeOutcome(f"n{i}", ()))
            continue
        shown = _SHOWN[kind]
        taint = shown.taint
        if own_taint and taint is not None:
            taint = Taint(taint.key, taint.value, taint.effect)
        built.append(NodeOutcome(f"n{i}", shown.reasons, taint, shown.plugin, shown.code))
    return tuple(built)


def _naive_groups(nodes: Outcomes, listed: int | None) -> list[Group]:
    counts: dict[Shown, int] = {}
    chosen: dict[Shown, list[str]] = {}
    for o in nodes:
        shown = (o.reasons, o.plugin if o.reasons else "", o.code if o.reasons else None)
        counts[shown] = counts.get(shown, 0) + 1
        group = chosen.setdefault(shown, [])
        if listed is None or len(group) < listed:
            group.append(o.node)
    return [(shown, count, chosen[shown]) for shown, count in counts.items()]


def _naive_reason_groups(nodes: Outcomes, daemonset: bool) -> list[tuple[str, tuple[str, ...]]]:
    groups: dict[tuple[int, str], list[str]] = {}
    for o in nodes:
        rank, label = 1, "fit"
        if not o.fits:
            label = ", ".join(o.reasons)
            if o.taint is not None and o.taint.braced() not in label:
                label += f" ({o.taint})"
            targeted = o.plugin in ROOM_PLUGINS
            rank, label = (
                (2, f"not targeted: {label}") if daemonset and not targeted else (0, label)
            )
        groups.setdefault((rank, label), []).append(o.node)
    ordered = sorted(groups.items(), key=lambda item: (item[0][0], -len(item[1]), item[0][1]))
    return [(label, tuple(names)) for (_, label), names in ordered]


def _naive_untolerated(nodes: Outcomes) -> list[Untolerated]:
    by_taint: dict[Taint, int] = {}
    for number, o in enumerate(nodes):
        if o.taint is not None:
            by_taint[o.taint] = by_taint.get(o.taint, 0) | 1 << number
    return [
        Untolerated(key=t.key, value=t.value, effect=t.effect, nodes=f"{bits:x}")
        for t, bits in by_taint.items()
    ]


def _naive_lines(nodes: Outcomes) -> tuple[str, str, str]:
    """The taint line, the no-room line and the partial headline, node by node."""
    taints = Counter(str(o.taint) for o in nodes if o.taint is not None)
    lacking = [f"{o.node} ({', '.join(o.reasons)})" for o in nodes if o.plugin in ROOM_PLUGINS]
    targeted = [o for o in nodes if o.fits or o.plugin in ROOM_PLUGINS]
    reasons = Counter(r for o in targeted for r in o.reasons)
    entries = sorted((f"{n} {r}" for r, n in reasons.items()), key=lambda e: e.encode("utf-8"))
    short = sum(1 for o in targeted if not o.fits)
    return (
        ", ".join(f"{n} x {taint}" for taint, n in sorted(taints.items())),
        f"without room: {node_list(lacking, NODES_SHOWN)}",
        f"no room on {short} of {len(targeted)} targeted nodes: {', '.join(entries)}",
    )


def _as_sets(nodes: Outcomes) -> list[Outcomes]:
    """The outcomes as read back (a tuple), put in sets, and in sets listed in another
    order, as the engine may list them."""
    sets = NodeOutcomes.of(nodes)
    return [nodes, sets, NodeOutcomes(sets.names, tuple(reversed(sets.groups)))]


@settings(max_examples=150, deadline=None)
@given(node_outcomes(), st.sampled_from([None, 0, 1, 3, 10]))
def test_every_view_of_the_sets_equals_the_view_node_by_node(
    nodes: tuple[NodeOutcome, ...], listed: int | None
) -> None:
    taints, no_room, partial = _naive_lines(nodes)
    for given_nodes in _as_sets(nodes):
        assert given_nodes == nodes and tuple(given_nodes) == nodes
        assert [given_nodes[i] for i in range(len(nodes))] == list(nodes)
        fitting = tuple(o.node for o in nodes if o.fits)
        assert Views().of(fitting_nodes, given_nodes) == fitting
        assert Views().of(fitting_count, given_nodes) == len(fitting)
        assert outcome_groups(given_nodes, listed) == _naive_groups(nodes, listed)
        if listed is not None:
            once = _ListedNames(listed)  # the second time, every set's names are kept ones
            for _ in range(2):
                assert outcome_groups(given_nodes, listed, once) == _naive_groups(nodes, listed)
        for kind, daemonset in (("Deployment", False), ("DaemonSet", True)):
            grouped = reason_groups(result(kind=kind, nodes=given_nodes))
            naive = _naive_reason_groups(nodes, daemonset)
            assert [(g.label, g.nodes) for g in grouped] == naive
            shown = [(g.listed(1), g.listed(2), g.listed(1)) for g in grouped]
            assert shown == [tuple(node_list(names, n) for n in (1, 2, 1)) for _, names in naive]
        failing = result(nodes=given_nodes, verdict=Verdict.NO, message="m")
        named = [f"untolerated taints: {taints}"] if taints else []
        assert detail(failing, Views()) == ["m", *named, ""]
        daemonset_result = result(kind="DaemonSet", nodes=given_nodes, verdict=Verdict.PARTIAL)
        # The same sentence as every other report's headline, then the nodes without room.
        assert detail(daemonset_result, Views())[:2] == [partial, no_room]
        partial_result = result(nodes=given_nodes, verdict=Verdict.PARTIAL)
        assert headline(partial_result) == " ".join(partial.split())  # one line
        assert _untolerated(result(nodes=given_nodes)) == _naive_untolerated(nodes)


def test_outcomes_of_more_kinds_than_a_byte_numbers_are_put_in_sets_exactly() -> None:
    nodes = tuple(NodeOutcome(f"n{i}", (f"reason {i % 300}",) if i % 7 else ()) for i in range(900))
    sets = NodeOutcomes.of(nodes)
    assert sets == nodes and len(sets.groups) == 300
    assert outcome_groups(sets, 2) == _naive_groups(nodes, 2)


def test_the_examples_in_the_docstrings_hold() -> None:
    assert doctest.testmod(model).failed == 0
    assert doctest.testmod(views).failed == 0
