"""The screening-round part of the review service (a base of
:class:`~litsift.service.review.ReviewService`): exclusion reasons, exports with the stage's
decisions and reasons, two reviewers' decisions exported to a file and merged from files,
their conflicts, the third decision that resolves one, their agreement (Cohen's kappa), and
the recall curve of a stage (includes found against records screened).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.errors import ReviewError
from litsift.sources.formats.ris import REASON_PREFIX
from litsift.store.repositories import Identities
from litsift.types import Kind, Paper

if TYPE_CHECKING:
    from litsift.store import Store
    from litsift.store.reviews import ReviewInfo, ReviewRecord

__all__ = ["Agreement", "Conflict", "ReviewRounds"]

#: First key of a decisions file (``litsift review export --format decisions``).
DECISIONS_FORMAT = "litsift-review-decisions"


@dataclass(frozen=True)
class Conflict:
    """A record two reviewers decided differently: ``votes`` = ``{reviewer: (decision,
    reason)}`` (the unnamed reviewer and the priors as ``""``)."""

    doc_id: str
    title: str
    votes: dict[str, tuple[str, str]]


@dataclass(frozen=True)
class Agreement:
    """Two reviewers' agreement on the records both decided at one stage: ``kappa`` is
    Cohen's kappa over include / exclude / maybe (None when undefined: one label only)."""

    a: str
    b: str
    both: int
    agreed: int
    kappa: float | None


