"""Screens of the litsift TUI."""

from litsift.tui.screens.empty_store import EmptyStoreScreen
from litsift.tui.screens.help import HelpScreen
from litsift.tui.screens.search import SearchScreen

__all__ = ["EmptyStoreScreen", "HelpScreen", "SearchScreen"]
