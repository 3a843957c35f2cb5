"""The CI reporters: JUnit XML, the markdown PR comment and step summary, annotations."""

from __future__ import annotations

import doctest
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
import xmlschema
from junitparser import Error, Failure, JUnitXml, Skipped

from gate.errors import UsageError
from gate.model import COMMENT_LIMIT, NodeOutcome, Report, Verdict, WarningKind, WorkloadWarning
from gate.reports import escape
from gate.reports.annotations import render_annotations
from gate.reports.escape import (
    markdown_text,
    workflow_message,
    workflow_property,
    xml_attr,
    xml_text,
)
from gate.reports.junit import render_junit
from gate.reports.markdown import (
    SUMMARY_LIMIT,
    render_comment,
    render_summary,
)
from gate.reports.wording import reason_groups
from tests.conftest import JUNIT_XSD
from tests.report_builders import (
    ADDON_TAINT,
    CAPTURED_AT,
    CLUSTER,
    NO_CPU,
    NOW,
    TAINT_REASON,
    USER_NODES,
    ZERO_REQUEST_WARNING,
    fixture_report,
    fixture_results,
    outcomes,
    report,
    result,
    snapshot_info,
)

Golden = Callable[[str, str], None]
GOLDEN_REPORTS = Path(__file__).resolve().parent / "golden" / "reports"
HOSTILE_NAME = "<img src=x onerror=alert(1)>|@admin"
HOSTILE_TEXT = 'label "x\n::error::pwned\r\n::add-mask::y" \x1b[31m\x00\u202e`**@admin**`'
HOSTILE_FILE = "deploy/evil,title=x:y%0A.yaml"
HOSTILE_WARNING = WorkloadWarning(
    WarningKind.ZERO_REQUEST, f"{HOSTILE_TEXT}: a zero request fits every node and is evicted later"
)
CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e]")


def hostile_report() -> Report:
    """Every place untrusted text reaches a report, filled with attacks."""
    return report(
        result(
            HOSTILE_NAME,
            verdict=Verdict.NO,
            namespace="web",
            file=HOSTILE_FILE,
            message=f"0/3 nodes are available: 3 {HOSTILE_TEXT}.",
            nodes=outcomes(USER_NODES, HOSTILE_TEXT),
            warnings=(HOSTILE_WARNING,),
        ),
        result(HOSTILE_NAME, verdict=Verdict.ERROR, file=HOSTILE_FILE, reason=HOSTILE_TEXT),
        result("ok", file=HOSTILE_FILE, nodes=outcomes(USER_NODES), warnings=(HOSTILE_WARNING,)),
        info=snapshot_info(context=HOSTILE_NAME),
    )


def many_results(count: int) -> Report:
    """``count`` workloads cycling through every verdict, on a 50-node cluster."""
    nodes = [f"node-{i:02}" for i in range(50)]
    cycle = (
        Verdict.NO,
        Verdict.YES,
        Verdict.ADDON_ONLY,
        Verdict.PARTIAL,
        Verdict.ERROR,
        Verdict.SKIPPED,
    )
    return report(
        *(
            result(
                f"app-{i:04}",
                verdict=cycle[i % 6],
                namespace=f"team-{i % 7}",
                file=f"deploy/app-{i:04}.yaml",
                message=f"0/50 nodes are available: 50 {NO_CPU}." if i % 6 == 0 else None,
                reason="skipped or broken" if i % 6 >= 4 else None,
                nodes=outcomes(nodes, NO_CPU) if i % 6 < 4 else (),
                warnings=(ZERO_REQUEST_WARNING,) if i % 3 == 0 else (),
            )
            for i in range(count)
        ),
        info=snapshot_info(nodes=50, pods=900),
    )


@pytest.fixture(scope="module")
def five_thousand() -> Report:
    return many_results(5000)


# --- golden files ------------------------------------------------------------------------


def test_comment_matches_its_golden_file(golden: Golden) -> None:
    golden("reports/comment.md", render_comment(fixture_report(), CLUSTER, NOW))


