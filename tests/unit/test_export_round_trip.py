"""Exports read back: a real library is imported, exported as BibTeX and imported again, and
what the second import holds is what the first one did (a tester found a straight double
quote come back as two apostrophes, and a lone brace written so that the ``.bib`` was no
longer BibTeX).

The records are from a real user library (Better BibTeX's issue 873 test file)."""

from __future__ import annotations

from pathlib import Path

import bibtexparser
import pytest

from litsift.export.formats import to_bibtex
from litsift.paths import shared_data_dir
from litsift.sources.importer import import_paths
from litsift.store.repo import Store
from litsift.types import Kind, Paper

REFS = shared_data_dir() / "sources" / "reference-managers"
LIBRARY = REFS / "bibtex" / "bbt-873_user-library_crossref_duplicate-keys.bib"

pytestmark = pytest.mark.skipif(not LIBRARY.is_file(), reason=f"{LIBRARY} not here")


def _papers(store: Store) -> dict[str, Paper]:
    ids = [r[0] for r in store._conn.execute("SELECT id FROM papers")]
    got = (store.get(Kind.PAPER, d) for d in ids)
    return {p.title: p for p in got if isinstance(p, Paper)}


def _bibtex_depths_ok(value: str) -> bool:
    """BibTeX's own rule: every brace counts, a backslash before it or not."""
    depth = 0
    for ch in value:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


def test_quotes_and_a_lone_brace_survive_a_bibtex_export(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite")
    assert import_paths(store, [LIBRARY], Kind.PAPER).added > 0
    before = _papers(store)
    # line 10226: title = "Simulated Penetration Testing: From {"}Dijkstra{"} to ..."
    (quoted,) = [t for t in before if t.startswith("Simulated Penetration Testing")]
    assert '"Dijkstra"' in quoted
    # line 6524: AUTHOR = {Sylvie Thi\{'ebaux and ...}: the broken accent leaves a lone brace
    (brace,) = [p for p in before.values() if any("{" in a for a in p.authors)]

    text = to_bibtex(store, [before[quoted], brace])
    lib = bibtexparser.parse_string(text)
    assert not lib.failed_blocks and len(lib.entries) == 2
    for entry in lib.entries:
        for field in entry.fields:
            assert _bibtex_depths_ok(str(field.value)), (entry.key, field.key, field.value)

    out = tmp_path / "export.bib"
    out.write_text(text, encoding="utf-8")
    again = Store(tmp_path / "b.sqlite")
    assert import_paths(again, [out], Kind.PAPER).added == 2
    after = _papers(again)
    assert quoted in after  # not "From ''Dijkstra'' to ''Turing Test++''"
    assert after[brace.title].authors == brace.authors


MANUBOT = REFS / "csl-json" / "deep-review_manubot-csl-items.json"
OPENALEX = shared_data_dir() / "sources" / "openalex" / "api"
REFERENCED = OPENALEX / "works_filter-cited_by_two-works_per-page-200_cursor.json"


def test_a_misc_entry_keeps_its_venue_through_a_bibtex_export(tmp_path: Path) -> None:
    """A web page's site, a report's or preprint's server had no field in ``@misc``: a stored
    type (CSL ``webpage``, ``document``, OpenAlex's preprint ``article``) wrote none and a venue
    of unknown kind went to ``note``, so a re-import had no venue or took the publisher
    (arXiv (Cornell University) came back as Cornell University)."""
    files = [p for p in (LIBRARY, MANUBOT, REFERENCED) if p.is_file()]
    store = Store(tmp_path / "a.sqlite")
    assert import_paths(store, files, Kind.PAPER).added > 0
    before = _papers(store)
    text = to_bibtex(store, list(before.values()))
    misc = {
        str(e["title"]) for e in bibtexparser.parse_string(text).entries if e.entry_type == "misc"
    }
    out = tmp_path / "export.bib"
    out.write_text(text, encoding="utf-8")
    again = Store(tmp_path / "b.sqlite")
    import_paths(again, [out], Kind.PAPER)
    after = _papers(again)
    checked = [
        t
        for t, p in before.items()
        if p.venue and t in after and to_bibtex(store, [p]).startswith("@misc")
    ]
    print(len(checked), "misc entries with a venue")
    assert len(checked) >= 20 and misc
    lost = {
        t: (before[t].venue, after[t].venue) for t in checked if after[t].venue != before[t].venue
    }
    assert not lost
