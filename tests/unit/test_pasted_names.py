"""Names typed or pasted in the app (a collection, a saved search) are stored without control
characters and escape sequences, as notes and tags are. A collection pasted with an OSC title
sequence was stored with it: the app showed the name sanitised (``related work``), and
``litsift export "related work"`` then said there was no such collection."""

from __future__ import annotations

from pathlib import Path

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query
from tests.terminal.conftest import papers_file

PASTED = "related\x1b]0;pwned\x07 work\x1b[2J"


def test_a_pasted_collection_and_saved_search_name_are_stored_clean(tmp_path: Path) -> None:
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.ingest(Kind.PAPER, papers_file(tmp_path, 3))
        doc_id = svc.store.ids_by_rowid(Kind.PAPER, [1])[1]
        assert svc.annotate(Kind.PAPER, doc_id, collection=PASTED) == "related work"
        assert svc.collections() == ["related work"]
        assert "@" in svc.export("related work", "bibtex")  # the name the app shows exports
        saved = svc.save_query(Query("graph neural networks", Kind.PAPER), PASTED)
        assert saved is not None and saved.name == "related work"
