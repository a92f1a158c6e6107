"""Pilot test of the detail pane's "linked to k of your kept papers" on a tiny indexed home
built from a real OpenAlex page (37 works and their ``referenced_works``): absent while nothing
is kept; once GloVe is kept (key +), word2vec's detail says GloVe cites it, with GloVe's title,
read by a worker from the store's edges; unkept, the line goes again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.widgets.detail_pane import Extras, render_hit
from litsift.types import Hit, Kind, Label, Paper, SignalScore
from litsift.types.citations import KeptLinks, Neighbour
from tests.tui.conftest import search, settle

PAGE = (
    shared_data_dir()
    / "sources"
    / "openalex"
    / "api"
    / "works_filter-cited_by_two-works_per-page-200_cursor.json"
)
GLOVE = "doi:10.3115/v1/d14-1162"
WORD2VEC = "doi:10.57702/kcdhx0zi"  # GloVe's referenced_works on the page name it


@pytest.fixture
def service(tmp_path: Path, encoder: Any) -> Iterator[LitsiftService]:
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [PAGE]).added == 37
        svc.build_index(Kind.PAPER)
        yield svc


async def test_detail_names_links_to_kept_papers(service: LitsiftService) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(120, 60)) as pilot:
        screen = app.search_screen
        await search(pilot, "GloVe global vectors for word representation")
        table = screen.table(Kind.PAPER)
        rows = {h.docid: h.rank - 1 for h in table.hits}
        assert table.hits[0].docid == GLOVE and WORD2VEC in rows
        table.move_cursor(row=rows[WORD2VEC])
        await settle(pilot)
        assert screen.detail.hit is not None and screen.detail.hit.docid == WORD2VEC
        assert "Citation links" not in screen.detail.text  # nothing kept: no line
        table.move_cursor(row=rows[GLOVE])
        await settle(pilot)
        await pilot.press("plus")  # keep GloVe with the usual key
        await settle(pilot)
        assert service.triage.label(Kind.PAPER, GLOVE) is Label.KEEP
        assert "Citation links" not in screen.detail.text  # a kept paper is not linked to itself
        table.move_cursor(row=rows[WORD2VEC])
        await settle(pilot)
        text = screen.detail.text
        assert "linked to 1 of your 1 kept paper (cites 0 · cited by 1)" in text
        assert "cited by Glove: Global Vectors for Word Representation (2014)" in text
        # unkeeping GloVe (the label key toggles) takes the line away again
        table.move_cursor(row=rows[GLOVE])
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        table.move_cursor(row=rows[WORD2VEC])
        await settle(pilot)
        assert "Citation links" not in screen.detail.text


def test_links_render_as_plain_sanitised_text() -> None:
    """A kept paper's title is shown as typed on one line: no markup, no escape sequence."""
    hit = Hit(Paper("doi:10.57702/kcdhx0zi", "word2vec"), 1, 1.0)
    hostile = Neighbour("key:1", "Literal [red]x[/red]\n\x1b[31mred\x1b[0m", 2020, True)
    many = tuple(Neighbour(f"key:c{i}", f"T{i}", None, True) for i in range(5))
    shown = render_hit(hit, Extras(kept_links=KeptLinks(hit.docid, 9, (hostile,), many))).plain
    assert "linked to 6 of your 9 kept papers (cites 1 · cited by 5)" in shown
    assert "cites    Literal [red]x[/red] " in shown and "\x1b" not in shown
    assert "… 2 more cited by (C: citations)" in shown


def test_the_search_signal_is_explained_in_words() -> None:
    """A hit the citation signal moved (signal ``kept``) says how many kept papers it links."""
    signals = {"bm25": SignalScore(3.2, 7), "kept": SignalScore(2.0, 1)}
    shown = render_hit(Hit(Paper("key:1", "A linked paper"), 1, 0.03, signals)).plain
    assert "kept            2   linked to 2 kept papers (rank 1)" in shown
