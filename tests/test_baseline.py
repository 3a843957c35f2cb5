"""``--baseline REPORT``: reading an earlier report (untrusted), comparing the run with it,
and what the gate and every report say of the comparison.

The scenario of the golden files: ``fixtures/baseline/base`` is the base branch's version
of ``fixtures/manifests`` (web-small asked cpu: 2, web-big was PARTIAL, log-agent did not
exist, web-old did), and ``fixtures/baseline/base-report-v1.json`` is its report, written
by the version 1 report writer with the base manifests at ``fixtures/manifests`` (as a CI
job checks the base branch in a folder of its own, under the same relative paths).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.errors import UsageError
from gate.inputs import baseline as baseline_module
from gate.inputs.baseline import read_baseline
from gate.model import (
    DEFAULT_FAIL_ON,
    Baseline,
    BaselineEntry,
    Change,
    Policy,
    Verdict,
)
from gate.model.contract import REPORT_DECODER
from gate.reports.baseline import compare, comparison, worse
from tests.conftest import ROOT
from tests.engine_support import NO_VICTIMS, NOT_HELPFUL, preempting
from tests.report_builders import report, result
from tests.test_cli import NOW

Golden = Callable[[str, str], None]
AKS = "fixtures/snapshots/aks-six-nodes.json"
BASE_V1 = "fixtures/baseline/base-report-v1.json"
REPORT_SCHEMA = json.loads((ROOT / "gate" / "schemas" / "report.schema.json").read_text())
NOW_ARGS = ("--snapshot", AKS)


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(stdin=io.BytesIO(b""), stdout=out, stderr=err, env={}, now=NOW)
    code = main(list(argv), streams)
    return code, out.getvalue(), err.getvalue()


# --- reading the baseline: untrusted input -----------------------------------------------------


def _v2_report(**workload: object) -> dict[str, object]:
    """The fields of a version 2 report (docs/reference.md, "The JSON report") the baseline
    may meet."""
    entry: dict[str, object] = {
        "kind": "Deployment",
        "namespace": "web",
        "name": "api",
        "file": "deploy/api.yaml",
        "line": 1,
        "replicas": {"wanted": 3, "fit": 0},
        "verdict": "NO",
        "message": "0/6 nodes are available: 6 Insufficient cpu.",
        "outcomes": [{"reasons": ["Insufficient cpu"], "count": 6, "nodes": ["n1"]}],
        "requests": {"cpu": "2"},
        "warnings": [],
    }
    entry.update(workload)
    return {
        "schemaVersion": 2,
        "snapshot": {"source": "s.json", "capturedAt": None, "nodes": 6, "pods": 0},
        "summary": {"workloads": 1, "passed": False},
        "workloads": [entry],
    }


BAD_BASELINES = [
    ("not-json", b"{nope", "not a fitgate JSON report: JSON is malformed"),
    ("an-array", b"[]", "not a fitgate JSON report: Expected `object`, got `array`"),
    ("no-version", b'{"workloads": []}', "missing required field `schemaVersion`"),
    (
        "version-as-text",
        b'{"schemaVersion": "2", "workloads": []}',
        "Expected `int`, got `str` - at `$.schemaVersion`",
    ),
    (
        "a-future-version",
        b'{"schemaVersion": 4, "workloads": []}',
        "baseline report schemaVersion 4: fitgate reads schemaVersion 1, 2 or 3",
    ),
    ("no-workloads", b'{"schemaVersion": 2}', "missing required field `workloads`"),
    (
        "unknown-verdict",
        json.dumps(_v2_report(verdict="MAYBE")).encode(),
        "at `$.workloads[0].verdict`",
    ),
    ("name-a-number", json.dumps(_v2_report(name=7)).encode(), "at `$.workloads[0].name`"),
    ("line-zero", json.dumps(_v2_report(line=0)).encode(), "at `$.workloads[0].line`"),
    (
        "no-namespace",
        b'{"schemaVersion": 1, "workloads": [{"kind": "Pod", "name": "a", "verdict": "NO"}]}',
        "missing required field `namespace` - at `$.workloads[0]`",
    ),
    (
        "a-name-not-utf8",
        b'{"schemaVersion": 2, "workloads": [{"kind": "Pod", "namespace": "a", "name": "\xff"}]}',
        "not a fitgate JSON report: Invalid UTF-8",
    ),
    (
        "a-report-nested-100000-deep",
        b'{"schemaVersion": 3, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "not a fitgate JSON report: JSON nested too deeply to read",
    ),
    (
        "an-array-nested-100000-deep",
        b"[" * 100_000 + b"]" * 100_000,
        "not a fitgate JSON report: ",
    ),
]


@pytest.mark.parametrize(
    ("content", "says"), [b[1:] for b in BAD_BASELINES], ids=[b[0] for b in BAD_BASELINES]
)
def test_a_bad_baseline_is_refused_in_one_line_naming_file_and_field(
    tmp_path: Path, content: bytes, says: str
) -> None:
    path = tmp_path / "base.json"
    path.write_bytes(content)
    with pytest.raises(UsageError) as caught:
        read_baseline(str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and says in message
    assert "\n" not in message


def test_a_bad_baseline_exits_2_before_the_snapshot_is_read(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text('{"schemaVersion": 4, "workloads": []}')
    code, out, err = run(
        "check", "fixtures/manifests", "--snapshot", "missing.json", "--baseline", str(path)
    )
    assert (code, out) == (2, "")
    assert (
        err == f"fitgate: {path}: baseline report schemaVersion 4: fitgate reads schemaVersion 1, "
        "2 or 3\n"
    )


@pytest.mark.parametrize("what", ["missing", "directory", "too-long"])
def test_an_unreadable_baseline_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    path = tmp_path / "base.json"
    if what == "directory":
        path.mkdir()
    if what == "too-long":
        monkeypatch.setattr(baseline_module, "MAX_BASELINE_BYTES", 10)
        path.write_text('{"schemaVersion": 2, "workloads": []}')
    with pytest.raises(UsageError) as caught:
        read_baseline(str(path))
    says = "longer than 0 MiB" if what == "too-long" else "cannot read the baseline report"
    assert str(caught.value).startswith(f"{path}: ") and says in str(caught.value)


@pytest.mark.parametrize("version", [2, 3], ids=["of an older version", "of this version"])
def test_a_baseline_of_more_workloads_than_it_may_hold_is_refused_naming_the_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int
) -> None:
    """Each workload kept costs more than the smallest one takes in the file (2,000,000 of
    144 MB once held 1.1 GB): past the cap, the count is refused, whatever the size."""
    monkeypatch.setattr(baseline_module, "MAX_BASELINE_WORKLOADS", 3)
    written = json.loads((ROOT / "tests" / "golden" / "cli" / "aks.json").read_text())
    if version == 2:
        written = {"schemaVersion": 2, "workloads": written["workloads"]}
        for workload in written["workloads"]:
            workload["warnings"] = [w["text"] for w in workload["warnings"]]
    written["workloads"] = written["workloads"][:3]
    path = tmp_path / "base.json"
    path.write_text(json.dumps(written))
    assert len(read_baseline(str(path)).entries) == 3
    written["workloads"] = [*written["workloads"], written["workloads"][0]]
    path.write_text(json.dumps(written))
    with pytest.raises(UsageError) as caught:
        read_baseline(str(path))
    assert str(caught.value) == (
        f"{path}: baseline report: 4 workloads, more than the 3 a baseline may hold"
    )


def test_both_report_versions_give_the_same_entries(tmp_path: Path) -> None:
    v1 = json.loads((ROOT / BASE_V1).read_text())
    v2 = _v2_report()
    v2["workloads"] = [
        {k: v for k, v in w.items() if k not in ("fits", "nodes")} | {"outcomes": []}
        for w in v1["workloads"]
    ]
    v2["schemaVersion"] = 2
    (tmp_path / "v2.json").write_text(json.dumps(v2))
    first, second = read_baseline(str(ROOT / BASE_V1)), read_baseline(str(tmp_path / "v2.json"))
    assert first.entries == second.entries
    assert [e.title for e in first.entries] == [
        "Deployment web/web-small",
        "Deployment web/web-big",
        "CronJob batch/nightly-report",
        "Document fixtures/manifests/05-broken.yaml:12",
        "Deployment ops/legacy-cron-runner",
        "StatefulSet web/cache",
        "Deployment web/web-old",
    ]
    assert first.entries[1] == BaselineEntry(
        "Deployment", "web", "web-big", Verdict.PARTIAL, "fixtures/manifests/02-web-big.yaml", 2
    )


def test_every_report_version_gives_the_same_entries(tmp_path: Path) -> None:
    """This version's report, decoded by the report's own types, and an older one read at
    the edge give one baseline."""
    written = json.loads((ROOT / "tests" / "golden" / "cli" / "aks.json").read_text())
    older = {**json.loads(json.dumps(written)), "schemaVersion": 2}
    for workload in older["workloads"]:
        workload["warnings"] = [w["text"] for w in workload["warnings"]]
    (tmp_path / "v3.json").write_text(json.dumps(written))
    (tmp_path / "v2.json").write_text(json.dumps(older))
    now, before = read_baseline(str(tmp_path / "v3.json")), read_baseline(str(tmp_path / "v2.json"))
    assert now.entries == before.entries and len(now.entries) == 7
    assert now.entries[1] == BaselineEntry(
        "Deployment",
        "web",
        "web-big",
        Verdict.NO,
        "fixtures/manifests/02-web-big.yaml",
        2,
        "0/6 nodes are available: 3 Insufficient cpu, "
        "3 node(s) had untolerated taint {CriticalAddonsOnly: true}."
        + preempting(6, (3, NO_VICTIMS), (3, NOT_HELPFUL)),
    )


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        (
            "verdict",
            "MAYBE" * 100,
            "$.workloads[0].verdict: unknown verdict 'MAYBEMAYBEMAYBEMAYBE'",
        ),
        (
            "warnings",
            ["a bare sentence"],
            "Expected `object`, got `str` - at `$.workloads[0].warnings[0]`",
        ),
    ],
    ids=["an unknown verdict, shortened", "a warning without its kind"],
)
def test_a_bad_report_of_this_version_is_refused_in_one_line(
    tmp_path: Path, field: str, value: object, says: str
) -> None:
    written = json.loads((ROOT / "tests" / "golden" / "cli" / "aks.json").read_text())
    written["workloads"][0][field] = value
    path = tmp_path / "base.json"
    path.write_text(json.dumps(written))
    with pytest.raises(UsageError) as caught:
        read_baseline(str(path))
    assert str(caught.value).startswith(f"{path}: ") and says in str(caught.value)
    assert "\n" not in str(caught.value)


def _whole(path: Path) -> Baseline:
    """The baseline as the whole report decoded at once by the report's types gives it: what
    the reader decoding one workload at a time is held to."""
    decoded = REPORT_DECODER.decode(path.read_bytes())
    assert not decoded.policy  # the reports compared here were run with the default
    return Baseline(
        str(path),
        tuple(
            BaselineEntry(
                w.kind, w.namespace, w.name, Verdict(w.verdict), w.file, w.line, w.message
            )
            for w in decoded.workloads
        ),
        Policy(fail_on_by=None, allowed=(), skips=()),
        frozenset(Verdict(v) for v in decoded.summary.failOn),
    )


@pytest.mark.parametrize("written", ["aks.json", "baseline.json"], ids=["a check's", "a compared"])
def test_a_report_read_workload_by_workload_compares_as_the_whole_report(
    tmp_path: Path, written: str
) -> None:
    path = tmp_path / "base.json"
    shutil.copy(ROOT / "tests" / "golden" / "cli" / written, path)
    read, whole = read_baseline(str(path)), _whole(path)
    assert read == whole and len(read.entries) == 7
    results = [result(e.name, verdict=v) for e in read.entries for v in (Verdict.NO, Verdict.YES)]
    run_report = report(*results, fail_on=DEFAULT_FAIL_ON)
    assert compare(run_report, read) == compare(run_report, whole)


@pytest.mark.parametrize(
    ("where", "value", "says"),
    [
        (("workloads", 3, "outcomes"), [{"count": 1}], "at `$.workloads[3].outcomes[0]`"),
        (("workloads", 6), "a sentence", "Expected `object`, got `str` - at `$.workloads[6]`"),
        (("workloads", 6, "extra"), 1, "unknown field `extra` - at `$.workloads[6]`"),
        (("summary", "YES"), -1, "Expected `int` >= 0 - at `$.summary.YES`"),
        (("snapshot", "extra"), 1, "unknown field `extra` - at `$.snapshot`"),
    ],
    ids=[
        "a later workload's outcome group, named from the root",
        "a workload that is not an object",
        "a field the contract does not have",
        "a summary's count",
        "the snapshot's unknown field",
    ],
)
def test_every_field_of_a_report_read_workload_by_workload_is_checked(
    tmp_path: Path, where: tuple[str | int, ...], value: object, says: str
) -> None:
    written = json.loads((ROOT / "tests" / "golden" / "cli" / "aks.json").read_text())
    inner = written
    for step in where[:-1]:
        inner = inner[step]
    inner[where[-1]] = value
    path = tmp_path / "base.json"
    path.write_text(json.dumps(written))
    with pytest.raises(UsageError) as caught:
        read_baseline(str(path))
    assert str(caught.value).startswith(f"{path}: not a fitgate JSON report: ")
    assert str(caught.value).endswith(says) and "\n" not in str(caught.value)


# --- the comparison ----------------------------------------------------------------------------

Y, P, A, N, E, S = (
    Verdict.YES,
    Verdict.PARTIAL,
    Verdict.ADDON_ONLY,
    Verdict.NO,
    Verdict.ERROR,
    Verdict.SKIPPED,
)
ALL = DEFAULT_FAIL_ON
NO_ONLY = frozenset({N, E})

# (id, baseline verdict or None, verdict now, fail-on, allowed, change, fails the gate)
CASES = [
    ("a-new-failure-fails", None, N, ALL, False, Change.NEW, True),
    ("a-new-workload-that-fits-passes", None, Y, ALL, False, Change.NEW, False),
    ("a-new-skip-never-fails", None, S, ALL | {S}, False, Change.NEW, False),
    ("partial-to-no-is-worse", P, N, ALL, False, Change.WORSE, True),
    ("partial-to-addon-only-is-worse", P, A, ALL, False, Change.WORSE, True),
    ("yes-to-partial-is-worse", Y, P, ALL, False, Change.WORSE, True),
    ("no-to-partial-still-fails-no-worse", N, P, ALL, False, Change.STILL_FAILING, False),
    ("no-to-no-still-fails", N, N, ALL, False, Change.STILL_FAILING, False),
    ("no-to-yes-is-fixed", N, Y, ALL, False, Change.FIXED, False),
    ("no-to-skipped-is-fixed", N, S, ALL, False, Change.FIXED, False),
    ("yes-to-yes-is-unchanged", Y, Y, ALL, False, Change.UNCHANGED, False),
    ("an-error-after-a-fit-is-worse", Y, E, ALL, False, Change.WORSE, True),
    ("an-error-still-an-error-still-fails-the-gate", E, E, ALL, False, Change.STILL_FAILING, True),
    ("a-no-after-an-error-is-worse", E, N, ALL, False, Change.WORSE, True),
    ("a-no-after-a-skip-is-worse", S, N, ALL, False, Change.WORSE, True),
    ("an-error-fixed", E, Y, ALL, False, Change.FIXED, False),
    ("worse-outside-fail-on-never-fails", Y, P, NO_ONLY, False, Change.UNCHANGED, False),
    ("partial-to-no-under-no-only-is-worse", P, N, NO_ONLY, False, Change.WORSE, True),
    ("no-to-partial-under-no-only-is-fixed", N, P, NO_ONLY, False, Change.FIXED, False),
    ("an-allowed-addon-only-is-unchanged", A, A, ALL, True, Change.UNCHANGED, False),
    ("no-to-an-allowed-addon-only-is-fixed", N, A, ALL, True, Change.FIXED, False),
]


@pytest.mark.parametrize(
    ("before", "now", "fail_on", "allowed", "change", "fails"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_each_workload_is_compared_as_the_gate_sees_both_verdicts(
    before: Verdict | None,
    now: Verdict,
    fail_on: frozenset[Verdict],
    allowed: bool,
    change: Change,
    fails: bool,
) -> None:
    current = replace(result(verdict=now), allowed=allowed)
    run_report = report(current, fail_on=fail_on)
    entry = None if before is None else BaselineEntry("Deployment", "default", "app", before)
    compared = comparison(run_report, current, entry)
    assert (compared.change, compared.before, compared.fails) == (change, before, fails)


def _entry(name: str, verdict: Verdict, kind: str = "Deployment") -> BaselineEntry:
    return BaselineEntry(kind, "default", name, verdict)


def test_workloads_sharing_a_key_are_matched_in_order_and_the_rest_are_gone() -> None:
    run_report = report(
        result("twin", verdict=N, file="a.yaml"),
        result("twin", verdict=N, file="b.yaml"),
        result("twin", verdict=N, file="c.yaml"),
        result("train [Worker]", verdict=N, kind="PyTorchJob"),
    )
    base = Baseline(
        "base.json",
        (
            _entry("twin", Verdict.NO),
            _entry("twin", Verdict.YES),
            _entry("train [Worker]", Verdict.NO, kind="PyTorchJob"),
            _entry("train [Master]", Verdict.NO, kind="PyTorchJob"),
            _entry("twin", Verdict.NO, kind="StatefulSet"),
        ),
    )
    compared = compare(run_report, base)
    changes = [r.compared.change if r.compared else None for r in compared.results]
    assert changes == [Change.STILL_FAILING, Change.WORSE, Change.NEW, Change.STILL_FAILING]
    assert compared.baseline is not None
    assert [e.title for e in compared.baseline.gone] == [
        "PyTorchJob default/train [Master]",
        "StatefulSet default/twin",
    ]
    assert [compared.fails(r) for r in compared.results] == [False, True, True, False]
    assert not compared.summary.passed


def test_a_shards_report_names_nothing_gone() -> None:
    compared = compare(report(result("a")), Baseline("b.json", (_entry("b", N),)), whole=False)
    assert compared.baseline is not None and compared.baseline.gone == ()


VERDICTS = st.sampled_from(list(Verdict))


@settings(max_examples=200, deadline=None)
@given(
    verdicts=st.lists(st.tuples(st.sampled_from("abc"), VERDICTS), max_size=8),
    fail_on=st.sets(VERDICTS, min_size=1).map(frozenset),
)
def test_a_run_compared_with_its_own_report_fails_only_on_errors(
    verdicts: list[tuple[str, Verdict]], fail_on: frozenset[Verdict]
) -> None:
    results = [result(name, verdict=v) for name, v in verdicts]
    run_report = report(*results, fail_on=fail_on)
    own = Baseline("own.json", tuple(_entry(name, v) for name, v in verdicts))
    compared = compare(run_report, own)
    assert compared.baseline is not None and compared.baseline.gone == ()
    for item in compared.results:
        assert item.compared is not None
        assert item.compared.change in (Change.UNCHANGED, Change.STILL_FAILING)
        assert compared.fails(item) == (item.verdict is Verdict.ERROR and item.verdict in fail_on)


@given(
    base=st.lists(st.tuples(st.sampled_from("abc"), VERDICTS), max_size=8),
    run_names=st.lists(st.sampled_from("abcd"), max_size=8),
)
def test_workloads_of_one_key_are_paired_in_order_and_the_rest_are_gone(
    base: list[tuple[str, Verdict]], run_names: list[str]
) -> None:
    """The n-th workload of a key in the run is compared with the n-th of the baseline; the
    baseline's workloads left over are gone, in its order."""
    entries = tuple(_entry(name, v) for name, v in base)
    compared = compare(report(*(result(name) for name in run_names)), Baseline("b.json", entries))
    waiting = list(entries)
    for name, item in zip(run_names, compared.results, strict=True):
        before = next((e for e in waiting if e.name == name), None)
        if before is not None:
            waiting.remove(before)
        assert item.compared is not None
        assert item.compared.before == (None if before is None else before.verdict)
    assert compared.baseline is not None
    assert [id(e) for e in compared.baseline.gone] == [id(e) for e in waiting]


