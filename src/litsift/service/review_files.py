"""A review's records as files: the CSV table and the RIS copy of ``litsift review export``
(:meth:`litsift.service.review_rounds.ReviewRounds.export`), and the checks of the files a
review is made from (``litsift review new``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from litsift.errors import ReviewError

if TYPE_CHECKING:
    from pathlib import Path

    from litsift.store import Store
    from litsift.store.report import Problem
    from litsift.store.review_stages import DecisionRow
    from litsift.store.review_verdicts import StoredVerdict
    from litsift.store.reviews import ReviewRecord
    from litsift.types import Paper

__all__ = ["jsonl_problem", "refuse_files_without_records", "to_csv", "to_ris"]

_CSV_COLUMNS = (
    "id", "decision", "reason", "stage", "source", "note", "title", "abstract", "year", "venue",
    "doi", "pmid", "entries", "pdf", "llm_verdict", "llm_reason", "llm_model",
)  # fmt: skip


def to_csv(
    store: Store,
    name: str,
    stage: str,
    rows: Sequence[tuple[ReviewRecord, Paper]],
    ids: dict[str, dict[str, str]],
    verdicts: Mapping[str, StoredVerdict],
) -> str:
    """The review's table: one row per record (``_CSV_COLUMNS``), with the record's own title
    (empty for a record that has none: not the screening's stand-in) and its abstract, so
    ``review new --from`` the file screens every record again. The ``note`` cell holds the
    unnamed reviewer's note as written, then each named reviewer's lines as ``Note by NAME:
    ...`` (the RIS export's ``N1`` lines), so ``review new --from`` the file gives each note
    back to whoever wrote it. The ``llm_*`` cells hold an LLM judge's verdict on the record
    (``litsift review judge``), its reason and the model, empty where none: ``verdicts``
    (``{doc_id: verdict}``), the ones the screen shows and the learning order reads
    (:func:`litsift.service.screening_models.criteria_verdicts`: given against the criteria as
    they are now, the configured model's first), so the report matches what the reviewer saw;
    a verdict given against earlier criteria is left out. The use of automation in the
    screening is on record for the report (PRISMA 2020 item 8); the cells are never read back
    as decisions.
    """
    from litsift.sources.formats.ris_review import note_lines
    from litsift.store.review_notes import review_notes
    from litsift.store.review_stages import attachment_paths

    pdfs = attachment_paths(store, [r.doc_id for r, _ in rows])
    noted = review_notes(store, name)
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(_CSV_COLUMNS)
    for r, p in rows:
        got, by, v = ids.get(r.doc_id, {}), noted.get(r.doc_id, {}), verdicts.get(r.doc_id)
        note = "\n".join(note_lines(by.get("", ""), {w: t for w, t in by.items() if w}))
        out.writerow(
            [r.doc_id, r.decision or "", r.reason, stage, r.source or "", note, p.real_title,
             p.abstract, p.year or "", p.venue, got.get("doi", ""), got.get("pmid", ""), r.entries,
             "; ".join(pdfs.get(r.doc_id, [])), *((v.label, v.reason, v.model) if v else [""] * 3)]
        )  # fmt: skip
    return buf.getvalue()


def to_ris(
    store: Store,
    name: str,
    stage: str,
    rows: Sequence[tuple[ReviewRecord, Paper]],
    ids: dict[str, dict[str, str]],
) -> str:
    """The library's RIS entry of each record (:func:`litsift.export.formats.ris_reference`,
    ``ID`` = the record id, ``TY`` and the other tags as the library writes them) with ``LB``
    its decision at ``stage`` (``conflict`` while its reviewers disagree) and ``N1`` lines of
    its notes (a named reviewer's ``Note by NAME: ...``), its named reviewers' votes (one
    reviewer's too) and the resolution of their conflict at each stage, its exclusion reason
    and decision at the other stage (:mod:`litsift.sources.formats.ris_review`): ``litsift
    review new --from`` the file restores them all."""
    from litsift.export.biblio import biblios
    from litsift.export.formats import dump_ris, ris_reference
    from litsift.sources.formats.ris_review import mark_lines, review_lines
    from litsift.store.review_notes import review_notes
    from litsift.store.review_stages import (
        STAGES,
        final_decisions,
        get_reasons,
        stage_rows,
    )
    from litsift.store.reviews import get_review

    staged = {s: stage_rows(store, name, s) for s in STAGES}
    noted = review_notes(store, name)
    by_stage = {
        s: {r.doc_id: (r.decision, r.reason) for r in final_decisions(of_stage)}
        for s, of_stage in staged.items()
    }
    said_at = {s: _said(of_stage) for s, of_stage in staged.items()}
    info = get_review(store, name)
    first = review_lines(info.criteria, info.keywords, get_reasons(store, name))
    refs: list[dict[str, Any]] = []
    details = biblios(store, [p for _, p in rows])
    for r, p in rows:
        got = {s: by[r.doc_id] for s, by in by_stage.items() if r.doc_id in by}
        each = {
            s: (said[0].get(r.doc_id, {}), said[1].get(r.doc_id)) for s, said in said_at.items()
        }
        said, settled = each.pop(stage)
        by = noted.get(r.doc_id, {})
        lines = mark_lines(stage, got, by.get("", ""), said, settled, others=each,
                           notes_by={w: t for w, t in by.items() if w})  # fmt: skip
        lines, first = [*first, *lines], []  # the review's settings: on the first record
        doi = ids.get(r.doc_id, {}).get("doi", "")
        label = r.decision or ("conflict" if r.source == "conflict" else "unscreened")
        refs.append(ris_reference(p, r.doc_id, doi, label, lines, biblio=details.get(p.id)))
    return dump_ris(refs)


def _said(
    here: Sequence[DecisionRow],
) -> tuple[dict[str, dict[str, tuple[str, str]]], dict[str, tuple[str, str, str]]]:
    """``({doc_id: {reviewer: (decision, reason)}}, {doc_id: (reviewer, decision, reason)})``
    of one stage's rows: the votes of a record a named reviewer decided (the unnamed
    reviewer's vote beside theirs; a conflict's too),
    and the resolution of a record that has votes."""
    from litsift.store.review_stages import conflicts, votes

    clash = conflicts(here)
    said: dict[str, dict[str, tuple[str, str]]] = {}
    for doc, cast in votes(here).items():  # a record named reviewers decided, agreeing or not
        decided = [v for v in cast if v.source != "prior"]
        # with the unnamed reviewer's vote beside a named one's: the copy's kappa pairs them
        if shown := clash.get(doc) or (decided if any(v.reviewer for v in decided) else []):
            said[doc] = {v.reviewer: (v.decision, v.reason) for v in shown}
    settled = {r.doc_id: (r.reviewer, r.decision, r.reason) for r in here if r.source == "resolved"}
    return said, {d: v for d, v in settled.items() if d in said}


def refuse_files_without_records(
    paths: Sequence[Path], per_file: dict[str, int], problems: Sequence[Problem]
) -> None:
    """Refuse a review where a file named on its own gave no record to screen (unreadable,
    empty, or litsift's own JSONL): made without it, the review's PRISMA counts and sources
    left that search out and said nothing of it.

    Raises:
        ReviewError: naming each such file and what was wrong with it.
    """
    empty = [p for p in paths if p.is_file() and not per_file.get(str(p))]
    if not empty:
        return
    said = []
    for p in empty:
        why = next((pr.reason for pr in problems if pr.file == str(p)), "no record in it")
        said.append(f"{p.name}: {why}")
    raise ReviewError(
        "no review was made: "
        + ("a file gave" if len(empty) == 1 else f"{len(empty)} files gave")
        + " no record to screen ("
        + "; ".join(said)
        + ")",
        "fix the file or leave it out; its search would be missing from the PRISMA counts",
    )


def jsonl_problem(file: str) -> Problem:
    """The problem of a review's file that is litsift's own JSONL."""
    from litsift.store.report import Problem

    return Problem(
        file,
        "",
        "litsift's own JSONL is ingested into the store but not into a review (it keeps no "
        "entry locations to group duplicates by); hint: give the search export itself "
        "(RIS, nbib, CSV, BibTeX), or a screening set with label_included",
    )
