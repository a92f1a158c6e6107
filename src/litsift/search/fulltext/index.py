"""The full-text passage index: BM25 (tantivy) + dense (hnswlib) over papers' passages.

Built from the store's ``passages`` table (schema v5) by
:func:`litsift.search.fulltext.build.build_passage_index` into
``<index dir>/passages/``: a staging directory swapped in whole (an interrupted build leaves
the previous index usable), with a ``passages.json`` naming the encoder, the passages' signature and
each label's ``(doc id, idx)``. Passages are embedded as ``"<paper title>. <passage>"``
(OpenScholar) through the encoder's passage cache, so a rebuild after new imports embeds only
new passages; when the signature is unchanged nothing is rebuilt. A ``manifest.json`` records
every file's size and sha256 (:mod:`litsift.search.build.manifest`): opening checks them (checksums
when cheap, :data:`~litsift.search.build.manifest.VERIFY_ON_OPEN_BYTES`) and the structure (labels
against both parts), so a damaged index is an :class:`IndexDamagedError` naming the file, and
the next build rebuilds it even when the passages are unchanged.

:meth:`PassageIndex.search` fuses the two runs by min-max interpolation (equal weights, BM25's
floor 0 when its run is shorter than ``k0``, as for papers: :mod:`litsift.search.retrieval.fusion`)
and
returns passage hits; :func:`paper_run` turns them into a paper-level run whose score is the
paper's best passage (max), the combination OpenScholar and PaperQA2 use for documents.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import tantivy

from litsift.errors import IndexDamagedError, LitsiftError, QueryError
from litsift.search.build.manifest import (
    REBUILD_HINT,
)
from litsift.search.fulltext.files import DIR_NAME, MANIFEST, META, passage_damage
from litsift.search.retrieval.bm25 import ANALYZER_NAME, MAX_QUERY_TOKENS, analyzer, open_tantivy
from litsift.search.retrieval.dense import DenseIndex
from litsift.search.retrieval.fusion import Fused, interpolate, ranked, rrf
from litsift.store.faults import machine_fault
from litsift.types import Hit, Passage

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.store import Store

__all__ = ["PassageHit", "PassageIndex", "dense_floor", "paper_run"]

WEIGHTS = {"bm25": 0.5, "dense": 0.5}


@dataclass(frozen=True)
class PassageHit:
    """A passage retrieved for a query, with its fused score and each signal's (score, rank)."""

    passage: Passage
    score: float
    signals: dict[str, tuple[float, int]]


class PassageIndex:
    """An open passage index (see the module docstring)."""

    def __init__(self, directory: Path, store: Store, encoder: Encoder) -> None:
        """Open the passage index in ``directory``.

        Raises:
            IndexDamagedError: a file is missing, of another size, fails its checksum (when
                cheap to verify) or cannot be read, or the labels disagree between
                ``passages.json``, tantivy and hnswlib (hint: ``litsift index``).
        """
        self.directory = directory
        why = passage_damage(directory)
        if why is not None:
            raise IndexDamagedError(f"the passage index is damaged: {why}", REBUILD_HINT)
        try:
            meta = json.loads((directory / META).read_text(encoding="utf-8"))
            self._labels = [(str(d), int(i)) for d, i in meta["labels"]]
            # read-only home: tantivy's lock file cannot be made there, so (as for the paper
            # index) tantivy reads a private copy of its own files
            self._index = open_tantivy(directory, frozenset({"dense.bin", META, MANIFEST}))
            self._index.register_tokenizer(ANALYZER_NAME, analyzer())
            self._searcher = self._index.searcher()
            self._dense = DenseIndex.open(directory / "dense.bin")
            n, docs = len(self._labels), int(self._searcher.num_docs)
            labels = self._dense.labels()
            if docs != n or (n and (self._dense.count() != n or int(labels[-1]) >= n)):
                raise ValueError(f"{n:,} labels, {docs:,} BM25 and {self._dense.count():,} dense")
        except BaseException as err:  # tantivy raises ValueError; a Rust panic, PanicException
            if not isinstance(err, Exception) and type(err).__name__ != "PanicException":
                raise
            fault = machine_fault(err, directory) if isinstance(err, Exception) else None
            if fault is not None:  # read-only, permission, no space: never called damage
                raise fault from err
            if isinstance(err, LitsiftError):
                why = err.message.removeprefix("the dense part is damaged: ")
            else:
                why = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
            why = why.replace(f"{directory}/", "").replace(str(directory), DIR_NAME)
            raise IndexDamagedError(f"the passage index is damaged: {why}", REBUILD_HINT) from err
        self._schema = self._index.schema
        self._analyzer = analyzer()
        self._store = store
        self._encoder = encoder
        self._cache: dict[tuple[str, int], Passage] = {}

    @classmethod
    def open(cls, index_root: Path, store: Store, encoder: Encoder) -> PassageIndex | None:
        """The passage index, or None when none was built (no full text imported).

        Raises:
            IndexDamagedError: see :class:`PassageIndex`.
        """
        directory = Path(index_root) / DIR_NAME
        if not (directory / META).is_file() and not (directory / MANIFEST).is_file():
            return None
        return cls(directory, store, encoder)

    @property
    def count(self) -> int:
        return len(self._labels)

    def _bm25(self, text: str, k0: int) -> list[tuple[int, float]]:
        counts: dict[str, int] = {}
        for tok in self._analyzer.analyze(text):
            if tok in counts or len(counts) < MAX_QUERY_TOKENS:
                counts[tok] = counts.get(tok, 0) + 1
        if not counts or not self._labels:
            return []
        query = tantivy.Query.boolean_query(
            [
                (
                    tantivy.Occur.Should,
                    tantivy.Query.boost_query(
                        tantivy.Query.term_query(self._schema, "text", tok), n
                    ),
                )
                for tok, n in counts.items()
            ]
        )
        hits = self._searcher.search(query, min(k0, len(self._labels)), count=False).hits
        labels = self._searcher.fast_field_values("label", [a for _, a in hits])
        return [(int(lab or 0), float(s)) for (s, _), lab in zip(hits, labels, strict=True)]

    def _dense_run(self, text: str, k0: int) -> list[tuple[int, float]]:
        if not self._labels:
            return []
        return self._dense.nearest(self._encoder.encode_queries([text])[0], k0)

    def search(self, text: str, k: int = 20, k0: int = 100) -> list[PassageHit]:
        """The top ``k`` passages for ``text``: BM25 + dense over passages, interpolated.

        Raises:
            IndexDamagedError: tantivy found a damaged file now (a large index is not
                checksummed on open).
        """
        try:
            bm25 = self._bm25(text, k0)
        except BaseException as err:  # tantivy raises ValueError; a Rust panic, PanicException
            if not isinstance(err, Exception) and type(err).__name__ != "PanicException":
                raise
            why = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
            raise IndexDamagedError(
                f"the passage index is damaged: {self.directory}: {why}", REBUILD_HINT
            ) from err
        runs = {"bm25": bm25, "dense": self._dense_run(text, k0)}
        exhaustive = {"bm25": 0.0} if len(bm25) < k0 else None
        fused = interpolate(runs, WEIGHTS, limit=k, exhaustive=exhaustive)
        passages = self._load([self._labels[int(f.docid)] for f in fused])
        return [
            PassageHit(
                passages[self._labels[int(f.docid)]],
                f.score,
                {name: (s.score, s.rank) for name, s in f.signals.items()},
            )
            for f in fused
            if self._labels[int(f.docid)] in passages
        ]

    def _load(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Passage]:
        todo = [key for key in keys if key not in self._cache]
        if todo:
            from litsift.store.passages import passages_at

            self._cache.update(passages_at(self._store, todo))
        return {key: self._cache[key] for key in keys if key in self._cache}


