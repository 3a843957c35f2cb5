"""YAML values that are not text where the API wants text: a set, binary, a timestamp, a
number. Each reads as kubectl sends it (go.yaml.in/yaml/v2 into JSON): a timestamp is its
text, binary its decoded text (U+FFFD for bytes UTF-8 cannot hold), a set a mapping. What
the API server then refuses is the field-type ERROR, and the report is the same on every
run, whatever Python's hash seed."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.inputs.construct import construct_document
from tests.conftest import ROOT
from tests.test_api_validation import SUBDOMAIN

AKS = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
SPEC = (
    "spec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: 1Mi}}}]\n"
)


def pod(metadata: str) -> str:
    return f"apiVersion: v1\nkind: Pod\nmetadata:\n{metadata}{SPEC}"


def refused(field: str, got: str) -> str:
    return f"{field}: expected a string, not {got} (the API server refuses it)"


def run(tmp_path: Path, text: str) -> dict[str, object]:
    path = tmp_path / "w.yaml"
    path.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(io.BytesIO(), out, err, env={}, now=NOW)
    code = main(["check", str(path), "--snapshot", AKS, "--json", "-"], streams)
    assert code in (0, 1) and "Traceback" not in err.getvalue()
    (workload,) = json.loads(out.getvalue())["workloads"]
    assert isinstance(workload, dict)
    return workload


@pytest.mark.parametrize(
    ("metadata", "name", "verdict", "reason"),
    [
        pytest.param("  name: !!set {alpha, beta}\n", "(unnamed)", "ERROR",
                     refused("metadata.name", "a mapping"), id="a set name is refused"),
        pytest.param("  name: [alpha]\n", "(unnamed)", "ERROR",
                     refused("metadata.name", "a list"), id="a list name is refused"),
        pytest.param("  name: 12\n", "(unnamed)", "ERROR",
                     refused("metadata.name", "a number"), id="a number name is refused"),
        pytest.param("  name: w\n  namespace: !!set {a}\n", "w", "ERROR",
                     refused("metadata.namespace", "a mapping"), id="a set namespace is refused"),
        pytest.param("  name: w\n  labels: {version: 1}\n", "w", "ERROR",
                     refused("metadata.labels.version", "a number"),
                     id="a number label value is refused"),
        pytest.param("  name: w\n  annotations: {note: !!set {a}}\n", "w", "ERROR",
                     refused("metadata.annotations.note", "a mapping"),
                     id="a set annotation is refused"),
        pytest.param("  name: 2024-01-01\n", "2024-01-01", "YES", None,
                     id="a timestamp name is its text"),
        pytest.param("  name: !!binary d2Vi\n", "web", "YES", None,
                     id="a binary name is its decoded text"),
        pytest.param("  name: !!binary d2Vi/w==\n", "web\ufffd", "ERROR",
                     f'Pod "web\ufffd" is invalid: metadata.name: Invalid value: "web\ufffd": '
                     f"{SUBDOMAIN}",
                     id="a binary name that is not UTF-8 holds U+FFFD, which no name may"),
        pytest.param("  name: !!binary '%%%'\n", "w.yaml:1", "ERROR",
                     "!!binary value contains invalid base64 data (line 4, column 9)",
                     id="a binary name that is not base64 is refused"),
    ],
)  # fmt: skip
def test_a_name_that_is_not_text_reads_as_kubectl_sends_it(
    tmp_path: Path, metadata: str, name: str, verdict: str, reason: str | None
) -> None:
    workload = run(tmp_path, pod(metadata))
    shown = str(workload["name"]).rpartition("/")[2]
    assert (shown, workload["verdict"], workload.get("reason")) == (name, verdict, reason)


def test_a_timestamp_selector_value_matches_its_text_as_a_label(tmp_path: Path) -> None:
    text = pod("  name: w\n").replace("spec:\n", "spec:\n  nodeSelector: {built: 2024-01-01}\n")
    workload = run(tmp_path, text)
    assert workload["verdict"] == "NO"
    assert "didn't match Pod's node affinity/selector" in str(workload["message"])


def test_the_report_of_a_set_name_is_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Issue #15: a set's order changed with Python's hash seed, and the report with it."""
    path = tmp_path / "w.yaml"
    labels = ", ".join(f"k{n}" for n in range(20))
    path.write_text(pod(f"  name: !!set {{{labels}}}\n  annotations: !!set {{{labels}}}\n"))
    outputs = set()
    for seed in ("1", "2", "3"):
        result = subprocess.run(
            [sys.executable, "-m", "gate", "check", str(path), "--snapshot", AKS, "--json", "-"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=60,
            check=False,
        )
        report = json.loads(result.stdout)
        report["snapshot"].pop("age", None)
        outputs.add((result.returncode, json.dumps(report["workloads"]), result.stderr))
    assert len(outputs) == 1
    ((code, workloads, _),) = outputs
    assert code == 1 and json.loads(workloads)[0]["verdict"] == "ERROR"


JSON_TYPES = (dict, list, str, int, float, bool, type(None))
leaves = st.sampled_from([
    "word", "2024-01-01", "2001-12-14t21:59:43.1-05:00", "1", "1.5", "yes", "~", "''",
    "!!binary aGVsbG8=", "!!binary /w==", "!!timestamp 2024-01-01", "!!set {a, b}",
    "!!omap [a: 1, b: 2]", "!!pairs [a: 1, a: 2]", "!!str 1", "!!float 1", "!!int 1",
    "!!null ''", "!!bool yes", "!!set {}", "!!omap []",
])  # fmt: skip


def flow_map(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{key}: {value}" for key, value in pairs) + "}"


keys = st.sampled_from(["k", "name", "a", "2024-01-01"])
flows = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(st.tuples(keys, inner), max_size=3).map(flow_map),
        inner.map(lambda value: f"!!set {{{value}}}" if value[:1] not in "[{!" else value),
    ),
    max_leaves=10,
)


def json_only(value: object) -> bool:
    """Whether ``value`` holds nothing but what JSON can (no set, bytes, date, tuple)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if not isinstance(item, JSON_TYPES):
            return False
        if isinstance(item, dict):
            if not all(isinstance(k, JSON_TYPES) and not isinstance(k, dict | list) for k in item):
                return False
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


@settings(max_examples=300, deadline=None)
@given(flows)
def test_any_tagged_yaml_reads_as_json_values_only(text: str) -> None:
    """Whatever the tags, a manifest's data is what kubectl would send: JSON values only,
    so no report depends on a set's order or on how Python prints a date or bytes."""
    try:
        (node,) = yaml.compose_all(f"a: {text}\n", Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return
    for aliased in (False, True):
        try:
            value = construct_document(node, aliased=aliased)
        except (yaml.YAMLError, TypeError, ValueError):
            continue  # an unhashable key or a bad scalar: the document's ERROR
        assert json_only(value), value
