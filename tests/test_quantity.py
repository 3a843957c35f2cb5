"""gate.k8s.quantity against upstream k8s.io/apimachinery pkg/api/resource behaviour.

Tables follow upstream's quantity_test.go (the function is named above each table) and the
decode corpus upstream recorded from ParseQuantity of v1.37.0
(testdata/quantity_decode_corpus.json, checked by quantity_decode_corpus_test.go).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gate.errors import QuantityError
from gate.k8s.quantity import (
    exact_text,
    format_amount,
    milli_value,
    parse_quantity,
    scheduler_amount,
    whole_value,
)

MAX_INT64 = 2**63 - 1
KI, MI, GI, TI, PI, EI = (2**p for p in (10, 20, 30, 40, 50, 60))
SUFFIXES = {
    "": 1, "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": KI, "Mi": MI, "Gi": GI, "Ti": TI, "Pi": PI, "Ei": EI,
}  # fmt: skip


def dec(mantissa: int, exponent: int) -> Fraction:
    """mantissa * 10**exponent, like upstream's decQuantity(mantissa, exponent, _)."""
    return Fraction(mantissa) * Fraction(10) ** exponent


def ids(cases: Sequence[tuple[object, ...]]) -> list[str]:
    return [repr(case[0]) for case in cases]


# TestQuantityParse: the valid table (values; formats are not modelled).
UPSTREAM_VALID: list[tuple[str, Fraction]] = [
    ("0", dec(0, 0)), ("0n", dec(0, 0)), ("0u", dec(0, 0)), ("0m", dec(0, 0)),
    ("0Ki", dec(0, 0)), ("0k", dec(0, 0)), ("0Mi", dec(0, 0)), ("0M", dec(0, 0)),
    ("0Gi", dec(0, 0)), ("0G", dec(0, 0)), ("0Ti", dec(0, 0)), ("0T", dec(0, 0)),
    ("1", dec(1, 0)),
    ("1Ki", dec(1024, 0)), ("8Ki", dec(8 * KI, 0)), ("7Mi", dec(7 * MI, 0)),
    ("6Gi", dec(6 * GI, 0)), ("5Ti", dec(5 * TI, 0)), ("4Pi", dec(4 * PI, 0)),
    ("3Ei", dec(3 * EI, 0)), ("10Ti", dec(10 * TI, 0)), ("100Ti", dec(100 * TI, 0)),
    ("5n", dec(5, -9)), ("4u", dec(4, -6)), ("3m", dec(3, -3)), ("9", dec(9, 0)),
    ("8k", dec(8, 3)), ("50k", dec(5, 4)), ("7M", dec(7, 6)), ("6G", dec(6, 9)),
    ("5T", dec(5, 12)), ("40T", dec(4, 13)), ("300T", dec(3, 14)), ("2P", dec(2, 15)),
    ("1E", dec(1, 18)),
    ("1E-3", dec(1, -3)), ("1e3", dec(1, 3)), ("1E6", dec(1, 6)), ("1e9", dec(1, 9)),
    ("1E12", dec(1, 12)), ("1e15", dec(1, 15)), ("1E18", dec(1, 18)),
    ("1e14", dec(1, 14)), ("1e13", dec(1, 13)), ("100.035k", dec(100035, 0)),
    ("0.001", dec(1, -3)), ("0.0005k", dec(5, -1)), ("0.005", dec(5, -3)),
    ("0.05", dec(5, -2)), ("0.5", dec(5, -1)), ("0.00050k", dec(5, -1)),
    ("0.00500", dec(5, -3)), ("0.05000", dec(5, -2)), ("0.50000", dec(5, -1)),
    ("0.5e0", dec(5, -1)), ("0.5e-1", dec(5, -2)), ("0.5e-2", dec(5, -3)),
    ("10.035M", dec(10035, 3)),
    ("1.2e3", dec(12, 2)), ("1.3E+6", dec(13, 5)), ("1.40e9", dec(14, 8)),
    ("1.53E12", dec(153, 10)), ("1.6e15", dec(16, 14)), ("1.7E18", dec(17, 17)),
    ("9.01", dec(901, -2)), ("8.1k", dec(81, 2)), ("7.123456M", dec(7123456, 0)),
    ("6.987654321G", dec(6987654321, 0)), ("5.444T", dec(5444, 9)), ("40.1T", dec(401, 11)),
    ("300.2T", dec(3002, 11)), ("2.5P", dec(25, 14)), ("1.01E", dec(101, 16)),
    # Things that saturate/round
    ("3.001n", dec(4, -9)), ("1.1E-9", dec(2, -9)), ("0.0000000001", dec(1, -9)),
    ("0.0000000005", dec(1, -9)), ("0.00000000050", dec(1, -9)), ("0.5e-9", dec(1, -9)),
    ("0.9n", dec(1, -9)), ("0.00000012345", dec(124, -9)), ("0.00000012354", dec(124, -9)),
    ("9Ei", dec(MAX_INT64, 0)), ("9223372036854775807Ki", dec(MAX_INT64, 0)),
    ("12E", dec(12, 18)),
    # We'll accept fractional binary stuff, too.
    ("100.035Ki", dec(10243584, -2)), ("0.5Mi", dec(524288, 0)),
    ("0.05Gi", dec(536870912, -1)), ("0.025Ti", dec(274877906944, -1)),
    # Things written by trolls
    ("0.000000000001Ki", dec(2, -9)), (".001", dec(1, -3)), (".0001k", dec(100, -3)),
    ("1.", dec(1, 0)), ("1.G", dec(1, 9)),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), UPSTREAM_VALID, ids=ids(UPSTREAM_VALID))
