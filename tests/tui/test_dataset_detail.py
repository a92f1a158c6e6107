"""What a researcher reads on the Datasets tab: Papers with Code's markdown as text, aliases
without the name they sit beside.

Before, the detail of SQuAD read ``The **Stanford Question Answering Dataset** (**SQuAD**)``
and ``Source: [Microsoft COCO Captions: ...](https://arxiv.org/abs/1504.00325)``, relative
links (``(/paper/...)``) led nowhere, and the Aliases cell of every dataset began with its own
name (``COCO Captions, COCO Captions test, ...``).
"""

from __future__ import annotations

from typing import Any

from litsift.search.datasets.popularity import _TOKEN, name_tokens
from litsift.service.dataset_users import FEW_USERS
from litsift.text.markdown import readable
from litsift.tui.app import create_app
from litsift.tui.screens.dataset_users import DatasetUsersScreen
from litsift.tui.widgets import DetailPane
from litsift.tui.widgets.results_table import COLUMNS
from litsift.types import Dataset, Kind
from tests.tui.conftest import search, settle


async def test_a_dataset_detail_reads_as_text(service: Any) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")
        await search(pilot, "COCO captions")
        table = app.search_screen.table(Kind.DATASET)
        hit = table.highlighted_hit
        assert hit is not None and hit.record.id == "COCO Captions"
        text = app.search_screen.query_one(DetailPane).text
        assert "**" not in text and "](" not in text and "\r" not in text
        assert "Microsoft COCO Captions: Data Collection and Evaluation Server" in text
        assert "<https://arxiv.org/abs/1504.00325>" in text
        assert "Aliases: COCO Captions test, MSCOCO-1k" in text  # not its own name again
        aliases = next(c for c in COLUMNS[Kind.DATASET] if c.key == "aliases")
        assert aliases.cell(hit, table.info(hit)).plain.startswith("COCO Captions test")


def test_markdown_emphasis_and_links_become_text() -> None:
    assert readable("The **SQuAD** set.\r\nSource: [A paper](/paper/a-paper)") == (
        "The SQuAD set.\nSource: A paper <https://paperswithcode.com/paper/a-paper>"
    )
    assert readable("snake_case and 2**10 stay") == "snake_case and 2**10 stay"
    assert readable("**bold** and __bold__") == "bold and bold"


async def test_a_dataset_detail_lists_papers_that_name_it_and_opens_one(service: Any) -> None:
    """A researcher choosing a dataset sees which papers of the library use it (title, year),
    the query's first, and opens one (C, Enter) -- at 80x24, where the detail takes the
    table's place. Real data: the session store's 2,000 papers and Papers with Code's
    datasets."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f3")
        await search(pilot, "image classification")
        screen = app.search_screen
        hit = screen.table(Kind.DATASET).highlighted_hit
        assert hit is not None
        detail = screen.query_one(DetailPane)
        users = detail.extras.users
        assert users is not None and users.doc_id == hit.docid and len(users.papers) >= 2
        assert users.total == int(hit.signals["popularity"].score)  # the count of the Scores
        ds = hit.record
        assert isinstance(ds, Dataset)
        names = {t for n in (ds.id, *ds.variants) if (t := name_tokens(n)) is not None}
        for paper in users.papers:  # each names the dataset in its title or abstract
            words = _TOKEN.findall(f"{paper.title} . {paper.abstract}")
            assert any(
                tuple(words[i : i + len(n)]) == n for n in names for i in range(len(words))
            ), paper.title
        assert len(users.papers) <= FEW_USERS
        await pilot.press("enter")  # the detail in the table's place
        await pilot.pause()
        text = detail.text
        assert "Papers naming it" in text and f"{users.total} paper" in text
        first = users.papers[0]
        assert f"{first.title[:40]}" in text and f"({first.year})" in text
        lines = text.splitlines()
        at = lines.index("Papers naming it")
        assert all(len(line) <= 78 for line in lines[at : at + 2 + len(users.papers)])
        assert at + 2 + len(users.papers) < 24 - 6  # on the first screen of the detail
        await pilot.press("C")
        await pilot.pause()
        assert isinstance(app.screen, DatasetUsersScreen)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen is screen and app.focused is detail
        assert detail.hit is not None and detail.hit.record == users.papers[1]
        assert detail.text.startswith(users.papers[1].title)
