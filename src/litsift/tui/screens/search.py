"""The main screen: query bar, Papers/Datasets tabs with a results table each, detail pane,
status line and footer. It owns the search state and runs every service call in a worker.

Concurrency (textual ``docs/guide/workers.md``): a search runs in an exclusive thread worker of
group ``"search"``, so a new query cancels the stale one; each request carries an id and a
result whose id is not the latest is dropped. Service calls are serialised by a lock (the
service allows one searching thread at a time); a cancelled worker waiting on the lock returns
without searching. The search worker also reads the hits' triage annotations and, with "more
like this" on, reranks by the labels, so the first paint already shows labels and the order.
Triage and ranking actions live in :mod:`.triage_actions` and :mod:`.ranking_actions`.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Footer, Input, TabbedContent, TabPane
from textual.worker import get_current_worker

from litsift.errors import LitsiftError
from litsift.store.triage import Annotation
from litsift.tui.messages import (
    QueryInvalid,
    ResultHighlighted,
    SearchFailed,
    SearchFinished,
    SearchRequested,
    StoreChecked,
)
from litsift.tui.screens.base import PANE_ID, TAB_LABEL
from litsift.tui.screens.empty_store import EmptyStoreScreen
from litsift.tui.screens.ranking_actions import NEEDS_LLM, RankingActions
from litsift.tui.screens.triage_actions import NEEDS_HIT, TriageActions
from litsift.tui.widgets import DetailPane, QueryBar, ResultsTable, StatusLine
from litsift.types import Kind, Query, SearchResult

__all__ = ["PANE_ID", "TAB_LABEL", "SearchScreen"]


class SearchScreen(TriageActions, RankingActions):
    """Search papers and datasets from the keyboard.

    Args:
        service: the only API this screen calls.
        settings: ``k``/``k0`` of each query.
        show_timings: show milliseconds in the status line (off for snapshot tests).
    """

    AUTO_FOCUS = "#query"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash", "focus_query", "Query", id="focus_query", tooltip="Put the cursor in the query"
        ),
        Binding(
            "escape",
            "back",
            "Back",
            show=False,
            id="back",
            tooltip="Back: detail → results → query",
        ),
        Binding(
            "ctrl+t",
            "toggle_kind",
            "Papers/Datasets",
            id="toggle_kind",
            tooltip="Switch between the Papers and Datasets tabs",
        ),
        Binding(
            "f2",
            "show_kind('paper')",
            "Papers",
            show=False,
            id="show_papers",
            tooltip="Show the Papers tab",
        ),
        Binding(
            "f3",
            "show_kind('dataset')",
            "Datasets",
            show=False,
            id="show_datasets",
            tooltip="Show the Datasets tab",
        ),
        Binding(
            "ctrl+l",
            "clear_years",
            "Clear years",
            id="clear_years",
            tooltip="Clear the year range and search again",
        ),
    ]

    # -- layout ----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield QueryBar(id="query-bar")
        with Horizontal(id="body"):
            with TabbedContent(initial=PANE_ID[Kind.PAPER], id="kinds"):
                for kind in Kind:
                    with TabPane(TAB_LABEL[kind], id=PANE_ID[kind]):
                        table = ResultsTable(kind, id=f"{PANE_ID[kind]}-table")
                        table.coverage_sort = self.service.coverage_order
                        yield table
            yield DetailPane(id="detail")
        yield StatusLine(show_timings=self.show_timings, id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.status.show_message("Type a query (Enter searches at once) · F1 help")
        self._check_store()

    # -- store state -----------------------------------------------------------------------
    @work(thread=True, group="store", exit_on_error=False)
    def _check_store(self) -> None:
        try:
            with self._service_lock:
                counts = self.service.counts()
                stale = frozenset(k for k in Kind if self.service.needs_index(k))
        except Exception as err:  # reported in the status line, never a crash
            self.post_message(StoreChecked({}, frozenset(), err))
            return
        self.post_message(StoreChecked(counts, stale))

    @on(StoreChecked)
    def _store_checked(self, msg: StoreChecked) -> None:
        if msg.error is not None:
            self.status.show_error(msg.error)
            return
        self.store_counts = msg.counts
        self.status.set_index_state(msg.counts, msg.stale)
        if not any(msg.counts.values()):
            self.app.push_screen(EmptyStoreScreen(str(self.service.paths.store_file)))

    # -- searching -------------------------------------------------------------------------
    @on(SearchRequested)
    def _search_requested(self, msg: SearchRequested) -> None:
        self.text, self.years = msg.text, msg.years
        self.refresh_bindings()
        self.search(self.kind)
        if msg.submitted:
            self.record_submitted()
            self.table().focus()

    @on(QueryInvalid)
    def _query_invalid(self, msg: QueryInvalid) -> None:
        self.refresh_bindings()
        self.status.show_error((msg.message, msg.hint))

    def search(self, kind: Kind, force: bool = False) -> None:
        """Search ``kind`` for the current text and years unless its table already shows them."""
        criteria = (self.text, self.years)
        if not force and self._shown[kind] == criteria and self._pending is None:
            shown = self.table(kind).result
            if kind == self.kind and shown is not None:
                self.status.show_result(shown)
            return
        self._request_id += 1
        query = Query(self.text, kind, self.years, k=self.settings.tui_k, k0=self.settings.k0)
        if not self.text.strip():  # nothing to search: clear without a worker
            self._pending = None
            self.workers.cancel_group(self, "search")
            self._base[kind] = None
            self._show(SearchResult(query, (), 0.0), {})
            self.status.show_message("Type a query (Enter searches at once) · F1 help")
            return
        self._pending = self._request_id
        self.status.show_busy(kind, self.years)
        self._run_search(self._request_id, query, self.more_like_this)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _run_search(self, request_id: int, query: Query, feedback: bool) -> None:
        worker = get_current_worker()
        with self._service_lock:
            if worker.is_cancelled or request_id != self._request_id:
                return  # a newer query superseded this one while it waited
            try:
                result = self.service.search(query)
                ids = [h.docid for h in result.hits]
                annotations = self.service.annotations(query.kind, ids) if ids else {}
            except Exception as err:  # LitsiftError or a bug: both reported, never a crash
                if not worker.is_cancelled:
                    self.post_message(SearchFailed(request_id, query, err))
                return
            shown, error = result, None
            if feedback and result.hits:
                try:
                    shown = self.service.more_like_this(result)
                except Exception as err:  # QueryError: nothing labelled yet
                    error = err
        if not worker.is_cancelled:
            self.post_message(SearchFinished(request_id, shown, annotations, result, error))

    @on(SearchFinished)
    def _search_finished(self, msg: SearchFinished) -> None:
        if msg.request_id != self._request_id:
            return  # stale
        self._pending = None
        self._base[msg.result.query.kind] = msg.base or msg.result
        self._show(msg.result, msg.annotations)
        if msg.feedback_error is not None:
            self.more_like_this = False
            self.status.show_error(msg.feedback_error)
            self.show_modes()

    def _show(self, result: SearchResult, annotations: dict[str, Annotation]) -> None:
        kind = result.query.kind
        self.reranked.pop(kind, None)
        self._shown[kind] = (result.query.text, result.query.years)
        self.query_one(TabbedContent).get_tab(PANE_ID[kind]).label = (
            f"{TAB_LABEL[kind]} ({len(result.hits)})"
            if result.query.text.strip()
            else TAB_LABEL[kind]
        )
        self.table(kind).show_result(result, annotations)
        if kind == self.kind:
            self.status.show_result(result)
            self.show_modes()
        self.score_aspects(kind, result)  # after the first paint, in a worker
        self.refresh_bindings()

    @on(SearchFailed)
    def _search_failed(self, msg: SearchFailed) -> None:
        if msg.request_id != self._request_id:
            return
        self._pending = None
        self._shown[msg.query.kind] = None  # retry on the next request
        self.status.show_error(msg.error)
        if not isinstance(msg.error, LitsiftError):
            self.notify(
                f"{type(msg.error).__name__}: {msg.error}",
                title="Search failed",
                severity="error",
                markup=False,
            )

    # -- results and detail ----------------------------------------------------------------
    @on(ResultHighlighted)
    def _highlighted(self, msg: ResultHighlighted) -> None:
        if msg.kind == self.kind:
            self.detail.show_hit(msg.hit, self.extras(msg.kind, msg.hit))
            self.refresh_bindings()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        kind = Kind.PAPER if event.pane.id == PANE_ID[Kind.PAPER] else Kind.DATASET
        if kind == self.kind and self._shown[kind] is not None:
            return
        self.kind = kind
        table = self.table(kind)
        self.detail.show_hit(table.highlighted_hit, self.extras(kind, table.highlighted_hit))
        self.show_modes()
        self.search(kind)

    # -- actions ---------------------------------------------------------------------------
    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_back(self) -> None:
        focused = self.focused
        if focused is not None and (focused is self.detail or self.detail in focused.ancestors):
            self.table().focus()
        else:
            self.action_focus_query()

    def action_toggle_kind(self) -> None:
        self.action_show_kind(Kind.DATASET if self.kind == Kind.PAPER else Kind.PAPER)

    def action_show_kind(self, kind: str) -> None:
        self.query_one(TabbedContent).active = PANE_ID[Kind(kind)]

    def action_clear_years(self) -> None:
        self.query_bar.clear_years()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_years":
            years = self.query(".year").results(Input)
            return True if any(y.value for y in years) else None
        if action in NEEDS_HIT:
            return True if self.table().highlighted_hit is not None else None
        if action in NEEDS_LLM:
            return True if self.service.llm_configured and self.table().hits else None
        if action == "edit_aspects":
            return True if self.aspects[self.kind] else None
        return True
