"""Installing like a tool: the license the metadata claims, the version fitgate names, and
the README's install section naming the release."""

from __future__ import annotations

import re

import pytest

from gate import SCHEDULER_VERSION, __version__
from gate.cli import main
from tests.conftest import ROOT

PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_license_file_is_the_one_pyproject_names() -> None:
    assert re.search(r'^license = \{ text = "Apache-2.0" \}$', PYPROJECT, re.MULTILINE)
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text


def test_version_names_the_release_and_the_scheduler_it_follows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"fitgate {__version__} (kube-scheduler v1.34.1 semantics)\n"
    assert f'\nversion = "{__version__}"\n' in PYPROJECT
    assert SCHEDULER_VERSION == "v1.34.1"


INSTALLS = {
    "pipx": "pipx install fitgate",
    "uvx": "uvx fitgate check",
    "the container image at the release's tag": f"ghcr.io/your-org/fitgate:{__version__}",
    "the Action at the release's tag": f"uses: your-org/fitgate@v{__version__}",
    "the version line": f"`fitgate {__version__} (kube-scheduler {SCHEDULER_VERSION} semantics)`",
}


@pytest.mark.parametrize(
    "shown", INSTALLS.values(), ids=[f"README installs with {k}" for k in INSTALLS]
)
def test_readme_install_section(shown: str) -> None:
    section = README.split("## Install\n", 1)[1].split("\n## ", 1)[0]
    assert shown in section
