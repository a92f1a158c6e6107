"""Which ``N1`` lines of an RIS record are the record's own note, and which are what a
bibliographic database put there.

``N1`` ("Notes") is where reference managers write a user's notes (litsift's library export
one ``N1`` per line of the note; Zotero one ``N1`` per note, as the note's HTML; Mendeley,
EndNote), and where databases write what they have no tag for (the real exports under
``sources/reference-managers/ris`` and ``tests/data/imports``):

* Scopus: ``Export Date: 18 November 2019``, ``Cited By :2``, ``References: ...`` (one cited
  work per continuation line), ``Funding details: ...``, ``Correspondence Address: ...``;
* Web of Science: ``Times Cited in Web of Science Core Collection:  5``, then continuation
  lines ``Total Times Cited:  7`` and ``Cited Reference Count:  30``;
* ProQuest: ``Last updated - 2019-05-03``, ``Date revised - ...``, ``SuppNotes - ...`` (in its
  German interface ``Zuletzt aktualisiert - 2020-01-01``);
* EBSCO's CINAHL (as Rayyan passes it on): ``pictorial. Journal Subset: ...; NLM UID: ...``;
* EndNote's and Ovid's MEDLINE / PubMed records: the journal's ISSNs, the authors' full names,
  publication types (``Journal Article``), the country, and last the MEDLINE citation
  (``Clin Pharmacokinet. 2011 Jun;50(6):349-69. doi: ...``), one per continuation line.

:func:`ris_notes` reads a record's note by these rules, first match wins:

1. a record of litsift's library export (``DP  - litsift``, :data:`OWN_DATABASE`; ``DB  -
   litsift`` in its earlier exports, and in Zotero's export of the items it read from them):
   every ``N1`` line is a line of its note, as written;
2. a record of a litsift review export (``LB`` a review's decision: ``include``, ``exclude``,
   ``maybe``, ``conflict``, ``unscreened``): no note; its ``N1`` lines are the review's
   decisions and notes, which ``litsift review new --from`` reads
   (:mod:`litsift.sources.formats.ris_review`);
3. any other record: its ``N1`` values (a tagged line and the untagged lines continuing it;
   a Zotero note's HTML read as its lines of text) none of whose lines is a database's
   boilerplate (:data:`BOILERPLATE_RE`). The ``DB`` / ``DP`` line does not decide: Zotero
   writes an item's Library Catalog there (``DP  - arXiv.org``, ``DP  - PubMed``, ``DP  -
   Scopus``) above its user's notes, and passes on the ``DB`` of a database record it
   imported (as the item's Archive) with the notes added to it since. A note is lost for
   good where a database's line would only be shown, so a value is dropped only when one of
   its lines is a database's.

Rayyan's markup (``RAYYAN-INCLUSION: ...``) is never part of the note: the RIS reader takes its
reviewers' notes and labels apart (:mod:`litsift.sources.formats.rayyan_notes`).
"""

from __future__ import annotations

import html
import re
from typing import Any

from litsift.sources.base import clean_text
from litsift.sources.formats.rayyan_notes import has_rayyan_notes

__all__ = ["BOILERPLATE_RE", "OWN_DATABASE", "REVIEW_LABELS", "note_text_lines", "ris_notes"]

#: The ``DP`` (database provider) line of litsift's library export (``litsift export --format
#: ris``, :func:`litsift.export.formats.to_ris`): its records' ``N1`` lines are their notes.
OWN_DATABASE = "litsift"

#: The ``LB`` of a record of a litsift review export (``litsift review export --format ris``).
REVIEW_LABELS = frozenset({"include", "exclude", "maybe", "conflict", "unscreened"})

#: The MEDLINE citation (PubMed's ``SO``) that EndNote's PubMed and Ovid MEDLINE records end
#: their ``N1`` with: ``Dent J. 1974 May;40(5):350.``, ``Cureus. 2019 Apr 9;11(4):e4417. doi:
#: 10.7759/cureus.4417.``, ``Arch Pharm Res. 2021 Aug;44(8):1-10. doi: ... Epub 2015 Jan 13.``
_MEDLINE_CITATION = (
    r"^[A-Z][\w&'()., -]*?\. (?:1[6-9]|20)\d\d(?: [A-Z][a-z]{2,8}(?:-[A-Z][a-z]{2,8})?)?"
    r"(?: \d{1,2})?;\w*(?:\([^()]*\))?:\S+?\.(?: (?:doi|pii): \S+\.)*"
    r"(?: Epub \d{4}(?: [A-Z][a-z]{2})?(?: \d{1,2})?\.)?$"
)

