"""``fitgate check`` end to end on the recorded AKS cluster whose user pool is at 3 of max 10
(fixtures/snapshots/aks-autoscaled.json) with the manifests of fixtures/autoscaling: the
verdict SCALES, PARTIAL and NO after scale-up with cluster-autoscaler's words
(cluster-autoscaler-1.34.5: processors/nodegroupset ``ScaleUpInfo.String``,
processors/status/eventing_scale_up_processor.go), transient blockers, ``--autoscaling off``,
the ``maxNewNodes`` budget and SCALES in ``failOn``."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.cli import Streams, main
from gate.run import POD_SECURITY_UNCHECKED
from tests.conftest import ROOT
from tests.engine_support import NOT_HELPFUL, preempting
from tests.report_schema import validate_report

SNAPSHOT = "fixtures/snapshots/aks-autoscaled.json"
MANIFESTS = "fixtures/autoscaling"
WEB = f"{MANIFESTS}/01-web-scales.yaml"
TOO_BIG = f"{MANIFESTS}/02-report-too-big.yaml"
BATCH = f"{MANIFESTS}/03-batch-beyond-max.yaml"
NOW = datetime(2026, 8, 16, 10, 5, tzinfo=timezone.utc)
USER = "aks-user-12345678-vmss"
MAX_SIZE = "max node group size reached"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(io.BytesIO(), out, err, env={}, now=NOW))
    return code, out.getvalue(), err.getvalue()


def check(*argv: str, snapshot: str = SNAPSHOT) -> tuple[int, str, dict[str, Any]]:
    """Exit code, text and JSON report of ``check`` over ``argv``."""
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(io.BytesIO(), out, err, env={}, now=NOW)
    code = main(["check", *argv, "--snapshot", snapshot, "--json", "-"], streams)
    report = json.loads(out.getvalue())
    validate_report(report)
    text_code, text, _ = run("check", *argv, "--snapshot", snapshot)
    assert text_code == code
    return code, text, report


def workload(report: dict[str, Any], name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [w for w in report["workloads"] if w["name"] == name]
    assert len(found) == 1
    return found[0]


def stale_snapshot(tmp_path: Path) -> str:
    """The fixture taken ten minutes after the autoscaler last wrote its status."""
    document = json.loads((ROOT / SNAPSHOT).read_text(encoding="utf-8"))
    document["capturedAt"] = "2026-08-16T10:10:00Z"
    path = tmp_path / "stale.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def config(tmp_path: Path, text: str) -> tuple[str, str]:
    path = tmp_path / "fitgate.yaml"
    path.write_text(text, encoding="utf-8")
    return "--config", str(path)


def test_copies_beyond_today_s_nodes_scale_the_user_pool_by_two() -> None:
    code, text, report = check(WEB)
    assert code == 0
    assert f"fits after scale-up: {{{USER} 3->5 (max: 10)}} (2 new nodes)" in text
    assert text.endswith("1 workload(s): 1 SCALES; 2 new node(s) after scale-up. Gate passed.\n")
    web = workload(report, "web")
    assert (web["verdict"], web["message"]) == ("SCALES", None)
    assert web["autoscale"] == {
        "fitsNow": 3,
        "scaleUp": [
            {
                "kind": "NodeGroup",
                "group": USER,
                "nodes": 2,
                "copies": 2,
                "from": 3,
                "to": 5,
                "max": 10,
            }
        ],
        "blocked": {"copies": 0, "reasons": {}, "message": "", "transient": False},
    }
    assert (report["summary"]["SCALES"], report["summary"]["newNodes"]) == (1, 2)


def test_copies_beyond_the_pool_s_maximum_are_partial_with_ca_s_reason() -> None:
    code, text, report = check(BATCH)
    assert code == 1
    wanted = (
        f"10 of 12 replicas fit: 3 now, 7 after {{{USER} 3->10 (max: 10)}}; 2 blocked: {MAX_SIZE}"
    )
    assert f"\n              {wanted}\n" in text
    batch = workload(report, "batch")
    assert (batch["verdict"], batch["message"]) == ("PARTIAL", None)
    assert batch["autoscale"]["blocked"] == {
        "copies": 2,
        "reasons": {MAX_SIZE: 2},
        "message": f"pod didn't trigger scale-up: 2 {MAX_SIZE}",
        "transient": False,
    }


def test_a_pod_larger_than_every_template_is_no_with_both_events() -> None:
    code, text, report = check(TOO_BIG)
    assert code == 1
    fit_error = (
        "0/6 nodes are available: 3 Insufficient cpu, 3 node(s) had untolerated taint "
        "{CriticalAddonsOnly: true}."
    )
    event = f"pod didn't trigger scale-up: 1 Insufficient cpu, 1 {MAX_SIZE}"
    # 3 cpu is above every node's allocatable: preemption cannot help anywhere
    fit_error += preempting(6, (6, NOT_HELPFUL))
    assert f"{fit_error}\n              {event}\n" in text
    too_big = workload(report, "report")
    assert (too_big["verdict"], too_big["message"]) == ("NO", fit_error)
    assert too_big["autoscale"]["blocked"]["message"] == event


def test_workloads_share_the_pools_headroom_in_input_order(
    golden: Callable[[str, str], None],
) -> None:
    code, text, report = check(MANIFESTS)
    assert code == 1
    golden("autoscaling/check.txt", text)
    golden("autoscaling/check.json", json.dumps(report, indent=2) + "\n")
    verdicts = {w["name"]: w["verdict"] for w in report["workloads"]}
    assert verdicts == {"web": "SCALES", "report": "NO", "batch": "PARTIAL", "agent": "NO"}
    assert "autoscale" not in workload(report, "agent")  # a DaemonSet never scales a pool


@pytest.mark.parametrize(
    ("policy", "verdict", "code"),
    [("warn", "SCALES", 0), ("fail", "PARTIAL", 1)],
    ids=["a stale status warns and passes", "transient: fail counts the blockers"],
)
def test_blockers_of_a_stale_status_are_transient(
    tmp_path: Path, policy: str, verdict: str, code: int
) -> None:
    flags = config(tmp_path, f"autoscaling:\n  transient: {policy}\n")
    got, text, report = check(BATCH, *flags, snapshot=stale_snapshot(tmp_path))
    assert got == code
    batch = workload(report, "batch")
    assert batch["verdict"] == verdict
    assert batch["autoscale"]["blocked"]["transient"] is True
    [warning] = [w for w in batch["warnings"] if w["kind"] == "autoscaling"]
    assert warning["text"].startswith(
        f"2 copies blocked only by what may pass (pod didn't trigger scale-up: 2 {MAX_SIZE}; "
    )
    assert f"autoscaling.transient: {policy}" in warning["text"]
    assert "status was written 10 minutes before the snapshot" in " ".join(report["warnings"])
    assert f"warning: {warning['text']}" in text


def _user_pool_only(tmp_path: Path, target: int, max_size: int, health: str) -> str:
    """The fixture with the user pool alone in the status, at ``target`` of ``max_size``,
    its health changed as ``health`` says (``Unhealthy``, ``Backoff``, ``no status``)."""
    document = json.loads((ROOT / SNAPSHOT).read_text(encoding="utf-8"))
    status = yaml.safe_load(document["configMaps"][0]["data"]["status"])
    (user,) = [g for g in status["nodeGroups"] if g["name"] == USER]
    user["health"].update(cloudProviderTarget=target, maxSize=max_size)
    if health == "Backoff":
        user["scaleUp"] = {"status": "Backoff", "backoffInfo": {"errorCode": "QuotaExceeded"}}
    elif health == "Unhealthy":
        user["health"]["status"] = "Unhealthy"
    else:
        del user["health"]["status"]
    status["nodeGroups"] = [user]
    document["configMaps"][0]["data"]["status"] = yaml.safe_dump(status)
    path = tmp_path / "unhealthy.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("health", "target", "max_size"),
    [
        pytest.param("Unhealthy", 3, 3, id="an unhealthy group at its maximum fails"),
        pytest.param("Backoff", 3, 3, id="a group in backoff at its maximum fails"),
        pytest.param("no status", 3, 3, id="a group with no health status at its maximum fails"),
        pytest.param("Unhealthy", 3, 5, id="an unhealthy group with too little headroom fails"),
    ],
)
def test_recovery_cannot_lift_a_group_past_its_maximum(
    tmp_path: Path, health: str, target: int, max_size: int
) -> None:
    code, text, report = check(BATCH, snapshot=_user_pool_only(tmp_path, target, max_size, health))
    assert code == 1
    batch = workload(report, "batch")
    assert batch["verdict"] in ("PARTIAL", "NO")
    assert batch["autoscale"]["blocked"]["transient"] is False
    assert "fits once the node groups recover" not in text
    assert "which even recovered would not take every copy" in text


def test_an_unhealthy_group_with_the_headroom_for_every_copy_may_recover(tmp_path: Path) -> None:
    code, text, report = check(BATCH, snapshot=_user_pool_only(tmp_path, 3, 20, "Unhealthy"))
    assert code == 0 and workload(report, "batch")["verdict"] == "SCALES"
    assert "fits once the node groups recover" in text


@pytest.mark.parametrize(
    "captured",
    ["2026-08-16T10:00:00Z", None],
    ids=["after the capture time", "after now, with no capture time"],
)
def test_a_status_written_in_the_future_is_refused_in_one_line(
    tmp_path: Path, captured: str | None
) -> None:
    document = json.loads((ROOT / SNAPSHOT).read_text(encoding="utf-8"))
    status = document["configMaps"][0]
    status["data"]["status"] = status["data"]["status"].replace(
        "time: 2026-08-16 09:59:30.104335811", "time: 2999-01-01 00:00:00"
    )
    status["metadata"].get("annotations", {}).pop(
        "cluster-autoscaler.kubernetes.io/last-updated", None
    )
    if captured is None:
        del document["capturedAt"]
    path = tmp_path / "future.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, out, err = run("check", BATCH, "--snapshot", str(path))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (
        'ConfigMap "kube-system/cluster-autoscaler-status": written 2999-01-01T00:00:00+00:00'
        in err
    )
    assert "in the future cannot be trusted" in err


POLICY = """\
autoscaling:
  instanceTypes: {catalog}
  groups:
    - id: aks-gpu-12345678-vmss
      match: {{label: "kubernetes.azure.com/agentpool=gpu"}}
      template:
        taints: [{{key: nvidia.com/gpu, value: "true", effect: NoSchedule}}]
        capacity: {{cpu: "8", memory: 32Gi}}
        allocatable: {{cpu: 7800m, memory: 28Gi}}
  cluster: {{maxNodesTotal: 40, coresTotal: "0:320", memoryTotal: "0:1280"}}
