"""What a researcher reads on the Datasets tab: Papers with Code's markdown as text, aliases
without the name they sit beside.

Before, the detail of SQuAD read ``The **Stanford Question Answering Dataset** (**SQuAD**)``
and ``Source: [Microsoft COCO Captions: ...](https://arxiv.org/abs/1504.00325)``, relative
links (``(/paper/...)``) led nowhere, and the Aliases cell of every dataset began with its own
name (``COCO Captions, COCO Captions test, ...``).
"""

from __future__ import annotations

from typing import Any

from litsift.text.markdown import readable
from litsift.tui.app import create_app
from litsift.tui.widgets import DetailPane
from litsift.tui.widgets.results_table import COLUMNS
from litsift.types import Kind
from tests.tui.conftest import search


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
