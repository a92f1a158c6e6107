# ruff: noqa: E501  (markdown table rows and progress lines kept whole)
"""Tables of runs.jsonl: per review and mean WSS@95 / RRF@10 of each system, the paired
difference to ``base`` (per-review means over seeds; paired randomization test over reviews,
litsift.eval.measures.paired_test), and ASReview's per-review figures from docs/EVALUATION.md
(the nested run's table, same seeds / priors protocol) for reference.

    python benchmarks/xp_cross/summarize.py benchmarks/xp_cross/runs.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

import numpy as np

from litsift.eval.measures import paired_test

# docs/EVALUATION.md, "Held out: nested cross-validation", ASReview column (WSS@95, RRF@10)
ASREVIEW = {
    "Cohen_2006_Antihistamines": (-1.5, 37.3),
    "Cohen_2006_UrinaryIncontinence": (35.6, 43.6),
    "Donners_2021": (60.7, 52.9),
    "Nelson_2002": (30.7, 31.1),
    "Cohen_2006_ADHD": (53.7, 71.6),
    "Cohen_2006_AtypicalAntipsychotics": (26.1, 37.0),
    "Kitchenham_2010": (67.5, 73.2),
    "Meijboom_2021": (70.0, 71.7),
    "Cohen_2006_ProtonPumpInhibitors": (44.3, 67.2),
    "Oud_2018": (80.9, 91.6),
    "Bannach-Brown_2019": (41.0, 56.7),
    "Nagtegaal_2019": (73.3, 66.0),
}
SHORT = {
    "Cohen_2006_Antihistamines": "AH",
    "Cohen_2006_UrinaryIncontinence": "UI",
    "Donners_2021": "Don",
    "Nelson_2002": "Nel",
    "Cohen_2006_ADHD": "ADHD",
    "Cohen_2006_AtypicalAntipsychotics": "AA",
    "Kitchenham_2010": "Kit",
    "Meijboom_2021": "Mei",
    "Cohen_2006_ProtonPumpInhibitors": "PPI",
    "Oud_2018": "Oud",
    "Bannach-Brown_2019": "BB",
    "Nagtegaal_2019": "Nag",
}
ORDER = ["base", "rep0.5", "rep1.0", "add0.25", "add0.5", "add1.0"]


def main() -> None:
    rows = [json.loads(line) for line in open(sys.argv[1])]
    acc: dict = defaultdict(lambda: defaultdict(list))
    secs: dict = defaultdict(float)
    for r in rows:
        acc[(r["set"], r["system"])]["WSS@95"].append(100 * r["WSS@95"])
        acc[(r["set"], r["system"])]["RRF@10"].append(100 * r["RRF@10"])
        secs[r["system"]] += r["seconds"]
    seen = list(dict.fromkeys(k[1] for k in acc))
    systems = [s for s in ORDER if s in seen] + [s for s in seen if s not in ORDER]
    sets = [
        s
        for s in SHORT
        if all((s, sy) in acc and len(acc[(s, sy)]["WSS@95"]) == 5 for sy in systems)
    ]
    mean = {
        (s, sy, m): float(np.mean(acc[(s, sy)][m]))
        for s in sets
        for sy in systems
        for m in ("WSS@95", "RRF@10")
    }
    out = [f"{len(sets)} reviews x 5 seeds; mean over reviews (per-review mean over seeds)", ""]
    out.append(
        "| system | WSS@95 | vs base (p; better / worse) | vs ASReview | RRF@10 | vs base (p; better / worse) | vs ASReview | CPU s (all runs) |"
    )
    out.append("|---|---|---|---|---|---|---|---|")
    for sy in systems:
        cells = []
        for i, m in enumerate(("WSS@95", "RRF@10")):
            a = np.array([mean[(s, sy, m)] for s in sets])
            b = np.array([mean[(s, "base", m)] for s in sets])
            asr = np.array([ASREVIEW[s][i] for s in sets])
            if sy == "base":
                vs = ""
            else:
                t = paired_test(a, b)
                vs = f"{a.mean() - b.mean():+.1f} (p {t.p_value:.2f}; {t.wins} / {t.losses})"
            cells += [f"{a.mean():.1f}", vs, f"{a.mean() - asr.mean():+.1f}"]
        out.append(f"| {sy} | " + " | ".join(cells) + f" | {secs[sy]:.0f} |")
    out += [
        "",
        "Per review, WSS@95 / RRF@10 (mean of 5 seeds); other systems as difference to base:",
        "",
    ]
    out.append("| system | " + " | ".join(SHORT[s] for s in sets) + " |")
    out.append("|---|" + "---|" * len(sets))
    out.append(
        "| ASReview | "
        + " | ".join(f"{ASREVIEW[s][0]:.1f} / {ASREVIEW[s][1]:.1f}" for s in sets)
        + " |"
    )
    for sy in systems:
        if sy == "base":
            cells = [f"{mean[(s, sy, 'WSS@95')]:.1f} / {mean[(s, sy, 'RRF@10')]:.1f}" for s in sets]
        else:
            cells = [
                f"{mean[(s, sy, 'WSS@95')] - mean[(s, 'base', 'WSS@95')]:+.1f} / "
                f"{mean[(s, sy, 'RRF@10')] - mean[(s, 'base', 'RRF@10')]:+.1f}"
                for s in sets
            ]
        out.append(f"| {sy} | " + " | ".join(cells) + " |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
