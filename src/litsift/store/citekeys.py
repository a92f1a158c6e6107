"""Stored citation keys (table ``citekeys``: one UNIQUE key per ``(kind, doc id)``, never
changed once stored). How a key is made is :mod:`litsift.export.citekeys`'s business; this
module reads the stored keys and stores new ones in one write transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from litsift.store.history import StoreWriter
from litsift.types import Kind

__all__ = ["CitationKeys"]

_MAX_PARAMS = 400  # two parameters per (kind, doc_id)

Pair = tuple[Kind, str]


class CitationKeys(StoreWriter):
    """The ``citekeys`` table of one store (``CitationKeys(store)``)."""

    def existing(self, pairs: Sequence[Pair]) -> dict[Pair, str]:
        """The stored key of each ``(kind, doc id)`` that has one."""
        found: dict[Pair, str] = {}
        for start in range(0, len(pairs), _MAX_PARAMS):
            chunk = pairs[start : start + _MAX_PARAMS]
            where = " OR ".join("(kind = ? AND doc_id = ?)" for _ in chunk)
            params = [v for k, d in chunk for v in (k.value, d)]
            for k, d, key in self._read(
                f"SELECT kind, doc_id, citekey FROM citekeys WHERE {where}", params
            ):
                found[(Kind(k), str(d))] = str(key)
        return found

    def store_new(
        self, bases: Mapping[Pair, str], free_key: Callable[[str, set[str]], str]
    ) -> dict[Pair, str]:
        """Store a key for each pair of ``bases`` (in its order) in one write transaction:
        the key another process stored meanwhile, else ``free_key(base, stored keys that
        start with base)``.

        Returns:
            ``{(kind, doc id): key}`` for every pair of ``bases``.

        Raises:
            TriageError: the store is read-only; StoreLockedError: another writer held it
                past the busy timeout.
        """
        keys: dict[Pair, str] = {}
        with self._write() as conn:
            for pair, base in bases.items():
                row = conn.execute(
                    "SELECT citekey FROM citekeys WHERE kind = ? AND doc_id = ?",
                    (pair[0].value, pair[1]),
                ).fetchone()
                if row is not None:  # another process assigned it meanwhile
                    keys[pair] = str(row[0])
                    continue
                used = {
                    str(r[0])
                    for r in conn.execute(
                        "SELECT citekey FROM citekeys WHERE citekey GLOB ?", (base + "*",)
                    )
                }
                key = free_key(base, used)
                conn.execute(
                    "INSERT INTO citekeys(kind, doc_id, citekey) VALUES (?, ?, ?)",
                    (pair[0].value, pair[1], key),
                )
                keys[pair] = key
        return keys
