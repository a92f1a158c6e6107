"""The detail pane: everything about the highlighted hit, as plain text.

Beside the record it shows the hit's triage state (label, note, tags, collections), for a paper
linked by citations to the papers the user kept "linked to k of your kept papers" with a few of
their titles (read from the store by the pane's own worker, :attr:`DetailPane.reads`, and
kept per paper until a label changes), for a dataset the papers that name it
(:mod:`~litsift.tui.widgets.dataset_users`, read the same way), and, once the aspect worker
has run, each query aspect with its 0/1/2 grade (○ ◐ ●) and the evidence sentence
highlighted in the abstract or description (a style on a span, never markup).

Abstracts, descriptions and (later) LLM-written fields are user data: they are assembled into a
:class:`textual.content.Content` from plain strings, so ``[bold]`` in an abstract shows as the
seven characters ``[bold]`` and is never read as markup. Every part passes through
:mod:`litsift.tui.widgets.safe_text` (:func:`litsift.text.for_terminal`): escape sequences in
the data are removed and control characters shown as visible symbols.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from litsift.errors import LitsiftError
from litsift.text import for_terminal
from litsift.text.markdown import readable
from litsift.tui.messages import KeptLinksLoaded
from litsift.tui.widgets.dataset_users import TrailReads, UsersReader, users_parts
from litsift.tui.widgets.safe_text import Part, safe_content
from litsift.tui.widgets.text_inputs import InOrderScroll
from litsift.types import Annotation, Aspect, Coverage, Dataset, Hit, Kind, Paper
from litsift.types.citations import DatasetUsers, KeptLinks, Neighbour

#: order in which retriever signals are listed
SIGNALS = ("bm25", "dense")

#: glyph of each DORIS-MAE grade: 0 unrelated, 1 partly, 2 fully addresses the aspect
GRADE_GLYPH = ("○", "◐", "●")
_GRADE_STYLE = ("$text-muted", "$warning", "$success")
#: style of evidence sentences in the abstract
EVIDENCE_STYLE = "underline $accent"
#: the query's words in a full-text passage
QUERY_WORD_STYLE = "bold $warning"


@dataclass(frozen=True)
class Extras:
    """What the detail shows beside the record: triage state and aspect coverage."""

    annotation: Annotation = field(default_factory=Annotation)
    aspects: Sequence[Aspect] = ()
    coverage: Coverage | None = None
    scoring: bool = False
    #: the LLM judge's grade per aspect (None: not judged), when asked for (key ``J``)
    llm_grades: tuple[int | None, ...] | None = None
    #: the query's text, for highlighting its words in a matching full-text passage
    query: str = ""
    #: how the paper is linked to the kept papers (read by a worker; None: not read yet)
    kept_links: KeptLinks | None = None
    #: the retrievers that ran for the result (``SearchResult.signals_used``; () unknown)
    signals_used: tuple[str, ...] = ()
    #: why the result is not the full hybrid (``SearchResult.partial``), or ""
    partial: str = ""
    #: with no hit: why there is none and what to try (``KindTab.extras``); (): the first hint
    empty: Sequence[Part] = ()
    #: the query's year bound (a dataset's users are counted up to it)
    max_year: int | None = None
    #: the papers naming a dataset (read by a worker; None: not read yet)
    users: DatasetUsers | None = None


EMPTY = "—"


def _field(label: str, value: str) -> Iterator[Part]:
    yield (f"{label}: ", "bold $text-muted")
    yield value if value else (EMPTY, "$text-muted")
    yield "\n"


def _heading(title: str) -> Iterator[Part]:
    yield "\n"
    yield (title, "bold $accent")
    yield "\n"


def _scores(hit: Hit, extras: Extras) -> Iterator[Part]:
    yield from _heading("Scores")
    # a dataset pool re-ranked by litsift.search.dataset_ranker keeps its fused score as the
    # "hybrid" signal; the hit's own score is then the ranker's
    yield ("  ranker " if "hybrid" in hit.signals else "  fused  ", "bold")
    yield f"{hit.score:10.4f}   rank {hit.rank}\n"
    for name in SIGNALS:
        yield (f"  {name:<5}  ", "bold")
        sig = hit.signals.get(name)
        if sig is None and extras.signals_used and name not in extras.signals_used:
            why = extras.partial or "not available for this search"
            yield (f"         —   did not run ({why})\n", "$text-muted")
        elif sig is None:
            yield ("         —   not among this retriever's candidates\n", "$text-muted")
        else:
            yield f"{sig.score:10.4f}   rank {sig.rank}\n"
    for name, sig in hit.signals.items():  # any further signal (e.g. an LLM rerank)
        if name == "popularity":  # litsift.search.popularity: a count, not a score
            yield ("  papers ", "bold")
            yield f"{int(sig.score):10d}   name it (rank {sig.rank} among the candidates)\n"
        elif name == "kept":  # litsift.search.retrieval.citation_stage: a link count, not a score
            yield ("  kept   ", "bold")
            n = int(sig.score)
            yield f"{n:10d}   linked to {n} kept paper{'s' if n != 1 else ''} (rank {sig.rank})\n"
        elif name not in SIGNALS:
            yield (f"  {name:<5}  ", "bold")
            yield f"{sig.score:10.4f}   rank {sig.rank}\n"


def _triage(ann: Annotation) -> Iterator[Part]:
    if ann.label is None and not (ann.note or ann.tags or ann.collections):
        return
    yield from _heading("Triage")
    yield from _field("Label", ann.label.value if ann.label else "")
    if ann.tags:
        yield from _field("Tags", ", ".join(ann.tags))
    if ann.collections:
        yield from _field("Collections", ", ".join(ann.collections))
    if ann.note:
        yield from _field("Note", ann.note)


#: kept papers named per direction under "Citation links" (the citations screen, C, has all)
FEW_LINKS = 3


def _link_line(direction: str, n: Neighbour) -> Iterator[Part]:
    yield (f"  {direction:<8} ", "$text-muted")
    yield " ".join(n.display_title.split())  # one line, whatever the title holds
    if n.year:
        yield (f" ({n.year})", "$text-muted")
    yield "\n"


def _kept_links(links: KeptLinks | None) -> Iterator[Part]:
    """The "linked to k of your kept papers" lines: only when k > 0, with a few titles."""
    if links is None or not links.linked:
        return
    yield from _heading("Citation links")
    yield ("  " + links.why() + "\n", "$success")
    for direction, items in (("cites", links.cites), ("cited by", links.cited_by)):
        for n in items[:FEW_LINKS]:
            yield from _link_line(direction, n)
        if len(items) > FEW_LINKS:
            yield (f"  … {len(items) - FEW_LINKS} more {direction} (C: citations)\n", "$text-muted")


def _aspects(extras: Extras) -> Iterator[Part]:
    if not extras.aspects and not extras.scoring:
        return
    cov = extras.coverage
    title = "Aspects" if cov is None else f"Aspects — coverage {cov.normalised:.2f} / 2"
    if cov is not None and cov.provisional:
        title += " (provisional: its sentences are being graded)"
    yield from _heading(title)
    if cov is None:
        yield ("  scoring aspects…\n" if extras.scoring else "  not scored\n", "$text-muted")
        return
    llm = extras.llm_grades
    if llm is not None:
        yield ("  offline · LLM judge\n", "$text-muted")
    for score in cov.scores:
        if score.aspect_index >= len(extras.aspects):
            continue
        g = max(0, min(2, score.grade))
        yield (f"  {GRADE_GLYPH[g]} ", f"bold {_GRADE_STYLE[g]}")
        if llm is not None:
            lg = llm[score.aspect_index] if score.aspect_index < len(llm) else None
            if lg is None:
                yield ("? ", "$text-muted")
            else:
                yield (f"{GRADE_GLYPH[lg]} ", f"bold {_GRADE_STYLE[lg]}")
        yield extras.aspects[score.aspect_index].text
        yield "\n"
        if score.evidence_text and g:
            yield ("      “", "$text-muted")
            yield (score.evidence_text, "italic $text-muted")
            yield ("”\n", "$text-muted")


def _body(
    text: str, empty: str, coverage: Coverage | None, clean: Callable[[str], str] = str
) -> Part:
    """The abstract/description with the evidence sentences of graded aspects underlined.

    Sanitised here (text and evidence alike, each through ``clean`` first: a dataset's
    markdown), as the evidence offsets are found in what is shown.
    """
    if not text.strip():
        return (empty, "$text-muted")
    text = for_terminal(clean(text))
    content = Content(text)
    if coverage is not None:
        for score in coverage.scores:
            if score.grade and score.evidence_text:
                evidence = for_terminal(clean(score.evidence_text))
                at = text.find(evidence)
                if at >= 0:
                    content = content.stylize(EVIDENCE_STYLE, at, at + len(evidence))
    return content


_WORD = re.compile(r"\w+")


def _passage(hit: Hit, extras: Extras) -> Iterator[Part]:
    """The best full-text passage of a full-text search: the query's words in bold, aspect
    evidence sentences found in it underlined."""
    p = hit.passage
    assert p is not None
    yield from _heading(f"Matching passage — {p.where} (passage {p.idx + 1}, {p.source})")
    text = for_terminal(p.text)
    words = {w.lower() for w in _WORD.findall(extras.query) if len(w) > 2}
    content = Content(text)
    for m in _WORD.finditer(text):
        if m.group(0).lower() in words:
            content = content.stylize(QUERY_WORD_STYLE, m.start(), m.end())
    if extras.coverage is not None:
        for score in extras.coverage.scores:
            evidence = for_terminal(score.evidence_text) if score.grade else ""
            at = text.find(evidence) if evidence else -1
            if at >= 0:
                content = content.stylize(EVIDENCE_STYLE, at, at + len(evidence))
    yield content
    yield "\n"


def _paper(hit: Hit, paper: Paper, extras: Extras) -> Iterator[Part]:
    yield (paper.title or EMPTY, "bold")
    yield "\n"
    meta = " · ".join(x for x in (str(paper.year or ""), paper.venue, paper.status) if x)
    yield (meta or "no year or venue", "$text-muted")
    yield "\n\n"
    editors = extras.annotation.editors
    if paper.authors or not editors:
        yield from _field("Authors", ", ".join(paper.authors))
    if editors:  # an edited book's in place of authors, a chapter's book's beside them
        yield from _field(
            "Editors", f"{', '.join(editors)} ({'eds' if len(editors) > 1 else 'ed'}.)"
        )
    yield from _field("Venue", paper.venue)
    yield from _field("URL", paper.url)
    yield from _field("ID", paper.id)
    yield from _triage(extras.annotation)
    yield from _kept_links(extras.kept_links)
    yield from _aspects(extras)
    if hit.passage is not None:
        yield from _passage(hit, extras)
    yield from _scores(hit, extras)
    source = extras.annotation.rq_source
    yield from _heading(f"Research question ({source})" if source else "Research question")
    yield from _field("Problem", paper.problem)
    yield from _field("Method", paper.method)
    yield from _heading("Abstract")
    yield _body(paper.abstract, "no abstract", extras.coverage)


def _dataset(hit: Hit, ds: Dataset, extras: Extras) -> Iterator[Part]:
    yield (ds.name, "bold")
    yield "\n"
    meta = " · ".join(x for x in (str(ds.year or ""), ds.date) if x)
    yield (meta or "no year", "$text-muted")
    yield "\n\n"
    yield from _field("Aliases", ", ".join(ds.other_names))
    yield from _field("Introduced in", ds.intro_paper_title)
    yield from _field("URL", ds.url)
    yield from users_parts(extras.users)
    yield from _triage(extras.annotation)
    yield from _aspects(extras)
    yield from _scores(hit, extras)
    yield from _heading("Description")
    yield _body(ds.description, "no description", extras.coverage, readable)


def render_hit(hit: Hit | None, extras: Extras | None = None) -> Content:
    """The detail text of ``hit`` (or a hint when nothing is highlighted); never markup-parsed."""
    ex = extras or Extras()
    if hit is None and ex.empty:
        return safe_content(ex.empty)
    if hit is None:
        return Content.assemble(("Nothing selected. Type a query; ↑/↓ or j/k move.", "$text-muted"))
    rec = hit.record
    parts = _paper(hit, rec, ex) if isinstance(rec, Paper) else _dataset(hit, rec, ex)
    return safe_content(parts)


class DetailPane(UsersReader, InOrderScroll):
    """Scrollable detail of one hit; focus it (Enter in the table) to scroll with the keys.
    Its keys run in typing order (:class:`InOrderScroll`): ``/`` and a query typed right
    behind Esc went to the detail's queue, and the query's letters ran as its keys.

    Args:
        reads: how a paper's links to the kept papers and a dataset's users are read (under
            the service lock); None: neither is shown.
    """

    #: where the key footer says the focus is
    focus_label = "detail"

    def __init__(self, *, id: str | None = None, reads: TrailReads | None = None) -> None:
        super().__init__(id=id)
        self.hit: Hit | None = None
        self.extras = Extras()
        self.reads = reads
        self.init_users()
        #: the links read so far, per paper id (forgotten when a label changes)
        self.kept_links: dict[str, KeptLinks] = {}
        #: the paper whose links a worker is reading, or None
        self.reading: str | None = None
        self._generation = 0
        #: whether :meth:`show_hit` drew anything yet (the body starts with the hint)
        self._drawn = False

    def compose(self) -> ComposeResult:
        yield Static(render_hit(None), id="detail-body", markup=False)

    def show_hit(self, hit: Hit | None, extras: Extras | None = None) -> None:
        """Show ``hit`` and scroll back to its top when it is another record (the same record
        keeps its position). The same hit with the same extras is not drawn again: a new result
        highlights its first row twice (the table's cursor, then the screen's message)."""
        extras = extras or Extras()
        if hit is not None and extras.kept_links is None:
            extras = replace(extras, kept_links=self.kept_links.get(hit.docid))
        if hit is not None and hit.kind is Kind.DATASET and extras.users is None:
            extras = replace(extras, users=self.users_of(hit, extras.query, extras.max_year))
        if self._drawn and hit == self.hit and extras == self.extras:
            return
        same = hit is not None and self.hit is not None and hit.docid == self.hit.docid
        self.hit = hit
        self.extras = extras
        self._drawn = True
        self.query_one("#detail-body", Static).update(render_hit(hit, self.extras))
        if not same:
            self.scroll_home(animate=False)
        self._read_links(hit)

    # -- links to the kept papers ----------------------------------------------------------
    def forget_links(self) -> None:
        """A label changed (the kept set may have): read every paper's links again."""
        self._generation += 1
        self.kept_links.clear()
        self.reading = None

    def _read_links(self, hit: Hit | None) -> None:
        reads = self.reads
        if reads is None or hit is None or hit.kind is not Kind.PAPER:
            return
        if hit.docid in self.kept_links or hit.docid == self.reading:
            return
        doc_id = self.reading = hit.docid
        generation = self._generation

        def work() -> None:
            try:
                msg = KeptLinksLoaded(reads.kept_links(doc_id), generation=generation)
            except Exception as err:  # reported, never a crash
                msg = KeptLinksLoaded(KeptLinks(doc_id), err, generation)
            self.post_message(msg)

        self.run_worker(work, group="kept-links", thread=True, exit_on_error=False)

    @on(KeptLinksLoaded)
    def _links_read(self, msg: KeptLinksLoaded) -> None:
        msg.stop()
        if msg.generation != self._generation:
            return  # read before a label changed: a newer read follows
        doc_id = msg.links.doc_id
        if doc_id == self.reading:
            self.reading = None
        self.kept_links[doc_id] = msg.links  # an error: not read again for this paper
        if msg.error is not None:
            err = msg.error
            text = f"{err.message} — {err.hint}" if isinstance(err, LitsiftError) else str(err)
            self.notify(text, title="Citation links not read", severity="error", markup=False)
        elif self.hit is not None and self.hit.docid == doc_id:
            shown = self.extras.kept_links
            if msg.links.linked or (shown is not None and shown.linked):
                self.show_hit(self.hit, replace(self.extras, kept_links=msg.links))
            else:  # linked to none: nothing to draw (the pane shows no section for it)
                self.extras = replace(self.extras, kept_links=msg.links)

    def users_read(self, users: DatasetUsers) -> None:
        hit, ex = self.hit, self.extras
        if hit is not None and (hit.docid, ex.query, ex.max_year) == (
            users.doc_id,
            users.query,
            users.max_year,
        ):
            self.show_hit(hit, replace(ex, users=users))

    @property
    def busy(self) -> bool:
        """True while a worker reads a paper's kept links or a dataset's users."""
        return self.reading is not None or self.reading_users is not None

    @property
    def content(self) -> Content:
        """The content shown, with its styles (for tests)."""
        return render_hit(self.hit, self.extras)

    @property
    def text(self) -> str:
        """The plain text shown (for tests and copying)."""
        return self.content.plain
