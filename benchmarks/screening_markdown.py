"""Markdown tables of a ``litsift eval screening --json`` report (for README / EVALUATION).

Usage::

    python benchmarks/screening_markdown.py screening.json

Prints, per set and as the mean (median) over sets, WSS@95, RRF@10 and ATD (percent of the
records, mean ± std over seeds) of each system; the paired tests of ``litsift`` against each
other system; and each stopping rule's recall and fraction screened when it fires (mean over
sets). It reads the JSON only and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

MEASURES = (("WSS@95", "WSS@95"), ("RRF@10", "RRF@10"), ("ATD/M", "ATD %"))
RULES = ("consecutive", "knee", "hypergeometric")


def tables(data: dict[str, Any]) -> str:
    """The Markdown of :func:`litsift.eval.screening.report_to_json`'s object."""
    systems: list[str] = data["systems"]
    head = ["set", "records / incl."]
    head += [f"{label} {s}" for _, label in MEASURES for s in systems]
    head += [f"s/run {s}" for s in systems]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, by_system in data["results"].items():
        info = data["sets"][name]
        cells = [name, f"{info['records']} / {info['included']}"]
        for m, _ in MEASURES:
            for s in systems:
                v = by_system[s][m]
                cells.append(f"{100 * v['mean']:.1f} ± {100 * v['std']:.1f}")
        cells += [f"{by_system[s]['seconds']['mean']:.1f}" for s in systems]
        out.append("| " + " | ".join(cells) + " |")
    cells = ["**mean (median)**", ""]
    for m, _ in MEASURES:
        for s in systems:
            v = data["summary"][s][m]
            cells.append(f"**{100 * v['mean']:.1f}** ({100 * v['median']:.1f})")
    cells += ["" for _ in systems]
    out.append("| " + " | ".join(cells) + " |")
    out += [
        "",
        "| litsift vs | measure | diff (points) | p (paired randomization) | better / worse |",
    ]
    out.append("|---|---|---|---|---|")
    for c in data["comparisons"]:
        if c["measure"] == "ATD":
            continue
        out.append(
            f"| {c['other']} | {c['measure']} | {100 * c['diff']:+.1f} | {c['p_value']:.3f} | "
            f"{c['wins']} / {c['losses']} of {c['n']} |"
        )
    out += ["", "| system | " + " | ".join(f"{r}: recall / screened / fired" for r in RULES) + " |"]
    out.append("|---|" + "---|" * len(RULES))
    for s in systems:
        row = data["summary"][s]
        cells = [
            f"{100 * row[f'stop.{r}.recall']['mean']:.1f} % / "
            f"{100 * row[f'stop.{r}.screened']['mean']:.1f} % / "
            f"{100 * row[f'stop.{r}.fired']['mean']:.0f} %"
            for r in RULES
        ]
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    """Read the JSON named on the command line and print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path)
    args = ap.parse_args()
    print(tables(json.loads(args.report.read_text(encoding="utf-8"))))


if __name__ == "__main__":
    main()
