"""One tab of the main screen (Papers or Datasets): its results table and the state of its
results, held per kind in this widget instance.

A tab knows which query its table shows, the fused result before any reordering (the base of
"more like this"), whether the LLM reranked it, and the aspect state of its result: the aspects
scored last, the user's edited aspects for one query text, the id of the latest aspect request
and the LLM's 0/1/2 grades. The screen drives it (attributes down); the table posts
:class:`~litsift.tui.messages.ResultHighlighted` upwards.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static, Tab, TabbedContent, TabPane

from litsift.tui.widgets.detail_pane import Extras
from litsift.tui.widgets.footer import key_of
from litsift.tui.widgets.results_table import ResultsTable
from litsift.tui.widgets.safe_text import Part
from litsift.tui.widgets.status_line import years_label
from litsift.types import Annotation, Aspect, Coverage, Hit, Kind, SearchResult, YearRange

PANE_ID = {Kind.PAPER: "papers", Kind.DATASET: "datasets"}
TAB_LABEL = {Kind.PAPER: "Papers", Kind.DATASET: "Datasets"}

#: ``service.aspects.order``: hits sorted by their coverage
CoverageSort = Callable[[list[Hit], list[Coverage]], list[Hit]]


def relabel(tab: Tab, label: str) -> None:
    """Set ``tab``'s label as a repaint: the kind tabs have a fixed width (``litsift.tcss``),
    so a new count ("Papers" -> "Papers (50)") moves nothing. ``Tab.label`` would ask for a
    layout pass of the screen (and a full repaint) in the frame that paints the new rows, and
    move the underline (``Tab.Relabelled``) that stays where it is."""
    tab._label = Content.from_text(label)  # what Tab.label sets, without Tab.update
    Static.update(tab, tab._label, layout=False)


class KindTab(TabPane):
    """The results of one kind and everything known about them.

    Args:
        kind: papers or datasets.
        coverage_sort: how the table orders hits by coverage (``service.aspects.order``).
    """

    def __init__(self, kind: Kind, coverage_sort: CoverageSort) -> None:
        super().__init__(TAB_LABEL[kind], id=PANE_ID[kind])
        self.kind = kind
        self.coverage_sort = coverage_sort
        #: (query text, years) the table shows; None: search on the next request
        self.shown: tuple[str, YearRange] | None = None
        #: the fused result of the last search (before "more like this" or an LLM rerank)
        self.base: SearchResult | None = None
        #: a status-line mode naming a reordering the base result went through ("" if none)
        self.reranked = ""
        #: the aspects scored last
        self.aspects: list[Aspect] = []
        #: aspects the user edited, for one query text
        self.edited_aspects: tuple[str, list[Aspect]] | None = None
        #: id of the latest aspect request; a scoring or judging result of another is stale
        self.aspect_request = 0
        #: the aspect request being scored, or None
        self.scoring: int | None = None
        #: the LLM's 0/1/2 grade per doc id and aspect, for the current aspects
        self.llm_grades: dict[str, tuple[int | None, ...]] = {}

    def compose(self) -> ComposeResult:
        table = ResultsTable(self.kind, id=f"{PANE_ID[self.kind]}-table")
        table.coverage_sort = self.coverage_sort
        yield table

    @property
    def table(self) -> ResultsTable:
        return self.query_one(ResultsTable)

    @property
    def result(self) -> SearchResult | None:
        """The result the table shows (in its current order)."""
        return self.table.result

    # -- results ---------------------------------------------------------------------------
    def show_result(
        self, result: SearchResult, annotations: dict[str, Annotation], scoring: bool = False
    ) -> None:
        """Show a new result (the tab title counts its hits when there is a query);
        ``scoring``: its aspect scoring is about to start (the rows are drawn once, with it).

        The title is set only when its text changes, and without a layout pass
        (:func:`relabel`)."""
        self.reranked = ""
        self.shown = (result.query.text, result.query.years)
        self.table.show_result(result, annotations, scoring=scoring)
        self.retitle()

    def retitle(self, stale: bool = False) -> None:
        """The tab title counts the hits of a query, and with a label filter the rows it
        shows of them ("Papers (2 of 50)": it read "Papers (50)" over 2 kept rows);
        ``stale``: the query or years changed and this tab was not searched again yet (it
        kept the old count: "Datasets (50)" where the new years leave none)."""
        result, title = self.table.result, TAB_LABEL[self.kind]
        if not stale and result is not None and result.query.text.strip():
            shown, total = len(self.table.hits), len(result.hits)
            title += f" ({total})" if shown == total else f" ({shown} of {total})"
        tabs = next(a for a in self.ancestors if isinstance(a, TabbedContent))
        tab = tabs.get_tab(self)
        if tab.label.plain != title:
            relabel(tab, title)

    def reorder(self, result: SearchResult, reranked: str | None = None) -> None:
        """Show the same hits in a new order; ``reranked`` names the reordering ("": back to
        the base order, None: keep the name shown)."""
        if reranked is not None:
            self.reranked = reranked
        self.table.reorder(result)

    @property
    def aspects_shown(self) -> bool:
        """Whether aspect coverage is worth a column and a panel: the query has more than one
        aspect, the user edited the aspects of the query shown, or orders by coverage. With a
        single aspect every row would show the same coverage."""
        query = self.result.query.text if self.result is not None else None
        edited = self.edited_aspects is not None and self.edited_aspects[0] == query
        return len(self.aspects) > 1 or edited or self.table.by_coverage

    def extras(self, hit: Hit | None) -> Extras:
        """Triage state and aspect coverage of ``hit`` for the detail pane (the aspects only
        when :attr:`aspects_shown`)."""
        if hit is None:
            return Extras(empty=self.no_results())
        shown = self.aspects_shown
        result = self.result
        return Extras(
            annotation=self.table.info(hit).annotation,
            aspects=tuple(self.aspects) if shown else (),
            coverage=self.table.coverages.get(hit.docid) if shown else None,
            scoring=self.scoring is not None and shown,
            llm_grades=self.llm_grades.get(hit.docid),
            query=result.query.text if result is not None else "",
            signals_used=result.signals_used if result is not None else (),
            partial=(result.partial or "") if result is not None else "",
            max_year=result.query.years.end if result is not None else None,
        )

    def no_results(self) -> tuple[Part, ...]:
        """What the detail pane says under a query that found nothing: the query, the kind and
        years searched (the status line's "0 results · papers · ≥2030") and what to try, with
        the keys as bound; () when there are results or no query."""
        result = self.result
        if result is None or result.hits or not result.query.text.strip():
            return ()
        query, other = result.query, Kind.DATASET if self.kind is Kind.PAPER else Kind.PAPER
        dated = (query.years.start, query.years.end) != (None, None)
        years = f", {years_label(query.years)}" if dated else ""
        tries = ["fewer or other words"]
        if years:
            clear = key_of(self, "clear_years")
            tries.append("another year range" + (f" ({clear} clears the years)" if clear else ""))
        if toggle := key_of(self, "toggle_kind"):
            tries.append(f"{toggle} the {TAB_LABEL[other]} tab")
        return (
            ("No results for “", "bold"),
            (" ".join(query.text.split()), "bold"),
            (f"” in {query.kind.table}{years}.", "bold"),
            "\n\nTry:\n",
            *(f"  · {t}\n" for t in tries),
        )

    # -- aspects ---------------------------------------------------------------------------
    def aspects_for(self, text: str) -> list[Aspect] | None:
        """The user's edited aspects of ``text``, or None (decompose it)."""
        edited = self.edited_aspects
        return edited[1] if edited is not None and edited[0] == text else None

    def new_aspect_request(self) -> int:
        """Supersede every earlier aspect request; returns the new one's id."""
        self.aspect_request += 1
        return self.aspect_request

    def start_scoring(self, request: int) -> None:
        """Mark ``request`` as being scored (the table shows "…" where coverage is shown)."""
        self.scoring = request
        self.table.set_coverage(None, scoring=True)

    def clear_aspects(self) -> None:
        """No query or no hits: nothing to score."""
        self.scoring = None
        self.aspects = []
        self.table.set_coverage(None, show=self.aspects_shown)

    def aspects_scored(
        self,
        aspects: list[Aspect],
        coverages: list[Coverage],
        failed: bool = False,
        refining: bool = False,
        refined: bool = False,
    ) -> None:
        """Show the coverage of a scoring (``failed``: clear it); the LLM's grades are reset.

        ``refining``: provisional coverages whose sentence grades follow (the tab stays
        scoring); ``refined``: they replace provisional ones of the same aspects (an LLM
        judgement of them stays; a failed refinement keeps the provisional ones)."""
        self.scoring = self.scoring if refining else None
        if failed and refined:  # the provisional coverages stay
            self.table.set_coverage(dict(self.table.coverages), show=self.aspects_shown)
            return
        if failed:
            self.table.set_coverage(None)
        else:
            self.aspects = list(aspects)
            self.table.set_coverage(
                {c.doc_id: c for c in coverages}, scoring=refining, show=self.aspects_shown
            )
        if not refined:
            self.llm_grades = {}  # judged against the previous aspects
