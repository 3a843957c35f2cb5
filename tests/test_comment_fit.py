"""How a comment is cut to its size limit: the fullest rendering within it, found
without rendering any budget twice."""

from __future__ import annotations

from dataclasses import fields, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.reports.markdown import SHRINK_ORDER, Budget, fit_to_limit

SECTIONS = [f.name for f in fields(Budget)]


def _size(budget: Budget, weights: dict[str, int], base: int) -> int:
    shown: dict[str, int] = {name: getattr(budget, name) for name in SECTIONS}
    return base + sum(shown[name] * weights[name] for name in SECTIONS)


def _fullest(full: Budget, weights: dict[str, int], base: int, limit: int) -> int | None:
    """The documented answer's size, section by section: empty them in turn; the first
    whose emptying fits gets back as many rows as still fit."""
    if _size(full, weights, base) <= limit:
        return _size(full, weights, base)
    budget = full
    for name in SHRINK_ORDER:
        budget = replace(budget, **{name: 0})
        if _size(budget, weights, base) <= limit:
            rows = max(
                n
                for n in range(getattr(full, name) + 1)
                if _size(replace(budget, **{name: n}), weights, base) <= limit
            )
            return _size(replace(budget, **{name: rows}), weights, base)
    return None


@settings(max_examples=200, deadline=None)
@given(
    rows=st.fixed_dictionaries({name: st.integers(0, 40) for name in SECTIONS}),
    weights=st.fixed_dictionaries({name: st.integers(1, 60) for name in SECTIONS}),
    base=st.integers(0, 200),
    limit=st.integers(0, 3000),
)
def test_the_comment_is_the_fullest_rendering_within_its_limit_each_budget_rendered_once(
    rows: dict[str, int], weights: dict[str, int], base: int, limit: int
) -> None:
    rendered: list[Budget] = []

    def render(budget: Budget) -> str:
        rendered.append(budget)
        return "x" * _size(budget, weights, base)

    text = fit_to_limit(render, Budget(**rows), limit)
    expected = _fullest(Budget(**rows), weights, base, limit)
    assert (None if text is None else len(text)) == expected
    assert len(set(rendered)) == len(rendered)
