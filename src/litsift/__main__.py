"""``python -m litsift`` and the ``litsift`` script: the command line
(:func:`litsift.cli.entry.main`)."""

from litsift.cli.entry import main

__all__ = ["main"]

if __name__ == "__main__":
    main()