def test_upstream_valid_table(text: str, expected: Fraction) -> None:
    # Upstream runs the table as written, with "-" prepended and with "+" prepended.
    assert parse_quantity(text) == expected
    assert parse_quantity("-" + text) == -expected
    assert parse_quantity("+" + text) == expected


# TestParseQuantity: the int64 rails and 18/19/20-digit edges, decimal values never capped.
UPSTREAM_LARGE: list[tuple[str, Fraction]] = [
    ("-999999999999999999", dec(-999999999999999999, 0)),
    ("999999999999999999.1", dec(9999999999999999991, -1)),
    ("9999999999999999999", dec(9999999999999999999, 0)),
    ("-1E", dec(-1, 18)),
    ("1.0E", dec(1, 18)),
    ("9999999999999999999000m", dec(9999999999999999999, 0)),
    ("1.0000000000000000001E", dec(10000000000000000001, -1)),
    ("-1.000000000000000001E", dec(-1000000000000000001, 0)),
    ("10.000000000000000001E", dec(10000000000000000001, 0)),
    ("-10000000000000000000000m", dec(-1, 19)),
    ("-9223372036854775809", dec(-9223372036854775809, 0)),
    ("9223372036854775807.0", dec(MAX_INT64, 0)),
    ("-9223372036854775808000m", dec(-(2**63), 0)),
    ("9223372036854775808.1", dec(92233720368547758081, -1)),
]


