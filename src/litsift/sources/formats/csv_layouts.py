"""The column layouts of the CSV files :mod:`litsift.sources.formats.csv_exports` reads: each
database's export (Scopus, IEEE Xplore, SpringerLink, PubMed, Embase), recognised by its header,
and any other table of records (:func:`table_layout`: ASReview / SYNERGY data sets, Rayyan,
Covidence, a spreadsheet saved as CSV), whose columns are found by their names.

PubMed's ``Citation`` (``Behav Ther. 2022 Mar;53(2):334-347. doi: ...``) and Embase's
``Source`` (``Cancer (2004) 102:4 (253-258). Date of Publication: 25 Aug 2004``) hold the
volume, issue and pages (Embase: the journal and year too): :func:`citation_parts`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, fields

from litsift.sources.formats.biblio_types import biblio, csl_type, page_range

__all__ = [
    "ALIASES",
    "LAYOUTS",
    "Layout",
    "aligned",
    "citation_parts",
    "layout_biblio",
    "python_list",
    "table_layout",
]


@dataclass(frozen=True)
class Layout:
    """The columns of one vendor's CSV export ("" = the export has no such column).

    Attributes:
        name: ``scopus``, ``ieee``, ``ieee-short``, ``springer``, ``pubmed``,
            ``pubmed-legacy``, ``embase`` or
            ``table`` (:func:`table_layout`: columns found by their names).
        required: header columns that identify the export.
        names: how the ``authors`` column writes people (see :func:`people`).
    """

    name: str
    required: tuple[str, ...]
    title: str
    authors: str
    names: str
    year: str
    venue: str
    doi: str
    url: str = ""
    abstract: str = ""
    keywords: str = ""
    full_names: str = ""
    author_ids: str = ""
    pmid: str = ""
    key: str = ""
    #: the locator's columns (:func:`litsift.sources.identity.locators.locator`)
    volume: str = ""
    issue: str = ""
    page: str = ""
    article: str = ""
    isbn: str = ""
    #: a column holding the citation line (PubMed ``Citation``, Embase ``Source``) whose
    #: volume, issue and pages (and, for Embase, venue and year) :func:`citation_parts` reads
    citation: str = ""
    pmcid: str = ""
    #: the review's decision per record (ASReview's ``label_included`` and its other names)
    label: str = ""
    #: the record's notes (a Rayyan export's carry its screening work)
    notes: str = ""
    #: the bibliographic details' columns beside the locator's: the vendor's document type
    #: (:func:`~litsift.sources.formats.biblio_types.csl_type` ``vendor-csv``), last page,
    #: publisher
    doc_type: str = ""
    page_end: str = ""
    publisher: str = ""


LAYOUTS: tuple[Layout, ...] = (
    Layout(
        name="scopus",
        required=("Authors", "Title", "Source title"),
        title="Title",
        authors="Authors",
        names="scopus",
        year="Year",
        venue="Source title",
        doi="DOI",
        url="Link",
        abstract="Abstract",
        keywords="Author Keywords",
        full_names="Author full names",
        author_ids="Author(s) ID",
        pmid="PubMed ID",
        key="EID",
        volume="Volume",
        issue="Issue",
        page="Page start",
        article="Art. No.",
        isbn="ISBN",
        doc_type="Document Type",
        page_end="Page end",
        publisher="Publisher",
    ),
    Layout(
        name="ieee",
        required=("Document Title", "Publication Title"),
        title="Document Title",
        authors="Authors",
        names="given-family;",
        year="Publication Year",
        venue="Publication Title",
        doi="DOI",
        url="PDF Link",
        abstract="Abstract",
        keywords="Author Keywords",
        volume="Volume",
        issue="Issue",
        page="Start Page",
        isbn="ISBNs",
        doc_type="Document Identifier",
        page_end="End Page",
        publisher="Publisher",
    ),
    Layout(
        name="ieee-short",
        required=("Title", "Authors", "Affiliations", "Publication", "Category", "DOI"),
        title="Title",
        authors="Authors",
        names="given-family,",
        year="",
        venue="Publication",
        doi="DOI",
        abstract="Abstract",
    ),
    Layout(
        name="springer",
        required=("Item Title", "Item DOI"),
        title="Item Title",
        authors="Authors",
        names="run-together",
        year="Publication Year",
        venue="Publication Title",
        doi="Item DOI",
        url="URL",
        volume="Journal Volume",
        issue="Journal Issue",
        doc_type="Content Type",
    ),
    Layout(  # PubMed's "Save: CSV" (since 2020)
        name="pubmed",
        required=("PMID", "Title", "Authors", "Citation", "Journal/Book"),
        title="Title",
        authors="Authors",
        names="family-initials,",
        year="Publication Year",
        venue="Journal/Book",
        doi="DOI",
        pmid="PMID",
        key="PMID",
        citation="Citation",
        pmcid="PMCID",
    ),
    Layout(  # PubMed's "Send to: File, CSV" (until 2020): authors in ``Description``, the
        # citation line in ``Details``, ``Journal.  2019`` in ``ShortDetails``
        name="pubmed-legacy",
        required=("Title", "URL", "Description", "Details", "ShortDetails", "EntrezUID"),
        title="Title",
        authors="Description",
        names="family-initials,",
        year="ShortDetails",
        venue="",
        doi="Details",
        pmid="EntrezUID",
        key="EntrezUID",
        citation="Details",
    ),
    Layout(  # Embase's CSV export (Elsevier)
        name="embase",
        required=("Title", "Author Names", "Source", "Emtree Medical Index Terms"),
        title="Title",
        authors="Author Names",
        names="scopus",
        year="",
        venue="",
        doi="",
        url="Open URL Link",
        abstract="Abstract",
        keywords="Emtree Medical Index Terms",
        citation="Source",
    ),
)


#: other names a column has had in the vendors' exports (read when the layout's is absent)
ALIASES: dict[str, tuple[str, ...]] = {
    "Publication Year": ("Year", "Publication year"),
    "Year": ("Publication Year",),
    "Publication Title": ("Publication", "Source Title"),
    "Author Keywords": ("Author keywords", "Keywords"),
    "PDF Link": ("Document URL", "URL"),
    "Item DOI": ("DOI",),
    "URL": ("Link",),
}


#: :func:`table_layout`: a field -> the column names it is read from, normalised (lower case,
#: spaces and underscores alike); the first present wins. After ASReview's column names
#: (asreview ``config.py`` ``COLUMN_DEFINITIONS``: ``primary_title``, ``notes_abstract``,
#: ``first_authors``, ``mesh_terms``, ``final_included``, ...), Rayyan's and Covidence's CSV
#: exports, and RIS tag names.
TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "title": ("title", "primary title", "article title", "document title", "paper title", "ti",
              "t1"),
    "abstract": ("abstract", "abstract note", "notes abstract", "ab", "n2"),
    "authors": ("authors", "author", "author names", "first authors", "au", "a1"),
    "year": ("year", "publication year", "published year", "pub year", "py", "date",
             "publication date"),
    # "venue" before "source": litsift's own review export has both, its source being where a
    # decision came from (user / prior / resolved / conflict)
    "venue": ("journal", "journal title", "secondary title", "source title", "venue", "source",
              "publication", "publication title", "journal/book", "jo", "t2"),
    "doi": ("doi", "do"),
    "pmid": ("pmid", "pubmed id", "pubmed_id"),
    "url": ("url", "link", "ur"),
    "keywords": ("keywords", "mesh terms", "kw", "tags"),
    "key": ("record id", "record_id", "id", "key", "covidence #", "accession number", "an"),
    "volume": ("volume", "vl"),
    "issue": ("issue", "number", "is"),
    "page": ("pages", "start page", "sp"),
    "label": ("label included", "final included", "included", "label", "included label",
              "included final", "included flag", "include"),
    "notes": ("notes", "note", "n1"),
}  # fmt: skip


def _norm(name: str) -> str:
    return " ".join(name.strip().lstrip("\ufeff").lower().replace("_", " ").split())


def table_layout(header: list[str]) -> Layout | None:
    """A layout for a table of records that is none of the databases' exports: each field
    read from the header's column of one of its :data:`TABLE_COLUMNS` names (any case,
    ``_`` as a space, padding ignored: ASReview's ``abstract `` column); None without a title
    or an abstract column. Authors are read in whichever style the cell writes them
    (``names="any"``)."""
    found: dict[str, str] = {}
    by_norm: dict[str, str] = {}
    for h in header:
        by_norm.setdefault(_norm(h), h.strip().lstrip("\ufeff"))
    for fact, names in TABLE_COLUMNS.items():
        for name in names:
            if _norm(name) in by_norm:
                found[fact] = by_norm[_norm(name)]
                break
    if "title" not in found and "abstract" not in found:
        return None
    known = {f.name for f in fields(Layout)}
    return Layout(
        name="table",
        required=(),
        title=found.get("title", ""),
        authors=found.get("authors", ""),
        names="any",
        year=found.get("year", ""),
        venue=found.get("venue", ""),
        doi=found.get("doi", ""),
        **{k: v for k, v in found.items() if k in known and k not in (
            "title", "authors", "year", "venue", "doi")},
    )  # fmt: skip


#: PubMed: ``Journal. 2022 Mar;53(2):334-347.`` -> volume, issue, pages
_PUBMED_CITATION_RE = re.compile(r";\s*([^;:()\s]+)\s*(?:\(([^)]*)\))?\s*:\s*([^.;\s]+)")
#: PubMed's journal abbreviation, which has no points: ``Neurospine. 2018 Sep;15(3):194-205.``
_PUBMED_JOURNAL_RE = re.compile(r"^([^.]+)\.\s+\d{4}\b")
#: Embase: ``Journal (2004) 102:4 (253-258). Date of Publication: ...``
_EMBASE_SOURCE_RE = re.compile(
    r"^(?P<venue>.+?)\s*\((?P<year>\d{4})\)\s*(?P<volume>[^:\s(]+)?(?::(?P<issue>[^\s(]+))?"
    r"\s*(?:\((?P<pages>[^)]*)\))?"
)


def citation_parts(layout: str, text: str) -> dict[str, str]:
    """The facts a citation cell holds: ``volume``, ``issue``, ``pages`` (PubMed and Embase),
    ``venue`` (Embase, PubMed's CSV until 2020) and ``year`` (Embase); ``{}`` for a cell that
    does not parse."""
    if layout.startswith("pubmed"):
        venue = _PUBMED_JOURNAL_RE.match(text) if layout == "pubmed-legacy" else None
        out = {"venue": venue.group(1)} if venue else {}
        m = _PUBMED_CITATION_RE.search(text)
        if m:
            out.update(volume=m.group(1), issue=m.group(2) or "", pages=m.group(3))
        return out
    m = _EMBASE_SOURCE_RE.match(text)
    if not m:
        return {}
    return {k: v.strip() for k, v in m.groupdict().items() if v}


def layout_biblio(
    layout: Layout, get: Callable[[str], str], volume: str, issue: str, pages: str
) -> dict[str, str]:
    """The :attr:`~litsift.sources.base.SourceRecord.biblio` of a row: ``get(column)`` reads
    one of its cells (``""`` for no column); ``pages`` the first page or the range, joined with
    the layout's last-page column when it has one."""
    return biblio(
        csl_type("vendor-csv", get(layout.doc_type)),
        volume=volume,
        issue=issue,
        pages=page_range(pages, get(layout.page_end)),
        publisher=get(layout.publisher),
    )


def aligned(layout: Layout, cells: list[str], col: dict[str, int]) -> list[str]:
    """A row's cells under their header's columns (``col``: column name -> index). A Scopus
    row with more cells than the header holds funding texts Scopus wrote without a header
    after its last ``Funding Text N`` column (exports of ~2022: ``Funding Text 1`` only, and
    rows of 45 and 46 cells): those cells are dropped. Any other row is returned as it is."""
    extra = len(cells) - (max(col.values(), default=-1) + 1)
    funding = [i for name, i in col.items() if name.startswith("Funding Text")]
    if layout.name != "scopus" or extra <= 0 or not funding:
        return cells
    at = max(funding) + 1
    return cells[:at] + cells[at + extra :]


def python_list(cell: str) -> list[str] | None:
    """The strings of a cell that holds a Python list literal (ASReview writes the authors
    and keywords of a RIS file so: ``['Marx, Karl', 'Lindgren, Astrid']``), else None."""
    if not (cell.startswith("[") and cell.endswith("]")):
        return None
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return [v for v in value if v.strip()]