def test_step_summary_matches_its_golden_file(golden: Golden) -> None:
    golden("reports/summary.md", render_summary(fixture_report(), CLUSTER, NOW))


def test_passing_comment_without_capture_time_matches_its_golden_file(golden: Golden) -> None:
    passing = report(
        fixture_results()[0],
        fixture_results()[-1],
        info=snapshot_info(captured_at=None, context=None, server_version=None),
    )
    golden("reports/comment-passed.md", render_comment(passing, "aks-six-nodes.json", NOW))


def test_shortened_comment_matches_its_golden_file(golden: Golden) -> None:
    golden(
        "reports/comment-shortened.md", render_comment(fixture_report(), CLUSTER, NOW, limit=2500)
    )


def test_junit_matches_its_golden_file(golden: Golden) -> None:
    golden("reports/junit.xml", render_junit(fixture_report(), CLUSTER))


def test_annotations_match_their_golden_file(golden: Golden) -> None:
    golden("reports/annotations.txt", "\n".join(render_annotations(fixture_report())) + "\n")


def test_annotations_warn_on_verdicts_outside_fail_on(golden: Golden) -> None:
    lenient = report(*fixture_results(), fail_on=frozenset({Verdict.NO, Verdict.ERROR}))
    golden("reports/annotations-lenient.txt", "\n".join(render_annotations(lenient)) + "\n")


def test_golden_files_hold_no_wall_clock_times_or_absolute_paths() -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted(GOLDEN_REPORTS.iterdir())]
    assert texts, "no golden reports: run pytest --update-golden"
    for text in texts:
        assert set(re.findall(r"\d{4}-\d\d-\d\dT[\d:]+Z?", text)) <= {CAPTURED_AT}
        assert not re.search(r"(^|[\s\"'=(:])/[A-Za-z]", text, re.MULTILINE)
        assert str(Path.home()) not in text


def test_same_report_gives_the_same_bytes() -> None:
    renders: list[Callable[[], str]] = [
        lambda: render_comment(fixture_report(), CLUSTER, NOW),
        lambda: render_junit(fixture_report(), CLUSTER),
        lambda: "\n".join(render_annotations(fixture_report())),
    ]
    for render in renders:
        assert render() == render()


# --- JUnit ---------------------------------------------------------------------------------


def _without_file_and_line(text: str) -> str:
    """Jenkins' schema lacks the ``file``/``line`` GitLab and action-junit-report read."""
    return re.sub(r' (file|line)="[^"]*"', "", text)


def test_junit_validates_against_jenkins_schema() -> None:
    schema = xmlschema.XMLSchema(str(JUNIT_XSD))
    for rep in (fixture_report(), hostile_report(), many_results(60)):
        schema.validate(_without_file_and_line(render_junit(rep, CLUSTER)))


def test_junit_counts_agree_at_every_level() -> None:
    xml = JUnitXml.fromstring(render_junit(fixture_report(), CLUSTER))
    suites = list(xml)
    assert [s.name for s in suites] == [CLUSTER]
    suite = suites[0]
    outcome_types = [type(o) for case in suite for o in case.result]
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (7, 3, 1, 1)
    assert outcome_types.count(Failure) == suite.failures
    assert outcome_types.count(Error) == suite.errors
    assert outcome_types.count(Skipped) == suite.skipped
    assert len(list(suite)) == suite.tests
    assert (xml.tests, xml.failures, xml.errors) == (7, 3, 1)


def test_junit_testcases_carry_classname_file_line_and_time() -> None:
    root = ET.fromstring(render_junit(fixture_report(), CLUSTER))
    cases = root.findall("./testsuite/testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases][:2] == [
        ("aks-prod.web.Deployment", "web-small"),
        ("aks-prod.web.Deployment", "web-big"),
    ]
    assert cases[-1].get("file") == "fixtures/manifests/06-skipped-and-unrequested.yaml"
    assert cases[-1].get("line") == "20"
    assert all(e.get("time") == "0.000" for e in [root, *root, *cases])
    failure = cases[1].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.get("type") == "NO"
    assert failure.text.splitlines() == [
        "NO: Deployment web/web-big at fixtures/manifests/02-web-big.yaml:1",
        f"why: 0/6 nodes are available: 3 {NO_CPU}, 3 {TAINT_REASON}.",
        "requests: cpu 2, memory 512Mi",
        "3 node(s): Insufficient cpu: aks-user-0, aks-user-1, aks-user-2",
        f"3 node(s): {TAINT_REASON}: aks-system-0, aks-system-1, aks-system-2",
    ]
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["snapshot.capturedAt"] == CAPTURED_AT
    assert props["snapshot.nodes"] == "6"


