"""The JSON report rendered in pieces by msgspec is byte for byte the reference: the
``json.dumps(..., indent=2, ensure_ascii=False)`` of the same document with each outcome
group compact on a line of its own; and its outcome groups are the nodes grouped by
reasons, as a plain loop groups them."""

from __future__ import annotations

import doctest
import io
import json
import re
import shutil
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.model import (
    Code,
    Location,
    NodeOutcome,
    Report,
    Shard,
    ShardReport,
    SnapshotInfo,
    Taint,
    Verdict,
    WarningKind,
    WorkloadResult,
    WorkloadWarning,
)
from gate.reports import jsonreport
from gate.reports.jsonreport import outcome_groups, render_json, report_document, write_json
from gate.reports.reporter import JSON_NODES, ReportContext
from tests.builders import api_node, cluster_snapshot
from tests.conftest import ROOT
from tests.report_schema import validate_report

NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
INFO = SnapshotInfo("snap.json", None, None, None, None, nodes=2, pods=0)
REASONS = [(), ("Insufficient cpu",), ("Insufficient cpu", "Insufficient memory")] + [
    (f"node(s) had untolerated taint {{k{n}: v}}",) for n in range(10)
]


def grouped(nodes: tuple[NodeOutcome, ...], listed: int | None) -> list[dict[str, Any]]:
    """Outcome groups as a plain loop builds them: first appearance, node order."""
    found: dict[tuple[tuple[str, ...], str, str | None], list[str]] = {}
    for o in nodes:
        code = None if o.code is None else o.code.value
        found.setdefault((o.reasons, o.plugin, code), []).append(o.node)
    shown = slice(listed)
    return [
        {
            "reasons": list(r),
            "plugin": plugin or None,
            "code": code,
            "count": len(names),
            "nodes": names[shown],
        }
        for (r, plugin, code), names in found.items()
    ]


def as_document(group: jsonreport.Group) -> dict[str, Any]:
    (reasons, plugin, code), count, names = group
    code_text = None if code is None else code.value
    shown = {"reasons": list(reasons), "plugin": plugin or None, "code": code_text}
    return {**shown, "count": count, "nodes": names}


def reference(report: Report, listed: int | None = JSON_NODES) -> str:
    """The document by ``json.dumps``, each workload's groups put in compact, one a line."""
    document = msgspec.to_builtins(report_document(report, listed=listed))
    blocks = {}
    for workload in document["workloads"]:
        token = uuid.uuid4().hex
        groups = workload["outcomes"]
        lines = [json.dumps(g, separators=(",", ":"), ensure_ascii=False) for g in groups]
        blocks[token] = "[\n        " + ",\n        ".join(lines) + "\n      ]" if lines else "[]"
        workload["outcomes"] = token
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    for token, block in blocks.items():
        text = text.replace(f'"{token}"', block)
    document = msgspec.to_builtins(report_document(report, listed=listed))
    assert json.loads(text) == json.loads(json.dumps(document))  # tuples read back as lists
    return text


def result(text: str, number: int, nodes: tuple[NodeOutcome, ...] | None = None) -> WorkloadResult:
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
        nodes=(NodeOutcome(text or "n0", (text, "Insufficient cpu"), taint, text), shared)
        if nodes is None
        else nodes,
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


outcome_lists = st.lists(st.sampled_from(REASONS), max_size=40).map(
    lambda reasons: tuple(NodeOutcome(f"n{i}", r) for i, r in enumerate(reasons))
)
bounds = st.sampled_from([None, 0, 1, 2, JSON_NODES])


@settings(max_examples=150, deadline=None)
@given(outcome_lists, bounds)
def test_groups_are_the_nodes_grouped_by_reasons(
    nodes: tuple[NodeOutcome, ...], listed: int | None
) -> None:
    """Few lists (one C-level pass each) or many (one loop): the same groups."""
    groups = outcome_groups(nodes, listed)
    assert list(map(as_document, groups)) == grouped(nodes, listed)
    assert sum(count for _, count, _ in groups) == len(nodes)


