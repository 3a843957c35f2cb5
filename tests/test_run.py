"""The pipeline, :func:`gate.run.check`, over the shipped fixtures: every input problem is
a result, options reach the report, and the command line adds nothing to what it says."""

from __future__ import annotations

import gc
import io
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gate import __version__
from gate.inputs.manifests import read_documents, select_paths
from gate.model import (
    DEFAULT_FAIL_ON,
    Report,
    Shard,
    ShardReport,
    Snapshot,
    SnapshotInfo,
    Verdict,
    WarningKind,
    WorkloadWarning,
)
from gate.reports.jsonreport import render_json
from gate.run import RunOptions, check, cluster_name, without_cycle_collection
from gate.snapshot.load import load_snapshot
from tests.conftest import ROOT

MANIFESTS = "fixtures/manifests"
AKS = "fixtures/snapshots/aks-six-nodes.json"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.fixture
def snapshot(_in_repo: None) -> Snapshot:
    return load_snapshot(AKS)


def run(snapshot: Snapshot, *paths: str, options: RunOptions | None = None) -> Report:
    documents = read_documents(list(paths) or [MANIFESTS], io.BytesIO(b""))
    return check(documents, snapshot, options or RunOptions(cluster="aks-prod"))


def verdicts(report: Report) -> list[tuple[str, Verdict]]:
    return [(r.title, r.verdict) for r in report.results]


def test_every_document_of_the_fixtures_is_a_result_in_input_order(snapshot: Snapshot) -> None:
    report = run(snapshot)
    assert verdicts(report) == [
        ("Deployment web/web-small", Verdict.YES),
        ("Deployment web/web-big", Verdict.NO),
        ("CronJob batch/nightly-report", Verdict.ADDON_ONLY),
        ("DaemonSet observability/log-agent", Verdict.PARTIAL),
        ("Document fixtures/manifests/05-broken.yaml:12", Verdict.ERROR),
        ("Deployment ops/legacy-cron-runner", Verdict.SKIPPED),
        ("StatefulSet web/cache", Verdict.YES),
    ]
    assert report.other_documents == (("Service", 1),)
    assert report.version == __version__ and report.fail_on == DEFAULT_FAIL_ON
    assert not report.summary.passed


def test_an_unreadable_document_is_an_error_result_with_the_parser_s_reason(
    snapshot: Snapshot,
) -> None:
    (broken,) = [r for r in run(snapshot).results if r.verdict is Verdict.ERROR]
    assert broken.kind == "Document" and broken.namespace == "" and broken.replicas is None
    assert broken.reason == (
        "did not find expected '-' indicator (line 12, column 10) "
        "while parsing a block collection at line 10"
    )


def test_a_skipped_workload_keeps_its_annotation_s_reason(snapshot: Snapshot) -> None:
    (skipped,) = [r for r in run(snapshot).results if r.verdict is Verdict.SKIPPED]
    assert skipped.reason == "fitgate.dev/skip: runs on the on-prem pool, not in this cluster"
    assert skipped.nodes == () and skipped.warnings == ()


def test_a_warning_reaches_the_report_with_its_kind(snapshot: Snapshot) -> None:
    cache = run(snapshot).results[-1]
    assert cache.warnings == (
        WorkloadWarning(
            WarningKind.ZERO_REQUEST,
            'container "redis" has no cpu or memory request: '
            "a zero request fits every node and is evicted later",
        ),
    )


def test_fail_on_decides_whether_the_gate_passes(snapshot: Snapshot) -> None:
    lenient = RunOptions(fail_on=frozenset({Verdict.ERROR}))
    report = run(snapshot, "fixtures/manifests/01-web-small.yaml", options=lenient)
    assert report.summary.passed and report.fail_on == frozenset({Verdict.ERROR})


