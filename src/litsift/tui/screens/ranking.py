"""Ranking on the main screen: aspect coverage (scoring, editing, ordering), "more like this"
(Rocchio feedback from the labels) and the optional LLM rerank, aspect judge and cited answer.

:class:`RankingCommands` is composed by :class:`~litsift.tui.screens.search.SearchScreen`,
whose ``action_*`` methods and message handlers call it (it sees the screen as a
:class:`~litsift.tui.screens.host.RankingHost`); the per-kind aspect state lives in
each :class:`~litsift.tui.widgets.kind_tab.KindTab`. Aspect scoring starts after a result is
painted (its worker starts after the screen's next refresh) and runs in its own exclusive worker
per kind (after the search that produced the result, under the service lock), so the result
list is never delayed; its result is dropped if a newer search came in meanwhile. Hits whose
sentence vectors are not stored (a kind without the sentence phase, hits never scored before)
are first graded provisionally from their passage vectors (no sentence embedded: the column
fills at once, dimmed), then their sentences are embedded ten hits at a time and each chunk's
grades replace the provisional ones.

An LLM rerank or judge runs in a worker whose call is closed (not just ignored) when Esc
(:meth:`RankingCommands.cancel_llm`), a newer search or closing the screen cancels it: the
service's ``cancelled`` check is looked at while the reply is awaited, the status line says the
call was cancelled and nothing of it is cached.
"""

from __future__ import annotations

from dataclasses import replace

from textual.worker import Worker, get_current_worker

from litsift.errors import LitsiftError, LLMCancelledError
from litsift.text import for_terminal
from litsift.tui.messages import AspectsJudged, AspectsScored, Notice, Reorder, Reordered
from litsift.tui.screens.answer import AnswerScreen
from litsift.tui.screens.host import RankingHost
from litsift.tui.screens.jobs import after_paint as run_after_paint
from litsift.tui.screens.modals import AspectEditScreen
from litsift.types import Aspect, Coverage, Hit, Kind, SearchResult

#: hits scored per hold of the service lock (a new search waits for one chunk at most)
ASPECT_CHUNK = 10


