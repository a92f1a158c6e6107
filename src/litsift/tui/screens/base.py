"""State and plumbing the main screen's parts share: the widgets, the view modes, and the
background-job helpers.

Service calls are serialised by ``_service_lock`` (searches, triage jobs, aspect scoring), so
the encoder and the store are used by one thread at a time. Triage writes (labels, notes,
collections, saved searches, exports) run in order: each job is queued and a draining worker
pops them first-in first-out under a lock, so "label, then undo" never run the other way
round. Jobs return a message (:class:`~litsift.tui.messages.AnnotationsChanged` or
:class:`~litsift.tui.messages.Notice`) that is posted back to the screen.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from textual import on, work
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable

from litsift.config import SearchSettings
from litsift.errors import LitsiftError
from litsift.service import LitsiftService
from litsift.store.triage import LabelFilter
from litsift.tui.messages import AnnotationsChanged, Notice
from litsift.tui.widgets import DetailPane, QueryBar, ResultsTable, StatusLine
from litsift.tui.widgets.detail_pane import Extras
from litsift.tui.widgets.results_table import FILTER_NAME
from litsift.types import Aspect, Hit, Kind, SearchResult, YearRange

PANE_ID = {Kind.PAPER: "papers", Kind.DATASET: "datasets"}
TAB_LABEL = {Kind.PAPER: "Papers", Kind.DATASET: "Datasets"}

#: a background job: runs in a worker thread, returns the message to post (or None)
Job = Callable[[], Message | None]


@dataclass
class JobDone(Message):
    """A queued job finished; ``result`` is what it returned (applied by the screen)."""

    result: Message | None


class ScreenBase(Screen[None]):
    """The main screen's state; :class:`~litsift.tui.screens.search.SearchScreen` composes it."""

    def __init__(
        self, service: LitsiftService, settings: SearchSettings, *, show_timings: bool = True
    ) -> None:
        super().__init__(id="search-screen")
        self.service = service
        self.settings = settings
        self.show_timings = show_timings
        self.kind = Kind.PAPER
        self.text = ""
        self.years = YearRange()
        self.store_counts: dict[Kind, int] | None = None
        self._request_id = 0
        self._pending: int | None = None
        self._shown: dict[Kind, tuple[str, YearRange] | None] = dict.fromkeys(Kind)
        self._service_lock = threading.Lock()
        # the fused result of the last search of each kind (before any reordering)
        self._base: dict[Kind, SearchResult | None] = dict.fromkeys(Kind)
        # view modes
        self.label_filter: LabelFilter = "all"
        self.more_like_this = False
        self.by_coverage = False
        self.reranked: dict[Kind, str] = {}
        # aspects: the ones scored last per kind, and user-edited ones per (kind, query text)
        self.aspects: dict[Kind, list[Aspect]] = {k: [] for k in Kind}
        self._edited_aspects: dict[Kind, tuple[str, list[Aspect]]] = {}
        self._aspect_request: dict[Kind, int] = dict.fromkeys(Kind, 0)
        self._scoring: dict[Kind, int | None] = dict.fromkeys(Kind)
        # LLM 0/1/2 grades per doc id and aspect, for the current aspects of each kind
        self.llm_grades: dict[Kind, dict[str, tuple[int | None, ...]]] = {k: {} for k in Kind}
        self._reordering: int | None = None
        # triage job queue
        self._jobs: deque[Job] = deque()
        self._jobs_lock = threading.Lock()
        self._jobs_open = 0

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

    def table(self, kind: Kind | None = None) -> ResultsTable:
        return self.query_one(f"#{PANE_ID[kind or self.kind]}-table", ResultsTable)

    @property
    def busy(self) -> bool:
        """True while a search, an aspect scoring, a reordering or a triage job is unfinished."""
        return (
            self._pending is not None
            or self.query_bar.debouncing
            or any(v is not None for v in self._scoring.values())
            or self._reordering is not None
            or self._jobs_open > 0
        )

    # -- detail and status -----------------------------------------------------------------
    def extras(self, kind: Kind, hit: Hit | None) -> Extras:
        """Triage state and aspect coverage of ``hit`` for the detail pane."""
        if hit is None:
            return Extras()
        table = self.table(kind)
        return Extras(
            annotation=table.info(hit).annotation,
            aspects=tuple(self.aspects[kind]),
            coverage=table.coverages.get(hit.docid),
            scoring=self._scoring[kind] is not None,
            llm_grades=self.llm_grades[kind].get(hit.docid),
        )

    def refresh_detail(self) -> None:
        """Re-render the detail of the highlighted hit (after its label or coverage changed)."""
        table = self.table()
        hit = table.highlighted_hit
        if self.detail.hit is not None and hit is None:
            hit = self.detail.hit  # e.g. a reference opened from an answer
        self.detail.show_hit(hit, self.extras(self.kind, hit))

    def show_modes(self) -> None:
        """Put the active view modes in the status line."""
        modes = []
        if self.label_filter != "all":
            modes.append(f"show: {FILTER_NAME[self.label_filter]}")
        if self.more_like_this:
            modes.append("more like this")
        if self.by_coverage:
            modes.append("by coverage")
        if self.kind in self.reranked:
            modes.append(self.reranked[self.kind])
        self.status.set_modes(modes)

    # -- background triage jobs ------------------------------------------------------------
    def run_job(self, job: Job) -> None:
        """Queue ``job`` (a service write) to run after the ones queued before it."""
        self._jobs.append(job)
        self._jobs_open += 1
        self._drain_jobs()

    @work(thread=True, group="triage", exit_on_error=False)
    def _drain_jobs(self) -> None:
        with self._jobs_lock:
            while self._jobs:
                job = self._jobs.popleft()
                try:
                    with self._service_lock:  # never alongside a search
                        msg = job()
                except Exception as err:  # reported, never a crash
                    msg = Notice(error=err)
                self.post_message(JobDone(msg))

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
            self._jobs_open = max(0, self._jobs_open - 1)

    @on(Notice)
    def _notice(self, msg: Notice) -> None:
        if msg.error is not None:
            self.status.show_error(msg.error)
            title = "litsift" if isinstance(msg.error, LitsiftError) else "Error"
            text = str(msg.error)
            if isinstance(msg.error, LitsiftError):
                text = msg.error.message + (f" — {msg.error.hint}" if msg.error.hint else "")
            self.notify(text, title=title, severity="error", markup=False)
        elif msg.text:
            self.status.show_message(msg.text)
            self.notify(msg.text, markup=False)

    @on(AnnotationsChanged)
    def _annotations_changed(self, msg: AnnotationsChanged) -> None:
        """Show fresh annotations; subclasses extend it (e.g. to redo "more like this")."""
        self.table(msg.kind).update_annotations(msg.annotations)
        self.refresh_detail()
        if msg.notice:
            self.status.show_message(msg.notice)
        self.show_modes()
        self.after_annotations(msg)

    def after_annotations(self, msg: AnnotationsChanged) -> None:
        """Hook run after annotations changed (the ranking actions redo "more like this")."""

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.detail.focus()
