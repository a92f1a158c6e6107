"""The statements of the migrations that add the citation tables, a review's screening
rounds, papers' bibliographic details, reviewers' notes and LLM verdicts, apart from the
repositories that read and write those tables (:mod:`litsift.store.citations`,
:mod:`litsift.store.review_stages`, :mod:`litsift.store.biblio`), so that
:mod:`litsift.store.schema` imports no repository.
"""

from __future__ import annotations

import sqlite3

__all__ = [
    "BIBLIO_SQL",
    "CREATE_SQL",
    "EDITORS_SQL",
    "LABELS_SQL",
    "NOTES_SQL",
    "ROUNDS_SQL",
    "VERDICTS_SQL",
    "biblio_editors",
    "paper_biblio",
    "review_notes",
    "review_rounds",
    "review_verdicts",
]

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


def review_rounds(conn: sqlite3.Connection) -> None:
    """Screening rounds (:mod:`litsift.store.review_stages`): a review's exclusion reasons, and
    each decision's stage (``tiab`` / ``fulltext``), reviewer and reason."""
    import re

    for statement in ROUNDS_SQL.split(";"):
        added = re.match(r"\s*ALTER TABLE (\w+) ADD COLUMN (\w+)", statement)
        if added is not None:  # idempotent: a store re-migrated from an older version has it
            have = {row[1] for row in conn.execute(f"PRAGMA table_info({added.group(1)})")}
            if added.group(2) in have:
                continue
        if statement.strip():
            conn.execute(statement)


#: A paper's own type and genre, volume, issue, pages, publisher and its authors'
#: ``[family, given]`` pairs as a JSON list (:mod:`litsift.store.biblio`).
BIBLIO_SQL = """
CREATE TABLE IF NOT EXISTS paper_biblio (
    doc_id TEXT PRIMARY KEY,
    type TEXT NOT NULL DEFAULT '',
    genre TEXT NOT NULL DEFAULT '',
    volume TEXT NOT NULL DEFAULT '',
    issue TEXT NOT NULL DEFAULT '',
    pages TEXT NOT NULL DEFAULT '',
    publisher TEXT NOT NULL DEFAULT '',
    names TEXT NOT NULL DEFAULT '[]'
) WITHOUT ROWID
"""


def paper_biblio(conn: sqlite3.Connection) -> None:
    """Papers' bibliographic details (:mod:`litsift.store.biblio`): the exports wrote no type
    of the record's own, no volume or pages, and re-split ``"Given Family"`` names. Papers
    stored before have no row; their next import fills it."""
    conn.execute(BIBLIO_SQL)


#: A paper's editors (of an edited book, a proceedings volume, the book of a chapter): their
#: ``"Given Family"`` display names as a JSON list, in order (:mod:`litsift.store.biblio`).
EDITORS_SQL = "ALTER TABLE paper_biblio ADD COLUMN editors TEXT NOT NULL DEFAULT '[]'"


def biblio_editors(conn: sqlite3.Connection) -> None:
    """Papers' editors (:mod:`litsift.store.biblio`): an edited book lost them on import, or
    (BibTeX, Zotero) had them stored and exported as its authors. Rows stored before hold
    ``[]``; the next import of their file fills them. Re-run on a store whose table has the
    column (or where an earlier migration, re-run, made the table anew without it), it adds
    only what is missing."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(paper_biblio)")}
    if "editors" not in have:
        conn.execute(EDITORS_SQL)


#: Each reviewer's note on a record of a review (``reviewer`` ``""``: the unnamed reviewer).
NOTES_SQL = """
CREATE TABLE IF NOT EXISTS review_notes (
    review TEXT NOT NULL REFERENCES reviews(name) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    reviewer TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL,
    PRIMARY KEY (review, doc_id, reviewer)
) WITHOUT ROWID
"""


def review_notes(conn: sqlite3.Connection) -> None:
    """Notes per reviewer (:mod:`litsift.store.review_notes`): a record's one note in
    ``review_records.note`` was every reviewer's, so a second reviewer screening blind read
    the first one's judgement. The notes written before become the unnamed reviewer's (its
    screening session shows them as before) and the old column is emptied, so nothing reads
    a stale copy; re-run on a store that has the table, it adds nothing."""
    conn.execute(NOTES_SQL)
    conn.execute(
        "INSERT OR IGNORE INTO review_notes(review, doc_id, reviewer, note) "
        "SELECT review, doc_id, '', note FROM review_records WHERE TRIM(note) != ''"
    )
    conn.execute("UPDATE review_records SET note = '' WHERE note != ''")


#: An LLM judge's verdict on a record of a review (:mod:`litsift.store.review_verdicts`): one
#: per record and model, ``verdict`` +1 include / 0 unsure / -1 exclude.
VERDICTS_SQL = """
CREATE TABLE IF NOT EXISTS review_verdicts (
    review TEXT NOT NULL REFERENCES reviews(name) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    model TEXT NOT NULL,
    verdict INTEGER NOT NULL CHECK (verdict IN (-1, 0, 1)),
    reason TEXT NOT NULL DEFAULT '',
    prompt TEXT NOT NULL DEFAULT '',
    judged_at TEXT NOT NULL,
    PRIMARY KEY (review, doc_id, model)
) WITHOUT ROWID
"""


def review_verdicts(conn: sqlite3.Connection) -> None:
    """LLM verdicts on review records (``litsift review judge``), read by the learning order
    as a column and shown beside the record; never decisions."""
    conn.execute(VERDICTS_SQL)
