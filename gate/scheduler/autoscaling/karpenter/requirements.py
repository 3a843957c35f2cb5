"""Karpenter's node requirements algebra (``sigs.k8s.io/karpenter`` v1.8,
pkg/scheduling/requirement.go and requirements.go): a requirement is a set of values or its
complement, with optional integer bounds (``Gt``/``Lt``); requirements on one key intersect;
two requirement sets are compatible when every key of the incoming set is defined (or
well-known, or negative) and every shared key intersects. The error texts are upstream's:
``label "<k>" does not have known values`` and ``key <k>, <incoming> not in <existing>``.

Upstream iterates Go maps, so with several failing keys it reports them in no fixed order;
here keys are taken in sorted order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gate.k8s.labels import (
    ARCH,
    BETA_ARCH,
    BETA_INSTANCE_TYPE,
    BETA_OS,
    BETA_REGION,
    BETA_ZONE,
    HOSTNAME,
    INSTANCE_TYPE,
    OS,
    REGION,
    WINDOWS_BUILD,
    ZONE,
)
from gate.model.karpenter import CAPACITY_TYPE_LABEL, NODEPOOL_LABEL, Requirement

WELL_KNOWN = frozenset(
    {NODEPOOL_LABEL, ZONE, REGION, INSTANCE_TYPE, ARCH, OS, CAPACITY_TYPE_LABEL, WINDOWS_BUILD}
)
"""pkg/apis/v1/labels.go ``WellKnownLabels``; providers add their own (see
:func:`well_known`)."""
RESTRICTED = frozenset({HOSTNAME})
"""pkg/apis/v1/labels.go ``RestrictedLabels``: left out of ``Requirements.String``."""
NORMALIZED = {
    BETA_ZONE: ZONE,
    BETA_ARCH: ARCH,
    BETA_OS: OS,
    BETA_INSTANCE_TYPE: INSTANCE_TYPE,
    BETA_REGION: REGION,
}
"""pkg/apis/v1/labels.go ``NormalizedLabels``: aliases read as the well-known key."""

IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT = "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
RESTRICTED_DOMAINS = ("kubernetes.io", "k8s.io", "karpenter.sh")
"""pkg/apis/v1/labels.go ``RestrictedLabelDomains`` (the providers add their own group,
whose labels are all well-known)."""
DOMAIN_EXCEPTIONS = ("kops.k8s.io", "node.kubernetes.io", "node-restriction.kubernetes.io")
"""labels.go ``LabelDomainExceptions``."""
_INFINITE = 2**63 - 1


def well_known(extra: Iterable[str] = ()) -> frozenset[str]:
    """The labels a pod may select on though no pool defines them: upstream's set and the
    keys the provider's instance types carry (providers register theirs, e.g.
    ``karpenter.k8s.aws/instance-family``). The hostname is not one of them: a new claim
    defines it (its placeholder), a NodePool's template does not."""
    return WELL_KNOWN | frozenset(extra)


def restricted(key: str) -> bool:
    """labels.go ``IsRestrictedLabel`` of a normalised key: not well-known, and of a
    restricted domain that is no exception (suffixes compared as upstream compares them,
    without a dot boundary): ``node-role.kubernetes.io/*`` and the hostname among them."""
    key = NORMALIZED.get(key, key)
    if key in WELL_KNOWN:
        return False
    domain = key.split("/", 1)[0] if "/" in key else ""
    if any(domain.endswith(exception) for exception in DOMAIN_EXCEPTIONS):
        return False
    return any(domain.endswith(d) for d in RESTRICTED_DOMAINS)


