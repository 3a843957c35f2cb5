"""A small Kubernetes API server on 127.0.0.1 for tests and the live-read benchmark.

It serves the REST paths fitgate reads, with real ``limit``/``continue`` pagination, a
``status.phase`` field selector, SelfSubjectAccessReviews answered from a permission set,
bearer-token checks, and faults on demand: a continue token that expires (410 Gone with a
Status body), transient 5xx answers, and lists answered by a misbehaving server (silent, a
byte at a time, endless: see :data:`MISBEHAVIOURS`). Every request is recorded, whatever its
method.
Plain HTTP, or HTTPS with a throwaway CA from ``trustme``.
"""

from __future__ import annotations

import base64
import json
import ssl
import threading
import zlib
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BufferedIOBase
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import trustme

VERSION_PATH = "/version"
NODES = "/api/v1/nodes"
PODS = "/api/v1/pods"
NAMESPACES = "/api/v1/namespaces"
LIMIT_RANGES = "/api/v1/limitranges"
RUNTIME_CLASSES = "/apis/node.k8s.io/v1/runtimeclasses"
PRIORITY_CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses"
RESOURCE_QUOTAS = "/api/v1/resourcequotas"
DISRUPTION_BUDGETS = "/apis/policy/v1/poddisruptionbudgets"
PERSISTENT_VOLUMES = "/api/v1/persistentvolumes"
PERSISTENT_VOLUME_CLAIMS = "/api/v1/persistentvolumeclaims"
STORAGE_CLASSES = "/apis/storage.k8s.io/v1/storageclasses"
CSI_NODES = "/apis/storage.k8s.io/v1/csinodes"
CSI_DRIVERS = "/apis/storage.k8s.io/v1/csidrivers"
CSI_STORAGE_CAPACITIES = "/apis/storage.k8s.io/v1/csistoragecapacities"
CONFIG_MAPS = "/api/v1/namespaces/kube-system/configmaps"
DAEMON_SETS = "/apis/apps/v1/daemonsets"
DEPLOYMENTS = "/apis/apps/v1/namespaces/kube-system/deployments"
MACHINE_DEPLOYMENTS = "/apis/cluster.x-k8s.io/v1beta1/machinedeployments"
NODE_POOLS = "/apis/karpenter.sh/v1/nodepools"
NODE_CLAIMS = "/apis/karpenter.sh/v1/nodeclaims"
EC2_NODE_CLASSES = "/apis/karpenter.k8s.aws/v1/ec2nodeclasses"
AKS_NODE_CLASSES = "/apis/karpenter.azure.com/v1beta1/aksnodeclasses"
KARPENTER_PATHS = (NODE_POOLS, NODE_CLAIMS, EC2_NODE_CLASSES, AKS_NODE_CLASSES)
REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
LIST_KINDS = {
    NODES: ("v1", "NodeList"),
    PODS: ("v1", "PodList"),
    NAMESPACES: ("v1", "NamespaceList"),
    LIMIT_RANGES: ("v1", "LimitRangeList"),
    RUNTIME_CLASSES: ("node.k8s.io/v1", "RuntimeClassList"),
    PRIORITY_CLASSES: ("scheduling.k8s.io/v1", "PriorityClassList"),
    RESOURCE_QUOTAS: ("v1", "ResourceQuotaList"),
    DISRUPTION_BUDGETS: ("policy/v1", "PodDisruptionBudgetList"),
    PERSISTENT_VOLUMES: ("v1", "PersistentVolumeList"),
    PERSISTENT_VOLUME_CLAIMS: ("v1", "PersistentVolumeClaimList"),
    STORAGE_CLASSES: ("storage.k8s.io/v1", "StorageClassList"),
    CSI_NODES: ("storage.k8s.io/v1", "CSINodeList"),
    CSI_DRIVERS: ("storage.k8s.io/v1", "CSIDriverList"),
    CSI_STORAGE_CAPACITIES: ("storage.k8s.io/v1", "CSIStorageCapacityList"),
    CONFIG_MAPS: ("v1", "ConfigMapList"),
    DAEMON_SETS: ("apps/v1", "DaemonSetList"),
    DEPLOYMENTS: ("apps/v1", "DeploymentList"),
    MACHINE_DEPLOYMENTS: ("cluster.x-k8s.io/v1beta1", "MachineDeploymentList"),
    NODE_POOLS: ("karpenter.sh/v1", "NodePoolList"),
    NODE_CLAIMS: ("karpenter.sh/v1", "NodeClaimList"),
    EC2_NODE_CLASSES: ("karpenter.k8s.aws/v1", "EC2NodeClassList"),
    AKS_NODE_CLASSES: ("karpenter.azure.com/v1beta1", "AKSNodeClassList"),
}
# Discovery, as kubectl asks for it before a get (the legacy documents; kubectl falls back to
# them from aggregated discovery when the answer is plain JSON): the resources served above.
DISCOVERY: dict[str, dict[str, Any]] = {
    "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []},
    "/apis": {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [
            {
                "name": "apps",
                "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
                "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"},
            }
        ],
    },
    "/api/v1": {
        "kind": "APIResourceList",
        "groupVersion": "v1",
        "resources": [
            {"name": name, "singularName": "", "namespaced": namespaced, "kind": kind,
             "verbs": ["get", "list"]}
            for name, namespaced, kind in (
                ("nodes", False, "Node"),
                ("pods", True, "Pod"),
                ("namespaces", False, "Namespace"),
                ("limitranges", True, "LimitRange"),
                ("configmaps", True, "ConfigMap"),
            )
        ],
    },
    "/apis/apps/v1": {
        "kind": "APIResourceList",
        "groupVersion": "apps/v1",
        "resources": [
            {"name": name, "singularName": "", "namespaced": True, "kind": kind,
             "verbs": ["get", "list"]}
            for name, kind in (("daemonsets", "DaemonSet"), ("deployments", "Deployment"))
        ],
    },
}  # fmt: skip

