"""Custom kinds: each row of the table read from a real published example
(tests/data/custom-kinds/SOURCES.md names every origin), one workload per pod template."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.inputs.custom_kinds import CUSTOM_KINDS, argo_pod, pod_template_path
from gate.inputs.manifests import read_documents
from gate.inputs.workloads import (
    TEMPLATE_PATHS,
    Extracted,
    OtherDocument,
    Unevaluated,
    extract_all,
)
from gate.model import Document, Location, Verdict, Workload
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "custom-kinds"
AKS = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")

Row = tuple[str, str, str, int | None]


def extracted(path: str, **paths: tuple[tuple[str, ...], None, int]) -> list[Extracted]:
    documents = read_documents([str(DATA / path)], io.BytesIO())
    return list(extract_all(documents, {**TEMPLATE_PATHS, **paths}))


def rows(items: list[Extracted]) -> list[Row]:
    return [(i.kind, i.namespace, i.name, i.replicas) for i in items if isinstance(i, Workload)]


# file -> every workload it yields: (kind, namespace, name, pods wanted)
EXAMPLES: dict[str, list[Row]] = {
    "argo-rollout-canary.yaml": [("Rollout", "default", "rollout-canary", 5)],
    "argo-rollout-workload-ref.yaml": [
        ("Deployment", "default", "rollout-ref-deployment", 0),
        ("Rollout", "default", "rollout-ref-deployment", 5),
    ],
    "knative-service.yaml": [("Service", "default", "helloworld-go", 1)],
    "knative-configuration.yaml": [("Configuration", "default", "configuration-example", 1)],
    "keda-scaledjob.yaml": [("ScaledJob", "default", "azdevops-scaledjob", 1)],
    "kruise-cloneset.yaml": [("CloneSet", "default", "sample", 5)],
    "kruise-statefulset.yaml": [("StatefulSet", "default", "demo-v1-guestbook-kruise", 20)],
    "kruise-daemonset.yaml": [("DaemonSet", "default", "guestbook-ds", None)],
    "kubeflow-pytorchjob.yaml": [
        ("PyTorchJob", "kubeflow", "pytorch-simple [Master]", 1),
        ("PyTorchJob", "kubeflow", "pytorch-simple [Worker]", 1),
    ],
    "kubeflow-tfjob.yaml": [("TFJob", "kubeflow", "tfjob-simple [Worker]", 2)],
    "kubeflow-mpijob.yaml": [
        ("MPIJob", "default", "pi [Launcher]", 1),
        ("MPIJob", "default", "pi [Worker]", 2),
    ],
    "kubeflow-xgboostjob.yaml": [
        ("XGBoostJob", "default", "xgboost-dist-iris-test-train [Master]", 1),
        ("XGBoostJob", "default", "xgboost-dist-iris-test-train [Worker]", 2),
    ],
    "kubeflow-paddlejob.yaml": [("PaddleJob", "kubeflow", "paddle-simple-cpu [Worker]", 2)],
    "kuberay-raycluster.yaml": [
        ("RayCluster", "default", "raycluster-kuberay [head]", 1),
        ("RayCluster", "default", "raycluster-kuberay [worker workergroup]", 1),
    ],
    "kuberay-rayjob.yaml": [
        ("RayJob", "default", "rayjob-sample [head]", 1),
        ("RayJob", "default", "rayjob-sample [worker small-group]", 1),
    ],
    "kuberay-rayservice.yaml": [
        ("RayService", "default", "rayservice-sample [head]", 1),
        ("RayService", "default", "rayservice-sample [worker small-group]", 1),
    ],
    "jobset.yaml": [
        ("JobSet", "default", "paralleljobs [workers]", 4),
        ("JobSet", "default", "paralleljobs [driver]", 1),
    ],
    "leaderworkerset.yaml": [
        ("LeaderWorkerSet", "default", "leaderworkerset-multi-template [leader]", 3),
        ("LeaderWorkerSet", "default", "leaderworkerset-multi-template [worker]", 9),
    ],
    "volcano-job.yaml": [("Job", "default", "test-job [default-nginx]", 6)],
    "argo-workflow.yaml": [
        ("Workflow", "default", "scripts-python-* [gen-random-int]", 1),
        ("Workflow", "default", "scripts-python-* [print-message]", 1),
    ],
    "argo-cronworkflow.yaml": [
        ("CronWorkflow", "default", "hello-world [hello-world-with-time]", 1)
    ],
    "argo-workflowtemplate.yaml": [
        ("WorkflowTemplate", "default", "workflow-template-print-message [print-message]", 1),
        (
            "WorkflowTemplate",
            "default",
            "workflow-template-random-fail-template [random-fail-template]",
            1,
        ),
        ("WorkflowTemplate", "default", "workflow-template-inner-steps [print-message]", 1),
        ("WorkflowTemplate", "default", "workflow-template-inner-dag [print-message]", 1),
        ("WorkflowTemplate", "default", "workflow-template-submittable [print-message]", 1),
    ],
    "argo-clusterworkflowtemplate.yaml": [
        (
            "ClusterWorkflowTemplate",
            "default",
            "cluster-workflow-template-print-message [print-message]",
            1,
        ),
        (
            "ClusterWorkflowTemplate",
            "default",
            "cluster-workflow-template-random-fail-template [random-fail-template]",
            1,
        ),
        (
            "ClusterWorkflowTemplate",
            "default",
            "cluster-workflow-template-inner-steps [print-message]",
            1,
        ),
        (
            "ClusterWorkflowTemplate",
            "default",
            "cluster-workflow-template-inner-dag [print-message]",
            1,
        ),
        (
            "ClusterWorkflowTemplate",
            "default",
            "cluster-workflow-template-submittable [print-message]",
            1,
        ),
    ],
}


@pytest.mark.parametrize(
    "path", sorted(EXAMPLES), ids=[f"{p} yields each template" for p in sorted(EXAMPLES)]
)
def test_published_example_yields_one_workload_per_template(path: str) -> None:
    items = extracted(path)
    assert rows(items) == EXAMPLES[path]
    assert not [i for i in items if isinstance(i, Unevaluated)]


def test_every_row_of_the_table_has_a_published_example() -> None:
    kinds = {found[0] for workloads in EXAMPLES.values() for found in workloads}
    assert {row.kind for row in CUSTOM_KINDS} <= kinds


def test_every_example_is_named_in_sources() -> None:
    sources = (DATA / "SOURCES.md").read_text()
    for path in sorted(p.name for p in DATA.glob("*.yaml")):
        assert f"`{path}`" in sources


def documents(*bodies: dict[str, Any]) -> Iterator[Document]:
    for line, body in enumerate(bodies, start=1):
        yield Document(Location("run.yaml", line), body=body)


def rollout(ref: str, namespace: str = "apps") -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Rollout",
        "metadata": {"name": "web", "namespace": namespace},
        "spec": {"replicas": 4, "workloadRef": {"kind": "Deployment", "name": ref}},
    }


def deployment(name: str, namespace: str = "apps") -> dict[str, Any]:
    app = {"name": "app", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
    template = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [app]}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": name}}, "template": template},
    }


def test_a_rollout_runs_the_template_of_the_deployment_it_references() -> None:
    items = list(extract_all(documents(deployment("web-template"), rollout("web-template"))))
    assert rows(items) == [("Deployment", "apps", "web-template", 0), ("Rollout", "apps", "web", 4)]
    assert isinstance(items[1], Workload)
    assert items[1].pod_spec is deployment_spec(items[0])


def deployment_spec(item: Extracted) -> object:
    assert isinstance(item, Workload)
    return item.pod_spec


def test_a_deployment_further_on_is_resolved_at_the_end_of_the_run() -> None:
    items = list(extract_all(documents(rollout("later"), deployment("later"))))
    assert rows(items) == [("Deployment", "apps", "later", 0), ("Rollout", "apps", "web", 4)]
    assert isinstance(items[1], Workload) and items[1].location == Location("run.yaml", 1)


REFERENCE_ERRORS = {
    "a Deployment that is nowhere in the run": (
        [rollout("gone")],
        "spec.workloadRef: Deployment apps/gone is not in this run",
    ),
    "a Deployment of another namespace": (
        [deployment("web-template", namespace="other"), rollout("web-template")],
        "spec.workloadRef: Deployment apps/web-template is not in this run",
    ),
}


@pytest.mark.parametrize(
    "bodies,reason",
    REFERENCE_ERRORS.values(),
    ids=[f"a rollout naming {k} is an ERROR" for k in REFERENCE_ERRORS],
)
def test_a_reference_outside_the_run_is_an_error(bodies: list[dict[str, Any]], reason: str) -> None:
    items = list(extract_all(documents(*bodies)))
    errors = [i for i in items if isinstance(i, Unevaluated) and i.verdict is Verdict.ERROR]
    assert [(e.kind, e.namespace, e.name, e.reason) for e in errors] == [
        ("Rollout", "apps", "web", reason)
    ]


def test_a_template_path_for_rollouts_still_resolves_workload_refs() -> None:
    paths = {**TEMPLATE_PATHS, "Rollout": (("spec", "template", "spec"), None, 1)}
    items = list(extract_all(documents(deployment("t"), rollout("t")), paths))
    assert rows(items)[1] == ("Rollout", "apps", "web", 4)


def test_a_template_path_replaces_the_built_in_row_of_its_kind() -> None:
    paths = {"PyTorchJob": (("spec", "pytorchReplicaSpecs", "Worker", "template", "spec"), None, 1)}
    assert rows(extracted("kubeflow-pytorchjob.yaml", **paths)) == [
        ("PyTorchJob", "kubeflow", "pytorch-simple", 1)
    ]


def crd(kind: str, spec: dict[str, Any], group: str = "example.com") -> dict[str, Any]:
    return {"apiVersion": f"{group}/v1", "kind": kind, "metadata": {"name": "x"}, "spec": spec}


POD = {"containers": [{"name": "app", "image": "app"}]}
UNKNOWN = {
    "a template under spec.template.spec": (
        crd("Widget", {"template": {"spec": POD}}),
        "spec.template.spec",
    ),
    "containers straight under spec": (crd("Widget", POD), "spec"),
    "a template in a list": (
        crd("Widget", {"roles": [{"name": "a"}, {"pod": {"spec": POD}}]}),
        "spec.roles[1].pod.spec",
    ),
}


@pytest.mark.parametrize(
    "body,path", UNKNOWN.values(), ids=[f"an unknown kind with {k} is a warning" for k in UNKNOWN]
)
def test_an_unknown_kind_carrying_a_pod_template_is_a_visible_skip(
    body: dict[str, Any], path: str
) -> None:
    (item,) = extract_all(documents(body))
    assert isinstance(item, Unevaluated) and item.verdict is Verdict.SKIPPED and item.warning
    assert item.reason == (
        f"Widget (example.com) is not a kind fitgate knows, but it carries a pod template at "
        f"{path}: not checked; configure it with --template-path Widget={path} "
        "or customKinds in .fitgate.yaml"
    )


NOT_A_TEMPLATE = {
    "a CRD whose schema names containers": crd(
        "CustomResourceDefinition",
        {"versions": [{"schema": {"properties": {"containers": {"type": "array"}}}}]},
        group="apiextensions.k8s.io",
    ),
    "an empty containers list": crd("Widget", {"containers": []}),
    "no spec at all": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"containers": "x"}},
}


@pytest.mark.parametrize(
    "body", NOT_A_TEMPLATE.values(), ids=[f"{k} is only counted" for k in NOT_A_TEMPLATE]
)
def test_a_document_without_a_pod_template_is_counted(body: dict[str, Any]) -> None:
    (item,) = extract_all(documents(body))
    assert isinstance(item, OtherDocument)
    assert pod_template_path(body) is None


def test_the_core_statefulset_and_kruise_s_are_read_by_their_own_rows() -> None:
    template = {"metadata": {"labels": {"app": "x"}}, "spec": POD}
    spec = {"replicas": 2, "selector": {"matchLabels": {"app": "x"}}, "template": template}
    kruise = crd("StatefulSet", spec, "apps.kruise.io")
    core = {**kruise, "apiVersion": "apps/v1"}
    assert rows(list(extract_all(documents(kruise, core)))) == [
        ("StatefulSet", "default", "x", 2),
        ("StatefulSet", "default", "x", 2),
    ]


MISSING = {
    "a Kubeflow job without replica specs": (
        crd("PyTorchJob", {}, "kubeflow.org"),
        "spec.pytorchReplicaSpecs: missing or empty",
    ),
    "a JobSet job without a pod template": (
        crd("JobSet", {"replicatedJobs": [{"name": "w", "template": {}}]}, "jobset.x-k8s.io"),
        "spec.replicatedJobs[0].template.spec.template.spec: missing or not a mapping",
    ),
    "a Volcano task without containers": (
        crd("Job", {"tasks": [{"name": "t", "template": {"spec": {}}}]}, "batch.volcano.sh"),
        "spec.tasks[0].template.spec.containers: missing or empty",
    ),
}


@pytest.mark.parametrize(
    "body,reason", MISSING.values(), ids=[f"{k} is an ERROR naming the field" for k in MISSING]
)
def test_a_missing_template_is_an_error_naming_its_field(body: dict[str, Any], reason: str) -> None:
    items = list(extract_all(documents(body)))
    assert [(i.verdict, i.reason) for i in items if isinstance(i, Unevaluated)] == [
        (Verdict.ERROR, reason)
    ]


def test_a_workflow_of_template_references_only_runs_no_pod_of_its_own() -> None:
    body = crd("Workflow", {"workflowTemplateRef": {"name": "t"}}, "argoproj.io")
    assert list(extract_all(documents(body))) == [OtherDocument("Workflow")]


def test_an_argo_template_runs_as_a_pod_with_the_workflow_defaults() -> None:
    workflow = {
        "spec": {
            "nodeSelector": {"pool": "batch"},
            "tolerations": [{"key": "gpu", "operator": "Exists"}],
            "templates": [],
        }
    }
    template = {
        "name": "train",
        "nodeSelector": {"pool": "gpu"},
        "script": {
            "image": "python",
            "source": "print(1)",
            "resources": {"requests": {"cpu": "2"}},
        },
        "sidecars": [{"name": "proxy", "image": "envoy"}],
    }
    assert argo_pod(workflow, ("spec",), template) == {
        "containers": [
            {"name": "main", "image": "python", "resources": {"requests": {"cpu": "2"}}},
            {"name": "proxy", "image": "envoy"},
        ],
        "nodeSelector": {"pool": "gpu"},
        "tolerations": [{"key": "gpu", "operator": "Exists"}],
    }


def test_the_unknown_kind_warning_is_in_the_text_report(tmp_path: Any) -> None:
    manifest = tmp_path / "widget.yaml"
    manifest.write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
        "spec: {template: {spec: {containers: [{name: app, image: app}]}}}\n"
    )
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(
        io.BytesIO(), out, err, env={}, now=datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
    )
    code = main(["check", str(manifest), "--snapshot", AKS], streams)
    assert code == 5  # the one workload is of a kind fitgate cannot read: nothing judged
    assert "warning: Widget (example.com) is not a kind fitgate knows" in out.getvalue()
    assert "1 SKIPPED; 1 warning(s)" in out.getvalue()
