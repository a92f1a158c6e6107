"""The main screen: query bar, a :class:`KindTab` per kind (Papers, Datasets) with its results
table, detail pane, status line and footer. The screen composes its parts, each owning its
state: every tab holds the result and aspect state of its kind; :class:`TriageCommands` and
:class:`RankingCommands` carry the triage and ranking behaviour (and the modes that apply to
both tabs); :class:`ServiceCalls` serialises the service calls and queues triage writes. The
parts see the screen through the narrow Protocols of :mod:`~litsift.tui.screens.host` and never
import it. The screen itself keeps only the query being shown and the search requests, and
routes keys and messages to those parts; :class:`IndexBuilder` checks the store at start and
builds, in the background, what the indexes do not cover yet.

Concurrency (textual ``docs/guide/workers.md``): a search runs in an exclusive thread worker of
group ``"search"``, so a new query cancels the stale one; each request carries an id and a
result whose id is not the latest is dropped. Service calls are serialised by a lock (the
service allows one searching thread at a time); a cancelled worker waiting on the lock returns
without searching. The search worker also reads the hits' triage annotations and, with "more
like this" on, reranks by the labels, so the first paint already shows labels and the order.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Input, TabbedContent
from textual.worker import get_current_worker

from litsift.config import SearchSettings
from litsift.errors import LitsiftError
from litsift.service.api import LitsiftAPI
from litsift.tui.collector import CollectorHold
from litsift.tui.messages import (
    AnnotationsChanged,
    AspectsJudged,
    AspectsScored,
    Notice,
    QueryInvalid,
    Reordered,
    ResultHighlighted,
    RQExtracted,
    SearchFailed,
    SearchFinished,
    SearchRequested,
)
from litsift.tui.screens.command_keys import CommandKeys, typed_in_query
from litsift.tui.screens.dataset_users import open_users
from litsift.tui.screens.indexing import IndexBuilder
from litsift.tui.screens.job_errors import JobErrors
from litsift.tui.screens.jobs import JobDone, ServiceCalls, after_paint
from litsift.tui.screens.keys import (
    ERROR_BINDINGS,
    NEEDS_HIT,
    NEEDS_LLM,
    RANKING_BINDINGS,
    SCREEN_BINDINGS,
    TRIAGE_BINDINGS,
)
from litsift.tui.screens.navigation import NavScreen
from litsift.tui.screens.ranking import RankingCommands
from litsift.tui.screens.rq import RQCommands
from litsift.tui.screens.triage import TriageCommands
from litsift.tui.widgets import DetailPane, QueryBar, StatusLine
from litsift.tui.widgets.dataset_users import TrailReads
from litsift.tui.widgets.footer import KeyFooter
from litsift.tui.widgets.kind_tab import PANE_ID, TAB_LABEL, KindTab
from litsift.types import Annotation, Kind, Query, SearchResult, YearRange

__all__ = ["PANE_ID", "TAB_LABEL", "SearchScreen"]

_PROMPT = "Type a query (Enter searches at once, ↓ moves into the results) · F1 help · Ctrl+Q quits"

#: T in a library without indexed full text
_NO_FULLTEXT = (
    "no full text in this library",
    "import PDFs, GROBID TEI, JATS or S2ORC files (litsift ingest papers PATH); litsift "
    "indexes their text when it starts",
)


class SearchScreen(CommandKeys, NavScreen):
    """Search papers and datasets from the keyboard.

    Args:
        service: the only API this screen calls.
        settings: ``k``/``k0`` of each query.
        show_timings: show milliseconds in the status line (off for snapshot tests).
    """

    AUTO_FOCUS = "#query"
    # the footer's order (triage, the screen's own, ranking): a narrow one cuts the last
    BINDINGS: ClassVar[list[BindingType]] = [
        *ERROR_BINDINGS,
        *TRIAGE_BINDINGS,
        *SCREEN_BINDINGS,
        *RANKING_BINDINGS,
    ]

    def __init__(
        self, service: LitsiftAPI, settings: SearchSettings, *, show_timings: bool = True
    ) -> None:
        super().__init__(id="search-screen")
        self.service = service
        self.settings = settings
        self.show_timings = show_timings
        self.kind = Kind.PAPER  # text and _pending: NavScreen's defaults
        self.years = YearRange()
        self.calls = ServiceCalls(self, service.calls_lock)
        self.triage = TriageCommands(self)
        self.ranking = RankingCommands(self)
        self.rq = RQCommands(self)
        self.job_errors = JobErrors(self)
        #: the user's full-text choice (key T); None follows the library (see :attr:`fulltext`)
        self._fulltext: bool | None = None
        #: why labels, notes and history cannot be saved here, in a few words ("disk full",
        #: "read-only home"), or None
        self.read_only: str | None = None
        self._request_id = 0
        self._detail_pending = False  # a new result's detail waits for its rows' frame
        #: garbage collection waits from a search request to its painted rows
        self.collector = CollectorHold(self)

    @property
    def fulltext(self) -> bool:
        """Search papers' imported full text too: the user's choice (key T) once made, else on
        whenever the library's full text is indexed (:meth:`LitsiftAPI.glance`, so
        a passage index built during the session turns it on)."""
        if self._fulltext is not None:
            return self._fulltext
        return self.service.glance().passages

    @fulltext.setter
    def fulltext(self, on: bool) -> None:
        self._fulltext = on

    # -- parts -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield QueryBar(id="query-bar")
        with Horizontal(id="body"):
            with TabbedContent(initial=PANE_ID[Kind.PAPER], id="kinds"):
                for kind in Kind:
                    yield KindTab(kind, self.service.aspects.order)
            yield DetailPane(id="detail", reads=TrailReads(self.service.refs, self.calls.lock))
        yield StatusLine(show_timings=self.show_timings, id="status")
        yield KeyFooter()
        yield IndexBuilder(self.service, self, self.calls.lock)  # checks the store, builds

    @property
    def request_id(self) -> int:
        """Id of the latest search request (reorderings of older results are dropped)."""
        return self._request_id

    @property
    def busy(self) -> bool:
        """True while a search, aspect scoring, reordering or triage job is unfinished (or keys
        typed behind Down wait for the query's rows)."""
        return (
            self._pending is not None
            or self._detail_pending
            or self.query_bar.debouncing
            or any(self.tab(k).scoring is not None for k in Kind)
            or self.ranking.reordering is not None
            or self.calls.open > 0
            or self.query_one(IndexBuilder).dense_pending
            or self.detail.busy
            or any(self.table(k).holding for k in Kind)
        )

    def on_mount(self) -> None:
        self.status.show_message(_PROMPT)
        if self.read_only is not None or self.fulltext:
            self.show_modes()

    # -- detail and status -----------------------------------------------------------------
    def refresh_detail(self) -> None:
        """Re-render the detail of the highlighted hit (after its label or coverage changed)."""
        hit = self.table().highlighted_hit
        if self.detail.hit is not None and hit is None:
            hit = self.detail.hit  # e.g. a reference opened from an answer
        self.detail.show_hit(hit, self.tab().extras(hit))

    def show_modes(self) -> None:
        """Put the active view modes in the status line: the parts' (label filter, more like
        this, by coverage), then full text, the tab's reranking and a read-only home."""
        modes = [*self.triage.modes(), *self.ranking.modes()]
        if self.fulltext:  # the state, then what T does
            modes.append("full text: on — T turns off")
        elif self.service.glance().passages:  # turned off with T: say that there is full text
            modes.append("full text: off — T turns on")
        if self.tab().reranked:
            modes.append(self.tab().reranked)
        if self.read_only is not None:
            modes.append(f"{self.read_only}: nothing is saved")
        self.status.set_modes(modes)

    def cancel_workers(self, group: str) -> None:
        """Cancel this screen's workers of ``group``."""
        self.workers.cancel_group(self, group)

    # -- searching -------------------------------------------------------------------------
    @on(SearchRequested)
    def _search_requested(self, msg: SearchRequested) -> None:
        self.text, self.years = msg.text, msg.years
        self.collector.hold()
        self.refresh_bindings()
        self.search(self.kind)
        if msg.submitted:
            self.triage.submit(pending=self._pending is not None)
        else:  # typing again after Enter: stay in the query
            self.triage.submitted_painted(focus=False)

    @on(QueryInvalid)
    def _query_invalid(self, msg: QueryInvalid) -> None:
        self.release_held_keys()  # no search follows: the keys act on the rows shown
        self.refresh_bindings()
        self.status.show_error((msg.message, msg.hint))

    def search(self, kind: Kind, force: bool = False) -> None:
        """Search ``kind`` for the current text and years unless its table already shows them."""
        tab = self.tab(kind)
        if not force and tab.shown == (self.text, self.years) and self._pending is None:
            if kind == self.kind and tab.result is not None:
                self.status.show_result(tab.result)
            self.release_held_keys()  # the rows shown are this query's already
            return
        self._request_id += 1
        now = (self.text, self.years)  # another tab not searched for these yet counts nothing:
        for other in (k for k in Kind if k is not kind and self.tab(k).shown != now):
            self.tab(other).retitle(stale=True)
        query = Query(
            self.text,
            kind,
            self.years,
            k=self.settings.tui_k,
            k0=self.settings.k0,
            fulltext=self.fulltext and kind is Kind.PAPER,
        )
        if not self.text.strip():  # nothing to search: clear without a worker
            self._pending = None
            self.cancel_workers("search")
            tab.base = None
            self._show(SearchResult(query, (), 0.0), {})
            self.status.show_message(_PROMPT)
            return
        self._pending = self._request_id
        self.status.show_busy(kind, self.years)
        self._run_search(self._request_id, query, self.ranking.more_like_this)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _run_search(self, request_id: int, query: Query, feedback: bool) -> None:
        worker = get_current_worker()
        with self.calls.lock:
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
        self.tab(msg.result.query.kind).base = msg.base or msg.result
        self._show(msg.result, msg.annotations)
        if msg.feedback_error is not None:
            self.ranking.more_like_this = False
            self.status.show_error(msg.feedback_error, notice=True)
            self.show_modes()

    def _show(self, result: SearchResult, annotations: dict[str, Annotation]) -> None:
        kind = result.query.kind
        scoring = bool(result.query.text.strip() and result.hits)
        self.tab(kind).show_result(result, annotations, scoring=scoring)
        if kind == self.kind:
            self.status.show_result(result)
            self.show_modes()
            self._detail_pending = True  # its highlights wait: the rows are painted first
            after_paint(self, self._detail_after_paint, self.tab(kind).table)
        # the "…" is drawn with the rows; the worker starts after they are painted
        self.ranking.score_aspects(kind, result, after_paint=True)
        if kind != self.kind:  # the shown tab's keys are read after its rows are painted
            self.refresh_bindings()

    @on(SearchFailed)
    def _search_failed(self, msg: SearchFailed) -> None:
        if msg.request_id != self._request_id:
            return
        self._pending = None
        self.collector.release()
        self.tab(msg.query.kind).shown = None  # retry on the next request
        waits = self.query_one(IndexBuilder).build_missing(msg.error, msg.query.kind)
        if not waits:  # else Enter / Down wait for the re-run: its rows take the focus
            self.triage.submitted_painted()
            self.release_held_keys()  # said in the status line; the keys act on the rows shown
        if waits:
            self.status.show_message("building the BM25 index — this search runs when it is ready")
            return
        self.status.show_error(msg.error)
        if not isinstance(msg.error, LitsiftError):
            text = f"{type(msg.error).__name__}: {msg.error}"
            self.notify(text, title="Search failed", severity="error", markup=False)

    # -- results, detail and background results --------------------------------------------
    @on(ResultHighlighted)
    def _highlighted(self, msg: ResultHighlighted) -> None:
        if msg.kind == self.kind and not self._detail_pending:
            self.detail.show_hit(msg.hit, self.tab(msg.kind).extras(msg.hit))
            self.refresh_bindings()

    def _detail_after_paint(self) -> None:
        self._detail_pending = False
        self.collector.release()  # the rows are painted: collect now, not in their frame
        self._highlighted(ResultHighlighted(self.kind, self.table().highlighted_hit))
        self.triage.submitted_painted()
        if not self.rows_stale():  # the query's rows: the keys held behind Down act on them
            self.release_held_keys()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        kind = Kind.PAPER if event.pane.id == PANE_ID[Kind.PAPER] else Kind.DATASET
        self.tab_shown(kind)
        if kind == self.kind and self.tab(kind).shown is not None:
            return
        self.kind = kind
        tab = self.tab(kind)
        self.detail.show_hit(tab.table.highlighted_hit, tab.extras(tab.table.highlighted_hit))
        self.show_modes()
        self.search(kind)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.focused is event.data_table:  # not when a key typed behind Enter moved on
            self.open_detail()

    @on(JobDone)
    def _job_done(self, done: JobDone) -> None:
        try:
            if isinstance(done.result, AnnotationsChanged):
                self._annotations_changed(done.result)
            elif isinstance(done.result, Notice):
                self._notice(done.result)
            elif done.result is not None:
                self.post_message(done.result)
        finally:
            self.calls.job_done()

    @on(Notice)
    def _notice(self, msg: Notice) -> None:
        if (err := msg.error) is not None:
            self.status.show_error(err, notice=True)
            hint = f" — {err.hint}" if isinstance(err, LitsiftError) and err.hint else ""
            text = err.message + hint if isinstance(err, LitsiftError) else str(err)
            title = "litsift" if isinstance(err, LitsiftError) else "Error"
            self.notify(text, title=title, severity="error", markup=False)
        elif msg.text:
            self.status.show_message(msg.text, notice=True)
            self.notify(msg.text, markup=False)

    @on(AnnotationsChanged)
    def _annotations_changed(self, msg: AnnotationsChanged) -> None:
        """Show fresh annotations; with "more like this" on, rerank by the new labels."""
        self.table(msg.kind).update_annotations(msg.annotations)
        self.detail.forget_links()  # the kept set may have changed
        self.refresh_detail()
        if msg.notice:
            self.status.show_message(msg.notice, notice=True)
        self.show_modes()
        if self.ranking.more_like_this and msg.kind == self.kind:
            self.ranking.rerun_feedback()

    @on(AspectsScored)
    def _aspects_scored(self, msg: AspectsScored) -> None:
        self.ranking.aspects_scored(msg)

    @on(AspectsJudged)
    def _aspects_judged(self, msg: AspectsJudged) -> None:
        self.ranking.aspects_judged(msg)

    @on(Reordered)
    def _reordered(self, msg: Reordered) -> None:
        self.ranking.reordered(msg)

    # -- actions ---------------------------------------------------------------------------
    def job_failed(self, job: str, kind: Kind, error: Exception) -> None:
        """A background job (an index build) failed: said until read (``^o``)."""
        self.job_errors.failed(job, kind, error)

    def action_clear_years(self) -> None:
        self.query_bar.clear_years()

    def action_toggle_fulltext(self) -> None:
        if not self.fulltext and not self.service.glance().passages:
            self.status.show_error(_NO_FULLTEXT, notice=True)  # nothing to turn on
            return
        self.fulltext = not self.fulltext
        self.show_modes()
        self.search(Kind.PAPER, force=True)

    def action_citations(self) -> None:
        """The highlighted paper's references, citing papers and snowball rounds; a dataset's
        users (:func:`~litsift.tui.screens.dataset_users.open_users`)."""
        from litsift.tui.screens.citations import CitationsScreen

        hit = self.table().highlighted_hit
        if hit is None or hit.kind is not Kind.PAPER:
            return open_users(self, hit)
        self.app.push_screen(
            CitationsScreen(self.service, hit.docid, self.calls.lock, self.text, self.post_message)
        )

    @on(RQExtracted)
    def _rq_extracted(self, msg: RQExtracted) -> None:
        self.notify(msg.text, markup=False)
        self.search(self.kind, force=True)  # the rows carry the new problem / method

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "read_errors":
            return bool(self.job_errors.unread)
        if action == "focus_results":  # only from the query bar: elsewhere Down moves a cursor
            return self._in_query_bar()
        if self._in_query_bar() and typed_in_query(self._bindings.key_to_bindings, action):
            return False  # the key types into the query: hidden from the footer there
        if action == "clear_years":
            years = self.query(".year").results(Input)
            return any(y.value for y in years)  # hidden with no year: nothing to clear
        if action in NEEDS_HIT:
            return True if self.table().highlighted_hit is not None else None
        if action in NEEDS_LLM:  # without an LLM the key says what to configure
            return True if self.table().hits else None
        if action == "edit_aspects":
            return True if self.tab().aspects else None
        return True
