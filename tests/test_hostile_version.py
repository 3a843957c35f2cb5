"""A server version is text a server (or a hand-written snapshot) chooses: parsing it is
total and takes constant time, and an unknown version keeps the default dialect."""

from __future__ import annotations

import io
import time

import pytest

from gate.cli import Streams, main
from gate.k8s.version import Dialect, dialect_for, parse_version, version_problem
from tests.conftest import ROOT

AKS = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
HUGE = "v1." + "9" * 5000  # past Python's 4,300-digit limit on int()


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        pytest.param("v1.34.1", (1, 34, 1), id="a release"),
        pytest.param("1.34", (1, 34, 0), id="no v and no patch"),
        pytest.param("v1.36.3-gke.100", (1, 36, 3), id="a vendor suffix is ignored"),
        pytest.param("v1.999999999.1", (1, 999999999, 1), id="nine digits are a number"),
        pytest.param("v1.9999999999.1", None, id="ten digits are not a version"),
        pytest.param(HUGE, None, id="five thousand digits are not a version"),
        pytest.param("v1.34." + "1" * 5000, None, id="a huge patch is not a version"),
        pytest.param("v" + "1" * 5000 + ".2", None, id="a huge major is not a version"),
        pytest.param("", None, id="empty is unknown"),
        pytest.param(None, None, id="absent is unknown"),
        pytest.param("latest", None, id="a word is unknown"),
        pytest.param("v1.\u0663\u0664.0", None, id="non-ASCII digits are not a version"),
    ],
)
def test_a_version_parses_or_is_unknown(text: str | None, parsed: object) -> None:
    assert parse_version(text) == parsed


def test_a_value_that_is_not_text_is_unknown() -> None:
    assert parse_version(12) is None  # type: ignore[arg-type]
    assert dialect_for(["v1.35.0"]) == Dialect()  # type: ignore[arg-type]


def test_an_unparseable_version_keeps_the_default_dialect() -> None:
    assert dialect_for(HUGE) == Dialect()
    assert dialect_for("v1." + "3" * 5000 + ".2") == Dialect()


def test_parsing_a_megabyte_of_digits_takes_no_time() -> None:
    text = "v1." + "7" * 1_000_000
    started = time.perf_counter()
    for _ in range(100):
        assert parse_version(text) is None
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param("v1.34.1", None, id="a version has no problem"),
        pytest.param(None, None, id="an absent version has no problem"),
        pytest.param(
            "latest",
            "version 'latest' is not a Kubernetes version such as v1.34.1",
            id="a word is named",
        ),
        pytest.param(
            HUGE,
            f"version '{HUGE[:40]}...' is not a Kubernetes version such as v1.34.1",
            id="a huge version is named shortened",
        ),
        pytest.param(
            "v1\n::error::x",
            "version 'v1\\n::error::x' is not a Kubernetes version such as v1.34.1",
            id="a line break is escaped",
        ),
    ],
)
def test_an_unusable_version_is_one_line(text: str | None, problem: str | None) -> None:
    assert version_problem(text) == problem


@pytest.mark.parametrize(
    "text", [HUGE, "latest", "v1\n::error::x"], ids=["huge", "a word", "a line break"]
)
def test_a_scheduler_version_that_is_not_one_is_refused_shortly(text: str) -> None:
    streams = Streams(io.BytesIO(), io.StringIO(), io.StringIO(), env={})
    argv = ["check", "fixtures/manifests", "--snapshot", AKS, "--scheduler-version", text]
    assert main(argv, streams) == 2
    err = streams.stderr.getvalue()  # type: ignore[attr-defined]
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith("fitgate check: argument --scheduler-version: ")
    assert line.endswith("is not a Kubernetes version such as v1.34.1; see fitgate check --help")
    assert len(line) < 250
