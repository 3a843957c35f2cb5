"""CI keeps the code formatted, lint-clean and mypy --strict clean, builds what users install,
and runs the README's test command: each as its own step of ``.ci/run``, which this reads
(the tools themselves run there, not inside the suite)."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import ROOT
from tests.test_action import tool

CI = ROOT / ".ci" / "run"
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def _commands() -> list[str]:
    """The script's command lines, comments and blank lines left out."""
    return [
        line.strip()
        for line in CI.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _steps() -> list[str]:
    return re.findall(r'^step "(.*)"$', CI.read_text(encoding="utf-8"), re.MULTILINE)


STEPS = {
    "ruff format": "ruff format --check .",
    "ruff check": "ruff check .",
    "mypy": "mypy",
    "the wheel and the sdist": "python -m build --quiet --outdir",
    "the wheel's version": '"$scratch/wheel/bin/fitgate" --version',
    "the wheel checking the fixtures": '"$scratch/wheel/bin/fitgate" check fixtures/manifests \\',
}


@pytest.mark.parametrize("command", STEPS.values(), ids=[f"CI runs {k}" for k in STEPS])
def test_ci_runs_the_tool(command: str) -> None:
    assert any(line.startswith(command) for line in _commands()), command


def test_the_linters_run_before_the_tests_in_a_step_of_their_own() -> None:
    steps = _steps()
    assert steps.index("linters and the type checker") < steps.index("the README's test command")
    assert steps[-1] == "the README's test command"


def test_the_tools_ci_runs_are_in_the_test_extra() -> None:
    extra = PYPROJECT.split("\ntest = [\n", 1)[1].split("\n]\n", 1)[0]
    named = set(re.findall(r'^    "([A-Za-z0-9_.-]+)', extra, re.MULTILINE))
    assert {"ruff", "mypy", "build", "pytest-xdist"} <= named


def test_mypy_is_strict_over_the_package_the_tests_and_the_benchmark() -> None:
    mypy = PYPROJECT.split("\n[tool.mypy]\n", 1)[1].split("\n[", 1)[0]
    assert "\nstrict = true\n" in f"\n{mypy}"
    assert 'files = ["gate", "tests", "benchmarks"]' in mypy


def test_the_ci_script_is_shellcheck_clean() -> None:
    result = subprocess.run(
        [tool("shellcheck"), "--severity=style", str(CI)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
