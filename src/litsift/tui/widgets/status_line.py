"""The status line: result count, search time, kind, year range, index state, errors.

Example: ``10 results · 12 ms · papers · 2015–2019 · store: 2,000 papers, 3,327 datasets``; a
year range that kept undated hits says how many (``2015–2019 (+2 undated)``).
Mode indicators follow in brackets, e.g. ``[show: kept] [more like this] [by coverage]``. A
result answered by BM25 alone says so (``BM25 only — dense index: 1,200 / 19,588 embedded``),
and a background build shows its progress after the index state. One segment per fact: while a
build's progress is shown, the result says only ``BM25 only`` (the counter is the build's
segment, so the line never shows two counters of the same index).
Timings can be hidden (``show_timings=False``) so snapshots are deterministic. The line has a
fixed size: a change repaints it without a layout pass, and a change to the same text (the modes
set again after each result) repaints nothing. Messages and
errors (which may quote data or a model's reply) are shown through
:func:`litsift.text.for_terminal`, on one line.

A *notice* (``notice=True``: a label saved, an export written, "nothing to undo", an action
refused) is about one action: it gives way, on the next key or click, to what it covered (the
result's line, the prompt), which then stayed hidden until the next search. A ``progress``
message (an LLM call running) stays until its outcome, a notice, replaces it: that notice gives
way to the line under both. A message or error that is the state (the prompt, a failed
search) stays until replaced.
"""

from __future__ import annotations

import re

from textual.content import Content
from textual.widgets import Static

from litsift.errors import LitsiftError
from litsift.text import for_terminal
from litsift.tui.widgets.footer import key_of
from litsift.types import Kind, SearchResult, YearRange

#: a progress counter in a partial result's reason ("dense index: 320 / 19,639 embedded")
_COUNTER = re.compile(r"\d[\d,]* / [\d,]+ embedded")

#: a result's segments, and why it is partial ((prefix, reason) or None)
_Result = tuple[list[str], tuple[str, str] | None]


def years_label(years: YearRange) -> str:
    """``2015–2019``, ``≥2015``, ``≤2019``, ``2018`` or ``any year``
    (:meth:`~litsift.types.YearRange.label`)."""
    return years.label()


def error_text(error: Exception) -> tuple[str, str]:
    """(message, hint) of any exception, terminal-safe; LitsiftErrors carry their own hint."""
    if isinstance(error, LitsiftError):
        return for_terminal(error.message), for_terminal(error.hint)
    message = for_terminal(f"unexpected error: {type(error).__name__}: {error}")
    return message, "please report it with the query"


