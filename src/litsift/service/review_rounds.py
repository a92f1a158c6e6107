"""The screening-round part of the review service (a base of
:class:`~litsift.service.review.ReviewService`): exclusion reasons, exports with the stage's
decisions and reasons, two reviewers' decisions exported to a file and merged from files,
their conflicts, the third decision that resolves one and their agreement (Cohen's kappa);
the recall curve of a stage from :class:`~litsift.service.review_curve.ReviewCurve`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.errors import ReviewError
from litsift.service.decisions_file import merge_notes, read_decisions
from litsift.service.review_curve import ReviewCurve
from litsift.service.review_files import to_csv, to_ris
from litsift.store.repositories import Identities
from litsift.text.sanitize import shell_word
from litsift.types import Kind, Paper

if TYPE_CHECKING:
    from litsift.llm.session import LLMSession
    from litsift.store import Store
    from litsift.store.reviews import ReviewInfo, ReviewRecord

__all__ = ["Agreement", "Conflict", "ReviewRounds"]


@dataclass(frozen=True)
class Conflict:
    """A record two reviewers decided differently, awaiting resolution: ``votes`` =
    ``{reviewer: (decision, reason)}`` (the unnamed reviewer as ``""``; a prior label of the
    imported file is no reviewer's vote)."""

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


class ReviewRounds(ReviewCurve):
    """Reasons, stages and reviewers of reviews (see the module docstring)."""

    _store: Callable[[], Store]
    _llm: Callable[[], LLMSession] | None

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

    def notes(self, name: str) -> dict[str, dict[str, str]]:
        """``{doc_id: {reviewer: note}}``: every reviewer's notes on the review's records
        (``""``: the unnamed reviewer), for the review as a whole."""
        from litsift.store.review_notes import review_notes
        from litsift.store.reviews import get_review

        get_review(self._store(), name)  # no such review: the same error as the others
        return review_notes(self._store(), name)

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
                title, abstract, year, venue, doi, pmid, entries, pdf, llm_verdict, llm_reason,
                llm_model: the verdict the screen shows, given against the criteria as they are
                now, the configured model's first) or ``ris`` (``LB`` = decision, ``N1`` = note
                and ``Exclusion reason: ...``; no LLM verdict, as an ``N1`` would come back as
                a note).
            which: ``all`` or one decision (``include``, ``exclude``, ``maybe``,
                ``unscreened``) or ``conflict``: the records awaiting resolution, which have no
                decision (their CSV ``source`` is ``conflict``, their RIS ``LB`` too) and are
                not ``unscreened``.

        Raises:
            ReviewError: unknown review, format, stage or decision.
        """
        from dataclasses import replace

        from litsift.store.review_stages import conflicts, stage_rows
        from litsift.store.reviews import DECISIONS

        _check_stage(stage)
        if which not in ("all", "unscreened", "conflict", *DECISIONS):
            raise ReviewError(
                f"cannot export {which!r}",
                "choose all, include, exclude, maybe, unscreened or conflict",
            )
        store = self._store()
        clash = set(conflicts(stage_rows(store, name, stage)))
        got = [(replace(r, source="conflict") if r.doc_id in clash else r, p)
               for r, p in self.records(name, stage)]  # fmt: skip
        rows = [(r, p) for r, p in got if which in ("all", r.decision or r.source or "unscreened")]
        ids = Identities(store).ids_of_docs(Kind.PAPER, [r.doc_id for r, _ in rows])
        if fmt == "csv":
            from litsift.service.screening_models import criteria_verdicts
            from litsift.store.reviews import get_review

            model = self._llm().settings.model if self._llm else ""
            verdicts = criteria_verdicts(store, get_review(store, name), prefer=model)
            return to_csv(store, name, stage, rows, ids, verdicts)
        if fmt == "ris":
            return to_ris(store, name, stage, rows, ids)
        raise ReviewError(f"unknown export format {fmt!r}", "choose csv, ris or decisions")

    def export_decisions(self, name: str, reviewer: str | None = None) -> str:
        """Every stage's current decisions of the review's reviewers (of ``reviewer`` only
        when given; priors left out: they come with the review's files) and the records'
        notes, as JSON Lines (:mod:`litsift.service.decisions_file`), for :meth:`merge` in
        another reviewer's litsift."""
        from litsift.service.decisions_file import decisions_text

        return decisions_text(self._store(), name, reviewer)

    def merge(self, name: str, paths: Sequence[Path], reviewer: str = "") -> dict[str, Any]:
        """Merge reviewers' decisions files into the review (no server: each reviewer screens
        in their own litsift, exports, and one merges). A record is matched by its id, else its
        DOI; merging a file twice adds nothing, nor does a decision older than its reviewer's
        newest one here. A decision without a reviewer's name (a single reviewer's file, e.g.
        a backup) is ``reviewer``'s, or with none this review's own (the unnamed reviewer's);
        one that differs from this review's own decision on the record is not merged (whose
        it is cannot be told) and is named. A record's note is merged as
        :func:`~litsift.service.decisions_file.merge_notes` says (a note that differs is added
        after this review's own, with its reviewer's name). A row that is not a decision (not
        JSON, an unknown stage, decision or source, a field that is not text, a
        ``decided_at`` that is no time) is reported with its line and skipped; the file's other
        rows are merged.

        Returns:
            ``{"added": n, "known": n, "unmatched": n, "bad": ["FILE: line N: why", ...],
            "unnamed": n merged as this review's own, "differs": n of them not merged,
            "nameless": n of the files' decisions of the review's records without a
            reviewer's name (``reviewer``'s, else this review's own),
            "notes": records whose note was set or extended, "new_reasons": exclusion reasons
            of merged decisions added to the review's list, "reasons_over": those that did not
            fit (9 keys), "other_reviews": {"FILE": review} for each file whose header names
            another review than ``name`` (its decisions of this review's records are merged:
            a copy of a review takes its original's file; a wrong file is said), "replaced":
            a named reviewer's decisions here that a newer one of the files replaced, "older":
            the files' decisions not merged because their reviewer's
            decision here is newer and another}``; each of the last two is a list of
            ``{"doc_id", "stage", "reviewer", "here", "file", "file_decided_at", "where"}``
            (``here`` / ``file``: the decision with its reason, e.g. ``"exclude (wrong
            design)"``; ``where``: ``"FILE: line N"``).

        Raises:
            ReviewError: no such review, a file that is no decisions file, or files with no
                decision to merge at all.
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
        per_stage: dict[str, list[tuple[DecisionRow, str]]] = {s: [] for s in STAGES}
        notes: list[tuple[str, str, str]] = []
        unmatched = nameless = 0
        bad: list[str] = []
        listed: list[str] = []  # the files' reasons lists, in their key order
        theirs: list[str] = []  # the reviews the files were exported from
        for path in paths:
            items, skipped, reasons, review = read_decisions(Path(path))
            listed, theirs = [*listed, *reasons], [*theirs, review]
            for n, item in items:
                stage, decision = item["stage"], item["decision"]
                if "note" in item and not decision:
                    doc = _match(item, docs, by_doi)
                    who = item["reviewer"] or reviewer
                    if doc is not None:
                        notes.append((doc, who, item["note"]))
                    continue
                source = item["source"] or "user"
                if stage not in STAGES or decision not in DECISIONS:  # name the wrong one
                    what, value, known = (
                        ("stage", stage, STAGES)
                        if stage not in STAGES
                        else ("decision", decision, DECISIONS)
                    )
                    skipped.append((n, f"unknown {what} {value!r} ({', '.join(known)})"))
                    continue
                if source not in ("user", "resolved"):
                    skipped.append((n, f"unknown source {source!r} (user or resolved)"))
                    continue
                doc = _match(item, docs, by_doi)
                if doc is None:
                    unmatched += 1
                    continue
                row = DecisionRow(0, doc, decision, source, item["reviewer"] or reviewer,
                                  item["reason"], item["decided_at"])  # fmt: skip
                per_stage[stage].append((row, f"{path}: line {n}"))
                nameless += not item["reviewer"]
            bad += [f"{path}: line {n}: {why}" for n, why in sorted(skipped)]
        total = sum(len(rows) for rows in per_stage.values()) + len(notes)
        if unmatched and not total:  # not one of the review's records: another review's file?
            raise ReviewError(*_no_record_merged(name, unmatched, theirs))
        if bad and not total and not unmatched:
            more = f" (and {len(bad) - 1:,} more rows like it)" if len(bad) > 1 else ""
            hint = f"export it again: litsift review export {shell_word(name)} --format decisions"
            raise ReviewError(f"nothing merged: {bad[0]}{more}", hint)
        got = {"added": 0, "known": 0, "unmatched": unmatched, "unnamed": 0, "differs": 0,
               "nameless": nameless}  # fmt: skip
        came: list[str] = []  # the exclusion reasons of the decisions merged
        replaced: list[dict[str, str]] = []  # a reviewer's decision here a newer one replaced
        older: list[dict[str, str]] = []  # a file's decision older than its reviewer's here
        for stage, rows in per_stage.items():
            done = merge_rows(store, name, [r for r, _ in rows], stage) if rows else []
            for (r, where), (what, here) in zip(rows, done, strict=True):
                written = what in ("added", "changed")
                got["added" if written else "known" if what == "older" else what] += 1
                got["unnamed"] += int(written and not r.reviewer)
                came += [r.reason] if written and r.reason.strip() else []
                if what == "differs":
                    why = "without a reviewer's name, differs from this review's own decision"
                    bad.append(f"{where}: {r.doc_id} {r.decision} at {stage}, {why}")
                if here and what in ("changed", "older"):
                    (replaced if what == "changed" else older).append(
                        {"doc_id": r.doc_id, "stage": stage, "reviewer": r.reviewer,
                         "here": _said(*here), "file": _said(r.decision, r.reason),
                         "file_decided_at": r.decided_at, "where": where}
                    )  # fmt: skip
        noted = merge_notes(store, name, notes)["added"] if notes else 0
        other = {str(p): t for p, t in zip(paths, theirs, strict=True) if t and t != name}
        return {**got, "bad": bad, "notes": noted, "replaced": replaced, "older": older,
                "other_reviews": other, **self._merged_reasons(name, came, listed)}  # fmt: skip

    def _merged_reasons(
        self, name: str, came: list[str], listed: list[str]
    ) -> dict[str, list[str]]:
        """Reasons of merged decisions that are not on the review's list join it (keys 1-9;
        as a review's RIS copy brings its reasons), so the PRISMA diagram's reasons are the
        review's; beyond 9 they are named, for ``litsift review reasons`` to sort out. They
        join in the order of the files' lists (``listed``: the other reviewer's keys), those
        no list names after them; a review without reasons takes the files' whole lists, so
        both reviewers' keys 1-9 mean the same reasons."""
        from litsift.store.review_stages import MAX_REASONS, get_reasons, set_reasons

        have = get_reasons(self._store(), name)
        spelt = dict.fromkeys(" ".join(c.split()) for c in came)
        if have:
            listed = [r for r in listed if r in spelt]
        new = [r for r in dict.fromkeys([*listed, *spelt]) if r not in have]
        room = new[: max(0, MAX_REASONS - len(have))]
        if room:
            set_reasons(self._store(), name, [*have, *room])
        return {"new_reasons": room, "reasons_over": new[len(room) :]}

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
        agreed: bool = False,
    ) -> str:
        """Settle a record in conflict (or settle it again) with a third decision: it becomes
        the record's final decision. ``doc_id``: the record's id, or any of its identifiers as
        written (``DOI:10.1002/CPT.310``, ``10.1111/hae.12980``, ``pmid:123``). ``reason``: one
        of the review's exclusion reasons, or its key (1-9), with an exclude only.
        ``reviewer``: who settles it, not one of those whose votes differ (also when settling
        it again), unless ``agreed``: the reviewers settled it by discussion.

        Returns:
            The record's id.

        Raises:
            ReviewError: the record is not in the stage or not in conflict, a reason that is
                not the review's, a resolver who voted on it, an unknown decision or stage;
                nothing is written.
        """
        from litsift.store.review_decisions import decide
        from litsift.store.review_stages import resolution_reason, stage_rows, votes

        _check_stage(stage)
        doc_id = self._record_id(name, stage, doc_id)
        # the votes, not the open conflicts: a party re-settled a record a third one settled
        voters = [r.reviewer for r in votes(stage_rows(self._store(), name, stage)).get(doc_id, [])]
        if reviewer and reviewer in voters and not agreed:
            who = " and ".join(dict.fromkeys(v or "the unnamed reviewer" for v in voters))
            raise ReviewError(
                f"{reviewer} is one of the reviewers in conflict on {doc_id} ({who})",
                "a third reviewer settles it: --reviewer NAME; if they settled it by discussion, "
                "add --agreed",
            )
        why = resolution_reason(self._store(), name, doc_id, decision, reason, stage)
        decide(self._store(), name, [(doc_id, decision)], "resolved", stage=stage,
               reviewer=reviewer, reason=why)  # fmt: skip
        return doc_id

    def _record_id(self, name: str, stage: str, text: str) -> str:
        """The id of the review's record that ``text`` names: its id, or an identifier of it
        however written (scheme case, a bare DOI, a DOI link)."""
        from litsift.sources.identity.ids import ids_in_text, normalize_ids

        records = {r.doc_id for r, _ in self.records(name, stage)}
        scheme, _, value = text.strip().partition(":")
        pairs = {**ids_in_text(text), **(normalize_ids({scheme: value}) if value else {})}
        named = {f"{k}:{v}" for k, v in pairs.items()} & records
        named |= Identities(self._store()).docs_with_ids(Kind.PAPER, list(pairs.items())) & records
        if text in records or len(named) == 1:
            return text if text in records else named.pop()
        raise ReviewError(
            f"{text} is not a record of review {name!r} at stage {stage}",
            f"litsift review conflicts {shell_word(name)} lists the records to resolve",
        )

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


