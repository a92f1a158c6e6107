"""Simulated screening of a labelled review set (the protocol of ``shared/data/eval/screening``).

Per seed: the records are permuted, one included and one excluded record are drawn as prior
decisions, and the rest are screened in the system's order (the true label revealed after each
record) until every included record is found; unscreened records count as screened last.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from litsift.errors import EvalError
from litsift.review.data import ReviewSet
from litsift.review.learner import LearningOrder
from litsift.review.measures import recall_curve, screening_measures
from litsift.review.stopping import StopPoint, stop_points

#: Retrain when the labelled set grew by this fraction since the last fit (and after every
#: include): about 200 fits for a 2,000-record review instead of one per record.
RETRAIN_FRACTION = 0.02
#: Environment variable naming a Python that has the ``asreview`` package.
ASREVIEW_PYTHON_ENV = "LITSIFT_ASREVIEW_PYTHON"
#: How to get ASReview: never beside litsift (every asreview release pins rispy~=0.9, litsift
#: needs rispy>=0.10; there is no extra), in a venv of its own named by ASREVIEW_PYTHON_ENV.
ASREVIEW_HINT = (
    "python -m venv ../venv-asreview && ../venv-asreview/bin/pip install asreview, "
    f"then set {ASREVIEW_PYTHON_ENV}=../venv-asreview/bin/python"
)
ASREVIEW_TIMEOUT_S = 3600


@dataclass(frozen=True)
class Priors:
    """One seed's setup: ``perm`` (``(N,)`` file rows in screening-pool order) and the two
    prior rows (indices into the permuted order)."""

    perm: npt.NDArray[np.int64]
    included: int
    excluded: int


def draw_priors(labels: npt.NDArray[np.integer], seed: int) -> Priors:
    """Permute the records with ``seed``, then draw one included and one excluded record."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(labels.size).astype(np.int64)
    y = labels[perm]
    inc = int(rng.choice(np.flatnonzero(y == 1)))
    exc = int(rng.choice(np.flatnonzero(y == 0)))
    return Priors(perm, inc, exc)


def learning_order(
    order: LearningOrder,
    y: npt.NDArray[np.integer],
    priors: tuple[int, int],
    retrain_fraction: float = RETRAIN_FRACTION,
) -> tuple[list[int], int]:
    """Screen with ``order`` until every include of ``y`` is found: the app's
    :meth:`LearningOrder.fit` / :meth:`~litsift.review.learner.Fit.rank`, with the true label
    revealed after each record.

    Args:
        order: the order over the records already permuted (:meth:`LearningOrder.permuted`);
            ``y``: their ``(N,)`` labels; ``priors``: the rows labelled first.
        retrain_fraction: see :data:`RETRAIN_FRACTION` (0 = after every record).

    Returns:
        The rows screened after the priors, in order, and the number of model fits.
    """
    n = y.size
    is_labelled = np.zeros(n, dtype=bool)
    labelled: list[int] = list(priors)
    is_labelled[list(priors)] = True
    remaining = int(y.sum()) - int(y[list(priors)].sum())
    screened: list[int] = []
    queue: list[int] = []
    fitted_at = 0
    fits = 0
    while remaining > 0:
        grown = len(labelled) - fitted_at
        if not queue or grown >= max(1, int(retrain_fraction * fitted_at)):
            rows = np.asarray(labelled, dtype=np.int64)
            pool = np.flatnonzero(~is_labelled).astype(np.int64)
            queue = order.fit(rows, y[rows]).rank(pool).tolist()[::-1]
            fitted_at = len(labelled)
            fits += 1
        row = queue.pop()
        is_labelled[row] = True
        labelled.append(row)
        screened.append(row)
        if y[row]:
            remaining -= 1
            queue = []  # retrain after every include
    return screened, fits


def asreview_python() -> str | None:
    """A Python with ``asreview``: ``$LITSIFT_ASREVIEW_PYTHON``, else this one if it has it."""
    named = os.environ.get(ASREVIEW_PYTHON_ENV)
    if named:
        return named
    return sys.executable if importlib.util.find_spec("asreview") is not None else None


