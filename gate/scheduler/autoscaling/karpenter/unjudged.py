"""A requirement the run's catalog cannot judge, said rather than ignored.

A NodePool's NodeClass names its cloud provider (``karpenter.k8s.aws`` for EKS,
``karpenter.azure.com`` for AKS node autoprovisioning), and that provider puts labels of its
own on every instance type (``karpenter.k8s.aws/instance-family``, ``karpenter.azure.com/
sku-family``, ...; a type with no value carries the key as ``DoesNotExist``). A catalog that
carries none of them (KWOK's JSON, the types running in the cluster) cannot say which types
such a requirement keeps: Karpenter's requirement algebra intersects only the keys both sides
hold, so the requirement would silently keep every type. The gate fails closed instead: the
pool takes no copy, and says which requirement and which catalog, and how to record a real
one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gate.model.karpenter import Catalog, NodePool
from gate.scheduler.autoscaling.karpenter.requirements import Req

UNJUDGED = "requirement the instance-type catalog cannot judge"
"""The reason key of a pool that fails closed."""


@dataclass(frozen=True, slots=True)
class Provider:
    """A cloud provider as its NodeClass names it: the label prefixes its instance types
    carry, its NodeClass label (Karpenter's from ``nodeClassRef``, not a type's), and how to
    record a listing fitgate reads."""

    name: str
    prefixes: tuple[str, ...]
    node_class_label: str
    record: str


PROVIDERS: Mapping[str, Provider] = {
    "karpenter.k8s.aws": Provider(
        "EKS",
        ("karpenter.k8s.aws/", "topology.k8s.aws/"),
        "karpenter.k8s.aws/ec2nodeclass",
        "record EC2's listing (aws ec2 describe-instance-types --output json) and give it "
        "with --instance-types",
    ),
    "karpenter.azure.com": Provider(
        "AKS",
        ("karpenter.azure.com/",),
        "karpenter.azure.com/aksnodeclass",
        "record the region's SKUs (az vm list-skus --location <region> --output json) and "
        "give them with --instance-types",
    ),
}
"""pkg/apis/v1/labels.go of karpenter-provider-aws v1.8.8 (``karpenter.k8s.aws/*``,
``topology.k8s.aws/zone-id``) and pkg/apis/v1beta1/labels.go of karpenter-provider-azure
(``karpenter.azure.com/*``)."""


def carried(catalog: Catalog) -> frozenset[str]:
    """Every key a type of the catalog carries: its labels, its ``DoesNotExist`` keys and
    its offerings' requirements."""
    keys = {k for t in catalog.types for k in (*t.labels, *t.absent)}
    keys |= {r.key for t in catalog.types for r in t.requirements}
    keys |= {r.key for t in catalog.types for o in t.offerings for r in o.requirements}
    return frozenset(keys)


def provider_of(pool: NodePool) -> Provider | None:
    return PROVIDERS.get(pool.node_class[0])


def unjudged_keys(
    provider: Provider, keys: Iterable[str], known: frozenset[str]
) -> tuple[str, ...]:
    """The keys of ``provider``'s labels that the catalog's types do not carry."""
    return tuple(
        sorted(
            {
                k
                for k in keys
                if k.startswith(provider.prefixes)
                and k != provider.node_class_label
                and k not in known
            }
        )
    )


def unjudged_text(whose: str, reqs: Iterable[Req], provider: Provider, catalog: Catalog) -> str:
    """``<whose> requirement <req> cannot be judged with the instance types of <file>, which
    carry no <provider> instance-type labels: <how to record a real catalog>``; with the types
    running in the cluster when no catalog was given."""
    shown = "; ".join(str(r) for r in reqs)
    types = catalog.source if catalog.from_cluster else f"the instance types of {catalog.source}"
    return (
        f"{whose} requirement {shown} cannot be judged with {types}, which carry no "
        f"{provider.name} instance-type labels: {provider.record}"
    )
