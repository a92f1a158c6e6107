"""The text of a record as the retrievers see it: BM25 fields and the bi-encoder passage.

One place decides which strings of a :class:`~litsift.types.Paper` or
:class:`~litsift.types.Dataset` are indexed, so the BM25 index, the dense index and anyone
reproducing them (evaluation, benchmarks) use the same text.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from litsift.types import Dataset, Kind, Paper, Record

#: BM25 text fields of each kind, in schema order.
FIELDS: Mapping[Kind, tuple[str, ...]] = MappingProxyType(
    {
        Kind.PAPER: ("title", "abstract", "authors", "venue"),
        Kind.DATASET: ("name", "aliases", "description", "intro_paper_title"),
    }
)

#: Default BM25 field boosts (multiplied into each field's BM25 score; 0 disables a field).
DEFAULT_BOOSTS: Mapping[Kind, Mapping[str, float]] = MappingProxyType(
    {
        Kind.PAPER: MappingProxyType({"title": 2.0, "abstract": 1.0, "authors": 1.0, "venue": 0.5}),
        Kind.DATASET: MappingProxyType(
            {"name": 2.0, "aliases": 1.5, "description": 1.0, "intro_paper_title": 1.0}
        ),
    }
)


def record_fields(record: Record) -> dict[str, str]:
    """The BM25 fields of a record.

    Args:
        record: a paper or a dataset.

    Returns:
        ``{field name: text}`` with exactly the names of ``FIELDS[record.kind]``; list values
        (authors, dataset variants) are joined with ``"; "``.
    """
    if isinstance(record, Paper):
        return {
            "title": record.title,
            "abstract": record.abstract,
            "authors": "; ".join(record.authors),
            "venue": record.venue,
        }
    return {
        "name": record.id,
        "aliases": "; ".join(record.variants),
        "description": record.description,
        "intro_paper_title": record.intro_paper_title,
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
        One string, stripped.
    """
    if isinstance(record, Paper):
        title = record.title.strip()
        abstract = record.abstract.strip()
        if title and abstract:
            sep = " " if title.endswith((".", "?", "!")) else ". "
            return f"{title}{sep}{abstract}"
        return title or abstract
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
    return " ".join(parts).strip()
