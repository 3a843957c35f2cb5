"""A gate that cannot be fooled or quietly switched off: each case is what a hostile (or
careless) pull request would try, with the exit code and the one line fitgate says.

The inputs are written by the tests; the time and memory a case takes are measured in
``benchmarks``, never here.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.errors import QuantityError
from gate.k8s.quantity import NEGATIVE, nonnegative_quantity
from tests.conftest import ROOT
from tests.report_schema import validate_report

AKS = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
ALLOW = "--allow-empty (allowEmpty: true) accepts a run that judges nothing"

# A Deployment that does not fit the AKS fixture: two replicas of 2 CPUs.
TOO_BIG = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: too-big, namespace: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: too-big}}
  template:
    metadata: {labels: {app: too-big}}
    spec:
      containers:
        - {name: web, image: nginx, resources: {requests: {cpu: "2", memory: 512Mi}}}
"""
NODE_LIST = """\
{"apiVersion": "v1", "kind": "NodeList", "items": [
  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "resourceVersion": "1"}}]}
"""
SERVICE = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"


def run(cwd: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(stdin=io.BytesIO(), stdout=out, stderr=err, env={}, now=NOW)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        code = main(list(argv), streams)
    return code, out.getvalue(), err.getvalue()


@dataclass(frozen=True)
class Case:
    files: dict[str, str]
    argv: tuple[str, ...]
    code: int
    said: str | None
    """The last line on standard error (None: nothing on it)."""
    extra: tuple[str, ...] = field(default=())


NOTHING = {
    "every file excluded by the configuration": Case(
        {".fitgate.yaml": 'exclude: ["*"]\n', "deploy/web.yaml": TOO_BIG},
        ("check", "deploy"),
        5,
        f'fitgate: nothing judged: every file found is excluded (1 file by "*"); {ALLOW}',
    ),
    "the failing file excluded by name": Case(
        {".fitgate.yaml": "exclude: [deploy/web.yaml]\n", "deploy/web.yaml": TOO_BIG},
        ("check", "deploy"),
        5,
        "fitgate: nothing judged: every file found is excluded "
        f'(1 file by "deploy/web.yaml"); {ALLOW}',
    ),
    "an empty manifest directory": Case(
        {"deploy/README.md": "nothing here\n"},
        ("check", "deploy"),
        5,
        "fitgate: nothing judged: no manifests found (no .yaml, .yml or .json file under the "
        f"paths given); {ALLOW}",
    ),
    "only a snapshot among the manifests": Case(
        {"deploy/nodes.json": NODE_LIST},
        ("check", "deploy"),
        5,
        "fitgate: nothing judged: only cluster snapshots or unread files found "
        "(deploy/nodes.json:1: a NodeList of cluster objects: a cluster snapshot, not "
        f"manifests; not checked); {ALLOW}",
    ),
    "documents without a pod template": Case(
        {"deploy/svc.yaml": SERVICE},
        ("check", "deploy"),
        5,
        "fitgate: nothing judged: no workload evaluated (1 document without a pod template, "
        f"0 skipped, 0 errors); {ALLOW}",
    ),
    "every workload skipped by the configuration": Case(
        {".fitgate.yaml": "skip: [{name: too-big, reason: later}]\n", "deploy/web.yaml": TOO_BIG},
        ("check", "deploy"),
        5,
        "fitgate: nothing judged: no workload evaluated (0 documents without a pod template, "
        f"1 skipped, 0 errors); {ALLOW}",
    ),
    "an empty directory allowed by the flag": Case(
        {"deploy/README.md": ""}, ("check", "deploy", "--allow-empty"), 0, None
    ),
    "an empty directory allowed by the configuration": Case(
        {".fitgate.yaml": "allowEmpty: true\n", "deploy/README.md": ""},
        ("check", "deploy"),
        0,
        None,
    ),
    "a file named on the command line is checked though excluded": Case(
        {".fitgate.yaml": 'exclude: ["*"]\n', "deploy/web.yaml": TOO_BIG},
        ("check", "deploy/web.yaml"),
        1,
        None,
    ),
    "a walk leaves it out, the same file named beside it is checked": Case(
        {".fitgate.yaml": "exclude: [deploy]\n", "deploy/web.yaml": TOO_BIG},
        ("check", "deploy", "deploy/web.yaml"),
        1,
        None,
    ),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("case", NOTHING.values(), ids=NOTHING.keys())
def test_a_run_that_judges_nothing_never_passes(tmp_path: Path, case: Case) -> None:
    _write(tmp_path, case.files)
    code, _, err = run(tmp_path, *case.argv, "--snapshot", AKS)
    assert code == case.code, err
    lines = err.splitlines()
    assert (lines[-1] if lines else None) == case.said


def _json(tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(tmp_path, "check", *argv, "--snapshot", AKS, "--json", "-")
    report = json.loads(out)
    validate_report(report)
    return code, report


def test_the_json_report_says_what_was_read_left_out_and_not_checked(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".fitgate.yaml": 'exclude: ["**/tests/*", "*.json"]\n',
            "deploy/web.yaml": TOO_BIG,
            "deploy/tests/t.yaml": TOO_BIG,
            "deploy/nodes.json": NODE_LIST,
            "deploy/nodes.yml": NODE_LIST,
        },
    )
    code, report = _json(tmp_path, "deploy")
    assert code == 1
    assert report["read"] == {
        "files": 2,
        "documents": 2,
        "excluded": [
            {"file": "deploy/nodes.json", "pattern": "*.json"},
            {"file": "deploy/tests/t.yaml", "pattern": "**/tests/*"},
        ],
        "skipped": [
            {
                "at": "deploy/nodes.yml:1",
                "reason": "a NodeList of cluster objects: a cluster snapshot, not manifests; "
                "not checked",
            }
        ],
        "config": ".fitgate.yaml",
    }
    assert "nothingJudged" not in report["summary"]


def test_a_run_that_judges_nothing_says_so_in_every_report(tmp_path: Path) -> None:
    _write(tmp_path, {".fitgate.yaml": 'exclude: ["*"]\n', "deploy/web.yaml": TOO_BIG})
    comment, junit = tmp_path / "comment.md", tmp_path / "junit.xml"
    code, out, _ = run(
        tmp_path, "check", "deploy", "--snapshot", AKS, "--comment", str(comment),
        "--junit", str(junit),
    )  # fmt: skip
    why = f'nothing judged: every file found is excluded (1 file by "*"); {ALLOW}'
    assert code == 5
    assert out.splitlines()[-3:] == [
        'Read 0 files, 0 documents; left out 1 walked file (1 by "*").',
        '    left out deploy/web.yaml: "*"',
        "0 workload(s): none. Gate FAILED: nothing judged.",
    ]
    text = comment.read_text(encoding="utf-8")
    assert "fitgate failed" in text and "nothing judged: every file found is excluded" in text
    assert "left out deploy/web.yaml" in text
    xml = junit.read_text(encoding="utf-8")
    assert '<property name="read.excluded.1" value="deploy/web.yaml: &quot;*&quot;"/>' in xml
    assert f'<property name="gate.nothingJudged" value="{why.replace(chr(34), "&quot;")}"/>' in xml
    code, report = _json(tmp_path, "deploy")
    assert (code, report["summary"]["passed"], report["summary"]["nothingJudged"]) == (
        5,
        False,
        why,
    )


def test_a_shard_given_nothing_is_no_failure_and_its_merge_judges_the_run(tmp_path: Path) -> None:
    _write(tmp_path, {"deploy/svc.yaml": SERVICE})
    shard = tmp_path / "shard.json"
    code, _, err = run(
        tmp_path, "check", "deploy", "--snapshot", AKS, "--shard", "1/1", "--json", str(shard)
    )
    assert code == 0, err
    code, _, err = run(tmp_path, "merge", str(shard))
    assert (code, err.splitlines()[-1]) == (
        5,
        "fitgate: nothing judged: no workload evaluated (1 document without a pod template, "
        f"0 skipped, 0 errors); {ALLOW}",
    )
    assert run(tmp_path, "merge", str(shard), "--allow-empty")[0] == 0


def _listed(kind: str, *items: str) -> str:
    return json.dumps(
        {"apiVersion": "v1", "kind": kind, "items": [yaml.safe_load(i) for i in items]}
    )


NODE = '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "resourceVersion": "1"}}'
MIXED = "neither a cluster snapshot nor manifests; not checked (give the snapshot and the " \
    "manifests in separate files)"  # fmt: skip
LISTS = {
    "a List of a Deployment is checked": (_listed("List", TOO_BIG), "NO", None),
    "a DeploymentList is checked": (_listed("DeploymentList", TOO_BIG), "NO", None),
    "a PodList holding a Deployment is an error": (
        _listed("PodList", TOO_BIG),
        "ERROR",
        f"a PodList of cluster objects that also holds Deployment: {MIXED}",
    ),
    "a List of a Node and a Deployment is an error": (
        _listed("List", NODE, TOO_BIG),
        "ERROR",
        f"a List of cluster objects that also holds Deployment: {MIXED}",
    ),
    "a NodeList holding a Deployment is an error": (
        _listed("NodeList", NODE, TOO_BIG),
        "ERROR",
        f"a NodeList of cluster objects that also holds Deployment: {MIXED}",
    ),
}


@pytest.mark.parametrize(("text", "verdict", "reason"), LISTS.values(), ids=LISTS.keys())
def test_a_list_is_read_by_what_it_holds(
    tmp_path: Path, text: str, verdict: str, reason: str | None
) -> None:
    _write(tmp_path, {"deploy/list.json": text})
    code, report = _json(tmp_path, "deploy")
    (workload,) = report["workloads"]
    assert (code, workload["verdict"]) == (1, verdict)
    if reason is not None:
        assert (workload["name"], workload["reason"]) == ("deploy/list.json:1", reason)


def _alias_bomb(levels: int = 12) -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, levels)]
    return "\n".join(lines) + f"\nexclude: *a{levels - 1}\n"


