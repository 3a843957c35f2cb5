"""The API server's validation of a workload's pod template (gate.k8s.validation): each
rule of kubernetes v1.34 a template can break, with the field error the API server prints,
reached through the workloads read (gate.inputs.workloads), and templates it takes."""

from __future__ import annotations

import copy
import doctest
import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.inputs.workloads import TEMPLATE_PATHS, Unevaluated, extract, extract_all
from gate.k8s import validation
from gate.k8s.validation import (
    go_quote,
    json_labels,
    json_quote,
    json_selector,
    pod_template_problem,
)
from gate.model import Document, Location, Verdict, Workload

P = "spec.template.spec"
QUALIFIED = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
DNS_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
SELECTOR = {"matchLabels": {"app": "web"}}
SPREAD = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
TERM = {"topologyKey": "zone", "labelSelector": SELECTOR}
NODE_TERMS = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


def deployment(kind: str = "Deployment") -> dict[str, Any]:
    app = {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [app]}}
    spec = {"replicas": 2, "selector": copy.deepcopy(SELECTOR), "template": template}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "web"}, "spec": spec}


def controller() -> dict[str, Any]:
    body = deployment("ReplicationController")
    body["spec"]["selector"] = {"app": "web"}  # a map of labels, not a LabelSelector
    return {**body, "apiVersion": "v1"}


def job(kind: str = "Job") -> dict[str, Any]:
    app = {"name": "app", "image": "busybox"}
    template = {"spec": {"restartPolicy": "Never", "containers": [app]}}
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                "spec": {"template": template}}  # fmt: skip
    cron = {"schedule": "@daily", "jobTemplate": {"spec": {"template": template}}}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": cron}


Edit = Callable[[dict[str, Any]], object]


def pod(**fields: Any) -> Edit:
    """Set fields of the Deployment's pod spec."""
    return lambda body: body["spec"]["template"]["spec"].update(copy.deepcopy(fields))


def app(**fields: Any) -> Edit:
    """Set fields of its first container."""
    return lambda body: body["spec"]["template"]["spec"]["containers"][0].update(fields)


def resources(requests: dict[str, Any], limits: dict[str, Any] | None = None) -> Edit:
    found: dict[str, Any] = {"requests": requests}
    if limits is not None:
        found["limits"] = limits
    return app(resources=found)


def ports(*items: dict[str, Any]) -> Edit:
    return app(ports=list(items))


def then(*edits: Edit) -> Edit:
    return lambda body: [edit(body) for edit in edits]


def spec(**fields: Any) -> Edit:
    """Set fields of the workload's own spec."""
    return lambda body: body["spec"].update(copy.deepcopy(fields))


QUALIFIED_KINDS = {
    "Deployment": "Deployment.apps", "ReplicaSet": "ReplicaSet.apps",
    "StatefulSet": "StatefulSet.apps", "DaemonSet": "DaemonSet.apps", "Job": "Job.batch",
    "CronJob": "CronJob.batch", "ReplicationController": "ReplicationController", "Pod": "Pod",
    "PodTemplate": "PodTemplate",
}  # fmt: skip
"""schema.GroupKind.String() of each built-in kind: the core group's kinds stand alone."""


def invalid(body: dict[str, Any], errors: str, name: str | None = None) -> str:
    """apierrors.NewInvalid's message for ``body`` (named ``name`` when its own is not the
    one validated): its GroupKind and quoted name, then the aggregated errors."""
    shown = body["metadata"].get("name", "") if name is None else name
    return f'{QUALIFIED_KINDS[body["kind"]]} "{shown}" is invalid: {errors}'


def reason(body: dict[str, Any]) -> str | None:
    found = extract(Document(Location("w.yaml", 1), body=body), TEMPLATE_PATHS)
    if isinstance(found, Workload):
        return None
    assert isinstance(found, Unevaluated) and found.verdict is Verdict.ERROR
    return found.reason


