"""check --shard K/N + merge give the bytes of one unsharded check, and refuse what does
not add up."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from benchmarks.generate import MANIFESTS_DIR, SNAPSHOT_FILE, ensure_case
from benchmarks.sizes import SIZES
from gate.ci.shard import parse_shard
from gate.cli import Streams, main
from gate.model import Shard
from tests.builders import api_node, cluster_snapshot
from tests.conftest import ROOT
from tests.report_schema import validate_report

AKS = "fixtures/snapshots/aks-six-nodes.json"
NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
ENV = {"GITHUB_ACTIONS": "true"}
OUTPUTS = ("json", "junit", "comment", "summary")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(io.BytesIO(), out, err, env=ENV, now=NOW))
    return code, out.getvalue(), err.getvalue()


def reports(directory: Path, tag: str) -> list[str]:
    return [f"--{kind}={directory / f'{tag}.{kind}'}" for kind in OUTPUTS]


def outputs(directory: Path, tag: str) -> dict[str, str]:
    return {kind: (directory / f"{tag}.{kind}").read_text() for kind in OUTPUTS}


def check_sharded_equals_whole(
    tmp_path: Path,
    manifests: str,
    snapshot: str,
    count: int,
    *extra: str,
    listed: tuple[str, ...] = (),
) -> None:
    """``listed`` (``--json-nodes``) is given to every command: a shard lists every node
    whatever it says, the merge and the whole run list what it says."""
    whole_argv = ("check", manifests, "--snapshot", snapshot, *extra, *listed)
    whole = run(*whole_argv, *reports(tmp_path, "whole"))
    validate_report(json.loads((tmp_path / "whole.json").read_text()))
    shards = []
    for index in range(1, count + 1):
        path = tmp_path / f"shard-{index}.json"
        shard_argv = ("--shard", f"{index}/{count}", "--json", str(path))
        run("check", manifests, "--snapshot", snapshot, *extra, *listed, *shard_argv)
        validate_report(json.loads(path.read_text()))
        shards.append(str(path))
    merged = run("merge", *reversed(shards), *listed, *reports(tmp_path, "merged"))
    assert merged == whole  # exit code, standard output (summary, annotations), errors
    assert outputs(tmp_path, "merged") == outputs(tmp_path, "whole")


@pytest.mark.parametrize("count", [1, 2, 3, 7, 20])
def test_fixtures_sharded_and_merged_are_one_run(tmp_path: Path, count: int) -> None:
    check_sharded_equals_whole(tmp_path, "fixtures/manifests", AKS, count)


def test_named_taints_survive_the_merge_in_the_generic_dialect(tmp_path: Path) -> None:
    """Since v1.35 the reason no longer names the taint; human reports still must."""
    extra = ("--scheduler-version", "v1.35.0", "--fail-on", "NO")
    check_sharded_equals_whole(tmp_path, "fixtures/manifests", AKS, 2, *extra)
    assert "CriticalAddonsOnly=true:NoSchedule" in (tmp_path / "merged.comment").read_text()


@pytest.mark.parametrize(
    "listed",
    [(), ("--json-nodes", "all"), ("--json-nodes", "0"), ("--json-nodes", "2")],
    ids=["the default bound", "every name", "no names", "two names"],
)
def test_generated_case_sharded_and_merged_is_one_run(
    tmp_path: Path, listed: tuple[str, ...]
) -> None:
    """Twelve nodes: groups larger than the bound, rebuilt from the shards' full lists."""
    case = ensure_case(SIZES["tiny"], tmp_path / "cache")
    manifests, snapshot = str(case / MANIFESTS_DIR), str(case / SNAPSHOT_FILE)
    check_sharded_equals_whole(tmp_path, manifests, snapshot, 3, listed=listed)


def test_nodes_of_different_reasons_keep_their_order_through_a_merge(tmp_path: Path) -> None:
    """A DaemonSet short of cpu on n0 and n2 and of memory on n1: the text lists the nodes
    without room in node order, which the groups alone (cpu, then memory) would lose."""
    nodes = [
        api_node("n0", cpu="1"),
        api_node("n1", memory="1Gi"),
        api_node("n2", cpu="1"),
        api_node("n3"),
    ]
    (tmp_path / "snapshot.json").write_text(json.dumps(cluster_snapshot(nodes)))
    requests = {"requests": {"cpu": "2", "memory": "2Gi"}}
    daemonset = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "ops"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"containers": [{"name": "a", "image": "a", "resources": requests}]},
            },
        },
    }
    (tmp_path / "agent.json").write_text(json.dumps(daemonset))
    check_sharded_equals_whole(
        tmp_path, str(tmp_path / "agent.json"), str(tmp_path / "snapshot.json"), 2
    )
    text = run("merge", str(tmp_path / "shard-1.json"), str(tmp_path / "shard-2.json"))[1]
    assert "n0 (Insufficient cpu), n1 (Insufficient memory), n2 (Insufficient cpu)" in text


def shard_files(tmp_path: Path, count: int, *extra: str, tag: str = "s") -> list[str]:
    paths = []
    for index in range(1, count + 1):
        path = tmp_path / f"{tag}-{index}.json"
        run(
            "check",
            "fixtures/manifests",
            "--snapshot",
            AKS,
            "--shard",
            f"{index}/{count}",
            "--json",
            str(path),
            *extra,
        )
        paths.append(str(path))
    return paths


def merge_error(*paths: str) -> str:
    code, out, err = run("merge", *paths, "--json", "-")
    assert code == 2 and not out
    assert "Traceback" not in err and err.count("\n") == 1
    return err


