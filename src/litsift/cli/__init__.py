"""The ``litsift`` command line (click): :mod:`~litsift.cli.root` is the group and its small
commands; each other module adds one command family (search, sources, review, refs, rq, eval).
The CLI talks to the core through :mod:`litsift.service` only."""
