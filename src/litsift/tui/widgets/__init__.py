"""Widgets of the litsift TUI."""

from litsift.tui.widgets.detail_pane import DetailPane
from litsift.tui.widgets.query_bar import QueryBar
from litsift.tui.widgets.results_table import ResultsTable
from litsift.tui.widgets.status_line import StatusLine

__all__ = ["DetailPane", "QueryBar", "ResultsTable", "StatusLine"]
