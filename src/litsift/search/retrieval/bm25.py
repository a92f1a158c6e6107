"""BM25 over a tantivy index: one index per kind of record, documents keyed by SQLite rowid.

Schema: the text fields of :data:`litsift.search.retrieval.record_text.FIELDS` (analysed,
frequencies kept, not
stored: SQLite is the source of truth), ``rowid`` (u64, stored, indexed, fast) and ``year``
(i64, indexed, fast; :data:`~litsift.search.retrieval.filters.YEAR_MISSING` when absent).

Text is analysed with :func:`analyzer`, the pipeline of tantivy's built-in ``en_stem``
(simple tokenizer, tokens over 40 bytes dropped, lowercase, English Snowball stemmer),
registered under its own name so the very same analyzer object can also tokenise queries.
User text never reaches tantivy's query parser: a query is the analysed tokens turned into
term queries by hand (one per field per token, boosted per field), so operators, quotes and
field prefixes in the text are just characters. Scoring is tantivy's BM25 (k1 = 1.2, b = 0.75;
Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond"), summed
over the matched (field, token) clauses, each times its field boost.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import cast

import tantivy

from litsift.errors import (
    IndexDamagedError,
    IndexMismatchError,
    IndexMissingError,
    PermissionDeniedError,
    ReadOnlyHomeError,
)
from litsift.search.retrieval.filters import YEAR_MISSING, is_filtering, year_value
from litsift.search.retrieval.record_text import DEFAULT_BOOSTS, FIELDS, record_fields
from litsift.store.faults import fault_in_chain, machine_fault
from litsift.types import Kind, Record, YearRange

#: Name the analyzer is registered under in every index this module opens.
ANALYZER_NAME = "litsift_en_stem"
#: Sidecar file (inside the tantivy directory, which tantivy's GC leaves alone) naming the kind.
META_FILE = "litsift-bm25.json"
#: At most this many distinct query tokens are used (a pasted abstract is still a query).
MAX_QUERY_TOKENS = 512
_WRITER_HEAP_BYTES = 64_000_000


def analyzer() -> tantivy.TextAnalyzer:
    """The text analyzer of every text field: tantivy ``en_stem``'s pipeline.

    Returns:
        A ``tantivy.TextAnalyzer``; ``analyzer().analyze("Running dogs")`` gives
        ``["run", "dog"]``.
    """
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema(fields: Iterable[str]) -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    for name in fields:
        sb.add_text_field(name, stored=False, tokenizer_name=ANALYZER_NAME, index_option="freq")
    sb.add_unsigned_field("rowid", stored=True, indexed=True, fast=True)
    sb.add_integer_field("year", stored=False, indexed=True, fast=True)
    return sb.build()


def open_tantivy(path: Path, skip: frozenset[str] = frozenset()) -> tantivy.Index:
    """``tantivy.Index.open(path)``, or the same index from a private copy where ``path``
    cannot be written (the files named in ``skip``, not tantivy's, are not copied).

    tantivy takes its lock file (``.tantivy-meta.lock``) even to open a reader, and its Python
    API has no read-only open; on a read-only home (a read-only mount, a directory of another
    user) the index files are copied into the temp dir, which is removed at exit.

    Raises:
        ValueError: tantivy cannot open the index (or its copy).
        OSError: the copy cannot be made (no space in the temp dir).
    """
    try:
        return tantivy.Index.open(str(path))
    except ValueError as err:
        if not isinstance(machine_fault(err, path), (ReadOnlyHomeError, PermissionDeniedError)):
            raise
    copy = Path(tempfile.mkdtemp(prefix="litsift-bm25-"))
    atexit.register(shutil.rmtree, copy, True)
    for file in path.iterdir():  # tantivy's directory is flat; contents only, no read-only modes
        if file.is_file() and file.name not in skip:
            shutil.copyfile(file, copy / file.name)
    return tantivy.Index.open(str(copy))


class BM25Index:
    """A tantivy BM25 index of one kind of record.

    Attributes:
        path: the index directory.
        kind: papers or datasets.
        boosts: ``{field: boost}`` used by :meth:`search`; change it freely between queries.
    """

    def __init__(self, path: Path, kind: Kind, index: tantivy.Index) -> None:
        self.path = path
        self.kind = kind
        #: the text fields of this index (:data:`~litsift.search.retrieval.record_text.FIELDS` of
        #: its kind).
        self.fields: tuple[str, ...] = FIELDS[kind]
        self.boosts: dict[str, float] = dict(DEFAULT_BOOSTS[kind])
        self._index = index
        self._index.register_tokenizer(ANALYZER_NAME, analyzer())
        self._analyzer = analyzer()
        self._schema = index.schema
        self._writer: tantivy.IndexWriter | None = None
        self._searcher: tantivy.Searcher | None = None

    @classmethod
    def create(cls, path: Path, kind: Kind) -> BM25Index:
        """Create a new, empty index in directory ``path`` (created; must be empty if it exists).

        Raises:
            FileExistsError: ``path`` exists and is not empty.
        """
        path = Path(path)
        if path.exists() and any(path.iterdir()):
            raise FileExistsError(f"{path} is not empty")
        path.mkdir(parents=True, exist_ok=True)
        fields = FIELDS[kind]
        index = tantivy.Index(_schema(fields), path=str(path), reuse=False)
        (path / META_FILE).write_text(
            json.dumps({"kind": kind.value, "fields": list(fields)}), encoding="utf-8"
        )
        return cls(path, kind, index)

    @classmethod
    def open(cls, path: Path) -> BM25Index:
        """Open an existing index directory written by :meth:`create`.

        Every segment is opened here (a searcher is created), so a damaged file is found now,
        not at the first query.

        Raises:
            IndexMissingError: no index at ``path``.
            IndexMismatchError: the index has other text fields than this litsift writes (an
                older layout; the index manifest normally says so first: ``litsift index``
                rebuilds the BM25 part).
            IndexDamagedError: tantivy (or the sidecar JSON) cannot read a file of the index.
        """
        path = Path(path)
        meta = path / META_FILE
        if not meta.is_file() or not tantivy.Index.exists(str(path)):
            raise IndexMissingError(f"no BM25 index at {path}", "run `litsift index`")
        try:
            info = json.loads(meta.read_text(encoding="utf-8"))
            kind = Kind(info["kind"])
            fields = tuple(info.get("fields") or ())
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as err:
            raise IndexDamagedError(
                f"the BM25 part is damaged: {meta}: {err}", "run `litsift index` to rebuild it"
            ) from err
        if fields != FIELDS[kind]:
            raise IndexMismatchError(
                f"the BM25 index at {path} has fields {list(fields)}, "
                f"this litsift writes {list(FIELDS[kind])}",
                "run `litsift index --rebuild`",
            )
        try:
            opened = cls(path, kind, open_tantivy(path))
            opened._get_searcher()
        except BaseException as err:  # tantivy raises ValueError; a Rust panic, PanicException
            if not isinstance(err, Exception) and type(err).__name__ != "PanicException":
                raise
            fault = fault_in_chain(err, path)
            if fault is not None:  # the machine refused, the files may well be fine
                raise fault from err
            raise IndexDamagedError(
                f"the BM25 part is damaged: {path}: {err}", "run `litsift index` to rebuild it"
            ) from err
        return opened

    def _get_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self._index.writer(heap_size=_WRITER_HEAP_BYTES, num_threads=1)
        return self._writer

    def add(self, records: Iterable[Record]) -> int:
        """Upsert records by rowid (the old document of a rowid is deleted). Call :meth:`commit`.

        Args:
            records: papers or datasets of this index's kind, each with ``rowid`` set; a rowid
                repeated within ``records`` keeps its last record.

        Returns:
            The number of documents added.

        Raises:
            ValueError: a record has no rowid or is of the other kind.
        """
        latest: dict[int, Record] = {}
        for rec in records:
            if rec.rowid is None:
                raise ValueError(f"record {rec.id!r} has no rowid")
            if rec.kind is not self.kind:
                raise ValueError(f"record {rec.id!r} is a {rec.kind}, index holds {self.kind}")
            latest[rec.rowid] = rec
        if not latest:
            return 0
        writer = self._get_writer()
        writer.delete_documents_by_query(
            tantivy.Query.term_set_query(self._schema, "rowid", list(latest))
        )
        for rowid, rec in latest.items():
            doc = tantivy.Document()
            for name, text in record_fields(rec).items():
                if text and name in self.fields:
                    doc.add_text(name, text)
            doc.add_unsigned("rowid", rowid)
            doc.add_integer("year", year_value(rec.year))
            writer.add_document(doc)
        return len(latest)

    def commit(self) -> None:
        """Make added documents durable and searchable."""
        if self._writer is not None:
            self._writer.commit()
        self._index.reload()
        self._searcher = None

    def close(self) -> None:
        """Commit pending writes, wait for segment merges and release the writer lock.

        The directory is complete (safe to copy or rename) after this.
        """
        if self._writer is not None:
            self._writer.commit()
            self._writer.wait_merging_threads()
            self._writer = None
        self._index.reload()
        self._searcher = None

    def _get_searcher(self) -> tantivy.Searcher:
        if self._searcher is None:
            self._searcher = self._index.searcher()
        return self._searcher

    def query_tokens(self, query_text: str) -> list[str]:
        """The distinct analysed tokens of a query, in order (at most :data:`MAX_QUERY_TOKENS`)."""
        return list(self.query_term_counts(query_text))

    def query_term_counts(self, query_text: str) -> dict[str, int]:
        """``{analysed token: count in the query}`` in first-seen order, at most
        :data:`MAX_QUERY_TOKENS` distinct tokens.

        The count is BM25's query term frequency: as in Lucene/Anserini (one clause per query
        token) and bm25s (a score per query token), a word the query repeats weighs more. It
        matters for paragraph-long queries: DORIS-MAE dev BM25 MRR@10 20.4 -> 28.0, neutral on
        SciFact (70.0 -> 69.9); see docs/EVALUATION-RESULTS.md.
        """
        counts: dict[str, int] = {}
        for tok in self._analyzer.analyze(query_text):
            if tok not in counts and len(counts) >= MAX_QUERY_TOKENS:
                continue
            counts[tok] = counts.get(tok, 0) + 1
        return counts

    def _year_query(self, years: YearRange) -> tantivy.Query:
        lower = years.start if years.start is not None else YEAR_MISSING + 1
        in_range = tantivy.Query.range_query(
            self._schema, "year", tantivy.FieldType.Integer, lower, years.end
        )
        if not years.include_missing:
            return in_range
        missing = tantivy.Query.term_query(self._schema, "year", YEAR_MISSING)
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, in_range), (tantivy.Occur.Should, missing)]
        )

    def build_query(self, query_text: str, years: YearRange) -> tantivy.Query | None:
        """The tantivy query for a text and a year range, or None when the text has no token.

        The year range is a ``Must`` clause of constant score 0, so it filters without
        changing BM25 scores.
        """
        tokens = self.query_term_counts(query_text)
        boosts: Mapping[str, float] = {
            f: b for f, b in self.boosts.items() if b > 0 and f in self.fields
        }
        if not tokens or not boosts:
            return None
        clauses = [
            (
                tantivy.Occur.Should,
                tantivy.Query.boost_query(
                    tantivy.Query.term_query(self._schema, field, tok), boost * qtf
                ),
            )
            for tok, qtf in tokens.items()
            for field, boost in boosts.items()
        ]
        text_query = tantivy.Query.boolean_query(clauses)
        if not is_filtering(years):
            return text_query
        year_filter = tantivy.Query.const_score_query(self._year_query(years), 0.0)
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, text_query), (tantivy.Occur.Must, year_filter)]
        )

    def search(self, query_text: str, k0: int, years: YearRange) -> list[tuple[int, float]]:
        """BM25 top-``k0`` for any user text, restricted to ``years`` inside tantivy.

        Args:
            query_text: any string; one without a word token (empty, punctuation only) gives
                no hits.
            k0: number of candidates wanted (more than :meth:`count` is asked as :meth:`count`).
            years: year range pushed down as a range query on ``year``.

        Returns:
            Up to ``k0`` ``(rowid, score)`` pairs, best first; equal scores are ordered by
            rowid ascending (documents tied at the cut-off are all considered).
        """
        query = self.build_query(query_text, years)
        if query is None or k0 <= 0:
            return []
        searcher = self._get_searcher()
        # tantivy allocates the top-``limit`` heap up front (k0 = 2**31 aborts the process)
        k0 = min(k0, max(int(searcher.num_docs), 1))
        limit = k0 + 1
        while True:
            hits = searcher.search(query, limit, count=False).hits
            if len(hits) < limit or hits[-1][0] < hits[k0 - 1][0]:
                break
            limit *= 2
        rowids = searcher.fast_field_values("rowid", [addr for _, addr in hits])
        ranked = sorted(
            ((int(cast(int, r)), float(s)) for (s, _), r in zip(hits, rowids, strict=True)),
            key=lambda x: (-x[1], x[0]),
        )
        return ranked[:k0]

    def count(self) -> int:
        """Number of live documents."""
        return int(self._get_searcher().num_docs)
