"""The store's schema: tables, indexes and migrations keyed by ``PRAGMA user_version``.

Migrations are an ordered list of functions; ``MIGRATIONS[i]`` takes a store from schema
version ``i`` to ``i + 1`` inside one write transaction, so a crash mid-migration leaves the
previous version intact. A store whose ``user_version`` is newer than :data:`SCHEMA_VERSION`
was written by a newer litsift and is refused rather than guessed at.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from litsift.store.review_merges import review_orphans
from litsift.store.schema_identity import (
    _family_tokens,
    _identity_keys,
    _title_blocks,
    _title_tokens,
)
from litsift.store.schema_tables import (
    CREATE_SQL,
    LABELS_SQL,
    biblio_editors,
    paper_biblio,
    review_notes,
    review_rounds,
    review_verdicts,
)
from litsift.types import Kind

Migration = Callable[[sqlite3.Connection], None]

#: Columns ingested from input files, in table order (``problem``/``method`` are filled later).
CONTENT_COLUMNS: dict[Kind, tuple[str, ...]] = {
    Kind.PAPER: (
        "id",
        "title",
        "abstract",
        "authors",
        "year",
        "venue",
        "status",
        "url",
        "license",
    ),
    Kind.DATASET: (
        "id",
        "variants",
        "description",
        "intro_paper_title",
        "year",
        "date",
        "url",
    ),
}

#: Columns of each record table beyond ``rowid`` (what :func:`row_to_record` reads).
RECORD_COLUMNS: dict[Kind, tuple[str, ...]] = {
    Kind.PAPER: (*CONTENT_COLUMNS[Kind.PAPER], "problem", "method"),
    Kind.DATASET: CONTENT_COLUMNS[Kind.DATASET],
}

_V1 = """
CREATE TABLE papers (
    rowid INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    abstract TEXT NOT NULL DEFAULT '',
    authors TEXT NOT NULL DEFAULT '[]',
    year INTEGER,
    venue TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT '',
    url TEXT NOT NULL DEFAULT '',
    license TEXT NOT NULL DEFAULT '',
    problem TEXT NOT NULL DEFAULT '',
    method TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL,
    revision INTEGER NOT NULL
);
CREATE INDEX idx_papers_year ON papers(year);
CREATE INDEX idx_papers_revision ON papers(revision);

CREATE TABLE datasets (
    rowid INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    variants TEXT NOT NULL DEFAULT '[]',
    description TEXT NOT NULL DEFAULT '',
    intro_paper_title TEXT NOT NULL DEFAULT '',
    year INTEGER,
    date TEXT NOT NULL DEFAULT '',
    url TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL,
    revision INTEGER NOT NULL
);
CREATE INDEX idx_datasets_year ON datasets(year);
CREATE INDEX idx_datasets_revision ON datasets(revision);

CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT
);
INSERT INTO meta(key, value) VALUES ('revision', '0');

CREATE TABLE labels (
    kind TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    label TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, doc_id)
);

CREATE TABLE notes (
    kind TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    text TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '[]',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, doc_id)
);

CREATE TABLE collections (
    name TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);

CREATE TABLE collection_items (
    collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    PRIMARY KEY (collection, kind, doc_id)
);

CREATE TABLE query_history (
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL,
    kind TEXT NOT NULL,
    years TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    saved INTEGER NOT NULL DEFAULT 0,
    name TEXT
);
CREATE INDEX idx_query_history_created_at ON query_history(created_at);

