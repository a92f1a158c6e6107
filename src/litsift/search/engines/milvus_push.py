"""Pushing the store's papers and datasets to Milvus collections: incremental, batched and
resumable (:meth:`~litsift.search.engines.milvus.MilvusEngine.push`), with the report of a push.

The collections' layout and the push state are described in :mod:`litsift.search.engines.milvus`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from pymilvus import DataType, Function, FunctionType, MilvusClient

from litsift.errors import IndexMismatchError
from litsift.search.build.layout import BATCH_SIZE, HNSW_EF_CONSTRUCTION, HNSW_M
from litsift.search.engines.milvus_collections import MAX_VARCHAR, PROPERTY, UPSERT_ROWS, analysed
from litsift.search.retrieval.filters import year_value
from litsift.search.retrieval.record_text import passage_text, record_fields
from litsift.types import Kind, Record

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.search.build.layout import Progress
    from litsift.search.engines.milvus_collections import MilvusCollections
    from litsift.store import Store

__all__ = ["PushReport", "create_collection", "push_kind"]


@dataclass(frozen=True)
class PushReport:
    """What :meth:`~litsift.search.engines.milvus.MilvusEngine.push` did: rows upserted, the
    collection's rows afterwards,
    seconds, whether it resumed an interrupted push and whether the collection was created."""

    kind: Kind
    collection: str
    pushed: int
    count: int
    seconds: float
    resumed: bool
    created: bool

    def summary(self) -> str:
        how = "resumed, " if self.resumed else "created, " if self.created else ""
        return (
            f"{self.pushed:,} rows pushed to Milvus collection {self.collection} "
            f"({how}{self.count:,} in it, {self.seconds:.1f} s)"
        )


def create_collection(engine: MilvusCollections, name: str, kind: Kind, encoder: Encoder) -> None:
    """Create the collection ``name`` of ``kind`` (schema and indexes of the module docstring
    of :mod:`litsift.search.engines.milvus`), its property naming ``encoder``."""
    schema = MilvusClient.create_schema(auto_id=False)
    schema.add_field("id", DataType.INT64, is_primary=True)
    schema.add_field("kind", DataType.VARCHAR, max_length=16)
    schema.add_field("year", DataType.INT64)
    schema.add_field("rev", DataType.INT64)
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=encoder.dim)
    index = engine.client.prepare_index_params()
    index.add_index(
        "dense",
        index_type="HNSW",
        metric_type="IP",
        params={"M": HNSW_M, "efConstruction": HNSW_EF_CONSTRUCTION},
    )
    for field in engine.fields(kind):
        schema.add_field(
            field,
            DataType.VARCHAR,
            max_length=MAX_VARCHAR,
            enable_analyzer=True,
            analyzer_params={"tokenizer": "standard"},
        )
        schema.add_field(f"{field}_bm25", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(
            Function(
                name=f"{field}_bm25_fn",
                function_type=FunctionType.BM25,
                input_field_names=[field],
                output_field_names=[f"{field}_bm25"],
            )
        )
        index.add_index(
            f"{field}_bm25",
            index_type="SPARSE_INVERTED_INDEX",
            metric_type="BM25",
            params={"bm25_k1": 1.2, "bm25_b": 0.75},
        )
    engine.client.create_collection(name, schema=schema, index_params=index)
    # a property, not the description: Milvus Lite does not keep descriptions
    engine.client.alter_collection_properties(
        name, properties={PROPERTY: engine.describe(encoder, kind)}
    )


def push_kind(
    engine: MilvusCollections,
    store: Store,
    encoder: Encoder,
    kind: Kind,
    rebuild: bool = False,
    progress: Progress | None = None,
    batch_size: int = BATCH_SIZE,
) -> PushReport:
    """:meth:`~litsift.search.engines.milvus.MilvusEngine.push`: upsert the rows of ``kind`` changed
    since the last push
    (all with ``rebuild``, or when the collection is missing or of another encoder: it is then
    dropped and made again), ``batch_size`` rows at a time, vectors from ``encoder`` (its
    passage cache first: nothing already embedded is embedded again).

    Resumable: the cursor is saved after every batch; an interrupted push goes on after
    the last batch saved. Progress: ``("push", done, total)``.

    Raises:
        IndexMissingError: Milvus cannot be reached or refuses a write.
    """
    start = time.perf_counter()
    name = engine.collection(kind)
    state = engine._read_state(name)
    created = False
    with engine._errors(f"writing {name}"):
        exists = engine.client.has_collection(name)
        if exists and not rebuild:
            try:
                engine.check(kind, encoder)
            except IndexMismatchError:
                rebuild = True
        if exists and rebuild:
            engine.client.drop_collection(name)
            exists = False
        if not exists:
            create_collection(engine, name, kind, encoder)
            state, created = {"revision": 0, "target": 0, "cursor": 0}, True
    resumed = state["cursor"] > 0
    if not resumed:
        state["target"] = store.max_revision(kind)
    since, after, target = state["revision"], state["cursor"], state["target"]
    total = store.count_since(kind, since, after)
    done = 0
    if progress is not None:
        progress("push", 0, total)
    for batch in store.rows_since(kind, since, batch_size=batch_size):
        batch = [r for r in batch if r.rowid is not None and r.rowid > after]
        if not batch:
            continue
        vectors = encoder.encode_passages([passage_text(r) for r in batch])
        rows = [_row(engine, kind, r, v, target) for r, v in zip(batch, vectors, strict=True)]
        with engine._errors(f"writing {name}"):
            for i in range(0, len(rows), UPSERT_ROWS):
                engine.client.upsert(name, rows[i : i + UPSERT_ROWS])
        done += len(batch)
        state["cursor"] = int(batch[-1].rowid or 0)
        engine._write_state(name, state)
        if progress is not None:
            progress("push", done, max(total, done))
    with engine._errors(f"writing {name}"):
        engine.client.flush(name)
    engine._write_state(name, {"revision": target, "target": target, "cursor": 0})
    return PushReport(
        kind, name, done, engine.count(kind), time.perf_counter() - start, resumed, created
    )


def _row(
    engine: MilvusCollections,
    kind: Kind,
    rec: Record,
    vector: npt.NDArray[np.float32],
    revision: int,
) -> dict[str, Any]:
    texts = record_fields(rec)
    row: dict[str, Any] = {
        "id": int(rec.rowid or 0),
        "kind": kind.value,
        "year": year_value(rec.year),
        "rev": revision,
        "dense": np.asarray(vector, dtype=np.float32).tolist(),
    }
    for field in engine.fields(kind):
        row[field] = analysed(texts.get(field, ""))
    return row
