"""Full-text passages in Milvus: the ``<prefix>passages`` collection searched as a passage
index (:class:`MilvusPassages`) and pushed from the store (:func:`push_passages`).

One row per passage: ``id`` (VARCHAR primary, ``"<doc id>\\x1f<idx>"``), ``kind``, ``dense``
(HNSW, inner product) and ``text`` (``section + text`` analysed by litsift, BM25 on
``text_bm25``); the collection property :data:`~litsift.search.engines.milvus_collections.PROPERTY`
names
the encoder.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from pymilvus import DataType, Function, FunctionType, MilvusClient

from litsift.search.build.layout import BATCH_SIZE, HNSW_EF_CONSTRUCTION, HNSW_M
from litsift.search.engines.milvus_collections import (
    EF_SEARCH,
    MAX_LIMIT,
    MAX_VARCHAR,
    PROPERTY,
    UPSERT_ROWS,
    analysed,
    query_terms,
)
from litsift.search.engines.milvus_push import PushReport
from litsift.types import Kind, Passage

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.search.build.layout import Progress
    from litsift.search.engines.milvus_collections import MilvusCollections
    from litsift.search.fulltext.index import PassageHit
    from litsift.store import Store

__all__ = ["MilvusPassages", "passage_key", "push_passages"]

PASSAGES = "passages"
#: Milvus's cap on a VARCHAR primary key here: ``"<doc id>\x1f<idx>"``.
MAX_KEY = 1024


def passage_key(doc_id: str, idx: int) -> str:
    """The primary key of a passage: its paper's id and its index, joined by U+001F."""
    return f"{doc_id}\x1f{idx}"


class MilvusPassages:
    """The full-text passages in ``<prefix>passages`` (BM25 on ``section + text``, dense on
    ``"<title>. <passage>"``, as :mod:`litsift.search.fulltext.index` indexes them locally);
    :meth:`search` is :meth:`PassageIndex.search`'s.

    Raises (both methods): IndexMissingError when Milvus cannot be reached.
    """

    def __init__(
        self, engine: MilvusCollections, store: Store, encoder: Encoder, count: int
    ) -> None:
        self.engine = engine
        self._store = store
        self._encoder = encoder
        self._count = count
        self.name = f"{engine.prefix}{PASSAGES}"

    @property
    def count(self) -> int:
        return self._count

    def _run(self, field: str, data: list[Any], k0: int) -> list[tuple[str, float]]:
        limit = min(k0, self._count, MAX_LIMIT)
        if limit <= 0:
            return []
        params: dict[str, Any] = (
            {"metric_type": "IP", "params": {"ef": max(limit, EF_SEARCH)}}
            if field == "dense"
            else {"metric_type": "BM25"}
        )
        with self.engine._errors(f"searching {self.name}"):
            res = self.engine.client.search(
                self.name,
                data=data,
                anns_field=field,
                limit=limit,
                search_params=params,
                output_fields=[],
            )
        hits = (
            [
                (
                    str(h["id"]),
                    abs(float(h["distance"])) if field != "dense" else float(h["distance"]),
                )
                for h in res[0]
            ]
            if res
            else []
        )
        return sorted(hits, key=lambda x: (-x[1], x[0]))

    def search(self, text: str, k: int = 20, k0: int = 100) -> list[PassageHit]:
        """The top ``k`` passages for ``text``: Milvus BM25 + dense, interpolated by litsift
        (equal weights, BM25's floor 0 when its run is shorter than ``k0``)."""
        from litsift.search.fulltext.index import WEIGHTS, PassageHit
        from litsift.search.retrieval.fusion import interpolate

        terms = query_terms(text)
        bm25 = self._run("text_bm25", [terms], k0) if terms else []
        qvec = np.asarray(self._encoder.encode_queries([text])[0], dtype=np.float32)
        dense = self._run("dense", [qvec.tolist()], k0)
        runs = {"bm25": bm25, "dense": dense}
        exhaustive = {"bm25": 0.0} if len(bm25) < k0 else None
        fused = interpolate(runs, WEIGHTS, limit=k, exhaustive=exhaustive)
        keys = [str(f.docid).split("\x1f", 1) for f in fused]
        passages = self._load([(d, int(i)) for d, i in keys])
        return [
            PassageHit(
                passages[(d, int(i))],
                f.score,
                {name: (s.score, s.rank) for name, s in f.signals.items()},
            )
            for f, (d, i) in zip(fused, keys, strict=True)
            if (d, int(i)) in passages
        ]

    def _load(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Passage]:
        from litsift.store.passages import passages_at

        return passages_at(self._store, keys)