class ReviewRounds:
    """Reasons, stages and reviewers of reviews (see the module docstring)."""

    _store: Callable[[], Store]

    def records(
        self, name: str, stage: str = "tiab", reviewer: str | None = None
    ) -> list[tuple[ReviewRecord, Paper]]:
        """Every record of the review's ``stage`` with its paper, in import order."""
        from litsift.store.reviews import review_records

        _check_stage(stage)
        store = self._store()
        out = []
        for r in review_records(store, name, stage, reviewer):
            paper = store.get(Kind.PAPER, r.doc_id)
            if isinstance(paper, Paper):
                out.append((r, paper))
        return out

    # -- reasons ---------------------------------------------------------------------------
    def reasons(self, name: str) -> list[str]:
        """The review's exclusion reasons (key 1 first)."""
        from litsift.store.review_stages import get_reasons

        return get_reasons(self._store(), name)

    def set_reasons(self, name: str, reasons: Sequence[str]) -> list[str]:
        """Replace the review's exclusion reasons (at most 9: keys 1-9 while screening)."""
        from litsift.store.review_stages import set_reasons

        return set_reasons(self._store(), name, reasons)

    def set_criteria(
        self, name: str, criteria: str | None = None, keywords: Sequence[str] | None = None
    ) -> ReviewInfo:
        """Replace the review's criteria and/or keywords (None keeps one; "" clears it); the
        review as it now is. The learning order reads them from the next session on.

        Raises:
            ReviewError: no such review.
        """
        from litsift.store.review_stages import set_criteria
        from litsift.store.reviews import get_review

        set_criteria(self._store(), name, criteria, keywords)
        return get_review(self._store(), name)

    # -- exports ---------------------------------------------------------------------------
    def export(self, name: str, fmt: str, which: str = "all", stage: str = "tiab") -> str:
        """The records of ``stage`` with their final decisions, reasons and notes.

        Args:
            fmt: ``csv`` (one row per record: id, decision, reason, stage, source, note,
                title, year, venue, doi, pmid, entries, pdf) or ``ris`` (``LB`` = decision,
                ``N1`` = note and ``Exclusion reason: ...``).
            which: ``all`` or one decision (``include``, ``exclude``, ``maybe``,
                ``unscreened``).

        Raises:
            ReviewError: unknown review, format, stage or decision.
        """
        from litsift.store.review_stages import attachment_paths
        from litsift.store.reviews import DECISIONS

        _check_stage(stage)
        if which not in ("all", "unscreened", *DECISIONS):
            raise ReviewError(
                f"cannot export {which!r}", "choose all, include, exclude, maybe or unscreened"
            )
        rows = [
            (r, p)
            for r, p in self.records(name, stage)
            if which == "all" or (r.decision or "unscreened") == which
        ]
        store = self._store()
        ids = Identities(store).ids_of_docs(Kind.PAPER, [r.doc_id for r, _ in rows])
        if fmt == "csv":
            return _to_csv(rows, ids, stage, attachment_paths(store, [r.doc_id for r, _ in rows]))
        if fmt == "ris":
            return _to_ris(rows, ids)
        raise ReviewError(f"unknown export format {fmt!r}", "choose csv, ris or decisions")

    def export_decisions(self, name: str, reviewer: str | None = None) -> str:
        """Every stage's current decisions of the review's reviewers (of ``reviewer`` only
        when given; priors left out: they come with the review's files) as JSON Lines, for
        :meth:`merge` in another reviewer's litsift."""
        from litsift.store.review_stages import STAGES, stage_rows

        store = self._store()
        lines = [json.dumps({"format": DECISIONS_FORMAT, "version": 1, "review": name})]
        for stage in STAGES:
            rows = [
                r
                for r in stage_rows(store, name, stage)
                if r.source != "prior" and (reviewer is None or r.reviewer == reviewer)
            ]
            ids = Identities(store).ids_of_docs(Kind.PAPER, [r.doc_id for r in rows])
            for r in rows:
                got = ids.get(r.doc_id, {})
                lines.append(json.dumps(
                    {"doc_id": r.doc_id, "doi": got.get("doi", ""), "stage": stage,
                     "reviewer": r.reviewer, "decision": r.decision, "reason": r.reason,
                     "source": r.source, "decided_at": r.decided_at},
                    ensure_ascii=True,
                ))  # fmt: skip
        return "\n".join(lines) + "\n"

    def merge(self, name: str, paths: Sequence[Path]) -> dict[str, Any]:
        """Merge other reviewers' decisions files into the review (no server: each reviewer
        screens in their own litsift, exports, and one merges). A record is matched by its id,
        else its DOI; a decision of the unnamed reviewer is refused (it would mix with this
        litsift's own); merging a file twice adds nothing. A row that is not a decision (not
        JSON, no reviewer name, an unknown stage or decision) is reported with its line and
        skipped; the file's other rows are merged.

        Returns:
            ``{"added": n, "known": n, "unmatched": n, "bad": ["FILE: line N: why", ...]}``.

        Raises:
            ReviewError: no such review, a file that is no decisions file, or files with no
                decision to merge at all (e.g. every row without a reviewer name).
        """
        from litsift.store.review_stages import STAGES, DecisionRow, merge_rows
        from litsift.store.reviews import DECISIONS

        store = self._store()
        docs = {r.doc_id for r, _ in self.records(name)}
        by_doi = {
            v["doi"]: d
            for d, v in Identities(store).ids_of_docs(Kind.PAPER, sorted(docs)).items()
            if "doi" in v
        }
        per_stage: dict[str, list[DecisionRow]] = {s: [] for s in STAGES}
        unmatched = 0
        bad: list[str] = []
        anonymous = 0
        for path in paths:
            items, skipped = _read_decisions(Path(path))
            for n, item in items:
                if not item.get("reviewer"):
                    anonymous += 1
                    skipped.append((n, "a decision without a reviewer name"))
                    continue
                stage, decision = item.get("stage"), item.get("decision")
                if stage not in STAGES or decision not in DECISIONS:
                    skipped.append((n, f"unknown stage {stage!r} or decision {decision!r}"))
                    continue
                doc = item.get("doc_id") if item.get("doc_id") in docs else None
                doc = doc or by_doi.get(str(item.get("doi") or ""))
                if doc is None:
                    unmatched += 1
                    continue
                per_stage[str(stage)].append(
                    DecisionRow(0, doc, str(decision), str(item.get("source") or "user"),
                                str(item["reviewer"]), str(item.get("reason") or ""),
                                str(item.get("decided_at") or ""))
                )  # fmt: skip
            bad += [f"{path}: line {n}: {why}" for n, why in sorted(skipped)]
        total = sum(len(rows) for rows in per_stage.values())
        if bad and not total and not unmatched:
            more = f" (and {len(bad) - 1:,} more rows like it)" if len(bad) > 1 else ""
            hint = (
                "screen with litsift review screen NAME --reviewer YOU, then export"
                if anonymous
                else "export it again: litsift review export NAME --format decisions"
            )
            raise ReviewError(f"nothing merged: {bad[0]}{more}", hint)
        added = sum(merge_rows(store, name, rows, s) for s, rows in per_stage.items() if rows)
        return {"added": added, "known": total - added, "unmatched": unmatched, "bad": bad}

    # -- two reviewers ---------------------------------------------------------------------
    def reviewers(self, name: str, stage: str = "tiab") -> list[str]:
        """The named reviewers who decided at ``stage`` (resolutions aside), sorted."""
        from litsift.store.review_stages import stage_rows

        _check_stage(stage)
        rows = stage_rows(self._store(), name, stage)
        return sorted({r.reviewer for r in rows if r.reviewer and r.source == "user"})

    def conflicts(self, name: str, stage: str = "tiab") -> list[Conflict]:
        """The records whose reviewers disagree at ``stage`` and that no one resolved yet."""
        from litsift.store.review_stages import conflicts, stage_rows

        _check_stage(stage)
        store = self._store()
        out = []
        for doc_id, rows in conflicts(stage_rows(store, name, stage)).items():
            paper = store.get(Kind.PAPER, doc_id)
            title = paper.title if isinstance(paper, Paper) else ""
            out.append(Conflict(doc_id, title, {r.reviewer: (r.decision, r.reason) for r in rows}))
        return out

    def resolve(
        self,
        name: str,
        doc_id: str,
        decision: str,
        reason: str = "",
        stage: str = "tiab",
        reviewer: str = "",
    ) -> None:
        """Settle a record with a third decision (it becomes the record's final decision).

        Raises:
            ReviewError: the record is not in the stage, an unknown decision or stage.
        """
        from litsift.store.review_decisions import decide

        _check_stage(stage)
        if doc_id not in {r.doc_id for r, _ in self.records(name, stage)}:
            raise ReviewError(
                f"{doc_id} is not a record of review {name!r} at stage {stage}",
                f"litsift review conflicts {name} lists the records to resolve",
            )
        decide(self._store(), name, [(doc_id, decision)], "resolved", stage=stage,
               reviewer=reviewer, reason=reason)  # fmt: skip

    def agreement(self, name: str, stage: str = "tiab") -> list[Agreement]:
        """Cohen's kappa of each pair of reviewers on the records both decided at ``stage``
        (``sklearn.metrics.cohen_kappa_score``; the unnamed reviewer counts as ``""``)."""
        import math
        import warnings
        from itertools import combinations

        from sklearn.metrics import cohen_kappa_score

        from litsift.store.review_stages import stage_rows

        _check_stage(stage)
        votes: dict[str, dict[str, str]] = {}
        for r in stage_rows(self._store(), name, stage):
            if r.source == "user":
                votes.setdefault(r.reviewer, {})[r.doc_id] = r.decision
        out = []
        for a, b in combinations(sorted(votes), 2):
            both = [d for d in votes[a] if d in votes[b]]
            x, y = [votes[a][d] for d in both], [votes[b][d] for d in both]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                k = float(cohen_kappa_score(x, y)) if both else math.nan
            agreed = sum(1 for i, j in zip(x, y, strict=True) if i == j)
            out.append(Agreement(a, b, len(both), agreed, None if math.isnan(k) else k))
        return out

    # -- the recall curve ------------------------------------------------------------------
    def recall_series(
        self, name: str, stage: str = "tiab", reviewer: str | None = None
    ) -> dict[str, Any]:
        """The review's recall curve at ``stage``: includes found after each record screened,
        in the order of the records' current decisions (the final ones, or ``reviewer``'s),
        prior decisions left out (:func:`litsift.review.recall_plots.review_series`, with
        ``review``, ``stage`` and ``reviewer`` added).

        Raises:
            ReviewError: no such review, or an unknown stage.
        """
        from litsift.review.recall_plots import review_series
        from litsift.store.reviews import current_decisions, review_records

        _check_stage(stage)
        store = self._store()
        records = {r.doc_id for r in review_records(store, name, stage)}
        priors: dict[str, int] = {}
        order = []
        for doc_id, decision, source in current_decisions(store, name, stage, reviewer):
            if doc_id not in records:
                continue
            if source == "prior":
                priors[decision] = priors.get(decision, 0) + 1
            else:
                order.append(decision)
        series = review_series(order, len(records) - sum(priors.values()), priors)
        return {"review": name, "stage": stage, "reviewer": reviewer, **series}

    def recall_diagram(
        self, name: str, output: Path, stage: str = "tiab", reviewer: str | None = None
    ) -> Path:
        """Draw the review's recall curve (:meth:`recall_series`) to ``output`` (.svg, .png,
        .pdf; :func:`litsift.review.recall_plots.draw_review_curve`).

        Raises:
            ReviewError: no such review, an unknown stage, or no record screened yet.
            ConfigError: matplotlib is not installed (the ``plots`` extra), or a bad suffix.
        """
        from litsift.review.recall_plots import draw_review_curve
        from litsift.store.review_stages import STAGE_NAMES

        series = self.recall_series(name, stage, reviewer)
        if not series["screened"]:
            who = f" --reviewer {reviewer}" if reviewer else ""
            raise ReviewError(
                f"review {name!r}: no record screened yet at {STAGE_NAMES[stage]}"
                + (f" by {reviewer}" if reviewer else ""),
                f"screen some first: litsift review screen {name} --stage {stage}{who}",
            )
        who = f", reviewer {reviewer}" if reviewer else ""
        title = f"Recall curve: {name} ({STAGE_NAMES[stage]}{who})"
        return draw_review_curve(series, output, title)