CONFIGS = {
    "an alias bomb": (
        _alias_bomb(),
        "fitgate: .fitgate.yaml: not YAML: document expands to more than 1,000,000 YAML nodes "
        "through aliases; refusing to load it",
    ),
    "nesting two hundred deep": (
        "exclude: " + "[" * 200 + "]" * 200 + "\n",
        "fitgate: .fitgate.yaml: exclude[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
        "[0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 32 levels",
    ),
    "more than a mebibyte": (
        "# " + "x" * (1024 * 1024) + "\n",
        "fitgate: .fitgate.yaml: longer than 1024 KiB: not read",
    ),
    "mixed label keys": (
        "skip: [{reason: r, labels: {1: x, a: y}}]\n",
        "fitgate: .fitgate.yaml: skip[0].labels: the key 1 is not a string: quote it",
    ),
    "a number as a label key": (
        "skip: [{reason: r, labels: {1: x}}]\n",
        "fitgate: .fitgate.yaml: skip[0].labels: the key 1 is not a string: quote it",
    ),
    "two documents": (
        "failOn: [ERROR]\n---\nfailOn: [NO]\n",
        "fitgate: .fitgate.yaml: not YAML: line 3: a second document: expected one",
    ),
    "a customKinds row redefining apps/v1 Deployment": (
        "customKinds: [{apiVersion: apps/v1, kind: Deployment, templates: [{path: spec}]}]\n",
        "fitgate: .fitgate.yaml: customKinds[0]: apps/v1 Deployment is a Kubernetes kind "
        "(fitgate reads its pod template itself): customKinds may not redefine it",
    ),
    "a customKinds row making Services workloads": (
        "customKinds: [{apiVersion: v1, kind: Service, templates: [{path: spec}]}]\n",
        "fitgate: .fitgate.yaml: customKinds[0]: v1 Service is a Kubernetes kind: customKinds "
        "may not redefine it",
    ),
    "a customKinds row redefining an Argo Rollout": (
        "customKinds: [{apiVersion: argoproj.io/v1alpha1, kind: Rollout, "
        "templates: [{path: spec.template.spec}]}]\n",
        "fitgate: .fitgate.yaml: customKinds[0]: argoproj.io/v1alpha1 Rollout is a kind "
        "fitgate knows: customKinds may not redefine it",
    ),
    "a value of the wrong type": (
        "exclude: {a: b}\n",
        "fitgate: .fitgate.yaml: exclude: {'a': 'b'} is not of type 'array'",
    ),
}


