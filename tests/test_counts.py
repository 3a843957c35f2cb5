"""Replica-like fields as the API server means them (gate.inputs.counts), read as the
manifests are read: PyYAML's safe loader, YAML 1.1.

Upstream: every such field is an ``int32`` in its Go type (k8s.io/api apps/v1 and batch/v1
``Replicas``, ``Parallelism``, ``Completions *int32``; autoscaling/v2 ``MinReplicas *int32``,
``MaxReplicas int32``), and pkg/apis/apps/validation/validation.go (``ValidateDeploymentSpec``,
``ValidateStatefulSetSpec``, ``ValidateReplicaSetSpec``) and
pkg/apis/core/validation/validation.go (``ValidateReplicationControllerSpec``) call
``apivalidation.ValidateNonnegativeField(int64(spec.Replicas), fldPath.Child("replicas"))``;
pkg/apis/batch/validation/validation.go does the same for ``parallelism`` and ``completions``.
"""

from __future__ import annotations

import io

import pytest
import yaml

from gate.inputs.counts import INT32_MAX, BadCount, count_or_problem, read_count
from gate.inputs.custom_kinds import Count, CustomKind, Site, kind_table
from gate.inputs.manifests import read_documents
from gate.inputs.workloads import Unevaluated, extract_all
from gate.model import FieldLocation, Verdict, Workload
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot

EXPECTED = f"expected an integer from 0 to {INT32_MAX}"


def _yaml(text: str) -> object:
    """The value of ``text`` as the manifests' loader reads it."""
    loaded = yaml.safe_load(f"value: {text}")
    assert isinstance(loaded, dict)
    return loaded["value"]


# (id, the value as written in a manifest, the count, or the ERROR's reason)
COUNTS: list[tuple[str, str, int | str]] = [
    ("replicas: 0 is a count (a workload parked at zero)", "0", 0),
    ("replicas: 3 is a count", "3", 3),
    ("the largest int32 is a count", "2147483647", INT32_MAX),
    (
        "1e+06 is text in YAML 1.1 (its floats need a dot), no count",
        "1e+06",
        f'spec.replicas: {EXPECTED}, not "1e+06" (a string)',
    ),
    ("1000.0 is a float, no count", "1000.0", f"spec.replicas: {EXPECTED}, not 1000.0 (a float)"),
    (
        "0X3E8 is text in YAML 1.1 (its hexadecimal is 0x), no count",
        "0X3E8",
        f'spec.replicas: {EXPECTED}, not "0X3E8" (a string)',
    ),
    ('"2" is a string, no count', '"2"', f'spec.replicas: {EXPECTED}, not "2" (a string)'),
    ("1.5 is a float, no count", "1.5", f"spec.replicas: {EXPECTED}, not 1.5 (a float)"),
    ("true is a boolean, no count", "true", f"spec.replicas: {EXPECTED}, not true (a boolean)"),
    # ValidateNonnegativeField: "must be greater than or equal to 0"
    ("-1 is negative, no count", "-1", f"spec.replicas: {EXPECTED}, not -1"),
    (
        "2147483648 is past int32, no count",
        "2147483648",
        f"spec.replicas: {EXPECTED}, not 2147483648",
    ),
    ("a list is no count", "[1]", f"spec.replicas: {EXPECTED}, not [1] (a list)"),
    ("a mapping is no count", "{a: 1}", f'spec.replicas: {EXPECTED}, not {{"a": 1}} (a mapping)'),
]


@pytest.mark.parametrize(
    ("written", "expected"), [c[1:] for c in COUNTS], ids=[c[0] for c in COUNTS]
)
def test_a_count_as_yaml_reads_it(written: str, expected: int | str) -> None:
    found = count_or_problem(_yaml(written), ("spec", "replicas"))
    assert (found if isinstance(found, int) else str(found)) == expected