@pytest.mark.parametrize(("text", "expected"), UPSTREAM_LARGE, ids=ids(UPSTREAM_LARGE))
def test_upstream_large_values_are_exact(text: str, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


# TestQuantityParseEmit: fractions of a binary suffix, down to the nano rounding.
@pytest.mark.parametrize(
    ("text", "expected"),
    [(".001Ki", dec(1024, -3)), (".000001Ki", dec(1024, -6)), (".000000001Ki", dec(1024, -9)),
     (".000000000001Ki", dec(2, -9)), ("1024Mi", dec(GI, 0)), ("1000M", dec(1, 9))],
    ids=repr,
)  # fmt: skip
def test_upstream_parse_emit_values(text: str, expected: Fraction) -> None:
    assert parse_quantity(text) == expected
    assert parse_quantity("-" + text) == -expected


# Invalid inputs: TestQuantityParse's invalid table, the malformed spellings of the decode corpus,
# and the usual mistakes (units in the wrong case, byte units, a missing exponent).
UPSTREAM_INVALID = [
    "", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-",
    "1.1.1", "1KB", "1Mb", "1mi", "e", "1e", "1e-", " ", "1+1", "1K",
    "1ki", "1KI", "1KiB", "1Zi", "1Z", "1\u00b5", "1\u03bc", "1 Ki", "1e+", "1e1.5", "1e.5",
    "1e3k", "1E3Ki", "1e+-3", "1..5", "1-", "++1", "1,5", "1_000", "0x10", "1/2", "\uff11",
    "\u0663", "\u22121", "1\x00", "Inf", "+Inf", "NaN", "Infinity", "1EE", "1.5.", "--1",
    # The exponent must parse as an int64 (strconv.ParseInt).
    "1e9223372036854775808", "0e9223372036854775808", "1e-9223372036854775809",
    "1e18446744073709551616", "0e99999999999999999999",
    # A digit-less number off upstream's int64 fast path: inf.Dec finds no digit.
    "Pi", "Ei", ".Pi", "-Ei", "e-10", ".e-10", "e2147483648",
]  # fmt: skip


@pytest.mark.parametrize("text", UPSTREAM_INVALID, ids=repr)
def test_upstream_invalid(text: str) -> None:
    with pytest.raises(QuantityError, match="invalid quantity"):
        parse_quantity(text)


def test_error_names_the_text() -> None:
    with pytest.raises(QuantityError, match=r'^invalid quantity "1KB"$'):
        parse_quantity("1KB")


# quantity_decode_corpus.json (v1.37.0): what ParseQuantity really returns at the edges.
CORPUS: list[tuple[str, Fraction]] = [
    # A number with no digit at all is zero on the int64 fast path: "E" alone, "Mi", ".", "-".
    ("E", dec(0, 0)), ("n", dec(0, 0)), ("Ki", dec(0, 0)), ("Ti", dec(0, 0)), (".", dec(0, 0)),
    ("-", dec(0, 0)), ("+.", dec(0, 0)), (".m", dec(0, 0)), ("e5", dec(0, 0)),
    ("E3", dec(0, 0)), ("e-9", dec(0, 0)), ("e2147483647", dec(0, 0)),
    ("e-4294967297", dec(0, 0)),
    # Exponents are parsed as int64 and truncated to int32.
    ("1e4294967297", dec(1, 1)), ("1e-4294967297", dec(1, -1)), ("1e8589934592", dec(1, 0)),
    ("1e9223372036854775807", dec(1, -1)), ("1e-9223372036854775808", dec(1, 0)),
    ("0.0009765625e-4294967297", dec(97657, -9)), ("01e03", dec(1, 3)), ("1e+21", dec(1, 21)),
    # A zero with digits is zero at any exponent.
    ("0e-2147483648", dec(0, 0)), ("0.0e2147483648", dec(0, 0)), ("0Ei", dec(0, 0)),
    ("-0e-9223372036854775808", dec(0, 0)),
    # Nano rounding, away from zero.
    ("123e-11", dec(2, -9)), ("-1e-17", dec(-1, -9)), ("1e-1000", dec(1, -9)),
    ("0.0000000001Ki", dec(103, -9)), ("0.0000000001Gi", dec(107374183, -9)),
    ("1.0000000001Ki", dec(1024000000103, -9)), ("123.456789012m", dec(12345679, -8)),
    ("9223372036854775.807e-19", dec(922338, -9)),
    # Binary values cap at 2**63-1 after rounding; decimal values are never capped.
    ("0.0009765625Ki", dec(1, 0)), ("7Ei", dec(7 * EI, 0)), ("8Ei", dec(MAX_INT64, 0)),
    ("-8Ei", dec(-MAX_INT64, 0)), ("9223372036854775.808Ki", dec(MAX_INT64, 0)),
    ("123.456789012Ei", dec(MAX_INT64, 0)), ("1" + "0" * 5000 + "Ki", dec(MAX_INT64, 0)),
    ("9223372036854775.807e1000", dec(9223372036854775807, 997)),
    ("1" + "0" * 99, dec(1, 99)),
    ("1." + "0" * 5000, dec(1, 0)),  # long, but trailing zeros do not make it large
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CORPUS, ids=[c[0][:40] for c in CORPUS])
def test_decode_corpus(text: str, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "1e2147483647",  # upstream: 10**2147483647, beyond every int64 accessor
        "0.000000001e-2147483646",  # upstream: 10**2147483641 (the exponent wraps)
        "1e-2147483000",  # upstream: never returns ("hang" in the corpus)
        "9223372036854775.807e-2147483649",  # upstream: never returns
        "1e5000",
        "0." + "0" * 5000 + "1",
    ],
    ids=lambda t: t[:32],
)
def test_absurd_magnitudes_are_refused(text: str) -> None:
    with pytest.raises(QuantityError, match="out of range"):
        parse_quantity(text)


