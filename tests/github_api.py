"""A small stand-in for GitHub's REST API on 127.0.0.1, for the sticky-comment tests.

It answers the calls ``gate.ci.comment_poster`` makes the way GitHub does: bearer-token auth
(401 "Bad credentials"), the issue-comments list paginated with ``per_page``/``page`` and a
``Link: <...>; rel="next"`` header, POST to create (201), PATCH to update (200), a pull
request's ``head.sha``, and 403 "Resource not accessible by integration" for writes with a
read-only token, as a pull request from a fork gets. Every request is recorded.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "ghs_test-token"
BOT = "github-actions[bot]"

_LIST = re.compile(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments")
_ONE = re.compile(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)")
_PULL = re.compile(r"/repos/([^/]+/[^/]+)/pulls/(\d+)")


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]  # names in lower case: HTTP header names ignore case
    body: Any


@dataclass
class FakeGitHub:
    """The API's state: what tests arrange before a call and read afterwards."""

    url: str = ""
    read_only: bool = False  # writes answer 403, as for a fork's pull request
    fail_status: int | None = None  # every request answers this status
    next_link_base: str | None = None  # send rel="next" links to another origin
    comments: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    heads: dict[tuple[str, int], str] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    _next_id: int = 1000

    def add_comment(self, repo: str, pr: int, body: str, login: str = BOT) -> dict[str, Any]:
        self._next_id += 1
        comment = {
            "id": self._next_id,
            "body": body,
            "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
            "html_url": f"https://github.com/{repo}/pull/{pr}#issuecomment-{self._next_id}",
        }
        self.comments.setdefault((repo, pr), []).append(comment)
        return comment

    def writes(self) -> list[Recorded]:
        return [r for r in self.requests if r.method in ("POST", "PATCH")]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _handle(self) -> None:
        api = self.server.api
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        parts = urlsplit(self.path)
        headers = {name.lower(): value for name, value in self.headers.items()}
        api.requests.append(Recorded(self.command, self.path, headers, body))
        if api.fail_status is not None:
            self._send(api.fail_status, {"message": "Server Error"})
            return
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self._send(401, {"message": "Bad credentials"})
            return
        if self.command in ("POST", "PATCH") and api.read_only:
            self._send(403, {"message": "Resource not accessible by integration"})
            return
        if match := _LIST.fullmatch(parts.path):
            self._comments(match.group(1), int(match.group(2)), parse_qs(parts.query), body)
        elif (match := _ONE.fullmatch(parts.path)) and self.command == "PATCH":
            self._update(match.group(1), int(match.group(2)), body)
        elif (match := _PULL.fullmatch(parts.path)) and self.command == "GET":
            head = api.heads.get((match.group(1), int(match.group(2))))
            if head is None:
                self._send(404, {"message": "Not Found"})
            else:
                self._send(200, {"number": int(match.group(2)), "head": {"sha": head}})
        else:
            self._send(404, {"message": "Not Found"})

    def _comments(self, repo: str, pr: int, query: dict[str, list[str]], body: Any) -> None:
        api = self.server.api
        if (repo, pr) not in api.heads:
            self._send(404, {"message": "Not Found"})
            return
        if self.command == "POST":
            self._send(201, api.add_comment(repo, pr, body["body"]))
            return
        per_page = min(int(query.get("per_page", ["30"])[0]), 100)
        page = int(query.get("page", ["1"])[0])
        everything = api.comments.get((repo, pr), [])
        chunk = everything[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(everything):
            base = api.next_link_base or api.url
            link = f"{base}/repos/{repo}/issues/{pr}/comments?per_page={per_page}&page={page + 1}"
            headers["Link"] = f'<{link}>; rel="next", <{link}>; rel="last"'
        self._send(200, chunk, headers)

    def _update(self, repo: str, comment_id: int, body: Any) -> None:
        for (owner_repo, _), comments in self.server.api.comments.items():
            for comment in comments:
                if comment["id"] == comment_id and owner_repo == repo:
                    comment["body"] = body["body"]
                    self._send(200, comment)
                    return
        self._send(404, {"message": "Not Found"})

    do_GET = do_POST = do_PATCH = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, api: FakeGitHub) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.api = api


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    """Serve a fresh FakeGitHub on 127.0.0.1 for the duration of the block."""
    api = FakeGitHub()
    server = _Server(api)
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
