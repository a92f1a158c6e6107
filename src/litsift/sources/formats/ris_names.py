"""Person names as tagged exports write them -- RIS ``AU``/``A1``, refer ``%A``, Web of Science
``AU``/``AF`` (plain text, tab-delimited, CSV) -- split into display and family names.

Which tags name an RIS record's editors: :func:`ris_editors`; names as
:class:`~litsift.sources.formats.people.People`: :func:`tagged_people`.

Forms read: ``Family, Given``, ``Family, Suffix, Given``, ``Family, Given, Suffix``, ``Given
Family [Suffix]``, and ``Family I.`` (Embase's RIS: ``Liu R.``, ``Adler D.G.``, initials with
points and no comma), which :func:`comma_form` turns into ``Family, I.``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from litsift.sources.base import clean_text
from litsift.sources.formats.biblio_types import inverted_parts
from litsift.sources.formats.people import People, byline, editor_roles

__all__ = [
    "comma_form",
    "one_per_person",
    "ris_byline",
    "ris_editors",
    "split_people",
    "tagged_people",
    "wos_byline",
]

#: name suffixes, which stay with the family name: ``Ribeiro, Jr, J.W.``, ``J. H. Laros III``
_SUFFIX_RE = re.compile(r"^(?:Jr|Sr|II|III|IV|V|2nd|3rd)\.?$", re.IGNORECASE)
#: an export tool's empty value written as a word (``AU  - van den Hoven, null``)
_NULL_PART_RE = re.compile(r"^(?:null|none|nil|undefined|nan)$", re.IGNORECASE)
#: initials with points: ``R.``, ``D.G.``, ``K.-L.``, ``Ch.``
_INITIALS_RE = re.compile(r"^(?:[^\W\d_]{1,2}\.-?)+$")


def one_per_person(values: list[str]) -> list[str]:
    """The names of a tag's values, one a person: a value that lists several people,
    separated by ``;``, is split (Web of Science's MEDLINE records of ~2006 wrote ``AU Joffe,
    Hadine; Hall, Janet E; Gruber, Staci``, which read as one person "Hadine; Hall Janet E;
    ... Joffe"); empty pieces are left out."""
    return [p.strip() for value in values for p in value.split(";") if p.strip()]


def comma_form(name: str) -> str:
    """``Liu R.`` -> ``Liu, R.`` and ``Eloubeidi M.A.`` -> ``Eloubeidi, M.A.``: a name without
    a comma whose last words are initials with points after a word that is not one (Embase's
    RIS; ``Vaccaro M. Jr.`` -> ``Vaccaro, M., Jr.``); any other name as it is (``Claude E.
    Shannon``, ``J. H. Laros III``)."""
    if "," in name:
        return name
    words = name.split()
    suffix = words.pop() if len(words) > 2 and _SUFFIX_RE.match(words[-1]) else ""
    cut = len(words)
    while cut > 1 and _INITIALS_RE.match(words[cut - 1]) and not _SUFFIX_RE.match(words[cut - 1]):
        cut -= 1
    if cut == len(words) or _INITIALS_RE.match(words[cut - 1]):
        return name
    return ", ".join(p for p in (" ".join(words[:cut]), " ".join(words[cut:]), suffix) if p)


def split_people(names: list[str]) -> tuple[list[str], list[str]]:
    """Tagged-export names (the forms of the module docstring) as display names ``Given Family
    Suffix`` and family names, in order; empty names are left out."""
    authors, families = [], []
    for name in names:
        name = comma_form(clean_text(name))
        if not name:
            continue
        if "," in name:
            parts = [p.strip() for p in name.split(",") if not _NULL_PART_RE.match(p.strip())]
            rest = [p for p in parts[1:] if p and not _SUFFIX_RE.match(p)]
            rest = rest or [p for p in parts[1:] if re.fullmatch(r"[IV]+\.?", p)]  # Iyer, V.
            suffixes = [p for p in parts[1:] if _SUFFIX_RE.match(p) and p not in rest]
            family, given = parts[0], " ".join(rest)
            authors.append(" ".join(p for p in (given, family, *suffixes) if p))
            families.append(family)
        else:
            words = name.split(" ")
            while len(words) > 2 and _SUFFIX_RE.match(words[-1]):
                words = words[:-1]
            authors.append(name)
            families.append(words[-1])
    return authors, families


def tagged_people(names: list[str]) -> People:
    """Tagged-export names (the forms of the module docstring) as :class:`People`: display
    and family names (:func:`split_people`), and the ``(family, given)`` of each ``Family,
    Given`` name (:func:`~litsift.sources.formats.biblio_types.inverted_parts`)."""
    names = [comma_form(clean_text(n)) for n in names]
    shown, families = split_people(names)
    return People(shown, families, inverted_parts(names))


#: an editor role of :func:`~litsift.sources.formats.people.editor_roles` -> the rispy keys
#: of its names
_ROLE_KEYS = {
    "secondary": ("secondary_authors",),
    "tertiary": ("tertiary_authors",),
    "primary": ("authors", "first_authors"),
}


def ris_editors(entry: Mapping[str, Any]) -> list[str]:
    """The editors of a record as rispy reads it, names as written (``Family, Given``): its
    ``ED`` lines (key ``editors``: the specification's editor tag, which Zotero reads as the
    editor of any type), else the names that its type's editor role gives
    (:func:`~litsift.sources.formats.people.editor_roles`: a chapter's ``A2``, a whole book's
    ``A3``, an edited book's ``AU``); ``[]`` when it names none."""
    kind = str(entry.get("type_of_reference") or "").split(";")[0]
    keys = [key for role in editor_roles(kind) for key in _ROLE_KEYS[role]]
    for key in ("editors", *keys):
        value = entry.get(key)
        names = one_per_person([str(v) for v in value] if isinstance(value, list) else [])
        if names:
            return [comma_form(n) for n in names]
    return []


def ris_byline(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The name fields (:func:`~litsift.sources.formats.people.byline`) of an RIS record as
    rispy reads it: ``A1`` and ``AU`` its authors (``A1`` first: a record may name its first
    author ``A1`` and the others ``AU``, as Zotero's RIS import reads them; an ``A1`` name
    that ``AU`` repeats counts once), :func:`ris_editors` its editors; an edited book's
    (``EDBOOK``) ``AU`` are its editors: it has no authors, and their family names stay its
    identity."""
    listed = one_per_person(entry.get("authors") or [])
    people = [n for n in one_per_person(entry.get("first_authors") or []) if n not in listed]
    people += listed
    authors = tagged_people(people)
    if str(entry.get("type_of_reference")).upper() == "EDBOOK":
        authors = People([], authors.families, [])
    return byline(authors, tagged_people(ris_editors(entry)))


def wos_byline(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The name fields of a Web of Science plain-text record as rispy reads it: ``AF`` (else
    ``AU``) its authors, ``BE`` (key ``editors``) its editors: a book's, or those of the
    proceedings or book a paper or chapter is in."""
    people = one_per_person(entry.get("author_full_name") or entry.get("authors") or [])
    return byline(tagged_people(people), tagged_people(one_per_person(entry.get("editors") or [])))
