"""Progress on standard error: silent for short runs, lines in CI logs, a bar on a TTY."""

from __future__ import annotations

import io

from gate.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_short_phase_prints_nothing() -> None:
    stream, clock = io.StringIO(), Clock()
    phase = Progress(stream, tty=False, clock=clock).phase("reading snapshot", 100, "bytes")
    clock.now += 1.0
    phase.advance(50)
    phase.finish()
    assert stream.getvalue() == ""


def test_a_ci_log_gets_a_line_every_interval() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, tty=False, clock=clock, delay=2, interval=10)
    phase = progress.phase("reading snapshot", 2_000_000_000, "bytes")
    for _ in range(30):
        clock.now += 1.0
        phase.advance(50_000_000)
    phase.finish()
    lines = stream.getvalue().splitlines()
    assert lines == [
        "fitgate: reading snapshot: 5% (100 MB of 2.00 GB), 2 s",
        "fitgate: reading snapshot: 30% (600 MB of 2.00 GB), 12 s",
        "fitgate: reading snapshot: 55% (1.10 GB of 2.00 GB), 22 s",
    ]


def test_a_terminal_gets_one_bar_redrawn_and_cleared() -> None:
    stream, clock = io.StringIO(), Clock()
    phase = Progress(stream, tty=True, clock=clock, delay=2).phase("evaluating", None, "documents")
    for _ in range(5):
        clock.now += 1.0
        phase.advance()
    phase.finish()
    text = stream.getvalue()
    assert "\n" not in text and text.startswith("\rfitgate: evaluating: 2 documents, 2 s")
    assert text.endswith("\r\x1b[K")
