"""The query bar: a free-text query input plus a from/to year range, with debounced search.

Typing waits :data:`DEBOUNCE_S` seconds of quiet before asking for a search; Enter asks at once.
Any query string is passed through untouched (escaping is the search layer's job); text put in
the bar from the store (a past query) goes through :func:`litsift.text.for_terminal`. Year inputs
accept digits only; a half-typed year or a reversed range marks the input invalid and posts
:class:`~litsift.tui.messages.QueryInvalid` instead of searching.
"""

from __future__ import annotations

from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.geometry import Size
from textual.reactive import Reactive
from textual.timer import Timer
from textual.validation import Regex
from textual.widgets import Input

from litsift.errors import QueryError
from litsift.text import for_terminal
from litsift.tui.messages import QueryInvalid, SearchRequested
from litsift.tui.widgets.safe_text import safe_title
from litsift.tui.widgets.text_inputs import InOrderInput
from litsift.types import YearRange

#: seconds of typing quiet before a search runs: long enough to coalesce a burst of keys (a
#: paste, key auto-repeat at ~30 ms a key), short against the ~100+ ms between a typist's keys.
#: Searching as one types is affordable since a paper search costs ~3 ms, aspect scoring of
#: the 50 rows ~10 ms of CPU (stored sentences) and a frame ~50 ms (benchmarks/tui_latency.py);
#: it was 0.25 s while aspect scoring cost seconds.
DEBOUNCE_S = 0.04

_YEAR = Regex(r"^\d{4}$", failure_description="a year has four digits, e.g. 2015")


class BarInput(InOrderInput):
    """An input of the query bar; its editing keys act in typing order (:mod:`.text_inputs`).
    Textual's Input binds Up/Down to scrolling, which a one-line input never needs; here they
    pass on to the screen, where Down moves into the results.

    Textual's Input sets its virtual size (the text's width) on every key, and a widget's
    virtual size is a reactive that lays out the whole screen when it changes: a layout pass
    per keystroke. The bar's inputs have a fixed size (``litsift.tcss``) and scroll their text
    by the virtual size alone, so here a new one repaints the input only."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, **kwargs: Any) -> None:
        # the focus coming back (``/``, Esc, a closed modal) never selects the text: a key
        # typed then (``q``) would replace the query
        super().__init__(select_on_focus=False, **kwargs)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("scroll_up", "scroll_down"):
            return False
        return super().check_action(action, parameters)

    def _on_paste(self, event: events.Paste) -> None:
        """A paste of several lines (an abstract copied from a PDF, a wrapped question) goes in
        whole, its lines joined by spaces: Textual's Input kept the first line alone."""
        if "\n" in event.text or "\r" in event.text:
            Input._on_paste(self, events.Paste(" ".join(event.text.split())))
            event.stop()
            event.prevent_default()  # Textual calls each class's own handler: not Input's too


class YearInput(BarInput):
    """A year of the range: digits are typed here, ``/`` moves to the query (as everywhere
    else), and any other character a year cannot hold is refused with the terminal's bell.
    Those ran the app's bindings: the ``q`` of a query typed after Tab quit litsift."""

    TYPES_PRINTABLE = False
    #: where the key footer says the focus is
    focus_label = "years"

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character.isprintable()

    async def _on_key(self, event: events.Key) -> None:
        ch = event.character
        here = self._held is None and self.app.focused is self  # else InOrderKeys passes it on
        if here and ch is not None and ch.isprintable() and not ch.isdigit():
            event.stop()
            event.prevent_default()
            if ch == "/":
                query = self.screen.query_one("#query", Input)
                self.screen.set_focus(query)  # at once: the next key of a burst goes there
                query.cursor_position = len(query.value)
            else:
                self.app.bell()
        # other keys: Textual goes on to the handlers of the classes below (InOrderKeys, Input)


class QueryBar(Horizontal):
    """Query text + year range. Posts :class:`SearchRequested` or :class:`QueryInvalid`."""

    #: where the key footer says the focus is
    focus_label = "query"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        query = BarInput(placeholder="Search: a full sentence or keyphrases", id="query")
        query.border_title = "query (/)"
        yield query
        for side in ("from", "to"):
            year = YearInput(
                placeholder="year",
                restrict=r"\d{0,4}",
                max_length=4,
                validators=[_YEAR],
                valid_empty=True,
                id=f"year-{side}",
                classes="year",
            )
            year.border_title = safe_title(side)
            yield year

    # -- state -----------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return self.query_one("#query", Input).value

    @property
    def debouncing(self) -> bool:
        """True while a typed change waits for its debounce timer."""
        return self._timer is not None

    def years(self) -> YearRange:
        """The year range typed so far.

        Raises:
            QueryError: a year is not four digits, or from > to.
        """
        start = self._year("from")
        end = self._year("to")
        return YearRange(start, end)

    def _year(self, side: str) -> int | None:
        value = self.query_one(f"#year-{side}", Input).value.strip()
        if not value:
            return None
        if not _YEAR.validate(value).is_valid:
            raise QueryError(f"{side} year {value!r} is incomplete", "type four digits, e.g. 2015")
        return int(value)

    def _reversed_range(self) -> bool:
        """True when both years are complete and the first is after the second."""
        try:
            start, end = self._year("from"), self._year("to")
        except QueryError:
            return False
        return start is not None and end is not None and start > end

    def set_text(self, text: str) -> None:
        """Replace the query text (a search follows after the debounce)."""
        self.query_one("#query", Input).value = for_terminal(text, keep_newlines=False)

    def set_query(self, text: str, years: YearRange) -> None:
        """Replace the query text and years and search at once (re-running a past query, P,
        M), the cursor at the end of the new text (it stayed where the old one ended: "/" and
        typing then went inside a word of the longer ``method: ...`` query)."""
        query = self.query_one("#query", Input)
        query.value = for_terminal(text, keep_newlines=False)
        query.cursor_position = len(query.value)
        for side, year in (("from", years.start), ("to", years.end)):
            self.query_one(f"#year-{side}", Input).value = "" if year is None else str(year)
        self.submit(submitted=True)

    def clear_years(self) -> None:
        """Empty both year inputs and search again at once."""
        for side in ("from", "to"):
            self.query_one(f"#year-{side}", Input).value = ""
        self.submit(submitted=False)

    # -- events ----------------------------------------------------------------------------
    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._cancel_timer()
        self._timer = self.set_timer(DEBOUNCE_S, self._debounced)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit(submitted=True)

    def _debounced(self) -> None:
        self._timer = None
        self.submit(submitted=False)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def submit(self, submitted: bool) -> None:
        """Post a search for the current text and years (or QueryInvalid if they are bad)."""
        self._cancel_timer()
        inputs = [self.query_one(f"#year-{side}", Input) for side in ("from", "to")]
        try:
            years = self.years()
        except QueryError as err:
            reversed_range = self._reversed_range()
            for year in inputs:
                bad = bool(year.value) and not _YEAR.validate(year.value).is_valid
                year.set_class(bad or reversed_range, "-invalid")
            self.post_message(QueryInvalid(err.message, err.hint))
            return
        for year in inputs:
            year.set_class(False, "-invalid")
        self.post_message(SearchRequested(self.text, years, submitted))
