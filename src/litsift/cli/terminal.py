"""How litsift's commands live in a terminal: the app's event loop that does not wait for
its thread workers on the way out (:func:`run_app`), the output of a command that builds
something, whose reader may leave before it is done (:func:`finishes_its_work`), and SIGTERM /
SIGHUP, which stop a command as Ctrl-C does (:func:`terminate_as_interrupt`), and what a stopped
``litsift index`` kept (:func:`index_stopped`); the ``litsift`` group that ends any command so
stopped quietly and writes what a narrow encoding (a Latin-1 locale) lacks as ``?``
(:class:`LitsiftGroup`).
"""

from __future__ import annotations

import functools
import io
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO, TypeVar

import click

from litsift.cli.common import OneValueGroup, pipe_closed
from litsift.cli.interrupts import die_by_signal
from litsift.cli.output import writes_unicode

__all__ = [
    "THREAD_GRACE_S",
    "FittingContext",
    "FittingHelpFormatter",
    "LitsiftGroup",
    "Terminated",
    "finishes_its_work",
    "fit_help",
    "index_stopped",
    "needs_a_terminal",
    "replace_unencodable",
    "run_app",
    "stop_name",
    "stop_status",
    "terminate_as_interrupt",
    "writes_unicode",
]

#: the signals that end a command as Ctrl-C does: ``kill``, a service manager, a closed terminal
TERMINATING = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread like Ctrl-C's KeyboardInterrupt, so the
    same clean-up runs: the embedding workers are terminated, the half-made review removed, the
    command says what it kept. Before, the signal killed the process where it stood: its
    embedding workers lived on as orphans (175 MB each, for ever) and nothing was said."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def stop_name(err: KeyboardInterrupt) -> str:
    """How the user stopped a command, for its message: ``Ctrl-C``, ``SIGTERM`` or ``SIGHUP``."""
    return signal.Signals(err.signum).name if isinstance(err, Terminated) else "Ctrl-C"


def stop_status(err: KeyboardInterrupt) -> int:
    """The exit status of a stopped command: 128 + the signal's number, as a shell reports a
    command the signal killed (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP). Run as
    ``litsift``, the stopped command, once it has said what it kept, then dies by that signal
    (:func:`litsift.cli.interrupts.die_by_signal`; off POSIX it exits with this status)."""
    return 128 + (err.signum if isinstance(err, Terminated) else signal.SIGINT)


def index_stopped(seen: dict[str, tuple[str, int, int]], cached: bool, how: str = "Ctrl-C") -> str:
    """What a Ctrl-C (or ``how``: SIGTERM) kept: BM25 is published before any vector is
    embedded, and each chunk of vectors goes to the embedding cache as it is done (not embedded
    again by the next run)."""
    lines = [f"stopped ({how}); nothing published is lost:"]
    for table, (stage, done, total) in seen.items():
        if stage == "bm25":
            lines.append(f"  {table}: BM25 was being built; the previous index stays in use")
            continue
        if stage == "dense":
            lines.append(f"  {table}: BM25 searchable; the dense build had embedded nothing yet")
            continue
        what = {"embed": "vectors", "hnsw": "vectors", "sentences": "aspect sentences"}.get(
            stage, stage
        )
        kept = (
            "kept in the embedding cache, not embedded again"
            if cached
            else "kept only up to the last published chunk (the embedding cache is off)"
        )
        lines.append(f"  {table}: BM25 searchable; {done:,} of {total:,} {what} done, {kept}")
    lines.append("  run `litsift index` again to finish where it stopped")
    return "\n".join(lines)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While open, SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (where
    Python delivers them); the previous handlers come back at the end. Off the main thread
    (signals cannot be handled there) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.signal(sig, _raise_terminated) for sig in TERMINATING}
    try:
        yield
    finally:
        for sig, handler in saved.items():  # None: a handler set outside Python
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)


F = TypeVar("F", bound=Callable[..., Any])


