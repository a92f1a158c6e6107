"""Issue 44 item 7: defects found screening real reviews as a reviewer would (the review sets of
``shared/data/eval/screening``, a real store, the real encoder; no mocks)."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService

SETS = (shared_data_dir() / "eval" / "screening").resolve()
DONNERS = SETS / "Donners_2021.jsonl.gz"
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[LitsiftService]:
    with LitsiftService(get_paths(tmp_path / "home")) as s:
        yield s


def _needs_donners() -> None:
    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")


def _into_closed_pipe(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``litsift ARGS | head -0``: stdout is a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "PYTHONPATH": str(SRC), "LITSIFT_HOME": str(home)}
    env.pop("LITSIFT_DEBUG", None)
    try:
        return subprocess.run(
            [sys.executable, "-m", "litsift", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)


def test_every_command_piped_into_a_closed_reader_ends_quietly(tmp_path: Path) -> None:
    _needs_donners()
    home = tmp_path / "home"
    made = CliRunner().invoke(
        main, ["--home", str(home), "review", "new", "d", "--from", str(DONNERS)]
    )
    assert "257 to screen" in made.stdout, made.output
    for args in (["review", "show", "d"], ["review", "list"], ["review", "export", "d"],
                 ["--help"], ["review", "--help"]):  # fmt: skip
        done = _into_closed_pipe(home, *args)
        assert done.stderr == "", (args, done.stderr)
        assert done.returncode in (0, 141), (args, done.returncode)
    wrong = _into_closed_pipe(home, "review", "show", "nope")  # a real error is still told
    assert wrong.returncode == 1 and "no review named 'nope'" in wrong.stderr


def test_a_command_that_builds_finishes_when_its_reader_goes_away(tmp_path: Path) -> None:
    """`litsift index | head -1` stopped at its second line of output (exit 141): the
    papers' index was built, the datasets' dense index never was. A command that changes
    the store or the indexes now finishes its work, its output past the reader going nowhere."""
    import gzip
    import json

    from tests.conftest import DATASETS_GZ, PAPERS_GZ

    home = tmp_path / "home"
    for kind, src, n in (("papers", PAPERS_GZ, 40), ("datasets", DATASETS_GZ, 30)):
        part = tmp_path / f"{kind}.jsonl"
        with gzip.open(src, "rt", encoding="utf-8") as f:
            part.write_text("".join(next(f) for _ in range(n)), encoding="utf-8")
        got = CliRunner().invoke(main, ["--home", str(home), "ingest", kind, str(part)])
        assert got.exit_code == 0, got.output
    done = _into_closed_pipe(home, "index")
    assert done.returncode == 0, done.stderr
    config = CliRunner().invoke(main, ["--home", str(home), "config"]).output
    embedded = [json.loads(line.split(":")[1].strip(" ,")) for line in config.splitlines()
                if '"embedded":' in line]  # fmt: skip
    assert sorted(embedded) == [30, 40], config


def test_the_stop_panel_never_waits_for_more_records_than_the_review_has(
    svc: LitsiftService,
) -> None:
    """Donners with its 15 includes and 110 excludes as prior decisions leaves 132 records to
    screen: at 257 of 257 the knee has read every record, it does not 'wait for 150 screened'."""
    _needs_donners()
    made = svc.reviews.create("d", [DONNERS], labels=110)
    assert made.priors == 125
    session = svc.reviews.open("d")
    # 132 to screen, fewer than the knee's 150: the panel says it cannot stop early (as the
    # consecutive rule's says when it cannot fire), not only "waits for 132 screened"
    knee_at_start = {s.rule: s.detail for s in session.progress().stops}["knee"]
    assert knee_at_start == "waits for all 132 screened (cannot stop early)"
    while session.current_paper() is not None:
        session.decide("exclude")
    progress = session.progress()
    assert (progress.screened, progress.total) == (257, 257)
    stops = {s.rule: s.detail for s in progress.stops}
    assert stops["knee"] == "fired after 132 screened", stops  # not 'waits for 150 screened'
    every = svc.reviews.create("all", [DONNERS])  # every record a prior: no rule has anything
    assert every.priors == 257
    for state in svc.reviews.open("all").progress().stops:
        assert state.detail.startswith("no record to screen (")
        assert "each came with a prior decision" in state.detail


def test_a_review_s_ris_export_read_back_keeps_decisions_notes_and_ids(
    svc: LitsiftService, tmp_path: Path
) -> None:
    """Export Donners (with decisions and notes, and its two records without a DOI whose id is
    ``openalex:W…``) as RIS and make a review of it in a fresh home: the same ids, decisions
    and notes."""
    from litsift.store.review_decisions import decide
    from litsift.store.review_notes import set_note
    from litsift.store.reviews import current_decisions

    _needs_donners()
    svc.reviews.create("d", [DONNERS], labels="none")
    session = svc.reviews.open("d")
    ids = [p.id for p in session.papers]
    openalex_only = [i for i in ids if i.startswith("openalex:")]
    assert len(openalex_only) == 2, openalex_only
    picks = [ids[0], ids[1], ids[2], *openalex_only]
    chosen = dict(zip(picks, ["include", "exclude", "maybe", "exclude", "include"], strict=True))
    decide(svc.store, "d", list(chosen.items()))
    set_note(svc.store, "d", ids[1], "animal study")
    set_note(svc.store, "d", openalex_only[0], "no PK data; conference abstract")
    ris = tmp_path / "d.ris"
    ris.write_text(svc.reviews.export("d", "ris"), encoding="utf-8")

    with LitsiftService(get_paths(tmp_path / "other")) as fresh:
        made = fresh.reviews.create("back", [ris])
        assert made.problems == [] and made.prisma.records == 257
        assert made.priors == 5
        records = {r.doc_id: r for r, _ in fresh.reviews.records("back")}
        # ID - openalex:W… is the id again, not a hash key; but the record the first home
        # made from W4313421986 (no DOI) before its duplicate W3003302859 brought the DOI is,
        # in a fresh home, named by that DOI, the strongest of its ids
        grouped = {"openalex:W4313421986": "doi:10.2147/dddt.s167731"}
        assert set(records) == {grouped.get(i, i) for i in ids}
        got = {d: v for d, v, _ in current_decisions(fresh.store, "back")}
        assert got == {grouped.get(d, d): v for d, v in chosen.items()}
        assert records[ids[1]].note == "animal study"
        note_of = grouped.get(openalex_only[0], openalex_only[0])
        assert records[note_of].note == "no PK data; conference abstract"
        assert sum(bool(r.note) for r in records.values()) == 2
        again = fresh.reviews.create("bare", [ris], labels="none")  # decisions left out
        assert again.priors == 0 and records[ids[1]].note


def _donners_line(n: int) -> dict[str, object]:
    import gzip
    import json

    with gzip.open(DONNERS, "rt", encoding="utf-8") as fh:
        return json.loads(fh.read().split("\n")[n - 1])


def test_a_record_with_abstract_and_doi_but_no_title_is_screened_not_dropped(
    svc: LitsiftService, tmp_path: Path
) -> None:
    """Donners line 226 (an abstract and DOI 10.1002/cpt.v103.s1, no title) is a record of the
    review, labelled by its DOI and the first words of its abstract; so is the same record in
    an RIS export without a TI line. A line with neither title nor id is still a bad entry."""
    _needs_donners()
    row = _donners_line(226)
    assert row["title"] == "" and row["doi"] == "10.1002/cpt.v103.s1"
    made = svc.reviews.create("d", [DONNERS])
    assert made.problems == [] and made.prisma.records == 257
    label = "[no title] doi:10.1002/cpt.v103.s1 · BACKGROUND: Emicizumab (ACE910) is a"
    untitled = [p for _, p in svc.reviews.records("d") if p.title.startswith("[no title]")]
    assert [p.title[: len(label)] for p in untitled] == [label]
    assert untitled[0].abstract == row["abstract"]

    ris = tmp_path / "untitled.ris"
    ris.write_text(
        f"TY  - JOUR\nAB  - {row['abstract']}\nDO  - {row['doi']}\nPY  - 2018\nER  - \n\n"
        "TY  - JOUR\nAB  - An abstract without any identifier.\nER  - \n",
        encoding="utf-8",
    )
    runner = CliRunner()
    home = str(tmp_path / "fresh")
    done = runner.invoke(main, ["--home", home, "review", "new", "r", "--from", str(ris)])
    assert "1 to screen" in done.stdout, done.output
    assert f"{ris}:record 2: no title" in done.stderr  # no id: nothing to label it by
    shown = runner.invoke(main, ["--home", home, "review", "export", "r"])
    (got,) = csv.DictReader(io.StringIO(shown.stdout))  # its own (empty) title, its abstract
    assert (got["id"], got["title"], got["abstract"]) == (
        "doi:10.1002/cpt.v103.s1", "", row["abstract"]
    )  # fmt: skip


def test_readme_and_docs_name_the_consecutive_rule_the_code_runs() -> None:
    from litsift.review.stopping import CONSECUTIVE_FRACTION, CONSECUTIVE_MIN

    rule = f"max({CONSECUTIVE_MIN}, {CONSECUTIVE_FRACTION * 100:.0f} % of the records"
    root = SRC.parent
    for doc in ("README.md", "docs/EVALUATION.md"):
        text = " ".join((root / doc).read_text(encoding="utf-8").split())
        assert rule in text, doc
        assert "100 consecutive" not in text, doc


def test_readme_keeps_asreview_in_its_own_venv() -> None:
    """asreview pins rispy~=0.9: installed beside litsift it downgrades rispy."""
    text = " ".join((SRC.parent / "README.md").read_text(encoding="utf-8").split())
    assert "`rispy~=0.9`" in text and "do **not** install `asreview` beside litsift" in text
    assert "LITSIFT_ASREVIEW_PYTHON=../venv-asreview/bin/python litsift eval screening" in text


def test_the_eval_json_says_which_asreview_ran() -> None:
    """Without ASReview in the run the key is there and null; with it (where a python with
    asreview is found: LITSIFT_ASREVIEW_PYTHON) its version, model and interpreter."""
    from litsift.eval.screening import report_to_json, run_screening
    from litsift.review.simulate import asreview_python

    _needs_donners()
    ours = report_to_json(run_screening(SETS, ["Donners_2021"], 1, ["tfidf-svm"]))
    assert ours["asreview"] is None
    python = asreview_python()
    if python is None:
        pytest.skip("no python with asreview here (LITSIFT_ASREVIEW_PYTHON)")
    theirs = report_to_json(run_screening(SETS, ["Donners_2021"], 1, ["asreview"]))
    info = theirs["asreview"]
    assert info["python"] == python and info["version"][:1].isdigit() and info["model"]


def test_eval_screening_embeds_a_set_once_through_the_shared_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``eval screening`` on Donners with the dense order fills the passage-vector cache
    (LITSIFT_EMBED_CACHE_DIR points it at tmp_path): the next run embeds nothing."""
    from litsift.cache.embeddings import open_cache
    from litsift.eval.screening import run_screening
    from litsift.models_onnx import load_encoder
    from litsift.review.data import load_review_set

    _needs_donners()
    monkeypatch.setenv("LITSIFT_EMBED_CACHE_DIR", str(tmp_path / "vectors"))
    # the process's encoder may already read another cache (the test session's): start it
    # without one, as a fresh `litsift eval screening` process does
    monkeypatch.setattr(load_encoder(), "passage_cache", None)
    run_screening(SETS, ["Donners_2021"], 1, ["dense-svm"])
    file = get_paths(None).embeddings_file
    assert file is not None and file.is_file()
    encoder = load_encoder()
    texts = [encoder.spec.passage_prefix + t for t in load_review_set(DONNERS).texts]
    cache = open_cache(file)
    assert cache is not None
    _, found = cache.get(encoder.cache_key, texts, encoder.dim)
    assert found.all(), f"{int((~found).sum())} of {len(texts)} texts not cached"


