"""The detail pane of an edited book names its editors (it showed "Authors: —" for one whose
editors were read, and its editors as "Authors" for one imported from BibTeX): the real
library of tests/unit/test_export_editors.py, ``guinote2010`` (an ``@book`` with editors and no
author) and ``cowan1999`` (a chapter: its author, and its book's editors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.tui.widgets.detail_pane import Extras, render_hit
from litsift.types import Hit, Kind, Paper

THESIS_BIB = (
    shared_data_dir()
    / "sources"
    / "reference-managers"
    / "bibtex"
    / "thesis-psychology_zotero-bbt-export.bib"
)

pytestmark = pytest.mark.skipif(not THESIS_BIB.is_file(), reason=f"{THESIS_BIB} not here")


def _detail(svc: LitsiftService, title: str, year: int) -> str:
    sql = "SELECT id FROM papers WHERE title = ? AND year = ?"
    (doc_id,) = [d for (d,) in svc.store._conn.execute(sql, (title, year))]
    paper = svc.store.get(Kind.PAPER, doc_id)
    assert isinstance(paper, Paper)
    annotation = svc.annotations(Kind.PAPER, [doc_id])[doc_id]
    return render_hit(Hit(paper, 1, 1.0), Extras(annotation=annotation)).plain


def test_an_edited_book_shows_its_editors_in_place_of_authors(tmp_path: Path) -> None:
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [THESIS_BIB]).added > 0
        book = _detail(svc, "The Social Psychology of Power", 2010)
        assert "Editors: Ana Guinote, Theresa K. Vescio (eds.)\n" in book
        assert "Authors:" not in book
        chapter = _detail(svc, "An Embedded-Processes Model of Working Memory", 1999)
        assert "Authors: Nelson Cowan\n" in chapter
        assert "Editors: Akira Miyake, Priti Shah (eds.)\n" in chapter
