"""Author-year citations in a model's answer (``(Smith 2020)``, ``(Smith et al., 2020; Lee
2019)``, ``Smith and Lee (2019)``) resolved against the records whose passages were sent.

A citation names the first author's family name and a year. It resolves to every record sent
whose first author's family name (folded: ASCII, lower case, ``ü`` = ``ue``, particles such as
``van der`` dropped) and year are those; it then stands for those records' passage numbers, as
``[n]`` would, and :func:`link_author_year` writes the ``[n]`` markers after it so they are
checked like any other. One that resolves to no record is invented: it is reported, and kept in
the text as written.

Not citations: a year without an author (``in 2020``, ``(2020)`` alone), a name without a year,
a lower-case word or an acronym (``(in 2020)``, ``(WMT 2014)``, ``BERT (2018)``), a month or
season (``(March 2020)``). A name after an article (``the Transformer (2017)``) or a capitalised
word of a title or venue (``Word Representation (2014)``, ``Nature Communications (2020)``) is
a citation only when it names a record sent: it is never reported as invented.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from anyascii import anyascii

from litsift.types import Paper, Record
from litsift.types.llm import MARKER_RE, Passage

__all__ = [
    "NOT_NAMES",
    "AuthorYear",
    "find_author_year",
    "fold_name",
    "link_author_year",
    "resolve_author_year",
]

#: lower-case particles of a family name, dropped before comparing (``van Genabith``).
_PARTICLES = frozenset(
    "van von der den de del della da di du dos das la le ten ter bin ibn al el st".split()
)
_PARTICLE = r"(?:(?i:van|von|der|den|de|del|della|da|di|du|dos|das|la|le|ten|ter)\s+)"
#: one word of a name: letters, with inner apostrophes or hyphens (O'Brien, García-Márquez).
_WORD = r"[^\W\d_]+(?:['’\-][^\W\d_]+)*"
_NAME = rf"{_PARTICLE}{{0,3}}{_WORD}"
_YEAR = r"(?:1[89]\d\d|20\d\d)[a-z]?"
_YEARS = rf"{_YEAR}(?:\s*,\s*{_YEAR})*"
_MORE = rf"(?P<more>\s+et\s+al\.?|\s+(?:and|&)\s+{_NAME})?"
#: one item of a parenthetical citation: ``Smith et al., 2020`` (a ``p. 4`` after it allowed).
_ITEM_RE = re.compile(
    rf"(?:(?i:e\.g\.|i\.e\.|see also|see|cf\.)[,:]?\s+)?(?P<name>{_WORD}\s+)?(?P<family>{_NAME})"
    rf"{_MORE},?\s+(?P<years>{_YEARS})(?:,\s*(?:pp?\.|§)\s*[\d\-–]+)?"
)
#: a narrative citation: ``Smith (2020)``, ``Smith et al. (2020)``, ``Smith and Lee (2019)``.
_NARRATIVE_RE = re.compile(rf"(?<![\w'’\-])(?P<family>{_NAME}){_MORE}\s+\((?P<years>{_YEARS})\)")
_PAREN_RE = re.compile(r"\(([^()\n]{1,300})\)")
#: where one cited work ends and the next begins in a parenthesis: ``;``, or ``,`` before a
#: word (``Smith, 2020, Lee, 2019``; not the ``, 2020`` of ``Smith, 2020``)
_ITEM_SPLIT_RE = re.compile(r";|,\s*(?=[^\W\d_])")
_ARTICLE_RE = re.compile(r"(?:^|\W)(?:the|a|an|our|this|its|their)\s+$", re.I)
#: capitalised words that are no family name before a year (months, seasons, prepositions).
NOT_NAMES = frozenset(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec spring summer fall autumn winter in since
    until before after from around circa by during as of at on for to version vol table figure
    fig section chapter appendix eq equation step year years early late mid""".split()
)
_INITIALS_RE = re.compile(r"^(?:[A-Z]\.?-?){1,3}$")
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})


@dataclass(frozen=True)
class AuthorYear:
    """One author-year citation of a text.

    Attributes:
        text: the citation as written (``"Smith et al., 2020"``, ``"Smith and Lee (2019)"``).
        family: the first author's family name as written (``"van Genabith"``).
        year: the year cited (a letter after it, ``2020a``, dropped).
        end: the offset just after the citation's closing parenthesis, where its ``[n]``
            markers go.
        weak: it may as well be a title, a venue or a model and a year (``the Transformer
            (2017)``, ``Word Representation (2014)``): counted only if it names a record sent.
    """

    text: str
    family: str
    year: int
    end: int
    weak: bool = False


def fold_name(name: str) -> str:
    """A name folded for comparing: ASCII letters, lower case, German ``ä/ö/ü`` read as the
    ``ae/oe/ue`` they are also spelled (``Müller`` = ``Mueller`` = ``Muller``)."""
    letters = re.sub(r"[^a-z]", "", anyascii(name).lower())
    return re.sub(r"([aou])e", r"\1", letters)


def _name_parts(words: Sequence[str]) -> list[str]:
    """The words of a family name split at hyphens, its particles dropped (``van der Berg``:
    Berg) unless it is nothing else (``Le``, ``Van``)."""
    parts = [p for w in words for p in w.split("-") if p]
    return [p for p in parts if p.lower() not in _PARTICLES] or parts


