"""Per-aspect scores of records on DORIS-MAE's 0/1/2 scale, coverage ordering and calibration.

For an aspect ``a`` and a record ``d`` split into sentences ``d_1..d_m``
(:func:`litsift.search.aspects.split_sentences` over :func:`record_text`):

* ``similarity = max_j cos(E_q(a), E_p(d_j))`` — sentence-by-sentence max-sim with the
  bi-encoder, the variant that helped models trained on short queries in DORIS-MAE
  (Wang et al., NeurIPS 2023, §5);
* ``bm25_evidence`` = the share of the aspect's content terms (stopwords removed, Snowball
  English stems, the stemmer tantivy's ``en_stem`` uses) that occur anywhere in the record:
  BM25's matching-term set, unweighted (no IDF, no saturation), so it needs no corpus
  statistics and a record's score does not depend on the other records scored with it;
* ``combined = (1 - λ)·similarity + λ·bm25_evidence`` with ``λ`` = :data:`CALIBRATED_LAMBDA`;
* ``grade = 2 if combined >= t2, 1 if combined >= t1, else 0`` with
  ``(t1, t2)`` = :data:`CALIBRATED_THRESHOLDS`.

A record's ``normalised`` coverage is DORIS-MAE's normalised score: the sum of the grades over
all aspects and sub-aspects divided by their count (0–2; relevant if >= 1). How the constants
were obtained is ``calibrate`` in ``benchmarks/aspect_calibration.py`` (research code, not
shipped); ``tests/unit/test_aspects.py`` checks they stay near-optimal.
"""

from __future__ import annotations

import functools
import sqlite3
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from litsift.search.aspects import content_terms, split_sentences
from litsift.search.sentences import MAX_SENTENCES as MAX_SENTENCES
from litsift.search.sentences import (
    SentenceStore,
    SentenceView,
    round_vectors,
    sentence_views,
    text_hash,
)
from litsift.search.text import passage_text
from litsift.types import Aspect, Hit, Record
from litsift.types import AspectScore as AspectScore  # re-exported: defined in types
from litsift.types import Coverage as Coverage

if TYPE_CHECKING:
    import Stemmer

FloatArray = npt.NDArray[np.float32]

#: (t1, t2) on the combined score: >= t2 → 2 (fully addresses), >= t1 → 1 (partly), else 0.
#: From ``calibrate(<shared data>/eval/doris-mae/queries-dev.jsonl)`` (benchmarks/
#: aspect_calibration.py) with the int8 all-MiniLM-L6-v2 encoder embedding one sentence per
#: ONNX run (40 dev queries, 702 expert aspects + sub-aspects, 99 abstracts; 2-core AMD EPYC,
#: AVX2): t1 separates pairs with the own best candidate from pairs with other candidates at
#: balanced accuracy 0.799 (TPR 0.745, TNR 0.853); t2 fits the best candidates' normalised
#: scores with MAE 0.266 (predicted mean 1.353 vs true 1.307; other candidates 0.208 on average;
#: the best candidate outscores another candidate in 98.5% of pairs). The grid is flat: the
#: constants of batched embedding, λ 0.3 and (0.31, 0.44), score 0.795 / MAE 0.244 on the same
#: vectors. Re-run: ``python benchmarks/aspect_decomposition.py``.
CALIBRATED_THRESHOLDS: tuple[float, float] = (0.34, 0.40)
#: λ, the weight of ``bm25_evidence`` in the combined score (same calibration run).
CALIBRATED_LAMBDA: float = 0.1
#: Records whose sentence embeddings a scorer keeps in memory, the least recently scored dropped
#: first (~12 KB each as float32: ~24 MB; the sentence store keeps more on disk).
MAX_CACHED_RECORDS = 2_000

T = TypeVar("T", Hit, Record)


class TextEncoder(Protocol):
    """What scoring needs of a bi-encoder (:class:`litsift.models_onnx.Encoder` has it)."""

    @property
    def dim(self) -> int: ...

    @property
    def cache_key(self) -> str: ...

    def encode_queries(self, texts: Sequence[str]) -> FloatArray: ...

    def encode_passages(self, texts: Sequence[str]) -> FloatArray: ...


def record_text(record: Record) -> str:
    """The text aspect evidence spans index into: the record's bi-encoder passage.

    Same as :func:`litsift.search.text.passage_text` (paper: ``"title. abstract"``).
    """
    return passage_text(record)


@functools.cache
def _stemmer() -> Stemmer.Stemmer:
    import Stemmer

    return Stemmer.Stemmer("english")


def stem_terms(text: str) -> frozenset[str]:
    """Snowball English stems of the content words of ``text`` (see ``content_terms``)."""
    return frozenset(_stemmer().stemWords(content_terms(text)))


def grade(value: float, thresholds: tuple[float, float]) -> int:
    """Map a combined score to 0/1/2 with ``thresholds = (t1, t2)``."""
    t1, t2 = thresholds
    return 2 if value >= t2 else 1 if value >= t1 else 0


