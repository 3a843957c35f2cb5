"""Why the API server refuses a CronJob's ``schedule`` and ``timeZone``: the error texts of
``cron.ParseStandard`` (github.com/robfig/cron/v3 v3.0.1 ``parser.go``: five fields or a
descriptor) and of Go's ``time.LoadLocation``, which kubernetes v1.34's
``validateScheduleFormat`` (through ``pkg/util/parsers`` ParseCronScheduleWithPanicRecovery)
and ``validateTimeZone`` (``pkg/apis/batch/validation``) print after ``Invalid value``.

>>> schedule_error("*/5 * * *")
'expected exactly 5 fields, found 4: [*/5 * * *]'
>>> schedule_error("0 0 * * 7")
'end of range (7) above maximum (6): 7'
>>> schedule_error("@daily") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True, slots=True)
class _Bounds:
    """One field's range and its names (lower case), as robfig's ``bounds``."""

    low: int
    high: int
    names: tuple[str, ...] = ()

    def named(self, text: str) -> int | None:
        lowered = text.lower()
        return self.names.index(lowered) + self.low if lowered in self.names else None


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_FIELDS = (_Bounds(0, 59), _Bounds(0, 23), _Bounds(1, 31), _Bounds(1, 12, _MONTHS),
           _Bounds(0, 6, _DAYS))  # fmt: skip
"""minutes, hours, dom, months, dow: ParseStandard's fields in their order."""
_DESCRIPTORS = frozenset(
    {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
)
_GO_INT = re.compile(r"[+-]?[0-9]+")
_INT64 = 2**63


class _Refused(Exception):
    """The error ``Parse`` returns, its text as Go prints it."""


def schedule_error(schedule: str) -> str | None:
    """The error ``cron.ParseStandard`` gives ``schedule`` (a written, non-empty one), or
    None when it parses. Raises :class:`ZonesUnreadable` for a ``TZ=`` or ``CRON_TZ=`` zone
    the tz database would be needed for."""
    try:
        _parse(schedule)
    except _Refused as refused:
        return str(refused)
    return None


def _parse(spec: str) -> None:
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space, equals = spec.find(" "), spec.find("=")
        if space < 0:  # spec[eq+1:-1] panics; ParseCronScheduleWithPanicRecovery words it
            raise _Refused(
                "invalid schedule format: runtime error: slice bounds out of range [:-1]"
            )
        zone = spec[equals + 1 : space]
        error = time_zone_error(zone, "spec.schedule")
        if error is not None:
            raise _Refused(f"provided bad location {zone}: {error}")
        spec = spec[space:].strip(" \t\n\v\f\r\x85\xa0")
    if spec.startswith("@"):
        _descriptor(spec)
        return
    fields = spec.split()
    if len(fields) != len(_FIELDS):
        shown = "[" + " ".join(fields) + "]"
        raise _Refused(f"expected exactly 5 fields, found {len(fields)}: {shown}")
    for text, bounds in zip(fields, _FIELDS, strict=True):
        for expression in (part for part in text.split(",") if part):
            _range(expression, bounds)


def _descriptor(spec: str) -> None:
    """parseDescriptor: a named schedule, or ``@every`` and a Go duration."""
    if spec in _DESCRIPTORS:
        return
    every = "@every "
    if spec.startswith(every):
        error = duration_error(spec[len(every) :])
        if error is not None:
            raise _Refused(f"failed to parse duration {spec}: {error}")
        return
    raise _Refused(f"unrecognized descriptor: {spec}")


_UNITS = frozenset({"ns", "us", "\u00b5s", "\u03bcs", "ms", "s", "m", "h"})
_NUMBER = re.compile(r"([0-9]*)(\.([0-9]*))?")


def duration_error(text: str) -> str | None:
    """The error ``time.ParseDuration`` gives ``text``, or None. Its size is not bounded
    here (an overflow is ``invalid duration`` upstream)."""
    rest = text[1:] if text[:1] in ("+", "-") else text
    if rest == "0":
        return None
    if not rest:
        return f"time: invalid duration {_quote(text)}"
    while rest:
        number = _NUMBER.match(rest)
        whole, fraction = (number.group(1), number.group(3)) if number else ("", None)
        if not whole and not fraction:
            return f"time: invalid duration {_quote(text)}"
        rest = rest[number.end() :] if number else rest
        unit = re.match(r"[^0-9.]*", rest)
        name = unit.group(0) if unit else ""
        if not name:
            return f"time: missing unit in duration {_quote(text)}"
        if name not in _UNITS:
            return f"time: unknown unit {_quote(name)} in duration {_quote(text)}"
        rest = rest[len(name) :]
    return None


def _quote(text: str) -> str:
    """Go's quoting of a text in these messages, for the printable text a field holds."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _range(expression: str, bounds: _Bounds) -> None:
    """getRange: ``*``, ``?``, a number or name, or a range of them, with a step."""
    range_and_step = expression.split("/")
    low_and_high = range_and_step[0].split("-")
    if low_and_high[0] in ("*", "?"):
        start, end = bounds.low, bounds.high
    else:
        start = _int_or_name(low_and_high[0], bounds)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], bounds)
        else:
            raise _Refused(f"too many hyphens: {expression}")
    step = 1
    if len(range_and_step) == 2:
        step = _int(range_and_step[1])
        if len(low_and_high) == 1:
            end = bounds.high  # "N/step" is "N-max/step"
    elif len(range_and_step) > 2:
        raise _Refused(f"too many slashes: {expression}")
    if start < bounds.low:
        raise _Refused(f"beginning of range ({start}) below minimum ({bounds.low}): {expression}")
    if end > bounds.high:
        raise _Refused(f"end of range ({end}) above maximum ({bounds.high}): {expression}")
    if start > end:
        raise _Refused(f"beginning of range ({start}) beyond end of range ({end}): {expression}")
    if step == 0:
        raise _Refused(f"step of range should be a positive number: {expression}")


def _int_or_name(text: str, bounds: _Bounds) -> int:
    named = bounds.named(text)
    return named if named is not None else _int(text)


def _int(text: str) -> int:
    """mustParseInt: strconv.Atoi, then not negative."""
    if not _GO_INT.fullmatch(text):
        detail = f"strconv.Atoi: parsing {_quote(text)}: invalid syntax"
        raise _Refused(f"failed to parse int from {text}: {detail}")
    number = int(text)
    if not -_INT64 <= number < _INT64:
        detail = f"strconv.Atoi: parsing {_quote(text)}: value out of range"
        raise _Refused(f"failed to parse int from {text}: {detail}")
    if number < 0:
        raise _Refused(f"negative number ({number}) not allowed: {text}")
    return number


class ZonesUnreadable(Exception):
    """The tz database cannot be read here, so whether ``time.LoadLocation`` loads the zone
    (and so whether the API server takes the CronJob) is not known: the gate cannot judge,
    and says so rather than take or refuse it."""

    def __init__(self, field: str, zone: str) -> None:
        super().__init__(field, zone)
        self.field, self.zone = field, zone

    def __str__(self) -> str:
        return (
            f"{self.field}: cannot judge the time zone {_quote(self.zone)}: no tz database is "
            "readable here (the tzdata package), so whether the API server loads it is unknown"
        )


def time_zone_error(name: str, field: str = "spec.timeZone") -> str | None:
    """The error ``time.LoadLocation`` gives ``name``, or None (``UTC``, ``Local`` and
    every zone of the tz database). The zones are the ``tzdata`` package's, as the API
    server's are the database Go embeds (``time/tzdata``), not the machine's. Raises
    :class:`ZonesUnreadable`, naming ``field``, for any other zone when that package cannot
    be read: no answer is given that the database was needed for."""
    if name in ("", "UTC", "Local"):
        return None
    zones = _zones()
    if not zones:
        raise ZonesUnreadable(field, name)
    if name in zones:
        return None
    return f"unknown time zone {name}"


@cache
def _zones() -> frozenset[str]:
    from importlib import resources  # here: only a CronJob's time zone needs the list

    try:
        listed = resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8")
    except (ModuleNotFoundError, OSError):
        return frozenset()
    return frozenset(listed.split())
