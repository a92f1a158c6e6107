"""Notes and tags reach every export format (they were never exported), and an export read back
with ``litsift ingest papers FILE`` merges into the same papers, notes and tags.

A real home: real rows of ``../shared/data`` ingested with ``litsift ingest``, annotated through
the service's door as the TUI does (``annotate(..., label=MAYBE, note=(text, tags))``), exported
with ``litsift export maybe`` and parsed with the formats' own parsers (bibtexparser, rispy,
json).
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import bibtexparser
import pytest
import rispy
from click.testing import CliRunner
from pylatexenc.latex2text import LatexNodes2Text

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.store import Store
from litsift.store.triage import Triage, parse_tags
from litsift.types import Kind, Label
from tests.conftest import PAPERS_GZ, read_jsonl_gz

NOTE = "Compare with the GNN baseline & the survey's Table 3.\nRead section 4 first."
TAGS = "gnn, survey"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return read_jsonl_gz(PAPERS_GZ)[:30]


@pytest.fixture()
def home(tmp_path: Path, rows: list[dict]) -> Path:
    """30 real papers ingested; two labelled maybe (one with a note and tags, one tags only),
    one kept with a note: only the maybe ones are exported."""
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    home = tmp_path / "home"
    res = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(src)])
    assert res.exit_code == 0, res.output
    with LitsiftService(get_paths(home)) as svc:
        svc.annotate(Kind.PAPER, rows[3]["id"], label=Label.MAYBE, note=(NOTE, parse_tags(TAGS)))
        svc.annotate(Kind.PAPER, rows[7]["id"], label=Label.MAYBE, note=("", ["survey"]))
        svc.annotate(Kind.PAPER, rows[9]["id"], label=Label.KEEP, note=("not exported", ["x"]))
    return home


def _export(home: Path, fmt: str) -> str:
    res = CliRunner().invoke(main, ["--home", str(home), "export", "maybe", "--format", fmt])
    assert res.exit_code == 0, res.output
    return res.stdout


def _title(rows: list[dict], i: int) -> str:
    return " ".join(rows[i]["title"].split())


def test_bibtex_has_keywords_and_annote(home: Path, rows: list[dict]) -> None:
    library = bibtexparser.parse_string(_export(home, "bibtex"))
    assert len(library.entries) == 2 and not library.failed_blocks
    to_text = LatexNodes2Text()
    by_title = {" ".join(to_text.latex_to_text(e["title"]).split()): e for e in library.entries}
    noted, tagged = by_title[_title(rows, 3)], by_title[_title(rows, 7)]
    assert noted["keywords"] == "gnn, survey"
    assert to_text.latex_to_text(noted["annote"]) == NOTE
    assert tagged["keywords"] == "survey" and "annote" not in tagged.fields_dict
    # the personal note is not the printed `note` field (that one is the venue's note)
    assert NOTE not in str(noted.fields_dict.get("note", ""))


def test_ris_has_n1_and_one_kw_per_tag(home: Path, rows: list[dict]) -> None:
    refs = {" ".join(r["title"].split()): r for r in rispy.loads(_export(home, "ris"))}
    assert len(refs) == 2
    noted, tagged = refs[_title(rows, 3)], refs[_title(rows, 7)]
    assert noted["keywords"] == ["gnn", "survey"] and noted["notes"] == NOTE.splitlines()
    assert tagged["keywords"] == ["survey"] and "notes" not in tagged


def test_csl_json_has_annote_and_keyword(home: Path, rows: list[dict]) -> None:
    items = {i["title"]: i for i in json.loads(_export(home, "csl-json"))}
    assert len(items) == 2
    noted, tagged = items[_title(rows, 3)], items[_title(rows, 7)]
    assert noted["keyword"] == "gnn, survey"
    # CSL's annotation, as BibTeX's annote; ``note`` is Zotero's Extra (the venue note)
    assert noted["annote"] == NOTE and NOTE not in noted.get("note", "")
    assert tagged["keyword"] == "survey" and "annote" not in tagged


def test_markdown_has_tags_and_note_under_the_item(home: Path, rows: list[dict]) -> None:
    text = _export(home, "markdown")
    items = text.split("\n- ")
    assert len(items) == 2
    (noted,) = [i for i in items if rows[3]["title"].split()[0] in i and "Note:" in i]
    assert "\n  Tags: gnn, survey" in noted
    assert "\n  Note: Compare with the GNN baseline & the survey's Table 3. Read section 4" in noted
    (tagged,) = [i for i in items if i is not noted]
    assert "\n  Tags: survey" in tagged and "Note:" not in tagged
    assert "not exported" not in text


@pytest.mark.parametrize(
    ("fmt", "suffix"), [("bibtex", "bib"), ("ris", "ris"), ("csl-json", "json")]
)
def test_an_export_read_back_merges_without_duplicates(
    home: Path, rows: list[dict], fmt: str, suffix: str
) -> None:
    out = home.parent / f"maybe.{suffix}"
    out.write_text(_export(home, fmt), encoding="utf-8")
    res = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(out)])
    assert res.exit_code == 0, res.output
    with Store(get_paths(home).store_file, readonly=True) as store:
        assert store.count(Kind.PAPER) == len(rows)
        triage = Triage(store)
        noted = triage.note(Kind.PAPER, rows[3]["id"])
        tagged = triage.note(Kind.PAPER, rows[7]["id"])
    assert noted is not None and noted.text == NOTE and noted.tags == ("gnn", "survey")
    assert tagged is not None and tagged.text == "" and tagged.tags == ("survey",)


def shown_on_a_terminal(args: list[str]) -> str:
    """What ``litsift ARGS`` writes to stdout when stdout is a terminal (a pty)."""
    leader, follower = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "litsift", *args], stdout=follower, stderr=subprocess.PIPE
    ) as proc:
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    os.close(leader)
    return shown.decode("utf-8")


def test_export_to_a_terminal_is_sanitised_and_to_a_pipe_kept_whole(
    home: Path, rows: list[dict]
) -> None:
    """A note pasted with control characters is stored without them, so no export carries
    them; a note an older litsift stored with them (written here below the service, as it
    was then) is shown without them on a terminal (an OSC 0 would retitle it), while a pipe
    or ``-o`` file gets the stored text whole."""
    hostile = "Retitled \x1b]0;pwned-title\x07here"
    with LitsiftService(get_paths(home)) as svc:
        svc.annotate(Kind.PAPER, rows[3]["id"], note=(hostile, ["gnn"]))
    piped = _export(home, "ris")
    assert "N1  - Retitled here" in piped and "\x1b" not in piped and "\x07" not in piped
    with LitsiftService(get_paths(home)) as svc:
        svc.triage.set_note(Kind.PAPER, rows[3]["id"], hostile, ["gnn"])  # as stored before
    assert hostile in _export(home, "ris")  # not a terminal: the export as stored
    text = shown_on_a_terminal(["--home", str(home), "export", "maybe", "--format", "ris"])
    assert "N1  - Retitled here" in text
    assert "\x1b" not in text and "\x07" not in text and "0;pwned" not in text