# (id, the valid workload, the edit that breaks it, the API server's field error)
REFUSED: list[tuple[str, Callable[[], dict[str, Any]], Edit, str]] = [
    # ValidateTolerations
    ("a toleration of operator Exists with a value is refused", deployment,
     pod(tolerations=[{"key": "k", "operator": "Exists", "value": "v"}]),
     f'{P}.tolerations[0].operator: Invalid value: "v": value must be empty when `operator` is '
     "'Exists'"),
    ("a toleration without a key and not Exists is refused", deployment,
     pod(tolerations=[{"operator": "Equal", "value": "v"}]),
     f'{P}.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` '
     'is empty, which means "match all values and all keys"'),
    ("a toleration operator other than Equal or Exists is refused", deployment,
     pod(tolerations=[{"key": "k", "operator": "In", "value": "v"}]),
     f'{P}.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", '
     '"Exists"'),
    ("tolerationSeconds on an effect other than NoExecute is refused", deployment,
     pod(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoSchedule",
                       "tolerationSeconds": 5}]),
     f'{P}.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' '
     "when `tolerationSeconds` is set"),
    ("a toleration effect that is no taint effect is refused", deployment,
     pod(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoRun"}]),
     f'{P}.tolerations[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", '
     '"PreferNoSchedule", "NoExecute"'),
    ("a toleration value that is no label value is refused", deployment,
     pod(tolerations=[{"key": "k", "value": "a b"}]),
     f'{P}.tolerations[0].operator: Invalid value: "a b": {LABEL_VALUE}'),
    ("a toleration key that is no label key is refused", deployment,
     pod(tolerations=[{"key": "a/b/c", "operator": "Exists"}]),
     f'{P}.tolerations[0].key: Invalid value: "a/b/c": a qualified name {QUALIFIED} with an '
     "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
    # validateContainers, validateInitContainers, validateContainerCommon
    ("two containers named alike are refused", deployment,
     pod(containers=[{"name": "app", "image": "a"}, {"name": "app", "image": "b"}]),
     f'{P}.containers[1].name: Duplicate value: "app"'),
    ("an init container named as a container is refused", deployment,
     pod(initContainers=[{"name": "app", "image": "a"}]),
     f'{P}.initContainers[0].name: Duplicate value: "app"'),
    ("a container name that is no DNS label is refused", deployment, app(name="App"),
     f'{P}.containers[0].name: Invalid value: "App": {DNS_LABEL}'),
    ("a container without a name is refused", deployment, app(name=None),
     f"{P}.containers[0].name: Required value"),
    ("a container without an image is refused", deployment, app(image=""),
     f"{P}.containers[0].image: Required value"),
    ("a regular container with a restartPolicy is refused", deployment, app(restartPolicy="Always"),
     f"{P}.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"),
    # validateInitContainerRestartPolicy
    ("an init container restarting other than Always is refused", deployment,
     pod(initContainers=[{"name": "init", "image": "a", "restartPolicy": "Never"}]),
     f'{P}.initContainers[0].restartPolicy: Unsupported value: "Never": supported values: '
     '"Always"'),
    # validateInitContainers: lifecycle and probes only on a sidecar (TestValidateInitContainers'
    # "invalid lifecycle, no lifecycle for init containers" and "... livenessProbe ..." rows)
    ("an init container with a lifecycle is refused", deployment,
     pod(initContainers=[{"name": "init", "image": "a",
                          "lifecycle": {"preStop": {"exec": {"command": ["true"]}}}}]),
     f"{P}.initContainers[0].lifecycle: Forbidden: may not be set for init containers without "
     "restartPolicy=Always"),
    ("an init container's probes are refused in their order, after its host ports", deployment,
     pod(initContainers=[{"name": "init", "image": "a", "restartPolicy": "OnFailure",
                          "startupProbe": {"tcpSocket": {"port": 80}},
                          "livenessProbe": {"tcpSocket": {"port": 80}},
                          "ports": [{"containerPort": 80, "hostPort": 80},
                                    {"containerPort": 81, "hostPort": 80}]}]),
     f'[{P}.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: '
     f'"Always", {P}.initContainers[0].ports[1].hostPort: Duplicate value: "TCP//80", '
     f"{P}.initContainers[0].livenessProbe: Forbidden: may not be set for init containers "
     f"without restartPolicy=Always, {P}.initContainers[0].startupProbe: Forbidden: may not be "
     "set for init containers without restartPolicy=Always]"),
    # ValidateVolumes' names, first in ValidatePodSpec; ValidateVolumeMounts after the ports
    # (TestValidateVolumeMounts' "name not found", "empty mountpath", "duplicate mountpath")
    ("a mount of a volume the pod lacks is not found", deployment,
     app(volumeMounts=[{"name": "config", "mountPath": "/etc/app"}]),
     f'{P}.containers[0].volumeMounts[0].name: Not found: "config"'),
    ("a mount without a name or path is refused, its paths once each", deployment,
     then(pod(volumes=[{"name": "data", "emptyDir": {}}]),
          app(volumeMounts=[{"name": "", "mountPath": ""}, {"name": "data", "mountPath": ""}])),
     f"[{P}.containers[0].volumeMounts[0].name: Required value, "
     f'{P}.containers[0].volumeMounts[0].name: Not found: "", '
     f"{P}.containers[0].volumeMounts[0].mountPath: Required value, "
     f"{P}.containers[0].volumeMounts[1].mountPath: Required value, "
     f'{P}.containers[0].volumeMounts[1].mountPath: Invalid value: "": must be unique]'),
    ("a volume named twice or as no DNS label is refused, and mounts of it not found",
     deployment,
     then(pod(volumes=[{"name": "data"}, {"name": "data"}, {"name": "Logs"}]),
          ports({"containerPort": 0}),
          app(volumeMounts=[{"name": "Logs", "mountPath": "/logs"}])),
     f'[{P}.volumes[1].name: Duplicate value: "data", {P}.volumes[2].name: Invalid value: '
     f'"Logs": {DNS_LABEL}, {P}.containers[0].ports[0].containerPort: Required value, '
     f'{P}.containers[0].volumeMounts[0].name: Not found: "Logs"]'),
    ("an init container's mount is held to the pod's volumes too", deployment,
     pod(initContainers=[{"name": "init", "image": "i",
                          "volumeMounts": [{"name": "seed", "mountPath": "/seed"}]}]),
     f'{P}.initContainers[0].volumeMounts[0].name: Not found: "seed"'),
    # validateContainerCommon's policies, SetDefaults_Container filling in those left out
    ("a termination message policy of no known kind is refused before the ports", deployment,
     then(app(terminationMessagePolicy="Logs"), ports({"containerPort": 0})),
     f'[{P}.containers[0].terminationMessagePolicy: Unsupported value: "Logs": supported '
     f'values: "File", "FallbackToLogsOnError", {P}.containers[0].ports[0].containerPort: '
     "Required value]"),
    ("a pull policy in lower case is refused after the mounts, before the resources",
     deployment, then(app(imagePullPolicy="always"),
                      resources({"cpu": "2"}, {"cpu": "1"})),
     f'[{P}.containers[0].imagePullPolicy: Unsupported value: "always": supported values: '
     f'"Always", "IfNotPresent", "Never", {P}.containers[0].resources.requests: Invalid '
     'value: "2": must be less than or equal to cpu limit of 1]'),
    # validateProbe and validateHandler (TestValidateProbe, TestValidateHandler rows)
    ("a probe without a handler is refused", deployment, app(readinessProbe={}),
     f"{P}.containers[0].readinessProbe: Required value: must specify a handler type"),
    ("a probe of two handlers keeps the first", deployment,
     app(livenessProbe={"tcpSocket": {"port": 0}, "exec": {"command": []}}),
     f"[{P}.containers[0].livenessProbe.exec.command: Required value, "
     f"{P}.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 "
     "handler type]"),
    ("a liveness probe succeeding twice is refused, after its counts", deployment,
     app(livenessProbe={"httpGet": {"port": "http"}, "successThreshold": 2,
                        "periodSeconds": -1}),
     f"[{P}.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater "
     f"than or equal to 0, {P}.containers[0].livenessProbe.successThreshold: Invalid value: 2: "
     "must be 1]"),
    ("a readiness probe's own grace period is refused, twice when not positive", deployment,
     app(readinessProbe={"grpc": {"port": 9000}, "terminationGracePeriodSeconds": 0}),
     f"[{P}.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 0: "
     f"must be greater than 0, {P}.containers[0].readinessProbe.terminationGracePeriodSeconds:"
     " Invalid value: 0: must not be set for readinessProbes]"),
    ("an httpGet probe's port, scheme and header names are held to their rules", deployment,
     app(startupProbe={"httpGet": {"port": 70000, "scheme": "http",
                                   "httpHeaders": [{"name": "X Auth", "value": "a"}]}}),
     f"[{P}.containers[0].startupProbe.httpGet.port: Invalid value: 70000: must be between 1 "
     f'and 65535, inclusive, {P}.containers[0].startupProbe.httpGet.scheme: Unsupported value: '
     f'"http": supported values: "HTTP", "HTTPS", {P}.containers[0].startupProbe.httpGet.'
     "httpHeaders: Invalid value: \"X Auth\": a valid HTTP header must consist of "
     "alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is "
     "'[-A-Za-z0-9]+')]"),
    ("a tcpSocket port of digits as text is no port name", deployment,
     app(livenessProbe={"tcpSocket": {"port": "8080"}}),
     f'{P}.containers[0].livenessProbe.tcpSocket.port: Invalid value: "8080": must contain '
     "at least one letter (a-z)"),
    ("a lifecycle hook without a handler is refused before the probes", deployment,
     app(lifecycle={"preStop": {}}, readinessProbe={}),
     f"[{P}.containers[0].lifecycle.preStop: Required value: must specify a handler type, "
     f"{P}.containers[0].readinessProbe: Required value: must specify a handler type]"),
    ("a sidecar's probes are held to a container's rules", deployment,
     pod(initContainers=[{"name": "proxy", "image": "p", "restartPolicy": "Always",
                          "startupProbe": {"exec": {"command": ["true"]},
                                           "successThreshold": 3}}]),
     f"{P}.initContainers[0].startupProbe.successThreshold: Invalid value: 3: must be 1"),
    # validateDNSPolicy after validateRestartPolicy; validatePodDNSConfig after the affinity
    ("a DNS policy of no known kind is refused", deployment, pod(dnsPolicy="ClusterLast"),
     f'{P}.dnsPolicy: Unsupported value: "ClusterLast": supported values: '
     '"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"'),
    ("the None DNS policy without a dnsConfig is refused", deployment, pod(dnsPolicy="None"),
     f"{P}.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"),
    ("the None DNS policy without a nameserver is refused", deployment,
     pod(dnsPolicy="None", dnsConfig={"searches": ["svc.cluster.local"]}),
     f"{P}.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver "
     "when `dnsPolicy` is None"),
    ("four nameservers are too many, refused after the node selector", deployment,
     pod(dnsConfig={"nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "8.8.4.4"]},
         nodeSelector={"disk": "fast ssd"}),
     f'[{P}.nodeSelector: Invalid value: "fast ssd": {LABEL_VALUE}, {P}.dnsConfig.nameservers: '
     'Invalid value: ["1.1.1.1","8.8.8.8","9.9.9.9","8.8.4.4"]: must not have more than 3 '
     "nameservers]"),
    # validateReadinessGates, after the DNS config, before the scheduling gates
    ("a readiness gate's condition that is no qualified name is refused", deployment,
     pod(readinessGates=[{"conditionType": "target health"}]),
     f'{P}.readinessGates[0].conditionType: Invalid value: "target health": name part '
     f"{QUALIFIED}"),
    # validateOS, last in ValidatePodSpec
    ("an OS of no known name is refused after the overhead", deployment,
     pod(os={"name": "darwin"}, overhead={"gpu": "1"}),
     f'[{P}.overhead.limits[gpu]: Invalid value: "gpu": must be a standard resource type or '
     f'fully qualified, {P}.overhead.limits[gpu]: Invalid value: "gpu": must be a standard '
     f'resource for containers, {P}.os: Unsupported value: "darwin": supported values: '
     '"linux", "windows"]'),
    ("an OS without a name is refused", deployment, pod(os={"name": ""}),
     f"{P}.os.name: Required value"),
    # validateContainerPorts
    ("a port without containerPort is refused", deployment, ports({"hostPort": 80}),
     f"{P}.containers[0].ports[0].containerPort: Required value"),
    ("a containerPort past 65535 is refused", deployment, ports({"containerPort": 70000}),
     f"{P}.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and "
     "65535, inclusive"),
    ("a hostPort past 65535 is refused", deployment,
     ports({"containerPort": 80, "hostPort": 70000}),
     f"{P}.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, "
     "inclusive"),
    ("a protocol other than TCP, UDP or SCTP is refused", deployment,
     ports({"containerPort": 80, "protocol": "HTTP"}),
     f'{P}.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: '
     '"SCTP", "TCP", "UDP"'),
    ("a port name with capitals is refused", deployment,
     ports({"containerPort": 80, "name": "Web"}),
     f'{P}.containers[0].ports[0].name: Invalid value: "Web": must contain only alpha-numeric '
     "characters (a-z, 0-9), and hyphens (-)"),
    ("two ports named alike are refused", deployment,
     ports({"containerPort": 80, "name": "web"}, {"containerPort": 81, "name": "web"}),
     f'{P}.containers[0].ports[1].name: Duplicate value: "web"'),
    # AccumulateUniqueHostPorts
    ("one host port twice across containers is refused", deployment,
     pod(containers=[
         {"name": "a", "image": "a", "ports": [{"containerPort": 80, "hostPort": 80}]},
         {"name": "b", "image": "b", "ports": [{"containerPort": 81, "hostPort": 80}]}]),
     f'{P}.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"'),
    # validatePodHostNetworkDeps
    ("a hostNetwork hostPort other than its containerPort is refused", deployment,
     then(pod(hostNetwork=True), ports({"containerPort": 80, "hostPort": 81})),
     f"{P}.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when "
     "`hostNetwork` is true"),
    # validateResourceRequirements
    ("requests above limits are refused", deployment, resources({"cpu": "2"}, {"cpu": "1"}),
     f'{P}.containers[0].resources.requests: Invalid value: "2": must be less than or equal to '
     "cpu limit of 1"),
    ("requests above limits name the quantities as the API server prints them", deployment,
     resources({"memory": "1.5Gi"}, {"memory": "1024Mi"}),
     f'{P}.containers[0].resources.requests: Invalid value: "1536Mi": must be less than or '
     "equal to memory limit of 1Gi"),
    # ErrorList.ToAggregate (apimachinery field/errors.go): every error, in the order found
    ("the errors of two containers are listed together, the first container's first", deployment,
     then(resources({"cpu": "2"}, {"cpu": "1"}),
          lambda body: body["spec"]["template"]["spec"]["containers"].append(
              {"name": "b", "image": "b", "resources": {"requests": {"memory": "2Gi"},
                                                        "limits": {"memory": "1Gi"}}})),
     f'[{P}.containers[0].resources.requests: Invalid value: "2": must be less than or equal '
     f'to cpu limit of 1, {P}.containers[1].resources.requests: Invalid value: "2Gi": must be '
     "less than or equal to memory limit of 1Gi]"),
    ("the same error twice is listed once", deployment,
     then(pod(tolerations=[{"operator": "Equal"}, {"operator": "Equal"}])),
     f'[{P}.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` '
     'is empty, which means "match all values and all keys", '
     f'{P}.tolerations[1].operator: Invalid value: "Equal": operator must be Exists when `key` '
     'is empty, which means "match all values and all keys"]'),
    # ValidateResourceQuantityValue: ValidateNonnegativeQuantity first
    ("a negative request is refused in the validation's words", deployment,
     resources({"cpu": "-0.5"}),
     f'{P}.containers[0].resources.requests[cpu]: Invalid value: "-500m": must be greater than '
     "or equal to 0"),
    ("a negative pod-level limit is refused in the validation's words", deployment,
     pod(resources={"limits": {"memory": "-1Gi"}}),
     f'{P}.resources.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0'),
    # validatePodResourceName: IsSupportedPodLevelResource
    ("a pod-level resource other than cpu, memory or hugepages is refused", deployment,
     pod(resources={"requests": {"ephemeral-storage": "1Gi"}}),
     f'{P}.resources.requests[ephemeral-storage]: Unsupported value: "ephemeral-storage": '
     'supported values: "cpu", "hugepages-", "memory"'),
    ("a pod-level resource neither standard nor qualified is refused once", deployment,
     pod(resources={"limits": {"gpu": "1"}}),
     f'{P}.resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or '
     "fully qualified"),
    ("a pod-level extended resource is refused as unsupported", deployment,
     pod(resources={"limits": {"example.com/gpu": "1"}}),
     f'{P}.resources.limits[example.com/gpu]: Unsupported value: "example.com/gpu": supported '
     'values: "cpu", "hugepages-", "memory"'),
    # SetDefaults_ResourceList rounds each quantity up to thousandths before validation
    ("a request above its limit is named as the API server rounds it", deployment,
     resources({"cpu": "1.5001"}, {"cpu": "1"}),
     f'{P}.containers[0].resources.requests: Invalid value: "1501m": must be less than or '
     "equal to cpu limit of 1"),
    ("an extended resource request without a limit is refused", deployment,
     resources({"example.com/gpu": "1"}),
     f"{P}.containers[0].resources.limits: Required value: Limit must be set for non "
     "overcommitable resources"),
    ("an extended resource request other than its limit is refused", deployment,
     resources({"example.com/gpu": "1"}, {"example.com/gpu": "2"}),
     f'{P}.containers[0].resources.requests: Invalid value: "1": must be equal to '
     "example.com/gpu limit of 2"),
    ("an extended resource of a fraction is refused", deployment,
     resources({"example.com/gpu": "500m"}, {"example.com/gpu": "500m"}),
     f'[{P}.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an '
     f'integer, {P}.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": '
     "must be an integer]"),
    ("a hugepages request without a limit is refused", deployment,
     resources({"hugepages-2Mi": "2Mi", "memory": "1Gi"}),
     f"{P}.containers[0].resources.limits: Required value: Limit must be set for non "
     "overcommitable resources"),
    ("hugepages without cpu or memory are refused", deployment,
     resources({"hugepages-2Mi": "2Mi"}, {"hugepages-2Mi": "2Mi"}),
     f"{P}.containers[0].resources: Forbidden: HugePages require cpu or memory"),
    ("hugepages not a multiple of the page size are refused", deployment,
     resources({"memory": "1Gi"}, {"hugepages-2Mi": "3Mi", "memory": "1Gi"}),
     f'{P}.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not '
     "positive integer multiple of hugepages-2Mi"),
    # validateResourceName, then validateContainerResourceName (a ResourceName prints as
    # json.Marshal prints it)
    ("a resource name neither standard nor qualified is refused twice", deployment,
     resources({"gpu": "1"}),
     f'[{P}.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard '
     f'resource type or fully qualified, {P}.containers[0].resources.requests[gpu]: Invalid '
     'value: "gpu": must be a standard resource for containers]'),
    # validateContainerResourceName goes on after validateResourceName's errors
    ("a resource name that is no qualified name is refused, and as no container's", deployment,
     resources({"a b": "1"}),
     f'[{P}.containers[0].resources.requests[a b]: Invalid value: "a b": name part '
     f'{QUALIFIED}, {P}.containers[0].resources.requests[a b]: Invalid value: "a b": must be a '
     "standard resource for containers]"),
    # validateContainerResourceName
    ("a standard resource no container requests is refused", deployment,
     resources({"pods": "1"}),
     f'{P}.containers[0].resources.requests[pods]: Invalid value: "pods": must be a standard '
     "resource for containers"),
    # validateOverhead
    ("an overhead of a resource no container has is refused", deployment,
     pod(overhead={"gpu": "1"}),
     f'[{P}.overhead.limits[gpu]: Invalid value: "gpu": must be a standard resource type or '
     f'fully qualified, {P}.overhead.limits[gpu]: Invalid value: "gpu": must be a standard '
     "resource for containers]"),
    # ValidateObjectMeta: the namespace and the labels, before the spec
    ("a namespace that is no DNS label is refused before the spec", deployment,
     then(lambda body: body["metadata"].update(namespace="team.a"), pod(restartPolicy="Never")),
     '[metadata.namespace: Invalid value: "team.a": must not contain dots, '
     f'{P}.restartPolicy: Unsupported value: "Never": supported values: "Always"]'),
    ("a workload's own label value that is no label value is refused", deployment,
     lambda body: body["metadata"].update(labels={"tier": "front end"}),
     f'metadata.labels: Invalid value: "front end": {LABEL_VALUE}'),
    ("a CronJob named longer than 52 characters is refused", lambda: job("CronJob"),
     lambda body: body["metadata"].update(name="c" * 53),
     f'metadata.name: Invalid value: "{"c" * 53}": must be no more than 52 characters'),
    # ValidatePodSpec: activeDeadlineSeconds in 1..MaxInt32 (InclusiveRangeError)
    ("a Job's pods of a deadline of 0 are refused", job,
     lambda body: body["spec"]["template"]["spec"].update(activeDeadlineSeconds=0),
     "spec.template.spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and "
     "2147483647, inclusive"),
    # ValidatePreemptionPolicy
    ("a preemption policy of no known kind is refused", deployment,
     pod(preemptionPolicy="Sometimes"),
     f'{P}.preemptionPolicy: Unsupported value: "Sometimes": supported values: '
     '"PreemptLowerPriority", "Never"'),
    ("an empty preemption policy is a required value missing", deployment,
     pod(preemptionPolicy=""), f"{P}.preemptionPolicy: Required value"),
    ("a preemption policy is checked after the runtime class, before the overhead",
     deployment, pod(runtimeClassName="Kata", preemptionPolicy="", overhead={"gpu": "1"}),
     f'[{P}.runtimeClassName: Invalid value: "Kata": {SUBDOMAIN}, {P}.preemptionPolicy: '
     f'Required value, {P}.overhead.limits[gpu]: Invalid value: "gpu": must be a standard '
     f'resource type or fully qualified, {P}.overhead.limits[gpu]: Invalid value: "gpu": must '
     "be a standard resource for containers]"),
    # validateRestartPolicy, then the controller's own rule on it
    # (ValidatePodTemplateSpecForReplicaSet: "has already been first-order validated", yet
    # listed again with its own supported values)
    ("a restart policy of no known kind is refused twice", deployment,
     pod(restartPolicy="Sometimes"),
     f'[{P}.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", '
     f'"OnFailure", "Never", {P}.restartPolicy: Unsupported value: "Sometimes": supported '
     'values: "Always"]'),
    ("a StatefulSet's restart policy of no known kind is its own to refuse",
     lambda: deployment("StatefulSet"), pod(restartPolicy="Sometimes"),
     f'{P}.restartPolicy: Unsupported value: "Sometimes": supported values: "Always"'),
    ("a Job's restart policy of no known kind is refused twice", job,
     lambda body: body["spec"]["template"]["spec"].update(restartPolicy="Sometimes"),
     '[spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
     '"Always", "OnFailure", "Never", spec.template.spec.restartPolicy: Unsupported value: '
     '"Sometimes": supported values: "OnFailure", "Never"]'),
    ("a Job's unknown restart policy beside a pod failure policy is only unsupported", job,
     lambda body: (body["spec"].update(podFailurePolicy={"rules": []}),
                   body["spec"]["template"]["spec"].update(restartPolicy="Sometimes")),
     '[spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
     '"Always", "OnFailure", "Never", spec.template.spec.restartPolicy: Unsupported value: '
     '"Sometimes": supported values: "OnFailure", "Never"]'),
    # ValidateLabels (nodeSelector)
    ("a nodeSelector value that is no label value is refused", deployment,
     pod(nodeSelector={"disk": "fast ssd"}),
     f'{P}.nodeSelector: Invalid value: "fast ssd": {LABEL_VALUE}'),
    # ValidateNodeSelector, ValidateNodeSelectorRequirement, ValidateNodeFieldSelectorRequirement
    ("a required node affinity without terms is refused", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                    {"nodeSelectorTerms": []}}}),
     f"{P}.{NODE_TERMS}.nodeSelectorTerms: Required value: must have at least one node selector "
     "term"),
    ("a node requirement In without values is refused", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In"}]}]}}}),
     f"{P}.{NODE_TERMS}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
     "specified when `operator` is 'In' or 'NotIn'"),
    ("a node requirement Exists with values is refused", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchExpressions": [
             {"key": "zone", "operator": "Exists", "values": ["a"]}]}]}}}),
     f"{P}.{NODE_TERMS}.nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be "
     "specified when `operator` is 'Exists' or 'DoesNotExist'"),
    ("a node requirement Gt of two values is refused", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchExpressions": [
             {"key": "cores", "operator": "Gt", "values": ["1", "2"]}]}]}}}),
     f"{P}.{NODE_TERMS}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
     "specified single value when `operator` is 'Lt' or 'Gt'"),
    ("a node requirement operator of no known kind is refused", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Has"}]}]}}}),
     f'{P}.{NODE_TERMS}.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Has": '
     "not a valid selector operator"),
    ("a required node value that is no label value is refused", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchExpressions": [
             {"key": "zone", "operator": "In", "values": ["a b"]}]}]}}}),
     f'{P}.{NODE_TERMS}.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: '
     f'"a b": {LABEL_VALUE}'),
    ("a node field other than metadata.name is refused", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchFields": [
             {"key": "spec.unschedulable", "operator": "In", "values": ["x"]}]}]}}}),
     f'{P}.{NODE_TERMS}.nodeSelectorTerms[0].matchFields[0].key: Invalid value: '
     '"spec.unschedulable": not a valid field selector key'),
    ("a node field In two names is refused", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchFields": [
             {"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]}}}),
     f"{P}.{NODE_TERMS}.nodeSelectorTerms[0].matchFields[0].values: Required value: must be "
     "only one value when `operator` is 'In' or 'NotIn' for node field selector"),
    # ValidatePreferredSchedulingTerms
    ("a preferred node term of weight 0 is refused", deployment,
     pod(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 0, "preference": {}}]}}),
     f"{P}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
     "Invalid value: 0: must be in the range 1-100"),
    # validatePodAffinityTerm, validateWeightedPodAffinityTerms
    ("a pod affinity term without a topology key is refused", deployment,
     pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {"labelSelector": SELECTOR}]}}),
     f"[{P}.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
     f"Required value: can not be empty, {P}.affinity.podAffinity."
     'requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name '
     f"part must be non-empty, {P}.affinity.podAffinity."
     'requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name '
     f"part {QUALIFIED}]"),
    ("a weighted pod anti-affinity term of weight 101 is refused", deployment,
     pod(affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 101, "podAffinityTerm": TERM}]}}),
     f"{P}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
     "Invalid value: 101: must be in the range 1-100"),
    ("a pod affinity selector of no known operator is refused", deployment,
     pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {"topologyKey": "zone", "labelSelector": {"matchExpressions": [
             {"key": "app", "operator": "Equals", "values": ["web"]}]}}]}}),
     f"{P}.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
     '.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator'),
    ("a pod affinity namespace that is no DNS label is refused", deployment,
     pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {**TERM, "namespaces": ["Team_A"]}]}}),
     f"{P}.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace: "
     f'Invalid value: "Team_A": {DNS_LABEL}'),
    # validateMatchLabelKeysAndMismatchLabelKeys
    ("matchLabelKeys without a labelSelector are refused", deployment,
     pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {"topologyKey": "zone", "matchLabelKeys": ["app"]}]}}),
     f"{P}.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
     ".matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"),
    ("a key both matched and mismatched is refused", deployment,
     pod(affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {**TERM, "matchLabelKeys": ["tenant"], "mismatchLabelKeys": ["tenant"]}]}}),
     f"{P}.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
     '.matchLabelKeys[0]: Invalid value: "tenant": exists in both matchLabelKeys and '
     "mismatchLabelKeys"),
    # validateTopologySpreadConstraints
    ("a topology spread constraint of maxSkew 0 is refused", deployment,
     pod(topologySpreadConstraints=[{**SPREAD, "maxSkew": 0}]),
     f"{P}.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"),
    ("a topology spread constraint without a topology key is refused", deployment,
     pod(topologySpreadConstraints=[{**SPREAD, "topologyKey": ""}]),
     f"{P}.topologySpreadConstraints[0].topologyKey: Required value: can not be empty"),
    ("a topology spread constraint without whenUnsatisfiable is refused", deployment,
     pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone"}]),
     f'{P}.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "": supported '
     'values: "DoNotSchedule", "ScheduleAnyway"'),
    ("two spread constraints of one key and action are refused", deployment,
     pod(topologySpreadConstraints=[SPREAD, {**SPREAD, "maxSkew": 2}]),
     f"{P}.topologySpreadConstraints[0].{{topologyKey, whenUnsatisfiable}}: Duplicate value: "
     '"{zone, DoNotSchedule}"'),
    ("minDomains with ScheduleAnyway is refused", deployment,
     pod(topologySpreadConstraints=[
         {**SPREAD, "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 2}]),
     f"{P}.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if "
     "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
    ("minDomains of 0 is refused", deployment,
     pod(topologySpreadConstraints=[{**SPREAD, "minDomains": 0}]),
     f"{P}.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero"),
    ("a node inclusion policy other than Honor or Ignore is refused", deployment,
     pod(topologySpreadConstraints=[{**SPREAD, "nodeTaintsPolicy": "Always"}]),
     f'{P}.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: "Always": '
     'supported values: "Honor", "Ignore"'),
    # validateTopologySpreadConstraints with MatchLabelKeysInPodTopologySpreadSelectorMerge
    # (beta, on in v1.34): ValidateMatchLabelKeysAndMismatchLabelKeys, whose duplicate is a
    # key of matchLabels an expression repeats, reported at the constraint's path indexed
    ("a spread matchLabelKey its selector's labels and expressions both name is refused",
     deployment,
     pod(topologySpreadConstraints=[
         {**SPREAD, "labelSelector": {"matchLabels": {"app": "web"}, "matchExpressions": [
             {"key": "app", "operator": "Exists"}]},
          "matchLabelKeys": ["tier", "app"]}]),
     f'{P}.topologySpreadConstraints[0][1]: Invalid value: "app": exists in both matchLabelKeys '
     "and labelSelector"),
    ("spread matchLabelKeys without a labelSelector are refused once, their names unread",
     deployment,
     pod(topologySpreadConstraints=[{**SPREAD, "matchLabelKeys": ["not a key"]}]),
     f"{P}.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified when "
     "labelSelector is not set"),
    # validateSchedulingGates
    ("one scheduling gate twice is refused", deployment,
     pod(schedulingGates=[{"name": "example.com/wait"}, {"name": "example.com/wait"}]),
     f'{P}.schedulingGates[1]: Duplicate value: "example.com/wait"'),
    ("a scheduling gate without a name is refused", deployment, pod(schedulingGates=[{}]),
     f'[{P}.schedulingGates[0]: Invalid value: "": name part must be non-empty, '
     f'{P}.schedulingGates[0]: Invalid value: "": name part {QUALIFIED}]'),
    # ValidateServiceAccountName, ValidateNodeName, ValidatePriorityClassName,
    # ValidateRuntimeClassName; the hostname and subdomain DNS labels (ValidatePodSpec)
    ("a service account name that is no DNS subdomain is refused", deployment,
     pod(serviceAccountName="Robot_1"),
     f'{P}.serviceAccountName: Invalid value: "Robot_1": {SUBDOMAIN}'),
    ("the deprecated serviceAccount is refused as the name it stands for", deployment,
     pod(serviceAccount="Robot_1"),
     f'{P}.serviceAccountName: Invalid value: "Robot_1": {SUBDOMAIN}'),
    ("a node name that is no DNS subdomain is refused", deployment, pod(nodeName="Node_1"),
     f'{P}.nodeName: Invalid value: "Node_1": {SUBDOMAIN}'),
    ("a hostname and a subdomain that are no DNS labels are refused after the deadline",
     deployment, pod(hostname="web.1", subdomain="Svc", activeDeadlineSeconds=0),
     f"[{P}.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
     f'inclusive, {P}.hostname: Invalid value: "web.1": must not contain dots, '
     f'{P}.subdomain: Invalid value: "Svc": {DNS_LABEL}, {P}.activeDeadlineSeconds: Forbidden: '
     "activeDeadlineSeconds in ReplicaSet is not Supported]"),
    ("a priority class name that is no DNS subdomain is refused", deployment,
     pod(priorityClassName="High"),
     f'{P}.priorityClassName: Invalid value: "High": {SUBDOMAIN}'),
    ("an empty runtime class name is refused", deployment, pod(runtimeClassName=""),
     f'{P}.runtimeClassName: Invalid value: "": {SUBDOMAIN}'),
    # ValidatePodCreate, validateContainersOnlyForPod
    ("a Pod's image with a trailing space is refused", lambda: {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "image": "nginx"}]}},
     lambda body: body["spec"]["containers"][0].update(image="nginx "),
     'spec.containers[0].image: Invalid value: "nginx ": must not have leading or trailing '
     "whitespace"),
    ("a Pod naming its node while gated is refused", lambda: {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "image": "nginx"}]}},
     lambda body: body["spec"].update(nodeName="n1", schedulingGates=[{"name": "wait"}]),
     "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"),
    # ValidatePodTemplateSpec: the template's labels
    ("a template label key that is no qualified name is refused", deployment,
     lambda body: body["spec"]["template"]["metadata"]["labels"].update({"bad key": "x"}),
     f'spec.template.labels: Invalid value: "bad key": name part {QUALIFIED}'),
    # ValidateDeploymentSpec, ValidatePodTemplateSpecForReplicaSet
    ("a Deployment without a selector is refused, its null selector matching no labels",
     deployment, lambda body: body["spec"].pop("selector"),
     '[spec.selector: Required value, spec.template.metadata.labels: Invalid value: '
     '{"app":"web"}: `selector` does not match template `labels`]'),
    ("a Deployment whose selector does not match its template's labels is refused", deployment,
     spec(selector={"matchLabels": {"app": "other"}}),
     'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` '
     "does not match template `labels`"),
    ("a Deployment of an empty selector is refused", deployment, spec(selector={}),
     "spec.selector: Invalid value: {}: empty selector is invalid for "
     "deployment"),
    # LabelSelectorAsSelector refusing the selector: "invalid label selector", and the
    # template goes unchecked (its restartPolicy too, checked beside it)
    ("a Deployment selector of no known operator is refused, its template unchecked",
     deployment,
     then(spec(selector={"matchExpressions": [{"key": "app", "operator": "Is"}]}),
          pod(restartPolicy="Never")),
     '[spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector '
     'operator, spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":'
     '"Is"}]}: invalid label selector]'),
    ("a StatefulSet selector LabelSelectorAsSelector refuses is refused without a detail",
     lambda: deployment("StatefulSet"),
     then(spec(selector={"matchExpressions": [{"key": "app", "operator": "In"}]}),
          pod(restartPolicy="Never")),
     "[spec.selector.matchExpressions[0].values: Required value: must be specified when "
     "`operator` is 'In' or 'NotIn', spec.selector: Invalid value: {\"matchExpressions\":"
     '[{"key":"app","operator":"In"}]}, spec.template.spec.restartPolicy: Unsupported value: '
     '"Never": supported values: "Always"]'),
    # ValidatePodTemplateSpecForStatefulSet validates the template's labels, not its spec
    ("a StatefulSet's template labels are validated", lambda: deployment("StatefulSet"),
     lambda body: body["spec"]["template"]["metadata"]["labels"].update({"bad key": "x"}),
     f'spec.template.labels: Invalid value: "bad key": name part {QUALIFIED}'),
    # activeDeadlineSeconds is forbidden in the pods of a ReplicaSet, StatefulSet or
    # DaemonSet, after their restartPolicy
    ("a Deployment's pods of a deadline are refused", deployment,
     pod(activeDeadlineSeconds=60, restartPolicy="Never"),
     f'[{P}.restartPolicy: Unsupported value: "Never": supported values: "Always", '
     f"{P}.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not "
     "Supported]"),
    ("a StatefulSet's pods of a deadline are refused", lambda: deployment("StatefulSet"),
     pod(activeDeadlineSeconds=60),
     f"{P}.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not "
     "Supported"),
    ("a DaemonSet's pods of a deadline are refused", lambda: deployment("DaemonSet"),
     pod(activeDeadlineSeconds=60),
     f"{P}.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not "
     "Supported"),
    ("a ReplicationController's pods of a deadline are refused (ValidatePodTemplateSpecForRC)",
     controller, pod(activeDeadlineSeconds=60),
     f"{P}.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is "
     "not Supported"),
    # ValidatePodTemplateSpec after the pod spec; ValidatePodCreate after the images
    ("a template's ephemeral containers are refused", deployment,
     pod(ephemeralContainers=[{"name": "debug", "image": "busybox"}]),
     f"{P}.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"),
    ("a Pod's ephemeral containers are refused on create, after its images", lambda: {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "image": "nginx"}]}},
     lambda body: body["spec"].update(
         ephemeralContainers=[{"name": "debug", "image": "busybox"}], nodeName="n1",
         schedulingGates=[{"name": "wait"}], containers=[{"name": "a", "image": " nginx"}]),
     '[spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing '
     "whitespace, spec.ephemeralContainers: Forbidden: cannot be set on create, spec.nodeName: "
     "Forbidden: cannot be set until all schedulingGates have been cleared]"),
    ("a Deployment's pods restarting Never are refused", deployment, pod(restartPolicy="Never"),
     f'{P}.restartPolicy: Unsupported value: "Never": supported values: "Always"'),
    # ValidateRollingUpdateDeployment, ValidateDeploymentStrategy
    ("a Deployment surging none and taking none down is refused", deployment,
     spec(strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}}),
     'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%":'
     ' may not be 0 when `maxSurge` is 0'),
    ("a Deployment taking down more than 100% is refused", deployment,
     spec(strategy={"rollingUpdate": {"maxUnavailable": "150%"}}),
     'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%":'
     ' must not be greater than 100%'),
    ("a Deployment surge that is neither a count nor a percent is refused", deployment,
     spec(strategy={"rollingUpdate": {"maxSurge": "25"}}),
     'spec.strategy.rollingUpdate.maxSurge: Invalid value: "25":'
     " a valid percent string must be a numeric string followed by an ending "
     "'%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
    ("a negative surge is refused", deployment,
     spec(strategy={"rollingUpdate": {"maxSurge": -1}}),
     "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal "
     "to 0"),
    ("a Recreate Deployment with a rollingUpdate is refused", deployment,
     spec(strategy={"type": "Recreate", "rollingUpdate": {}}),
     "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is "
     "'Recreate'"),
    # ValidateRollingUpdateDaemonSet, after SetDefaults_DaemonSet (maxUnavailable 1)
    ("a DaemonSet surging while it takes pods down is refused", lambda: deployment("DaemonSet"),
     spec(updateStrategy={"rollingUpdate": {"maxSurge": 1}}),
     'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1:'
     ' may not be set when maxUnavailable is non-zero'),
    ("a DaemonSet neither surging nor taking pods down is refused",
     lambda: deployment("DaemonSet"), spec(updateStrategy={"rollingUpdate": {"maxUnavailable": 0}}),
     "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when "
     "maxSurge is 0"),
    # ValidateReplicaSetSpec: its empty selector is named as a Deployment's
    ("a ReplicaSet of an empty selector is refused", lambda: deployment("ReplicaSet"),
     spec(selector={"matchLabels": {}}),
     "spec.selector: Invalid value: {}: empty selector is invalid for "
     "deployment"),
    # ValidateStatefulSetSpec
    ("a StatefulSet without a selector is refused, its null selector matching no labels",
     lambda: deployment("StatefulSet"), lambda body: body["spec"].pop("selector"),
     '[spec.selector: Required value, spec.template.metadata.labels: Invalid value: '
     '{"app":"web"}: `selector` does not match template `labels`]'),
    ("a StatefulSet managing its pods neither OrderedReady nor Parallel is refused",
     lambda: deployment("StatefulSet"), spec(podManagementPolicy="Burst"),
     'spec.podManagementPolicy: Invalid value: "Burst": must be \'OrderedReady\' or '
     "'Parallel'"),
    # ValidateDaemonSetSpec: a null selector matches nothing
    ("a DaemonSet without a selector is refused", lambda: deployment("DaemonSet"),
     lambda body: body["spec"].pop("selector"),
     'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` '
     "does not match template `labels`"),
    # ValidatePodTemplateSpecForRC
    ("a ReplicationController whose selector misses its labels is refused",
     controller, spec(selector={"app": "db"}),
     'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` '
     "does not match template `labels`"),
    # validatePodResources and validatePodResourceConsistency
    # (pkg/apis/core/validation/validation.go; TestValidatePodResourceConsistency)
    ("a pod-level request below the containers' aggregate is refused", deployment,
     then(pod(resources={"requests": {"cpu": "100m"}}),
          pod(initContainers=[{"name": "i", "image": "i",
                               "resources": {"requests": {"cpu": "600m"}}}])),
     f'{P}.resources.requests[cpu]: Invalid value: "100m": must be greater than or equal to '
     "aggregate container requests of 600m"),
    ("a pod-level request below two containers' sum is refused", deployment,
     then(pod(resources={"requests": {"memory": "1Gi"}}),
          resources({"memory": "768Mi"}),
          lambda body: body["spec"]["template"]["spec"]["containers"].append(
              {"name": "b", "image": "b", "resources": {"requests": {"memory": "512Mi"}}})),
     f'{P}.resources.requests[memory]: Invalid value: "1Gi": must be greater than or equal to '
     "aggregate container requests of 1280Mi"),
    ("a pod-level hugepage limit below the containers' aggregate is refused", deployment,
     then(pod(resources={"limits": {"hugepages-2Mi": "2Mi", "memory": "1Gi"}}),
          resources({"hugepages-2Mi": "4Mi", "memory": "1Gi"}, {"hugepages-2Mi": "4Mi"})),
     f'[{P}.resources.limits[hugepages-2Mi]: Invalid value: "2Mi": must be greater than or '
     f"equal to aggregate container limits of 4Mi, {P}.resources.containers[0][hugepages-2Mi]."
     'limits: Invalid value: "4Mi": must be less than or equal to pod limits of 2Mi]'),
    ("a container's limit above the pod-level limit is refused", deployment,
     then(pod(resources={"limits": {"cpu": "1"}}), resources({"cpu": "100m"}, {"cpu": "2"})),
     f'{P}.resources.containers[0][cpu].limits: Invalid value: "2": must be less than or equal '
     "to pod limits of 1"),
    ("pod-level resources beside a Windows OS are refused", deployment,
     pod(os={"name": "windows"}, resources={"requests": {"cpu": "1"}}),
     f"{P}.resources: Forbidden: may not be set for a windows pod"),
    ("pod-level resource claims are refused, then checked as a container's are", deployment,
     pod(resources={"claims": [{"name": "gpu"}], "requests": {"cpu": "1"}}),
     f"[{P}.resources.claims: Forbidden: claims may not be set for Resources at pod-level, "
     f'{P}.resources.claims[0]: Not found: "gpu": must be one of the names in '
     "pod.spec.resourceClaims which is empty]"),
    # batch validateJobSpec: Always, written or defaulted, is a required value missing
    ("a Job whose pods restart Always (the default) is refused", job,
     lambda body: body["spec"]["template"]["spec"].pop("restartPolicy"),
     'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'),
    ("a Job of a podFailurePolicy restarting OnFailure is refused", job,
     then(spec(podFailurePolicy={"rules": []}),
          lambda body: body["spec"]["template"]["spec"].update(restartPolicy="OnFailure")),
     'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported '
     "when podFailurePolicy is specified"),
    ("a Job of a manual selector without one is refused", job, spec(manualSelector=True),
     "spec.selector: Required value"),
    # batch validateJobSpec (pkg/apis/batch/validation/validation.go), before the template
    ("a Job of a negative backoffLimit is refused", job, spec(backoffLimit=-1),
     "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"),
    ("a Job of a negative activeDeadlineSeconds is refused before its other counts", job,
     spec(activeDeadlineSeconds=-5, ttlSecondsAfterFinished=-1),
     "[spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0, "
     "spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0]"),
    ("a Job of maxFailedIndexes without backoffLimitPerIndex is refused", job,
     spec(completionMode="Indexed", completions=3, maxFailedIndexes=1),
     "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"),
    ("a Job of a completion mode neither NonIndexed nor Indexed is refused", job,
     spec(completionMode="Ordered"),
     'spec.completionMode: Unsupported value: "Ordered": supported values: "NonIndexed", '
     '"Indexed"'),
    ("a Job of an empty completion mode is refused", job, spec(completionMode=""),
     'spec.completionMode: Unsupported value: "": supported values: "NonIndexed", "Indexed"'),
    ("an Indexed Job of a parallelism and no completions is refused", job,
     spec(completionMode="Indexed", parallelism=2),
     "spec.completions: Required value: when completion mode is Indexed"),
    ("an Indexed Job running more than 100000 pods at once is refused", job,
     spec(completionMode="Indexed", completions=200000, parallelism=100001),
     "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when "
     "completion mode is Indexed"),
    ("an Indexed Job failing more indexes than it completes is refused", job,
     spec(completionMode="Indexed", completions=3, backoffLimitPerIndex=1, maxFailedIndexes=4),
     "spec.maxFailedIndexes: Invalid value: 4: must be less than or equal to completions"),
    ("an Indexed Job of many completions and a backoff per index needs maxFailedIndexes", job,
     spec(completionMode="Indexed", completions=100001, parallelism=10, backoffLimitPerIndex=1),
     "spec.maxFailedIndexes: Required value: must be specified when completions is above 100000"),
    ("an Indexed Job of many completions and a backoff per index runs at most 10000", job,
     spec(completionMode="Indexed", completions=100001, parallelism=10001,
          backoffLimitPerIndex=1, maxFailedIndexes=5),
     "spec.parallelism: Invalid value: 10001: must be less than or equal to 10000 when "
     "completions are above 100000 and used with backoff limit per index"),
    ("a NonIndexed Job of a backoff per index is refused", job, spec(backoffLimitPerIndex=2),
     "spec.backoffLimitPerIndex: Invalid value: 2: requires indexed completion mode"),
    ("a NonIndexed Job of maxFailedIndexes is refused after its backoff per index", job,
     spec(completionMode="NonIndexed", backoffLimitPerIndex=2, maxFailedIndexes=1),
     "[spec.backoffLimitPerIndex: Invalid value: 2: requires indexed completion mode, "
     "spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode]"),
    ("a Job replacing its pods neither when Failed nor TerminatingOrFailed is refused", job,
     spec(podReplacementPolicy="Terminating"),
     'spec.podReplacementPolicy: Unsupported value: "Terminating": supported values: '
     '"Failed", "TerminatingOrFailed"'),
    ("a Job of a podFailurePolicy replacing its pods before they fail is refused", job,
     spec(podFailurePolicy={"rules": []}, podReplacementPolicy="TerminatingOrFailed"),
     'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: '
     '"Failed"'),
    ("a Job's count is refused before its template", job,
     then(spec(backoffLimit=-1),
          lambda body: body["spec"]["template"]["spec"].pop("restartPolicy")),
     "[spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0, "
     'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"]'),
    ("a CronJob's Indexed job template without completions is refused (not defaulted)",
     lambda: job("CronJob"),
     lambda body: body["spec"]["jobTemplate"]["spec"].update(completionMode="Indexed"),
     "spec.jobTemplate.spec.completions: Required value: when completion mode is Indexed"),
    # ValidateJob: the last index's hostname
    ("an Indexed Job whose last pod's hostname is no DNS label is refused", job,
     then(spec(completionMode="Indexed", completions=10),
          lambda body: body["metadata"].update(name="j" * 62)),
     f'metadata.name: Invalid value: "{"j" * 62}": will not able to create pod with invalid '
     f"DNS label: {'j' * 62}-9"),
    # ValidateJobTemplateSpec
    ("a CronJob whose job template carries a selector is refused", lambda: job("CronJob"),
     lambda body: body["spec"]["jobTemplate"]["spec"].update(selector={"matchLabels": {"a": "b"}}),
     'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: '
     "`selector` will be auto-generated"),
    ("a CronJob whose pods restart Always is refused", lambda: job("CronJob"),
     lambda body: body["spec"]["jobTemplate"]["spec"]["template"]["spec"].update(
         restartPolicy="Always"),
     'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: '
     '"OnFailure", "Never"'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "edit", "expected"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_template_the_api_server_refuses_is_an_error_in_its_words(
    build: Callable[[], dict[str, Any]], edit: Edit, expected: str
) -> None:
    body = build()
    assert reason(body) is None  # the workload before the edit is taken
    edit(body)
    assert reason(body) == invalid(body, expected)


def test_a_negative_job_count_is_refused_in_the_api_server_s_words() -> None:
    """validateJobSpec's ValidateNonnegativeField on parallelism and completions; a workload
    read reports such a count alone, at its line, when it is the only error
    (gate.inputs.counts)."""
    body = job()
    body["spec"].update(parallelism=-1, completions=-2)
    found = validation.workload_problem("Job", body, body["spec"]["template"]["spec"])
    assert found == (
        'Job.batch "j" is invalid: [spec.parallelism: Invalid value: -1: must be greater than '
        "or equal to 0, spec.completions: Invalid value: -2: must be greater than or equal to 0]"
    )


# (id, the workload, an edit the API server takes)
TAKEN: list[tuple[str, Callable[[], dict[str, Any]], Edit]] = [
    ("a toleration of every taint (no key, Exists) is taken", deployment,
     pod(tolerations=[{"operator": "Exists"}])),
    ("tolerationSeconds with NoExecute are taken", deployment,
     pod(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoExecute",
                       "tolerationSeconds": 30}])),
    ("an init container restarting Always (a sidecar) is taken", deployment,
     pod(initContainers=[{"name": "proxy", "image": "p", "restartPolicy": "Always"}])),
    ("a mount of a volume without a source (an emptyDir) is taken", deployment,
     then(pod(volumes=[{"name": "scratch"}]),
          app(volumeMounts=[{"name": "scratch", "mountPath": "/tmp"},
                            {"name": "scratch", "mountPath": "/var/tmp"}]))),
    ("probes left to SetDefaults_Probe and a sleeping hook are taken", deployment,
     app(livenessProbe={"httpGet": {"port": 8080, "path": ""}, "successThreshold": 0},
         readinessProbe={"tcpSocket": {"port": "http"}, "periodSeconds": 0},
         startupProbe={"grpc": {"port": 9000}, "terminationGracePeriodSeconds": 5},
         lifecycle={"postStart": {"exec": {"command": ["true"]}},
                    "preStop": {"sleep": {"seconds": 5}}},
         imagePullPolicy="IfNotPresent", terminationMessagePolicy="FallbackToLogsOnError")),
    ("the None DNS policy with a nameserver is taken", deployment,
     pod(dnsPolicy="None", dnsConfig={"nameservers": ["10.0.0.10"]})),
    ("serviceAccountName wins over the deprecated serviceAccount", deployment,
     pod(serviceAccountName="robot", serviceAccount="Robot_1")),
    ("a sidecar's probes and lifecycle are taken", deployment,
     pod(initContainers=[{"name": "proxy", "image": "p", "restartPolicy": "Always",
                          "readinessProbe": {"tcpSocket": {"port": 80}},
                          "lifecycle": {"preStop": {"exec": {"command": ["true"]}}}}])),
    ("a host port of 0 with hostNetwork is left to the pod's defaults", deployment,
     then(pod(hostNetwork=True), ports({"containerPort": 80}))),
    ("one host port on two protocols is taken", deployment,
     ports({"containerPort": 53, "hostPort": 53}, {"containerPort": 53, "hostPort": 53,
                                                   "protocol": "UDP"})),
    ("a spread matchLabelKey its selector's labels name is taken (its pods are not)", deployment,
     pod(topologySpreadConstraints=[
         {**SPREAD, "labelSelector": SELECTOR, "matchLabelKeys": ["app"]}])),
    ("a StatefulSet's pod spec is left to the pods it creates", lambda: deployment("StatefulSet"),
     resources({"cpu": "2"}, {"cpu": "1"})),
    ("a Deployment name with dots is taken", deployment,
     lambda body: body["metadata"].update(name="web.v2")),
    ("a request above its limit by less than the thousandth they both round to is taken",
     deployment, resources({"cpu": "1.0005"}, {"cpu": "1.0001"})),
    ("an integer resource short of a whole by less than a thousandth is taken", deployment,
     resources({"example.com/gpu": "0.9995"}, {"example.com/gpu": "0.9995"})),
    ("hugepages beside memory, request equal to limit, are taken", deployment,
     resources({"hugepages-2Mi": "4Mi", "memory": "1Gi"}, {"hugepages-2Mi": "4Mi"})),
    ("an extended resource of whole units equal to its limit is taken", deployment,
     resources({"example.com/gpu": "2"}, {"example.com/gpu": "2"})),
    ("a kubernetes.io resource may be requested below its limit", deployment,
     resources({"kubernetes.io/batch-cpu": "1"}, {"kubernetes.io/batch-cpu": "2"})),
    ("a Gt value that is no integer is the scheduler's affair, not the API server's", deployment,
     pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchExpressions": [
             {"key": "cores", "operator": "Gt", "values": ["many"]}]}]}}})),
    ("a preferred node value that is no label value is taken", deployment,
     pod(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 1, "preference": {"matchExpressions": [
             {"key": "zone", "operator": "In", "values": ["a b"]}]}}]}})),
    ("a whole pod anti-affinity is taken", deployment,
     pod(affinity={"podAntiAffinity": {
         "requiredDuringSchedulingIgnoredDuringExecution": [
             {**TERM, "namespaces": ["team-a"], "namespaceSelector": {},
              "matchLabelKeys": ["pod-template-hash"], "mismatchLabelKeys": ["tenant"]}],
         "preferredDuringSchedulingIgnoredDuringExecution": [
             {"weight": 100, "podAffinityTerm": TERM}]}})),
    ("a whole topology spread constraint is taken", deployment,
     pod(topologySpreadConstraints=[
         {**SPREAD, "labelSelector": SELECTOR, "minDomains": 3, "nodeAffinityPolicy": "Honor",
          "nodeTaintsPolicy": "Ignore", "matchLabelKeys": ["pod-template-hash"]},
         {**SPREAD, "whenUnsatisfiable": "ScheduleAnyway"}])),
    ("a Deployment surging none that takes one down is taken", deployment,
     spec(strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}})),
    ("a DaemonSet surging one with none down is taken", lambda: deployment("DaemonSet"),
     spec(updateStrategy={"rollingUpdate": {"maxSurge": "10%", "maxUnavailable": 0}})),
    ("a Deployment selecting by expression is taken", deployment,
     spec(selector={"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]})),
    ("a ReplicationController without a selector selects its labels", controller,
     lambda body: body["spec"].pop("selector")),
    ("a Job without a selector has one generated", job, lambda body: None),
    ("a pod-level request equal to the containers' aggregate is taken", deployment,
     pod(resources={"requests": {"cpu": "0.1"}})),
    ("a pod-level limit above a container's and no pod-level request is taken", deployment,
     then(pod(resources={"limits": {"cpu": "2"}}), resources({"cpu": "100m"}, {"cpu": "2"}))),
    ("a pod-level memory limit below the containers' sum is left to each container",
     deployment,
     then(pod(resources={"limits": {"memory": "1Gi"}}),
          resources({"memory": "1Gi"}, {"memory": "1Gi"}),
          lambda body: body["spec"]["template"]["spec"]["containers"].append(
              {"name": "b", "image": "b", "resources": {"limits": {"memory": "1Gi"}}}))),
    ("a Job of a podFailurePolicy replacing its pods once Failed is taken", job,
     spec(podFailurePolicy={"rules": []}, podReplacementPolicy="Failed")),
    ("an Indexed Job of neither count written has both defaulted to 1", job,
     spec(completionMode="Indexed")),
    ("an Indexed Job of 100000 pods at once and a backoff per index is taken", job,
     spec(completionMode="Indexed", completions=100000, parallelism=100000,
          backoffLimitPerIndex=0, maxFailedIndexes=100000)),
    ("an Indexed Job whose last hostname is a 63-character label is taken", job,
     then(spec(completionMode="Indexed", completions=10),
          lambda body: body["metadata"].update(name="j" * 61))),
    ("a Pod restarting OnFailure is taken",
     lambda: {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
              "spec": {"restartPolicy": "OnFailure",
                       "containers": [{"name": "a", "image": "a"}]}},
     lambda body: None),
    ("a PodTemplate's template is held to the template's rules alone",
     lambda: {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
              "template": {"spec": {"restartPolicy": "Never",
                                    "containers": [{"name": "a", "image": "a"}]}}},
     lambda body: None),
]  # fmt: skip


@pytest.mark.parametrize(("build", "edit"), [t[1:] for t in TAKEN], ids=[t[0] for t in TAKEN])
def test_a_template_the_api_server_takes_is_a_workload(
    build: Callable[[], dict[str, Any]], edit: Edit
) -> None:
    body = build()
    edit(body)
    assert reason(body) is None


def test_a_custom_kind_s_template_is_its_own_api_s_to_validate() -> None:
    """Knative names a container a manifest leaves unnamed: a custom kind is not held to a
    pod's rules."""
    service = {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "hello"},
        "spec": {"template": {"spec": {"containers": [{"image": "hello"}]}}},
    }
    (found,) = extract_all(iter([Document(Location("k.yaml", 1), body=service)]))
    assert isinstance(found, Workload)


def test_the_module_s_example_holds() -> None:
    assert doctest.testmod(validation).failed == 0


GO_VALUES = [
    ("a plain string", go_quote("web"), '"web"'),
    ("a control character", go_quote("a\nb\x00"), '"a\\nb\\x00"'),
    ("a printable non-ASCII letter", go_quote("é"), '"é"'),
    # ErrorBody prints a value of any other type as json.Marshal does
    ("a nil map", json_labels(None), "null"),
    ("a map, keys sorted", json_labels({"b": "2", "a": "1"}), '{"a":"1","b":"2"}'),
    ("a map of HTML's characters", json_labels({"a": "<&>"}), '{"a":"\\u003c\\u0026\\u003e"}'),
    ("a plain named string", json_quote("cpu"), '"cpu"'),
    ("a named string of a quote, a backslash and a tab", json_quote('a"\\\t'), '"a\\"\\\\\\t"'),
    ("a named string of a line separator", json_quote("a\u2028"), '"a\\u2028"'),
    ("an empty selector", json_selector({"matchLabels": {}, "matchExpressions": []}), "{}"),
    ("a selector, empty values left out",
     json_selector({"matchExpressions": [{"key": "k", "operator": "Exists"},
                                         {"key": "t", "operator": "In", "values": ["a"]}]}),
     '{"matchExpressions":[{"key":"k","operator":"Exists"},'
     '{"key":"t","operator":"In","values":["a"]}]}'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("shown", "expected"),
    [g[1:] for g in GO_VALUES],
    ids=[f"{g[0]} prints as the API server prints it" for g in GO_VALUES],
)
def test_bad_values_print_as_error_body_prints_them(shown: str, expected: str) -> None:
    assert shown == expected


@settings(max_examples=300)
@given(st.fractions(max_denominator=10**6))
def test_a_stored_quantity_is_the_nearest_whole_thousandths_away_from_zero(
    value: Fraction,
) -> None:
    stored = validation.to_milli(value)
    assert (stored * 1000).denominator == 1
    assert abs(stored) >= abs(value) and abs(stored - value) < Fraction(1, 1000)
    assert (stored == value) == ((value * 1000).denominator == 1)


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"])))
def test_a_named_string_prints_as_json_that_reads_back_without_html_or_controls(
    text: str,
) -> None:
    shown = json_quote(text)
    assert json.loads(shown) == text
    assert not set(shown) & set("<>&\u2028\u2029") and all(c >= " " for c in shown)


# --- A property: templates built from the shapes the checks read are never refused ----------

NAMES = st.from_regex(r"[a-z]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
KEYS = st.one_of(NAMES, st.builds(lambda p, n: f"{p}.io/{n}", NAMES, NAMES))
VALUES = st.one_of(st.just(""), st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9_.-]{0,8}[A-Za-z0-9])?",
                                              fullmatch=True))  # fmt: skip
