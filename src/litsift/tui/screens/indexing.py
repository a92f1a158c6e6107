"""Background index builds of the main screen: what the store holds, and building what the
indexes do not cover yet without ever blocking the UI.

At start :class:`IndexBuilder` reads the row counts and the kinds whose index is behind the
store (``LitsiftService.needs_index``), shows them in the status line (or the empty-store
screen), and builds those kinds one after the other in a thread worker of group ``"index"``
(textual ``docs/guide/workers.md``): ``LitsiftService.build_index`` publishes BM25 first (the
searchers are dropped and the current query runs again, BM25 only), then embeds the dense part
with its progress (done / total, ETA) in the status line, and when it lands the query runs again,
hybrid. Once every kind it built is hybrid, it stores the records' sentences for aspect scoring
(``LitsiftService.build_sentences``, progress in the status line too; search is not re-run).

An index that is up to date opens the same way (issue 32): the searchers answer with BM25 alone
while the dense graph loads in a thread (``LitsiftService.load_dense_in_background``; ~1 s per
100K papers), the status line saying "dense index loading", and when it is in memory the query
runs again, hybrid (:class:`DenseLoaded`). The store check then opens the paper searcher at
once, so the load starts before the first query.
The worker never holds the screen's service lock (searches go on meanwhile: the store and the
encoder are thread-safe, and a search reads only published index parts). Closing the
app cancels the worker: the next progress call stops the build, keeping what was published.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual import on, work
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from litsift.errors import IndexMissingError, LitsiftError
from litsift.tui.messages import (
    DenseLoaded,
    IndexFailed,
    IndexLanded,
    IndexProgress,
    StoreChecked,
)
from litsift.tui.screens.empty_store import EmptyStoreScreen
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.service.api import LitsiftAPI
    from litsift.tui.widgets import StatusLine
    from litsift.tui.widgets.kind_tab import KindTab

#: seconds between two progress messages of one build
PROGRESS_EVERY_S = 0.25


class Host(Protocol):
    """What the builder needs of its screen."""

    text: str
    kind: Kind

    @property
    def status(self) -> StatusLine: ...

    def tab(self, kind: Kind | None = None) -> KindTab: ...

    def search(self, kind: Kind, force: bool = False) -> None: ...

    def job_failed(self, job: str, kind: Kind, error: Exception) -> None: ...

    def release_held_keys(self) -> None: ...


class BuildCancelled(Exception):
    """The app is closing: the background build stops (what it published stays usable)."""


def stops_when_cancelled(worker: Worker[Any]) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` for a long job in ``worker`` that raises
    :class:`BuildCancelled` once the worker is cancelled (the screen or app is closing), so
    quitting waits for one step of the job, not for all of it."""

    def progress(_done: int, _total: int) -> None:
        if worker.is_cancelled:
            raise BuildCancelled("closing")

    return progress


def eta_text(seconds: float) -> str:
    """``ETA 40 s``, ``ETA 3 min`` or ``ETA 1 h 5 min``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"ETA {s} s"
    m = round(s / 60)
    return f"ETA {m} min" if m < 60 else f"ETA {m // 60} h {m % 60} min"


#: how the status line names a build's stage
_STAGE = {
    "bm25": "BM25",
    "embed": "dense",
    "hnsw": "dense graph",
    "push": "dense (Milvus)",
    "sentences": "aspect sentences",
    "passages": "full text",
}


def done_of(done: int, total: int) -> str:
    """``320/600``; ``12%`` from 1,000 rows on: the status line has room for the result and
    the build at 80 columns (``50 results · 13 ms · papers · any year · BM25 only, dense 12%
    · ETA 32 s``)."""
    if not total:
        return f"{done:,}"
    if total < 1_000:
        return f"{done}/{total}"
    return f"{100 * done // total}%"


class Meter:
    """Progress text of one build from its ``(stage, done, total)`` calls, with an ETA from
    the embedding rate seen so far."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self._first: tuple[float, int, str] | None = None
        self._last = (0.0, "")

    def due(self, now: float, stage: str, done: int, total: int) -> bool:
        """True when a progress message is due: every :data:`PROGRESS_EVERY_S`, and at the
        start and end of a stage."""
        if now - self._last[0] >= PROGRESS_EVERY_S or done == total or stage != self._last[1]:
            self._last = (now, stage)
            return True
        return False

    def text(self, stage: str, done: int, total: int, now: float) -> str:
        """Short enough to share 80 columns with a result's count (``building dense
        320/600 · ETA 12 s``; a dataset build says ``building dataset dense ...``)."""
        of = done_of(done, total)
        what = ("dataset " if self.kind is Kind.DATASET else "") + _STAGE.get(stage, "dense")
        if stage == "bm25":
            return f"building {what} {of}"
        if self._first is None or self._first[2] != stage:
            self._first = (now, done, stage)
        t0, d0, _ = self._first
        eta = ""
        if done > d0 and total > done:
            eta = " · " + eta_text((total - done) * (now - t0) / (done - d0))
        return f"building {what} {of}{eta}"


