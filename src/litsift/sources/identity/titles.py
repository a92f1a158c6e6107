"""Titles folded for matching records, and whether two titles may name one work.

Used by :mod:`litsift.sources.identity.matcher` (which re-exports these names): :func:`title_key`
is the form every title is compared in, :func:`title_tokens` its blocking words, and
:func:`titles_agree` the check that keeps apart near-identical titles of different works
(numbered findings papers, the parts and volumes of one report or proceedings, an erratum and
its paper).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from anyascii import anyascii

from litsift.sources.identity.locators import roman_value

__all__ = ["TOKEN_MIN_CHARS", "title_key", "title_tokens", "titles_agree"]

_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")
_LATEX_CMD_RE = re.compile(r"\\[a-zA-Z]+\s*")
_DIGITS_RE = re.compile(r"\d+")
_ROMAN_RE = re.compile(r"^(?:x{0,3})(?:ix|iv|v?i{0,3})$")
#: Words that tell two otherwise equal titles apart: ordinals, small numbers, part and
#: edition words, and the titles of notes about a paper (an erratum is not the paper).
_MARK_WORDS = frozenset(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth "
    "thirtieth fortieth fiftieth hundredth one two three four five six seven eight nine ten "
    "eleven twelve part parts volume vol edition ed chapter supplement erratum errata "
    "corrigendum correction retraction addendum reply rejoinder comment commentary response".split()
)
_STOP_WORDS = frozenset(
    "a an the of and or in on for to with by at from as is are via into its their our".split()
)
#: words after which a title names its volume or part (``part b``, ``vol 2``, ``volume ii``)
_PART_WORDS = frozenset("part parts pt vol vols volume tome".split())
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_SHORT_TOKEN = 4
#: the shortest word of a title that is a blocking token (:func:`title_tokens`)
TOKEN_MIN_CHARS = 3


def title_key(title: str) -> str:
    """``title`` folded for matching: ASCII (anyascii), lower case, LaTeX commands, braces and
    punctuation removed, single spaces. ``"{BERT}: Pre-training..." -> "bert pre training ..."``."""
    text = anyascii(_LATEX_CMD_RE.sub(" ", title or "")).lower()
    return _NON_ALNUM_RE.sub(" ", text).strip()


def title_tokens(key: str) -> list[str]:
    """The blocking tokens of a :func:`title_key` form: its distinct words of at least
    :data:`TOKEN_MIN_CHARS` characters that are not stop words, sorted.
    ``"bert pre training of deep ..." -> ["bert", "deep", "pre", "training", ...]``."""
    return sorted({t for t in key.split() if len(t) >= TOKEN_MIN_CHARS and t not in _STOP_WORDS})


def _designator(token: str) -> str | None:
    """The part a token after a part word names: a number (``2``, ``ii``, ``two`` -> ``2``)
    or a letter (``b``); None for another word (``part of speech``)."""
    roman = roman_value(token)
    if roman is not None:
        return str(roman)
    if token.isdigit():
        return str(int(token))
    if token in _NUMBER_WORDS:
        return _NUMBER_WORDS[token]
    return token if len(token) == 1 else None


def _marks(tokens: Sequence[str]) -> tuple[str, Counter[str], tuple[str, ...], list[str]]:
    """The digits, the mark words and the designators (what follows a part word, by value:
    ``part ii`` and ``part 2`` name one part, ``part a`` and ``part b`` two) of a title, and
    its other tokens."""
    named = {
        i + 1: d
        for i, (p, t) in enumerate(pairwise(tokens))
        if p in _PART_WORDS and (d := _designator(t)) is not None
    }
    rest = [t for i, t in enumerate(tokens) if i not in named]
    digits = "".join(_DIGITS_RE.findall(" ".join(rest)))
    words = Counter(t for t in rest if t in _MARK_WORDS or _ROMAN_RE.match(t))
    return digits, words, tuple(named.values()), rest


def titles_agree(key_a: str, key_b: str) -> bool:
    """Whether two :func:`title_key` forms may name one work: they hold the same digits in the
    same order (years, numbers, ``37th``, ``wmt19``; ``"10 10"`` and ``"1010"`` agree), the same
    ordinal, number, roman-numeral and part/edition/erratum words, the same designators after
    part words (``part a`` / ``part b``, ``vol 1`` / ``vol 2``; ``part ii`` and ``part 2``
    agree), and no short token (<= 4 letters, not a stop word) of one is replaced by another
    short token in the other (``"... for the atsp"`` / ``"... for the stsp"``).
    """
    ta, tb = key_a.split(), key_b.split()
    if ta == tb:
        return True
    *marks_a, rest_a = _marks(ta)
    *marks_b, rest_b = _marks(tb)
    if marks_a != marks_b:
        return False
    sa, sb = set(rest_a), set(rest_b)
    joined_a, joined_b = "".join(rest_a), "".join(rest_b)

    def short_only(mine: set[str], theirs_joined: str) -> bool:
        return any(
            len(t) <= _SHORT_TOKEN and t not in _STOP_WORDS and t not in theirs_joined for t in mine
        )

    return not (short_only(sa - sb, joined_b) and short_only(sb - sa, joined_a))
