"""Citation edges: which work cites which, kept in the ``citations`` table.

An edge is ``(citing, cited)``; each end is a **key**:

* a stored paper's id (``papers.id``: ``doi:10.18653/v1/2020.acl-main.207``, ``key:1a2b...``), or
* an external identifier of a work not (yet) in the store, spelled ``scheme:value`` with the
  value normalised by :func:`litsift.sources.identity.ids.citation_key`
  (``doi:10.1145/3292500.3330701``,
  ``openalex:W2162348455``, ``s2:<40 hex>``, ``arxiv:2101.00001``, ``pmid:123``, ...).

Importers add the edges a record carries (OpenAlex ``referenced_works``, S2 ``references`` /
``citations``, Crossref ``reference``, TEI ``listBibl``, JATS ``ref-list``, S2ORC
``bib_entries``); :func:`resolve` rewrites an external key to the id of the stored paper that
holds that identifier (``record_ids``), so an edge resolves when its record arrives by any of its
identifiers. Two keys of one work (its DOI and its OpenAlex id) collapse into one edge then.

Importers also keep a label for an external end when the source names the work
(``citation_labels``: ``"Title (First author, 2019)"``), so a stub can be shown before its
record is fetched.

The functions run in the caller's connection and transaction; they never commit (writers wrap
them in :meth:`litsift.store.repo.Store.transaction`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "add_edges",
    "add_edges_resolved",
    "add_labels",
    "cited_by",
    "count",
    "graph",
    "labels",
    "normalize_key",
    "references",
    "resolve",
    "resolve_keys",
    "resolve_record",
    "resolve_to",
]

_MAX_PARAMS = 900


def normalize_key(key: str) -> str | None:
    """``key`` stripped, or None when it is not ``prefix:value`` or names nothing."""
    key = key.strip()
    prefix, sep, value = key.partition(":")
    return key if prefix and sep and value.strip() else None


def add_edges(conn: sqlite3.Connection, edges: Iterable[tuple[str, str]], source: str) -> int:
    """Store citation edges ``(citing key, cited key)`` read from ``source`` (the format or
    service: ``openalex``, ``grobid-tei``, ...). Keys come normalised (external ones made by
    :func:`litsift.sources.identity.ids.citation_key`); an edge with an empty key or from a key to
    itself is skipped, and an edge already stored keeps its first source. An external end that
    a stored paper already holds (``record_ids``) is rewritten to that paper's id at once.

    Returns:
        The number of edges newly stored.
    """
    rows: list[tuple[str, str, str]] = []
    for citing, cited in edges:
        a, b = normalize_key(citing), normalize_key(cited)
        if a and b and a != b:
            rows.append((a, b, source))
    if not rows:
        return 0
    before = conn.total_changes
    conn.executemany(
        "INSERT OR IGNORE INTO citations(citing, cited, source) VALUES (?, ?, ?)", rows
    )
    added = conn.total_changes - before
    resolve_keys(conn, {k for a, b, _ in rows for k in (a, b)})
    return added


def resolve_keys(conn: sqlite3.Connection, keys: Iterable[str]) -> int:
    """Rewrite the external ``keys`` (``scheme:value``) that a stored paper holds to its id,
    on every edge. Returns the edge ends rewritten."""
    pairs: list[tuple[str, str]] = []
    for key in keys:
        scheme, _, value = key.partition(":")
        row = conn.execute(
            "SELECT r.doc_id FROM record_ids r JOIN papers p ON p.id = r.doc_id "
            "WHERE r.kind = 'paper' AND r.scheme = ? AND r.value = ?",
            (scheme, value),
        ).fetchone()
        if row is not None and row[0] != key:
            pairs.append((key, str(row[0])))
    return _rewrite(conn, pairs)


def _rewrite(conn: sqlite3.Connection, pairs: list[tuple[str, str]]) -> int:
    """Rewrite each external ``key`` to ``doc_id`` on both ends of every edge; an edge that
    then repeats a stored one, or cites itself, is dropped. Returns the rows rewritten."""
    pairs = [
        (key, doc_id)
        for key, doc_id in pairs
        if conn.execute(
            "SELECT EXISTS(SELECT 1 FROM citations WHERE cited = ?) "
            "OR EXISTS(SELECT 1 FROM citations WHERE citing = ?)",
            (key, key),
        ).fetchone()[0]
    ]
    if not pairs:
        return 0
    before = conn.total_changes
    swapped = [(doc_id, key) for key, doc_id in pairs]
    conn.executemany("UPDATE OR IGNORE citations SET cited = ? WHERE cited = ?", swapped)
    conn.executemany("UPDATE OR IGNORE citations SET citing = ? WHERE citing = ?", swapped)
    changed = conn.total_changes - before
    keys = [(key,) for key, _ in pairs]
    conn.executemany("DELETE FROM citations WHERE cited = ?", keys)  # duplicates left behind
    conn.executemany("DELETE FROM citations WHERE citing = ?", keys)
    conn.executemany(
        "DELETE FROM citations WHERE citing = ? AND cited = ?", [(d, d) for _, d in pairs]
    )
    return changed


def resolve_to(conn: sqlite3.Connection, keys: Iterable[str], doc_id: str) -> int:
    """Rewrite ``keys`` (other names of stored paper ``doc_id``: a title key ``key:...``) to
    ``doc_id`` on every edge. Returns the edge ends rewritten."""
    return _rewrite(conn, [(k, doc_id) for k in keys if k != doc_id])


def resolve_record(conn: sqlite3.Connection, doc_id: str) -> int:
    """Resolve the edges that name stored paper ``doc_id`` by one of its identifiers
    (``record_ids``): what an importer calls after writing a paper. Returns the edge ends
    rewritten."""
    rows = conn.execute(
        "SELECT scheme, value FROM record_ids WHERE kind = 'paper' AND doc_id = ?", (doc_id,)
    ).fetchall()
    return resolve_keys(conn, [f"{s}:{v}" for s, v in rows])


def resolve(conn: sqlite3.Connection) -> int:
    """Rewrite every external key that a stored paper holds (by any identifier in
    ``record_ids``) to that paper's id. Idempotent; run after each ingest.

    Returns:
        The number of edge ends rewritten.
    """
    pairs = conn.execute(
        """
        WITH ends(k) AS (SELECT citing FROM citations UNION SELECT cited FROM citations)
        SELECT ends.k, r.doc_id FROM ends
        JOIN record_ids r ON r.kind = 'paper'
            AND r.scheme = substr(ends.k, 1, instr(ends.k, ':') - 1)
            AND r.value = substr(ends.k, instr(ends.k, ':') + 1)
        JOIN papers p ON p.id = r.doc_id
        WHERE r.doc_id != ends.k AND ends.k NOT IN (SELECT id FROM papers)
        """
    ).fetchall()
    return _rewrite(conn, [(str(k), str(d)) for k, d in pairs])


def add_labels(conn: sqlite3.Connection, labels: Mapping[str, str]) -> int:
    """Remember how a source named works that are not stored (an edge end that is an external
    key): ``{key: "Title (First author, 2019)"}``; the first label of a key is kept.

    Returns:
        The number of labels newly stored.
    """
    rows = [(k, " ".join(v.split())[:300]) for k, v in labels.items() if k and v.strip()]
    before = conn.total_changes
    conn.executemany("INSERT OR IGNORE INTO citation_labels(key, label) VALUES (?, ?)", rows)
    return conn.total_changes - before


def labels(conn: sqlite3.Connection, keys: Collection[str]) -> dict[str, str]:
    """The stored labels of ``keys`` (external keys; a key without one is left out)."""
    found: dict[str, str] = {}
    wanted = list(keys)
    for i in range(0, len(wanted), _MAX_PARAMS):
        chunk = wanted[i : i + _MAX_PARAMS]
        marks = ", ".join("?" * len(chunk))
        found.update(
            (str(k), str(v))
            for k, v in conn.execute(
                f"SELECT key, label FROM citation_labels WHERE key IN ({marks})", chunk
            )
        )
    return found


def references(conn: sqlite3.Connection, doc_id: str) -> list[str]:
    """The keys ``doc_id`` cites (stored ids or external keys), sorted."""
    rows = conn.execute(
        "SELECT cited FROM citations WHERE citing = ? ORDER BY cited", (doc_id,)
    ).fetchall()
    return [str(r[0]) for r in rows]


def cited_by(conn: sqlite3.Connection, doc_id: str) -> list[str]:
    """The keys that cite ``doc_id`` (stored ids or external keys), sorted."""
    rows = conn.execute(
        "SELECT citing FROM citations WHERE cited = ? ORDER BY citing", (doc_id,)
    ).fetchall()
    return [str(r[0]) for r in rows]


def count(conn: sqlite3.Connection) -> int:
    """The number of stored edges."""
    return int(conn.execute("SELECT count(*) FROM citations").fetchone()[0])


def graph(conn: sqlite3.Connection, doc_ids: Collection[str] | None = None) -> nx.DiGraph:
    """The citation graph: a ``networkx.DiGraph`` with an edge ``citing -> cited`` per stored
    edge (attribute ``source``). With ``doc_ids``, only the edges with at least one end in
    ``doc_ids`` (their references and citing works, one step out); node attribute ``stored``
    tells a stored paper's id from an external key.
    """
    import networkx as nx

    g: nx.DiGraph = nx.DiGraph()
    if doc_ids is None:
        rows = conn.execute("SELECT citing, cited, source FROM citations").fetchall()
    else:
        wanted = list(dict.fromkeys(doc_ids))
        g.add_nodes_from(wanted)
        rows = []
        for i in range(0, len(wanted), _MAX_PARAMS // 2):
            chunk = wanted[i : i + _MAX_PARAMS // 2]
            marks = ", ".join("?" * len(chunk))
            rows += conn.execute(
                f"SELECT citing, cited, source FROM citations WHERE citing IN ({marks}) "
                f"UNION SELECT citing, cited, source FROM citations WHERE cited IN ({marks})",
                (*chunk, *chunk),
            ).fetchall()
    for citing, cited, source in rows:
        g.add_edge(str(citing), str(cited), source=str(source))
    stored = _stored(conn, list(g.nodes))
    nx.set_node_attributes(g, {n: n in stored for n in g.nodes}, "stored")
    return g


def links_between(
    conn: sqlite3.Connection, docs: Sequence[str], others: Sequence[str]
) -> list[tuple[str, str]]:
    """``(doc, other)`` for every edge, either direction, between a doc of ``docs`` and one of
    ``others``: one indexed query reading only those edges (both sets passed as JSON arrays,
    so any size fits)."""
    import json

    rows = conn.execute(
        "SELECT citing, cited FROM citations"
        " WHERE citing IN (SELECT value FROM json_each(?1))"
        " AND cited IN (SELECT value FROM json_each(?2))"
        " UNION SELECT cited, citing FROM citations"
        " WHERE cited IN (SELECT value FROM json_each(?1))"
        " AND citing IN (SELECT value FROM json_each(?2))",
        (json.dumps(list(docs)), json.dumps(list(others))),
    ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def _stored(conn: sqlite3.Connection, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for i in range(0, len(keys), _MAX_PARAMS):
        chunk = keys[i : i + _MAX_PARAMS]
        marks = ", ".join("?" * len(chunk))
        found.update(
            str(r[0]) for r in conn.execute(f"SELECT id FROM papers WHERE id IN ({marks})", chunk)
        )
    return found


def add_edges_resolved(
    conn: sqlite3.Connection, edges: Sequence[tuple[str, str]], source: str
) -> tuple[int, int, int]:
    """Store citation edges ``(citing key, cited key)`` from ``source`` with each end that a
    stored paper holds (``record_ids``) written as that paper's id at once, so an edge stored
    before (by this or another source) is found, not added again: what a bulk edge file needs
    (``litsift refs import``). Keys as in :func:`add_edges`; an empty key or an edge from a
    work to itself (after resolving) is skipped.

    Returns:
        ``(edges newly stored, edges already stored, edges of ``edges`` with an end that is a
        stored paper)``.
    """
    ends: dict[str, set[str]] = {}
    for citing, cited in edges:
        for key in (normalize_key(citing), normalize_key(cited)):
            if key:
                scheme, _, value = key.partition(":")
                ends.setdefault(scheme, set()).add(value)
    stored: dict[str, str] = {}
    for scheme, values in ends.items():
        wanted = list(values)
        for i in range(0, len(wanted), _MAX_PARAMS):
            chunk = wanted[i : i + _MAX_PARAMS]
            marks = ", ".join("?" * len(chunk))
            stored.update(
                (f"{scheme}:{v}", str(d))
                for v, d in conn.execute(
                    "SELECT r.value, r.doc_id FROM record_ids r JOIN papers p ON p.id = r.doc_id "
                    f"WHERE r.kind = 'paper' AND r.scheme = ? AND r.value IN ({marks})",
                    (scheme, *chunk),
                )
            )
    rows: dict[tuple[str, str], None] = {}
    resolved = 0
    for citing, cited in edges:
        a, b = normalize_key(citing), normalize_key(cited)
        if not a or not b:
            continue
        a2, b2 = stored.get(a, a), stored.get(b, b)
        if a2 == b2:
            continue
        resolved += a in stored or b in stored
        rows[(a2, b2)] = None
    before = conn.total_changes
    conn.executemany(
        "INSERT OR IGNORE INTO citations(citing, cited, source) VALUES (?, ?, ?)",
        [(a, b, source) for a, b in rows],
    )
    added = conn.total_changes - before
    return added, len(rows) - added, resolved
