"""The code stays formatted, lint-clean and mypy --strict clean: CI fails otherwise."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

COMMANDS = {
    "ruff format": [sys.executable, "-m", "ruff", "format", "--check", "."],
    "ruff check": [sys.executable, "-m", "ruff", "check", "."],
    "mypy strict": [sys.executable, "-m", "mypy"],
}


@pytest.mark.parametrize("command", list(COMMANDS.values()), ids=list(COMMANDS))
def test_tool_is_clean(command: list[str]) -> None:
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