MILLICORES = st.integers(min_value=1, max_value=8000)
EFFECTS = st.sampled_from(["", "NoSchedule", "PreferNoSchedule", "NoExecute"])


@st.composite
def tolerations(draw: st.DrawFn) -> dict[str, Any]:
    key = draw(st.one_of(st.just(""), KEYS))
    effect = draw(EFFECTS)
    found: dict[str, Any] = {"key": key} if key else {}
    if not key or draw(st.booleans()):
        found["operator"] = "Exists"
    else:
        found.update(operator=draw(st.sampled_from(["Equal", ""])), value=draw(VALUES))
    if effect:
        found["effect"] = effect
    if effect == "NoExecute" and draw(st.booleans()):
        found["tolerationSeconds"] = draw(st.integers(min_value=0, max_value=3600))
    return found


@st.composite
def containers(draw: st.DrawFn) -> list[dict[str, Any]]:
    names = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    host_ports = iter(draw(st.lists(st.integers(1, 65535), min_size=3, max_size=3, unique=True)))
    found = []
    for name in names:
        request = draw(MILLICORES)
        limit = request + draw(st.integers(min_value=0, max_value=1000))
        container: dict[str, Any] = {
            "name": name,
            "image": "busybox",
            "resources": {"requests": {"cpu": f"{request}m"}, "limits": {"cpu": f"{limit}m"}},
        }
        if draw(st.booleans()):
            port = draw(st.integers(1, 65535))
            protocol = draw(st.sampled_from(["TCP", "UDP", "SCTP"]))
            bound = {"containerPort": port, "hostPort": next(host_ports), "protocol": protocol}
            container["ports"] = [bound]
        found.append(container)
    return found


