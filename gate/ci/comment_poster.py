"""Post fitgate's markdown report as one sticky pull-request comment, through GitHub's REST API.

    python -m gate.ci.comment_poster --file comment.md --repo owner/name --pr 42

The comment is found again by the hidden marker on the first line of the file
(``<!-- fitgate:<cluster> -->``, which ``fitgate check --comment`` writes): the comments of the
pull request are listed page by page, and the first one that starts with that line and was
written by ``--author`` (``github-actions[bot]`` unless told otherwise) is updated; otherwise a
new comment is created. One comment per cluster, updated in place on every push.

The token is read from ``GITHUB_TOKEN`` and the API from ``GITHUB_API_URL`` (default
``https://api.github.com``; GitHub Enterprise Server sets ``https://HOST/api/v3``). The file's
text is sent as a JSON string and nothing else is done with it: it may come from a pull
request, and is never interpreted here.

Exit codes: 0 the comment was created, updated or already up to date, or GitHub refused with
403/404 -- the token cannot write to this pull request (a pull request from a fork gets a
read-only token): that is a ``::warning::``, not a failure of the check. 2 anything else: a
bad argument, no token, an unreachable API, an unexpected answer.

``--head-sha SHA`` first checks that the pull request's head commit is SHA. A ``workflow_run``
job that posts what a pull request's run left behind should pass the run's ``head_sha``, so
a pull request cannot direct its comment at another one.

Every answer is bounded: the whole posting has ``--timeout`` seconds (:data:`DEADLINE` by
default), however the server answers (silent, or a byte at a time), and an answer longer
than :data:`MAX_ANSWER_BYTES` is refused without being held. Past either bound the poster
says so in one line and exits 2.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from email.message import Message
from http.client import HTTPMessage
from typing import IO, Any, NoReturn

from gate import __version__
from gate.deadline import read_capped, within
from gate.model import COMMENT_LIMIT

DEFAULT_API = "https://api.github.com"
DEFAULT_AUTHOR = "github-actions[bot]"
PER_PAGE = 100
MAX_PAGES = 100  # 10,000 comments: far past any real pull request, and a bound on the loop
TIMEOUT = 30.0  # seconds one read or write of the socket may take
DEADLINE = 120.0  # seconds for the whole posting, every request included
MAX_ANSWER_BYTES = 64 * 1024 * 1024  # a page of 100 of the longest comments fits
MARKER = re.compile(r"<!-- fitgate:[^\n]*? -->")
REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
SHA = re.compile(r"[0-9a-f]{7,64}")
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class CommentError(Exception):
    """The comment could not be posted (exit 2)."""


class NoPermission(Exception):
    """GitHub answered 403 or 404 for a write: the token may not comment here (exit 0)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    action: str  # "created", "updated" or "unchanged"
    comment_id: int
    url: str


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect (a renamed repository) only within the API's host, so the token
    in the Authorization header is never sent anywhere else."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        if _origin(newurl) != _origin(req.full_url):
            return None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _github_message(body: bytes) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip()[:200]
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])[:200]
    return ""