@pytest.mark.parametrize("listed", [None, 0, 2])
def test_more_lists_than_a_byte_can_number_are_grouped_alike(listed: int | None) -> None:
    """Past 256 distinct lists the numbers no longer fit a byte: one loop groups them."""
    nodes = tuple(NodeOutcome(f"n{i}", (f"reason {i % 300}",)) for i in range(900))
    groups = outcome_groups(nodes, listed)
    assert len(groups) == 300
    assert list(map(as_document, groups)) == grouped(nodes, listed)


@settings(max_examples=60, deadline=None)
@given(st.lists(outcome_lists, min_size=1, max_size=4), bounds)
def test_shared_and_distinct_outcomes_render_as_the_reference(
    lists: list[tuple[NodeOutcome, ...]], listed: int | None
) -> None:
    """Workloads sharing one outcome tuple get its text once; each is still the reference."""
    nodes = [lists[n % len(lists)] for n in range(6)]
    results = tuple(result("w", n, nodes[n]) for n in range(6))
    report = Report(snapshot=SnapshotInfo("s", None, None, None, None, 40, 0), results=results)
    rendered = render_json(report, listed)
    assert rendered == reference(report, listed)
    for workload, outcomes in zip(json.loads(rendered)["workloads"], nodes, strict=True):
        assert workload["outcomes"] == grouped(outcomes, listed)


def test_text_msgspec_cannot_encode_falls_back_to_the_reference() -> None:
    """A lone surrogate (the readers replace them; a caller of the library may not) is
    written as U+FFFD: valid UTF-8, and JSON every reader accepts (its escape would not be:
    ``fitgate merge`` refuses ``\\udc80``)."""
    report = Report(snapshot=INFO, results=(result("\udc80bad", 1), result("ok", 2)))
    rendered = render_json(report)
    rendered.encode("utf-8")
    msgspec.json.decode(rendered)
    assert rendered == reference(report).replace("\udc80", "\ufffd")


WIDE = tuple(
    NodeOutcome(f"n{i:02}", ())
    if i % 3
    else NodeOutcome(
        f"n{i:02}", ("Insufficient cpu",), None, "NodeResourcesFit", Code.UNSCHEDULABLE
    )
    for i in range(30)
)
WIDE_INFO = SnapshotInfo("wide.json", None, None, None, None, nodes=30, pods=0)


@pytest.mark.parametrize(
    ("listed", "names"),
    [(None, [10, 20]), (0, [0, 0]), (3, [3, 3]), (JSON_NODES, [10, 10])],
    ids=["all names", "no names", "three names", "the default bound"],
)
def test_the_bound_limits_names_never_counts(listed: int | None, names: list[int]) -> None:
    report = Report(snapshot=WIDE_INFO, results=(result("w", 0, WIDE),))
    document = json.loads(b"".join(write_json(report, ReportContext(json_nodes=listed))))
    validate_report(document)
    (workload,) = document["workloads"]
    assert [(g["reasons"], g["count"]) for g in workload["outcomes"]] == [
        (["Insufficient cpu"], 10),
        ([], 20),
    ]
    assert [len(g["nodes"]) for g in workload["outcomes"]] == names
    assert workload["outcomes"][1]["nodes"][:4] == ["n01", "n02", "n04", "n05"][: names[1]]


@pytest.mark.parametrize("listed", [None, 0, 3])
def test_a_shard_report_names_every_node_whatever_the_bound(listed: int | None) -> None:
    report = ShardReport(
        snapshot=WIDE_INFO,
        results=(result("w", 0, WIDE),),
        shard=Shard(1, 1),
        positions=(0,),
        items=1,
        inputs="0" * 64,
        nodes=tuple(o.node for o in WIDE),
    )
    document = json.loads(b"".join(write_json(report, ReportContext(json_nodes=listed))))
    validate_report(document)
    assert [len(g["nodes"]) for g in document["workloads"][0]["outcomes"]] == [10, 20]
    assert document["shard"]["nodes"] == [o.node for o in WIDE]


