"""Triage through the service: labels, notes, collections, query history, export and
"more like this" (:mod:`litsift.store.triage`), as flat methods the TUI and CLI call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from litsift.errors import QueryError
from litsift.service.parts import ServiceParts
from litsift.types import Kind, Label, Query, SearchResult

if TYPE_CHECKING:
    from litsift.store.history import HistoryEntry
    from litsift.store.triage import Annotation

__all__ = ["TriageCommands"]


class TriageCommands(ServiceParts):
    """Triage of one home (mixed into :class:`litsift.service.facade.LitsiftService`)."""

    def set_label(self, kind: Kind, doc_id: str, label: Label | None) -> Label | None:
        """Label a record (None clears); returns the previous label. Undoable."""
        return self.triage.set_label(kind, doc_id, label)

    def undo_label(self) -> tuple[Kind, str, Label | None] | None:
        """Undo the last label change; returns (kind, doc_id, restored label) or None."""
        return self.triage.undo()

    def annotations(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, Annotation]:
        """Label, note, tags and collections of each id, for the results table."""
        return self.triage.annotations(kind, doc_ids)

    def record_query(self, query: Query) -> int:
        """Add a submitted query to the history; returns its history id, or 0 on a read-only
        home (:attr:`read_only_reason`), where a search keeps no history and raises nothing."""
        from litsift.search.retrieval.query import clean_query_text

        if self.store.readonly:  # a read-only home searches; its history is not kept
            return 0
        return self.triage.record_query(clean_query_text(query.text), query.kind, query.years)

    def set_note(self, kind: Kind, doc_id: str, text: str, tags: Sequence[str] = ()) -> None:
        """Replace a record's note and tags (empty text and no tags delete the note); control
        characters and escape sequences typed or pasted into them are not stored."""
        from litsift.text import for_storage

        self.triage.set_note(kind, doc_id, for_storage(text), [for_storage(t) for t in tags])

    def add_to_collection(self, name: str, kind: Kind, doc_id: str) -> str:
        """Put a record in a collection (created if needed); returns the stored name, without
        the control characters and escape sequences a paste can carry (as a note's): stored,
        the name shown (sanitised) was not the one ``litsift export NAME`` had to be given."""
        from litsift.text import for_storage

        return self.triage.add_to_collection(for_storage(name), kind, doc_id)

    def collections(self) -> list[str]:
        """Names of all collections, sorted case-insensitively."""
        return self.triage.collections()

    def history(self, limit: int = 50, *, saved: bool = False) -> list[HistoryEntry]:
        """The newest ``limit`` submitted queries, or (``saved``) the saved searches."""
        return self.triage.saved_searches() if saved else self.triage.history(limit)

    def saved_searches(self) -> list[HistoryEntry]:
        """The saved searches, by name."""
        return self.triage.saved_searches()

    def save_search(self, history_id: int, name: str) -> HistoryEntry:
        """Name a history entry as a saved search; returns the saved entry.

        Raises:
            TriageError: no such entry, an empty name, or a name another search has.
        """
        from litsift.text import for_storage

        return self.triage.save_search(history_id, for_storage(name))

    def export(self, what: str, fmt: str, kind: Kind | None = None) -> str:
        """Kept records (``"kept"``) or a collection as bibtex, ris, csl-json or markdown."""
        from litsift.export import export_command_impl

        return export_command_impl(self.store, what, fmt, kind)

    def more_like_this(self, result: SearchResult) -> SearchResult:
        """Rerank ``result`` toward kept and away from discarded records (Rocchio, IIR §9.1.1).

        The query vector is of the query's text as the search read it: its operator syntax
        removed, phrases unquoted (:attr:`~litsift.search.retrieval.operators.QueryOperators.
        for_models`); an excluded word is not embedded.

        Raises:
            QueryError: nothing of this kind is kept or discarded yet.
        """
        kind = result.query.kind
        pos_ids = self.triage.ids_with_label(kind, Label.KEEP)
        neg_ids = self.triage.ids_with_label(kind, Label.DISCARD)
        if not pos_ids and not neg_ids:
            raise QueryError("more like this needs feedback", "keep or discard a few results first")
        pos = [r for r in (self.store.get(kind, i) for i in pos_ids) if r is not None]
        neg = [r for r in (self.store.get(kind, i) for i in neg_ids) if r is not None]
        # the text of a search's result is resolved (cleaned) by the pipeline already
        from litsift.search.retrieval.operators import parse_operators

        text = parse_operators(result.query.text).for_models
        hits = self.searchers.of_kind(kind).more_like_this(text, result.hits, pos, neg)
        return replace(result, hits=hits)
