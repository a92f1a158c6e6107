"""A query that names a dataset gets that dataset first.

A researcher who types ``SQuAD``, ``COCO captions`` or ``GLUE`` in the Datasets tab wants that
dataset, not the most popular one near it: the learned re-ranker
(:mod:`litsift.search.datasets.ranker`) weighs popularity, so before this stage ``COCO
captions`` listed COCO above COCO Captions, and ``GLUE`` listed SuperGLUE above GLUE (both
ranked first by BM25 and dense). The rule, applied after every other stage:

* the whole query, keyed by :func:`~litsift.store.dataset_names.name_key` (case, spaces,
  hyphens, underscores and dots ignored), equals a dataset's name: that dataset comes first;
  then those it equals an alias of (Papers with Code aliases: ``MS COCO`` of COCO);
* else, for a query key of at least :data:`FUZZY_MIN` characters, a name one edit away
  (insertion, deletion, substitution or transposition of adjacent characters: ``imagnet``,
  ``cifra10``) counts as the name; aliases are not read for misspellings (they hold many
  near-identical split names, ``COCO 2014`` / ``COCO 2017``).

The named datasets keep their order among themselves and the year filter holds: a dataset the
query's years exclude is never added. One not among the candidates is added with the top
score (the :data:`SIGNAL` signal says why it is there). None of DataFinder's 812 test
queries is a dataset name or one edit from one, so its figures do not move
(docs/EVALUATION.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from litsift.search.retrieval.fusion import DocId, Fused
from litsift.store.dataset_names import name_key
from litsift.types import SignalScore

__all__ = ["FUZZY_MIN", "SIGNAL", "NameIndex", "named_first"]

#: the signal of a hit moved first because the query names it (score 2: its name, 1: an
#: alias, 0.5: one edit from its name)
SIGNAL = "named"
#: the shortest query key read for misspellings (``mnst`` is too short to guess from)
FUZZY_MIN = 5
_NAME, _ALIAS, _FUZZY = 2.0, 1.0, 0.5


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one insertion, deletion, substitution or
    transposition of two adjacent characters (optimal string alignment distance 1)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):  # one insertion
        return a[i:] == b[i + 1 :]
    if a[i + 1 :] == b[i + 1 :]:  # one substitution
        return True
    return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]


@dataclass(frozen=True)
class NameIndex:
    """The datasets of a store by name key.

    Attributes:
        names: ``{name key: dataset rowids}`` of the datasets' own names.
        aliases: ``{name key: dataset rowids}`` of their aliases (``variants``) that are not
            also their own name.
    """

    names: dict[str, tuple[int, ...]] = field(default_factory=dict)
    aliases: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, rows: Iterable[tuple[int, str, Sequence[str]]]) -> NameIndex:
        """The index of ``(rowid, name, aliases)`` rows."""
        names: dict[str, list[int]] = {}
        aliases: dict[str, list[int]] = {}
        for rowid, name, variants in rows:
            own = name_key(name)
            if own:
                names.setdefault(own, []).append(int(rowid))
            for key in dict.fromkeys(name_key(v) for v in variants):
                if key and key != own:
                    aliases.setdefault(key, []).append(int(rowid))
        return cls(
            {k: tuple(v) for k, v in names.items()}, {k: tuple(v) for k, v in aliases.items()}
        )

    def named(self, query: str) -> list[tuple[int, float]]:
        """``[(rowid, how)]`` of the datasets ``query`` names, in order (``how``: see
        :data:`SIGNAL`); [] when it names none."""
        key = name_key(query)
        if not key:
            return []
        out = [(r, _NAME) for r in self.names.get(key, ())]
        out += [(r, _ALIAS) for r in self.aliases.get(key, ())]
        if out or len(key) < FUZZY_MIN:
            return out
        return [(r, _FUZZY) for k, rs in self.names.items() if _one_edit(key, k) for r in rs]


def named_first(
    fused: Sequence[Fused],
    named: Sequence[tuple[int, float]],
    eligible: Callable[[int], bool],
    limit: int,
) -> list[Fused]:
    """``fused`` with the ``named`` datasets first (in the order given), cut to ``limit``.

    Args:
        fused: the ranked candidates, best first.
        named: ``[(rowid, how)]`` from :meth:`NameIndex.named`.
        eligible: whether a rowid passes the query's year filter.
        limit: how many results to keep.

    Returns:
        The results re-ranked 1..n; a moved hit keeps its score and gains the :data:`SIGNAL`
        signal, an added one (no retriever found it) has that signal only and the top score.
    """
    by_id: dict[DocId, Fused] = {f.docid: f for f in fused}
    top = max((f.score for f in fused), default=0.0)
    first: list[Fused] = []
    seen: set[DocId] = set()
    for rowid, how in named:
        if rowid in seen or not eligible(rowid):
            continue
        seen.add(rowid)
        old = by_id.get(rowid)
        signals = {**(old.signals if old else {}), SIGNAL: SignalScore(how, len(first) + 1)}
        score = old.score if old else top
        first.append(Fused(rowid, score, 0, MappingProxyType(dict(sorted(signals.items())))))
    if not first:
        return list(fused[:limit])
    rest = [f for f in fused if f.docid not in seen]
    return [
        Fused(f.docid, f.score, rank, f.signals)
        for rank, f in enumerate([*first, *rest][:limit], start=1)
    ]
