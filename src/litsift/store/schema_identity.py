"""The store's migrations of identity matching's key tables (issue 32), apart from
:mod:`litsift.store.schema` so that module stays readable; :data:`litsift.store.schema.MIGRATIONS`
lists them in order. Each runs the statements :mod:`litsift.store.identities` defines.
"""

from __future__ import annotations

import sqlite3

__all__ = ["_family_tokens", "_identity_keys", "_title_blocks", "_title_tokens"]


def _identity_keys(conn: sqlite3.Connection) -> None:
    """Identity keys: each paper's title key, first-author family + year and url identifiers,
    indexed, so an import looks up the stored papers a record may be instead of loading them
    all (issue 32; :data:`litsift.store.identities.KEYS_SQL`). Filled lazily from the papers'
    revisions on the first import, in committed chunks (an interrupted fill resumes)."""
    from litsift.store.identities import KEYS_SQL

    for statement in KEYS_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)


def _title_tokens(conn: sqlite3.Connection) -> None:
    """Title blocking tokens: each paper's title words with their year, and how many papers
    hold each word, so a record is compared only with the stored papers sharing one of its
    title's rarest words (issue 32; :data:`litsift.store.identities.TOKENS_SQL`). The key
    tables are emptied: the next import derives keys and tokens together, in committed chunks
    (an interrupted fill resumes)."""
    from litsift.store.identities import TOKENS_SQL

    for statement in TOKENS_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)


def _family_tokens(conn: sqlite3.Connection) -> None:
    """First-author title postings: each title word of each paper with its first author's
    family, so a record with a first author reads only that family's postings of its rarest
    words, however common the words are in the store (issue 32;
    :data:`litsift.store.identities.FAMILY_TOKENS_SQL`). The key tables are rebuilt empty:
    the next import derives keys and postings together, in committed chunks."""
    from litsift.store.identities import FAMILY_TOKENS_SQL

    for statement in FAMILY_TOKENS_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)


def _title_blocks(conn: sqlite3.Connection) -> None:
    """Title blocks: for each paper, hashes of three (two in a title of at most four words)
    of its title's words, chosen by a fixed order of the words, so a record without a first
    author reads the papers sharing a block with it -- postings that stay short as the store
    grows -- instead of every paper holding one of its rarest words (issue 32;
    :data:`litsift.store.identities.BLOCKS_SQL`). The key tables are emptied: the next import
    derives keys, postings and blocks together, in committed chunks."""
    from litsift.store.identities import BLOCKS_SQL

    for statement in BLOCKS_SQL.split(";"):
        if statement.strip():
            conn.execute(statement)
