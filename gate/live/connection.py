"""One read-only connection to the API server of a kubeconfig context, or of the pod we run in.

Credentials come from gate.live.credentials; TLS verification is never turned off. Every request
leaves through one guard,
:class:`ReadOnlyTransport`, which lets through GET on the six paths fitgate reads and the POST
of a SelfSubjectAccessReview, and refuses anything else before a byte is sent. Answers stay raw
JSON bytes: deserialising 150k pods into the client's model objects costs minutes.

Every answer is bounded: it is read as it arrives, whole within :attr:`Settings.request_timeout`
(or what is left of the read's :class:`~gate.deadline.Deadline`, if that comes first), and
refused past :attr:`Settings.max_answer` bytes without being held.
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import urllib3
from kubernetes.client import ApiClient, Configuration
from kubernetes.client.exceptions import ApiException

from gate import __version__
from gate.deadline import Deadline, read_capped, shown_seconds
from gate.errors import ClusterError
from gate.live.credentials import InClusterFiles, LiveTarget, configure

READ_PATHS = frozenset(
    {
        "/version",
        "/api/v1/nodes",
        "/api/v1/pods",
        "/api/v1/namespaces",
        "/api/v1/limitranges",
        "/apis/node.k8s.io/v1/runtimeclasses",
        "/apis/scheduling.k8s.io/v1/priorityclasses",  # when the credentials may
        "/api/v1/resourcequotas",  # when the credentials may
        "/apis/policy/v1/poddisruptionbudgets",  # when the credentials may
        "/api/v1/persistentvolumes",  # the storage objects, each when the credentials may
        "/api/v1/persistentvolumeclaims",
        "/apis/storage.k8s.io/v1/storageclasses",
        "/apis/storage.k8s.io/v1/csinodes",
        "/apis/storage.k8s.io/v1/csidrivers",
        "/apis/storage.k8s.io/v1/csistoragecapacities",
        # fitgate snapshot --autoscaling
        "/api/v1/namespaces/kube-system/configmaps",
        "/apis/apps/v1/daemonsets",
        "/apis/apps/v1/namespaces/kube-system/deployments",
        "/apis/cluster.x-k8s.io/v1beta1/machinedeployments",
        "/apis/karpenter.sh/v1/nodepools",
        "/apis/karpenter.sh/v1/nodeclaims",
        "/apis/karpenter.k8s.aws/v1/ec2nodeclasses",
        "/apis/karpenter.azure.com/v1beta1/aksnodeclasses",
    }
)
REVIEW_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
# Answers worth asking again: API priority and fairness (429), a restarting apiserver or
# load balancer (5xx). Everything else is the cluster's final word.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class RequestRefused(ClusterError):
    """A request other than a read or the access review was about to be sent."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Timeouts (seconds), the cap on an answer, and the bounded retry of transient failures.

    ``deadline`` bounds the whole read (``--timeout``); ``request_timeout`` one request,
    its whole answer included: the API server's own bound on a request that is not a watch
    (kube-apiserver ``--request-timeout``, one minute), so a page that has not come whole by
    then never will. A list has both: each of its pages the one, the list the other.
    ``max_answer``: a page of 500 objects of half a MiB each, far past any real page.
    """

    connect_timeout: float = 10.0
    request_timeout: float = 60.0
    deadline: float = 600.0
    max_answer: int = 256 * 1024 * 1024
    attempts: int = 4
    backoff: float = 0.25
    max_delay: float = 10.0
    sleep: Callable[[float], None] = time.sleep
    in_cluster_files: InClusterFiles = field(default_factory=InClusterFiles)
    clock: Callable[[], float] = time.monotonic

    def run_deadline(self) -> Deadline:
        return Deadline.after(self.deadline, self.clock)


def past_deadline(what: str, deadline: Deadline) -> ClusterError:
    """The read's own deadline has passed: one line naming what was under way."""
    return ClusterError(
        f"{what}: the cluster was not read within {shown_seconds(deadline.seconds)} "
        "(--timeout); giving up"
    )


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    data: bytes

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def document(self) -> Any:
        """The decoded body; None when it is not JSON (say, the error page of a proxy)."""
        try:
            return json.loads(self.data)
        except ValueError:
            return None


