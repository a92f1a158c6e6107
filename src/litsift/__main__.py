"""``python -m litsift``: the same command line as the ``litsift`` script."""

from litsift.cli.root import main

if __name__ == "__main__":
    main()
