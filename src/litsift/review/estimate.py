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

#: Rate functions of :func:`rate_curve_estimate`: ``λ(x) = a·exp(-b·x)`` or ``a / (1 + b·x)``.
RATE_SHAPES = ("exponential", "hyperbolic")
#: The default rate function, chosen on the 12 screening sets (``benchmarks/screening_estimate.py``,
#: the default order, seeds 0-2): mean absolute error of the includes left after 10 / 25 / 50 %
#: screened 84.6 / 7.0 / 2.2 records (hyperbolic 120.3 / 33.7 / 13.3; the Platt figure the screen
#: showed before, 283.5 / 87.2 / 13.1). Early on it is still often far too high: while the
#: includes keep coming the fit sees no decay and extrapolates a flat rate.
DEFAULT_SHAPE = "exponential"
#: Grid of the decay ``b`` over which the profile likelihood is maximised: ``b·s`` from 0 to
#: ``e^8`` (``s`` = records screened), log-spaced.
_GRID = np.concatenate([[0.0], np.exp(np.linspace(-8.0, 8.0, 161))])


def rate_curve_estimate(
    sequence: Sequence[int] | npt.NDArray[np.integer],
    n_unscreened: int,
    shape: str = DEFAULT_SHAPE,
) -> float:
    """Expected includes among the ``n_unscreened`` records still to screen.

    The includes at positions ``x_i`` (record ``i`` of the order spans ``[i, i+1)``) are taken
    as a Poisson process of rate ``λ(x) = a·g(x; b)`` (``g`` = ``exp(-b·x)`` or
    ``1/(1+b·x)``); ``a`` and ``b ≥ 0`` maximise its likelihood on the ``s`` records screened
    (``a`` in closed form, ``b`` on a log grid), and the estimate is
    ``∫_s^{s+n_unscreened} λ(x) dx``. With no include yet the estimate is 0.

    Args:
        sequence: ``(s,)`` 0/1 labels of the records screened, in screening order (priors
            dropped; a maybe counts as 1).
        n_unscreened: records not screened yet.
        shape: ``"exponential"`` or ``"hyperbolic"``.

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
    best = int(np.argmax(loglik))
    rest = a[best] * (_mass(shape, b[best : best + 1], float(s + n_unscreened))[0] - mass_s[best])
    return float(min(max(rest, 0.0), n_unscreened))


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
