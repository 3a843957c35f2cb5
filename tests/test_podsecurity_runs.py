"""Pod Security admission end to end: ``fitgate check FILE --snapshot S --json -`` with a
namespace whose ``pod-security.kubernetes.io/enforce`` label refuses the run's pods
(admission/admission.go: ``pods "NAME" is forbidden: violates PodSecurity ...``)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.ci import split
from gate.cli import Streams, main
from tests.builders import api_node, cluster_snapshot
from tests.forking import needs_two_cores
from tests.report_schema import validate_report

ENFORCE = "pod-security.kubernetes.io/enforce"
RESTRICTED_WEB = (
    'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container '
    '"web" must set securityContext.allowPrivilegeEscalation=false), unrestricted '
    'capabilities (container "web" must set securityContext.capabilities.drop=["ALL"]), '
    'runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true), '
    'seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to '
    '"RuntimeDefault" or "Localhost")'
)
HARDENED = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def _namespace(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": labels or {}},
    }


def _container(**context: Any) -> dict[str, Any]:
    web: dict[str, Any] = {
        "name": "web",
        "image": "nginx",
        "resources": {"requests": {"cpu": "100m"}},
    }
    return {**web, "securityContext": context} if context else web


def _pod(name: str, namespace: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [_container()], **spec},
    }


def _controller(kind: str, namespace: str, **spec: Any) -> dict[str, Any]:
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [_container()], **spec},
    }
    body: dict[str, Any] = {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": template,
    }
    if kind == "StatefulSet":
        body["serviceName"] = "web"
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "namespace": namespace},
        "spec": body,
    }


def _inputs(
    tmp_path: Path, manifests: list[dict[str, Any]], namespaces: list[dict[str, Any]] | None
) -> list[str]:
    """``check``'s first arguments: the manifests' file and a one-node snapshot that records
    ``namespaces`` (None: records none)."""
    document = cluster_snapshot([api_node("n1")])
    if namespaces is not None:
        document["namespaces"] = namespaces
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(document))
    file = tmp_path / "run.yaml"
    file.write_text(yaml.safe_dump_all(manifests))
    return [str(file), "--snapshot", str(snapshot)]


def _main(*argv: str) -> tuple[int, str]:
    """The exit code and standard output of ``fitgate ARGV``."""
    out = io.StringIO()
    code = main(list(argv), Streams(io.BytesIO(), out, io.StringIO(), env={}))
    return code, out.getvalue()


def _check(
    tmp_path: Path, manifests: list[dict[str, Any]], namespaces: list[dict[str, Any]] | None
) -> tuple[int, dict[str, dict[str, Any]]]:
    code, out = _main("check", *_inputs(tmp_path, manifests, namespaces), "--json", "-")
    report = json.loads(out)
    validate_report(report)
    return code, {f"{w['kind']}/{w['name']}": w for w in report["workloads"]}


SHOP = [_namespace("shop", {ENFORCE: "restricted"}), _namespace("default")]


def test_a_pod_the_restricted_level_refuses_is_never_created(tmp_path: Path) -> None:
    code, found = _check(tmp_path, [_pod("solo", "shop")], SHOP)
    solo = found["Pod/solo"]
    assert code == 1
    assert (solo["verdict"], solo["reason"]) == (
        "ERROR",
        f'pods "solo" is forbidden: {RESTRICTED_WEB}',
    )


@pytest.mark.parametrize(
    ("kind", "pod"),
    [
        pytest.param(
            "Deployment", r"web-[a-z0-9]+-[a-z0-9]{5}", id="Deployment: a ReplicaSet's pod"
        ),
        pytest.param("StatefulSet", "web-0", id="StatefulSet: its first copy"),
        pytest.param("DaemonSet", r"web-[a-z0-9]{5}", id="DaemonSet"),
    ],
)
def test_a_controllers_pods_are_refused_in_the_controllers_words(
    tmp_path: Path, kind: str, pod: str
) -> None:
    _, found = _check(tmp_path, [_controller(kind, "shop")], SHOP)
    result = found[f"{kind}/web"]
    assert result["verdict"] == "ERROR"
    assert re.fullmatch(f'pods "{pod}" is forbidden: {re.escape(RESTRICTED_WEB)}', result["reason"])


def test_a_pod_that_meets_the_level_is_placed(tmp_path: Path) -> None:
    hardened = _pod("solo", "shop")
    hardened["spec"]["containers"] = [_container(**HARDENED)]
    _, found = _check(tmp_path, [hardened], SHOP)
    assert found["Pod/solo"]["verdict"] == "YES"


def test_the_baseline_level_refuses_host_namespaces_and_ports(tmp_path: Path) -> None:
    labels = {ENFORCE: "baseline", f"{ENFORCE}-version": "v1.30"}
    pod = _pod("solo", "ops", hostNetwork=True)
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 8080}]
    _, found = _check(tmp_path, [pod], [_namespace("ops", labels)])
    assert found["Pod/solo"]["reason"] == (
        'pods "solo" is forbidden: violates PodSecurity "baseline:v1.30": host namespaces '
        '(hostNetwork=true), hostPort (container "web" uses hostPort 8080)'
    )


@pytest.mark.parametrize(
    ("recorded", "shipped", "verdict"),
    [
        pytest.param(SHOP, [], "ERROR", id="the recorded namespace's level"),
        pytest.param(
            SHOP,
            [_namespace("shop", {ENFORCE: "baseline"})],
            "YES",
            id="the run's Namespace replaces the recorded one",
        ),
        pytest.param(
            [_namespace("default")],
            [_namespace("shop", {ENFORCE: "restricted"})],
            "ERROR",
            id="a new Namespace of the run",
        ),
        pytest.param(
            None,
            [_namespace("shop", {ENFORCE: "restricted"})],
            "ERROR",
            id="a Namespace of the run, none recorded",
        ),
        pytest.param(None, [], "YES", id="no namespaces recorded: not checked"),
        pytest.param([_namespace("default")], [], "YES", id="an unlabelled namespace: privileged"),
    ],
)
def test_the_level_comes_from_the_run_s_namespace_else_the_snapshot_s(
    tmp_path: Path,
    recorded: list[dict[str, Any]] | None,
    shipped: list[dict[str, Any]],
    verdict: str,
) -> None:
    _, found = _check(tmp_path, [*shipped, _pod("solo", "shop")], recorded)
    assert found["Pod/solo"]["verdict"] == verdict


def test_the_template_s_annotations_are_its_pods(tmp_path: Path) -> None:
    deployment = _controller("Deployment", "ops")
    annotation = "container.apparmor.security.beta.kubernetes.io/web"
    deployment["spec"]["template"]["metadata"]["annotations"] = {annotation: "unconfined"}
    deployment["metadata"]["annotations"] = {"note": "the object's own, not its pods'"}
    _, found = _check(tmp_path, [deployment], [_namespace("ops", {ENFORCE: "baseline"})])
    assert found["Deployment/web"]["reason"].endswith(
        'violates PodSecurity "baseline:latest": forbidden AppArmor profiles (container "web" '
        f'and annotation must not set AppArmor profile type to "Unconfined", "{annotation}='
        '"unconfined"")'
    )


WARN = "pod-security.kubernetes.io/warn"
WOULD_RESTRICTED_WEB = "would violate" + RESTRICTED_WEB.removeprefix("violates")
HOST_NETWORK = 'would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)'


def _on_host_network(body: dict[str, Any]) -> dict[str, Any]:
    """The workload on the node's network, serving a port (one copy: one node)."""
    spec = body["spec"]
    if "template" in spec:
        spec["replicas"] = 1
        spec = spec["template"]["spec"]
    spec["hostNetwork"] = True
    spec["containers"][0]["ports"] = [{"containerPort": 8080}]
    return body


