"""Installing like a tool: the license the metadata claims, the version fitgate names, and
the README's install section, whose every command works before a release is published."""

from __future__ import annotations

import re

import pytest

from gate import SCHEDULER_VERSION, __version__
from gate.cli import main
from tests.conftest import ROOT

PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_license_file_is_the_one_pyproject_names() -> None:
    assert re.search(r'^license = "Apache-2.0"\nlicense-files = \["LICENSE"\]$', PYPROJECT, re.M)
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


def _install_section() -> str:
    return README.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]


def _command_lines(text: str) -> list[str]:
    blocks = re.findall(r"```(?:sh|yaml)\n(.*?)```", text, flags=re.DOTALL)
    return [ln.split("#", 1)[0].strip() for b in blocks for ln in b.splitlines() if ln.strip()]


# No release is published: each of these needs one, so no command line may use it.
NEEDS_A_RELEASE = {
    "pipx install fitgate": r"\bpipx install fitgate\b",
    "uvx fitgate": r"\buvx fitgate\b",
    "pip install fitgate": r"\bpip install fitgate\b",
    "a published image": r"\bghcr\.io/",
    "a release tag of the action": r"uses: [\w-]+/fitgate@v\d",
}


@pytest.mark.parametrize(
    "pattern", NEEDS_A_RELEASE.values(), ids=[f"no command uses {k}" for k in NEEDS_A_RELEASE]
)
def test_readme_commands_work_without_a_release(pattern: str) -> None:
    assert [ln for ln in _command_lines(README) if re.search(pattern, ln)] == []


def test_readme_says_to_install_from_the_repository_until_a_release() -> None:
    section = " ".join(_install_section().split())
    assert "install from the repository or the image until a release is published" in section


INSTALLS = {
    "pip from the repository": 'pip install "git+https://github.com/your-org/fitgate"',
    "pipx from the repository": 'pipx install "git+https://github.com/your-org/fitgate"',
    "pip from a checkout": "pip install .",
    "the image built from a checkout": f"docker build -t fitgate:{__version__} .",
    "the version line": f"`fitgate {__version__} (kube-scheduler {SCHEDULER_VERSION} semantics)`",
}


@pytest.mark.parametrize(
    "shown", INSTALLS.values(), ids=[f"README installs with {k}" for k in INSTALLS]
)
def test_readme_install_section(shown: str) -> None:
    assert shown in _install_section()