def asreview_order(
    titles: list[str],
    abstracts: list[str],
    y: npt.NDArray[np.integer],
    priors: tuple[int, int],
    python: str,
) -> tuple[list[int], str]:
    """ASReview's default model and ``Simulate`` loop on the same records and priors.

    Returns:
        The rows screened after the priors, and ``"asreview VERSION MODEL"``.

    Raises:
        EvalError: the asreview run failed.
    """
    bridge = Path(__file__).with_name("asreview_bridge.py")
    req = {"title": titles, "abstract": abstracts, "labels": y.tolist(), "priors": list(priors)}
    try:
        # asreview's dependencies (synergy-dataset) leave a requests cache in the working dir
        with tempfile.TemporaryDirectory(prefix="litsift-asreview-") as cwd:
            done = subprocess.run(
                [python, str(bridge)],
                input=json.dumps(req),
                capture_output=True,
                text=True,
                timeout=ASREVIEW_TIMEOUT_S,
                check=False,
                cwd=cwd,
            )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EvalError(
            f"could not run asreview with {python}: {exc}",
            ASREVIEW_HINT,
        ) from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise EvalError(
            f"asreview failed ({python}): {last}",
            ASREVIEW_HINT,
        )
    out = json.loads(done.stdout)
    return [int(i) for i in out["order"]], f"asreview {out['asreview']} {out['model']}"


@dataclass(frozen=True)
class SimulationRun:
    """One system on one set and seed.

    Attributes:
        sequence: ``(M,)`` 0/1 labels in screening order, priors dropped, padded with 0s.
        prior_ids: the record ids of the included and the excluded prior.
        measures: :func:`litsift.review.measures.screening_measures` of ``sequence``.
        curve: recall at :data:`litsift.review.measures.CURVE_POINTS`.
        stops: each stopping rule's point.
        elapsed_s: seconds of the ordering (features excluded).
        fits: model fits (None for asreview: one per record).
    """

    review_set: str
    system: str
    seed: int
    sequence: npt.NDArray[np.int8]
    prior_ids: tuple[str, str]
    measures: dict[str, float]
    curve: list[float]
    stops: list[StopPoint]
    elapsed_s: float
    fits: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def run_once(
    review: ReviewSet,
    system: str,
    seed: int,
    order: LearningOrder | None,
    python: str | None = None,
) -> SimulationRun:
    """Simulate one system on one seed.

    Args:
        review: the set.
        system: its name in the report.
        seed: the seed of the permutation and the priors.
        order: a litsift order over the set's records in file order (with the set's
            citation features when the system reads them); None for asreview.
        python: the interpreter with asreview (system ``asreview``).

    Raises:
        EvalError: asreview missing or failing.
    """
    p = draw_priors(review.labels, seed)
    y = review.labels[p.perm]
    priors = (p.included, p.excluded)
    start = time.perf_counter()
    notes: tuple[str, ...] = ()
    fits: int | None = None
    if order is not None:
        screened, fits = learning_order(order.permuted(p.perm), y, priors)
    else:
        if python is None:
            raise EvalError(
                "system asreview needs the asreview package",
                ASREVIEW_HINT,
            )
        titles = [review.titles[i] for i in p.perm]
        abstracts = [review.abstracts[i] for i in p.perm]
        screened, version = asreview_order(titles, abstracts, y, priors, python)
        notes = (version,)
    elapsed = time.perf_counter() - start
    m = y.size - 2
    seq = np.zeros(m, dtype=np.int8)
    seq[: len(screened)] = y[np.asarray(screened, dtype=np.int64)]
    ids = (review.record_ids[int(p.perm[p.included])], review.record_ids[int(p.perm[p.excluded])])
    return SimulationRun(
        review.name,
        system,
        seed,
        seq,
        ids,
        screening_measures(seq),
        recall_curve(seq),
        stop_points(seq),
        elapsed,
        fits,
        notes,
    )
