"""Ranking actions of the main screen: aspect coverage (scoring, editing, ordering), "more like
this" (Rocchio feedback from the labels) and the optional LLM rerank and cited answer.

Aspect scoring starts after a result is shown and runs in its own exclusive worker per kind
(after the search that produced the result, under the service lock), so the result list is
never delayed; its result is dropped if a newer search came in meanwhile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding, BindingType

from litsift.tui.messages import AnnotationsChanged, AspectsJudged, AspectsScored, Reordered
from litsift.tui.screens.answer import AnswerScreen
from litsift.tui.screens.base import ScreenBase
from litsift.tui.screens.modals import AspectEditScreen
from litsift.types import Aspect, Hit, Kind, SearchResult

if TYPE_CHECKING:
    from litsift.search.aspect_scoring import Coverage

#: hits scored per hold of the service lock (a new search waits for one chunk at most)
ASPECT_CHUNK = 10

#: actions that need an LLM endpoint
NEEDS_LLM = frozenset({"llm_rerank", "answer", "llm_judge_aspects"})


class RankingActions(ScreenBase):
    """Aspect coverage, more like this, LLM rerank and answer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "l",
            "more_like_this",
            "More like this",
            id="more_like_this",
            tooltip="Toggle: rerank toward kept, away from discarded results",
        ),
        Binding(
            "o",
            "coverage_order",
            "By coverage",
            show=False,
            id="coverage_order",
            tooltip="Toggle: order the results by aspect coverage",
        ),
        Binding(
            "a",
            "edit_aspects",
            "Aspects",
            show=False,
            id="edit_aspects",
            tooltip="Edit, delete or add query aspects, then re-score",
        ),
        Binding(
            "r",
            "llm_rerank",
            "Rerank",
            show=False,
            id="llm_rerank",
            tooltip="Rerank the results with the LLM",
        ),
        Binding(
            "J",
            "llm_judge_aspects",
            "Judge aspects",
            show=False,
            id="llm_judge_aspects",
            tooltip="LLM grades each aspect 0/1/2 for the top results (DORIS-MAE prompt)",
        ),
        Binding(
            "w", "answer", "Answer", id="answer", tooltip="Write a cited answer from the results"
        ),
    ]

    # -- aspects ---------------------------------------------------------------------------
    def score_aspects(self, kind: Kind, result: SearchResult) -> None:
        """Start scoring the aspects of ``result``'s query on its hits (edited aspects win)."""
        self._aspect_request[kind] += 1
        text = result.query.text
        if not text.strip() or not result.hits:
            self._scoring[kind] = None
            self.aspects[kind] = []
            self.table(kind).set_coverage(None)
            self.workers.cancel_group(self, f"aspects-{kind.value}")
            return
        edited = self._edited_aspects.get(kind)
        aspects = edited[1] if edited is not None and edited[0] == text else None
        request = self._aspect_request[kind]
        self._scoring[kind] = request
        self.table(kind).set_coverage(None, scoring=True)
        self._run_aspects(request, kind, text, aspects, list(result.hits))

    def _run_aspects(
        self, request: int, kind: Kind, text: str, aspects: list[Aspect] | None, hits: list[Hit]
    ) -> None:
        self.run_worker(
            lambda: self._score_in_thread(request, kind, text, aspects, hits),
            group=f"aspects-{kind.value}",
            exclusive=True,
            thread=True,
            exit_on_error=False,
        )

    def _score_in_thread(
        self, request: int, kind: Kind, text: str, aspects: list[Aspect] | None, hits: list[Hit]
    ) -> None:
        try:
            with self._service_lock:
                if request != self._aspect_request[kind]:
                    return  # superseded while waiting; the newer request scores
                found = aspects if aspects is not None else self.service.decompose(text)
            coverages: list[Coverage] = []
            # a chunk at a time, releasing the lock between chunks: a new search waits for
            # one chunk at most, and a superseded request stops early
            for start in range(0, len(hits), ASPECT_CHUNK):
                with self._service_lock:
                    if request != self._aspect_request[kind]:
                        return
                    chunk = hits[start : start + ASPECT_CHUNK]
                    coverages += self.service.score_aspects(found, chunk)
        except Exception as err:  # shown in the status line; the results stay
            self.post_message(AspectsScored(request, kind, text, [], [], err))
            return
        self.post_message(AspectsScored(request, kind, text, found, coverages))

    @on(AspectsScored)
    def _aspects_scored(self, msg: AspectsScored) -> None:
        if msg.request != self._aspect_request[msg.kind]:
            return  # a newer search or edit superseded it
        self._scoring[msg.kind] = None
        table = self.table(msg.kind)
        if msg.error is not None:
            table.set_coverage(None)
            self.status.show_error(msg.error)
        else:
            self.aspects[msg.kind] = list(msg.aspects)
            table.set_coverage({c.doc_id: c for c in msg.coverages})
        self.llm_grades[msg.kind] = {}  # judged against the previous aspects
        self.refresh_detail()
        self.refresh_bindings()

    def action_llm_judge_aspects(self) -> None:
        """Ask the LLM to grade the current aspects on the top results (a worker)."""
        kind, result = self.kind, self.table().result
        aspects = list(self.aspects[kind])
        if result is None or not result.hits or not aspects:
            self.status.show_error(("no aspects to judge yet", "wait for the aspect panel"))
            return
        n = min(len(result.hits), self.service.config.llm.aspect_judge_top)
        self.status.show_message(f"LLM judging {len(aspects)} aspect(s) on {n} results…")
        self._run_judge(self._aspect_request[kind], kind, result.query.text, aspects, result)

    @work(thread=True, exclusive=True, group="judge", exit_on_error=False)
    def _run_judge(
        self, request: int, kind: Kind, text: str, aspects: list[Aspect], result: SearchResult
    ) -> None:
        try:
            done = self.service.judge_aspects(text, aspects, result.hits)
        except Exception as err:  # LLMNotConfiguredError only; judging never raises LLM errors
            self.post_message(AspectsJudged(request, kind, {}, "", str(err)))
            return
        s = done.stats
        note = (
            f"LLM judged {len(done.scores)} results · {s.calls} call(s)"
            f"{f' ({s.cached_calls} cached)' if s.cached_calls else ''} · ${s.cost_usd:.4f}"
        )
        self.post_message(AspectsJudged(request, kind, dict(done.scores), note, done.error))

    @on(AspectsJudged)
    def _aspects_judged(self, msg: AspectsJudged) -> None:
        if msg.request != self._aspect_request[msg.kind]:
            return  # the aspects or the results changed meanwhile
        self.llm_grades[msg.kind] = msg.grades
        if msg.error is not None:
            self.status.show_error((msg.error, "grades so far are shown"))
        else:
            self.status.show_message(msg.note)
        self.refresh_detail()

    def action_edit_aspects(self) -> None:
        result = self.table().result
        if result is None or not result.query.text.strip():
            return
        kind, text = self.kind, result.query.text

        def rescore(lines: list[str] | None) -> None:
            if lines is None:
                return
            self._edited_aspects[kind] = (text, [Aspect(line) for line in lines])
            current = self.table(kind).result
            if current is not None:
                self.score_aspects(kind, current)

        current = [a.text for a in self.aspects[kind]]
        self.app.push_screen(AspectEditScreen(text, current), rescore)

    def action_coverage_order(self) -> None:
        self.by_coverage = not self.by_coverage
        for kind in Kind:
            self.table(kind).set_view(by_coverage=self.by_coverage)
        self.refresh_detail()
        self.show_modes()

    # -- more like this --------------------------------------------------------------------
    def action_more_like_this(self) -> None:
        self.more_like_this = not self.more_like_this
        base = self._base[self.kind]
        if base is not None and base.hits:
            if self.more_like_this:
                self.rerun_feedback()
            else:
                self.reranked.pop(self.kind, None)
                self.table().reorder(base)
        self.show_modes()

    def rerun_feedback(self) -> None:
        """Rerank the current kind's fused result toward the labels (in a worker)."""
        base = self._base[self.kind]
        if base is None or not base.hits:
            return
        self._reordering = self._request_id
        self._run_feedback(self._request_id, base)

    @work(thread=True, exclusive=True, group="reorder", exit_on_error=False)
    def _run_feedback(self, request_id: int, base: SearchResult) -> None:
        kind = base.query.kind
        try:
            with self._service_lock:
                result = self.service.more_like_this(base)
        except Exception as err:  # QueryError (no labels yet) carries the hint
            self.post_message(Reordered(request_id, kind, None, "more like this", error=err))
            return
        self.post_message(Reordered(request_id, kind, result, "more like this"))

    def after_annotations(self, msg: AnnotationsChanged) -> None:
        if self.more_like_this and msg.kind == self.kind:
            self.rerun_feedback()

    # -- LLM -------------------------------------------------------------------------------
    def action_llm_rerank(self) -> None:
        result = self.table().result
        if result is None or not result.hits:
            return
        self._reordering = self._request_id
        self.status.show_message(f"LLM reranking {len(result.hits)} results…")
        self._run_rerank(self._request_id, result)

    @work(thread=True, exclusive=True, group="reorder", exit_on_error=False)
    def _run_rerank(self, request_id: int, result: SearchResult) -> None:
        from dataclasses import replace

        kind = result.query.kind
        try:
            done = self.service.rerank(result.query.text, result.hits)
        except Exception as err:  # LLMNotConfiguredError only; rerank never raises LLM errors
            self.post_message(Reordered(request_id, kind, None, "LLM rerank", error=err))
            return
        report = done.report
        if report.error is not None:
            self.post_message(Reordered(request_id, kind, None, "LLM rerank", report.error))
            return
        s = report.stats
        note = (
            f"LLM reranked {report.reranked} results · {s.calls} call(s)"
            f"{' (cached)' if report.cached else ''} · ${s.cost_usd:.4f}"
        )
        new = replace(result, hits=tuple(done.hits))
        self.post_message(Reordered(request_id, kind, new, "LLM rerank", note))

    @on(Reordered)
    def _reordered(self, msg: Reordered) -> None:
        if msg.request_id != self._request_id:
            return  # a newer search replaced the result
        self._reordering = None
        if msg.error is not None:
            if msg.source == "more like this":
                self.more_like_this = False
            self.status.show_error(msg.error)
        elif msg.result is None:
            self.status.show_error((msg.note, "the original order is kept"))
        else:
            if msg.source == "LLM rerank":
                self.reranked[msg.kind] = "LLM reranked"
            self.table(msg.kind).reorder(msg.result)
            self.status.show_message(msg.note or f"{msg.source}: {len(msg.result.hits)} results")
        self.refresh_detail()
        self.show_modes()

    def action_answer(self) -> None:
        result = self.table().result
        if result is None or not result.hits:
            return

        def opened(hit: Hit | None) -> None:
            if hit is None:
                return
            table = self.table()
            rows = [h.docid for h in table.hits]
            if hit.docid in rows:
                table.move_cursor(row=rows.index(hit.docid), animate=False)
                self.detail.show_hit(hit, self.extras(self.kind, hit))
            else:
                self.detail.show_hit(hit)
            self.detail.focus()

        self.app.push_screen(AnswerScreen(self.service, result.query.text, result.hits), opened)
