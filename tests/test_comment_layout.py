"""The pull-request comment's layout: each place named once, warnings folded past a few,
the baseline's sections (fixed open; still failing and gone folded), room for the distance
to fit, and a template context that only grows."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from gate.cli import Streams, main
from gate.model import COMMENT_LIMIT, Baseline, BaselineEntry, Report, Verdict
from gate.reports.baseline import compare
from gate.reports.junit import render_junit
from gate.reports.markdown import WARNINGS_OPEN, render_comment, shipped_template
from gate.reports.text import render_text
from tests.conftest import ROOT
from tests.report_builders import (
    CLUSTER,
    NOW,
    ZERO_REQUEST_WARNING,
    fixture_report,
    report,
    result,
)
from tests.test_reports import (
    CONTROLS,
    HOSTILE_FILE,
    HOSTILE_NAME,
    HOSTILE_TEXT,
    hostile_report,
    many_results,
)

Golden = Callable[[str, str], None]
AKS = "fixtures/snapshots/aks-six-nodes.json"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_the_comment_over_a_real_chart_beside_the_fixtures(tmp_path: Path, golden: Golden) -> None:
    """Istio's Bookinfo sample requests nothing: its warnings fold, the failures stay open."""
    comment = tmp_path / "c.md"
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(stdin=io.BytesIO(b""), stdout=out, stderr=err, env={}, now=NOW)
    paths = ["fixtures/manifests", "fixtures/charts/istio-bookinfo"]
    code = main(["check", *paths, "--snapshot", AKS, "--comment", str(comment)], streams)
    assert code == 1
    text = comment.read_text()
    golden("cli/charts.comment.md", text)
    folded = text.split("#### Warnings\n\n", 1)[1]
    assert folded.startswith("<details><summary>7 warnings</summary>")


def _warned(count: int) -> str:
    results = [result(f"app-{n}", warnings=(ZERO_REQUEST_WARNING,)) for n in range(count)]
    return render_comment(report(*results), CLUSTER, NOW)


@pytest.mark.parametrize(
    ("count", "folded"),
    [(1, False), (WARNINGS_OPEN, False), (WARNINGS_OPEN + 1, True), (43, True)],
    ids=["one-shows-open", "a-few-show-open", "one-more-folds-them", "forty-three-fold"],
)
def test_warnings_fold_past_a_few(count: int, folded: bool) -> None:
    text = _warned(count)
    section = text.split("#### Warnings\n\n", 1)[1].split("workloads not failing the gate")[0]
    assert section.startswith(f"<details><summary>{count} warnings</summary>") == folded
    assert section.count("| Deployment default/app-") == count


def _rows(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith("| ---")
    ]


def test_no_row_names_a_place_twice() -> None:
    text = render_comment(fixture_report(), CLUSTER, NOW)
    for row in _rows(text):
        places = [c for c in row if re.search(r"\.yaml:\d+", c)]
        assert len(places) <= 1, row
    error_row = next(r for r in _rows(text) if r[0] == "ERROR")
    assert error_row[1:3] == ["Document", "fixtures/manifests/05-broken.yaml:1"]


def _compared_fixtures(*extra: BaselineEntry) -> Baseline:
    entries = (
        BaselineEntry("Deployment", "web", "web-small", Verdict.NO),
        BaselineEntry("Deployment", "web", "web-big", Verdict.PARTIAL),
        BaselineEntry("CronJob", "batch", "nightly-report", Verdict.ADDON_ONLY),
        *extra,
    )
    return Baseline("base.json", entries)


def test_a_template_written_before_the_baseline_still_renders_against_one() -> None:
    """The context only grows: a template reading the first fields keeps working."""
    template = (
        "<!-- fitgate:{{ cluster }} -->\n"
        "{% for r in failures %}{{ r.verdict }} {{ r.workload }} {{ r.location }} "
        "{{ r.message }}\n{% endfor %}{{ others | length }} {{ warnings_hidden }}\n"
    )
    compared = compare(fixture_report(), _compared_fixtures())
    text = render_comment(compared, CLUSTER, NOW, template=template)
    assert text.splitlines()[1:] == [
        "NO Deployment web/web-big fixtures/manifests/02-web-big.yaml:1 "
        "0/6 nodes are available: 3 Insufficient cpu, 3 node(s) had untolerated taint "
        "{CriticalAddonsOnly: true}.",
        "PARTIAL DaemonSet observability/log-agent fixtures/manifests/04-log-agent.yaml:1 "
        "no room on 3 of 6 targeted nodes: 3 Insufficient cpu",
        "ERROR Document fixtures/manifests/05-broken.yaml:1 while parsing a block collection "
        "(line 10, column 9): expected &lt;block end&gt;, but found "
        "&#39;&lt;block mapping start&gt;&#39; (line 12, column 10)",
        "2 0",
    ]


