"""The live, read-only reader: preflight, paginated lists, nothing else.

Before anything is listed, SelfSubjectAccessReviews ask what the credentials may do. An
identity that may ``create pods/binding`` could schedule pods, so fitgate refuses it unless
told ``--i-mean-it`` (and even then never binds); a missing ``list`` permission fails early,
named. Then nodes, pods (without Succeeded and Failed ones, as the scheduler's informer),
namespaces, LimitRanges, RuntimeClasses and the server version are read once, each list in pages
(``limit`` + ``continue``); an expired continue token (HTTP 410) restarts that list. The
PriorityClasses, the ResourceQuotas and each kind of storage object are asked about first
and read only when the credentials may; a storage kind whose list is refused (403) or not
served (404) is left out, said, never read as none.

The whole read ends within ``Settings.deadline`` (``--timeout``), however the server
answers: it runs apart (:func:`gate.deadline.within`), so that not even a name that never
resolves or a credential plugin that never returns can hold the run, and every request
checks the same deadline itself, so that an abandoned read stops soon after.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic

from gate.deadline import within
from gate.errors import ClusterError
from gate.k8s.version import version_problem
from gate.live.autoscaled import (
    AKSNodeClass,
    DaemonSet,
    Deployment,
    EC2NodeClass,
    MachineDeployment,
    NodeClaim,
    NodePool,
    StatusConfigMap,
)
from gate.live.connection import (
    REVIEW_PATH,
    Connection,
    Reply,
    Settings,
    connect,
    past_deadline,
)
from gate.live.credentials import LiveTarget
from gate.live.objects import (
    LimitRange,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    ResourceQuota,
    RuntimeClass,
)
from gate.live.pages import Item, NotAPage, PageDecoder
from gate.live.recorder import Recording, encoded, timestamp
from gate.live.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from gate.model import Snapshot
from gate.progress import Phase, Progress
from gate.snapshot.load import snapshot_of_document
from gate.snapshot.priorities import PRIORITY_NAME

Say = Callable[[str], object]
PAGE_SIZE = 500  # kubectl's chunk size
MAX_RESTARTS = 3
# The scheduler's pod informer leaves terminal pods out: they never count.
POD_FIELD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"
RBAC_HINT = "see docs/rbac.md"


@dataclass(frozen=True, slots=True)
class Permission:
    verb: str
    resource: str
    group: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""

    def __str__(self) -> str:
        name = self.resource + (f"/{self.subresource}" if self.subresource else "")
        name += f" {self.name}" if self.name else ""
        where = f" in {self.namespace}" if self.namespace else ""
        return f"{self.verb} {name}" + (f".{self.group}" if self.group else "") + where


@dataclass(frozen=True, slots=True)
class Collection(Generic[Item]):
    """A list fitgate reads, its items decoded as ``pages`` decodes them, and where the
    recording holds them."""

    noun: str
    path: str
    pages: PageDecoder[Item]
    section: str
    field_selector: str | None = None
    optional: bool = False
    """A resource the cluster may not serve (a CRD not installed): 404 reads as none."""
    asked: Permission | None = None
    """Asked before the list: when the credentials may not, the list is not read and its
    section not written (an API server answers 403, not 404, for a resource it does not
    serve to an identity RBAC grants nothing on, so a cluster without Karpenter must not
    need Karpenter's grants)."""
    skippable: bool = False
    """Left out, its section not written, when the list is answered 403 or 404 (a kind the
    cluster does not serve, or an authorizer that answers otherwise than its review did):
    "not recorded" is not "none"."""


BIND = Permission("create", "pods", subresource="binding")
NODES = Collection("nodes", "/api/v1/nodes", PageDecoder(Node), "nodes")
PODS = Collection("pods", "/api/v1/pods", PageDecoder(Pod), "pods", POD_FIELD_SELECTOR)
NAMESPACES = Collection("namespaces", "/api/v1/namespaces", PageDecoder(Namespace), "namespaces")
LIMIT_RANGES = Collection(
    "limitranges", "/api/v1/limitranges", PageDecoder(LimitRange), "limitRanges"
)
RUNTIME_CLASSES = Collection(
    "runtimeclasses",
    "/apis/node.k8s.io/v1/runtimeclasses",
    PageDecoder(RuntimeClass),
    "runtimeClasses",
)
PRIORITY_CLASSES = Collection(
    "priorityclasses",
    "/apis/scheduling.k8s.io/v1/priorityclasses",
    PageDecoder(PriorityClass),
    "priorityClasses",
    asked=Permission("list", "priorityclasses", group="scheduling.k8s.io"),
)
"""Asked, not needed: without them a workload's class is judged unknown, not refused."""
RESOURCE_QUOTAS = Collection(
    "resourcequotas",
    "/api/v1/resourcequotas",
    PageDecoder(ResourceQuota),
    "resourceQuotas",
    asked=Permission("list", "resourcequotas"),
)
"""Asked, not needed: without them no quota is judged, and the report says so."""
STORAGE_GROUP = "storage.k8s.io"


def _storage(noun: str, path: str, item: type[Any], section: str, group: str) -> Collection[Any]:
    asked = Permission("list", noun, group=group)
    return Collection(noun, path, PageDecoder(item), section, asked=asked, skippable=True)


STORAGE_COLLECTIONS: tuple[Collection[Any], ...] = (
    _storage(
        "persistentvolumes", "/api/v1/persistentvolumes", PersistentVolume, "persistentVolumes", ""
    ),
    _storage(
        "persistentvolumeclaims",
        "/api/v1/persistentvolumeclaims",
        PersistentVolumeClaim,
        "persistentVolumeClaims",
        "",
    ),
    _storage(
        "storageclasses",
        "/apis/storage.k8s.io/v1/storageclasses",
        StorageClass,
        "storageClasses",
        STORAGE_GROUP,
    ),
    _storage("csinodes", "/apis/storage.k8s.io/v1/csinodes", CSINode, "csiNodes", STORAGE_GROUP),
    _storage(
        "csidrivers", "/apis/storage.k8s.io/v1/csidrivers", CSIDriver, "csiDrivers", STORAGE_GROUP
    ),
    _storage(
        "csistoragecapacities",
        "/apis/storage.k8s.io/v1/csistoragecapacities",
        CSIStorageCapacity,
        "csiStorageCapacities",
        STORAGE_GROUP,
    ),
)
"""Asked, not needed: a kind not recorded is one the volume plugins cannot judge."""
DISRUPTION_BUDGETS = Collection(
    "poddisruptionbudgets",
    "/apis/policy/v1/poddisruptionbudgets",
    PageDecoder(PodDisruptionBudget),
    "podDisruptionBudgets",
    asked=Permission("list", "poddisruptionbudgets", group="policy"),
    skippable=True,
)
"""Asked, not needed: without them preemption weighs no budget, and fitgate says so."""
COLLECTIONS: tuple[Collection[Any], ...] = (
    NODES,
    PODS,
    NAMESPACES,
    LIMIT_RANGES,
    RUNTIME_CLASSES,
    PRIORITY_CLASSES,
    RESOURCE_QUOTAS,
    *STORAGE_COLLECTIONS,
    DISRUPTION_BUDGETS,
)
NEEDED = (
    Permission("list", "nodes"),
    Permission("list", "pods"),
    Permission("list", "namespaces"),
    Permission("list", "limitranges"),
    Permission("list", "runtimeclasses", group="node.k8s.io"),
)
AUTOSCALING_COLLECTIONS: tuple[Collection[Any], ...] = (
    Collection(
        "the cluster-autoscaler status",
        "/api/v1/namespaces/kube-system/configmaps",
        PageDecoder(StatusConfigMap),
        "configMaps",
        "metadata.name=cluster-autoscaler-status",
    ),
    Collection(
        "the priority expander's ConfigMap",
        "/api/v1/namespaces/kube-system/configmaps",
        PageDecoder(StatusConfigMap),
        "configMaps",
        f"metadata.name={PRIORITY_NAME}",
        asked=Permission("list", "configmaps", namespace="kube-system", name=PRIORITY_NAME),
        skippable=True,
    ),
    Collection("daemonsets", "/apis/apps/v1/daemonsets", PageDecoder(DaemonSet), "daemonSets"),
    Collection(
        "kube-system deployments",
        "/apis/apps/v1/namespaces/kube-system/deployments",
        PageDecoder(Deployment),
        "deployments",
    ),
    Collection(
        "machinedeployments",
        "/apis/cluster.x-k8s.io/v1beta1/machinedeployments",
        PageDecoder(MachineDeployment),
        "machineDeployments",
        optional=True,
    ),
    Collection(
        "nodepools",
        "/apis/karpenter.sh/v1/nodepools",
        PageDecoder(NodePool),
        "nodePools",
        optional=True,
        asked=Permission("list", "nodepools", group="karpenter.sh"),
    ),
    Collection(
        "nodeclaims",
        "/apis/karpenter.sh/v1/nodeclaims",
        PageDecoder(NodeClaim),
        "nodeClaims",
        optional=True,
        asked=Permission("list", "nodeclaims", group="karpenter.sh"),
    ),
    Collection(
        "ec2nodeclasses",
        "/apis/karpenter.k8s.aws/v1/ec2nodeclasses",
        PageDecoder(EC2NodeClass),
        "ec2NodeClasses",
        optional=True,
        asked=Permission("list", "ec2nodeclasses", group="karpenter.k8s.aws"),
    ),
    Collection(
        "aksnodeclasses",
        "/apis/karpenter.azure.com/v1beta1/aksnodeclasses",
        PageDecoder(AKSNodeClass),
        "aksNodeClasses",
        optional=True,
        asked=Permission("list", "aksnodeclasses", group="karpenter.azure.com"),
    ),
)
"""What ``fitgate snapshot --autoscaling`` lists besides :data:`COLLECTIONS`."""
AUTOSCALING_NEEDED = (
    Permission("list", "configmaps", namespace="kube-system", name="cluster-autoscaler-status"),
    Permission("list", "daemonsets", group="apps"),
    Permission("list", "deployments", group="apps", namespace="kube-system"),
)
BIND_REFUSAL = (
    "refusing to read the cluster with credentials that may create pods/binding (they could "
    "schedule pods, and a gate must not be able to): use a read-only identity, a ClusterRole "
    "granting only get and list on nodes, pods, namespaces, limitranges and "
    "runtimeclasses.node.k8s.io "
    f"({RBAC_HINT}), or pass --i-mean-it to read anyway (fitgate never binds)"
)


def _failure(reply: Reply, what: str, connection: Connection) -> ClusterError:
    """One line for an answer that is not a success."""
    document = reply.document()
    document = document if isinstance(document, Mapping) else {}
    message = " ".join(str(document.get("message") or "").split())
    if reply.status == 401:
        return ClusterError(
            f"{connection.server} rejected the credentials of context {connection.context} "
            "(401 Unauthorized)"
        )
    detail = f": {message}" if message else ""
    if reply.status == 403:
        return ClusterError(f"{what}: forbidden (403){detail} ({RBAC_HINT})")
    return ClusterError(f"{what} at {connection.server}: HTTP {reply.status}{detail}")


def may(connection: Connection, permission: Permission) -> bool:
    """A SelfSubjectAccessReview: may these credentials do this, in every namespace?"""
    attributes = {"verb": permission.verb, "resource": permission.resource}
    attributes.update({"group": permission.group, "subresource": permission.subresource})
    if permission.namespace:
        attributes["namespace"] = permission.namespace
    if permission.name:  # a list with a metadata.name field selector is authorized by name
        attributes["name"] = permission.name
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attributes},
    }
    what = f"asking whether the credentials may {permission}"
    reply = connection.send("POST", REVIEW_PATH, body=body, what=what)
    if not reply.ok:
        raise _failure(reply, what, connection)
    document = reply.document()
    status = document.get("status") if isinstance(document, Mapping) else None
    allowed = status.get("allowed") if isinstance(status, Mapping) else None
    if not isinstance(allowed, bool):
        raise ClusterError(f"{what}: the access review came back without an answer")
    return allowed


