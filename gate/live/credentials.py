"""Which cluster to read, and with which credentials, as the ``kubernetes`` client finds them.

``--kubeconfig FILE``, else every existing file of a multi-path ``KUBECONFIG``, else
``~/.kube/config``; ``--context`` picks a context, otherwise the current one. With no
kubeconfig at all inside a pod, the client's usual fallback applies: the pod's service
account (``--in-cluster`` asks for it directly). Exec and OIDC plugins run as the client
runs them. A kubeconfig file is never written back.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubernetes.config import incluster_config, kube_config

from gate.errors import ClusterError, UsageError

DEFAULT_KUBECONFIG = "~/.kube/config"
# The client's configuration loaders are untyped; they are reached through these names.
IN_CLUSTER: Any = incluster_config
KUBE_CONFIG: Any = kube_config


@dataclass(frozen=True, slots=True)
class LiveTarget:
    """Which cluster to read, as the command line names it."""

    kubeconfig: str | None = None
    context: str | None = None
    in_cluster: bool = False
    i_mean_it: bool = False
    recording: bool = False
    """Read to record it (``fitgate snapshot``): no snapshot file can stand in for it."""


@dataclass(frozen=True, slots=True)
class InClusterFiles:
    """Where a pod finds its service account (the client's paths; tests point elsewhere)."""

    token: str = IN_CLUSTER.SERVICE_TOKEN_FILENAME
    ca: str = IN_CLUSTER.SERVICE_CERT_FILENAME


def _in_cluster(configuration: Any, env: Mapping[str, str], files: InClusterFiles) -> str:
    loader = IN_CLUSTER.InClusterConfigLoader(
        token_filename=files.token, cert_filename=files.ca, environ=env
    )
    try:
        loader.load_and_set(configuration)
    except Exception as exc:  # ConfigException, OSError: every one is "not in a pod"
        raise ClusterError(f"--in-cluster: no service account to use: {exc}") from None
    return "in-cluster"


def _kubeconfig(configuration: Any, target: LiveTarget, paths: str) -> str:
    try:
        merged = KUBE_CONFIG.KubeConfigMerger(paths).config
        if merged is None:
            raise ClusterError(f"kubeconfig {paths}: no configuration found")
        _known_context(merged, target.context)
        loader = KUBE_CONFIG.KubeConfigLoader(config_dict=merged, active_context=target.context)
        loader.load_and_set(configuration)
        return str(loader.current_context["name"])
    except ClusterError:
        raise
    except Exception as exc:  # the loader raises anything from KeyError to YAMLError
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise ClusterError(f"kubeconfig {paths}: {text}") from None


def _known_context(merged: Any, context: str | None) -> None:
    """A ``--context`` the kubeconfig does not have, named in fitgate's words with the
    contexts it does have (the client would say "Expected key ... in contexts")."""
    if context is None:
        return
    contexts = getattr(merged, "value", merged).get("contexts") or []
    names = [str(getattr(c, "value", c).get("name")) for c in contexts if c]
    if context not in names:
        listed = ", ".join(names) or "none"
        raise ClusterError(f'context "{context}" is not in the kubeconfig (contexts: {listed})')


def _existing(paths: str) -> list[str]:
    return [
        p
        for p in paths.split(KUBE_CONFIG.ENV_KUBECONFIG_PATH_SEPARATOR)
        if p and os.path.exists(os.path.expanduser(p))
    ]


def configure(
    configuration: Any, target: LiveTarget, env: Mapping[str, str], files: InClusterFiles
) -> str:
    """Load credentials into ``configuration``; returns the context name the report shows."""
    if target.in_cluster:
        if target.context or target.kubeconfig:
            raise UsageError("--in-cluster cannot be combined with --context or --kubeconfig")
        return _in_cluster(configuration, env, files)
    if target.kubeconfig and not os.path.isfile(os.path.expanduser(target.kubeconfig)):
        raise ClusterError(f"--kubeconfig {target.kubeconfig}: no such file")
    paths = target.kubeconfig or env.get("KUBECONFIG") or DEFAULT_KUBECONFIG
    if not _existing(paths):
        # The client's usual fallback: no kubeconfig, but running in a pod.
        if env.get(IN_CLUSTER.SERVICE_HOST_ENV_NAME) and not target.context:
            return _in_cluster(configuration, env, files)
        offline = "" if target.recording else ", or record a snapshot and pass --snapshot FILE"
        raise ClusterError(
            f"no kubeconfig found at {paths}: pass --kubeconfig or --in-cluster{offline}"
        )
    return _kubeconfig(configuration, target, paths)
