"""Per-aspect scores of records on DORIS-MAE's 0/1/2 scale, coverage ordering and calibration.

For an aspect ``a`` and a record ``d`` split into sentences ``d_1..d_m``
(:func:`litsift.text.sentences.split_sentences` over the record's bi-encoder passage,
:func:`~litsift.search.retrieval.record_text.passage_text`):

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

*Provisional grades* (:meth:`AspectScorer.score` with ``passage_vectors``): a record whose
sentence vectors are neither in memory nor stored is graded at once from its one bi-encoder
passage vector (the dense index holds it), ``similarity = cos(E_q(a), E_p(d))``, with the same
``bm25_evidence`` and its own constants :data:`PASSAGE_LAMBDA` / :data:`PASSAGE_THRESHOLDS`;
nothing of it is embedded but, where the index lacks it, its passage. Its sentences are
embedded later (a second call without ``passage_vectors``), whose grades replace these.

A record's ``normalised`` coverage is DORIS-MAE's normalised score: the sum of the grades over
all aspects and sub-aspects divided by their count (0–2; relevant if >= 1). How the constants
were obtained is ``calibrate`` in ``benchmarks/aspect_calibration.py`` (research code, not
shipped); ``tests/unit/test_aspects.py`` checks they stay near-optimal.
"""

from __future__ import annotations

import functools
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from litsift.search.aspects.decompose import content_terms
from litsift.search.aspects.sentences import (
    MAX_SENTENCES,
    SentenceStore,
    SentenceView,
    sentence_views,
    text_hash,
)
from litsift.search.retrieval.record_text import passage_text
from litsift.search.retrieval.vector_codec import round_vectors
from litsift.text.sentences import split_sentences
from litsift.types import Aspect, AspectScore, Coverage, Record

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
#: (t1, t2) of provisional grades, whose similarity is the cosine to the record's one passage
#: vector instead of the best sentence's. From ``calibrate(<shared data>/eval/doris-mae/
#: queries-dev.jsonl, passage=True)`` (benchmarks/aspect_calibration.py; the same 40 dev
#: queries, 702 expert aspects + sub-aspects and 99 abstracts as :data:`CALIBRATED_THRESHOLDS`,
#: the int8 all-MiniLM-L6-v2 encoder, 2-core AMD EPYC, AVX2, 2026-11-26): balanced accuracy
#: 0.786 (TPR 0.741, TNR 0.831; sentences: 0.791 at the shipped constants), MAE of the best
#: candidates' normalised score 0.256 (predicted mean 1.219 vs true 1.307; other candidates
#: 0.197), best candidate above another in 99.0% of pairs. In-sample, like the sentence
#: constants. Quality and cost beside the sentence grades: ``benchmarks/aspect_storage.py``.
PASSAGE_THRESHOLDS: tuple[float, float] = (0.23, 0.35)
#: λ of provisional grades (same calibration run as :data:`PASSAGE_THRESHOLDS`).
PASSAGE_LAMBDA: float = 0.3
#: Records whose sentence embeddings a scorer keeps in memory, the least recently scored dropped
#: first (~12 KB each as float32: ~24 MB; the sentence store keeps more on disk).
MAX_CACHED_RECORDS = 2_000
#: Aspect lists whose query vectors a scorer keeps (the TUI scores a result's hits ten at a
#: time, and refines them after: the same aspects, embedded once; a list is embedded as a
#: whole, so its vectors are those of one call).
MAX_CACHED_ASPECT_LISTS = 8


#: ``passage_vectors(records)``: ``(len(records), dim)`` float32 L2-normalised bi-encoder
#: passage vectors of the records (read from the dense index; embedded where it lacks them).
PassageVectors = Callable[[Sequence[Record]], "FloatArray"]


class TextEncoder(Protocol):
    """What scoring needs of a bi-encoder (:class:`litsift.models_onnx.Encoder` has it)."""

    @property
    def dim(self) -> int: ...

    @property
    def cache_key(self) -> str: ...

    def encode_queries(self, texts: Sequence[str]) -> FloatArray: ...

    def encode_passages(self, texts: Sequence[str]) -> FloatArray: ...


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
    embeddings: FloatArray  # (m, dim): sentence vectors, or the passage vector(s)
    terms: frozenset[str]
    provisional: bool = False  # one passage vector (its whole text), not sentences


