"""The JSON report rendered in pieces by msgspec is byte for byte the reference: the
``json.dumps(..., indent=2, ensure_ascii=False)`` of the same document with each workload's
``fits`` and ``nodes`` compact on one line."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.model import (
    Location,
    NodeOutcome,
    Report,
    SnapshotInfo,
    Taint,
    Verdict,
    WarningKind,
    WorkloadResult,
    WorkloadWarning,
)
from gate.reports.jsonreport import render_json, report_document

INFO = SnapshotInfo("snap.json", None, None, None, None, nodes=2, pods=0)


def reference(report: Report) -> str:
    document = report_document(report)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    position = 0
    for workload in document["workloads"]:
        for key in ("fits", "nodes"):
            value = workload[key]
            block = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n      ")
            indented = f'"{key}": {block},'
            compact = f'"{key}": {json.dumps(value, separators=(",", ":"), ensure_ascii=False)},'
            at = text.index(indented, position)
            text = text[:at] + compact + text[at + len(indented) :]
            position = at + len(compact)
    assert json.loads(text) == json.loads(json.dumps(document))
    return text


def result(text: str, number: int) -> WorkloadResult:
    shared = NodeOutcome("n1", ())
    taint = Taint("k", text, "NoSchedule")
    return WorkloadResult(
        kind="Deployment",
        namespace=text,
        name=f"{text}-{number}",
        location=Location(f"{text}.yaml", number + 1, text or None),
        replicas=number,
        verdict=Verdict.NO if number % 2 else Verdict.YES,
        message=text if number % 2 else None,
        nodes=(NodeOutcome(text or "n0", (text, "Insufficient cpu"), taint), shared),
        requests=(("cpu", "1"), (text, "2")),
        warnings=(WorkloadWarning(WarningKind.NOT_MODELLED, text),),
    )


def test_an_empty_report() -> None:
    report = Report(snapshot=INFO, results=())
    assert render_json(report) == reference(report)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(max_size=8), max_size=4))
def test_any_text_renders_as_the_reference(texts: list[str]) -> None:
    report = Report(snapshot=INFO, results=tuple(result(t, n) for n, t in enumerate(texts)))
    assert render_json(report) == reference(report)


def test_text_msgspec_cannot_encode_falls_back_to_the_reference() -> None:
    """A lone surrogate (the readers replace them; a caller of the library may not) is
    written as its JSON escape: valid UTF-8, and it reads back as the same string."""
    report = Report(snapshot=INFO, results=(result("\udc80bad", 1), result("ok", 2)))
    rendered = render_json(report)
    rendered.encode("utf-8")
    assert json.loads(rendered) == json.loads(reference(report))
    assert rendered.replace("\\udc80", "\udc80") == reference(report)
