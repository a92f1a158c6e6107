"""How many includes are left among the unscreened records?

:func:`rate_curve_estimate` fits the rate at which includes turned up along the screening order
so far and integrates it over the records not yet screened: the point estimate of the
inhomogeneous Poisson process model of Sneyd & Stevenson (2019, "Modelling Stopping Criteria
for Search Results using Poisson Processes", EMNLP-IJCNLP, ACL Anthology D19-1351), which fits
the relevant documents' arrival rate down a ranking with an exponential rate function (a
hyperbolic one is offered as an alternative). It reads only the
labels in screening order, so it cannot be fooled by a classifier scored on the records it was
fitted to (the weakness of :func:`litsift.review.session.platt_estimate`, which sums calibrated
probabilities over the pool and is far too high early on).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from litsift.types.reviews import ESTIMATE_MIN_SCREENED

#: Rate functions of :func:`rate_curve_estimate`: ``λ(x) = a·exp(-b·x)`` or ``a / (1 + b·x)``.
RATE_SHAPES = ("exponential", "hyperbolic")
#: The default rate function, chosen on the 12 screening sets (``benchmarks/screening_estimate.py``,
#: the default order, seeds 0-2): mean absolute error of the includes left after 10 / 25 / 50 %
#: screened 84.6 / 7.0 / 2.2 records (hyperbolic 120.3 / 33.7 / 13.3; the Platt figure the screen
#: showed before, 283.5 / 87.2 / 13.1). Early on it is still often far too high: while the
#: includes keep coming the fit sees no decay and extrapolates a flat rate.
DEFAULT_SHAPE = "exponential"
#: The prior of the screen's estimate (:func:`rate_curve_estimate`'s ``prior``): mean and
#: standard deviation of ``log(b·N)``, fitted by :func:`fit_decay_prior` on the 60 whole
#: sequences of the default order (12 shared reviews x 5 seeds, ``benchmarks/screening_nested.py``
#: runs of ``bge-small-en-v1.5-int8:td0.7+cit+nn0.3+lp0.3``; the previous defaults' gave
#: 2.23, 0.61 and 2.19, 0.59). Fitted on the other 11 reviews for each review in turn, the prior
#: cut the mean absolute error of the includes left after 5 / 10 / 25 / 50 % screened from
#: 154.0 / 109.5 / 10.8 / 2.4 records (maximum likelihood) to 29.1 / 33.2 / 6.0 / 2.1
#: (``benchmarks/screening_estimate.py --from-runs``).
DECAY_PRIOR = (2.22, 0.61)
#: The fewest records the reviewer must have screened (priors aside) before the screen gives
#: the estimate: with fewer, the figure is the prior's, not a rate the reviewer's decisions
#: show (one include in one record screened reads as a rate of 1 per record). Measured with
#: the TF-IDF order (``tfidf-svm``, retrained every 10 %) on the 12 screening sets x seeds 0-5,
#: :data:`DECAY_PRIOR`: mean absolute error of the includes left after 1 / 2 / 5 / 10 / 20 /
#: 30 / 50 records screened 54.7 / 39.8 / 34.0 / 30.3 / 25.1 / 21.6 / 20.5 records, over the
#: runs with an include by then (median error relative to the truth 149 % after one record,
#: 38-80 % after 2 to 50): by 20 it is near what the later records give.
MIN_SCREENED = ESTIMATE_MIN_SCREENED  # 20, in litsift.types.reviews for the screen's words
#: Grid of the decay ``b`` over which the profile likelihood is maximised: ``b·s`` from 0 to
#: ``e^8`` (``s`` = records screened), log-spaced.
_GRID = np.concatenate([[0.0], np.exp(np.linspace(-8.0, 8.0, 161))])


def rate_curve_estimate(
    sequence: Sequence[int] | npt.NDArray[np.integer],
    n_unscreened: int,
    shape: str = DEFAULT_SHAPE,
    prior: tuple[float, float] | None = None,
) -> float:
    """Expected includes among the ``n_unscreened`` records still to screen.

    The includes at positions ``x_i`` (record ``i`` of the order spans ``[i, i+1)``) are taken
    as a Poisson process of rate ``λ(x) = a·g(x; b)`` (``g`` = ``exp(-b·x)`` or
    ``1/(1+b·x)``); ``a`` and ``b ≥ 0`` maximise its likelihood on the ``s`` records screened
    (``a`` in closed form, ``b`` on a log grid), and the estimate is
    ``∫_s^{s+n_unscreened} λ(x) dx``. With no include yet the estimate is 0.

    With a ``prior`` the decay is not the maximum-likelihood one but averaged over its
    posterior: each grid value of ``b`` weighs its profile likelihood times a log-normal prior
    on ``u = b·N`` (``N = s + n_unscreened``, the records of the review), and the estimate is
    the posterior mean of the integral. Early on, when the includes have not thinned out yet,
    the likelihood is flat in ``b`` and the prior (how fast includes thin out in other
    reviews' learned orders) decides; later the data do.

    Args:
        sequence: ``(s,)`` 0/1 labels of the records screened, in screening order (priors
            dropped; a maybe counts as 1).
        n_unscreened: records not screened yet.
        shape: ``"exponential"`` or ``"hyperbolic"``.
        prior: ``(mean, sd)`` of ``log(b·N)`` (:func:`fit_decay_prior`), or None for the
            maximum-likelihood fit.

    Returns:
        The estimate, in records (``0 ≤ estimate ≤ n_unscreened``).

    Raises:
        ValueError: an unknown ``shape`` or a negative ``n_unscreened``.
    """
    if shape not in RATE_SHAPES:
        raise ValueError(f"unknown rate shape {shape!r}; choose among {', '.join(RATE_SHAPES)}")
    if n_unscreened < 0:
        raise ValueError("n_unscreened must be >= 0")
    y = np.asarray(sequence, dtype=np.int64)
    s, k = int(y.size), int(y.sum())
    if k == 0 or n_unscreened == 0:
        return 0.0
    x = np.flatnonzero(y).astype(np.float64) + 0.5
    b = _GRID / s
    mass_s = _mass(shape, b, float(s))
    a = k / mass_s
    if shape == "exponential":
        log_g = -np.outer(b, x).sum(axis=1)
    else:
        log_g = -np.log1p(np.outer(b, x)).sum(axis=1)
    loglik = k * np.log(a) + log_g - k
    if prior is None:
        best = int(np.argmax(loglik))
        rest = a[best] * (
            _mass(shape, b[best : best + 1], float(s + n_unscreened))[0] - mass_s[best]
        )
        return float(min(max(rest, 0.0), n_unscreened))
    mean, sd = prior
    n = float(s + n_unscreened)
    log_u = np.log(np.maximum(b * n, 1e-300))
    log_post = loglik - 0.5 * ((log_u - mean) / sd) ** 2
    log_post[b == 0] = -np.inf  # the grid is uniform in log b: b = 0 has no prior mass
    w = np.exp(log_post - log_post.max())
    rests = np.clip(a * (_mass(shape, b, n) - mass_s), 0.0, n_unscreened)
    return float(min((w * rests).sum() / w.sum(), n_unscreened))


def screened_before_estimate(sequence: Sequence[int] | npt.NDArray[np.integer]) -> int | None:
    """How many more records the reviewer must screen before :func:`rate_curve_estimate` has a
    rate to read from ``sequence`` (``(s,)`` 0/1 labels in screening order, priors dropped):
    0 once there are :data:`MIN_SCREENED` records and an include, None while there is no
    include yet (no count of records brings one)."""
    y = np.asarray(sequence, dtype=np.int64)
    if not y.any():
        return None
    return max(MIN_SCREENED - int(y.size), 0)


def decay_mle(
    sequence: Sequence[int] | npt.NDArray[np.integer], shape: str = DEFAULT_SHAPE
) -> float:
    """The maximum-likelihood decay ``b`` of :func:`rate_curve_estimate`'s rate on a whole
    screening ``sequence`` (``(N,)`` 0/1 labels in screening order); 0 with no include."""
    y = np.asarray(sequence, dtype=np.int64)
    s, k = int(y.size), int(y.sum())
    if k == 0:
        return 0.0
    x = np.flatnonzero(y).astype(np.float64) + 0.5
    b = _GRID / s
    a = k / _mass(shape, b, float(s))
    if shape == "exponential":
        log_g = -np.outer(b, x).sum(axis=1)
    else:
        log_g = -np.log1p(np.outer(b, x)).sum(axis=1)
    return float(b[int(np.argmax(k * np.log(a) + log_g - k))])


def fit_decay_prior(
    sequences: Sequence[Sequence[int] | npt.NDArray[np.integer]], shape: str = DEFAULT_SHAPE
) -> tuple[float, float]:
    """The log-normal prior of :func:`rate_curve_estimate` from whole screening sequences of
    other reviews (each ``(N_i,)`` 0/1 labels in a learned order, every record screened):
    the mean and standard deviation of ``log(b_i·N_i)`` over them, ``b_i`` = :func:`decay_mle`.

    Raises:
        ValueError: fewer than two sequences with an include and a decay.
    """
    logs = []
    for seq in sequences:
        y = np.asarray(seq, dtype=np.int64)
        b = decay_mle(y, shape)
        if b > 0:
            logs.append(float(np.log(b * y.size)))
    if len(logs) < 2:
        raise ValueError("a decay prior needs at least two sequences that show a decay")
    return float(np.mean(logs)), float(np.std(logs, ddof=1))


def _mass(shape: str, b: npt.NDArray[np.float64], t: float) -> npt.NDArray[np.float64]:
    """``∫_0^t g(x; b) dx`` per ``b`` (``t`` at ``b = 0``)."""
    out = np.full(b.shape, t, dtype=np.float64)
    pos = b > 0
    bp = b[pos]
    if shape == "exponential":
        out[pos] = -np.expm1(-bp * t) / bp
    else:
        out[pos] = np.log1p(bp * t) / bp
    return out