# (verb, group, resource, subresource) a read-only identity holds.
READ_ONLY = frozenset(
    {
        ("list", "", "nodes", ""),
        ("list", "", "pods", ""),
        ("list", "", "namespaces", ""),
        ("list", "", "limitranges", ""),
        ("list", "node.k8s.io", "runtimeclasses", ""),
    }
)
BINDER = READ_ONLY | {("create", "", "pods", "binding")}
PRIORITY_READER = READ_ONLY | {("list", "scheduling.k8s.io", "priorityclasses", "")}
QUOTA_READER = READ_ONLY | {("list", "", "resourcequotas", "")}
STORAGE_READER = READ_ONLY | {
    ("list", "", "persistentvolumes", ""),
    ("list", "", "persistentvolumeclaims", ""),
    ("list", "storage.k8s.io", "storageclasses", ""),
    ("list", "storage.k8s.io", "csinodes", ""),
    ("list", "storage.k8s.io", "csidrivers", ""),
    ("list", "storage.k8s.io", "csistoragecapacities", ""),
}
AUTOSCALING_READER = READ_ONLY | {
    ("list", "", "configmaps", ""),
    ("list", "apps", "daemonsets", ""),
    ("list", "apps", "deployments", ""),
}
KARPENTER_READER = AUTOSCALING_READER | {
    ("list", "karpenter.sh", "nodepools", ""),
    ("list", "karpenter.sh", "nodeclaims", ""),
    ("list", "karpenter.k8s.aws", "ec2nodeclasses", ""),
    ("list", "karpenter.azure.com", "aksnodeclasses", ""),
}
EXPIRED_MESSAGE = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter."
)


# How a misbehaving server answers: it writes to the connection until the client goes away
# or the server stops.
Misbehaviour = Callable[[BufferedIOBase, threading.Event], None]
_TICK = 0.05


def silent(out: BufferedIOBase, stop: threading.Event) -> None:
    stop.wait()


def dripping_headers(out: BufferedIOBase, stop: threading.Event) -> None:
    out.write(b"HTTP/1.1 200 OK\r\nX-Drip: ")
    while not stop.wait(_TICK):
        out.write(b"a")


def dripping_body(out: BufferedIOBase, stop: threading.Event) -> None:
    out.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
              b"Content-Length: 1000000\r\n\r\n{\"items\": [")  # fmt: skip
    while not stop.wait(_TICK):
        out.write(b" ")


def endless_body(out: BufferedIOBase, stop: threading.Event) -> None:
    out.write(b'HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n{"items": [')
    while not stop.is_set():
        out.write(b" " * 65536)


def endless_chunks(out: BufferedIOBase, stop: threading.Event) -> None:
    out.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    while not stop.is_set():
        out.write(b"10000\r\n" + b" " * 65536 + b"\r\n")