class _ReaderMayLeave(io.TextIOBase):
    """Standard output whose reader may go away: once it has, what is written goes to
    /dev/null (the file descriptor too), so the command goes on (:func:`finishes_its_work`)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()

    def _gone(self) -> None:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
        except (OSError, ValueError):  # no real stdout to point elsewhere
            self._stream = open(os.devnull, "w", encoding="utf-8")

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding


def finishes_its_work(fn: F) -> F:
    """For a command that changes the store or the indexes (index, ingest, sync, ...): a
    reader of its output that goes away (``litsift index | head -1``) does not stop it. It
    ended there (exit 141), leaving the datasets' dense index unbuilt; now the rest of its
    output goes to /dev/null and the work is finished."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        before = sys.stdout
        sys.stdout = _ReaderMayLeave(before)
        try:
            return fn(*args, **kwargs)
        finally:
            sys.stdout = before

    return wrapper  # type: ignore[return-value]


def needs_a_terminal(alternative: str = 'litsift search "QUERY"') -> None:
    """Before the app starts: it reads keys from standard input and draws on standard error,
    so both must be a terminal. Run from a script, a cron job or CI (``litsift < /dev/null``,
    ``litsift 2> log``) it drew its escape codes into the file and waited for keys for ever.
    Standard error must write UTF-8 too: in a Latin-1 or ASCII locale every border and bar
    came out as ``\\u2594``-style escapes (:func:`writes_unicode`).

    Raises:
        LitsiftError: either stream is not a terminal, or standard error's encoding is not
            UTF; the hint names ``alternative``, the command that does the job without the app.
    """
    from litsift.errors import LitsiftError

    for name, stream in (("input", sys.__stdin__), ("error", sys.__stderr__)):
        try:
            tty = stream is not None and stream.isatty()
        except (OSError, ValueError):  # closed
            tty = False
        if not tty:
            raise LitsiftError(
                f"the app needs a terminal, and standard {name} is not one",
                f"run it in a terminal; from a script, use a command: {alternative}",
            )
    if not writes_unicode(sys.__stderr__):  # it drew "\u258a\u2594" for each border
        raise LitsiftError(
            "the app draws with Unicode characters, and this terminal's encoding is "
            f"{getattr(sys.__stderr__, 'encoding', '?')}",
            "use a UTF-8 locale (e.g. export LANG=C.UTF-8) in a terminal set to UTF-8; "
            f"the commands work as they are: {alternative}",
        )


#: seconds the app's background threads get to end after it closed, before the process exits
#: without them (a thread blocked in an LLM call waits out its timeout: a minute)
THREAD_GRACE_S = 2.0


def run_app(app: Any, svc: Any) -> None:
    """Run a Textual ``app`` over ``svc`` in this terminal and end fast when it closes.

    Textual runs thread workers in the event loop's default executor, and ``asyncio.run``
    waits for them on the way out: quitting while an LLM call was in flight left the terminal
    blank for its whole timeout (58.7 s measured). Here the loop's executor does not wait;
    the service is closed (the store's last transaction committed), threads that can stop
    (a cancelled index build stops within one step) get :data:`THREAD_GRACE_S`, and any still
    blocked (a network call) are left behind: the process exits without them
    (``os._exit``, after flushing output and logs). SQLite rolls back whatever such a thread
    had not committed, and index builds publish by rename, so nothing is left half-written.
    SIGTERM and SIGHUP close the app as ``^q`` does (killed where it stood, it left the
    terminal in the app's mouse and alternate-screen modes); once the terminal is given back
    the process dies by that signal (:func:`litsift.cli.interrupts.die_by_signal`), as a
    calling shell or service manager expects (it exited with status 143 / 129).
    """
    import asyncio
    import logging
    import threading
    from concurrent.futures import ThreadPoolExecutor

    class _NoWait(ThreadPoolExecutor):
        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            super().shutdown(wait=False, cancel_futures=True)

    loop = asyncio.new_event_loop()
    loop.set_default_executor(_NoWait(thread_name_prefix="litsift-worker"))
    received: list[int] = []

    def close_app(signum: int) -> None:
        received.append(signum)
        app.exit()

    if threading.current_thread() is threading.main_thread():
        for sig in TERMINATING:  # the app closes as on ^q: the terminal is given back whole
            loop.add_signal_handler(sig, close_app, sig)
    try:
        app.run(loop=loop)
    finally:
        svc.close()
        loop.close()
    deadline = time.monotonic() + THREAD_GRACE_S
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    stuck = [t for t in threading.enumerate() if t.is_alive() and not t.daemon]
    if len(stuck) > 1:  # the main thread and a thread that would hold the exit
        logging.getLogger("litsift.tui").info(
            "left %d background thread(s) running at exit", len(stuck) - 1
        )
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        if received:  # without the atexit functions, which might wait for those threads
            die_by_signal(128 + received[0], clean_up=False)
        os._exit(app.return_code or 0)
    if received:  # the entry point dies by the signal (die_by_signal) after the clean-up
        sys.exit(128 + received[0])