@settings(max_examples=200, deadline=None)
@given(before=VERDICTS, now=VERDICTS, fail_on=st.sets(VERDICTS, min_size=1).map(frozenset))
def test_the_gate_never_fails_on_more_than_the_run_alone_would(
    before: Verdict, now: Verdict, fail_on: frozenset[Verdict]
) -> None:
    current = result(verdict=now)
    run_report = report(current, fail_on=fail_on)
    compared = comparison(run_report, current, _entry("app", before))
    assert not compared.fails or run_report.fails_alone(current)
    assert compared.fails == (
        run_report.fails_alone(current)
        and now is not Verdict.SKIPPED
        and (
            now is Verdict.ERROR or worse(before, now) or before not in fail_on - {Verdict.SKIPPED}
        )
    )


# --- the command line and every report ---------------------------------------------------------


def _check(tmp_path: Path, *extra: str) -> tuple[int, str, dict[str, str]]:
    names = {"json": "r.json", "junit": "r.xml", "comment": "c.md", "summary": "s.md"}
    args = [f"--{flag}={tmp_path / name}" for flag, name in names.items()]
    code, out, err = run("check", "fixtures/manifests", *NOW_ARGS, *args, *extra)
    assert err == ""
    return code, out, {flag: (tmp_path / name).read_text() for flag, name in names.items()}


