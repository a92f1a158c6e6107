"""Regenerate ``docs/screenshot.svg``, the main screen README shows, from the demo corpus.

Uses a home that ``litsift demo --no-tui`` built (``--home DIR``: 19.6K papers and 3.3K datasets,
BM25 and dense indexes, aspect sentences), or builds that home in a temporary directory first
(about 20 minutes on 2 cores; set ``LITSIFT_EMBED_CACHE_DIR`` to a passage cache to reuse
vectors). Runs the app headless with Textual's Pilot at 120 x 36 cells, types a two-aspect query
whose rows cover its aspects differently, moves into the results, and saves the frame as SVG
(Textual's ``export_screenshot``).

Usage::

    litsift --home ~/demo-home demo --no-tui
    python docs/make_screenshot.py --home ~/demo-home [--out docs/screenshot.svg] [--query "..."]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.types import Kind

QUERY = "dialogue state tracking across domains, evaluated on MultiWOZ"
SIZE = (120, 36)


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
    parser.add_argument("--home", type=Path, default=None, help="a home `litsift demo` built")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp) / "home"
        with LitsiftService(get_paths(home)) as svc:
            if args.home is None:  # the demo corpus, as `litsift demo --no-tui` builds it
                data = shared_data_dir()
                svc.ingest(Kind.PAPER, data / "papers" / "ml-nlp-papers.jsonl.gz")
                svc.ingest(Kind.DATASET, data / "datasets" / "pwc-datasets.jsonl.gz")
                for kind in Kind:
                    svc.build_index(kind)
                    svc.build_sentences(kind)
            svg = asyncio.run(_shoot(svc, args.query, SIZE))
    args.out.write_text(svg, encoding="utf-8")
    print(f"wrote {args.out} ({len(svg):,} bytes)")


if __name__ == "__main__":
    main()