def preflight(connection: Connection, i_mean_it: bool, say: Say, autoscaling: bool = False) -> None:
    """Refuse binding-capable credentials; name every list permission that is missing."""
    if may(connection, BIND):
        if not i_mean_it:
            raise ClusterError(BIND_REFUSAL)
        say("warning: these credentials may create pods/binding; reading anyway (--i-mean-it)")
    needed = (*NEEDED, *AUTOSCALING_NEEDED) if autoscaling else NEEDED
    missing = [str(p) for p in needed if not may(connection, p)]
    if missing:
        raise ClusterError(
            f"the credentials of context {connection.context} may not "
            f"{', '.join(missing)} (all namespaces): fitgate needs get and list on nodes, "
            f"pods, namespaces, limitranges and runtimeclasses.node.k8s.io ({RBAC_HINT})"
        )


class _NotServed(Exception):
    """A skippable list answered 403 or 404."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _page(connection: Connection, collection: Collection[Any], token: str | None) -> Reply:
    query = [("limit", str(PAGE_SIZE))]
    if collection.field_selector:
        query.append(("fieldSelector", collection.field_selector))
    if token:
        query.append(("continue", token))
    return connection.send("GET", collection.path, query, what=f"listing {collection.noun}")


def _one_pass(
    connection: Connection, collection: Collection[Any], progress: Phase
) -> list[bytes] | None:
    """Every item of the collection, encoded as the recording keeps it, page by page (a
    page's text is dropped before the next is asked for); None when a continue token
    expired (HTTP 410)."""
    items: list[bytes] = []
    token: str | None = None
    seen: set[str] = set()
    while True:
        reply = _page(connection, collection, token)
        if reply.status == 410:
            return None
        if reply.status == 404 and collection.optional and not items:
            return items
        if reply.status in (403, 404) and collection.skippable and not items:
            raise _NotServed(reply.status)
        if not reply.ok:
            raise _failure(reply, f"listing {collection.noun}", connection)
        try:
            page, token = collection.pages.decode(reply.data)
        except NotAPage as exc:
            raise ClusterError(f"listing {collection.noun}: {exc.where(len(items))}") from None
        items.extend(map(encoded, page))
        progress.advance(len(items) - progress.done)
        if not token:
            return items
        if token in seen:
            raise ClusterError(
                f"listing {collection.noun}: the server answered a continue token it had "
                "given before: the list would never end"
            )
        seen.add(token)


def list_all(
    connection: Connection, collection: Collection[Any], progress: Progress, say: Say
) -> list[bytes]:
    """One complete, consistent list. An expired continue token means the pages already read
    belong to a snapshot the server no longer holds, so they are dropped and the list restarts."""
    for _ in range(MAX_RESTARTS + 1):
        phase = progress.phase(f"listing {collection.noun}", unit=collection.noun)
        try:
            items = _one_pass(connection, collection, phase)
        finally:
            phase.finish()
        if items is not None:
            return items
        say(f"the list of {collection.noun} expired (HTTP 410 Gone); listing again")
    raise ClusterError(
        f"listing {collection.noun}: the continue token expired {MAX_RESTARTS + 1} times "
        "(HTTP 410 Gone); the list is too slow for the server's compaction window"
    )


def server_version(connection: Connection) -> str | None:
    reply = connection.send("GET", "/version", what="reading the server version")
    if not reply.ok:
        raise _failure(reply, "reading the server version", connection)
    document = reply.document()
    version = document.get("gitVersion") if isinstance(document, Mapping) else None
    if not isinstance(version, str):
        return None
    problem = version_problem(version)
    if problem:  # it would be recorded and read back as a version no check can use
        raise ClusterError(f"{connection.server}/version: gitVersion: {problem}")
    return version


def read_cluster(
    target: LiveTarget,
    env: Mapping[str, str],
    now: datetime,
    say: Say,
    settings: Settings | None = None,
    progress: Progress | None = None,
    autoscaling: bool = False,
) -> Recording:
    """Preflight, then read the cluster once into a recording, within the settings'
    deadline; ``autoscaling``: its cluster-autoscaler objects too. ``progress`` reports long
    lists (none by default). Decoded JSON has no reference cycles: the run reads it with the
    cycle collector off (:func:`gate.run.without_cycle_collection`)."""
    settings = settings or Settings()
    deadline = settings.run_deadline()
    opened: list[Connection] = []

    def read() -> Recording:
        with connect(target, env, settings, deadline) as connection:
            opened.append(connection)
            return _read(connection, target, now, say, progress or Progress.quiet(), autoscaling)

    def late() -> ClusterError:
        return past_deadline(opened[0].doing if opened else "connecting to the cluster", deadline)

    return within(deadline.seconds, read, late)


def _read(
    connection: Connection,
    target: LiveTarget,
    now: datetime,
    say: Say,
    progress: Progress,
    autoscaling: bool = False,
) -> Recording:
    say(f"reading context {connection.context} at {connection.server} (read-only)")
    preflight(connection, target.i_mean_it, say, autoscaling)
    version = server_version(connection)
    collections = (*COLLECTIONS, *AUTOSCALING_COLLECTIONS) if autoscaling else COLLECTIONS
    collections = tuple(c for c in collections if _permitted(connection, c, say))
    sections: dict[str, list[bytes]] = {}
    for collection in collections:
        try:
            # Two lists may fill one array: both ConfigMaps of the autoscaler.
            listed = list_all(connection, collection, progress, say)
            sections.setdefault(collection.section, []).extend(listed)
        except _NotServed as refused:
            answer = "forbidden (403)" if refused.status == 403 else "not served (404)"
            say(f"listing {collection.noun}: {answer}: {collection.noun} not recorded")
    return Recording(
        captured_at=timestamp(now),
        context=connection.context,
        server=connection.server,
        server_version=version,
        sections=sections,
    )


def _permitted(connection: Connection, collection: Collection[Any], say: Say) -> bool:
    if collection.asked is None or may(connection, collection.asked):
        return True
    say(f"the credentials may not {collection.asked}: {collection.noun} not recorded ({RBAC_HINT})")
    return False


def live_snapshot(recording: Recording) -> Snapshot:
    """Node views of a recording, read exactly as a replay of its file reads them."""
    return snapshot_of_document(recording.document(), source=f"{recording.context} (live)")
