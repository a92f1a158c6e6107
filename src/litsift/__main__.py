"""``python -m litsift`` and the ``litsift`` script: the command line, loaded here.

Loading it (click, every command module) takes a quarter of a second, and Ctrl-C then printed
the traceback of whatever import it cut short. Here it ends quietly with status 130, as a
Ctrl-C once the command runs does (:class:`litsift.cli.terminal.LitsiftGroup`).
"""

import sys


def main() -> None:
    """Load and run the ``litsift`` command line (exits with its status)."""
    try:
        from litsift.cli.root import main as command_line
    except BaseException as err:  # KeyboardInterrupt, or a RuntimeError wrapping one
        cause: BaseException | None = err
        while cause is not None and not isinstance(cause, KeyboardInterrupt):
            cause = cause.__cause__ or cause.__context__
        if cause is None:
            raise
        sys.exit(130)  # 128 + SIGINT, as a shell reports a command Ctrl-C ended
    command_line()


if __name__ == "__main__":
    main()