def test_junit_gives_duplicate_names_their_location_so_gitlab_keeps_both() -> None:
    twice = report(
        result("web", file="a.yaml"),
        result("web", file="./b.yaml", line=7),
        result("web", file="./b.yaml", line=7),
    )
    root = ET.fromstring(render_junit(twice, CLUSTER))
    assert [c.get("name") for c in root.iter("testcase")] == [
        "web",
        "web (b.yaml:7)",
        "web (b.yaml:7) #2",
    ]


def test_junit_follows_fail_on_so_the_test_tab_agrees_with_the_exit_code() -> None:
    lenient = report(*fixture_results(), fail_on=frozenset({Verdict.NO}))
    xml = JUnitXml.fromstring(render_junit(lenient, CLUSTER))
    suite = next(iter(xml))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (7, 1, 0, 2)
    out = {c.name: c.system_out for c in suite}
    assert out["nightly-report"] is not None
    assert out["nightly-report"].startswith("ADDON_ONLY (not in --fail-on): only")


def test_junit_leaves_file_out_for_standard_input() -> None:
    root = ET.fromstring(render_junit(report(result(file="-")), CLUSTER))
    case = root.find("./testsuite/testcase")
    assert case is not None and case.get("file") is None and case.get("line") is None


# --- markdown ------------------------------------------------------------------------------


def _table_rows_are_well_formed(text: str) -> None:
    """Every row of a table has its header's cells: no cell text split a row."""
    header_pipes = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header_pipes = None
            continue
        header_pipes = header_pipes or line.count("|")
        assert line.count("|") == header_pipes, line


def test_comment_starts_with_the_marker_a_ci_step_finds_it_by() -> None:
    text = render_comment(fixture_report(), CLUSTER, NOW)
    assert text.splitlines()[0] == "<!-- fitgate:aks-prod -->"
    assert "**1** NO · **1** add-on only · **1** partial · **1** error · **1** skipped" in text
    assert "(2h 30m ago); a snapshot is a point in time" in text


def test_comment_lists_failures_before_warnings_before_passes() -> None:
    text = render_comment(fixture_report(), CLUSTER, NOW)
    order = [text.index(s) for s in ("web-big", "#### Warnings", "not failing the gate")]
    assert order == sorted(order)
    _table_rows_are_well_formed(text)


def test_five_thousand_workloads_fit_one_comment_and_name_every_count(
    five_thousand: Report,
) -> None:
    big = five_thousand
    text = render_comment(big, CLUSTER, NOW)
    assert len(text.encode("utf-8")) <= COMMENT_LIMIT
    for verdict, label in (
        (Verdict.YES, "fit"),
        (Verdict.NO, "NO"),
        (Verdict.ADDON_ONLY, "add-on only"),
        (Verdict.PARTIAL, "partial"),
        (Verdict.ERROR, "errors"),
        (Verdict.SKIPPED, "skipped"),
    ):
        assert f"**{big.summary.counts[verdict]}** {label}" in text
    assert "> Shortened to fit GitHub's size limit:" in text
    assert text.count("<details>") == text.count("</details>")
    assert text.rstrip().endswith("nothing was created in the cluster.</sub>")
    _table_rows_are_well_formed(text)


def test_step_summary_keeps_more_than_the_comment_within_one_mebibyte(
    five_thousand: Report,
) -> None:
    summary = render_summary(five_thousand, CLUSTER, NOW)
    assert COMMENT_LIMIT < len(summary.encode("utf-8")) <= SUMMARY_LIMIT


