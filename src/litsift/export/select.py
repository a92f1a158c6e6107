"""What to export: the records with a label, or the members of a collection."""

from __future__ import annotations

from litsift.export.citekeys import ExportError
from litsift.export.formats import export_records
from litsift.store.repo import Store
from litsift.store.triage import Triage
from litsift.types import Kind, Label, Record

#: ``what`` values that select by label rather than by collection name.
LABEL_SELECTORS: dict[str, Label] = {
    "kept": Label.KEEP,
    "keep": Label.KEEP,
    "maybe": Label.MAYBE,
    "discarded": Label.DISCARD,
    "discard": Label.DISCARD,
}
_COLLECTION_PREFIX = "collection:"


def select_records(store: Store, what: str, kind: Kind | None = None) -> list[Record]:
    """Resolve an export selection to records.

    Args:
        store: the store.
        what: ``"kept"`` (or ``"maybe"``, ``"discarded"``): the records with that label,
            oldest label first; anything else is a collection name (items in the order they
            were added). ``"collection:NAME"`` forces a collection, e.g. one called ``kept``.
        kind: only records of this kind; None = papers and datasets.

    Returns:
        The records; ids no longer in the store (labelled, then removed from the corpus) are
        skipped.

    Raises:
        TriageError: ``what`` names no collection.
    """
    triage = Triage(store)
    pairs: list[tuple[Kind, str]]
    if what.startswith(_COLLECTION_PREFIX) or what not in LABEL_SELECTORS:
        name = what.removeprefix(_COLLECTION_PREFIX)
        pairs = triage.collection_items(name)
    else:
        label = LABEL_SELECTORS[what]
        kinds = [kind] if kind else list(Kind)
        pairs = [(k, d) for k in kinds for d in triage.ids_with_label(k, label)]
    out: list[Record] = []
    for k, doc_id in pairs:
        if kind is not None and k is not kind:
            continue
        record = store.get(k, doc_id)
        if record is not None:
            out.append(record)
    return out


def export_command_impl(store: Store, what: str, fmt: str, kind: Kind | None = None) -> str:
    """``litsift export WHAT --format FMT [--kind K]``: the selected records, formatted.

    Args:
        store: an open store (writable, unless every selected record already has a key).
        what: see :func:`select_records`.
        fmt: ``bibtex``, ``ris``, ``csl-json`` or ``markdown``.
        kind: see :func:`select_records`.

    Returns:
        The export text, entries sorted by citation key.

    Raises:
        ExportError: unknown format, nothing selected, or a read-only store without keys.
        TriageError: ``what`` names no collection.
    """
    records = select_records(store, what, kind)
    if not records:
        what_text = f"{(kind.table if kind else 'records')} labelled {what!r}"
        if what.startswith(_COLLECTION_PREFIX) or what not in LABEL_SELECTORS:
            what_text = f"records in the collection {what.removeprefix(_COLLECTION_PREFIX)!r}"
        raise ExportError(
            f"no {what_text} to export",
            "label some results keep (or add them to the collection) in the TUI first",
        )
    return export_records(store, records, fmt)
