"""Ctrl-C at the command line: finding it inside another exception (:func:`interrupt_in`) and
ending the process as killed by it (:func:`die_by_interrupt`). A leaf of :mod:`litsift.cli`:
the entry point (:mod:`litsift.cli.entry`), the command group (:mod:`litsift.cli.terminal`)
and the error handler (:mod:`litsift.cli.common`) all use it, before and after click loads."""

from __future__ import annotations

import sys
from typing import NoReturn

__all__ = ["INTERRUPTED", "die_by_interrupt", "interrupt_in"]

#: the status a command stopped by Ctrl-C exits with: 128 + SIGINT, as a shell reports it
INTERRUPTED = 130


def die_by_interrupt() -> NoReturn:
    """End the process as killed by SIGINT (wait status "signalled", Python's ``returncode``
    -2; a shell's ``$?`` is 130), after the clean-up an exit would do (the atexit functions,
    the streams flushed). Exiting with status 130 instead told a calling shell that litsift
    handled the key itself, so ``for f in *.bib; do litsift ingest papers "$f"; done`` went on
    to the next file: a shell stops a loop only on a child the signal killed ("wait and
    cooperative exit", https://www.cons.org/cracauer/sigint.html). Off POSIX (Windows), and
    should the signal not end the process (blocked), it exits with status 130."""
    import os

    if os.name == "posix":
        import atexit
        import signal

        atexit._run_exitfuncs()  # e.g. the BM25 index's temporary copies are removed
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a reader that went away, a closed stream
                pass
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    sys.exit(INTERRUPTED)


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
