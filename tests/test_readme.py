"""The README and the reference show what fitgate really prints (their examples are the
golden files), name only flags that exist and files that are there, and the README stays a
page for users: at most 400 lines, its layout the tree's."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GOLDEN, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
REFERENCE = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
PAGES = {"README.md": README, "docs/reference.md": REFERENCE}
TEST_COMMAND = "pip install -e '.[test]' && python -m pytest -n auto"


def _fenced(language: str, text: str = README) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def test_first_screen_gives_exactly_two_commands() -> None:
    first_screen = README.split("\n---\n", 1)[0]
    commands = re.findall(r"```sh\n(.*?)```", first_screen, flags=re.DOTALL)
    assert len(commands) == 2
    run, test = (c.strip() for c in commands)
    assert "fitgate check fixtures/manifests --snapshot fixtures/snapshots/" in run
    assert test == TEST_COMMAND


def test_ci_runs_the_readme_test_command_last() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().endswith(f"\n{TEST_COMMAND}")


def test_the_readme_is_a_page_for_users() -> None:
    assert len(README.splitlines()) <= 400


def _first_command() -> list[str]:
    """The README's first command, the part after the install: ``fitgate check ...``."""
    first_screen = README.split("\n---\n", 1)[0]
    run = re.findall(r"```sh\n(.*?)```", first_screen, flags=re.DOTALL)[0].strip()
    install, _, command = run.partition(" && ")
    assert install == "pip install ."
    return shlex.split(command)


def _ageless(text: str) -> str:
    """The output without the snapshot's age, which the clock decides."""
    return re.sub(r"\(\d+[dhm]( \d+[hm])? ago\)", "(AGE ago)", text)


def test_printed_output_is_what_the_first_command_prints() -> None:
    """From the repository root, as a fresh clone runs it, with the age the clock gives:
    the README's first command prints the README's example, byte for byte but the age."""
    words = _first_command()
    assert words[:2] == ["fitgate", "check"]
    fitgate = Path(sys.executable).with_name("fitgate")
    command = [str(fitgate)] if fitgate.exists() else [sys.executable, "-m", "gate"]
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR")}
    done = subprocess.run(
        [*command, *words[1:]], cwd=ROOT, capture_output=True, text=True, env=env, check=False
    )
    assert (done.returncode, done.stderr) == (1, "")
    shown = README.split("## What it prints\n\n```text\n", 1)[1].split("```", 1)[0]
    assert _ageless(shown) == _ageless(done.stdout)
    assert "more than a day old" in shown  # the shipped recording's age is warned about
    assert "Configuration: none" in shown  # no .fitgate.yaml above the repository root