def test_every_report_against_the_base_branchs_report(tmp_path: Path, golden: Golden) -> None:
    code, out, files = _check(tmp_path, "--baseline", BASE_V1)
    assert code == 1  # web-big got worse, log-agent is new, the broken file is an ERROR
    golden("cli/baseline.txt", out)
    golden("cli/baseline.json", files["json"])
    golden("cli/baseline.junit.xml", files["junit"])
    golden("cli/baseline.comment.md", files["comment"])
    golden("cli/baseline.summary.md", files["summary"])
    document = json.loads(files["json"])
    jsonschema.validate(document, REPORT_SCHEMA)
    assert {w["name"]: w["baseline"] for w in document["workloads"]} == {
        "web-small": "fixed",
        "web-big": "worse",
        "nightly-report": "still-failing",
        "log-agent": "new",
        "fixtures/manifests/05-broken.yaml:12": "still-failing",
        "legacy-cron-runner": "unchanged",
        "cache": "unchanged",
    }
    assert document["summary"]["passed"] is False


def test_without_a_baseline_the_json_report_has_no_baseline_field(tmp_path: Path) -> None:
    _, _, files = _check(tmp_path)
    assert all("baseline" not in w for w in json.loads(files["json"])["workloads"])


def _base_report_of(folder: Path, tmp_path: Path, *paths: str) -> Path:
    """The report of the base branch's manifests, checked at the same relative paths as
    the pull request's (the base checked out in a folder of its own, as recipe 1 does)."""
    work = tmp_path / "base"
    shutil.copytree(folder, work / "fixtures" / "manifests")
    shutil.copytree(ROOT / "fixtures" / "snapshots", work / "fixtures" / "snapshots")
    out = tmp_path / "base.json"
    here = os.getcwd()
    os.chdir(work)
    try:
        run("check", *(paths or ("fixtures/manifests",)), *NOW_ARGS, "--json", str(out))
    finally:
        os.chdir(here)
    return out


