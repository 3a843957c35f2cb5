"""The command line as people expect it: help without a command, ``-V``, the nearest option
named for a misspelt one, ``check``'s options in groups, and each command's errors in its
own options."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import gate
from gate.cli import Streams, build_parser, main
from tests.conftest import ROOT
from tests.test_cli import run


def test_bare_fitgate_prints_help_and_exits_0() -> None:
    code, out, err = run()
    assert (code, err) == (0, "")
    assert out == build_parser().format_help()
    assert out.startswith("usage: fitgate") and "check" in out and "snapshot" in out


@pytest.mark.parametrize("flag", ["-V", "--version"], ids=["short", "long"])
def test_version(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(flag)
    assert code == 0
    assert (
        capsys.readouterr().out
        == f"fitgate {gate.__version__} (kube-scheduler v1.34.1 semantics)\n"
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["check", "--snaphot", "s.json"],
            "fitgate check: unrecognized arguments: --snaphot (did you mean --snapshot?); "
            "see fitgate check --help",
        ),
        (
            ["check", "--fail-onn=NO"],
            "fitgate check: unrecognized arguments: --fail-onn=NO (did you mean --fail-on?); "
            "see fitgate check --help",
        ),
        (
            ["snapshot", "-o", "s.json", "--autoscale"],
            "fitgate snapshot: unrecognized arguments: --autoscale (did you mean "
            "--autoscaling?); see fitgate snapshot --help",
        ),
        (
            ["snapshot", "-o", "s.json", "--snapshot", "x.json"],
            "fitgate snapshot: unrecognized arguments: --snapshot x.json; "
            "see fitgate snapshot --help",
        ),
        (
            ["check", "--zzzzzz"],
            "fitgate check: unrecognized arguments: --zzzzzz; see fitgate check --help",
        ),
    ],
    ids=["misspelt", "misspelt-with-value", "snapshot-own-option", "check-option", "nothing-near"],
)
def test_an_unknown_option_names_the_nearest_of_its_command(argv: list[str], said: str) -> None:
    assert run(*argv) == (2, "", said + "\n")


def test_check_help_groups_its_options() -> None:
    out = _check_help()
    headings = re.findall(r"^([a-z]+):$", out, flags=re.MULTILINE)
    assert headings == ["options", "inputs", "snapshot", "autoscaling", "policy", "reports"]
    sections = dict(re.findall(r"^([a-z]+):\n(.*?)(?=^[a-z]+:$|\Z)", out, re.M | re.S))
    expected = {
        "inputs": ["--config", "--exclude"],
        "snapshot": ["--snapshot", "--context", "--cluster-name", "--max-snapshot-age"],
        "autoscaling": ["--autoscaling", "--instance-types"],
        "policy": ["--fail-on", "--baseline", "--allow-empty"],
        "reports": ["--json", "--junit", "--sarif", "--comment", "--summary", "--quiet"],
    }
    for heading, options in expected.items():
        assert all(o in sections[heading] for o in options), heading


def _check_help() -> str:
    parser = build_parser()
    for action in parser._actions:
        choices = getattr(action, "choices", None)
        if isinstance(choices, dict):
            help_text: str = choices["check"].format_help()
            return help_text
    raise AssertionError("no check command")


def test_the_tagline_is_the_package_description() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'description = "{gate.TAGLINE}"' in pyproject
    assert "autoscaler would add" in gate.TAGLINE
    assert " ".join(build_parser().format_help().split()).count(" ".join(gate.TAGLINE.split()))


@pytest.mark.parametrize(
    ("command", "offline"),
    [(["snapshot", "-o", "-"], False), (["check", "fixtures/manifests"], True)],
    ids=["snapshot", "check"],
)
def test_no_kubeconfig_names_the_commands_own_options(
    tmp_path: Path, command: list[str], offline: bool
) -> None:
    missing = tmp_path / "kubeconfig"
    err = io.StringIO()
    streams = Streams(io.BytesIO(), io.StringIO(), err, env={"KUBECONFIG": str(missing)})
    assert main(command, streams) == 2
    assert err.getvalue().startswith(
        f"fitgate: no kubeconfig found at {missing}: pass --kubeconfig"
    )
    assert ("--snapshot" in err.getvalue()) is offline