@st.composite
def spreads(draw: st.DrawFn) -> list[dict[str, Any]]:
    keys = draw(st.lists(KEYS, max_size=3, unique=True))
    found = []
    for key in keys:
        action = draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"]))
        constraint: dict[str, Any] = {
            "maxSkew": draw(st.integers(1, 5)),
            "topologyKey": key,
            "whenUnsatisfiable": action,
            "labelSelector": SELECTOR,
        }
        if action == "DoNotSchedule" and draw(st.booleans()):
            constraint["minDomains"] = draw(st.integers(1, 5))
        found.append(constraint)
    return found


@st.composite
def templates(draw: st.DrawFn) -> dict[str, Any]:
    term = {"topologyKey": draw(KEYS), "labelSelector": {"matchLabels": {draw(KEYS): draw(VALUES)}}}
    return {
        "containers": draw(containers()),
        "tolerations": draw(st.lists(tolerations(), max_size=4)),
        "nodeSelector": draw(st.dictionaries(KEYS, VALUES, max_size=3)),
        "topologySpreadConstraints": draw(spreads()),
        "affinity": {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": draw(st.integers(1, 100)), "podAffinityTerm": term}
                ]
            }
        },
    }


@settings(max_examples=60, deadline=None)
@given(templates(), st.dictionaries(KEYS, VALUES, max_size=3))
def test_valid_templates_built_from_the_shapes_read_are_never_refused(
    spec: dict[str, Any], labels: dict[str, str]
) -> None:
    assert pod_template_problem(spec, P, labels) is None


