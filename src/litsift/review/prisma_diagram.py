"""The PRISMA 2020 flow diagram of a review, drawn with matplotlib (the ``plots`` extra).

The boxes follow the PRISMA 2020 template for new systematic reviews of databases and registers
(Page et al., BMJ 2021;372:n71, figure 1): identification (records identified per source file,
removed before screening: duplicates, entries not readable), screening (records screened,
excluded with reasons, not yet screened; reports sought, not yet assessed; reports assessed,
excluded with reasons, marked maybe, awaiting resolution) and included. Every main box's count
is the one above it less its side boxes (:func:`box_texts`). The counts are those of
:class:`litsift.store.reviews.Prisma` (``litsift review show``). Each box's text element is in
an SVG group whose id names the box (``prisma-screened`` ...), so the counts can be read back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litsift.errors import ConfigError
from litsift.install import extra_hint

__all__ = ["FORMATS", "box_texts", "draw_prisma", "pyplot"]

#: File types the diagram can be written as (by the output's suffix).
FORMATS = (".svg", ".png", ".pdf")
_WIDTH = 0.42


def _n(value: int) -> str:
    return f"(n = {value:,})"


def _reasons(reasons: dict[str, int]) -> list[str]:
    return [f"  {reason or 'no reason given'} {_n(n)}" for reason, n in reasons.items()]


def box_texts(counts: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """``{box id: (column "main" / "side", text)}`` of the diagram, top to bottom.

    Each main box's count is the one above it less its side boxes' first counts: identified −
    removed (duplicates, not readable) = screened; screened − excluded − not yet screened =
    sought; sought − not yet assessed = assessed; assessed − excluded − maybe − awaiting
    resolution = included. A line indented under a count (a source, a reason, "of them ...")
    is a part of it, never subtracted again. Records in conflict are screened, awaiting
    resolution (:class:`litsift.store.reviews.Prisma`): at title/abstract their full text is
    sought.
    """
    full = counts.get("fulltext") or {}
    files = counts.get("sources") or {}
    sources = [f"  {Path(f).name} {_n(n)}" for f, n in files.items()]
    removed = [f"  Duplicate records removed {_n(counts['duplicates_removed'])}"]
    if counts.get("bad"):
        removed.append(f"  Records not readable {_n(counts['bad'])}")
    excluded = [f"Records excluded {_n(counts['excluded'])}", *_reasons(counts["reasons"])]
    sought = [f"Reports sought for retrieval {_n(full.get('sought', 0))}"]
    sought.append(f"  with a PDF in the library {_n(full.get('pdfs', 0))}")
    if counts.get("maybe"):
        sought.append(f"  of them marked maybe at title/abstract {_n(counts['maybe'])}")
    if counts.get("conflicts"):
        sought.append(f"  of them awaiting resolution (conflict) {_n(counts['conflicts'])}")
    reports_out = [f"Reports excluded {_n(full.get('excluded', 0))}"]
    reports_out += _reasons(full.get("reasons") or {})
    boxes = {
        "prisma-identified": (
            "main", "\n".join([f"Records identified {_n(counts['identified'])} from:", *sources])
        ),
        "prisma-removed": ("side", "\n".join(["Records removed before screening:", *removed])),
        "prisma-screened": (  # "to screen" while records wait: they are not screened yet
            "main",
            f"Records {'to screen' if counts.get('unscreened') else 'screened'} "
            f"{_n(counts['records'])}",
        ),
        "prisma-excluded": ("side", "\n".join(excluded)),
        "prisma-pending": ("side", f"Records not yet screened {_n(counts['unscreened'])}"),
        "prisma-sought": ("main", "\n".join(sought)),
        "prisma-unassessed": (
            "side", f"Reports not yet assessed {_n(full.get('unassessed', 0))}"
        ),
        "prisma-assessed": (
            "main", f"Reports assessed for eligibility {_n(full.get('assessed', 0))}"
        ),
        "prisma-reports-excluded": ("side", "\n".join(reports_out)),
    }  # fmt: skip
    if full.get("maybe"):
        boxes["prisma-reports-maybe"] = ("side", f"Reports marked maybe {_n(full['maybe'])}")
    if full.get("conflicts"):
        boxes["prisma-reports-conflicts"] = (
            "side", f"Reports awaiting resolution (conflict) {_n(full['conflicts'])}"
        )  # fmt: skip
    boxes["prisma-included"] = (
        "main", f"Studies included in review {_n(full.get('included', 0))}"
    )  # fmt: skip
    return boxes


def pyplot(output: Path, what: str) -> Any:
    """matplotlib's pyplot on the Agg backend, once ``output``'s suffix is known drawable.

    Raises:
        ConfigError: an unknown suffix, or matplotlib is not installed.
    """
    if output.suffix.lower() not in FORMATS:
        raise ConfigError(
            f"{output}: cannot draw a {output.suffix or 'suffix-less'} file",
            f"name the output {' / '.join('FILE' + f for f in FORMATS)}",
        )
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib import pyplot as plt
    except ImportError as err:
        raise ConfigError(
            f"{what} needs matplotlib, which is not installed",
            extra_hint("plots"),
        ) from err
    return plt


def draw_prisma(counts: dict[str, Any], output: Path, title: str = "") -> Path:
    """Draw the diagram of ``counts`` (``Prisma.to_json()``) to ``output`` (.svg, .png, .pdf).

    Raises:
        ConfigError: matplotlib is not installed (the ``plots`` extra), or an unknown suffix.
    """
    plt = pyplot(output, "the PRISMA diagram")
    boxes = box_texts(counts)
    rows: list[list[str]] = []  # each main box starts a row; side boxes join the row above
    for box, (column, _) in boxes.items():
        if column == "main" or not rows:
            rows.append([box])
        else:
            rows[-1].append(box)
    heights = [max(boxes[b][1].count("\n") + 1 for b in row) * 0.32 + 0.5 for row in rows]
    side_h = [sum(boxes[b][1].count("\n") + 1 for b in row[1:]) * 0.32 + 0.5 for row in rows]
    heights = [max(h, s) for h, s in zip(heights, side_h, strict=True)]
    total = sum(heights) + 0.6 * len(rows)
    with plt.rc_context({"svg.fonttype": "none", "font.size": 9}):
        fig = plt.figure(figsize=(10, max(total, 4.0)))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, 1)
        ax.set_ylim(0, total)
        ax.axis("off")
        if title:
            ax.text(0.5, total - 0.15, title, ha="center", va="top", weight="bold")
        y = total - 0.6
        placed: list[tuple[Any, list[Any]]] = []  # (main box, its side boxes) per row
        for row, height in zip(rows, heights, strict=True):
            main = _box(ax, row[0], boxes[row[0]][1], 0.04, y - height / 2)
            side_y, sides = y, []
            for box in row[1:]:
                half = ((boxes[box][1].count("\n") + 1) * 0.32 + 0.5) / 2
                sides.append(_box(ax, box, boxes[box][1], 0.56, side_y - half))
                side_y -= 2 * half + 0.1
            placed.append((main, sides))
            y -= height + 0.6
        fig.canvas.draw()  # the boxes' extents are known once drawn
        to_data = ax.transData.inverted()
        ext = {
            id(t): to_data.transform(t.get_bbox_patch().get_window_extent())
            for main, sides in placed
            for t in (main, *sides)
        }
        arrow = {"arrowstyle": "->", "shrinkA": 2, "shrinkB": 2}
        for i, (main, sides) in enumerate(placed):
            (_, y0), (x1, y1) = ext[id(main)]
            for side in sides:
                (sx0, sy0), (_, sy1) = ext[id(side)]
                ax.annotate("", (sx0, (sy0 + sy1) / 2), (x1, (y0 + y1) / 2), arrowprops=arrow)
            if i + 1 < len(placed):
                (_, ny0), (_, ny1) = ext[id(placed[i + 1][0])]
                ax.annotate("", (0.1, max(ny0, ny1)), (0.1, min(y0, y1)), arrowprops=arrow)
        output.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(output, format=output.suffix.lower()[1:], dpi=150)
        plt.close(fig)
    return output


def _box(ax: Any, gid: str, text: str, x: float, y: float) -> Any:
    """One box: ``text`` left-aligned at ``x``, centred on ``y``, in a rounded frame."""
    label = ax.text(
        x + 0.01, y, text, ha="left", va="center", wrap=True,
        bbox={"boxstyle": "round,pad=0.5", "facecolor": "white", "edgecolor": "black"},
    )  # fmt: skip
    label.set_gid(gid)
    return label