TEXT_COUNTS: list[tuple[str, object, int | str]] = [
    ("digits are a count", "2", 2),
    ("digits with spaces around are a count", " 3 ", 3),
    ("a negative number is no count", "-1", f'min-scale: {EXPECTED} as text, not "-1" (a string)'),
    ("a number is no text", 2, f"min-scale: {EXPECTED} as text, not 2"),
    ("a superscript digit is no count", "²", f'min-scale: {EXPECTED} as text, not "²" (a string)'),
    (
        "a number past int32 is no count",
        "2147483648",
        f'min-scale: {EXPECTED} as text, not "2147483648" (a string)',
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in TEXT_COUNTS], ids=[c[0] for c in TEXT_COUNTS]
)
def test_a_count_in_a_text_field(text: object, expected: int | str) -> None:
    """Knative's ``autoscaling.knative.dev/min-scale`` is an annotation: text by type."""
    found = count_or_problem(text, ("min-scale",), as_text=True)
    assert (found if isinstance(found, int) else str(found)) == expected


def test_an_absent_or_null_count_is_the_default() -> None:
    assert read_count({"spec": {}}, ("spec", "replicas"), 1) == 1
    assert read_count({"spec": {"replicas": None}}, ("spec", "replicas"), 1) == 1
    assert read_count({"spec": 5}, ("spec", "replicas"), 1) == 1


def test_a_count_names_its_field_from_the_document() -> None:
    found = read_count({"replicas": "2"}, ("replicas",), 1, where=("spec", "replicatedJobs", 0))
    assert found == BadCount(("spec", "replicatedJobs", 0, "replicas"), "2")
    assert str(found) == f'spec.replicatedJobs[0].replicas: {EXPECTED}, not "2" (a string)'


def test_a_long_value_is_shown_cut() -> None:
    found = count_or_problem("x" * 100, ("spec", "replicas"))
    assert str(found) == f'spec.replicas: {EXPECTED}, not "{"x" * 38}… (a string)'


def _extracted(text: str) -> list[Workload | Unevaluated]:
    documents = read_documents(["-"], io.BytesIO(text.encode()))
    found = [i for i in extract_all(documents) if isinstance(i, Workload | Unevaluated)]
    return found


_POD = """\
    spec:
      containers: [{name: c, image: i}]
"""


_RUN_ONCE = """\
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: i}]
"""


_SELECTED = "  selector: {matchLabels: {app: w}}\n"
_LABELLED = """\
  template:
    metadata: {labels: {app: w}}
    spec:
      containers: [{name: c, image: i}]
"""


def _manifest(kind: str, api: str, spec: str, template: str = "  template:\n" + _POD) -> str:
    head = f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: w, namespace: n}}\n"
    return f"{head}spec:\n{spec}{template}"


