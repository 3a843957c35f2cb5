"""The recorded AKS cluster with a quota on the ``shop`` namespace
(fixtures/snapshots/aks-quota.json: three running shop pods use 1500m of its 2 cpu) and the
release in fixtures/quota/: the shop's rolling update that cannot start, a new service of
which two pods of three are created, and a worker the quota's constraint refuses. Every
report says what the quota refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT
from tests.test_cli import NOW, by_name, json_report, run

SNAPSHOT = "fixtures/snapshots/aks-quota.json"
MANIFESTS = "fixtures/quota"
SHOP = (
    "exceeded quota: compute, requested: requests.cpu=750m, used: requests.cpu=1500m, "
    "limited: requests.cpu=2"
)
API = (
    "exceeded quota: compute, requested: requests.cpu=200m, used: requests.cpu=1900m, "
    "limited: requests.cpu=2"
)
WORKER = "failed quota: compute: must specify limits.memory for: worker"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_each_workload_gets_the_quota_s_answer() -> None:
    code, report = json_report(MANIFESTS, "--snapshot", SNAPSHOT)
    assert code == 1
    found = by_name(report)
    verdicts = {name: (w["verdict"], w["quota"]["created"]) for name, w in found.items()}
    assert verdicts == {"shop": ("NO", 0), "api": ("PARTIAL", 2), "worker": ("NO", 0)}
    for name, error in (("shop", SHOP), ("api", API), ("worker", WORKER)):
        quota = found[name]["quota"]
        assert quota["quota"] == "compute"
        assert quota["message"].startswith(f'pods "{name}-')
        assert quota["message"].endswith(f'" is forbidden: {error}')
    assert found["api"]["replicas"]["fit"] == 2
    rollout = [w["text"] for w in found["shop"]["warnings"] if w["kind"] == "rollout"]
    assert rollout == [
        "the rollout cannot start: maxUnavailable 0 keeps its 3 running pod(s) until a new one "
        "is ready, and the namespace's quota has no room for a new pod beside them"
    ]


def test_the_text_report(golden: Callable[[str, str], None]) -> None:
    _, out, _ = run("check", MANIFESTS, "--snapshot", SNAPSHOT)
    golden("check-aks-quota.txt", out)


def test_every_report_says_what_the_quota_refused(tmp_path: Path) -> None:
    paths = {kind: tmp_path / f"report.{kind}" for kind in ("junit", "sarif", "comment")}
    argv = ["check", MANIFESTS, "--snapshot", SNAPSHOT]
    for kind, path in paths.items():
        argv += [f"--{kind}", str(path)]
    out = io_run(argv, {"GITHUB_ACTIONS": "true"})
    texts = {kind: path.read_text(encoding="utf-8") for kind, path in paths.items()}
    texts["annotations"] = out
    for kind, text in texts.items():
        for error in (SHOP, API, WORKER):
            assert error in text, kind
    sarif = json.loads(texts["sarif"])
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert "quota" in rules
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"quota"}


def io_run(argv: list[str], env: dict[str, str]) -> str:
    import io

    out, err = io.StringIO(), io.StringIO()
    main(argv, Streams(stdin=io.BytesIO(b""), stdout=out, stderr=err, env=env, now=NOW))
    return out.getvalue() + err.getvalue()
