"""Aspects and the optional LLM through the service: offline decomposition and grades,
coverage order, LLM rerank, per-aspect judgements and cited answers
(:mod:`litsift.search.aspects.scoring`, :mod:`litsift.llm.session`).

Each takes the query as typed (``result.query.text``) and hands on what a model should read
of it (:func:`model_query`): its operator syntax (``-word``, ``NOT word``, ``-"a phrase"``)
removed, quoted phrases unquoted, wildcard characters taken out, as the search read it. The
LLM rerank's prompt also says which words were excluded; the decomposition, the judge and the
answer get the text alone (an exclusion is no aspect to grade nor a question to answer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from litsift.service.parts import ServiceParts
from litsift.types import Aspect, Hit, Kind, Passage, Query, Record

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from litsift.llm.client import ChatClient
    from litsift.llm.protocol import DeltaCallback
    from litsift.types import Coverage
    from litsift.types.llm import Answer, AspectJudgement, RerankResult, RetryWait

__all__ = ["AspectLLMCommands", "model_query"]


def model_query(query_text: str) -> tuple[str, tuple[str, ...]]:
    """``(text, excluded)``: what a model reads of a query as typed (its operators removed,
    phrases unquoted: :attr:`~litsift.search.retrieval.operators.QueryOperators.for_models`)
    and the words and phrases it excluded, as typed. ``"graph networks -bert"`` ->
    ``("graph networks", ("bert",))``."""
    from litsift.search.retrieval.operators import parse_operators

    ops = parse_operators(query_text)
    return ops.for_models, ops.exclude


class AspectLLMCommands(ServiceParts):
    """Aspects and LLM calls of one home (mixed into
    :class:`litsift.service.facade.LitsiftService`)."""

    def decompose(self, query_text: str) -> list[Aspect]:
        """Offline, deterministic aspects of a query as typed (sentences, clauses or
        keyphrases) of its text without operators (:func:`model_query`); the aspects' spans
        are offsets into that text."""
        from litsift.search.aspects.decompose import decompose

        return decompose(model_query(query_text)[0])

    def score_aspects(
        self,
        aspects: Sequence[Aspect],
        hits: Sequence[Hit],
        provisional: bool = False,
        cancelled: Callable[[], bool] | None = None,
    ) -> list[Coverage]:
        """Per-aspect 0/1/2 grades with evidence sentences for each hit (DORIS-MAE scale).

        A hit of a full-text search is graded on its record's text and its matching passage.

        Args:
            aspects: the aspects to grade.
            hits: the hits to grade.
            provisional: grade the hits whose sentence vectors are not stored (nor in the
                scorer's memory) at once from their passage vector in the dense index
                (embedded only where the index lacks it) instead of embedding their sentences:
                their Coverage says ``provisional``; a call without it gives their sentence
                grades (and keeps their sentences). See
                :meth:`litsift.search.aspects.scoring.AspectScorer.score`.
            cancelled: checked before each sentence is embedded; once true the call raises
                :class:`~litsift.models_onnx.encoder.EmbeddingCancelled` (a closing app, a
                superseded search) instead of embedding the rest.

        Returns one Coverage per hit, in the hits' order.
        """
        from litsift.search.aspects.scoring import AspectScorer

        with self._lock:
            if self._aspect_scorer is None:
                self._aspect_scorer = AspectScorer(self.encoder, sentences=self.sentence_store)
            scorer = self._aspect_scorer
        extra = [h.passage.text if h.passage is not None else "" for h in hits]
        vectors = self._passage_vectors if provisional else None
        if cancelled is None:
            return scorer.score(list(aspects), [h.record for h in hits], extra, vectors)
        with self.encoder.cancellable(cancelled):
            return scorer.score(list(aspects), [h.record for h in hits], extra, vectors)

    def _passage_vectors(self, records: Sequence[Record]) -> npt.NDArray[np.float32]:
        """``(len(records), dim)`` float32: each record's passage vector as its kind's dense
        index stores it; embedded (one vector each) where the index lacks it or cannot be
        opened."""
        import numpy as np

        from litsift.errors import LitsiftError

        out = np.zeros((len(records), self.encoder.dim), dtype=np.float32)
        for kind in {r.kind for r in records}:
            at = [i for i, r in enumerate(records) if r.kind is kind]
            part = [records[i] for i in at]
            try:
                out[at] = self.searchers.of_kind(kind).record_vectors(part)
            except LitsiftError:  # no index of the kind (yet): its passages are embedded
                from litsift.search.retrieval.record_text import passage_text

                out[at] = self.encoder.encode_passages([passage_text(r) for r in part])
        return out

    def coverage_order(
        self, hits: Sequence[Hit], coverages: Sequence[Coverage], blend: float = 0.0
    ) -> list[Hit]:
        """The hits in "aspect coverage" order: DORIS-MAE normalised score first, ties by mean
        combined score, then original position; hits without a coverage follow in their order.

        Args:
            hits: best first; coverages: from :meth:`score_aspects`, matched by doc id;
            blend: weight of the original rank in ``[0, 1]`` (0 = coverage only).

        Raises:
            ValueError: ``blend`` outside ``[0, 1]``.
        """
        from litsift.search.aspects.coverage import AspectOrder
        from litsift.search.retrieval.stages import Ranked

        kind = hits[0].kind if hits else Kind.PAPER
        return AspectOrder(coverages, blend)(Ranked(Query("", kind), hits=list(hits))).hits

    def llm_client(self) -> ChatClient:
        """See :meth:`LLMSession.client` (raises LLMNotConfiguredError)."""
        return self.llm_session.client()

    def report_llm_waits(self, on_wait: Callable[[RetryWait], None] | None) -> None:
        """Tell ``on_wait`` of each wait before an LLM call is retried (a 429 and its
        ``Retry-After``, an overloaded server's backoff); see :meth:`LLMSession.report_waits`."""
        self.llm_session.report_waits(on_wait)

    def rerank(
        self, query_text: str, hits: Sequence[Hit], cancelled: Callable[[], bool] | None = None
    ) -> RerankResult:
        """Listwise LLM rerank of the top hits for a query as typed (the prompt gets it
        without operators and says what was excluded); see :meth:`LLMSession.rerank`."""
        text, excluded = model_query(query_text)
        return self.llm_session.rerank(text, hits, cancelled, excluded)

    def judge_aspects(
        self,
        query_text: str,
        aspects: Sequence[Aspect],
        hits: Sequence[Hit],
        cancelled: Callable[[], bool] | None = None,
    ) -> AspectJudgement:
        """LLM 0/1/2 grades per aspect for a query as typed (the prompt gets it without
        operators); see :meth:`LLMSession.judge_aspects`."""
        text = model_query(query_text)[0]
        return self.llm_session.judge_aspects(text, aspects, hits, cancelled)

    def answer(
        self,
        question: str,
        hits: Sequence[Hit],
        on_delta: DeltaCallback | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Answer:
        """A cited answer with every citation checked to ``question`` as typed (the prompt
        and the passage search get it without operators: :func:`model_query`); see
        :meth:`LLMSession.answer` (``cancelled`` closes the call in flight: LLMCancelledError).

        When the hits come from a full-text search (a hit carries a passage), papers with
        indexed full text are cited from their best passages for ``question`` (at most
        ``llm.answer_passages_per_record`` each), not from their abstracts."""
        question = model_query(question)[0]
        fulltext: dict[str, list[Passage]] | None = None
        if any(h.passage is not None for h in hits):
            index = self.passage_index
            if index is not None:
                fulltext = {}
                for found in index.search(question, k=200):
                    fulltext.setdefault(found.passage.doc_id, []).append(found.passage)
        return self.llm_session.answer(question, hits, on_delta, fulltext, cancelled)
