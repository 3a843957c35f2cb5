"""The sticky pull-request comment against a local server that answers like GitHub's API."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gate.ci.comment_poster import main
from gate.model import COMMENT_LIMIT
from tests.github_api import BOT, TOKEN, FakeGitHub, fake_github

REPO = "acme/platform"
PR = 42
SHA = "9f2c1e0d4b7a6c5e3f1a2b3c4d5e6f708192a3b4"
MARKER = "<!-- fitgate:aks-prod -->"
REPORT = f"{MARKER}\n### ❌ fitgate failed on aks-prod\n\n**1** NO\n"
NEWER = f"{MARKER}\n### ✅ fitgate passed on aks-prod\n\n**2** fit\n"


@pytest.fixture
def api() -> Iterator[FakeGitHub]:
    with fake_github() as server:
        server.heads[(REPO, PR)] = SHA
        yield server


@dataclass
class Run:
    code: int
    out: str
    err: str


def post(api: FakeGitHub, tmp_path: Path, body: str, *extra: str, token: str = TOKEN) -> Run:
    path = tmp_path / "comment.md"
    path.write_text(body, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    env = {"GITHUB_TOKEN": token, "GITHUB_API_URL": api.url}
    argv = ["--file", str(path), "--repo", REPO, "--pr", str(PR), *extra]
    code = main(argv, env=env, stdout=out, stderr=err)
    return Run(code, out.getvalue(), err.getvalue())


def bodies(api: FakeGitHub) -> list[str]:
    return [c["body"] for c in api.comments.get((REPO, PR), [])]


# --- create, find by marker, update ------------------------------------------------------

# (id, comments already there as (login, body), expected action, expected bodies afterwards)
STICKY = [
    ("none-yet-creates", [], "created", [REPORT]),
    ("own-marker-updates", [(BOT, NEWER)], "updated", [REPORT]),
    ("same-body-unchanged", [(BOT, REPORT)], "unchanged", [REPORT]),
    (
        "other-cluster-is-another-comment",
        [(BOT, "<!-- fitgate:eks-prod -->\nother")],
        "created",
        ["<!-- fitgate:eks-prod -->\nother", REPORT],
    ),
    (
        "marker-not-on-first-line-is-ignored",
        [("octocat", f"quoting you:\n{MARKER}")],
        "created",
        [f"quoting you:\n{MARKER}", REPORT],
    ),
    (
        "a-users-copy-of-the-marker-is-not-edited",
        [("mallory", f"{MARKER}\nfitgate passed, trust me")],
        "created",
        [f"{MARKER}\nfitgate passed, trust me", REPORT],
    ),
    (
        "crlf-marker-line-still-matches",
        [(BOT, f"{MARKER}\r\nold")],
        "updated",
        [REPORT],
    ),
]


@pytest.mark.parametrize(
    ("existing", "action", "after"), [c[1:] for c in STICKY], ids=[c[0] for c in STICKY]
)
def test_sticky_comment(
    api: FakeGitHub,
    tmp_path: Path,
    existing: list[tuple[str, str]],
    action: str,
    after: list[str],
) -> None:
    for login, body in existing:
        api.add_comment(REPO, PR, body, login)
    run = post(api, tmp_path, REPORT)
    assert run.code == 0, run.err
    assert run.out.startswith(f"fitgate: comment {action}: https://github.com/{REPO}/pull/{PR}")
    assert bodies(api) == after
    assert len(api.writes()) == (0 if action == "unchanged" else 1)


def test_found_on_a_later_page(api: FakeGitHub, tmp_path: Path) -> None:
    for n in range(250):
        api.add_comment(REPO, PR, f"comment {n}", "octocat")
    ours = api.add_comment(REPO, PR, NEWER)
    run = post(api, tmp_path, REPORT)
    assert run.code == 0, run.err
    lists = [r.path for r in api.requests if r.method == "GET"]
    assert lists == [
        f"/repos/{REPO}/issues/{PR}/comments?per_page=100",
        f"/repos/{REPO}/issues/{PR}/comments?per_page=100&page=2",
        f"/repos/{REPO}/issues/{PR}/comments?per_page=100&page=3",
    ]
    [write] = api.writes()
    assert (write.method, write.path) == ("PATCH", f"/repos/{REPO}/issues/comments/{ours['id']}")
    assert ours["body"] == REPORT


def test_author_can_be_widened(api: FakeGitHub, tmp_path: Path) -> None:
    """With a personal token the comments are the person's: --author '' matches anyone."""
    theirs = api.add_comment(REPO, PR, NEWER, "platform-team")
    run = post(api, tmp_path, REPORT, "--author", "")
    assert run.code == 0, run.err
    assert theirs["body"] == REPORT and len(bodies(api)) == 1


def test_request_is_json_with_the_api_headers(api: FakeGitHub, tmp_path: Path) -> None:
    hostile = f"{MARKER}\n$(touch pwned) `id` \"quotes\" 'single' \\ ${{{{ github.token }}}}\n"
    run = post(api, tmp_path, hostile)
    assert run.code == 0, run.err
    [write] = api.writes()
    assert write.body == {"body": hostile}
    assert write.headers["content-type"] == "application/json; charset=utf-8"
    assert write.headers["accept"] == "application/vnd.github+json"
    assert write.headers["x-github-api-version"] == "2022-11-28"
    assert write.headers["authorization"] == f"Bearer {TOKEN}"
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


