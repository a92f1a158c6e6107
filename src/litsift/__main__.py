"""``python -m litsift`` and the ``litsift`` script: the command line, loaded here.

Loading it (click, every command module) takes a quarter of a second, and Ctrl-C then printed
the traceback of whatever import it cut short. Here it ends quietly, as a Ctrl-C once the
command runs does (:class:`litsift.cli.terminal.LitsiftGroup`), and either way the process
dies by SIGINT once its clean-up is done (:func:`die_by_interrupt`).
"""

import sys
from typing import NoReturn

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


def main() -> None:
    """Load and run the ``litsift`` command line (exits with its status, or dies by SIGINT
    when Ctrl-C stopped it: :func:`die_by_interrupt`)."""
    try:
        from litsift.cli.root import main as command_line
    except BaseException as err:  # KeyboardInterrupt, or a RuntimeError wrapping one
        cause: BaseException | None = err
        while cause is not None and not isinstance(cause, KeyboardInterrupt):
            cause = cause.__cause__ or cause.__context__
        if cause is None:
            raise
        die_by_interrupt()
    try:
        command_line()
    except SystemExit as done:  # what click's standalone mode ends every command with
        if done.code == INTERRUPTED:  # only a Ctrl-C ends a command so (stop_status)
            die_by_interrupt()
        raise


if __name__ == "__main__":
    main()
