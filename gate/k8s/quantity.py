"""Kubernetes resource quantities, valued exactly as k8s.io/apimachinery's resource.Quantity does.

The only module that knows quantity units. ``parse_quantity`` gives an exact ``Fraction``;
``scheduler_amount`` gives the integer kube-scheduler compares (millicores for cpu, whole units
otherwise, both rounded up). Example: ``parse_quantity("1.5Gi") == 1610612736``,
``scheduler_amount("cpu", 0.2) == 200`` and ``scheduler_amount("memory", "1m") == 1``.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from gate.errors import QuantityError

__all__ = [
    "format_amount",
    "milli_value",
    "nonnegative_quantity",
    "parse_quantity",
    "scheduler_amount",
    "whole_value",
]

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}  # powers of two
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
# ParseQuantity's grammar. A bare "E" is exa, "E3" an exponent; the number may have no digit at all.
_GRAMMAR = re.compile(
    r"([+-]?)([0-9]*)(?:\.([0-9]*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?|[eE][+-]?[0-9]+)"
)
_NANO = 10**9
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# UnmarshalJSON applies strings.TrimSpace to the raw JSON text of the value. JSON escapes control
# characters, and Go's encoder (kubectl, helm) also U+2028/U+2029, so only these spaces arrive
# unescaped and get trimmed: "1\n" reaches ParseQuantity as the characters `1\n` and is rejected.
_JSON_TRIMMED = " \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
_JSON_TRIMMED += "\u202f\u205f\u3000"
# Upstream keeps any int32 exponent, but near +-2**31 its decimal arithmetic never returns ("hang"
# in upstream's decode corpus) and past 10**19 every int64 accessor overflows. Refuse magnitudes
# beyond this many decimal digits rather than build huge integers; it also keeps every result
# printable under CPython's 4300-digit int/str conversion limit.
_MAX_DIGITS = 4000
_TOO_LARGE = 10**_MAX_DIGITS


def _shown(raw: object) -> str:
    """The offending value for a message: JSON text for a string, else a number or a type name."""
    if isinstance(raw, str):
        text = json.dumps(raw, ensure_ascii=False)
    else:  # repr() of an arbitrary object may be huge, or fail on a long int inside it
        text = repr(raw) if isinstance(raw, (int, float)) else f"<{type(raw).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def _int32(value: int) -> int:
    """Go's int32(value): the suffixer parses exponents as int64 and truncates them."""
    return (value + 2**31) % 2**32 - 2**31


def _parse_text(text: str, raw: object) -> Fraction:
    match = _GRAMMAR.fullmatch(text)
    if not text or match is None:
        raise QuantityError(f"invalid quantity {_shown(raw)}")
    sign, whole, frac, suffix = match.group(1), match.group(2), match.group(3) or "", match.group(4)
    power2 = _BINARY.get(suffix, 0)
    if power2:
        power10 = -len(frac)
    else:
        exponent = _DECIMAL.get(suffix)
        if exponent is None:
            exponent = int(suffix[1:])
            if not _INT64_MIN <= exponent <= _INT64_MAX:  # strconv.ParseInt(s, 10, 64) fails
                raise QuantityError(f"invalid quantity {_shown(raw)}")
        power10 = _int32(_int32(exponent) - len(frac))  # 1e4294967297 is 10 upstream
    if not whole + frac:
        # A digit-less number ("", ".", "-", "E", "Mi") is zero on upstream's int64 fast path,
        # which needs scale >= nano or a binary suffix up to Ti; elsewhere inf.Dec finds no digit.
        fast_path = power2 <= 40 if power2 else power10 >= -9
        if fast_path:
            return Fraction(0)
        raise QuantityError(f"invalid quantity {_shown(raw)}")
    significant = (whole + frac).lstrip("0")
    if not significant:
        return Fraction(0)
    digits = significant.rstrip("0")
    power10 += len(significant) - len(digits)  # "1.000" is 1: trailing zeros join the exponent
    magnitude = len(digits) + power10  # 10**(magnitude-1) <= |number| < 10**magnitude
    if power2 and magnitude > 19:  # the number is over 2**63 before the binary factor: capped
        value = Fraction(_INT64_MAX)
    elif magnitude > _MAX_DIGITS or power10 < -_MAX_DIGITS:
        raise QuantityError(f"quantity {_shown(raw)} is out of range")
    else:
        # Decimal, not int(): int() refuses digit strings longer than 4300 characters.
        exact = Fraction(Decimal(digits)) * 2**power2 * Fraction(10) ** power10
        # Precision finer than a nano rounds up, away from zero ("0.9n" and "-0.1n" are +-1n);
        # binary values are then capped at 2**63-1 ("8Ei"); decimal ones are never capped.
        value = Fraction(math.ceil(exact * _NANO), _NANO)
        if power2 and value > _INT64_MAX:
            value = Fraction(_INT64_MAX)
    return -value if sign == "-" else value