# (id, the manifest, the reason of its ERROR, the line of the field it names)
REFUSED: list[tuple[str, str, str, int]] = [
    (
        "a Deployment's replicas: 1e+06",
        _manifest("Deployment", "apps/v1", "  replicas: 1e+06\n"),
        f'spec.replicas: {EXPECTED}, not "1e+06" (a string)',
        5,
    ),
    (
        "a StatefulSet's replicas: 1000.0",
        _manifest("StatefulSet", "apps/v1", "  replicas: 1000.0\n"),
        f"spec.replicas: {EXPECTED}, not 1000.0 (a float)",
        5,
    ),
    (
        "a ReplicaSet's replicas: 0X3E8",
        _manifest("ReplicaSet", "apps/v1", "  replicas: 0X3E8\n"),
        f'spec.replicas: {EXPECTED}, not "0X3E8" (a string)',
        5,
    ),
    (
        'a ReplicationController\'s replicas: "2"',
        _manifest("ReplicationController", "v1", '  replicas: "2"\n'),
        f'spec.replicas: {EXPECTED}, not "2" (a string)',
        5,
    ),
    (
        "a Job's parallelism: 1.5",
        _manifest("Job", "batch/v1", "  parallelism: 1.5\n"),
        f"spec.parallelism: {EXPECTED}, not 1.5 (a float)",
        5,
    ),
    (
        "a Job's completions: true",
        _manifest("Job", "batch/v1", "  completions: true\n"),
        f"spec.completions: {EXPECTED}, not true (a boolean)",
        5,
    ),
    (
        "a CronJob's job parallelism: -1",
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: w, namespace: n}\nspec:\n"
        "  jobTemplate:\n    spec:\n      parallelism: -1\n      template:\n"
        "        spec:\n          containers: [{name: c, image: i}]\n"
        "          restartPolicy: Never\n  schedule: '@daily'\n",
        # ValidateNonnegativeField, in validateJobSpec; NewInvalid names the CronJob
        'CronJob.batch "w" is invalid: spec.jobTemplate.spec.parallelism: Invalid value: -1: '
        "must be greater than or equal to 0",
        7,
    ),
    (
        "an Argo Rollout's replicas: -1",
        _manifest("Rollout", "argoproj.io/v1alpha1", "  replicas: -1\n"),
        f"spec.replicas: {EXPECTED}, not -1",
        5,
    ),
    (
        "a Kubeflow PyTorchJob worker's replicas: 2147483648",
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: w, namespace: n}\n"
        "spec:\n  pytorchReplicaSpecs:\n    Worker:\n      replicas: 2147483648\n"
        "      template:\n        spec:\n          containers: [{name: c, image: i}]\n",
        f"spec.pytorchReplicaSpecs.Worker.replicas: {EXPECTED}, not 2147483648",
        7,
    ),
    (
        "a JobSet replicated job's parallelism: true",
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: w, namespace: n}\n"
        "spec:\n  replicatedJobs:\n    - name: a\n      replicas: 1\n      template:\n"
        "        spec:\n          parallelism: true\n          template:\n            spec:\n"
        "              containers: [{name: c, image: i}]\n",
        f"spec.replicatedJobs[0].template.spec.parallelism: {EXPECTED}, not true (a boolean)",
        10,
    ),
    (
        "a Knative Service's min-scale annotation: ten",
        "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: w, namespace: n}\n"
        "spec:\n  template:\n    metadata:\n      annotations:\n"
        "        autoscaling.knative.dev/min-scale: ten\n" + _POD,
        "spec.template.metadata.annotations.autoscaling.knative.dev/min-scale: "
        f'{EXPECTED} as text, not "ten" (a string)',
        8,
    ),
]


