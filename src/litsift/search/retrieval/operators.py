"""The query operators researchers type, read out of the query text: exclusions (``-word``,
``-"a phrase"``, ``NOT word``), quoted phrases (``"knowledge graph"``) and the wildcards
litsift does not support (``transf?rmer``, ``neur*l``, ``token*``).

User text never reaches tantivy's query parser (:mod:`litsift.search.retrieval.bm25`), so these
were read as words: ``-transformer`` searched for transformers, the opposite of what was meant,
and a quoted phrase was two loose words. :func:`parse_operators` takes them out of the text
before retrieval (an excluded word is neither searched for nor embedded); the stages that act
on the loaded hits (:class:`~litsift.search.retrieval.operator_stages.Exclude`,
:class:`~litsift.search.retrieval.operator_stages.PhraseFirst`) read the parsed operators.
What a model reads of a query (BM25, the bi-encoder and the cross-encoder of the search, the
LLM rerank, judge and answer, the aspect decomposition, "more like this") is
:attr:`QueryOperators.for_models`: the searched text, phrases unquoted.

A minus only excludes at the start of a word and before a letter or a quote: ``state-of-the-art``,
``BERT-base``, ``-1`` and ``-2019`` are words. ``NOT`` is an operator in capitals only ("does not
use labels" is prose), and not after an auxiliary or a conjunction nor before an article or a
quantifier ("Style is NOT a single variable", "do NOT use labels": a sentence's emphasis).
An unbalanced quote is a character.

A wildcard is ``?`` between two letters or ``*`` between two letters, at the end of three
letters or more that are not all capitals, or at the start of three letters or more
(``transf?rmer``, ``neur*l``, ``token*``, ``*former``). The tokenizer cut such a word into
fragments ("transf", "rmer"; "neur", "l"), each searched as a word of its own, and nothing said
so. The wildcard characters are taken out, the word kept whole (``transfrmer``, ``neurl``,
``token``: the stemmer makes "token" find "tokens" and "tokenization"), and
:func:`wildcard_note` says so. Not wildcards: ``A*``, ``IDA*``, ``R*-tree`` (algorithm names),
``x*`` (notation), ``*emphasis*``, a word holding ``/`` or ``@`` (links, DOIs, addresses), a
question mark after a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ONLY_EXCLUSIONS",
    "QueryOperators",
    "excluded_label",
    "parse_operators",
    "wildcard_note",
]

#: a quoted phrase, or an exclusion: ``-"phrase"``, ``-word`` (a letter after the minus) or
#: ``NOT`` and a word or a quoted phrase; a minus or NOT only at the start of a word
_OPERATOR_RE = re.compile(
    r"""(?:(?<!\S)(?P<neg>-|NOT\s+))?["\u201c]"""
    r"""(?P<phrase>[^"\u201c\u201d]*?[^\W_][^"\u201c\u201d]*?)["\u201d]"""
    r"""|(?<!\S)-(?P<word>[^\W\d_][^\s"]*)"""
    r"""|(?<!\S)NOT\s+(?P<notword>[^\s"]*[^\W_][^\s"]*)"""
)
#: punctuation around an excluded word that is not part of it (``-graph,``)
_TRAILING = " \t\n\r,;:.!?()[]{}"
#: why a query of exclusions alone has no hits (``SearchResult.partial``)
ONLY_EXCLUSIONS = (
    "nothing to search for: {excluded} only say what to leave out; "
    "type what to find as well, e.g. knowledge graph -embedding"
)
#: what a query with wildcards says (``SearchResult.partial``)
WILDCARDS = "wildcards are not supported: {read} — type the whole word"

_LETTER = r"[^\W\d_]"
#: ``?`` or ``*`` between two letters: ``transf?rmer``, ``neur*l``
_INNER_WILD_RE = re.compile(rf"(?<={_LETTER})[*?](?={_LETTER})")
#: ``*`` after a run of letters (kept when under three or all capitals: ``x*``, ``IDA*``);
#: a run is tried from its start only (from each of its letters, 100,000 letters took 30 s)
_END_STAR_RE = re.compile(rf"(?<!{_LETTER})({_LETTER}+)\*(?!{_LETTER})")
#: ``*`` at the start of a word before three letters or more: ``*former``
_START_STAR_RE = re.compile(rf"(?<![^\s\"'(\[\u201c-])\*(?={_LETTER}{{3}})")
#: what surrounds a word without being part of it, for the wildcard note
_AROUND = " \t\n\r,;:.!?()[]{}\"'\u201c\u201d-"


@dataclass(frozen=True)
class QueryOperators:
    """A query's text split into what is searched and the operators around it.

    Attributes:
        text: the query with its exclusions removed and its wildcard characters taken out
            (a quoted phrase stays, quotes and all); what is searched is :attr:`for_models`.
        exclude: the excluded words and phrases, as typed (no minus, NOT or quotes).
        phrases: the quoted phrases that are searched for, as typed (no quotes).
        unquoted: ``text`` with the quotes of its phrases removed; None when it has none.
        wildcards: ``(as typed, as read)`` of each word whose wildcard characters were taken
            out, in query order (``("transf?rmer", "transfrmer")``).
    """

    text: str
    exclude: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    unquoted: str | None = None
    wildcards: tuple[tuple[str, str], ...] = ()

    @property
    def for_models(self) -> str:
        """What the search's retrievers and every model read of the query (BM25, the
        encoders, an LLM prompt, the aspect decomposition, the "more like this" query
        vector): :attr:`text` with its phrases unquoted."""
        return self.text if self.unquoted is None else self.unquoted


