"""A user's comment template is untrusted input with a budget.

jinja2's sandbox keeps a template from reading anything but its context; it does not keep
one from building a value too large to hold. A single operation can be the whole cost, and
one C call (``10 ** 300000000``, ``"a" * 3000000000``, ``"%2000000000d" % 1``) holds the
interpreter until it ends, so no deadline can stop it: each such operation is checked
before it runs, against the limits below. Time (:data:`TEMPLATE_SECONDS`) and output
(:data:`TEMPLATE_OUTPUT`) are bounded around the rendering; recursion by the interpreter's
own limit, turned into the same one-line refusal.

A refusal names the template and its line:
``comment.j2, line 3: an integer of more than 4096 bits``.
"""

from __future__ import annotations

import re
import string
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from jinja2 import TemplateError, TemplateSyntaxError
from jinja2.filters import do_format
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

TEMPLATE_SECONDS = 10.0
"""The longest a user's template may take to render once."""

TEMPLATE_OUTPUT = 8 << 20
"""The most characters a user's template may render (the comment is then cut to fit)."""

MAX_INT_BITS = 4096
"""The largest integer a template may compute (about 1,233 decimal digits)."""

MAX_REPEAT = TEMPLATE_OUTPUT
"""The longest string or list a template may build by repetition (``"-" * 80``)."""

MAX_WIDTH = 10_000
"""The widest a ``format`` (filter, ``%`` or ``str.format``) may pad a field."""

TEMPLATE_NAME = "<template>"
"""The file name jinja2 gives a template compiled from a string; its frames carry it."""

_WIDTHS = re.compile(r"%[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_SPEC_NUMBERS = re.compile(r"\d+")


class TemplateBudget(TemplateError):
    """A user's template went past one of its limits."""


def printf_widths(text: str) -> None:
    """Refuse a ``%`` format whose width or precision passes :data:`MAX_WIDTH` (or is
    ``*``, given by an argument).

    >>> printf_widths("%5d and %-20.3f")
    >>> printf_widths("%2000000000d")
    Traceback (most recent call last):
    ...
    gate.reports.sandbox.TemplateBudget: format width 2000000000 is past 10000
    """
    for width, precision in _WIDTHS.findall(text):
        for number in (width, precision):
            if number == "*" or (number and int(number) > MAX_WIDTH):
                raise TemplateBudget(f"format width {number} is past {MAX_WIDTH}")


def _format_spec_widths(text: str) -> None:
    """The same for ``str.format``: every number in every field's spec, and no nested
    field (``{:{width}}``) whose width is only known later."""
    for _, name, spec, _ in string.Formatter().parse(text):
        if name is None or not spec:
            continue
        if "{" in spec:
            raise TemplateBudget("a format width given by another field is not allowed")
        for number in _SPEC_NUMBERS.findall(spec):
            if int(number) > MAX_WIDTH:
                raise TemplateBudget(f"format width {number} is past {MAX_WIDTH}")


def _int_bits(value: object) -> int | None:
    return value.bit_length() if isinstance(value, int) and not isinstance(value, bool) else None


def _check_power(left: object, right: object) -> None:
    base, exponent = _int_bits(left), right if isinstance(right, int) else None
    if base is None or exponent is None or exponent <= 0 or base <= 1:
        return
    if (base - 1) * exponent > MAX_INT_BITS:
        raise TemplateBudget(f"an integer of more than {MAX_INT_BITS} bits")


def _check_product(left: object, right: object) -> None:
    left_bits, right_bits = _int_bits(left), _int_bits(right)
    if left_bits is not None and right_bits is not None:
        if left_bits + right_bits - 1 > MAX_INT_BITS:
            raise TemplateBudget(f"an integer of more than {MAX_INT_BITS} bits")
        return
    for sized, count in ((left, right), (right, left)):
        if isinstance(sized, (str, list, tuple)) and _int_bits(count) is not None:
            assert isinstance(count, int)
            if len(sized) * count > MAX_REPEAT:
                raise TemplateBudget(f"a repetition longer than {MAX_REPEAT} items")


def bounded_format(value: Any, *args: Any, **kwargs: Any) -> str:
    """jinja2's ``format`` filter, within :data:`MAX_WIDTH`."""
    printf_widths(str(value))
    return str(do_format(value, *args, **kwargs))


class BudgetedSandbox(ImmutableSandboxedEnvironment):
    """jinja2's immutable sandbox, checking the operators and calls that can build a
    value too large to hold before they run."""

    intercepted_binops = frozenset({"**", "*", "%"})

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "**":
            _check_power(left, right)
        elif operator == "*":
            _check_product(left, right)
        elif operator == "%" and isinstance(left, str):
            printf_widths(left)
        return super().call_binop(context, operator, left, right)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """jinja2's sandboxed ``str.format``, refusing a width past :data:`MAX_WIDTH`."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        _format_spec_widths(value.__self__)
        return wrapped


def template_line(exc: BaseException) -> int | None:
    """The template's line where ``exc`` was raised: a syntax error's own, else the last
    frame of the traceback jinja2 rewrote to point into the template."""
    if isinstance(exc, TemplateSyntaxError):
        return exc.lineno
    frames: Sequence[traceback.FrameSummary] = traceback.extract_tb(exc.__traceback__)
    lines = [f.lineno for f in frames if f.filename == TEMPLATE_NAME and f.lineno]
    return lines[-1] if lines else None


def refusal(name: str, exc: BaseException) -> str:
    """One line: the template, its line when known, and why it was refused."""
    line = template_line(exc)
    where = f"{name}, line {line}" if line else name
    if isinstance(exc, RecursionError):
        why = "recursion too deep (a macro calling itself without end?)"
    elif isinstance(exc, MemoryError):
        why = "ran out of memory"
    elif isinstance(exc, (TemplateBudget, TemplateSyntaxError)):
        why = exc.message or type(exc).__name__
    else:
        why = f"{type(exc).__name__}: {exc}"
    why = " ".join(why.split())
    return f"{where}: {why if len(why) <= 300 else why[:297] + '...'}"