#: An ``N1`` line (or continuation line) a database writes: Scopus's and Web of Science's
#: ``Key: value`` lines, ProQuest's ``Key - value`` lines, CINAHL's subset lines and an older
#: Web of Science's ``Times Cited:11`` anywhere in the line, an ISSN alone, a PubMed article
#: id (``NBK482230 [bookaccession]``: EndNote's PubMed import) and the MEDLINE citation that
#: ends EndNote's PubMed and Ovid MEDLINE notes.
BOILERPLATE_RE = re.compile(
    r"^(?:Export Date|Cited By ?|References|Funding details|Funding text(?: \d+)?"
    r"|Correspondence Address|Chemicals/CAS|Tradenames|Manufacturers|Molecular Sequence Numbers"
    r"|Sponsors|Conference code|Conference name|CODEN|PubMed ID|Language of Original Document"
    r"|Abbreviated Source Title|Publication Stage"
    r"|Times Cited in Web of Science Core Collection|Total Times Cited|Cited Reference Count"
    r"|Usage Count \([^)]*\)):"
    r"|^(?:Last updated|Date revised|SuppNotes|Number of references|Copyright|Document feature"
    r"|Place of publication|Publication date|Accession number|Subject|Identifier / keyword"
    r"|Zuletzt aktualisiert) - "
    r"|\b(?:Journal Subset|NLM UID|Special Interest|Supplement Title|Publication Type"
    r"|Accession Number|Entry Date|Revision Date|Times Cited|Cited References? Count):"
    r"|^\d{4}-?\d{3}[\dXx](?: \([^)]*\))?$"
    r"|^\S+ \[(?:bookaccession|doi|pii|pmc|pmcid|pmid|pubmed)\]$"
    rf"|{_MEDLINE_CITATION}"
)

#: A note written as HTML (Zotero's notes: ``<p>...</p>``, ``<div data-schema-version="8">``;
#: and the ``<p>...<br/>...</p>`` Zotero wraps around a plain ``N1`` it imports)
_HTML_NOTE_RE = re.compile(
    r"^\s*<(?:p|div|h[1-6]|ul|ol|blockquote|pre|table)\b[^<>]*>|</(?:p|div|li|h[1-6])>"
    r"|<br\s*/?>",
    re.IGNORECASE,
)
#: where a line of an HTML note ends: a line break, the end of a paragraph, heading, list item
_HTML_BREAK_RE = re.compile(r"<br\s*/?>|</(?:p|div|h[1-6]|li|blockquote|pre|tr)\s*>", re.IGNORECASE)
_HTML_TAG_RE = re.compile(r"<[^<>]*>")


def _first(entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    return clean_text(value[0] if isinstance(value, list) and value else value)


def _lines(text: str) -> list[str]:
    return [line for line in map(clean_text, text.splitlines()) if line]


def note_text_lines(text: str) -> list[str]:
    """The lines of one ``N1`` value as ``[line, ...]``, each cleaned, empty ones dropped. An
    HTML note (Zotero's: ``<div data-schema-version="8"><p>Read <b>twice</b></p></div>``) is
    read as its text: a line per paragraph, heading, list item or ``<br>``, the tags
    removed and the character references decoded (``&lt;`` -> ``<``); any other value is
    read as it is, ``p<0.05`` and all."""
    if not _HTML_NOTE_RE.search(text):
        return _lines(text)
    broken = _HTML_BREAK_RE.sub("\n", text.replace("\r", ""))
    lines = (html.unescape(_HTML_TAG_RE.sub("", line)) for line in broken.split("\n"))
    return [line for line in map(clean_text, lines) if line]


def ris_notes(entry: dict[str, Any]) -> list[str]:
    """The note of one RIS record as ``[text]`` (``[]``: none by the rules of this module): the
    lines of its ``N1`` values (rispy's ``notes``: one value per ``N1`` tag, with its untagged
    continuation lines after a newline), each line cleaned, joined by newlines. A value with
    one line of a database's boilerplate is the database's as a whole (Web of Science's
    ``Total Times Cited``, a Scopus reference, EndNote's author names continue its first line).
    """
    notes = [str(n) for n in entry.get("notes") or [] if not has_rayyan_notes(str(n))]
    database = [_first(entry, k) for k in ("name_of_database", "database_provider")]
    if OWN_DATABASE in database:
        values = [v for v in map(_lines, notes) if v]
    elif _first(entry, "label").lower() in REVIEW_LABELS:
        return []
    else:
        values = [v for v in map(note_text_lines, notes) if v]
        values = [v for v in values if not any(BOILERPLATE_RE.search(line) for line in v)]
    return ["\n".join(line for v in values for line in v)] if values else []
