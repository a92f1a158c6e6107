"""How the citation signal joins the screening learner: the variants tried before choosing
``CITATION_WEIGHT`` and ``CITATION_MIN_INCLUDED`` (:mod:`litsift.review.learner`).

Usage (from the repository root, with ../shared/data beside it)::

    python benchmarks/citation_signal_variants.py --seeds 3 --order tfidf-svm

Each variant runs :func:`litsift.eval.snowball.run_snowball` on the four screening sets with
references and prints, per set, (WSS@95, WSS@95 with citations, RRF@10, RRF@10 with
citations) and the paired comparison over sets x seeds. It prints numbers and asserts nothing.

Measured 2026-11-26 (order tfidf-svm, seeds 0-2, 12 pairs): weight 1 from the first include
WSS@95 +0.4 points (p 0.80), RRF@10 -8.2 (p 0.40); weight 1 from the third include +1.8
(p 0.24), +0.5 (p 0.92); ``linked`` only, from the third include +2.8 (p 0.38), -4.9 (p 0.47);
weight 0.3 from the third include +3.9 (p 0.003), +8.5 (p 0.004) -- the one kept. With the
default order (tfidf+dense-0.2) the first variant lost RRF@10 too (-14.5 points, p 0.056, 5
seeds), the kept one gains (``litsift eval snowball``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import litsift.review.learner as learner
from litsift.eval.snowball import report_to_json, run_snowball
from litsift.paths import shared_data_dir

#: name -> (signal columns, first include count, weight)
VARIANTS: dict[str, tuple[tuple[int, ...], int, float]] = {
    "w1": ((0, 1, 2), 1, 1.0),
    "w1-from3": ((0, 1, 2), 3, 1.0),
    "linked-from3": ((0,), 3, 1.0),
    "w0.3-from3": ((0, 1, 2), 3, 0.3),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--order", default="tfidf-svm")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--data", type=Path, default=shared_data_dir())
    args = parser.parse_args()
    for name in args.variants.split(","):
        columns, first, weight = VARIANTS[name]
        learner.CITATION_COLUMNS = columns
        learner.CITATION_MIN_INCLUDED = first
        learner.CITATION_WEIGHT = weight
        data = report_to_json(run_snowball(args.data, seeds=args.seeds, order=args.order))
        rows = {
            s: tuple(
                round(100 * r[system][m]["mean"], 1)
                for m in ("WSS@95", "RRF@10")
                for system in ("litsift", "litsift+citations")
            )
            for s, r in data["results"].items()
        }
        paired = {
            c["measure"]: (round(100 * c["diff"], 1), round(c["p_value"], 3))
            for c in data["comparisons"]
        }
        print(name, rows, paired, f"{data['elapsed_s']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
