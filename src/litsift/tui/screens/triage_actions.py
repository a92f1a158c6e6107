"""Triage actions of the main screen: labels with undo, the label filter, notes and tags,
collections, query history and saved searches, and export.

Every read or write of the store runs as a queued job (:meth:`ScreenBase.run_job`) in a worker
thread; label keys update the table at once and the job then confirms the stored state.
Bindings have ids (``[keymap]`` names) equal to their action names.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.message import Message

from litsift.store.history import HistoryEntry
from litsift.store.triage import LABEL_FILTERS
from litsift.tui.messages import AnnotationsChanged, Notice
from litsift.tui.screens.base import ScreenBase
from litsift.tui.screens.modals import (
    ExportRequest,
    ExportScreen,
    HistoryScreen,
    NoteEdit,
    NoteScreen,
    PromptScreen,
)
from litsift.types import Kind, Label, Query

#: actions that need a highlighted result
NEEDS_HIT = frozenset({"label", "edit_note", "add_to_collection"})


class TriageActions(ScreenBase):
    """Label, filter, annotate, remember and export results."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "plus,y", "label('keep')", "Keep", id="label_keep", tooltip="Label keep (again: clear)"
        ),
        Binding(
            "m", "label('maybe')", "Maybe", id="label_maybe", tooltip="Label maybe (again: clear)"
        ),
        Binding(
            "minus,x",
            "label('discard')",
            "Discard",
            id="label_discard",
            tooltip="Label discard (again: clear)",
        ),
        Binding(
            "u",
            "undo_label",
            "Undo",
            show=False,
            id="undo_label",
            tooltip="Undo the last label change",
        ),
        Binding(
            "f",
            "cycle_filter",
            "Filter",
            show=False,
            id="cycle_filter",
            tooltip="Show: all → unlabelled → kept → maybe → discarded → hide discarded",
        ),
        Binding("n", "edit_note", "Note", show=False, id="edit_note", tooltip="Edit note and tags"),
        Binding(
            "c",
            "add_to_collection",
            "Collect",
            show=False,
            id="add_to_collection",
            tooltip="Add the result to a named collection",
        ),
        Binding(
            "h,ctrl+r",
            "history",
            "History",
            show=False,
            id="history",
            tooltip="Saved searches and query history (Enter re-runs)",
        ),
        Binding(
            "s",
            "save_search",
            "Save search",
            show=False,
            id="save_search",
            tooltip="Save the current search under a name",
        ),
        Binding(
            "e",
            "export",
            "Export",
            show=False,
            id="export",
            tooltip="Export kept records or a collection (BibTeX, RIS, CSL-JSON, Markdown)",
        ),
    ]

    _last_collection = ""

    # -- labels ----------------------------------------------------------------------------
    def action_label(self, label: str) -> None:
        table = self.table()
        hit = table.highlighted_hit
        if hit is None:
            return
        kind, doc_id = hit.kind, hit.docid
        ann = table.info(hit).annotation
        new = None if ann.label == Label(label) else Label(label)
        table.update_annotations({doc_id: replace(ann, label=new)})  # shown at once
        self.refresh_detail()

        def job() -> Message:
            self.service.set_label(kind, doc_id, new)
            done = f"{hit.record.display_title[:60]}: {new.value if new else 'label cleared'}"
            return AnnotationsChanged(kind, self.service.annotations(kind, [doc_id]), done)

        self.run_job(job)

    def action_undo_label(self) -> None:
        def job() -> Message:
            undone = self.service.undo_label()
            if undone is None:
                return Notice("nothing to undo")
            kind, doc_id, restored = undone
            what = restored.value if restored else "unlabelled"
            return AnnotationsChanged(
                kind, self.service.annotations(kind, [doc_id]), f"undone: {doc_id} is {what}"
            )

        self.run_job(job)

    def action_cycle_filter(self) -> None:
        at = LABEL_FILTERS.index(self.label_filter)
        self.label_filter = LABEL_FILTERS[(at + 1) % len(LABEL_FILTERS)]
        for kind in Kind:
            self.table(kind).set_view(label_filter=self.label_filter)
        self.refresh_detail()
        self.show_modes()

    # -- notes and collections -------------------------------------------------------------
    def action_edit_note(self) -> None:
        hit = self.table().highlighted_hit
        if hit is None:
            return
        ann = self.table().info(hit).annotation
        kind, doc_id = hit.kind, hit.docid

        def save(edit: NoteEdit | None) -> None:
            if edit is None:
                return

            def job() -> Message:
                self.service.triage.set_note(kind, doc_id, edit.text, edit.tags)
                return AnnotationsChanged(
                    kind, self.service.annotations(kind, [doc_id]), "note saved"
                )

            self.run_job(job)

        self.app.push_screen(NoteScreen(hit.record.display_title, ann.note, ann.tags), save)

    def action_add_to_collection(self) -> None:
        hit = self.table().highlighted_hit
        if hit is None:
            return
        kind, doc_id = hit.kind, hit.docid

        def add(name: str | None) -> None:
            if name is None:
                return
            TriageActions._last_collection = name

            def job() -> Message:
                stored = self.service.triage.add_to_collection(name, kind, doc_id)
                return AnnotationsChanged(
                    kind, self.service.annotations(kind, [doc_id]), f"added to {stored!r}"
                )

            self.run_job(job)

        self.app.push_screen(
            PromptScreen(
                "Add to collection",
                hit.record.display_title,
                self._last_collection,
                "collection name, e.g. related work",
            ),
            add,
        )

    # -- history and saved searches --------------------------------------------------------
    def record_submitted(self) -> None:
        """Add the submitted query to the history (called on Enter, not per keystroke)."""
        if not self.text.strip():
            return
        query = Query(self.text, self.kind, self.years)

        def job() -> Message | None:
            self.service.record_query(query)
            return None

        self.run_job(job)

    def action_history(self) -> None:
        self._load_history()

    @work(thread=True, group="history", exit_on_error=False)
    def _load_history(self) -> None:
        try:
            with self._service_lock:
                saved = self.service.saved_searches()
                recent = self.service.triage.history(50)
        except Exception as err:  # reported, never a crash
            self.post_message(Notice(error=err))
            return
        self.app.call_from_thread(self.app.push_screen, HistoryScreen(saved, recent), self._rerun)

    def _rerun(self, entry: HistoryEntry | None) -> None:
        if entry is None:
            return
        try:
            years = entry.year_range
        except Exception as err:  # a hand-edited history row
            self.post_message(Notice(error=err))
            return
        if entry.kind != self.kind:
            self.action_show_kind(entry.kind.value)
        self.query_bar.set_query(entry.text, years)

    def action_save_search(self) -> None:
        if not self.text.strip():
            self.status.show_error(("nothing to save", "type a query first"))
            return
        query = Query(self.text, self.kind, self.years)

        def save(name: str | None) -> None:
            if name is None:
                return

            def job() -> Message:
                hid = self.service.record_query(query)
                entry = self.service.triage.save_search(hid, name)
                return Notice(f"saved search {entry.name!r}")

            self.run_job(job)

        self.app.push_screen(
            PromptScreen("Save search", self.text, self.text[:40], "a name for this search"), save
        )

    # -- export ----------------------------------------------------------------------------
    def action_export(self) -> None:
        self._open_export()

    @work(thread=True, group="history", exit_on_error=False)
    def _open_export(self) -> None:
        try:
            with self._service_lock:
                collections = self.service.triage.collections()
        except Exception as err:  # reported, never a crash
            self.post_message(Notice(error=err))
            return
        self.app.call_from_thread(self.app.push_screen, ExportScreen(collections), self._export)

    def _export(self, request: ExportRequest | None) -> None:
        if request is None:
            return
        self.run_job(partial(self._write_export, request))

    def _write_export(self, request: ExportRequest) -> Message:
        text = self.service.export(request.what, request.fmt)
        path = request.path
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        verb = "overwrote" if existed else "wrote"
        return Notice(f"exported {request.what} as {request.fmt}: {verb} {path}")

    # -- availability ----------------------------------------------------------------------
    def action_show_kind(self, kind: str) -> None:
        raise NotImplementedError  # SearchScreen
