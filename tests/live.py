"""Running fitgate against the test API server: one served cluster, its kubeconfig, the CLI."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import trustme

from gate.cli import Streams, main
from tests.apiserver import (
    LIMIT_RANGES,
    NAMESPACES,
    NODES,
    PODS,
    RUNTIME_CLASSES,
    ApiServer,
    ApiState,
    write_kubeconfig,
)
from tests.conftest import ROOT

TOKEN = "reader-token"
AKS = ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json"


@dataclass(frozen=True)
class Live:
    state: ApiState
    url: str
    kubeconfig: Path

    @property
    def env(self) -> dict[str, str]:
        return {"KUBECONFIG": str(self.kubeconfig)}


def serve_snapshot(state: ApiState, document: Mapping[str, Any]) -> ApiState:
    """Serve the objects of a snapshot document (as lists without kind, as the API does)."""
    for path, key in (
        (NODES, "nodes"),
        (PODS, "pods"),
        (NAMESPACES, "namespaces"),
        (LIMIT_RANGES, "limitRanges"),
        (RUNTIME_CLASSES, "runtimeClasses"),
    ):
        state.serve(path, document.get(key) or [])
    state.version = document["source"].get("serverVersion") or state.version
    return state


def aks_document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(AKS.read_text(encoding="utf-8"))
    return document


@contextmanager
def live_cluster(
    tmp_path: Path,
    state: ApiState | None = None,
    *,
    ca: trustme.CA | None = None,
    context: str = "test",
) -> Iterator[Live]:
    """A running server and a kubeconfig whose current context reads it with a token."""
    state = state or ApiState()
    state.token = TOKEN
    with ApiServer(state, ca) as server:
        ca_file = None
        if ca is not None:
            ca_file = tmp_path / "ca.pem"
            ca.cert_pem.write_to_path(str(ca_file))
        kubeconfig = write_kubeconfig(
            tmp_path / "kubeconfig", server.url, context=context, token=TOKEN, ca_file=ca_file
        )
        yield Live(state=state, url=server.url, kubeconfig=kubeconfig)


def run(
    argv: Sequence[str], env: Mapping[str, str], now: datetime | None = None
) -> tuple[int, str, str]:
    """The real entry point, with the given environment; returns (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(stdin=io.BytesIO(), stdout=out, stderr=err, env=dict(env), now=now)
    code = main(list(argv), streams)
    return code, out.getvalue(), err.getvalue()