@pytest.mark.parametrize(("text", "said"), CONFIGS.values(), ids=CONFIGS.keys())
def test_a_hostile_configuration_is_one_line_and_exit_2(
    tmp_path: Path, text: str, said: str
) -> None:
    _write(tmp_path, {".fitgate.yaml": text, "deploy/web.yaml": TOO_BIG})
    code, out, err = run(tmp_path, "check", "deploy", "--snapshot", AKS)
    assert (code, err, out) == (2, said + "\n", "")


@pytest.mark.parametrize("depth", [2_000, 100_000], ids=["two thousand", "a hundred thousand"])
def test_a_configuration_nested_past_the_parser_s_limit_is_one_line(
    tmp_path: Path, depth: int
) -> None:
    _write(tmp_path, {".fitgate.yaml": "exclude: " + "[" * depth + "]" * depth + "\n"})
    code, out, err = run(tmp_path, "check", "deploy", "--snapshot", AKS)
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert err.startswith("fitgate: .fitgate.yaml: not YAML: "), err


@pytest.mark.parametrize(
    "expires", ["2026-08-16", "'2026-08-16'"], ids=["a bare YAML date", "a quoted date"]
)
def test_a_skip_expires_on_a_yaml_date_or_a_string(tmp_path: Path, expires: str) -> None:
    config = f"allowEmpty: true\nskip: [{{name: too-big, reason: later, expires: {expires}}}]\n"
    _write(tmp_path, {".fitgate.yaml": config, "deploy/web.yaml": TOO_BIG})
    code, report = _json(tmp_path, "deploy")
    (workload,) = report["workloads"]
    assert (code, workload["verdict"], workload["reason"]) == (
        0,
        "SKIPPED",
        "skipped by .fitgate.yaml: later",
    )


def _with_resources(resources: str, overhead: str = "") -> str:
    """TOO_BIG with the container's ``resources`` (flow YAML) and the pod's ``overhead``."""
    container = "{name: web, image: nginx, resources: {" + resources + "}}"
    text = TOO_BIG.replace(TOO_BIG.splitlines()[-1], f"        - {container}")
    return text + (f"      overhead: {overhead}\n" if overhead else "")


