"""The part of the service door for systematic reviews: make one from files, list, show, export,
and screen it (:class:`ScreeningSession`, what the TUI's screening screen drives).

Reached as ``LitsiftService.reviews``. A review's files go through the importer
(:func:`litsift.sources.importer.import_paths`), so its records are papers of the store and
duplicates group onto one paper as in any import; the labelled screening sets of
``shared/data/eval/screening`` are read with their labels as prior decisions.
"""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.store import identities, provenance
from litsift.types import Kind, Paper

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from litsift.models_onnx import Encoder
    from litsift.review.session import ReviewModel, StopState
    from litsift.sources.writer import Problem
    from litsift.store import Store
    from litsift.store.reviews import Prisma, ReviewInfo, ReviewRecord

__all__ = [
    "FeedResult",
    "ReviewCreated",
    "ReviewService",
    "ScreeningProgress",
    "ScreeningSession",
]

#: Stored papers drawn as background negatives of a feed (arxiv-sanity-lite's SVM takes every
#: other paper as a negative; a sample keeps a big store's feed in seconds).
FEED_BACKGROUND = 2000

#: ``--labels``: every label of a screening set, none, or N included + N excluded (seed 0).
LabelPolicy = str | int


@dataclass
class ReviewCreated:
    """What ``litsift review new`` did: the review, its PRISMA counts, the entries that could
    not be read (``FILE:LOCATION: reason``), the files read and the prior decisions taken."""

    info: ReviewInfo
    prisma: Prisma
    problems: list[Problem] = field(default_factory=list)
    files: list[tuple[str, str, int]] = field(default_factory=list)
    priors: int = 0


