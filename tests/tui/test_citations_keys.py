"""The citations screen over a home of real imported papers: SPECTER's GROBID TEI (52
references, most without identifiers) and the ACL Anthology BibTeX entries (three of those
references, stored). ``j``/``k``/``g``/``G`` move the cursor as in the results, so a label typed
behind them lands on the row they moved to; works not stored are named by the title GROBID gave
them, never by a made-up key (``title:…``, ``key:…``); the status line's key hint reads as keys
(``1: references``), and its counts match the rows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.screens.citation_rows import cells as row_cells
from litsift.tui.screens.citations import CitationsScreen
from litsift.tui.screens.help import help_rows
from litsift.types import Kind, Label
from litsift.types.citations import Neighbour
from tests.tui.conftest import burst, search, settle
from tests.tui.test_citations import until_idle

SOURCES = shared_data_dir() / "sources"
TEI = SOURCES / "fulltext" / "grobid-tei" / "acl-2020.acl-main.207.grobid-0.6.1.tei.xml"
BIB = SOURCES / "reference-managers" / "bibtex" / "paper_acl-anthology-entries.bib"
#: a made-up key (a stored paper without identifiers, a reference without any)
MADE_UP = re.compile(r"\b(?:key|title):[0-9a-f]{12}\b")


@pytest.fixture
def service(tmp_path: Path, encoder: Any) -> Iterator[LitsiftService]:
    home = tmp_path / "home"
    home.mkdir()
    # F must not reach the network: SPECTER's TEI names no identifier, so no request is made
    (home / "config.toml").write_text(
        '[sources.openalex]\nbase_url = "http://127.0.0.1:9"\ndelay_s = 0\n'
        '[sources.s2]\nbase_url = "http://127.0.0.1:9"\ndelay_s = 0\n'
    )
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [TEI, BIB]).added == 48
        svc.build_index(Kind.PAPER)
        yield svc


def specter_id(service: LitsiftService) -> str:
    row = service.store._conn.execute(
        "SELECT id FROM papers WHERE title LIKE 'SPECTER:%'"
    ).fetchone()
    return str(row[0])


async def open_citations(pilot: Any, service: LitsiftService) -> CitationsScreen:
    """Search SPECTER, put the cursor on it and press C; wait until its rows are shown."""
    app = pilot.app
    await search(pilot, "SPECTER document-level representation learning citation-informed")
    table = app.search_screen.table(Kind.PAPER)
    table.move_cursor(row=[h.docid for h in table.hits].index(specter_id(service)))
    table.focus()
    await pilot.press("C")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, CitationsScreen)
    await until_idle(pilot, screen)
    return screen


def status(screen: CitationsScreen) -> str:
    return str(screen.query_one("#cite-status", Static).content)


def shown(screen: CitationsScreen) -> list[str]:
    """Every cell of every row, the header and the status line."""
    t = screen.table
    cells = [str(t.get_cell(row, col.key)) for row in t.rows for col in t.ordered_columns]
    return [*cells, str(screen.query_one("#cite-title", Static).content), status(screen)]


async def test_vim_keys_move_the_cursor_a_label_lands_on_that_row(
    service: LitsiftService,
) -> None:
    """The tester's burst: ``1 g +`` keeps the first reference, ``j j +`` the third (on the old
    screen j did nothing and the second ``+`` cleared the first row's label again)."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_citations(pilot, service)
        stored = [n.key for n in screen.rows if n.stored]
        assert len(stored) == 3 and screen.rows[2].stored
        await burst(app, "1g+jj+")
        await until_idle(pilot, screen)
        await until_idle(pilot, screen)
        assert screen.table.cursor_row == 2
        label = service.triage.label
        assert [label(Kind.PAPER, k) for k in stored] == [Label.KEEP, None, Label.KEEP]
        assert [str(screen.table.get_row_at(i)[0]) for i in range(3)] == ["keep", "", "keep"]
        # G the last row, k the one above it, g the first again
        await pilot.press("G")
        assert screen.table.cursor_row == len(screen.rows) - 1
        await pilot.press("k")
        assert screen.table.cursor_row == len(screen.rows) - 2
        await pilot.press("g")
        assert screen.table.cursor_row == 0
        # the footer shows j/k (one "Move" entry); the help lists all four under "citations"
        footer = {b.binding.key for b in screen.active_bindings.values() if b.binding.show}
        assert {"j", "k"} <= footer
        keys = {row[0] for row in help_rows(app, app.binding_groups(), {}) if row[2] == "citations"}
        assert {"j", "k", "g", "G"} <= keys


