"""The field that made the no: each reason family's cause, the manifest line it points at,
and how far the request is from a fit (docs/reference.md, "The field that made the no")."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.inputs.manifests import read_documents
from gate.inputs.positions import display, parse_path
from gate.model import Family, FieldLocation, NodeView, Term, Verdict, WorkloadResult
from gate.run import RunOptions, check
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.snapshot.load import load_snapshot
from tests.conftest import ROOT
from tests.test_cli import NOW


def _at(path: str, line: int, value: str = "", partial: bool = False) -> FieldLocation:
    """A field found outside any overlay: its value "" when not a scalar."""
    return FieldLocation(path, line, value, partial)


Golden = Callable[[str, str], None]
DATA = Path("tests/data/fields")
SNAPSHOT = str(DATA / "snapshot.json")
MANIFESTS = str(DATA / "manifests")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _results(*paths: str, stdin: bytes = b"") -> dict[str, WorkloadResult]:
    documents = read_documents(list(paths), io.BytesIO(stdin))
    report = check(documents, load_snapshot(SNAPSHOT), RunOptions())
    return {r.title: r for r in report.results}


@pytest.fixture(scope="module")
def results() -> dict[str, WorkloadResult]:
    return _results(str(ROOT / MANIFESTS))


# title -> (verdict, family, term, field path, line, value)
CASES = {
    "the largest request among containers": (
        "Deployment web/api",
        Verdict.NO,
        Family.RESOURCES,
        Term.REQUEST,
        _at("containers[1].resources.requests.cpu", 24, "9", partial=True),
    ),
    "a request defaulted from its limit points at the limit": (
        "CronJob batch/report",
        Verdict.NO,
        Family.RESOURCES,
        Term.REQUEST,
        _at("containers[0].resources.limits.memory", 45, "40Gi"),
    ),
    "a nodeSelector no node matches": (
        "Deployment web/memory-heavy",
        Verdict.NO,
        Family.SELECTOR,
        Term.NODE_SELECTOR,
        _at("nodeSelector", 11, ""),
    ),
    "a node affinity term no node matches": (
        "StatefulSet web/zoned",
        Verdict.NO,
        Family.SELECTOR,
        Term.NODE_AFFINITY,
        _at(
            "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            ".nodeSelectorTerms[0]",
            33,
        ),
    ),
    "a toleration with the wrong value": (
        "Deployment ml/trainer",
        Verdict.NO,
        Family.TAINTS,
        Term.TOLERATIONS,
        _at("tolerations", 10),
    ),
    "no toleration at all points at the pod spec": (
        "Job ml/untolerant",
        Verdict.NO,
        Family.TAINTS,
        Term.TOLERATIONS,
        _at("spec.template.spec", 24),
    ),
    "a host port every node has taken": (
        "Deployment monitoring/exporter-copy",
        Verdict.NO,
        Family.PORTS,
        Term.HOST_PORT,
        _at("containers[1].ports[0].hostPort", 18, "9100"),
    ),
    "a pod affinity term no pod satisfies": (
        "Deployment web/beside-db",
        Verdict.NO,
        Family.AFFINITY,
        Term.POD_AFFINITY,
        _at("affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]", 14),
    ),
    "the second anti-affinity term is the one at fault": (
        "Deployment monitoring/away-from-exporters",
        Verdict.NO,
        Family.AFFINITY,
        Term.POD_ANTI_AFFINITY,
        _at("affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[1]", 36),
    ),
    "the hard spread constraint, not the soft one before it": (
        "Deployment web/racked",
        Verdict.NO,
        Family.SPREAD,
        Term.SPREAD,
        _at("topologySpreadConstraints[1]", 16),
    ),
    "an add-on-only workload points at what keeps it off the user nodes": (
        "Deployment batch/big-batch",
        Verdict.ADDON_ONLY,
        Family.RESOURCES,
        Term.REQUEST,
        _at("containers[0].resources.requests.cpu", 16, "12"),
    ),
}


@pytest.mark.parametrize(("title", "verdict", "family", "term", "field"), CASES.values(), ids=CASES)
def test_each_family_points_at_its_field(
    results: dict[str, WorkloadResult],
    title: str,
    verdict: Verdict,
    family: Family,
    term: Term,
    field: FieldLocation,
) -> None:
    result = results[title]
    assert result.verdict is verdict
    assert result.cause is not None
    assert (result.cause.family, result.cause.term) == (family, term)
    assert result.field_at == field


DISTANCES = {
    "the pod's total against the largest free on a user node": (
        "Deployment web/api",
        ("9100m", "7500m", False),
    ),
    "memory in a binary suffix": ("CronJob batch/report", ("40Gi", "32640Mi", False)),
    "no node passes the filters after NodeResourcesFit": ("Pod web/lonely", ("12", None, False)),
}


@pytest.mark.parametrize(("title", "expected"), DISTANCES.values(), ids=DISTANCES)
def test_distance_to_a_fit(
    results: dict[str, WorkloadResult], title: str, expected: tuple[str, str | None, bool]
) -> None:
    cause = results[title].cause
    assert cause is not None
    assert (cause.requested, cause.free, cause.free_on_addon) == expected


def test_fields_text_annotations_and_junit(tmp_path: Path, golden: Golden) -> None:
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(
        stdin=io.BytesIO(b""), stdout=out, stderr=err, env={"GITHUB_ACTIONS": "true"}, now=NOW
    )
    junit = tmp_path / "fields.xml"
    code = main(["check", MANIFESTS, "--snapshot", SNAPSHOT, "--junit", str(junit)], streams)
    assert code == 1
    golden("fields/check.txt", out.getvalue())
    golden("fields/junit.xml", junit.read_text(encoding="utf-8"))


def test_json_and_list_items_are_located_too(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(
        '{"kind": "List", "apiVersion": "v1", "items": [\n'
        '  {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"},\n'
        '   "spec": {"tolerations": [{"operator": "Exists"}],\n'
        '     "containers": [{"name": "a", "image": "a",\n'
        '     "resources": {"requests": {"cpu": "64"}}}]}},\n'
        '  {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "b"},\n'
        '   "spec": {"tolerations": [{"operator": "Exists"}], "nodeSelector": {"pool": "none"},\n'
        '     "containers": [{"name": "b", "image": "b"}]}}\n'
        "]}\n",
        encoding="utf-8",
    )
    found = _results(str(listed))
    assert found["Pod default/a"].field_at == _at("containers[0].resources.requests.cpu", 5, "64")
    assert found["Pod default/b"].field_at == _at("nodeSelector", 7)


def test_a_one_line_list_composes_each_failing_item_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``kubectl get -o json`` compact: 200 Deployments on one line. Each failing item's
    field is found composing that item's text, never text as long as the line: padded to
    its column, the 200 compositions read the 200-item line again each time."""
    item = (
        '{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w%d"}, '
        '"spec": {"selector": {"matchLabels": {"a": "w"}}, "template": {'
        '"metadata": {"labels": {"a": "w"}}, "spec": {"tolerations": [{"operator": "Exists"}], '
        '"containers": [{"name": "c", "image": "c", '
        '"resources": {"requests": {"cpu": "64"}}}]}}}}'
    )
    listed = tmp_path / "list.json"
    line = '{"kind": "List", "apiVersion": "v1", "items": [%s]}\n'
    listed.write_text(line % ", ".join(item % n for n in range(200)), encoding="utf-8")
    composed: list[int] = []
    real = yaml.compose

    def counting(text: str, **options: Any) -> Any:
        composed.append(len(text))
        return real(text, **options)

    monkeypatch.setattr(yaml, "compose", counting)  # as gate.inputs.positions calls it
    found = _results(str(listed))
    assert found["Deployment default/w199"].field_at == FieldLocation(
        "containers[0].resources.requests.cpu", 1, "64", False
    )
    assert len(composed) == 200 and max(composed) <= len(item) + 10


