"""Deadlines, capped reads and the durations ``--timeout`` takes."""

from __future__ import annotations

import io
import itertools
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.deadline import Deadline, parse_seconds, read_capped, shown_seconds, within


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90s", 90.0), ("10m", 600.0), ("1h", 3600.0), ("0.5s", 0.5), ("30", 30.0), ("24h", 86400.0)],
    ids=["seconds", "minutes", "an hour", "a fraction", "a bare number is seconds", "a day"],
)
def test_durations_are_read_in_seconds(text: str, seconds: float) -> None:
    assert parse_seconds(text) == seconds


@pytest.mark.parametrize(
    "text",
    ["0", "0s", "-1s", "24.1h", "1e3", "nan", "inf", "5d", "m", "", "1 m", "1000000000s"],
)
def test_what_is_no_duration_or_too_long_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected a duration such as 90s, 10m or 1h"):
        parse_seconds(text)


@given(st.integers(min_value=1, max_value=86_400))
def test_a_shown_duration_reads_back_as_itself(seconds: int) -> None:
    assert parse_seconds(shown_seconds(seconds)) == seconds


@given(st.text(max_size=30))
def test_any_text_is_a_duration_or_a_value_error(text: str) -> None:
    try:
        seconds = parse_seconds(text)
    except ValueError as exc:
        assert "\n" not in str(exc)
    else:
        assert 0 < seconds <= 86_400


def test_a_deadline_counts_down_on_its_clock_and_a_sooner_one_is_taken() -> None:
    now = iter([100.0, 101.0, 102.0, 103.0])
    deadline = Deadline.after(10, clock=lambda: next(now))
    assert deadline.left() == 9.0
    sooner = deadline.sooner(2)
    assert (sooner.seconds, sooner.ends_at) == (2, 104.0)
    assert deadline.sooner(60) is deadline


def test_a_capped_read_stops_at_the_first_chunk_past_the_cap() -> None:
    endless = itertools.repeat(b"x" * 1000)
    reads: list[int] = []

    def read(size: int) -> bytes:
        reads.append(size)
        return next(endless)

    with pytest.raises(OverflowError):
        read_capped(read, 2500, OverflowError)
    assert len(reads) == 3


def test_a_capped_read_asks_the_clock_before_every_chunk() -> None:
    checks = iter([None, None, TimeoutError()])

    def in_time() -> None:
        raised = next(checks)
        if raised:
            raise raised

    with pytest.raises(TimeoutError):
        read_capped(io.BytesIO(b"y" * 200_000).read1, 10**6, OverflowError, in_time)


def test_work_past_its_deadline_is_abandoned() -> None:
    with pytest.raises(TimeoutError):
        within(0.05, lambda: time.sleep(0.5), TimeoutError)
    assert within(1, lambda: 42, TimeoutError) == 42
