"""arXiv's ``journal-ref`` (OAI ``arXiv`` / ``arXivRaw``, the API's ``arxiv:journal_ref``, the
Kaggle snapshot's ``journal-ref``): the published version's reference as its authors typed
it, read into a container, a volume and pages where it takes one of the shapes most refs
take, and the arXiv record's type.

Shapes read (the values of the real feeds and the Kaggle snapshot in ``../shared/data``):

* INSPIRE's compact form, as arXiv's own tools write it: ``Phys.Rev.D76:013009,2007``,
  ``Astrophys.J.661:L191-L194,2007``, ``JHEP 0705:034,2007`` (journal, volume, ``:``, pages,
  ``,`` year);
* the physics style: ``Phys. Rev. B 74, 024520 (2006)``, ``J. Fluid Mech. 585, 213-244
  (2007)`` (journal, volume, ``,`` pages, year in brackets);
* the mathematics style: ``J. London Math. Soc. 78(2008) 418-440``, ``J. Algebra 321
  (2009), 3450-3468.`` (journal, volume, year in brackets, pages).

Only the part before a ``;`` is read (``; Erratum-ibid. ...``). Any other shape (``ICLR
2021``, ``Proc. ... pp. 66-69``, a ref over several lines) is the container as written, and
no volume or pages are guessed. A record without a ``journal-ref`` is a preprint: CSL
``article``, the type the OpenAlex and Zotero readers give a preprint.
"""

from __future__ import annotations

import re

from litsift.sources.base import clean_text
from litsift.sources.formats.biblio_types import biblio

__all__ = ["journal_ref_facts"]

_YEAR = r"(?P<year>(?:1[89]|20)\d\d)"
_PAGES = r"(?P<pages>[A-Z]?\d+(?:\s*-+\s*[A-Z]?\d+)?)"
#: the three shapes of the module docstring, tried in order
_SHAPES = [
    re.compile(rf"^(?P<journal>\D+?)\s*(?P<volume>\d+):{_PAGES},\s*{_YEAR}$"),
    re.compile(
        rf"^(?P<journal>[^\d,;]+?)\s*,?\s*(?P<volume>\d+)\s*,\s*{_PAGES}(?:\s*\([A-Z]\))?"
        rf"\s*\({_YEAR}\)\.?$"
    ),
    re.compile(
        rf"^(?P<journal>[^\d;]+?)\s*(?P<volume>\d+)\s*\({_YEAR}\)\s*,?\s*(?:pp\.\s*)?{_PAGES}\.?$"
    ),
]
#: a container that is a proceedings volume or a lecture-notes series, not a journal
_PROCEEDINGS_RE = re.compile(r"conf|proc|symp|workshop|eptcs", re.IGNORECASE)
_SERIES_RE = re.compile(r"lect(?:\.|ure)\s*notes", re.IGNORECASE)


def journal_ref_facts(journal_ref: object) -> tuple[str, dict[str, str]]:
    """``(container, biblio)`` of an arXiv record with ``journal_ref`` (``""`` or None:
    none): ``("arXiv", {"type": "article"})`` for a preprint; for a ref of a shape this
    module reads, the journal's name as written and ``{"type": "article-journal",
    "volume": "76", "pages": "013009"}`` (``paper-conference`` for a proceedings series,
    ``chapter`` for lecture notes); for any other ref, the ref as written and the type
    ``article``."""
    text = clean_text(journal_ref)
    if not text:
        return "arXiv", biblio("article")
    first = text.split(";")[0].strip()
    for shape in _SHAPES:
        m = shape.match(first)
        if m:
            journal = m.group("journal").strip(" ,:-")
            if not journal:
                break
            kind = "article-journal"
            if _SERIES_RE.search(journal):
                kind = "chapter"
            elif _PROCEEDINGS_RE.search(journal):
                kind = "paper-conference"
            return journal, biblio(kind, volume=m.group("volume"), pages=m.group("pages"))
    return text, biblio("article")
