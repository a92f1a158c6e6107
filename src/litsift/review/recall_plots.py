"""Recall curves, drawn with matplotlib (the ``plots`` extra): a review's includes found against
records screened (``litsift review curve``), and the simulated systems' recall against the
fraction screened on a labelled set (``litsift eval screening --plot``).

Each drawn series is an SVG group whose id names it (``curve-found``, ``curve-litsift``,
``band-litsift``, ``random``, ``recall-95``), and the series are returned as plain data
(:func:`review_series`, :func:`simulation_series`) so a test or another tool can read back
what was drawn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from litsift.review.prisma_diagram import pyplot

if TYPE_CHECKING:
    from litsift.review.simulate import SimulationRun

__all__ = [
    "draw_review_curve",
    "draw_simulation_curves",
    "review_series",
    "simulation_series",
]

#: Colours of the systems ``eval screening`` names (the others take the cycle's next colours).
_COLOURS = {"litsift": "C0", "litsift-text": "C1", "asreview": "C3"}


def _save(fig: Any, outputs: Sequence[Path]) -> None:
    for output in outputs:
        output.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(output, format=output.suffix.lower()[1:], dpi=120)


# -- a review ------------------------------------------------------------------------------


def review_series(
    decisions: Sequence[str], to_screen: int, priors: dict[str, int] | None = None
) -> dict[str, Any]:
    """The recall curve of a live review: includes found after each record screened.

    Args:
        decisions: the stage's decisions (``include`` / ``exclude`` / ``maybe``, or
            ``conflict`` for a record awaiting resolution) in screening order, prior
            decisions left out; only ``include`` counts as found.
        to_screen: the stage's records without a prior decision (the x axis runs to it).
        priors: ``{decision: records}`` decided before screening (reported, not plotted).

    Returns:
        ``{"screened": n, "to_screen", "found": [0, f1, …, fn] (n + 1 counts), "includes":
        fn, "total_known": every record screened, "random": [[0, 0], [to_screen, r]] (the
        expected includes of random order, r = fn: a lower bound while records are left),
        "priors"}``.
    """
    found = np.concatenate([[0], np.cumsum([d == "include" for d in decisions])]).astype(int)
    includes = int(found[-1])
    return {
        "screened": len(decisions),
        "to_screen": int(to_screen),
        "found": found.tolist(),
        "includes": includes,
        "total_known": len(decisions) >= to_screen,
        "random": [[0, 0], [int(to_screen), includes]],
        "priors": dict(priors or {}),
    }


def draw_review_curve(series: dict[str, Any], output: Path, title: str) -> Path:
    """Draw :func:`review_series`'s curve to ``output`` (.svg, .png, .pdf): includes found
    (absolute: a live review's total is unknown until every record is screened) against
    records screened, with random order's expected line.

    Raises:
        ConfigError: matplotlib is not installed (the ``plots`` extra), or an unknown suffix.
    """
    plt = pyplot(output, "the recall curve")
    from matplotlib.ticker import MaxNLocator

    n, m, k = series["screened"], series["to_screen"], series["includes"]
    if series["total_known"]:
        sub = f"all {m:,} records screened: {k:,} includes"
        random_label = "random order (expected)"
    else:
        left = f"{m - n:,} of {m:,} records not yet screened"
        sub = f"includes found, absolute: the total is unknown ({left})"
        random_label = f"random order (expected if the {k:,} found were all)"
    if priors := sum(series.get("priors", {}).values()):  # review show counts them screened
        sub += f"\n{priors:,} prior decisions (imported, in no screening order) not drawn"
    with plt.rc_context({"svg.fonttype": "none", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        (line,) = ax.plot(
            range(n + 1), series["found"], drawstyle="steps-post", color="C0",
            label=f"includes found ({k:,} in {n:,} screened)",
        )  # fmt: skip
        line.set_gid("curve-found")
        (x0, y0), (x1, y1) = series["random"]
        (diag,) = ax.plot([x0, x1], [y0, y1], ls="--", color="grey", label=random_label)
        diag.set_gid("random")
        ax.set_xlim(0, max(m, 1))
        ax.set_ylim(0, max(k, 1) * 1.05)
        # counts of records: whole-number ticks (2 includes would otherwise get 1.25, 1.75)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("records screened")
        ax.set_ylabel("includes found")
        ax.set_title(f"{title}\n{sub}")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
        fig.tight_layout()
        _save(fig, [output])
        plt.close(fig)
    return output


# -- simulations ---------------------------------------------------------------------------


def simulation_series(runs: Sequence[SimulationRun]) -> dict[str, dict[str, Any]]:
    """Per system, recall after each record screened over the runs (seeds) of one set.

    Args:
        runs: the runs of one set (:class:`litsift.review.simulate.SimulationRun`; their
            ``sequence`` has the same ``M`` records, priors dropped).

    Returns:
        ``{system: {"seeds": n, "points": M + 1, "fraction": [k/M], "mean", "min", "max":
        [recall after k records]}}`` in the runs' order of systems; recall is a fraction of
        the set's includes, rounded to 5 decimals.
    """
    by: dict[str, list[Any]] = {}
    for r in runs:
        y = np.asarray(r.sequence, dtype=np.float64)
        found = np.concatenate([[0.0], np.cumsum(y)]) / max(float(y.sum()), 1.0)
        by.setdefault(r.system, []).append(found)
    out: dict[str, dict[str, Any]] = {}
    for system, curves in by.items():
        arr = np.vstack(curves)
        m = arr.shape[1] - 1
        out[system] = {
            "seeds": int(arr.shape[0]),
            "points": int(arr.shape[1]),
            "fraction": np.round(np.arange(m + 1) / max(m, 1), 5).tolist(),
            "mean": np.round(arr.mean(axis=0), 5).tolist(),
            "min": np.round(arr.min(axis=0), 5).tolist(),
            "max": np.round(arr.max(axis=0), 5).tolist(),
        }
    return out


def draw_simulation_curves(
    name: str, runs: Sequence[SimulationRun], directory: Path, png: bool = True
) -> list[Path]:
    """Draw one set's recall curves to ``DIRECTORY/NAME.svg`` (and ``.png``), with the series
    in ``NAME.json``: per system the mean recall over seeds against the fraction screened, a
    band from the seeds' min to max, the random diagonal and the 95 % recall line. A system
    appears only when it has runs (ASReview's curve only when ASReview ran).

    Returns:
        The files written (SVG, PNG, JSON).

    Raises:
        ConfigError: matplotlib is not installed (the ``plots`` extra).
    """
    svg = directory / f"{name}.svg"
    plt = pyplot(svg, "eval screening --plot")
    series = simulation_series(runs)
    with plt.rc_context({"svg.fonttype": "none", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(7, 5))
        extra = (f"C{i}" for i in (2, 4, 5, 6, 7, 8, 9))
        for system, s in series.items():
            colour = _COLOURS.get(system) or next(extra, "black")
            seeds = s["seeds"]
            (line,) = ax.plot(
                s["fraction"], s["mean"], color=colour, lw=1.4,
                label=f"{system} (mean of {seeds} seed{'s' if seeds != 1 else ''})",
            )  # fmt: skip
            line.set_gid(f"curve-{system}")
            if seeds > 1:
                band = ax.fill_between(s["fraction"], s["min"], s["max"], color=colour, alpha=0.2)
                band.set_gid(f"band-{system}")
        (diag,) = ax.plot([0, 1], [0, 1], ls="--", color="grey", label="random order")
        diag.set_gid("random")
        target = ax.axhline(0.95, ls=":", color="black", lw=1, label="95% recall")
        target.set_gid("recall-95")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("fraction of records screened")
        ax.set_ylabel("recall (fraction of includes found)")
        ax.set_title(f"{name}: recall curves (band: min..max over seeds)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
        fig.tight_layout()
        outputs = [svg, directory / f"{name}.png"] if png else [svg]
        _save(fig, outputs)
        plt.close(fig)
    data = directory / f"{name}.json"
    data.write_text(json.dumps({"set": name, "systems": series}), encoding="utf-8")
    return [*outputs, data]
