"""Which nodes are a status group's members, by the provider's naming (see
:mod:`.groups`): AKS ``aks-<pool>-<digits>-vmss`` and ``kubernetes.azure.com/agentpool`` or
the legacy ``agentpool``; EKS ``eks-<nodegroup>-<uuid>`` and ``eks.amazonaws.com/nodegroup``;
eksctl's ``alpha.eksctl.io/nodegroup-name``; GKE's per-zone MIG ``gke-...-<hash>-grp``,
whose nodes are named ``gke-...-<hash>-<suffix>`` and carry ``cloud.google.com/gke-nodepool``.
An AKS node with neither pool label is matched by the scale set its providerID names
(``NodeView.scale_set``); a label, when there, decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from gate.model import NodeView

PROVIDER_LABELS = (
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
    "cloud.google.com/gke-nodepool",
)
"""The labels of nodes in a provider's autoscaled pools."""
_AKS = re.compile(r"aks-(?P<pool>[a-z0-9]+)-\d+-vmss")
_EKS = re.compile(r"eks-(?P<group>.+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_GKE = re.compile(r"(?:.*/instanceGroups/)?(?P<prefix>gke-.+-[0-9a-z]{8})-grp")


def default_match(group: str, node: NodeView) -> bool:
    """Whether ``node`` is a member of status group ``group`` by the provider's naming."""
    labels = node.labels
    found = _AKS.fullmatch(group)
    if found:
        pool = labels.get("kubernetes.azure.com/agentpool", labels.get("agentpool"))
        if pool is None:  # labels first: the providerID only when no pool label is there
            return node.scale_set is not None and node.scale_set == group.lower()
        return pool == found["pool"]
    found = _EKS.fullmatch(group)
    if found and labels.get("eks.amazonaws.com/nodegroup") == found["group"]:
        return True
    eksctl = labels.get("alpha.eksctl.io/nodegroup-name")
    if eksctl and f"-nodegroup-{eksctl}-" in group:
        return True
    found = _GKE.fullmatch(group)
    return bool(
        found
        and "cloud.google.com/gke-nodepool" in labels
        and node.name.startswith(found["prefix"] + "-")
    )


class Index:
    """The snapshot's nodes by the labels and names that match them to groups, built once:
    a group's candidates are looked up, not searched for among every node (50 groups of a
    5,000-node cluster). :func:`default_match` still decides among the candidates."""

    def __init__(self, nodes: Sequence[NodeView], keys: Iterable[str]) -> None:
        self.nodes = nodes
        self.by_label: dict[tuple[str, str], list[int]] = {}
        self.gke: dict[str, list[int]] = {}
        self.scale_sets: dict[str, list[int]] = {}
        wanted = (*PROVIDER_LABELS, *keys)
        for position, node in enumerate(nodes):
            for key in wanted:
                value = node.labels.get(key)
                if value is not None:
                    self.by_label.setdefault((key, value), []).append(position)
            if "cloud.google.com/gke-nodepool" in node.labels:
                self.gke.setdefault(node.name.rpartition("-")[0], []).append(position)
            if node.scale_set is not None:
                self.scale_sets.setdefault(node.scale_set, []).append(position)

    def labelled(self, key: str, value: str) -> list[NodeView]:
        return [self.nodes[i] for i in self.by_label.get((key, value), [])]

    def candidates(self, group: str) -> list[NodeView]:
        found: set[int] = set()
        aks, eks, gke = _AKS.fullmatch(group), _EKS.fullmatch(group), _GKE.fullmatch(group)
        if aks:
            for key in ("kubernetes.azure.com/agentpool", "agentpool"):
                found.update(self.by_label.get((key, aks["pool"]), []))
            found.update(self.scale_sets.get(group.lower(), []))
        if eks:
            found.update(self.by_label.get(("eks.amazonaws.com/nodegroup", eks["group"]), []))
        for (key, value), positions in self.by_label.items():
            if key == "alpha.eksctl.io/nodegroup-name" and f"-nodegroup-{value}-" in group:
                found.update(positions)
        if gke:
            found.update(self.gke.get(gke["prefix"], []))
        chosen = (self.nodes[i] for i in sorted(found))
        return [n for n in chosen if default_match(group, n)]