def test_todays_report_writer_gives_the_committed_baselines_comparison(tmp_path: Path) -> None:
    """The committed baseline was written by the version 1 writer: the one this fitgate
    writes now (whatever its version) is read to the same comparison."""
    fresh = _base_report_of(ROOT / "fixtures" / "baseline" / "base", tmp_path)
    _, out_fresh, files_fresh = _check(tmp_path, "--baseline", str(fresh))
    _, out_v1, files_v1 = _check(tmp_path, "--baseline", BASE_V1)
    assert out_fresh.replace(str(fresh), BASE_V1) == out_v1
    assert files_fresh["json"] == files_v1["json"]


def test_the_same_manifests_pass_against_their_own_report(tmp_path: Path) -> None:
    """Failures the base branch already had do not fail the gate; an ERROR always does."""
    readable = [f"fixtures/manifests/{n}" for n in ("01-web-small.yaml", "02-web-big.yaml")]
    base = tmp_path / "own.json"
    assert run("check", *readable, *NOW_ARGS, "--json", str(base))[0] == 1
    code, out, _ = run("check", *readable, *NOW_ARGS, "--baseline", str(base))
    assert code == 0, out
    assert out.endswith("0 new failures, 0 worse, 0 fixed, 1 still failing, 0 gone. Gate passed.\n")
    broken = "fixtures/manifests/05-broken.yaml"
    assert run("check", broken, *NOW_ARGS, "--json", str(base))[0] == 1
    assert run("check", broken, *NOW_ARGS, "--baseline", str(base))[0] == 1