"""


def test_every_report_names_the_autoscaler_inputs_the_configuration_gives(
    tmp_path: Path,
) -> None:
    catalog = ROOT / "fixtures" / "catalogs" / "instance-types.json"
    digest = hashlib.sha256(catalog.read_bytes()).hexdigest()
    flags = config(tmp_path, POLICY.format(catalog=catalog))
    comment = tmp_path / "comment.md"
    code, text, report = check(WEB, *flags, "--comment", str(comment))
    assert code == 0
    source = flags[1]
    said = [
        f"instance types from {catalog} (sha256 {digest}): 12 instance types",
        f"group members from {source}: aks-gpu-12345678-vmss: kubernetes.azure.com/agentpool=gpu",
        f"node template from {source}: aks-gpu-12345678-vmss: allocatable cpu=7800m,memory=28Gi; "
        "capacity cpu=8,memory=32Gi; taints nvidia.com/gpu=true:NoSchedule",
        f"cluster limits from {source}: maxNodesTotal 40, coresTotal 0:320, memoryTotal 0:1280 "
        "GiB (when no cluster-autoscaler Deployment is recorded)",
    ]
    for line in said:
        assert f"\nautoscaling input: {line}\n" in text
    shown = comment.read_text(encoding="utf-8")
    assert "**Policy:**" in shown and f"(sha256 {digest}): 12 instance types" in shown
    assert "node template from" in shown and "cluster limits from" in shown
    assert [i["input"] for i in report["policy"]["autoscaling"]] == [
        "instanceTypes",
        "match",
        "template",
        "cluster",
    ]
    assert report["policy"]["autoscaling"][0] == {
        "input": "instanceTypes",
        "source": str(catalog),
        "says": "12 instance types",
        "sha256": digest,
    }


def test_without_configured_inputs_the_policy_stays_null() -> None:
    _, text, report = check(WEB)
    assert "policy" not in report and "autoscaling input" not in text


def test_autoscaling_off_judges_today_s_nodes_only() -> None:
    code, text, report = check(WEB, "--autoscaling", "off")
    assert code == 1
    web = workload(report, "web")
    assert (web["verdict"], "autoscale" in web) == ("PARTIAL", False)
    assert "3 of 5 replicas fit" in text
    assert "nodes look autoscaled" not in text


def test_a_budget_of_new_nodes_fails_the_run_that_exceeds_it(tmp_path: Path) -> None:
    code, text, report = check(WEB, *config(tmp_path, "autoscaling:\n  maxNewNodes: 1\n"))
    assert code == 1
    assert workload(report, "web")["verdict"] == "SCALES"
    assert text.endswith(
        "1 workload(s): 1 SCALES; 2 new node(s) after scale-up, budget 1 "
        "(autoscaling.maxNewNodes) exceeded. Gate FAILED.\n"
    )
    summary = report["summary"]
    assert (summary["passed"], summary["newNodes"], summary["maxNewNodes"]) == (False, 2, 1)


def test_a_budget_the_run_keeps_passes(tmp_path: Path) -> None:
    code, text, _ = check(WEB, *config(tmp_path, "autoscaling:\n  maxNewNodes: 2\n"))
    assert code == 0
    assert "budget 2 (autoscaling.maxNewNodes). Gate passed." in text


@pytest.mark.parametrize(
    "flags",
    [("--fail-on", "NO,SCALES"), ("--config", "")],
    ids=["SCALES in --fail-on", "SCALES in the configuration's failOn"],
)
def test_teams_that_fail_on_scales_fail_the_gate(tmp_path: Path, flags: tuple[str, str]) -> None:
    if flags[0] == "--config":
        flags = config(tmp_path, "failOn: [SCALES, 'NO']\n")
    code, text, report = check(WEB, *flags)
    assert code == 1
    assert workload(report, "web")["verdict"] == "SCALES"
    assert "SCALES" in report["summary"]["failOn"]
    assert text.endswith("Gate FAILED.\n")


def test_without_recorded_autoscaler_state_the_nodes_are_fixed_with_a_hint() -> None:
    code, text, report = check(WEB, snapshot="fixtures/snapshots/aks-six-nodes.json")
    assert workload(report, "web")["verdict"] == "PARTIAL"
    assert code == 1
    hint = (
        "nodes look autoscaled (kubernetes.azure.com/agentpool); record the autoscaler state "
        "(fitgate snapshot --autoscaling) to judge scale-ups"
    )
    assert hint in report["warnings"]
    assert f"Warning: {hint}." in text


def test_the_baseline_reads_scales_and_ranks_it_below_partial(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    assert run("check", WEB, "--snapshot", SNAPSHOT, "--json", str(base))[0] == 0
    assert json.loads(base.read_text(encoding="utf-8"))["workloads"][0]["verdict"] == "SCALES"
    code, _, report = check(WEB, "--baseline", str(base))
    assert (code, workload(report, "web")["baseline"]) == (0, "unchanged")
    code, text, report = check(WEB, "--baseline", str(base), "--autoscaling", "off")
    assert (code, workload(report, "web")["baseline"]) == (1, "worse")
    assert "[worse: was SCALES]" in text


def test_an_exceeded_budget_is_an_error_annotation_and_in_the_comment(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    comment = tmp_path / "comment.md"
    argv = ["check", WEB, "--snapshot", SNAPSHOT, "--comment", str(comment), "--no-step-summary"]
    argv += config(tmp_path, "autoscaling:\n  maxNewNodes: 1\n")
    streams = Streams(io.BytesIO(), out, err, env={"GITHUB_ACTIONS": "true"}, now=NOW)
    assert main(argv, streams) == 1
    said = "2 new node(s) after scale-up, budget 1 (autoscaling.maxNewNodes) exceeded"
    assert out.getvalue().endswith(f"::error title=fitgate::{said}\n")
    assert f"**Scale-up:** {said}\n" in comment.read_text(encoding="utf-8")


def test_configured_groups_without_a_recorded_status_say_so(tmp_path: Path) -> None:
    groups = "autoscaling:\n  groups:\n    - {id: aks-user-12345678-vmss}\n"
    code, _, report = check(
        WEB, *config(tmp_path, groups), snapshot="fixtures/snapshots/aks-six-nodes.json"
    )
    assert (code, workload(report, "web")["verdict"]) == (1, "PARTIAL")
    assert report["warnings"] == [
        "autoscaling.groups are configured, but the snapshot recorded no cluster-autoscaler "
        "status to size them: record it (fitgate snapshot --autoscaling) to judge scale-ups",
        POD_SECURITY_UNCHECKED.format(count=1),
    ]


def test_copies_created_on_a_named_node_scale_nothing(tmp_path: Path) -> None:
    """cluster-autoscaler and Karpenter act on pods kube-scheduler marked unschedulable, and
    a pod created with ``nodeName`` never reaches it: the copies its node cannot admit stay
    out, and no group scales for them (no template node bears the name either)."""
    text = (ROOT / WEB).read_text(encoding="utf-8")
    pinned = text.replace("      containers:\n", "      nodeName: aks-user-0\n      containers:\n")
    assert pinned != text
    path = tmp_path / "pinned.yaml"
    path.write_text(pinned, encoding="utf-8")
    code, _, report = check(str(path))
    web = workload(report, "web")
    assert (code, web["verdict"], web.get("autoscale")) == (1, "PARTIAL", None)
    assert report["summary"]["SCALES"] == 0
