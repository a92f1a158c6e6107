"""How litsift's commands live in a terminal: the app's event loop that does not wait for
its thread workers on the way out (:func:`run_app`), and the output of a command that builds
something, whose reader may leave before it is done (:func:`finishes_its_work`).
"""

from __future__ import annotations

import functools
import io
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

__all__ = ["THREAD_GRACE_S", "finishes_its_work", "run_app"]

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
        os._exit(app.return_code or 0)