def test_review_delete_asks_before_it_drops_a_reviews_decisions(tmp_path: Path) -> None:
    """`review delete` dropped a review and every decision in it at once, asking nothing: one
    wrong word in the shell lost the screening. Now a review with decisions goes only on y (or
    --yes); no answer (end of input) keeps it; a review without decisions goes at once."""
    _needs_donners()
    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as s:
        s.reviews.create("don", [DONNERS], labels=2)  # 2 included + 2 excluded: 4 decided
        s.reviews.create("empty", [DONNERS], labels="none")
        s.reviews.create("scripted", [DONNERS], labels=2)
        session = s.reviews.open("don")
        session.decide("exclude")
    runner = CliRunner()

    def delete(*args: str, answer: str | None) -> tuple[int, str]:
        got = runner.invoke(main, ["--home", str(home), "review", "delete", *args], input=answer)
        return got.exit_code, got.output

    def names() -> set[str]:
        with LitsiftService(get_paths(home)) as s:
            return {r.name for r in s.reviews.all()}

    for answer in ("n\n", "\n", ""):  # no, the default, and no answer at all
        code, said = delete("don", answer=answer)
        assert code == 1 and "not deleted: review don with 5 of 257 records decided" in said
        assert "litsift review delete don --yes" in said and "Traceback" not in said
        assert names() == {"don", "empty", "scripted"}
    assert delete("scripted", "--yes", answer=None) == (0, "deleted review scripted\n")
    with LitsiftService(get_paths(home)) as s:  # kept means kept: the decisions are all there
        assert s.reviews.info("don").decided == 5
    assert delete("empty", answer=None) == (0, "deleted review empty\n")  # nothing to lose
    # the copy the refusal suggests brings the decisions back (it named a decisions file that
    # `review merge` skips when the decisions have no reviewer's name: nothing came back)
    assert "litsift review export don --format ris -o don.ris" in said
    backup = tmp_path / "don.ris"
    base = ["--home", str(home), "review"]
    saved = runner.invoke(main, [*base, "export", "don", "--format", "ris", "-o", str(backup)])
    assert saved.exit_code == 0, saved.output
    code, said = delete("don", answer="y\n")
    assert code == 0 and said.rstrip().endswith("deleted review don") and names() == set()
    back = runner.invoke(main, [*base, "new", "don", "--from", str(backup)])
    assert back.exit_code == 0, back.output
    with LitsiftService(get_paths(home)) as s:
        assert s.reviews.info("don").decided == 5
    code, said = delete("gone", "--yes", answer=None)
    assert code == 1 and "no review named 'gone'" in said


