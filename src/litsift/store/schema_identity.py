"""The store's migrations of identity matching's key tables (issue 32), apart from
:mod:`litsift.store.schema` so that module stays readable; :data:`litsift.store.schema.MIGRATIONS`
lists them in order, with the statements each runs (the tables :mod:`litsift.store.identities`
reads and writes).
"""

from __future__ import annotations

import sqlite3

__all__ = [
    "BLOCKS_SQL",
    "FAMILY_TOKENS_SQL",
    "KEYS_SQL",
    "TOKENS_SQL",
    "_family_tokens",
    "_identity_keys",
    "_title_blocks",
    "_title_tokens",
]

#: The matcher's keys of each stored paper, derived from its row (schema migration
#: ``_identity_keys``): ``title_key`` (:func:`litsift.sources.identity.matcher.title_key`),
#: ``family``
#: (the first author's family key, ``""`` when unknown), ``year`` and ``title_len`` (characters
#: of the title key: a fuzzy match's length lies in a window); ``paper_url_ids`` holds
#: the identifiers read off its ``url``. Kept current lazily: rows of papers whose ``revision``
#: is above ``meta['identity_keys_revision']`` are (re)derived before a match
#: (``papers_since``, ``put_keys``); a deleted paper's keys stay until its id comes back
#: and are never returned (every lookup joins ``papers``).
KEYS_SQL = """
CREATE TABLE paper_keys (
    doc_id TEXT PRIMARY KEY,
    title_key TEXT NOT NULL,
    family TEXT NOT NULL,
    year INTEGER,
    title_len INTEGER NOT NULL
);
CREATE INDEX idx_paper_keys_title ON paper_keys(title_key);
CREATE INDEX idx_paper_keys_family ON paper_keys(family, year, title_len);
CREATE TABLE paper_url_ids (
    doc_id TEXT NOT NULL,
    scheme TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (doc_id, scheme)
);
CREATE INDEX idx_paper_url_ids_value ON paper_url_ids(scheme, value);
INSERT INTO meta(key, value) VALUES ('identity_keys_revision', '-1')
"""

#: Title blocking tokens (schema migration ``_title_tokens``, issue 32): ``(token, year,
#: title_len, doc id)`` for each content word of each paper's title key
#: (:func:`litsift.sources.identity.matcher.title_tokens`; year :data:`_NO_YEAR` when unknown: a
#: primary key holds no NULL), and how many papers hold each token, so a match looks up the
#: papers sharing the rarest words of a title instead of every title (a record without a first
#: author) or every paper of a common first author (Wang + 2021). Kept current by
#: :func:`put_keys` with the keys. The migration drops the first-author block index (no
#: lookup uses it now) and empties the key tables so that the next
#: import derives keys and tokens together, in committed chunks.
TOKENS_SQL = """
CREATE TABLE paper_title_tokens (
    token TEXT NOT NULL,
    year INTEGER NOT NULL,
    title_len INTEGER NOT NULL,
    doc_id TEXT NOT NULL,
    PRIMARY KEY (token, year, title_len, doc_id)
) WITHOUT ROWID;
CREATE TABLE title_token_counts (
    token TEXT PRIMARY KEY,
    papers INTEGER NOT NULL
) WITHOUT ROWID;
DROP INDEX idx_paper_keys_family;
DELETE FROM paper_keys;
DELETE FROM paper_url_ids;
UPDATE meta SET value = '-1' WHERE key = 'identity_keys_revision'
"""