class ReviewService:
    """Reviews on one store (see :mod:`litsift.store.reviews`)."""

    def __init__(
        self,
        store: Callable[[], Store],
        changed: Callable[[Kind], None],
        encoder: Callable[[], Encoder] | None = None,
    ) -> None:
        self._store = store
        self._changed = changed
        self._encoder = encoder

    # -- making ----------------------------------------------------------------------------
    def create(
        self,
        name: str,
        paths: Sequence[Path],
        criteria: str = "",
        keywords: Sequence[str] = (),
        labels: LabelPolicy = "all",
    ) -> ReviewCreated:
        """Import ``paths`` and make review ``name`` of what they hold.

        Args:
            paths: files or directories in any format ``litsift ingest papers`` reads, and
                labelled screening sets (JSON Lines with ``label_included``).
            labels: a screening set's labels as prior decisions: ``"all"``, ``"none"`` or N
                (N included and N excluded records drawn with seed 0).

        Raises:
            ReviewError: the name is bad or taken, or the files held no record.
            IngestError: a path does not exist.
        """
        from litsift.errors import IngestError
        from litsift.sources.importer import import_paths
        from litsift.sources.screening_jsonl import is_screening_set
        from litsift.store import reviews

        store = self._store()
        resolved = [Path(p).resolve() for p in paths]
        for p in resolved:
            if not p.exists():
                raise IngestError(f"{p}: no such file or directory", "check the path")
        if name in {r.name for r in reviews.list_reviews(store)}:
            reviews.create_review(store, name)  # raises: the name is taken
        sets = [p for p in resolved if is_screening_set(p)]
        others = [p for p in resolved if p not in sets]
        problems: list[Problem] = []
        files: list[tuple[str, str, int]] = []
        prior_labels: dict[tuple[str, str], int] = {}
        try:
            if others:
                report = import_paths(store, others, Kind.PAPER)
                problems.extend(report.bad)
                for file, fmt, n in report.files:
                    if fmt.startswith("jsonl"):  # ingested, but keeps no entry locations
                        problems.append(_jsonl_problem(file))
                    else:
                        files.append((file, fmt, n))
            for path in sets:
                n, bad, got = _import_set(store, path)
                problems.extend(bad)
                files.append((str(path), "screening-jsonl", n))
                prior_labels.update(got)
        finally:
            self._changed(Kind.PAPER)
        entries = _entries_of(store, [f for f, _, _ in files])
        if not entries:
            why = f": {problems[0]}" if problems else ""
            more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
            raise reviews.ReviewError(
                f"the files held no record to screen{why}{more}",
                "check the files (litsift formats lists what litsift reads)",
            )
        per_file: dict[str, int] = {}
        for _, file, _ in entries:
            per_file[file] = per_file.get(file, 0) + 1
        bad_per_file: dict[str, int] = {}
        for problem in problems:
            bad_per_file[problem.file] = bad_per_file.get(problem.file, 0) + 1
        file_rows = [(f, fmt, per_file.get(f, 0), bad_per_file.get(f, 0)) for f, fmt, _ in files]
        name = reviews.create_review(store, name, criteria, keywords, file_rows)
        grouped: dict[str, int] = {}
        for doc_id, _, _ in entries:
            grouped[doc_id] = grouped.get(doc_id, 0) + 1
        reviews.add_records(store, name, grouped)
        decisions = _prior_decisions(entries, prior_labels, labels)
        if decisions:
            reviews.decide(store, name, decisions, source="prior")
        return ReviewCreated(
            reviews.get_review(store, name),
            reviews.prisma(store, name),
            problems,
            files,
            len(decisions),
        )

    # -- reading ---------------------------------------------------------------------------
    def all(self) -> list[ReviewInfo]:
        """Every review, newest first."""
        from litsift.store.reviews import list_reviews

        return list_reviews(self._store())

    def info(self, name: str) -> ReviewInfo:
        """One review (raises ReviewError when unknown)."""
        from litsift.store.reviews import get_review

        return get_review(self._store(), name)

    def prisma(self, name: str) -> Prisma:
        """The review's PRISMA counts."""
        from litsift.store.reviews import prisma

        return prisma(self._store(), name)

    def duplicate_groups(self, name: str) -> dict[str, list[str]]:
        """``{doc_id: ["FILE:LOCATION", ...]}`` of records that stand for several entries."""
        from litsift.store.reviews import duplicate_groups

        return duplicate_groups(self._store(), name)

    def records(self, name: str) -> list[tuple[ReviewRecord, Paper]]:
        """Every record of the review with its paper, in import order."""
        from litsift.store.reviews import review_records

        store = self._store()
        out = []
        for r in review_records(store, name):
            paper = store.get(Kind.PAPER, r.doc_id)
            if isinstance(paper, Paper):
                out.append((r, paper))
        return out

    def delete(self, name: str) -> None:
        """Drop the review and its decisions (its papers stay in the store)."""
        from litsift.store.reviews import delete_review

        delete_review(self._store(), name)

    def last_opened(self) -> str | None:
        """The review screened last, else the newest, else None."""
        from litsift.store.reviews import last_opened

        return last_opened(self._store())

    def export(self, name: str, fmt: str, which: str = "all") -> str:
        """The review's records with their decisions and notes.

        Args:
            fmt: ``csv`` (one row per record: id, decision, source, note, title, year, venue,
                doi, pmid, entries) or ``ris`` (``LB`` = decision, ``N1`` = note).
            which: ``all`` or one decision (``include``, ``exclude``, ``maybe``,
                ``unscreened``).

        Raises:
            ReviewError: unknown review, format or decision.
        """
        from litsift.store.reviews import DECISIONS, ReviewError

        if which not in ("all", "unscreened", *DECISIONS):
            raise ReviewError(
                f"cannot export {which!r}", "choose all, include, exclude, maybe or unscreened"
            )
        rows = [
            (r, p)
            for r, p in self.records(name)
            if which == "all" or (r.decision or "unscreened") == which
        ]
        ids = _ids_of(self._store(), [r.doc_id for r, _ in rows])
        if fmt == "csv":
            return _to_csv(rows, ids)
        if fmt == "ris":
            return _to_ris(rows, ids)
        raise ReviewError(f"unknown export format {fmt!r}", "choose csv or ris")

    def feed(
        self, collection: str | None = None, since: str | None = None, mark_seen: bool = True
    ) -> FeedResult:
        """Papers synced since the feed's last look, ranked by what the collection (or the
        kept papers) holds against the discarded ones; see :func:`feed`."""
        return feed(self._store(), collection, since, mark_seen)

    # -- screening -------------------------------------------------------------------------
    def open(self, name: str) -> ScreeningSession:
        """Load a review for screening (its TF-IDF features are built here: ~1 s for 2,000
        records; call it off the UI thread).

        Raises:
            ReviewError: no such review.
        """
        from litsift.store import reviews

        store = self._store()
        info = reviews.get_review(store, name)
        if not store.readonly:
            reviews.mark_opened(store, name)
        return ScreeningSession(store, info, self.records(name), self._encoder)


