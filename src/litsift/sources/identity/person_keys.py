"""Author names folded for matching records: ``(family, initial)`` keys read from the name
spellings of every import format, and comparisons of author lists.

Used by :mod:`litsift.sources.identity.matcher` (which re-exports these names) to block candidate
duplicates by first author and to tell a cut author list from another work's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from anyascii import anyascii

__all__ = [
    "extends_persons",
    "family_key",
    "first_family",
    "person_key",
    "person_keys",
    "same_persons",
]

_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "phd", "md"})
_INITIALS_RE = re.compile(r"^(?:[A-Z]\.?-?){1,3}$|^[A-Z][a-z]\.$")
_ETAL = frozenset({"others", "etal", "et al", "andothers"})


def family_key(name: str) -> str:
    """A family name folded for matching (ASCII letters only, lower case)."""
    return re.sub(r"[^a-z]", "", anyascii(name or "").lower())


def _name_words(text: str) -> list[str]:
    words = text.replace("{", " ").replace("}", " ").split()
    while len(words) > 1 and family_key(words[-1]) in _NAME_SUFFIXES:
        words.pop()
    return words


def person_key(name: str) -> tuple[str, str]:
    """``(family, initial)`` of one author name, folded: the last word of the family name
    (particles and compound first parts dropped, so ``"de Vries"`` and ``"Vries"`` agree) and
    the first given initial (``""`` when none).

    Reads ``"Family, Given"``, ``"Given Family"``, a braced BibTeX literal (``"{Yarin Gal}"``),
    initials after the family name (Scopus, PubMed: ``"Unnikrishnan M.A."``, ``"Wang Y"``) and
    drops suffixes (``Jr.``, ``III``). ``"{Yarin Gal}"`` and ``"Gal, Yarin"`` both give
    ``("gal", "y")``.
    """
    text = " ".join((name or "").replace("{", " ").replace("}", " ").split())
    if not text:
        return "", ""
    if "," in text:
        family_part, given_part = text.split(",", 1)
        family = _name_words(family_part)
        given = [
            w for w in given_part.replace(",", " ").split() if family_key(w) not in _NAME_SUFFIXES
        ]
    else:
        words = _name_words(text)
        cut = len(words)
        while cut > 1 and _INITIALS_RE.match(words[cut - 1]):
            cut -= 1
        if cut < len(words) and not _INITIALS_RE.match(words[0]):
            family, given = words[:cut], words[cut:]
        else:
            family, given = words[-1:], words[:-1]
    fam = family_key(family[-1]) if family else ""
    initial = next((family_key(w)[:1] for w in given if family_key(w)), "")
    return fam, initial


def _is_etal(name: str) -> bool:
    return family_key(name) in {k.replace(" ", "") for k in _ETAL}


def person_keys(authors: Sequence[str]) -> list[tuple[str, str]]:
    """:func:`person_key` of each author, an ``others`` / ``et al.`` marker left out."""
    return [person_key(a) for a in authors if a and a.strip() and not _is_etal(a)]


def _same_person(a: tuple[str, str], b: tuple[str, str]) -> bool:
    return a[0] == b[0] and (not a[1] or not b[1] or a[1] == b[1])


def same_persons(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether two author lists name the same people in the same order (by
    :func:`person_key`; an initial is compared only when both names have one)."""
    ka, kb = person_keys(a), person_keys(b)
    return len(ka) == len(kb) and all(_same_person(x, y) for x, y in zip(ka, kb, strict=True))


def extends_persons(stored: Sequence[str], other: Sequence[str]) -> bool:
    """Whether ``other`` names the people of ``stored`` first, in order, and more after them
    (``stored`` was cut short: ``"Smith, J. and others"``)."""
    ks, ko = person_keys(stored), person_keys(other)
    return 0 < len(ks) < len(ko) and all(
        _same_person(x, y) for x, y in zip(ks, ko[: len(ks)], strict=True)
    )


def first_family(authors: Sequence[str], family_names: Sequence[str] = ()) -> str:
    """The first author's folded family name (:func:`person_key`) read off the author string,
    as it is stored; ``family_names[0]`` (its last word) only when there is no author string.
    Reading the stored string, never a source's own split, keeps the index rebuilt from the
    store equal to the one kept during an import."""
    for name in authors:
        if name and name.strip() and not _is_etal(name):
            return person_key(name)[0]
    if family_names and family_names[0].strip():
        words = _name_words(family_names[0])
        return family_key(words[-1]) if words else ""
    return ""
