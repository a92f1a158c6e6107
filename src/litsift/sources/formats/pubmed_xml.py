"""PubMed XML (PubMed's "Send to: File, Format: XML"; E-utilities ``efetch.fcgi?db=pubmed
&retmode=xml``), streamed record by record (:mod:`litsift.sources.formats.xml_records`) and
detected by content (a ``PubmedArticleSet`` root or doctype, or one ``PubmedArticle``).

Elements (NLM, "PubMed XML element descriptions", DTD ``pubmed_250101.dtd``): a record is a
``<PubmedArticle>`` (``MedlineCitation`` + ``PubmedData``) or a ``<PubmedBookArticle>``
(NCBI Bookshelf: ``BookDocument`` + ``PubmedBookData``). Read: ``PMID``; ``ArticleTitle``
(its inline ``<i>``, ``<sup>``... kept as text; a book's ``BookTitle`` when there is none, the
record is then a book, else a chapter of it); ``Abstract/AbstractText``, a structured
abstract's sections joined as ``LABEL: text`` (as PubMed's MEDLINE format writes them);
``AuthorList/Author`` (``LastName`` + ``ForeName`` or ``Initials``, ``Suffix``; a
``CollectiveName`` is its own family name); an ``AuthorList Type="editors"`` (a Bookshelf
book's, in ``Book``) as the editors, never as authors;
the year of ``JournalIssue/PubDate`` (``Year``, or ``MedlineDate`` ``2003 Jan-Feb``), else of
``ArticleDate``; ``Journal/Title`` (``ISOAbbreviation`` when there is no title); the DOI of
``ELocationID EIdType="doi"`` or of the record's own ``PubmedData/ArticleIdList`` (not of its
``ReferenceList``), the PMC id there; ``MeshHeadingList`` descriptors and ``KeywordList``
keywords as tags; ``Volume``, ``Issue``, ``MedlinePgn`` (``StartPage``-``EndPage``), a book's
publisher and the ``PublicationTypeList`` (``Preprint``) for the bibliographic details.

A record without a title is yielded all the same: the writer reports it (``no title``) or, in
a review, keeps it under its DOI and abstract.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from litsift.sources.base import (
    BadItem,
    Format,
    SourceRecord,
    clean_text,
    year_from,
)
from litsift.sources.formats.biblio_types import biblio, page_range
from litsift.sources.formats.people import People, byline
from litsift.sources.formats.xml_records import first_text, read_records, text_of, xml_records
from litsift.sources.identity.ids import normalize_doi, normalize_pmcid, normalize_pmid
from litsift.types import Kind

__all__ = ["FORMATS", "read_pubmed_xml", "sniff_pubmed_xml"]

_RECORDS = ("PubmedArticle", "PubmedBookArticle")
_ROOTS = {"PubmedArticleSet", "PubmedBookArticleSet", *_RECORDS}
_SNIFF_RE = re.compile(rb"<(?:!DOCTYPE\s+)?Pubmed(?:Book)?Article(?:Set)?[\s>]")
_HINT = "export from PubMed with Send to: File, Format: XML (or efetch with retmode=xml)"


def sniff_pubmed_xml(head: bytes, path: Path) -> int:
    """97 for a file whose first 4 KiB open a ``PubmedArticleSet`` (or one ``PubmedArticle``
    / ``PubmedBookArticle``); 0 otherwise."""
    return 97 if _SNIFF_RE.search(head[:4096]) else 0


def _abstract(holder: etree._Element) -> str:
    """The ``Abstract`` of ``holder`` (an ``Article``, a ``BookDocument``): a structured
    abstract's sections as ``LABEL: text``, joined."""
    parts = []
    for part in holder.iterfind("./Abstract/AbstractText"):
        text, label = text_of(part), clean_text(part.get("Label"))
        if text:
            parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)


def _people(doc: etree._Element, role: str) -> People:
    """The persons of the record's ``AuthorList Type=ROLE`` (``authors``, the default, or
    ``editors``: a Bookshelf book's, in ``Book``), in order."""
    authors, families, parts = [], [], []
    for author_list in doc.iter("AuthorList"):
        if author_list.get("Type", "authors") != role:
            continue
        for author in author_list.iterfind("Author"):
            if author.get("ValidYN") == "N":
                continue
            group = text_of(author.find("CollectiveName"))
            family = text_of(author.find("LastName"))
            given = first_text(author, "ForeName", "Initials")
            suffix = text_of(author.find("Suffix"))
            if family:
                authors.append(" ".join(p for p in (given, family, suffix) if p))
                families.append(family)
                parts.append((family, given))
            elif group:
                authors.append(group)
                families.append(group)
    return People(authors, families, parts)


def _year(doc: etree._Element) -> int | None:
    for path in (
        "./Article/Journal/JournalIssue/PubDate/Year",
        "./Article/Journal/JournalIssue/PubDate/MedlineDate",
        "./Article/ArticleDate/Year",
        "./Book/PubDate/Year",
        "./Book/PubDate/MedlineDate",
    ):
        year = year_from(text_of(doc.find(path)))
        if year:
            return year
    return None


