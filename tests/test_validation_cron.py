"""A CronJob's schedule and time zone as the API server reads them (gate.k8s.cronschedule):
robfig/cron v3.0.1 ``ParseStandard``'s errors word for word (its ``parser_test.go``
TestRange and TestParseScheduleErrors cases, on the standard fields: minutes 0-59, hours
0-23, days 1-31, months 1-12 or names, weekdays 0-6 or names) and Go's ParseDuration."""

from __future__ import annotations

import pytest

from gate.k8s import cronschedule
from gate.k8s.cronschedule import duration_error, schedule_error, time_zone_error
from tests.test_api_validation import job, reason

# (id, schedule, the parser's error)
REFUSED = [
    ("five fields are wanted, not six (no seconds)", "0 * * * * *",
     "expected exactly 5 fields, found 6: [0 * * * * *]"),
    ("spaces alone are no fields", "   ", "expected exactly 5 fields, found 0: []"),
    ("two hyphens in a range", "5--5 * * * *", "too many hyphens: 5--5"),
    ("a name where a number is wanted", "* 5 j * *",
     'failed to parse int from j: strconv.Atoi: parsing "j": invalid syntax'),
    ("a month range to no month", "* * * jan-x *",
     'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("a negative step", "*/-12 * * * *", "negative number (-12) not allowed: -12"),
    ("two slashes", "*//2 * * * *", "too many slashes: *//2"),
    ("a day below 1", "0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("an hour above 23", "0 24 * * *", "end of range (24) above maximum (23): 24"),
    ("a range running backwards", "0 0 * 5-3 *",
     "beginning of range (5) beyond end of range (3): 5-3"),
    ("a step of 0", "*/0 * * * *", "step of range should be a positive number: */0"),
    ("the first bad field is the one named", "99 99 * * *",
     "end of range (99) above maximum (59): 99"),
    ("a descriptor it does not know", "@unrecognized", "unrecognized descriptor: @unrecognized"),
    ("an @every of no duration", "@every Xm",
     'failed to parse duration @every Xm: time: invalid duration "Xm"'),
    ("an @every of days", "@every 2d",
     'failed to parse duration @every 2d: time: unknown unit "d" in duration "2d"'),
    ("a location it cannot load", "CRON_TZ=Nowhere/Town 0 0 * * *",
     "provided bad location Nowhere/Town: unknown time zone Nowhere/Town"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("schedule", "error"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_schedule_the_parser_refuses_is_refused_in_its_words(schedule: str, error: str) -> None:
    assert schedule_error(schedule) == error


TAKEN = [
    "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
    "@every 1h30m", "@every -5s", "@every 1.5h", "0 0 * * 0", "59 23 31 12 6",
    "*/5 1-5/2 ? JAN-dec SUN,sat", "1,,2 * * * *", "TZ=UTC 0 0 * * *", "0 0 1 feb-Mar *",
]  # fmt: skip


@pytest.mark.parametrize("schedule", TAKEN, ids=[f"{s!r} is taken" for s in TAKEN])
def test_a_schedule_the_parser_takes_is_no_error(schedule: str) -> None:
    assert schedule_error(schedule) is None


@pytest.mark.parametrize(
    ("text", "error"),
    [("", 'time: invalid duration ""'), (".s", 'time: invalid duration ".s"'),
     ("1", 'time: missing unit in duration "1"'), ("0", None), ("-0", None), ("1µs", None),
     ("3h2x", 'time: unknown unit "x" in duration "3h2x"')],
    ids=["empty is invalid", "a dot alone is no number", "a number wants a unit",
         "0 needs none", "-0 needs none", "microseconds have a unit of their own",
         "each part has a unit it knows"],
)  # fmt: skip
def test_durations_read_as_go_reads_them(text: str, error: str | None) -> None:
    assert duration_error(text) == error


def test_a_time_zone_of_the_tz_database_loads() -> None:
    assert (time_zone_error("UTC"), time_zone_error("Local")) == (None, None)
    assert (time_zone_error("Europe/Berlin"), time_zone_error("US/Pacific")) == (None, None)
    assert time_zone_error("Mars/Olympus_Mons") == "unknown time zone Mars/Olympus_Mons"


def test_the_zones_are_the_tzdata_package_s_not_the_machine_s() -> None:
    # Go's embedded database has no "localtime" (a file some machines' zoneinfo holds).
    assert time_zone_error("localtime") == "unknown time zone localtime"


def _unreadable_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cronschedule, "_zones", frozenset)


# (id, the CronJob's edit, the field that cannot be judged, the zone)
UNJUDGED = [
    ("a time zone the database holds", {"timeZone": "Europe/Berlin"}, "spec.timeZone",
     "Europe/Berlin"),
    ("a time zone the database lacks", {"timeZone": "Mars/Olympus_Mons"}, "spec.timeZone",
     "Mars/Olympus_Mons"),
    ("a zone a TZ= prefix names in the schedule", {"schedule": "TZ=Asia/Tokyo 0 0 * * *"},
     "spec.schedule", "Asia/Tokyo"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("edit", "field", "zone"), [r[1:] for r in UNJUDGED], ids=[r[0] for r in UNJUDGED]
)
def test_a_zone_is_not_judged_when_no_tz_database_is_readable(
    monkeypatch: pytest.MonkeyPatch, edit: dict[str, str], field: str, zone: str
) -> None:
    # validateTimeZone asks time.LoadLocation, which the API server answers from the
    # database Go embeds: without one here neither taking nor refusing is known.
    _unreadable_database(monkeypatch)
    body = job("CronJob")
    body["spec"].update(edit)
    assert reason(body) == (
        f'{field}: cannot judge the time zone "{zone}": no tz database is readable here '
        "(the tzdata package), so whether the API server loads it is unknown"
    )


@pytest.mark.parametrize(
    "edit",
    [{}, {"timeZone": "UTC"}, {"schedule": "CRON_TZ=UTC 0 0 * * *"}],
    ids=["no time zone needs no database", "UTC needs none", "a TZ= prefix of UTC needs none"],
)
def test_a_zone_go_knows_without_its_database_is_still_judged(
    monkeypatch: pytest.MonkeyPatch, edit: dict[str, str]
) -> None:
    _unreadable_database(monkeypatch)
    body = job("CronJob")
    body["spec"].update(edit)
    found = reason(body)
    assert found is None or "cannot judge" not in found
    if "schedule" in edit:
        assert found is not None and "cannot use TZ or CRON_TZ in schedule" in found