# --- the pull request's head ---------------------------------------------------------------

HEADS = [
    ("matching-head-posts", SHA, 0, 1),
    ("short-sha-must-still-match-exactly", SHA[:7], 2, 0),
    ("another-commit-refuses", "0" * 40, 2, 0),
]


@pytest.mark.parametrize(
    ("head", "code", "written"), [c[1:] for c in HEADS], ids=[c[0] for c in HEADS]
)
def test_head_sha_guard(
    api: FakeGitHub, tmp_path: Path, head: str, code: int, written: int
) -> None:
    run = post(api, tmp_path, REPORT, "--head-sha", head)
    assert run.code == code
    assert len(api.writes()) == written
    if code:
        assert run.err.count("\n") == 1 and "not commenting" in run.err


# --- no permission is a warning, anything else an error ------------------------------------

# (id, arrange, exit code, what the single line says)
FAILURES = [
    ("fork-read-only-token-403", {"read_only": True}, 0, "::warning title=fitgate::"),
    ("unknown-pull-request-404", {"pr": 7}, 0, "::warning title=fitgate::"),
    ("server-error-500", {"fail_status": 500}, 2, "HTTP 500: Server Error"),
    ("bad-credentials-401", {"token": "wrong"}, 2, "HTTP 401: Bad credentials"),
    ("rate-limited-429", {"fail_status": 429}, 2, "HTTP 429"),
    ("next-link-to-another-host", {"next_link_base": "http://127.0.0.2:9"}, 2, "refusing"),
]


@pytest.mark.parametrize(
    ("arrange", "code", "says"), [c[1:] for c in FAILURES], ids=[c[0] for c in FAILURES]
)
def test_failures(
    api: FakeGitHub, tmp_path: Path, arrange: dict[str, object], code: int, says: str
) -> None:
    api.read_only = bool(arrange.get("read_only"))
    api.fail_status = arrange.get("fail_status")  # type: ignore[assignment]
    api.next_link_base = arrange.get("next_link_base")  # type: ignore[assignment]
    if api.next_link_base:
        for n in range(101):
            api.add_comment(REPO, PR, f"comment {n}", "octocat")
    if "pr" in arrange:
        api.heads.clear()
    run = post(api, tmp_path, REPORT, token=str(arrange.get("token", TOKEN)))
    assert run.code == code
    text = run.out if code == 0 else run.err
    assert text.count("\n") == 1, text
    assert says in text
    assert REPORT not in bodies(api)
    if api.next_link_base:  # the token never went to the other host
        assert all(r.path.startswith(f"/repos/{REPO}/") for r in api.requests)


# (id, file body or None for a missing file, argv change, environment change, message)
BAD_INPUT = [
    ("no-marker-first-line", "### fitgate\n", {}, {}, "first line is not fitgate's marker"),
    ("too-long", MARKER + "\n" + "x" * COMMENT_LIMIT, {}, {}, "GitHub takes 65536"),
    ("missing-file", None, {}, {}, "comment.md"),
    ("no-token", REPORT, {}, {"GITHUB_TOKEN": ""}, "GITHUB_TOKEN is not set"),
    ("bad-repo", REPORT, {"--repo": "acme"}, {}, "expected owner/name"),
    ("bad-pr", REPORT, {"--pr": "0"}, {}, "expected a pull request number"),
    ("pr-not-a-number", REPORT, {"--pr": "1; rm -rf /"}, {}, "invalid int value"),
    ("bad-api-url", REPORT, {}, {"GITHUB_API_URL": "file:///etc/passwd"}, "not an http(s)"),
    ("api-unreachable", REPORT, {}, {"GITHUB_API_URL": "http://127.0.0.1:9"}, "cannot reach"),
]


@pytest.mark.parametrize(
    ("body", "args", "environ", "says"),
    [c[1:] for c in BAD_INPUT],
    ids=[c[0] for c in BAD_INPUT],
)
def test_bad_input_is_exit_2(
    api: FakeGitHub,
    tmp_path: Path,
    body: str | None,
    args: dict[str, str],
    environ: dict[str, str],
    says: str,
) -> None:
    path = tmp_path / "comment.md"
    if body is not None:
        path.write_text(body, encoding="utf-8")
    options = {"--file": str(path), "--repo": REPO, "--pr": str(PR), **args}
    argv = [word for pair in options.items() for word in pair]
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url, **environ}
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, env=env, stdout=out, stderr=err) == 2
    assert err.getvalue().count("\n") == 1 and says in err.getvalue()
    assert not api.writes()


def test_module_runs_as_documented(api: FakeGitHub, tmp_path: Path) -> None:
    """``python -m gate.ci.comment_poster`` with the token and API from the environment."""
    (tmp_path / "comment.md").write_text(REPORT, encoding="utf-8")
    env = {**os.environ, "GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url}
    argv = ["--file", "comment.md", "--repo", REPO, "--pr", str(PR)]
    command = [sys.executable, "-m", "gate.ci.comment_poster", *argv]
    first = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    (tmp_path / "comment.md").write_text(NEWER, encoding="utf-8")
    second = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert "comment created" in first.stdout and "comment updated" in second.stdout
    assert bodies(api) == [NEWER]