def _check_stage(stage: str) -> None:
    from litsift.store.review_stages import STAGES

    if stage not in STAGES:
        raise ReviewError(f"unknown stage {stage!r}", f"use one of {', '.join(STAGES)}")


def _read_decisions(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, str]]]:
    """The decisions of a file :meth:`ReviewRounds.export_decisions` wrote, each with its line
    number, and ``(line, why)`` for each row that is not one (the others are kept).

    Raises:
        ReviewError: the file cannot be read, or its first row is not the decisions header.
    """
    hint = "give a file of litsift review export NAME --format decisions"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ReviewError(f"{path}: cannot be read ({err})", hint) from err
    rows = [(n, ln) for n, ln in enumerate(text.split("\n"), start=1) if ln.strip()]
    try:
        head = json.loads(rows[0][1]) if rows else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("format") != DECISIONS_FORMAT:
        where = f" (line {rows[0][0]} is not its header)" if rows else " (the file is empty)"
        raise ReviewError(f"{path}: not a litsift decisions file{where}", hint)
    items: list[tuple[int, dict[str, Any]]] = []
    bad: list[tuple[int, str]] = []
    for n, line in rows[1:]:
        try:
            item = json.loads(line)
        except ValueError as err:
            bad.append((n, f"not JSON ({getattr(err, 'msg', err)})"))
            continue
        if isinstance(item, dict):
            items.append((n, item))
        else:
            bad.append((n, f"not a decision (a JSON {type(item).__name__})"))
    return items, bad


