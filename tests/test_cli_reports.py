"""Every report the command line writes, over the seed fixtures, as a CI job would run it."""

from __future__ import annotations

import argparse
import io
import threading
from collections.abc import Callable
from pathlib import Path

import junitparser
import pytest
import xmlschema

from gate import cli
from gate.cli import (
    OUTPUT_FLAGS,
    REPORT_FILES,
    Streams,
    add_report_options,
    build_parser,
    main,
    report_table,
    write_sarif,
)
from gate.inputs.manifests import read_documents, select_paths
from gate.model import Report
from gate.reports.annotations import write_annotations
from gate.reports.jsonreport import write_json
from gate.reports.junit import write_junit
from gate.reports.markdown import write_comment, write_summary
from gate.reports.reporter import Deferred, ReportContext, Reporter
from gate.reports.text import write_text
from gate.run import RunOptions, check, read_summary
from gate.snapshot.load import load_snapshot
from tests.conftest import JUNIT_XSD, ROOT
from tests.test_cli import AKS, NOW

Golden = Callable[[str, str], None]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(stdin=io.BytesIO(b""), stdout=out, stderr=err, env=env or {}, now=NOW)
    code = main(["check", *argv], streams)
    return code, out.getvalue(), err.getvalue()


def test_every_report_over_the_seed_fixtures(tmp_path: Path, golden: Golden) -> None:
    junit, comment, summary, report = (tmp_path / n for n in ("r.xml", "c.md", "s.md", "r.json"))
    code, _, _ = run(
        "fixtures/manifests",
        "--snapshot",
        AKS,
        "--json",
        str(report),
        "--junit",
        str(junit),
        "--comment",
        str(comment),
        "--summary",
        str(summary),
    )
    assert code == 1
    golden("cli/aks.json", report.read_text())
    golden("cli/aks.junit.xml", junit.read_text())
    golden("cli/aks.comment.md", comment.read_text())
    golden("cli/aks.summary.md", summary.read_text())
    assert comment.read_text().startswith("<!-- fitgate:aks-prod -->\n")


