"""A gated pod is judged as it will be once its gates are removed, and every report says
what holds it first (the SchedulingGates PreEnqueue plugin keeps it out of the queue)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gate.model import Verdict, WorkloadResult
from gate.model.contract import WORKLOAD_DECODER
from gate.reports.annotations import render_annotations
from gate.reports.jsonreport import render_json
from gate.reports.junit import render_junit
from gate.reports.markdown import render_comment
from gate.reports.sarif import render_sarif, rule_table
from gate.reports.text import render_text
from gate.reports.wording import headline
from gate.scheduler import plugins
from tests.report_builders import CLUSTER, NO_CPU, NOW, outcomes, report, result

QUOTA = "example.com/quota-check"
HELD = f"held by scheduling gate {QUOTA} until it is removed; then: "
FITS = replace(result("web", nodes=outcomes(["n1"]), replicas=None), gates=(QUOTA,))
REFUSED = replace(
    result(
        "big",
        verdict=Verdict.NO,
        replicas=None,
        message="0/1 nodes are available: 1 Insufficient cpu.",
        nodes=outcomes(["n1"], NO_CPU),
    ),
    gates=(QUOTA,),
)

# (id, result, headline)
HEADLINES: list[tuple[str, WorkloadResult, str]] = [
    ("a gated pod that fits says so after the gate", FITS, HELD + "fits 1 of 1 nodes"),
    (
        "a gated pod that fits nowhere carries the FitError after the gate",
        REFUSED,
        HELD + "0/1 nodes are available: 1 Insufficient cpu.",
    ),
    (
        "several gates are named in their order",
        replace(FITS, gates=(QUOTA, "example.com/budget")),
        f"held by scheduling gates {QUOTA}, example.com/budget until they are removed; "
        "then: fits 1 of 1 nodes",
    ),
    (
        "a workload not judged is not said to be held",
        replace(FITS, verdict=Verdict.ERROR, reason="refused"),
        "refused",
    ),
    ("a pod without gates is not held", replace(FITS, gates=()), "fits 1 of 1 nodes"),
]


@pytest.mark.parametrize(
    ("gated", "said"), [c[1:] for c in HEADLINES], ids=[c[0] for c in HEADLINES]
)
def test_the_headline_names_the_gates_before_the_verdict(gated: WorkloadResult, said: str) -> None:
    assert headline(gated) == said


def test_every_report_says_what_holds_the_pod() -> None:
    run = report(FITS, REFUSED)
    written = {
        "text": render_text(run, NOW),
        "comment": render_comment(run, CLUSTER, NOW),
        "junit": render_junit(run, CLUSTER),
        "annotations": "\n".join(render_annotations(run)),
        "sarif": render_sarif(run, rule_table(plugins.RULES), CLUSTER),
    }
    missing = {name: text for name, text in written.items() if HELD not in text}
    assert not missing
    assert HELD + "fits" in written["junit"]  # a YES too, in its system-out


def test_the_json_report_names_the_gates_and_merge_reads_them_back() -> None:
    document = json.loads(render_json(report(FITS, replace(REFUSED, gates=()))))
    gates = [w.get("schedulingGates") for w in document["workloads"]]
    assert gates == [[QUOTA], None]
    decoded = WORKLOAD_DECODER.decode(json.dumps(document["workloads"][0]))
    assert decoded.schedulingGates == [QUOTA]
