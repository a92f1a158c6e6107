"""Pilot tests of triage in the TUI: label keys, undo, filters, persistence, notes, history,
export, more like this — over writable copies of the real session store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
from textual.widgets import Input, TabbedContent, TextArea

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.screens.modals import ExportScreen, HistoryScreen, NoteScreen
from litsift.tui.widgets import DetailPane, ResultsTable, StatusLine
from litsift.types import Kind, Label, Query
from tests.conftest import copy_home
from tests.tui.conftest import burst, search, settle

SIZE = (120, 40)
QUERY = "low-resource neural machine translation"


def table(app: Any) -> ResultsTable:
    return app.search_screen.table(Kind.PAPER)


def column(t: ResultsTable, key: str) -> list[str]:
    return [t.get_cell(row_key, key).plain for row_key in t.rows]


def status(app: Any) -> str:
    return app.query_one("#status", StatusLine).text


@pytest.fixture
def home(built_home: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "home"
    copy_home(built_home, dst)
    return dst


@pytest.fixture
def wservice(home: Path, encoder: Any) -> Iterator[LitsiftService]:
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        yield svc


async def wait_for_screen(pilot: Any, cls: type) -> Any:
    for _ in range(200):
        await settle(pilot)
        if isinstance(pilot.app.screen, cls):
            return pilot.app.screen
        await pilot.pause(0.02)
    raise AssertionError(f"{cls.__name__} never opened")


async def test_label_keys_undo_filter_and_persistence(
    wservice: LitsiftService, home: Path, encoder: Any
) -> None:
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        t = table(app)
        ids = [h.docid for h in t.hits]
        assert len(ids) >= 4 and app.focused is t
        await pilot.press("plus")  # keep the first
        assert column(t, "label")[0].startswith("✓")  # shown before the write finishes
        await settle(pilot)
        assert wservice.triage.label(Kind.PAPER, ids[0]) is Label.KEEP
        await pilot.press("j", "x", "j", "m")  # discard the second, maybe the third
        await settle(pilot)
        assert [c[:1] for c in column(t, "label")[:4]] == ["✓", "✗", "?", " "]
        assert "Label: discard" not in app.query_one(DetailPane).text
        assert "Label: maybe" in app.query_one(DetailPane).text
        await pilot.press("u")  # undo the maybe
        await settle(pilot)
        assert wservice.triage.label(Kind.PAPER, ids[2]) is None
        assert column(t, "label")[2].strip() == ""
        assert "undone" in status(app)
        # the filter cycle: unlabelled → kept → maybe → discarded → hide discarded → all
        await pilot.press("f")
        assert "[show: unlabelled]" in status(app)
        assert [h.docid for h in t.hits] == ids[2:]
        await pilot.press("f")
        assert [h.docid for h in t.hits] == [ids[0]] and "[show: kept]" in status(app)
        # the tab title counts the rows shown of the hits (it read "Papers (50)" over 1 row)
        tabs = app.search_screen.query_one(TabbedContent)
        title = tabs.get_tab(app.search_screen.tab(Kind.PAPER)).label.plain
        assert title == f"Papers (1 of {len(ids)})", title
        await pilot.press("f")
        assert t.hits == ()
        await pilot.press("f")
        assert [h.docid for h in t.hits] == [ids[1]]
        await pilot.press("f")
        assert [h.docid for h in t.hits] == [ids[0], *ids[2:]]
        await pilot.press("f")
        assert [h.docid for h in t.hits] == ids and "[show" not in status(app)
        assert tabs.get_tab(app.search_screen.tab(Kind.PAPER)).label.plain == f"Papers ({len(ids)})"
    # a new app over the same home shows the labels again
    with LitsiftService(get_paths(home), encoder=encoder) as again:
        app2 = create_app(again)
        async with app2.run_test(size=SIZE) as pilot:
            await search(pilot, QUERY)
            labels = dict(
                zip([h.docid for h in table(app2).hits], column(table(app2), "label"), strict=True)
            )
            assert labels[ids[0]].startswith("✓") and labels[ids[1]].startswith("✗")


async def test_note_editor_and_collection(wservice: LitsiftService) -> None:
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        hit = table(app).highlighted_hit
        assert hit is not None
        await pilot.press("n")
        screen = await wait_for_screen(pilot, NoteScreen)
        screen.query_one("#note-text", TextArea).load_text(
            "Compare with [bold]back-translation[/bold]."
        )
        screen.query_one("#note-tags", Input).value = "to read, MT , to read"
        await pilot.press("ctrl+s")
        await settle(pilot)
        note = wservice.triage.note(Kind.PAPER, hit.docid)
        assert note is not None and note.text == "Compare with [bold]back-translation[/bold]."
        assert note.tags == ("to read", "MT")
        detail = app.query_one(DetailPane).text
        assert "Note: Compare with [bold]back-translation[/bold]." in detail
        assert "Tags: to read, MT" in detail
        assert "✎" in column(table(app), "label")[0]
        await pilot.press("c")
        await pilot.pause()
        app.screen.query_one("#prompt-input", Input).value = "related work"
        await pilot.press("enter")
        await settle(pilot)
        assert wservice.triage.collections_of(Kind.PAPER, hit.docid) == ["related work"]
        assert "Collections: related work" in app.query_one(DetailPane).text


async def test_export_writes_parseable_bibtex(wservice: LitsiftService, tmp_path: Path) -> None:
    app = create_app(wservice)
    out = tmp_path / "out" / "kept.bib"
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        kept = [h.record for h in table(app).hits[:2]]
        await pilot.press("plus", "j", "plus")
        await settle(pilot)
        await pilot.press("e")
        screen = await wait_for_screen(pilot, ExportScreen)
        path = screen.query_one("#export-path", Input)
        assert path.value == "./litsift-kept.bib"
        path.value = str(out)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "exported kept as bibtex" in status(app)
    library = bibtexparser.parse_string(out.read_text(encoding="utf-8"))
    assert len(library.entries) == 2
    assert library.failed_blocks == []
    titles = " ".join(e.fields_dict["title"].value for e in library.entries)
    for paper in kept:  # BibTeX may brace-protect words, so compare the plain words
        words = [w for w in paper.title.split() if w.isalpha()][:3]
        assert all(w in titles.replace("{", "").replace("}", "") for w in words)


async def test_history_reruns_and_saved_search(wservice: LitsiftService) -> None:
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "graph neural networks")
        await search(pilot, "speech recognition")
        await pilot.press("s")
        await pilot.pause()
        app.screen.query_one("#prompt-input", Input).value = "asr"
        await pilot.press("enter")
        await settle(pilot)
        assert [e.name for e in wservice.saved_searches()] == ["asr"]
        texts = [e.text for e in wservice.triage.history(10)]
        assert texts[:2] == ["speech recognition", "graph neural networks"]
        await pilot.press("h")
        screen = await wait_for_screen(pilot, HistoryScreen)
        pick = next(
            oid
            for oid, e in screen.entries.items()
            if e.text == "graph neural networks" and oid.startswith("recent")
        )
        from textual.widgets import OptionList

        options = screen.query_one(OptionList)
        options.highlighted = options.get_option_index(pick)
        await pilot.press("enter")
        await settle(pilot)
        result = table(app).result
        assert result is not None and result.query.text == "graph neural networks"
        query = app.query_one("#query", Input)
        assert query.value == "graph neural networks"
        # the cursor at the end of the longer query (it stayed at the end of the old one, so
        # "/" and typing went inside a word)
        assert query.cursor_position == len("graph neural networks")


async def test_more_like_this_toggle_reorders(wservice: LitsiftService) -> None:
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        await pilot.press("l")  # nothing labelled yet: the hint, and the toggle goes off
        await settle(pilot)
        assert "keep or discard a few results first" in status(app)
        assert app.search_screen.ranking.more_like_this is False
        before = [h.docid for h in table(app).hits]
        await pilot.press("G", "plus", "g", "x")  # keep the last, discard the first
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        after = [h.docid for h in table(app).hits]
        assert "[more like this]" in status(app)
        assert sorted(after) == sorted(before) and after != before
        assert after.index(before[-1]) < after.index(before[0])
        assert "rocchio" in app.query_one(DetailPane).text
        await pilot.press("l")  # off: the fused order is back
        await settle(pilot)
        assert [h.docid for h in table(app).hits] == before
        assert "[more like this]" not in status(app)


async def test_research_question_keys(wservice: LitsiftService) -> None:
    """R extracts the highlighted (and kept) papers' problem and method offline (no LLM
    configured) and shows them with how they were made; P searches by that problem."""
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        t = table(app)
        first = t.highlighted_hit
        assert first is not None
        await pilot.press("down", "plus", "up")  # keep the second row, back to the first
        await settle(pilot)
        kept = t.hits[1].docid
        await pilot.press("R")
        detail = app.query_one(DetailPane)
        for _ in range(100):
            await settle(pilot)
            if "Research question (offline" in detail.text:
                break
            await pilot.pause(0.05)
        notes = [n.message for n in app._notifications]
        assert "offline-1: 2 of 2 papers got a problem and method" in " ".join(notes)
        assert "Research question (offline extraction (offline-1), unverified)" in detail.text
        paper = wservice.get(Kind.PAPER, first.docid)
        assert paper is not None and paper.problem and paper.problem in detail.text  # type: ignore[union-attr]
        assert wservice.get(Kind.PAPER, kept).problem  # type: ignore[union-attr]
        await pilot.press("P")
        await settle(pilot)
        query = app.query_one("#query", Input).value
        assert query.startswith("problem: ")
        result = t.result
        assert result is not None and result.signals_used == ("bm25_problem",)
        assert {h.docid for h in result.hits} <= {first.docid, kept}  # only those have one
        assert result.hits[0].docid == first.docid


async def test_full_text_is_on_by_default_and_t_turns_it_off(tmp_path: Path, encoder: Any) -> None:
    """Issue 29: once papers' full text is indexed the first search is already a full-text
    search (no key needed; the status line says so); the row of a hit says where its passage
    is, the detail pane shows it with its section, the query's words highlighted; T turns full
    text off (the status line says so and that T brings it back) and on again."""
    from litsift.paths import shared_data_dir

    fulltext = shared_data_dir() / "sources" / "fulltext"
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        svc.sources.import_paths(Kind.PAPER, [fulltext / "s2orc-doc2json-json", fulltext / "pdf"])
        svc.build_index(Kind.PAPER)
        svc.build_passages()
        app = create_app(svc)
        async with app.run_test(size=SIZE) as pilot:
            await search(pilot, "pretraining SciBERT from scratch on a TPU v3-8 for one week")
            assert "full text: on — T turns off" in status(app)
            result = table(app).result
            assert result is not None and result.query.fulltext
            hit = next(
                h for h in table(app).hits if h.passage is not None and "TPU" in h.passage.text
            )
            assert hit.rank <= 3  # the answer is only in that paper's body
            titles = column(table(app), "title")
            assert titles[hit.rank - 1].startswith(f"§ {hit.passage.section[:10]}")  # type: ignore[union-attr]
            t = table(app)
            t.move_cursor(row=hit.rank - 1)
            await settle(pilot)
            detail = app.query_one(DetailPane)
            assert "Matching passage — § " in detail.text
            passage = detail.text.split("Matching passage — § ", 1)[1].split("\n\n", 1)[0]
            assert "tpu" in passage.lower()  # a word of the query, in the passage itself
            spans = [s for s in detail.content.spans if "$warning" in str(s.style)]
            assert spans  # the query's words are highlighted

            t.focus()
            await pilot.press("T")
            await settle(pilot)
            assert "full text: off — T turns on" in status(app)
            result = table(app).result
            assert result is not None and not result.query.fulltext
            assert all(h.passage is None for h in table(app).hits)
            assert not any(c.startswith("§ ") for c in column(table(app), "title"))
            await pilot.press("T")
            await settle(pilot)
            assert table(app).result.query.fulltext  # type: ignore[union-attr]
            assert "full text: on — T turns off" in status(app)


async def test_down_and_plus_typed_behind_a_new_query_keep_its_first_hit(
    wservice: LitsiftService, encoder: Any
) -> None:
    """A new query typed over an old one, then Down and + in the same burst (before the new
    query's search has returned): + keeps the new query's first hit. Before, the focus went to
    the table at once and + kept the old results' row under the cursor."""
    new_query = "question answering over knowledge bases"
    first_new = wservice.search(Query(new_query, Kind.PAPER)).hits[0].docid
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        old_ids = [h.docid for h in table(app).hits]
        assert first_new not in old_ids[:1]
        await burst(app, "/", "ctrl+a", "ctrl+k", new_query, "down", "+")
        await settle(pilot)
        assert app.query_one("#query", Input).value == new_query
        assert app.focused is table(app)
        assert wservice.triage.label(Kind.PAPER, first_new) is Label.KEEP
        assert wservice.triage.label(Kind.PAPER, old_ids[0]) is None
        assert column(table(app), "label")[0].startswith("✓")


async def test_keys_typed_behind_a_dialog_key_go_into_the_dialog(
    wservice: LitsiftService,
) -> None:
    """``s`` (save search) or ``n`` (note) then the name or note in the same burst: the letters
    go into the dialog once it has the focus. Before, they reached the table first and ran as
    its triage keys (``m`` maybe, ``y`` keep, ``x`` discard) on the highlighted paper."""
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        ids = [h.docid for h in table(app).hits]
        await burst(app, "s", "my xmy", "enter")
        await settle(pilot)
        assert [e.name for e in wservice.saved_searches()] == ["my xmy"]
        await burst(app, "n", "xm mixed", "ctrl+s")
        await settle(pilot)
        note = wservice.triage.note(Kind.PAPER, ids[0])
        assert note is not None and note.text == "xm mixed"
        assert all(wservice.triage.label(Kind.PAPER, i) is None for i in ids)
        assert app.focused is table(app)


async def test_r_keeps_the_cursor_on_the_paper_it_extracted(wservice: LitsiftService) -> None:
    """R re-runs the search so the rows carry the new problem and method; the cursor stays on
    the paper it was on (it went back to the first row, so the next + labelled another)."""
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        t = table(app)
        await pilot.press("j", "j", "j")
        on = t.highlighted_hit
        assert on is not None and t.cursor_row == 3
        await pilot.press("R")
        for _ in range(100):
            await settle(pilot)
            if "Research question (offline" in app.query_one(DetailPane).text:
                break
            await pilot.pause(0.05)
        assert wservice.get(Kind.PAPER, on.docid).problem  # type: ignore[union-attr]
        now = t.highlighted_hit
        assert now is not None and now.docid == on.docid
        await pilot.press("plus")
        await settle(pilot)
        assert wservice.triage.label(Kind.PAPER, on.docid) is Label.KEEP


async def test_export_asks_before_it_overwrites_a_file(
    wservice: LitsiftService, tmp_path: Path
) -> None:
    """An existing file is not replaced on the first ctrl+s: the dialog says it exists and a
    second ctrl+s overwrites it (an unrelated file was replaced without a word)."""
    precious = tmp_path / "precious.txt"
    precious.write_text("my own notes\n", encoding="utf-8")
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        await pilot.press("plus")
        await settle(pilot)
        await pilot.press("e")
        screen = await wait_for_screen(pilot, ExportScreen)
        screen.query_one("#export-path", Input).value = str(precious)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen and precious.read_text(encoding="utf-8") == "my own notes\n"
        warning = str(screen.query_one("#export-warning").render())
        assert "precious.txt exists: ctrl+s again overwrites it" in warning
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "overwrote" in status(app)
    assert bibtexparser.parse_string(precious.read_text(encoding="utf-8")).entries


async def test_ctrl_q_in_a_note_being_written_asks_before_it_is_lost(
    wservice: LitsiftService,
) -> None:
    """Ctrl+Q in the note dialog quit at once and the note typed was gone. With unsaved text
    the first Ctrl+Q says so; a second one quits; an untouched dialog quits at once."""
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        await pilot.press("n")
        screen = await wait_for_screen(pilot, NoteScreen)
        await pilot.press(*"check the ablation")
        assert screen.unsaved()
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.is_running and app.screen is screen
        said = [n.message for n in app._notifications]
        assert any("not saved (ctrl+s saves it)" in m for m in said), said
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        await pilot.press("ctrl+q")  # nothing typed: quits at once
        await pilot.pause()
        assert not app.is_running