class StatusLine(Static):
    """One line under the results. Attributes down: the screen calls the ``show_*`` methods."""

    def __init__(self, *, show_timings: bool = True, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.show_timings = show_timings
        self.index_state = ""
        self.build_state = ""
        #: an unread background error (screens/job_errors.py), first until it is read
        self.alert = ""
        #: the main text is a message (a hint such as the prompt), shown after a build's progress
        self._hint = False
        self.modes: tuple[str, ...] = ()
        self._main: Content = Content("")
        self._shown: Content = Content("")
        #: whether :attr:`_shown` was given to the widget (the first update always is)
        self._painted = False
        #: the result shown: its segments and why it is partial ((prefix, reason) or None)
        self._result: _Result | None = None
        #: what a notice shown covers (result, main text, hint), restored by :meth:`expire`
        self._covered: tuple[_Result | None, Content, bool] | None = None
        #: the main text is a progress message: a key leaves it (its outcome replaces it)
        self._progress = False

    def _result_content(self) -> tuple[Content, bool]:
        """The result's segments, and whether they carry the build's progress (a BM25-only
        answer while its dense part is built: ``BM25 only, dense 320/600 · ETA 12 s``)."""
        assert self._result is not None
        bits, partial = self._result
        merged = False
        if partial is not None:
            only, reason = partial
            if self.build_state and only and _COUNTER.search(reason):
                only = only.removesuffix(" — ")  # the build segment counts
                if self.build_state.startswith("building "):
                    only += ", " + self.build_state.removeprefix("building ")
                    merged = True
                bits = [*bits, only]
            else:
                bits = [*bits, only + reason]
        return Content(" · ".join(bits)), merged

    def _refresh(self) -> None:
        merged = False
        if self._result is not None:
            self._main, merged = self._result_content()
        parts: list[str | tuple[str, str] | Content] = [self._main]
        if self._hint and self.build_state:  # a hint (the prompt) after the live progress
            parts = [(self.build_state, "$text-muted"), (" · ", "$text-muted"), self._main]
            merged = True
        if self.alert:
            parts[:0] = [(self.alert, "bold $error"), (" · ", "$text-muted")]
        # the build and the modes before the store's counts: those are cut in a narrow terminal
        if self.build_state and not merged:
            parts += [(" · ", "$text-muted"), (self.build_state, "$text-muted")]
        for mode in self.modes:
            parts += [" ", (f"[{mode}]", "bold $accent")]
        if self.index_state:
            parts += [(" · ", "$text-muted"), (self.index_state, "$text-muted")]
        shown = Content.assemble(*parts)
        if shown == self._shown and self._painted:
            return  # e.g. the same modes after every result: nothing to repaint
        self._shown, self._painted = shown, True
        # one line of fixed height (litsift.tcss): a repaint, never a layout pass
        self.update(shown, layout=False)

    def show_result(self, result: SearchResult) -> None:
        n = len(result.hits)
        bits = [f"{n} result{'s' if n != 1 else ''}"]
        if self.show_timings:
            bits.append(f"{result.elapsed_s * 1000:.0f} ms")
        bits += [result.query.kind.table, years_label(result.query.years)]
        if (
            undated := result.undated
        ):  # kept by the cut-off (DataFinder's protocol); say so, or they look wrong
            bits[-1] += f" (+{undated} undated)"
        if (
            not result.hits
            and (result.query.years.start, result.query.years.end) != (None, None)
            and (key := key_of(self, "clear_years"))
        ):
            bits.append(f"{key} clears the years")  # why none, and the way out
        if result.engine and result.engine != "local":  # Milvus: where it answered (issue 42)
            bits.append(for_terminal(result.engine, keep_newlines=False))
        partial = None
        if result.partial:
            only = "BM25 only — " if result.signals_used == ("bm25",) else ""
            partial = (only, for_terminal(result.partial, keep_newlines=False))
        self._result, self._hint, self._covered = (bits, partial), False, None
        self._progress = False
        self._refresh()

    def show_busy(self, kind: Kind, years: YearRange) -> None:
        self._result, self._hint, self._covered, self._progress = None, False, None, False
        self._main = Content.assemble(
            ("searching…", "italic"), f" · {kind.table} · {years_label(years)}"
        )
        self._refresh()

    def _keep_covered(self, notice: bool) -> None:
        """Remember what a notice covers (the first of several: the line under them all);
        anything else shown forgets it."""
        if not notice:
            self._covered = None
        elif self._covered is None:
            self._covered = (self._result, self._main, self._hint)
        self._progress = False

    def expire(self) -> None:
        """A key or click came after a notice: show again what it covered. No-op otherwise."""
        if self._covered is None or self._progress:
            return
        (self._result, self._main, self._hint), self._covered = self._covered, None
        self._refresh()

    def show_message(self, text: str, *, notice: bool = False, progress: bool = False) -> None:
        """Show ``text``; a ``notice`` goes on the next key (:meth:`expire`), a ``progress``
        message when the notice of its outcome goes."""
        self._keep_covered(notice or progress)
        self._progress = progress
        self._result = None
        self._main = Content(for_terminal(text, keep_newlines=False))
        self._hint = True
        self._refresh()

    def show_error(self, error: Exception | tuple[str, str], *, notice: bool = False) -> None:
        """Show ``error`` (an exception or (message, hint)); a ``notice`` goes on the next
        key (:meth:`expire`)."""
        message, hint = error_text(error) if isinstance(error, Exception) else error
        message, hint = (for_terminal(x, keep_newlines=False) for x in (message, hint))
        self._keep_covered(notice)
        self._result, self._hint = None, False
        parts: list[str | tuple[str, str]] = [("✖ " + message, "bold $error")]
        if hint:
            parts.append((f" — {hint}", "$warning"))
        self._main = Content.assemble(*parts)
        self._refresh()

    def set_modes(self, modes: list[str]) -> None:
        """Show the active view modes (label filter, more like this, coverage order...)."""
        self.modes = tuple(modes)
        self._refresh()

    def set_index_state(self, counts: dict[Kind, int], stale: frozenset[Kind]) -> None:
        """Show rows per kind, and which index needs ``litsift index``."""
        state = "store: " + ", ".join(f"{counts.get(k, 0):,} {k.table}" for k in Kind)
        if stale:
            state += f" (run `litsift index` for {', '.join(k.table for k in stale)})"
        self.index_state = state
        self._refresh()

    def set_build_state(self, text: str) -> None:
        """Show a background build's progress (done / total, ETA); "" clears it."""
        self.build_state = for_terminal(text, keep_newlines=False)
        self._refresh()

    def set_alert(self, text: str) -> None:
        """Show ``text`` first until it is cleared ("" clears it): an unread background error."""
        self.alert = for_terminal(text, keep_newlines=False)
        self._refresh()

    @property
    def text(self) -> str:
        """The plain text shown (for tests)."""
        return self._shown.plain
