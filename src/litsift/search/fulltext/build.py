"""Building the full-text passage index (:mod:`litsift.search.fulltext.index`): BM25 (tantivy)
+ dense (hnswlib) over papers' passages, and checking its files.

Built from the store's ``passages`` table (schema v5) by :func:`build_passage_index` into
``<index dir>/passages/``: a staging directory swapped in whole (an interrupted build leaves
the previous index usable), with a ``passages.json`` naming the encoder, the passages'
signature and each label's ``(doc id, idx)``. Passages are embedded as
``"<paper title>. <passage>"`` (OpenScholar) through the encoder's passage cache, so a rebuild
after new imports embeds only new passages; when the signature is unchanged nothing is
rebuilt. A ``manifest.json`` records every file's size and sha256
(:mod:`litsift.search.build.manifest`): :func:`~litsift.search.fulltext.files.passage_damage` checks
them, and the next build
rebuilds a damaged index even when the passages are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import tantivy

from litsift.errors import IndexDamagedError
from litsift.search.build.manifest import record_tree
from litsift.search.fulltext.files import DIR_NAME, MANIFEST, META, passage_damage
from litsift.search.retrieval.bm25 import ANALYZER_NAME, analyzer
from litsift.search.retrieval.dense import DenseIndex
from litsift.search.retrieval.record_text import MAX_FIELD_CHARS, MAX_PASSAGE_CHARS
from litsift.text.passages import passage_input
from litsift.types import Passage

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.store import Store

__all__ = [
    "PassageBuild",
    "build_passage_index",
    "load_passages",
]

EMBED_CHUNK = 256
#: times :func:`build_passage_index` builds again for full text imported while it ran
CATCH_UP_ROUNDS = 2
#: What the build reads of one paper's full text at most (issue 43): its first 1,000 passages
#: (~250 words each: a 250,000-word book) and 20,000 characters of each (a passage without
#: spaces is one "word"); the store keeps them all.
MAX_PASSAGES_PER_PAPER = 1_000
MAX_PASSAGE_TEXT_CHARS = 20_000


@dataclass(frozen=True)
class PassageBuild:
    """What :func:`build_passage_index` did (``repaired``: why the index it replaced was
    damaged, None when it was sound or absent; ``behind``: see below)."""

    passages: int
    papers: int
    embedded_s: float
    seconds: float
    bytes: int
    unchanged: bool
    repaired: str | None = None
    #: papers whose stored passages changed during the build and are not in the index yet
    behind: int = 0


def load_passages(
    store: Store, per_paper: int = MAX_PASSAGES_PER_PAPER
) -> tuple[list[Passage], dict[str, str]]:
    """The stored passages an index holds, in (doc id, idx) order: a paper's first
    ``per_paper``, each cut to :data:`MAX_PASSAGE_TEXT_CHARS`, and their papers' titles (cut to
    :data:`~litsift.search.retrieval.record_text.MAX_FIELD_CHARS`)."""
    from litsift.store.passages import index_passages

    return index_passages(store, per_paper, MAX_FIELD_CHARS, MAX_PASSAGE_TEXT_CHARS)


def _signature(passages: Sequence[Passage], titles: dict[str, str], encoder_key: str) -> str:
    h = hashlib.sha256(encoder_key.encode())
    for p in passages:
        h.update(f"\0{p.doc_id}\0{p.idx}\0{titles.get(p.doc_id, '')}\0{p.section}\0".encode())
        h.update(p.text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _per_paper(passages: Sequence[Passage], titles: dict[str, str]) -> dict[str, str]:
    """``{doc id: digest of its passages and title}``: which papers changed between two reads."""
    digests: dict[str, Any] = {}  # hashlib objects
    for p in passages:
        h = digests.get(p.doc_id)
        if h is None:
            h = digests[p.doc_id] = hashlib.sha256(titles.get(p.doc_id, "").encode())
        h.update(f"\0{p.idx}\0{p.section}\0".encode())
        h.update(p.text.encode("utf-8", "surrogatepass"))
    return {doc: h.hexdigest() for doc, h in digests.items()}


def _late(store: Store, built: dict[str, str], per_paper: int) -> int:
    """Papers whose stored passages differ from ``built`` (what the index holds) now."""
    now = _per_paper(*load_passages(store, per_paper))
    return sum(built.get(doc) != digest for doc, digest in now.items()) + sum(
        doc not in now for doc in built
    )


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("text", stored=False, tokenizer_name=ANALYZER_NAME, index_option="freq")
    sb.add_unsigned_field("label", stored=True, indexed=True, fast=True)
    return sb.build()


def build_passage_index(
    store: Store,
    encoder: Encoder,
    index_root: Path,
    progress: Callable[[str, int, int], None] | None = None,
    rebuild: bool = False,
    check: bool = False,
    per_paper: int = MAX_PASSAGES_PER_PAPER,
    rounds: int = CATCH_UP_ROUNDS,
) -> PassageBuild:
    """(Re)build ``<index_root>/passages`` when the stored passages or the encoder changed,
    ``rebuild`` is set, or the index is damaged
    (:func:`~litsift.search.fulltext.files.passage_damage`; with ``check`` every
    file's sha256 is verified). A paper's first ``per_paper`` passages are indexed
    (:func:`load_passages`). Full text imported while it runs (another process) is built in
    too, up to ``rounds`` more times; papers whose passages still differ from the index are
    counted in ``behind``.

    Raises:
        OSError: the index directory cannot be written.
    """
    built, digests = _build(store, encoder, index_root, progress, rebuild, check, per_paper)
    if built.unchanged:
        return built
    for _ in range(rounds):
        if not _late(store, digests, per_paper):
            return built
        more, digests = _build(store, encoder, index_root, progress, False, False, per_paper)
        seconds, embedded_s = built.seconds + more.seconds, built.embedded_s + more.embedded_s
        built = replace(more, seconds=seconds, embedded_s=embedded_s, repaired=built.repaired)
    return replace(built, behind=_late(store, digests, per_paper))


def _build(
    store: Store,
    encoder: Encoder,
    index_root: Path,
    progress: Callable[[str, int, int], None] | None,
    rebuild: bool,
    check: bool,
    per_paper: int,
) -> tuple[PassageBuild, dict[str, str]]:
    """One build of :func:`build_passage_index`; with the per-paper digests of what it read."""
    t0 = time.perf_counter()
    final = Path(index_root) / DIR_NAME
    passages, titles = load_passages(store, per_paper)
    signature = _signature(passages, titles, encoder.cache_key)
    digests = _per_paper(passages, titles)
    papers = len(digests)
    if not passages and not final.exists():  # no full text imported: nothing to build
        return PassageBuild(0, 0, 0.0, 0.0, 0, True), digests
    repaired = _damage_at_build(final, store, encoder, check) if final.exists() else None
    meta_path = final / META
    if meta_path.is_file() and repaired is None and not rebuild:
        try:
            if json.loads(meta_path.read_text(encoding="utf-8")).get("signature") == signature:
                built = PassageBuild(len(passages), papers, 0.0, 0.0, _size(final), True)
                return built, digests
        except (OSError, ValueError):
            pass  # damaged: rebuilt below
    staging = Path(index_root) / f".{DIR_NAME}.staging"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    texts = [passage_input(titles.get(p.doc_id, ""), p)[:MAX_PASSAGE_CHARS] for p in passages]
    t_embed = time.perf_counter()
    vectors = np.zeros((len(texts), encoder.dim), dtype=np.float32)
    with encoder.worker_pool():  # one process per core: same vectors, faster
        for start in range(0, len(texts), EMBED_CHUNK):
            vectors[start : start + EMBED_CHUNK] = encoder.encode_passages(
                texts[start : start + EMBED_CHUNK]
            )
            if progress is not None:
                progress("passages", min(start + EMBED_CHUNK, len(texts)), len(texts))
    embedded_s = time.perf_counter() - t_embed
    index = tantivy.Index(_schema(), path=str(staging))
    index.register_tokenizer(ANALYZER_NAME, analyzer())
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    for label, p in enumerate(passages):
        doc = tantivy.Document()
        doc.add_text("text", f"{p.section}\n{p.text}")
        doc.add_unsigned("label", label)
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    dense = DenseIndex.create(staging / "dense.bin", encoder.dim, max(len(passages), 1))
    if passages:
        dense.add(np.arange(len(passages), dtype=np.int64), vectors)
    dense.save()
    (staging / META).write_text(
        json.dumps(
            {
                "signature": signature,
                "encoder": encoder.cache_key,
                "labels": [[p.doc_id, p.idx] for p in passages],
            }
        ),
        encoding="utf-8",
    )
    records = record_tree(staging, frozenset({MANIFEST}))
    (staging / MANIFEST).write_text(json.dumps({"files": records}, indent=1), encoding="utf-8")
    old = Path(index_root) / f".{DIR_NAME}.old"
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        os.replace(final, old)
    os.replace(staging, final)
    shutil.rmtree(old, ignore_errors=True)
    seconds = time.perf_counter() - t0
    built = PassageBuild(len(passages), papers, embedded_s, seconds, _size(final), False, repaired)
    return built, digests


def _damage_at_build(final: Path, store: Store, encoder: Encoder, check: bool) -> str | None:
    """Why the current passage index must be rebuilt although its passages may be unchanged
    (damaged, or without a manifest), or None."""
    why = passage_damage(final, full=check)
    if why is None and not (final / MANIFEST).is_file():
        why = f"its files are not recorded ({MANIFEST} is missing or from an older litsift)"
    if why is None:
        try:
            from litsift.search.fulltext.index import PassageIndex

            PassageIndex(final, store, encoder)
        except IndexDamagedError as err:
            why = err.message
    return why


def _size(directory: Path) -> int:
    return sum(f.stat().st_size for f in directory.rglob("*") if f.is_file())
