"""action.yml: valid for GitHub (check-jsonschema's vendored schema), its scripts clean
(shellcheck), and its steps run for real, in order, as the runner runs a composite action.

The runner itself is not here, so ``CompositeRun`` plays its part for this one file: it
evaluates the few ``${{ }}`` expressions the action uses (and fails on any other), runs each
``run:`` step with ``bash --noprofile --norc -eo pipefail`` as ``shell: bash`` does, passes
``GITHUB_OUTPUT`` between steps and stops at the first failing step. Two steps are not run:
``actions/setup-python`` (a JavaScript action) and ``install``, whose pip command is checked
against the image's instead (tests/test_recipes.py runs that one) and whose output points at
this interpreter, where fitgate is installed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.model import Verdict
from tests.conftest import ROOT
from tests.github_api import TOKEN, FakeGitHub, fake_github

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
AKS = "fixtures/snapshots/aks-six-nodes.json"
REPO = "acme/platform"
PR = "42"
BIN = Path(sys.executable).parent
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def tool(name: str) -> str:
    """A linter from the test extra, next to this interpreter (or on PATH)."""
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    assert found, f"{name} is not installed: pip install -e '.[test]'"
    return found


# --- the metadata and the scripts -------------------------------------------------------------


def test_action_matches_githubs_schema() -> None:
    result = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", "action.yml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_schema_check_is_not_vacuous(tmp_path: Path) -> None:
    broken = dict(ACTION, runs={"using": "composite", "steps": [{"run": "true"}]})
    path = tmp_path / "action.yml"
    path.write_text(yaml.safe_dump(broken), encoding="utf-8")
    result = subprocess.run(
        [
            tool("check-jsonschema"),
            "--verbose",
            "--builtin-schema",
            "vendor.github-actions",
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "shell" in result.stdout  # a run step needs its shell


RUN_STEPS = [s for s in ACTION["runs"]["steps"] if "run" in s]


@pytest.mark.parametrize("step", RUN_STEPS, ids=[s["id"] for s in RUN_STEPS])
def test_step_script_is_shellcheck_clean_and_takes_no_expressions(step: dict[str, Any]) -> None:
    assert step["shell"] == "bash"
    # Inputs reach scripts only through env: an expression in a script is pasted, not passed.
    assert not _EXPR.search(step["run"]), step["run"]
    result = subprocess.run(
        [tool("shellcheck"), "--shell=bash", "--severity=style", "-"],
        input=step["run"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout


def test_inputs_and_outputs_are_snake_case_and_documented() -> None:
    for section in ("inputs", "outputs"):
        for name, spec in ACTION[section].items():
            assert re.fullmatch(r"[a-z][a-z0-9_]*", str(name)), name
            assert spec["description"].strip(), name
    assert set(ACTION["inputs"]) >= {
        "manifests",
        "snapshot",
        "kubeconfig",
        "context",
        "fail_on",
        "junit_path",
        "comment_path",
        "summary",
        "annotations",
        "comment",
        "python_version",
    }
    verdicts = {"workloads"} | {verdict.value.lower() for verdict in Verdict}
    assert (
        set(ACTION["outputs"]) >= {"result", "json_path", "junit_path", "comment_path"} | verdicts
    )


# --- running the steps ------------------------------------------------------------------------


@dataclass
class StepResult:
    id: str
    ran: bool
    code: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class ActionResult:
    code: int
    outputs: dict[str, str]
    steps: dict[str, StepResult]
    summary: str

    @property
    def log(self) -> str:
        return "".join(s.stdout + s.stderr for s in self.steps.values())


def read_github_output(text: str) -> dict[str, str]:
    """``name=value`` lines and ``name<<DELIMITER`` blocks, as the runner reads them."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            outputs[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