class AspectScorer:
    """Scores records against aspects; each record's sentences are cut and embedded once.

    A record's sentence spans and vectors come from, in order: this scorer's memory (at most
    :data:`MAX_CACHED_RECORDS`, least recently used dropped first), the ``sentences`` store
    (:mod:`litsift.search.aspects.sentences`: the phase's rows, or records scored earlier), or the
    encoder (then written to the store's bounded cache) -- or, when the caller passes
    ``passage_vectors`` (:meth:`score`), instead of the encoder, the record's one passage
    vector, for provisional grades. They are keyed by record id with a
    hash of its text, so an edited record is cut and embedded again. An aspect list is embedded
    once (its vectors kept for the next calls with the same list: a result's chunks, their
    refinement).

    Args:
        encoder: a bi-encoder; aspects are embedded as queries, sentences as passages.
        thresholds: ``(t1, t2)`` on the combined score, ``t1 <= t2``.
        lexical_weight: ``λ`` in ``[0, 1]``, the weight of ``bm25_evidence``.
        sentences: where sentence views are looked up before embedding, or None.
        passage_thresholds, passage_lexical_weight: the same for provisional grades (from one
            passage vector per record; see :meth:`score`).

    Raises:
        ValueError: thresholds out of order or a lexical weight outside ``[0, 1]``.
    """

    def __init__(
        self,
        encoder: TextEncoder,
        thresholds: tuple[float, float] = CALIBRATED_THRESHOLDS,
        lexical_weight: float = CALIBRATED_LAMBDA,
        sentences: SentenceStore | None = None,
        passage_thresholds: tuple[float, float] = PASSAGE_THRESHOLDS,
        passage_lexical_weight: float = PASSAGE_LAMBDA,
    ) -> None:
        for name, (t1, t2), lam in (
            ("", thresholds, lexical_weight),
            ("passage_", passage_thresholds, passage_lexical_weight),
        ):
            if t1 > t2:
                raise ValueError(f"{name}thresholds must be (t1, t2) with t1 <= t2, got {(t1, t2)}")
            if not 0.0 <= lam <= 1.0:
                raise ValueError(f"{name}lexical_weight must be in [0, 1], got {lam}")
        self.encoder = encoder
        self.thresholds = (float(thresholds[0]), float(thresholds[1]))
        self.lexical_weight = float(lexical_weight)
        self.passage_thresholds = (float(passage_thresholds[0]), float(passage_thresholds[1]))
        self.passage_lexical_weight = float(passage_lexical_weight)
        self.sentences = sentences
        self._docs: OrderedDict[tuple[str, str, bytes], _DocView] = OrderedDict()
        self._aspects: OrderedDict[tuple[str, ...], FloatArray] = OrderedDict()

    def _aspect_vectors(self, aspect_texts: Sequence[str]) -> FloatArray:
        """``(n, dim)``: the query vectors of the aspect list, embedded once per list (the last
        :data:`MAX_CACHED_ASPECT_LISTS` lists kept)."""
        key = tuple(aspect_texts)
        got = self._aspects.get(key)
        if got is None:
            got = self.encoder.encode_queries(list(aspect_texts))
            self._aspects[key] = got
            while len(self._aspects) > MAX_CACHED_ASPECT_LISTS:
                self._aspects.popitem(last=False)
        self._aspects.move_to_end(key)
        return got

    def _keep(self, key: tuple[str, str, bytes], view: _DocView) -> None:
        self._docs[key] = view
        self._docs.move_to_end(key)
        while len(self._docs) > MAX_CACHED_RECORDS:
            self._docs.popitem(last=False)  # the least recently used

    def _views(
        self,
        records: Sequence[Record],
        extra: Sequence[str] | None = None,
        passage_vectors: PassageVectors | None = None,
    ) -> list[_DocView]:
        base = self._record_views(records, passage_vectors)
        if not extra or not any(e.strip() for e in extra):
            return base
        out: list[_DocView] = []
        for r, view, e in zip(records, base, extra, strict=True):
            if not e.strip():
                out.append(view)
                continue
            offset = len(view.text) + 2
            if view.provisional:
                # the passage as one more vector (not kept: its sentences come with the record's)
                vec = np.asarray(self.encoder.encode_passages([e]), dtype=np.float32)
                out.append(
                    _DocView(
                        view.text + "\n\n" + e,
                        (*view.spans, (offset, offset + len(e))),
                        np.vstack([view.embeddings, vec]),
                        view.terms | stem_terms(e),
                        provisional=True,
                    )
                )
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

    def _record_views(
        self, records: Sequence[Record], passage_vectors: PassageVectors | None = None
    ) -> list[_DocView]:
        keys: list[tuple[str, str, bytes]] = []
        todo: dict[tuple[str, str, bytes], Record] = {}
        got_views: dict[tuple[str, str, bytes], _DocView] = {}
        for r in records:
            text = passage_text(r)
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
                wanted = [(r.id, passage_text(r)) for r in todo.values() if r.kind is kind]
                try:
                    got = self.sentences.get(kind, wanted)
                except sqlite3.Error:  # derived data: embed instead
                    got = {}
                stored.update({(kind.value, doc_id): v for doc_id, v in got.items()})
        missing = [k for k in todo if (k[0], k[1]) not in stored]
        if passage_vectors is not None and missing:
            # provisional: one passage vector each, nothing embedded, nothing kept
            vectors = np.asarray(passage_vectors([todo[k] for k in missing]), dtype=np.float32)
            for k, vec in zip(missing, vectors, strict=True):
                text = passage_text(todo[k])
                whole: tuple[tuple[int, int], ...] = ((0, len(text)),) if text else ()
                emb = vec.reshape(1, -1) if text else np.zeros((0, len(vec)), dtype=np.float32)
                got_views[k] = _DocView(text, whole, emb, stem_terms(text), provisional=True)
            for k in missing:
                del todo[k]
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

    def _signals(
        self, aspect_texts: Sequence[str], views: Sequence[_DocView]
    ) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64]]:
        """``(similarity, bm25_evidence, best)``, each ``(n, r)``, of ``n`` aspects and the
        records of ``views`` (see :meth:`raw`)."""
        n, r = len(aspect_texts), len(views)
        sim = np.zeros((n, r), dtype=np.float32)
        lex = np.zeros((n, r), dtype=np.float32)
        best = np.full((n, r), -1, dtype=np.int64)
        if n == 0 or r == 0:
            return sim, lex, best
        q = self._aspect_vectors(aspect_texts)
        terms = [stem_terms(t) for t in aspect_texts]
        for j, view in enumerate(views):
            if len(view.spans):
                s = q @ view.embeddings.T  # (n, m)
                best[:, j] = np.argmax(s, axis=1)
                sim[:, j] = s[np.arange(n), best[:, j]]
            for i, t in enumerate(terms):
                lex[i, j] = len(t & view.terms) / len(t) if t else 0.0
        return sim, lex, best

    def raw(
        self,
        aspect_texts: Sequence[str],
        records: Sequence[Record],
        extra: Sequence[str] | None = None,
        passage_vectors: PassageVectors | None = None,
    ) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64]]:
        """The ungraded signals for every (aspect, record) pair.

        Args:
            aspect_texts: ``n`` aspect texts.
            records: ``r`` records.
            extra: optional text per record scored after its own (a full-text passage); ""
                for none.
            passage_vectors: see :meth:`score`; a record scored from its passage vector has
                ``similarity`` = the cosine to that vector and best sentence 0 (its whole text).

        Returns:
            ``(similarity, bm25_evidence, best_sentence)``, each ``(n, r)``: max-sim float32,
            term share float32, and the index of the best sentence (-1 for an empty record).
        """
        if not aspect_texts:
            r = len(records)
            empty = np.zeros((0, r), dtype=np.float32)
            return empty, empty.copy(), np.full((0, r), -1, dtype=np.int64)
        return self._signals(aspect_texts, self._views(records, extra, passage_vectors))

    def score(
        self,
        aspects: Sequence[Aspect],
        records: Sequence[Record],
        extra: Sequence[str] | None = None,
        passage_vectors: PassageVectors | None = None,
    ) -> list[Coverage]:
        """Grade how each record covers each aspect.

        Args:
            aspects: the query's aspects and sub-aspects (e.g. from ``decompose``, or edited).
            records: the records to score, typically the top-k hits' records.
            extra: optional text per record whose sentences are evidence too (a full-text
                search's matching passage); evidence spans then index into the record's text,
                a blank line, and that text.
            passage_vectors: when given, a record whose sentence vectors are neither in this
                scorer's memory nor in the sentence store is graded *provisionally* from its
                passage vector (``passage_vectors([record])``; an ``extra`` text is embedded as
                one more passage), with :data:`PASSAGE_LAMBDA` / :data:`PASSAGE_THRESHOLDS`,
                instead of having its sentences cut and embedded: its :class:`Coverage` has
                ``provisional=True`` and no evidence sentences, and nothing of it is kept. A
                later call without ``passage_vectors`` gives its sentence grades.

        Returns:
            One :class:`Coverage` per record, in record order. With no aspects every record
            gets ``normalised = 0.0`` and no scores.
        """
        views = self._views(records, extra, passage_vectors) if aspects else []
        sim, lex, best = self._signals([a.text for a in aspects], views)
        lam, plam = self.lexical_weight, self.passage_lexical_weight
        by_sentences = (1.0 - lam) * sim + lam * lex  # float32, (n, r)
        by_passage = (1.0 - plam) * sim + plam * lex
        out: list[Coverage] = []
        for j, rec in enumerate(records):
            provisional = bool(views and views[j].provisional)
            combined = by_passage if provisional else by_sentences
            thresholds = self.passage_thresholds if provisional else self.thresholds
            scores: list[AspectScore] = []
            for i in range(len(aspects)):
                b = int(best[i, j])
                span = views[j].spans[b] if b >= 0 and not provisional else None
                scores.append(
                    AspectScore(
                        aspect_index=i,
                        grade=grade(float(combined[i, j]), thresholds),
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
                    provisional=provisional,
                )
            )
        return out