def check_request(base: str, method: str, url: str) -> None:
    """Refuse anything but GET of a read path and POST of the access review, and any watch."""
    target, home = urlsplit(url), urlsplit(base)
    path = target.path[len(home.path) :] if target.path.startswith(home.path) else None
    if (target.scheme, target.netloc) != (home.scheme, home.netloc) or path is None:
        raise RequestRefused(f"refusing {method} {shown_url(url)}: not the cluster being read")
    if "watch" in parse_qs(target.query):
        raise RequestRefused(f"refusing {method} {path}: fitgate never watches")
    if method == "GET" and path in READ_PATHS:
        return
    if method == "POST" and path == REVIEW_PATH and not target.query:
        return
    raise RequestRefused(
        f"refusing {method} {path}: fitgate only reads (GET) and asks one access review (POST)"
    )


class ReadOnlyTransport:
    """Stands in for the client's ``RESTClientObject`` as ``ApiClient.rest_client``, the one
    place every request of the client passes through, and vets each request first."""

    def __init__(self, inner: Any, base: str) -> None:
        self._inner = inner
        self._base = base

    def request(
        self,
        method: str,
        url: str,
        headers: Any = None,
        body: Any = None,
        post_params: Any = None,
        _request_timeout: Any = None,
    ) -> Any:
        url = shown_url(url)
        check_request(self._base, method.upper(), url)
        return self._inner.request(
            method,
            url,
            headers=headers,
            body=body,
            post_params=post_params,
            _request_timeout=_request_timeout,
        )

    def close(self) -> None:
        self._inner.close()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _network_reason(exc: BaseException) -> str:
    """'connection refused' rather than urllib3's repr of a connection object."""
    if isinstance(exc, urllib3.exceptions.NameResolutionError):
        return "cannot resolve the host name"
    seen: BaseException | None = exc
    while seen is not None:
        if (
            isinstance(seen, OSError)
            and not isinstance(seen, urllib3.exceptions.HTTPError)
            and seen.strerror
        ):
            return seen.strerror.lower()
        seen = seen.__cause__ or seen.__context__
    if isinstance(exc, urllib3.exceptions.ConnectTimeoutError):
        return "connection timed out"
    return _one_line(str(exc).rpartition(": ")[2] or type(exc).__name__)


