"""The comment poster against servers that misbehave: silent, answering a byte at a time,
or sending an endless answer. Each run ends within its ``--timeout`` (or at the answer
cap) with one line and exit 2. The servers listen on 127.0.0.1 only, accept a bounded
number of connections and stop by themselves."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gate.ci import comment_poster
from gate.ci.comment_poster import main
from tests.deadline import deadline

REPORT = "<!-- fitgate:aks-prod -->\n### fitgate passed on aks-prod\n"
Behaviour = Callable[[socket.socket, threading.Event], None]


def _pause(stop: threading.Event, seconds: float) -> bool:
    """Wait; False once the server is stopping."""
    return not stop.wait(seconds)


def silent(connection: socket.socket, stop: threading.Event) -> None:
    while _pause(stop, 0.05):
        pass


def dripping_headers(connection: socket.socket, stop: threading.Event) -> None:
    connection.sendall(b"HTTP/1.1 200 OK\r\nX-Drip: ")
    while _pause(stop, 0.05):
        connection.sendall(b"a")


def dripping_body(connection: socket.socket, stop: threading.Event) -> None:
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 1000000\r\n\r\n[")  # fmt: skip
    while _pause(stop, 0.05):
        connection.sendall(b" ")


def _endless(connection: socket.socket, stop: threading.Event, head: bytes, piece: bytes) -> None:
    connection.sendall(head)
    while not stop.is_set():
        connection.sendall(piece)


def endless_body(connection: socket.socket, stop: threading.Event) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n"  # ten GB announced
    _endless(connection, stop, head, b" " * 65536)


def endless_chunks(connection: socket.socket, stop: threading.Event) -> None:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    _endless(connection, stop, head, b"10000\r\n" + b" " * 65536 + b"\r\n")


def endless_error(connection: socket.socket, stop: threading.Event) -> None:
    head = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 10000000000\r\n\r\n"
    _endless(connection, stop, head, b"x" * 65536)


@contextmanager
def misbehaving_server(behaviour: Behaviour, lifetime: float) -> Iterator[str]:
    """Serve ``behaviour`` on 127.0.0.1 to at most 8 connections, for ``lifetime`` seconds
    at most, or until the block is left; then wait for every connection's thread."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    stop = threading.Event()
    handlers: list[threading.Thread] = []

    def handle(connection: socket.socket) -> None:
        with connection:
            try:
                connection.settimeout(2)
                request = b""
                while b"\r\n\r\n" not in request and len(request) < 65536:
                    received = connection.recv(4096)
                    if not received:
                        return
                    request += received
                behaviour(connection, stop)
            except OSError:  # the client gave up: what these servers are for
                pass

    def serve() -> None:
        with listener:
            while not stop.is_set() and len(handlers) < 8:
                try:
                    connection, _ = listener.accept()
                except TimeoutError:
                    continue
                handler = threading.Thread(target=handle, args=(connection,), daemon=True)
                handlers.append(handler)
                handler.start()

    server = threading.Thread(target=serve, daemon=True)
    timer = threading.Timer(lifetime, stop.set)
    server.start()
    timer.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        timer.cancel()
        server.join(5)
        for handler in handlers:
            handler.join(5)
        _wait_for_posting_threads()


def _wait_for_posting_threads() -> None:
    """A poster that gave up leaves its worker blocked on the server; the server is gone
    now, so it ends: wait for it, so that its socket is not left to a later test."""
    for thread in threading.enumerate():
        if thread.name == "fitgate-comment":
            thread.join(5)


def post(tmp_path: Path, api: str, timeout: str) -> tuple[int, str, str, float]:
    path = tmp_path / "comment.md"
    path.write_text(REPORT, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    argv = ["--file", str(path), "--repo", "acme/platform", "--pr", "42", "--timeout", timeout]
    started = time.monotonic()
    with deadline(20):
        code = main(argv, env={"GITHUB_TOKEN": "t", "GITHUB_API_URL": api}, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue(), time.monotonic() - started


@pytest.mark.parametrize(
    "behaviour",
    [silent, dripping_headers, dripping_body],
    ids=["a silent server", "headers a byte at a time", "a body a byte at a time"],
)
def test_a_slow_server_is_given_up_at_the_deadline(tmp_path: Path, behaviour: Behaviour) -> None:
    with misbehaving_server(behaviour, lifetime=3) as api:
        code, out, err, took = post(tmp_path, api, "1")
    assert (code, out) == (2, "")
    assert err.startswith("fitgate: comment: ") and err.count("\n") == 1
    assert "no complete answer within 1 s" in err
    assert took < 2.5


@pytest.mark.parametrize(
    ("behaviour", "says"),
    [
        (endless_body, "the answer is longer than 1 MiB"),
        (endless_chunks, "the answer is longer than 1 MiB"),
        (endless_error, "the answer is longer than 1 MiB"),
    ],
    ids=["ten GB announced", "endless chunks", "an endless error page"],
)
def test_an_endless_answer_is_refused_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, behaviour: Behaviour, says: str
) -> None:
    monkeypatch.setattr(comment_poster, "MAX_ANSWER_BYTES", 1024 * 1024)
    with misbehaving_server(behaviour, lifetime=10) as api:
        code, out, err, took = post(tmp_path, api, "10")
        assert (code, out) == (2, "")
        assert err.count("\n") == 1 and says in err
        assert took < 5


@pytest.mark.parametrize("text", ["0", "-1", "1e9", "soon", "nan"])
def test_a_timeout_that_is_not_a_duration_is_refused(tmp_path: Path, text: str) -> None:
    code, _, err, _ = post(tmp_path, "http://127.0.0.1:9", text)
    assert code == 2 and "expected seconds, from 0 to 86400" in err and err.count("\n") == 1
