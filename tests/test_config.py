""".fitgate.yaml: found upwards or given, validated by the shipped schema (one line naming
file, field and why, exit 2), and applied: failOn, exclude, skip (with expiry),
allowAddonOnly, customKinds, maxSnapshotAge, hidden warnings; snapshot trust."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gate.cli import Streams, main
from gate.inputs.config import load_config, schema_text
from gate.run import POD_SECURITY_UNCHECKED
from tests.conftest import ROOT

FIXTURE_CONFIG = ROOT / "fixtures" / ".fitgate.yaml"
AKS = ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json"
MANIFESTS = ROOT / "fixtures" / "manifests"
NOW = datetime(2026, 8, 16, 12, tzinfo=timezone.utc)


def run(*argv: str, now: datetime = NOW) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(io.BytesIO(), out, err, env={}, now=now))
    return code, out.getvalue(), err.getvalue()


def json_check(*argv: str, now: datetime = NOW) -> tuple[int, dict[str, Any], str]:
    code, out, err = run("check", *argv, "--json", "-", now=now)
    return code, (json.loads(out) if out else {}), err


def verdicts(report: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(w["name"], w["verdict"], w["reason"]) for w in report["workloads"]]


def test_the_shipped_example_validates_and_is_applied() -> None:
    config = ["--config", str(FIXTURE_CONFIG), "--snapshot", str(AKS)]
    code, report, _ = json_check(str(MANIFESTS), *config)
    shown = f"{FIXTURE_CONFIG}"
    assert verdicts(report)[:3] == [
        ("web-small", "YES", None),
        (
            "web-big",
            "SKIPPED",
            f"skipped by {shown}: sized for the new node pool, ships with it (PLAT-1234)",
        ),
        (
            "nightly-report",
            "ADDON_ONLY",
            f"allowed by {shown}: the nightly report runs on the system pool by design",
        ),
    ]
    # the DaemonSet's PARTIAL and the broken document still fail the gate
    assert code == 1 and report["summary"]["passed"] is False


def test_an_allowed_add_on_workload_passes_the_gate(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        "allowAddonOnly:\n  - {kind: CronJob, namespace: batch, reason: system pool by design}\n"
    )
    nightly = str(MANIFESTS / "03-batch-tolerates-system.yaml")
    code, report, _ = json_check(nightly, "--config", str(config), "--snapshot", str(AKS))
    assert [w["verdict"] for w in report["workloads"]] == ["ADDON_ONLY"]
    assert (code, report["summary"]["passed"]) == (0, True)


def test_the_configuration_is_found_from_the_working_directory_upwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".fitgate.yaml").write_text('failOn: ["ERROR"]\n')
    below = tmp_path / "deploy" / "prod"
    below.mkdir(parents=True)
    shutil.copy(MANIFESTS / "02-web-big.yaml", below / "web.yaml")
    monkeypatch.chdir(below)
    code, report, _ = json_check(".", "--snapshot", str(AKS))
    assert [w["verdict"] for w in report["workloads"]] == ["NO"]
    assert code == 0  # NO does not fail the gate here
    assert load_config(None, below).source == "../../.fitgate.yaml"


def test_the_command_line_overrides_the_configuration(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text('failOn: ["ERROR"]\n')
    web_big = str(MANIFESTS / "02-web-big.yaml")
    snapshot = ["--snapshot", str(AKS), "--config", str(config)]
    assert json_check(web_big, *snapshot)[0] == 0
    assert json_check(web_big, *snapshot, "--fail-on", "NO")[0] == 1


INVALID = {
    "an unknown key": (
        "failon: [ERROR]\n",
        "(top level): Additional properties are not allowed ('failon' was unexpected); "
        "known keys are in fitgate config --print-schema",
    ),
    "a skip rule without a reason": (
        "skip:\n  - {kind: Deployment}\n",
        "skip[0]: 'reason' is a required property",
    ),
    "a skip rule with a reason only": (
        "skip:\n  - {reason: everything}\n",
        "skip[0]: a rule names its workloads by kind, namespace, name or labels, besides its "
        "reason",
    ),
    "an unknown verdict": (
        "failOn: [MAYBE]\n",
        "failOn[0]: 'MAYBE' is not one of ['YES', 'SCALES', 'PREEMPTS', 'NO', 'ADDON_ONLY', "
        "'PARTIAL', 'ERROR', 'SKIPPED']",
    ),
    "a bare NO": (
        "failOn: [NO]\n",
        "failOn[0]: False is not one of ['YES', 'SCALES', 'PREEMPTS', 'NO', 'ADDON_ONLY', "
        "'PARTIAL', 'ERROR', 'SKIPPED'] (YAML reads a bare NO as false: quote it, \"NO\")",
    ),
    "a duration without a unit": (
        "maxSnapshotAge: '7'\n",
        "maxSnapshotAge: '7' is not a duration such as 12h, 7d or 2w",
    ),
    "a label that is not text": (
        "allowAddonOnly:\n  - {labels: {tier: 1}, reason: r}\n",
        "allowAddonOnly[0].labels.tier: 1 is not of type 'string'",
    ),
    "a custom kind without a path": (
        "customKinds:\n  - {apiVersion: x.io/v1, kind: X, templates: [{replicas: spec.n}]}\n",
        "customKinds[0].templates[0]: 'path' is a required property",
    ),
    "an expiry that is no date": (
        "skip:\n  - {name: a, reason: r, expires: '2026-02-30'}\n",
        "skip[0].expires: '2026-02-30' is not a date (YYYY-MM-DD)",
    ),
    "a document that is not a mapping": (
        "- failOn\n",
        "(top level): ['failOn'] is not of type 'object'",
    ),
}


@pytest.mark.parametrize(
    "text,why", INVALID.values(), ids=[f"{k} is refused naming the field" for k in INVALID]
)
def test_an_invalid_configuration_is_one_line_and_exit_2(
    tmp_path: Path, text: str, why: str
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(text)
    code, out, err = run("check", str(MANIFESTS), "--config", str(config), "--snapshot", str(AKS))
    assert (code, out, err) == (2, "", f"fitgate: {config}: {why}\n")


def test_a_configuration_that_is_not_yaml_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("skip: [\n")
    code, _, err = run("check", "--config", str(config), "--snapshot", str(AKS))
    assert code == 2 and err.startswith(f"fitgate: {config}: not YAML: ")


def test_an_expired_skip_rule_evaluates_again_and_says_so(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("skip:\n  - {name: web-big, reason: later, expires: '2026-08-15'}\n")
    web_big = str(MANIFESTS / "02-web-big.yaml")
    code, report, _ = json_check(web_big, "--config", str(config), "--snapshot", str(AKS))
    (workload,) = report["workloads"]
    assert workload["verdict"] == "NO" and code == 1
    assert workload["warnings"][-1] == {
        "kind": "not-modelled",
        "text": f"the {config} skip rule (later) expired on 2026-08-15: evaluated again",
    }


def test_a_skip_rule_still_skips_on_its_last_day(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        "skip:\n  - {name: web-*, namespace: web, reason: later, expires: '2026-08-16'}\n"
    )
    code, report, _ = json_check(
        str(MANIFESTS / "02-web-big.yaml"), "--config", str(config), "--snapshot", str(AKS)
    )
    # Skipping the only workload judges nothing: exit 5 (see test_hostile_gate).
    assert [w["verdict"] for w in report["workloads"]] == ["SKIPPED"] and code == 5


def test_excludes_from_the_configuration_and_the_command_line_add_up(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("exclude: ['*05-broken*']\n")
    argv = [str(MANIFESTS), "--config", str(config), "--snapshot", str(AKS)]
    _, report, _ = json_check(*argv, "--exclude", "*/04-log-agent.yaml")
    files = {w["file"].rsplit("/", 1)[-1] for w in report["workloads"]}
    assert files == {
        "01-web-small.yaml",
        "02-web-big.yaml",
        "03-batch-tolerates-system.yaml",
        "06-skipped-and-unrequested.yaml",
    }


def test_a_configured_custom_kind_is_evaluated(tmp_path: Path) -> None:
    widget = tmp_path / "widget.yaml"
    widget.write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: apps}\n"
        "spec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n"
        "      - {name: app, resources: {requests: {cpu: 100m, memory: 64Mi}}}\n"
    )
    code, report, _ = json_check(
        str(widget), "--config", str(FIXTURE_CONFIG), "--snapshot", str(AKS)
    )
    assert [(w["kind"], w["name"], w["verdict"]) for w in report["workloads"]] == [
        ("Widget", "w", "YES")
    ]
    assert code == 0


def test_hidden_warnings_are_left_out(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("warnings: {hide: [zero-request]}\n")
    cache = str(MANIFESTS / "06-skipped-and-unrequested.yaml")
    _, shown, _ = json_check(cache, "--snapshot", str(AKS))
    _, hidden, _ = json_check(cache, "--config", str(config), "--snapshot", str(AKS))
    assert shown["summary"]["warnings"] == 1 and hidden["summary"]["warnings"] == 0


def test_print_schema_prints_the_shipped_schema() -> None:
    code, out, _ = run("config", "--print-schema")
    assert code == 0 and out == schema_text()
    jsonschema.Draft202012Validator.check_schema(json.loads(out))


def snapshot_with(tmp_path: Path, nodes: int) -> str:
    data = json.loads(AKS.read_text())
    data["nodes"] = data["nodes"][:nodes]
    data["pods"] = [] if nodes == 0 else data["pods"]
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_snapshot_without_nodes_is_refused_in_one_line(tmp_path: Path) -> None:
    snapshot = snapshot_with(tmp_path, 0)
    code, out, err = run("check", str(MANIFESTS), "--snapshot", snapshot)
    assert (code, out) == (2, "")
    assert err == f"fitgate: {snapshot}: the snapshot has no nodes: it cannot answer anything\n"


AGES = {
    "a flag of 7 days": (["--max-snapshot-age", "7d"], 2),
    "a flag of 8 days": (["--max-snapshot-age", "8d"], 1),
    "the configuration's 7 days": (["--config", "7d"], 2),
    "a flag overriding the configuration": (["--config", "7d", "--max-snapshot-age", "2w"], 1),
}


@pytest.mark.parametrize(
    "flags,exit_code",
    AGES.values(),
    ids=[f"a week-old snapshot with {k} exits {v[1]}" for k, v in AGES.items()],
)
def test_a_snapshot_older_than_the_maximum_age_is_refused(
    tmp_path: Path, flags: list[str], exit_code: int
) -> None:
    if "--config" in flags:
        config = tmp_path / "c.yaml"
        config.write_text(f"maxSnapshotAge: {flags[flags.index('--config') + 1]}\n")
        flags[flags.index("--config") + 1] = str(config)
    week_later = datetime(2026, 8, 23, 10, 0, 1, tzinfo=timezone.utc)
    web = str(MANIFESTS / "02-web-big.yaml")
    code, _, err = run("check", web, "--snapshot", str(AKS), *flags, now=week_later)
    assert code == exit_code
    if exit_code == 2:
        assert err == (
            f"fitgate: {AKS}: the snapshot was taken 2026-08-16T10:00:00Z, 7d ago, older than "
            "the maximum age of 7d (maxSnapshotAge, --max-snapshot-age): record a new one "
            "with fitgate snapshot\n"
        )


STALE = (
    "the snapshot is more than a day old (maxSnapshotAge in .fitgate.yaml or "
    "--max-snapshot-age refuses old ones)"
)


@pytest.mark.parametrize(
    ("now", "flags", "warned"),
    [
        pytest.param(
            datetime(2026, 8, 17, 10, 0, 1, tzinfo=timezone.utc),
            [],
            True,
            id="a snapshot a day and a second old with no maximum set is warned about",
        ),
        pytest.param(NOW, [], False, id="a fresh snapshot is not warned about"),
        pytest.param(
            datetime(2026, 8, 17, 10, 0, 1, tzinfo=timezone.utc),
            ["--max-snapshot-age", "7d"],
            False,
            id="a snapshot within a maximum age that is set is trusted without a warning",
        ),
        pytest.param(
            datetime(2026, 8, 17, 10, 0, 1, tzinfo=timezone.utc),
            ["--config", "2d"],
            False,
            id="a maxSnapshotAge in the configuration silences the warning too",
        ),
    ],
)
def test_a_snapshot_older_than_a_day_is_a_warning_in_every_report(
    tmp_path: Path, now: datetime, flags: list[str], warned: bool
) -> None:
    if "--config" in flags:
        config = tmp_path / "c.yaml"
        config.write_text(f"maxSnapshotAge: {flags[1]}\n")
        flags = ["--config", str(config)]
    files = {name: tmp_path / name for name in ("r.json", "r.xml", "c.md", "s.md")}
    web = str(MANIFESTS / "01-web-small.yaml")
    reports = [
        *("--json", str(files["r.json"]), "--junit", str(files["r.xml"])),
        *("--comment", str(files["c.md"]), "--summary", str(files["s.md"])),
    ]
    fixed = ("--autoscaling", "off")  # no hint that the nodes look autoscaled
    code, out, err = run("check", web, "--snapshot", str(AKS), *reports, *flags, *fixed, now=now)
    assert (code, err) == (0, "")
    human = f"Warning: {STALE}."
    assert [
        human in text for text in (out, files["c.md"].read_text(), files["s.md"].read_text())
    ] == [warned] * 3
    document = json.loads(files["r.json"].read_text())
    # the snapshot records no namespaces: the run's other warning, in every case
    expected = [*([STALE] if warned else []), POD_SECURITY_UNCHECKED.format(count=1)]
    assert document["warnings"] == expected
    suite = ET.parse(files["r.xml"]).getroot().find("testsuite")
    assert suite is not None
    properties = [
        p.get("value") for p in suite.iter("property") if p.get("name") == "fitgate.warning"
    ]
    assert properties == expected
    jsonschema.validate(
        document, json.loads((ROOT / "gate" / "schemas" / "report.schema.json").read_text())
    )


def test_the_merge_keeps_the_shards_snapshot_warning_once(tmp_path: Path) -> None:
    later = datetime(2026, 8, 17, 10, 0, 1, tzinfo=timezone.utc)
    shards = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for k, shard in enumerate(shards, start=1):
        argv = ("check", str(MANIFESTS), "--snapshot", str(AKS), "--shard", f"{k}/2")
        assert run(*argv, "--autoscaling", "off", "--json", str(shard), now=later)[0] in (0, 1)
    merged = tmp_path / "merged.json"
    run("merge", *map(str, shards), "--json", str(merged), now=later)
    unchecked = POD_SECURITY_UNCHECKED.format(count=5)
    assert json.loads(merged.read_text())["warnings"] == [STALE, unchecked]


@pytest.mark.parametrize("value", ["", " , "], ids=["an empty --fail-on", "a --fail-on of commas"])
def test_an_empty_fail_on_is_refused(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run("check", str(MANIFESTS), "--snapshot", str(AKS), "--fail-on", value)
    assert code == 2
    wanted = "argument --fail-on: empty: name the verdicts that fail the gate"
    assert wanted in err + capsys.readouterr().err


def test_the_readme_s_first_screen_shows_the_shipped_example() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = readme.split("\n---\n", 1)[0]
    assert f"```yaml\n{FIXTURE_CONFIG.read_text(encoding='utf-8')}```" in first_screen


def test_the_readme_documents_every_key_of_the_schema() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    for key in json.loads(schema_text())["properties"]:
        assert f"| `{key}" in section, key


_RUN_DAY = """
import datetime, time
from gate.inputs.config import today
before = datetime.datetime.now(datetime.timezone.utc).date()
found = today(None)
after = datetime.datetime.now(datetime.timezone.utc).date()
print(found in (before, after), found != datetime.date.fromtimestamp(time.time()))
"""


def test_the_run_day_is_the_day_in_utc_whatever_the_machine_s_zone() -> None:
    """Skip rules expire on a UTC day: a runner's time zone does not move them. At any
    moment one of these two zones, 26 hours apart, is on another day than UTC."""
    answers = []
    for zone in ("AAA-14", "BBB+12"):  # POSIX zones, no zone data needed: UTC+14, UTC-12
        done = subprocess.run(
            [sys.executable, "-c", _RUN_DAY],
            env={**os.environ, "TZ": zone},
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        utc, local_differs = done.stdout.split()
        assert utc == "True", zone
        answers.append(local_differs)
    assert "True" in answers
