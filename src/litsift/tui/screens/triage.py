"""Triage on the main screen: labels with undo, the label filter, notes and tags, collections,
query history and saved searches, and export.

:class:`TriageCommands` is composed by :class:`~litsift.tui.screens.search.SearchScreen`, whose
``action_*`` methods call it; it sees the screen as a
:class:`~litsift.tui.screens.host.TriageHost`. Every read or write of the store runs as a queued job
(:meth:`~litsift.tui.screens.jobs.ServiceCalls.run_job`) in a worker thread; label keys update
the table at once and the job then confirms the stored state. Bindings have ids (``[keymap]``
names) equal to their action names.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace
from functools import partial

from textual.message import Message

from litsift.text import for_terminal
from litsift.tui.messages import AnnotationsChanged, Notice
from litsift.tui.screens.host import TriageHost
from litsift.tui.screens.modals import (
    ExportRequest,
    ExportScreen,
    HistoryScreen,
    NoteEdit,
    NoteScreen,
    PromptScreen,
)
from litsift.tui.widgets.results_table import FILTER_NAME
from litsift.types import LABEL_FILTERS, HistoryEntry, Kind, Label, LabelFilter, Query

#: the longest title a status message quotes
TITLE_CHARS = 60
#: the longest name proposed for a saved search
NAME_CHARS = 40


def short_title(title: str) -> str:
    """``title`` on one line, terminal-safe, cut to :data:`TITLE_CHARS` with "…"."""
    text = " ".join(for_terminal(title, keep_newlines=False).split())
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


def search_name(text: str) -> str:
    """A saved search's proposed name: the query's first words, up to :data:`NAME_CHARS`
    characters (``text[:40]`` cut a word: "... low-resource ne")."""
    words = " ".join(text.split())
    return textwrap.shorten(words, NAME_CHARS, placeholder="") or words[:NAME_CHARS]


class TriageCommands:
    """Label, filter, annotate, remember and export the results of ``screen``."""

    #: the collection named last (offered again, across screens)
    last_collection = ""

    def __init__(self, screen: TriageHost) -> None:
        self.screen = screen
        #: the label filter of both tables
        self.label_filter: LabelFilter = "all"
        #: the query submitted with Enter whose rows are not painted yet
        self.submitted: Query | None = None

    def modes(self) -> list[str]:
        """The view mode triage sets, as the status line names it: the label filter."""
        if self.label_filter == "all":
            return []
        return [f"show: {FILTER_NAME[self.label_filter]}"]

    # -- labels ----------------------------------------------------------------------------
    def label(self, label: str) -> None:
        screen = self.screen
        table = screen.table()
        hit = table.highlighted_hit
        if hit is None:
            return
        kind, doc_id = hit.kind, hit.docid
        ann = table.info(hit).annotation
        new = None if ann.label == Label(label) else Label(label)
        table.update_annotations({doc_id: replace(ann, label=new)})  # shown at once
        screen.refresh_detail()

        def job() -> Message:
            screen.service.annotate(kind, doc_id, label=new)
            done = (
                f"{short_title(hit.record.display_title)}: {new.value if new else 'label cleared'}"
            )
            return AnnotationsChanged(kind, screen.service.annotations(kind, [doc_id]), done)

        screen.calls.run_job(job)

    def undo_label(self) -> None:
        service = self.screen.service

        def job() -> Message:
            undone = service.undo()
            if undone is None:
                return Notice("nothing to undo")
            kind, doc_id, restored = undone
            what = restored.value if restored else "unlabelled"
            record = service.get(kind, doc_id)
            title = short_title(record.display_title if record is not None else doc_id)
            return AnnotationsChanged(
                kind, service.annotations(kind, [doc_id]), f"undone: {title} is {what}"
            )

        self.screen.calls.run_job(job)

    def cycle_filter(self) -> None:
        at = LABEL_FILTERS.index(self.label_filter)
        self.label_filter = LABEL_FILTERS[(at + 1) % len(LABEL_FILTERS)]
        for kind in Kind:
            self.screen.table(kind).set_view(label_filter=self.label_filter)
            self.screen.tab(kind).retitle()
        self.screen.refresh_detail()
        self.screen.show_modes()

    # -- notes and collections -------------------------------------------------------------
    def edit_note(self) -> None:
        screen = self.screen
        hit = screen.table().highlighted_hit
        if hit is None:
            return
        ann = screen.table().info(hit).annotation
        kind, doc_id = hit.kind, hit.docid

        def save(edit: NoteEdit | None) -> None:
            if edit is None:
                return

            def job() -> Message:
                screen.service.annotate(kind, doc_id, note=(edit.text, edit.tags))
                return AnnotationsChanged(
                    kind, screen.service.annotations(kind, [doc_id]), "note saved"
                )

            screen.calls.run_job(job)

        screen.app.push_screen(NoteScreen(hit.record.display_title, ann.note, ann.tags), save)

    def add_to_collection(self) -> None:
        screen = self.screen
        hit = screen.table().highlighted_hit
        if hit is None:
            return
        kind, doc_id = hit.kind, hit.docid

        def add(name: str | None) -> None:
            if name is None:
                return
            TriageCommands.last_collection = name

            def job() -> Message:
                stored = screen.service.annotate(kind, doc_id, collection=name)
                return AnnotationsChanged(
                    kind, screen.service.annotations(kind, [doc_id]), f"added to {stored!r}"
                )

            screen.calls.run_job(job)

        screen.app.push_screen(
            PromptScreen(
                "Add to collection",
                hit.record.display_title,
                self.last_collection,
                "collection name, e.g. related work",
            ),
            add,
        )

    # -- history and saved searches --------------------------------------------------------
    def submit(self, pending: bool) -> None:
        """Enter in the query bar: the results get the focus and the query goes to the history
        once its rows are painted (:meth:`submitted_painted`; at once when ``pending`` is False,
        i.e. the table already shows them). Not before: the focus move redraws the key footer
        and bindings in the frame that would paint the rows, and the history write would queue
        for the service's lock ahead of the search."""
        screen = self.screen
        self.submitted = Query(screen.text, screen.kind, screen.years)
        if not pending:
            self.submitted_painted()

    def submitted_painted(self, focus: bool = True) -> None:
        """The submitted query's rows are painted (or it failed, or ``focus`` False: the user
        typed on): record it and, with ``focus``, move into the results when there are any.
        With none (no hits, a failed search) the query keeps the focus: in an empty table the
        next word typed ran the table's keys (``e`` export, ``q`` quit). No-op otherwise."""
        query, self.submitted = self.submitted, None
        if query is None:
            return
        table = self.screen.table()
        answered = self.screen.tab(query.kind).shown == (query.text, query.years)
        if focus and not table.row_count and not answered:  # it waits for a build: the rows
            self.submitted = query  # of its re-run take the focus
            return
        self.record_submitted(query)
        if focus and table.row_count:
            table.focus()

    def record_submitted(self, query: Query | None = None) -> None:
        """Add ``query`` (default: the screen's current one) to the history (on Enter, not per
        keystroke)."""
        screen = self.screen
        query = query or Query(screen.text, screen.kind, screen.years)
        if not query.text.strip():
            return

        def job() -> Message | None:
            screen.service.save_query(query)
            return None

        screen.calls.run_job(job)

    def history(self) -> None:
        self.screen.run_worker(
            self._load_history, thread=True, group="history", exit_on_error=False
        )

    def _load_history(self) -> None:
        screen = self.screen
        try:
            with screen.calls.lock:
                saved = screen.service.history(saved=True)
                recent = screen.service.history(50)
        except Exception as err:  # reported, never a crash
            screen.post_message(Notice(error=err))
            return
        screen.app.call_from_thread(
            screen.app.push_screen, HistoryScreen(saved, recent), self._rerun
        )

    def _rerun(self, entry: HistoryEntry | None) -> None:
        if entry is None:
            return
        screen = self.screen
        try:
            years = entry.year_range
        except Exception as err:  # a hand-edited history row
            screen.post_message(Notice(error=err))
            return
        if entry.kind != screen.kind:
            screen.action_show_kind(entry.kind.value)
        screen.query_bar.set_query(entry.text, years)

    def save_search(self) -> None:
        screen = self.screen
        if not screen.text.strip():
            screen.status.show_error(("nothing to save", "type a query first"), notice=True)
            return
        query = Query(screen.text, screen.kind, screen.years)

        def save(name: str | None) -> None:
            if name is None:
                return

            def job() -> Message:
                entry = screen.service.save_query(query, name)
                return Notice(f"saved search {entry.name if entry else name!r}")

            screen.calls.run_job(job)

        screen.app.push_screen(
            PromptScreen(
                "Save search", screen.text, search_name(screen.text), "a name for this search"
            ),
            save,
        )

    # -- export ----------------------------------------------------------------------------
    def export(self) -> None:
        self.screen.run_worker(self._open_export, thread=True, group="history", exit_on_error=False)

    def _open_export(self) -> None:
        screen = self.screen
        try:
            with screen.calls.lock:
                state = screen.service.state()
        except Exception as err:  # reported, never a crash
            screen.post_message(Notice(error=err))
            return
        collections = list(state.collections)
        if not (state.kept or state.maybe or collections):  # said now, not after the dialog
            screen.post_message(Notice("nothing to export yet: label some results keep first"))
            return
        dialog = ExportScreen(collections, nothing_kept=not state.kept)
        screen.app.call_from_thread(screen.app.push_screen, dialog, self._export)

    def _export(self, request: ExportRequest | None) -> None:
        if request is None:
            return
        self.screen.calls.run_job(partial(self._write_export, request))

    def _write_export(self, request: ExportRequest) -> Message:
        text = self.screen.service.export(request.what, request.fmt)
        path = request.path
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        verb = "overwrote" if existed else "wrote"
        return Notice(f"exported {request.what} as {request.fmt}: {verb} {path}")