async def test_references_are_named_by_title_never_by_a_made_up_key(
    service: LitsiftService,
) -> None:
    """GROBID names the references that carry no identifier: the rows, the label messages and
    the fetch's error show titles; ``title:…`` / ``key:…`` hashes are shown nowhere."""
    seen: list[str] = []
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_citations(pilot, service)
        stubs = [n for n in screen.rows if not n.stored]
        assert len(stubs) == 49 and all(n.title for n in stubs)
        titles = [str(screen.table.get_row_at(i)[2]) for i in range(len(screen.rows))]
        assert "Content-Based Citation Recommendation (Chandra Bhagavatula et al., 2018)" in titles
        assert not any(t.startswith("(not stored)") for t in titles)
        seen += shown(screen)
        # a stored reference without identifiers (key:…): labelled, the message names its title
        assert screen.rows[0].key.startswith("key:")
        await pilot.press("plus")
        await until_idle(pilot, screen)
        assert status(screen).startswith(f"“{screen.rows[0].title[:40]}")
        assert status(screen).endswith("”: keep")
        seen.append(status(screen))
        # a reference not stored: why it cannot be labelled, by its title
        await pilot.press("G")
        await pilot.press("plus")
        last = screen.rows[-1]
        assert status(screen).startswith(f"“{last.title[:30]}") and "not stored" in status(screen)
        seen.append(status(screen))
        # F: SPECTER's TEI names no identifier OpenAlex knows; the error names the paper
        await pilot.press("F")
        await until_idle(pilot, screen)
        assert status(screen).startswith("“SPECTER: Document-level")
        assert "neither OpenAlex nor Semantic Scholar has its trail" in status(screen)
        assert "no identifier openalex knows" in status(screen)
        assert "no identifier s2 knows" in status(screen) and "--source" not in status(screen)
        seen += shown(screen)
    assert not [s for s in seen if MADE_UP.search(s)]


async def test_status_line_reads_as_keys_and_its_counts_are_the_rows(
    service: LitsiftService,
) -> None:
    """``1: references · 2: cited by`` (keys), not ``1 references · 2 cited by`` beside the
    header's ``52 references, 0 citing works``; the counts are the rows shown."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_citations(pilot, service)
        header = str(screen.query_one("#cite-title", Static).content)
        assert header.endswith("— 52 references, 0 citing works")
        text = status(screen)
        assert text.startswith("showing 52 references (49 not stored) · ")
        assert "1: references · 2: cited by" in text and "S: snowball" in text
        assert not re.search(r"\b\d+ (references|cited by)\b", text.split(" · ", 1)[1])
        assert sum(not n.stored for n in screen.rows) == 49 and len(screen.rows) == 52
        await pilot.press("2")
        assert status(screen).startswith("showing 0 citing works (0 not stored) · 1: references")
        # snowball from the kept first reference: its hint is keys too
        assert screen.neighbours is not None
        service.set_label(Kind.PAPER, screen.neighbours.references[0].key, Label.KEEP)
        await pilot.press("S")
        await until_idle(pilot, screen)
        assert screen.round is not None and screen.round.seeds == 1
        assert "+: keep · m: maybe · -: discard · S: next round" in status(screen)


def test_a_stub_named_by_its_source_is_plain_sanitised_text() -> None:
    """A reference named by GROBID shows that name as typed (no markup, no escape sequence);
    its made-up key is not shown, an external identifier is."""
    hostile = Neighbour("title:0123456789ab", "Evil [b]x[/b] \x1b]0;pwned\x07 (A. B, 2019)")
    cells = row_cells(hostile, "")
    assert cells[2].plain.startswith("Evil [b]x[/b] ") and not cells[2].spans
    assert "\x1b" not in cells[2].plain and "\x07" not in cells[2].plain
    assert cells[3].plain == "not stored"
    assert all("0123456789ab" not in c.plain for c in cells)
    doi = row_cells(Neighbour("doi:10.1/x"), "")
    assert doi[3].plain == "doi:10.1/x · not stored" and doi[2].plain == "(no title known)"


async def test_enter_follows_the_trail_to_a_stored_work_and_esc_comes_back(
    service: LitsiftService,
) -> None:
    """Enter on a row did nothing: a stored reference's own references and citing works were
    out of reach. Now it opens them (SPECTER is among the works citing the reference), Esc
    comes back to SPECTER's list, and Enter on a work not stored says how to store it."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_citations(pilot, service)
        first = screen.rows[0]
        assert first.stored
        screen.table.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
        inner = app.screen
        assert isinstance(inner, CitationsScreen) and inner is not screen
        await until_idle(pilot, inner)
        assert inner.doc_id == first.key
        await pilot.press("2")
        assert specter_id(service) in {n.key for n in inner.rows}
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        stub = next(i for i, n in enumerate(screen.rows) if not n.stored)
        screen.table.move_cursor(row=stub)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        assert "is not stored: F fetches this paper's trail" in status(screen)


async def test_a_label_or_refusal_gives_the_counts_and_keys_back_on_the_next_key(
    service: LitsiftService,
) -> None:
    """``+`` on a row says what it did (or why not) in the status line; the next key brings
    the counts and key hint back (they stayed hidden until another list was shown)."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_citations(pilot, service)
        summary = status(screen)
        assert summary.startswith("showing 52 references")
        screen.table.move_cursor(row=[n.stored for n in screen.rows].index(False))
        await pilot.press("plus")
        assert "cannot be labelled" in status(screen)
        await pilot.press("j")
        assert status(screen) == summary
        screen.table.move_cursor(row=[n.stored for n in screen.rows].index(True))
        await pilot.press("plus")
        await until_idle(pilot, screen)
        assert status(screen).endswith(": keep")
        await pilot.press("k")
        assert status(screen) == summary
