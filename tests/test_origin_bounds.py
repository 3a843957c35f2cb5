"""An origin file is never composed whole: of the file a piped document's origin names, only
the documents that mention the workload's kind are composed, each alone, none longer than
:data:`MAX_DOCUMENT`, at most :data:`MAX_COMPOSED` of them a run (``benchmarks/hostile.py
origin`` measures a 15 MiB one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from yaml.nodes import Node

from gate.inputs import composed
from gate.inputs.composed import MAX_DOCUMENT, RepositoryFiles, scalar

WEB = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n"
HUGE = "kind: Deployment\nmetadata:\n  name: web\ndata:\n" + "  k: v\n" * (MAX_DOCUMENT // 7)


def _named(name: str) -> Callable[[Node], bool]:
    return lambda node: scalar(node, "metadata", "name") == name


CASES = [
    (
        "the Deployment after ConfigMaps is found on the line the whole file has it; no "
        "ConfigMap is composed",
        [CONFIG, CONFIG, WEB],
        ["web"],
        1,
    ),
    (
        "a document ended by '...' and the Deployment after it, on the line the whole file has it",
        [CONFIG + "...\n", WEB],
        ["web"],
        1,
    ),
    (
        "a document longer than the bound is never composed: no base is taken",
        [HUGE],
        [],
        0,
    ),
    (
        "two documents of the kind: both composed, each once",
        [WEB, WEB.replace("name: web", "name: api")],
        ["web"],
        2,
    ),
]


@pytest.mark.parametrize(
    ("documents", "names", "composed_count"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_only_the_documents_of_the_workload_s_kind_are_composed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    documents: list[str],
    names: list[str],
    composed_count: int,
) -> None:
    path = tmp_path / "base.yaml"
    path.write_text("---\n".join(documents), encoding="utf-8")
    seen: list[str] = []
    compose_text = composed.compose_text

    def counted(text: str) -> tuple[Node, ...] | None:
        seen.append(text)
        return compose_text(text)

    monkeypatch.setattr(composed, "compose_text", counted)
    files = RepositoryFiles()
    found = files.matching(str(path), "Deployment", _named("web"))
    again = files.matching(str(path), "Deployment", _named("web"))
    assert [scalar(n, "metadata", "name") for n in found] == names
    assert again == found and len(seen) == composed_count
    assert all("ConfigMap" not in text for text in seen)
    whole = [n for n in compose_text(path.read_text()) or () if _named("web")(n)]
    assert [n.start_mark.line for n in found] == [n.start_mark.line for n in whole][: len(found)]


def test_past_the_composed_bound_no_base_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which document is the base is not known once the bound stops the reading: none is."""
    path = tmp_path / "base.yaml"
    path.write_text("---\n".join([WEB.replace("web", f"w{n}") for n in range(20)] + [WEB]))
    monkeypatch.setattr(composed, "MAX_COMPOSED", len(WEB) * 5)
    assert RepositoryFiles().matching(str(path), "Deployment", _named("web")) == []


def test_a_kustomization_or_patch_longer_than_a_document_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "patch.yaml"
    path.write_text(HUGE + "  k: v\n" * 10, encoding="utf-8")
    assert path.stat().st_size > MAX_DOCUMENT
    assert RepositoryFiles().documents(str(path)) is None