@dataclass(frozen=True)
class _DocView:
    text: str
    spans: tuple[tuple[int, int], ...]
    embeddings: FloatArray  # (m, dim)
    terms: frozenset[str]


class AspectScorer:
    """Scores records against aspects; each record's sentences are cut and embedded once.

    A record's sentence spans and vectors come from, in order: this scorer's memory (at most
    :data:`MAX_CACHED_RECORDS`, least recently used dropped first), the ``sentences`` store
    (:mod:`litsift.search.sentences`: the phase's rows, or records scored earlier), or the
    encoder (then written to the store's bounded cache). They are keyed by record id with a
    hash of its text, so an edited record is cut and embedded again. Aspect texts are embedded
    on every call (they are few and the user may edit them).

    Args:
        encoder: a bi-encoder; aspects are embedded as queries, sentences as passages.
        thresholds: ``(t1, t2)`` on the combined score, ``t1 <= t2``.
        lexical_weight: ``λ`` in ``[0, 1]``, the weight of ``bm25_evidence``.
        sentences: where sentence views are looked up before embedding, or None.

    Raises:
        ValueError: thresholds out of order or ``lexical_weight`` outside ``[0, 1]``.
    """

    def __init__(
        self,
        encoder: TextEncoder,
        thresholds: tuple[float, float] = CALIBRATED_THRESHOLDS,
        lexical_weight: float = CALIBRATED_LAMBDA,
        sentences: SentenceStore | None = None,
    ) -> None:
        if thresholds[0] > thresholds[1]:
            raise ValueError(f"thresholds must be (t1, t2) with t1 <= t2, got {thresholds}")
        if not 0.0 <= lexical_weight <= 1.0:
            raise ValueError(f"lexical_weight must be in [0, 1], got {lexical_weight}")
        self.encoder = encoder
        self.thresholds = (float(thresholds[0]), float(thresholds[1]))
        self.lexical_weight = float(lexical_weight)
        self.sentences = sentences
        self._docs: OrderedDict[tuple[str, str, bytes], _DocView] = OrderedDict()

    def _keep(self, key: tuple[str, str, bytes], view: _DocView) -> None:
        self._docs[key] = view
        self._docs.move_to_end(key)
        while len(self._docs) > MAX_CACHED_RECORDS:
            self._docs.popitem(last=False)  # the least recently used

    def _views(
        self, records: Sequence[Record], extra: Sequence[str] | None = None
    ) -> list[_DocView]:
        base = self._record_views(records)
        if not extra or not any(e.strip() for e in extra):
            return base
        out: list[_DocView] = []
        for r, view, e in zip(records, base, extra, strict=True):
            if not e.strip():
                out.append(view)
                continue
            key = (r.kind.value, r.id, text_hash(view.text + "\0" + e))
            if key in self._docs:
                self._docs.move_to_end(key)
                joined = self._docs[key]
            else:
                # a full-text passage's sentences after the record's own, in memory only (the
                # sentence store keeps one text per record)
                spans = split_sentences(e)[:MAX_SENTENCES]
                sentences = [e[s:t] for s, t in spans]
                vecs = self.encoder.encode_passages(sentences) if sentences else None
                offset = len(view.text) + 2
                joined = _DocView(
                    view.text + "\n\n" + e,
                    view.spans + tuple((s + offset, t + offset) for s, t in spans),
                    view.embeddings
                    if vecs is None
                    else np.vstack([view.embeddings, round_vectors(vecs)]),
                    view.terms | stem_terms(e),
                )
                self._keep(key, joined)
            out.append(joined)
        return out

    def _record_views(self, records: Sequence[Record]) -> list[_DocView]:
        keys: list[tuple[str, str, bytes]] = []
        todo: dict[tuple[str, str, bytes], Record] = {}
        got_views: dict[tuple[str, str, bytes], _DocView] = {}
        for r in records:
            text = record_text(r)
            key = (r.kind.value, r.id, text_hash(text))
            keys.append(key)
            if key in self._docs:
                self._docs.move_to_end(key)
                got_views[key] = self._docs[key]
            else:
                todo[key] = r
        stored: dict[tuple[str, str], SentenceView] = {}
        if todo and self.sentences is not None:
            for kind in {r.kind for r in todo.values()}:
                wanted = [(r.id, record_text(r)) for r in todo.values() if r.kind is kind]
                try:
                    got = self.sentences.get(kind, wanted)
                except sqlite3.Error:  # derived data: embed instead
                    got = {}
                stored.update({(kind.value, doc_id): v for doc_id, v in got.items()})
        fresh: list[tuple[Record, SentenceView]] = []
        for k, r in todo.items():
            view = stored.get((k[0], k[1]))
            if view is None:
                # one encoder call per record; a vector depends on its text alone anyway
                view = sentence_views([r], self.encoder)[0]
                fresh.append((r, view))
            spans = tuple((int(s), int(e)) for s, e in view.spans)
            got_views[k] = _DocView(view.text, spans, view.vectors, stem_terms(view.text))
            self._keep(k, got_views[k])
        if fresh and self.sentences is not None:
            for kind in {r.kind for r, _ in fresh}:
                try:
                    self.sentences.put(kind, [(r.id, v) for r, v in fresh if r.kind is kind])
                except sqlite3.Error:
                    pass  # not kept: embedded again next time
        return [got_views[k] for k in keys]

    def raw(
        self,
        aspect_texts: Sequence[str],
        records: Sequence[Record],
        extra: Sequence[str] | None = None,
    ) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64]]:
        """The ungraded signals for every (aspect, record) pair.

        Args:
            aspect_texts: ``n`` aspect texts.
            records: ``r`` records.
            extra: optional text per record scored after its own (a full-text passage); ""
                for none.

        Returns:
            ``(similarity, bm25_evidence, best_sentence)``, each ``(n, r)``: max-sim float32,
            term share float32, and the index of the best sentence (-1 for an empty record).
        """
        n, r = len(aspect_texts), len(records)
        sim = np.zeros((n, r), dtype=np.float32)
        lex = np.zeros((n, r), dtype=np.float32)
        best = np.full((n, r), -1, dtype=np.int64)
        if n == 0 or r == 0:
            return sim, lex, best
        views = self._views(records, extra)
        q = self.encoder.encode_queries(list(aspect_texts))
        terms = [stem_terms(t) for t in aspect_texts]
        for j, view in enumerate(views):
            if len(view.spans):
                s = q @ view.embeddings.T  # (n, m)
                best[:, j] = np.argmax(s, axis=1)
                sim[:, j] = s[np.arange(n), best[:, j]]
            for i, t in enumerate(terms):
                lex[i, j] = len(t & view.terms) / len(t) if t else 0.0
        return sim, lex, best

    def score(
        self,
        aspects: Sequence[Aspect],
        records: Sequence[Record],
        extra: Sequence[str] | None = None,
    ) -> list[Coverage]:
        """Grade how each record covers each aspect.

        Args:
            aspects: the query's aspects and sub-aspects (e.g. from ``decompose``, or edited).
            records: the records to score, typically the top-k hits' records.
            extra: optional text per record whose sentences are evidence too (a full-text
                search's matching passage); evidence spans then index into the record's text,
                a blank line, and that text.

        Returns:
            One :class:`Coverage` per record, in record order. With no aspects every record
            gets ``normalised = 0.0`` and no scores.
        """
        sim, lex, best = self.raw([a.text for a in aspects], records, extra)
        lam = self.lexical_weight
        combined = (1.0 - lam) * sim + lam * lex
        views = self._views(records, extra) if aspects else []
        out: list[Coverage] = []
        for j, rec in enumerate(records):
            scores: list[AspectScore] = []
            for i in range(len(aspects)):
                b = int(best[i, j])
                span = views[j].spans[b] if b >= 0 else None
                scores.append(
                    AspectScore(
                        aspect_index=i,
                        grade=grade(float(combined[i, j]), self.thresholds),
                        similarity=round(float(sim[i, j]), 6),
                        bm25_evidence=round(float(lex[i, j]), 6),
                        combined=round(float(combined[i, j]), 6),
                        evidence=span,
                        evidence_text=views[j].text[span[0] : span[1]] if span else "",
                    )
                )
            n = len(scores)
            out.append(
                Coverage(
                    doc_id=rec.id,
                    scores=tuple(scores),
                    normalised=sum(s.grade for s in scores) / n if n else 0.0,
                    mean_combined=sum(s.combined for s in scores) / n if n else 0.0,
                )
            )
        return out


