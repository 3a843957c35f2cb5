"""The connection: kubeconfig and in-cluster credentials, TLS, the read-only guard, retries.

Everything runs the real ``kubernetes`` client against the test API server over HTTP(S).
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trustme
from kubernetes.client import CoreV1Api

from gate.errors import ClusterError, UsageError
from gate.live.connection import RequestRefused, Settings, check_request, connect
from gate.live.credentials import InClusterFiles, LiveTarget
from tests.apiserver import NODES, ApiServer, ApiState, write_kubeconfig
from tests.live import TOKEN, Live, live_cluster, run


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client honours proxy variables; the test server is local."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_cluster(tmp_path) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


BASE = "https://api.example.com:6443"


@pytest.mark.parametrize(
    ("base", "method", "url", "refused"),
    [
        (BASE, "GET", f"{BASE}/api/v1/pods?limit=500&continue=x", None),
        (BASE, "GET", f"{BASE}/version", None),
        (BASE, "POST", f"{BASE}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", None),
        (f"{BASE}/k8s/clusters/c-1", "GET", f"{BASE}/k8s/clusters/c-1/api/v1/nodes", None),
        (BASE, "POST", f"{BASE}/api/v1/namespaces/default/pods/web/binding", "only reads"),
        (BASE, "POST", f"{BASE}/api/v1/namespaces/default/bindings", "only reads"),
        (BASE, "PUT", f"{BASE}/api/v1/nodes", "only reads"),
        (BASE, "PATCH", f"{BASE}/api/v1/nodes", "only reads"),
        (BASE, "DELETE", f"{BASE}/api/v1/pods", "only reads"),
        (BASE, "HEAD", f"{BASE}/api/v1/pods", "only reads"),
        (BASE, "GET", f"{BASE}/api/v1/secrets", "only reads"),
        (BASE, "GET", f"{BASE}/api/v1/nodes/../secrets", "only reads"),
        (BASE, "GET", f"{BASE}/api/v1/pods?watch=true", "never watches"),
        (BASE, "GET", f"{BASE}/api/v1/pods?watch=1&limit=5", "never watches"),
        (
            BASE,
            "POST",
            f"{BASE}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews?dryRun=All",
            "only reads",
        ),
        (BASE, "GET", "https://elsewhere.example.com/api/v1/pods", "not the cluster"),
        (f"{BASE}/k8s/clusters/c-1", "GET", f"{BASE}/api/v1/pods", "not the cluster"),
    ],
    ids=[
        "a page of pods is a read",
        "the server version is a read",
        "the access review may be posted",
        "a server URL with a path prefix keeps working",
        "a pod binding is refused",
        "the legacy bindings collection is refused",
        "a PUT is refused",
        "a PATCH is refused",
        "a DELETE is refused",
        "a HEAD is refused",
        "secrets are never read",
        "a path that climbs out of the read paths is refused",
        "a watch is refused",
        "a watch among other parameters is refused",
        "the review with extra parameters is refused",
        "another host is refused",
        "the same host outside the path prefix is refused",
    ],
)
def test_guard_lets_only_reads_and_the_review_through(
    base: str, method: str, url: str, refused: str | None
) -> None:
    if refused is None:
        check_request(base, method, url)
        return
    with pytest.raises(RequestRefused, match=refused):
        check_request(base, method, url)


def test_the_clients_own_write_calls_are_refused_before_sending(live: Live) -> None:
    with connect(LiveTarget(), live.env) as connection:
        api = CoreV1Api(connection.api_client)
        calls: list[Callable[[], object]] = [
            lambda: api.delete_namespaced_pod("web", "default"),
            lambda: api.patch_node("aks-user-0", {"spec": {"unschedulable": True}}),
            lambda: api.list_secret_for_all_namespaces(_preload_content=False),
            lambda: api.list_pod_for_all_namespaces(watch=True, _preload_content=False),
        ]
        for call in calls:
            with pytest.raises(RequestRefused):
                call()
        with pytest.raises(RequestRefused):
            connection.send("DELETE", NODES)
    assert live.state.requests == []


def _second_kubeconfig(tmp_path: Path, live: Live, context: str) -> Path:
    return write_kubeconfig(
        tmp_path / f"{context}.yaml", live.url, context=context, token=TOKEN, current=False
    )


def test_kubeconfig_paths_and_context_choose_what_is_read(tmp_path: Path, live: Live) -> None:
    other = _second_kubeconfig(tmp_path, live, "beta")
    multi = f"{tmp_path / 'missing.yaml'}:{live.kubeconfig}:{other}"
    cases = [
        (LiveTarget(), {"KUBECONFIG": str(live.kubeconfig)}, "test"),
        (LiveTarget(), {"KUBECONFIG": multi}, "test"),
        (LiveTarget(context="beta"), {"KUBECONFIG": multi}, "beta"),
        (LiveTarget(kubeconfig=str(live.kubeconfig)), {"KUBECONFIG": str(other)}, "test"),
    ]
    for target, env, context in cases:
        with connect(target, env) as connection:
            assert (connection.context, connection.server) == (context, live.url)
            assert connection.send("GET", "/version").status == 200
    assert all(r.authorization == f"Bearer {TOKEN}" for r in live.state.requests)


def test_an_exec_plugin_supplies_the_token(tmp_path: Path, live: Live) -> None:
    plugin = tmp_path / "credential.py"
    plugin.write_text(
        "import json\n"
        "print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1',\n"
        "  'kind': 'ExecCredential', 'status': {'token': 'from-exec'}}))\n",
        encoding="utf-8",
    )
    live.state.token = "from-exec"
    kubeconfig = write_kubeconfig(
        tmp_path / "exec.yaml", live.url, exec_command=[sys.executable, str(plugin)]
    )
    with connect(LiveTarget(kubeconfig=str(kubeconfig)), {}) as connection:
        assert connection.send("GET", "/version").status == 200
    assert [r.authorization for r in live.state.requests] == ["Bearer from-exec"]


def _service_account(tmp_path: Path, ca: trustme.CA) -> InClusterFiles:
    token, ca_file = tmp_path / "token", tmp_path / "ca.crt"
    token.write_text(TOKEN, encoding="utf-8")
    ca.cert_pem.write_to_path(str(ca_file))
    return InClusterFiles(token=str(token), ca=str(ca_file))


@pytest.mark.parametrize(
    ("target", "kubeconfig"),
    [(LiveTarget(in_cluster=True), None), (LiveTarget(), "missing.yaml")],
    ids=["--in-cluster uses the service account", "no kubeconfig in a pod falls back to it"],
)
def test_in_cluster_service_account(
    tmp_path: Path, ca: trustme.CA, target: LiveTarget, kubeconfig: str | None
) -> None:
    state = ApiState(token=TOKEN)
    settings = Settings(in_cluster_files=_service_account(tmp_path, ca))
    with ApiServer(state, ca) as server:
        port = server.url.rpartition(":")[2]
        env = {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": port}
        if kubeconfig:
            env["KUBECONFIG"] = str(tmp_path / kubeconfig)
        with connect(target, env, settings) as connection:
            assert (connection.context, connection.server) == ("in-cluster", server.url)
            assert connection.send("GET", "/version").status == 200


def test_https_with_the_clusters_ca(tmp_path: Path, ca: trustme.CA) -> None:
    with live_cluster(tmp_path, ca=ca) as live, connect(LiveTarget(), live.env) as connection:
        assert connection.server.startswith("https://")
        assert connection.send("GET", "/version").status == 200


def _one_line_error(code: int, out: str, err: str) -> str:
    """Exit 2, nothing on stdout, and one error line (after the line naming what is read)."""
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    *before, last = err.splitlines()
    assert all(line.startswith("fitgate: reading context ") for line in before), err
    assert last.startswith("fitgate: ")
    return last + "\n"


def test_an_unknown_ca_is_a_one_line_tls_error(tmp_path: Path, ca: trustme.CA) -> None:
    with ApiServer(ApiState(), ca) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url, token=TOKEN)
        argv = ["snapshot", "--kubeconfig", str(kubeconfig), "-o", str(tmp_path / "s.json")]
        err = _one_line_error(*run(argv, {}))
    assert f"TLS with {server.url} failed" in err
    assert "certificate verify failed" in err
    assert not (tmp_path / "s.json").exists()


def test_insecure_skip_tls_verify_is_refused_before_connecting(tmp_path: Path) -> None:
    state = ApiState()
    with ApiServer(state) as server:
        kubeconfig = write_kubeconfig(
            tmp_path / "kubeconfig", server.url.replace("http:", "https:"), insecure=True
        )
        err = _one_line_error(*run(["check", "--kubeconfig", str(kubeconfig)], {}))
    assert "insecure-skip-tls-verify" in err and "never turns TLS verification off" in err
    assert state.requests == []


def test_an_unreachable_server_is_one_line_exit_2(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url, token=TOKEN)
    err = _one_line_error(*run(["check", "fixtures"], {"KUBECONFIG": str(kubeconfig)}))
    assert err == f"fitgate: cannot reach {url} (context test): connection refused\n"


@pytest.mark.parametrize(
    ("kubeconfig_text", "argv", "message"),
    [
        ("clusters: [unclosed\n", [], "kubeconfig "),
        (None, ["--context", "nowhere"], "nowhere"),
        (None, ["--in-cluster"], "--in-cluster cannot be combined"),
    ],
    ids=[
        "a kubeconfig that is not YAML",
        "a context the kubeconfig does not have",
        "--in-cluster with a kubeconfig",
    ],
)
def test_bad_connection_settings_are_one_line_errors(
    tmp_path: Path, live: Live, kubeconfig_text: str | None, argv: list[str], message: str
) -> None:
    path = live.kubeconfig
    if kubeconfig_text is not None:
        path = tmp_path / "broken.yaml"
        path.write_text(kubeconfig_text, encoding="utf-8")
    err = _one_line_error(*run(["check", "--kubeconfig", str(path), *argv], {}))
    assert message in err
    assert live.state.requests == []


@pytest.mark.parametrize(
    ("contexts", "argv", "expected"),
    [
        pytest.param(
            ["test"],
            ["--context", "prod"],
            'fitgate: context "prod" is not in the kubeconfig (contexts: test)\n',
            id="an unknown context is named with the one the kubeconfig has",
        ),
        pytest.param(
            ["test", "beta"],
            ["--context", "prod"],
            'fitgate: context "prod" is not in the kubeconfig (contexts: test, beta)\n',
            id="an unknown context is named with every context of a multi-path KUBECONFIG",
        ),
        pytest.param(
            ["test"],
            ["--context", "Test"],
            'fitgate: context "Test" is not in the kubeconfig (contexts: test)\n',
            id="context names are matched exactly, case included",
        ),
    ],
)
def test_an_unknown_context_is_named_in_fitgates_words(
    tmp_path: Path, live: Live, contexts: list[str], argv: list[str], expected: str
) -> None:
    others = [str(_second_kubeconfig(tmp_path, live, c)) for c in contexts[1:]]
    env = {"KUBECONFIG": ":".join([str(live.kubeconfig), *others])}
    for command in (["check", "fixtures"], ["snapshot", "-o", str(tmp_path / "s.json")]):
        assert _one_line_error(*run([*command, *argv], env)) == expected
    assert live.state.requests == []


def test_missing_kubeconfig_names_where_it_looked(tmp_path: Path) -> None:
    missing = str(tmp_path / "nothing.yaml")
    err = _one_line_error(
        *run(["snapshot", "-o", str(tmp_path / "s.json")], {"KUBECONFIG": missing})
    )
    assert f"no kubeconfig found at {missing}" in err
    err = _one_line_error(*run(["check", "--kubeconfig", missing], {}))
    assert f"--kubeconfig {missing}: no such file" in err


def test_rejected_credentials(live: Live) -> None:
    live.state.token = "someone-else"
    err = _one_line_error(*run(["check", "fixtures"], live.env))
    assert "rejected the credentials of context test (401 Unauthorized)" in err


def test_transient_answers_are_retried_with_backoff(live: Live) -> None:
    sleeps: list[float] = []
    live.state.faults[NODES] = [503, 429, 500]
    with connect(LiveTarget(), live.env, Settings(sleep=sleeps.append)) as connection:
        assert connection.send("GET", NODES, [("limit", "5")]).status == 200
    assert sleeps == [0.25, 1.0, 1.0]  # backoff, then the server's Retry-After: 1
    assert live.state.seen().count(("GET", NODES)) == 4


def test_retries_are_bounded(live: Live) -> None:
    sleeps: list[float] = []
    live.state.faults[NODES] = [503] * 10
    gave_up = r"HTTP 503 \(gave up after 4 attempts\)"
    with (
        connect(LiveTarget(), live.env, Settings(sleep=sleeps.append)) as connection,
        pytest.raises(ClusterError, match=gave_up),
    ):
        connection.send("GET", NODES)
    assert sleeps == [0.25, 0.5, 1.0]
    assert live.state.seen().count(("GET", NODES)) == 4


def test_in_cluster_conflicts_with_kubeconfig_flags() -> None:
    with pytest.raises(UsageError):
        connect(LiveTarget(in_cluster=True, context="x"), {})


def test_a_password_in_the_server_url_never_leaves_the_kubeconfig(tmp_path: Path) -> None:
    """Shown and recorded without its user:password (errors, the recording, the reports)."""
    url = f"http://admin:hunter2@127.0.0.1:{free_port()}"
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url, token=TOKEN)
    code, out, err = run(["check", "fixtures"], {"KUBECONFIG": str(kubeconfig)})
    assert code == 2 and "hunter2" not in out + err and "admin" not in out + err
    assert "fitgate: cannot reach http://127.0.0.1:" in err


def test_the_recording_keeps_no_password_of_the_server_url(tmp_path: Path, live: Live) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    with_password = live.url.replace("://", "://admin:hunter2@")
    write_kubeconfig(kubeconfig, with_password, token=TOKEN)
    out = tmp_path / "snap.json"
    code, _, err = run(["snapshot", "--kubeconfig", str(kubeconfig), "-o", str(out)], {})
    assert code == 0, err
    recorded = out.read_text(encoding="utf-8")
    assert "hunter2" not in recorded and '"server": "' + live.url + '"' in recorded


@pytest.mark.parametrize(
    "server",
    ["http://api.example.com:6443", "http://10.0.0.1:6443", "http://[2001:db8::1]:6443"],
    ids=["a remote name", "a private address", "a remote IPv6 address"],
)
def test_plain_http_to_a_remote_server_is_refused(tmp_path: Path, server: str) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server, token=TOKEN)
    err = _one_line_error(*run(["check", "fixtures"], {"KUBECONFIG": str(kubeconfig)}))
    assert err == (
        f"fitgate: context test: server {server} is plain http: credentials would travel in "
        "clear text; fitgate reads a remote cluster over https only\n"
    )
