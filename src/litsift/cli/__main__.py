"""``python -m litsift.cli`` runs the ``litsift`` command."""

from litsift.__main__ import main

main()