class GitHub:
    """The few REST calls the sticky comment needs, over ``urllib`` and JSON only, within
    ``deadline`` seconds from its creation for all of them together."""

    def __init__(
        self,
        api_url: str,
        token: str,
        deadline: float = DEADLINE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        scheme, host = _origin(api_url)
        if scheme not in ("http", "https") or not host:
            raise CommentError(f"GITHUB_API_URL {api_url!r} is not an http(s) URL")
        self.api_url = api_url.rstrip("/")
        self.deadline = deadline
        self._token = token
        self._clock = clock
        self._ends_at = clock() + deadline
        self._opener = urllib.request.build_opener(_SameOriginRedirects())

    def _time_left(self, what: str) -> float:
        left = self._ends_at - self._clock()
        if left <= 0:
            raise CommentError(f"{what}: no complete answer within {self.deadline:g} s")
        return left

    def call(self, method: str, url: str, payload: Any = None) -> tuple[Any, Message]:
        """One request; the decoded JSON answer and the response headers."""
        if not url.startswith(("http://", "https://")):
            url = self.api_url + url
        if _origin(url) != _origin(self.api_url):
            raise CommentError(f"refusing to send the token to {url!r}: not the API's host")
        what = f"{method} {url}"
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("Authorization", f"Bearer {self._token}")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", f"fitgate/{__version__}")
        if data is not None:
            request.add_header("Content-Type", "application/json; charset=utf-8")
        timeout = min(TIMEOUT, self._time_left(what))
        try:
            with self._opener.open(request, timeout=timeout) as response:
                body = self._read(response, what)
                headers = response.headers
        except urllib.error.HTTPError as exc:
            with exc:
                message = _github_message(self._read(exc.fp, what) if exc.fp else b"")
            status = f"HTTP {exc.code}" + (f": {message}" if message else "")
            if exc.code in (403, 404):
                raise NoPermission(f"{what}: {status}") from None
            raise CommentError(f"{what}: {status}") from None
        except urllib.error.URLError as exc:
            raise CommentError(f"cannot reach {self.api_url}: {exc.reason}") from None
        except (OSError, http.client.HTTPException) as exc:  # a timeout, a reset connection
            self._time_left(what)
            raise CommentError(f"cannot reach {self.api_url}: {exc}") from None
        try:
            return (json.loads(body) if body else None), headers
        except ValueError:
            raise CommentError(f"{what}: the answer is not JSON") from None

    def _read(self, stream: IO[bytes], what: str) -> bytes:
        """The answer's body, read as it arrives: refused past :data:`MAX_ANSWER_BYTES`
        or past the deadline, never read whole first."""
        limit = MAX_ANSWER_BYTES
        return read_capped(
            getattr(stream, "read1", stream.read),
            limit,
            lambda: CommentError(f"{what}: the answer is longer than {limit // 2**20} MiB"),
            lambda: self._time_left(what),
        )

    def comments(self, repo: str, pr: int) -> list[dict[str, Any]]:
        """Every comment of the pull request's conversation, following ``Link: rel=next``."""
        url: str | None = f"/repos/{repo}/issues/{pr}/comments?per_page={PER_PAGE}"
        found: list[dict[str, Any]] = []
        for _ in range(MAX_PAGES):
            if url is None:
                return found
            page, headers = self.call("GET", url)
            if not isinstance(page, list):
                raise CommentError(f"listing the comments of #{pr}: expected a JSON list")
            found.extend(c for c in page if isinstance(c, dict))
            match = _NEXT.search(headers.get("Link") or "")
            url = match.group(1) if match else None
        raise CommentError(f"#{pr} has more than {MAX_PAGES * PER_PAGE} comments")

    def head_sha(self, repo: str, pr: int) -> str:
        pull, _ = self.call("GET", f"/repos/{repo}/pulls/{pr}")
        head = pull.get("head") if isinstance(pull, dict) else None
        sha = head.get("sha") if isinstance(head, dict) else None
        if not isinstance(sha, str):
            raise CommentError(f"pull request #{pr}: the answer has no head.sha")
        return sha


def first_line_marker(body: str) -> str:
    """The hidden marker that opens every fitgate comment, or CommentError."""
    first = body.split("\n", 1)[0].rstrip("\r")
    if not MARKER.fullmatch(first):
        raise CommentError(
            "the comment's first line is not fitgate's marker "
            "'<!-- fitgate:<cluster> -->' (write the file with fitgate check --comment)"
        )
    return first


def _is_ours(comment: Mapping[str, Any], marker: str, author: str) -> bool:
    body = comment.get("body")
    if not isinstance(body, str) or body.split("\n", 1)[0].rstrip("\r") != marker:
        return False
    user = comment.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return not author or login == author


def post_comment(
    github: GitHub,
    repo: str,
    pr: int,
    body: str,
    author: str = DEFAULT_AUTHOR,
    head_sha: str | None = None,
) -> Outcome:
    """Create the sticky comment, or update the one that carries the same marker."""
    marker = first_line_marker(body)
    if len(body) > COMMENT_LIMIT:
        raise CommentError(f"the comment has {len(body)} characters; GitHub takes {COMMENT_LIMIT}")
    if head_sha is not None:
        actual = github.head_sha(repo, pr)
        if actual.lower() != head_sha.lower():
            raise CommentError(
                f"pull request #{pr} is at {actual}, not at {head_sha}: not commenting"
            )
    existing = next((c for c in github.comments(repo, pr) if _is_ours(c, marker, author)), None)
    if existing is not None:
        comment_id = existing.get("id")
        if not isinstance(comment_id, int):
            raise CommentError("a listed comment has no numeric id")
        url = str(existing.get("html_url") or "")
        if existing.get("body") == body:
            return Outcome("unchanged", comment_id, url)
        updated, _ = github.call(
            "PATCH", f"/repos/{repo}/issues/comments/{comment_id}", {"body": body}
        )
        return Outcome("updated", comment_id, _url(updated, url))
    created, _ = github.call("POST", f"/repos/{repo}/issues/{pr}/comments", {"body": body})
    new_id = created.get("id") if isinstance(created, dict) else None
    if not isinstance(new_id, int):
        raise CommentError("GitHub's answer to creating the comment has no id")
    return Outcome("created", new_id, _url(created, ""))


def _url(answer: Any, default: str) -> str:
    url = answer.get("html_url") if isinstance(answer, dict) else None
    return url if isinstance(url, str) else default


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CommentError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m gate.ci.comment_poster",
        description="Create or update fitgate's sticky pull-request comment.",
    )
    parser.add_argument("--file", required=True, help="the markdown written by --comment")
    parser.add_argument("--repo", required=True, help="owner/name")
    parser.add_argument("--pr", required=True, type=int, help="pull request number")
    parser.add_argument(
        "--head-sha", help="comment only if the pull request's head commit is this one"
    )
    parser.add_argument(
        "--author",
        default=DEFAULT_AUTHOR,
        help=f"update only a comment by this login (default {DEFAULT_AUTHOR}; '' = anyone)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEADLINE,
        metavar="SECONDS",
        help=f"give up after this long, every request included (default {DEADLINE:g})",
    )
    return parser


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= 86_400:
        raise argparse.ArgumentTypeError(f"{text[:20]!r}: expected seconds, from 0 to 86400")
    return seconds


