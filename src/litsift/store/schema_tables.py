"""The statements of the migrations that add the citation tables and a review's screening
rounds, apart from the repositories that read and write those tables
(:mod:`litsift.store.citations`, :mod:`litsift.store.review_stages`), so that
:mod:`litsift.store.schema` imports no repository.
"""

from __future__ import annotations

__all__ = ["CREATE_SQL", "LABELS_SQL", "ROUNDS_SQL"]

#: The table and its index, created by the store migration that adds citations.
CREATE_SQL = """
CREATE TABLE citations (
    citing TEXT NOT NULL,
    cited TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (citing, cited)
) WITHOUT ROWID;
CREATE INDEX idx_citations_cited ON citations(cited)
"""

#: The labels of external keys, created by the migration after the one that adds citations.
LABELS_SQL = """
CREATE TABLE citation_labels (
    key TEXT PRIMARY KEY,
    label TEXT NOT NULL
) WITHOUT ROWID
"""

#: A review's exclusion reasons, and each decision's stage, reviewer and reason.
ROUNDS_SQL = """
ALTER TABLE reviews ADD COLUMN reasons TEXT NOT NULL DEFAULT '[]';
ALTER TABLE review_decisions ADD COLUMN stage TEXT NOT NULL DEFAULT 'tiab';
ALTER TABLE review_decisions ADD COLUMN reviewer TEXT NOT NULL DEFAULT '';
ALTER TABLE review_decisions ADD COLUMN reason TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS idx_review_decisions_stage ON review_decisions(review, stage, doc_id)
"""
