"""Every report the command line writes, over the seed fixtures, as a CI job would run it."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import junitparser
import pytest
import xmlschema

from gate.cli import Streams, main
from tests.conftest import CORPUS, ROOT
from tests.test_cli import AKS, NOW

Golden = Callable[[str, str], None]
JUNIT_XSD = CORPUS.parent / "schemas" / "junit-10.xsd"


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
    )
    assert "aks-user-0" in (web_big.result[0].text or "")


@pytest.mark.skipif(
    not JUNIT_XSD.exists(), reason="the shared schemas are not beside this checkout"
)
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
        pytest.param("{{ nope }}", "comment template: UndefinedError", id="undefined-name"),
        pytest.param("{% if %}", "comment template: TemplateSyntaxError", id="syntax-error"),
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
