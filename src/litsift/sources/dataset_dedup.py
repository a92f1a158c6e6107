"""``litsift dedup`` for datasets: stored rows that are one dataset by the import's rule.

A store filled before imports joined datasets by name (:mod:`litsift.store.dataset_names`)
keeps a Hugging Face card ``sciq`` and Papers with Code's ``SciQ`` as two rows. The stored
datasets are run through the import's rule in rowid order (:meth:`DatasetNames.find_from`):
each joins an older row of the same :func:`~litsift.store.dataset_names.name_key` that shares
none of its files (its ``provenance`` rows) and was not introduced by another paper
(:func:`~litsift.store.dataset_names.other_paper`). Merging keeps the older row's id and
facts (:func:`~litsift.store.dataset_names.merge_dataset`: empty fields filled, the other's
name and variants added), moves the other's label, note, collections and provenance onto it
and deletes it, as for papers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from litsift.store.dataset_names import DatasetNames, merge_dataset, values_of
from litsift.store.records import content_hash
from litsift.store.repo import Store
from litsift.store.repositories import Datasets, Merges
from litsift.types import Kind

__all__ = ["DatasetGroup", "apply_datasets", "find_dataset_duplicates"]


@dataclass
class DatasetGroup:
    """Stored datasets that are one: ``keep`` (the oldest row) survives, ``merge`` join it."""

    keep: str
    merge: list[str] = field(default_factory=list)


def find_dataset_duplicates(store: Store) -> tuple[list[DatasetGroup], int]:
    """The groups of stored datasets that are one, and how many datasets were compared."""
    rows = Datasets(store)
    stored, files = rows.names(), rows.files()
    names, intros = DatasetNames(), dict(stored)
    groups: dict[str, DatasetGroup] = {}
    for doc_id, intro in stored:
        mine = files.get(doc_id, set())
        match = names.find_from(doc_id, intro, mine)
        if match.doc_id is None:
            names.add_files(doc_id, intro, mine)
            continue
        keep = match.doc_id
        groups.setdefault(keep, DatasetGroup(keep)).merge.append(doc_id)
        intros[keep] = intros[keep] or intro  # merge_dataset fills an empty one
        names.add_files(keep, intros[keep], mine)  # the survivor answers for these files too
    return list(groups.values()), len(stored)


def apply_datasets(store: Store, groups: list[DatasetGroup], revision: int) -> int:
    """Merge every group (the caller holds the transaction); returns the last revision given."""
    rows, data = Merges(store), Datasets(store)
    for group in groups:
        stored = data.row(group.keep)
        if stored is None:
            continue
        merged = stored[0]
        for doc_id in group.merge:
            other = data.row(doc_id)
            if other is None:
                continue
            merged = merge_dataset(merged, other[0], update=False)
            rows.move_record(group.keep, doc_id, Kind.DATASET)
            rows.delete_paper(doc_id, Kind.DATASET)
        values = values_of(merged)
        revision += 1
        rows.upsert(Kind.DATASET, values, content_hash(values), revision)
    return revision
