"""Research-question keys of the search screen: extract a paper's problem and method, and
search for papers with the same problem (other methods) or the same method (other problems).

``R`` extracts for the highlighted paper and the kept papers of the results -- with the LLM when
an endpoint is configured, offline otherwise -- in the screen's job queue (never on the UI
thread), then searches again so the rows carry the new fields. ``P`` / ``M`` put
``problem: …`` / ``method: …`` with the highlighted paper's field in the query bar: the service
then ranks papers by that field (BM25, :mod:`litsift.rq.search`).
"""

from __future__ import annotations

from textual.message import Message

from litsift.tui.messages import Notice, RQExtracted
from litsift.tui.screens.host import ResultsHost
from litsift.types import Label, Paper

__all__ = ["RQCommands"]


class RQCommands:
    """``R``, ``P`` and ``M`` of ``screen`` (see the module docstring).

    Args:
        screen: the screen whose results it reads and whose query bar it sets
            (:class:`~litsift.tui.screens.host.ResultsHost`).
    """

    def __init__(self, screen: ResultsHost) -> None:
        self.screen = screen

    def _paper(self) -> Paper | None:
        hit = self.screen.table().highlighted_hit
        if hit is None or not isinstance(hit.record, Paper):
            self.screen.status.show_error(
                ("select a paper first", "research questions are papers' problem and method"),
                notice=True,
            )
            return None
        return hit.record

    def extract(self) -> None:
        """Extract the problem and method of the highlighted paper and the kept results."""
        paper = self._paper()
        if paper is None:
            return
        screen = self.screen
        table = screen.table()
        kept = [h.docid for h in table.hits if table.info(h).annotation.label is Label.KEEP]
        ids = list(dict.fromkeys([paper.id, *kept]))
        use_llm = screen.service.glance().llm_configured
        how = "with the LLM" if use_llm else "offline"
        screen.status.show_message(
            f"extracting research questions of {len(ids)} paper(s) {how}…", progress=True
        )
        service = screen.service

        def job() -> Message:
            try:
                report = service.extract_rq(use_llm=use_llm, doc_ids=ids, replace=True)
            except Exception as err:  # LLM not reachable, budget, store busy: reported
                return Notice(error=err)
            return RQExtracted(report.summary())

        screen.calls.run_job(job)

    def same(self, field: str) -> None:
        """Search papers whose ``field`` ("problem" or "method") matches the highlighted one."""
        paper = self._paper()
        if paper is None:
            return
        text = paper.problem if field == "problem" else paper.method
        if not text.strip():
            self.screen.status.show_error(
                (f"this paper has no {field} yet", "press R to extract its research question"),
                notice=True,
            )
            return
        self.screen.query_bar.set_query(f"{field}: {text}", self.screen.years)
