"""Who a record names, and in which role: its authors and its editors, kept apart by every
reader (an editor is never one of the authors).

:func:`byline` gives the name fields of a :class:`~litsift.sources.base.SourceRecord` from the
authors and the editors a reader found (each a :class:`People`). A record that names only
editors (an edited book) has no authors: the detail pane and the exports show its editors in
their place, as BibTeX and Zotero do. Its ``family_names`` (its identity, which de-duplication
compares) are its editors' only where the format used to read them as its authors
(``identified_by_editors``), so a file imported before matches its records again; a reader
that dropped the editors before leaves them out of the identity as before.

Which of a tagged record's name lists name its editors, by reference type: :func:`editor_roles`,
after the RIS specification's reference type tables (RefMan / Thomson Reuters, 2011), which
are EndNote's: EndNote writes a record's secondary and tertiary authors as RIS ``A2`` and
``A3``, and names its types as :data:`ENDNOTE_TYPES` maps them (EndNote XML ``ref-type``,
refer ``%0``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["ENDNOTE_TYPES", "NOBODY", "People", "byline", "editor_roles"]


class People(NamedTuple):
    """Persons as a reader found them, in order.

    Attributes:
        names: display names (``"Given Family"``; a group's name as written).
        families: their family names (a group's name as its own), parallel to ``names``.
        parts: ``(family, given)`` of each person the source splits (a group has none).
    """

    names: list[str]
    families: list[str]
    parts: list[tuple[str, str]]


#: no one
NOBODY = People([], [], [])


def byline(
    authors: People, editors: People = NOBODY, *, identified_by_editors: bool = False
) -> dict[str, Any]:
    """The name fields of a record (``authors``, ``family_names``, ``name_parts``, ``editors``,
    ``editor_parts``: :class:`~litsift.sources.base.SourceRecord` keyword arguments).

    Args:
        authors: the record's authors.
        editors: its editors (an edited book's, or those of the book a chapter is in).
        identified_by_editors: the format used to read an edited book's editors as its
            authors: without authors, its ``family_names`` are then its editors'.
    """
    families = authors.families
    if identified_by_editors and not authors.names:
        families = editors.families
    return {
        "authors": list(authors.names),
        "family_names": list(families),
        "name_parts": list(authors.parts),
        "editors": list(editors.names),
        "editor_parts": list(editors.parts),
    }


#: RIS types whose ``A2`` (secondary author) is the editor: a chapter's, a conference paper's
#: or proceedings', a dictionary or encyclopedia entry's, ... (Zotero's RIS translator writes
#: their editors there too). Not ``JOUR`` (Ovid's PsycINFO writes a list of cited authors'
#: family names there) nor ``BOOK``/``RPRT`` (the series editor)
_SECONDARY_EDITOR_TYPES = frozenset(
    {"ANCIENT", "CHAP", "CONF", "CPAPER", "DICT", "EBOOK", "ECHAP", "ENCYC", "SER"}
)

#: EndNote's reference type names (lower case) -> the RIS types of the same reference types
#: (EndNote's RIS export writes these codes for them)
ENDNOTE_TYPES: dict[str, str] = {
    "ancient text": "ANCIENT",
    "blog": "BLOG",
    "book": "BOOK",
    "book section": "CHAP",
    "computer program": "COMP",
    "conference paper": "CPAPER",
    "conference proceedings": "CONF",
    "dataset": "DATA",
    "dictionary": "DICT",
    "edited book": "EDBOOK",
    "electronic article": "EJOUR",
    "electronic book": "EBOOK",
    "electronic book section": "ECHAP",
    "encyclopedia": "ENCYC",
    "generic": "GEN",
    "government document": "GOVDOC",
    "journal article": "JOUR",
    "magazine article": "MGZN",
    "manuscript": "MANSCPT",
    "newspaper article": "NEWS",
    "patent": "PAT",
    "report": "RPRT",
    "serial": "SER",
    "standard": "STAND",
    "thesis": "THES",
    "unpublished work": "UNPB",
    "web page": "ELEC",
}


def editor_roles(ris_type: str) -> tuple[str, ...]:
    """The name lists of a record of RIS type ``ris_type`` (any case) that name its editors,
    best first: ``"secondary"`` (``A2``) where the type's secondary author is its editor,
    ``"tertiary"`` (``A3``) for a whole book (``BOOK``: the specification's and Zotero's
    editor there), ``"primary"`` (``AU``) for an edited book (``EDBOOK``: the specification's
    "Editor"); ``()`` for any other type. A format's own editor tag (RIS ``ED``, refer
    ``%E``) comes before them all."""
    kind = ris_type.strip().upper()
    if kind in _SECONDARY_EDITOR_TYPES:
        return ("secondary",)
    return {"BOOK": ("tertiary",), "EDBOOK": ("primary",)}.get(kind, ())