def test_junit_from_the_fixtures_parses_and_counts_agree(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    run("fixtures/manifests", "--snapshot", AKS, "--junit", str(path))
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    cases = list(suite)
    assert len(cases) == suite.tests == 7
    failures = [c for c in cases if c.result and isinstance(c.result[0], junitparser.Failure)]
    errors = [c for c in cases if c.result and isinstance(c.result[0], junitparser.Error)]
    skipped = [c for c in cases if c.result and isinstance(c.result[0], junitparser.Skipped)]
    assert (len(failures), len(errors), len(skipped)) == (suite.failures, suite.errors, 1)
    assert sorted(c.name for c in failures) == ["log-agent", "nightly-report", "web-big"]
    web_big = next(c for c in failures if c.name == "web-big")
    assert web_big.classname == "aks-prod.web.Deployment"
    assert web_big.result[0].message == (
        "0/6 nodes are available: 3 Insufficient cpu, "
        "3 node(s) had untolerated taint {CriticalAddonsOnly: true}."
        " no new claims to deallocate, preemption: 0/6 nodes are available: 3 No preemption "
        "victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    )
    assert "aks-user-0" in (web_big.result[0].text or "")


def test_junit_from_the_fixtures_validates_against_jenkins_schema(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    run("fixtures/manifests", "--snapshot", AKS, "--junit", str(path))
    schema = xmlschema.XMLSchema(str(JUNIT_XSD))
    # Jenkins' schema predates the file/line attributes GitLab and action-junit-report read.
    errors = [
        e
        for e in schema.iter_errors(str(path))
        if not any(f"'{a}'" in str(e.reason) for a in ("file", "line"))
    ]
    assert errors == []


def test_annotations_in_github_actions_point_at_the_documents(golden: Golden) -> None:
    code, out, _ = run("fixtures/manifests", "--snapshot", AKS, env={"GITHUB_ACTIONS": "true"})
    assert code == 1
    lines = [line for line in out.splitlines() if line.startswith("::")]
    golden("cli/aks.annotations.txt", "\n".join(lines) + "\n")
    assert lines[0].startswith("::error file=fixtures/manifests/")


def test_no_annotations_outside_github_actions() -> None:
    _, out, _ = run("fixtures/manifests", "--snapshot", AKS)
    assert not any(line.startswith("::") for line in out.splitlines())


def test_annotations_go_to_stderr_when_a_report_takes_stdout() -> None:
    _, out, err = run(
        "fixtures/manifests", "--snapshot", AKS, "--json", "-", env={"GITHUB_ACTIONS": "true"}
    )
    assert out.lstrip().startswith("{")
    assert "::error file=" in err


def test_step_summary_is_appended_where_github_says(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary"
    summary.write_text("earlier step\n")
    run("fixtures/manifests", "--snapshot", AKS, env={"GITHUB_STEP_SUMMARY": str(summary)})
    text = summary.read_text()
    assert text.startswith("earlier step\n<!-- fitgate:aks-prod -->")
    assert "web-big" in text


def test_unwritable_step_summary_is_reported_and_the_gate_still_answers(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir"
    code, out, err = run(
        "fixtures/manifests", "--snapshot", AKS, env={"GITHUB_STEP_SUMMARY": str(missing)}
    )
    assert code == 1
    assert "cannot append the step summary" in err
    assert "Gate FAILED" in out


def run_with_template(comment: Path, template: Path) -> tuple[int, str]:
    fixtures = ("fixtures/manifests", "--snapshot", AKS)
    code, _, err = run(*fixtures, "--comment", str(comment), "--comment-template", str(template))
    return code, err


def test_comment_template_overrides_the_shipped_one(tmp_path: Path) -> None:
    template = tmp_path / "t.md.j2"
    template.write_text("{{ cluster }}: {{ counts | length }} counts\n")
    comment = tmp_path / "c.md"
    code, err = run_with_template(comment, template)
    assert code == 1, err
    assert comment.read_text() == "aks-prod: 6 counts\n"


@pytest.mark.parametrize(
    ("template", "needle"),
    [
        pytest.param(None, "cannot read comment template", id="missing-file"),
        pytest.param(
            "{{ nope }}",
            "t.md.j2, line 1: UndefinedError: 'nope' is undefined",
            id="undefined-name",
        ),
        pytest.param("{% if %}", "t.md.j2, line 1: Expected an expression", id="syntax-error"),
        pytest.param(
            '{{ "%999999999s"|format(1) }}',
            "t.md.j2, line 1: format width 999999999 is past 10000",
            id="a format width that would build a gigabyte",
        ),
        pytest.param(
            "{% for i in range(100000) %}{{ 'x' * 100 }}{% endfor %}",
            "t.md.j2: the output passed 8388608 characters",
            id="output past its budget",
        ),
    ],
)
def test_bad_comment_template_exits_2(tmp_path: Path, template: str | None, needle: str) -> None:
    path = tmp_path / "t.md.j2"
    if template is not None:
        path.write_text(template)
    comment = tmp_path / "c.md"
    code, err = run_with_template(comment, path)
    assert code == 2
    assert needle in err
    assert not comment.exists()


def test_step_summary_and_annotations_can_be_turned_off(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    _, out, err = run(
        "fixtures/manifests", "--snapshot", AKS, "--no-step-summary", "--no-annotations", env=env
    )
    assert not summary.exists()
    assert "::" not in out + err


# Every report option, the writer behind it, and what the file must hold: that writer's
# text for the pipeline's report (``report_table`` in gate/cli.py).
REPORT_OPTIONS: dict[str, tuple[str, Reporter]] = {
    "--json writes the JSON report": ("--json", write_json),
    "--junit writes JUnit XML": ("--junit", write_junit),
    "--comment writes the PR comment": ("--comment", write_comment),
    "--summary writes the step summary": ("--summary", write_summary),
    "--sarif writes SARIF for code scanning": ("--sarif", write_sarif),
}


def pipeline_report() -> Report:
    documents = list(read_documents(["fixtures/manifests"], io.BytesIO(b"")))
    read = read_summary(select_paths(["fixtures/manifests"]), documents)
    return check(documents, load_snapshot(AKS), RunOptions(cluster="aks-prod", read=read))


@pytest.mark.parametrize(("option", "writer"), REPORT_OPTIONS.values(), ids=REPORT_OPTIONS.keys())
def test_every_report_option_writes_its_writer_s_text(
    tmp_path: Path, option: str, writer: Reporter
) -> None:
    path = tmp_path / "report"
    code, out, _ = run("fixtures/manifests", "--snapshot", AKS, option, str(path))
    assert code == 1
    expected = writer(pipeline_report(), ReportContext("aks-prod", NOW))
    text = expected if isinstance(expected, str) else b"".join(expected).decode("utf-8")
    assert path.read_text(encoding="utf-8") == text
    assert out == write_text(pipeline_report(), ReportContext("aks-prod", NOW))


def test_every_report_option_of_the_parser_has_a_writer() -> None:
    parser = argparse.ArgumentParser(add_help=False)
    add_report_options(parser)
    files = {
        a.option_strings[0] for a in parser._actions if a.dest not in ("comment_template", "output")
    }
    assert files == {option for option, _ in REPORT_OPTIONS.values()}
    # -o FORMAT stands for a report option given "-" (text: the summary shown anyway).
    assert {f"--{flag}" for flag in OUTPUT_FLAGS.values() if flag} <= files
    assert [(f"--{option}", loaded(writer)) for option, writer in REPORT_FILES] == [
        (option, loaded(writer)) for option, writer in REPORT_OPTIONS.values()
    ]


def loaded(writer: Reporter) -> Reporter:
    """The writer a deferred one imports when it first writes; any other as it is."""
    return writer.load() if isinstance(writer, Deferred) else writer


# The writers the command line imports only when a run writes their report.
DEFERRED: dict[str, tuple[Deferred, Reporter]] = {
    "--junit's writer is the JUnit module's": (cli.write_junit, write_junit),
    "--comment's writer is the markdown module's": (cli.write_comment, write_comment),
    "--summary's writer is the markdown module's": (cli.write_summary, write_summary),
}


@pytest.mark.parametrize(("deferred", "writer"), DEFERRED.values(), ids=DEFERRED.keys())
def test_a_deferred_writer_loads_the_report_module_s_own(
    deferred: Deferred, writer: Reporter
) -> None:
    assert deferred.load() is writer


def test_the_sarif_writer_is_built_once_for_every_run() -> None:
    assert write_sarif.load() is write_sarif.load()


@pytest.mark.parametrize("option", ["--json", "--junit", "--comment", "--summary"])
def test_a_report_on_standard_output_replaces_the_text_summary(option: str) -> None:
    code, out, _ = run("fixtures/manifests", "--snapshot", AKS, option, "-")
    assert code == 1
    assert "Gate FAILED." not in out and out


def test_the_table_renders_each_writer_once_in_the_order_files_are_written(
    tmp_path: Path,
) -> None:
    options = build_parser().parse_args(
        ["check", "--json", "j", "--junit", "x", "--comment", "c", "--summary", "s"]
    )
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "step"), "GITHUB_ACTIONS": "true"}
    streams = Streams(io.BytesIO(b""), io.StringIO(), io.StringIO(), env=env)
    table = report_table(options, streams)
    writers = [loaded(writer) for writer, _ in table]
    assert writers == [
        write_json,
        write_junit,
        write_comment,
        write_summary,
        write_text,
        write_annotations,
    ]
    assert [len(sinks) for _, sinks in table] == [1, 1, 1, 2, 1, 1]


def test_a_comment_template_without_a_comment_is_a_usage_error(tmp_path: Path) -> None:
    template = tmp_path / "t.md.j2"
    template.write_text("{{ cluster }}\n")
    code, out, err = run(
        "fixtures/manifests", "--snapshot", AKS, "--comment-template", str(template)
    )
    assert (code, out, err) == (
        2,
        "",
        "fitgate: --comment-template shapes the comment: give --comment FILE (or -o markdown) "
        "too\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.md.j2"]


def test_a_comment_template_that_never_ends_stops_at_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Long enough to pass the deadline, short enough that the abandoned worker ends soon.
    monkeypatch.setattr("gate.reports.sandbox.TEMPLATE_SECONDS", 0.2)
    path = tmp_path / "t.md.j2"
    path.write_text("{% for i in range(5000) %}{% for j in range(5000) %}{% endfor %}{% endfor %}")
    comment = tmp_path / "c.md"
    code, err = run_with_template(comment, path)
    assert code == 2
    assert "t.md.j2: rendering took more than 0.2 s" in err
    assert not comment.exists()
    # The abandoned worker runs on: waited for, since a process with a second thread forks
    # no second process, and a later test of one would find none.
    for worker in threading.enumerate():
        if worker.name == "fitgate-deadline":
            worker.join(timeout=60)