def test_commands_on_a_review_that_does_not_exist_say_so(tmp_path: Path) -> None:
    """`review conflicts nope` printed "0 conflicts at tiab" and exited 0: every read of a
    review's decisions (conflicts, agreement, curve, export, ...) now names the missing review."""
    home = str(tmp_path / "home")
    runner = CliRunner()
    for args in (["conflicts", "nope"], ["conflicts", "nope", "--json"]):
        out = runner.invoke(main, ["--home", home, "review", *args])
        assert out.exit_code == 1, out.output
        assert "no review named 'nope'" in out.output and "litsift review list" in out.output


def test_export_to_dash_writes_stdout_not_a_file_named_dash(tmp_path: Path) -> None:
    """`-o -` is stdout (it wrote a file named `-` in the working directory)."""
    _needs_donners()
    home = str(tmp_path / "home")
    runner = CliRunner()
    made = runner.invoke(main, ["--home", home, "review", "new", "don", "--from", str(DONNERS)])
    assert made.exit_code == 0, made.output
    with runner.isolated_filesystem(temp_dir=tmp_path) as cwd:
        for args in (["review", "export", "don"], ["export", "kept", "--format", "ris"]):
            out = runner.invoke(main, ["--home", home, *args, "-o", "-"])
            assert not (Path(cwd) / "-").exists()
            if args[0] == "review":
                assert out.exit_code == 0, out.output
                assert out.stdout.startswith("id,decision,reason,stage")
                assert out.stdout.count("\n") == 258  # the header and 257 records