def _ids(item: etree._Element, doc: etree._Element) -> dict[str, str]:
    ids: dict[str, str] = {}
    pmid = normalize_pmid(text_of(doc.find("./PMID")))
    if pmid:
        ids["pmid"] = pmid
    for loc in doc.iterfind("./Article/ELocationID[@EIdType='doi']"):
        doi = normalize_doi(text_of(loc)) if loc.get("ValidYN") != "N" else None
        if doi:
            ids["doi"] = doi
            break
    own = [*item.iterfind("./PubmedData/ArticleIdList/ArticleId")]
    own += [*item.iterfind("./PubmedBookData/ArticleIdList/ArticleId")]
    for aid in own:
        kind, value = aid.get("IdType", ""), text_of(aid)
        if kind == "doi" and "doi" not in ids:
            ids["doi"] = normalize_doi(value) or ""
        elif kind == "pmc" and "pmcid" not in ids:
            ids["pmcid"] = normalize_pmcid(value) or ""
        elif kind == "pubmed" and "pmid" not in ids:
            ids["pmid"] = normalize_pmid(value) or ""
    return {k: v for k, v in ids.items() if v}


def _tags(doc: etree._Element) -> list[str]:
    tags: list[str] = []
    mesh = doc.iterfind("./MeshHeadingList/MeshHeading/DescriptorName")
    for el in [*mesh, *doc.iterfind("./KeywordList/Keyword")]:
        tag = text_of(el)
        if tag and tag not in tags:
            tags.append(tag)
    return tags


def _title_venue_type(book: bool, doc: etree._Element) -> tuple[str, str, str]:
    """``(title, venue, CSL type)``: a Bookshelf record with an ``ArticleTitle`` is a chapter
    of its ``BookTitle``, without one the book itself."""
    if book:
        chapter, book_title = (
            text_of(doc.find("./ArticleTitle")),
            text_of(doc.find("./Book/BookTitle")),
        )
        return (chapter, book_title, "chapter") if chapter else (book_title, "", "book")
    title = first_text(doc, "./Article/ArticleTitle", "./Article/VernacularTitle")
    venue = first_text(doc, "./Article/Journal/Title", "./Article/Journal/ISOAbbreviation")
    kinds = {text_of(t).lower() for t in doc.iterfind("./Article/PublicationTypeList/*")}
    return title, venue, "article" if "preprint" in kinds else "article-journal"


def _pages(doc: etree._Element) -> str:
    pages = doc.find("./Article/Pagination")
    if pages is None:
        return ""
    return text_of(pages.find("MedlinePgn")) or page_range(
        text_of(pages.find("StartPage")), text_of(pages.find("EndPage"))
    )


def _record(item: etree._Element, n: int) -> SourceRecord | BadItem:
    book = item.tag == "PubmedBookArticle"
    doc = item.find("./BookDocument" if book else "./MedlineCitation")
    if doc is None:
        return BadItem(
            f"record {n}",
            f"<{item.tag}> has no {'BookDocument' if book else 'MedlineCitation'}; skipped",
        )
    ids = _ids(item, doc)
    title, venue, kind = _title_venue_type(book, doc)
    holder = doc if book else doc.find("./Article")
    abstract = _abstract(holder) if holder is not None else ""
    issue = "./Article/Journal/JournalIssue"
    return SourceRecord(
        location=f"record {n}",
        title=title,
        abstract=abstract,
        **byline(_people(doc, "authors"), _people(doc, "editors")),
        year=_year(doc),
        venue=venue,
        url=f"https://pubmed.ncbi.nlm.nih.gov/{ids['pmid']}/" if ids.get("pmid") else "",
        ids=ids,
        tags=_tags(doc),
        source_key=ids.get("pmid", ""),
        biblio=biblio(
            kind,
            volume=text_of(doc.find(f"{issue}/Volume")),
            issue=text_of(doc.find(f"{issue}/Issue")),
            pages=_pages(doc),
            publisher=text_of(doc.find("./Book/Publisher/PublisherName")),
        ),
    )


def read_pubmed_xml(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every ``PubmedArticle`` / ``PubmedBookArticle`` of a PubMed XML file (maybe gzip);
    one that cannot be read is a :class:`BadItem` at ``record N``.

    Raises:
        IngestError: the file cannot be read, is not XML, is not PubMed XML or holds no record.
    """
    records = xml_records(path, _RECORDS, _ROOTS.__contains__, "PubMed record", _HINT)
    yield from read_records(records, _record)


FORMATS = [
    Format(
        name="pubmed-xml",
        kind=Kind.PAPER,
        read=read_pubmed_xml,
        sniff=sniff_pubmed_xml,
        extensions=(".xml",),
        description="PubMed XML (Send to: File, XML; efetch retmode=xml)",
    ),
]