@pytest.mark.parametrize(
    ("workload", "labels", "warnings"),
    [
        pytest.param(
            _controller("Deployment", "shop"),
            {WARN: "restricted"},
            [WOULD_RESTRICTED_WEB],
            id="a Deployment's template at the warn level",
        ),
        pytest.param(
            _controller("StatefulSet", "shop"),
            {WARN: "restricted"},
            [WOULD_RESTRICTED_WEB],
            id="a StatefulSet's template",
        ),
        pytest.param(
            _pod("solo", "shop"),
            {WARN: "restricted"},
            [WOULD_RESTRICTED_WEB],
            id="a Pod's own",
        ),
        pytest.param(
            _pod("solo", "shop"),
            {ENFORCE: "baseline", WARN: "restricted"},
            [WOULD_RESTRICTED_WEB],
            id="a Pod the enforce level took, warned at a stricter warn level",
        ),
        pytest.param(
            _controller("Deployment", "shop"),
            {WARN: "baseline", f"{WARN}-version": "v1.30"},
            [],
            id="a template the warn level allows",
        ),
        pytest.param(
            _controller("Deployment", "shop"),
            {WARN: "strict"},
            [],
            id="a warn level that is none of the three fails open",
        ),
        pytest.param(
            _on_host_network(_controller("Deployment", "shop")),
            {WARN: "baseline"},
            [HOST_NETWORK],
            id="a template as written: hostNetwork gives its ports no hostPort",
        ),
        pytest.param(
            _on_host_network(_pod("solo", "shop")),
            {WARN: "baseline"},
            [f'{HOST_NETWORK}, hostPort (container "web" uses hostPort 8080)'],
            id="a Pod as completed: its ports' hostPort defaulted under hostNetwork",
        ),
    ],
)
def test_the_warn_level_warns_as_kubectl_prints_and_the_verdict_stands(
    tmp_path: Path, workload: dict[str, Any], labels: dict[str, str], warnings: list[str]
) -> None:
    """admission.go ValidatePodController (a template, warn level alone) and ValidatePod
    (EvaluatePod's warning once the enforce level took the pod)."""
    code, found = _check(tmp_path, [workload], [_namespace("shop", labels)])
    result = found[f"{workload['kind']}/{workload['metadata']['name']}"]
    assert (code, result["verdict"]) == (0, "YES")
    admission = [w["text"] for w in result["warnings"] if w["kind"] == "admission"]
    assert admission == warnings