def test_a_custom_kind_is_evaluated_at_its_template_path(
    snapshot: Snapshot, tmp_path: Path
) -> None:
    widget = tmp_path / "widget.yaml"
    widget.write_text(
        "kind: Widget\nmetadata: {name: canary, namespace: web}\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: app\n"
        "        resources: {requests: {cpu: 100m, memory: 64Mi}}\n"
    )
    plain = run(snapshot, str(widget))
    assert verdicts(plain) == [("Widget web/canary", Verdict.SKIPPED)]
    assert plain.results[0].warnings[0].text.startswith("Widget (core) is not a kind fitgate")
    paths = (("Widget", ("spec", "template", "spec")),)
    custom = run(snapshot, str(widget), options=RunOptions(template_paths=paths))
    assert verdicts(custom) == [("Widget web/canary", Verdict.YES)]


def test_the_shards_of_a_run_partition_its_results(snapshot: Snapshot) -> None:
    whole = verdicts(run(snapshot))
    parts = [run(snapshot, options=RunOptions(shard=Shard(k, 3), cluster="c")) for k in (1, 2, 3)]
    assert all(isinstance(p, ShardReport) and p.cluster == "c" for p in parts)
    merged = sorted(
        (position, result)
        for part in parts
        if isinstance(part, ShardReport)
        for position, result in zip(part.positions, verdicts(part), strict=True)
    )
    assert [result for _, result in merged] == whole


def test_the_scheduler_version_option_picks_the_dialect(snapshot: Snapshot) -> None:
    """From v1.35 the taint reason no longer names the taint (docs/reference.md, "What is
    checked")."""
    old = run(snapshot, "fixtures/manifests/02-web-big.yaml").results[0].message
    new_options = RunOptions(scheduler_version="v1.35.0")
    new = run(snapshot, "fixtures/manifests/02-web-big.yaml", options=new_options)
    assert old is not None and "{CriticalAddonsOnly: true}" in old
    assert new.results[0].message != old


def test_the_command_line_writes_what_the_pipeline_returns(
    snapshot: Snapshot, tmp_path: Path
) -> None:
    from gate.cli import Streams, main
    from gate.run import read_summary

    out = tmp_path / "report.json"
    # A clock an hour after the capture: an older snapshot adds the run's warning.
    hour_later = datetime(2026, 8, 16, 11, 0, 0, tzinfo=timezone.utc)
    streams = Streams(io.BytesIO(b""), io.StringIO(), io.StringIO(), now=hour_later)
    main(["check", MANIFESTS, "--snapshot", AKS, "--json", str(out)], streams)
    documents = list(read_documents([MANIFESTS], io.BytesIO(b"")))
    read = read_summary(select_paths([MANIFESTS]), documents)
    expected = check(documents, snapshot, RunOptions(cluster="aks-prod", read=read))
    assert out.read_text(encoding="utf-8") == render_json(expected, cluster="aks-prod")


@pytest.mark.parametrize(
    ("context", "file", "name"),
    [
        pytest.param("aks-prod", "snapshots/other.json", "aks-prod", id="the recorded context"),
        pytest.param(None, "snapshots/prod-eu.json", "prod-eu", id="else the file's stem"),
        pytest.param(None, "-", "cluster", id="else, from standard input, cluster"),
        pytest.param(None, None, "cluster", id="else, read live without one, cluster"),
    ],
)
def test_reports_name_the_cluster(context: str | None, file: str | None, name: str) -> None:
    info = SnapshotInfo("s", None, context, None, None, nodes=0, pods=0)
    assert cluster_name(info, file) == name


def test_a_run_switches_the_cycle_collector_off_and_back_on() -> None:
    assert gc.isenabled()
    with pytest.raises(KeyboardInterrupt), without_cycle_collection():
        assert not gc.isenabled()
        raise KeyboardInterrupt
    assert gc.isenabled()


def test_a_run_the_process_ends_with_leaves_the_cycle_collector_off() -> None:
    try:
        with without_cycle_collection(until_exit=True):
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
