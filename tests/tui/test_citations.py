"""Pilot test of the citations screen over a tiny indexed home built from a real OpenAlex page
(37 works and the 1,026 works they reference): ``C`` on a paper opens its references and
citing papers (stored ones with titles, the rest as identifiers), ``F`` fetches its trail from
a 127.0.0.1 server replaying recorded OpenAlex pages, ``S`` runs a snowball round
from the kept papers, a candidate is labelled with the usual key (stored, and shown on the
search screen too), and the next round no longer proposes it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.store import citations
from litsift.tui.app import create_app
from litsift.tui.screens.citation_rows import cells as row_cells
from litsift.tui.screens.citations import CitationsScreen
from litsift.types import Kind, Label
from tests.tui.conftest import search, settle
from tests.unit.sources.recorded_server import RecordedServer

CITED_BY = (
    shared_data_dir()
    / "sources"
    / "openalex"
    / "api"
    / "works_filter-cited_by_two-works_per-page-200_cursor.json"
)
CITES = CITED_BY.with_name("works_filter-cites_two-works_per-page-200_cursor.json")
LAST = CITED_BY.with_name("works_filter-doi-list_per-page-200_cursor-page2-last.json")
JSON = {"Content-Type": "application/json"}
GLOVE = "doi:10.3115/v1/d14-1162"
WORD2VEC = "doi:10.57702/kcdhx0zi"  # cites GloVe on the page; GloVe cites it too


@pytest.fixture
def server() -> Iterator[RecordedServer]:
    """OpenAlex replayed: the recorded ``cites:`` page for any seed's citing works, then the
    empty page that ends a cursor walk; no references (an empty walk)."""

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if query["filter"].startswith("cites:") and query["cursor"] == "*":
            return 200, JSON, CITES.read_bytes()
        return 200, JSON, LAST.read_bytes()

    with RecordedServer(route) as srv:
        yield srv


@contextmanager
def glove_home(tmp_path: Path, encoder: Any, url: str) -> Iterator[LitsiftService]:
    """A home of the 37 papers citing GloVe, indexed, OpenAlex at ``url``."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(f'[sources.openalex]\nbase_url = "{url}"\ndelay_s = 0\n')
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [CITED_BY]).added == 37
        svc.build_index(Kind.PAPER)
        yield svc


@pytest.fixture
def service(tmp_path: Path, encoder: Any, server: RecordedServer) -> Iterator[LitsiftService]:
    with glove_home(tmp_path, encoder, server.url) as svc:
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
    conn = service.store._conn
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
        before = {n.key for n in screen.rows}
        assert before == set(citations.cited_by(conn, GLOVE))
        # F fetches the trail (the replayed OpenAlex): the citing works are stored and shown
        await pilot.press("F")
        await until_idle(pilot, screen)
        await until_idle(pilot, screen)  # the reload after the fetch
        after = {n.key for n in screen.rows}
        assert len(after - before) == 5 and all(n.stored for n in screen.rows[:5])
        assert after == set(citations.cited_by(conn, GLOVE))
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


def test_rows_are_plain_sanitised_text() -> None:
    """A title or key from a service is shown as typed: no markup, no escape sequence."""
    from litsift.types.citations import Neighbour

    hostile = Neighbour("key:1", "Literal [red]brackets[/red] \x1b[31mred\x1b[0m", 2020, True)
    cells = row_cells(hostile, "")
    assert cells[2].plain.startswith("Literal [red]brackets[/red] ")
    assert "\x1b" not in cells[2].plain and not cells[2].spans
    stub = row_cells(Neighbour("openalex:W1[b]\x07"), "")
    assert "\x07" not in stub[3].plain and "[b]" in stub[3].plain


def test_a_snowball_candidate_not_stored_shows_its_id() -> None:
    """A round's candidates not stored have no title: each row read "(no title known)  linked
    to 1 kept", so the rows could not be told apart (the evidence took the id's place)."""
    from litsift.types.citations import Neighbour

    stub = row_cells(Neighbour("openalex:W1968594024"), "linked to 1 kept")
    assert stub[3].plain == "linked to 1 kept · openalex:W1968594024 · not stored"
    stored = row_cells(Neighbour(WORD2VEC, "Distributed", 2013, True), "cites 1 kept")
    assert stored[3].plain == "cites 1 kept"
