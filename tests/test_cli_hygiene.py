"""Usage errors are one line naming the help to read (exit 2); two reports are never
written to one standard output."""

from __future__ import annotations

import io
from datetime import datetime, timezone

import pytest

from gate.cli import Streams, main

AKS = "fixtures/snapshots/aks-six-nodes.json"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    now = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
    code = main(list(argv), Streams(io.BytesIO(), out, err, env={}, now=now))
    return code, out.getvalue(), err.getvalue()


USAGE = {
    "an unknown command": (
        ["chek"],
        "fitgate: argument command: invalid choice: 'chek' (choose from 'check', 'config', "
        "'merge', 'snapshot'); see fitgate --help",
    ),
    "an unknown verdict": (
        ["check", "--fail-on", "MAYBE"],
        "fitgate check: argument --fail-on: 'MAYBE': verdicts are YES, SCALES, PREEMPTS, NO, "
        "ADDON_ONLY, PARTIAL, ERROR, SKIPPED; see fitgate check --help",
    ),
    "an empty --fail-on": (
        ["check", "--fail-on", ""],
        "fitgate check: argument --fail-on: empty: name the verdicts that fail the gate; "
        "see fitgate check --help",
    ),
    "a duration without a unit": (
        ["check", "--max-snapshot-age", "7"],
        "fitgate check: argument --max-snapshot-age: '7': expected a duration such as 12h, 7d "
        "or 2w; see fitgate check --help",
    ),
    "config without what to do": (
        ["config"],
        "fitgate config: the following arguments are required: --print-schema; "
        "see fitgate config --help",
    ),
}


@pytest.mark.parametrize("argv,line", USAGE.values(), ids=[f"{k} is one line" for k in USAGE])
def test_a_usage_error_is_one_line_and_exit_2(argv: list[str], line: str) -> None:
    assert run(*argv) == (2, "", line + "\n")


def test_two_reports_on_standard_output_are_refused() -> None:
    code, out, err = run(
        "check", "fixtures/manifests", "--snapshot", AKS, "--json", "-", "--junit", "-"
    )
    assert (code, out) == (2, "")
    assert err == (
        "fitgate: --json and --junit would all go to standard output (-): "
        "give all but one of them a file\n"
    )
