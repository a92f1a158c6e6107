"""Papers and datasets as Milvus collections: their schema, push state and raw search (the
engine over them is :mod:`litsift.search.engines.milvus`).

One collection per kind, ``<collection_prefix>papers`` and ``<collection_prefix>datasets``:

- ``id`` (INT64, primary): the SQLite rowid, so hits join the user's store as local hits do;
- ``all``/``title`` (papers) or ``all``/``name`` (datasets): the BM25 fields of
  :data:`litsift.search.retrieval.record_text.DEFAULT_BOOSTS`, each with Milvus's BM25 function
  writing a
  sparse field ``<field>_bm25`` (``SPARSE_INVERTED_INDEX``, metric BM25, k1 = 1.2, b = 0.75);
- ``dense`` (FLOAT_VECTOR, the encoder's dim): HNSW (M 16, efConstruction 200), inner product
  (the vectors are unit length: IP is cosine);
- ``year`` (INT64, :data:`~litsift.search.retrieval.filters.YEAR_MISSING` when absent), ``kind``,
  ``rev`` (the store revision pushed).

Text is analysed by litsift before it reaches Milvus (tantivy's ``en_stem`` pipeline of
:func:`litsift.search.retrieval.bm25.analyzer`: the tokens joined by spaces) and Milvus's
``standard``
tokenizer splits it again: Milvus Lite's only Latin analyser is ``\\w+`` + lowercase (no
stemmer), Milvus Standalone's ``english`` one stems with another stemmer and drops stop words;
pre-analysing gives the same terms as the local index on every Milvus. Queries are analysed
the same way, a repeated query word repeated (BM25's query term frequency, as locally).
The year filter is a Milvus boolean expression (``year >= a and year <= b``, ``or year == -1``
to keep missing years), pushed into both searches.

A collection property (``litsift.encoder``) records the encoder (model id, ONNX sha256 via
:attr:`Encoder.cache_key`, dim); a mismatch is an :class:`IndexMismatchError`. Pushes are
incremental, batched and resumable: a small JSON state per (URI, collection) in
``<index dir>/milvus/`` holds the store revision pushed and a rowid cursor written after each
batch (the manifests' revision + ``dense_cursor`` logic of :mod:`litsift.search.build.two_phase`).

The pushes are in :mod:`litsift.search.engines.milvus_push`; the passages collection (full text) in
:mod:`litsift.search.engines.milvus_passages`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pymilvus import MilvusClient
from pymilvus.exceptions import MilvusException

from litsift.errors import IndexMismatchError, IndexMissingError, LitsiftError
from litsift.search.retrieval.bm25 import MAX_QUERY_TOKENS, analyzer
from litsift.search.retrieval.filters import YEAR_MISSING, is_filtering
from litsift.search.retrieval.record_text import DEFAULT_BOOSTS
from litsift.types import Kind, YearRange

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder

__all__ = ["MilvusCollections", "analysed", "query_terms", "year_expression"]

#: Milvus's cap on ``limit`` (topk) of one search.
MAX_LIMIT = 16_384
#: Milvus's cap on a VARCHAR field, in bytes.
MAX_VARCHAR = 65_535
#: Rows per upsert call.
UPSERT_ROWS = 256
#: HNSW search breadth (at least the limit asked).
EF_SEARCH = 128
#: The collection property naming the encoder and kind of its vectors.
PROPERTY = "litsift.encoder"
_REBUILD_HINT = "run `litsift index --engine milvus --rebuild`"
_TABLES = {Kind.PAPER: "papers", Kind.DATASET: "datasets"}


def year_expression(years: YearRange) -> str:
    """The Milvus filter expression of a year range ('' when it keeps everything).

    ``YearRange(2015, 2019)`` gives ``"(year >= 2015 and year <= 2019)"``; with
    ``include_missing`` ``" or year == -1"`` is added.
    """
    if not is_filtering(years):
        return ""
    low = years.start if years.start is not None else YEAR_MISSING + 1
    parts = [f"year >= {low}"]
    if years.end is not None:
        parts.append(f"year <= {years.end}")
    expr = f"({' and '.join(parts)})"
    return f"{expr} or year == {YEAR_MISSING}" if years.include_missing else expr


def analysed(text: str) -> str:
    """``text`` as litsift's BM25 analyser cuts it, tokens joined by one space, cut to fit a
    Milvus VARCHAR (:data:`MAX_VARCHAR` bytes)."""
    out = " ".join(_ANALYZER.analyze(text))
    if len(out.encode()) > MAX_VARCHAR:
        out = out.encode()[:MAX_VARCHAR].decode(errors="ignore").rsplit(" ", 1)[0]
    return out


_ANALYZER = analyzer()


def query_terms(text: str) -> str:
    """A query as analysed terms, each repeated by its count in the query (BM25's query term
    frequency), at most :data:`MAX_QUERY_TOKENS` distinct; '' when it has no word."""
    counts: dict[str, int] = {}
    for tok in _ANALYZER.analyze(text):
        if tok in counts or len(counts) < MAX_QUERY_TOKENS:
            counts[tok] = counts.get(tok, 0) + 1
    return " ".join(" ".join([t] * n) for t, n in counts.items())


class MilvusCollections:
    """The collections of one Milvus URI: names, push state, errors, schema checks, counts and
    raw search; :class:`~litsift.search.engines.milvus.MilvusEngine` is the engine over them.

    Args:
        uri: ``http://host:19530`` (a server) or an absolute ``.db`` path (Milvus Lite).
        token: the server's token (``user:password`` or an API key); '' for none.
        prefix: the collections' name prefix.
        index_root: the home's index dir (push state lives in ``milvus/`` under it).

    Raises:
        IndexMissingError: Milvus cannot be reached at ``uri``.
    """

    @property
    def where(self) -> str:
        """The Milvus URI (a server URL or a Milvus Lite file)."""
        return self.uri

    def __init__(self, uri: str, token: str, prefix: str, index_root: Path) -> None:
        self.uri = uri
        self.prefix = prefix
        self.index_root = Path(index_root)
        self._lock = threading.RLock()
        self._has_passages: bool | None = None
        with self._errors("connect"):
            self.client = MilvusClient(uri=uri, token=token, timeout=30)

    # -- naming and state ---------------------------------------------------------------
    def collection(self, kind: Kind) -> str:
        """The collection of ``kind``, e.g. ``litsift_papers``."""
        return f"{self.prefix}{_TABLES[kind]}"

    def _state_path(self, name: str) -> Path:
        where = hashlib.sha256(self.uri.encode()).hexdigest()[:12]
        return self.index_root / "milvus" / f"{where}-{name}.json"

    def _read_state(self, name: str) -> dict[str, int]:
        try:
            raw = json.loads(self._state_path(name).read_text(encoding="utf-8"))
            return {k: int(raw[k]) for k in ("revision", "target", "cursor")}
        except (OSError, ValueError, KeyError, TypeError):
            return {"revision": 0, "target": 0, "cursor": 0}

    def _write_state(self, name: str, state: dict[str, int]) -> None:
        self._write_state_raw(name, dict(state))

    def _write_state_raw(self, name: str, state: dict[str, Any]) -> None:
        path = self._state_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state), encoding="utf-8")
        tmp.replace(path)

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """Milvus's and gRPC's errors as a LitsiftError naming the URI (never a traceback)."""
        try:
            yield
        except LitsiftError:
            raise
        except (MilvusException, OSError, RuntimeError, ValueError) as err:
            why = getattr(err, "message", "") or str(err) or type(err).__name__
            raise IndexMissingError(
                f"Milvus at {self.uri}: {what} failed: {str(why).splitlines()[0][:300]}",
                "check that the server is up and engine.uri / engine.token_env in config.toml",
            ) from err

    # -- schema ---------------------------------------------------------------------------
    @staticmethod
    def fields(kind: Kind) -> dict[str, float]:
        """``{BM25 text field: boost}`` of ``kind`` (:data:`DEFAULT_BOOSTS`, but the authors:
        collections made before they counted have no such field; a Milvus corpus is searched
        by its text and titles)."""
        return {f: b for f, b in DEFAULT_BOOSTS[kind].items() if b > 0 and f != "authors"}

    @staticmethod
    def describe(encoder: Encoder, kind: Kind) -> str:
        """The collection description: which encoder and kind its vectors come from."""
        return json.dumps(
            {
                "litsift": 1,
                "kind": kind.value,
                "model": encoder.model_id,
                "encoder": encoder.cache_key,
                "dim": encoder.dim,
            },
            sort_keys=True,
        )

    def check(self, kind: Kind, encoder: Encoder) -> str:
        """The collection of ``kind``, checked against ``encoder``.

        Raises:
            IndexMissingError: no such collection (or Milvus cannot be reached).
            IndexMismatchError: its vectors come from another encoder or kind.
        """
        name = self.collection(kind)
        with self._errors(f"opening {name}"):
            if not self.client.has_collection(name):
                raise IndexMissingError(
                    f"no Milvus collection {name} at {self.uri}",
                    f"run `litsift index {_TABLES[kind]} --engine milvus`",
                )
            props = self.client.describe_collection(name).get("properties") or {}
            desc = str(props.get(PROPERTY, ""))
        try:
            got = json.loads(desc)
        except ValueError:
            got = {}
        want = json.loads(self.describe(encoder, kind))
        if {k: got.get(k) for k in want} != want:
            raise IndexMismatchError(
                f"the Milvus collection {name} was built by another encoder or kind "
                f"({got.get('model', 'unknown')}, {got.get('kind', '?')}); "
                f"this litsift embeds {kind.value}s with {encoder.model_id}",
                _REBUILD_HINT,
            )
        return name

    # -- search ---------------------------------------------------------------------------
    def count(self, kind: Kind) -> int:
        """Rows in the collection of ``kind`` (0 when there is none)."""
        name = self.collection(kind)
        with self._errors(f"counting {name}"):
            if not self.client.has_collection(name):
                return 0
            got = self.client.query(name, filter="", output_fields=["count(*)"])
        return int(got[0]["count(*)"]) if got else 0

    def search(
        self, kind: Kind, field: str, data: list[Any], limit: int, years: YearRange
    ) -> list[tuple[int, float]]:
        """One Milvus search of ``field`` (a ``*_bm25`` sparse field with query text, or
        ``dense`` with a vector), ``years`` pushed down: ``(rowid, score)``, best first, ties
        by rowid."""
        name = self.collection(kind)
        limit = min(limit, MAX_LIMIT)
        if limit <= 0:
            return []
        params: dict[str, Any] = (
            {"metric_type": "IP", "params": {"ef": max(limit, EF_SEARCH)}}
            if field == "dense"
            else {"metric_type": "BM25"}
        )
        with self._errors(f"searching {name}"):
            res = self.client.search(
                name,
                data=data,
                anns_field=field,
                limit=limit,
                filter=year_expression(years),
                search_params=params,
                output_fields=[],
            )
        hits = [(int(h["id"]), float(h["distance"])) for h in res[0]] if res else []
        if field != "dense":  # BM25 >= 0; Milvus Lite 3.2 returns it negated (its "distance")
            hits = [(rowid, abs(score)) for rowid, score in hits]
        return sorted(hits, key=lambda x: (-x[1], x[0]))
