"""The README shows what fitgate really prints: its examples are the golden files."""

from __future__ import annotations

import re
import shlex

from tests.conftest import GOLDEN, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
TEST_COMMAND = "pip install -e '.[test]' && python -m pytest -n auto"


def _fenced(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def test_first_screen_gives_exactly_two_commands() -> None:
    first_screen = README.split("\n---\n", 1)[0]
    commands = re.findall(r"```sh\n(.*?)```", first_screen, flags=re.DOTALL)
    assert len(commands) == 2
    run, test = (c.strip() for c in commands)
    assert "fitgate check fixtures/manifests --snapshot fixtures/snapshots/" in run
    assert test == TEST_COMMAND


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().endswith(f"\n{TEST_COMMAND}")


def test_printed_output_is_the_real_output() -> None:
    golden = (GOLDEN / "check-aks.txt").read_text(encoding="utf-8")
    assert golden in _fenced("text")


def test_rendered_comment_is_the_real_comment() -> None:
    shown = README.split("<!-- comment:begin -->\n", 1)[1].split("\n<!-- comment:end -->", 1)[0]
    assert shown + "\n" == (GOLDEN / "cli" / "aks.comment.md").read_text(encoding="utf-8")


def test_every_flag_in_the_readme_exists() -> None:
    from gate.cli import build_parser

    known = set()
    for action in build_parser()._subparsers._group_actions:  # type: ignore[union-attr]
        for sub in action.choices.values():  # type: ignore[union-attr]
            known |= {s for a in sub._actions for s in a.option_strings}
    used = {
        word.split("=")[0]
        for block in _fenced("sh") + _fenced("text")
        for line in block.splitlines()
        if "fitgate" in line
        for word in shlex.split(line.replace("[", " ").replace("]", " "), comments=True)
        if word.startswith("--")
    }
    assert used - known == set()
