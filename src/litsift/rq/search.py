"""Search papers by their research question: BM25 over the problem or the method field.

A tantivy index in RAM (the tokenizer of the BM25 part: lower-cased, English-stemmed) over the
papers that have a problem/method, built on first use and rebuilt when the stored research
questions change (a few thousand short texts index in well under a second). Scores are BM25
(tantivy's k1 1.2, b 0.75) on the one field asked for; each query term is weighted by its count
in the query, as the main BM25 part does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import tantivy

from litsift.search.retrieval.bm25 import ANALYZER_NAME, MAX_QUERY_TOKENS, analyzer
from litsift.types import YearRange

__all__ = ["FIELDS", "Field", "RQIndex"]

Field = Literal["problem", "method"]
FIELDS: tuple[Field, ...] = ("problem", "method")
_NO_YEAR = -1


class RQIndex:
    """BM25 over ``problem`` and ``method`` of ``(rowid, year, problem, method)`` rows."""

    def __init__(self, rows: Iterable[tuple[int, int | None, str, str]]) -> None:
        sb = tantivy.SchemaBuilder()
        for name in FIELDS:
            sb.add_text_field(name, stored=False, tokenizer_name=ANALYZER_NAME, index_option="freq")
        sb.add_unsigned_field("rowid", stored=True, indexed=True, fast=True)
        sb.add_integer_field("year", stored=False, indexed=True, fast=True)
        self._schema = sb.build()
        self._index = tantivy.Index(self._schema)  # in RAM
        self._index.register_tokenizer(ANALYZER_NAME, analyzer())
        self._analyzer = analyzer()
        writer = self._index.writer(heap_size=50_000_000, num_threads=1)
        self.count = 0
        for rowid, year, problem, method in rows:
            doc = tantivy.Document()
            doc.add_text("problem", problem)
            doc.add_text("method", method)
            doc.add_unsigned("rowid", int(rowid))
            doc.add_integer("year", int(year) if year is not None else _NO_YEAR)
            writer.add_document(doc)
            self.count += 1
        writer.commit()
        writer.wait_merging_threads()
        self._index.reload()
        self._searcher = self._index.searcher()

    def search(
        self, field: Field, text: str, k: int, years: YearRange | None = None
    ) -> list[tuple[int, float]]:
        """Top ``k`` ``(rowid, BM25 score)`` of ``text`` against ``field``, best first.

        Raises:
            ValueError: ``field`` is not ``"problem"`` or ``"method"``.
        """
        if field not in FIELDS:
            raise ValueError(f"field must be one of {FIELDS}, got {field!r}")
        years = years or YearRange()
        counts: dict[str, int] = {}
        for tok in self._analyzer.analyze(text):
            if tok in counts or len(counts) < MAX_QUERY_TOKENS:
                counts[tok] = counts.get(tok, 0) + 1
        if not counts or k <= 0 or self.count == 0:
            return []
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = [
            (
                tantivy.Occur.Should,
                tantivy.Query.boost_query(tantivy.Query.term_query(self._schema, field, t), n),
            )
            for t, n in counts.items()
        ]
        query = tantivy.Query.boolean_query(clauses)
        if years.start is not None or years.end is not None:
            lower = years.start if years.start is not None else _NO_YEAR + 1
            in_range = tantivy.Query.range_query(
                self._schema, "year", tantivy.FieldType.Integer, lower, years.end
            )
            if years.include_missing:
                missing = tantivy.Query.term_query(self._schema, "year", _NO_YEAR)
                in_range = tantivy.Query.boolean_query(
                    [(tantivy.Occur.Should, in_range), (tantivy.Occur.Should, missing)]
                )
            query = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Must, query),
                    (tantivy.Occur.Must, tantivy.Query.const_score_query(in_range, 0.0)),
                ]
            )
        hits = self._searcher.search(query, min(k, self.count), count=False).hits
        rowids = self._searcher.fast_field_values("rowid", [addr for _, addr in hits])
        return [(int(r or 0), float(s)) for (s, _), r in zip(hits, rowids, strict=True)]