def push_passages(
    engine: MilvusCollections,
    store: Store,
    encoder: Encoder,
    rebuild: bool = False,
    progress: Progress | None = None,
    batch_size: int = BATCH_SIZE,
) -> PushReport:
    """Push the store's passages to ``<prefix>passages``: skipped when their signature (texts,
    titles, encoder) is the one last pushed; otherwise every passage is upserted in batches
    (vectors from the embedding cache; resumable: the position is saved after each batch) and
    the keys no longer in the store are deleted.

    Raises:
        IndexMissingError: Milvus cannot be reached or refuses a write.
    """
    from litsift.search.fulltext.build import _signature, load_passages
    from litsift.text.passages import passage_input

    start = time.perf_counter()
    name = f"{engine.prefix}{PASSAGES}"
    passages, titles = load_passages(store)
    signature = _signature(passages, titles, encoder.cache_key)
    state_path = engine._state_path(name)
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        state = {}
    created = False
    with engine._errors(f"writing {name}"):
        exists = engine.client.has_collection(name)
        if exists and (rebuild or _passages_encoder(engine, name) != encoder.cache_key):
            engine.client.drop_collection(name)
            exists = False
        if not exists:
            if not passages:
                return PushReport(Kind.PAPER, name, 0, 0, 0.0, False, False)
            _create_passages(engine, name, encoder)
            state, created = {}, True
    if state.get("signature") == signature and not created:
        return PushReport(
            Kind.PAPER, name, 0, len(passages), time.perf_counter() - start, False, False
        )
    resumed = state.get("target") == signature and int(state.get("cursor", 0)) > 0
    cursor = int(state.get("cursor", 0)) if resumed else 0
    total = len(passages)
    if progress is not None:
        progress("push", cursor, total)
    for lo in range(cursor, total, batch_size):
        batch = passages[lo : lo + batch_size]
        texts = [passage_input(titles.get(p.doc_id, ""), p) for p in batch]
        vectors = encoder.encode_passages(texts)
        rows = [
            {
                "id": passage_key(p.doc_id, p.idx)[:MAX_KEY],
                "kind": "passage",
                "dense": np.asarray(v, dtype=np.float32).tolist(),
                "text": analysed(f"{p.section}\n{p.text}"),
            }
            for p, v in zip(batch, vectors, strict=True)
        ]
        with engine._errors(f"writing {name}"):
            for i in range(0, len(rows), UPSERT_ROWS):
                engine.client.upsert(name, rows[i : i + UPSERT_ROWS])
        engine._write_state_raw(name, {"target": signature, "cursor": lo + len(batch)})
        if progress is not None:
            progress("push", lo + len(batch), total)
    keep = {passage_key(p.doc_id, p.idx) for p in passages}
    with engine._errors(f"writing {name}"):
        gone = [
            str(r["id"])
            for r in engine.client.query(name, filter='id != ""', output_fields=["id"])
            if str(r["id"]) not in keep
        ]
        if gone:
            engine.client.delete(name, ids=gone)
        engine.client.flush(name)
    engine._write_state_raw(name, {"signature": signature})
    return PushReport(
        Kind.PAPER, name, total - cursor, total, time.perf_counter() - start, resumed, created
    )


def _passages_encoder(engine: MilvusCollections, name: str) -> str:
    props = engine.client.describe_collection(name).get("properties") or {}
    try:
        return str(json.loads(str(props.get(PROPERTY, "{}"))).get("encoder", ""))
    except ValueError:
        return ""


def _create_passages(engine: MilvusCollections, name: str, encoder: Encoder) -> None:
    schema = MilvusClient.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=MAX_KEY)
    schema.add_field("kind", DataType.VARCHAR, max_length=16)
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=encoder.dim)
    schema.add_field(
        "text",
        DataType.VARCHAR,
        max_length=MAX_VARCHAR,
        enable_analyzer=True,
        analyzer_params={"tokenizer": "standard"},
    )
    schema.add_field("text_bm25", DataType.SPARSE_FLOAT_VECTOR)
    schema.add_function(
        Function(
            name="text_bm25_fn",
            function_type=FunctionType.BM25,
            input_field_names=["text"],
            output_field_names=["text_bm25"],
        )
    )
    index = engine.client.prepare_index_params()
    index.add_index(
        "dense",
        index_type="HNSW",
        metric_type="IP",
        params={"M": HNSW_M, "efConstruction": HNSW_EF_CONSTRUCTION},
    )
    index.add_index(
        "text_bm25",
        index_type="SPARSE_INVERTED_INDEX",
        metric_type="BM25",
        params={"bm25_k1": 1.2, "bm25_b": 0.75},
    )
    engine.client.create_collection(name, schema=schema, index_params=index)
    desc = {
        "litsift": 1,
        "kind": "passage",
        "model": encoder.model_id,
        "encoder": encoder.cache_key,
        "dim": encoder.dim,
    }
    engine.client.alter_collection_properties(
        name, properties={PROPERTY: json.dumps(desc, sort_keys=True)}
    )
