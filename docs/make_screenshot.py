"""Regenerate ``docs/screenshot.svg``, the main screen README shows.

Builds a home from a slice of the sample data (every 10th paper, 2,000 of them, and every
dataset: the slice the tests use) in a temporary directory, indexes it (BM25 and dense; set
``LITSIFT_EMBED_CACHE_DIR`` to a passage cache to reuse vectors), runs the app headless with
Textual's Pilot at 130 x 36 cells, types a two-aspect query, moves into the results, and saves
the frame as SVG (Textual's ``export_screenshot``).

Usage::

    python docs/make_screenshot.py [--out docs/screenshot.svg] [--query "..."]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import tempfile
from pathlib import Path

from litsift.paths import get_paths, shared_data_dir
from litsift.service import LitsiftService
from litsift.tui.app import create_app
from litsift.types import Kind

QUERY = "dialogue state tracking across domains, evaluated on MultiWOZ"


def _slice(tmp: Path) -> Path:
    src = shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"
    with gzip.open(src, "rt", encoding="utf-8", newline="\n") as f:
        rows = [json.loads(line) for line in f.read().split("\n") if line.strip()]
    out = tmp / "papers.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows[::10][:2000]), encoding="utf-8")
    return out


async def _shoot(svc: LitsiftService, query: str, size: tuple[int, int]) -> str:
    app = create_app(svc, show_timings=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press(*query)
        screen = app.search_screen
        for _ in range(600):  # until the search and its aspect scoring have landed
            await pilot.pause(0.05)
            if not screen.busy and screen.tab().result is not None:
                break
        await pilot.press("down", "down")
        await pilot.pause(0.2)
        return app.export_screenshot(title="litsift")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "screenshot.svg")
    parser.add_argument("--query", default=QUERY)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        with LitsiftService(get_paths(home)) as svc:
            svc.ingest(Kind.PAPER, _slice(Path(tmp)))
            svc.ingest(Kind.DATASET, shared_data_dir() / "datasets" / "pwc-datasets.jsonl.gz")
            for kind in Kind:  # aspect sentences are embedded when first shown
                svc.build_index(kind)
            svg = asyncio.run(_shoot(svc, args.query, (130, 36)))
    args.out.write_text(svg, encoding="utf-8")
    print(f"wrote {args.out} ({len(svg):,} bytes)")


if __name__ == "__main__":
    main()