def test_fail_on_still_decides_which_verdicts_can_fail(tmp_path: Path) -> None:
    code, out, _ = run(
        "check", "fixtures/manifests", *NOW_ARGS, "--baseline", BASE_V1, "--fail-on", "NO", "-q"
    )
    assert code == 1
    assert [line.split()[0] for line in out.splitlines()[:-1] if not line.startswith(" ")] == ["NO"]
    code, _, _ = run(
        "check", "fixtures/manifests", *NOW_ARGS, "--baseline", BASE_V1, "--fail-on", "SKIPPED"
    )
    assert code == 0


def test_merge_compares_the_joined_report(tmp_path: Path) -> None:
    shards = []
    for index in (1, 2):
        path = tmp_path / f"shard-{index}.json"
        code, _, _ = run(
            "check",
            "fixtures/manifests",
            *NOW_ARGS,
            "--shard",
            f"{index}/2",
            "--json",
            str(path),
            "--baseline",
            BASE_V1,
        )
        shards.append(str(path))
    code, out, _ = run("merge", *shards, "--baseline", BASE_V1)
    whole_code, whole_out, _ = run("check", "fixtures/manifests", *NOW_ARGS, "--baseline", BASE_V1)
    assert (code, out.splitlines()[1:]) == (whole_code, whole_out.splitlines()[1:])


