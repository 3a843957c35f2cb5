"""Files, directories and stdin -> Documents with their file, first line and Helm origin.

Every reading test runs with both YAML loaders (libyaml's and the pure Python one): the
gate must point at the same lines whichever PyYAML build a CI image happens to have.
"""

from __future__ import annotations

import io
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.errors import UsageError
from gate.inputs.manifests import (
    _NON_PRINTABLE,
    MAX_EXPANDED_NODES,
    PRINTABLE,
    STDIN_NAME,
    LoaderFactory,
    default_loader,
    expand_paths,
    read_documents,
)
from gate.model import Document

DATA = Path(__file__).resolve().parent / "data" / "manifests"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def read(paths: Sequence[str | Path], loader: LoaderFactory, stdin: bytes = b"") -> list[Document]:
    return list(read_documents([str(p) for p in paths], io.BytesIO(stdin), loader=loader))


def outline(documents: list[Document]) -> list[tuple[int, str]]:
    """(line, kind) per document; errors as (line, "!" + error)."""
    return [
        (d.location.line, f"!{d.error}" if d.error else str(d.body.get("kind") if d.body else None))
        for d in documents
    ]


def matches(actual: list[tuple[int, str]], expected: list[tuple[int, str]]) -> bool:
    """Expected errors are given as "!fragment": the fragment must occur in the reason."""
    return len(actual) == len(expected) and all(
        a_line == e_line
        and (
            a_text.startswith("!") and e_text[1:] in a_text
            if e_text.startswith("!")
            else a_text == e_text
        )
        for (a_line, a_text), (e_line, e_text) in zip(actual, expected, strict=True)
    )


@dataclass(frozen=True)
class Case:
    id: str
    name: str
    content: bytes
    expected: list[tuple[int, str]]


CM = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"

