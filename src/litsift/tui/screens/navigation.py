"""Where the focus goes on the main screen, and the layout that follows the terminal's width.

:class:`NavScreen` is the base of :class:`~litsift.tui.screens.search.SearchScreen`: it finds
the screen's parts (query bar, tabs, tables, detail, status line) and moves the focus between
them. The rule: the focus is always on a widget that takes the keys the footer shows. A tab
switch (``^t``, F2/F3) from the results gives the focus to the new tab's results (the table
that had it is hidden); from the query, the query keeps it.

Below :data:`NARROW_BELOW` columns the detail pane is hidden (Textual's horizontal breakpoints
set ``-narrow`` on the screen, ``litsift.tcss``), so the table keeps the width a readable title
and the Score column need; opening the detail (Enter) shows it in the table's place
(``-reading``) until the focus leaves it (Esc back to the results).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TabbedContent

from litsift.tui.widgets import DetailPane, QueryBar, ResultsTable, StatusLine
from litsift.tui.widgets.kind_tab import PANE_ID, KindTab
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.tui.screens.triage import TriageCommands

__all__ = ["NARROW_BELOW", "NavScreen"]

#: terminals narrower than this many columns show the results without the detail pane
NARROW_BELOW = 100


class NavScreen(Screen[None]):
    """The main screen's parts and focus moves (see the module docstring)."""

    # unannotated: Screen declares it as an instance variable (``ClassVar[...] | None``)
    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-narrow"),
        (NARROW_BELOW, "-wide"),
    ]

    #: the kind of the tab shown
    kind: Kind = Kind.PAPER
    #: a tab switch from the results: the shown tab's table takes the focus
    _switch_focus = False
    #: the query text of the rows shown or being searched (set by the search screen)
    text: str = ""
    #: id of the search request not yet shown (None: none is running or unread)
    _pending: int | None = None
    #: the triage commands (the search screen's): history, labels
    triage: TriageCommands

    # -- parts -----------------------------------------------------------------------------
    @property
    def status(self) -> StatusLine:
        return self.query_one("#status", StatusLine)

    @property
    def detail(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def query_bar(self) -> QueryBar:
        return self.query_one("#query-bar", QueryBar)

    def tab(self, kind: Kind | None = None) -> KindTab:
        """The tab of ``kind`` (default: the one shown)."""
        return self.query_one(f"#{PANE_ID[kind or self.kind]}", KindTab)

    def table(self, kind: Kind | None = None) -> ResultsTable:
        return self.tab(kind).table

    # -- focus -----------------------------------------------------------------------------
    def _in(self, widget: Widget) -> bool:
        focused = self.focused
        return focused is not None and (focused is widget or widget in focused.ancestors)

    def _in_query_bar(self) -> bool:
        return self._in(self.query_bar)

    def action_focus_query(self) -> None:
        # at once (not Widget.focus): the keys typed right behind "/" follow into the query
        self.set_focus(self.query_one("#query", Input))

    def action_focus_results(self) -> None:
        """Down / Ctrl+N in the query bar: into the results of the tab shown.

        While the query typed is still being searched (its debounce running, its request not
        yet read, its worker busy) it is searched at once, and the table holds the keys typed
        behind Down until the query's rows are painted (:meth:`release_held_keys`): ``+``
        right behind Down keeps the new query's first hit, not the old results' row under
        the cursor. From the query, Down accepts it as Enter does: it goes to the history
        (a query moved into with Down, then labelled, was missing from ``h``), once its rows
        are painted when its search is still running (it was not recorded then). Down from
        the query lands on the first row, whatever row the cursor was left on (Esc or ``/``
        from the 3rd row: Down went back to the 3rd)."""
        bar = self.query_bar
        stale = self.rows_stale()
        from_query = self._in_query_bar()
        if from_query and (bar.debouncing or not stale):
            bar.submit(submitted=True)
        elif from_query and self._pending is not None:  # searched already: no new search,
            self.triage.submit(pending=True)  # recorded when its rows are painted
        if stale:
            self.table().hold_keys()  # the query's rows start on their first row
        elif from_query and self.table().hits:
            self.table().move_cursor(row=0, animate=False)
        self._focus_after_layout(self.table(), reading=False)

    def rows_stale(self) -> bool:
        """True while the rows shown are not yet those of the text in the query bar."""
        bar = self.query_bar
        return self._pending is not None or bar.debouncing or bar.text != self.text

    def release_held_keys(self) -> None:
        """Run the keys the tables held for the query's rows (``InOrderKeys.hold_keys``)."""
        for kind in Kind:
            self.table(kind).release_keys()

    def open_detail(self) -> None:
        """Put the focus in the detail pane (in a narrow terminal it takes the table's place)."""
        self._focus_after_layout(self.detail, reading=True)

    def action_back(self) -> None:
        """Esc: detail → results → query."""
        if self._in(self.detail):
            self._focus_after_layout(self.table(), reading=False)
        else:
            self.action_focus_query()

    def _focus_after_layout(self, widget: Widget, reading: bool) -> None:
        """Focus ``widget`` once the ``-reading`` layout shows it (a hidden widget takes no
        focus); at once when the layout does not change. Not when the focus moved meanwhile:
        ``/`` typed right behind Esc from the detail put the cursor in the query, and the
        layout's refresh took it back to the results, where the query's letters ran as keys."""
        if self.has_class("-reading") == reading:
            # at once, not Widget.focus (queued on the app): keys typed right behind Down
            # follow the focus into the results (tui/widgets/text_inputs.py)
            self.set_focus(widget)
            return
        self.set_class(reading, "-reading")
        before = self.focused

        def focus_if_unmoved() -> None:
            # a key typed right behind (``/`` after Esc) moved the focus on: it stays there.
            # None: the widget that had it was hidden by the new layout (Textual blurs it)
            if self.focused is before or self.focused is None:
                self.set_focus(widget)

        self.call_after_refresh(focus_if_unmoved)

    def on_descendant_focus(self) -> None:
        """The focus left the detail (``/``, a click): the table comes back."""
        if self.has_class("-reading") and not self._in(self.detail):
            self.remove_class("-reading")

    # -- tabs ------------------------------------------------------------------------------
    def action_toggle_kind(self) -> None:
        self.action_show_kind(Kind.DATASET if self.kind == Kind.PAPER else Kind.PAPER)

    def action_show_kind(self, kind: str) -> None:
        """Show the tab of ``kind``. From the results, the focus moves to the new tab's results
        (the table that had it is hidden: no widget would take the keys otherwise)."""
        focused = self.focused
        self._switch_focus = focused is None or isinstance(focused, ResultsTable)
        self.query_one(TabbedContent).active = PANE_ID[Kind(kind)]

    def tab_shown(self, kind: Kind) -> None:
        """The tab of ``kind`` is shown (``TabbedContent.TabActivated``): the focus follows a
        switch made from the results."""
        if self._switch_focus:
            self._switch_focus = False
            self.table(kind).focus()
