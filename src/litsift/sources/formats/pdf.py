"""PDF files (a folder of papers): title, authors, year, abstract, identifiers and full text,
with pymupdf.

* **title**: the title block of page 1 (:mod:`litsift.sources.formats.pdf_front`: the largest
  horizontal font, so arXiv's rotated margin stamp, running heads and section headings are
  left out); the document metadata's title instead when it looks like one (not empty, not a
  file name, not "Microsoft Word - ...", not an arXiv stamp) and page 1 prints it;
* **authors**: persons, from the byline under the title (affiliation markers, e-mail
  addresses, affiliations and degrees dropped), or from the metadata's author field split into
  persons (``"A B, C D, and E F"``, ``"Family, Given"``) when that names as many people (and
  is not written family name first, ``"Espinoza Jaime A"``);
* **identifiers**: the arXiv id of the paper's stamp (a line ``arXiv:ID [cat] date``, or the
  metadata holding it), a DOI printed on page 1 (or in the metadata, or on page 2 before its
  references);
* **year**: the arXiv id's year (``1810.04805`` -> 2018, ``hep-th/9802150`` -> 1998), else the
  year printed on page 1 (a published/posted date, a venue line such as "Proceedings of ...
  2019" or "2022, Vol. 37(2)", a copyright line), else none: never the file's creation date;
* **abstract**: the text after an "Abstract" heading on the first two pages, up to the next
  heading ("1 Introduction", "Keywords", "Background", ...);
* **sections**: the full text as (heading, paragraph) pairs
  (:mod:`litsift.sources.formats.pdf_body`: running heads and the reference list left out,
  ligatures spelled out, hyphenation undone).

These are read off the page layout, so a paper already in the store (the same DOI or arXiv id)
keeps its stored title, authors and year; the PDF adds its full text, attachment and what the
stored record lacks.

A PDF without a text layer (a scan), an encrypted PDF, or a file pymupdf cannot open is an
:class:`~litsift.errors.IngestError` naming what to do (OCR it, decrypt it); the other files
of the folder go on.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, storable_path
from litsift.sources.formats.pdf_body import HEADING_RE, body_sections, pdf_text
from litsift.sources.formats.pdf_front import (
    arxiv_stamp,
    arxiv_year,
    page_lines,
    printed_year,
    title_and_byline,
)
from litsift.sources.formats.pdf_hyphens import dehyphenate
from litsift.sources.identity.ids import ids_in_text, normalize_doi
from litsift.sources.identity.matcher import title_key
from litsift.sources.identity.person_names import metadata_persons
from litsift.types import Kind

__all__ = ["FORMATS", "read_pdf"]

_DOI_RE = re.compile(r"\b(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/[^\s\"<>]+)", re.I)
_REFERENCES_RE = re.compile(r"\n\s*(?:\d+\.?\s*)?(?:references|bibliography)\s*\n", re.I)
_BAD_TITLE_RE = re.compile(
    r"(microsoft word|untitled|\.docx?$|\.pdf$|\.tex$|^\s*$|^arxiv:|^paper title)", re.I
)


def _pymupdf() -> Any:
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)  # type: ignore[no-untyped-call]
    pymupdf.TOOLS.mupdf_display_warnings(False)  # type: ignore[no-untyped-call]
    return pymupdf


def _squeezed(text: str) -> str:
    """``text`` folded for "is printed on the page": no spaces at all, since some PDFs set
    letter groups apart ("Lineag e-det ermining")."""
    return title_key(text).replace(" ", "")


def _abstract(text: str) -> str:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^\s*(abstract|a b s t r a c t)\b[\s.:—-]*", line, re.I):
            rest = re.sub(r"^\s*(abstract|a b s t r a c t)\b[\s.:—-]*", "", line, flags=re.I)
            out = [rest] if rest.strip() else []
            for nxt in lines[i + 1 :]:
                if HEADING_RE.match(nxt) and len(" ".join(out)) > 200:
                    break
                out.append(nxt)
                if len(" ".join(out)) > 3000:
                    break
            return clean_text(dehyphenate("\n".join(out)))
    return ""


def _record(doc: Any, path: Path) -> SourceRecord:
    meta = doc.metadata or {}
    first = doc[0].get_text() if doc.page_count else ""
    second = doc[1].get_text() if doc.page_count > 1 else ""
    if len((first + second).strip()) < 50:
        raise IngestError(
            f"{path}: no text layer (a scanned PDF?)",
            "run OCR on it first (e.g. ocrmypdf IN.pdf OUT.pdf), then import OUT.pdf",
        )
    page = doc[0]
    lines = page_lines(page)
    height = float(page.rect.height)
    title, _, by_layout = title_and_byline(lines, height)
    meta_title = clean_text(html.unescape(meta.get("title") or ""))
    if (
        len(meta_title) > 8
        and not _BAD_TITLE_RE.search(meta_title)
        and (not title or _squeezed(meta_title) in _squeezed(first))
    ):
        title = meta_title
    by_meta = metadata_persons(meta.get("author") or "")
    people = by_meta if by_meta and len(by_meta) >= len(by_layout) else by_layout
    ids: dict[str, str] = {}
    own_refs = _REFERENCES_RE.split(second, maxsplit=1)[0]
    for text in (first, meta.get("subject") or "", meta.get("keywords") or "", own_refs):
        doi_match = _DOI_RE.search(text)
        doi = normalize_doi(doi_match.group(1)) if doi_match else None
        if doi:
            ids["doi"] = doi
            break
    arxiv = arxiv_stamp(lines, meta.get("title") or "", meta.get("subject") or "")
    if arxiv:
        ids["arxiv"] = arxiv
    ids.update({k: v for k, v in ids_in_text(meta.get("subject") or "").items() if k not in ids})
    year = arxiv_year(arxiv) if arxiv else None
    head = pdf_text(first + "\n" + second)
    abstract = _abstract(head)
    if not abstract:  # no "Abstract" heading (Nature layout): the first long paragraph
        blocks = [
            clean_text(dehyphenate(pdf_text(str(b[4]))))
            for b in doc[0].get_text("blocks")
            if b[6] == 0
        ]
        abstract = next((b for b in blocks if len(b) >= 400), "")
    sections, pages = body_sections(doc)
    return SourceRecord(
        location=path.name,
        title=clean_text(pdf_text(title)),
        abstract=abstract,
        authors=[name for name, _ in people],
        family_names=[family for _, family in people],
        year=year or printed_year(lines, height, meta.get("subject") or ""),
        ids=ids,
        attachments=[path],
        sections=sections,
        section_pages=pages,
        source_key=storable_path(path.name),
    )


def read_pdf(path: Path) -> Iterator[SourceRecord | BadItem]:
    """The one paper of a PDF file.

    Raises:
        IngestError: the file is not a PDF pymupdf can open, is encrypted, or has no text
            layer.
    """
    pymupdf = _pymupdf()
    try:
        if storable_path(str(path)) == str(path):
            doc = pymupdf.open(path)
        else:  # mupdf takes a path as UTF-8: a name of other bytes is opened by Python
            doc = pymupdf.open(stream=path.read_bytes(), filetype="pdf")
    except Exception as err:
        raise IngestError(
            f"{path}: cannot be opened as a PDF ({err})"[:300], "is the file complete?"
        ) from None
    try:
        if doc.needs_pass:
            raise IngestError(
                f"{path}: the PDF is encrypted", "save a copy without a password, then import it"
            )
        try:
            record = _record(doc, path)
        except IngestError:
            if doc.is_repaired and not doc.page_count:  # mupdf rebuilt a broken or cut file
                raise IngestError(
                    f"{path}: a damaged or cut-off PDF: no page can be read (an incomplete "
                    "download?)",
                    "download the PDF again",
                ) from None
            raise
        except Exception as err:
            raise IngestError(
                f"{path}: cannot read its text ({type(err).__name__}: {err})"[:300], ""
            ) from None
    finally:
        doc.close()
    yield record


FORMATS = [
    Format(
        "pdf",
        Kind.PAPER,
        read_pdf,
        lambda head, path: 95 if head.startswith(b"%PDF-") else 0,
        (".pdf",),
        False,
        "PDF (title, authors, year, abstract, DOI/arXiv id and full text from the text layer)",
    ),
]
