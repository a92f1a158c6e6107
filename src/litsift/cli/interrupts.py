"""Ctrl-C at the command line: finding it inside another exception (:func:`interrupt_in`) and
ending the process as killed by it, or by the SIGTERM or SIGHUP that stopped a command
(:func:`die_by_interrupt`, :func:`die_by_signal`). A leaf of :mod:`litsift.cli`:
the entry point (:mod:`litsift.cli.entry`), the command group (:mod:`litsift.cli.terminal`)
and the error handler (:mod:`litsift.cli.common`) all use it, before and after click loads."""

from __future__ import annotations

import sys
from typing import NoReturn

__all__ = ["INTERRUPTED", "STOPPED_BY", "die_by_interrupt", "die_by_signal", "interrupt_in"]

#: the status a command stopped by Ctrl-C exits with: 128 + SIGINT, as a shell reports it
INTERRUPTED = 130

#: the exit status of a command a signal stopped (128 + its number, as a shell reports it:
#: :func:`litsift.cli.terminal.stop_status`) -> the signal's name: Ctrl-C, ``kill``, a
#: closed terminal
STOPPED_BY = {INTERRUPTED: "SIGINT", 143: "SIGTERM", 129: "SIGHUP"}


def die_by_signal(status: int, clean_up: bool = True) -> NoReturn:
    """End the process as killed by the signal that exit ``status`` stands for
    (:data:`STOPPED_BY`: 130 SIGINT, 143 SIGTERM, 129 SIGHUP; the wait status is "signalled",
    Python's ``returncode`` -2, -15, -1; a shell's ``$?`` stays 130, 143, 129), after the
    clean-up an exit would do (with ``clean_up``, the atexit functions; the streams are always
    flushed). Exiting with the status instead told a calling shell that litsift handled the
    signal itself, so ``for f in *.bib; do litsift ingest papers "$f"; done`` went on to the
    next file: a shell stops a loop only on a child the signal killed ("wait and cooperative
    exit", https://www.cons.org/cracauer/sigint.html). Off POSIX (Windows), for any other
    status, and should the signal not end the process (blocked), it exits with ``status``
    (``os._exit`` without ``clean_up``: threads left running do not hold it)."""
    import os

    name = STOPPED_BY.get(status)
    if os.name == "posix" and name is not None:
        import signal

        if clean_up:
            import atexit

            atexit._run_exitfuncs()  # e.g. the BM25 index's temporary copies are removed
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a reader that went away, a closed stream
                pass
        signum = getattr(signal, name)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    if not clean_up:
        os._exit(status)
    sys.exit(status)


def die_by_interrupt() -> NoReturn:
    """End the process as killed by SIGINT after its clean-up (:func:`die_by_signal`: Python's
    ``returncode`` -2, a shell's ``$?`` 130; off POSIX, exit status 130)."""
    die_by_signal(INTERRUPTED)


def interrupt_in(err: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (a KeyboardInterrupt, or :class:`Terminated`) in ``err``'s chain of causes
    and contexts, else None. Python wraps a KeyboardInterrupt raised while a class is made
    (``__set_name__``: Textual's widgets, imported as the app starts) in a RuntimeError, which
    was reported as "litsift failed unexpectedly ... a bug in litsift"."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None
