"""One sentence per fact, in every format: what the text summary says of a workload, the
comment, JUnit and the workflow annotations say in the same words (a DaemonSet's nodes
without room, the NodePools that refused a PARTIAL's blocked copies, an HPA's minimum)."""

from __future__ import annotations

import html
import io
from pathlib import Path

import pytest

from gate.cli import Streams, main
from tests.conftest import ROOT
from tests.test_cli import NOW

DAEMONSET = (
    ["fixtures/manifests/04-log-agent.yaml", "--snapshot", "fixtures/snapshots/aks-six-nodes.json"],
    "no room on 3 of 6 targeted nodes: 3 Insufficient cpu",
    "targeted node(s)",
)
KARPENTER = (
    [
        "fixtures/karpenter/03-batch-beyond-limit.yaml",
        "--snapshot",
        "fixtures/snapshots/eks-karpenter.json",
        "--instance-types",
        "fixtures/catalogs/instance-types.json",
    ],
    'blocked: nodepool "default": all available instance types exceed limits for nodepool '
    '(NodePool=default); nodepool "gpu": did not tolerate taint '
    "(taint=nvidia.com/gpu=true:NoSchedule)",
    "blocked: all available",
)
HPA = (
    [
        "fixtures/replicas/06-autoscaled.yaml",
        "--snapshot",
        "fixtures/snapshots/aks-busy.json",
        "--fail-on",
        "YES",  # a failing YES is annotated and a JUnit failure: every format shows it
    ],
    "fits 3 of 6 nodes; the HPA's minimum of 2 replicas fit; room for 12 of its 20",
    "of the HPA's 20",
)
CASES = {"daemonset-partial": DAEMONSET, "karpenter-partial": KARPENTER, "hpa-yes": HPA}
FORMATS = ["text", "comment", "junit", "annotations"]


def _formats(tmp_path: Path, argv: list[str]) -> dict[str, str]:
    comment, junit = tmp_path / "c.md", tmp_path / "r.xml"
    out = io.StringIO()
    env = {"GITHUB_ACTIONS": "true"}
    streams = Streams(io.BytesIO(), out, io.StringIO(), env=env, now=NOW)
    main(["check", *argv, "--comment", str(comment), "--junit", str(junit)], streams)
    lines = out.getvalue().splitlines()
    return {
        "text": "\n".join(line for line in lines if not line.startswith("::")),
        # What markdown and XML escape, read back as their readers show it.
        "comment": html.unescape(comment.read_text(encoding="utf-8")),
        "junit": html.unescape(junit.read_text(encoding="utf-8")),
        "annotations": "\n".join(line for line in lines if line.startswith("::error")),
    }


@pytest.mark.parametrize("name", CASES, ids=list(CASES))
def test_every_format_says_the_same_sentence(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    monkeypatch.chdir(ROOT)
    argv, sentence, old = CASES[name]
    formats = _formats(tmp_path, argv)
    assert {f: sentence in formats[f] for f in FORMATS} == dict.fromkeys(FORMATS, True)
    assert {f: old in formats[f] for f in FORMATS} == dict.fromkeys(FORMATS, False)