class CompositeRun:
    """Runs action.yml's steps the way the runner does, for the expressions it uses."""

    def __init__(self, inputs: Mapping[str, str], env: Mapping[str, str], temp: Path) -> None:
        unknown = set(inputs) - set(ACTION["inputs"])
        assert not unknown, f"action.yml has no input {unknown}"
        self.context: dict[str, Any] = {
            "github": {
                "token": TOKEN,
                "action_path": str(ROOT),
                "event": {"pull_request": {"number": env.get("PR_EVENT_NUMBER", "")}},
            },
            "steps": {},
        }
        self.context["inputs"] = {
            name: inputs.get(name, self.substitute(str(spec.get("default", ""))))
            for name, spec in ACTION["inputs"].items()
        }
        self.env = {k: v for k, v in env.items() if k != "PR_EVENT_NUMBER"}
        self.temp = temp

    def lookup(self, path: str) -> str:
        value: Any = self.context
        for part in path.split("."):
            assert isinstance(value, dict), f"unsupported expression {path!r}"
            if part not in value and value is self.context:
                raise AssertionError(f"unsupported expression {path!r}")
            value = value.get(part, "")
        return "" if value is None else str(value)

    def evaluate(self, expression: str) -> str | bool:
        if "&&" in expression:
            return all(self.evaluate(part.strip()) for part in expression.split("&&"))
        match = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", expression)
        if match:
            equal = self.lookup(match.group(1)) == match.group(3)
            return equal if match.group(2) == "==" else not equal
        assert re.fullmatch(r"[\w.-]+", expression), f"unsupported expression {expression!r}"
        return self.lookup(expression)

    def substitute(self, text: str) -> str:
        return _EXPR.sub(lambda m: str(self.evaluate(m.group(1))), text)

    def run(self) -> ActionResult:
        results: dict[str, StepResult] = {}
        self.temp.mkdir(parents=True, exist_ok=True)
        summary = self.temp / "step_summary.md"
        summary.touch()
        failed: int | None = None
        for number, step in enumerate(ACTION["runs"]["steps"]):
            step_id = step.get("id", f"step{number}")
            condition = step.get("if")
            if failed is not None or (condition and not self.evaluate(condition)):
                results[step_id] = StepResult(step_id, ran=False)
                continue
            if "uses" in step:
                result = StepResult(step_id, ran=False)  # a JavaScript action: not run here
            elif step_id == "install":
                assert "pip install" in step["run"]  # compared with the image's in test_recipes
                result = StepResult(step_id, ran=True, outputs={"python": sys.executable})
            else:
                result = self.run_script(step_id, step, summary)
            results[step_id] = result
            self.context["steps"][step_id] = {"outputs": result.outputs}
            if result.code != 0:
                failed = result.code
        outputs = {k: self.substitute(v["value"]) for k, v in ACTION["outputs"].items()}
        code = failed or 0
        return ActionResult(code, outputs, results, summary.read_text(encoding="utf-8"))

    def run_script(self, step_id: str, step: Mapping[str, Any], summary: Path) -> StepResult:
        output = self.temp / f"output-{step_id}"
        output.touch()
        script = self.temp / f"{step_id}.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = {
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(self.temp),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_WORKSPACE": str(ROOT),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(self.temp),
            **self.env,
        }
        env.update({k: self.substitute(str(v)) for k, v in step.get("env", {}).items()})
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        outputs = read_github_output(output.read_text(encoding="utf-8"))
        return StepResult(step_id, True, done.returncode, done.stdout, done.stderr, outputs)


def run_action(
    tmp_path: Path, inputs: Mapping[str, str], **env: str
) -> ActionResult:  # env: extra runner variables
    return CompositeRun(inputs, env, tmp_path).run()


FAILING = {"workloads": "7", "yes": "2", "no": "1", "addon_only": "1", "partial": "1"}
FAILING |= {"error": "1", "skipped": "1", "warnings": "1"}
UNSET = dict.fromkeys(FAILING, "")

