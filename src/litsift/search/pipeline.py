"""One search from query to hits, as a chain of stages over one ranked-results type
(:class:`~litsift.search.retrieval.stages.Ranked`, composed with ``>>``: pyterrier's
``retriever >> reranker``, terrier-org/pyterrier ``pyterrier/transformer.py``), the retrievers
fused once as in pyserini's ``HybridSearcher`` (castorini/pyserini
``pyserini/search/hybrid/_searcher.py``). Adding a stage never edits the others or the service:

1. :func:`resolve_query` cleans the text (:func:`~litsift.search.retrieval.query.clean_query_text`),
   fills unset ``k`` / ``k0`` / fusion from ``[search]`` and applies the k0 rule -- the only
   place either happens; searchers and the CLI take the text as given.
2. exclusions (``-word``, ``NOT word``), quoted phrases and wildcards are taken out of the text
   (:func:`~litsift.search.retrieval.operators.parse_operators`) into the query's ``exclude``
   and ``phrases`` (wildcards are said in ``partial``); ``problem: ...`` / ``method: ...``
   then go to the research-question search (:func:`split_rq_query`) with them.
3. :func:`stages` builds the chain: :class:`KindRetrieval` (the kind's searcher, itself
   ``BM25Run >> DenseRun >> Fusion`` with the year filter inside BM25 and hnswlib),
   :class:`FullTextStage` (for a full-text query the papers of the best passages fused in by
   document id, their years read from the paper index's year column), :class:`LoadRows` (the
   top rows from SQLite in one batch), :class:`~litsift.search.retrieval.operator_stages.Exclude`
   (hits holding an excluded word left out), then the hit stages: the opt-in cross-encoder and
   the citation signal while papers are kept (:mod:`litsift.search.retrieval.citation_stage`,
   which widens the candidate pool), :class:`~litsift.search.retrieval.operator_stages.PhraseFirst`
   and a final cut to ``k``. A year range outside the store's years is said in ``partial``.
   Rocchio feedback ("more like this") and the aspect coverage order are stages over a
   result's loaded hits.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from litsift.errors import IndexDamagedError, IndexMissingError, MachineFaultError
from litsift.search.fulltext.index import (
    FULLTEXT_FUSION,
    PASSAGE_GATE_RANK,
    dense_floor,
    fuse_fulltext,
    paper_run,
)
from litsift.search.retrieval.citation_stage import CitationStage
from litsift.search.retrieval.operator_stages import Exclude, PhraseFirst
from litsift.search.retrieval.operators import (
    ONLY_EXCLUSIONS,
    excluded_label,
    parse_operators,
    wildcard_note,
)
from litsift.search.retrieval.query import clean_query_text
from litsift.search.retrieval.stages import (
    Candidate,
    Chain,
    CrossEncoderStage,
    Cut,
    Ranked,
    Stage,
)
from litsift.types import Hit, Kind, Passage, Query, SearchResult, YearRange

if TYPE_CHECKING:
    from litsift.config import SearchSettings
    from litsift.search.engines.base import PassageSearch
    from litsift.search.open_searchers import Searchers
    from litsift.search.retrieval.fusion import Fused
    from litsift.store import Store

__all__ = [
    "NO_WORDS",
    "RQ_PREFIX",
    "FullText",
    "FullTextStage",
    "KindRetrieval",
    "LoadRows",
    "SearchPipeline",
    "load_hits",
    "resolve_query",
    "split_rq_query",
    "stages",
]

#: why a query of punctuation alone (``*``, ``???``) has no hits (``SearchResult.partial``)
NO_WORDS = "no words to search for: type a word or a phrase"
#: ``problem: TEXT`` / ``method: TEXT`` at the start of a query searches that field
RQ_PREFIX = re.compile(r"^\s*(problem|method)\s*:\s*", re.IGNORECASE)
#: the research-question fields a query can be routed to
RQField = Literal["problem", "method"]


def split_rq_query(text: str) -> tuple[RQField | None, str]:
    """``("problem", "rest")`` for ``"problem: rest"`` (same for ``method:``), else
    ``(None, text)``."""
    m = RQ_PREFIX.match(text)
    if m is None:
        return None, text
    name = m.group(1).lower()
    return ("problem" if name == "problem" else "method"), text[m.end() :]


def resolve_query(query: Query, settings: SearchSettings) -> Query:
    """``query`` with its text cleaned (:func:`~litsift.search.retrieval.query.clean_query_text`)
    and
    unset ``k``, ``k0`` and fusion taken from ``settings``, ``k0`` raised by the k0 rule
    (:meth:`~litsift.types.Query.with_defaults`).

    Raises:
        QueryError: unknown fusion, or ``k`` / ``k0`` out of range.
    """
    query = replace(query, text=clean_query_text(query.text))
    return query.with_defaults(settings.k, settings.k0, settings.fusion)


@dataclass
class FullText:
    """The papers of the best full-text passages, fused with the paper run by document id.

    A passage takes part only when it is as close to the query (dense cosine) as the
    ``gate``-th closest abstract of the paper run (:func:`~litsift.search.fulltext.index.
    dense_floor`): without it every paper with full text would enter every result list at its
    passage rank, however weak its best passage (``benchmarks/fulltext_eval.py --known-item``).
    A hit still carries its paper's best passage when the gate kept that passage out.

    Attributes:
        index: the passage index.
        store: id <-> rowid lookups (no row is loaded here).
        year_of: the indexed year of a paper rowid (``KindSearcher.year_of``): the year filter
            of passage-only papers is read from the paper index's year column.
        method: how the two runs are combined (:func:`~litsift.search.fulltext.index.
            fuse_fulltext`).
        gate: the abstract rank whose dense cosine a passage must reach; None: no gate.
    """

    index: PassageSearch
    store: Store
    year_of: Callable[[int], int | None]
    method: str = FULLTEXT_FUSION
    gate: int | None = PASSAGE_GATE_RANK

    def fuse(
        self, query: Query, fused: Sequence[Fused]
    ) -> tuple[list[Candidate], dict[int, Passage]]:
        """The paper run ``fused`` (rowids, best first) fused with the passages' papers.

        Returns:
            ``([(rowid, fused score, signals)], best passage by rowid)``: at most ``query.k``
            papers, best first; ``signals`` are the paper run's plus ``passages`` where the
            passages ranked the paper. Papers outside ``query.years`` or no longer in the store
            are left out.

        Raises:
            IndexDamagedError: the passage index is damaged.
        """
        assert query.k is not None and query.k0 is not None
        ids = self.store.ids_by_rowid(Kind.PAPER, [int(f.docid) for f in fused])
        papers = [f for f in fused if int(f.docid) in ids]  # rows deleted since the build: out
        found = self.index.search(query.text, k=query.k0, k0=query.k0)
        _, best = paper_run(found)  # a paper's best passage is shown even when the gate holds it
        floor = dense_floor(papers, self.gate) if self.gate is not None else None
        if floor is not None:
            found = [h for h in found if "dense" in h.signals and h.signals["dense"][0] >= floor]
        passage_papers, ranked_by = paper_run(found)
        best.update(ranked_by)  # the passage that ranked the paper, where one did
        rowid_of = {d: r for r, d in ids.items()}
        rowid_of.update(self.store.rowids_by_id(Kind.PAPER, [d for d, _ in passage_papers]))
        passage_papers = [
            (d, s)
            for d, s in passage_papers
            if d in rowid_of and query.years.contains(self.year_of(rowid_of[d]))
        ]
        by_id = {ids[int(f.docid)]: f for f in papers}
        paper_items = [(ids[int(f.docid)], float(f.score)) for f in papers]
        out: list[Candidate] = []
        for f in fuse_fulltext(paper_items, passage_papers, query.k, self.method):
            doc_id = str(f.docid)
            base = by_id.get(doc_id)
            signals = dict(base.signals) if base is not None else {}
            if "passages" in f.signals:
                signals["passages"] = f.signals["passages"]
            out.append((rowid_of[doc_id], float(f.score), signals))
        passages = {rowid_of[d]: p for d, p in best.items() if d in rowid_of}
        return out, passages


@dataclass
class KindRetrieval(Stage):
    """The first stage of every search: the kind's searcher (``BM25Run >> DenseRun >>
    Fusion``, :mod:`litsift.search.kind_searcher`; the dataset searcher adds its usage run and
    re-ranker) sets ``fused`` and the ``candidates`` before any row is read.

    Raises (when called):
        IndexMissingError, IndexMismatchError, IndexDamagedError: the kind's index cannot
            serve.
        QueryError: bad k / k0 / fusion.
    """

    searchers: Searchers

    def __call__(self, ranked: Ranked) -> Ranked:
        searcher = self.searchers.get(ranked.query.kind)
        ranked.fused = searcher.search(ranked.query, timings=ranked.timings)
        # after the search: BM25 may have been found damaged
        ranked.signals_used = (*ranked.signals_used, *searcher.signals(ranked.query))
        if searcher.partial:
            ranked.note(searcher.partial)
        ranked.candidates = [(int(f.docid), float(f.score), f.signals) for f in ranked.fused]
        return ranked


@dataclass
class FullTextStage(Stage):
    """For a full-text paper query, the papers of the best passages fused into the
    candidates by document id (:class:`FullText`); a damaged passage index is a note in
    ``partial``, never an error.

    Attributes:
        searchers: the open searchers (the paper index's year column).
        store: id <-> rowid lookups.
        passages: returns the passage index (None without full text); may raise
            IndexDamagedError.
        on_damaged: called when the passage index is found damaged (the service forgets it).
    """

    searchers: Searchers
    store: Store
    passages: Callable[[], PassageSearch | None]
    on_damaged: Callable[[], None] = lambda: None

    def __call__(self, ranked: Ranked) -> Ranked:
        query = ranked.query
        if not (query.fulltext and query.kind is Kind.PAPER):
            return ranked
        t = time.perf_counter()
        try:
            index = self.passages()
            if index is not None:
                paper_year = self.searchers.of_kind(Kind.PAPER).year_of
                fulltext = FullText(index, self.store, paper_year)
                ranked.candidates, ranked.passages = fulltext.fuse(query, ranked.fused)
                ranked.signals_used = (*ranked.signals_used, "passages")
                ranked.timings["passages"] = time.perf_counter() - t
        except IndexDamagedError as err:
            self.on_damaged()
            ranked.note(f"full text not searched: {err.message}; {err.hint}")
        except MachineFaultError as err:  # the machine refused a read: not damage
            ranked.note(f"full text not searched: {err.message}")
        return ranked


@dataclass
class LoadRows(Stage):
    """The candidates' rows loaded in one batch (:func:`load_hits`): ``hits``."""

    store: Store

    def __call__(self, ranked: Ranked) -> Ranked:
        t = time.perf_counter()
        ranked.hits = load_hits(self.store, ranked.query.kind, ranked.candidates, ranked.passages)
        ranked.timings["load"] = time.perf_counter() - t
        return ranked


def load_hits(
    store: Store, kind: Kind, items: Sequence[Candidate], passages: Mapping[int, Passage]
) -> list[Hit]:
    """The hits of fused candidates, their rows loaded in one batch (``Store.get_by_rowids``).

    Args:
        store: the store.
        kind: the candidates' kind.
        items: ``(rowid, score, signals)`` best first.
        passages: the best full-text passage of a rowid, where it has one.

    Returns:
        Hits best first, ranks from 1; candidates whose row is gone (deleted since the index
        was built) are left out.
    """
    rows = store.get_by_rowids(kind, [rowid for rowid, _, _ in items])
    hits: list[Hit] = []
    for rowid, score, signals in items:
        rec = rows.get(rowid)
        if rec is None:
            continue
        hits.append(Hit(rec, len(hits) + 1, score, dict(signals), passages.get(rowid)))
    return hits


def stages(
    searchers: Searchers,
    store: Store,
    passages: Callable[[], PassageSearch | None],
    settings: SearchSettings,
    on_damaged: Callable[[], None] = lambda: None,
) -> Chain:
    """The chain of one home's search, in order (the one place a new stage is added):
    ``KindRetrieval >> FullTextStage >> LoadRows`` then the configured hit stages (the opt-in
    cross-encoder; the citation signal, which needs the ``store``'s labels and edges),
    the quoted phrases first and :class:`~litsift.search.retrieval.stages.Cut`; the query's
    exclusions are applied right after the rows are loaded."""
    chain = (
        KindRetrieval(searchers)
        >> FullTextStage(searchers, store, passages, on_damaged)
        >> LoadRows(store)
        >> Exclude()
    )
    if settings.cross_encoder_top > 0:
        chain = chain >> CrossEncoderStage(
            settings.cross_encoder_top, settings.cross_encoder_weight
        )
    if settings.citation_signal:
        chain = chain >> CitationStage(store, settings.citation_weight, max(settings.rrf_k, 1))
    return chain >> PhraseFirst() >> Cut()


class SearchPipeline:
    """One home's search: resolve, route, retrieve, load, stages (see the module docstring).

    Args:
        settings: the ``[search]`` settings (defaults, stages).
        searchers: the open searchers of the home.
        store: the home's store.
        passages: returns the passage index (None without full text).
        rq_search: the research-question search, ``rq_search(query, "problem" | "method")``.
        on_damaged: called when the passage index is found damaged.
    """

    def __init__(
        self,
        settings: SearchSettings,
        searchers: Searchers,
        store: Store,
        passages: Callable[[], PassageSearch | None],
        rq_search: Callable[[Query, RQField], SearchResult],
        on_damaged: Callable[[], None] = lambda: None,
    ) -> None:
        self.settings = settings
        self.store = store
        self._rq_search = rq_search
        self.chain = stages(searchers, store, passages, settings, on_damaged)

    def search(self, query: Query) -> SearchResult:
        """Run ``query``; unset ``k``, ``k0`` and fusion take the configured defaults and the
        returned ``SearchResult.query`` has them filled in (text cleaned; its ``exclude``
        and ``phrases`` parsed from the text, which is returned whole). A query of no letter
        or digit (``*``, ``???``) has no hits, ``partial`` :data:`NO_WORDS`; one of
        exclusions alone, none either and ``partial`` says why. Wildcards (``transf?rmer``)
        are read without their wildcard characters and said in ``partial``. A year range
        outside the store's years is said in ``partial`` (:meth:`years_note`). A
        ``problem:`` / ``method:`` query goes to ``rq_search`` with its operators parsed
        (its result's text is the query after the prefix, as typed).

        Raises:
            IndexMissingError: the store holds nothing of ``query.kind``, or no index was
                built for it.
            IndexMismatchError: the index was built by another encoder.
            QueryError: unknown fusion method or bad k/k0.
        """
        t0 = time.perf_counter()
        query = resolve_query(query, self.settings)
        if not query.text.strip():
            return SearchResult(query, (), time.perf_counter() - t0, {})
        if not any(ch.isalnum() for ch in query.text):  # "*", "???": BM25 has no term, and
            # the dense run would answer the nearest vectors to punctuation, arbitrary papers
            return SearchResult(query, (), time.perf_counter() - t0, {}, partial=NO_WORDS)
        rq_field, rest = split_rq_query(query.text)
        ops = parse_operators(rest)
        query = replace(query, exclude=ops.exclude, phrases=ops.phrases)
        wild = wildcard_note(ops.wildcards)
        if not any(ch.isalnum() for ch in ops.text):  # "-graph" alone: nothing to rank
            why = ONLY_EXCLUSIONS.format(excluded=excluded_label(ops.exclude))
            why = "; ".join(n for n in (why, wild) if n)
            return SearchResult(query, (), time.perf_counter() - t0, {}, partial=why)
        if rq_field is not None:  # "problem: …" / "method: …": the research-question fields
            found = self._rq_search(replace(query, text=ops.for_models), rq_field)
            said = "; ".join(n for n in (found.partial, wild) if n) or None
            return replace(found, query=replace(found.query, text=rest), partial=said)
        if self.store.count(query.kind) == 0:
            raise IndexMissingError(
                f"no {query.kind.table} in the store yet",
                f"litsift ingest {query.kind.table} PATH (any format `litsift formats` lists), "
                "then litsift index",
            )
        assert query.k is not None
        # BM25 and the encoders read the phrases unquoted: the quotes are operators, and the
        # encoder read them as tokens of the query (PhraseFirst reads ``phrases``)
        searched = replace(query, text=ops.for_models)
        ranked = self.chain(Ranked(self.chain.pool(searched), k=query.k))
        if wild is not None:
            ranked.note(wild)
        if (years_note := self.years_note(query.kind, query.years)) is not None:
            ranked.note(years_note)
        elapsed = time.perf_counter() - t0
        return SearchResult(
            query, tuple(ranked.hits), elapsed, ranked.timings, ranked.signals_used, ranked.partial
        )

    def years_note(self, kind: Kind, years: YearRange) -> str | None:
        """``"no papers from 1990–1995 in this store (its papers span 2017–2021)"`` when
        ``years`` and the years of the store's records of ``kind`` (``Store.year_span``) do
        not meet, else None (also when no record has a year)."""
        if years.is_unbounded:
            return None
        lo, hi = self.store.year_span(kind)
        if lo is None or hi is None:
            return None
        if not (
            (years.end is not None and years.end < lo)
            or (years.start is not None and years.start > hi)
        ):
            return None
        table = kind.table
        span = f"are from {lo}" if lo == hi else f"span {lo}–{hi}"
        return f"no {table} from {years.label()} in this store (its {table} {span})"
