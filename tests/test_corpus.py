"""Every published manifest of the shared corpus is read without a traceback and yields a
report that validates against the shipped schema."""

from __future__ import annotations

import io
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gate.cli import Streams, main
from gate.inputs.custom_kinds import pod_template_path
from gate.inputs.manifests import read_documents
from gate.inputs.workloads import OtherDocument, extract_all
from tests.conftest import CORPUS, ROOT
from tests.report_schema import validate_report

AKS = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
FILES = (
    sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    if (CORPUS.is_dir())
    else []
)

pytestmark = pytest.mark.skipif(not FILES, reason="shared corpus not present")


def check(path: Path) -> tuple[int, dict[str, object], str]:
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(
        stdin=io.BytesIO(),
        stdout=out,
        stderr=err,
        env={},
        now=datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc),
    )
    code = main(["check", str(path), "--snapshot", AKS, "--json", "-"], streams)
    report = json.loads(out.getvalue())
    validate_report(report)
    return code, report, err.getvalue()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORPUS)) for p in FILES])
def test_corpus_file_yields_a_report(path: Path) -> None:
    code, report, err = check(path)
    summary = report["summary"]
    assert isinstance(summary, dict)
    # a file of no workload (a CRD, a Namespace) judges nothing: exit 5, saying why
    assert code == (5 if "nothingJudged" in summary else code) and code in (0, 1, 5)
    assert (code == 5) == ("nothingJudged" in summary)
    if summary["workloads"] == 0:
        assert code == 5
    assert "Traceback" not in err


def test_whole_corpus_in_one_run() -> None:
    _code, report, _ = check(CORPUS)
    workloads = report["workloads"]
    assert isinstance(workloads, list)
    kinds = {w["kind"] for w in workloads}
    assert {"Deployment", "DaemonSet", "StatefulSet", "Job", "CronJob", "Pod"} <= kinds
    # Argo Rollouts are built in; the workloadRef one runs its Deployment's template
    rollouts = [(w["name"], w["verdict"]) for w in workloads if w["kind"] == "Rollout"]
    assert rollouts == [("rollout-bluegreen", "YES"), ("rollout-ref-deployment", "YES")]
    assert "Rollout" not in report["otherDocuments"]  # type: ignore[operator]


def test_no_document_of_the_corpus_hides_a_pod_template() -> None:
    """Every document is a workload, a warned-about unknown kind, or carries no pod template."""
    silent = []
    for document in read_documents([str(CORPUS)], io.BytesIO()):
        (item, *_) = extract_all(iter([document]))
        body = document.body
        if isinstance(item, OtherDocument) and body and pod_template_path(body) is not None:
            silent.append(f"{document.location} {item.kind}")
    assert silent == []