def _within(deadline: float, work: Callable[[], Outcome]) -> Outcome:
    """``work()``, or CommentError once ``deadline`` seconds have passed without its end.

    Each request also checks the deadline itself between reads, but one read may wait for
    a socket timeout; the work runs apart (:func:`gate.deadline.within`), so that a server
    that answers a byte at a time cannot hold the poster (or the job) past the deadline. A
    late answer is dropped: the work checks the deadline before each request, so nothing is
    written after it.
    """
    return within(
        deadline, work, lambda: CommentError(f"no complete answer within {deadline:g} s: giving up")
    )


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise CommentError(f"{path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CommentError(f"{path}: not UTF-8 text") from None


def main(
    argv: Sequence[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    env = os.environ if env is None else env
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    pr = 0
    try:
        options = build_parser().parse_args(argv)
        pr = options.pr
        if not REPO.fullmatch(options.repo):
            raise CommentError(f"--repo {options.repo!r}: expected owner/name")
        if pr <= 0:
            raise CommentError(f"--pr {pr}: expected a pull request number")
        if options.head_sha is not None and not SHA.fullmatch(options.head_sha.lower()):
            raise CommentError(f"--head-sha {options.head_sha!r}: expected a commit SHA")
        token = env.get("GITHUB_TOKEN", "")
        if not token:
            raise CommentError("GITHUB_TOKEN is not set")
        body = _read(options.file)
        github = GitHub(env.get("GITHUB_API_URL") or DEFAULT_API, token, options.timeout)
        outcome = _within(
            options.timeout,
            lambda: post_comment(github, options.repo, pr, body, options.author, options.head_sha),
        )
    except NoPermission as exc:
        out.write(
            f"::warning title=fitgate::no comment posted on #{pr}: {exc}. The token cannot "
            "write to this pull request (pull requests from forks get a read-only token); "
            "post from a workflow_run job instead\n"
        )
        return 0
    except CommentError as exc:
        err.write(f"fitgate: comment: {exc}\n")
        return 2
    out.write(f"fitgate: comment {outcome.action}: {outcome.url or outcome.comment_id}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
