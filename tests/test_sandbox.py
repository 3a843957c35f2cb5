"""A user's comment template under its budget (gate.reports.sandbox): each operation that
could build a value too large to hold is refused before it runs, in one line naming the
template and its line."""

from __future__ import annotations

import pytest
from jinja2 import TemplateSyntaxError

from gate.reports.sandbox import (
    MAX_INT_BITS,
    MAX_REPEAT,
    MAX_WIDTH,
    BudgetedSandbox,
    TemplateBudget,
    bounded_format,
    printf_widths,
    refusal,
)


def _render(source: str) -> str:
    environment = BudgetedSandbox()
    environment.filters["format"] = bounded_format
    return environment.from_string(source).render()


def _refused(source: str) -> str:
    try:
        _render(source)
    except (TemplateBudget, TemplateSyntaxError) as exc:
        return refusal("comment.j2", exc)
    raise AssertionError(f"{source!r} rendered")


REFUSED: list[tuple[str, str, str]] = [
    (
        "a power past the integer budget",
        "{{ 2 ** 5000 }}",
        f"comment.j2, line 1: an integer of more than {MAX_INT_BITS} bits",
    ),
    (
        "a product past the integer budget",
        "{{ (2 ** 4000) * (2 ** 4000) }}",
        f"comment.j2, line 1: an integer of more than {MAX_INT_BITS} bits",
    ),
    (
        "a string repeated past the output budget",
        "{{ 'ab' * 5000000 }}",
        f"comment.j2, line 1: a repetition longer than {MAX_REPEAT} items",
    ),
    (
        "a list repeated past the output budget, the count first",
        "{{ (9000000 * [1]) | length }}",
        f"comment.j2, line 1: a repetition longer than {MAX_REPEAT} items",
    ),
    (
        "a % format padded past the width budget, on the line it is on",
        "ok\n{{ '%2000000000d' % 1 }}",
        f"comment.j2, line 2: format width 2000000000 is past {MAX_WIDTH}",
    ),
    (
        "a % format whose width is an argument",
        "{{ '%*d' % (5, 1) }}",
        f"comment.j2, line 1: format width * is past {MAX_WIDTH}",
    ),
    (
        "the format filter padded past the width budget",
        "{{ '%.20000f' | format(1) }}",
        f"comment.j2, line 1: format width 20000 is past {MAX_WIDTH}",
    ),
    (
        "str.format padded past the width budget",
        "{{ '{:20000}'.format(1) }}",
        f"comment.j2, line 1: format width 20000 is past {MAX_WIDTH}",
    ),
    (
        "str.format with a width given by another field",
        "{{ '{:{w}}'.format(1, w=5) }}",
        "comment.j2, line 1: a format width given by another field is not allowed",
    ),
    (
        "a syntax error, with its line",
        "a\nb\n{{ 1 + }}",
        "comment.j2, line 3: unexpected 'end of print statement'",
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_refused(source: str, expected: str) -> None:
    assert _refused(source) == expected


RENDERED: list[tuple[str, str, str]] = [
    ("a power within the budget", "{{ (2 ** 4000) > 0 }}", "True"),
    ("a rule of dashes", "{{ '-' * 5 }}", "-----"),
    ("a narrow % format", "{{ '%5d|' % 42 }}", "   42|"),
    ("a narrow format filter", "{{ '%-4s|' | format('a') }}", "a   |"),
    ("a narrow str.format", "{{ '{:>4}'.format('a') }}", "   a"),
    ("a float times an integer is no repetition", "{{ 1.5 * 4 }}", "6.0"),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in RENDERED], ids=[c[0] for c in RENDERED]
)
def test_rendered(source: str, expected: str) -> None:
    assert _render(source) == expected


REASONS: list[tuple[str, BaseException, str]] = [
    (
        "recursion reads as a macro calling itself",
        RecursionError("maximum recursion depth exceeded"),
        "comment.j2: recursion too deep (a macro calling itself without end?)",
    ),
    ("memory runs out", MemoryError(), "comment.j2: ran out of memory"),
    (
        "any other error is named with its type, its spaces folded",
        ZeroDivisionError("division\n  by zero"),
        "comment.j2: ZeroDivisionError: division by zero",
    ),
    (
        "a long reason is cut to 300 characters",
        ValueError("x" * 400),
        "comment.j2: ValueError: " + "x" * (297 - len("ValueError: ")) + "...",
    ),
]


@pytest.mark.parametrize(("exc", "expected"), [c[1:] for c in REASONS], ids=[c[0] for c in REASONS])
def test_refusal_of_an_error_raised_outside_a_template(exc: BaseException, expected: str) -> None:
    assert refusal("comment.j2", exc) == expected


def test_printf_widths_accepts_the_budget_itself() -> None:
    printf_widths(f"%{MAX_WIDTH}d %.{MAX_WIDTH}f")
    with pytest.raises(TemplateBudget, match=f"^format width {MAX_WIDTH + 1} is past {MAX_WIDTH}$"):
        printf_widths(f"%{MAX_WIDTH + 1}d")
