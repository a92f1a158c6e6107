"""Publishers' inline markup and HTML character references in titles and abstracts, as plain
text: ``CO<sub>2</sub> &amp; H<sup>+</sup>`` becomes ``CO2 & H+``, ``p &lt; 0.05`` becomes
``p < 0.05``.

Real sources write them into the very fields litsift shows: Crossref's JATS abstracts
(``<jats:p>``, ``<jats:italic>``), OpenAlex titles (``<i>``, ``<scp>``, and escaped once more:
``&lt;p&gt;Title&lt;/p&gt;``), Scopus (``<inf>``), PubMed (``<AbstractText Label=...>``),
F1000 (``<ns4:p>``), venues such as ``Big Data &amp; Society``. Before this module they were
stored and shown raw. :func:`litsift.sources.base.scrub_controls`, which every importer's
records pass through, now cleans them with :func:`plain_text`, whatever the format.

What is removed is deliberately narrow, because these fields are plain text that sometimes
holds markup, not HTML: ``a < b > c``, ``p<0.05``, ``x <= 3``, ``<5 years`` are text. An
HTML parser (lxml, :class:`html.parser.HTMLParser`) would read ``<b and c> d`` or an
unclosed ``<x`` as markup and lose text, so tags are matched by a pattern that requires a
tag name of :data:`INLINE_TAGS` / :data:`BLOCK_TAGS` (any case) or a namespace prefix of
:data:`PREFIXES`, and attributes written ``name="value"``. Character references are decoded
with the standard library's :func:`html.unescape`, one reference at a time and only when it
ends with ``;``: a whole-string ``html.unescape`` would also decode HTML's legacy references
without ``;`` that occur in plain text (``&not``, ``&para``, ``&sect``, ``&copy``).
"""

from __future__ import annotations

import html
import re

__all__ = ["BLOCK_TAGS", "INLINE_TAGS", "PREFIXES", "ROUNDS", "plain_text"]

#: tags removed with nothing in their place, their text kept where it stands
#: (``CO<sub>2</sub>`` -> ``CO2``); ``inf`` is Scopus's subscript, ``bi`` IEEE's bold italic,
#: ``urlref`` / ``emailref`` Bioinformatics' links, ``emphasis`` Springer's
INLINE_TAGS = frozenset(
    "b bi bold em emailref emphasis i inf italic small sc scp span strong sub sup tt u "
    "urlref".split()
)
#: tags that end a paragraph, heading or line: each becomes a space, so the words on either
#: side do not run together (``...Results</p><p>We...`` -> ``...Results We...``)
BLOCK_TAGS = frozenset("abstracttext br div h1 h2 h3 h4 h5 h6 li ol p subtitle ul".split())
#: namespace prefixes whose tags are all markup, whatever their local name (``jats:p``,
#: ``mml:math``, OpenAlex's ``ns4:p``); removed like :data:`INLINE_TAGS`, or replaced by a
#: space like :data:`BLOCK_TAGS` when the local name is one of those or of JATS's sections
PREFIXES = ("jats", "mml", "xhtml", "ns[0-9]+")
_PREFIXED_BLOCKS = BLOCK_TAGS | {"sec", "title", "list", "list-item", "label", "caption"}

_ATTR = r"""\s+[A-Za-z_][\w:.-]*\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>=`]+)"""
_TAG_RE = re.compile(
    rf"<(/?)(?:({'|'.join(PREFIXES)}):)?([A-Za-z][\w.-]*)(?:{_ATTR})*\s*/?>", re.IGNORECASE
)
#: a character reference ending with ``;``: numeric (``&#946;``, ``&#x3b2;``) or named
_REF_RE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_WS_RE = re.compile(r"\s+")
#: rounds of decoding: the sources' own escaping plus the one more that some of them add
ROUNDS = 2


def _tag(m: re.Match[str]) -> str:
    local = m.group(3).lower()
    if m.group(2):
        return " " if local in _PREFIXED_BLOCKS else ""
    if local in BLOCK_TAGS:
        return " "
    if local in INLINE_TAGS:
        return ""
    return m.group(0)  # not a tag litsift knows (``<<ETX>>``, ``List<String>``): text


#: a JATS inline formula (IEEE titles via Semantic Scholar): ``<inline-formula><tex-math>$\\mu$
#: </tex-math><alternatives>μ<inline-graphic .../></alternatives></inline-formula>Bench``
_FORMULA_RE = re.compile(r"<inline-formula\b[^>]*>(.*?)</inline-formula>", re.IGNORECASE | re.S)
_ALTERNATIVES_RE = re.compile(r"<alternatives\b[^>]*>(.*?)</alternatives>", re.IGNORECASE | re.S)
_TEX_MATH_RE = re.compile(r"<tex-math\b[^>]*>(.*?)</tex-math>", re.IGNORECASE | re.S)
_ANY_TAG_RE = re.compile(r"<[^<>]+>")


def _formula(m: re.Match[str]) -> str:
    """A formula as its text alternative (``μ``), else its TeX without ``$``, else its text."""
    inner = m.group(1)
    alt = _ALTERNATIVES_RE.search(inner)
    text = _ANY_TAG_RE.sub("", _TEX_MATH_RE.sub("", alt.group(1))) if alt else ""
    if text.strip():
        return text.strip()
    tex = _TEX_MATH_RE.search(inner)
    return tex.group(1).strip().strip("$") if tex else _ANY_TAG_RE.sub("", inner)


def _strip_tags(text: str) -> str:
    if "<" not in text:
        return text
    if "inline-formula" in text.lower():
        text = _FORMULA_RE.sub(_formula, text)
    return _TAG_RE.sub(_tag, text)


def plain_text(text: str) -> str:
    """``text`` without publishers' markup: tags of :data:`INLINE_TAGS` removed (their text
    kept), tags of :data:`BLOCK_TAGS` replaced by a space, any tag with a prefix of
    :data:`PREFIXES` removed or replaced by a space (paragraphs, sections, titles), character
    references (``&amp;``, ``&lt;``, ``&#946;``, ``&#x3b2;``, ``&nbsp;``) decoded; whitespace
    then collapsed and the ends stripped. A text without ``<`` and ``&`` is returned as it is,
    and so is any text in which nothing was found.

    Tags are removed before references are decoded, and decoded text is searched for tags
    again: the real sets escape markup and references once more than they should (OpenAlex
    titles ``&lt;p&gt;Title&lt;/p&gt;``, abstracts ``P &amp;lt; 0.0001``, ``Social &amp;amp;
    Psychological``), which were still shown raw after one round. So there are at most
    :data:`ROUNDS` rounds of "remove tags, decode references", each decoding every reference
    once: ``&amp;lt;`` becomes ``<`` (text about HTML escapes is not what papers' titles and
    abstracts hold), ``&amp;amp;lt;`` stays ``&lt;``. Comparisons are text and stay: ``a < b >
    c``, ``p<0.05``, ``x <= 3``, ``<5 years``; so do unknown references (SGML's ``&mgr;``)."""
    if "<" not in text and "&" not in text:
        return text
    plain = _strip_tags(text)
    for _ in range(ROUNDS):
        decoded = _REF_RE.sub(lambda m: html.unescape(m.group(0)), plain) if "&" in plain else plain
        if decoded == plain:
            break
        plain = _strip_tags(decoded)
    return text if plain == text else _WS_RE.sub(" ", plain).strip()