# Kubernetes ValidateResourceQuantityValue -> ValidateNonnegativeQuantity
# (pkg/apis/core/validation/validation.go): a negative quantity in a container's requests or
# limits, or in a pod's overhead, is refused with isNegativeErrorMsg, "must be greater than
# or equal to 0", beside the template's other errors; the pod is never created, so the
# workload is an ERROR, never a fit.
FIELD = "spec.template.spec"
INVALID = 'Deployment.apps "too-big" is invalid: '
QUANTITIES = {
    "a negative cpu request": (
        _with_resources('requests: {cpu: "-1"}'),
        f'{INVALID}{FIELD}.containers[0].resources.requests[cpu]: Invalid value: "-1": must be '
        "greater "
        "than or equal to 0",
    ),
    "a negative memory request given as a YAML word": (
        _with_resources("requests: {memory: -5Mi}"),
        f'{INVALID}{FIELD}.containers[0].resources.requests[memory]: Invalid value: "-5Mi": '
        "must be "
        "greater than or equal to 0",
    ),
    "a negative integer limit, below its request too": (
        _with_resources("requests: {cpu: 1}, limits: {cpu: -2}"),
        f'{INVALID}[{FIELD}.containers[0].resources.limits[cpu]: Invalid value: "-2": must be '
        "greater "
        f'than or equal to 0, {FIELD}.containers[0].resources.requests: Invalid value: "1": '
        "must be less than or equal to cpu limit of -2]",
    ),
    "a negative overhead": (
        _with_resources('requests: {cpu: "1"}', overhead='{memory: "-1Gi"}'),
        f'{INVALID}{FIELD}.overhead.limits[memory]: Invalid value: "-1Gi": must be greater '
        "than or equal "
        "to 0",
    ),
    "a malformed limit": (
        _with_resources("requests: {cpu: 1}, limits: {memory: lots}"),
        f'{FIELD}.containers[0].resources.limits.memory: invalid quantity "lots"',
    ),
}


@pytest.mark.parametrize(("text", "reason"), QUANTITIES.values(), ids=QUANTITIES.keys())
def test_a_quantity_the_api_server_refuses_is_an_error(
    tmp_path: Path, text: str, reason: str
) -> None:
    _write(tmp_path, {"deploy/web.yaml": text})
    code, report = _json(tmp_path, "deploy")
    (workload,) = report["workloads"]
    assert (code, workload["verdict"], workload["reason"]) == (1, "ERROR", reason)


@given(
    whole=st.integers(max_value=0),
    fraction=st.integers(min_value=0, max_value=999),
    suffix=st.sampled_from(["", "m", "k", "Mi", "Gi", "e3"]),
)
def test_every_negative_quantity_is_refused_and_zero_is_not(
    whole: int, fraction: int, suffix: str
) -> None:
    if (whole, fraction) != (0, 0):
        with pytest.raises(QuantityError, match=f"{NEGATIVE}$"):
            nonnegative_quantity(f"-{-whole}.{fraction:03d}{suffix}")
    assert nonnegative_quantity(f"-0{suffix}") == 0


TEMPLATES = {
    "an integer of three hundred million digits": (
        "{{ 10**300000000 }}",
        "line 1: an integer of more than 4096 bits",
    ),
    "a product of two huge integers": (
        "{{ (10**1000) * (10**1000) }}",
        "line 1: an integer of more than 4096 bits",
    ),
    "a format width of two billion by %": (
        'ok\n{{ "%2000000000d" % 1 }}',
        "line 2: format width 2000000000 is past 10000",
    ),
    "a format width of two billion by str.format": (
        '{{ "{:2000000000}".format(1) }}',
        "line 1: format width 2000000000 is past 10000",
    ),
    "a format width of two billion by the filter": (
        '{{ "%2000000000s" | format(1) }}',
        "line 1: format width 2000000000 is past 10000",
    ),
    "a string of three billion characters": (
        '{{ "a" * 3000000000 }}',
        "line 1: a repetition longer than 8388608 items",
    ),
    "a list of three billion items": (
        "{{ [1] * 3000000000 }}",
        "line 1: a repetition longer than 8388608 items",
    ),
    "a macro calling itself": (
        "{% macro f(n) %}{{ f(n) }}{% endmacro %}\n{{ f(1) }}",
        "line 1: recursion too deep (a macro calling itself without end?)",
    ),
    "output past its budget": (
        "{% for i in range(100000) %}{{ 'x' * 100 }}{% endfor %}",
        "the output passed 8388608 characters",
    ),
    "a syntax error": (
        "\n\n{% if %}",
        "line 3: Expected an expression, got 'end of statement block'",
    ),
}


