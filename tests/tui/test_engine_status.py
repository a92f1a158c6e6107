"""The status line names the engine that answered when it is not the local one (issue 42:
"``--json`` and the status line say which engine ... answered"), sanitised like any text."""

from __future__ import annotations

from typing import Any

import pytest

from litsift.tui.app import create_app
from litsift.tui.widgets import StatusLine
from litsift.types import Kind, Query, SearchResult


@pytest.mark.parametrize(
    ("engine", "shown"),
    [
        ("milvus at /srv/litsift/milvus.db", "· milvus at /srv/litsift/milvus.db"),
        ("milvus at http://10.0.0.5:19530\x1b[2J", "· milvus at http://10.0.0.5:19530"),
        ("local", None),
    ],
)
async def test_the_status_line_names_a_milvus_engine(
    empty_service: Any, engine: str, shown: str | None
) -> None:
    app = create_app(empty_service, show_timings=False)
    async with app.run_test(size=(120, 24)) as pilot:
        await pilot.pause()
        await pilot.press("escape")  # the empty-store screen
        status = app.query_one("#status", StatusLine)
        result = SearchResult(
            Query("dialogue", Kind.PAPER), (), 0.01, signals_used=("bm25", "dense"), engine=engine
        )
        status.show_result(result)
        await pilot.pause()
        line = status.render_line(0).text.strip()
        assert line.startswith("0 results · papers · any year")
        assert "\x1b" not in line
        if shown is None:
            assert "milvus" not in line and "local" not in line
        else:
            assert shown in line, line