def test_a_limit_no_template_can_meet_still_gives_the_marker_and_every_count() -> None:
    text = render_comment(fixture_report(), CLUSTER, NOW, limit=100)
    assert text.startswith("<!-- fitgate:aks-prod -->\n")
    assert "1 NO · 1 add-on only · 1 partial · 1 error · 1 skipped" in text


def test_a_user_template_replaces_the_shipped_one_and_is_still_escaped() -> None:
    template = (
        "<!-- fitgate:{{ cluster }} -->\n{% for r in failures %}{{ r.workload }}\n{% endfor %}"
    )
    text = render_comment(hostile_report(), CLUSTER, NOW, template=template)
    assert (
        text.splitlines()[1]
        == "Deployment web/&lt;img src=x onerror=alert(1)&gt;&#124;@&#8203;admin"
    )


@pytest.mark.parametrize(
    ("template", "error"),
    [
        pytest.param(
            "{{ no_such_variable }}",
            "UndefinedError: 'no_such_variable' is undefined",
            id="an undefined name is an error",
        ),
        pytest.param(
            "{{ cluster.__class__.__mro__ }}",
            "SecurityError: access to attribute '__class__' of 'str' object is unsafe.",
            id="the sandbox refuses a template that reaches for Python internals",
        ),
        pytest.param(
            "{% for %}",
            "Expected an expression, got 'end of statement block'",
            id="a syntax error is a usage error",
        ),
        pytest.param(
            "{{ 1 / 0 }}", "ZeroDivisionError: division by zero", id="a failing expression too"
        ),
    ],
)
def test_a_broken_user_template_is_a_usage_error(template: str, error: str) -> None:
    with pytest.raises(UsageError) as raised:
        render_comment(fixture_report(), CLUSTER, NOW, template=template)
    assert str(raised.value) == f"comment template, line 1: {error}"


def test_reason_groups_name_the_taint_whatever_the_dialect() -> None:
    untolerated = "node(s) had untolerated taint(s)"
    rejected = (NodeOutcome("aks-system-0", (untolerated,), ADDON_TAINT),)
    groups = reason_groups(result(verdict=Verdict.NO, nodes=rejected))
    assert [g.label for g in groups] == [f"{untolerated} (CriticalAddonsOnly=true:NoSchedule)"]
    old = reason_groups(
        result(verdict=Verdict.NO, nodes=outcomes(["n"], TAINT_REASON, ADDON_TAINT))
    )
    assert [g.label for g in old] == [TAINT_REASON]


# --- annotations ---------------------------------------------------------------------------


def test_annotations_show_ten_per_level_most_severe_first_and_count_the_rest() -> None:
    crowded = report(
        *(
            result(f"no-{i}", verdict=Verdict.NO, message="0/1 nodes are available.")
            for i in range(14)
        ),
        result("broken", verdict=Verdict.ERROR, reason="bad yaml"),
        *(result(f"bare-{i}", warnings=(ZERO_REQUEST_WARNING,)) for i in range(12)),
    )
    lines = render_annotations(crowded)
    assert [line.split(" ", 1)[0] for line in lines] == (
        ["::error"] * 10 + ["::warning"] * 10 + ["::notice"]
    )
    assert "title=fitgate ERROR%3A Deployment default/broken" in lines[0]
    assert lines[-1] == (
        "::notice title=fitgate::5 more error and 2 more warning annotations are not shown "
        "(GitHub shows 10 of each per step): the job summary lists every workload."
    )


def test_missing_request_warnings_can_be_turned_off() -> None:
    lines = render_annotations(fixture_report(), warn_on=frozenset(), missing_requests=False)
    assert [line.split(" ", 1)[0] for line in lines] == ["::error"] * 4


# --- untrusted text ------------------------------------------------------------------------