def _said(decision: str, reason: str) -> str:
    """``"exclude (wrong design)"``: a decision with its reason, as merge reports name it."""
    return f"{decision} ({reason})" if reason.strip() else decision


def _check_stage(stage: str) -> None:
    from litsift.store.review_stages import STAGES

    if stage not in STAGES:
        raise ReviewError(f"unknown stage {stage!r}", f"use one of {', '.join(STAGES)}")


def _no_record_merged(name: str, unmatched: int, theirs: list[str]) -> tuple[str, str]:
    """The error and hint of files whose ``unmatched`` decisions name no record of review
    ``name``, exported from the reviews ``theirs``: it said "merged 0 decisions (... 56 of
    records not in the review)" and succeeded."""
    other = [t for t in dict.fromkeys(theirs) if t and t != name]
    of = f" (exported from review {other[0]!r})" if len(other) == 1 else ""
    hint = "merge files of this review (litsift review list shows the reviews)"
    if of:
        hint = f"merge it into that review: litsift review merge {shell_word(other[0])} FILE"
    return (
        f"nothing merged: none of the {unmatched:,} decisions is of a record of review "
        f"{name!r}{of}",
        hint,
    )


def _match(item: dict[str, str], docs: set[str], by_doi: dict[str, str]) -> str | None:
    """The review's record a decisions-file row names: by its id, else its DOI."""
    doc = item["doc_id"]
    return doc if doc in docs else by_doi.get(item["doi"])
