"""Origins for piped input: kustomize's ``config.kubernetes.io/origin`` and Helm's
``# Source:`` name the file in every report; without one, ``stdin#N`` names the document."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gate.cli import Streams, main
from gate.inputs.manifests import read_documents
from gate.inputs.origins import ORIGIN_ANNOTATION, kustomize_origin, repository_file
from tests.conftest import ROOT
from tests.test_cli import AKS, NOW

Golden = Callable[[str, str], None]
DATA = ROOT / "tests" / "data" / "origins"
OVERLAY = "fixtures/kustomize/overlays/production"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _piped(stream: bytes, *argv: str, junit: Path, sarif: Path) -> str:
    out = io.StringIO()
    env = {"GITHUB_ACTIONS": "true"}
    streams = Streams(stdin=io.BytesIO(stream), stdout=out, stderr=io.StringIO(), env=env, now=NOW)
    args = ["check", "-", "--snapshot", AKS, "--junit", str(junit), "--sarif", str(sarif)]
    assert main([*args, *argv], streams) == 1
    return out.getvalue()


RENDERERS = {
    "kubectl kustomize with originAnnotations": (
        "kustomize-build.yaml",
        ("--origin-root", OVERLAY),
    ),
    "helm template": ("helm-template.yaml", ()),
}


@pytest.mark.parametrize(("name", "argv"), RENDERERS.values(), ids=RENDERERS)
def test_piped_output_of_each_renderer(
    tmp_path: Path, golden: Golden, name: str, argv: tuple[str, ...]
) -> None:
    junit, sarif = tmp_path / "r.xml", tmp_path / "r.sarif"
    text = _piped((DATA / name).read_bytes(), *argv, junit=junit, sarif=sarif)
    stem = name.removesuffix(".yaml")
    golden(f"origins/{stem}.txt", text)
    golden(f"origins/{stem}.junit.xml", junit.read_text(encoding="utf-8"))
    golden(f"origins/{stem}.sarif", sarif.read_text(encoding="utf-8"))


def test_a_kustomize_origin_is_where_the_annotation_points(tmp_path: Path) -> None:
    junit, sarif = tmp_path / "r.xml", tmp_path / "r.sarif"
    stream = (DATA / "kustomize-build.yaml").read_bytes()
    text = _piped(stream, "--origin-root", OVERLAY, junit=junit, sarif=sarif)
    assert "Deployment shop/worker  (stdin#3:50 (../../base/worker.yaml))" in text
    # The overlay's inline patch sets the cpu the base asks 500m of: its line is pointed at.
    assert f"::error file={OVERLAY}/kustomization.yaml,line=19," in text
    [found] = json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    place = found["locations"][0]["physicalLocation"]
    assert place["artifactLocation"]["uri"] == f"{OVERLAY}/kustomization.yaml"
    assert place["region"]["startLine"] == 19


def test_without_the_root_the_origin_is_named_but_attached_nowhere(tmp_path: Path) -> None:
    junit, sarif = tmp_path / "r.xml", tmp_path / "r.sarif"
    text = _piped((DATA / "kustomize-build.yaml").read_bytes(), junit=junit, sarif=sarif)
    assert "(stdin#3:50 (../../base/worker.yaml))" in text
    assert "::error title=" in text and "::error file=" not in text
    [found] = json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    assert "locations" not in found


def test_plain_piped_documents_are_numbered() -> None:
    stream = b"kind: ConfigMap\napiVersion: v1\n---\nkind: Pod\napiVersion: v1\n"
    documents = list(read_documents(["-"], io.BytesIO(stream)))
    assert [(d.location.document, d.location.line) for d in documents] == [(1, 1), (2, 4)]
    files = list(read_documents(["fixtures/manifests/01-web-small.yaml"], io.BytesIO(b"")))
    assert {d.location.document for d in files} == {None}


def _annotated(value: object) -> dict[str, object]:
    return {"metadata": {"annotations": {ORIGIN_ANNOTATION: value}}}


ORIGINS = {
    "a local base": ("path: ../../base/api.yaml\n", "../../base/api.yaml"),
    "a remote base": (
        "path: examples/helloWorld/deployment.yaml\n"
        "repo: https://github.com/kubernetes-sigs/kustomize\nref: v1.0.6\n",
        "https://github.com/kubernetes-sigs/kustomize//examples/helloWorld/deployment.yaml@v1.0.6",
    ),
    "a generated object": (
        "configuredIn: kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n"
        "  kind: ConfigMapGenerator\n",
        "kustomization.yaml",
    ),
    "quoted values": ("path: \"base/a b.yaml\"\nref: 'it''s'\n", "base/a b.yaml"),
    "no path": ("repo: https://example.com/x\n", None),
    "not text": (["path: a.yaml"], None),
    "aliases are not expanded": ("path: &a x\nrepo: *a\n", "*a//&a x"),
    "only the first few kilobytes": ("#" * 5000 + "\npath: late.yaml\n", None),
}


@pytest.mark.parametrize(("value", "origin"), ORIGINS.values(), ids=ORIGINS)
def test_the_origin_annotation(value: object, origin: str | None) -> None:
    assert kustomize_origin(_annotated(value)) == origin


FILES = {
    "a file of the repository": (
        "fixtures/kustomize",
        "base/worker.yaml",
        "fixtures/kustomize/base/worker.yaml",
    ),
    "relative to the built kustomization": (
        OVERLAY,
        "../../base/api.yaml",
        "fixtures/kustomize/base/api.yaml",
    ),
    "outside the repository": (".", "../etc/passwd", None),
    "an absolute path": (".", "/etc/passwd", None),
    "a remote base": (".", "https://github.com/x/y//a.yaml", None),
    "no such file": (".", "nowhere.yaml", None),
}


@pytest.mark.parametrize(("root", "origin", "path"), FILES.values(), ids=FILES)
def test_repository_files(root: str, origin: str, path: str | None) -> None:
    assert repository_file(origin, root) == path


def _run(argv: list[str], stdin: bytes = b"") -> str:
    out = io.StringIO()
    env = {"GITHUB_ACTIONS": "true"}
    streams = Streams(stdin=io.BytesIO(stdin), stdout=out, stderr=io.StringIO(), env=env, now=NOW)
    main(argv, streams)
    return out.getvalue()


def test_a_merge_of_piped_shards_keeps_the_places(tmp_path: Path) -> None:
    stream = (DATA / "kustomize-build.yaml").read_bytes()
    common = ["--snapshot", AKS, "--origin-root", OVERLAY]
    whole = _run(["check", "-", *common, "--sarif", str(tmp_path / "whole.sarif")], stream)
    shards = []
    for index in (1, 2):
        path = tmp_path / f"shard-{index}.json"
        _run(["check", "-", *common, "--shard", f"{index}/2", "--json", str(path)], stream)
        shards.append(str(path))
    merged = _run(["merge", *shards, "--sarif", str(tmp_path / "merged.sarif")])
    assert merged == whole
    assert (tmp_path / "merged.sarif").read_text() == (tmp_path / "whole.sarif").read_text()
    assert "stdin#3:50" in merged and f"file={OVERLAY}/kustomization.yaml,line=19" in merged
