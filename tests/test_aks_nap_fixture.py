"""``fitgate check`` end to end on a recorded AKS cluster with node autoprovisioning
(fixtures/snapshots/aks-nap.json: three system nodes tainted CriticalAddonsOnly, NodePools
``default`` limited to ``karpenter.azure.com/sku-family In [D]`` and ``gpu`` for NVIDIA sizes,
tainted) judged with the region's SKU listing (fixtures/catalogs/aks/list-skus.json) and the
manifests of fixtures/aks-nap: D sizes for web, the Arm64 D sizes for an arm64 API, the A100
size for a GPU job selecting ``sku-gpu-name``, and NO for a family no pool allows, in
Karpenter's words. With KWOK's catalog instead, the pools' Azure requirements cannot be judged
and every workload fails closed, saying how to record the listing."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT
from tests.report_schema import validate_report

SNAPSHOT = "fixtures/snapshots/aks-nap.json"
SKUS = "fixtures/catalogs/aks/list-skus.json"
KWOK = "fixtures/catalogs/instance-types.json"
MANIFESTS = "fixtures/aks-nap"
NOW = datetime(2026, 8, 16, 10, 5, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _check(catalog: str) -> tuple[int, str, dict[str, Any]]:
    argv = ["check", MANIFESTS, "--instance-types", catalog, "--snapshot", SNAPSHOT]
    out = io.StringIO()
    code = main([*argv, "--json", "-"], Streams(io.BytesIO(), out, io.StringIO(), env={}, now=NOW))
    report = json.loads(out.getvalue())
    validate_report(report)
    text = io.StringIO()
    assert main(argv, Streams(io.BytesIO(), text, io.StringIO(), env={}, now=NOW)) == code
    return code, text.getvalue(), report


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {w["name"]: w["verdict"] for w in report["workloads"]}


def test_the_fixture_run_with_the_sku_listing_matches_its_golden_reports(
    golden: Callable[[str, str], None],
) -> None:
    code, text, report = _check(SKUS)
    golden("karpenter/check-aks-nap.txt", text)
    golden("karpenter/check-aks-nap.json", json.dumps(report, indent=2) + "\n")
    assert code == 1
    assert _verdicts(report) == {"web": "SCALES", "api": "SCALES", "train": "SCALES", "cache": "NO"}
    assert f"instance types of {SKUS} (az vm list-skus, built as karpenter-provider-azure" in text
    assert 'NodePool "gpu" +1 node (Standard_NC24ads_A100_v4)' in text
    assert 'NodePool "default" +1 node (Standard_D16plds_v5, Standard_D4ps_v5)' in text


def test_with_kwok_s_catalog_the_azure_requirements_fail_closed() -> None:
    _, text, report = _check(KWOK)
    assert set(_verdicts(report).values()) == {"NO"}
    assert "cannot be judged with the instance types of fixtures/catalogs/instance-types.json" in (
        text
    )
    assert "az vm list-skus --location <region> --output json" in text
