"""``fitgate merge`` reads report files a pull request's job may have written: every field
of a shard is checked before it is used, and a bad one is refused in one line that names
the file and the field (exit 2), at once -- never a loop, a long run or a traceback."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.ci import merge
from gate.cli import Streams, main
from tests.conftest import ROOT
from tests.deadline import deadline

AKS = "fixtures/snapshots/aks-six-nodes.json"
NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)

Report = dict[str, Any]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with deadline(20):
        code = main(list(argv), Streams(io.BytesIO(), out, err, env={}, now=NOW))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[Report]:
    """The two shard reports of the fixtures, as written by check --shard K/2."""
    directory = tmp_path_factory.mktemp("shards")
    found = []
    for index in (1, 2):
        path = directory / f"s-{index}.json"
        argv = ["check", str(ROOT / "fixtures/manifests"), "--snapshot", str(ROOT / AKS)]
        main([*argv, "--shard", f"{index}/2", "--json", str(path)],
             Streams(io.BytesIO(), io.StringIO(), io.StringIO(), env={}, now=NOW))  # fmt: skip
        found.append(json.loads(path.read_text()))
    return found


def first_taint(report: Report) -> dict[str, Any]:
    return next(t for taints in report["shard"]["untolerated"] for t in taints)


def set_bitset(value: str) -> Callable[[Report], None]:
    def change(report: Report) -> None:
        first_taint(report)["nodes"] = value

    return change


def set_field(*path: str | int, value: Any) -> Callable[[Report], None]:
    def change(report: Report) -> None:
        parent: Any = report
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = value

    return change


BITSET = "$.shard.untolerated[0][0].nodes"
FIT: dict[str, Any] = {"reasons": [], "plugin": None, "code": None}
TAINTED = {
    "reasons": ["node(s) had untolerated taint {CriticalAddonsOnly: true}"],
    "plugin": "TaintToleration",
    "code": "UnschedulableAndUnresolvable",
}
USER_NODES = ["aks-user-0", "aks-user-1", "aks-user-2"]
CASES = [
    pytest.param(set_bitset("-7"), f"`str` matching regex '^[0-9a-f]+$' - at `{BITSET}`",
                 id="a negative bitset is refused, not looped over"),
    pytest.param(set_bitset("f" * 2_000_000),
                 f"{BITSET}: a bitset over more than the workload's 6 nodes",
                 id="a two-megabyte bitset is refused before it is converted"),
    pytest.param(set_bitset("40"), f"{BITSET}: a bitset over more than the workload's 6 nodes",
                 id="a bitset naming a node past the list is refused"),
    pytest.param(set_bitset("xyz"), f"`str` matching regex '^[0-9a-f]+$' - at `{BITSET}`",
                 id="a bitset that is not hex is refused"),
    pytest.param(set_bitset("0x7"), f"`str` matching regex '^[0-9a-f]+$' - at `{BITSET}`",
                 id="a bitset with a prefix is refused"),
    pytest.param(set_bitset(""), f"`str` matching regex '^[0-9a-f]+$' - at `{BITSET}`",
                 id="an empty bitset is refused"),
    pytest.param(set_bitset(7), f"Expected `str`, got `int` - at `{BITSET}`",  # type: ignore[arg-type]
                 id="a bitset that is a number is refused"),
    pytest.param(set_field("shard", "count", value=10**12),
                 "Expected `int` <= 10000 - at `$.shard.count`",
                 id="a count of ten to the twelfth is refused"),
    pytest.param(set_field("shard", "count", value=0), "Expected `int` >= 1 - at `$.shard.count`",
                 id="a count of zero is refused"),
    pytest.param(set_field("shard", "index", value=-1), "Expected `int` >= 1 - at `$.shard.index`",
                 id="a negative index is refused"),
    pytest.param(set_field("shard", "index", value=3), "$.shard.index 3 is past $.shard.count 2",
                 id="an index past the count is refused"),
    pytest.param(set_field("shard", "items", value=-1), "Expected `int` >= 0 - at `$.shard.items`",
                 id="a negative number of items is refused"),
    pytest.param(set_field("shard", "items", value=10**30),
                 "Expected `int` <= 9223372036854775807 - at `$.shard.items`",
                 id="a number of items past int64 is refused"),
    pytest.param(set_field("shard", "inputs", value="../" * 10),
                 "`str` matching regex '^[0-9a-f]{64}$' - at `$.shard.inputs`",
                 id="an input digest that is not SHA-256 hex is refused"),
    pytest.param(set_field("shard", "positions", 0, value=1),
                 "$.shard.positions[0]: workload position 1 is not this shard's",
                 id="a position of the other shard is refused"),
    pytest.param(set_field("shard", "positions", 1, value=0),
                 "$.shard.positions[1]: workload position 0 is given twice",
                 id="a position given twice is refused"),
    pytest.param(set_field("shard", "positions", 0, value=1000),
                 "$.shard.positions[0]: workload position 1000 is not this shard's",
                 id="a position past the items is refused"),
    pytest.param(set_field("shard", "positions", value=[0]),
                 "$.shard.positions and $.shard.untolerated do not match $.workloads",
                 id="fewer positions than workloads are refused"),
    pytest.param(set_field("workloads", 0, "line", value=0),
                 "Expected `int` >= 1 - at `$.workloads[0].line`",
                 id="a line zero is refused"),
    pytest.param(set_field("workloads", 0, "replicas", value={"wanted": -2, "fit": None}),
                 "Expected `int` >= 0 - at `$.workloads[0].replicas.wanted`",
                 id="negative replicas are refused"),
    pytest.param(set_field("workloads", 0, "verdict", value="MAYBE" * 100),
                 "$.workloads[0].verdict: unknown verdict 'MAYBEMAYBEMAYBEMAYBE'",
                 id="an unknown verdict is refused, shortened"),
    pytest.param(set_field("summary", "failOn", value=["NO", "SOMETIMES"]),
                 "$.summary.failOn[1]: unknown verdict 'SOMETIMES'",
                 id="an unknown fail-on verdict is refused"),
    pytest.param(set_field("snapshot", "nodes", value=-6),
                 "Expected `int` >= 0 - at `$.snapshot.nodes`",
                 id="a negative node count is refused"),
    pytest.param(set_field("otherDocuments", value={"Service": -1}),
                 "Expected `int` >= 0 - at `$.otherDocuments[...]`",
                 id="a negative document count is refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 0, "reasons", value="Insufficient cpu"),
                 "Expected `array`, got `str` - at `$.workloads[0].outcomes[0].reasons`",
                 id="reasons that are not a list are refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 0, "count", value=0),
                 "Expected `int` >= 1 - at `$.workloads[0].outcomes[0].count`",
                 id="an empty group is refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 0, "nodes", 1, value="aks-system-0"),
                 "$.workloads[0].outcomes[0].nodes[1]: node 'aks-system-0' is named twice",
                 id="a group naming a node twice is refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 1, "nodes", 0, value="aks-system-0"),
                 "$.workloads[0].outcomes[1].nodes[0]: node 'aks-system-0' is named twice",
                 id="a node in two groups is refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 1, "nodes", 0, value="elsewhere"),
                 "$.workloads[0].outcomes[1].nodes[0]: node 'elsewhere' is not in $.shard.nodes",
                 id="a node the snapshot does not have is refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 1, value={**FIT, "count": 2,
                                                                 "nodes": ["aks-user-0"]}),
                 "$.workloads[0].outcomes[1].nodes: 1 names for a count of 2: a shard's report "
                 "names every node (check --shard writes them all)",
                 id="a group listing fewer names than its count is refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 1, value={**FIT, "count": 2,
                                                                 "nodes": ["aks-user-0",
                                                                           "aks-user-1"]}),
                 "$.workloads[0].outcomes: the groups name 5 of the snapshot's 6 nodes: every "
                 "node must be in one group",
                 id="counts that do not add up to the snapshot's nodes are refused"),
    pytest.param(set_field("workloads", 0, "outcomes", value=[]),
                 "$.workloads[0].outcomes: the groups name 0 of the snapshot's 6 nodes",
                 id="an evaluated workload without outcomes is refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 1, value={**TAINTED, "count": 3,
                                                                 "nodes": USER_NODES}),
                 "$.workloads[0].outcomes[1]: the same reasons, plugin and code as outcomes[0]",
                 id="two groups of the same outcome are refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 0, "plugin", value=None),
                 "$.workloads[0].outcomes[0].plugin: reasons without the plugin that gave them",
                 id="reasons without their plugin are refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 1, "plugin", value="NodePorts"),
                 "$.workloads[0].outcomes[1].plugin: a plugin or code for nodes that fit",
                 id="nodes that fit with a plugin are refused"),
    pytest.param(set_field("workloads", 0, "outcomes", 0, "code", value="Maybe"),
                 "Invalid enum value 'Maybe' - at `$.workloads[0].outcomes[0].code`",
                 id="an unknown code is refused"),
    pytest.param(set_field("workloads", 3, "warnings", 0, "kind", value="gossip"),
                 "Invalid enum value 'gossip' - at `$.workloads[3].warnings[0].kind`",
                 id="a warning of an unknown kind is refused"),
    pytest.param(set_field("workloads", 0, "allowed", value="yes"),
                 "Expected `bool`, got `str` - at `$.workloads[0].allowed`",
                 id="an allowed that is not a boolean is refused"),
    pytest.param(set_field("workloads", 0, "verdict", value="NO"),
                 "$.workloads[0].outcomes[1].reasons: nodes that fit, for a workload whose "
                 "verdict is NO",
                 id="a NO with nodes that fit is refused"),
    pytest.param(set_field("shard", "nodes", 5, value="aks-system-0"),
                 "$.shard.nodes[5]: node 'aks-system-0' is named twice",
                 id="a snapshot node named twice is refused"),
    pytest.param(set_field("shard", "nodes", value=["aks-system-0"]),
                 "$.shard.nodes: 1 node names for the snapshot's 6 nodes ($.snapshot.nodes)",
                 id="fewer node names than the snapshot's nodes are refused"),
    pytest.param(set_field("shard", "nodes", value="aks-system-0"),
                 "Expected `array`, got `str` - at `$.shard.nodes`",
                 id="node names that are not a list are refused"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "problem"), CASES)
def test_a_damaged_shard_is_refused_in_one_line_naming_file_and_field(
    tmp_path: Path, shards: list[Report], change: Callable[[Report], None], problem: str
) -> None:
    first, second = json.loads(json.dumps(shards))
    change(first)
    paths = [tmp_path / "s-1.json", tmp_path / "s-2.json"]
    for path, report in zip(paths, (first, second), strict=True):
        path.write_text(json.dumps(report))
    code, out, err = run("merge", *map(str, paths), "--json", "-")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"fitgate: {paths[0]}: not a fitgate ") and problem in err, err


def _made_yes(report: Report, *, summary: bool = False, fit: bool = False) -> None:
    """The shard's NO workload (web/web-big) made YES, with its summary and its count of
    fitting pods changed to match when asked."""
    workload = report["workloads"][0]
    assert workload["verdict"] == "NO"
    workload["verdict"] = "YES"
    if summary:
        report["summary"].update(NO=report["summary"]["NO"] - 1, YES=report["summary"]["YES"] + 1)
    if fit:
        workload["replicas"]["fit"] = workload["replicas"]["wanted"]


@pytest.mark.parametrize(
    ("tamper", "problem"),
    [
        pytest.param(
            _made_yes,
            "$.summary.YES: 0, but 1 of $.workloads have the verdict YES",
            id="a NO made YES disagrees with the shard's own summary",
        ),
        pytest.param(
            lambda r: _made_yes(r, summary=True),
            "$.workloads[0].verdict: YES, but 0 of 2 pods fit",
            id="a NO made YES with its summary disagrees with its own count",
        ),
        pytest.param(
            lambda r: _made_yes(r, summary=True, fit=True),
            "$.workloads[0].verdict: YES, but no node fits it ($.workloads[0].outcomes)",
            id="a NO made YES with its summary and count disagrees with its outcomes",
        ),
    ],
)
def test_a_tampered_verdict_is_refused_naming_the_shard(
    tmp_path: Path, shards: list[Report], tamper: Callable[[Report], None], problem: str
) -> None:
    first, second = json.loads(json.dumps(shards))
    tamper(second)
    paths = [tmp_path / "s-1.json", tmp_path / "s-2.json"]
    for path, report in zip(paths, (first, second), strict=True):
        path.write_text(json.dumps(report))
    code, out, err = run("merge", *map(str, paths), "--json", "-")
    assert (code, out) == (2, "")
    assert err == f"fitgate: {paths[1]}: not a fitgate shard report: {problem}\n"


def test_the_undamaged_shards_merge(tmp_path: Path, shards: list[Report]) -> None:
    paths = [tmp_path / "s-1.json", tmp_path / "s-2.json"]
    for path, report in zip(paths, shards, strict=True):
        path.write_text(json.dumps(report))
    code, out, _ = run("merge", *map(str, paths), "--json", "-")
    assert code == 1 and len(json.loads(out)["workloads"]) == 7


@pytest.mark.parametrize(
    "nested",
    [
        b'{"schemaVersion": 3, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=["a field nested 100,000 deep", "a report that is an array nested 100,000 deep"],
)
def test_a_report_nested_too_deep_is_one_line(tmp_path: Path, nested: bytes) -> None:
    path = tmp_path / "s-1.json"
    path.write_bytes(nested)
    code, out, err = run("merge", str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"fitgate: {path}: not a fitgate JSON report: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_huge_count_of_missing_shards_is_listed_shortly(
    tmp_path: Path, shards: list[Report]
) -> None:
    report = json.loads(json.dumps(shards[0]))
    report["shard"]["count"] = 10_000
    report["shard"]["positions"] = [0]
    report["workloads"] = report["workloads"][:1]
    verdict = report["workloads"][0]["verdict"]
    counts = ("YES", "SCALES", "NO", "ADDON_ONLY", "PARTIAL", "ERROR", "SKIPPED")
    report["summary"].update({v: int(v == verdict) for v in counts}, workloads=1)
    report["shard"]["untolerated"] = report["shard"]["untolerated"][:1]
    path = tmp_path / "s-1.json"
    path.write_text(json.dumps(report))
    code, _, err = run("merge", str(path))
    assert code == 2
    expected = ", ".join(f"{k}/10000" for k in range(2, 12))
    assert (
        err == f"fitgate: shard(s) {expected} and 9989 more missing: every shard must be merged\n"
    )


@pytest.mark.parametrize(
    "text",
    ["1/10001", "1/" + "9" * 5000, "9" * 5000 + "/1"],
    ids=["past the largest count", "a count of five thousand digits", "a huge index"],
)
def test_a_huge_shard_argument_is_refused(text: str) -> None:
    code, _, err = run("check", "fixtures/manifests", "--snapshot", AKS, f"--shard={text}")
    assert code == 2 and "expected K/N with 1 <= K <= N <= 10,000" in err
    assert "Traceback" not in err and len(err) < 1000


def test_an_endless_report_file_is_refused_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(merge, "MAX_REPORT_BYTES", 2 * 1024 * 1024)
    code, out, err = run("merge", "/dev/zero")
    assert (code, out) == (2, "")
    assert err == "fitgate: /dev/zero: not a fitgate shard report: longer than 2 MiB\n"
