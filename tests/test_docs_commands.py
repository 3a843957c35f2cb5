"""Every command line the README and docs/*.md show a user (``fitgate ...``, the image's
``docker run ... fitgate:TAG ...``, the comment poster) parses with the real argument
parser; every file of the repository such a command names is there, a file where one is
read; and the commands that need nothing but the repository run, as a user would paste them.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gate.ci import comment_poster
from gate.cli import build_parser
from tests.conftest import ROOT
from tests.test_cli import run

PAGES = ("README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))
SEPARATORS = frozenset({"|", "||", "&&", ";", "&", "(", ")"})
REDIRECTS = frozenset({">", ">>", "<", "&>"})
POSTER = ("python", "-m", "gate.ci.comment_poster")
FILE_OPTIONS = frozenset(
    {"--snapshot", "--instance-types", "--config", "--baseline", "--comment-template"}
)
"""The options whose value is a file read: a folder there is refused (``--instance-types``
takes a file, not a folder of them)."""
FOLDER_OPTIONS = frozenset({"--origin-root"})
REPORT_FILES = ("json", "junit", "comment", "summary", "sarif")
REPOSITORY_FOLDERS = ("fixtures/", "examples/", "tests/", "benchmarks/", "gate/")
"""A path beginning with one of these names the repository's own file, which must be there;
any other (``deploy/``, ``snapshot.json``) stands for the reader's."""


@dataclass(frozen=True, slots=True)
class Shown:
    """One command a page shows: where, and its words from the program's name on."""

    page: str
    line: int
    words: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}: {' '.join(self.words)[:70]}"


def _blocks(text: str) -> Iterator[tuple[int, str]]:
    """Each fenced ``sh`` block's first line number and its text."""
    for match in re.finditer(r"^\s*```sh\n(.*?)^\s*```", text, flags=re.DOTALL | re.MULTILINE):
        yield text.count("\n", 0, match.start(1)) + 1, match.group(1)


def _statements(block: str) -> Iterator[tuple[int, str]]:
    """The block's statements with their offset in lines: a backslash at the end of a line,
    or a pipe or ``&&`` ending it, continues the statement on the next."""
    start, parts = 0, list[str]()
    for offset, line in enumerate(block.splitlines()):
        if not parts:
            start = offset
        stripped = line.split(" #", 1)[0].rstrip() if not line.lstrip().startswith("#") else ""
        if stripped.endswith("\\"):
            parts.append(stripped[:-1])
            continue
        parts.append(stripped)
        if stripped.endswith(("|", "&&")):
            continue
        yield start, " ".join(parts)
        parts = []
    if parts:
        yield start, " ".join(parts)