def test_absurd_integer_is_refused() -> None:
    with pytest.raises(QuantityError, match="out of range"):
        parse_quantity(10**5000)


# TestJSONWhitespace: UnmarshalJSON trims the raw JSON text (ParseQuantity alone rejects " 1").
@pytest.mark.parametrize(
    ("raw", "expected"),
    [(" 1", 1), ("1 ", 1), (" -1", -1), ("  100m  ", Fraction(1, 10)),
     ("\u00a01Gi\u3000", GI), ("\x851\u2009", 1)],
    ids=repr,
)  # fmt: skip
def test_surrounding_spaces_are_trimmed(raw: str, expected: Fraction) -> None:
    assert parse_quantity(raw) == expected


@pytest.mark.parametrize("raw", ["\t1", "1\n", "1\r\n", "\v1", "1\f", "\u20281", "1 Gi"], ids=repr)
def test_characters_json_escapes_are_not_trimmed(raw: str) -> None:
    # JSON writes these as escapes (Go's encoder also escapes U+2028), so TrimSpace sees a
    # backslash, not a space, and ParseQuantity rejects the text.
    with pytest.raises(QuantityError):
        parse_quantity(raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(2, Fraction(2)), (-3, Fraction(-3)), (10**30, Fraction(10**30)), (0.2, Fraction(1, 5)),
     (0.5, Fraction(1, 2)), (1.5e-07, dec(150, -9)), (1e-10, dec(1, -9)), (-0.0, Fraction(0)),
     (1e21, dec(1, 21)), (0.30000000000000004, dec(300000001, -9)), (None, Fraction(0))],
    ids=repr,
)  # fmt: skip
def test_json_numbers_and_null(raw: object, expected: Fraction) -> None:
    # A float reads as its shortest decimal text, which is what Go's encoder sends; JSON null
    # is the zero quantity in UnmarshalJSON.
    assert parse_quantity(raw) == expected


def _id_of(raw: object) -> str:
    """``repr``, except for a bare object, whose repr holds its address and would differ
    from one collecting process to the next."""
    return "object()" if type(raw) is object else repr(raw)


@pytest.mark.parametrize(
    "raw",
    [True, False, float("inf"), float("-inf"), float("nan"), [1], {"cpu": 1}, b"1",
     Decimal("1"), Fraction(1), object()],
    ids=_id_of,
)  # fmt: skip
def test_other_types_are_rejected(raw: object) -> None:
    with pytest.raises(QuantityError, match="invalid quantity"):
        parse_quantity(raw)


# Pitfalls: the values a fit check most often gets wrong.
@pytest.mark.parametrize(
    ("resource", "raw", "amount"),
    [("cpu", 0.2, 200), ("cpu", "0.2", 200), ("cpu", 0.0001, 1), ("cpu", "100u", 1),
     ("cpu", 0.5, 500), ("cpu", "1", 1000), ("cpu", 2, 2000), ("cpu", "1.5", 1500),
     ("memory", "1m", 1), ("memory", "1Gi", 1073741824), ("memory", "1G", 10**9),
     ("memory", "1e9", 10**9), ("memory", "1E", 10**18), ("memory", "1k", 1000),
     ("memory", "1Ki", 1024), ("memory", "1.5Gi", 1610612736), ("memory", 0.5, 1),
     ("pods", "110", 110), ("nvidia.com/gpu", 1, 1), ("hugepages-2Mi", "4Mi", 4 * MI),
     ("memory", "8Ei", MAX_INT64), ("cpu", "9223372036854775807m", MAX_INT64),
     ("memory", None, 0)],
    ids=lambda v: repr(v) if not isinstance(v, int) else str(v),
)  # fmt: skip
def test_scheduler_amount(resource: str, raw: object, amount: int) -> None:
    assert scheduler_amount(resource, raw) == amount


