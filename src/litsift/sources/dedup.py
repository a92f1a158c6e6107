"""``litsift dedup``: find stored papers that are one work, and merge them.

Groups are found with the matcher of :mod:`litsift.sources.identity.matcher` (same identifier, or
title + first author + year), run over the stored papers in rowid order: each paper is matched
against the ones before it; papers that share an identifier but have clearly different titles
are listed as conflicts, not grouped, and papers whose Scopus EIDs (read off their links) or
whose ``key:`` ids' locators (volume, issue, first page: an import kept them apart as the
volumes of one series) differ are not grouped by title. Merging keeps the oldest row
(lowest rowid: its index entries and citekey stay valid), fills its missing fields from the
others, keeps the longest abstract and every identifier, keeps the survivor's author list
(filled only when empty or cut short), and moves the others' labels, notes, tags,
collections, provenance, attachments, citations and review rows (membership, decisions, notes,
LLM verdicts: :mod:`litsift.store.review_merges`) onto it before deleting them. Search skips deleted
rows at once; ``litsift index --rebuild`` compacts the indexes. Stored datasets that are one
dataset by the import's name rule are merged too (:mod:`litsift.sources.dataset_dedup`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from litsift.sources.dataset_dedup import DatasetGroup, apply_datasets, find_dataset_duplicates
from litsift.sources.identity.ids import ids_in_text
from litsift.sources.identity.locators import locator_of_id
from litsift.sources.identity.matcher import IdentityIndex
from litsift.sources.writer import merge_fields
from litsift.store.records import content_hash, normalize
from litsift.store.repo import Store
from litsift.store.repositories import Identities, Merges
from litsift.store.review_merges import DecisionClash
from litsift.types import Kind

__all__ = ["DedupGroup", "DedupPlan", "apply", "find_duplicates"]


@dataclass
class DedupGroup:
    """Papers that are one work: ``keep`` survives, ``merge`` are merged into it.

    ``merge`` holds ``(doc_id, reason, title ratio)``; ``titles`` maps every id to its title.
    """

    keep: str
    merge: list[tuple[str, str, float]] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)


@dataclass
class DedupPlan:
    """Every duplicate group found; ``papers`` is how many papers were compared;
    ``conflicts`` holds ``(doc id, other doc id, "scheme:value", title score 0-100)`` for
    papers that share an identifier but not a title (left apart); ``dataset_groups`` are the
    stored datasets that are one, of ``datasets`` compared; ``clashes``, filled by
    :func:`apply`, are the review decisions of one reviewer that differed between merged
    papers (the newer kept)."""

    groups: list[DedupGroup] = field(default_factory=list)
    papers: int = 0
    conflicts: list[tuple[str, str, str, float]] = field(default_factory=list)
    dataset_groups: list[DatasetGroup] = field(default_factory=list)
    datasets: int = 0
    clashes: list[DecisionClash] = field(default_factory=list)

    @property
    def duplicates(self) -> int:
        return sum(len(g.merge) for g in self.groups)

    @property
    def dataset_duplicates(self) -> int:
        return sum(len(g.merge) for g in self.dataset_groups)

    def to_json(self) -> dict[str, Any]:
        return {
            "datasets": self.datasets,
            "dataset_duplicates": self.dataset_duplicates,
            "dataset_groups": [{"keep": g.keep, "merge": g.merge} for g in self.dataset_groups],
            "papers": self.papers,
            "duplicates": self.duplicates,
            "groups": [
                {
                    "keep": {"id": g.keep, "title": g.titles[g.keep]},
                    "merge": [
                        {"id": d, "title": g.titles[d], "by": r, "score": round(s, 1)}
                        for d, r, s in g.merge
                    ],
                }
                for g in self.groups
            ],
            "conflicts": [
                {"id": d, "with": o, "shared": i, "title_score": round(t, 1)}
                for d, o, i, t in self.conflicts
            ],
            "review_clashes": [dict(c.__dict__) for c in self.clashes],
        }


def find_duplicates(store: Store) -> DedupPlan:
    """The duplicate groups among the stored papers and datasets (nothing is changed)."""
    stored = Identities(store)
    ids = stored.ids_by_doc(Kind.PAPER)
    rows = stored.identity_rows()
    index = IdentityIndex()
    groups: dict[str, DedupGroup] = {}
    owner: dict[str, str] = {}
    conflicts: list[tuple[str, str, str, float]] = []
    for doc_id, title, stored_authors, year, url in rows:
        authors = [str(a) for a in stored_authors]
        doc_ids = {**ids_in_text(url), **ids.get(doc_id, {})}
        found = index.resolve(title, authors, year, doc_ids, exclude=doc_id)
        conflicts.extend(
            (doc_id, c.doc_id, f"{c.scheme}:{c.value}", c.score) for c in found.conflicts
        )
        match = found.match
        if match is None:
            index.add(doc_id, title, authors, year, doc_ids)
            continue
        keep = owner.get(match.doc_id, match.doc_id)
        group = groups.setdefault(keep, DedupGroup(keep))
        group.merge.append((doc_id, match.reason, match.score))
        owner[doc_id] = keep
        # the survivor answers for this one's ids (and the locator its key: id carries) too
        index.add(keep, "", [], None, doc_ids, locator=locator_of_id(doc_id))
    titles = {doc_id: title for doc_id, title, *_ in rows}
    for group in groups.values():
        group.titles = {d: titles[d] for d in [group.keep, *(m[0] for m in group.merge)]}
    return DedupPlan(list(groups.values()), len(rows), conflicts, *find_dataset_duplicates(store))


def _row(rows: Merges, doc_id: str) -> dict[str, Any] | None:
    stored = rows.paper_row(doc_id)
    if stored is None:
        return None
    fields = stored[0]
    fields["authors"] = [str(a) for a in fields["authors"]]
    return fields


def apply(store: Store, plan: DedupPlan) -> int:
    """Merge every group of ``plan``, papers' and datasets' (one transaction); returns the
    number of rows removed. The review decisions that differed between merged papers are
    added to ``plan.clashes``.

    Raises:
        StoreError: the store is locked by another writer.
    """
    removed = 0
    rows = Merges(store)
    with store.transaction():
        revision = rows.current_revision()
        for group in plan.groups:
            keep = _row(rows, group.keep)
            if keep is None:
                continue
            merged = keep
            for doc_id, _, _ in group.merge:
                other = _row(rows, doc_id)
                if other is None:
                    continue
                merged = merge_fields(merged, other)
                plan.clashes.extend(rows.move_record(group.keep, doc_id))
                rows.delete_paper(doc_id)
                removed += 1
            values = normalize(Kind.PAPER, merged)
            revision += 1
            rows.update_paper(values, content_hash(values), revision)
        revision = apply_datasets(store, plan.dataset_groups, revision)
        rows.set_revision(revision)
    return removed + plan.dataset_duplicates