def inflating_body(out: BufferedIOBase, stop: threading.Event) -> None:
    """A small answer that gzip inflates without end: a MiB of spaces per hundred bytes."""
    out.write(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")  # fmt: skip
    packer = zlib.compressobj(wbits=31)
    piece = packer.compress(b'{"items": [')
    while not stop.is_set():
        piece += packer.compress(b" " * 2**20) + packer.flush(zlib.Z_SYNC_FLUSH)
        out.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        piece = b""


def answering(body: bytes) -> Misbehaviour:
    """A server that answers 200 with ``body``, whatever it is."""

    def answer(out: BufferedIOBase, stop: threading.Event) -> None:
        out.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        out.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    return answer


MISBEHAVIOURS: dict[str, Misbehaviour] = {
    "silent": silent,
    "dripping headers": dripping_headers,
    "dripping body": dripping_body,
    "endless body": endless_body,
    "endless chunks": endless_chunks,
    "inflating body": inflating_body,
}


@dataclass(frozen=True, slots=True)
class Item:
    """One stored object: its JSON bytes, and its phase for the field selector."""

    raw: bytes
    phase: str | None = None
    name: str | None = None

    @classmethod
    def of(cls, obj: Mapping[str, Any]) -> Item:
        name = (obj.get("metadata") or {}).get("name")
        return cls(json.dumps(obj).encode(), (obj.get("status") or {}).get("phase"), name)


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    authorization: str | None
    body: bytes


@dataclass
class ApiState:
    """What the server holds and how it misbehaves; tests adjust it before a run."""

    collections: dict[str, list[Item]] = field(default_factory=dict)
    version: str = "v1.33.4"
    permissions: frozenset[tuple[str, str, str, str]] = READ_ONLY
    token: str | None = None
    expire_continue: dict[str, int] = field(default_factory=dict)
    repeat_continue: set[str] = field(default_factory=set)
    faults: dict[str, list[int]] = field(default_factory=dict)
    misbehave: dict[str, Misbehaviour] = field(default_factory=dict)
    stopping: threading.Event = field(default_factory=threading.Event)
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    selected: dict[tuple[str, str], list[Item]] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)
    """Paths answered 404, as a resource whose CRD is not installed."""
    refused_names: set[str] = field(default_factory=set)
    """Object names an access review refuses, as a Role whose ``resourceNames`` lacks them."""

    def serve(self, path: str, objects: Iterable[Mapping[str, Any]]) -> None:
        self.collections[path] = [Item.of(o) for o in objects]
        self.selected.clear()

    def seen(self) -> list[tuple[str, str]]:
        with self.lock:
            return [(r.method, r.path) for r in self.requests]


def _token(start: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"start": start}).encode()).decode()


def _start(token: str) -> int:
    return int(json.loads(base64.urlsafe_b64decode(token.encode()))["start"])


