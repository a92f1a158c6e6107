"""``python -m litsift``, ``python -m litsift.cli`` and the ``litsift`` script: the command
line, loaded here.

Loading it (click, every command module) takes a quarter of a second, and Ctrl-C then printed
the traceback of whatever import it cut short. Here it ends quietly, as a Ctrl-C once the
command runs does (:class:`litsift.cli.terminal.LitsiftGroup`), and either way the process
dies by SIGINT once its clean-up is done (:func:`litsift.cli.interrupts.die_by_interrupt`).
"""

from __future__ import annotations

from litsift.cli.interrupts import INTERRUPTED, die_by_interrupt, interrupt_in

__all__ = ["main"]


def main() -> None:
    """Load and run the ``litsift`` command line (exits with its status, or dies by SIGINT
    when Ctrl-C stopped it: :func:`die_by_interrupt`)."""
    try:
        from litsift.cli.root import main as command_line
    except BaseException as err:  # KeyboardInterrupt, or a RuntimeError wrapping one
        if interrupt_in(err) is None:
            raise
        die_by_interrupt()
    try:
        command_line()
    except SystemExit as done:  # what click's standalone mode ends every command with
        if done.code == INTERRUPTED:  # only a Ctrl-C ends a command so (stop_status)
            die_by_interrupt()
        raise
