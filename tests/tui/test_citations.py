"""Pilot test of the citations screen over a tiny indexed home built from a real OpenAlex page
(37 works and the 1,026 works they reference): ``C`` on a paper opens its references and
citing papers (stored ones with titles, the rest as identifiers), ``S`` runs a snowball round
from the kept papers, a candidate is labelled with the usual key (stored, and shown on the
search screen too), and the next round no longer proposes it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from litsift.paths import get_paths, shared_data_dir
from litsift.service import LitsiftService
from litsift.store import citations
from litsift.tui.app import create_app
from litsift.tui.screens.citations import CitationsScreen
from litsift.types import Kind, Label
from tests.tui.conftest import search, settle

CITED_BY = (
    shared_data_dir()
    / "sources"
    / "openalex"
    / "api"
    / "works_filter-cited_by_two-works_per-page-200_cursor.json"
)
GLOVE = "doi:10.3115/v1/d14-1162"
WORD2VEC = "doi:10.57702/kcdhx0zi"  # cites GloVe on the page; GloVe cites it too


@pytest.fixture
def service(tmp_path: Path, encoder: Any) -> Iterator[LitsiftService]:
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [CITED_BY]).added == 37
        svc.build_index(Kind.PAPER)
        svc.set_label(Kind.PAPER, GLOVE, Label.KEEP)
        yield svc


async def until_idle(pilot: Any, screen: CitationsScreen) -> None:
    for _ in range(400):
        await settle(pilot)
        if not screen.busy:
            return
        await pilot.pause(0.02)
    raise AssertionError("the citations screen never finished")


def cells(screen: CitationsScreen, column: int) -> list[str]:
    t = screen.table
    key = t.ordered_columns[column].key
    return [str(t.get_cell(row, key)) for row in t.rows]


async def test_citations_panel_snowball_round_and_label(service: LitsiftService) -> None:
    conn = service.store.conn
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await search(pilot, "GloVe global vectors for word representation")
        table = app.search_screen.table(Kind.PAPER)
        assert table.hits[0].docid == GLOVE
        await pilot.press("C")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CitationsScreen)
        await until_idle(pilot, screen)
        # references: what the store's edges say, stored papers first with their titles
        refs = citations.references(conn, GLOVE)
        assert len(screen.rows) == len(refs) and {n.key for n in screen.rows} == set(refs)
        titles = cells(screen, 2)
        assert screen.rows[0].stored and "Distributed representations" in titles[0]
        assert cells(screen, 3)[-1].startswith("openalex:W")  # unresolved: shown by id
        await pilot.press("2")  # cited by
        assert {n.key for n in screen.rows} == set(citations.cited_by(conn, GLOVE))
        # a snowball round from the kept paper (GloVe)
        await pilot.press("S")
        await until_idle(pilot, screen)
        assert screen.mode == "snowball" and screen.round is not None
        first = [c.neighbour.key for c in screen.round.candidates]
        assert first[0] == WORD2VEC and "linked to 1 kept" in cells(screen, 3)[0]
        # label the top candidate keep with the usual key
        await pilot.press("plus")
        assert cells(screen, 0)[0] == "keep"  # shown before the write finishes
        await until_idle(pilot, screen)
        assert service.triage.label(Kind.PAPER, WORD2VEC) is Label.KEEP
        # the next round starts from both kept papers and no longer proposes it
        await pilot.press("S")
        await until_idle(pilot, screen)
        assert screen.round.seeds == 2 and WORD2VEC not in {n.key for n in screen.rows}
        assert screen.rounds == 2
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.search_screen
        # the search screen heard about the label (word2vec is among the 37 works' hits)
        labels = {h.docid: table.info(h).annotation.label for h in table.hits}
        assert labels[WORD2VEC] is Label.KEEP