class Connection:
    """The guarded client, the context and server it talks to, and the retry policy."""

    def __init__(
        self,
        client: Any,
        context: str,
        server: str,
        settings: Settings,
        deadline: Deadline | None = None,
    ) -> None:
        self._client = client
        self.context = context
        self.server = server
        self._settings = settings
        self.deadline = deadline or settings.run_deadline()
        self.doing = f"connecting to {server}"  # what the latest request was for

    @property
    def api_client(self) -> Any:
        """The client's ApiClient, already behind the guard."""
        return self._client

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _exchange(
        self, method: str, path: str, query: Sequence[tuple[str, str]], body: Any, what: str
    ) -> tuple[int, Mapping[str, str], bytes]:
        headers = {"Accept": "application/json", "Accept-Encoding": "gzip"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        request = self._client.param_serialize(
            method,
            path,
            query_params=list(query),
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        settings = self._settings
        deadline = self.deadline.sooner(settings.request_timeout)
        left = self._in_time(deadline, what)
        timeout = (min(settings.connect_timeout, left), left)
        # The client leaves the body unread (urllib3's preload_content=False): it is read
        # here as it arrives, gzip decoded a chunk at a time, so neither a trickle nor an
        # endless answer (nor one that inflates) outlives the deadline or the cap.
        try:
            answer = self._client.call_api(*request, _request_timeout=timeout).response
            try:
                data = read_capped(
                    answer.read1,
                    settings.max_answer,
                    lambda: self._too_long(what),
                    lambda: self._in_time(deadline, what),
                )
            except BaseException:
                answer.close()  # the rest is never read: the connection cannot be reused
                raise
            finally:
                answer.release_conn()
        except urllib3.exceptions.ReadTimeoutError:
            # The socket was silent for all the time the request had left: the same end as
            # an answer that trickles past it, and not worth asking again.
            self._in_time(deadline, what)
            raise ClusterError(f"{what}: {self.server} stopped answering") from None
        return int(answer.status), answer.headers, data

    def _in_time(self, deadline: Deadline, what: str) -> float:
        """The seconds left; past the deadline, the one-line error naming which one."""
        left = deadline.left()
        if left > 0:
            return left
        if deadline is self.deadline or self.deadline.left() <= 0:
            raise past_deadline(what, self.deadline)
        raise ClusterError(
            f"{what}: {self.server} gave no complete answer within "
            f"{shown_seconds(deadline.seconds)}"
        )

    def _too_long(self, what: str) -> ClusterError:
        cap = self._settings.max_answer
        shown = f"{cap / 2**20:g} MiB" if cap >= 2**20 else f"{cap:,} bytes"
        return ClusterError(f"{what}: the answer of {self.server} is longer than {shown}")

    def _unreachable(self, reason: str) -> ClusterError:
        return ClusterError(f"cannot reach {self.server} (context {self.context}): {reason}")

    def _delay(self, attempt: int, headers: Mapping[str, str] | None) -> float:
        retry_after = (headers or {}).get("Retry-After", "")
        if retry_after.strip().isdigit():
            return min(float(retry_after), self._settings.max_delay)
        return min(self._settings.backoff * 2.0**attempt, self._settings.max_delay)

    def send(
        self,
        method: str,
        path: str,
        query: Sequence[tuple[str, str]] = (),
        body: Any = None,
        what: str | None = None,
    ) -> Reply:
        """One request, retried a bounded number of times on transient failures, within
        the read's deadline; ``what`` names it in an error (the method and path by default)."""
        what = self.doing = what or f"{method} {path}"
        last = ""
        for attempt in range(self._settings.attempts):
            headers: Mapping[str, str] | None = None
            try:
                status, headers, data = self._exchange(method, path, query, body, what)
            except urllib3.exceptions.ConnectTimeoutError as exc:
                raise self._unreachable(_network_reason(exc)) from None
            except urllib3.exceptions.ProtocolError as exc:
                last = _network_reason(exc)
            except urllib3.exceptions.HTTPError as exc:
                raise self._unreachable(_network_reason(exc)) from None
            except ApiException as exc:  # the client's wrapping of TLS failures
                reason = _one_line(str(exc.reason or exc)).removeprefix("SSLError ")
                raise ClusterError(f"TLS with {self.server} failed: {reason}") from None
            else:
                if status not in RETRY_STATUSES:
                    return Reply(status, data)
                last = f"HTTP {status}"
            if attempt + 1 < self._settings.attempts:
                delay = self._delay(attempt, headers)
                if delay >= self.deadline.left():
                    raise past_deadline(what, self.deadline)
                self._settings.sleep(delay)
        raise ClusterError(
            f"{method} {path} at {self.server}: {last} "
            f"(gave up after {self._settings.attempts} attempts)"
        )


def shown_url(url: str) -> str:
    """``url`` as fitgate shows and records it: without the ``user:password@`` a
    kubeconfig's server may carry, which must never leave the kubeconfig.

    >>> shown_url("https://admin:secret@api.example.com:6443/k8s")
    'https://api.example.com:6443/k8s'
    """
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _loopback(url: str) -> bool:
    """Plain http is allowed only to this machine (a local proxy, a test server)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def connect(
    target: LiveTarget,
    env: Mapping[str, str],
    settings: Settings | None = None,
    deadline: Deadline | None = None,
) -> Connection:
    """A guarded client for the target's cluster. Refuses configurations that skip TLS checks.
    Its requests end by ``deadline`` (the settings' own from now, by default)."""
    settings = settings or Settings()
    configuration = Configuration()
    context = configure(configuration, target, env, settings.in_cluster_files)
    # A password in the kubeconfig's server URL is never shown, recorded or sent: the
    # client sends no credentials from a URL, and the transport strips it from every request
    # (the kubeconfig loader sets the host again whenever it refreshes a token).
    server = shown_url(str(configuration.host))
    if not configuration.verify_ssl:
        raise ClusterError(
            f"context {context} sets insecure-skip-tls-verify: fitgate never turns TLS "
            "verification off; give the cluster's CA (certificate-authority) instead"
        )
    scheme = urlsplit(server).scheme
    if scheme not in ("http", "https"):
        raise ClusterError(f"context {context}: server {server!r} is not an http(s) URL")
    if scheme == "http" and not _loopback(server):
        raise ClusterError(
            f"context {context}: server {server} is plain http: credentials would travel in "
            "clear text; fitgate reads a remote cluster over https only"
        )
    # One attempt per request in urllib3 (no hidden retries, no redirects); Connection.send
    # owns the retry policy.
    configuration.retries = False
    client: Any = ApiClient(configuration)
    client.rest_client = ReadOnlyTransport(client.rest_client, server)
    client.user_agent = f"fitgate/{__version__}"
    return Connection(client, context, server, settings, deadline)
