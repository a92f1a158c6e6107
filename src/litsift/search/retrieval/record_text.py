"""The text of a record as the retrievers see it: BM25 fields and the bi-encoder passage.

One place decides which strings of a :class:`~litsift.types.Paper` or
:class:`~litsift.types.Dataset` are indexed, so the BM25 index, the dense index and anyone
reproducing them (evaluation, benchmarks) use the same text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from litsift.types import Dataset, Kind, Paper, Record

#: The BM25 field holding a record's whole searchable text as one field (one length norm):
#: a paper's title + abstract, a dataset's name, aliases, cleaned description and intro paper
#: title. See :func:`record_fields`.
ALL_FIELD = "all"

#: BM25 text fields of each kind, in schema order. Indexes built before :data:`ALL_FIELD`
#: existed lack it (``BM25Index`` then scores the other fields only).
FIELDS: Mapping[Kind, tuple[str, ...]] = MappingProxyType(
    {
        Kind.PAPER: ("title", "abstract", "authors", "venue", ALL_FIELD),
        Kind.DATASET: ("name", "aliases", "description", "intro_paper_title", ALL_FIELD),
    }
)

#: Default BM25 field boosts (multiplied into each field's BM25 score; 0 disables a field).
#: Measured (docs/EVALUATION-RESULTS.md): scoring the one concatenated :data:`ALL_FIELD`, plus
#: the title / name at 0.3, beats per-field boosts with separate length norms (old default
#: title 2 / name 2, aliases 1.5): SciFact nDCG@10 62.2 -> 70.0, DataFinder tune-half R@5
#: 10.2 -> 13.8 (full sentence) and 9.1 -> 19.2 (keyphrase).
#: The authors field at 0.3 (2026-11-30): with it at 0, a search for an author's name found
#: none of their papers (a tester: "Keltner", three papers stored, 0 hits); on DataFinder the
#: hybrid moved by at most 0.15 points (P@5 22.43 -> 22.38, MRR 57.95 -> 58.11) and DORIS-MAE
#: dev not at all (queries name no authors).
DEFAULT_BOOSTS: Mapping[Kind, Mapping[str, float]] = MappingProxyType(
    {
        Kind.PAPER: MappingProxyType({ALL_FIELD: 1.0, "title": 0.3, "authors": 0.3}),
        Kind.DATASET: MappingProxyType({ALL_FIELD: 1.0, "name": 0.3}),
    }
)

#: What an index build reads of one record at most (issue 43: one 5M-character abstract made
#: ``litsift index`` take 287 s and 1.3 GB): each BM25 field (title + the first 20,000
#: characters of an abstract, ...), and the passage the bi-encoder embeds and the sentence
#: phase cuts (the encoder reads 256 word pieces, ~1,500 characters; tokenizing or splitting
#: megabytes first is what cost). The store keeps the whole text.
MAX_FIELD_CHARS = 20_000
MAX_PASSAGE_CHARS = 8_000

#: A Papers-with-Code "Source: [...](...)" / "Image Source: ..." attribution line.
_SOURCE_LINE_RE = re.compile(r"^\s*(?:Image\s+)?Source\s*:.*$", re.IGNORECASE | re.MULTILINE)
#: A markdown image ``![alt](url)`` (dropped) and link ``[text](url)`` (kept as ``text``).
_MD_IMAGE_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_MD_LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_URL_RE = re.compile(r"https?://\S+")
_MD_MARK_RE = re.compile(r"\*\*|__|`|^#+\s*", re.MULTILINE)


def clean_description(text: str) -> str:
    """A dataset description as prose: Papers-with-Code markdown and attributions removed.

    Drops "Source: [...](...)" and "Image Source: ..." lines (a citation of some paper, not a
    description of the dataset), markdown images and bare URLs; keeps a link's text; removes
    ``**``/``__``/backticks/heading marks; collapses whitespace.

    Args:
        text: the raw description.

    Returns:
        One line of text (possibly empty).
    """
    text = _SOURCE_LINE_RE.sub(" ", text)
    text = _MD_IMAGE_RE.sub(" ", text)
    text = _MD_LINK_RE.sub(r"\1", text)
    text = _URL_RE.sub(" ", text)
    text = _MD_MARK_RE.sub("", text)
    return " ".join(text.split())


def record_fields(record: Record) -> dict[str, str]:
    """The BM25 fields of a record.

    Args:
        record: a paper or a dataset.

    Returns:
        ``{field name: text}`` with exactly the names of ``FIELDS[record.kind]``; list values
        (authors, dataset variants) are joined with ``"; "``; each field holds at most
        :data:`MAX_FIELD_CHARS` characters of its text. :data:`ALL_FIELD` is a paper's
        title and abstract, or a dataset's name, distinct aliases, description cleaned by
        :func:`clean_description` and intro paper title, one per line.
    """
    cap = MAX_FIELD_CHARS
    if isinstance(record, Paper):
        title, abstract = record.title[:cap], record.abstract[:cap]
        return {
            "title": title,
            "abstract": abstract,
            "authors": "; ".join(record.authors)[:cap],
            "venue": record.venue[:cap],
            ALL_FIELD: "\n".join(t for t in (title, abstract) if t),
        }
    aliases = [v for v in record.variants if v.strip() and v.strip() != record.id.strip()]
    description = clean_description(record.description[:cap])
    name, intro = record.id[:cap], record.intro_paper_title[:cap]
    return {
        "name": name,
        "aliases": "; ".join(record.variants)[:cap],
        "description": record.description[:cap],
        "intro_paper_title": intro,
        ALL_FIELD: "\n".join(t for t in (name, "; ".join(aliases)[:cap], description, intro) if t),
    }


def passage_text(record: Record) -> str:
    """The passage the bi-encoder embeds for a record.

    A paper is ``"title. abstract"``; a dataset is
    ``"name (alias1, alias2): description [intro paper title]"``, with the parts that are
    empty left out. all-MiniLM-L6-v2 reads at most 256 word pieces (``Encoder.max_length``),
    so the title and name come first. This is the single function to change when tuning what
    is embedded; changing it requires ``litsift index --rebuild``.

    Args:
        record: a paper or a dataset.

    Returns:
        One string, stripped, of at most :data:`MAX_PASSAGE_CHARS` characters (the rest of a
        huge record is never tokenized nor split into sentences).
    """
    if isinstance(record, Paper):
        title = record.title.strip()
        abstract = record.abstract.strip()
        if title and abstract:
            sep = " " if title.endswith((".", "?", "!")) else ". "
            return f"{title}{sep}{abstract}"[:MAX_PASSAGE_CHARS].rstrip()
        return (title or abstract)[:MAX_PASSAGE_CHARS].rstrip()
    assert isinstance(record, Dataset)
    head = record.id.strip()
    aliases = [v.strip() for v in record.variants if v.strip() and v.strip() != head]
    if aliases:
        head = f"{head} ({', '.join(aliases)})"
    parts = [head]
    description = record.description.strip()
    if description:
        parts[0] = f"{head}:"
        parts.append(description)
    intro = record.intro_paper_title.strip()
    if intro:
        parts.append(f"[{intro}]")
    return " ".join(parts).strip()[:MAX_PASSAGE_CHARS].rstrip()
