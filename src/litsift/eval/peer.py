"""A peer BM25 (bm25s) over the same records and text fields, to check our tantivy BM25.

The peer indexes, for every record of the store, the one concatenated BM25 field
:data:`litsift.search.retrieval.record_text.ALL_FIELD` of
:func:`litsift.search.retrieval.record_text.record_fields` (no
boosts), tokenised by bm25s's own tokenizer (scikit-learn's ``\\b\\w\\w+\\b`` pattern,
lowercase, bm25s's English stopword list) and PyStemmer's English Snowball stemmer when
PyStemmer is installed (without it: no stemming, recorded in :attr:`PeerBM25.stemmer`).
Scoring is bm25s's ``method="lucene"`` with tantivy's parameters k1 = 1.2, b = 0.75 (Lù 2024,
"BM25S: Orders of magnitude faster lexical search via eager sparse scoring", arXiv:2407.03618).
The year filter is bm25s's ``weight_mask`` (masked documents score 0 and are never returned),
not post-filtering of a truncated list.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from litsift.errors import EvalError
from litsift.eval.trec import trec_id
from litsift.install import pip_command
from litsift.search import ALL_FIELD, record_fields
from litsift.types import Kind, Record, YearRange

#: tantivy's BM25 parameters (tantivy ``src/query/bm25.rs``: K1 = 1.2, B = 0.75).
K1, B = 1.2, 0.75


class PeerBM25:
    """bm25s over one kind of record of a store, given as its batches of rows
    (``LitsiftService.rows_since(kind, 0)``).

    Attributes:
        docids: ``(n,)`` TREC-safe document ids, in index order.
        years: ``(n,)`` year of each document, None when missing.
        stemmer: ``"english (PyStemmer)"`` or ``"none"``.
    """

    def __init__(self, batches: Iterable[Sequence[Record]], kind: Kind) -> None:
        try:
            import bm25s
        except ImportError as e:
            raise EvalError(
                "the bm25s peer needs the bm25s package", pip_command("bm25s", "PyStemmer")
            ) from e
        self._bm25s = bm25s
        try:
            import Stemmer

            self._stemmer: Any = Stemmer.Stemmer("english")
            self.stemmer = "english (PyStemmer)"
        except ImportError:
            self._stemmer = None
            self.stemmer = "none"
        texts: list[str] = []
        self.docids: list[str] = []
        self.years: list[int | None] = []
        for batch in batches:
            for rec in batch:
                texts.append(record_fields(rec)[ALL_FIELD])
                self.docids.append(trec_id(rec.id))
                self.years.append(rec.year)
        if not texts:
            raise EvalError(f"no {kind.table} in the store to index", "ingest a corpus first")
        self._retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
        self._retriever.index(self._tokenize(texts), show_progress=False)
        # position of each document in docid order, the tie-break of equal scores
        self._id_rank = np.argsort(np.argsort(np.array(self.docids, dtype=object)))

    def _tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        tokens = self._bm25s.tokenize(
            list(texts),
            lower=True,
            stopwords="en",
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )
        return [list(t) for t in tokens]

    def mask(self, years: YearRange) -> np.ndarray[Any, np.dtype[np.float32]]:
        """``(n,)`` float32 weight mask: 1 for documents inside ``years``, else 0."""
        return np.array([1.0 if years.contains(y) else 0.0 for y in self.years], dtype=np.float32)

    def search(self, text: str, years: YearRange, k: int) -> list[tuple[str, float]]:
        """Top ``k`` documents for one query.

        Args:
            text: the query.
            years: the year filter, applied as bm25s's ``weight_mask``.
            k: hits wanted.

        Returns:
            ``[(trec docid, score), ...]`` best first, ties by docid; only positive scores
            (a document matching no query term, or masked out, is not a hit).
        """
        tokens = [t for t in self._tokenize([text])[0] if t in self._retriever.vocab_dict]
        if not tokens:
            return []
        mask = None if years.is_unbounded else self.mask(years)
        scores = np.asarray(self._retriever.get_scores(tokens, weight_mask=mask), dtype=np.float64)
        hit = np.flatnonzero(scores > 0)
        if hit.size == 0:
            return []
        order = hit[np.lexsort((self._id_rank[hit], -scores[hit]))][:k]
        return [(self.docids[i], float(scores[i])) for i in order.tolist()]
