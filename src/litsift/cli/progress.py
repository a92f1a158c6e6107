"""The progress bar of long ``litsift`` commands (``ingest``, ``index``, ``demo``, ``eval``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.progress import Progress as Bars

    from litsift.service.facade import Progress

__all__ = ["progress_bar"]


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Progress]:
    """A rich progress bar fed by the service's ``progress(stage, done, total)`` callback,
    shown only on a terminal: into a pipe or a log file rich printed the bar's last state
    (80 columns of ``━``) and, with no stage yet (an error before any work), an empty line
    above the error.

    The callback's ``say(text)`` prints a line under the bars drawn so far; the stages after
    it get bars under that line. A line that says a stage is done (``BM25 ready``) is so
    below that stage's bar: printed above the live bars, it stood over its own bar."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from litsift.cli.output import sized_console

    console = sized_console(stderr=True)
    shown = enabled and console.is_terminal
    live: list[Bars] = []  # the bars being drawn (none before the first stage, after a say)
    tasks: dict[str, Any] = {}

    def bars() -> Bars:
        if not live:
            live.append(
                Progress(
                    TextColumn("{task.description:>10}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    console=console,
                    disable=not shown,
                    transient=False,
                )
            )
            live[0].start()
            tasks.clear()
        return live[0]

    def update(stage: str, done: int, total: int) -> None:
        bar = bars()
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total or None)
        bar.update(tasks[stage], completed=done, total=total or None)

    def say(text: str) -> None:
        """A line under the bars so far (their last state stays drawn above it)."""
        if live:
            live.pop().stop()
        click.echo(text)

    update.say = say  # type: ignore[attr-defined]
    try:
        yield update
    finally:
        if live:
            live.pop().stop()
