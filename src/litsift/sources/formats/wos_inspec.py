"""Web of Science plain-text records from its Inspec database (``UT INSPEC:9027814``), whose
tags mean other things than the Core Collection's (JabRef's ``IsiImporterTestInspec.isi``):

* ``ID`` holds the article's identifiers, each in brackets (``...],[S0003-6951(06)22430-6],
  [10.1063/1.2234275]``: the journal's item code, the SICI, the PII, the DOI), not Keywords
  Plus: the DOI is read from it, and nothing of it is a keyword.
* ``DE`` holds Inspec's indexing in sections separated by ``/`` and a space: the treatment
  (``Experimental``), the controlled terms, the uncontrolled terms, the classification codes
  (``A4265K Optical harmonic generation ...``), the numerical indexing (``wavelength 2.78E-07
  m``) and the chemical indexing (``BaB2O4/ss B2/ss``); the terms are the record's keywords,
  the rest is not.
* Inspec writes sub- and superscripts as ``/sub 2/`` and ``/sup +/`` (``BaB/sub 2/O/sub 4/``):
  written out in the title, abstract and terms (``BaB2O4``), as other sources give them.
* The pages of an article-numbered paper are the article number, a hyphen and the page within
  it: ``BP 41103-1``, ``EP 41103-41103-3``, ``PS 41103-1-3`` (Applied Physics Letters' article
  041103, pages 1 to 3; the ``ID`` says ``041103-1(3)``). They were read as a page range
  ``41103-1-41103-41103-3``; they are now its article number, ``AR 41103``, as the Core
  Collection writes one (and so the record's pages, as Crossref gives such a paper's
  ``page``). Pages of other papers (``BP 5323``, ``EP 5331``) are read as they are.
"""

from __future__ import annotations

import re
from typing import Any

from litsift.sources.identity.ids import normalize_doi

__all__ = ["inspec_fields"]

#: Inspec's sub- and superscript markup: ``/sub 2/``, ``/sup +/``, ``/sub 2 /``
_SCRIPT_RE = re.compile(r"/su[bp] ([^/]*?) ?/")
#: the ``/`` and space between two sections of ``DE``
_SECTION_RE = re.compile(r"/\s+")
#: a classification code, the start of that section (``A4265K``, ``B4320G``, ``A7240``)
_CLASS_CODE_RE = re.compile(r"^[A-Z][0-9]{4}[A-Z]?\b")
#: Inspec's treatment codes, as WoS writes them before the terms
_TREATMENTS = frozenset(
    {
        "application",
        "bibliography",
        "economic",
        "experimental",
        "general or review",
        "new development",
        "practical",
        "product review",
        "theoretical or mathematical",
    }
)
#: the brackets and commas between the identifiers of ``ID``
_ID_SPLIT_RE = re.compile(r"\]\s*,\s*\[")
#: an article-numbered paper's page: the article number, a hyphen, the page within it
_ARTICLE_PAGE_RE = re.compile(r"^([A-Za-z]?\d+)-\d+$")


def _plain(value: Any) -> Any:
    return _SCRIPT_RE.sub(r"\1", value) if isinstance(value, str) else value


def _terms(indexing: str) -> str:
    """The controlled and uncontrolled terms of an Inspec ``DE``, ``"; "``-separated."""
    sections = [s.strip() for s in _SECTION_RE.split(_plain(indexing))]
    if sections and all(p.strip().lower() in _TREATMENTS for p in sections[0].split(";")):
        sections = sections[1:]
    end = next((i for i, s in enumerate(sections) if _CLASS_CODE_RE.match(s)), len(sections))
    return "; ".join(s for s in sections[:end] if s)


def _doi(identifiers: str) -> str:
    for part in _ID_SPLIT_RE.split(identifiers.strip().strip("[]")):
        if doi := normalize_doi(part.strip()):
            return doi
    return ""


def _article_pages(fields: dict[str, Any]) -> None:
    """``BP`` / ``EP`` of an article-numbered paper (``41103-1`` / ``41103-41103-3``) as its
    article number: ``AR`` the number, no ``BP`` nor ``EP`` (the Core Collection's record of
    such a paper); other pages left as they are."""
    first = str(fields.get("beginning_page") or "").strip()
    last = str(fields.get("ending_page") or "").strip()
    m = _ARTICLE_PAGE_RE.match(first)
    if m and last.startswith(f"{m.group(1)}-"):
        fields["beginning_page"] = fields["ending_page"] = ""
        fields.setdefault("article_number", m.group(1))


def inspec_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` (rispy's fields of a WoS record) read as Inspec's when its ``UT`` says
    Inspec: the DOI (``doi``) from ``ID``, no Keywords Plus, ``DE`` (``author_keywords``)
    cut to its terms, sub- and superscripts written out, an article number's pages as the
    article number; any other record as it is."""
    key = str(entry.get("accession_number") or "").strip()
    if not key.upper().startswith("INSPEC:"):
        return entry
    out = {k: _plain(v) for k, v in entry.items()}
    identifiers = out.pop("keywords_plus", None)
    if isinstance(identifiers, str) and not out.get("doi"):
        out["doi"] = _doi(identifiers)
    if isinstance(out.get("author_keywords"), str):
        out["author_keywords"] = _terms(entry["author_keywords"])
    _article_pages(out)
    return out