@pytest.mark.parametrize(("template", "why"), TEMPLATES.values(), ids=TEMPLATES.keys())
def test_a_template_past_its_budget_is_one_line_and_exit_2(
    tmp_path: Path, template: str, why: str
) -> None:
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG, "t.j2": template})
    code, _, err = run(
        tmp_path, "check", "deploy", "--snapshot", AKS, "--comment", "c.md",
        "--comment-template", "t.j2",
    )  # fmt: skip
    separator = ": " if why.startswith("the output") else ", "
    assert (code, err) == (2, f"fitgate: comment template t.j2{separator}{why}\n")
    assert not (tmp_path / "c.md").exists()


def _snapshot_named(tmp_path: Path, context: str | None) -> Path:
    snapshot = json.loads(Path(AKS).read_text(encoding="utf-8"))
    if context is None:
        del snapshot["source"]["context"]
    else:
        snapshot["source"]["context"] = context
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "template", [None, "{{ cluster }}{{ cluster }}"], ids=["the shipped template", "a user's"]
)
def test_the_comment_fits_github_s_limit_whatever_the_context_name(
    tmp_path: Path, template: str | None
) -> None:
    # Every "_" is escaped as "&#95;": one occurrence of the name is 100,000 characters.
    snapshot = _snapshot_named(tmp_path, "_" * 20_000)
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG, "t.j2": template or ""})
    flags = ("--comment-template", "t.j2") if template else ()
    code, _, err = run(
        tmp_path, "check", "deploy", "--snapshot", str(snapshot), "--comment", "c.md", *flags
    )
    comment = (tmp_path / "c.md").read_text(encoding="utf-8")
    assert code == 1, err
    assert len(comment.encode("utf-8")) <= 65_536
    assert comment.startswith("<!-- fitgate:" + "&#95;" * 200 + "… -->\n**fitgate failed on ")


