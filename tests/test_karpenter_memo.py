"""The provisioner's memoized type checks against the plain ones they stand for: whether a
type intersects a claim's requirements and whether an offering is compatible with them,
asked once per requirement set on the types' and offerings' keys, and ``filter_types`` with
its cheap test first, each answering as the type-by-type reading of upstream's
``filterInstanceTypesByRequirements`` does (kept in this test as it was written first)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME, ZONE
from gate.k8s.quantity import DECIMAL_EXPONENT
from gate.k8s.quotausage import Amount
from gate.model.karpenter import CAPACITY_TYPE_LABEL, InstanceType, Offering, Requirement
from gate.scheduler.autoscaling.karpenter.instancetypes import (
    MIN_VALUES,
    filter_types,
    fits,
    no_type_left,
    resources_text,
)
from gate.scheduler.autoscaling.karpenter.pools import (
    PoolType,
    Shown,
    TypeMemo,
    min_values_unmet,
    offered,
    pool_types,
)
from gate.scheduler.autoscaling.karpenter.provisioner import Provisioner
from gate.scheduler.autoscaling.karpenter.requirements import Req, Reqs, intersects, text

ARCH = "kubernetes.io/arch"
FAMILY = "example.com/family"
CPU = "example.com/cpu"
KEYS = (ARCH, FAMILY, CPU, ZONE, CAPACITY_TYPE_LABEL, HOSTNAME, "team")
VALUES = ("a", "b", "c", "1", "4", "16")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _reference(
    types: Sequence[PoolType], reqs: Reqs, total: Mapping[str, int], shown: Shown
) -> tuple[tuple[PoolType, ...], tuple[str, str] | None]:
    """The first reading: every type judged on all three counts, then the error's flags."""
    kept = []
    met = fit = has = met_fit = met_has = fit_has = False
    for it in types:
        compat = intersects(it.reqs, reqs) is None
        room_ok = fits(total, it.allocatable)
        offer = any(offered(reqs, o) for o, _ in it.offerings)
        met, fit, has = met or compat, fit or room_ok, has or offer
        met_fit = met_fit or (compat and room_ok and not offer)
        met_has = met_has or (compat and offer and not room_ok)
        fit_has = fit_has or (room_ok and offer and not compat)
        if compat and room_ok and offer:
            kept.append(it)
    unmet = min_values_unmet(kept, reqs) if kept else []
    if unmet:
        reason = MIN_VALUES
        said = f"{MIN_VALUES} (label(s)=[{' '.join(unmet)}])"
        return (), (reason, f"{said}, requirements={text(reqs)}, resources={resources_text(shown)}")
    if kept:
        return tuple(kept), None
    return (), no_type_left(reqs, shown, met, fit, has, met_fit, fit_has, met_has)


@st.composite
def requirements(draw: st.DrawFn) -> Req:
    key = draw(st.sampled_from(KEYS))
    operator = draw(st.sampled_from(OPERATORS))
    if operator in ("Gt", "Lt"):
        values = [draw(st.sampled_from(("0", "2", "8")))]
    elif operator in ("In", "NotIn"):
        values = draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=3, unique=True))
    else:
        values = []
    least = draw(st.sampled_from((None, None, None, 1, 2)))
    return Req.new(key, operator, values, least)


@st.composite
def instance_types(draw: st.DrawFn, index: int) -> InstanceType:
    zones = draw(st.lists(st.sampled_from(("a", "b", "c")), min_size=1, max_size=3, unique=True))
    kinds = draw(st.lists(st.sampled_from(("on-demand", "spot")), min_size=1, unique=True))
    extra = draw(st.sampled_from(((), (Requirement("team", "In", ("a",)),))))
    offerings = tuple(
        Offering(zone, kind, price=float(index + n), requirements=extra)
        for n, (zone, kind) in enumerate((z, k) for z in zones for k in kinds)
    )
    labels = {
        ARCH: draw(st.sampled_from(("a", "b"))),
        FAMILY: draw(st.sampled_from(("a", "b", "c"))),
        CPU: draw(st.sampled_from(("1", "4", "16"))),
    }
    cpu = int(labels[CPU]) * 1000
    return InstanceType(
        f"type-{index}",
        labels,
        ("linux",),
        {"cpu": cpu, "memory": cpu * 2**20, "pods": 110},
        {"cpu": 100},
        offerings,
    )


@st.composite
def catalogs(draw: st.DrawFn) -> list[InstanceType]:
    count = draw(st.integers(min_value=1, max_value=8))
    return [draw(instance_types(index)) for index in range(count)]


def _reqs(found: list[Req]) -> dict[str, Req]:
    merged: dict[str, Req] = {}
    for req in found:
        merged[req.key] = req if req.key not in merged else req.intersection(merged[req.key])
    return merged


@settings(max_examples=300, deadline=None)
@given(
    catalog=catalogs(),
    pool=st.lists(requirements(), max_size=3),
    claims=st.lists(st.lists(requirements(), max_size=4), min_size=1, max_size=6),
    cpu=st.sampled_from((0, 500, 1900, 5000, 20000)),
)
def test_memoized_checks_answer_as_the_plain_ones(
    catalog: list[InstanceType], pool: list[Req], claims: list[list[Req]], cpu: int
) -> None:
    memo = TypeMemo()
    pool_reqs = _reqs(pool)
    kept = pool_types(pool_reqs, catalog, None, memo)
    types = [t for it in catalog if (t := memo.pool_type(it, None)) is not None]
    assert pool_types(pool_reqs, catalog, None) == kept  # the memo changes no answer
    provisioner = Provisioner(
        (),
        type_keys=frozenset(k for t in types for k in t.reqs),
        offer_keys=frozenset(k for t in types for o, _ in t.offerings for k in o),
    )
    total = {"cpu": cpu, "pods": 1}
    shown = {"cpu": Amount(Fraction(cpu, 1000)), "pods": Amount(Fraction(1), DECIMAL_EXPONENT)}
    for claim in claims * 2:  # the second time round, every answer comes from the memo
        reqs = _reqs(claim)
        match, offers = provisioner._match(reqs), provisioner._offered(reqs)
        for it in types:
            assert match(it) == (intersects(it.reqs, reqs) is None)
            for offering, _ in it.offerings:
                assert offers(offering) == offered(reqs, offering)
        got = filter_types(types, reqs, total, shown, match, offers)
        plain = filter_types(types, reqs, total, shown)
        assert got == plain == _reference(types, reqs, total, shown)