@pytest.mark.parametrize(
    ("manifest", "reason", "line"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_workload_whose_count_is_none_is_an_error_naming_the_field(
    manifest: str, reason: str, line: int
) -> None:
    (found,) = _extracted(manifest)
    assert isinstance(found, Unevaluated)
    result = found.result()
    assert (result.verdict, result.reason) == (Verdict.ERROR, reason)
    assert result.field_at is not None and result.field_at.line == line
    assert result.field_at.path == reason.split(" is invalid: ")[-1].split(": ", 1)[0]


def test_the_error_points_at_the_fields_line_and_value() -> None:
    manifest = _manifest("Deployment", "apps/v1", "  replicas: 1e+06\n")
    (found,) = _extracted(manifest)
    assert isinstance(found, Unevaluated)
    assert found.field_at == FieldLocation("spec.replicas", 5, "1e+06", partial=False)


ACCEPTED: list[tuple[str, str, int]] = [
    (
        "a Deployment's replicas: 0 wants no pods",
        _manifest("Deployment", "apps/v1", "  replicas: 0\n" + _SELECTED, _LABELLED),
        0,
    ),
    (
        "a Job's parallelism: 0 wants no pods",
        _manifest("Job", "batch/v1", "  parallelism: 0\n", _RUN_ONCE),
        0,
    ),
    (
        "a Knative Service's min-scale annotation of digits",
        "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: w, namespace: n}\n"
        "spec:\n  template:\n    metadata:\n      annotations:\n"
        '        autoscaling.knative.dev/min-scale: "3"\n' + _POD,
        3,
    ),
]


@pytest.mark.parametrize(
    ("manifest", "wanted"), [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED]
)
def test_a_count_the_api_takes_is_the_workloads(manifest: str, wanted: int) -> None:
    (found,) = _extracted(manifest)
    assert isinstance(found, Workload) and found.replicas == wanted


def test_a_configured_custom_kinds_replica_path_is_a_count_too() -> None:
    """``.fitgate.yaml`` ``customKinds`` name a replica path; its value is held to the same
    rule as the built-in kinds'."""
    row = CustomKind(
        "example.com",
        "Widget",
        (Site(spec=(("spec", "template", "spec"),), count=(Count(("spec", "size")),)),),
    )
    manifest = _manifest("Widget", "example.com/v1", "  size: 1.5\n")
    documents = read_documents(["-"], io.BytesIO(manifest.encode()))
    (found,) = extract_all(documents, custom_kinds=kind_table([row]))
    assert isinstance(found, Unevaluated)
    assert found.reason == f"spec.size: {EXPECTED}, not 1.5 (a float)"


WHY = ["1e+06", "1000.0", "0X3E8", '"2"', "1.5", "true", "-1"]


@pytest.mark.parametrize("written", WHY, ids=[f"replicas: {w} fails the gate" for w in WHY])
def test_each_replica_count_the_issue_found_read_as_one_now_fails_the_gate(written: str) -> None:
    """Each was read as 1 replica and passed; the API server takes none of them."""
    manifest = _manifest("Deployment", "apps/v1", f"  replicas: {written}\n")
    documents = read_documents(["-"], io.BytesIO(manifest.encode()))
    snapshot = build_snapshot(cluster_snapshot([api_node("n0")]), "s.json")
    report = check(documents, snapshot, RunOptions())
    (result,) = report.results
    assert result.verdict is Verdict.ERROR and not report.summary.passed
    assert result.reason is not None
    negative = "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    # the manifest selects nothing: the API server lists that beside the negative count
    invalid = f'Deployment.apps "w" is invalid: [{negative}, '
    assert result.reason.startswith((f"spec.replicas: {EXPECTED}", invalid))


# (id, kind, the manifest's spec, the API server's refusal)
NEGATIVE: list[tuple[str, str, str, str]] = [
    (
        "a Deployment's negative replicas are refused in the API server's words",
        "Deployment",
        "  replicas: -1\n" + _SELECTED,
        'Deployment.apps "w" is invalid: spec.replicas: Invalid value: -1: must be greater '
        "than or equal to 0",
    ),
    (
        "a StatefulSet's",
        "StatefulSet",
        "  replicas: -3\n" + _SELECTED,
        'StatefulSet.apps "w" is invalid: spec.replicas: Invalid value: -3: must be greater '
        "than or equal to 0",
    ),
    (
        "a Job's negative parallelism",
        "Job",
        "  parallelism: -2\n",
        'Job.batch "w" is invalid: spec.parallelism: Invalid value: -2: must be greater than or '
        "equal to 0",
    ),
    (
        "a Job's negative completions",
        "Job",
        "  completions: -1\n",
        'Job.batch "w" is invalid: spec.completions: Invalid value: -1: must be greater than or '
        "equal to 0",
    ),
    (
        "past int32 no validation is reached: the count is no int32",
        "Deployment",
        "  replicas: -2147483649\n" + _SELECTED,
        f"spec.replicas: {EXPECTED}, not -2147483649",
    ),
]


@pytest.mark.parametrize(
    ("kind", "spec", "reason"), [c[1:] for c in NEGATIVE], ids=[c[0] for c in NEGATIVE]
)
def test_a_negative_count_of_a_built_in_kind(kind: str, spec: str, reason: str) -> None:
    """pkg/apis/apps/validation ValidateDeploymentSpec, ValidateStatefulSetSpec and
    pkg/apis/batch/validation validateJobSpec: ValidateNonnegativeField, whose message is
    apimachinery's IsNegativeErrorMsg."""
    api = "batch/v1" if kind == "Job" else "apps/v1"
    template = _RUN_ONCE if kind == "Job" else _LABELLED
    (found,) = _extracted(_manifest(kind, api, spec, template))
    assert isinstance(found, Unevaluated) and found.reason == reason
    assert found.field_at is not None  # refused for the count alone: it points at its line


def test_a_custom_kind_s_negative_count_keeps_fitgate_s_words() -> None:
    """Its own API validates it, not the apps validation."""
    assert str(count_or_problem(-1, ("spec", "size"))) == f"spec.size: {EXPECTED}, not -1"
