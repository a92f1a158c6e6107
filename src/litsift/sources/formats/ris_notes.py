"""Which ``N1`` lines of an RIS record are the record's own note, and which are what a
bibliographic database put there.

``N1`` ("Notes") is where reference managers write a user's notes (litsift's library export
one ``N1`` per line of the note, Zotero, Mendeley, EndNote), and where databases write what they
have no tag for (the real exports under ``sources/reference-managers/ris``):

* Scopus: ``Export Date: 18 November 2019``, ``Cited By :2``, ``References: ...`` (one cited
  work per continuation line), ``Funding details: ...``, ``Correspondence Address: ...``;
* Web of Science: ``Times Cited in Web of Science Core Collection:  5``, then continuation
  lines ``Total Times Cited:  7`` and ``Cited Reference Count:  30``;
* ProQuest: ``Last updated - 2019-05-03``, ``Date revised - ...``, ``SuppNotes - ...``;
* EBSCO's CINAHL (as Rayyan passes it on): ``pictorial. Journal Subset: ...; NLM UID: ...``;
* EndNote's and Ovid's MEDLINE records: the journal's ISSNs, publication types (``Journal
  Article``), the authors' full names one per continuation line.

:func:`ris_notes` reads a record's note by these rules, first match wins:

1. a record of litsift's library export (``DP  - litsift``, :data:`OWN_DATABASE`; ``DB  -
   litsift`` in its earlier exports, and in Zotero's export of the items it read from them):
   every ``N1`` line is a line of its note;
2. a record of a litsift review export (``LB`` a review's decision: ``include``, ``exclude``,
   ``maybe``, ``conflict``, ``unscreened``): no note; its ``N1`` lines are the review's
   decisions and notes, which ``litsift review new --from`` reads
   (:mod:`litsift.sources.formats.ris_review`);
3. a record that names the database it came from (``DB`` or ``DP``: Scopus, Embase, ProQuest,
   EBSCO, Ovid, EndNote's ``NLM``, Zotero's library catalog) or carries a Web of Science
   accession number (``AN  - WOS:...``): no note, its ``N1`` is that database's;
4. any other record: its ``N1`` values (a tagged line and the untagged lines continuing it)
   none of whose lines is a database's boilerplate (:data:`BOILERPLATE_RE`): a user's note
   (Zotero, Mendeley) is read, a database record passed on without its ``DB`` line is not.

Rayyan's markup (``RAYYAN-INCLUSION: ...``) is never part of the note: the RIS reader takes its
reviewers' notes and labels apart (:mod:`litsift.sources.formats.rayyan_notes`).
"""

from __future__ import annotations

import re
from typing import Any

from litsift.sources.base import clean_text
from litsift.sources.formats.rayyan_notes import has_rayyan_notes

__all__ = ["BOILERPLATE_RE", "OWN_DATABASE", "REVIEW_LABELS", "ris_notes"]

#: The ``DP`` (database provider) line of litsift's library export (``litsift export --format
#: ris``, :func:`litsift.export.formats.to_ris`): its records' ``N1`` lines are their notes.
OWN_DATABASE = "litsift"

#: The ``LB`` of a record of a litsift review export (``litsift review export --format ris``).
REVIEW_LABELS = frozenset({"include", "exclude", "maybe", "conflict", "unscreened"})

#: An ``N1`` line (or continuation line) a database writes: Scopus's and Web of Science's
#: ``Key: value`` lines, ProQuest's ``Key - value`` lines, CINAHL's subset lines and an older
#: Web of Science's ``Times Cited:11`` anywhere in the line, an ISSN alone and a PubMed article
#: id (``NBK482230 [bookaccession]``: EndNote's PubMed import).
BOILERPLATE_RE = re.compile(
    r"^(?:Export Date|Cited By ?|References|Funding details|Funding text(?: \d+)?"
    r"|Correspondence Address|Chemicals/CAS|Tradenames|Manufacturers|Molecular Sequence Numbers"
    r"|Sponsors|Conference code|Conference name|CODEN|PubMed ID|Language of Original Document"
    r"|Abbreviated Source Title|Publication Stage"
    r"|Times Cited in Web of Science Core Collection|Total Times Cited|Cited Reference Count"
    r"|Usage Count \([^)]*\)):"
    r"|^(?:Last updated|Date revised|SuppNotes|Number of references|Copyright|Document feature"
    r"|Place of publication|Publication date|Accession number|Subject|Identifier / keyword) - "
    r"|\b(?:Journal Subset|NLM UID|Special Interest|Supplement Title|Publication Type"
    r"|Accession Number|Entry Date|Revision Date|Times Cited|Cited References? Count):"
    r"|^\d{4}-?\d{3}[\dXx](?: \([^)]*\))?$"
    r"|^\S+ \[(?:bookaccession|doi|pii|pmc|pmcid|pmid|pubmed)\]$"
)


def _first(entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    return clean_text(value[0] if isinstance(value, list) and value else value)


def _lines(text: str) -> list[str]:
    return [line for line in map(clean_text, text.splitlines()) if line]


def ris_notes(entry: dict[str, Any]) -> list[str]:
    """The note of one RIS record as ``[text]`` (``[]``: none by the rules of this module): the
    lines of its ``N1`` values (rispy's ``notes``: one value per ``N1`` tag, with its untagged
    continuation lines after a newline), each line cleaned, joined by newlines. A value with
    one line of a database's boilerplate is the database's as a whole (Web of Science's
    ``Total Times Cited``, a Scopus reference, EndNote's author names continue its first line).
    """
    values = [_lines(str(n)) for n in entry.get("notes") or [] if not has_rayyan_notes(str(n))]
    values = [v for v in values if v]
    database = [_first(entry, k) for k in ("name_of_database", "database_provider")]
    if values and OWN_DATABASE not in database:
        if _first(entry, "label").lower() in REVIEW_LABELS:
            return []
        if any(database) or _first(entry, "accession_number").upper().startswith("WOS:"):
            return []
        values = [v for v in values if not any(BOILERPLATE_RE.search(line) for line in v)]
    return ["\n".join(line for v in values for line in v)] if values else []