CREATE TABLE citekeys (
    kind TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    citekey TEXT NOT NULL UNIQUE,
    PRIMARY KEY (kind, doc_id)
);
"""


def _v1_initial(conn: sqlite3.Connection) -> None:
    """Version 1: record tables, the revision counter, and the tables later features fill.

    Labels, notes, collections and citekeys key on ``(kind, doc_id)`` -- the external id, not
    the rowid -- so they survive re-ingest and index rebuilds.
    """
    for statement in _V1.split(";"):
        if statement.strip():
            conn.execute(statement)


_V2 = """
CREATE TABLE label_undo (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    previous TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX idx_labels_kind_label ON labels(kind, label);
CREATE INDEX idx_collection_items_doc ON collection_items(kind, doc_id)
"""


def _v2_triage(conn: sqlite3.Connection) -> None:
    """Version 2: the persisted undo stack of label changes, and triage lookup indexes.

    ``label_undo`` holds one row per label change: the label the document had before it
    (NULL = unlabelled). Undo pops the newest row (highest ``id``) and restores ``previous``,
    so undo works across restarts.
    """
    for statement in _V2.split(";"):
        if statement.strip():
            conn.execute(statement)


_V3 = """
CREATE TABLE record_ids (
    kind TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    scheme TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (kind, scheme, value)
);
CREATE INDEX idx_record_ids_doc ON record_ids(kind, doc_id);

CREATE TABLE provenance (
    kind TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    format TEXT NOT NULL,
    file TEXT NOT NULL,
    location TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (kind, format, file, location)
);
CREATE INDEX idx_provenance_doc ON provenance(kind, doc_id);

CREATE TABLE attachments (
    kind TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (kind, doc_id, path)
);

CREATE TABLE saved_syncs (
    name TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    params TEXT NOT NULL,
    high_water TEXT,
    last_run_at TEXT,
    last_added INTEGER NOT NULL DEFAULT 0,
    seen_at TEXT
)
"""


def _v3_sources(conn: sqlite3.Connection) -> None:
    """Version 3: imported records' identifiers and provenance, attachments, saved syncs.

    ``record_ids`` maps each normalised identifier (``doi``, ``arxiv``, ...; see
    :mod:`litsift.sources.identity.ids`) to the one record that holds it, so the same paper arriving
    through another format or service lands on the same row. ``provenance`` remembers every
    (format, file, location) a record was read from -- the key that tells a re-import of the
    same entry from a duplicate arriving through another one. ``saved_syncs`` holds each saved
    online sync with its high-water mark (:mod:`litsift.sources.online.sync`).
    """
    for statement in _V3.split(";"):
        if statement.strip():
            conn.execute(statement)


_V4 = """
CREATE TABLE research_questions (
    doc_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    problem_sentence TEXT NOT NULL DEFAULT '',
    method_sentence TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
)
"""


def _v4_research_questions(conn: sqlite3.Connection) -> None:
    """Version 4: how each paper's problem/method (``papers.problem`` / ``papers.method``) was
    made. ``source`` is ``"user"`` (typed in), an offline extractor version (``"offline-1"``)
    or ``"llm:<model>:<prompt version>"`` (:mod:`litsift.rq`); the sentences are those the
    offline extractor cut its spans from ('' otherwise). A paper without a row has no RQ.
    """
    for statement in _V4.split(";"):
        if statement.strip():
            conn.execute(statement)


_V5 = """
CREATE TABLE passages (
    doc_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    section TEXT NOT NULL DEFAULT '',
    page INTEGER,
    text TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (doc_id, idx)
)
"""


def _v5_passages(conn: sqlite3.Connection) -> None:
    """Version 5: full-text passages of papers (~250 words along section and paragraph
    boundaries, :mod:`litsift.text.passages`), ``idx`` in reading order, with the section
    heading, the page it starts on (PDFs; NULL otherwise) and the format it was read from
    (``pdf``, ``grobid-tei``, ``jats``, ``s2orc``).
    An import of a paper's full text replaces its passages.
    """
    for statement in _V5.split(";"):
        if statement.strip():
            conn.execute(statement)


def _v6_sync_checkpoints(conn: sqlite3.Connection) -> None:
    """Version 6: where an interrupted sync stopped. ``resume_token`` is the paging token
    (OAI-PMH resumptionToken, cursor, start offset) of the first page not yet written, and
    ``resume_high_water`` the newest datestamp among the pages written before it; both are NULL
    once a walk ends (:mod:`litsift.sources.online.sync`)."""
    conn.execute("ALTER TABLE saved_syncs ADD COLUMN resume_token TEXT")
    conn.execute("ALTER TABLE saved_syncs ADD COLUMN resume_high_water TEXT")


def _v7_citations(conn: sqlite3.Connection) -> None:
    """Version 7: citation edges ``(citing, cited, source)``, each end a stored paper's id or
    an external ``scheme:value`` key not yet resolved (:mod:`litsift.store.citations`)."""
    for statement in CREATE_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)


_V_REVIEWS = """
CREATE TABLE reviews (
    name TEXT PRIMARY KEY,
    criteria TEXT NOT NULL DEFAULT '',
    keywords TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    opened_at TEXT
);
CREATE TABLE review_files (
    review TEXT NOT NULL REFERENCES reviews(name) ON DELETE CASCADE,
    file TEXT NOT NULL,
    format TEXT NOT NULL,
    entries INTEGER NOT NULL,
    bad INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (review, file)
);
CREATE TABLE review_records (
    review TEXT NOT NULL REFERENCES reviews(name) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    entries INTEGER NOT NULL DEFAULT 1,
    note TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (review, doc_id)
);
CREATE TABLE review_decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    review TEXT NOT NULL REFERENCES reviews(name) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    decision TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'user',
    decided_at TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_review_decisions_doc ON review_decisions(review, doc_id)
"""


def _v_reviews(conn: sqlite3.Connection) -> None:
    """Reviews (:mod:`litsift.store.reviews`): a named set of candidate papers imported for
    screening, with its criteria text and keywords. ``review_files`` lists each imported file
    with its entry count (PRISMA "identified"); ``review_records`` holds one row per paper
    after duplicates were grouped onto it (``entries`` = how many imported entries it stands
    for, each in ``provenance``). ``review_decisions`` is the log of decisions (``include``,
    ``exclude``, ``maybe``) in screening order; ``source`` is ``user`` or ``prior`` (labels
    read from the file); undo marks the newest active row ``undone``, so a record's decision
    is its newest active row and undo works across restarts.
    """
    for statement in _V_REVIEWS.split(";"):
        if statement.strip():
            conn.execute(statement)


_REFS_FETCHES = """
CREATE TABLE refs_fetches (
    source TEXT NOT NULL,
    seed TEXT NOT NULL,
    direction TEXT NOT NULL,
    token TEXT,
    pages INTEGER NOT NULL DEFAULT 0,
    done INTEGER NOT NULL DEFAULT 0,
    fetched_at TEXT,
    PRIMARY KEY (source, seed, direction)
)
"""


def _refs_fetches(conn: sqlite3.Connection) -> None:
    """Checkpoints of ``litsift refs fetch``: per (source, seed paper, direction) the paging
    token of the first page not yet written (NULL: not started or finished), pages written,
    and ``done`` once the walk reached its end (:mod:`litsift.sources.online.trail`)."""
    conn.execute(_REFS_FETCHES)


def _citation_labels(conn: sqlite3.Connection) -> None:
    """Citation labels: how a source named a cited work that is not stored (an external key
    of ``citations``): ``"Title (First author, 2019)"`` (:mod:`litsift.store.citations`)."""
    conn.execute(LABELS_SQL)


#: ``MIGRATIONS[i]`` migrates schema version ``i`` to ``i + 1``. Append only; never edit one.
MIGRATIONS: list[Migration] = [
    _v1_initial,
    _v2_triage,
    _v3_sources,
    _v4_research_questions,
    _v5_passages,
    _v6_sync_checkpoints,
    _v7_citations,
    _refs_fetches,
    _v_reviews,
    _citation_labels,
    _identity_keys,
    _title_tokens,
    _family_tokens,
    _title_blocks,
    review_rounds,
    paper_biblio,
    review_notes,
    review_verdicts,
    biblio_editors,
    review_orphans,
]

SCHEMA_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    """The schema version stored in the file header (``PRAGMA user_version``; 0 = empty)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the pending migrations, each in its own ``BEGIN IMMEDIATE`` transaction.

    The caller has checked that ``user_version <= SCHEMA_VERSION``. The version is re-read
    under the write lock, so two processes opening a new store at once migrate it once.

    Returns:
        The number of migrations applied.
    """
    applied = 0
    while user_version(conn) < SCHEMA_VERSION:  # an up-to-date store takes no write lock
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = user_version(conn)
            if version >= SCHEMA_VERSION:
                conn.rollback()
                return applied
            MIGRATIONS[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        applied += 1
    return applied