@pytest.mark.parametrize(
    ("namespaces", "shipped"),
    [
        pytest.param(None, [], id="no namespaces recorded: not checked"),
        pytest.param(
            [_namespace("shop", {WARN: "restricted"})],
            [_namespace("shop")],
            id="the run's unlabelled Namespace replaces the recorded one",
        ),
    ],
)
def test_no_warning_where_the_namespace_s_warn_level_is_not_known_or_privileged(
    tmp_path: Path, namespaces: list[dict[str, Any]] | None, shipped: list[dict[str, Any]]
) -> None:
    _, found = _check(tmp_path, [*shipped, _controller("Deployment", "shop")], namespaces)
    warnings = found["Deployment/web"]["warnings"]
    assert [w for w in warnings if w["kind"] == "admission"] == []


@pytest.mark.parametrize(
    ("server", "verdict"),
    [
        pytest.param("v1.34.1", "ERROR", id="v1.34: latest holds its probe host check"),
        pytest.param("v1.33.4", "YES", id="v1.33: latest knows no such check"),
        pytest.param(None, "ERROR", id="unknown: the newest fitgate knows"),
    ],
)
def test_latest_is_the_api_servers_own_newest_version(
    tmp_path: Path, server: str | None, verdict: str
) -> None:
    """A level at ``latest`` (or at a version newer than the server) evaluates the newest
    checks the API server's own plugin knows: the probe and lifecycle host check came in
    v1.34 (policy/check_probe_host.go's MinimumVersion)."""
    probed = _pod("solo", "shop")
    probed["spec"]["containers"][0]["livenessProbe"] = {
        "httpGet": {"host": "localhost", "port": 8080}
    }
    document = cluster_snapshot([api_node("n1")], server_version=server)
    document["namespaces"] = [_namespace("shop", {ENFORCE: "baseline"})]
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(document))
    file = tmp_path / "run.yaml"
    file.write_text(yaml.safe_dump_all([probed]))
    out = io.StringIO()
    streams = Streams(io.BytesIO(), out, io.StringIO(), env={})
    main(["check", str(file), "--snapshot", str(snapshot), "--json", "-"], streams)
    [solo] = json.loads(out.getvalue())["workloads"]
    assert solo["verdict"] == verdict
    if verdict == "ERROR":
        assert solo["reason"] == (
            'pods "solo" is forbidden: violates PodSecurity "baseline:latest": probe or '
            'lifecycle host (container "web" uses probe or lifecycle host "localhost")'
        )


UNCHECKED = (
    "Pod Security admission is not checked for {count} workload(s): the snapshot recorded no "
    "namespaces, so their pod-security.kubernetes.io labels are unknown; record them (fitgate "
    "snapshot, or kubectl get nodes,pods,namespaces -A -o json)"
)
SKIP_SOLO = "skip:\n  - {kind: Pod, name: solo, reason: runs elsewhere}\n"
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}