def test_float_text_not_binary_value() -> None:
    # Decimal(0.2) is 0.2000000000000000111..., which rounds up to 201m.
    assert math.ceil(Fraction(Decimal.from_float(0.2)) * 1000) == 201
    assert scheduler_amount("cpu", 0.2) == 200


def test_scheduler_rounds_after_summing() -> None:
    total = parse_quantity("100u") + parse_quantity("100u")
    assert scheduler_amount("cpu", total) == 1
    assert 2 * scheduler_amount("cpu", "100u") == 2


@pytest.mark.parametrize(
    ("resource", "raw"),
    [("cpu", "1e16"), ("cpu", "8Ei"), ("cpu", "9223372036854775808m"),
     ("memory", "9223372036854775808"), ("memory", "1e19"), ("memory", "-9223372036854775809")],
    ids=repr,
)  # fmt: skip
def test_scheduler_amount_beyond_int64_is_refused(resource: str, raw: str) -> None:
    # Upstream's MilliValue()/Value() silently overflow here (wrap, 0 or saturate by version).
    with pytest.raises(QuantityError, match="overflows"):
        scheduler_amount(resource, raw)


# TestScaledValue and TestQuantityRoundUp, as Value() and MilliValue().
@pytest.mark.parametrize(
    ("text", "milli", "whole"),
    [("1n", 1, 1), ("1u", 1, 1), ("1m", 1, 1), ("1", 1000, 1), ("9.01", 9010, 10),
     ("1.5", 1500, 2), ("0", 0, 0), ("1Ki", 1024000, 1024), ("0.1n", 1, 1),
     ("-9.01", -9010, -9), ("-1.5", -1500, -1), ("-0.0001", 0, 0)],
    ids=repr,
)  # fmt: skip
def test_milli_and_whole_values(text: str, milli: int, whole: int) -> None:
    # Negatives: the ceiling. Upstream rounds those away from zero on its int64 path, but the API
    # rejects negative requests and allocatable, so the scheduler never compares one.
    q = parse_quantity(text)
    assert (milli_value(q), whole_value(q)) == (milli, whole)


@pytest.mark.parametrize(
    ("resource", "amount", "text"),
    [("cpu", 0, "0"), ("cpu", 1, "1m"), ("cpu", 500, "500m"), ("cpu", 1000, "1"),
     ("cpu", 2000, "2"), ("cpu", 1500, "1500m"), ("memory", 0, "0"), ("memory", 1, "1"),
     ("memory", 1023, "1023"), ("memory", 1536, "1536"), ("memory", 1024, "1Ki"),
     ("memory", 536870912, "512Mi"), ("memory", 1073741824, "1Gi"), ("memory", 1000, "1k"),
     ("memory", 5 * 10**9, "5G"), ("memory", 1024000, "1000Ki"), ("memory", 2**62, "4Ei"),
     ("memory", 10**12, "976562500Ki"), ("nvidia.com/gpu", 3, "3"), ("pods", 110, "110")],
    ids=repr,
)  # fmt: skip
def test_format_amount(resource: str, amount: int, text: str) -> None:
    assert format_amount(resource, amount) == text


# Properties.

MULTIPLIED = st.tuples(st.integers(-(10**25), 10**25), st.sampled_from(sorted(SUFFIXES)))


@settings(max_examples=300)
@given(MULTIPLIED)
@example((9, "Ei")).via("binary cap")
@example((-9223372036854775807, "Ki")).via("binary cap, negative")
def test_integer_times_suffix(case: tuple[int, str]) -> None:
    n, suffix = case
    expected = n * Fraction(SUFFIXES[suffix])
    if suffix.endswith("i"):  # binary values cap at 2**63-1 in magnitude
        expected = (1 if n >= 0 else -1) * min(abs(expected), Fraction(MAX_INT64))
    assert parse_quantity(f"{n}{suffix}") == expected


QUANTITY_TEXT = st.builds(
    lambda sign, whole, frac, suffix: f"{sign}{whole}{frac}{suffix}",
    st.sampled_from(["", "+", "-"]),
    st.integers(0, 10**20).map(str),
    st.one_of(st.just(""), st.just("."), st.integers(0, 10**12).map(lambda d: f".{d:0>4}")),
    st.one_of(
        st.sampled_from(sorted(SUFFIXES)),
        st.builds(lambda e, x: f"{e}{x:+d}", st.sampled_from("eE"), st.integers(-30, 30)),
    ),
)