def atoi(text: str) -> int | None:
    """``strconv.Atoi``: an optional sign and ASCII digits within int64; Python's ``int``
    would also take underscores, surrounding spaces and other scripts' digits."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


def _within(value: str, gt: int | None, lt: int | None) -> bool:
    if gt is None and lt is None:
        return True
    number = atoi(value)
    if number is None:
        return False
    return (gt is None or number > gt) and (lt is None or number < lt)


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


@dataclass(frozen=True, slots=True)
class Req:
    """requirement.go ``Requirement``: ``values`` or (``complement``) every value but them,
    within the bounds ``gt`` < v < ``lt``; ``min_values`` the NodePool's ``minValues``."""

    key: str
    complement: bool
    values: frozenset[str] = frozenset()
    gt: int | None = None
    lt: int | None = None
    min_values: int | None = None

    @classmethod
    def new(
        cls, key: str, operator: str, values: Iterable[str] = (), min_values: int | None = None
    ) -> Req:
        """``NewRequirementWithFlexibility``: aliases normalised, ``Gt``/``Lt`` as bounds."""
        key = NORMALIZED.get(key, key)
        values = tuple(values)
        if operator == IN:
            return cls(key, False, frozenset(values), min_values=min_values)
        if operator == DOES_NOT_EXIST:
            return cls(key, False, min_values=min_values)
        if operator == NOT_IN:
            return cls(key, True, frozenset(values), min_values=min_values)
        if operator == GT:
            return cls(key, True, gt=atoi(values[0]) if values else None, min_values=min_values)
        if operator == LT:
            return cls(key, True, lt=atoi(values[0]) if values else None, min_values=min_values)
        return cls(key, True, min_values=min_values)  # Exists

    @classmethod
    def of(cls, requirement: Requirement) -> Req:
        return cls.new(
            requirement.key, requirement.operator, requirement.values, requirement.min_values
        )

    @property
    def length(self) -> int:
        return _INFINITE - len(self.values) if self.complement else len(self.values)

    @property
    def operator(self) -> str:
        """``Operator()``: ``Gt``/``Lt`` read as ``Exists`` with bounds."""
        if self.complement:
            return NOT_IN if self.values else EXISTS
        return IN if self.values else DOES_NOT_EXIST

    def has(self, value: str) -> bool:
        inside = value in self.values
        return (not inside if self.complement else inside) and _within(value, self.gt, self.lt)

    def intersection(self, other: Req) -> Req:
        """``Intersection``."""
        complement = self.complement and other.complement
        gt, lt = _max(self.gt, other.gt), _min(self.lt, other.lt)
        min_values = _max(self.min_values, other.min_values)
        if gt is not None and lt is not None and gt >= lt:
            return Req(self.key, False, min_values=min_values)
        if self.complement and other.complement:
            values = self.values | other.values
        elif self.complement:
            values = other.values - self.values
        elif other.complement:
            values = self.values - other.values
        else:
            values = self.values & other.values
        values = frozenset(v for v in values if _within(v, gt, lt))
        if not complement:
            gt = lt = None
        return Req(self.key, complement, values, gt, lt, min_values)

    def intersects(self, other: Req) -> bool:
        """``HasIntersection``."""
        gt, lt = _max(self.gt, other.gt), _min(self.lt, other.lt)
        if gt is not None and lt is not None and gt >= lt:
            return False
        if self.complement and other.complement:
            return True
        if self.complement:
            return any(v not in self.values and _within(v, gt, lt) for v in other.values)
        if other.complement:
            return any(v not in other.values and _within(v, gt, lt) for v in self.values)
        return any(v in other.values and _within(v, gt, lt) for v in self.values)

    def __str__(self) -> str:
        """``String()``: ``k In [a b]`` (sorted, past five ``and N others``), ``k Exists``,
        then `` >n``, `` <n``, `` minValues n``."""
        operator = self.operator
        if operator in (EXISTS, DOES_NOT_EXIST):
            text = f"{self.key} {operator}"
        else:
            values = sorted(self.values)
            if len(values) > 5:
                values = [*values[:5], f"and {len(values) - 5} others"]
            text = f"{self.key} {operator} [{' '.join(values)}]"
        if self.gt is not None:
            text += f" >{self.gt}"
        if self.lt is not None:
            text += f" <{self.lt}"
        if self.min_values is not None:
            text += f" minValues {self.min_values}"
        return text


Reqs = Mapping[str, Req]
"""requirements.go ``Requirements``: one requirement per key."""


def merged(base: Reqs, *more: Iterable[Req]) -> dict[str, Req]:
    """``Add``: each requirement intersected with the one already on its key."""
    result = dict(base)
    for requirements in more:
        for req in requirements:
            existing = result.get(req.key)
            result[req.key] = req if existing is None else req.intersection(existing)
    return result


def of(requirements: Iterable[Requirement]) -> dict[str, Req]:
    return merged({}, (Req.of(r) for r in requirements))


def from_labels(labels: Mapping[str, str]) -> dict[str, Req]:
    """``NewLabelRequirements``: each label an ``In`` of its value."""
    return merged({}, (Req.new(k, IN, (v,)) for k, v in labels.items()))


def get(reqs: Reqs, key: str) -> Req:
    """``Get``: an undefined key allows any value (``Exists``)."""
    found = reqs.get(key)
    return found if found is not None else Req(key, True)


def _suffix(key: str) -> str:
    return key.split("/", 1)[1] if "/" in key else key


def _hint(reqs: Reqs, key: str, allowed: frozenset[str]) -> str:
    """``labelHint``: a well-known or defined key the undefined one may be a typo of."""
    for candidates in (sorted(allowed), sorted(reqs)):
        for known in candidates:
            if key in known or known.endswith(_suffix(key)):
                return f' (typo of "{known}"?)'
    return ""


def intersects(reqs: Reqs, incoming: Reqs) -> str | None:
    """``Intersects``: every shared key must intersect, unless both are negative; the
    errors (``key k, <incoming> not in <existing>``) joined as multierr joins them."""
    errors = []
    for key in sorted(reqs.keys() & incoming.keys()):
        existing, other = reqs[key], incoming[key]
        if existing.intersects(other):
            continue
        negative = (NOT_IN, DOES_NOT_EXIST)
        if other.operator in negative and existing.operator in negative:
            continue
        errors.append(f"key {key}, {other} not in {existing}")
    return "; ".join(errors) if errors else None


def compatible(reqs: Reqs, incoming: Reqs, allowed: frozenset[str]) -> str | None:
    """``Compatible(..., AllowUndefinedWellKnownLabels)``: the first incoming key that is
    neither allowed, defined nor negative fails (``label "k" does not have known values``),
    then :func:`intersects`."""
    for key in sorted(incoming):
        if key in allowed or key in reqs or incoming[key].operator in (NOT_IN, DOES_NOT_EXIST):
            continue
        return f'label "{key}" does not have known values{_hint(reqs, key, allowed)}'
    return intersects(reqs, incoming)


def text(reqs: Reqs) -> str:
    """``Requirements.String``: the hostname left out, the rest sorted, joined ", "."""
    return ", ".join(sorted(str(r) for k, r in reqs.items() if k not in RESTRICTED))