def test_a_failing_workloads_field_is_found_in_its_own_document_not_its_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 15 MiB List's cost (benchmarks/hostile.py): each failing workload's line is
    found by composing its own document again, never the file it is in."""
    padding = "".join(
        f"  - {{kind: ConfigMap, apiVersion: v1, metadata: {{name: c{n}}}}}\n" for n in range(2_000)
    )
    items = [
        "  - " + TOO_BIG.replace("too-big", f"too-big-{n}").replace("\n", "\n    ").rstrip() + "\n"
        for n in range(5)
    ]
    _write(
        tmp_path,
        {"deploy/list.yaml": "apiVersion: v1\nkind: List\nitems:\n" + padding + "".join(items)},
    )
    composed: list[int] = []
    real = yaml.compose

    def counted(text: str, **kwargs: Any) -> Any:
        composed.append(len(text))
        return real(text, **kwargs)

    monkeypatch.setattr("gate.inputs.positions.yaml.compose", counted)
    code, report = _json(tmp_path, "deploy")
    assert code == 1 and [w["field"]["line"] for w in report["workloads"]] == [
        2_014 + 11 * n
        for n in range(5)  # the padding's 2,000 lines, 11 a Deployment
    ]
    assert len(composed) == 5 and max(composed) < 2 * len(items[0])


def test_a_closed_standard_output_is_a_quiet_exit_with_the_run_s_code(tmp_path: Path) -> None:
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    command = [sys.executable, "-m", "gate", "check", "deploy", "--snapshot", AKS]
    quoted = " ".join(shlex.quote(c) for c in command)
    found = subprocess.run(
        ["sh", "-c", f"{quoted} >&-"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert (found.returncode, found.stderr) == (1, "")
    found = subprocess.run(
        ["sh", "-c", f"{quoted} --json - >&-"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (found.returncode, found.stderr) == (
        2,
        "fitgate: --json -: standard output is closed: give the report a file\n",
    )


def test_merge_reads_a_shard_report_of_a_snapshot_whose_name_is_not_utf8(tmp_path: Path) -> None:
    # No context: the reports name the cluster by the file's stem, which holds byte 0xff.
    source = _snapshot_named(tmp_path, None)
    snapshot = tmp_path / os.fsdecode(b"prod\xff.json")
    source.rename(snapshot)
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    code, _, err = run(
        tmp_path,
        "check",
        "deploy",
        "--snapshot",
        str(snapshot),
        "--shard",
        "1/1",
        "--json",
        "s.json",
    )
    shard = (tmp_path / "s.json").read_bytes()
    assert code == 1, err
    assert b'"cluster": "prod\xef\xbf\xbd"' in shard  # U+FFFD, as UTF-8
    code, out, err = run(tmp_path, "merge", "s.json", "--json", "-")
    assert (code, err) == (1, "")
    assert json.loads(out)["summary"]["NO"] == 1


def _snapshot_taken(tmp_path: Path, captured: str | None) -> Path:
    snapshot = json.loads(Path(AKS).read_text(encoding="utf-8"))
    if captured is None:
        del snapshot["capturedAt"]
    else:
        snapshot["capturedAt"] = captured
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot), encoding="utf-8")
    return path


NO_TIME = (
    "fitgate: {source}: the snapshot records no capture time, so the maximum age of 7d "
    "(maxSnapshotAge, --max-snapshot-age) cannot be checked: give it with "
    "--snapshot-captured-at TIME, or --snapshot-captured-at mtime for the file's "
    "modification time"
)
AGES = {
    "no capture time with a maximum age": (None, ("--max-snapshot-age", "7d"), 2, NO_TIME),
    "no capture time with a maximum age in the configuration": (
        None,
        ("--config", "c.yaml"),
        2,
        NO_TIME,
    ),
    "no capture time and no maximum age": (None, (), 1, None),
    "no capture time given by the flag": (
        None,
        ("--max-snapshot-age", "7d", "--snapshot-captured-at", "2026-08-16T12:00:00Z"),
        1,
        None,
    ),
    "no capture time given by the flag, too old": (
        None,
        ("--max-snapshot-age", "7d", "--snapshot-captured-at", "2026-08-01T12:00:00Z"),
        2,
        "fitgate: {source}: the snapshot was taken 2026-08-01T12:00:00Z, 15d 1h ago, older "
        "than the maximum age of 7d (maxSnapshotAge, --max-snapshot-age): record a new one "
        "with fitgate snapshot",
    ),
    "a recorded time is kept over the flag": (
        "2026-08-01T12:00:00Z",
        ("--max-snapshot-age", "7d", "--snapshot-captured-at", "2026-08-16T12:00:00Z"),
        2,
        "fitgate: {source}: the snapshot was taken 2026-08-01T12:00:00Z, 15d 1h ago, older "
        "than the maximum age of 7d (maxSnapshotAge, --max-snapshot-age): record a new one "
        "with fitgate snapshot",
    ),
    "a capture time an hour in the future": (
        "2026-08-16T14:05:00Z",
        (),
        2,
        "fitgate: {source}: the snapshot was taken 2026-08-16T14:05:00Z, 1h 0m from now: a "
        "capture time more than 5m in the future cannot be trusted (is a clock wrong?)",
    ),
    "a capture time four minutes ahead (clock skew)": ("2026-08-16T13:09:00Z", (), 1, None),
    "a flag that is no time": (
        None,
        ("--snapshot-captured-at", "yesterday"),
        2,
        "fitgate check: argument --snapshot-captured-at: 'yesterday': expected an RFC 3339 "
        "time such as 2026-08-16T10:00:00Z, or mtime; see fitgate check --help",
    ),
}


@pytest.mark.parametrize(("captured", "flags", "code", "said"), AGES.values(), ids=AGES.keys())
def test_a_snapshot_of_unknown_or_future_age_is_refused(
    tmp_path: Path, captured: str | None, flags: tuple[str, ...], code: int, said: str | None
) -> None:
    snapshot = _snapshot_taken(tmp_path, captured)
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG, "c.yaml": "maxSnapshotAge: 7d\n"})
    found, _, err = run(tmp_path, "check", "deploy", "--snapshot", str(snapshot), *flags)
    lines = err.splitlines()
    expected = said.format(source=snapshot) if said else None
    assert (found, lines[-1] if lines else None) == (code, expected)


def test_the_file_s_modification_time_is_used_when_opted_into(tmp_path: Path) -> None:
    snapshot = _snapshot_taken(tmp_path, None)
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    flags = ("--max-snapshot-age", "1d", "--snapshot-captured-at", "mtime", "--json", "-")
    ten_days_ago = NOW.timestamp() - 10 * 86400
    os.utime(snapshot, (ten_days_ago, ten_days_ago))
    code, _, err = run(tmp_path, "check", "deploy", "--snapshot", str(snapshot), *flags)
    assert (code, err) == (
        2,
        f"fitgate: {snapshot}: the snapshot was taken 2026-08-06T13:05:00Z, 10d ago, older "
        "than the maximum age of 1d (maxSnapshotAge, --max-snapshot-age): record a new one "
        "with fitgate snapshot\n",
    )
    an_hour_ago = NOW.timestamp() - 3600
    os.utime(snapshot, (an_hour_ago, an_hour_ago))
    code, out, err = run(tmp_path, "check", "deploy", "--snapshot", str(snapshot), *flags)
    assert (code, json.loads(out)["snapshot"]["capturedAt"]) == (1, "2026-08-16T12:05:00Z"), err


GIVEN_BY = {
    "the file's modification time": (
        "mtime",
        "the file's modification time (--snapshot-captured-at mtime)",
    ),
    "a time on the command line": ("2026-08-16T12:05:00Z", "--snapshot-captured-at"),
}


@pytest.mark.parametrize(("flag", "given_by"), GIVEN_BY.values(), ids=GIVEN_BY.keys())
def test_a_capture_time_the_snapshot_does_not_record_is_said_to_be_given(
    tmp_path: Path, flag: str, given_by: str
) -> None:
    """The age check passes on a time fitgate was told, so every report says who told it,
    and merge keeps it."""
    snapshot = _snapshot_taken(tmp_path, None)
    an_hour_ago = NOW.timestamp() - 3600
    os.utime(snapshot, (an_hour_ago, an_hour_ago))
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    flags = ("--max-snapshot-age", "1d", "--snapshot-captured-at", flag)
    code, out, _ = run(tmp_path, "check", "deploy", "--snapshot", str(snapshot), *flags)
    assert code == 1
    assert f"taken 2026-08-16T12:05:00Z (1h 0m ago; given by {given_by})" in out.splitlines()[0]
    code, out, _ = run(
        tmp_path,
        "check",
        "deploy",
        "--snapshot",
        str(snapshot),
        *flags,
        "--shard",
        "1/1",
        "--json",
        "shard.json",
    )
    assert json.loads((tmp_path / "shard.json").read_text())["snapshot"]["capturedAtGivenBy"] == (
        given_by
    )
    code, out, _ = run(tmp_path, "merge", "shard.json", "--json", "-")
    assert json.loads(out)["snapshot"]["capturedAtGivenBy"] == given_by


OUTPUTS = {
    "json": "--json",
    "junit": "--junit",
    "sarif": "--sarif",
    "markdown": "--comment",
}


@pytest.mark.parametrize(("output", "flag"), OUTPUTS.items(), ids=OUTPUTS.keys())
def test_output_writes_that_report_to_standard_output(
    tmp_path: Path, output: str, flag: str
) -> None:
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    code, out, err = run(tmp_path, "check", "deploy", "--snapshot", AKS, "-o", output)
    written, _, _ = run(tmp_path, "check", "deploy", "--snapshot", AKS, flag, "report")
    assert (code, written) == (1, 1), err
    assert out == (tmp_path / "report").read_text(encoding="utf-8")


def test_output_text_is_the_summary(tmp_path: Path) -> None:
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    chosen = run(tmp_path, "check", "deploy", "--snapshot", AKS, "--output", "text")
    assert chosen == run(tmp_path, "check", "deploy", "--snapshot", AKS)


def test_merge_writes_its_report_to_standard_output_too(tmp_path: Path) -> None:
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    run(tmp_path, "check", "deploy", "--snapshot", AKS, "--shard", "1/1", "--json", "s.json")
    code, out, err = run(tmp_path, "merge", "s.json", "-o", "json")
    assert (code, json.loads(out)["summary"]["NO"]) == (1, 1), err


USAGE = {
    "a template without a comment": (
        ("--comment-template", "t.j2"),
        "fitgate: --comment-template shapes the comment: give --comment FILE (or -o markdown) too",
    ),
    "-o json and --json to a file": (
        ("-o", "json", "--json", "r.json"),
        "fitgate: -o json writes the json report to standard output and --json to r.json: "
        "give one of them",
    ),
    "-o text and --json -": (
        ("-o", "text", "--json", "-"),
        "fitgate: -o text and --json - would both go to standard output",
    ),
    "-o json and --sarif -": (
        ("-o", "json", "--sarif", "-"),
        "fitgate: --json and --sarif would all go to standard output (-): give all but one of "
        "them a file",
    ),
    "an unknown option": (
        ("--fail-onn", "NO"),
        "fitgate check: unrecognized arguments: --fail-onn NO (did you mean --fail-on?); "
        "see fitgate check --help",
    ),
}


@pytest.mark.parametrize(("flags", "said"), USAGE.values(), ids=USAGE.keys())
def test_a_usage_error_is_one_line_naming_what_to_read(
    tmp_path: Path, flags: tuple[str, ...], said: str
) -> None:
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG, "t.j2": "{{ cluster }}"})
    code, out, err = run(tmp_path, "check", "deploy", "--snapshot", AKS, *flags)
    assert (code, out, err) == (2, "", said + "\n")


def test_an_unknown_option_of_merge_names_merge_s_help(tmp_path: Path) -> None:
    code, _, err = run(tmp_path, "merge", "s.json", "--shard", "1/2")
    assert (code, err) == (
        2,
        "fitgate merge: unrecognized arguments: --shard 1/2; see fitgate merge --help\n",
    )


def test_an_unknown_output_format_is_one_line_naming_the_help(tmp_path: Path) -> None:
    code, out, err = run(tmp_path, "check", "deploy", "-o", "yaml")
    assert (code, out, err.count("\n")) == (2, "", 1)
    # How argparse quotes the choices differs between Python versions.
    assert err.startswith("fitgate check: argument -o/--output: invalid choice: 'yaml'")
    assert err.endswith("; see fitgate check --help\n")


NIGHTLY = (ROOT / "fixtures" / "manifests" / "03-batch-tolerates-system.yaml").read_text("utf-8")
POLICY = """\
failOn: ["NO", ADDON_ONLY]
allowAddonOnly: [{kind: CronJob, namespace: batch, reason: reports run on the system pool}]
skip:
  - {name: too-big, reason: moves with the new pool, expires: 2026-12-31}
  - {name: old-*, reason: long gone, expires: 2026-01-31}