def _commands(statement: str) -> Iterator[list[str]]:
    """The simple commands of a shell statement, each without its redirections."""
    # A descriptor before a redirection (``2>``) is not a word of the command.
    statement = re.sub(r"(?<=\s)\d+(?=>)", "", statement)
    lexer = shlex.shlex(statement, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    redirected = False
    for token in lexer:
        if redirected:
            redirected = False
        elif token in SEPARATORS:
            if words:
                yield words
            words = []
        elif token in REDIRECTS:
            redirected = True
        else:
            words.append(token)
    if words:
        yield words


def _program(words: list[str]) -> tuple[str, ...] | None:
    """The words from ``fitgate`` on (the image's ``fitgate:TAG`` as ``fitgate``), or from
    the comment poster on, after any environment assignments; None for any other program."""
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        words = words[1:]
    if words[:1] == ["fitgate"] or tuple(words[:3]) == POSTER:
        return tuple(words)
    if words[:2] == ["docker", "run"]:
        image = next((i for i, w in enumerate(words) if w.startswith("fitgate:")), None)
        if image is not None:
            return ("fitgate", *words[image + 1 :])
    return None


def shown_commands() -> list[Shown]:
    found = []
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for first, block in _blocks(text):
            for offset, statement in _statements(block):
                for words in _commands(statement):
                    program = _program(words)
                    if program is not None:
                        found.append(Shown(page, first + offset, program))
    return found


SHOWN = shown_commands()
FITGATE = [c for c in SHOWN if c.words[0] == "fitgate"]


def _parsed(shown: Shown) -> argparse.Namespace:
    if shown.words[:3] == POSTER:
        return comment_poster.build_parser().parse_args(shown.words[3:])
    options, unknown = build_parser().parse_known_args(shown.words[1:])
    assert unknown == []
    return options


def test_the_pages_show_commands_of_every_kind() -> None:
    """The collection itself: a page's commands are found, the image's and the poster's too."""
    programs = {c.words[0] if c.words[0] == "fitgate" else c.words[2] for c in SHOWN}
    assert programs == {"fitgate", "gate.ci.comment_poster"}
    subcommands = {c.words[1] for c in FITGATE}
    assert {"check", "snapshot"} <= subcommands
    assert {c.page for c in FITGATE} >= {"README.md", "docs/reference.md", "docs/karpenter.md"}
    assert any(c.page == "README.md" and "-" in c.words for c in FITGATE)  # a pipe into check


@pytest.mark.parametrize("shown", SHOWN, ids=[c.id for c in SHOWN])
def test_every_command_shown_parses(shown: Shown) -> None:
    _parsed(shown)


def _paths(shown: Shown) -> Iterator[tuple[str, Callable[[Path], bool]]]:
    """Each path the command names, with what it must be."""
    options = _parsed(shown)
    for option in FILE_OPTIONS | FOLDER_OPTIONS:
        values = getattr(options, option[2:].replace("-", "_"), None)
        for value in values if isinstance(values, list) else [values]:
            if isinstance(value, str):
                yield value, Path.is_dir if option in FOLDER_OPTIONS else Path.is_file
    for value in getattr(options, "paths", None) or []:
        yield str(value), Path.exists


def test_every_repository_file_a_command_names_is_there_and_of_its_kind() -> None:
    wrong = [
        f"{shown.id}: {path}"
        for shown in FITGATE
        for path, kind in _paths(shown)
        if path.startswith(REPOSITORY_FOLDERS) and not kind(ROOT / path)
    ]
    assert wrong == []


def _runnable(shown: Shown) -> bool:
    """A check that reads only the repository: no standard input, no cluster, no output file."""
    words = shown.words
    if words[1] != "check" or "-" in words or "--snapshot" not in words:
        return False
    options = _parsed(shown)
    if any(getattr(options, report) for report in REPORT_FILES):
        return False
    named = [path for path, _ in _paths(shown)]
    return bool(named) and all(path.startswith(REPOSITORY_FOLDERS) for path in named)


RUNNABLE = [c for c in FITGATE if _runnable(c)]


def test_the_runnable_commands_are_the_fixtures_checks() -> None:
    assert len(RUNNABLE) >= 4
    assert all(c.words[2].startswith("fixtures/") for c in RUNNABLE)


@pytest.mark.parametrize("shown", RUNNABLE, ids=[c.id for c in RUNNABLE])
def test_a_fixtures_check_shown_runs_and_judges(
    shown: Shown, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pasted at the repository's root, it judges its workloads: never a usage error, an
    unreadable input or an empty run, and nothing on standard error."""
    monkeypatch.chdir(ROOT)
    code, out, err = run(*shown.words[1:])
    assert (code, err) in {(0, ""), (1, "")}
    assert re.search(r"^\d+ workload\(s\): ", out, flags=re.MULTILINE)


COLLECTED = [
    (
        "a pipe",
        "kubectl kustomize x |\n  fitgate check - --snapshot s.json",
        [("fitgate", "check", "-", "--snapshot", "s.json")],
    ),
    (
        "a continued line",
        "fitgate check a \\\n    --snapshot s.json",
        [("fitgate", "check", "a", "--snapshot", "s.json")],
    ),
    (
        "a subshell",
        "(cd b && fitgate check r --json ../b.json)",
        [("fitgate", "check", "r", "--json", "../b.json")],
    ),
    (
        "a redirection",
        "fitgate snapshot -o s.json 2>/dev/null",
        [("fitgate", "snapshot", "-o", "s.json")],
    ),
    (
        "a comment",
        "fitgate check deploy/   # any rendered manifests",
        [("fitgate", "check", "deploy/")],
    ),
    (
        "the image",
        'docker run --rm -v "$PWD:/r" fitgate:0.1.0 check .',
        [("fitgate", "check", ".")],
    ),
    ("an image build", "docker build -t fitgate:0.1.0 .", []),
    (
        "the poster",
        "GITHUB_TOKEN=t python -m gate.ci.comment_poster --pr 1",
        [(*POSTER, "--pr", "1")],
    ),
]


@pytest.mark.parametrize(
    ("statement", "expected"),
    [(s, w) for _, s, w in COLLECTED],
    ids=[f"a command is found through {name}" for name, _, _ in COLLECTED],
)
def test_commands_are_found_as_a_shell_reads_them(
    statement: str, expected: list[tuple[str, ...]]
) -> None:
    found = [
        program
        for _, joined in _statements(statement)
        for words in _commands(joined)
        if (program := _program(words)) is not None
    ]
    assert found == expected


def test_a_folder_where_a_file_is_read_is_caught() -> None:
    shown = Shown("page", 1, ("fitgate", "check", "x", "--instance-types", "fixtures/catalogs"))
    kinds = dict(_paths(shown))
    assert not kinds["fixtures/catalogs"](ROOT / "fixtures/catalogs")
    assert kinds["fixtures/catalogs"](ROOT / "fixtures/catalogs/instance-types.json")
    assert kinds["x"] is Path.exists
