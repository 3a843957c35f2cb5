"""A snapshot read from a pipe (``--snapshot <(kubectl get ...)``) or from standard input
(``--snapshot -``) is judged as the same file is: the same snapshot when it reads, and the
same message when it does not, though a pipe cannot be opened and read a second time."""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.errors import SnapshotError
from gate.inputs.manifests import STDIN_NAME
from gate.snapshot import load as load_module
from gate.snapshot.load import NOT_KEPT, load_snapshot
from tests.conftest import ROOT
from tests.deadline import deadline

FIXTURE = ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json"
MANIFESTS = str(ROOT / "fixtures" / "manifests")


def _document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return loaded


def _bad_quantity(document: dict[str, Any]) -> None:
    document["nodes"][0]["status"]["allocatable"]["cpu"] = "1x"


def _negative_cpu(document: dict[str, Any]) -> None:
    document["nodes"][0]["status"]["allocatable"]["cpu"] = "-1"


def _capture_time(document: dict[str, Any]) -> None:
    document["capturedAt"] = "not a date"


DAMAGES: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("an allocatable amount that is no quantity", _bad_quantity),
    ("a negative allocatable cpu", _negative_cpu),
    ("a capture time that is no time", _capture_time),
]


def _text(change: Callable[[dict[str, Any]], None]) -> bytes:
    document = _document()
    change(document)
    return json.dumps(document).encode()


@contextlib.contextmanager
def _pipe(tmp_path: Path, data: bytes) -> Iterator[str]:
    """A named pipe a thread writes ``data`` into, as ``<(kubectl get ...)`` gives one."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)

    def write() -> None:
        with contextlib.suppress(OSError), open(pipe, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        with deadline(60):
            yield str(pipe)
    finally:
        writer.join(10)


def _message(read: Callable[[], object]) -> str:
    with pytest.raises(SnapshotError) as raised:
        read()
    return str(raised.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize(("damage", "change"), DAMAGES, ids=[d for d, _ in DAMAGES])
def test_a_pipe_the_typed_reader_refuses_is_refused_as_its_file_is(
    tmp_path: Path, damage: str, change: Callable[[dict[str, Any]], None]
) -> None:
    path = tmp_path / "snap.json"
    path.write_bytes(_text(change))
    from_file = _message(lambda: load_snapshot(str(path)))
    with _pipe(tmp_path, path.read_bytes()) as pipe:
        from_pipe = _message(lambda: load_snapshot(pipe))
    assert from_pipe == from_file.replace(str(path), pipe, 1)
    assert "empty" not in from_pipe


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_is_read_as_its_file_is(tmp_path: Path) -> None:
    with _pipe(tmp_path, FIXTURE.read_bytes()) as pipe:
        piped = load_snapshot(pipe)
    whole = load_snapshot(str(FIXTURE))
    assert piped.nodes == whole.nodes and piped.pods == whole.pods
    assert piped.info.source == pipe


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_past_what_is_kept_says_to_write_it_to_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(load_module, "KEPT_FROM_PIPE", 1024)
    data = _text(_bad_quantity)
    assert len(data) > 1024
    with _pipe(tmp_path, data) as pipe:
        said = _message(lambda: load_snapshot(pipe))
    assert said == f"{pipe}: {NOT_KEPT}"


def _run(stdin: Any, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", *argv], Streams(stdin, out, err, env={}))
    return code, out.getvalue(), err.getvalue()


def test_standard_input_is_read_as_the_snapshot_file_is(tmp_path: Path) -> None:
    argv = (MANIFESTS, "--json", "-", "--snapshot-captured-at", "2026-08-16T10:00:00Z")
    from_file = _run(io.BytesIO(), *argv, "--snapshot", str(FIXTURE))
    from_stdin = _run(io.BytesIO(FIXTURE.read_bytes()), *argv, "--snapshot", "-")
    assert from_stdin[0] == from_file[0]
    by_file, by_stdin = json.loads(from_file[1]), json.loads(from_stdin[1])
    assert by_stdin["snapshot"]["source"] == STDIN_NAME
    for report in (by_file, by_stdin):
        del report["snapshot"]["source"]
    assert by_stdin == by_file


@pytest.mark.parametrize(("damage", "change"), DAMAGES, ids=[d for d, _ in DAMAGES])
def test_standard_input_the_typed_reader_refuses_is_refused_as_its_file_is(
    tmp_path: Path, damage: str, change: Callable[[dict[str, Any]], None]
) -> None:
    path = tmp_path / "snap.json"
    path.write_bytes(_text(change))
    code, _, from_file = _run(io.BytesIO(), MANIFESTS, "--snapshot", str(path))
    assert code == 2
    piped = _run(io.BytesIO(path.read_bytes()), MANIFESTS, "--snapshot", "-")
    assert piped == (2, "", from_file.replace(str(path), STDIN_NAME, 1))


def test_standard_input_redirected_from_a_file_is_read_again_from_where_it_stood(
    tmp_path: Path,
) -> None:
    """``--snapshot - < snap.json``: a regular file, read by the typed reader where it
    stands; the reference reader reads it again from there, not from its end."""
    path = tmp_path / "snap.json"
    path.write_bytes(b"\n" + _text(_bad_quantity))
    _, _, from_file = _run(io.BytesIO(), MANIFESTS, "--snapshot", str(path))
    with open(path, "rb") as handle:
        handle.read(1)
        piped = _run(handle, MANIFESTS, "--snapshot", "-")
    assert piped == (2, "", from_file.replace(str(path), STDIN_NAME, 1))


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("-", "--snapshot", "-"), "not for the manifests (-) too"),
        (
            (MANIFESTS, "--snapshot", "-", "--snapshot", str(FIXTURE)),
            "not for another --snapshot too",
        ),
    ],
    ids=[
        "the manifests and the snapshot both from standard input",
        "standard input joined to a file",
    ],
)
def test_standard_input_is_one_input(argv: tuple[str, ...], said: str) -> None:
    code, out, err = _run(io.BytesIO(FIXTURE.read_bytes()), *argv)
    assert (code, out) == (2, "")
    assert err == f"fitgate: --snapshot -: standard input is read once, for one input: {said}\n"


def test_empty_standard_input_is_said_to_be_empty() -> None:
    code, _, err = _run(io.BytesIO(), MANIFESTS, "--snapshot", "-")
    assert code == 2
    assert err.startswith(f"fitgate: {STDIN_NAME}: the snapshot file is empty")