"""


def test_what_the_reviewer_sees_is_what_was_decided(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {".fitgate.yaml": POLICY, "deploy/nightly.yaml": NIGHTLY, "deploy/web.yaml": TOO_BIG},
    )
    code, out, err = run(
        tmp_path, "check", "deploy", "--snapshot", AKS, "--comment", "c.md", "--junit", "j.xml"
    )
    allowed = "allowed by .fitgate.yaml: reports run on the system pool"
    assert code == 0, err
    assert f"              {allowed}; only CriticalAddonsOnly (system) nodes fit: " in out
    comment = (tmp_path / "c.md").read_text(encoding="utf-8")
    assert (
        "**Policy:**\n"
        "- fails on NO, ADDON&#95;ONLY (failOn in .fitgate.yaml; the default is NO, "
        "ADDON&#95;ONLY, PARTIAL, ERROR)\n"
        "- ADDON&#95;ONLY allowed for CronJob batch/&#42;: reports run on the system pool\n"
        "- skipped: &#42; &#42;/too-big until 2026-12-31: moves with the new pool\n\n"
    ) in comment  # the expired skip is not in force
    assert f"| {allowed}; only CriticalAddonsOnly (system) nodes fit: " in comment
    junit = (tmp_path / "j.xml").read_text(encoding="utf-8")
    assert f"<system-out>ADDON_ONLY: {allowed}; only CriticalAddonsOnly" in junit
    assert "not in --fail-on" not in junit


def test_a_fail_on_flag_is_stated_in_the_comment(tmp_path: Path) -> None:
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    flags = ("--fail-on", "ERROR", "--comment", "c.md")
    code, _, err = run(tmp_path, "check", "deploy", "--snapshot", AKS, *flags)
    comment = (tmp_path / "c.md").read_text(encoding="utf-8")
    assert code == 0, err
    assert (
        "- fails on ERROR (--fail-on; the default is NO, ADDON&#95;ONLY, PARTIAL, ERROR)\n"
        in comment
    )


def test_a_run_that_judges_nothing_is_an_error_annotation_in_github_actions(
    tmp_path: Path,
) -> None:
    _write(tmp_path, {"deploy/svc.yaml": SERVICE})
    out, err = io.StringIO(), io.StringIO()
    env = {"GITHUB_ACTIONS": "true"}
    streams = Streams(stdin=io.BytesIO(), stdout=out, stderr=err, env=env, now=NOW)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        code = main(["check", "deploy", "--snapshot", AKS, "--no-step-summary"], streams)
    assert code == 5
    assert out.getvalue().splitlines()[-1] == (
        "::error title=fitgate::nothing judged: no workload evaluated (1 document without a "
        f"pod template, 0 skipped, 0 errors); {ALLOW}"
    )


def test_thousands_of_excluded_files_are_counted_not_listed_in_the_summary(
    tmp_path: Path,
) -> None:
    files = {f"deploy/charts/c{n:04}.yaml": SERVICE for n in range(2_000)}
    _write(tmp_path, {".fitgate.yaml": "exclude: [deploy/charts]\n", **files})
    _write(tmp_path, {"deploy/web.yaml": TOO_BIG})
    code, out, _ = run(tmp_path, "check", "deploy", "--snapshot", AKS, "--comment", "c.md")
    lines = out.splitlines()
    start = lines.index(
        'Read 1 file, 1 document; left out 2000 walked files (2000 by "deploy/charts").'
    )
    assert code == 1
    assert lines[start + 1 : start + 3] == [
        '    left out deploy/charts/c0000.yaml: "deploy/charts"',
        '    left out deploy/charts/c0001.yaml: "deploy/charts"',
    ]
    assert lines[start + 11] == "    ... and 1990 more left out (see the JSON report)"
    assert len((tmp_path / "c.md").read_text(encoding="utf-8")) < 10_000
    code, report = _json(tmp_path, "deploy")
    assert len(report["read"]["excluded"]) == 2_000


@pytest.mark.parametrize("key", ["", "bad key", "-leading"], ids=["empty", "space", "dash"])
def test_template_labels_the_api_server_refuses_are_an_error_not_a_traceback(
    tmp_path: Path, key: str
) -> None:
    """A key no label may have (apimachinery validation IsQualifiedName, which
    ValidatePodTemplateSpec applies to the template's labels) makes the workload an ERROR
    in the API server's words."""
    small = TOO_BIG.replace('cpu: "2"', "cpu: 100m").replace("replicas: 2", "replicas: 3")
    labels = json.dumps({key: "x", "app": "too-big"})
    _write(
        tmp_path, {"web.yaml": small.replace("{labels: {app: too-big}}", f"{{labels: {labels}}}")}
    )
    code, out, err = run(tmp_path, "check", "web.yaml", "--snapshot", AKS)
    assert "Traceback" not in err
    assert code == 1
    assert "ERROR       Deployment web/too-big" in out
    assert f"spec.template.labels: Invalid value: {json.dumps(key)}: name part " in out