def _refused_labels(build: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    def built() -> dict[str, Any]:
        body = build()
        body["metadata"]["labels"] = {"bad key!": "x"}
        return body

    return built


def _bare_pod() -> dict[str, Any]:
    body = deployment()
    spec = body["spec"]["template"]["spec"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


_BAD_KEY = f'metadata.labels: Invalid value: "bad key!": name part {QUALIFIED}'

# (id, the workload, the whole message the API server answers its create with)
WHOLE: list[tuple[str, Callable[[], dict[str, Any]], str]] = [
    ("a Deployment is named by its kind in the apps group", deployment,
     f'Deployment.apps "web" is invalid: {_BAD_KEY}'),
    ("a ReplicaSet too", lambda: deployment("ReplicaSet"),
     f'ReplicaSet.apps "web" is invalid: {_BAD_KEY}'),
    ("a StatefulSet too", lambda: deployment("StatefulSet"),
     f'StatefulSet.apps "web" is invalid: {_BAD_KEY}'),
    ("a DaemonSet too", lambda: deployment("DaemonSet"),
     f'DaemonSet.apps "web" is invalid: {_BAD_KEY}'),
    ("a Job in the batch group", job, f'Job.batch "j" is invalid: {_BAD_KEY}'),
    ("a CronJob too", lambda: job("CronJob"), f'CronJob.batch "c" is invalid: {_BAD_KEY}'),
    ("a ReplicationController of the core group by its kind alone", controller,
     f'ReplicationController "web" is invalid: {_BAD_KEY}'),
    ("a Pod too", _bare_pod, f'Pod "p" is invalid: {_BAD_KEY}'),
]  # fmt: skip


@pytest.mark.parametrize(("build", "expected"), [r[1:] for r in WHOLE], ids=[r[0] for r in WHOLE])
def test_a_refused_object_is_named_as_new_invalid_names_it(
    build: Callable[[], dict[str, Any]], expected: str
) -> None:
    """apimachinery pkg/api/errors NewInvalid: ``%s %q is invalid: %v`` of the object's
    schema.GroupKind (its String() leaves the core group out), its name and the
    aggregated errors, as rest.BeforeCreate returns them (ValidateDeployment and the
    others: the metadata's errors first)."""
    assert reason(build()) is None
    assert reason(_refused_labels(build)()) == expected


def test_several_errors_are_one_aggregate_after_the_name() -> None:
    body = deployment()
    body["metadata"]["labels"] = {"bad key!": "x"}
    body["spec"]["replicas"] = -1
    assert reason(body) == (
        f'Deployment.apps "web" is invalid: [{_BAD_KEY}, spec.replicas: Invalid value: -1: '
        "must be greater than or equal to 0]"
    )