#: First-author title postings (schema migration ``_family_tokens``, issue 32):
#: ``(family, token, year, title_len, doc id)`` for each title word of each paper that has a
#: first author, so a record with a first author reads the postings of its rarest words *in
#: that family*, an index range, instead of every paper holding the word in its year window
#: (a common word's postings grow with the store: at 300K papers a record read thousands of
#: rows to keep the few of its first author). :data:`TOKENS_SQL`'s postings stay for records
#: without a first author. Kept current by ``put_keys``. The migration rebuilds the key
#: tables empty so that the next import derives keys and both postings together, in
#: committed chunks.
FAMILY_TOKENS_SQL = """
CREATE TABLE paper_family_tokens (
    family TEXT NOT NULL,
    token TEXT NOT NULL,
    year INTEGER NOT NULL,
    title_len INTEGER NOT NULL,
    doc_id TEXT NOT NULL,
    PRIMARY KEY (family, token, year, title_len, doc_id)
) WITHOUT ROWID;
DROP TABLE paper_title_tokens;
DROP TABLE title_token_counts;
CREATE TABLE paper_title_tokens (
    token TEXT NOT NULL,
    year INTEGER NOT NULL,
    title_len INTEGER NOT NULL,
    doc_id TEXT NOT NULL,
    PRIMARY KEY (token, year, title_len, doc_id)
) WITHOUT ROWID;
CREATE TABLE title_token_counts (
    token TEXT PRIMARY KEY,
    papers INTEGER NOT NULL
) WITHOUT ROWID;
DELETE FROM paper_keys;
DELETE FROM paper_url_ids;
UPDATE meta SET value = '-1' WHERE key = 'identity_keys_revision'
"""
#: Title word-set blocks (schema migration ``_title_blocks``, issue 32): ``(block, title_len,
#: year, doc id)`` for each block of each paper's title key
#: (:func:`litsift.sources.identity.stored_keys.title_blocks`: a 64-bit id of three of its words --
#: two or one in a short title -- chosen by a fixed order of the words, not by the store's
#: counts), so a record without a first author reads the papers sharing a block with it,
#: postings that stay short as the store grows, instead of every paper holding one of its
#: rarest words in its year window. Kept current by ``put_keys``. The migration drops
#: :data:`TOKENS_SQL`'s word postings (no lookup reads them now; the counts stay, for the
#: first-author postings) and empties the key tables so that the next import derives keys,
#: postings and blocks together, in committed chunks.
BLOCKS_SQL = """
CREATE TABLE paper_title_blocks (
    block INTEGER NOT NULL,
    year INTEGER NOT NULL,
    title_len INTEGER NOT NULL,
    doc_id TEXT NOT NULL,
    PRIMARY KEY (block, title_len, year, doc_id)
) WITHOUT ROWID;
DROP TABLE paper_title_tokens;
DELETE FROM paper_family_tokens;
DELETE FROM title_token_counts;
DELETE FROM paper_keys;
DELETE FROM paper_url_ids;
UPDATE meta SET value = '-1' WHERE key = 'identity_keys_revision'
"""


def _identity_keys(conn: sqlite3.Connection) -> None:
    """Identity keys: each paper's title key, first-author family + year and url identifiers,
    indexed, so an import looks up the stored papers a record may be instead of loading them
    all (issue 32; :data:`KEYS_SQL`). Filled lazily from the papers'
    revisions on the first import, in committed chunks (an interrupted fill resumes)."""

    for statement in KEYS_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)


def _title_tokens(conn: sqlite3.Connection) -> None:
    """Title blocking tokens: each paper's title words with their year, and how many papers
    hold each word, so a record is compared only with the stored papers sharing one of its
    title's rarest words (issue 32; :data:`TOKENS_SQL`). The key
    tables are emptied: the next import derives keys and tokens together, in committed chunks
    (an interrupted fill resumes)."""

    for statement in TOKENS_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)


def _family_tokens(conn: sqlite3.Connection) -> None:
    """First-author title postings: each title word of each paper with its first author's
    family, so a record with a first author reads only that family's postings of its rarest
    words, however common the words are in the store (issue 32;
    :data:`FAMILY_TOKENS_SQL`). The key tables are rebuilt empty:
    the next import derives keys and postings together, in committed chunks."""

    for statement in FAMILY_TOKENS_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)


def _title_blocks(conn: sqlite3.Connection) -> None:
    """Title blocks: for each paper, hashes of three (two in a title of at most four words)
    of its title's words, chosen by a fixed order of the words, so a record without a first
    author reads the papers sharing a block with it -- postings that stay short as the store
    grows -- instead of every paper holding one of its rarest words (issue 32;
    :data:`BLOCKS_SQL`). The key tables are emptied: the next import
    derives keys, postings and blocks together, in committed chunks."""

    for statement in BLOCKS_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)