@lru_cache(maxsize=4096)
def _parse_string(raw: str) -> Fraction:
    # Manifests and clusters repeat a few dozen quantities ("100m", "128Mi") thousands of
    # times; a Fraction is immutable, so one parse serves them all.
    return _parse_text(raw.strip(_JSON_TRIMMED), raw)


def parse_quantity(raw: object) -> Fraction:
    """The exact value the API server stores for a quantity field decoded from JSON or YAML.

    Strings follow ParseQuantity after UnmarshalJSON's trimming of surrounding spaces; an int is
    exact; a float is read through its shortest decimal text, as Go's encoder sends it, so YAML
    ``cpu: 0.2`` is exactly 1/5 (``Decimal(0.2)`` would be 0.2000000000000000111...). ``None``
    is zero, as UnmarshalJSON reads JSON ``null``. Anything else raises ``QuantityError``.

    >>> parse_quantity("1.5Gi"), parse_quantity(" 100m "), parse_quantity("0.1n")
    (Fraction(1610612736, 1), Fraction(1, 10), Fraction(1, 1000000000))
    """
    if raw is None:
        return Fraction(0)
    if isinstance(raw, bool):  # before int: bool is an int subclass, and JSON true is no number
        raise QuantityError(f"invalid quantity {raw!r}")
    if isinstance(raw, int):
        if abs(raw) >= _TOO_LARGE:
            raise QuantityError(f"integer quantity of {raw.bit_length()} bits is out of range")
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(f"invalid quantity {raw!r}")
        return _parse_text(float.__repr__(raw), raw)  # float.__repr__: subclasses may override
    if isinstance(raw, str):
        return _parse_string(raw)
    raise QuantityError(f"invalid quantity {_shown(raw)}: not a string or a number")


NEGATIVE = "must be greater than or equal to 0"
"""The API server's words for a negative quantity: ``isNegativeErrorMsg`` of
``ValidateNonnegativeQuantity`` (kubernetes ``pkg/apis/core/validation/validation.go``),
which ``ValidateResourceQuantityValue`` applies to every container's requests and limits,
a pod's ``resources`` and its ``overhead``."""


def nonnegative_quantity(raw: object) -> Fraction:
    """:func:`parse_quantity`, refusing a negative value as the API server does: a pod
    with ``cpu: "-1"`` is never created, so it is no workload to judge.

    >>> nonnegative_quantity("-5Mi")
    Traceback (most recent call last):
    ...
    gate.errors.QuantityError: quantity "-5Mi" must be greater than or equal to 0
    """
    value = parse_quantity(raw)
    if value < 0:
        raise QuantityError(f"quantity {_shown(raw)} {NEGATIVE}")
    return value


