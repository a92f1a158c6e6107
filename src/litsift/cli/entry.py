"""``python -m litsift``, ``python -m litsift.cli`` and the ``litsift`` script: the command
line, loaded here.

Loading it (click, every command module) takes a quarter of a second, and Ctrl-C then printed
the traceback of whatever import it cut short. Here it ends quietly, as a Ctrl-C once the
command runs does (:class:`litsift.cli.terminal.LitsiftGroup`), and either way the process
dies by SIGINT once its clean-up is done (:func:`litsift.cli.interrupts.die_by_interrupt`); a
command SIGTERM or SIGHUP stopped dies by that signal the same way.
"""

from __future__ import annotations

from litsift.cli.interrupts import STOPPED_BY, die_by_interrupt, die_by_signal, interrupt_in

__all__ = ["main"]


def main() -> None:
    """Load and run the ``litsift`` command line (exits with its status, or dies by the signal
    that stopped it, Ctrl-C, SIGTERM or SIGHUP: :func:`die_by_signal`)."""
    try:
        from litsift.cli.root import main as command_line
    except BaseException as err:  # KeyboardInterrupt, or a RuntimeError wrapping one
        if interrupt_in(err) is None:
            raise
        die_by_interrupt()
    try:
        command_line()
    except SystemExit as done:  # what click's standalone mode ends every command with
        if isinstance(done.code, int) and done.code in STOPPED_BY:  # only a signal ends a
            die_by_signal(done.code)  # command so (stop_status, run_app)
        raise