def wide_cluster(directory: Path) -> None:
    """Two system nodes and twelve user nodes of one cpu each: web-small fits every user
    node, web-big none; both have a group larger than the default bound."""
    addon = [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}]
    nodes = [api_node(f"system-{n}", taints=addon) for n in range(2)]
    nodes += [api_node(f"user-{n:02}", cpu="1") for n in range(12)]
    (directory / "wide.json").write_text(json.dumps(cluster_snapshot(nodes)))
    (directory / "manifests").mkdir()
    for name in ("01-web-small.yaml", "02-web-big.yaml"):
        shutil.copy(ROOT / "fixtures" / "manifests" / name, directory / "manifests" / name)


@pytest.mark.parametrize(
    ("argv", "name"),
    [((), "cli/wide.json"), (("--json-nodes", "all"), "cli/wide.all.json")],
    ids=["the default bound", "every name"],
)
def test_a_wide_cluster_s_report(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    golden: Callable[[str, str], None],
    argv: tuple[str, ...],
    name: str,
) -> None:
    wide_cluster(tmp_path)
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(io.BytesIO(), out, err, env={}, now=NOW)
    command = ["check", "manifests", "--snapshot", "wide.json", "--json", "-", *argv]
    assert main(command, streams) == 1, err.getvalue()
    validate_report(json.loads(out.getvalue()))
    golden(name, out.getvalue())


GOLDEN_REPORTS = sorted((ROOT / "tests" / "golden").rglob("*.json"))


@pytest.mark.parametrize("path", GOLDEN_REPORTS, ids=[p.name for p in GOLDEN_REPORTS])
def test_every_golden_report_validates(path: Path) -> None:
    validate_report(json.loads(path.read_text(encoding="utf-8")))


def test_the_reference_shows_the_real_report() -> None:
    reference = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    (shown,) = (
        b for b in re.findall(r"```json\n(.*?)```", reference, re.DOTALL) if "outcomes" in b
    )
    assert shown in (ROOT / "tests" / "golden" / "cli" / "aks.json").read_text(encoding="utf-8")


def test_the_module_s_examples_hold() -> None:
    assert doctest.testmod(jsonreport).failed == 0


def run_check(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    fixtures = ("fixtures/manifests", "--snapshot", "fixtures/snapshots/aks-six-nodes.json")
    code = main(["check", *fixtures, *argv], Streams(io.BytesIO(), out, err, env={}, now=NOW))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "value",
    ["x", "-1", "1e3", "9999999999", "", "\u0663", "all nodes"],
    ids=[
        "a word",
        "a negative",
        "an exponent",
        "ten digits",
        "empty",
        "an Arabic digit",
        "two words",
    ],
)
def test_a_bad_json_nodes_value_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = run_check("--json", "-", f"--json-nodes={value}")
    assert (code, out) == (2, "")
    assert err.startswith("fitgate check: argument --json-nodes: ") and err.count("\n") == 1
    assert err.endswith("expected all or a number, 0 to 999999999; see fitgate check --help\n")


@pytest.mark.parametrize(
    ("value", "names"),
    [("ALL", 3), (" 2 ", 2), ("0", 0)],
    ids=["all in capitals", "a number with spaces", "zero"],
)
def test_json_nodes_values(monkeypatch: pytest.MonkeyPatch, value: str, names: int) -> None:
    monkeypatch.chdir(ROOT)
    code, out, _ = run_check("--json", "-", f"--json-nodes={value}")
    assert code == 1
    report = json.loads(out)
    validate_report(report)
    listed = {len(g["nodes"]) for w in report["workloads"] for g in w["outcomes"]}
    assert listed == {names}