def _parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command read as the runner reads it (ActionCommand.TryParseV2)."""
    assert line.startswith("::")
    head, _, message = line[2:].partition("::")
    level, _, props = head.partition(" ")
    pairs = dict(p.split("=", 1) for p in props.split(",")) if props else {}
    return level, pairs, message


def test_hostile_text_is_inert_in_markdown() -> None:
    text = render_comment(hostile_report(), HOSTILE_NAME, NOW)
    assert "<img" not in text and "@admin" not in text and "`" not in text
    assert not CONTROLS.search(text)
    assert not any(line.startswith("::") for line in text.splitlines())
    assert text.count("<!--") == 1 and text.splitlines()[0].count("-->") == 1
    _table_rows_are_well_formed(text)


def test_hostile_text_is_inert_in_junit() -> None:
    text = render_junit(hostile_report(), HOSTILE_NAME)
    assert not CONTROLS.search(text)
    root = ET.fromstring(text)
    assert root.find(".//img") is None
    names = [c.get("name") for c in root.iter("testcase")]
    assert names[0] == HOSTILE_NAME
    failure = root.find(".//failure")
    assert failure is not None and "::error::pwned" in (failure.text or "")
    assert not any(line.lstrip().startswith("::") for line in text.splitlines())


def test_hostile_text_is_inert_in_annotations() -> None:
    lines = render_annotations(hostile_report())
    assert len(lines) == 4
    for line in lines:
        assert "\n" not in line and "\r" not in line and not CONTROLS.search(line)
        level, props, message = _parse_command(line)
        assert level in ("error", "warning")
        assert "::error::pwned" in message.replace("%0A", "\n")
        assert set(props) == {"file", "line", "title"}
        assert props["file"] == "deploy/evil%2Ctitle=x%3Ay%250A.yaml"
        assert props["line"] == "1"


@pytest.mark.parametrize(
    ("helper", "text", "expected"),
    [
        pytest.param(markdown_text, "a|b", "a&#124;b", id="a pipe cannot split a table cell"),
        pytest.param(markdown_text, "<b>&", "&lt;b&gt;&amp;", id="html is text"),
        pytest.param(
            markdown_text,
            "`x` *y* _z_ ~w~ [l](u) \\",
            "&#96;x&#96; &#42;y&#42; &#95;z&#95; &#126;w&#126; &#91;l&#93;(u) &#92;",
            id="markdown syntax is text",
        ),
        pytest.param(
            markdown_text,
            "@admin #1",
            "@&#8203;admin #&#8203;1",
            id="mentions and issue references do not notify",
        ),
        pytest.param(
            markdown_text,
            "https://evil.example www.evil.example",
            "https:&#8203;//evil.example www&#8203;.evil.example",
            id="bare addresses do not become links",
        ),
        pytest.param(
            markdown_text, "$$x$$ $y$", "&#36;&#36;x&#36;&#36; &#36;y&#36;", id="no TeX math"
        ),
        pytest.param(markdown_text, "a\nb\r\n\tc", "a b c", id="a cell stays on one line"),
        pytest.param(markdown_text, "a\x00\x1b\u202eb", "ab", id="control and bidi chars go"),
        pytest.param(
            xml_text,
            "a<b>&]]>\x00\x1b",
            "a&lt;b&gt;&amp;]]&gt;",
            id="xml text escapes markup and drops what XML 1.0 forbids",
        ),
        pytest.param(
            xml_text,
            "a\n::error::x\r\n",
            "a ::error::x ",
            id="xml text from a manifest never starts a line of its own",
        ),
        pytest.param(
            xml_attr,
            'say "hi"\n\ttab',
            "say &quot;hi&quot;&#10;&#9;tab",
            id="an xml attribute keeps its line breaks as references",
        ),
        pytest.param(
            workflow_message,
            "50%\r\n::error::x",
            "50%25%0D%0A::error::x",
            id="a message cannot start a second command",
        ),
        pytest.param(
            workflow_property,
            "a,b:c%\n",
            "a%2Cb%3Ac%25%0A",
            id="a property cannot add properties or end the list",
        ),
    ],
)
def test_escape_helpers(helper: Callable[[str], str], text: str, expected: str) -> None:
    assert helper(text) == expected


def test_escape_examples_hold() -> None:
    assert doctest.testmod(escape).failed == 0
