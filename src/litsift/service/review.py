"""The part of the service door for systematic reviews: make one from files, list, show, export,
and screen it (:class:`~litsift.service.screening.ScreeningSession`, what the TUI's screening
screen drives); the feed is :mod:`litsift.service.feed`.

Reached as ``LitsiftService.reviews``. A review's files go through the importer
(:func:`litsift.sources.importer.import_paths`), so its records are papers of the store and
duplicates group onto one paper as in any import; the labelled screening sets of
``shared/data/eval/screening`` are read with their labels as prior decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.errors import ReviewError
from litsift.service.review_files import jsonl_problem, refuse_files_without_records
from litsift.service.review_rounds import ReviewRounds
from litsift.store.repositories import Provenance
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.llm.session import LLMSession
    from litsift.models_onnx import Encoder
    from litsift.service.review_marks import Disagreement
    from litsift.service.screening_judge import JudgingSession, VerdictSummary
    from litsift.sources.formats.ris_review import Marks
    from litsift.store import Store
    from litsift.store.report import Problem
    from litsift.store.reviews import Prisma, ReviewInfo
    from litsift.types.reviews import FeedResult, JudgeReport

__all__ = ["ReviewCreated", "ReviewService"]

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
    #: exclusion reasons the files named that did not fit in the review's 9 (keys 1-9)
    reasons_left: list[str] = field(default_factory=list)
    #: records whose copies in the files gave different decisions (the one kept with each)
    disagreements: list[Disagreement] = field(default_factory=list)


class ReviewService(ReviewRounds):
    """Reviews on one store (see :mod:`litsift.store.reviews`); reasons, stages and two
    reviewers come from :class:`~litsift.service.review_rounds.ReviewRounds`."""

    def __init__(
        self,
        store: Callable[[], Store],
        changed: Callable[[Kind], None],
        encoder: Callable[[], Encoder] | None = None,
        llm: Callable[[], LLMSession] | None = None,
    ) -> None:
        self._store = store
        self._changed = changed
        self._encoder = encoder
        self._llm = llm

    # -- making ----------------------------------------------------------------------------
    def create(
        self,
        name: str,
        paths: Sequence[Path],
        criteria: str = "",
        keywords: Sequence[str] = (),
        labels: LabelPolicy = "all",
        reasons: Sequence[str] = (),
        format_name: str | None = None,
    ) -> ReviewCreated:
        """Import ``paths`` and make review ``name`` of what they hold.

        Args:
            paths: files or directories in any format ``litsift ingest papers`` reads, and
                labelled screening sets (JSON Lines with ``label_included``).
            labels: a screening set's labels as prior decisions: ``"all"``, ``"none"`` or N
                (N included and N excluded records drawn with seed 0). A review's own RIS
                export read back keeps its decisions of each stage with their exclusion
                reasons as prior decisions (unless ``"none"``; :mod:`litsift.sources.formats.
                ris_review`), its notes and its record ids (``ID``).
            reasons: exclusion reasons offered while screening (keys 1-9); the reasons of the
                decisions an export brings back join them (up to 9).
            format_name: read every file as this format (a name of ``litsift formats``) instead of
                detecting it.

        Raises:
            ReviewError: the name is bad or taken, or the files held no record.
            IngestError: a path does not exist.
        """
        from litsift.errors import IngestError
        from litsift.service.decisions_file import decisions_review
        from litsift.service.review_marks import csv_marks, ris_marks, screening_marks
        from litsift.sources.formats.csv_exports import has_decisions
        from litsift.sources.formats.csv_review import is_review_csv
        from litsift.sources.formats.screening_jsonl import is_screening_set
        from litsift.sources.importer import import_paths
        from litsift.store import review_stages, reviews
        from litsift.text.sanitize import shell_word

        store = self._store()
        if len([r for r in dict.fromkeys(reasons) if r.strip()]) > review_stages.MAX_REASONS:
            raise ReviewError(
                f"at most {review_stages.MAX_REASONS} exclusion reasons (keys 1-9)",
                "merge related reasons into one, e.g. 'wrong population or setting'",
            )
        # a file given twice (--from a.ris --from a.ris) is read once: twice, its records were
        # 'identified' once but the file counted twice ("in 3 files") and listed twice
        resolved = list(dict.fromkeys(Path(p).resolve() for p in paths))
        for p in resolved:
            if not p.exists():
                raise IngestError(f"{p}: no such file or directory", "check the path")
            if p.is_file() and (of := decisions_review(p)) is not None:  # no search: votes
                hint = f"litsift review merge {shell_word(of or 'NAME')} {shell_word(str(p))}"
                raise ReviewError(f"{p.name} is a reviewer's decisions file, not a search "
                                  "export: it holds no record", f"merge it: {hint}")  # fmt: skip
        if name in {r.name for r in reviews.list_reviews(store)}:
            reviews.create_review(store, name)  # raises: the name is taken
        sets = [p for p in resolved if is_screening_set(p) or has_decisions(p)]
        others = [p for p in resolved if p not in sets]
        problems: list[Problem] = []
        files: list[tuple[str, str, int]] = []
        prior_labels: dict[tuple[str, str], int] = {}
        marks: dict[tuple[str, str], Marks] = {}
        try:
            if others:
                report = import_paths(
                    store, others, Kind.PAPER, fmt_name=format_name, keep_untitled=True
                )
                problems.extend(report.bad)
                for file, fmt, n in report.files:
                    if fmt.startswith("jsonl"):  # ingested, but keeps no entry locations
                        problems.append(jsonl_problem(file))
                    else:
                        files.append((file, fmt, n))
                    if fmt == "ris":  # a review's own export (or Rayyan's): decisions, notes
                        marks.update(ris_marks(file))
                    elif fmt == "bibtex":  # a Rayyan export's: its reviewers' decisions
                        marks.update(screening_marks(file, fmt))
                    elif is_review_csv(Path(file)):  # a review's own CSV export: decisions
                        marks.update(csv_marks(file))
            for path in sets:
                fmt, n, bad, got, screened = _import_set(store, path)
                problems.extend(bad)
                files.append((str(path), fmt, n))
                prior_labels.update(got)
                marks.update(screened)
        finally:
            self._changed(Kind.PAPER)
        files.sort(key=lambda f: _given(f[0], resolved))  # the diagram lists them as given
        if marks:  # a review's RIS export: its settings unless given here
            from litsift.sources.formats.ris_review import review_settings

            had = review_settings(marks.values())
            criteria, keywords, reasons = criteria or had[0], keywords or had[1], reasons or had[2]
        entries = _entries_of(store, [f for f, _, _ in files])
        if not entries:
            why = f": {problems[0]}" if problems else ""
            more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
            raise ReviewError(
                f"the files held no record to screen{why}{more}",
                "check the files (litsift formats lists what litsift reads)",
            )
        per_file: dict[str, int] = {}
        for _, file, _ in entries:
            per_file[file] = per_file.get(file, 0) + 1
        refuse_files_without_records(resolved, per_file, problems)
        bad_per_file: dict[str, int] = {}
        for problem in problems:
            bad_per_file[problem.file] = bad_per_file.get(problem.file, 0) + 1
        file_rows = [(f, fmt, per_file.get(f, 0), bad_per_file.get(f, 0)) for f, fmt, _ in files]
        name = reviews.create_review(store, name, criteria, keywords, file_rows)
        try:  # all or nothing: interrupted (Ctrl-C) or failed, the half-made review goes
            return self._fill(name, entries, reasons, prior_labels, labels, marks, problems, files)
        except BaseException:
            reviews.delete_review(store, name)
            raise

    def _fill(
        self,
        name: str,
        entries: list[tuple[str, str, str]],
        reasons: Sequence[str],
        prior_labels: dict[tuple[str, str], int],
        labels: LabelPolicy,
        marks: dict[tuple[str, str], Marks],
        problems: list[Problem],
        files: list[tuple[str, str, int]],
    ) -> ReviewCreated:
        """The records, reasons, prior decisions, votes and notes of review ``name``, just
        made by :meth:`create` from ``entries`` (``(doc_id, file, location)``)."""
        from litsift.service.review_marks import fit_reasons, marked, timed_votes
        from litsift.store import review_decisions, review_notes, review_stages, reviews
        from litsift.text import for_storage

        store = self._store()
        if reasons:
            review_stages.set_reasons(store, name, reasons)
        grouped: dict[str, int] = {}
        for doc_id, _, _ in entries:
            grouped[doc_id] = grouped.get(doc_id, 0) + 1
        reviews.add_records(store, name, grouped)
        decisions = [(d, v, "tiab", "") for d, v in _prior_decisions(entries, prior_labels, labels)]
        by_stage, notes, votes, differ = marked(entries, marks)
        if labels != "none":  # a screening set's labels first; an export's decisions fill in
            voted = {(d, s) for d, s, _, source in votes if source == "user"}
            for stage, of_stage in by_stage.items():  # none where named reviewers decided it
                taken = {d for d, _, s, _ in decisions if s == stage} | {
                    d for d, s in voted if s == stage
                }
                decisions += [
                    (d, v, stage, why) for d, (v, why) in of_stage.items() if d not in taken
                ]
        named = [*(w for *_, w in decisions), *(r for m in marks.values() for r in m.reasons),
                 *(w for _, w in votes.values())]  # fmt: skip
        keys, left = fit_reasons(reasons, named, review_stages.MAX_REASONS)
        if keys != list(reasons):  # the reasons the files came back with are offered, up to 9
            review_stages.set_reasons(store, name, keys)
        _decide_priors(store, name, decisions)
        if labels != "none":  # each named reviewer's vote, then the resolution of a conflict
            for (doc_id, stage, who, source), (v, why), at in timed_votes(votes, by_stage):
                review_decisions.decide(store, name, [(doc_id, v)], source, stage=stage,
                                        reviewer=who, reason=why, decided_at=at)  # fmt: skip
        for doc_id, by in notes.items():  # each reviewer's, as the review's RIS copy names it
            for who, note in by.items():
                review_notes.set_note(store, name, doc_id, for_storage(note), for_storage(who))
        return ReviewCreated(
            reviews.get_review(store, name),
            reviews.prisma(store, name),
            problems,
            files,
            len(decisions),
            left,
            differ if labels != "none" else [],  # with none, no decision is taken from them
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

    def prisma_diagram(self, name: str, output: Path) -> Path:
        """Draw the review's PRISMA 2020 flow diagram (:mod:`litsift.review.prisma_diagram`;
        raises ConfigError without matplotlib, the ``plots`` extra)."""
        from litsift.review.prisma_diagram import draw_prisma

        return draw_prisma(self.prisma(name).to_json(), output, f"PRISMA 2020 flow: {name}")

    def duplicate_groups(self, name: str) -> dict[str, list[str]]:
        """``{doc_id: ["FILE:LOCATION", ...]}`` of records that stand for several entries."""
        from litsift.store.reviews import duplicate_groups

        return duplicate_groups(self._store(), name)

    def delete(self, name: str) -> None:
        """Drop the review and its decisions (its papers stay in the store)."""
        from litsift.store.reviews import delete_review

        delete_review(self._store(), name)

    def last_opened(self) -> str | None:
        """The review screened last, else the newest, else None."""
        from litsift.store.reviews import last_opened

        return last_opened(self._store())

    def feed(
        self, collection: str | None = None, since: str | None = None, mark_seen: bool = True
    ) -> FeedResult:
        """Papers synced since the feed's last look, ranked by what the collection (or the
        kept papers) holds against the discarded ones; see :func:`litsift.service.feed.feed`."""
        from litsift.service.feed import feed

        return feed(self._store(), collection, since, mark_seen)

    # -- screening -------------------------------------------------------------------------
    def open(self, name: str, stage: str = "tiab", reviewer: str = "") -> JudgingSession:
        """Load a review's ``stage`` for screening by ``reviewer`` (blind: the session holds
        their decisions and the priors only; its TF-IDF features are built here: ~1 s for
        2,000 records; call it off the UI thread).

        Raises:
            ReviewError: no such review or stage.
        """
        from litsift.service.screening_judge import JudgingSession
        from litsift.store import reviews

        store = self._store()
        info = reviews.get_review(store, name)
        if not store.readonly:
            reviews.mark_opened(store, name)
        records = self.records(name, stage, reviewer)
        return JudgingSession(store, info, records, self._encoder, stage, reviewer, self._llm)

    def judge(self, name: str, **options: Any) -> JudgeReport:
        """``litsift review judge``: see :func:`litsift.service.screening_judge.judge_review`."""
        from litsift.service.screening import ScreeningSession
        from litsift.service.screening_judge import judge_review
        from litsift.store import reviews

        assert self._llm is not None, "the facade gives every ReviewService its LLM session"
        store = self._store()
        info, records, llm = reviews.get_review(store, name), self.records(name), self._llm()
        session = ScreeningSession(store, info, records, judge_model=llm.settings.model)
        return judge_review(session, llm, **options)

    def verdicts(self, name: str) -> VerdictSummary:
        """An LLM judge's verdicts on the review against its decisions
        (:func:`litsift.service.screening_judge.verdict_summary`).

        Raises:
            ReviewError: no such review.
        """
        from litsift.service.screening_judge import verdict_summary
        from litsift.store import reviews

        store = self._store()
        reviews.get_review(store, name)
        return verdict_summary(store, name, self._llm().settings.model if self._llm else "")


def _import_set(
    store: Store, path: Path
) -> tuple[str, int, list[Problem], dict[tuple[str, str], int], dict[tuple[str, str], Marks]]:
    """Write one screening set's (or a CSV table's with a decision column, or a Rayyan
    export's notes) records; ``(format, entries read, bad lines, {(file, line): label},
    {(file, row): the Rayyan reviewers' votes and notes})``."""
    from litsift.errors import IngestError
    from litsift.service.review_marks import screening_marks_of
    from litsift.sources.base import BadItem, Notice, SourceRecord
    from litsift.sources.formats import csv_exports, screening_jsonl
    from litsift.sources.importer import file_problem
    from litsift.sources.writer import RecordWriter

    writer = RecordWriter(store, Kind.PAPER, keep_untitled=True)
    labels: dict[tuple[str, str], int] = {}
    file = str(path)
    fmt: str = screening_jsonl.FORMAT
    read: Callable[[Path], Iterator[tuple[SourceRecord | BadItem | Notice, int | None]]]
    read = screening_jsonl.read_screening_set
    if not screening_jsonl.is_screening_set(path):
        fmt, read = "csv-export", csv_exports.read_csv_labelled
    marks: dict[tuple[str, str], Marks] = {}
    try:
        for item, label in read(path):
            writer.add(fmt, file, item)
            if label is not None and isinstance(item, SourceRecord):
                labels[(file, item.location)] = label
            marks.update(screening_marks_of(file, [item]))
    except IngestError as err:  # not a table litsift reads after all: the file's problem
        writer.counts.bad.append(file_problem(file, err))
    except (OSError, EOFError, UnicodeDecodeError) as err:
        writer.flush()
        why = "not gzip or cut short" if isinstance(err, EOFError | OSError) else "not UTF-8"
        writer.counts.bad.append(
            file_problem(file, IngestError(f"cannot be read ({why})", "download it again"))
        )
    writer.flush()
    return fmt, writer.counts.read, writer.counts.bad, labels, marks


def _given(file: str, paths: Sequence[Path]) -> int:
    """The position in ``paths`` (the ``--from`` files and folders) of ``file`` or the folder
    it was found in (labelled screening sets were read after the others)."""
    where = Path(file)
    return next((i for i, p in enumerate(paths) if p == where or p in where.parents), len(paths))


def _entries_of(store: Store, files: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(doc_id, file, location)`` of every paper entry read from ``files``, in file order
    then entry order."""
    from litsift.store.reviews import natural_key

    written = Provenance(store)
    out: list[tuple[str, str, str]] = []
    for file in dict.fromkeys(files):
        rows = [(d, file, loc) for d, loc in written.entries_of_file(Kind.PAPER, file)]
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


def _decide_priors(store: Store, name: str, rows: Sequence[tuple[str, str, str, str]]) -> None:
    """Record ``(doc_id, decision, stage, reason)`` rows as prior decisions, in their order."""
    from itertools import groupby

    from litsift.store.review_decisions import decide

    for (stage, reason), run in groupby(rows, key=lambda r: (r[2], r[3])):
        decide(store, name, [(d, v) for d, v, _, _ in run], "prior", stage=stage, reason=reason)
