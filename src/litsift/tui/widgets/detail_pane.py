"""The detail pane: everything about the highlighted hit, as plain text.

Abstracts, descriptions and (later) LLM-written fields are user data: they are assembled into a
:class:`textual.content.Content` from plain strings, so ``[bold]`` in an abstract shows as the
seven characters ``[bold]`` and is never read as markup.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from litsift.types import Dataset, Hit, Paper

#: order in which retriever signals are listed
SIGNALS = ("bm25", "dense")

Part = str | tuple[str, str]

EMPTY = "—"


def _field(label: str, value: str) -> Iterator[Part]:
    yield (f"{label}: ", "bold $text-muted")
    yield value if value else (EMPTY, "$text-muted")
    yield "\n"


def _heading(title: str) -> Iterator[Part]:
    yield "\n"
    yield (title, "bold $accent")
    yield "\n"


def _scores(hit: Hit) -> Iterator[Part]:
    yield from _heading("Scores")
    yield ("  fused  ", "bold")
    yield f"{hit.score:10.4f}   rank {hit.rank}\n"
    for name in SIGNALS:
        yield (f"  {name:<5}  ", "bold")
        sig = hit.signals.get(name)
        if sig is None:
            yield ("         —   not among this retriever's candidates\n", "$text-muted")
        else:
            yield f"{sig.score:10.4f}   rank {sig.rank}\n"
    for name, sig in hit.signals.items():  # any further signal (e.g. an LLM rerank)
        if name not in SIGNALS:
            yield (f"  {name:<5}  ", "bold")
            yield f"{sig.score:10.4f}   rank {sig.rank}\n"


def _paper(hit: Hit, paper: Paper) -> Iterator[Part]:
    yield (paper.title or EMPTY, "bold")
    yield "\n"
    meta = " · ".join(x for x in (str(paper.year or ""), paper.venue, paper.status) if x)
    yield (meta or "no year or venue", "$text-muted")
    yield "\n\n"
    yield from _field("Authors", ", ".join(paper.authors))
    yield from _field("Venue", paper.venue)
    yield from _field("URL", paper.url)
    yield from _field("ID", paper.id)
    yield from _scores(hit)
    yield from _heading("Research question")
    yield from _field("Problem", paper.problem)
    yield from _field("Method", paper.method)
    yield from _heading("Abstract")
    yield paper.abstract if paper.abstract else ("no abstract", "$text-muted")


def _dataset(hit: Hit, ds: Dataset) -> Iterator[Part]:
    yield (ds.name, "bold")
    yield "\n"
    meta = " · ".join(x for x in (str(ds.year or ""), ds.date) if x)
    yield (meta or "no year", "$text-muted")
    yield "\n\n"
    yield from _field("Aliases", ", ".join(ds.variants))
    yield from _field("Introduced in", ds.intro_paper_title)
    yield from _field("URL", ds.url)
    yield from _scores(hit)
    yield from _heading("Description")
    yield ds.description if ds.description else ("no description", "$text-muted")


def render_hit(hit: Hit | None) -> Content:
    """The detail text of ``hit`` (or a hint when nothing is highlighted); never markup-parsed."""
    if hit is None:
        return Content.assemble(("Nothing selected. Type a query; ↑/↓ or j/k move.", "$text-muted"))
    rec = hit.record
    parts = _paper(hit, rec) if isinstance(rec, Paper) else _dataset(hit, rec)
    return Content.assemble(*parts)


class DetailPane(VerticalScroll):
    """Scrollable detail of one hit; focus it (Enter in the table) to scroll with the keys."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hit: Hit | None = None

    def compose(self) -> ComposeResult:
        yield Static(render_hit(None), id="detail-body", markup=False)

    def show_hit(self, hit: Hit | None) -> None:
        """Show ``hit`` and scroll back to its top."""
        self.hit = hit
        self.query_one("#detail-body", Static).update(render_hit(hit))
        self.scroll_home(animate=False)

    @property
    def text(self) -> str:
        """The plain text shown (for tests and copying)."""
        return render_hit(self.hit).plain