def test_a_document_after_a_broken_one_keeps_its_lines() -> None:
    stream = (
        b"kind: Pod\napiVersion: v1\nmetadata: {name: broken}\nspec: [\n---\n"
        b"kind: Pod\napiVersion: v1\nmetadata: {name: after}\nspec:\n"
        b"  tolerations: [{operator: Exists}]\n  nodeSelector: {pool: none}\n"
        b"  containers: [{name: a, image: a}]\n"
    )
    found = _results("-", stdin=stream)
    assert found["Pod default/after"].field_at == _at("nodeSelector", 11)


def test_merge_keys_and_argo_templates_are_followed(tmp_path: Path) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(
        "x-requests: &big\n  requests: {cpu: '64'}\n"
        "---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: merged}\nspec:\n"
        "  tolerations: [{operator: Exists}]\n"
        "  containers:\n    - name: a\n      image: a\n      resources:\n"
        "        <<: {requests: {cpu: '64'}}\n"
        "---\n"
        "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: wf}\nspec:\n"
        "  entrypoint: main\n  tolerations: [{operator: Exists}]\n"
        "  templates:\n    - name: main\n      container:\n"
        "        image: a\n        resources: {requests: {cpu: '64'}}\n",
        encoding="utf-8",
    )
    found = _results(str(manifest))
    merged = found["Pod default/merged"].field_at
    assert merged == _at("containers[0].resources.requests.cpu", 13, "64")
    argo = found["Workflow default/wf [main]"].field_at
    assert argo == _at("containers[0].resources.requests.cpu", 25, "64")