def test_an_output_path_that_cannot_be_written_is_the_user_s_not_a_bug(tmp_path: Path) -> None:
    """`-o` into a missing folder made the folder for some commands and ended `export` in
    "failed unexpectedly ... this is a bug" (exit 2); a path under a file or in /proc did so
    for every command. Now a missing folder is made, and a path that cannot be written is
    said, with a hint, exit 1."""
    _needs_donners()
    home = str(tmp_path / "home")
    runner = CliRunner()
    made = runner.invoke(main, ["--home", home, "review", "new", "don", "--from", str(DONNERS)])
    assert made.exit_code == 0, made.output
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    for cmd in (["review", "export", "don"], ["review", "prisma", "don"]):
        new = tmp_path / "new" / cmd[1] / "out.svg"
        ok = runner.invoke(main, ["--home", home, *cmd, "-o", str(new)])
        assert ok.exit_code == 0 and new.is_file(), ok.output
        bad = tmp_path / "a-file" / "out.svg"
        got = runner.invoke(main, ["--home", home, *cmd, "-o", str(bad)])
        assert got.exit_code == 1, got.output
        assert f"cannot write {bad}: {tmp_path / 'a-file'} is a file, not a folder" in got.output
        assert "give -o a path in a folder you can write to" in got.output
        assert "bug" not in got.output
    # the same for a home that cannot be made (it was "failed unexpectedly", exit 2)
    bad_home = tmp_path / "a-file" / "home"
    got = runner.invoke(main, ["--home", str(bad_home), "search", "emicizumab"])
    assert got.exit_code == 1, got.output
    assert f"cannot use {bad_home} as litsift's home" in got.output and "bug" not in got.output


