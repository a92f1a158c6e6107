"""``python -m litsift.cli`` runs the ``litsift`` command."""

from litsift.cli.entry import main

main()
