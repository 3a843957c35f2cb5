"""The sentences of the gate's policy (gate.reports.policy): what fails the gate when that
is not the default, the ADDON_ONLY workloads allowed and the skips in force, one line per
decision, none for the default policy."""

from __future__ import annotations

import pytest

from gate.model import DEFAULT_FAIL_ON, AllowedAddonOnly, Policy, Skip, Verdict
from gate.reports.policy import policy_lines


def _policy(
    fail_on_by: str | None = None,
    allowed: tuple[tuple[str, str], ...] = (),
    skips: tuple[tuple[str, str, str | None], ...] = (),
) -> Policy:
    return Policy(
        fail_on_by=fail_on_by,
        allowed=tuple(AllowedAddonOnly(*pair) for pair in allowed),
        skips=tuple(Skip(*triple) for triple in skips),
    )


DEFAULT = "NO, ADDON_ONLY, PARTIAL, ERROR"

LINES: list[tuple[str, Policy | None, frozenset[Verdict], list[str]]] = [
    ("no policy says nothing", None, DEFAULT_FAIL_ON, []),
    ("the default policy says nothing", _policy(), DEFAULT_FAIL_ON, []),
    (
        "failOn from a file names the file and the default, in verdict order",
        _policy("c.yaml"),
        frozenset({Verdict.ERROR, Verdict.NO}),
        [f"fails on NO, ERROR (failOn in c.yaml; the default is {DEFAULT})"],
    ),
    (
        "failOn from the command line names the flag",
        _policy("--fail-on"),
        frozenset({Verdict.PARTIAL}),
        [f"fails on PARTIAL (--fail-on; the default is {DEFAULT})"],
    ),
    (
        "failing on no verdict says nothing fails it",
        _policy("--fail-on"),
        frozenset(),
        [f"fails on nothing (--fail-on; the default is {DEFAULT})"],
    ),
    (
        "allowed ADDON_ONLY workloads and skips, each with its reason, in that order",
        _policy(
            allowed=(("CronJob batch/*", "by design"),),
            skips=(("Deployment web/api", "migrating", "2026-12-31"), ("Job x/*", "flaky", None)),
        ),
        DEFAULT_FAIL_ON,
        [
            "ADDON_ONLY allowed for CronJob batch/*: by design",
            "skipped: Deployment web/api until 2026-12-31: migrating",
            "skipped: Job x/*: flaky",
        ],
    ),
]


@pytest.mark.parametrize(
    ("policy", "fail_on", "expected"), [c[1:] for c in LINES], ids=[c[0] for c in LINES]
)
def test_policy_lines(
    policy: Policy | None, fail_on: frozenset[Verdict], expected: list[str]
) -> None:
    assert policy_lines(policy, fail_on) == expected
