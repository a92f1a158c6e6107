"""A paper's pages as one page when its first and last page are the same, whichever reader
and however the source wrote them; Ovid's "No Pagination Specified" as no pages; every other
page value as the source wrote it (roman numerals, article numbers, ``e1234``).

Every reader's pages pass through :func:`~litsift.sources.formats.biblio_types.page_range`,
which made one page of a first and a last page in two fields (RIS ``SP``/``EP``, OpenAlex
``first_page``/``last_page``) but kept one field's ``179-179`` (Crossref's and CSL's ``page``,
BibTeX's ``pages = {1242--1242}``, RIS ``SP  - 22-22``) as written, so the same paper's
pages read ``179`` from one source and ``179-179`` from another, and exports wrote
``pages = {179--179}``. Ovid's placeholder for a paper without pages was stored as its pages:
``No-Specified`` (its RIS splits it into ``SP  - No`` / ``EP  - Specified``) and, through
Mendeley's BibTeX, ``No Pagination Specified-No Pagination Specified``.

Data: Crossref, CSL-JSON, BibTeX and RIS exports of ``../shared/data/sources`` (origins in its
README); every expected value below was read out of those files.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.biblio_types import page_range
from litsift.sources.formats.registry import detect

SOURCES = shared_data_dir() / "sources"
REFS = SOURCES / "reference-managers"
#: the real files that write a range of one page in one field, or Ovid's placeholder
FILES = [
    SOURCES / "crossref" / "works_query-widget_cursor-page2.json",  # "page":"3525-3525"
    REFS / "csl-json" / "thesis-psychology_zotero-csl-json-export.json",  # "1242-1242"
    REFS / "csl-json" / "deep-review_manubot-csl-items.json",  # "e191-e191", "406.3-406.3"
    REFS / "bibtex" / "thesis-psychology_zotero-bbt-export.bib",  # {1242--1242}
    REFS / "bibtex" / "bbt_mendeley-export_duplicate-keys.bib",  # Ovid's, through Mendeley
    REFS / "ris" / "asreview_rayyan-export_multiline-kw.ris",  # SP  - 22-22
    REFS / "ris" / "asreview_ovid-psycinfo-export.ris",  # SP  - No / EP  - Specified
]
#: Black & Barnes 2020, ``pages = {No Pagination Specified-No Pagination Specified}``
DOI = "10.1037/ppm0000281"
#: a range of one page, in one field (``179-179``, ``e191--e191``)
SAME_RE = re.compile(r"^([^-]+)-+\1$")


def _pages(path: Path) -> list[str]:
    if not path.is_file():
        pytest.skip(f"{path} not here")
    fmt = detect(path)
    assert fmt is not None, path
    return [r.biblio.get("pages", "") for r in fmt.read(path) if isinstance(r, SourceRecord)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_range_of_one_page_is_that_page(path: Path) -> None:
    raw = path.read_text(encoding="utf-8-sig")
    assert re.search(r"(\d+|e\d+)--?\1\b|No Pagination|^SP  - No$", raw, re.M)
    pages = [p for p in _pages(path) if p]
    assert pages and not [p for p in pages if SAME_RE.match(p)]
    assert not [p for p in pages if "Specified" in p]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (FILES[0], {"3525"}),
        (FILES[1], {"1242", "xi, 291"}),
        (FILES[2], {"1", "1254806", "404", "406.3", "539", "e107", "e156", "e191"}),
        (FILES[2], {"i126-i134", "i121-i127"}),
        (FILES[3], {"1242"}),
        (FILES[5], {"22", "739", "145", "321"}),
        (REFS / "csl-json" / "bbt-1400_better-csl-json.json", {"l1120"}),
        (SOURCES / "crossref" / "works_sample-10.json", {"i-ii"}),
        (SOURCES / "crossref" / "works_10.1371-journal.pone.0033693.json", {"e33693"}),
    ],
    ids=lambda v: v.stem if isinstance(v, Path) else str(len(v)),
)
def test_pages_read_out_of_the_real_files(path: Path, expected: set[str]) -> None:
    """One page for the one-page ranges; roman numerals (``i-ii``, ``i126-i134``, ``xi,
    291``), article numbers (``e33693``, ``l1120``) as written."""
    assert expected <= set(_pages(path))


def test_ovids_placeholder_is_no_pages() -> None:
    """Ovid PsycInfo's RIS: records 1, 4 and 6 of 6 ``SP  - No`` / ``EP  - Specified`` (its
    link resolver's ``pages=No+Pagination+Specified``): no pages, as record 5 without ``SP``;
    the others keep theirs. Mendeley's BibTeX of such a record: no pages either."""
    assert _pages(FILES[6]) == ["", "847-856", "26-33", "", "", ""]
    fmt = detect(FILES[4])
    assert fmt is not None
    (black,) = [
        r for r in fmt.read(FILES[4]) if isinstance(r, SourceRecord) and r.ids.get("doi") == DOI
    ]
    assert "pages" not in black.biblio


@pytest.mark.parametrize(
    ("first", "last", "pages"),
    [
        ("179-179", "", "179"),
        ("179", "179", "179"),
        ("1242--1242", "", "1242"),
        ("e191 – e191", "", "e191"),
        ("xii-xii", "", "xii"),
        ("xii-xiv", "", "xii-xiv"),
        ("e1234", "", "e1234"),
        ("41103-1", "", "41103-1"),
        ("12-12-15", "", "12-12-15"),
        ("1781", "1802", "1781-1802"),
        ("No", "Specified", ""),
        ("No Pagination Specified-No Pagination Specified", "", ""),
        ("No", "", "No"),
    ],
)
def test_page_range(first: str, last: str, pages: str) -> None:
    assert page_range(first, last) == pages