_CSV_COLUMNS = (
    "id", "decision", "reason", "stage", "source", "note", "title", "year", "venue", "doi",
    "pmid", "entries", "pdf",
)  # fmt: skip


def _to_csv(
    rows: Sequence[tuple[ReviewRecord, Paper]],
    ids: dict[str, dict[str, str]],
    stage: str,
    pdfs: dict[str, list[str]],
) -> str:
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(_CSV_COLUMNS)
    for r, p in rows:
        got = ids.get(r.doc_id, {})
        out.writerow(
            [r.doc_id, r.decision or "", r.reason, stage, r.source or "", r.note, p.title,
             p.year or "", p.venue, got.get("doi", ""), got.get("pmid", ""), r.entries,
             "; ".join(pdfs.get(r.doc_id, []))]
        )  # fmt: skip
    return buf.getvalue()


def _to_ris(rows: Sequence[tuple[ReviewRecord, Paper]], ids: dict[str, dict[str, str]]) -> str:
    """The library's RIS entry of each record (:func:`litsift.export.formats.ris_reference`,
    ``ID`` = the record id) with the review's ``LB`` decision and ``N1`` note and reason."""
    from litsift.export.formats import dump_ris, ris_reference

    refs: list[dict[str, Any]] = []
    for r, p in rows:
        notes = [r.note] if r.note else []
        if r.reason:
            notes.append(f"{REASON_PREFIX}{r.reason}")  # not read back as a note
        doi = ids.get(r.doc_id, {}).get("doi", "")
        refs.append(ris_reference(p, r.doc_id, doi, r.decision or "unscreened", notes))
    return dump_ris(refs)
