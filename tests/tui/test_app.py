"""Pilot tests of the TUI over the real session store (2,000 papers + 3,327 datasets)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import DataTable, Input, Static

from litsift.config import Config
from litsift.tui.app import create_app
from litsift.tui.screens import EmptyStoreScreen, HelpScreen
from litsift.tui.screens.citations import CitationsScreen
from litsift.tui.widgets import DetailPane, ResultsTable, StatusLine
from litsift.types import Kind, Paper
from tests.tui.conftest import search, settle

SIZE = (120, 40)


def table(app: Any, kind: Kind | None = None) -> ResultsTable:
    return app.search_screen.table(kind)


def status(app: Any) -> str:
    return app.query_one("#status", StatusLine).text


def column(t: ResultsTable, key: str) -> list[str]:
    return [t.get_cell(row_key, key).plain for row_key in t.rows]


@pytest.fixture(scope="module")
def unique_title(paper_slice_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A paper of the slice whose title is unique there, long, and has an abstract."""
    counts = Counter(r["title"].strip().lower() for r in paper_slice_rows)
    for row in paper_slice_rows[100:]:
        title = row["title"].strip()
        if counts[title.lower()] == 1 and len(title.split()) >= 6 and row.get("abstract"):
            return row
    raise AssertionError("no unique title in the slice")


async def test_exact_title_is_first_and_detail_shows_abstract(
    service: Any, unique_title: dict[str, Any]
) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, unique_title["title"])
        t = table(app, Kind.PAPER)
        assert t.row_count >= 1
        assert column(t, "title")[0] == unique_title["title"].strip()
        assert app.focused is t  # Enter in the query moved focus to the results
        assert re.search(r"^\d+ results · \d+ ms · papers · any year", status(app))
        # the detail pane follows the highlighted row
        detail = app.query_one(DetailPane)
        assert detail.hit is not None and detail.hit.docid == unique_title["id"]
        assert unique_title["abstract"].strip()[:60] in detail.text
        assert "bm25" in detail.text and "dense" in detail.text and "fused" in detail.text
        assert "Problem:" in detail.text and "Method:" in detail.text
        # j moves down, Enter opens the detail, Esc goes back to results, Esc again to query
        await pilot.press("j")
        assert detail.hit is not None and detail.hit.docid == t.hits[1].docid
        await pilot.press("enter")
        assert app.focused is detail
        await pilot.press("escape")
        assert app.focused is t
        await pilot.press("escape")
        assert app.focused is app.query_one("#query", Input)