class RankingCommands:
    """Aspect coverage, more like this, LLM rerank and answer for the results of ``screen``."""

    def __init__(self, screen: RankingHost) -> None:
        self.screen = screen
        #: rerank every search toward the labels
        self.more_like_this = False
        #: order both tables by aspect coverage
        self.by_coverage = False
        #: the search request whose result a reordering worker is working on, or None
        self.reordering: int | None = None
        #: the LLM rerank or judge in flight ("LLM rerank" / "LLM judge") and its worker
        self._llm: tuple[str, Worker[None]] | None = None

    def modes(self) -> list[str]:
        """The view modes ranking sets (both tabs), as the status line names them."""
        modes = []
        if self.more_like_this:
            modes.append("more like this")
        if self.by_coverage:
            modes.append("by coverage")
        return modes

    # -- aspects ---------------------------------------------------------------------------
    def score_aspects(self, kind: Kind, result: SearchResult, after_paint: bool = False) -> None:
        """Start scoring the aspects of ``result``'s query on its hits (edited aspects win).

        The tab is marked as scoring at once (the screen's ``busy``, the "…" cells);
        ``after_paint`` starts the worker after the next screen refresh, so its thread does not
        compete for the interpreter with the frame that paints the new result. A request
        superseded before its worker starts never starts one."""
        tab = self.screen.tab(kind)
        request = tab.new_aspect_request()
        text = result.query.text
        if not text.strip() or not result.hits:
            tab.clear_aspects()
            self.screen.cancel_workers(f"aspects-{kind.value}")
            return
        aspects = tab.aspects_for(text)
        tab.start_scoring(request)
        hits = list(result.hits)

        def start() -> None:
            if request != tab.aspect_request:
                return  # a newer search or edit took over before this one started
            self.screen.run_worker(
                lambda: self._score_in_thread(request, kind, text, aspects, hits),
                group=f"aspects-{kind.value}",
                exclusive=True,
                thread=True,
                exit_on_error=False,
            )

        if after_paint:
            run_after_paint(self.screen, start, tab.table)
        else:
            start()

    def _score_in_thread(
        self, request: int, kind: Kind, text: str, aspects: list[Aspect] | None, hits: list[Hit]
    ) -> None:
        screen, tab = self.screen, self.screen.tab(kind)
        lock = screen.calls.lock
        worker = get_current_worker()

        def cancelled() -> bool:  # a closing app or a newer search: stop within one sentence
            return worker.is_cancelled or request != tab.aspect_request

        try:
            with lock:
                if request != tab.aspect_request:
                    return  # superseded while waiting; the newer request scores
                found = aspects if aspects is not None else screen.service.aspects.decompose(text)
            coverages: list[Coverage] = []
            # a chunk at a time, releasing the lock between chunks: a new search waits for
            # one chunk at most, and a superseded request stops early. Hits whose sentences
            # are not stored get provisional grades from their passage vectors at once...
            for start in range(0, len(hits), ASPECT_CHUNK):
                with lock:
                    if request != tab.aspect_request:
                        return
                    chunk = hits[start : start + ASPECT_CHUNK]
                    coverages += screen.service.aspects.score(
                        found, chunk, provisional=True, cancelled=cancelled
                    )
        except Exception as err:  # shown in the status line; the results stay
            screen.post_message(AspectsScored(request, kind, text, [], [], err))
            return
        todo = [j for j, c in enumerate(coverages) if c.provisional]
        screen.post_message(
            AspectsScored(request, kind, text, found, coverages, refining=bool(todo))
        )
        # ...then their sentences are embedded, best hits first, and the grades replaced
        for start in range(0, len(todo), ASPECT_CHUNK):
            at = todo[start : start + ASPECT_CHUNK]
            try:
                with lock:
                    if request != tab.aspect_request:
                        return
                    refined = screen.service.aspects.score(
                        found, [hits[j] for j in at], cancelled=cancelled
                    )
            except Exception as err:  # the provisional grades stay
                msg = AspectsScored(request, kind, text, [], [], err, refined=True)
                screen.post_message(msg)
                return
            coverages = list(coverages)  # the message posted before keeps its own list
            for j, cov in zip(at, refined, strict=True):
                coverages[j] = cov
            more = start + ASPECT_CHUNK < len(todo)
            screen.post_message(
                AspectsScored(request, kind, text, found, coverages, refining=more, refined=True)
            )

    def aspects_scored(self, msg: AspectsScored) -> None:
        tab = self.screen.tab(msg.kind)
        if msg.request != tab.aspect_request:
            return  # a newer search or edit superseded it
        tab.aspects_scored(
            msg.aspects,
            msg.coverages,
            failed=msg.error is not None,
            refining=msg.refining,
            refined=msg.refined,
        )
        if msg.error is not None:
            self.screen.status.show_error(msg.error, notice=True)
        self.screen.refresh_detail()
        self.screen.refresh_bindings()

    def llm_missing(self) -> bool:
        """True, with the CLI's explanation (the service's own error: what to set, where), when
        no LLM endpoint is configured: an LLM key says why it does nothing."""
        if self.screen.service.glance().llm_configured:
            return False
        missing = self.screen.service.state().llm_missing
        if missing is not None:
            self.screen.post_message(Notice(error=LitsiftError(*missing)))
        return True

    def judge_aspects(self) -> None:
        """Ask the LLM to grade the current aspects on the top results (a worker)."""
        screen = self.screen
        if self.llm_missing():
            return
        tab = screen.tab()
        result, aspects = tab.result, list(tab.aspects)
        if result is None or not result.hits or not aspects:
            screen.status.show_error(
                ("no aspects to judge yet", "wait for the aspect panel"), notice=True
            )
            return
        n = min(len(result.hits), screen.service.config.llm.aspect_judge_top)
        screen.status.show_message(
            f"LLM judging {len(aspects)} aspect(s) on {n} results… (Esc stops)", progress=True
        )
        request, kind = tab.aspect_request, tab.kind
        worker = screen.run_worker(
            lambda: self._judge_in_thread(request, kind, aspects, result),
            group="judge",
            exclusive=True,
            thread=True,
            exit_on_error=False,
        )
        self._llm = ("LLM judge", worker)

    def _judge_in_thread(
        self, request: int, kind: Kind, aspects: list[Aspect], result: SearchResult
    ) -> None:
        screen, tab, worker = self.screen, self.screen.tab(kind), get_current_worker()

        def cancelled() -> bool:  # Esc, a closing screen, or new results / aspects
            return worker.is_cancelled or request != tab.aspect_request

        try:
            done = screen.service.llm.judge_aspects(
                result.query.text, aspects, result.hits, cancelled
            )
        except LLMCancelledError:  # Esc said so already; a newer search or aspects: say so
            if not worker.is_cancelled:
                screen.post_message(Notice(text="LLM judge cancelled: the results changed"))
            return
        except Exception as err:  # LLMNotConfiguredError only; judging never raises LLM errors
            screen.post_message(AspectsJudged(request, kind, {}, "", str(err)))
            return
        s = done.stats
        note = (
            f"LLM judged {len(done.scores)} results · {s.calls} call(s)"
            f"{f' ({s.cached_calls} cached)' if s.cached_calls else ''} · ${s.cost_usd:.4f}"
        )
        grades = dict(done.scores)
        screen.post_message(AspectsJudged(request, kind, grades, note, done.error, done.notes))

    def aspects_judged(self, msg: AspectsJudged) -> None:
        tab = self.screen.tab(msg.kind)
        if msg.request != tab.aspect_request:
            return  # the aspects or the results changed meanwhile
        self._llm = None
        tab.llm_grades = msg.grades
        if msg.error is not None:
            self._say_failed(msg.error, "grades so far are shown")
        else:
            self.screen.status.show_message(
                self._with_warnings(msg.note, msg.warnings), notice=True
            )
        self.screen.refresh_detail()

    def cancel_llm(self) -> bool:
        """Stop the LLM rerank or judge in flight (Esc), saying so; False when none runs.
        Its worker's check turns true, so the request is closed within a tenth of a second."""
        if self._llm is None or self._llm[1].is_finished:
            self._llm = None
            return False
        what, worker = self._llm
        self._llm = None
        worker.cancel()
        if what == "LLM rerank":
            self.reordering = None
        kept = "the original order is kept" if what == "LLM rerank" else "no grades changed"
        self.screen.status.show_message(f"{what} cancelled: {kept}", notice=True)
        self.screen.app.notify(f"{what} cancelled ({kept})", title="LLM", markup=False)
        return True

    def _with_warnings(self, said: str, warnings: tuple[str, ...]) -> str:
        """``said`` with how many notes there are; the notes in a toast (cut replies)."""
        if not warnings:
            return said
        text = for_terminal("; ".join(warnings), keep_newlines=False)
        self.screen.app.notify(text, title="LLM", severity="warning", markup=False, timeout=10)
        return f"{said} · {len(warnings)} note(s)"

    def edit_aspects(self) -> None:
        tab = self.screen.tab()
        result = tab.result
        if result is None or not result.query.text.strip():
            return
        text = result.query.text

        def rescore(lines: list[str] | None) -> None:
            if lines is None:
                return
            # no line left: the query's own aspects again (an empty set graded every row 0.0
            # and disabled `a`, so they could not come back for this query); a repeated line
            # counts once (twice, it weighed double in the coverage)
            firsts: dict[str, str] = {}
            for line in lines:
                firsts.setdefault(line.casefold(), line)
            unique = list(firsts.values())
            if not unique:
                tab.edited_aspects = None
                said = "no aspects left: the query's own aspects are scored again"
            else:
                tab.edited_aspects = (text, [Aspect(line) for line in unique])
                said = f"{len(lines) - len(unique)} repeated aspect(s) count once"
            if len(unique) < len(lines) or not unique:
                self.screen.status.show_message(said, notice=True)
            current = tab.result
            if current is not None:
                self.score_aspects(tab.kind, current)

        current = [a.text for a in tab.aspects]
        self.screen.app.push_screen(AspectEditScreen(text, current), rescore)

    def toggle_coverage_order(self) -> None:
        self.by_coverage = not self.by_coverage
        for kind in Kind:
            self.screen.table(kind).set_view(by_coverage=self.by_coverage)
        self.screen.refresh_detail()
        self.screen.show_modes()

    # -- more like this --------------------------------------------------------------------
    def toggle_more_like_this(self) -> None:
        self.more_like_this = not self.more_like_this
        tab = self.screen.tab()
        base = tab.base
        if base is not None and base.hits:
            if self.more_like_this:
                self.rerun_feedback()
            else:
                tab.reorder(base, reranked="")
        self.screen.show_modes()

    def rerun_feedback(self) -> None:
        """Rerank the current kind's fused result toward the labels (in a worker)."""
        base = self.screen.tab().base
        if base is None or not base.hits:
            return
        request_id = self.reordering = self.screen.request_id
        self.screen.run_worker(
            lambda: self._feedback_in_thread(request_id, base),
            group="reorder",
            exclusive=True,
            thread=True,
            exit_on_error=False,
        )

    def _feedback_in_thread(self, request_id: int, base: SearchResult) -> None:
        screen, kind, source = self.screen, base.query.kind, Reorder.MORE_LIKE_THIS
        try:
            with screen.calls.lock:
                result = screen.service.more_like_this(base)
        except Exception as err:  # QueryError (no labels yet) carries the hint
            screen.post_message(Reordered(request_id, kind, None, source, error=err))
            return
        screen.post_message(Reordered(request_id, kind, result, source))

    # -- LLM -------------------------------------------------------------------------------
    def llm_rerank(self) -> None:
        if self.llm_missing():
            return
        result = self.screen.tab().result
        if result is None or not result.hits:
            return
        request_id = self.reordering = self.screen.request_id
        self.screen.status.show_message(
            f"LLM reranking {len(result.hits)} results… (Esc stops)", progress=True
        )
        worker = self.screen.run_worker(
            lambda: self._rerank_in_thread(request_id, result),
            group="reorder",
            exclusive=True,
            thread=True,
            exit_on_error=False,
        )
        self._llm = ("LLM rerank", worker)

    def _rerank_in_thread(self, request_id: int, result: SearchResult) -> None:
        screen, kind, source = self.screen, result.query.kind, Reorder.LLM_RERANK
        worker = get_current_worker()

        def cancelled() -> bool:  # Esc, a closing screen, or a newer search
            return worker.is_cancelled or request_id != screen.request_id

        try:
            done = screen.service.llm.rerank(result.query.text, result.hits, cancelled)
        except LLMCancelledError:  # Esc said so already; a newer search or aspects: say so
            if not worker.is_cancelled:
                screen.post_message(Notice(text="LLM rerank cancelled: a newer search came in"))
            return
        except Exception as err:  # LLMNotConfiguredError only; rerank never raises LLM errors
            screen.post_message(Reordered(request_id, kind, None, source, error=err))
            return
        report = done.report
        if report.error is not None:
            screen.post_message(Reordered(request_id, kind, None, source, report.error))
            return
        s = report.stats
        note = (
            f"LLM reranked {report.reranked} results · {s.calls} call(s)"
            f"{' (cached)' if report.cached else ''} · ${s.cost_usd:.4f}"
        )
        new = replace(result, hits=tuple(done.hits))
        screen.post_message(Reordered(request_id, kind, new, source, note, None, report.notes))

    def _say_failed(self, error: str, kept: str) -> None:
        """An LLM call failed: the status line says so (cut to its width), and a toast says it
        whole, the error's hint included (the endpoint to check), as the answer screen does."""
        self.screen.status.show_error((error, kept), notice=True)
        said = for_terminal(f"{error} ({kept})", keep_newlines=False)
        self.screen.app.notify(said, title="LLM", severity="error", markup=False, timeout=10)

    def reordered(self, msg: Reordered) -> None:
        screen = self.screen
        if msg.request_id != screen.request_id:
            return  # a newer search replaced the result
        self.reordering = None
        if msg.source is Reorder.LLM_RERANK:
            self._llm = None
        if msg.error is not None:
            if msg.source is Reorder.MORE_LIKE_THIS:
                self.more_like_this = False
            screen.status.show_error(msg.error, notice=True)
        elif msg.result is None:
            self._say_failed(msg.note, "the original order is kept")
        else:
            reranked = "LLM reranked" if msg.source is Reorder.LLM_RERANK else None
            screen.tab(msg.kind).reorder(msg.result, reranked)
            said = msg.note or f"{msg.source}: {len(msg.result.hits)} results"
            # a reply cut at the output limit is used only as far as it goes
            screen.status.show_message(self._with_warnings(said, msg.warnings), notice=True)
        screen.refresh_detail()
        screen.show_modes()

    def answer(self) -> None:
        screen = self.screen
        if self.llm_missing():
            return
        result = screen.tab().result
        if result is None or not result.hits:
            return

        def opened(hit: Hit | None) -> None:
            if hit is None:
                return
            table = screen.table()
            rows = [h.docid for h in table.hits]
            if hit.docid in rows:
                table.move_cursor(row=rows.index(hit.docid), animate=False)
                screen.detail.show_hit(hit, screen.tab().extras(hit))
            else:
                screen.detail.show_hit(hit)
            screen.open_detail()

        screen.app.push_screen(AnswerScreen(screen.service, result.query.text, result.hits), opened)
