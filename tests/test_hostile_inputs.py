"""The manifest reader against hostile files: broken documents by the thousand, named
pipes, devices and links to them in a walked tree, numbers past Python's digit limit, deep
nesting. Each is an answer (an ERROR at its line, or a visible SKIPPED), never a hang or a
traceback, and the rest of the run goes on."""

from __future__ import annotations

import io
import json
import os
import socket
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.inputs import manifests
from gate.inputs.manifests import LoaderFactory, read_documents
from gate.model import Document, Location
from tests.conftest import ROOT
from tests.deadline import deadline

AKS = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)


def read(paths: Sequence[str | Path], loader: LoaderFactory | None = None) -> list[Document]:
    with deadline(60):
        return list(read_documents([str(p) for p in paths], io.BytesIO(), loader=loader))


def check(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with deadline(60):
        code = main(list(argv), Streams(io.BytesIO(stdin), out, err, env={}, now=NOW))
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- broken YAML

GOOD = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{n}\n"
BROKEN = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{n}\n"  # never closed


def test_twenty_thousand_broken_documents_are_each_an_error_at_their_line(
    tmp_path: Path, loader: LoaderFactory
) -> None:
    """Issue #15: 20,000 broken documents in 1.1 MB took 243 s (each error re-read the
    rest of the file). Every broken document is an ERROR at the line its parser stops on
    (the next marker), and every good one between them is read."""
    count = 20_000 if loader is getattr(yaml, "CSafeLoader", None) else 2_000
    parts = [(GOOD if n % 2 else BROKEN).format(n=n) for n in range(count)]
    path = tmp_path / "broken.yaml"
    path.write_text("".join(parts))
    assert count < 20_000 or path.stat().st_size > 1_000_000
    documents = read([path], loader)
    assert len(documents) == count
    for n, document in enumerate(documents):
        first_line = 4 * ((n + 1) // 2) + 5 * (n // 2) + 1  # broken: 4 lines, good: 5
        if n % 2:
            assert document.location.line == first_line + 1
            assert document.body == {"apiVersion": "v1", "kind": "ConfigMap",
                                     "metadata": {"name": f"c{n}"}}  # fmt: skip
        else:
            stop = first_line + 4  # the next marker, or the end of the file
            assert document.location.line == stop
            assert document.error is not None and f"(line {stop}, column 1)" in document.error
            assert f"parsing a flow mapping at line {first_line + 3}" in document.error


def reference_documents(file: str, text: str, loader: LoaderFactory) -> list[Document]:
    """The reader before resuming became linear: after each error, the rest of the file
    (earlier lines blanked) is read again by one loader from the next marker on."""
    origins = manifests._origins(text)
    found: list[Document] = []
    resumed_at, part = 0, text

    def stream(part: str) -> Iterator[Document]:
        return manifests._stream_documents(file, part, 0, loader, origins)

    while True:
        generator = stream(part)
        while True:
            try:
                found.append(next(generator))
            except StopIteration as stop:
                failed_line = stop.value
                break
        if failed_line is None:
            return found
        resume = manifests._marker_from(text, manifests._line_start(text, failed_line))
        if resume is not None and resume <= resumed_at:
            resume = manifests._marker_from(text, resumed_at + 1)
        if resume is None:
            return found
        resumed_at, part = resume, "\n" * text.count("\n", 0, resume) + text[resume:]


SNIPPETS = [
    "---\nkind: A\n",
    "---\nkind: [\n",
    "--- {kind: B}\n",
    "---\nkind: 'open\n",
    "---\n  - a\n - b\n",
    "...\n",
    "# Source: chart/templates/x.yaml\n",
    "---\nitems: [{a: 1}, {b: 2}]\nkind: List\n",
    "---\nkind: C\nlist:\n- &a x\n- *a\n",
    '---\n"quoted\nline": 1\n',
    "kind: D\n",
    "---\n? [a]\n: 1\n",
    "---\nkind: !!int x\n",
    "%YAML 1.1\n",
    "---\nkey: value: other\n",
    "---\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), max_size=12))
def test_resuming_part_by_part_reads_what_rereading_the_rest_read(parts: list[str]) -> None:
    text = "".join(parts)
    loaders: list[Any] = [yaml.SafeLoader, *([yaml.CSafeLoader] if yaml.__with_libyaml__ else [])]
    for loader in loaders:
        got = list(manifests._yaml_documents("f.yaml", text, loader))
        assert got == reference_documents("f.yaml", text, loader)


# --------------------------------------------------------------------------- not files


def test_pipes_devices_sockets_and_links_to_them_are_skipped_while_walking(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a-good.yaml").write_text("kind: A\n")
    os.mkfifo(tree / "b-pipe.yaml")
    (tree / "c-zero.yaml").symlink_to("/dev/zero")
    (tree / "d-null.yml").symlink_to("/dev/null")
    (tree / "e-pipe-link.json").symlink_to(tree / "b-pipe.yaml")
    (tree / "f-link.yaml").symlink_to(tree / "a-good.yaml")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tree / "g-socket.yaml"))
        documents = read([tree])
    finally:
        server.close()
    skipped = [(Path(d.location.file).name, d.skipped) for d in documents if d.skipped]
    note = "not a regular file: a directory walk reads only files"
    assert skipped == [
        ("b-pipe.yaml", f"a named pipe, {note}"),
        ("c-zero.yaml", f"a symbolic link to a character device, {note}"),
        ("d-null.yml", f"a symbolic link to a character device, {note}"),
        ("e-pipe-link.json", f"a symbolic link to a named pipe, {note}"),
        ("g-socket.yaml", f"a socket, {note}"),
    ]
    bodies = [(Path(d.location.file).name, d.body) for d in documents if d.body]
    assert bodies == [("a-good.yaml", {"kind": "A"}), ("f-link.yaml", {"kind": "A"})]


def _not_a_file(tmp_path: Path, what: str) -> str:
    if what == "a named pipe":
        os.mkfifo(tmp_path / "pipe")
        return str(tmp_path / "pipe")
    if what == "a character device":
        return "/dev/zero"
    return str(tmp_path)


@pytest.mark.parametrize(
    ("flag", "what", "says"),
    [
        ("--instance-types", "a named pipe", "cannot read the instance types: a named pipe"),
        ("--instance-types", "a character device", "cannot read the instance types: a character"),
        ("--config", "a named pipe", "cannot read the configuration: a named pipe"),
        ("--config", "a character device", "cannot read the configuration: a character device"),
        ("--snapshot", "a character device", "cannot read snapshot: a character device"),
        ("--snapshot", "a directory", "cannot read snapshot: a directory"),
    ],
    ids=[
        "a catalog that is a named pipe is refused, not waited on",
        "a catalog that is /dev/zero is refused",
        "a configuration that is a named pipe is refused, not waited on",
        "a configuration that is /dev/zero is refused",
        "a snapshot that is /dev/zero is refused, not read to the memory's end",
        "a snapshot that is a directory is refused",
    ],
)
def test_what_is_no_file_where_a_file_is_expected_is_one_line(
    tmp_path: Path, flag: str, what: str, says: str
) -> None:
    path = _not_a_file(tmp_path, what)
    snapshot = () if flag == "--snapshot" else ("--snapshot", AKS)  # the one snapshot given
    with deadline(10):
        code, out, err = check("check", str(tmp_path), *snapshot, flag, path)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and says in err and "not a regular file" in err


def test_a_skipped_pipe_is_a_visible_skip_in_every_report(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    os.mkfifo(tree / "pipe.yaml")
    (tree / "zero.yaml").symlink_to("/dev/zero")
    code, out, err = check("check", str(tree), "--snapshot", AKS, "--json", "-")
    assert code == 5, err  # nothing judged: no file was read
    report = json.loads(out)
    assert [(w["verdict"], w["name"], w["reason"]) for w in report["workloads"]] == [
        ("SKIPPED", f"{tree}/pipe.yaml:1",
         "a named pipe, not a regular file: a directory walk reads only files"),
        ("SKIPPED", f"{tree}/zero.yaml:1",
         "a symbolic link to a character device, not a regular file: a directory walk reads "
         "only files"),
    ]  # fmt: skip


def test_a_tree_deeper_than_the_interpreter_stack_is_walked(tmp_path: Path) -> None:
    """1,500 nested directories (3 KB of path: git holds such a tree) once ended the walk
    in RecursionError."""
    directory = tmp_path / "deep"
    directory.mkdir()
    parts = ["a"] * 1500
    deepest = directory
    for part in parts:  # os.makedirs itself recurses
        deepest = deepest / part
        deepest.mkdir()
    (deepest / "w.yaml").write_text("kind: A\n")
    try:
        (document,) = read([directory])
    finally:  # shutil.rmtree recurses too: remove the tree bottom up
        (deepest / "w.yaml").unlink()
        while deepest != directory:
            deepest.rmdir()
            deepest = deepest.parent
    assert document.body == {"kind": "A"}
    assert document.location.file == f"{directory}/{'/'.join(parts)}/w.yaml"


def test_an_endless_file_named_explicitly_stops_at_the_size_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(manifests, "MAX_FILE_BYTES", 3 * 1024 * 1024)
    (document,) = read(["/dev/zero"])
    assert document.error == "longer than 3 MiB: not read"
    assert document.location == Location("/dev/zero", 1)


def test_standard_input_past_the_size_limit_is_one_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifests, "MAX_FILE_BYTES", 1024 * 1024)
    stdin = io.BytesIO(b"kind: A\n" * 200_000)
    (document,) = list(read_documents(["-"], stdin))
    assert document.error == "longer than 1 MiB: not read"


def test_a_file_at_the_size_limit_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifests, "MAX_FILE_BYTES", 2 * 1024 * 1024)
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: " + b"x" * (2 * 1024 * 1024 - 4) + b"\n")
    (document,) = read([path])
    assert document.error is None and document.body is not None


# --------------------------------------------------------------------------- JSON

CONTAINER = {"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [CONTAINER]}}  # fmt: skip


def nested(depth: int, inner: str = '"\\udc80"') -> str:
    return "[" * depth + inner + "]" * depth


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param(json.dumps(POD)[:-2] + ', "x": ' + "7" * 5000 + "}}",
                     "a JSON number of more than 4,300 digits",
                     id="a five-thousand-digit integer is an error"),
        pytest.param('{"kind": "ConfigMap", "data": ' + nested(5000) + "}",
                     "JSON nested too deeply",
                     id="nesting past the decoder's limit is an error"),
        pytest.param('{"kind": "List", "items": [' + nested(100_000) + "]}",
                     "JSON nested too deeply",
                     id="a List item nested a hundred thousand deep is an error"),
        pytest.param('{"kind": "ConfigMap", "data": ' + nested(800) + "}", None,
                     id="arrays 800 deep with a lone surrogate are read"),
        pytest.param('{"kind": "ConfigMap", "data": {"\\ud800": ' + nested(800, "1") + "}}", None,
                     id="a lone surrogate key above deep arrays is read"),
    ],
)  # fmt: skip
def test_hostile_json_is_one_error_and_the_run_goes_on(
    tmp_path: Path, text: str, error: str | None
) -> None:
    (tmp_path / "a-hostile.json").write_text(text)
    (tmp_path / "b-pod.json").write_text(json.dumps(POD))
    code, out, err = check("check", str(tmp_path), "--snapshot", AKS, "--json", "-")
    assert code == (0 if error is None else 1) and "Traceback" not in err
    report = json.loads(out)
    verdicts = [(w["name"], w["verdict"], w.get("reason")) for w in report["workloads"]]
    pod = ("p", "YES", None)
    if error is None:
        assert verdicts == [pod]
    else:
        assert verdicts == [(f"{tmp_path}/a-hostile.json:1", "ERROR", error), pod]
        assert err == f"fitgate: {tmp_path}/a-hostile.json:1: {error}\n"


def test_lone_surrogates_deep_down_become_replacement_characters(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"kind": "ConfigMap", "data": ' + nested(800) + "}")
    (document,) = read([path])
    value: Any = document.body and document.body["data"]
    for _ in range(800):
        (value,) = value
    assert value == "\ufffd"