PATHS = {
    "a core kind": ("spec.template.spec", ("spec", "template", "spec")),
    "an entry of a list": ("spec.tasks[1].template.spec", ("spec", "tasks", 1, "template", "spec")),
    "a map entry": (
        "spec.tfReplicaSpecs.Worker.template.spec",
        ("spec", "tfReplicaSpecs", "Worker", "template", "spec"),
    ),
    "a workloadRef is no path": ("spec.workloadRef -> Deployment web/api spec.template.spec", None),
    "empty": ("", None),
}


@pytest.mark.parametrize(("dotted", "steps"), PATHS.values(), ids=PATHS)
def test_template_paths(dotted: str, steps: tuple[str | int, ...] | None) -> None:
    parsed = parse_path(dotted)
    assert parsed == steps
    if steps is not None:
        assert display(steps) == dotted


def _node(name: str, cpu: int, used: int) -> NodeView:
    return NodeView(
        name=name,
        labels={},
        taints=(),
        unschedulable=False,
        allocatable={"cpu": cpu},
        requested={"cpu": used},
        pod_count=0,
    )


@given(
    st.lists(st.tuples(st.integers(0, 8000), st.integers(0, 8000)), min_size=1, max_size=40),
    st.integers(min_value=0),
)
def test_largest_free_is_the_maximum_over_the_set(
    amounts: list[tuple[int, int]], chosen: int
) -> None:
    index = NodeIndex.of(_node(f"n{i}", cpu, used) for i, (cpu, used) in enumerate(amounts))
    among = chosen & index.everyone
    expected = max(
        (cpu - used for i, (cpu, used) in enumerate(amounts) if among >> i & 1), default=None
    )
    assert index.largest_free("cpu", among) == expected


MORE = {
    "hostNetwork makes the container port the host port": (
        "Pod default/host-network",
        _at("containers[0].ports[0].containerPort", 13, "9100"),
    ),
    "an init container asking more than the app": (
        "Pod default/big-init",
        _at("initContainers[0].resources.requests.cpu", 23, "20"),
    ),
    "pod-level resources": (
        "Pod default/pod-level",
        _at("resources.requests.cpu", 35, "20"),
    ),
}


@pytest.mark.parametrize(("title", "field"), MORE.values(), ids=MORE)
def test_fields_only_some_specs_have(title: str, field: FieldLocation) -> None:
    assert _results(str(ROOT / DATA / "more.yaml"))[title].field_at == field


def test_a_field_value_from_the_manifest_stays_on_one_line(tmp_path: Path) -> None:
    manifest = tmp_path / "pinned.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: pinned}\nspec:\n"
        '  nodeName: "gone\\n::error file=x::pwned"\n  containers: [{name: a, image: a}]\n',
        encoding="utf-8",
    )
    result = _results(str(manifest))["Pod default/pinned"]
    # No node is so named: the API server refuses it, and its words quote the value escaped
    assert result.reason is not None and "\n" not in result.reason
    assert result.reason.startswith(
        'Pod "pinned" is invalid: spec.nodeName: Invalid value: "gone\\n::error file=x::pwned": '
    )