def test_a_missing_shard_is_refused(tmp_path: Path) -> None:
    first, _, third = shard_files(tmp_path, 3)
    assert "shard(s) 2/3 missing" in merge_error(first, third)


def test_a_shard_given_twice_is_refused(tmp_path: Path) -> None:
    first, second = shard_files(tmp_path, 2)
    assert "shard 1/2 is given twice" in merge_error(first, second, first)


def test_shards_of_different_splits_are_refused(tmp_path: Path) -> None:
    first = shard_files(tmp_path, 2, tag="two")[0]
    second = shard_files(tmp_path, 3, tag="three")[1]
    assert "different numbers of shards" in merge_error(first, second)


def test_shards_of_different_snapshots_are_refused(tmp_path: Path) -> None:
    first = shard_files(tmp_path, 2, tag="a")[0]
    snapshot = json.loads((ROOT / AKS).read_text())
    snapshot["nodes"] = snapshot["nodes"][:-1]
    other = tmp_path / "other.json"
    other.write_text(json.dumps(snapshot))
    second = tmp_path / "b-2.json"
    run(
        "check",
        "fixtures/manifests",
        "--snapshot",
        str(other),
        "--shard",
        "2/2",
        "--json",
        str(second),
    )
    assert "different snapshots" in merge_error(first, str(second))


def test_shards_with_different_fail_on_are_refused(tmp_path: Path) -> None:
    first = shard_files(tmp_path, 2, tag="a")[0]
    second = shard_files(tmp_path, 2, "--fail-on", "NO", tag="b")[1]
    assert "different --fail-on" in merge_error(first, second)


def test_shards_of_different_manifests_are_refused(tmp_path: Path) -> None:
    first = shard_files(tmp_path, 2, tag="a")[0]
    second = tmp_path / "b-2.json"
    run(
        "check",
        "fixtures/manifests/01-web-small.yaml",
        "--snapshot",
        AKS,
        "--shard",
        "2/2",
        "--json",
        str(second),
    )
    assert "different manifests" in merge_error(first, str(second))


def test_a_whole_report_is_not_a_shard(tmp_path: Path) -> None:
    whole = tmp_path / "whole.json"
    run("check", "fixtures/manifests", "--snapshot", AKS, "--json", str(whole))
    assert "not a shard report" in merge_error(str(whole))


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "cannot read report"),
        ("{", "not a fitgate JSON report"),
        ('{"schemaVersion": 3, "snapshot": 3}', "not a fitgate JSON report"),
    ],
    ids=["missing file", "not JSON", "wrong shape"],
)
def test_unreadable_reports_are_named(tmp_path: Path, content: str | None, needle: str) -> None:
    path = tmp_path / "report.json"
    if content is not None:
        path.write_text(content)
    err = merge_error(str(path))
    assert needle in err and str(path) in err


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "x", "3", "1/2/3", "-1/2"])
def test_bad_shard_arguments_exit_2(text: str) -> None:
    code, _, err = run("check", "fixtures/manifests", "--snapshot", AKS, f"--shard={text}")
    assert code == 2 and "expected K/N with 1 <= K <= N" in err and "Traceback" not in err
    assert err.endswith("; see fitgate check --help\n") and err.count("\n") == 1


def test_shards_are_round_robin_over_input_order() -> None:
    shard = parse_shard("2/3")
    assert shard == Shard(2, 3)
    assert [p for p in range(9) if shard.takes(p)] == [1, 4, 7]
    every = [sum(Shard(k, 3).takes(p) for k in (1, 2, 3)) for p in range(30)]
    assert every == [1] * 30


def version_one(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` as schemaVersion 1 wrote it: ``fits`` and a ``nodes`` map per workload."""
    for workload in report["workloads"]:
        groups = workload.pop("outcomes")
        nodes = {name: g["reasons"] for g in groups for name in g["nodes"]}
        workload["fits"] = [name for name, reasons in nodes.items() if not reasons]
        workload["nodes"] = nodes
    del report["shard"]["nodes"]
    return {**report, "schemaVersion": 1}


@pytest.mark.parametrize(
    ("change", "version"),
    [
        (version_one, 1),
        (lambda report: {**report, "schemaVersion": 2}, 2),
        (lambda report: {**report, "schemaVersion": 4}, 4),
    ],
    ids=["a version 1 report", "a version 2 report", "a version 4 report"],
)
def test_a_report_of_another_schema_version_is_refused_as_such(
    tmp_path: Path, change: Callable[[dict[str, Any]], dict[str, Any]], version: int
) -> None:
    first, second = shard_files(tmp_path, 2)
    old = change(json.loads(Path(first).read_text()))
    Path(first).write_text(json.dumps(old))
    assert merge_error(first, second) == (
        f"fitgate: {first}: report schemaVersion {version}: fitgate merge reads "
        "schemaVersion 3; re-run check --shard with this version\n"
    )


def test_shards_listing_different_nodes_are_refused(tmp_path: Path) -> None:
    """Same snapshot description, one node renamed in one shard (groups included)."""
    first, second = shard_files(tmp_path, 2)
    text = Path(first).read_text().replace('"aks-user-2"', '"aks-user-9"')
    Path(first).write_text(text)
    assert "list different nodes: they cannot be merged" in merge_error(first, second)


def test_a_shard_report_names_every_node_whatever_the_bound(tmp_path: Path) -> None:
    (path,) = shard_files(tmp_path, 1, "--json-nodes", "0")
    report = json.loads(Path(path).read_text())
    validate_report(report)  # a shard's groups name as many nodes as they count
    assert report["shard"]["nodes"] == [
        *(f"aks-system-{n}" for n in range(3)),
        *(f"aks-user-{n}" for n in range(3)),
    ]
