"""The part of the service door for research questions: extract, show, search by them.

Reached as ``LitsiftService.rq``. Offline extraction (:mod:`litsift.rq.offline`) reads each
paper's sentences and their vectors from the sentence store when aspect scoring or ``litsift
index`` put them there, and embeds them otherwise; LLM extraction (:mod:`litsift.rq.llm`) uses
the service's LLM session (its cache and budget). Search by problem or method is BM25 over the
stored fields (:mod:`litsift.rq.search`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from litsift.errors import QueryError
from litsift.search.pipeline import RQ_PREFIX, split_rq_query
from litsift.search.retrieval.operator_stages import Exclude, PhraseFirst, indexed_text
from litsift.search.retrieval.stages import Chain, Ranked
from litsift.types import (
    Hit,
    Kind,
    Paper,
    Query,
    Record,
    RQReport,
    SearchResult,
    SignalScore,
    YearRange,
)

if TYPE_CHECKING:
    from litsift.llm.session import LLMSession
    from litsift.models_onnx import Encoder
    from litsift.rq.evaluate import PaperRQReport, PaperRQRow
    from litsift.rq.offline import Extraction, FloatArray
    from litsift.rq.search import Field, RQIndex
    from litsift.search.aspects.sentences import SentenceStore
    from litsift.store import Store
    from litsift.store.rq import StoredRQ

__all__ = ["RQ_PREFIX", "RQService", "split_rq_query"]


def _operators(field_name: Field) -> Chain:
    """The exclusions and phrases of a search by ``field_name``: a paper is left out when
    its title, abstract or ``field_name`` holds an excluded word; the phrases are looked for
    in ``field_name``, the text the search matched."""

    def field_text(record: Record) -> str:
        return getattr(record, field_name, "") or ""

    def text(record: Record) -> str:
        return f"{indexed_text(record)}\n{field_text(record)}"

    return Exclude(text) >> PhraseFirst(field_text)


#: papers extracted and written per transaction (a stopped run keeps what it wrote)
BATCH = 256


class RQService:
    """Research questions of one store (see the module docstring)."""

    def __init__(
        self,
        store: Callable[[], Store],
        encoder: Callable[[], Encoder],
        sentences: Callable[[], SentenceStore | None],
        llm: Callable[[], LLMSession],
    ) -> None:
        self._store = store
        self._encoder = encoder
        self._sentences = sentences
        self._llm = llm
        self._lock = threading.Lock()
        self._index: tuple[tuple[int, str], RQIndex] | None = None

    # -- extraction ------------------------------------------------------------------------
    def extract(
        self,
        *,
        use_llm: bool = False,
        limit: int | None = None,
        years: YearRange | None = None,
        doc_ids: Sequence[str] | None = None,
        replace: bool = False,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> RQReport:
        """Fill the problem and method of papers that lack them.

        Args:
            use_llm: extract with the configured LLM instead of offline.
            limit: at most this many papers.
            years: only papers in this range.
            doc_ids: only these papers (e.g. the kept ones, or the selected one).
            replace: also redo papers that have an extraction (a user's own RQ is kept).
            progress: ``progress("rq", done, total)``; may raise to stop (written batches stay).

        Returns:
            The report; ``stopped`` set when the endpoint failed (the papers after it are not
            sent, ``not_tried`` counts them; what was extracted before is written).

        Raises:
            LLMNotConfiguredError: ``use_llm`` without an endpoint.
        """
        from litsift.rq.offline import OFFLINE_VERSION
        from litsift.store.rq import made_by, papers_for_rq

        years = years or YearRange()
        store = self._store()
        replace_sources: list[str] = []
        if replace:
            replace_sources = [s for s in made_by(store) if s != "user"]
        papers = papers_for_rq(
            store,
            only_missing=True,
            replace_sources=replace_sources,
            year_from=years.start,
            year_to=years.end,
            doc_ids=doc_ids,
            limit=limit,
        )
        session = self._llm() if use_llm else None
        if session is not None:
            session.client()  # raises LLMNotConfiguredError before any work
        report = RQReport(
            f"LLM ({session.settings.model})" if session is not None else OFFLINE_VERSION,
            papers=len(papers),
        )
        t0 = time.perf_counter()
        if progress is not None:
            progress("rq", 0, len(papers))
        for start in range(0, len(papers), BATCH):
            batch = papers[start : start + BATCH]
            if session is not None:
                got = self._llm_batch(session, batch, report)
            else:
                got = self._offline_batch(batch)
            self._write(batch, got, report)
            if report.stopped is not None:  # the endpoint failed: the rest would too
                report.not_tried += len(papers) - start - len(batch)
                break
            if progress is not None:
                progress("rq", start + len(batch), len(papers))
        report.seconds = time.perf_counter() - t0
        return report

    def _offline_batch(self, papers: Sequence[Paper]) -> list[Extraction | None]:
        from litsift.rq.offline import extract_from_sentences, sentences_of
        from litsift.search.retrieval.record_text import passage_text

        sentences = self._sentences()
        views = {}
        if sentences is not None:
            views = sentences.get(Kind.PAPER, [(p.id, passage_text(p)) for p in papers])
        items: list[tuple[Sequence[str], FloatArray | None, int]] = []
        for p in papers:
            view = views.get(p.id)
            if view is not None and p.abstract:
                # the stored view cuts "title. abstract": keep the abstract's sentences
                offset = view.text.find(p.abstract)
                keep = [i for i, (s, _e) in enumerate(view.spans) if offset >= 0 and s >= offset]
                if keep:
                    texts = [view.text[int(view.spans[i][0]) : int(view.spans[i][1])] for i in keep]
                    items.append((texts, view.vectors[keep], len(texts)))
                    continue
            cand = sentences_of(p.abstract)
            items.append((cand, None, len(cand)))
        return list(extract_from_sentences(items, self._encoder()))

    def _llm_batch(
        self, session: LLMSession, papers: Sequence[Paper], report: RQReport
    ) -> list[Extraction | None]:
        from litsift.rq.llm import extract_with_llm

        done = extract_with_llm(session.client(), [(p.id, p.title, p.abstract, "") for p in papers])
        out: list[Extraction | None] = []
        for item in done:
            if item.stop is not None:
                report.stopped = item.stop
            if not item.tried:
                report.not_tried += 1
            elif item.extraction is None:
                report.failed.append((item.doc_id, item.error))
            out.append(item.extraction)
        return out

    def _write(
        self, papers: Sequence[Paper], got: Sequence[Extraction | None], report: RQReport
    ) -> None:
        from litsift.store.rq import RQRow, set_rqs

        rows = []
        for p, e in zip(papers, got, strict=True):
            if e is None:
                continue
            if not e.problem and not e.method:
                report.empty += 1
                continue
            rows.append(
                RQRow(p.id, e.problem, e.method, e.source, e.problem_sentence, e.method_sentence)
            )
        report.filled += set_rqs(self._store(), rows)

    # -- reading ---------------------------------------------------------------------------
    def evaluate_paperrq(self, rows: Sequence[PaperRQRow], use_llm: bool = False) -> PaperRQReport:
        """The PaperRQ evaluation (:func:`litsift.rq.evaluate.evaluate_paperrq`) with this
        home's encoder and, with ``use_llm``, its LLM's extractions too."""
        from litsift.rq.evaluate import evaluate_paperrq

        llm_extract = None
        if use_llm:
            from litsift.rq.llm import extract_with_llm

            client = self._llm().client()

            def llm_extract(papers: Sequence[PaperRQRow]) -> list[tuple[str, str] | None]:
                done = extract_with_llm(
                    client, [(p.title, p.title, p.abstract, p.introduction) for p in papers]
                )
                return [
                    (d.extraction.problem, d.extraction.method) if d.extraction else None
                    for d in done
                ]

        return evaluate_paperrq(rows, self._encoder(), llm_extract)

    def info(self, doc_ids: Sequence[str]) -> dict[str, StoredRQ]:
        """How the research questions of ``doc_ids`` were made (absent: none)."""
        from litsift.store.rq import rq_info

        return rq_info(self._store(), doc_ids)

    # -- search ----------------------------------------------------------------------------
    def _rq_index(self) -> RQIndex:
        from litsift.rq.search import RQIndex
        from litsift.store.rq import rq_rows, rq_state

        store = self._store()
        state = rq_state(store)
        with self._lock:
            if self._index is None or self._index[0] != state:
                self._index = (state, RQIndex(rq_rows(store)))
            return self._index[1]

    def search(self, query: Query, field_name: Field) -> SearchResult:
        """Papers whose ``field_name`` (problem or method) best matches ``query.text`` (BM25).

        The query's operators (parsed by the search pipeline) apply as in a search: a paper
        whose title, abstract or ``field_name`` holds one of ``query.exclude`` is left out and
        ``partial`` says how many; the papers whose ``field_name`` holds more of
        ``query.phrases`` come first. Both look ``max(k, k0)`` deep.

        Hits carry one signal, ``"bm25_<field>"``. Raises QueryError for datasets.
        """
        if query.kind is not Kind.PAPER:
            raise QueryError("only papers have a problem and a method", "search the Papers tab")
        t0 = time.perf_counter()
        k = query.k or 10
        deep = max(k, query.k0 or k) if query.exclude or query.phrases else k
        index = self._rq_index()
        scored = index.search(field_name, query.text, deep, query.years)
        records = self._store().get_by_rowids(Kind.PAPER, [r for r, _ in scored])
        signal = f"bm25_{field_name}"
        ranked = Ranked(
            query,
            hits=[
                Hit(records[r], rank, s, {signal: SignalScore(s, rank)})
                for rank, (r, s) in enumerate(((r, s) for r, s in scored if r in records), 1)
            ],
        )
        ranked = _operators(field_name)(ranked)
        if index.count < self._store().count(Kind.PAPER):
            ranked.note(
                f"{field_name} known for {index.count:,} of {self._store().count(Kind.PAPER):,} "
                "papers (litsift rq extract fills the rest)"
            )
        hits = tuple(ranked.hits[:k])
        return SearchResult(query, hits, time.perf_counter() - t0, {}, (signal,), ranked.partial)

    def similar(
        self, doc_id: str, same: Field, k: int = 10, years: YearRange | None = None
    ) -> SearchResult:
        """ "Same problem, other methods" (``same="problem"``) or "same method, other
        problems": papers whose ``same`` field matches this paper's, the paper itself left out.

        Raises:
            QueryError: no such paper, or it has no ``same`` field yet.
        """
        years = years or YearRange()
        paper = self._store().get(Kind.PAPER, doc_id)
        if not isinstance(paper, Paper):
            raise QueryError(f"no paper with id {doc_id!r}", "select a paper")
        text = paper.problem if same == "problem" else paper.method
        if not text.strip():
            raise QueryError(
                f"this paper has no {same} yet", "extract it first: litsift rq extract (or R)"
            )
        result = self.search(Query(text, Kind.PAPER, years, k=k + 1), same)
        hits = [h for h in result.hits if h.docid != doc_id][:k]
        hits = [Hit(h.record, i, h.score, h.signals) for i, h in enumerate(hits, start=1)]
        return SearchResult(
            Query(f"{same}: {text}", Kind.PAPER, years, k=k),
            tuple(hits),
            result.elapsed_s,
            result.timings,
            result.signals_used,
            result.partial,
        )