def _jsonl_problem(file: str) -> Problem:
    from litsift.sources.writer import Problem

    return Problem(
        file,
        "",
        "litsift's own JSONL is ingested into the store but not into a review (it keeps no "
        "entry locations to group duplicates by); hint: give the search export itself "
        "(RIS, nbib, CSV, BibTeX), or a screening set with label_included",
    )


def _import_set(store: Store, path: Path) -> tuple[int, list[Problem], dict[tuple[str, str], int]]:
    """Write one screening set's records; ``(entries read, bad lines, {(file, line): label})``."""
    from litsift.errors import IngestError
    from litsift.sources.importer import file_problem
    from litsift.sources.screening_jsonl import FORMAT, read_screening_set
    from litsift.sources.writer import RecordWriter

    writer = RecordWriter(store, Kind.PAPER)
    labels: dict[tuple[str, str], int] = {}
    file = str(path)
    try:
        for item, label in read_screening_set(path):
            writer.add(FORMAT, file, item)
            if label is not None:
                labels[(file, item.location)] = label
    except (OSError, EOFError, UnicodeDecodeError) as err:
        writer.flush()
        why = "not gzip or cut short" if isinstance(err, EOFError | OSError) else "not UTF-8"
        writer.counts.bad.append(
            file_problem(file, IngestError(f"cannot be read ({why})", "download it again"))
        )
    writer.flush()
    return writer.counts.read, writer.counts.bad, labels


