"""What a run imports. Most of a small check's time is start-up, so a plain check of a
snapshot without autoscalers imports none of the modules that only other subcommands or
unused features need; each is imported once its feature is used, which a row below shows
(so that a module named here that nothing imports any more fails too)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT

AKS = "fixtures/snapshots/aks-six-nodes.json"
MANIFESTS = "fixtures/manifests"

DEFERRED = frozenset(
    {
        "difflib",
        "gate.ci.merge",
        "gate.inputs.baseline",
        "gate.inputs.catalog",
        "gate.live.connection",
        "gate.live.reader",
        "gate.reports.annotations",
        "gate.reports.junit",
        "gate.reports.markdown",
        "gate.reports.sandbox",
        "gate.reports.sarif",
        "gate.scheduler.autoscaling.clusterautoscaler.decision",
        "gate.scheduler.autoscaling.clusterautoscaler.groups",
        "gate.scheduler.autoscaling.karpenter",
        "gate.scheduler.autoscaling.verdicts",
        "hashlib",
        "jinja2",
        "kubernetes",
    }
)
"""Imported where first needed, never by a plain check."""

# Runs fitgate in a fresh interpreter, then writes the modules it imported to argv[1].
PROGRAM = """\
import io, os, sys
from gate.cli import Streams, main
streams = Streams(io.BytesIO(), io.StringIO(), io.StringIO(), env=os.environ)
main(sys.argv[2:], streams)
with open(sys.argv[1], "w", encoding="utf-8") as listing:
    listing.write("\\n".join(sorted(sys.modules)))
"""


def imported(tmp_path: Path, argv: list[str], env: dict[str, str] | None = None) -> set[str]:
    """The modules a fresh ``fitgate ARGV`` imports, outside GitHub Actions unless ``env``
    says otherwise (a CI runner's own variables would otherwise print annotations)."""
    listing = tmp_path / "modules.txt"
    quiet = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    subprocess.run(
        [sys.executable, "-c", PROGRAM, str(listing), *argv],
        cwd=ROOT,
        env={**quiet, **(env or {})},
        check=True,
        capture_output=True,
    )
    return set(listing.read_text(encoding="utf-8").split("\n"))


PLAIN: dict[str, list[str]] = {
    "a plain check with a JSON report": ["check", MANIFESTS, "--snapshot", AKS, "--json", "-"],
    "fitgate --version": ["--version"],
    "fitgate check --help": ["check", "--help"],
}


@pytest.mark.parametrize("argv", PLAIN.values(), ids=PLAIN.keys())
def test_imports_none_of_the_deferred_modules(tmp_path: Path, argv: list[str]) -> None:
    assert sorted(DEFERRED & imported(tmp_path, argv)) == []


@dataclass(frozen=True, slots=True)
class Feature:
    argv: list[str]
    modules: frozenset[str]
    env: dict[str, str] = field(default_factory=dict)


def _check(*options: str, manifests: str = MANIFESTS, snapshot: str = AKS) -> list[str]:
    return ["check", manifests, "--snapshot", snapshot, "--json", os.devnull, *options]


FEATURES: dict[str, Feature] = {
    "--junit imports the JUnit writer": Feature(
        _check("--junit", os.devnull), frozenset({"gate.reports.junit"})
    ),
    "--sarif imports the SARIF writer": Feature(
        _check("--sarif", os.devnull), frozenset({"gate.reports.sarif"})
    ),
    "--comment imports the markdown writer and jinja2": Feature(
        _check("--comment", os.devnull), frozenset({"gate.reports.markdown", "jinja2"})
    ),
    "--comment-template imports jinja2's sandbox": Feature(
        _check("--comment", os.devnull, "--comment-template", "{template}"),
        frozenset({"gate.reports.sandbox"}),
    ),
    "a run in GitHub Actions imports the annotations writer": Feature(
        _check(), frozenset({"gate.reports.annotations"}), {"GITHUB_ACTIONS": "true"}
    ),
    "--baseline imports the baseline reader": Feature(
        _check("--baseline", "fixtures/baseline/base-report-v1.json"),
        frozenset({"gate.inputs.baseline"}),
    ),
    "--instance-types imports the catalog readers": Feature(
        _check("--instance-types", "fixtures/catalogs/instance-types.json"),
        frozenset({"gate.inputs.catalog"}),
    ),
    "--shard imports hashlib to digest the input": Feature(
        _check("--shard", "1/2"), frozenset({"hashlib"})
    ),
    "a mistyped option imports difflib to name the nearest": Feature(
        ["check", "--snaphot", AKS], frozenset({"difflib"})
    ),
    "cluster-autoscaler's recorded state imports its simulation": Feature(
        _check(manifests="fixtures/autoscaling", snapshot="fixtures/snapshots/aks-autoscaled.json"),
        frozenset(
            {
                "gate.scheduler.autoscaling.clusterautoscaler.decision",
                "gate.scheduler.autoscaling.clusterautoscaler.groups",
                "gate.scheduler.autoscaling.verdicts",
            }
        ),
    ),
    "Karpenter's recorded NodePools import its simulation": Feature(
        _check(manifests="fixtures/karpenter", snapshot="fixtures/snapshots/eks-karpenter.json"),
        frozenset({"gate.scheduler.autoscaling.karpenter", "gate.scheduler.autoscaling.verdicts"}),
    ),
    "a check of the live cluster imports the kubernetes client": Feature(
        ["check", MANIFESTS, "--kubeconfig", "{template}", "--json", os.devnull],
        frozenset({"gate.live.connection", "gate.live.reader", "kubernetes"}),
    ),
    "fitgate merge imports the merge": Feature(
        ["merge", "{shard}", "--json", os.devnull], frozenset({"gate.ci.merge"})
    ),
}


def test_every_deferred_module_has_a_feature_that_imports_it() -> None:
    assert frozenset().union(*(f.modules for f in FEATURES.values())) == DEFERRED


@pytest.mark.parametrize("feature", FEATURES.values(), ids=FEATURES.keys())
def test_a_feature_imports_its_modules_when_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, feature: Feature
) -> None:
    # An empty file: a comment template that renders nothing, a kubeconfig naming no cluster.
    empty = tmp_path / "empty"
    empty.write_text("", encoding="utf-8")
    shard = tmp_path / "shard.json"
    if "{shard}" in feature.argv:
        monkeypatch.chdir(ROOT)
        argv = ["check", MANIFESTS, "--snapshot", AKS, "--shard", "1/1", "--json", str(shard)]
        main(argv, Streams(io.BytesIO(), io.StringIO(), io.StringIO()))
    argv = [a.format(template=empty, shard=shard) for a in feature.argv]
    assert sorted(feature.modules - imported(tmp_path, argv, feature.env)) == []