CASES = [
    Case(
        "a leading --- marker and comments are not the document's first line",
        "leading.yaml",
        b"# rendered by hand\n---\n# about the map\n" + CM % b"a",
        [(4, "ConfigMap")],
    ),
    Case(
        "--- directly followed by --- yields no empty document",
        "double.yaml",
        CM % b"a" + b"---\n---\n" + CM % b"b",
        [(1, "ConfigMap"), (7, "ConfigMap")],
    ),
    Case(
        "a trailing --- yields nothing after the last document",
        "trailing.yaml",
        CM % b"a" + b"---\n",
        [(1, "ConfigMap")],
    ),
    Case(
        "comment-only documents yield nothing",
        "comments.yaml",
        b"---\n# disabled template\n---\n" + CM % b"a" + b"---\n# another one\n...\n",
        [(4, "ConfigMap")],
    ),
    Case("a comment-only file yields nothing", "only.yaml", b"# nothing\n\n# at all\n", []),
    Case("an empty file yields nothing", "empty.yaml", b"", []),
    Case(
        "CRLF line endings keep every line number",
        "crlf.yaml",
        (CM % b"a" + b"---\n\n" + CM % b"b").replace(b"\n", b"\r\n"),
        [(1, "ConfigMap"), (7, "ConfigMap")],
    ),
    Case(
        "a UTF-8 byte order mark is not content",
        "bom.yaml",
        b"\xef\xbb\xbf" + CM % b"a",
        [(1, "ConfigMap")],
    ),
    Case(
        "a byte order mark at the start of a later document is dropped too",
        "bom-inside.yaml",
        CM % b"a" + b"---\n\xef\xbb\xbf" + CM % b"b",
        [(1, "ConfigMap"), (6, "ConfigMap")],
    ),
    Case(
        "UTF-16 with its byte order mark is read",
        "utf16.yaml",
        (CM % b"a").decode().encode("utf-16"),
        [(1, "ConfigMap")],
    ),
    Case(
        "a file that is not UTF-8 is one error at line 1",
        "latin1.yaml",
        CM % b"caf\xe9" + b"---\n" + CM % b"b",
        [(1, "!not UTF-8: invalid continuation byte at byte 52 (line 4)")],
    ),
    Case(
        "a mapping without kind is still yielded",
        "kindless.yaml",
        b"metadata:\n  name: x\n",
        [(1, "None")],
    ),
    Case(
        "a list document is an error of its own and the next document is still read",
        "list-doc.yaml",
        b"- a\n- b\n---\n" + CM % b"a",
        [(1, "!document is a list, not a mapping"), (4, "ConfigMap")],
    ),
    Case(
        "a scalar document is an error of its own",
        "scalar.yaml",
        b"---\njust text\n---\n" + CM % b"a",
        [(2, "!document is a string, not a mapping"), (4, "ConfigMap")],
    ),
    Case(
        "a syntax error costs only its document: reading resumes at the next marker",
        "syntax.yaml",
        CM % b"a" + b"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: x: y\n---\n" + CM % b"c",
        [(1, "ConfigMap"), (9, "!(line 9, column 10)"), (11, "ConfigMap")],
    ),
    Case(
        "several broken documents each cost only themselves",
        "broken-twice.yaml",
        b"kind: Pod\nmetadata: {name: [\n---\n"
        + CM % b"a"
        + b"---\nkind: Pod\n  bad: indent\n"
        + b"---\n"
        + CM % b"b",
        [(3, "!"), (4, "ConfigMap"), (10, "!"), (12, "ConfigMap")],
    ),
    Case(
        "a syntax error in the last document ends the file",
        "broken-last.yaml",
        CM % b"a" + b"---\nkind: Pod\nmetadata:\n  name: 'open\n",
        [(1, "ConfigMap"), (9, "!while scanning a quoted scalar at line 8")],
    ),
    Case(
        "an unclosed quote reports where the scan gave up and where it started",
        "quote.yaml",
        b"kind: Pod\nmetadata:\n  name: 'open\n",
        [(4, "!while scanning a quoted scalar at line 3")],
    ),
    Case(
        "an unknown tag is refused and costs only its document",
        "tag.yaml",
        b"kind: Pod\nspec: !!python/object:os.system {}\n---\n" + CM % b"a",
        [(1, "!could not determine a constructor"), (4, "ConfigMap")],
    ),
    Case(
        "an impossible timestamp is text, as kubectl reads it",
        "date.yaml",
        b"kind: Pod\ncreated: 2024-13-45\n---\n" + CM % b"a",
        [(1, "Pod"), (4, "ConfigMap")],
    ),
    Case(
        "a control character makes the whole file one error at its line",
        "control.yaml",
        CM % b"a" + b"---\nkind: Pod\nnote: a\x07b\n",
        [(7, "!unacceptable character #x0007 (line 7, column 8)")],
    ),
    Case(
        "a recursive alias is refused and costs only its document",
        "recursive.yaml",
        b"kind: Pod\nloop: &loop [1, *loop]\n---\n" + CM % b"a",
        [(1, "!recursive alias"), (4, "ConfigMap")],
    ),
    Case(
        "a kind ending in List without an items list is one document",
        "not-a-list.yaml",
        b"kind: AllowList\nitems: none\n",
        [(1, "AllowList")],
    ),
    Case(
        "a List item that is not a mapping is an error at the item's line",
        "bad-item.yaml",
        b"kind: List\nitems:\n- kind: Pod\n- 42\n- null\n",
        [(3, "Pod"), (4, "!List item 1 is a number"), (5, "!List item 2 is null")],
    ),
    Case(
        "an empty List yields nothing",
        "empty-list.yaml",
        b"kind: List\nitems: []\n",
        [],
    ),
    Case(
        "a JSON file is read with its List items on their own lines",
        "list.json",
        b'{"kind": "List",\n "items": [\n  {"kind": "Pod"},\n\n  {"kind": "Job"}\n ]\n}\n',
        [(3, "Pod"), (5, "Job")],
    ),
    Case(
        "concatenated JSON values are one document each",
        "stream.json",
        b'{"kind": "Pod"}\n\n{"kind": "Job",\n "spec": {}}\n',
        [(1, "Pod"), (3, "Job")],
    ),
    Case(
        "a JSON syntax error ends the file at its line",
        "bad.json",
        b'{"kind": "Pod"}\n{"kind": "Job",\n "spec": {},\n}\n{"kind": "Service"}\n',
        [(1, "Pod"), (4, "!Expecting property name enclosed in double quotes (line 4, column 1)")],
    ),
    Case(
        "a JSON value that is not an object is an error",
        "array.json",
        b'\n  [{"kind": "Pod"}]\n',
        [(2, "!document is a list, not a mapping")],
    ),
    Case("an empty JSON file yields nothing", "empty.json", b" \n", []),
    Case(
        "a file named explicitly is read whatever its extension",
        "rendered.txt",
        CM % b"a",
        [(1, "ConfigMap")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_documents_and_their_first_lines(case: Case, tmp_path: Path, loader: LoaderFactory) -> None:
    path = tmp_path / case.name
    path.write_bytes(case.content)
    documents = read([path], loader)
    assert matches(outline(documents), case.expected), outline(documents)
    assert {d.location.file for d in documents} <= {str(path)}


DATA_CASES = [
    (
        "List and RoleList items are expanded, each at its own line",
        "lists.yaml",
        [(4, "Service"), (9, "Deployment"), (17, "Role"), (20, "Role")],
    ),
    (
        "a kubectl List in JSON keeps its items' lines",
        "kubectl-list.json",
        [(6, "Pod"), (11, "Pod"), (13, "Job")],
    ),
    ("anchors and merge keys give one document", "anchors.yaml", [(2, "Deployment")]),
]


@pytest.mark.parametrize(
    ("name", "expected"), [c[1:] for c in DATA_CASES], ids=[c[0] for c in DATA_CASES]
)
def test_data_files(name: str, expected: list[tuple[int, str]], loader: LoaderFactory) -> None:
    assert outline(read([DATA / name], loader)) == expected


def test_anchors_aliases_and_merge_keys_are_resolved(loader: LoaderFactory) -> None:
    (document,) = read([DATA / "anchors.yaml"], loader)
    assert document.body is not None
    labels = {"app": "anchored", "tier": "web"}
    assert document.body["spec"]["selector"]["matchLabels"] == labels
    assert document.body["spec"]["template"]["metadata"]["labels"] == {**labels, "track": "stable"}
    main, sidecar = document.body["spec"]["template"]["spec"]["containers"]
    assert sidecar == {**main, "name": "sidecar"}


def test_helm_source_comments_become_origins(loader: LoaderFactory) -> None:
    documents = read([DATA / "helm-chart.yaml"], loader)
    assert [(d.location.line, d.location.origin) for d in documents] == [
        (3, "demo/templates/serviceaccount.yaml"),
        (11, "demo/templates/deployment.yaml"),
        (22, None),
    ]


def test_an_error_inside_a_helm_template_names_the_template(
    tmp_path: Path, loader: LoaderFactory
) -> None:
    path = tmp_path / "out.yaml"
    path.write_text("---\n# Source: c/templates/a.yaml\nkind: Pod\nmetadata:\n  name: a: b\n")
    (document,) = read([path], loader)
    assert (document.location.line, document.location.origin) == (5, "c/templates/a.yaml")
    assert document.error


def test_stdin_is_read_as_yaml_under_its_display_name(loader: LoaderFactory) -> None:
    stdin = b'{"kind": "Pod"}\n---\n# Source: c/templates/job.yaml\nkind: Job\n'
    documents = read(["-"], loader, stdin)
    assert [(d.location.file, d.location.line, d.location.origin) for d in documents] == [
        (STDIN_NAME, 1, None),
        (STDIN_NAME, 4, "c/templates/job.yaml"),
    ]


def test_files_and_stdin_are_read_in_the_order_given(tmp_path: Path, loader: LoaderFactory) -> None:
    (tmp_path / "a.yaml").write_bytes(CM % b"a")
    (tmp_path / "b.yaml").write_bytes(CM % b"b")
    documents = read([tmp_path / "b.yaml", "-", tmp_path / "a.yaml"], loader, CM % b"stdin")
    assert [d.body["metadata"]["name"] for d in documents if d.body] == ["b", "stdin", "a"]


def test_a_syntax_error_does_not_stop_the_next_file(tmp_path: Path, loader: LoaderFactory) -> None:
    (tmp_path / "1-bad.yaml").write_bytes(CM % b"a" + b"---\nkind: [\n---\n" + CM % b"next")
    (tmp_path / "2-good.yaml").write_bytes(CM % b"b")
    documents = read([tmp_path], loader)
    assert [(Path(d.location.file).name, d.location.line, bool(d.error)) for d in documents] == [
        ("1-bad.yaml", 1, False),
        ("1-bad.yaml", 7, True),
        ("1-bad.yaml", 8, False),
        ("2-good.yaml", 1, False),
    ]


def test_a_file_that_cannot_be_read_is_one_error_and_the_others_are_read(
    tmp_path: Path, loader: LoaderFactory
) -> None:
    (tmp_path / "a-dangling.yaml").symlink_to(tmp_path / "missing.yaml")
    (tmp_path / "b.yaml").write_bytes(CM % b"b")
    documents = read([tmp_path], loader)
    assert outline(documents) == [(1, "!cannot read: No such file or directory"), (1, "ConfigMap")]


def test_a_directory_that_cannot_be_listed_is_reported_not_skipped(
    tmp_path: Path, loader: LoaderFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "lost.yaml").write_bytes(CM % b"lost")
    (tmp_path / "z.yaml").write_bytes(CM % b"z")
    scandir, listdir = os.scandir, os.listdir

    def refuse(real: Any) -> Any:
        def call(path: Any = ".") -> Any:
            if Path(path) == locked:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path)

        return call

    monkeypatch.setattr(os, "scandir", refuse(scandir))
    monkeypatch.setattr(os, "listdir", refuse(listdir))
    documents = read([tmp_path], loader)
    assert outline(documents) == [(1, "!cannot read: Permission denied"), (1, "ConfigMap")]
    assert documents[0].location.file == f"{tmp_path}/locked"


def test_nesting_deeper_than_the_parser_allows_is_an_error_not_a_crash(
    tmp_path: Path, loader: LoaderFactory
) -> None:
    (tmp_path / "1-deep.yaml").write_text("kind: Pod\nx: " + "[" * 5000 + "]" * 5000 + "\n")
    (tmp_path / "2-next.yaml").write_bytes(CM % b"next")
    documents = read([tmp_path], loader)
    assert [bool(d.error) for d in documents] == [True, False]
    assert "nest" in str(documents[0].error)


# --------------------------------------------------------------------------- paths


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small repository: nested directories, hidden ones, other extensions."""
    for name in [
        "b.yaml",
        "a.yml",
        "a/z.json",
        "a/b/c.yaml",
        "a-b/x.yaml",
        "README.md",
        "notes.txt",
        "UPPER.YAML",
        ".hidden.yaml",
        ".github/workflows/ci.yaml",
        "charts/.cache/x.yaml",
    ]:
        path = tmp_path / "repo" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(CM % b"x")
    return tmp_path / "repo"


WALKED = ["UPPER.YAML", "a/b/c.yaml", "a/z.json", "a-b/x.yaml", "a.yml", "b.yaml"]


@pytest.mark.parametrize(
    ("spelling", "prefix"),
    [("repo", "repo/"), ("repo/", "repo/"), ("./repo", "./repo/"), (".", "")],
    ids=[
        "a directory is walked in sorted order under the name the user gave",
        "a trailing slash is not doubled",
        "a leading ./ is kept as given",
        "the current directory gives bare relative paths",
    ],
)
def test_directory_walk(
    tree: Path, spelling: str, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree.parent if spelling != "." else tree)
    assert expand_paths([spelling]) == [prefix + p for p in WALKED]


def test_hidden_paths_are_skipped_but_a_hidden_directory_named_explicitly_is_walked(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    assert expand_paths([".github", "-", "notes.txt"]) == [
        ".github/workflows/ci.yaml",
        "-",
        "notes.txt",
    ]


def test_a_directory_link_cycle_adds_nothing(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tree / "a" / "loop").symlink_to(tree, target_is_directory=True)
    monkeypatch.chdir(tree)
    assert expand_paths(["."]) == WALKED


def test_a_link_to_a_directory_inside_the_root_is_walked_once(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The target is hidden, so only the links reach it; two links read it once, and a
    link inside it back to it adds nothing."""
    (tree / ".real").mkdir()
    (tree / ".real" / "deploy.yaml").write_bytes(CM % b"r")
    (tree / ".real" / "self").symlink_to(tree / ".real", target_is_directory=True)
    (tree / "prod").symlink_to(".real", target_is_directory=True)
    (tree / "a" / "again").symlink_to(tree / ".real", target_is_directory=True)
    monkeypatch.chdir(tree)
    assert expand_paths(["."]) == [WALKED[0], "a/again/deploy.yaml", *WALKED[1:]]


def test_a_link_to_a_directory_outside_the_root_is_skipped_saying_so(
    tree: Path, monkeypatch: pytest.MonkeyPatch, loader: LoaderFactory
) -> None:
    outside = tree.parent / "real"
    outside.mkdir()
    (outside / "deploy.yaml").write_bytes(CM % b"r")
    (tree / "prod").symlink_to(Path("..") / "real", target_is_directory=True)
    monkeypatch.chdir(tree)
    documents = read(["."], loader)
    [skipped] = [d for d in documents if d.skipped is not None]
    assert (str(skipped.location), skipped.skipped) == (
        "prod:1",
        "a symbolic link to a directory outside the directory walked (../real): not followed",
    )
    assert all("real" not in str(d.location) for d in documents if d.skipped is None)


@pytest.mark.parametrize(
    "paths",
    [["missing.yaml"], ["ok.yaml", "missing/"]],
    ids=["a missing path is a usage error", "a missing path is found before anything is read"],
)
def test_missing_path_is_a_usage_error(
    paths: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.yaml").write_bytes(CM % b"a")
    with pytest.raises(UsageError, match=f"^{paths[-1]}: no such file or directory$"):
        read_documents(paths, io.BytesIO())


# --------------------------------------------------------------------------- alias bombs


def billion_laughs(levels: int = 9) -> bytes:
    lines = ["kind: Pod", 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels + 1):
        refs = ",".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{refs}]")
    return ("\n".join(lines) + "\n---\n").encode() + CM % b"after"


def test_an_alias_bomb_is_refused_quickly(tmp_path: Path, loader: LoaderFactory) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_bytes(billion_laughs())
    started = time.perf_counter()
    documents = read([path], loader)
    assert time.perf_counter() - started < 1.0
    assert outline(documents)[1] == (13, "ConfigMap")
    assert documents[0].error is not None
    assert f"{MAX_EXPANDED_NODES:,}" in documents[0].error


def test_aliases_below_the_limit_are_expanded(tmp_path: Path, loader: LoaderFactory) -> None:
    path = tmp_path / "small.yaml"
    path.write_bytes(billion_laughs(levels=4))
    (document,) = read([path], loader)[:1]
    assert document.body is not None
    assert len(document.body["l4"]) == 9


# --------------------------------------------------------------------------- loaders


def test_libyaml_is_used_when_available() -> None:
    expected = getattr(yaml, "CSafeLoader", None) if yaml.__with_libyaml__ else yaml.SafeLoader
    assert issubclass(default_loader(), expected)  # type: ignore[arg-type]


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_both_loaders_give_the_same_documents() -> None:
    small = [p for p in sorted(CORPUS.rglob("*.y*ml")) if p.stat().st_size < 20_000]
    paths = [str(DATA), *(str(p) for p in small)]

    def key(documents: Iterator[Document]) -> list[tuple[Any, ...]]:
        return [(d.location, d.body, d.error is None) for d in documents]

    libyaml = key(read_documents(paths, io.BytesIO(), loader=yaml.CSafeLoader))
    pure = key(read_documents(paths, io.BytesIO(), loader=yaml.SafeLoader))
    assert libyaml == pure


# --------------------------------------------------------------------------- corpus


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
def test_the_whole_corpus_is_read_without_exceptions() -> None:
    documents = list(read_documents([str(CORPUS)], io.BytesIO()))
    assert documents and all(d.error is None for d in documents)
    by_file: dict[str, list[Document]] = {}
    for document in documents:
        relative = Path(document.location.file).relative_to(CORPUS).as_posix()
        by_file.setdefault(relative, []).append(document)

    def kinds(name: str) -> list[str]:
        return [str(d.body.get("kind")) for d in by_file.get(name, []) if d.body]

    assert b"\r\n" in (CORPUS / "kubernetes-examples" / "sysdig-daemonset.yaml").read_bytes()
    assert "DaemonSet" in kinds("kubernetes-examples/sysdig-daemonset.yaml")
    assert "flux2/clusters/production/flux-system/gotk-components.yaml" not in by_file
    assert kinds("istio/list-frontend.yaml") == ["Service", "Deployment"]
    cert_manager = by_file["cert-manager/cert-manager.yaml"]
    origins = {d.location.origin for d in cert_manager}
    assert "cert-manager/templates/deployment.yaml" in origins
    deployments = [d for d in cert_manager if d.body and d.body.get("kind") == "Deployment"]
    assert deployments and all(d.location.origin for d in deployments)


def test_the_refused_characters_are_every_code_point_outside_the_printable_class() -> None:
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    outside = re.compile(f"[^{PRINTABLE}]")
    refused = [m.start() for m in _NON_PRINTABLE.finditer(every)]
    assert refused == [m.start() for m in outside.finditer(every)]
    assert len(refused) == 2_113  # C0 but TAB, LF; DEL, C1 but NEL; surrogates; U+FEFF, U+FFFE-F