def _pod_security_notes(warnings: list[str]) -> list[str]:
    return [w for w in warnings if w.startswith("Pod Security admission")]


@pytest.mark.parametrize(
    ("recorded", "manifests", "config", "count"),
    [
        pytest.param(
            None,
            [_controller("Deployment", "shop"), _pod("solo", "default")],
            None,
            2,
            id="no namespaces recorded: each workload counted",
        ),
        pytest.param(
            SHOP,
            [_controller("Deployment", "shop"), _pod("solo", "default")],
            None,
            None,
            id="namespaces recorded: checked, no note",
        ),
        pytest.param(
            [],
            [_controller("Deployment", "shop")],
            None,
            None,
            id="an empty namespace list recorded: unlabelled, checked, no note",
        ),
        pytest.param(
            None,
            [*SHOP, _controller("Deployment", "shop"), _pod("solo", "default")],
            None,
            None,
            id="none recorded, the run ships each Namespace: no note",
        ),
        pytest.param(
            None,
            [SHOP[0], _controller("Deployment", "shop"), _pod("solo", "default")],
            None,
            1,
            id="none recorded, the run ships one: only the other's workload counted",
        ),
        pytest.param(
            None,
            [CONFIG_MAP, _controller("Deployment", "shop")],
            None,
            1,
            id="a document that is no workload is not counted",
        ),
        pytest.param(
            None,
            [_controller("Deployment", "shop"), _pod("solo", "default")],
            SKIP_SOLO,
            1,
            id="a workload the configuration skips is not counted",
        ),
        pytest.param(
            None,
            [_pod("solo", "default")],
            SKIP_SOLO,
            None,
            id="every workload skipped: no note",
        ),
    ],
)
def test_a_run_says_once_when_pod_security_could_not_be_checked(
    tmp_path: Path,
    recorded: list[dict[str, Any]] | None,
    manifests: list[dict[str, Any]],
    config: str | None,
    count: int | None,
) -> None:
    """The labels Evaluator.namespace_labels cannot give (None) leave the PodSecurity
    plugin unrun: the JSON report's warnings and the text's snapshot line say so once."""
    argv = _inputs(tmp_path, manifests, recorded)
    if config is not None:
        (tmp_path / "fitgate.yaml").write_text(config)
        argv += ["--config", str(tmp_path / "fitgate.yaml")]
    _, out = _main("check", *argv, "--json", "-")
    expected = [] if count is None else [UNCHECKED.format(count=count)]
    assert _pod_security_notes(json.loads(out).get("warnings", [])) == expected
    _, text = _main("check", *argv)
    said = re.findall(r" Warning: (Pod Security admission[^\n]*?\))\.", text)
    assert said == expected


def _split_run(tmp_path: Path) -> list[str]:
    """Five workloads in three namespaces, one of them shipped: four counted."""
    workloads = [_pod(f"p{index}", namespace) for index, namespace in enumerate("aabbc")]
    return _inputs(tmp_path, [_namespace("c"), *workloads], None)


@needs_two_cores
def test_two_processes_count_what_one_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forks: list[object]
) -> None:
    inputs = _split_run(tmp_path)
    _, whole = _main("check", *inputs, "--processes", "1", "--json", "-")
    monkeypatch.setattr(split, "SPLIT_FROM", 2)  # five workloads are cut in two
    _, two = _main("check", *inputs, "--processes", "2", "--json", "-")
    assert [second is not None for second in forks] == [True]
    assert _pod_security_notes(json.loads(whole)["warnings"]) == [UNCHECKED.format(count=4)]
    assert two == whole


@pytest.mark.parametrize("count", [2, 3, 5])
def test_shards_merged_count_what_the_whole_run_counts(tmp_path: Path, count: int) -> None:
    inputs = _split_run(tmp_path)
    _, whole = _main("check", *inputs, "--json", "-")
    shards = [str(tmp_path / f"shard-{index}.json") for index in range(1, count + 1)]
    for index, shard in enumerate(shards, start=1):
        _main("check", *inputs, "--shard", f"{index}/{count}", "--json", shard)
        assert json.loads(Path(shard).read_text())["warnings"] == json.loads(whole)["warnings"]
    _, merged = _main("merge", *shards, "--json", "-")
    assert _pod_security_notes(json.loads(whole)["warnings"]) == [UNCHECKED.format(count=4)]
    assert json.loads(merged)["warnings"] == json.loads(whole)["warnings"]