def test_review_new_reads_a_named_format(tmp_path: Path) -> None:
    """The hint for an unreadable file says "name its format with --format NAME"; `review new`
    had no such option ("No such option: --format"). A real RIS export (ASReview's RIS test
    file, Embase), saved as .txt, read as --format ris; an unknown format is refused, no
    review is made."""
    ris = SETS.parents[1] / "sources" / "reference-managers" / "ris" / "asreview_embase-export.ris"
    if not ris.is_file():
        pytest.skip(f"{ris} not here")
    src = tmp_path / "embase-export.txt"
    src.write_bytes(ris.read_bytes())
    home = str(tmp_path / "home")
    runner = CliRunner()
    bad = runner.invoke(
        main, ["--home", home, "review", "new", "x", "--from", str(src), "--format", "nosuch"]
    )
    assert bad.exit_code == 1 and "unknown format 'nosuch'" in bad.output, bad.output
    made = runner.invoke(
        main,
        ["--home", home, "review", "new", "emb", "--from", str(src), "--format", "ris", "--json"],
    )
    assert made.exit_code == 0, made.output
    listed = runner.invoke(main, ["--home", home, "review", "list"])
    assert "emb:" in listed.output and "x:" not in listed.output


def test_no_export_writes_the_screening_label_as_a_title(
    svc: LitsiftService, tmp_path: Path
) -> None:
    """The untitled Donners record (line 226) was exported with ``TI  - [no title]
    doi:10.1002/cpt.v103.s1 · BACKGROUND: …`` (and as BibTeX's and CSL-JSON's title): a
    reference manager takes that for the title. Every format now leaves the title out; the
    review's RIS and CSV copies read back label the record again and keep its decision."""
    import json

    import bibtexparser
    import rispy

    from litsift.store.review_decisions import decide
    from litsift.store.reviews import current_decisions
    from litsift.types import Kind, Label

    _needs_donners()
    svc.reviews.create("d", [DONNERS], labels="none")
    (untitled,) = [p for _, p in svc.reviews.records("d") if p.title.startswith("[no title]")]
    decide(svc.store, "d", [(untitled.id, "include")])
    ris = svc.reviews.export("d", "ris", which="include")
    (entry,) = rispy.loads(ris)
    assert "title" not in entry and entry["doi"] == "10.1002/cpt.v103.s1", entry
    svc.set_label(Kind.PAPER, untitled.id, Label.KEEP)
    bib = bibtexparser.parse_string(svc.export("kept", "bibtex", Kind.PAPER))
    assert [e.fields_dict.get("title") for e in bib.entries] == [None]
    (item,) = json.loads(svc.export("kept", "csl-json", Kind.PAPER))
    assert "title" not in item and item["id"]
    assert "[no title]" not in svc.export("kept", "ris", Kind.PAPER)
    copy = tmp_path / "copy.ris"
    copy.write_text(ris, encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "other")) as fresh:
        made = fresh.reviews.create("back", [copy])
        assert made.problems == [] and made.priors == 1
        ((doc, decision, _),) = current_decisions(fresh.store, "back")
        (paper,) = [p for _, p in fresh.reviews.records("back")]
        assert (doc, decision) == (paper.id, "include")
        assert paper.title.startswith("[no title] doi:10.1002/cpt")
    # the CSV table as well: its title column held the stand-in (and no abstract, so an empty
    # title would have dropped the record on re-import); now the record's own empty title and
    # its abstract, and the copy screens it again with its decision
    table = svc.reviews.export("d", "csv", which="include")
    (row,) = csv.DictReader(io.StringIO(table))
    assert row["title"] == "" and row["abstract"] == untitled.abstract, row
    (tmp_path / "copy.csv").write_text(table, encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "from-csv")) as fresh:
        made = fresh.reviews.create("back", [tmp_path / "copy.csv"])
        assert made.problems == [] and made.priors == 1
        (paper,) = [p for _, p in fresh.reviews.records("back")]
        assert paper.title.startswith("[no title] doi:10.1002/cpt")
        assert paper.abstract == untitled.abstract