def test_only_new_and_worse_failures_are_annotated() -> None:
    out, err = io.StringIO(), io.StringIO()
    env = {"GITHUB_ACTIONS": "true"}
    streams = Streams(stdin=io.BytesIO(b""), stdout=out, stderr=err, env=env, now=NOW)
    args = ["check", "fixtures/manifests", *NOW_ARGS, "--baseline", BASE_V1]
    assert main(args, streams) == 1
    errors = [line for line in out.getvalue().splitlines() if line.startswith("::error ")]
    files = [line.split("file=", 1)[1].split(",", 1)[0] for line in errors]
    assert files == [
        "fixtures/manifests/05-broken.yaml",
        "fixtures/manifests/02-web-big.yaml",
        "fixtures/manifests/04-log-agent.yaml",
    ]


def _comment_against(tmp_path: Path, base_flags: tuple[str, ...], flags: tuple[str, ...]) -> str:
    """The comment of a run with ``flags`` against the report of one with ``base_flags``,
    both over the fixtures' manifests and settings."""
    base = tmp_path / "base.json"
    argv = ("check", "fixtures/manifests", *NOW_ARGS)
    run(*argv, *base_flags, "--json", str(base))
    comment = tmp_path / "comment.md"
    run(*argv, *flags, "--baseline", str(base), "--comment", str(comment))
    return comment.read_text(encoding="utf-8")