# (id, inputs, exit code, result, counts, annotations expected, step summary expected)
CASES: list[tuple[str, dict[str, str], int, str, dict[str, str], bool, bool]] = [
    (
        "one-workload-fits",
        {"manifests": "fixtures/manifests/01-web-small.yaml", "snapshot": AKS},
        0,
        "pass",
        {"workloads": "1", "yes": "1", "no": "0", "error": "0", "warnings": "0"},
        False,
        True,
    ),
    (
        "every-verdict-fails-the-gate",
        {"manifests": "fixtures/manifests", "snapshot": AKS},
        1,
        "fail",
        FAILING,
        True,
        True,
    ),
    (
        "summary-and-annotations-off",
        {"manifests": "fixtures/manifests", "snapshot": AKS, "summary": "false"}
        | {"annotations": "false"},
        1,
        "fail",
        FAILING,
        False,
        False,
    ),
    (
        "fail-on-narrowed-to-NO",
        {
            "manifests": "fixtures/manifests/01-web-small.yaml\n"
            "fixtures/manifests/03-batch-tolerates-system.yaml\n",
            "snapshot": AKS,
            "fail_on": "NO",
        },
        0,
        "pass",
        {"workloads": "2", "yes": "1", "addon_only": "1", "no": "0"},
        False,
        True,
    ),
    (
        "directory-of-a-kustomize-base",
        {"manifests": "fixtures/kustomize/base", "snapshot": AKS},
        0,
        "pass",
        {"workloads": "2", "yes": "2"},
        False,
        True,
    ),
    (
        "against-the-base-branchs-report",
        {"manifests": "fixtures/manifests", "snapshot": AKS}
        | {"baseline": "fixtures/baseline/base-report-v1.json"},
        1,
        "fail",
        FAILING,
        True,
        True,
    ),
    (
        "against-its-own-report-only-the-error-fails",
        {"manifests": "fixtures/manifests", "snapshot": AKS}
        | {"baseline": "tests/golden/cli/aks.json", "fail_on": "NO,ADDON_ONLY,PARTIAL"},
        0,
        "pass",
        FAILING,
        False,
        True,
    ),
    (
        "an-unreadable-baseline-is-an-error",
        {"manifests": "fixtures/manifests", "snapshot": AKS, "baseline": "missing.json"},
        2,
        "error",
        UNSET,
        False,
        False,
    ),
    (
        "unreadable-snapshot-is-an-error",
        {"manifests": "fixtures/manifests", "snapshot": "fixtures/snapshots/missing.json"},
        2,
        "error",
        UNSET,
        False,
        False,
    ),
    (
        "nothing-judged-is-exit-5-with-its-outputs",
        {"manifests": "fixtures/snapshots", "snapshot": AKS},
        5,
        "empty",
        {"workloads": "12", "yes": "0", "no": "0", "skipped": "12"},
        False,
        True,
    ),
    (
        "hostile-input-is-data",
        {"manifests": '$(touch pwned) "`touch pwned`" ; touch pwned', "snapshot": AKS},
        2,
        "error",
        UNSET,
        False,
        False,
    ),
]


