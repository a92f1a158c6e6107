"""Person names in author strings: a byline row or a metadata author field split into persons.

A piece is a person's name when it has 2-6 words, each capitalised (or a particle such as
"van", "de"), with no institution word, digit, e-mail address or all-caps place code ("Seattle
WA"); affiliation markers (``1``, ``*``, ``†``), degrees ("Ph.D") and name suffixes ("Jr.") are
set aside. Used by the PDF importer (:mod:`litsift.sources.formats.pdf_front`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from litsift.sources.base import clean_text

__all__ = [
    "NAME_TOKEN_RE",
    "is_affiliation",
    "join_tex_accents",
    "metadata_persons",
    "name_pieces",
    "person_name",
    "split_persons",
]

#: a spacing accent TeX output places before its letter ("Par´e") -> the combining mark
_ACCENTS = {
    "\u00b4": "\u0301",  # ´ acute
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u02c6": "\u0302",  # ˆ circumflex
    "\u02dc": "\u0303",  # ˜ tilde
    "\u02c7": "\u030c",  # ˇ caron
    "\u02da": "\u030a",  # ˚ ring
    "\u02dd": "\u030b",  # ˝ double acute
    "\u02d8": "\u0306",  # ˘ breve
}
_ACCENT_RE = re.compile(f"([A-Za-z\u0131]?)([{''.join(_ACCENTS)}])\\s?([A-Za-z\u0131]?)")
_VOWELS = frozenset("aeiouyAEIOUY\u0131")
_MARKERS_RE = re.compile(r"[\d*#†‡§¶∗⋆★♠♢♡♣♦♥□■⋄◇◆○●✉∥‖|^′″+]+")
_PARTICLES = frozenset(
    "van von der den de del della di da das dos du la le ten ter bin ibn al el y zu".split()
)
_SUFFIXES = frozenset(["Jr", "Sr", "II", "III", "IV"])
_DEGREES = frozenset("phd ph.d md m.d msc m.sc mph bsc mbbs frcp dr prof".split())
#: words no person's name holds: institutions, places, page furniture ("View Article Online")
_NOT_NAME_WORDS = frozenset(
    """university universität universite université universidad universidade università
    universiteit institute institut instituto istituto college school department dept faculty
    laboratory laboratories lab labs center centre research inc ltd llc gmbh corporation corp
    company hospital clinic foundation academy program programme technology sciences science
    group ai usa uk china germany france japan canada india editor editors abstract
    correspondence corresponding email e-mail address current equally contributed author
    authors contribution journal proceedings conference vol volume user admin administrator
    owner microsoft windows office article online view open access review letter original
    received accepted published copyright license licence creative commons""".split()
)
#: one word of a name: a letter, then letters, apostrophes, hyphens or periods ("O’Farrell", "C.")
NAME_TOKEN_RE = re.compile(r"^[^\W\d_][\w'’.\-]*$")


def join_tex_accents(text: str) -> str:
    """TeX's detached accent joined to its letter: the vowel after it ("Par´e" -> "Paré"), else
    the vowel before it ("Andre´s" -> "Andrés"), else the letter after it."""

    def one(m: re.Match[str]) -> str:
        before, accent, after = m.group(1), _ACCENTS[m.group(2)], m.group(3)
        if not after or (after not in _VOWELS and before in _VOWELS and before):
            if not before:
                return m.group(0)
            letter = "i" if before == "\u0131" else before
            return unicodedata.normalize("NFC", letter + accent) + after
        letter = "i" if after == "\u0131" else after
        return before + unicodedata.normalize("NFC", letter + accent)

    return _ACCENT_RE.sub(one, text)


def person_name(piece: str) -> tuple[str, str] | None:
    """``(display name, family name)`` of one byline piece, or None when it is not a name."""
    if "@" in piece or "http" in piece.lower():
        return None
    piece = re.sub(r"\([^)]*\)", " ", piece)
    piece = clean_text(_MARKERS_RE.sub(" ", piece)).strip(" ,.;:-–")
    tokens = [t for t in piece.split() if t.lower().strip(".,") not in _DEGREES]
    suffix = tokens.pop() if len(tokens) > 2 and tokens[-1].rstrip(".") in _SUFFIXES else ""
    if not 2 <= len(tokens) <= 6:
        return None
    if {t.lower().strip(".,") for t in tokens} & _NOT_NAME_WORDS:
        return None
    capitals = all(t.isupper() or t.lower() in _PARTICLES for t in tokens)
    out = []
    for i, token in enumerate(tokens):
        if token.lower() in _PARTICLES and 0 < i < len(tokens) - 1:
            out.append(token)
            continue
        if not NAME_TOKEN_RE.match(token) or not token[0].isupper():
            return None
        if not capitals and len(token) > 1 and token.isupper() and not token.endswith("."):
            return None  # "Seattle WA", "Evanston IL": a place, not a person
        out.append(token)
    if capitals:  # "LUCY LU WANG" -> "Lucy Lu Wang"
        out = [t if len(t.rstrip(".")) == 1 else t.capitalize() for t in out]
    family = [out[-1]]
    for token in reversed(out[1:-1]):
        if token.lower() not in _PARTICLES:
            break
        family.insert(0, token)
    return " ".join([*out, suffix] if suffix else out), " ".join(family)


def is_affiliation(piece: str) -> bool:
    """An e-mail address or an affiliation (a piece with an institution word)."""
    words = {w.lower().strip(".,") for w in piece.split()}
    return "@" in piece or bool(words & _NOT_NAME_WORDS)


def _inverted(parts: Sequence[str]) -> bool:
    """Every part is ``Family, Given`` (one comma, one word before it, 1-3 after)."""
    for part in parts:
        if part.count(",") != 1:
            return False
        family, given = part.split(",")
        if len(family.split()) != 1 or not 1 <= len(given.split()) <= 3:
            return False
    return bool(parts)


def name_pieces(text: str) -> list[str]:
    """The candidate names of a list of people written as one string (see :func:`split_persons`)."""
    text = clean_text(join_tex_accents(text)).replace("\u2010", "-").replace("\u2011", "-")
    text = re.sub(r"\bet al\.?", " ", text)
    parts = [p.strip(" ,") for p in re.split(r"\s*(?:;|&|·|•|\band\b)\s*", text) if p.strip(" ,")]
    if _inverted(parts):
        return [f"{p.split(',')[1]} {p.split(',')[0]}" for p in parts]
    return [q for p in parts for q in p.split(",") if q.strip(" .")]


def metadata_persons(text: str) -> list[tuple[str, str]]:
    """:func:`split_persons` of a PDF metadata author field, turned round when it is written
    family name first (``"Espinoza Jaime A., Kanellis Dimitris C., ..."``, as some publishers
    write it): names end in a bare initial, two of them or half the list."""
    persons = split_persons(text)
    bare = sum(bool(re.search(r"\s[A-Z]$", name)) for name, _ in persons)
    if not (bare >= 2 or (bare > 0 and bare * 2 >= len(persons))):
        return persons
    out = []
    for name, _ in persons:
        family, *given = name.split()
        out.append((" ".join([*(f"{g}." if len(g) == 1 else g for g in given), family]), family))
    return out


def split_persons(text: str) -> list[tuple[str, str]]:
    """A list of people written as one string -> ``(display name, family name)`` pairs.

    Separators are ``;``, ``&``, "and" and commas (``"A B, C D, and E F"``); a list of
    ``Family, Given`` parts joined by "and" or ``;`` is read as inverted names
    (``"Srivastava, Shirish C. and Shainesh, G."``). Pieces that are not person names
    (institutions, e-mail addresses, "et al.") are dropped.
    """
    out = []
    for piece in name_pieces(text):
        person = person_name(piece)
        if person and person not in out:
            out.append(person)
    return out
