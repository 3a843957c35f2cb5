"""The whole command as an attacker with a pull request drives it in GitHub Actions.

Attacker-chosen text goes where a manifest lets it go -- workload, namespace, container,
label, selector and toleration names and values, file and directory names, a document that
does not parse -- and every report is written. On standard output and standard error, the
only lines that start a workflow command are fitgate's own annotations (a command the
runner knows, with only the properties fitgate writes), no escape or carriage-return byte
reaches the log, and the run answers (exit 0 or 1), never with a traceback.
"""

from __future__ import annotations

import io
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.cli import Streams, main
from tests.conftest import ROOT

AKS = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
ENV = {"GITHUB_ACTIONS": "true"}
OWN_COMMANDS = {"error", "warning", "notice"}
OWN_PROPERTIES = {"file", "line", "title"}
OWN_TITLE = "fitgate"  # every annotation fitgate writes is titled so
# What the log shows raw and a runner or a terminal reads: ESC starts terminal sequences, CR
# rewrites the line, the rest of C0 and C1 has no business in a log line.
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

INJECTIONS = [
    "web\n::stop-commands::pwnd\n::error title=x::owned",
    "::error file=.github/workflows/ci.yml,line=1::owned",
    "a\r::warning::b",
    "\x1b[2J\x1b]0;title\x07",
    "x\u2028::notice::y",
    "%0A::error::z",
    "`@admin` <img src=x> | $$x$$",
]
attacker_text = st.one_of(
    st.sampled_from(INJECTIONS),
    st.text(alphabet=st.sampled_from(list(":\n\r\x1b%,=|`<>@$ abc")), min_size=1, max_size=12),
)


def workload(texts: list[str]) -> dict[str, Any]:
    """A Deployment with attacker text in every place a manifest lets it go."""
    name, namespace, label, value, key = (texts + INJECTIONS)[:5]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {label: value}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {label: value}},
            "template": {
                "metadata": {"labels": {label: value}},
                "spec": {
                    "nodeSelector": {key: value},
                    "tolerations": [{"key": key, "operator": "Equal", "value": value}],
                    "containers": [
                        {
                            "name": name,
                            "image": value,
                            "resources": {"requests": {"cpu": "100m", key: "1"}},
                        }
                    ],
                },
            },
        },
    }


def own_annotation(line: str) -> bool:
    """Whether ``line`` is a workflow command fitgate writes, read as the runner reads it
    (ActionCommand.TryParseV2: ``::name k=v,k=v::message``)."""
    head, found, _ = line[2:].partition("::")
    if not found:
        return False
    command, _, properties = head.partition(" ")
    if command not in OWN_COMMANDS:
        return False
    pairs = dict(pair.partition("=")[::2] for pair in properties.split(",")) if properties else {}
    return set(pairs) <= OWN_PROPERTIES and pairs.get("title", "").startswith(OWN_TITLE)


def hostile_tree(root: Path, texts: list[str]) -> None:
    """A walked directory whose names, documents and one broken document are the attacker's."""
    folder = root / "deploy"
    folder.mkdir()
    file_name = "".join(c for c in texts[0] if c not in "/\x00") or "x"
    body = yaml.safe_dump(workload(texts), allow_unicode=True)
    try:
        (folder / f"{file_name[:40]}.yaml").write_text(body, encoding="utf-8")
    except OSError:  # a name this file system refuses
        (folder / "w.yaml").write_text(body, encoding="utf-8")
    broken = f"kind: Deployment\nmetadata:\n  name: {texts[-1]!r}\n  bad: [\n"
    (folder / "broken.yaml").write_text(broken, encoding="utf-8")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts=st.lists(attacker_text, min_size=5, max_size=6))
def test_no_line_an_attacker_chose_starts_a_workflow_command(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str]
) -> None:
    root = tmp_path_factory.mktemp("attack")
    hostile_tree(root, texts)
    out, err = io.StringIO(), io.StringIO()
    summary = root / "step-summary.md"
    streams = Streams(io.BytesIO(), out, err, env={**ENV, "GITHUB_STEP_SUMMARY": str(summary)},
                      now=NOW)  # fmt: skip
    reports = [f"--{kind}={root / kind}" for kind in ("json", "junit", "comment", "summary")]
    code = main(["check", str(root / "deploy"), "--snapshot", AKS, *reports], streams)
    assert code in (0, 1), err.getvalue()
    assert "Traceback" not in err.getvalue()
    for stream in (out.getvalue(), err.getvalue()):
        assert not RAW_CONTROLS.search(stream)
        for line in stream.split("\n"):
            if line.lstrip().startswith("::"):
                assert line.startswith("::") and own_annotation(line), line
    annotations = [line for line in out.getvalue().split("\n") if line.startswith("::")]
    assert annotations, "the failing workloads are annotated"
    for kind in ("comment", "summary"):
        text = (root / kind).read_text(encoding="utf-8")
        assert not any(line.startswith("::") for line in text.split("\n"))


def test_a_file_name_with_a_line_break_cannot_start_a_command(tmp_path: Path) -> None:
    folder = tmp_path / "deploy"
    folder.mkdir()
    name = "w\n::error title=owned::pwnd\n.yaml"
    try:
        (folder / name).write_text(yaml.safe_dump(workload(["web"] * 5)))
    except OSError:
        pytest.skip("the file system refuses a line break in a name")
    (folder / "broken\n::warning::x.yaml").write_text("a: [\n")
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["check", str(folder), "--snapshot", AKS], Streams(io.BytesIO(), out, err, env=ENV, now=NOW)
    )
    assert code == 1
    for line in (out.getvalue() + err.getvalue()).split("\n"):
        assert not line.startswith("::") or own_annotation(line), line
    assert "Deployment web/web" in out.getvalue()