class IndexBuilder(Widget):
    """Invisible: checks the store at mount and builds what the indexes lack (see module).

    Args:
        service: the service whose indexes are built.
        host: the screen (status line, tabs, re-running the query).
        lock: the screen's service lock, held for the short store check only.
    """

    DEFAULT_CSS = "IndexBuilder { display: none; }"

    def __init__(self, service: LitsiftAPI, host: Host, lock: threading.Lock) -> None:
        super().__init__(id="index-builder")
        self.service = service
        self.host = host
        self.service_lock = lock
        #: kinds being built (until their dense part lands or the build fails)
        self.building: frozenset[Kind] = frozenset()
        self._states: dict[Kind, str] = {}
        #: kinds whose dense part was loaded and whose query has not run again yet
        self.dense_landing: set[Kind] = set()

    def on_mount(self) -> None:
        self.service.indexes.load_dense_in_background(self._dense_loaded)
        self._check_store()

    def on_unmount(self) -> None:
        self.service.indexes.load_dense_in_background(None)

    @property
    def dense_pending(self) -> bool:
        """True while a dense part loads in the background or its query has not run again."""
        return bool(self.dense_landing or self.service.glance().dense_loading)

    def _dense_loaded(self, kind: Kind, error: LitsiftError | None) -> None:
        """From the loading thread: before it counts as done (:attr:`dense_pending`)."""
        self.dense_landing.add(kind)
        self.post_message(DenseLoaded(kind, error))

    @on(DenseLoaded)
    def _dense_landed(self, msg: DenseLoaded) -> None:
        try:
            if msg.error is not None:
                self.host.job_failed("load", msg.kind, msg.error)
            kinds = (Kind.PAPER, Kind.DATASET) if msg.kind is Kind.PAPER else (msg.kind,)
            for kind in kinds:  # dataset search takes evidence from the paper index
                self.host.tab(kind).shown = None
            if self.host.kind in kinds and self.host.text.strip():
                self.host.search(self.host.kind)
        finally:
            self.dense_landing.discard(msg.kind)

    @work(thread=True, group="store", exit_on_error=False)
    def _check_store(self) -> None:
        try:
            with self.service_lock:
                home = self.service.state()
                counts = dict(home.counts)
                stale = home.needs_index
                pending = home.sentences_pending
                read_only = home.read_only_reason is not None
        except Exception as err:  # reported in the status line, never a crash
            self.post_message(StoreChecked({}, frozenset(), err))
            return
        self.post_message(StoreChecked(counts, stale, None, pending, read_only))
        if counts.get(Kind.PAPER) and Kind.PAPER not in stale:
            # open the paper searcher now (BM25, the dense graph loading in a thread): the
            # first query finds it open; what fails here is said by that query
            try:
                with self.service_lock:
                    self.service.indexes.open(Kind.PAPER)
            except LitsiftError:
                pass

    @on(StoreChecked)
    def _store_checked(self, msg: StoreChecked) -> None:
        status = self.host.status
        if msg.error is not None:
            self.host.job_failed("check", Kind.PAPER, msg.error)
            return
        # stale kinds are built right away, but in a read-only home (a build would fail)
        status.set_index_state(msg.counts, msg.stale if msg.read_only else frozenset())
        if not any(msg.counts.values()):
            home = self.service.state()
            formats = list(home.ingest_formats)
            self.app.push_screen(EmptyStoreScreen(str(home.store_path), formats))
        elif (msg.stale or msg.sentences_pending) and not msg.read_only:
            stale = msg.stale - self.building  # a search may have started one already
            self.building = self.building | stale
            also = stale | msg.sentences_pending
            self._build(tuple(k for k in Kind if k in stale), tuple(k for k in Kind if k in also))

    def build_missing(self, error: Exception, kind: Kind) -> bool:
        """A search of ``kind`` failed with ``error``: True when it waits for a build (the
        query runs again when its BM25 part lands), False when ``error`` is to be said.

        It waits when the index is missing though the store holds rows of ``kind``, and the
        home is writable (a read-only one builds nothing: the error's hint says what to do).
        A build of ``kind`` starts here unless one is underway: the start's store check had
        not seen those rows where they were imported from a shell while the app ran (or into
        an empty store), and the status line said "building the BM25 index" while nothing was
        built, for good, with the start's counts ("0 datasets").
        """
        if not isinstance(error, IndexMissingError):
            return False
        home = self.service.state()
        if not home.counts.get(kind) or home.read_only_reason is not None:
            return False
        self.host.status.set_index_state(dict(home.counts), frozenset())
        if kind not in self.building:
            self.building = self.building | {kind}
            self._build((kind,))
        return True

    def _progress_of(self, kind: Kind, worker: Worker[None]) -> Callable[[str, int, int], None]:
        """A build's ``progress(stage, done, total)``: posts the meter's text when due, and
        stops the build (:class:`BuildCancelled`) once the app is closing."""
        meter = Meter(kind)

        def progress(stage: str, done: int, total: int) -> None:
            if worker.is_cancelled:
                raise BuildCancelled("the app is closing")
            now = time.monotonic()
            if meter.due(now, stage, done, total):
                text = meter.text(stage, done, total, now)
                if stage == "embed" and self.service.glance().embedding_note is not None:
                    text += " · one process"  # slower: the worker processes could not run
                self.post_message(IndexProgress(kind, text))

        return progress

    @work(thread=True, group="index", exit_on_error=False)
    def _build(self, kinds: tuple[Kind, ...], sentence_kinds: tuple[Kind, ...] = ()) -> None:
        worker: Worker[None] = get_current_worker()
        for kind in kinds:
            progress = self._progress_of(kind, worker)

            def bm25_ready(kind: Kind = kind) -> None:
                self.post_message(IndexLanded(kind, "bm25"))

            try:
                self.service.build(kind, "index", progress, on_bm25=bm25_ready)
            except BuildCancelled:
                return
            except Exception as err:  # LitsiftError (e.g. another build) or a bug: reported
                self.post_message(IndexFailed(kind, err))
                continue
            self.post_message(IndexLanded(kind, "dense"))
        if Kind.PAPER in kinds:  # imported full text: the passage index (skipped if unchanged)
            try:
                changed = self.service.build(
                    Kind.PAPER, "passages", self._progress_of(Kind.PAPER, worker)
                )
            except BuildCancelled:
                return
            except Exception as err:  # full-text search stays as it was: reported
                self.post_message(IndexFailed(Kind.PAPER, err, "passages"))
            else:
                if changed:
                    self.post_message(IndexLanded(Kind.PAPER, "passages"))
        # third phase, after every kind is hybrid: aspect scoring's sentences, for the kinds just
        # built and those whose sentence phase an earlier run left unfinished
        for kind in sentence_kinds or kinds:
            try:
                self.service.build(kind, "sentences", self._progress_of(kind, worker))
            except BuildCancelled:
                return
            except Exception as err:  # scoring still embeds per search: reported, not fatal
                self.post_message(IndexFailed(kind, err, "sentences"))
                continue
            self.post_message(IndexLanded(kind, "sentences"))

    def _show_states(self) -> None:
        self.host.status.set_build_state(" · ".join(t for t in self._states.values() if t))

    @on(IndexProgress)
    def _progress(self, msg: IndexProgress) -> None:
        later = (" aspect sentences ", " full text ")  # phases after the kind's own build
        if msg.kind in self.building or any(p in msg.text for p in later):
            self._states[msg.kind] = msg.text
            self._show_states()

    @on(IndexLanded)
    def _landed(self, msg: IndexLanded) -> None:
        if msg.part in ("sentences", "passages"):
            self._states.pop(msg.kind, None)
            self._show_states()
            if msg.part == "sentences":
                return
        self.service.indexes.invalidate(msg.kind)
        if msg.part == "dense":
            self.building = self.building - {msg.kind}
            self._states.pop(msg.kind, None)
            self._show_states()
        # dataset search takes evidence from the paper index: both tabs search again
        kinds = (Kind.PAPER, Kind.DATASET) if msg.kind is Kind.PAPER else (msg.kind,)
        for kind in kinds:
            self.host.tab(kind).shown = None
        if self.host.kind in kinds and self.host.text.strip():
            self.host.search(self.host.kind)

    @on(IndexFailed)
    def _failed(self, msg: IndexFailed) -> None:
        self.building = self.building - {msg.kind}
        self._states.pop(msg.kind, None)
        self._show_states()
        self.host.job_failed(msg.job, msg.kind, msg.error)
        self.host.release_held_keys()  # typed behind a query that waited for this build