def _doc_id(item: Hit | Record) -> str:
    return item.docid if isinstance(item, Hit) else item.id


def coverage_order(
    items: Sequence[T], coverages: Sequence[Coverage], blend: float = 0.0
) -> list[T]:
    """The "aspect coverage" ordering of a candidate pool.

    Each item covered by ``coverages`` gets
    ``key = (1 - blend)·normalised/2 + blend·(1 - (p - 1)/n)``, where ``p`` is its 1-based
    position in ``items`` (the fused ranking) and ``n = len(items)``; ties are broken by
    ``mean_combined``, then by position. Items without a coverage (beyond the scored top-k)
    follow the covered ones in their original order.

    Args:
        items: hits or records, best first.
        coverages: from :meth:`AspectScorer.score`, matched to items by doc id.
        blend: weight of the original rank in ``[0, 1]``; 0 = coverage only, 1 = unchanged.

    Returns:
        A new list with the same items.

    Raises:
        ValueError: ``blend`` outside ``[0, 1]``.
    """
    if not 0.0 <= blend <= 1.0:
        raise ValueError(f"blend must be in [0, 1], got {blend}")
    by_id = {c.doc_id: c for c in coverages}
    n = len(items)
    keyed: list[tuple[float, float, int]] = []
    rest: list[int] = []
    for p, item in enumerate(items):
        cov = by_id.get(_doc_id(item))
        if cov is None:
            rest.append(p)
            continue
        key = (1.0 - blend) * cov.normalised / 2.0 + blend * (1.0 - p / n)
        keyed.append((-round(key, 9), -cov.mean_combined, p))
    keyed.sort()
    return [items[p] for *_, p in keyed] + [items[p] for p in rest]
