"""What standard output shows on a terminal and in a CI log: ``--quiet`` and ``--color``
(issue #13, CLI hygiene). The report files never change with either."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from gate.cli import Streams, main
from gate.model import VERDICT_ORDER
from gate.reports.text import render_text
from tests.conftest import ROOT
from tests.test_cli import AKS, NOW
from tests.test_reports import hostile_report

SGR = re.compile(r"\x1b\[[0-9;]*m")
VERDICT_LINE = re.compile(rf"^({'|'.join(v.value for v in VERDICT_ORDER)}) +\S")


class Terminal(io.StringIO):
    """Standard output as a terminal shows it."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(
    *argv: str, env: dict[str, str] | None = None, tty: bool = False, command: str = "check"
) -> tuple[int, str, str]:
    out = Terminal() if tty else io.StringIO()
    err = io.StringIO()
    streams = Streams(stdin=io.BytesIO(b""), stdout=out, stderr=err, env=env or {}, now=NOW)
    code = main([command, *argv], streams)
    return code, out.getvalue(), err.getvalue()


def check(*flags: str, env: dict[str, str] | None = None, tty: bool = False) -> str:
    code, out, err = run("fixtures/manifests", "--snapshot", AKS, *flags, env=env, tty=tty)
    assert (code, err) == (1, "")
    return out


# --- --quiet ---------------------------------------------------------------------------------


def test_quiet_shows_only_the_failing_workloads_and_the_status_line() -> None:
    full, quiet = check(), check("--quiet")
    failing = ("NO", "ADDON_ONLY", "PARTIAL", "ERROR")
    blocks: list[list[str]] = []
    for line in full.splitlines()[1:-1]:
        if VERDICT_LINE.match(line):
            blocks.append([])
        blocks[-1].append(line)
    kept = [line for block in blocks if block[0].split()[0] in failing for line in block]
    assert kept, "the fixtures have failing workloads"
    assert quiet.splitlines() == [*kept, full.splitlines()[-1]]
    assert quiet.splitlines()[-1].endswith("Gate FAILED.")


@pytest.mark.parametrize(
    ("fail_on", "shown"),
    [
        pytest.param("NO", {"NO"}, id="only NO fails: quiet shows only the NO workloads"),
        pytest.param("ERROR", {"ERROR"}, id="only ERROR fails: quiet shows only the ERRORs"),
        pytest.param(
            "NO,ADDON_ONLY,PARTIAL,ERROR",
            {"NO", "ADDON_ONLY", "PARTIAL", "ERROR"},
            id="the default set: every failing verdict and never YES or SKIPPED",
        ),
    ],
)
def test_quiet_follows_the_fail_on_set(fail_on: str, shown: set[str]) -> None:
    out = check("--quiet", "--fail-on", fail_on)
    verdicts = {line.split()[0] for line in out.splitlines() if VERDICT_LINE.match(line)}
    assert verdicts == shown


def test_a_quiet_passing_run_prints_only_the_status_line() -> None:
    code, out, _ = run("fixtures/manifests/01-web-small.yaml", "--snapshot", AKS, "--quiet")
    assert code == 0
    assert out == "1 workload(s): 1 YES. Gate passed.\n"


def test_quiet_and_colour_leave_the_report_files_unchanged(tmp_path: Path) -> None:
    def files(*flags: str) -> list[str]:
        names = [tmp_path / n for n in ("r.json", "r.xml", "c.md", "s.md")]
        reports = ["--json", "--junit", "--comment", "--summary"]
        argv = [a for option, name in zip(reports, names, strict=True) for a in (option, name)]
        check(*map(str, argv), *flags, tty=True)
        return [name.read_text(encoding="utf-8") for name in names]

    plain = files("--color", "never")
    assert files("--quiet", "--color", "always") == plain
    assert not any("\x1b" in text for text in plain)


# --- --color ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "env", "tty", "coloured"),
    [
        pytest.param([], {}, True, True, id="auto on a terminal is coloured"),
        pytest.param([], {}, False, False, id="auto in a CI log or a pipe is plain"),
        pytest.param(
            [], {"NO_COLOR": "1"}, True, False, id="auto with NO_COLOR set is plain on a terminal"
        ),
        pytest.param(
            [], {"NO_COLOR": ""}, True, True, id="an empty NO_COLOR does not count (no-color.org)"
        ),
        pytest.param(
            [], {"GITHUB_ACTIONS": "true"}, False, False, id="a GitHub Actions log is plain"
        ),
        pytest.param(["--color", "always"], {}, False, True, id="always colours a CI log too"),
        pytest.param(
            ["--color", "always"], {"NO_COLOR": "1"}, False, True, id="always overrides NO_COLOR"
        ),
        pytest.param(["--color", "never"], {}, True, False, id="never is plain on a terminal"),
    ],
)
def test_colour_is_chosen_by_the_flag_the_terminal_and_no_color(
    flags: list[str], env: dict[str, str], tty: bool, coloured: bool
) -> None:
    out = check(*flags, "--no-annotations", env=env, tty=tty)
    assert ("\x1b[" in out) is coloured
    assert SGR.sub("", out) == check("--color", "never", "--no-annotations")


@pytest.mark.parametrize(
    ("verdict", "sequence"),
    [
        pytest.param("YES", "\x1b[32m", id="YES is green"),
        pytest.param("NO", "\x1b[31m", id="NO is red"),
        pytest.param("ERROR", "\x1b[31m", id="ERROR is red"),
        pytest.param("PARTIAL", "\x1b[33m", id="PARTIAL is yellow"),
        pytest.param("ADDON_ONLY", "\x1b[33m", id="ADDON_ONLY is yellow"),
        pytest.param("SKIPPED", "\x1b[2m", id="SKIPPED is dim"),
    ],
)
def test_each_verdict_word_has_its_colour(verdict: str, sequence: str) -> None:
    out = check("--color", "always")
    words = [line for line in out.splitlines() if line.startswith(f"{sequence}{verdict}\x1b[0m ")]
    assert words, f"no {verdict} line coloured {sequence!r} in:\n{out}"


def test_the_columns_line_up_with_colour_as_without() -> None:
    plain = check("--color", "never").splitlines()
    coloured = [SGR.sub("", line) for line in check("--color", "always").splitlines()]
    assert coloured == plain


def test_a_merge_is_quiet_and_coloured_the_same_way(tmp_path: Path) -> None:
    shards = [str(tmp_path / f"shard-{k}.json") for k in (1, 2)]
    for k, shard in enumerate(shards, start=1):
        check("--shard", f"{k}/2", "--json", shard)
    whole = check("--quiet", "--color", "always")
    code, merged, _ = run(*shards, "--quiet", "--color", "always", command="merge")
    assert (code, merged) == (1, whole)


# --- untrusted text --------------------------------------------------------------------------


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "coloured"])
def test_no_escape_byte_from_a_name_reaches_the_terminal(colour: bool) -> None:
    """The hostile report carries ``\x1b[31m``, NUL, bidi overrides and ``::error::``
    lines in names, reasons, messages and warnings (tests/test_reports.py)."""
    text = render_text(hostile_report(), NOW, colour=colour)
    own = re.compile(rf"^\x1b\[(?:32|31|33|2)m({'|'.join(v.value for v in VERDICT_ORDER)})\x1b\[0m")
    lines = [own.sub(r"\1", line) for line in text.splitlines()]
    assert sum(own.match(line) is not None for line in text.splitlines()) == (3 if colour else 0)
    for line in lines:
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", line), line
        assert not line.startswith("::")
    assert "[31m" in text  # the hostile sequence shows as inert text