def status_body(code: int, reason: str, message: str, **metadata: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": dict(metadata),
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def _phase_filter(selector: str) -> tuple[set[str], set[str]] | None:
    """``status.phase!=A,status.phase=B`` -> (excluded, required); None if unsupported."""
    excluded: set[str] = set()
    required: set[str] = set()
    for term in filter(None, selector.split(",")):
        key, op, value = term.partition("!=") if "!=" in term else term.partition("=")
        if key != "status.phase":
            return None
        (excluded if op == "!=" else required).add(value.lstrip("="))
    return excluded, required


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def _reply(self, code: int, body: bytes | Mapping[str, Any], **headers: str) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> Request:
        length = int(self.headers.get("Content-Length") or 0)
        parts = urlsplit(self.path)
        request = Request(
            method=self.command,
            path=parts.path,
            query=parse_qs(parts.query),
            authorization=self.headers.get("Authorization"),
            body=self.rfile.read(length) if length else b"",
        )
        with self.server.state.lock:
            self.server.state.requests.append(request)
        return request

    def _handle(self) -> None:
        request = self._record()
        state = self.server.state
        scheme, _, credential = (request.authorization or "").partition(" ")
        # The auth scheme is case-insensitive (the in-cluster loader sends "bearer").
        if state.token is not None and (scheme.lower(), credential) != ("bearer", state.token):
            self._reply(401, status_body(401, "Unauthorized", "Unauthorized"))
            return
        with state.lock:
            pending = state.faults.get(request.path) or []
            fault = pending.pop(0) if pending else None
        if fault is not None:
            retry_after = {"Retry_After": "1"} if fault == 429 else {}
            self._reply(fault, status_body(fault, "ServiceUnavailable", "again"), **retry_after)
        elif request.method == "GET" and request.path in state.misbehave:
            self.close_connection = True
            with suppress(OSError):  # the client gave up: what a misbehaving server is for
                state.misbehave[request.path](self.wfile, state.stopping)
        elif request.method == "GET" and request.path == VERSION_PATH:
            self._reply(200, {"major": "1", "minor": "33", "gitVersion": state.version})
        elif request.method == "GET" and request.path in state.missing:
            self._reply(404, status_body(404, "NotFound", "the server could not find it"))
        elif request.method == "GET" and request.path in LIST_KINDS:
            self._list(request)
        elif request.method == "GET" and request.path in DISCOVERY:
            self._reply(200, DISCOVERY[request.path])
        elif request.method == "GET" and request.path.startswith(f"{CONFIG_MAPS}/"):
            self._one(CONFIG_MAPS, request.path.removeprefix(f"{CONFIG_MAPS}/"))
        elif request.method == "POST" and request.path == REVIEWS:
            self._review(request)
        else:
            self._reply(405, status_body(405, "MethodNotAllowed", "not served here"))

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

    def _one(self, path: str, name: str) -> None:
        """One object of a collection by name (``kubectl get configmap NAME``), or 404."""
        found = [i for i in self.server.state.collections.get(path, []) if i.name == name]
        if found:
            self._reply(200, found[0].raw)
        else:
            self._reply(404, status_body(404, "NotFound", f'"{name}" not found'))

    def _review(self, request: Request) -> None:
        review = json.loads(request.body)
        attributes = review["spec"]["resourceAttributes"]
        key = tuple(attributes.get(k) or "" for k in ("verb", "group", "resource", "subresource"))
        refused = attributes.get("name") in self.server.state.refused_names
        review["status"] = {"allowed": key in self.server.state.permissions and not refused}
        self._reply(201, review)

    def _select(self, path: str, selector: str) -> list[Item] | None:
        """The items the field selector admits, computed once per collection and selector."""
        state = self.server.state
        items = state.collections.get(path, [])
        if not selector:
            return items
        with state.lock:
            if (path, selector) in state.selected:
                return state.selected[path, selector]
        if selector.startswith("metadata.name="):
            return [i for i in items if i.name == selector.partition("=")[2]]
        phases = _phase_filter(selector)
        if phases is None:
            return None
        excluded, required = phases
        chosen = [
            i for i in items if i.phase not in excluded and (not required or i.phase in required)
        ]
        with state.lock:
            state.selected[path, selector] = chosen
        return chosen

    def _list(self, request: Request) -> None:
        state = self.server.state
        selector = (request.query.get("fieldSelector") or [""])[0]
        items = self._select(request.path, selector)
        if items is None:
            self._reply(400, status_body(400, "BadRequest", f"unsupported {selector}"))
            return
        token = (request.query.get("continue") or [""])[0]
        if token:
            with state.lock:
                expire = state.expire_continue.get(request.path, 0)
                state.expire_continue[request.path] = max(expire - 1, 0)
            if expire:
                body = status_body(410, "Expired", EXPIRED_MESSAGE, **{"continue": token})
                self._reply(410, body)
                return
        start = _start(token) if token else 0
        limit = int((request.query.get("limit") or ["0"])[0]) or len(items)
        page = items[start : start + limit]
        metadata = {"resourceVersion": "12345"}
        if start + limit < len(items):
            metadata["continue"] = _token(start + limit)
        if request.path in state.repeat_continue and start:
            metadata["continue"] = token  # a broken server: the same page, forever
        api_version, kind = LIST_KINDS[request.path]
        head = json.dumps({"kind": kind, "apiVersion": api_version, "metadata": metadata})
        payload = head[:-1].encode() + b', "items": [' + b",".join(i.raw for i in page) + b"]}"
        self._reply(200, payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: ApiState


class ApiServer:
    """The server on an ephemeral port of 127.0.0.1, in a background thread."""

    def __init__(self, state: ApiState, ca: trustme.CA | None = None) -> None:
        self.state = state
        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.state = state
        self.ca = ca
        scheme = "http"
        if ca is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self._server.server_address[1]}"
        # A short poll interval: shutdown() waits for it, once per test.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> ApiServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.state.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def write_kubeconfig(
    path: Path,
    server: str,
    *,
    context: str = "test",
    token: str | None = None,
    ca_file: Path | None = None,
    exec_command: list[str] | None = None,
    insecure: bool = False,
    current: bool = True,
) -> Path:
    """A kubeconfig with one cluster, user and context (kubeconfig is YAML, hence JSON)."""
    cluster: dict[str, Any] = {"server": server}
    if ca_file is not None:
        cluster["certificate-authority"] = str(ca_file)
    if insecure:
        cluster["insecure-skip-tls-verify"] = True
    user: dict[str, Any] = {}
    if token is not None:
        user["token"] = token
    if exec_command is not None:
        user["exec"] = {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": exec_command[0],
            "args": exec_command[1:],
            "interactiveMode": "Never",
        }
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": f"{context}-cluster", "cluster": cluster}],
        "users": [{"name": f"{context}-user", "user": user}],
        "contexts": [
            {
                "name": context,
                "context": {"cluster": f"{context}-cluster", "user": f"{context}-user"},
            }
        ],
    }
    if current:
        config["current-context"] = context
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path
