"""``review show`` and the PRISMA diagram list the records identified per source in the order
the ``--from`` files were given: a labelled screening set was read after the other files, so
``review new x --from search.jsonl.gz --from embase.ris`` reported embase first in both (the
diagram's "Records identified from:" lines out of the order the review's methods name them).

Real files: Cohen's urinary incontinence review (``shared/data/eval/screening``) and a real
Embase RIS export; a real SQLite home; the SVG read back from its text elements."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from tests.conftest import EVAL_DIR, SHARED_DATA

URINARY = EVAL_DIR / "screening" / "Cohen_2006_UrinaryIncontinence.jsonl.gz"
EMBASE = SHARED_DATA / "sources" / "reference-managers" / "ris" / "asreview_embase-export.ris"

pytestmark = pytest.mark.skipif(
    not (URINARY.is_file() and EMBASE.is_file()), reason="shared data not here"
)


def _cli(home: Path, *args: str) -> str:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert got.exit_code == 0 and "Traceback" not in got.output, got.output
    return got.output


def test_sources_are_listed_in_the_order_given(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _cli(home, "review", "new", "ui", "--from", str(URINARY), "--from", str(EMBASE),
         "--labels", "none")  # fmt: skip
    shown = json.loads(_cli(home, "review", "show", "ui", "--json"))["prisma"]["sources"]
    assert list(shown) == [str(URINARY.resolve()), str(EMBASE.resolve())], shown
    text = _cli(home, "review", "show", "ui")
    assert text.index(URINARY.name) < text.index(EMBASE.name), text
    pytest.importorskip("matplotlib")
    svg = tmp_path / "prisma.svg"
    _cli(home, "review", "prisma", "ui", "-o", str(svg))
    ns = "{http://www.w3.org/2000/svg}"
    box = next(g for g in ET.parse(svg).iter(f"{ns}g") if g.get("id") == "prisma-identified")
    lines = ["".join(t.itertext()) for t in box.iter(f"{ns}text")]
    assert [ln.split(" (n = ")[0].strip() for ln in lines[1:]] == [URINARY.name, EMBASE.name]