async def test_typing_is_debounced_and_searches(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = app.search_screen._request_id
        bar = app.query_one("#query", Input)
        for char in "attention":  # a burst (a paste, auto-repeat): all within the debounce
            bar.insert_text_at_cursor(char)
        await settle(pilot)
        assert app.search_screen._request_id - before == 1  # one search for the burst
        result = table(app, Kind.PAPER).result
        assert result is not None and result.query.text == "attention"
        await pilot.press(*"s")  # a typed key searches on its own (after the debounce)
        await settle(pilot)
        assert app.search_screen._request_id - before == 2
        result = table(app, Kind.PAPER).result
        assert result is not None and result.query.text == "attentions"
        assert len(result.hits) > 0
        assert app.focused is app.query_one("#query", Input)  # typing keeps focus


async def test_printable_keys_type_into_the_query(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"q?/12 jk")
        await settle(pilot)
        assert app.query_one("#query", Input).value == "q?/12 jk"
        assert app.is_running and not isinstance(app.screen, HelpScreen)


async def test_year_range_restricts_every_row(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural network optimization")
        unrestricted = {int(y) for y in column(table(app), "year")}
        await pilot.press("slash", "tab")  # query → year from
        assert app.focused is app.query_one("#year-from", Input)
        await pilot.press(*"2015", "tab", *"2016", "enter")
        await settle(pilot)
        years = [int(y) for y in column(table(app), "year")]
        assert years and all(2015 <= y <= 2016 for y in years)
        assert unrestricted - {2015, 2016}  # the filter actually removed something
        assert "2015–2016" in status(app)
        # clearing the filter (ctrl+l) searches all years again
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert {int(y) for y in column(table(app), "year")} == unrestricted


async def test_invalid_years_mark_the_input_not_crash(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "graph neural networks")
        before = table(app).result
        year_from = app.query_one("#year-from", Input)
        year_to = app.query_one("#year-to", Input)
        year_from.focus()
        await pilot.press(*"20x1", "enter")  # "x" is refused by the input
        await settle(pilot)
        assert year_from.value == "201"
        assert year_from.has_class("-invalid")
        assert "incomplete" in status(app)
        assert table(app).result is before  # no search ran
        year_from.value, year_to.value = "2019", "2015"
        await pilot.press("enter")
        await settle(pilot)
        assert year_from.has_class("-invalid") and year_to.has_class("-invalid")
        assert "empty" in status(app)
        year_to.value = "2019"
        await pilot.press("enter")
        await settle(pilot)
        assert not year_from.has_class("-invalid") and not year_to.has_class("-invalid")
        assert all(int(y) == 2019 for y in column(table(app), "year"))


async def test_datasets_tab_finds_multiwoz(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "multi-domain task-oriented dialogue dataset")
        papers = table(app, Kind.PAPER).result
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.search_screen.kind is Kind.DATASET
        names = column(table(app, Kind.DATASET), "title")
        assert "MultiWOZ" in names[:20]
        assert "datasets" in status(app)
        detail = app.query_one(DetailPane)
        assert detail.hit is not None and detail.hit.kind is Kind.DATASET
        assert "Description" in detail.text
        # the popularity prior shows as a count of papers naming the dataset
        assert "popularity" in detail.hit.signals and "name it" in detail.text
        # switching back shows the kept paper results without searching again
        request_id = app.search_screen.request_id
        await pilot.press("f2")
        await settle(pilot)
        assert app.search_screen.kind is Kind.PAPER
        assert table(app, Kind.PAPER).result is papers
        assert app.search_screen.request_id == request_id


async def test_new_query_drops_the_stale_one(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        query = app.query_one("#query", Input)
        query.focus()
        query.value = "reinforcement learning for robotics"
        await pilot.press("enter")
        query.value = "speech recognition with transformers"
        query.focus()
        await pilot.press("enter")
        await settle(pilot)
        result = table(app).result
        assert result is not None
        assert result.query.text == "speech recognition with transformers"


@pytest.mark.parametrize(
    "text",
    [
        '"unbalanced quote',
        "title:foo AND (bar OR",
        ")))(((",
        "NOT",
        "* ? ~ ^ + - ! { } [ ] \\",
        "[bold]markup[/bold] [link=x]",
        "Übersetzung 機械翻訳 🚀",
        "   ",
        "a:b:c year:2019..2020",
    ],
)
async def test_weird_query_never_crashes(service: Any, text: str) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, text)
        assert app.is_running
        assert "unexpected error" not in status(app)
        result = table(app).result
        assert result is not None and result.query.text == text


async def test_help_screen_lists_bindings_and_closes(service: Any) -> None:
    config = Config(keymap={"toggle_kind": "f5", "snowball": "Z", "screening_exclude": "X"})
    app = create_app(service, config)
    async with app.run_test(size=SIZE) as pilot:
        # the citations and screening screens' keys are known to [keymap] too
        assert not [n for n in app._notifications if "unknown actions" in n.message]
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        rows = {bid: keys for keys, _, _, bid in app.screen.rows}
        assert rows["toggle_kind"] == "f5"  # the user keymap is what the help shows
        assert rows["snowball"] == "Z" and rows["screening_exclude"] == "X"
        assert rows["help"] == "f1 / ?"
        assert rows["focus_query"] == "/"
        assert rows["cursor_down"] == "j"
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f5")  # the remapped key works
        await settle(pilot)
        assert app.search_screen.kind is Kind.DATASET
        await pilot.press("ctrl+t")  # the default key no longer does
        assert app.search_screen.kind is Kind.DATASET


async def test_command_palette_switches_kind(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Datasets")
        await pilot.pause(0.5)  # the palette searches its providers asynchronously
        await pilot.press("enter")
        await settle(pilot)
        assert app.search_screen.kind is Kind.DATASET
        # a key the hand-kept palette list lacked: the citations of the highlighted paper
        await pilot.press("ctrl+t")
        await search(pilot, "machine translation")
        assert app.search_screen.table().highlighted_hit is not None
        await pilot.press("ctrl+p")
        await pilot.press(*"Citations")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CitationsScreen)


async def test_empty_store_screen_says_how_to_ingest(empty_service: Any) -> None:
    app = create_app(empty_service)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # the store check runs in a worker and posts its result: wait for the screen it pushes
        for _ in range(400):
            if isinstance(app.screen, EmptyStoreScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, EmptyStoreScreen), app.screen.query_one(StatusLine).text
        text = app.screen.text
        for cmd in (
            "litsift ingest papers PATH...",
            "litsift ingest datasets PATH...",
            "litsift index",
            "litsift demo",
        ):
            assert cmd in text
        # the formats of the sources registry, through the service
        for name, _kind, _what in empty_service.ingest_formats():
            assert name in text
        await pilot.press("escape")
        assert not isinstance(app.screen, EmptyStoreScreen)
        await search(pilot, "anything")  # reported in the status line, not a crash
        assert "no papers in the store" in status(app)
        assert app.is_running


async def test_markup_in_data_renders_literally(markup_service: Any) -> None:
    app = create_app(markup_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "literal brackets in titles")
        t = table(app)
        assert column(t, "title")[0] == "Literal [red]brackets[/red] in titles"
        detail = app.query_one(DetailPane)
        assert isinstance(detail.hit.record, Paper)  # type: ignore[union-attr]
        assert "We keep [bold]not bold[/bold] and [link=x]y[/link] as typed text." in detail.text
        assert "A. [i]Author[/i]" in detail.text
        shown = app.query_one("#detail-body", Static).visual
        assert "[bold]not bold[/bold]" in str(shown)
        svg = app.export_screenshot()
        assert "[bold]not&#160;bold[/bold]" in svg or "[bold]not bold[/bold]" in svg


async def test_readme_key_table_matches_the_bindings(service: Any) -> None:
    """README's "Keys" table lists exactly the app's bindings and default keys."""
    from pathlib import Path

    from litsift.tui.screens.help import help_rows

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    row = r"^\| `([^`]+)` \| [^|]+ \| ([^|]+) \| `(\w+)` \|$"
    documented = sorted((k, w.strip(), b) for k, w, b in re.findall(row, readme, re.M))
    app = create_app(service)
    async with app.run_test(size=SIZE):
        rows = help_rows(app, app.binding_groups(), {})
    # every row (keys, where, id): the same keys on two screens (esc) are two rows
    assert documented == sorted((keys, where, bid) for keys, _, where, bid in rows)


async def test_footer_follows_focus_and_results_without_rebuilding(service: Any) -> None:
    """The key footer is one line of text (no widget per key, so no mount or layout on each
    search): it shows the keys of what has focus, and a click on a key presses it."""
    from litsift.tui.widgets.footer import KeyFooter

    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        before = footer.text
        assert "Papers/Datasets" in before and "Results" in before
        await search(pilot, "dialogue state tracking")
        after = footer.text
        assert app.focused is table(app, Kind.PAPER)
        assert "Keep" in after and after != before
        assert not list(footer.children)
        start, _end, key = next(s for s in footer._spans if s[2] == "ctrl+t")
        await pilot.click(KeyFooter, offset=(start + 1, 0))
        await settle(pilot)
        assert key == "ctrl+t" and app.search_screen.kind is Kind.DATASET


async def test_home_and_end_go_to_the_first_and_last_row(service: Any) -> None:
    """Home and End did nothing in the help's key list or the results (``DataTable`` scrolls
    sideways with them, and these tables fit their width): they go to the first / last row."""
    app = create_app(service)
    async with app.run_test(size=(100, 30)) as pilot:
        await search(pilot, "dialogue state tracking")
        results = table(app)
        results.focus()
        await pilot.press("end")
        assert results.row_count > 1 and results.cursor_row == results.row_count - 1
        await pilot.press("home")
        assert results.cursor_row == 0
        await pilot.press("f1")
        await settle(pilot)
        keys = app.screen.query_one("#help-table", DataTable)
        await pilot.press("end")
        assert keys.row_count > 1 and keys.cursor_row == keys.row_count - 1
        await pilot.press("home")
        assert keys.cursor_row == 0


@pytest.mark.parametrize("size", [(60, 24), (80, 24), (120, 40)])
async def test_help_fits_the_terminal_and_scrolls_to_every_binding(
    service: Any, size: tuple[int, int]
) -> None:
    """The help box lies inside an 80x24 terminal, its note (how to reach the palette and
    change keys) is on screen, and the table scrolls to the last binding (at 80 columns the
    box was 100 wide: its right border and the keymap names were cut off, the note below).
    At 60 columns the keymap names ("screenin…" was cut) give way, and the note says so."""
    from textual.widgets import DataTable

    app = create_app(service)
    async with app.run_test(size=size) as pilot:
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        screen = app.screen.region
        box = app.screen.query_one("#help-box").region
        note = app.screen.query_one("#help-note").region
        help_table = app.screen.query_one("#help-table", DataTable)
        assert box.width > 0 and screen.contains_region(box), (box, screen)
        assert note.height >= 3 and box.contains_region(note), (note, box)
        assert box.contains_region(help_table.region)
        header = [str(c.label) for c in help_table.columns.values()]
        names = ["[keymap] name"] if size[0] >= 80 else []  # not read as markup
        assert header == ["Keys", "Action", "Where", *names]
        assert ("A wider terminal shows" in str(app.screen.query_one("#help-note").render())) is (
            not names
        )
        # every column is inside the box: the keymap names are not cut off
        assert help_table.virtual_size.width <= help_table.region.width
        help_table.move_cursor(row=help_table.row_count - 1)
        await settle(pilot)
        assert help_table.cursor_row == help_table.row_count - 1
        last = help_table.get_row_at(help_table.row_count - 1)
        assert str(last[-1]) in app.screen.rows[-1][len(last) - 1]
        assert str(last[-1]) in "".join(
            str(help_table.render_line(y).text) for y in range(help_table.region.height)
        )


async def test_letters_typed_in_a_year_box_never_quit_and_slash_goes_to_the_query(
    service: Any,
) -> None:
    """After Tab into a year box, a query typed there lost every letter until the ``q`` of
    "question", which quit litsift (the app's q binding ran); ``/`` did nothing there. Now
    letters are refused (bell), ``/`` moves to the query with the keys behind it."""
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "contrastive")
        await pilot.press("slash", "tab")
        year_from = app.query_one("#year-from", Input)
        assert app.focused is year_from
        await pilot.press(*"retrieval augmented question answering")
        await settle(pilot)
        assert app.is_running and year_from.value == ""
        await pilot.press("slash", *" learning")
        await settle(pilot)
        assert app.focused is app.query_one("#query", Input)
        assert app.query_one("#query", Input).value == "contrastive learning"


async def test_a_tab_not_searched_for_the_new_query_shows_no_old_count(service: Any) -> None:
    """The Datasets tab kept "Datasets (50)" of an earlier query while Papers was searched
    with new years; switched to, it had 0. A tab not searched for the query and years shown
    counts nothing until it is."""
    from textual.widgets import TabbedContent

    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "machine translation")
        await pilot.press("ctrl+t")  # the datasets of the same query
        await settle(pilot)
        tabs = app.search_screen.query_one(TabbedContent)

        def title(kind: Kind) -> str:
            return tabs.get_tab(app.search_screen.tab(kind)).label.plain

        assert title(Kind.DATASET).startswith("Datasets (")
        await pilot.press("ctrl+t")
        await search(pilot, "speech recognition")
        assert title(Kind.PAPER).startswith("Papers (")
        assert title(Kind.DATASET) == "Datasets"


