"""Issue 41 item 3: the store owns its connection and its lock.

Outside :mod:`litsift.store` no module reads a store's connection or lock (``conn``, ``lock``,
``_conn``, ``_lock``), opens its write transaction with the connection
(``write_transaction`` / ``_write_transaction``; :meth:`Store.transaction` hands none out),
or runs SQL (``execute``, ``executemany``, ``executescript``), except on the other
databases listed below; and the modules of :mod:`litsift.store` import one another without
a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import networkx as nx

SRC = Path(__file__).resolve().parents[2] / "src" / "litsift"

#: modules outside store/ with SQLite databases of their own (not the store's): the
#: content-addressed caches, Zotero's database (read-only), the sentence-vector cache
OTHER_DATABASES = {
    "cache/embeddings.py",
    "cache/llm_cache.py",
    "sources/formats/zotero.py",
    "search/aspects/sentences.py",
}
#: what only store/ may touch on a store
STORE_PRIVATE = {"conn", "lock", "_conn", "_lock", "write_transaction", "_write_transaction"}
SQL_CALLS = {"execute", "executemany", "executescript"}


def _outside_store() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if p.relative_to(SRC).parts[0] != "store"]


def _is_store(node: ast.expr) -> bool:
    """``store``, ``_store``, ``self.store``, ``svc.store``, ``self._store()`` ...: a name or an
    attribute (or the call of one) that says it is a store."""
    if isinstance(node, ast.Call):
        node = node.func
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name.lstrip("_") in {"store", "store_of"}


def _findings(rel: str, source: str) -> list[str]:
    """What module ``rel`` (its path under ``src/litsift``) with text ``source`` does that
    only store/ may."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        if node.attr in STORE_PRIVATE and _is_store(node.value):
            out.append(f"{rel}:{node.lineno}: .{node.attr} of a store")
        elif node.attr in SQL_CALLS and rel not in OTHER_DATABASES:
            out.append(f"{rel}:{node.lineno}: .{node.attr}(...) runs SQL outside store/")
    return out


def test_nothing_outside_store_touches_its_connection_lock_or_sql() -> None:
    found = [
        f
        for path in _outside_store()
        for f in _findings(str(path.relative_to(SRC)), path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_check_sees_what_it_forbids() -> None:
    """The check above finds each way in it forbids (so a green run means something), and
    leaves the other databases' SQL alone."""
    code = (
        "def f(store, self):\n"
        "    with store.lock:\n"
        "        store.conn.execute('SELECT 1')\n"
        "    self._store._conn.executemany('', [])\n"
        "    with self.store.write_transaction() as c:\n"
        "        pass\n"
    )
    found = sorted(f.split(": ", 1)[1] for f in _findings("search/x.py", code))
    assert found == [
        "._conn of a store",
        ".conn of a store",
        ".execute(...) runs SQL outside store/",
        ".executemany(...) runs SQL outside store/",
        ".lock of a store",
        ".write_transaction of a store",
    ]
    assert _findings("cache/llm_cache.py", "db.execute('SELECT 1')") == []


def test_the_other_databases_are_still_there() -> None:
    """The allow-list names modules that exist (a moved one must not widen it silently)."""
    assert all((SRC / rel).is_file() for rel in OTHER_DATABASES)


def test_no_import_cycle_among_store_modules() -> None:
    graph = grimp.build_graph("litsift")
    store = {m for m in graph.modules if m == "litsift.store" or m.startswith("litsift.store.")}
    edges = nx.DiGraph()
    edges.add_nodes_from(store)
    edges.add_edges_from(
        (m, i) for m in store for i in graph.find_modules_directly_imported_by(m) if i in store
    )
    cycles = [sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1]
    assert cycles == []
