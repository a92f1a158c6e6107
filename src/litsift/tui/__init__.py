"""litsift's Textual TUI. Import :func:`create_app` from :mod:`litsift.tui.app`."""
