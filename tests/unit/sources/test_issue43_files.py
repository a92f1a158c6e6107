"""Issue 43, items 5 (RIS name suffixes) and 8 (non-regular files): a suffix stays with the
family name, on litstudy's real IEEE Xplore RIS export (``../shared/data/sources``); a FIFO,
in a folder or named, is skipped with its reason and never opened (opening one waits for a
writer forever).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.ris import read_ris

RIS = shared_data_dir() / "sources" / "reference-managers" / "ris"
IEEE_RIS = RIS / "litstudy_ieee-xplore-export.ris"


def test_ris_suffix_stays_with_the_family_name() -> None:
    """``AU  - J. H. Laros III``: the family name is Laros, not III."""
    assert "AU  - J. H. Laros III" in IEEE_RIS.read_text(encoding="utf-8")
    record = next(
        r
        for r in read_ris(IEEE_RIS)
        if isinstance(r, SourceRecord) and "J. H. Laros III" in r.authors
    )
    i = record.authors.index("J. H. Laros III")
    assert record.family_names[i] == "Laros"


def _ingest(home: Path, *paths: Path) -> dict[str, object]:
    args = ["--home", str(home), "ingest", "papers", *map(str, paths), "--json"]
    out = CliRunner().invoke(main, args)
    return {"exit": out.exit_code, **json.loads(out.output)}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.timeout(60)
def test_fifo_in_a_folder_is_skipped_not_opened(tmp_path: Path) -> None:
    folder = tmp_path / "imports"
    folder.mkdir()
    shutil.copy(IEEE_RIS, folder / "ieee.ris")
    os.mkfifo(folder / "x.ris")  # nobody writes: opening it would block forever
    report = _ingest(tmp_path / "home", folder)
    assert report["exit"] == 0 and report["bad"] == []
    assert any("x.ris" in s and "FIFO" in s and "not opened" in s for s in report["skipped"])
    assert [Path(f["file"]).name for f in report["files"]] == ["ieee.ris"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.timeout(60)
def test_fifo_named_on_the_command_line_is_bad_not_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "x.ris"
    os.mkfifo(fifo)
    report = _ingest(tmp_path / "home", fifo, IEEE_RIS)
    assert report["exit"] == 1
    assert len(report["bad"]) == 1 and "FIFO" in report["bad"][0]
    assert report["added"] > 0