@pytest.mark.parametrize(
    ("inputs", "code", "result", "counts", "annotated", "summarised"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_action_runs(
    tmp_path: Path,
    inputs: dict[str, str],
    code: int,
    result: str,
    counts: dict[str, str],
    annotated: bool,
    summarised: bool,
) -> None:
    run = run_action(tmp_path, inputs)
    assert run.code == code, run.log
    assert run.outputs["exit_code"] == str(code)
    assert run.outputs["result"] == result
    assert {k: run.outputs[k] for k in counts} == counts
    assert ("::error file=fixtures/manifests/" in run.log) is annotated
    assert bool(run.summary) is summarised
    assert run.steps["gate"].ran and f"fitgate: {result} (exit {code})" in run.log
    assert not (ROOT / "pwned").exists() and not (tmp_path / "pwned").exists()
    if code != 2:
        report = json.loads(Path(run.outputs["json_path"]).read_text(encoding="utf-8"))
        assert str(report["summary"]["workloads"]) == run.outputs["workloads"]
        for verdict in Verdict:  # every verdict's count is an output, PREEMPTS included
            assert run.outputs[verdict.value.lower()] == str(report["summary"][verdict.value])
        assert Path(run.outputs["json_path"]).parent == tmp_path / "fitgate"


def test_reports_land_where_asked(tmp_path: Path) -> None:
    junit, comment = tmp_path / "out" / "fitgate.xml", tmp_path / "out" / "comment.md"
    inputs = {"manifests": "fixtures/manifests", "snapshot": AKS}
    sarif = tmp_path / "code-scanning" / "fitgate.sarif"
    inputs |= {"junit_path": str(junit), "comment_path": str(comment), "sarif_path": str(sarif)}
    inputs |= {
        "json_path": str(tmp_path / "out" / "r.json"),
        "args": "--scheduler-version\nv1.35.0\n",
    }
    run = run_action(tmp_path, inputs)
    assert run.code == 1
    assert run.outputs["junit_path"] == str(junit) and "<testsuite" in junit.read_text()
    assert run.outputs["sarif_path"] == str(sarif)
    assert json.loads(sarif.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert comment.read_text(encoding="utf-8").startswith("<!-- fitgate:aks-prod -->\n")
    report = json.loads((tmp_path / "out" / "r.json").read_text(encoding="utf-8"))
    [web_big] = [w for w in report["workloads"] if w["name"] == "web-big"]
    # the v1.35 dialect
    assert "3 node(s) had untolerated taint(s). no new claims" in web_big["message"]
    assert not run.steps["comment"].ran  # comment: false is the default


@pytest.mark.parametrize(
    ("inputs", "marker"),
    [
        ({"args": "--cluster-name\nprod west\n"}, "<!-- fitgate:prod west -->"),
        ({"cluster_name": "eu-west-1"}, "<!-- fitgate:eu-west-1 -->"),
        ({}, "<!-- fitgate:aks-prod -->"),
    ],
    ids=["args-one-a-line-kept-whole", "cluster-name-input", "the-recorded-context"],
)
def test_args_are_a_list_and_the_cluster_is_named(
    tmp_path: Path, inputs: dict[str, str], marker: str
) -> None:
    comment = tmp_path / "comment.md"
    given = {"manifests": "fixtures/manifests", "snapshot": AKS, "comment_path": str(comment)}
    run = run_action(tmp_path, given | inputs)
    assert run.code == 1, run.log
    assert comment.read_text(encoding="utf-8").splitlines()[0] == marker


# --- the sticky comment -----------------------------------------------------------------------


@pytest.fixture
def api() -> Iterator[FakeGitHub]:
    with fake_github() as server:
        server.heads[(REPO, int(PR))] = "9f2c1e0d4b7a6c5e3f1a2b3c4d5e6f708192a3b4"
        yield server


def test_comment_is_created_then_updated(tmp_path: Path, api: FakeGitHub) -> None:
    inputs = {"manifests": "fixtures/manifests", "snapshot": AKS, "comment": "true"}
    first = run_action(tmp_path / "1", inputs, GITHUB_API_URL=api.url, PR_EVENT_NUMBER=PR)
    fixed = inputs | {"manifests": "fixtures/manifests/01-web-small.yaml"}
    second = run_action(tmp_path / "2", fixed, GITHUB_API_URL=api.url, PR_EVENT_NUMBER=PR)
    assert (first.code, second.code) == (1, 0)  # the gate's exit codes, comment or not
    assert "comment created" in first.log and "comment updated" in second.log
    [comment] = api.comments[(REPO, int(PR))]
    assert comment["body"].startswith("<!-- fitgate:aks-prod -->\n### ✅ fitgate passed")
    assert [r.method for r in api.writes()] == ["POST", "PATCH"]


def test_fork_pull_request_warns_and_keeps_the_gates_exit_code(
    tmp_path: Path, api: FakeGitHub
) -> None:
    api.read_only = True
    inputs = {"manifests": "fixtures/manifests", "snapshot": AKS, "comment": "true"}
    run = run_action(tmp_path, inputs, GITHUB_API_URL=api.url, PR_EVENT_NUMBER=PR)
    assert run.code == 1 and run.outputs["result"] == "fail"
    assert "::warning title=fitgate::no comment posted on #42" in run.steps["comment"].stdout
    assert api.comments == {}


def test_no_pull_request_no_comment(tmp_path: Path, api: FakeGitHub) -> None:
    inputs = {"manifests": "fixtures/manifests/01-web-small.yaml", "snapshot": AKS}
    run = run_action(tmp_path, inputs | {"comment": "true"}, GITHUB_API_URL=api.url)
    assert run.code == 0
    assert "::notice title=fitgate::not a pull request" in run.steps["comment"].stdout
    assert api.requests == []


def test_install_step_installs_this_source_like_the_image() -> None:
    """The runner's install is the image's (Dockerfile) with the action's checkout as source."""
    [install] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "install"]
    [line] = [ln for ln in install["run"].splitlines() if "pip install" in ln]
    words = shlex.split(line)
    assert words[words.index("install") + 1 :][-1] == "$GITHUB_ACTION_PATH"
    assert "--no-cache-dir" in words
    assert not [w for w in words if w.startswith(("-e", "--editable", "--index-url", "-i"))]


def test_actions_the_action_uses_take_these_inputs(tmp_path: Path) -> None:
    """actionlint knows popular actions' inputs; it checks the ``uses:`` steps of action.yml
    inside a workflow, with expressions replaced by plain values."""
    used = [
        {"uses": s["uses"], "with": {k: "x" for k in s.get("with", {})}}
        for s in ACTION["runs"]["steps"]
        if "uses" in s
    ]
    assert used
    workflow = {"on": "push", "jobs": {"a": {"runs-on": "ubuntu-24.04", "steps": used}}}
    path = tmp_path / "uses.yaml"
    path.write_text(yaml.safe_dump(workflow, sort_keys=False), encoding="utf-8")
    result = subprocess.run([tool("actionlint"), str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