@settings(max_examples=500)
@given(st.fractions())
@example(Fraction(1, 10**9))
@example(Fraction(-1, 3))
def test_milli_value_in_integers_is_the_fractions_ceiling(q: Fraction) -> None:
    assert milli_value(q) == math.ceil(q * 1000)


@settings(max_examples=300)
@given(QUANTITY_TEXT)
def test_milli_value_is_the_least_integer_at_or_above(text: str) -> None:
    q = parse_quantity(text)
    milli = milli_value(q)
    assert milli - 1 < 1000 * q <= milli
    whole = whole_value(q)
    assert whole - 1 < q <= whole


@settings(max_examples=300)
@given(QUANTITY_TEXT)
def test_values_are_whole_nanos(text: str) -> None:
    assert (parse_quantity(text) * 10**9).denominator == 1


AMOUNTS = st.one_of(
    st.integers(0, MAX_INT64),
    st.builds(lambda k, p: k * p, st.integers(0, 10**6), st.sampled_from([1000**3, 1024**3])),
)


@settings(max_examples=300)
@given(st.sampled_from(["cpu", "memory"]), AMOUNTS)
def test_format_amount_round_trips(resource: str, amount: int) -> None:
    assert scheduler_amount(resource, format_amount(resource, amount)) == amount


@settings(max_examples=300)
@given(st.floats(allow_nan=False, allow_infinity=False))
@example(0.2).via("YAML cpu: 0.2")
@example(5e-324).via("smallest subnormal")
def test_float_is_its_shortest_decimal_text(f: float) -> None:
    exact = Fraction(repr(f))
    nanos = math.ceil(abs(exact) * 10**9)  # finer than a nano rounds away from zero
    assert parse_quantity(f) == (-1 if exact < 0 else 1) * Fraction(nanos, 10**9)
    if (exact * 10**9).denominator == 1:
        assert parse_quantity(f) == exact


@settings(max_examples=200)
@given(st.integers(-(10**40), 10**40))
def test_integer_matches_its_json_text(n: int) -> None:
    assert parse_quantity(n) == parse_quantity(str(n)) == n


GARBAGE = st.one_of(
    st.text(),
    st.text(alphabet="0123456789.+-eEinumkKMGTPb \t\n\u00a0\u2028", max_size=24),
    st.builds(lambda a, b: a + b, QUANTITY_TEXT, st.text(max_size=3)),
)


@settings(max_examples=500)
@given(GARBAGE)
def test_garbage_raises_only_quantity_error(text: str) -> None:
    try:
        value = parse_quantity(text)
    except QuantityError:
        return
    assert isinstance(value, Fraction)


@settings(max_examples=100)
@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.lists(st.integers()),
        st.binary(),
        st.complex_numbers(),
        st.just([10**5000]),  # repr() of this raises ValueError
        st.just(Fraction(1, 3)),
    )
)
def test_non_json_scalars_raise_only_quantity_error(raw: object) -> None:
    with contextlib.suppress(QuantityError):
        parse_quantity(raw)


@given(st.lists(QUANTITY_TEXT, min_size=1, max_size=4))
def test_exact_text_of_any_sum_parses_back_to_it(texts: list[str]) -> None:
    # Pod-level request defaulting writes the containers' aggregate back as quantity text.
    total = sum((parse_quantity(t) for t in texts), Fraction(0))
    assert parse_quantity(exact_text(total)) == total


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        pytest.param(Fraction(1501, 1000), "1.501", id="millis-sum"),
        pytest.param(Fraction(3, 2), "1.5", id="half"),
        pytest.param(Fraction(1, 1024), "0.0009765625", id="binary-fraction"),
        pytest.param(Fraction(2048), "2048", id="whole"),
        pytest.param(Fraction(-1, 8), "-0.125", id="negative"),
    ],
)
def test_exact_text_examples(amount: Fraction, text: str) -> None:
    assert exact_text(amount) == text