def parse_operators(text: str) -> QueryOperators:
    """The exclusions, quoted phrases and wildcards of a query (see the module docstring).

    Args:
        text: the cleaned query text.

    Returns:
        The text without its exclusions and wildcard characters (runs of spaces the
        exclusions leave are squeezed), the excluded words and phrases, the searched phrases,
        the text unquoted, the words read without their wildcards; each tuple in query
        order, repeats dropped.
    """
    wildcards: tuple[tuple[str, str], ...] = ()
    if "*" in text or "?" in text:
        text, wildcards = _without_wildcards(text)
    if '"' not in text and "\u201c" not in text and "-" not in text and "NOT" not in text:
        return QueryOperators(text, wildcards=wildcards)
    exclude: list[str] = []
    phrases: list[str] = []
    plain: dict[int, str] = {}  # what a match becomes in the unquoted text, by its start

    def take(m: re.Match[str]) -> str:
        phrase = m.group("phrase")
        plain[m.start()] = m.group(0)
        if phrase is not None and not m.group("neg"):
            phrases.append(phrase.strip())
            plain[m.start()] = phrase
            return m.group(0)
        if (m.group("notword") or (m.group("neg") or "").startswith("NOT")) and _emphasis(
            text[: m.start()], m.group("notword") or ""
        ):  # "Style is NOT a single variable": prose, not an operator
            if phrase is not None:
                phrases.append(phrase.strip())
                plain[m.start()] = f"{m.group('neg')}{phrase}"
            return m.group(0)
        if m.group("word") is not None and _bullet(text, m):  # "-I proposed a ...": a list dash
            return m.group(0)
        exclude.append((phrase or m.group("word") or m.group("notword")).strip(_TRAILING))
        plain[m.start()] = " "
        return " "

    rest = _OPERATOR_RE.sub(take, text)
    if not exclude and not phrases:
        return QueryOperators(text, wildcards=wildcards)
    unquoted = _OPERATOR_RE.sub(lambda m: plain[m.start()], text) if phrases else None
    if exclude:
        rest = " ".join(rest.split())
        unquoted = " ".join(unquoted.split()) if unquoted is not None else None
    return QueryOperators(
        rest,
        tuple(dict.fromkeys(exclude)),
        tuple(dict.fromkeys(phrases)),
        unquoted,
        wildcards,
    )


def _without_wildcards(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``text`` with the wildcard characters of its words taken out, and ``(as typed, as
    read)`` of each word that had some (see the module docstring)."""
    read: list[tuple[str, str]] = []

    def word(m: re.Match[str]) -> str:
        typed = m.group(0)
        core = typed.strip(_AROUND)
        if "/" in core or "@" in core or (len(core) > 1 and core[0] == core[-1] == "*"):
            return typed  # a link, a DOI, an address, *emphasis*
        out = _INNER_WILD_RE.sub("", typed)
        out = _END_STAR_RE.sub(
            lambda s: s.group(0) if len(s.group(1)) < 3 or s.group(1).isupper() else s.group(1),
            out,
        )
        out = _START_STAR_RE.sub("", out)
        if out != typed:
            read.append((core, out.strip(_AROUND)))
        return out

    out = re.sub(r"\S+", word, text)
    return out, tuple(dict.fromkeys(read))


def wildcard_note(wildcards: tuple[tuple[str, str], ...]) -> str | None:
    """``"wildcards are not supported: 'transf?rmer' read as 'transfrmer' — type the whole
    word"`` for :attr:`QueryOperators.wildcards`; None when there are none."""
    if not wildcards:
        return None
    return WILDCARDS.format(read=", ".join(f"'{t}' read as '{r}'" for t, r in wildcards))


#: words after which a capital NOT is emphasis in a sentence ("is NOT", "do NOT"), and words
#: a NOT before which is emphasis ("NOT a", "NOT all"): neither is an exclusion
_PROSE_BEFORE_NOT = frozenset(
    "is are was were be been am do does did can could should would will shall may might must "
    "has have had why if whether or but".split()
)
_PROSE_AFTER_NOT = frozenset(
    "a an the all only just always every any one to be so as that this these those".split()
)


def _emphasis(before: str, word: str) -> bool:
    """Whether the ``NOT`` that follows ``before`` (and comes before ``word``; "" for a
    phrase) is a sentence's emphasis rather than the operator: after an auxiliary or a
    conjunction ("is NOT", "do NOT", "but NOT"), or before an article or a quantifier
    ("NOT a", "NOT all"). Titles say "Style is NOT a single variable"."""
    words = before.rsplit(None, 1)  # the last word only: split whole, 12,000 NOTs took 5 s
    last = words[-1].strip(_TRAILING).lower() if words else ""
    return last in _PROSE_BEFORE_NOT or word.strip(_TRAILING).lower() in _PROSE_AFTER_NOT


#: words a dash before which is no exclusion: pronouns and articles ("-I proposed ...")
_NOT_EXCLUDED = frozenset("i we you he she it they me us them my our a an the this".split())


def _bullet(text: str, m: re.Match[str]) -> bool:
    """Whether the ``-word`` of ``m`` is a list dash or prose rather than an exclusion: the
    word is a pronoun or an article, or the dash starts a sentence-long query (six words or
    more) before a capital ("-Proposed a feature ...", as DataFinder's queries have one)."""
    word = m.group("word").strip(_TRAILING)
    if word.lower() in _NOT_EXCLUDED:
        return True
    return m.start() == 0 and word[:1].isupper() and len(text.split()) >= 6


def excluded_label(exclude: tuple[str, ...]) -> str:
    """``-graph, -"knowledge graph"``: the exclusions as a user would type them."""
    return ", ".join(f'-"{e}"' if " " in e else f"-{e}" for e in exclude)
