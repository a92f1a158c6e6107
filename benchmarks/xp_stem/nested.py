# ruff: noqa: E501  (markdown table rows kept whole)
"""Nested selection over the systems of an ``xp_*`` run file: each review held out in turn,
the system with the best mean of WSS@95 and RRF@10 over the other 11 (per-review means over
seeds) is chosen and scored on it, as ``benchmarks/screening_nested.py`` does for its
candidates. ASReview's per-review figures are the nested run's (same seeds and priors).

    python benchmarks/xp_stem/nested.py runs.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "xp_cross"))

from summarize import ASREVIEW

from litsift.eval.measures import paired_test


def main() -> None:
    acc: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for line in Path(sys.argv[1]).read_text().splitlines():
        r = json.loads(line)
        acc[(r["set"], r["system"])].append((100 * r["WSS@95"], 100 * r["RRF@10"]))
    sets = sorted({s for s, _ in acc})
    systems = sorted({sy for _, sy in acc if all(len(acc.get((s, sy), [])) == 5 for s in sets)})
    mean = {k: np.mean(v, axis=0) for k, v in acc.items()}
    rows, held = [], []
    for test in sets:
        train = [s for s in sets if s != test]
        score = {sy: np.mean([mean[(s, sy)].mean() for s in train]) for sy in systems}
        best = max(systems, key=lambda sy: score[sy])
        w, r = mean[(test, best)]
        held.append((w, r))
        aw, ar = ASREVIEW[test]
        rows.append(f"| {test} | {best} | {w:.1f} / {aw:.1f} | {r:.1f} / {ar:.1f} |")
    h = np.array(held)
    a = np.array([ASREVIEW[s] for s in sets])
    print(f"candidates: {', '.join(systems)}\n")
    print(
        "| review | chosen on the other 11 | WSS@95 held out / ASReview | RRF@10 held out / ASReview |"
    )
    print("|---|---|---|---|")
    print("\n".join(rows))
    print(
        f"| **mean** | | **{h[:, 0].mean():.1f}** / {a[:, 0].mean():.1f} | **{h[:, 1].mean():.1f}** / {a[:, 1].mean():.1f} |\n"
    )
    for k, name in enumerate(("WSS@95", "RRF@10")):
        d = h[:, k] - a[:, k]
        t = paired_test(h[:, k], a[:, k])
        print(
            f"- held out {name} vs ASReview: {d.mean():+.1f} points, p {t.p_value:.3f} ({t.wins} better / {t.losses} worse of {len(sets)})"
        )


if __name__ == "__main__":
    main()
