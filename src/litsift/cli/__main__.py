"""``python -m litsift.cli`` runs the ``litsift`` command."""

from litsift.cli.root import main

main()
