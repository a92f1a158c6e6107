"""The import core on a real store: matching, merging, provenance, triage, dedup.

Records here are built in memory (the format readers have their own tests on the real sample
files); what is under test is what the store ends up holding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.dedup import apply, find_duplicates
from litsift.sources.identity.matcher import IdentityIndex, title_key
from litsift.sources.writer import RecordWriter
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind

SPECTER = "SPECTER: Document-level Representation Learning using Citation-informed Transformers"


def _rec(loc: str, **kw: object) -> SourceRecord:
    base: dict[str, object] = {
        "title": SPECTER,
        "authors": ["Arman Cohan", "Sergey Feldman"],
        "year": 2020,
    }
    base.update(kw)
    return SourceRecord(location=loc, **base)  # type: ignore[arg-type]


def _write(store: Store, fmt: str, file: str, items: list[SourceRecord | BadItem]) -> RecordWriter:
    w = RecordWriter(store)
    w.add_all(fmt, file, items)
    w.flush()
    return w


def test_title_key_folds_latex_case_accents_and_punctuation() -> None:
    assert title_key("{BERT}: Pre-training of \\textit{Deep} Transformers") == (
        "bert pre training of deep transformers"
    )
    assert title_key("Évaluation à grande échelle") == "evaluation a grande echelle"


def test_same_identifier_merges_and_fills_fields(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        w = _write(
            store,
            "bibtex",
            "a.bib",
            [_rec("entry cohan2020", ids={"doi": "10.18653/v1/2020.acl-main.207"})],
        )
        assert w.counts.added == 1
        w = _write(
            store,
            "crossref",
            "b.json",
            [
                _rec(
                    "item 3",
                    title=SPECTER.lower(),  # another rendering (a different title: issue 27)
                    abstract="We propose SPECTER, a new method.",
                    venue="ACL",
                    ids={"doi": "10.18653/v1/2020.acl-main.207", "s2": "a" * 40},
                )
            ],
        )
        assert (w.counts.merged, w.counts.added) == (1, 0)
        paper = store.get(Kind.PAPER, "doi:10.18653/v1/2020.acl-main.207")
        assert paper is not None
        assert paper.title == SPECTER  # the stored title is kept
        assert paper.abstract == "We propose SPECTER, a new method." and paper.venue == "ACL"
        ids = store._conn.execute(
            "SELECT scheme, value FROM record_ids WHERE doc_id = ? ORDER BY scheme", (paper.id,)
        ).fetchall()
        assert ids == [("doi", "10.18653/v1/2020.acl-main.207"), ("s2", "a" * 40)]
        prov = store._conn.execute(
            "SELECT format, file, location FROM provenance WHERE doc_id = ? ORDER BY format",
            (paper.id,),
        ).fetchall()
        assert prov == [("bibtex", "a.bib", "entry cohan2020"), ("crossref", "b.json", "item 3")]


def test_title_author_year_rule_merges_preprint_and_proceedings(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        _write(
            store, "arxiv-atom", "f.xml", [_rec("entry 1", year=2020, ids={"arxiv": "2004.07180"})]
        )
        w = _write(
            store,
            "bibtex",
            "b.bib",
            [
                _rec(
                    "entry x",
                    title="{SPECTER}: Document-Level Representation Learning Using "
                    "Citation-Informed Transformers.",
                    authors=["Cohan, Arman"],
                    year=2021,
                    abstract="longer abstract " * 5,
                ),
                # same title, another first author: another work
                _rec("entry y", authors=["Jane Doe"]),
                # same title and author but three years apart: another work
                _rec("entry z", year=2023),
            ],
        )
        assert (w.counts.merged, w.counts.added) == (1, 2)
        assert store.count(Kind.PAPER) == 3
        merged = store.get(Kind.PAPER, "arxiv:2004.07180")
        assert merged is not None and merged.abstract.startswith("longer abstract")


def test_conflicting_dois_are_never_merged(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        w = _write(
            store,
            "ris",
            "r.ris",
            [_rec("record 1", ids={"doi": "10.1/aaa"}), _rec("record 2", ids={"doi": "10.1/bbb"})],
        )
        assert w.counts.added == 2


def test_reimport_is_unchanged_then_updated(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        _write(store, "bibtex", "a.bib", [_rec("entry k")])
        rev = store._conn.execute("SELECT value FROM meta WHERE key='revision'").fetchone()[0]
        w = _write(store, "bibtex", "a.bib", [_rec("entry k")])
        assert (w.counts.unchanged, w.counts.merged, w.counts.added) == (1, 0, 0)
        assert (
            store._conn.execute("SELECT value FROM meta WHERE key='revision'").fetchone()[0] == rev
        )
        w = _write(store, "bibtex", "a.bib", [_rec("entry k", venue="ACL 2020")])
        assert w.counts.updated == 1


def test_bad_items_and_records_without_title_are_reported_good_ones_kept(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        w = _write(
            store,
            "bibtex",
            "a.bib",
            [_rec("entry a"), BadItem("line 12", "unbalanced braces"), _rec("entry b", title="  ")],
        )
        assert w.counts.added == 1 and w.counts.read == 3
        assert [str(p) for p in w.counts.bad] == [
            "a.bib:line 12: unbalanced braces",
            "a.bib:entry b: no title",
        ]


def test_tags_notes_collections_and_attachments_land_in_triage(tmp_path: Path) -> None:
    from litsift.store.triage import Triage

    with Store(tmp_path / "s.db") as store:
        _write(
            store,
            "zotero",
            "zotero.sqlite",
            [
                _rec(
                    "item ABCD",
                    tags=["to read", "embeddings"],
                    notes=["Read section 3."],
                    collections=["Thesis/Chapter 2"],
                    attachments=[Path("/x/specter.pdf")],
                )
            ],
        )
        _write(store, "bibtex", "b.bib", [_rec("entry c", tags=["Embeddings", "citations"])])
        (doc_id,) = [r[0] for r in store._conn.execute("SELECT id FROM papers")]
        triage = Triage(store)
        note = triage.note(Kind.PAPER, doc_id)
        assert note is not None
        assert note.text == "Read section 3."
        assert note.tags == ("to read", "embeddings", "citations")  # case-insensitive union
        assert triage.collection_items("Thesis/Chapter 2") == [(Kind.PAPER, doc_id)]
        assert store._conn.execute("SELECT path FROM attachments").fetchall() == [
            ("/x/specter.pdf",)
        ]


def test_jsonl_papers_match_imported_ones_through_their_url(tmp_path: Path) -> None:
    rows = [
        {
            "id": "acl2020:2020.acl-main.207",
            "title": SPECTER,
            "authors": ["Arman Cohan"],
            "year": 2020,
            "url": "https://aclanthology.org/2020.acl-main.207/",
        }
    ]
    src = tmp_path / "p.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        ingest_jsonl(store, Kind.PAPER, src)
        w = _write(
            store,
            "bibtex",
            "a.bib",
            [
                _rec(
                    "entry a",
                    title="{SPECTER}: Document-level Representation Learning",
                    authors=["X Y"],
                    ids={"acl": "2020.acl-main.207"},
                )
            ],
        )
        assert w.counts.merged == 1 and store.count(Kind.PAPER) == 1


def test_dedup_finds_merges_and_moves_labels(tmp_path: Path, paper_slice_rows: list[dict]) -> None:
    from litsift.store.triage import Triage

    rows = [dict(r) for r in paper_slice_rows[:300]]
    dup = dict(rows[5], id="copy-of-5", title=rows[5]["title"].upper() + ".", url="")
    rows.append(dup)
    src = tmp_path / "p.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        ingest_jsonl(store, Kind.PAPER, src)
        triage = Triage(store)
        triage.set_label(Kind.PAPER, "copy-of-5", "keep")
        triage.set_note(Kind.PAPER, "copy-of-5", "dup note", ["t1"])
        plan = find_duplicates(store)
        pairs = {(g.keep, m[0]) for g in plan.groups for m in g.merge}
        assert (rows[5]["id"], "copy-of-5") in pairs
        assert apply(store, plan) == plan.duplicates
        assert store.get(Kind.PAPER, "copy-of-5") is None
        assert triage.label(Kind.PAPER, rows[5]["id"]) == "keep"
        note = triage.note(Kind.PAPER, rows[5]["id"])
        assert note is not None and note.text == "dup note" and note.tags == ("t1",)
        assert find_duplicates(store).duplicates == 0


def test_cli_ingest_json_report_and_dedup_dry_run(tmp_path: Path) -> None:
    src = tmp_path / "p.jsonl"
    src.write_text(
        json.dumps({"id": "a", "title": SPECTER, "authors": ["Arman Cohan"], "year": 2020})
        + "\n"
        + json.dumps({"id": "b", "title": SPECTER.lower(), "authors": ["A. Cohan"], "year": 2021})
        + "\n"
        + "{broken\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(src), "--json"])
    assert out.exit_code == 1, out.output
    report = json.loads(out.output)
    assert (report["read"], report["added"], len(report["bad"])) == (3, 2, 1)
    assert report["bad"][0].startswith(f"{src}:3: invalid JSON")
    out = CliRunner().invoke(main, ["--home", str(home), "dedup", "--dry-run", "--json"])
    assert out.exit_code == 0, out.output
    plan = json.loads(out.output)
    assert plan["duplicates"] == 1 and plan["groups"][0]["keep"]["id"] == "a"
    assert plan["applied"] is False
    out = CliRunner().invoke(main, ["--home", str(home), "dedup"])
    assert "merged 1 duplicates" in out.output


def test_identity_index_without_first_author_uses_whole_title_pool() -> None:
    ix = IdentityIndex()
    ix.add("a", "Attention Is All You Need for Neural Machine Translation", [], 2017, {})
    hit = ix.match("Attention is all you need for neural machine translations", [], 2017, {})
    assert hit is not None and hit.doc_id == "a" and hit.reason == "title"
    assert ix.match("Attention", [], 2017, {}) is None


@pytest.mark.parametrize("missing", ["nope.bib", "dir/nope"])
def test_cli_ingest_missing_path_is_a_clear_error(tmp_path: Path, missing: str) -> None:
    out = CliRunner().invoke(
        main, ["--home", str(tmp_path / "h"), "ingest", "papers", str(tmp_path / missing)]
    )
    assert out.exit_code == 1
    assert "no such file or directory" in out.output and "Traceback" not in out.output


def test_cli_ingest_an_empty_folder_is_bad_not_a_quiet_success(tmp_path: Path) -> None:
    """A folder with nothing in it (the wrong one, an export not yet unpacked) printed
    "0 files: 0 read, ..., 0 bad" and exited 0."""
    folder = tmp_path / "exports"
    (folder / ".hidden").mkdir(parents=True)
    home = ["--home", str(tmp_path / "h")]
    for fmt in ([], ["--format", "bibtex"]):
        out = CliRunner().invoke(main, [*home, "ingest", "papers", str(folder), *fmt])
        assert out.exit_code == 1, out.output
        assert f"{folder}: an empty folder; hint: name the folder your exports" in out.output


def test_cli_ingest_dash_says_standard_input_is_not_read(tmp_path: Path) -> None:
    out = CliRunner().invoke(main, ["--home", str(tmp_path / "h"), "ingest", "papers", "-"])
    assert out.exit_code == 1
    assert out.output.splitlines() == [
        "error: -: litsift does not read records from standard input",
        "  hint: save them to a file and name it: litsift ingest papers FILE",
    ]