CATALOG = "fixtures/catalogs/instance-types.json"


@pytest.mark.parametrize(
    ("base_flags", "flags", "lines"),
    [
        pytest.param(
            (),
            ("--instance-types", CATALOG),
            ["> - now: instance types from fixtures/catalogs/instance-types.json (sha256 "],
            id="a catalog the base did not use is called out",
        ),
        pytest.param(
            ("--fail-on", "NO,PARTIAL,ERROR"),
            ("--fail-on", "NO"),
            [
                "> - now: fails on NO (--fail-on; the default is NO, ADDON&#95;ONLY, PARTIAL, "
                "ERROR)",
                "> - was: fails on NO, PARTIAL, ERROR (--fail-on; the default is NO, "
                "ADDON&#95;ONLY, PARTIAL, ERROR)",
            ],
            id="a narrower fail-on is called out with what it was",
        ),
    ],
)
def test_a_policy_changed_against_the_baseline_is_called_out_at_the_top(
    tmp_path: Path, base_flags: tuple[str, ...], flags: tuple[str, ...], lines: list[str]
) -> None:
    comment = _comment_against(tmp_path, base_flags, flags)
    head = comment.split("\n\n### ", 1)[0] if "\n\n### " in comment else comment
    assert "> The gate's policy differs from the baseline's (" in head
    for line in lines:
        assert any(shown.startswith(line) for shown in comment.splitlines()), line
    assert comment.index("policy differs") < comment.index("snapshot ")


def test_the_same_policy_as_the_baseline_is_not_called_out(tmp_path: Path) -> None:
    flags = ("--instance-types", CATALOG)
    assert "policy differs" not in _comment_against(tmp_path, flags, flags)


def test_a_baseline_of_an_older_version_says_nothing_of_policy(tmp_path: Path) -> None:
    comment = tmp_path / "comment.md"
    argv = ("check", "fixtures/manifests", *NOW_ARGS, "--fail-on", "NO")
    run(*argv, "--baseline", BASE_V1, "--comment", str(comment))
    assert "policy differs" not in comment.read_text(encoding="utf-8")