def _entries_of(store: Store, files: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(doc_id, file, location)`` of every paper entry read from ``files``, in file order
    then entry order."""
    from litsift.store.reviews import natural_key

    out: list[tuple[str, str, str]] = []
    with store.lock:
        for file in dict.fromkeys(files):
            rows = [
                (d, file, loc)
                for d, loc in provenance.entries_of_file(store.conn, Kind.PAPER, file)
            ]
            out.extend(sorted(rows, key=lambda r: natural_key(r[2])))
    return out


def _prior_decisions(
    entries: Sequence[tuple[str, str, str]],
    labels: dict[tuple[str, str], int],
    policy: LabelPolicy,
) -> list[tuple[str, str]]:
    """Prior decisions from a screening set's labels: a record is included when any of its
    entries was (duplicates with different labels keep the include)."""
    import numpy as np

    by_doc: dict[str, int] = {}
    for doc_id, file, loc in entries:
        label = labels.get((file, loc))
        if label is not None:
            by_doc[doc_id] = max(by_doc.get(doc_id, 0), label)
    if policy == "none" or not by_doc:
        return []
    docs = list(by_doc)
    if policy != "all":
        n = int(policy)
        rng = np.random.default_rng(0)
        inc = [d for d in docs if by_doc[d] == 1]
        exc = [d for d in docs if by_doc[d] == 0]
        pick = [str(d) for d in rng.permutation(inc)[:n]] if inc else []
        pick += [str(d) for d in rng.permutation(exc)[:n]] if exc else []
        docs = pick
    return [(d, "include" if by_doc[d] else "exclude") for d in docs]


def _ids_of(store: Store, doc_ids: Sequence[str]) -> dict[str, dict[str, str]]:
    with store.lock:
        return identities.ids_of_docs(store.conn, Kind.PAPER, doc_ids)


_CSV_COLUMNS = (
    "id", "decision", "source", "note", "title", "year", "venue", "doi", "pmid", "entries",
)  # fmt: skip


def _to_csv(rows: Sequence[tuple[ReviewRecord, Paper]], ids: dict[str, dict[str, str]]) -> str:
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(_CSV_COLUMNS)
    for r, p in rows:
        got = ids.get(r.doc_id, {})
        out.writerow(
            [
                r.doc_id,
                r.decision or "",
                r.source or "",
                r.note,
                p.title,
                p.year or "",
                p.venue,
                got.get("doi", ""),
                got.get("pmid", ""),
                r.entries,
            ]
        )
    return buf.getvalue()


def _to_ris(rows: Sequence[tuple[ReviewRecord, Paper]], ids: dict[str, dict[str, str]]) -> str:
    import rispy

    refs: list[dict[str, Any]] = []
    for r, p in rows:
        got = ids.get(r.doc_id, {})
        ref: dict[str, Any] = {"type_of_reference": "JOUR", "id": r.doc_id, "title": p.title}
        if p.authors:
            ref["authors"] = list(p.authors)
        if p.year is not None:
            ref["year"] = str(p.year)
        if p.venue:
            ref["journal_name"] = p.venue
        if p.abstract:
            ref["abstract"] = p.abstract
        if "doi" in got:
            ref["doi"] = got["doi"]
        ref["label"] = r.decision or "unscreened"
        if r.note:
            ref["notes"] = [r.note]
        refs.append(ref)

    class _Writer(rispy.RisWriter):  # type: ignore[misc]
        def set_header(self, count: int) -> str:  # no "1." counter lines between records
            return ""

    return str(rispy.dumps(refs, implementation=_Writer, skip_unknown_tags=True))


@dataclass(frozen=True)
class FeedResult:
    """What ``litsift feed`` ranks.

    Attributes:
        feed: the collection's name, or ``kept``.
        since: the last look (ISO 8601 UTC; ``""`` = never).
        papers: the new papers, best first (all of them; the caller shows the top).
        liked, disliked: papers the model learnt from (the collection or kept papers; the
            discarded ones, plus ``background`` other stored papers as negatives).
        model: the order used (``tfidf-svm``), or ``arrival order`` with nothing to learn from.
    """

    feed: str
    since: str
    papers: list[Paper]
    liked: int
    disliked: int
    background: int
    model: str


def feed(
    store: Store, collection: str | None, since: str | None = None, mark_seen: bool = True
) -> FeedResult:
    """Rank the papers synced since the feed's last look by the learning order trained on the
    collection's (or the kept) papers against the discarded ones and a sample of the rest.

    Raises:
        ReviewError: unknown collection.
    """
    from litsift.review.data import record_text
    from litsift.review.session import ReviewModel
    from litsift.store import reviews

    name = collection or "kept"
    last = reviews.feed_seen_at(store, name) if since is None else since
    new_ids = reviews.synced_since(store, last)
    liked, disliked = reviews.judged_papers(store, collection)
    new_set = set(new_ids)
    liked = [d for d in liked if d not in new_set]
    disliked = [d for d in disliked if d not in new_set]
    background: list[str] = []
    if liked and new_ids:
        background = reviews.other_papers(
            store, new_set | set(liked) | set(disliked), FEED_BACKGROUND
        )
    train = liked + disliked + background
    papers = {p.id: p for p in _papers(store, train + new_ids)}
    new_papers = [papers[d] for d in new_ids if d in papers]
    model = "arrival order"
    if liked and len(train) > len(liked) and new_papers:
        rows = [d for d in train if d in papers]
        texts = [record_text(papers[d].title, papers[d].abstract) for d in rows]
        texts += [record_text(p.title, p.abstract) for p in new_papers]
        y = [1 if i < len(liked) else 0 for i, d in enumerate(train) if d in papers]
        ranking = ReviewModel(texts).rank(list(range(len(rows))), y)
        new_papers = [new_papers[i - len(rows)] for i in ranking.order]
        model = ranking.model
    if mark_seen and not store.readonly:
        reviews.mark_feed_seen(store, name)
    return FeedResult(name, last, new_papers, len(liked), len(disliked), len(background), model)


def _papers(store: Store, doc_ids: Sequence[str]) -> list[Paper]:
    out = []
    for doc_id in doc_ids:
        paper = store.get(Kind.PAPER, doc_id)
        if isinstance(paper, Paper):
            out.append(paper)
    return out


# -- screening ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ScreeningProgress:
    """The progress line and stop panel of the screening screen.

    Attributes:
        screened: records with a decision (priors included); ``total``: records.
        included: records included; ``maybe``: records marked maybe.
        estimate: the model's expected includes among the unscreened (None before it can fit).
        curve: includes found (by the reviewer, priors aside) after evenly spaced numbers of
            screened records (a sparkline).
        stops: each stopping rule's state.
        model: what ranked the queue (an order name, ``criteria`` or ``import order``).
    """

    screened: int
    total: int
    included: int
    maybe: int
    estimate: float | None
    curve: list[float]
    stops: list[StopState]
    model: str


class ScreeningSession:
    """One review being screened: the current record, the queue in the learning order, and the
    decisions (written to the store at once).

    Deciding takes the next record from the queue the last retraining made (no model work, so
    the next record comes at once); :meth:`retrain` (seconds at most; run it in a worker
    thread) ranks the unscreened records again and :meth:`apply` puts its order in place.
    """

    def __init__(
        self,
        store: Store,
        info: ReviewInfo,
        records: list[tuple[ReviewRecord, Paper]],
        encoder: Callable[[], Encoder] | None = None,
    ) -> None:
        from litsift.review.data import record_text

        self._encoder = encoder
        self._dense: npt.NDArray[np.float32] | None = None
        self.store, self.info = store, info
        self.papers = [p for _, p in records]
        self.notes = {r.doc_id: r.note for r, _ in records}
        self.row_of = {p.id: i for i, p in enumerate(self.papers)}
        self.texts = [record_text(p.title, p.abstract) for p in self.papers]
        self._lock = threading.Lock()
        #: row -> decision, and the rows the reviewer decided here or before, in order
        self.decisions: dict[int, str] = {}
        self.user_rows: list[int] = []
        self.prior_rows: list[int] = []
        from litsift.store.reviews import current_decisions

        for doc_id, decision, source in current_decisions(store, info.name):
            row = self.row_of.get(doc_id)
            if row is None:
                continue
            self.decisions[row] = decision
            (self.prior_rows if source == "prior" else self.user_rows).append(row)
        self.queue: list[int] = [i for i in range(len(self.papers)) if i not in self.decisions]
        self.current: int | None = self.queue.pop(0) if self.queue else None
        self.model_name = "import order"
        self.estimate: float | None = None
        self._model: ReviewModel | None = None
        self.version = 0  # bumped by every decision/undo: a stale retraining is re-queued

    # -- what the screen shows -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self.info.name

    @property
    def criteria(self) -> str:
        return self.info.criteria

    @property
    def keywords(self) -> tuple[str, ...]:
        return self.info.keywords

    def current_paper(self) -> Paper | None:
        """The record on screen, or None when every record has a decision."""
        return None if self.current is None else self.papers[self.current]

    def highlight_terms(self) -> tuple[list[str], list[str]]:
        """Words to highlight on screen: the review's keywords, and the criteria's content
        words (4+ letters, not an English stop word, not a keyword)."""
        import re

        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        keys = [k for k in self.keywords if k.strip()]
        lower = {k.lower() for k in keys}
        words = re.findall(r"[^\W\d_][\w-]{3,}", self.criteria)
        terms = [
            w for w in dict.fromkeys(w.lower() for w in words)
            if w not in ENGLISH_STOP_WORDS and w not in lower
        ]  # fmt: skip
        return keys, terms

    def note_of(self, doc_id: str) -> str:
        return self.notes.get(doc_id, "")

    def counts(self) -> tuple[int, int, int, int]:
        """``(screened, total, included, maybe)`` now (cheap: for the line after each key)."""
        with self._lock:
            values = list(self.decisions.values())
        return len(values), len(self.papers), values.count("include"), values.count("maybe")

    def progress(self) -> ScreeningProgress:
        """Counts, the gain curve and the stopping rules' states (stopping: ~10 ms for 2,000
        screened records)."""
        from litsift.review.session import gain_curve, stop_states

        with self._lock:
            values = list(self.decisions.values())
            seq = [0 if self.decisions.get(r) == "exclude" else 1 for r in self.user_rows]
            prior_inc = sum(1 for r in self.prior_rows if self.decisions.get(r) != "exclude")
        return ScreeningProgress(
            screened=len(values),
            total=len(self.papers),
            included=values.count("include"),
            maybe=values.count("maybe"),
            estimate=self.estimate,
            curve=gain_curve(seq),
            stops=stop_states(seq, len(self.papers) - len(self.prior_rows), prior_inc),
            model=self.model_name,
        )

    # -- decisions -----------------------------------------------------------------------
    def decide(self, decision: str) -> Paper | None:
        """Record ``decision`` for the current record and move to the next one.

        Returns:
            The next record, or None when none is left.

        Raises:
            ReviewError: an unknown decision. MachineFaultError: the store cannot be written.
        """
        from litsift.store.reviews import decide

        if self.current is None:
            return None
        decide(self.store, self.name, [(self.papers[self.current].id, decision)])
        with self._lock:
            self.decisions[self.current] = decision
            if self.current in self.user_rows:
                self.user_rows.remove(self.current)
            self.user_rows.append(self.current)
            self.version += 1
            self.queue = [r for r in self.queue if r not in self.decisions]
            self.current = self.queue.pop(0) if self.queue else None
        return self.current_paper()

    def undo(self) -> Paper | None:
        """Take back the newest decision; its record comes back on screen.

        Returns:
            That record, or None when there was nothing to undo.
        """
        from litsift.store.reviews import current_decisions, undo

        doc_id = undo(self.store, self.name)
        if doc_id is None:
            return None
        restored = {d: v for d, v, s in current_decisions(self.store, self.name)}
        with self._lock:
            row = self.row_of[doc_id]
            if row in self.user_rows:
                self.user_rows.remove(row)
            if doc_id in restored:
                self.decisions[row] = restored[doc_id]
                self.user_rows.append(row)
            else:
                self.decisions.pop(row, None)
            if self.current is not None:
                self.queue.insert(0, self.current)
            self.current = row
            self.version += 1
        return self.current_paper()

    def set_note(self, text: str) -> None:
        """Replace the current record's note."""
        from litsift.store.reviews import set_note

        paper = self.current_paper()
        if paper is None:
            return
        set_note(self.store, self.name, paper.id, text)
        self.notes[paper.id] = text.strip()

    # -- the learning order -----------------------------------------------------------------
    def embed(self) -> bool:
        """Embed every record with the encoder (through the embedding cache) so the next
        retraining uses litsift's default order, TF-IDF beside the dense vectors (seconds to
        minutes on a CPU: run it in a worker thread; the TF-IDF order serves meanwhile).

        Returns:
            False when the session has no encoder.

        Raises:
            ModelNotBuiltError, ModelError: the encoder cannot be loaded.
        """
        if self._encoder is None:
            return False
        import numpy as np

        vectors = np.asarray(self._encoder().encode_passages(self.texts), dtype=np.float32)
        with self._lock:
            self._dense = vectors
            self._model = None  # rebuilt with the dense block by the next retrain
        return True

    def retrain(self) -> tuple[int, list[int], float | None, str]:
        """Rank the unscreened records on the decisions so far (thread-safe; seconds at most).

        Returns:
            ``(version, order, estimate, model)`` for :meth:`apply`.
        """
        from litsift.review.session import ReviewModel

        model = self._model
        if model is None:
            query = " ".join([self.info.criteria, *self.info.keywords])
            model = self._model = ReviewModel(self.texts, query, self._dense)
        with self._lock:
            version = self.version
            rows = list(self.decisions)
            y = [0 if self.decisions[r] == "exclude" else 1 for r in rows]
        ranking = model.rank(rows, y)
        return version, ranking.order, ranking.estimate, ranking.model

    def apply(
        self, result: tuple[int, list[int], float | None, str], keep_current: bool = True
    ) -> bool:
        """Put a retraining's order in place (the record on screen stays, unless
        ``keep_current`` is False: then the order's first record comes on screen).

        Returns:
            False when decisions arrived since it started (the caller retrains again).
        """
        version, order, estimate, model = result
        with self._lock:
            if not keep_current:
                self.current = None
            self.queue = [r for r in order if r not in self.decisions and r != self.current]
            self.estimate, self.model_name = estimate, model
            if self.current is None and self.queue:
                self.current = self.queue.pop(0)
            return version == self.version