def test_ci_checks_the_fixtures_as_the_readme_shows() -> None:
    """.ci/run runs the README's first command with the wheel, and greps its status line."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    words = _first_command()
    assert " ".join(words[1:]) in " ".join(ci.replace("\\\n", " ").split())
    status = re.search(r"grep -q '(.*?)'", ci)
    assert status is not None
    shown = README.split("## What it prints\n\n```text\n", 1)[1].split("```", 1)[0]
    # grep's basic expressions: parentheses are literal, as re writes them escaped.
    pattern = status.group(1).replace("(", r"\(").replace(")", r"\)")
    assert [line for line in shown.splitlines() if re.search(pattern, line)]


def test_rendered_comment_is_the_real_comment() -> None:
    shown = REFERENCE.split("<!-- comment:begin -->\n", 1)[1].split("\n<!-- comment:end -->")[0]
    assert shown + "\n" == (GOLDEN / "cli" / "aks.comment.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES.values(), ids=list(PAGES))
def test_every_flag_shown_exists(page: str) -> None:
    from gate.cli import build_parser

    known = set()
    for action in build_parser()._subparsers._group_actions:  # type: ignore[union-attr]
        for sub in action.choices.values():  # type: ignore[union-attr]
            known |= {s for a in sub._actions for s in a.option_strings}
    used = {
        word.split("=")[0]
        for block in _fenced("sh", page) + _fenced("text", page)
        for line in block.splitlines()
        for word in _fitgate_arguments(line)
        if word.startswith("--")
    }
    assert used - known == set()


def _fitgate_arguments(line: str) -> list[str]:
    """The words after ``fitgate`` (or the image ``fitgate:TAG``) on a command line."""
    if "fitgate" not in line:
        return []
    words = shlex.split(line.rstrip("\\").replace("[", " ").replace("]", " "), comments=True)
    starts = [i for i, w in enumerate(words) if w == "fitgate" or w.startswith("fitgate:")]
    return words[starts[-1] + 1 :] if starts else []


def _links(page: str) -> list[str]:
    return [t for t in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page) if "://" not in t]


@pytest.mark.parametrize("name", PAGES, ids=[f"the links of {n} lead to files" for n in PAGES])
def test_every_link_leads_to_a_file(name: str) -> None:
    base = (ROOT / name).parent
    assert [t for t in _links(PAGES[name]) if not (base / t).exists()] == []


def test_every_anchor_into_the_reference_is_a_heading() -> None:
    headings = {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.*)$", REFERENCE, re.MULTILINE)
    }
    anchors = re.findall(r"\]\((?:docs/)?reference\.md#([^)]+)\)", README + REFERENCE)
    anchors += re.findall(r"\]\(#([^)]+)\)", REFERENCE)
    assert anchors and [a for a in anchors if a not in headings] == []


def _layout() -> dict[str, str]:
    """The layout table of the README: each folder, and what its row says."""
    section = README.split("## Development\n", 1)[1]
    return dict(re.findall(r"^\| `([^`]+)` \| (.*) \|$", section, re.MULTILINE))


def test_the_layout_names_every_stage_folder_and_only_folders_that_exist() -> None:
    folders = list(_layout())
    stages = {
        f"gate/{p.name}/"
        for p in (ROOT / "gate").iterdir()
        if p.is_dir() and not p.name.startswith("__")
    }
    assert stages <= set(folders)
    assert [f for f in folders if not (ROOT / f).is_dir()] == []


def test_the_modules_the_layout_names_are_there() -> None:
    named = [
        f"{folder}{module}"
        for folder, row in _layout().items()
        for module in re.findall(r"`([\w/]+\.py)`", row)
    ]
    assert named and [m for m in named if not (ROOT / m).is_file()] == []


def test_the_karpenter_page_names_each_module_of_its_package_once() -> None:
    page = (ROOT / "docs" / "karpenter.md").read_text(encoding="utf-8")
    section = page.split("## Modules\n", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"^\| `(\w+\.py)` \|", section, re.MULTILINE)
    package = ROOT / "gate" / "scheduler" / "autoscaling" / "karpenter"
    modules = sorted(p.name for p in package.glob("*.py") if p.name != "__init__.py")
    assert sorted(named) == modules


def test_the_reference_lists_every_filter_in_the_profiles_order() -> None:
    from gate.scheduler.plugins import FILTERS

    section = REFERENCE.split("## What is checked\n", 1)[1].split("\n### ", 1)[0]
    listed = re.findall(r"^\| (\w+) \|", section, re.MULTILINE)
    assert [name for name in listed if name != "plugin"] == [p.name for p in FILTERS]


def test_the_reference_names_every_code_scanning_rule() -> None:
    from gate.model import Family

    row = next(line for line in REFERENCE.splitlines() if line.startswith("| `--sarif FILE` |"))
    named = re.search(r"one rule per reason family \(([^)]*)\)", row)
    assert named is not None
    assert re.findall(r"`([\w-]+)`", named.group(1)) == [f.value for f in Family]


def test_the_reference_documents_every_option_of_every_command() -> None:
    from gate.cli import build_parser

    options = {
        option
        for action in build_parser()._subparsers._group_actions  # type: ignore[union-attr]
        for sub in action.choices.values()  # type: ignore[union-attr]
        for argument in sub._actions
        for option in argument.option_strings
        if option not in ("-h", "--help")
    }
    undocumented = [o for o in options if not re.search(re.escape(o) + r"(?![\w-])", REFERENCE)]
    assert options and sorted(undocumented) == []