def test_a_review_new_interrupted_while_it_writes_leaves_no_half_made_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the last moments of `review new` (a tester, restoring a 3,999-record RIS
    copy) left the name taken by a review with its records and none of their decisions, or
    none of its records; the terminal said only "Aborted!". Now the review is made whole or
    not at all, and the message says which. The interrupt is raised where the notes are
    written, the last step."""
    _needs_donners()
    from litsift.store import review_notes

    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as s:
        s.reviews.create("src", [DONNERS], reasons=["wrong population"])
        rows = s.reviews.records("src")
        s.reviews.open("src").set_note("check dose", rows[0][0].doc_id)
        ris = tmp_path / "src.ris"
        ris.write_text(s.reviews.export("src", "ris"), encoding="utf-8")

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(review_notes, "set_note", interrupted)
    args = ["--home", str(home), "review", "new", "copy", "--from", str(ris)]
    got = CliRunner().invoke(main, args)
    assert got.exit_code == 130, got.output
    assert "stopped (Ctrl-C): review copy was not made" in got.output
    monkeypatch.undo()
    with LitsiftService(get_paths(home)) as s:
        assert "copy" not in {r.name for r in s.reviews.all()}
        made = s.reviews.create("copy", [ris])  # the name is free; the whole review comes
        assert made.prisma.screened == 257 and made.priors == 257
        assert {r.note for r, _ in s.reviews.records("copy")} == {"", "check dose"}
