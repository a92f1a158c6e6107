"""Serialised service calls: one lock for every call, and an ordered queue of triage writes.

Service calls are serialised by :attr:`ServiceCalls.lock`, the service's own
``calls_lock`` (the threading rule lives with the service, :mod:`litsift.service.api`):
searches, triage jobs and aspect scoring use the encoder and the store one thread at a time.
Triage writes (labels, notes, collections, saved searches, exports) run in order: each job is
queued and a draining worker pops them first-in first-out under a lock, so "label, then undo"
never run the other way round. A job returns a message (e.g.
:class:`~litsift.tui.messages.AnnotationsChanged` or :class:`~litsift.tui.messages.Notice`)
that is posted back to the host in a :class:`JobDone`.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from textual.dom import DOMNode
from textual.message import Message
from textual.timer import Timer

from litsift.tui.messages import Notice
from litsift.tui.widgets.cached_table import CachedTable

#: a background job: runs in a worker thread, returns the message to post (or None)
Job = Callable[[], Message | None]


class Refreshing(Protocol):
    """What :func:`after_paint` calls on the screen (any Textual ``MessagePump`` has it)."""

    def call_after_refresh(self, callback: Callable[[], None]) -> bool: ...

    def set_timer(self, delay: float, callback: Callable[[], None] | None = None) -> Timer: ...


@dataclass
class JobDone(Message):
    """A queued job finished; ``result`` is what it returned (applied by the host)."""

    result: Message | None


class ServiceCalls:
    """The service lock and the triage job queue of one screen.

    Args:
        host: the node whose workers run the jobs and which receives :class:`JobDone`.
        lock: the service's ``calls_lock`` (:class:`litsift.service.api.LitsiftAPI`).
    """

    def __init__(self, host: DOMNode, lock: threading.Lock) -> None:
        self.host = host
        #: held around every service call, in any thread (the service's lock)
        self.lock = lock
        self._jobs: deque[Job] = deque()
        self._jobs_lock = threading.Lock()
        self._open = 0

    @property
    def open(self) -> int:
        """Jobs queued or running whose :class:`JobDone` was not handled yet."""
        return self._open

    def run_job(self, job: Job) -> None:
        """Queue ``job`` (a service write) to run after the ones queued before it."""
        self._jobs.append(job)
        self._open += 1
        self.host.run_worker(self._drain, thread=True, group="triage", exit_on_error=False)

    def _drain(self) -> None:
        with self._jobs_lock:
            while self._jobs:
                job = self._jobs.popleft()
                try:
                    with self.lock:  # never alongside a search
                        msg = job()
                except Exception as err:  # reported, never a crash
                    msg = Notice(error=err)
                self.host.post_message(JobDone(msg))

    def job_done(self) -> None:
        """The host handled a :class:`JobDone`."""
        self._open = max(0, self._open - 1)


def after_paint(
    pump: Refreshing, callback: Callable[[], None], painted: CachedTable | None = None
) -> None:
    """Run ``callback`` once, after the next refresh of the screen shown, and at the latest
    after 0.2 s: Textual runs after-refresh callbacks on the screen shown then, so a screen
    pushed over ``pump``'s and popped meanwhile would drop them (and leave the app busy).

    ``painted``: after the frame that renders this table, not merely the next refresh (a
    screen that is idle before the table's repaint reaches it runs its after-refresh callbacks
    at once: the callback would run, and its work be drawn, in the rows' frame)."""
    pending = [callback]

    def once() -> None:
        if pending:
            pending.pop()()

    if painted is not None:
        painted.when_painted(once)
    else:
        pump.call_after_refresh(once)
    pump.set_timer(0.2, once)