def milli_value(q: Fraction) -> int:
    """MilliValue(): ceil(q * 1000), e.g. ``milli_value(Fraction(1, 10**4)) == 1``.

    Exact and unbounded. For negative values upstream's rounding depends on the internal
    representation (away from zero on the int64 path); this is always the ceiling. The API
    rejects negative requests, so the scheduler never sees one.
    """
    # ceil(n * 1000 / d) in integers: equal to math.ceil(q * 1000) (the denominator is
    # positive), without building the product's Fraction and reducing it.
    return -(-q.numerator * 1000 // q.denominator)


def whole_value(q: Fraction) -> int:
    """Value(): ceil(q), e.g. ``whole_value(Fraction(1, 1000)) == 1`` (memory ``1m`` is 1 byte).

    Exact and unbounded; negatives as for ``milli_value``.
    """
    return math.ceil(q)


def scheduler_amount(resource: str, raw: object) -> int:
    """The integer NodeResourcesFit compares: millicores for ``cpu``, whole units otherwise.

    ``raw`` is a value ``parse_quantity`` accepts, or a ``Fraction`` it returned. The scheduler
    rounds after summing quantities, so pass a sum of exact values rather than summing
    amounts (the values it sums are stored ones, already rounded up to thousandths by the
    API server; see ``gate.k8s.completion``). Raises ``QuantityError`` past the int64 range,
    where upstream's MilliValue()/Value() overflow into undefined results.

    >>> scheduler_amount("cpu", "0.0001"), scheduler_amount("memory", "1Gi")
    (1, 1073741824)
    """
    q = raw if isinstance(raw, Fraction) else parse_quantity(raw)
    amount = milli_value(q) if resource == "cpu" else whole_value(q)
    if not _INT64_MIN <= amount <= _INT64_MAX:
        shown = "" if isinstance(raw, Fraction) else f" {_shown(raw)}"
        raise QuantityError(f"{resource} quantity{shown} overflows the scheduler's int64")
    return amount


def format_amount(resource: str, amount: int) -> str:
    """Quantity text for a ``scheduler_amount`` result, parsing back to the same amount.

    cpu millicores print as cores when whole (``2000 -> "2"``, else ``"500m"``); other amounts
    take the largest binary suffix dividing them (``536870912 -> "512Mi"``), else the largest
    decimal one (``5000000000 -> "5G"``), else the bare integer. Zero is ``"0"``.
    """
    if resource == "cpu":
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if amount == 0:
        return "0"
    for suffixes, base in ((_BINARY, 2), (_DECIMAL, 10)):
        for suffix, power in sorted(suffixes.items(), key=lambda item: -item[1]):
            unit = base**power
            if power > 0 and amount % unit == 0:
                return f"{amount // unit}{suffix}"
    return str(amount)


def exact_text(q: Fraction) -> str:
    """Quantity text that parses back to exactly ``q``.

    Every parsed quantity, and every sum of them, has a denominator of the form 2^a 5^b
    (decimal exponents and suffixes only divide by powers of ten), so a finite decimal
    always exists. Used where defaulting copies a computed amount into the pod.
    """
    sign = "-" if q < 0 else ""
    q = abs(q)
    scale = 0
    while (q * 10**scale).denominator != 1:
        scale += 1
        if scale > 64:
            raise ValueError(f"{q} has no finite decimal form")
    digits = str((q * 10**scale).numerator)
    if scale == 0:
        return sign + digits
    digits = digits.rjust(scale + 1, "0")
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"
"""resource.Quantity's formats: what its String() prints a value in."""
_DECIMAL_SUFFIX = {power: suffix for suffix, power in _DECIMAL.items()}
_BINARY_SUFFIX = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def quantity_format(raw: object) -> str:
    """The format ParseQuantity gives a quantity: BinarySI for a binary suffix (``Ki`` ...),
    DecimalExponent for an exponent (``1e3``), DecimalSI otherwise (a bare number, ``m``,
    ``k``, ``E``). A JSON number is decoded from its text, so it is DecimalSI unless its text
    has an exponent.

    >>> [quantity_format(q) for q in ("512Mi", "1e3", "100m", 2)]
    ['BinarySI', 'DecimalExponent', 'DecimalSI', 'DecimalSI']
    """
    if isinstance(raw, float) and not isinstance(raw, bool):
        raw = float.__repr__(raw)
    return _format_of_text(raw) if isinstance(raw, str) else DECIMAL_SI


@lru_cache(maxsize=4096)
def _format_of_text(raw: str) -> str:
    # As with _parse_string: a few dozen quantities repeat across a cluster's objects.
    match = _GRAMMAR.fullmatch(raw.strip(_JSON_TRIMMED))
    suffix = match.group(4) if match is not None else ""
    if suffix in _BINARY:
        return BINARY_SI
    return DECIMAL_SI if suffix in _DECIMAL else DECIMAL_EXPONENT


def go_quantity_text(value: Fraction, fmt: str) -> str:
    """resource.Quantity.String() of ``value`` held in ``fmt`` (CanonicalizeBytes): BinarySI
    prints whole multiples of 1024 with the largest binary suffix, and falls back to DecimalSI
    below 1024 or for a fraction; DecimalSI strips trailing zeros into an exponent lowered to a
    multiple of three and names it with a suffix; DecimalExponent writes ``e<exponent>``.
    Values are nano-exact (ParseQuantity rounds finer precision up).

    >>> written = ("1000m", "1.5", "1536Mi", "1.5Gi", "0.5Ki", "1e3", "12e2")
    >>> [go_quantity_text(parse_quantity(q), quantity_format(q)) for q in written]
    ['1', '1500m', '1536Mi', '1536Mi', '512', '1e3', '1200']
    """
    if value == 0:
        return "0"
    sign, value = ("-", -value) if value < 0 else ("", value)
    if fmt == BINARY_SI and value >= 1024 and value.denominator == 1:
        amount, power = value.numerator, 0
        while amount % 1024 == 0 and power < len(_BINARY_SUFFIX) - 1:
            amount, power = amount // 1024, power + 1
        return f"{sign}{amount}{_BINARY_SUFFIX[power]}"
    exponent = 0
    while value.denominator != 1:
        value, exponent = value * 10, exponent - 1
    mantissa = value.numerator
    while mantissa % 10 == 0:
        mantissa, exponent = mantissa // 10, exponent + 1
    # AsCanonicalBytes lowers the exponent to a multiple of three: 15e-1 is 1500m
    step = exponent % 3
    mantissa, exponent = mantissa * 10**step, exponent - step
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{mantissa}" + (f"e{exponent}" if exponent else "")
    while exponent > 18:  # past E no suffix is left: the mantissa keeps the rest
        mantissa, exponent = mantissa * 1000, exponent - 3
    return f"{sign}{mantissa}{_DECIMAL_SUFFIX[exponent]}"
