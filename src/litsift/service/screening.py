"""A review being screened (:class:`ScreeningSession`, what the TUI's screening screen drives
as a :class:`litsift.service.api.ScreeningAPI`; opened by ``LitsiftService.reviews.open``):
the current record, the queue in the learning order, the decisions written to the store at
once, and the progress and stop panel.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from litsift.service.screening_models import criteria_verdicts
from litsift.service.screening_models import order_encoder as order_encoder
from litsift.service.screening_models import review_query as review_query
from litsift.service.screening_models import screening_encoder as screening_encoder
from litsift.types import Paper
from litsift.types.reviews import ScreeningProgress

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from litsift.graph.signal import SignalFeatures
    from litsift.models_onnx import Encoder
    from litsift.review.learner import LearningOrder
    from litsift.store import Store
    from litsift.store.review_verdicts import StoredVerdict
    from litsift.store.reviews import ReviewInfo, ReviewRecord

__all__ = ["ScreeningSession", "order_encoder", "review_query", "screening_encoder"]


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
        stage: str = "tiab",
        reviewer: str = "",
        *,
        judge_model: str = "",
    ) -> None:
        from litsift.review.data import record_text
        from litsift.service.screening_sync import reviewer_rows
        from litsift.store.review_stages import attachment_paths, get_reasons

        self._encoder = encoder
        self._dense: npt.NDArray[np.float32] | None = None
        #: the model whose vectors ``_dense`` holds (it picks the order, :func:`review_spec`)
        self._dense_model: str | None = None
        #: the review's criteria and keywords embedded as a query by the same encoder (the
        #: order's criteria column), None without criteria
        self._criteria_vector: npt.NDArray[np.float32] | None = None
        self.store, self.info = store, info
        #: the stage screened (``tiab`` / ``fulltext``) and who screens it (blind: only their
        #: decisions and the priors are loaded, and the learner trains on this stage's only)
        self.stage, self.reviewer = stage, reviewer
        self.reasons = get_reasons(store, info.name)
        self.papers = [p for _, p in records]
        self.notes = {r.doc_id: r.note for r, _ in records}
        self.row_of = {p.id: i for i, p in enumerate(self.papers)}
        self.texts = [record_text(p.title, p.abstract) for p in self.papers]
        self.citations = review_citations(store, [p.id for p in self.papers])
        self.reason_of = {r.doc_id: r.reason for r, _ in records}
        #: the configured LLM (``[llm] model``): its verdict on a record is the one read
        self.judge_model = judge_model
        #: doc_id -> an LLM judge's verdict (``litsift review judge``, :meth:`read_verdicts`),
        #: read again at each retraining (a judging run may be storing them meanwhile)
        self.verdicts = self.read_verdicts()
        self.pdfs = attachment_paths(store, [p.id for p in self.papers]) if stage != "tiab" else {}
        self._lock = threading.Lock()
        #: row -> decision, and the rows the reviewer decided here or before, in order
        self.decisions: dict[int, str] = {}
        self.user_rows: list[int] = []
        self.prior_rows: list[int] = []
        #: doc_id -> its newest decision's id read here; the records decided here, in order
        self._seen: dict[str, int] = {}
        self._mine: list[str] = []
        for row, r in reviewer_rows(store, info.name, stage, reviewer, self.row_of):
            self.decisions[row] = r.decision
            (self.prior_rows if r.source == "prior" else self.user_rows).append(row)
            self._seen[r.doc_id] = r.id
        self.queue: list[int] = [i for i in range(len(self.papers)) if i not in self.decisions]
        self.current: int | None = self.queue.pop(0) if self.queue else None
        self.model_name = "import order"
        self._order: LearningOrder | None = None
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

    def verdict_of(self, doc_id: str) -> tuple[str, str] | None:
        """An LLM judge's verdict on ``doc_id`` as ``(label, reason)``, or None."""
        v = self.verdicts.get(doc_id)
        return None if v is None else (v.label, v.reason)

    def counts(self) -> tuple[int, int, int, int]:
        """``(screened, total, included, maybe)`` now (cheap: for the line after each key)."""
        with self._lock:
            values = list(self.decisions.values())
        return len(values), len(self.papers), values.count("include"), values.count("maybe")

    @property
    def estimate(self) -> float | None:
        """Expected includes among the unscreened records: the rate at which the reviewer's
        decisions in screening order found them, fitted and extrapolated, its decay averaged
        over how includes thinned out in other reviews
        (:func:`litsift.review.estimate.rate_curve_estimate` with
        :data:`~litsift.review.estimate.DECAY_PRIOR`; microseconds). None while the
        reviewer's decisions show no rate yet: before their first include or maybe, or before
        they screened :data:`~litsift.review.estimate.MIN_SCREENED` records
        (:meth:`estimate_basis`)."""
        from litsift.review.estimate import (
            DECAY_PRIOR,
            rate_curve_estimate,
            screened_before_estimate,
        )

        with self._lock:
            seq = self._sequence()
            left = len(self.papers) - len(self.decisions)
        if screened_before_estimate(seq) != 0:
            return None
        return rate_curve_estimate(seq, left, prior=DECAY_PRIOR)

    def estimate_basis(self) -> tuple[int, int, int | None]:
        """What :attr:`estimate` rests on: ``(screened, found, more)``, the records the
        reviewer screened (priors aside), the includes and maybes among them, and how many
        more to screen before the estimate is given (0: it is; None: not before an include)."""
        from litsift.review.estimate import screened_before_estimate

        with self._lock:
            seq = self._sequence()
        return len(seq), sum(seq), screened_before_estimate(seq)

    def _sequence(self) -> list[int]:
        """The reviewer's decisions in screening order as 0/1 (a maybe counts as 1); hold
        ``_lock``."""
        return [0 if self.decisions.get(r) == "exclude" else 1 for r in self.user_rows]

    def progress(self) -> ScreeningProgress:
        """Counts, the gain curve and the stopping rules' states (stopping: ~10 ms for 2,000
        screened records)."""
        from litsift.review.session import gain_curve, stop_states
        from litsift.store.review_stages import conflicts, stage_rows

        disagree = (
            0 if self.reviewer else len(conflicts(stage_rows(self.store, self.name, self.stage)))
        )
        with self._lock:
            values = list(self.decisions.values())
            seq = self._sequence()
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
            conflicts=disagree,
        )

    # -- decisions -----------------------------------------------------------------------
    def decide(self, decision: str, reason: str = "") -> Paper | None:
        """Record ``decision`` (with its exclusion ``reason``) for the current record and move
        to the next one, which it returns (None: none is left). When another session (a second
        terminal) decided the record since it was read here, nothing is written and the same
        record is returned (:meth:`sync` loads that decision and moves on).

        Raises:
            ReviewError: an unknown decision. MachineFaultError: the store cannot be written.
        """
        from litsift.store.review_decisions import decide

        if self.current is None:
            return None
        doc_id = self.papers[self.current].id
        written = decide(self.store, self.name, [(doc_id, decision)], stage=self.stage,
                         reviewer=self.reviewer, reason=reason,
                         unless_decided_after=self._seen.get(doc_id, 0))  # fmt: skip
        if not written:  # decided elsewhere since it was read here
            return self.current_paper()
        self.reason_of[doc_id] = reason if decision == "exclude" else ""
        self._mine.append(doc_id)
        with self._lock:
            self._seen[doc_id] = written
            self.decisions[self.current] = decision
            if self.current in self.user_rows:
                self.user_rows.remove(self.current)
            self.user_rows.append(self.current)
            self.version += 1
            self.queue = [r for r in self.queue if r not in self.decisions]
            self.current = self.queue.pop(0) if self.queue else None
        return self.current_paper()

    def undo(self) -> Paper | None:
        """Take back this session's last decision (not one made since in another session;
        :func:`~litsift.service.screening_sync.take_back`); its record comes back on screen.

        Returns:
            That record, or None when there was nothing to undo.
        """
        from litsift.service.screening_sync import take_back

        got = take_back(self.store, self.name, self.stage, self.reviewer, self._mine)
        if got is None:
            return None
        doc_id, restored = got
        with self._lock:
            row = self.row_of[doc_id]
            if row in self.user_rows:
                self.user_rows.remove(row)
            if restored is not None:
                self.decisions[row] = restored
                self.user_rows.append(row)
            else:
                self.decisions.pop(row, None)
            if self.current is not None:
                self.queue.insert(0, self.current)
            self.current = row
            self.version += 1
        return self.current_paper()

    def set_note(self, text: str, doc_id: str | None = None) -> None:
        """Replace this reviewer's note on ``doc_id`` (default: the current record's; the screen
        names the record the note was opened on), without control characters (for_storage)."""
        from litsift.store.review_notes import set_note
        from litsift.text import for_storage

        if doc_id is None:
            paper = self.current_paper()
            if paper is None:
                return
            doc_id = paper.id
        text = for_storage(text).strip()
        set_note(self.store, self.name, doc_id, text, self.reviewer)  # theirs only: blind
        self.notes[doc_id] = text

    # -- the learning order -----------------------------------------------------------------
    def embed(self, progress: Callable[[int, int], None] | None = None) -> bool:
        """Embed every record (through the embedding cache) with the default order's encoder
        where it is installed, else the home's (:func:`screening_encoder`), so the next
        retraining uses TF-IDF beside the dense vectors (seconds to minutes on a CPU: run it
        in a worker thread; the TF-IDF order serves meanwhile). ``progress(done, total)`` is
        called as records are embedded; what it raises stops the embedding there (the vectors
        cached so far stay cached).

        Returns:
            False when the session has no encoder.

        Raises:
            ModelNotBuiltError, ModelError: the encoder cannot be loaded.
        """
        if self._encoder is None:
            return False
        import numpy as np

        encoder = screening_encoder(self._encoder())
        vectors = np.asarray(encoder.encode_passages(self.texts, progress=progress), np.float32)
        query = self.criteria_query()
        criteria = None
        if query:
            criteria = np.asarray(encoder.encode_queries([query])[0], dtype=np.float32)
        with self._lock:
            self._dense, self._dense_model = vectors, encoder.spec.model_id
            self._criteria_vector = criteria
            self._order = None  # rebuilt with the dense block by the next retrain
        return True

    def criteria_query(self) -> str:
        """The review's criteria and keywords as one query ("" when it has none)."""
        return review_query(self.info)

    def read_verdicts(self) -> dict[str, StoredVerdict]:
        """``{doc_id: verdict}``: each record's LLM verdict given against the review's criteria
        and keywords as they are now (one given against earlier ones is not read: ``litsift
        review judge`` asks again), :attr:`judge_model`'s where it gave one, else the newest
        (:func:`~litsift.service.screening_models.criteria_verdicts`)."""
        return criteria_verdicts(self.store, self.info, prefer=self.judge_model)

    def retrain(self) -> tuple[int, list[int], str]:
        """Rank the unscreened records on the decisions so far (thread-safe; seconds at most).

        Returns:
            ``(version, order, model)`` for :meth:`apply`.
        """
        import numpy as np

        from litsift.review.learner import LearningOrder, review_spec

        order = self._order
        if order is None:
            spec = review_spec(self._dense_model if self._dense is not None else None)
            order = LearningOrder.build(
                spec,
                self.texts,
                self._dense,
                self.citations,
                self.criteria_query(),
                self._criteria_vector if self._dense is not None else None,
            )
            self._order = order
        self.verdicts = verdicts = self.read_verdicts()
        column = [verdicts[p.id].value if p.id in verdicts else 0 for p in self.papers]
        order = order.with_verdicts(np.asarray(column, dtype=np.float64))
        with self._lock:
            version = self.version
            rows = list(self.decisions)
            y = [0 if self.decisions[r] == "exclude" else 1 for r in rows]
            pool = [i for i in range(len(self.papers)) if i not in self.decisions]
        fit = order.fit(rows, y)
        return version, fit.rank(pool).tolist(), self._named(fit.name)

    def _named(self, name: str) -> str:
        """A fit's name as the screen shows it: the learner calls the column of the review's
        query (:meth:`criteria_query`) "criteria" whatever it holds; a review with keywords and
        no criteria text has its keywords there, so the name says "keywords"."""
        if self.info.criteria.strip() or not self.criteria_query():
            return name
        return " + ".join("keywords" if part == "criteria" else part for part in name.split(" + "))

    def sync(self) -> tuple[int, int]:
        """Load what another session on the review (a second terminal) stored for this stage
        and reviewer since: records decided there leave the queue (the one on screen too),
        records taken back there return to it. Reads the store (~10 ms for 2,000 decisions):
        off the UI thread. Returns ``(loaded, taken_back)`` records; ``(0, 0)`` also when a
        decision or undo was made here meanwhile (the next call reads again)."""
        from litsift.service.screening_sync import reviewer_rows

        with self._lock:
            version = self.version
        rows = reviewer_rows(self.store, self.name, self.stage, self.reviewer, self.row_of)
        stored = {row: r.decision for row, r in rows}
        with self._lock:
            if version != self.version:
                return 0, 0
            self._seen.update((r.doc_id, r.id) for _, r in rows)
            loaded = sum(1 for row, d in stored.items() if self.decisions.get(row) != d)
            taken = [row for row in self.decisions if row not in stored]
            if not loaded and not taken:
                return 0, 0
            self.decisions = dict(stored)
            self.user_rows = [row for row, r in rows if r.source != "prior"]
            self.prior_rows = [row for row, r in rows if r.source == "prior"]
            for _, r in rows:
                self.reason_of[r.doc_id] = r.reason if r.decision == "exclude" else ""
            back = [row for row in taken if row != self.current and row not in self.queue]
            self.queue = [row for row in self.queue if row not in stored] + back
            if self.current is None or self.current in stored:
                self.current = self.queue.pop(0) if self.queue else None
            self.version += 1
        return loaded, len(taken)

    def apply(self, result: tuple[int, list[int], str], keep_current: bool = True) -> bool:
        """Put a retraining's order in place (the record on screen stays, unless
        ``keep_current`` is False: then the order's first record comes on screen).

        Returns:
            False when decisions arrived since it started (the caller retrains again).
        """
        version, order, model = result
        with self._lock:
            if not keep_current:
                self.current = None
            self.queue = [r for r in order if r not in self.decisions and r != self.current]
            self.model_name = model
            if self.current is None and self.queue:
                self.current = self.queue.pop(0)
            return version == self.version


def review_citations(store: Store, doc_ids: list[str]) -> SignalFeatures | None:
    """The citation features of a review's records (rows in ``doc_ids`` order) from the
    store's edges one step out (references and citing works, stored or external), or None
    when no record cites or is cited by anything: the learning order then reads text only.
    """
    from litsift.graph.signal import SignalFeatures
    from litsift.store.repositories import Citations

    g = Citations(store).graph(doc_ids)
    if g.number_of_edges() == 0:
        return None
    return SignalFeatures(g, doc_ids)
