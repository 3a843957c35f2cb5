"""Requests are summed as exact values: a resource's first value is kept as it is rather
than added to a zero, which gives the same sums, in the same order of names."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.resources import _add

NAMES = st.sampled_from(("cpu", "memory", "ephemeral-storage", "nvidia.com/gpu"))
AMOUNTS = st.dictionaries(NAMES, st.fractions(min_value=0, max_value=10**12), max_size=4)


@given(st.lists(AMOUNTS, max_size=6))
def test_a_sum_of_requests_is_the_sum_from_zero(parts: list[dict[str, Fraction]]) -> None:
    total: dict[str, Fraction] = {}
    expected: dict[str, Fraction] = {}
    for part in parts:
        _add(total, part)
        for name, value in part.items():
            expected[name] = expected.get(name, Fraction(0)) + value
    assert list(total.items()) == list(expected.items())
    assert all(type(value) is Fraction for value in total.values())
