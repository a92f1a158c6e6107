"""Where a record sits in the literature -- volume, issue (or part), first page, article
number, ISBNs -- folded so that two exports of one work agree and two works that share a title
do not: the volumes of one proceedings series (LNCS 6016 ... 6019, whose Scopus records all
read "Computational Science and Its Applications - ICCSA 2010 - International Conference,
Proceedings"), the editorials of a journal's issues, the parts of a report.

A **locator** is a ``{fact: value}`` dict (:func:`locator`) of the facts in
:data:`LOCATOR_FACTS`, each folded as a database writes it:

* ``volume`` -- its first number (``"6017 LNCS"``, ``"Vol. 6017"`` -> ``6017``), else a roman
  numeral as a number (``"IV"`` -> ``4``), else its letters and digits;
* ``issue`` -- its numbers, a range spelled out (``"PART 2"`` -> ``2``, ``"3-4"`` -> ``3 4``,
  ``"Suppl 1"`` -> ``1``), else a roman numeral or letters (``"Part B"`` -> ``b``);
* ``page`` -- the first page's number (``"1781-1802"``, ``"e1781"``, ``"pp. 1781"`` ->
  ``1781``; a roman page ``"xii"`` -> ``r12``); pages written ``12:1-12:10`` (an article's own
  pagination) are left out;
* ``article`` -- an article number's digits (``"e0123456"`` -> ``123456``);
* ``isbn`` -- the valid ISBNs, as ISBN-13, space-separated and sorted.

Two locators **conflict** (:func:`locator_conflict`) on the first fact both give that differs:
a volume that is not the same, issues that share no number, first pages or article numbers
that differ beyond what databases make of one article (a page 1, a page off by one or two, an
article number written as the page or the issue) when both records name their volume or book
(a page places a work only within it), ISBN lists that share no ISBN. A fact only
one of them gives says nothing (databases leave out what the other writes), so a record
without a locator never conflicts.

A paper that has no identifier is stored under a ``key:`` id (a hash of its title, first author
and year, :func:`litsift.sources.identity.matcher.work_key`); :func:`locator_suffix` appends
its locator to that id (``key:14f04b8ebc49:v6017:n2``), so two works with one title get two
rows, and the stored id keeps their locator: :func:`locator_of_id` reads it back when the
record is matched again (a re-import, a later import, ``litsift dedup``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from anyascii import anyascii

__all__ = [
    "LOCATOR_FACTS",
    "locator",
    "locator_agreement",
    "locator_conflict",
    "locator_of_id",
    "locator_suffix",
    "roman_value",
]

#: the facts of a locator, in the order :func:`locator_conflict` compares them
LOCATOR_FACTS: tuple[str, ...] = ("volume", "issue", "isbn", "page", "article")
#: the one-letter tags of the facts a ``key:`` id carries (:func:`locator_suffix`)
_ID_TAGS = {"volume": "v", "issue": "n", "page": "p", "article": "a", "isbn": "i"}
_TAG_FACTS = {tag: fact for fact, tag in _ID_TAGS.items()}

_ROMAN_RE = re.compile(
    r"^(?=[mdclxvi])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$"
)
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_NUMBER_RE = re.compile(r"\d+")
_WORD_RE = re.compile(r"[a-z0-9]+")
#: words that name a fact rather than give it ("Vol. 3", "Part B", "Suppl. 2", "pp. 12")
_FACT_WORDS = frozenset(
    "vol vols volume volumes no nos number numbers iss issue issues part parts pt pts "
    "suppl supp supplement supplements sup spec special book tome section sect sec ser "
    "series pp p pages page art article artno nr n lncs lnai lnbi ccis".split()
)
_RANGE_RE = re.compile(r"\s*(?:-+|–|—|‐|‑|\bto\b)\s*")
_ISBN_RE = re.compile(r"(?<![0-9Xx])(?:97[89][\s-]?)?(?:[0-9][\s-]?){9}[0-9Xx](?![0-9Xx])")
#: the longest value a fact keeps (a title pasted into a volume field is not a volume)
_MAX_CHARS = 16
_MAX_RANGE = 24


def roman_value(word: str) -> int | None:
    """The value of a roman numeral in lower case (``"xiv"`` -> 14), None for another word."""
    if not word or not _ROMAN_RE.match(word):
        return None
    total = 0
    for a, b in zip(word, word[1:] + " ", strict=True):
        value = _ROMAN[a]
        total += -value if b != " " and _ROMAN[b] > value else value
    return total


def _words(raw: str) -> list[str]:
    return [w for w in _WORD_RE.findall(anyascii(raw).lower()) if w not in _FACT_WORDS]


def _volume(raw: str) -> str:
    text = anyascii(raw).lower()
    number = _NUMBER_RE.search(text)
    if number:
        return str(int(number.group()[:12]))
    words = _words(text)
    if not words:
        return ""
    roman = roman_value(words[0])
    return str(roman) if roman is not None else "".join(words)[:_MAX_CHARS]


def _issue(raw: str) -> str:
    text = anyascii(raw).lower()
    numbers: set[int] = set()
    for part in re.split(r"[,;/&+]|\band\b", text):
        ends = [int(n[:9]) for n in _NUMBER_RE.findall(part)]
        if len(ends) == 2 and _RANGE_RE.search(part) and 0 < ends[1] - ends[0] <= _MAX_RANGE:
            numbers.update(range(ends[0], ends[1] + 1))
        else:
            numbers.update(ends)
    if numbers:
        return " ".join(str(n) for n in sorted(numbers))
    words = _words(text)
    if not words:
        return ""
    roman = roman_value(words[0])
    return str(roman) if roman is not None else "".join(words)[:_MAX_CHARS]


def _first_page(raw: str) -> str:
    text = anyascii(raw).lower().strip()
    if ":" in text:  # 12:1-12:10, an article's own pages (dblp, ACM)
        return ""
    first = _RANGE_RE.split(text, maxsplit=1)[0]
    number = _NUMBER_RE.search(first)
    if number:
        return str(int(number.group()[:12]))
    words = _words(first)
    roman = roman_value(words[0]) if words else None
    return f"r{roman}" if roman is not None else ""


def _article(raw: str) -> str:
    digits = "".join(_NUMBER_RE.findall(anyascii(raw)))
    if digits:
        return str(int(digits[:18]))
    return "".join(_words(raw))[:_MAX_CHARS]


def _isbn13(candidate: str) -> str | None:
    """An ISBN-10 or ISBN-13 with a valid check digit, as ISBN-13; None for anything else."""
    digits = re.sub(r"[\s-]", "", candidate).upper()
    if len(digits) == 10 and digits[:9].isdigit():
        check = sum((10 - i) * (10 if d == "X" else int(d)) for i, d in enumerate(digits))
        if check % 11:
            return None
        digits = "978" + digits[:9]
        body_check = None
    elif len(digits) == 13 and digits.isdigit() and digits.startswith(("978", "979")):
        body_check = int(digits[12])
    else:
        return None
    body = digits[:12]
    check13 = (10 - sum((3 if i % 2 else 1) * int(d) for i, d in enumerate(body)) % 10) % 10
    if body_check is not None and body_check != check13:
        return None
    return body + str(check13)


def _isbns(raw: str) -> str:
    found = {_isbn13(m.group()) for m in _ISBN_RE.finditer(anyascii(raw))}
    return " ".join(sorted(i for i in found if i))


def locator(
    volume: str | None = "",
    issue: str | None = "",
    pages: str | None = "",
    article: str | None = "",
    isbn: str | None = "",
) -> dict[str, str]:
    """The locator of a record from its raw fields: ``pages`` is the page range or the first
    page (``"1781-1802"``, ``"1781"``), ``isbn`` any text holding ISBNs (``"3642121640;
    9783642121647"``). Facts that fold to nothing are left out."""
    facts = {
        "volume": _volume(volume or ""),
        "issue": _issue(issue or ""),
        "page": _first_page(pages or ""),
        "article": _article(article or ""),
        "isbn": _isbns(isbn or ""),
    }
    return {k: v for k, v in facts.items() if v}


#: first pages this close are one start (a typo, a cover page counted or not)
_PAGE_SLACK = 2


def _numbers(value: str) -> set[str]:
    return set(value.split())


def _pages_differ(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Whether two first pages name two places. An article-numbered paper starts on page 1
    of its own pagination, and databases put its number in the page, issue or article field
    (BMC Bioinform. 6:30 is ``pages = {30}`` in one export, ``number = {30}, pages = {1}`` in
    another): a page 1, or a page that is the other's article or issue number, says nothing."""
    x, y = a["page"], b["page"]
    if x == y or "1" in (x, y):
        return False
    if x.isdigit() and y.isdigit() and abs(int(x) - int(y)) <= _PAGE_SLACK:
        return False
    return not (x in _placement_numbers(b) or y in _placement_numbers(a))


def _placement_numbers(facts: Mapping[str, str]) -> set[str]:
    return {facts.get("article", ""), *_numbers(facts.get("issue", ""))} - {""}


def _same_container(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Whether both name the volume (or book) they are in (a first page places a work only
    within it: Zotero writes a PDF's page count as ``pages = {10}``)."""
    return bool(a.get("volume") and b.get("volume")) or bool(a.get("isbn") and b.get("isbn"))


def locator_conflict(a: Mapping[str, str], b: Mapping[str, str]) -> str | None:
    """The first fact of :data:`LOCATOR_FACTS` that both locators give and that differs, or
    None when none does: a volume that is not the same; issues that share no number; ISBN
    lists that share no ISBN; and, when both name their volume or their book: first pages
    more than two apart, neither of them 1 nor the other's article or issue number, article
    numbers that differ, neither the other's first page."""
    for fact in LOCATOR_FACTS:
        x, y = a.get(fact), b.get(fact)
        if not x or not y:
            continue
        if fact in ("page", "article") and not _same_container(a, b):
            continue
        if fact in ("issue", "isbn"):
            differ = not _numbers(x) & _numbers(y)
        elif fact == "page":
            differ = _pages_differ(a, b)
        elif fact == "article":
            differ = x != y and x != b.get("page") and y != a.get("page")
        else:
            differ = x != y
        if differ:
            return fact
    return None


def locator_agreement(a: Mapping[str, str], b: Mapping[str, str]) -> int:
    """How many facts both locators give (and that agree, when they do not conflict): what
    ranks equally good title matches (the stored volume that says it is this one first)."""
    return sum(1 for fact in LOCATOR_FACTS if a.get(fact) and b.get(fact))


def locator_suffix(facts: Mapping[str, str]) -> str:
    """The locator as a ``key:`` id carries it: ``":v6017:n2"`` (one ``:tag+value`` per fact,
    spaces of an issue's numbers or of ISBNs written ``.``; ``""`` for no locator)."""
    return "".join(
        f":{_ID_TAGS[f]}{facts[f].replace(' ', '.')}" for f in LOCATOR_FACTS if facts.get(f)
    )


def locator_of_id(doc_id: str) -> dict[str, str]:
    """The locator a ``key:`` id carries (:func:`locator_suffix`); ``{}`` for another id."""
    if not doc_id.startswith("key:"):
        return {}
    out: dict[str, str] = {}
    for part in doc_id.split(":")[2:]:
        fact = _TAG_FACTS.get(part[:1])
        if fact and len(part) > 1:
            out[fact] = part[1:].replace(".", " ")
    return out
