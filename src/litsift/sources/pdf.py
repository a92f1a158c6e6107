"""PDF files (a folder of papers): title, abstract, identifiers and full text, with pymupdf.

* **title**: the document metadata's title when it looks like one (not empty, not a file name,
  not "Microsoft Word - ..."), else the largest-font lines at the top of page 1;
* **authors**: the metadata's author field when it lists names (``;`` or ``,`` separated);
* **abstract**: the text after an "Abstract" heading on the first two pages, up to the next
  heading ("1 Introduction", "Keywords", "Background", ...);
* **identifiers**: a DOI / arXiv id printed on the first two pages (or in the metadata);
* **year**: the metadata's creation date, else none (a year in running text is too unsure);
* **sections**: the full text as (heading, paragraph) pairs, hyphenation at line ends undone.

A PDF without a text layer (a scan), an encrypted PDF, or a file pymupdf cannot open is an
:class:`~litsift.errors.IngestError` naming what to do (OCR it, decrypt it); the other files
of the folder go on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, year_from
from litsift.sources.ids import ids_in_text, normalize_arxiv, normalize_doi
from litsift.types import Kind

__all__ = ["FORMATS", "read_pdf"]

_DOI_RE = re.compile(r"\b(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/[^\s\"<>]+)", re.I)
_ARXIV_RE = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5})(v\d+)?", re.I)
_HEADING_RE = re.compile(
    r"^\s*(?:\d+\.?\s+|[IVX]+\.\s+)?(introduction|keywords?|background|index terms|"
    r"1\s+introduction|methods?|results|main)\b",
    re.I,
)
_BAD_TITLE_RE = re.compile(r"(microsoft word|untitled|\.docx?$|\.pdf$|\.tex$|^\s*$)", re.I)


def _pymupdf() -> Any:
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)  # type: ignore[no-untyped-call]
    pymupdf.TOOLS.mupdf_display_warnings(False)  # type: ignore[no-untyped-call]
    return pymupdf


def _title_from_fonts(page: Any) -> str:
    spans = []
    for block in page.get_text("dict").get("blocks", []):
        for line in block.get("lines", []):
            text = "".join(s.get("text", "") for s in line.get("spans", []))
            sizes = [s.get("size", 0) for s in line.get("spans", []) if s.get("text", "").strip()]
            if text.strip() and sizes and line["bbox"][1] < page.rect.height * 0.5:
                spans.append((max(sizes), line["bbox"][1], clean_text(text)))
    if not spans:
        return ""
    top = max(s[0] for s in spans)
    lines = [t for size, _, t in sorted(spans, key=lambda s: s[1]) if size >= top - 0.6]
    return clean_text(" ".join(lines[:4]))


def _dehyphenate(text: str) -> str:
    return re.sub(r"(\w)-\n(\w)", r"\1\2", text)


def _abstract(text: str) -> str:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^\s*(abstract|a b s t r a c t)\b[\s.:—-]*", line, re.I):
            rest = re.sub(r"^\s*(abstract|a b s t r a c t)\b[\s.:—-]*", "", line, flags=re.I)
            out = [rest] if rest.strip() else []
            for nxt in lines[i + 1 :]:
                if _HEADING_RE.match(nxt) and len(" ".join(out)) > 200:
                    break
                out.append(nxt)
                if len(" ".join(out)) > 3000:
                    break
            return clean_text(_dehyphenate("\n".join(out)))
    return ""


def _sections(doc: Any) -> tuple[list[tuple[str, str]], list[int]]:
    """``(heading, paragraph)`` pairs in reading order and the 1-based page of each."""
    out: list[tuple[str, str]] = []
    pages: list[int] = []
    heading = ""
    for number, page in enumerate(doc, start=1):
        for block in page.get_text("blocks"):
            if block[6] != 0:  # image block
                continue
            text = _dehyphenate(str(block[4])).strip()
            if not text or re.fullmatch(r"[\d\s]+", text):  # page / line numbers
                continue
            one = clean_text(text)
            if len(one) < 80 and (_HEADING_RE.match(one) or re.match(r"^\d+(\.\d+)*\s+[A-Z]", one)):
                heading = one
                continue
            out.append((heading, one))
            pages.append(number)
    return out, pages


def _record(doc: Any, path: Path) -> SourceRecord:
    meta = doc.metadata or {}
    first = doc[0].get_text() if doc.page_count else ""
    second = doc[1].get_text() if doc.page_count > 1 else ""
    if len((first + second).strip()) < 50:
        raise IngestError(
            f"{path}: no text layer (a scanned PDF?)",
            "run OCR on it first (e.g. ocrmypdf IN.pdf OUT.pdf), then import OUT.pdf",
        )
    meta_title = clean_text(meta.get("title"))
    title = (
        meta_title
        if meta_title and not _BAD_TITLE_RE.search(meta_title) and len(meta_title) > 8
        else ""
    )
    title = title or _title_from_fonts(doc[0])
    authors = [
        clean_text(a)
        for a in re.split(r"\s*[;]\s*|\s+and\s+", meta.get("author") or "")
        if clean_text(a)
    ]
    ids: dict[str, str] = {}
    head = first + "\n" + second
    doi_match = _DOI_RE.search(head)
    if doi_match:
        doi = normalize_doi(doi_match.group(1))
        if doi:
            ids["doi"] = doi
    arxiv_match = _ARXIV_RE.search(head)
    if arxiv_match:
        arxiv = normalize_arxiv(arxiv_match.group(1))
        if arxiv:
            ids["arxiv"] = arxiv
    ids.update({k: v for k, v in ids_in_text(meta.get("subject") or "").items() if k not in ids})
    abstract = _abstract(head)
    if not abstract:  # no "Abstract" heading (Nature layout): the first long paragraph
        blocks = [
            clean_text(_dehyphenate(str(b[4]))) for b in doc[0].get_text("blocks") if b[6] == 0
        ]
        abstract = next((b for b in blocks if len(b) >= 400), "")
    sections, pages = _sections(doc)
    return SourceRecord(
        location=path.name,
        title=title,
        abstract=abstract,
        authors=authors,
        family_names=[a.split()[-1] for a in authors],
        year=year_from((meta.get("creationDate") or "").removeprefix("D:")[:4]),
        ids=ids,
        attachments=[path],
        sections=sections,
        section_pages=pages,
        source_key=path.name,
    )


def read_pdf(path: Path) -> Iterator[SourceRecord | BadItem]:
    """The one paper of a PDF file.

    Raises:
        IngestError: the file is not a PDF pymupdf can open, is encrypted, or has no text
            layer.
    """
    pymupdf = _pymupdf()
    try:
        doc = pymupdf.open(path)
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
        "PDF (title, abstract, DOI/arXiv id and full text from the text layer)",
    ),
]