async def test_a_year_range_says_how_many_undated_hits_it_kept(service: Any) -> None:
    """A year range keeps records without a year (DataFinder's protocol); rows with "—" in
    the year column under a 2015–2018 filter looked like a broken filter. The status line
    counts them."""
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+t")
        await search(pilot, "question answering dataset")
        await pilot.press("slash", "tab", *"2015", "tab", *"2018", "enter")
        await settle(pilot)
        years = column(table(app, Kind.DATASET), "year")
        undated = years.count("—")
        assert undated and all(y == "—" or 2015 <= int(y) <= 2018 for y in years)
        assert f"2015–2018 (+{undated} undated)" in status(app)
        await pilot.press("ctrl+l")  # no range: nothing to say
        await settle(pilot)
        assert "undated" not in status(app)


async def test_a_query_of_punctuation_alone_says_there_is_nothing_to_search(
    service: Any,
) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "???")
        assert table(app).row_count == 0
        assert "0 results" in status(app) and "no words to search for" in status(app)


async def test_ctrl_c_says_which_key_quits_in_plain_text(empty_service: Any) -> None:
    """Ctrl+C does not quit a Textual app; its toast says what does. Textual writes it as
    markup and this app's toasts are plain: it read "Press [b]ctrl+q[/b] to quit the app".
    Once, in every window."""
    app = create_app(empty_service)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(400):  # the empty-store window comes first: Esc closes it
            if isinstance(app.screen, EmptyStoreScreen):
                break
            await pilot.pause(0.05)
        # in a dialog too (the empty-store window, then help): Textual leaves the app's
        # bindings out of a modal screen's, and Ctrl+C did nothing there
        for keys in (("ctrl+c",), ("escape", "ctrl+c"), ("f1", "ctrl+c")):
            app.clear_notifications()
            await pilot.press(*keys)
            await pilot.pause()
            said = [n.message for n in app._notifications if n.title == "Do you want to quit?"]
            assert len(said) == 1 and "[b]" not in said[0] and "ctrl+q" in said[0], (keys, said)
            assert app.is_running
        assert isinstance(app.screen, HelpScreen)
