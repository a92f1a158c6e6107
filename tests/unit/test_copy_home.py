"""A copy of a home that is open in this process leaves it usable for this process after a
child process opens and closes it (tests/conftest.py :func:`copy_home`).

In full test runs a CLI search in the session's home failed with "disk I/O error" reading the
labels: tests copied that home with ``shutil.copytree`` while the ``service`` fixture held it
open, which dropped this process's POSIX locks on ``litsift.sqlite`` (closing any descriptor of
a file drops them all); a test that ran litsift in a subprocess then closed the last connection
it could see, and SQLite deleted the ``-wal`` and ``-shm`` files this process still used. Real
store, real child process, real labels."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Label
from tests.conftest import copy_home

_LABEL_IN_A_CHILD = """
import sys
from pathlib import Path
from typing import Any
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Label
with LitsiftService(get_paths(Path(sys.argv[1]))) as svc:
    svc.set_label(Kind.PAPER, sys.argv[2], Label.KEEP)
"""


def test_a_copied_home_stays_usable_after_a_child_process_closes_it(
    tmp_path: Path, paper_slice_rows: list[dict[str, Any]]
) -> None:
    rows = paper_slice_rows[:30]
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as held:  # the session's service, held open
        assert held.ingest(Kind.PAPER, src).ok
        first, second = (str(r[0]) for r in held.store._conn.execute(
            "SELECT id FROM papers ORDER BY id LIMIT 2"
        ))  # fmt: skip
        held.set_label(Kind.PAPER, first, Label.KEEP)
        copy = copy_home(home, tmp_path / "copy")
        child = subprocess.run(
            [sys.executable, "-c", _LABEL_IN_A_CHILD, str(home), second],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert child.returncode == 0, child.stderr[-2000:]
        assert (home / "data" / "litsift.sqlite-wal").exists()  # deleted under us before
        with LitsiftService(get_paths(home)) as again:  # a CLI command in this process
            assert sorted(again.triage.ids_with_label(Kind.PAPER, Label.KEEP)) == [first, second]
        assert sorted(held.triage.ids_with_label(Kind.PAPER, Label.KEEP)) == [first, second]
    with LitsiftService(get_paths(copy)) as copied:  # the copy has what was committed then
        assert copied.triage.ids_with_label(Kind.PAPER, Label.KEEP) == [first]