def _family_key(family: str) -> str:
    """The folded last word of a family name as cited, particles dropped."""
    parts = _name_parts(family.split())
    return fold_name(parts[-1]) if parts else ""


def _is_name(family: str) -> bool:
    """Whether ``family`` can be a family name: capitalised, not an acronym, not a month or a
    preposition."""
    word = re.split(r"\s+", family)[-1]
    return (
        word[:1].isupper()
        and not re.search(r"[A-Z]{2}", anyascii(word))
        and word.lower() not in NOT_NAMES
    )


def _weak(text: str, start: int, more: bool) -> bool:
    """Whether a narrative citation at ``start`` follows an article (``the Transformer
    (2017)``) or, naming one author, a capitalised word that does not begin a sentence (``Word
    Representation (2014)``; not ``As Smith (2020)``)."""
    before = text[max(0, start - 120) : start]  # a bounded look back: linear in the text
    if _ARTICLE_RE.search(before):
        return True
    word = re.search(r"(\S+)\s+$", before)
    if more or word is None or not word.group(1)[:1].isupper():
        return False
    head = before[: word.start()].rstrip()
    return bool(head) and head[-1] not in ".!?:;([\"'“‘"


def _years(text: str) -> list[int]:
    return [int(y[:4]) for y in re.findall(_YEAR, text)]


def find_author_year(text: str) -> list[AuthorYear]:
    """Every author-year citation of ``text``, in order (see the module docstring); one per
    year when an author is cited for several (``Smith 2019, 2020``)."""
    found: list[tuple[tuple[int, int], AuthorYear]] = []
    taken: list[tuple[int, int]] = []
    for m in _NARRATIVE_RE.finditer(text):
        family = m.group("family")
        if not _is_name(family):
            continue
        taken.append(m.span())
        weak = _weak(text, m.start(), bool(m["more"]))
        cites = [AuthorYear(m.group(), family, y, m.end(), weak) for y in _years(m["years"])]
        found += [((m.start(), 0), c) for c in cites]
    for paren in _PAREN_RE.finditer(text):
        if any(a <= paren.start() < b for a, b in taken):
            continue
        for i, part in enumerate(_ITEM_SPLIT_RE.split(paren.group(1))):
            item = _ITEM_RE.fullmatch(part.strip())
            if item is None or not _is_name(item.group("family")):
                continue
            said = item[0][item.start("name" if item["name"] else "family") :]
            cites = [
                AuthorYear(said, item["family"], y, paren.end()) for y in _years(item["years"])
            ]
            found += [((paren.start(), i), c) for c in cites]
    return [c for _, c in sorted(found, key=lambda x: x[0])]


def _first_family_keys(record: Record) -> frozenset[str]:
    """The folded words of the first author's family name (``"Gabriel García Márquez"``:
    garcia, marquez; ``"Smith, J."`` and ``"J. Smith"``: smith); empty for a record without
    authors."""
    authors = record.authors if isinstance(record, Paper) else ()
    name = next((a for a in authors if a.strip()), "")
    if "," in name:
        words = name.split(",", 1)[0].split()
    else:
        words = [w for w in name.split() if not _INITIALS_RE.match(w)]
        words = [w for w in words if fold_name(w) not in _SUFFIXES]
        words = words[1:] if len(words) > 1 else words
    return frozenset(k for p in _name_parts(words) if (k := fold_name(p)))


def resolve_author_year(cite: AuthorYear, passages: Sequence[Passage]) -> tuple[int, ...]:
    """The numbers of the passages sent from the records ``cite`` names (first author's family
    name and year): those of every such record, in order; empty when it names none."""
    key = _family_key(cite.family)
    return tuple(
        p.number
        for p in passages
        if key and p.record.year == cite.year and key in _first_family_keys(p.record)
    )


def link_author_year(text: str, passages: Sequence[Passage]) -> tuple[str, tuple[str, ...]]:
    """``text`` with the ``[n]`` markers of each resolved author-year citation written after
    it (``(Smith 2020) [3][4]``), unless a marker right after it already names one of them.

    Args:
        text: one sentence of the model's answer.
        passages: the passages sent, numbered from 1.

    Returns:
        The text with markers added, and the invented citations (naming no record sent) as
        written, in order, without repeats.
    """
    invented: list[str] = []
    inserts: dict[int, list[int]] = {}
    for cite in find_author_year(text):
        numbers = resolve_author_year(cite, passages)
        if not numbers:
            if not cite.weak:
                invented.append(cite.text)
            continue
        after = MARKER_RE.match(text[cite.end :].lstrip(" \t"))
        given = {int(n) for n in re.findall(r"\d+", after.group())} if after else set()
        if not given & set(numbers):
            inserts.setdefault(cite.end, []).extend(numbers)
    return _insert(text, inserts), tuple(dict.fromkeys(invented))


def _insert(text: str, inserts: dict[int, list[int]]) -> str:
    out: list[str] = []
    pos = 0
    for at in sorted(inserts):
        marks = "".join(f"[{n}]" for n in dict.fromkeys(inserts[at]))
        out += [text[pos:at], " " + marks]
        pos = at
    return "".join(out) + text[pos:]