def test_a_template_reads_the_baseline_sections() -> None:
    template = (
        "<!-- fitgate:{{ cluster }} -->\n{{ baseline.source }}: "
        "{% for label, n in baseline.counts %}{{ n }} {{ label }}, {% endfor %}\n\n"
        "{% for r in failures %}{{ r.workload }}: {{ r.change }} [{{ r.distance }}]\n{% endfor %}"
        "{% for r in fixed %}fixed {{ r.workload }} was {{ r.before }}\n{% endfor %}"
        "{% for r in still_failing %}still {{ r.workload }}\n{% endfor %}"
        "{% for r in gone %}gone {{ r.workload }} was {{ r.verdict }}\n{% endfor %}"
    )
    gone = BaselineEntry("Deployment", "web", "web-old", Verdict.NO, "deploy/old.yaml", 3)
    compared = compare(fixture_report(), _compared_fixtures(gone))
    text = render_comment(compared, CLUSTER, NOW, template=template)
    assert text.splitlines()[1:] == [
        "base.json: 2 new failures, 1 worse, 1 fixed, 1 still failing, 1 gone, ",
        "Deployment web/web-big: worse: was PARTIAL []",
        "DaemonSet observability/log-agent: new failure []",
        "Document: new failure []",
        "fixed Deployment web/web-small was NO",
        "still CronJob batch/nightly-report",
        "gone Deployment web/web-old was NO",
    ]


SHRUNK_FIRST = [
    "workloads not failing the gate",
    "warnings",
    "workloads still failing",
    "workloads gone",
    "per-node breakdowns",
    "fixed workloads",
    "failing workloads",
]


def test_a_shortened_comment_keeps_the_baseline_counts_and_drops_the_folded_first() -> None:
    gone = BaselineEntry("Deployment", "web", "web-old", Verdict.NO, "deploy/old.yaml", 3)
    compared = compare(fixture_report(), _compared_fixtures(gone))
    full = render_comment(compared, CLUSTER, NOW)
    line = "Against the baseline base.json: **2** new failures · **1** worse"
    assert line in full and "still failing, as in the baseline" in full
    seen = []
    for limit in range(len(full.encode()), 0, -100):
        short = render_comment(compared, CLUSTER, NOW, limit=limit)
        if "exceeds GitHub's size limit" in short:
            break
        assert line in short
        notice = re.search(r"size limit: (.*) are not listed", short)
        hidden = [n for n in SHRUNK_FIRST if notice and f" {n}" in notice.group(1)]
        assert hidden == SHRUNK_FIRST[: len(hidden)], hidden
        seen.append(len(hidden))
    assert max(seen) == len(SHRUNK_FIRST)


def _hostile_compared() -> Report:
    gone = BaselineEntry("Deployment", "web", HOSTILE_NAME, Verdict.NO, HOSTILE_FILE, 7)
    still = BaselineEntry("Deployment", "web", HOSTILE_NAME, Verdict.NO, HOSTILE_FILE, 1)
    base = Baseline(f"base {HOSTILE_TEXT}.json", (still, gone))
    failing = result(
        HOSTILE_NAME,
        verdict=Verdict.NO,
        namespace="web",
        file=HOSTILE_FILE,
        message=f"0/3 nodes are available: 3 {HOSTILE_TEXT}.",
    )
    return compare(report(failing), base)


def test_hostile_baseline_text_is_inert_in_every_report() -> None:
    compared = _hostile_compared()
    comment = render_comment(compared, CLUSTER, NOW)
    assert "<img" not in comment and "@admin" not in comment and "`" not in comment
    assert not CONTROLS.search(comment)
    assert not any(line.startswith("::") for line in comment.splitlines())
    junit = render_junit(compared, CLUSTER)
    assert not CONTROLS.search(junit)
    root = ET.fromstring(junit)
    assert root.find(".//img") is None
    gone = [p.get("value") for p in root.iter("property") if p.get("name") == "baseline.gone.1"]
    assert gone and HOSTILE_NAME in (gone[0] or "")
    text = render_text(compared, NOW)
    assert "\x1b" not in text and "\r" not in text
    assert not any(line.startswith("::") for line in text.splitlines())


@pytest.mark.parametrize(
    ("built", "limit"),
    [
        pytest.param(fixture_report, COMMENT_LIMIT, id="the fixtures"),
        pytest.param(hostile_report, COMMENT_LIMIT, id="hostile text in every place"),
        pytest.param(_hostile_compared, COMMENT_LIMIT, id="hostile text against a baseline"),
        pytest.param(lambda: many_results(300), 6_000, id="sections shortened to fit"),
    ],
)
def test_the_shipped_template_renders_as_it_would_as_a_users_template(
    built: Callable[[], Report], limit: int
) -> None:
    """The shipped template is rendered without autoescaping, the text it gives must be
    the one a user's copy of it gives, autoescaped in the sandbox."""
    compared = built()
    own = render_comment(compared, CLUSTER, NOW, limit=limit)
    as_users = render_comment(compared, CLUSTER, NOW, shipped_template(), limit=limit)
    assert own == as_users