def replace_unencodable() -> None:
    """Have standard output and error write ``?`` for a character their encoding lacks,
    where they would fail on it (``errors="strict"``, Python's default for stdout). In a
    Latin-1 or ASCII locale (``LANG=de_DE.ISO-8859-1``, ``PYTHONIOENCODING=latin-1``) a
    dash in a title, a status line or a note ended the command with "UnicodeEncodeError ...
    a bug in litsift". Streams that write UTF-8 are left as they are."""
    for stream in (sys.stdout, sys.stderr):
        if writes_unicode(stream) or getattr(stream, "errors", None) != "strict":
            continue
        try:
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # not a TextIOWrapper
            pass


class FittingHelpFormatter(click.HelpFormatter):
    """Help whose example lines fit the width: a line of a ``\\b`` block (kept as written, the
    commands' examples) wider than the help is wrapped, its continuation lines indented four
    more columns under it. Click wrote such lines whole, and a 60-column terminal wrapped them
    at its column 0, between the next example's lines. The width is click's: the terminal's,
    ``COLUMNS`` (or 80) when the help goes to a pipe, at most 78."""

    def write_text(self, text: str) -> None:
        super().write_text(self._fit_blocks(text))

    def _fit_blocks(self, text: str) -> str:
        import textwrap

        lines: list[str] = []
        kept_from: int | None = None  # the indent of the \b block the line is in, else None
        for line in text.splitlines():
            lead = line[: len(line) - len(line.lstrip())]
            if not line:  # as click's wrap_text: an empty line ends a paragraph
                kept_from = None
            elif line.strip() == "\b":
                kept_from = len(lead)
            elif kept_from is not None:
                room = self.width - self.current_indent - kept_from
                if len(line) > room:
                    lines += textwrap.wrap(
                        line.strip(),
                        room,
                        initial_indent=lead,
                        subsequent_indent=lead + "    ",
                        break_long_words=False,
                        break_on_hyphens=False,
                    )
                    continue
            lines.append(line)
        return "\n".join(lines)


class FittingContext(click.Context):
    """A command's context whose help fits the terminal (:class:`FittingHelpFormatter`)."""

    formatter_class = FittingHelpFormatter


def fit_help(cmd: click.Command) -> None:
    """Give ``cmd`` and every command under it help that fits the width
    (:class:`FittingContext`)."""
    cmd.context_class = FittingContext
    for sub in getattr(cmd, "commands", {}).values():
        fit_help(sub)


class LitsiftGroup(OneValueGroup):
    """The ``litsift`` group: a command whose reader closed stdout ends quietly, also where
    no :func:`~litsift.cli.common.reports_errors` runs (click's own ``--help`` and usage output,
    the last flush); SIGTERM and SIGHUP stop a command as Ctrl-C does
    (:func:`terminate_as_interrupt`), and a command stopped so that does not say what it kept
    itself ends quietly with :func:`stop_status` (click printed "Aborted!" and exit status 1:
    Ctrl-C while the app or a search started); a narrow encoding writes ``?`` for what it
    lacks (:func:`replace_unencodable`); every command's help fits the width
    (:func:`fit_help`)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        replace_unencodable()
        fit_help(self)
        try:
            try:
                with terminate_as_interrupt():
                    return super().main(*args, **kwargs)
            finally:
                sys.stdout.flush()  # buffered output meets a closed pipe here, not at exit
        except BrokenPipeError:
            pipe_closed()
        except SystemExit:  # click's own EPIPE handling (``--help | head``) says 1
            if "PacifyFlushWrapper" in type(sys.stdout).__name__:
                pipe_closed()
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as stop:
            ctx.exit(stop_status(stop))