def paper_run(hits: Sequence[PassageHit]) -> tuple[list[tuple[str, float]], dict[str, Passage]]:
    """Papers ranked by their best passage: ``([(doc id, max passage score)], best passage by
    doc id)``, best first."""
    best: dict[str, PassageHit] = {}
    for h in hits:
        cur = best.get(h.passage.doc_id)
        if cur is None or h.score > cur.score:
            best[h.passage.doc_id] = h
    ordered = sorted(best.values(), key=lambda h: (-h.score, h.passage.doc_id))
    return [(h.passage.doc_id, h.score) for h in ordered], {d: h.passage for d, h in best.items()}


#: how a full-text search combines the paper run with the passages' paper run (see
#: :func:`fuse_fulltext`; chosen by ``benchmarks/fulltext_eval.py``)
FULLTEXT_FUSION = "rrf"
FULLTEXT_FUSIONS = ("rrf", "max-rank", "interpolation")
#: a passage counts in a full-text search when its dense cosine reaches that of the abstract at
#: this rank of the dense signal among the paper hits (see :func:`dense_floor`; chosen by
#: ``benchmarks/fulltext_eval.py --known-item``)
PASSAGE_GATE_RANK = 1


def dense_floor(hits: Sequence[Hit] | Sequence[Fused], gate: int) -> float | None:
    """The dense cosine a passage must reach to count: the ``gate``-th highest dense score
    among ``hits`` (paper hits of the same query and encoder, so the scales agree), or the
    lowest when fewer hits have one; None when none has a dense signal (BM25 only, while the
    dense index is built: passages are not gated then).

    Raises:
        ValueError: ``gate`` < 1.
    """
    if gate < 1:
        raise ValueError(f"gate must be at least 1, not {gate}")
    scores = sorted((h.signals["dense"].score for h in hits if "dense" in h.signals), reverse=True)
    if not scores:
        return None
    return scores[min(gate, len(scores)) - 1]


def fuse_fulltext(
    papers: Sequence[tuple[str, float]],
    passages: Sequence[tuple[str, float]],
    k: int,
    method: str = FULLTEXT_FUSION,
) -> list[Fused]:
    """Combine the abstract-level paper run with the papers of the best passages.

    ``rrf``: reciprocal rank fusion, k = 60 (Cormack et al. 2009): a paper found both ways
    rises. ``max-rank``: a paper counts at its better rank of the two (``1 / (60 + min rank)``,
    RRF's sum breaking ties), so a body-only match ranks like an abstract match.
    ``interpolation``: ``0.5 · minmax(paper score) + 0.5 · best passage score`` (0 when absent).

    Raises:
        QueryError: unknown ``method``.
    """
    runs = {"papers": list(papers), "passages": list(passages)}
    if method == "rrf":
        return rrf(runs, limit=k)
    if method == "max-rank":
        signals = {d: f.signals for f in rrf(runs) for d in [f.docid]}
        scores = {
            d: 1.0 / (60 + min(s.rank for s in sig.values()))
            + 1e-6 * sum(1.0 / (60 + s.rank) for s in sig.values())
            for d, sig in signals.items()
        }
        return ranked(scores, signals, k)
    if method == "interpolation":
        return interpolate(runs, {"papers": 0.5, "passages": 0.5}, limit=k)
    raise QueryError(
        f"unknown full-text fusion {method!r}", f"use one of {', '.join(FULLTEXT_FUSIONS)}"
    )
