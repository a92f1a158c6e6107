"""Records' external identifiers in the store (table ``record_ids``) and the rows a matcher
needs to recognise a stored record (title, authors, year, url).

The matcher itself (:class:`litsift.sources.identity.matcher.IdentityIndex`) lives in ``sources``;
this module is the SQL it and the import writer run.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from litsift.types import Kind

__all__ = [
    "IdentityRow",
    "add_ids",
    "identity_rows",
    "ids_by_doc",
    "ids_of",
    "ids_of_docs",
    "json_list",
    "urls_containing",
]

#: ``(doc id, title, authors, year, url)`` of one stored paper, in rowid order
IdentityRow = tuple[str, str, list[Any], int | None, str | None]


def json_list(text: str | None) -> list[Any]:
    """``text`` decoded as a JSON list; ``[]`` for NULL, bad JSON or another JSON type."""
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def ids_by_doc(conn: sqlite3.Connection, kind: Kind) -> dict[str, dict[str, str]]:
    """Every stored identifier of ``kind``: ``{doc id: {scheme: value}}``."""
    ids: dict[str, dict[str, str]] = {}
    for doc_id, scheme, value in conn.execute(
        "SELECT doc_id, scheme, value FROM record_ids WHERE kind = ?", (kind.value,)
    ):
        ids.setdefault(doc_id, {})[scheme] = value
    return ids


def identity_rows(conn: sqlite3.Connection) -> list[IdentityRow]:
    """``(id, title, authors, year, url)`` of every stored paper in rowid order; ``authors`` is
    the decoded JSON list (``[]`` when it is not one)."""
    rows = conn.execute("SELECT id, title, authors, year, url FROM papers ORDER BY rowid")
    return [(d, t, json_list(a), y, u) for d, t, a, y, u in rows]


def ids_of(conn: sqlite3.Connection, kind: Kind, doc_id: str) -> tuple[str | None, dict[str, str]]:
    """The url of the stored paper ``doc_id`` (None when there is none) and the identifiers
    ``{scheme: value}`` stored for the record ``(kind, doc_id)``."""
    row = conn.execute("SELECT url FROM papers WHERE id = ?", (doc_id,)).fetchone()
    url = row[0] if row else None
    rows = conn.execute(
        "SELECT scheme, value FROM record_ids WHERE kind = ? AND doc_id = ?", (kind.value, doc_id)
    ).fetchall()
    return url, {str(s): str(v) for s, v in rows}


def ids_of_docs(
    conn: sqlite3.Connection, kind: Kind, doc_ids: Sequence[str]
) -> dict[str, dict[str, str]]:
    """``{doc_id: {scheme: value}}`` of the identifiers stored for ``doc_ids`` (docs with none
    are left out); batched 900 ids a query (SQLite's bound-parameter limit)."""
    out: dict[str, dict[str, str]] = {}
    for start in range(0, len(doc_ids), 900):
        chunk = list(doc_ids[start : start + 900])
        marks = ",".join("?" * len(chunk))
        for doc_id, scheme, value in conn.execute(
            f"SELECT doc_id, scheme, value FROM record_ids WHERE kind = ? AND doc_id IN ({marks})",
            [kind.value, *chunk],
        ):
            out.setdefault(str(doc_id), {})[str(scheme)] = str(value)
    return out


def add_ids(conn: sqlite3.Connection, kind: Kind, doc_id: str, ids: Mapping[str, str]) -> None:
    """Keep every identifier of ``ids`` for the record (one already stored is left as is)."""
    conn.executemany(
        "INSERT OR IGNORE INTO record_ids(kind, doc_id, scheme, value) VALUES (?, ?, ?, ?)",
        [(kind.value, doc_id, s, v) for s, v in ids.items()],
    )


# ---------------------------------------------------------------- identity keys (issue 32)

_NO_YEAR = -1

#: ``(rowid, doc id, title key, family, year)`` of one stored paper
KeyRow = tuple[int, str, str, str, int | None]
#: ``(block, rowid, doc id, title key, family, year)``: a stored paper holding a title block
BlockRow = tuple[int, int, str, str, str, int | None]
#: ``(doc id, title, authors, year, url, revision)`` of a paper whose keys are out of date
ChangedRow = tuple[str, str, list[Any], int | None, str | None, int]
_PARAMS = 900  # bound parameters a query (SQLite's historical limit is 999)


def keys_revision(conn: sqlite3.Connection) -> int:
    """The store revision up to which the key tables are current (-1: none; their DDL:
    :mod:`litsift.store.schema_identity`)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'identity_keys_revision'").fetchone()
    return int(row[0]) if row else -1


def papers_since(conn: sqlite3.Connection, revision: int, limit: int) -> list[ChangedRow]:
    """At most ``limit`` papers changed after ``revision``, in revision order, ``authors``
    decoded (``[]`` when not a JSON list)."""
    rows = conn.execute(
        "SELECT id, title, authors, year, url, revision FROM papers WHERE revision > ? "
        "ORDER BY revision LIMIT ?",
        (revision, limit),
    )
    return [(d, t, json_list(a), y, u, r) for d, t, a, y, u, r in rows]


def put_keys(
    conn: sqlite3.Connection,
    keys: Sequence[tuple[str, str, str, int | None]],
    url_ids: Sequence[tuple[str, str, str]],
    revision: int,
    tokens_of: Callable[[str], Iterable[str]],
    blocks_of: Callable[[str], Iterable[int]],
) -> None:
    """Replace the keys ``(doc id, title key, family, year)`` and url identifiers
    ``(doc id, scheme, value)`` of the papers of ``keys``, their title blocking tokens
    (``tokens_of(title key)``: their counts, ``TOKENS_SQL``, and
    ``FAMILY_TOKENS_SQL`` for a paper with a first author) and their title blocks
    (``blocks_of(title key)``, signed 64-bit integers; ``BLOCKS_SQL``; all in
    :mod:`litsift.store.schema_identity`); the tables are now current up to store revision
    ``revision``."""
    old: dict[str, tuple[str, str, int | None]] = {}
    for chunk in _chunks([k[0] for k in keys], _PARAMS):
        marks = ",".join("?" * len(chunk))
        for doc_id, key, family, year in conn.execute(
            f"SELECT doc_id, title_key, family, year FROM paper_keys WHERE doc_id IN ({marks})",
            chunk,
        ):
            old[doc_id] = (key, family, year)
    gone: list[tuple[str, str, int, int, str]] = []
    added: list[tuple[str, str, int, int, str]] = []
    blocks_gone: list[tuple[int, int, int, str]] = []
    blocks_added: list[tuple[int, int, int, str]] = []
    delta: Counter[str] = Counter()
    for doc_id, key, family, year in keys:
        before = old.get(doc_id)
        if before == (key, family, year):
            continue  # same title key, first author and year: same postings
        if before is not None:
            for token in tokens_of(before[0]):
                gone.append((before[1], token, _year_of(before[2]), len(before[0]), doc_id))
                delta[token] -= 1
            blocks_gone += [
                (b, len(before[0]), _year_of(before[2]), doc_id) for b in blocks_of(before[0])
            ]
        for token in tokens_of(key):
            added.append((family, token, _year_of(year), len(key), doc_id))
            delta[token] += 1
        blocks_added += [(b, len(key), _year_of(year), doc_id) for b in blocks_of(key)]
    # in key order: each B-tree page is visited once (a first fill of 300K papers: ~8 rows
    # a paper in each posting table)
    gone.sort()
    added.sort()
    conn.executemany(
        "DELETE FROM paper_family_tokens WHERE family = ? AND token = ? AND year = ? "
        "AND title_len = ? AND doc_id = ?",
        [row for row in gone if row[0]],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO paper_family_tokens VALUES (?, ?, ?, ?, ?)",
        [row for row in added if row[0]],
    )
    conn.executemany(
        "DELETE FROM paper_title_blocks WHERE block = ? AND title_len = ? AND year = ? "
        "AND doc_id = ?",
        sorted(blocks_gone),
    )
    conn.executemany(
        "INSERT OR IGNORE INTO paper_title_blocks(block, title_len, year, doc_id) "
        "VALUES (?, ?, ?, ?)",
        sorted(blocks_added),
    )
    conn.executemany(
        "INSERT INTO title_token_counts(token, papers) VALUES (?, ?) "
        "ON CONFLICT(token) DO UPDATE SET papers = papers + excluded.papers",
        sorted((t, n) for t, n in delta.items() if n),
    )
    conn.executemany("DELETE FROM paper_url_ids WHERE doc_id = ?", [(k[0],) for k in keys])
    conn.executemany(
        "INSERT OR REPLACE INTO paper_keys(doc_id, title_key, family, year, title_len) "
        "VALUES (?1, ?2, ?3, ?4, length(?2))",
        keys,
    )
    conn.executemany("INSERT OR REPLACE INTO paper_url_ids VALUES (?, ?, ?)", url_ids)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'identity_keys_revision'", (str(revision),))


def _year_of(year: int | None) -> int:
    return _NO_YEAR if year is None else int(year)


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


_KEY_SELECT = (
    "SELECT p.rowid, k.doc_id, k.title_key, k.family, k.year FROM paper_keys k "
    "JOIN papers p ON p.id = k.doc_id WHERE "
)


def docs_with_ids(
    conn: sqlite3.Connection, kind: Kind, pairs: Sequence[tuple[str, str]]
) -> set[str]:
    """The docs of ``kind`` holding any identifier ``(scheme, value)`` of ``pairs``, in
    ``record_ids`` or (papers) read off their url; one query per 450 pairs and table."""
    found: set[str] = set()
    for chunk in _chunks(list(pairs), _PARAMS // 2):
        values = ",".join("(?, ?)" for _ in chunk)
        flat = [x for pair in chunk for x in pair]
        pairs_cte = f"WITH w(scheme, value) AS (VALUES {values}) "
        found.update(
            str(d)
            for (d,) in conn.execute(  # CROSS JOIN: the wanted ids drive, the key answers
                pairs_cte + "SELECT r.doc_id FROM w CROSS JOIN record_ids r "
                "ON r.kind = ? AND r.scheme = w.scheme AND r.value = w.value",
                [*flat, kind.value],
            )
        )
        if kind is Kind.PAPER:
            found.update(
                str(d)
                for (d,) in conn.execute(
                    pairs_cte + "SELECT u.doc_id FROM w CROSS JOIN paper_url_ids u "
                    "ON u.scheme = w.scheme AND u.value = w.value",
                    flat,
                )
            )
    return found


def keys_of_docs(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> list[KeyRow]:
    """:data:`KeyRow` of the stored papers ``doc_ids`` (in no particular order)."""
    out: list[KeyRow] = []
    for chunk in _chunks(list(doc_ids), _PARAMS):
        marks = ",".join("?" * len(chunk))
        out += conn.execute(_KEY_SELECT + f"k.doc_id IN ({marks})", list(chunk)).fetchall()
    return out


def keys_with_titles(conn: sqlite3.Connection, title_keys: Sequence[str]) -> list[KeyRow]:
    """:data:`KeyRow` of the stored papers whose title key is one of ``title_keys``."""
    out: list[KeyRow] = []
    for chunk in _chunks(list(title_keys), _PARAMS):
        marks = ",".join("?" * len(chunk))
        out += conn.execute(_KEY_SELECT + f"k.title_key IN ({marks})", list(chunk)).fetchall()
    return out


def token_counts(conn: sqlite3.Connection, tokens: Sequence[str]) -> dict[str, int]:
    """``{token: papers}``: how many stored papers' title keys hold each of ``tokens`` (a
    deleted paper's tokens still count; tokens of no paper are left out)."""
    out: dict[str, int] = {}
    for chunk in _chunks(list(tokens), _PARAMS):
        marks = ",".join("?" * len(chunk))
        out.update(
            conn.execute(
                f"SELECT token, papers FROM title_token_counts WHERE token IN ({marks}) "
                "AND papers > 0",
                list(chunk),
            ).fetchall()
        )
    return out


def keys_sharing_tokens(
    conn: sqlite3.Connection, wanted: Sequence[tuple[str, str, int | None, int, int]]
) -> list[KeyRow]:
    """:data:`KeyRow` of the stored papers whose title key holds a blocking token, one
    ``(token, family, year, lo, hi)`` of ``wanted`` each: of first author ``family``, a year
    within one of ``year`` or unknown (any year when ``year`` is None), and a title key
    ``lo..hi`` characters long. The wanted tokens drive the query (CROSS JOIN): the rows read
    are that first author's postings of those tokens in those years
    (``FAMILY_TOKENS_SQL``), not the store. (A record without a first author reads title
    blocks: :func:`keys_sharing_blocks`.)"""
    known = [
        (token, family, y, lo, hi)
        for token, family, year, lo, hi in wanted
        if year is not None
        for y in (year - 1, year, year + 1, _NO_YEAR)
    ]
    unknown = [(token, family, lo, hi) for token, family, year, lo, hi in wanted if year is None]
    posting = "paper_family_tokens t ON t.family = w.family AND t.token = w.token AND "
    out: list[KeyRow] = []
    for rows, cte, year_term in (
        (known, "w(token, family, year, lo, hi)", "t.year = w.year AND "),
        (unknown, "w(token, family, lo, hi)", ""),
    ):
        if not rows:
            continue
        width = len(rows[0])
        for chunk in _chunks(rows, _PARAMS // width):
            values = ",".join("(" + ", ".join("?" * width) + ")" for _ in chunk)
            out += conn.execute(
                f"WITH {cte} AS (VALUES {values}) "
                "SELECT p.rowid, k.doc_id, k.title_key, k.family, k.year FROM w "
                f"CROSS JOIN {posting}{year_term}t.title_len BETWEEN w.lo AND w.hi "
                "CROSS JOIN paper_keys k ON k.doc_id = t.doc_id AND k.family = w.family "
                "JOIN papers p ON p.id = k.doc_id",
                [x for row in chunk for x in row],
            ).fetchall()
    return out


def blocks_sql(rows: int) -> str:
    """The query of :func:`keys_sharing_blocks` for ``rows`` wanted blocks, bound as ``rows``
    flat ``(block, year, lo, hi)`` quadruples: the wanted blocks drive (CROSS JOIN), each
    reads one primary-key range of ``paper_title_blocks`` (the block's postings in the
    title-length window; the year is checked on each posting)."""
    values = ",".join("(?, ?, ?, ?)" for _ in range(rows))
    return (
        f"WITH w(block, year, lo, hi) AS (VALUES {values}) "
        "SELECT t.block, p.rowid, k.doc_id, k.title_key, k.family, k.year FROM w "
        "CROSS JOIN paper_title_blocks t ON t.block = w.block "
        "AND t.title_len BETWEEN w.lo AND w.hi "
        f"AND (w.year IS NULL OR t.year = {_NO_YEAR} "
        "OR t.year BETWEEN w.year - 1 AND w.year + 1) "
        "CROSS JOIN paper_keys k ON k.doc_id = t.doc_id "
        "JOIN papers p ON p.id = k.doc_id"
    )


def keys_sharing_blocks(
    conn: sqlite3.Connection, wanted: Sequence[tuple[int, int | None, int, int]]
) -> list[BlockRow]:
    """:data:`BlockRow` of the stored papers holding a title block, one ``(block, year, lo,
    hi)`` of ``wanted`` each (:data:`BLOCKS_SQL`): a title key ``lo..hi`` characters long and a
    year within one of ``year`` or unknown (any year when ``year`` is None); a paper holding
    several comes once per block. One query (:func:`blocks_sql`) per 225 blocks: the rows read
    are the postings of those blocks, not the store."""
    out: list[BlockRow] = []
    for chunk in _chunks(list(wanted), _PARAMS // 4):
        flat = [x for row in chunk for x in row]
        out += conn.execute(blocks_sql(len(chunk)), flat).fetchall()
    return out


def url_ids_of_docs(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> dict[str, dict[str, str]]:
    """``{doc_id: {scheme: value}}`` of the identifiers read off the urls of ``doc_ids``."""
    out: dict[str, dict[str, str]] = {}
    for chunk in _chunks(list(doc_ids), _PARAMS):
        marks = ",".join("?" * len(chunk))
        for doc_id, scheme, value in conn.execute(
            f"SELECT doc_id, scheme, value FROM paper_url_ids WHERE doc_id IN ({marks})",
            list(chunk),
        ):
            out.setdefault(str(doc_id), {})[str(scheme)] = str(value)
    return out


def urls_containing(
    conn: sqlite3.Connection, needle: str, limit: int = 50
) -> list[tuple[str, str]]:
    """``(doc id, url)`` of at most ``limit`` stored papers whose url contains ``needle``
    (case-insensitive; one scan of ``papers``): the url ids of papers imported last, which
    ``paper_url_ids`` holds only from the next import on, are read by the caller."""
    rows = conn.execute(
        "SELECT id, url FROM papers WHERE url IS NOT NULL AND instr(lower(url), ?) > 0 LIMIT ?",
        (needle.lower(), limit),
    )
    return [(str(d), str(u)) for d, u in rows]
