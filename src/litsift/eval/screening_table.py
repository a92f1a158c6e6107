"""The plain-text tables of ``litsift eval screening`` (:func:`format_table`)."""

from __future__ import annotations

from typing import Any

#: the stopping rules reported, in :func:`litsift.review.stopping.stop_points`' order
STOP_RULES = ("consecutive", "knee", "hypergeometric")


def format_table(data: dict[str, Any]) -> str:
    """Plain-text tables from :func:`report_to_json`'s object: per set and system the mean ±
    std of the measures (percent; ATD in records) and seconds per run, then the mean over
    sets, each stopping rule's (recall, screened), and the paired tests."""
    lines = [
        f"{'set':<36} {'system':<16} {'WSS@95':>13} {'RRF@10':>13} {'ATD/M':>13} "
        f"{'ATD':>8} {'s/run':>6}"
    ]
    lines.append("-" * len(lines[0]))

    def pct(v: dict[str, float]) -> str:
        return f"{100 * v['mean']:5.1f} ± {100 * v['std']:4.1f}"

    for s, systems in data["results"].items():
        for system, row in systems.items():
            lines.append(
                f"{s:<36} {system:<16} {pct(row['WSS@95']):>13} {pct(row['RRF@10']):>13} "
                f"{pct(row['ATD/M']):>13} {row['ATD']['mean']:8.1f} {row['seconds']['mean']:6.1f}"
            )
    lines.append("")
    for system, row in data["summary"].items():
        lines.append(
            f"{'mean over sets':<36} {system:<16} {100 * row['WSS@95']['mean']:13.1f} "
            f"{100 * row['RRF@10']['mean']:13.1f} {100 * row['ATD/M']['mean']:13.1f}"
        )
        stops = ", ".join(
            f"{rule}: recall {100 * row[f'stop.{rule}.recall']['mean']:.1f}% at "
            f"{100 * row[f'stop.{rule}.screened']['mean']:.1f}% screened "
            f"(fired {100 * row[f'stop.{rule}.fired']['mean']:.0f}%)"
            for rule in STOP_RULES
        )
        lines.append(f"  stopping ({system}): {stops}")
    for c in data["comparisons"]:
        lines.append(
            f"{c['system']} vs {c['other']} {c['measure']}: diff {c['diff']:+.4f}, "
            f"p = {c['p_value']:.4f} ({c['wins']} wins, {c['losses']} losses of {c['n']} sets)"
        )
    lines += [f"note: {n}" for n in data["notes"]]
    return "\n".join(lines)
