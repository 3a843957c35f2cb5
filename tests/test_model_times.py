"""Capture times, read once for every use (validation, age, the maximum age)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from gate.model import rfc3339_time

UTC = timezone.utc


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-08-16T10:00:00Z", datetime(2026, 8, 16, 10, tzinfo=UTC)),
        ("2026-08-16T10:00:00.5Z", datetime(2026, 8, 16, 10, 0, 0, 500_000, tzinfo=UTC)),
        ("2026-08-16T10:00:00.123456789Z", datetime(2026, 8, 16, 10, 0, 0, 123_456, tzinfo=UTC)),
        (
            "2026-08-16T12:00:00+02:00",
            datetime(2026, 8, 16, 12, tzinfo=timezone(timedelta(hours=2))),
        ),
        ("2026-08-16T10:00:00", None),
        ("2026-13-16T10:00:00Z", None),
        ("not a date", None),
        (None, None),
        (1_786_000_000, None),
    ],
    ids=[
        "seconds in UTC",
        "a one-digit fraction",
        "Go's nanoseconds, cut to microseconds",
        "an offset",
        "no zone is no RFC 3339 time",
        "a thirteenth month",
        "text",
        "absent",
        "a number",
    ],
)
def test_rfc3339_time(text: object, expected: datetime | None) -> None:
    assert rfc3339_time(text) == expected
