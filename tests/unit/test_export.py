"""Citation export on real records: persisted citekeys, BibTeX round trip, RIS, CSL-JSON, Markdown.

Records come from ``../shared/data`` (a slice of the paper sample chosen to include the hard
cases: ``&``/``$``/``#`` in titles, name particles and suffixes, rejected and Findings papers)
and are ingested into a real SQLite store in ``tmp_path``.
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from pylatexenc.latex2text import LatexNodes2Text

from litsift.export import (
    EXPORT_FORMATS,
    ExportError,
    assign_citekeys,
    citekey_base,
    citekey_for,
    export_command_impl,
    export_records,
    to_bibtex,
    to_csl_json,
    to_markdown,
    to_ris,
)
from litsift.export.citekeys import SKIP_WORDS, title_word
from litsift.export.names import ascii_fold, split_authors, split_name
from litsift.export.venues import venue_of
from litsift.paths import shared_data_dir
from litsift.store import Store, ingest_records
from litsift.store.triage import Triage, TriageError
from litsift.types import Kind, Label, Paper, Record

SHARED_DATA = shared_data_dir()
PAPERS_GZ = SHARED_DATA / "papers" / "ml-nlp-papers.jsonl.gz"
DATASETS_GZ = SHARED_DATA / "datasets" / "pwc-datasets.jsonl.gz"
KEY_RE = re.compile(r"^[a-z0-9]+$")
_HARD = re.compile(r"[&$#%_^{}\\]|\b(van|von|de|Jr\.)\b")


def _read(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as fh:
        return [json.loads(line) for line in fh.read().split("\n") if line.strip()]


@pytest.fixture(scope="session")
def paper_rows() -> list[dict[str, Any]]:
    """Every 100th paper plus up to 60 with hard titles/names and 10 rejected, 10 Findings."""
    rows = _read(PAPERS_GZ)
    picked = {r["id"]: r for r in rows[::100]}
    hard = [r for r in rows if _HARD.search(r["title"] + " " + " ".join(r["authors"]))]
    picked.update((r["id"], r) for r in hard[:60])
    for status in ("Reject", "Findings"):
        picked.update((r["id"], r) for r in [r for r in rows if r["status"] == status][:10])
    lumped = [r for r in rows if any("," in a for a in r["authors"])]
    picked.update((r["id"], r) for r in lumped[:5])
    return list(picked.values())


@pytest.fixture(scope="session")
def dataset_rows() -> list[dict[str, Any]]:
    return _read(DATASETS_GZ)[:40]


@pytest.fixture()
def store(tmp_path: Path, paper_rows: list, dataset_rows: list) -> Store:
    s = Store(tmp_path / "litsift.sqlite")
    assert ingest_records(s, Kind.PAPER, paper_rows).ok
    ingest_records(s, Kind.DATASET, dataset_rows)
    yield s  # type: ignore[misc]
    s.close()


def papers(store: Store, rows: list[dict[str, Any]]) -> list[Record]:
    out = [store.get(Kind.PAPER, r["id"]) for r in rows]
    return [r for r in out if r is not None]


def test_split_name_particles_suffixes_and_lumped_lists() -> None:
    goot = split_name("Rob van der Goot")
    assert (goot.given, goot.particle, goot.family) == ("Rob", "van der", "Goot")
    assert goot.inverted == "van der Goot, Rob"
    jr = split_name("Antonio Laverghetta Jr.")
    assert (jr.given, jr.family, jr.suffix) == ("Antonio", "Laverghetta", "Jr.")
    assert split_name("van der Goot, Rob") == split_name("van der Goot, Rob")
    assert split_name("van der Goot, Rob").family == "Goot"
    assert split_name("Ritesh").csl() == {"family": "Ritesh"}
    people = split_authors(["Martín Abadi, David G. Andersen", "Yu-Xiong Wang"])
    assert [p.family for p in people] == ["Abadi", "Andersen", "Wang"]
    assert ascii_fold("Søgaard Łukasz") == "Sogaard Lukasz"


@pytest.mark.parametrize(
    ("written", "family", "given"),
    [
        ("Iyer V", "Iyer", "V"),  # MEDLINE / Vancouver: initials after the family name
        ("Smith JW", "Smith", "JW"),
        ("Unnikrishnan M.A.", "Unnikrishnan", "M.A."),
        ("van der Berg JH", "Berg", "JH"),
        ("Iyer, V.", "Iyer", "V."),
        ("J. Smith", "Smith", "J."),
        ("John Smith", "Smith", "John"),
    ],
)
def test_initials_after_the_family_name_stay_given_names(
    written: str, family: str, given: str
) -> None:
    """A review of MEDLINE records exported as RIS once wrote ``AU  - V, Iyer``."""
    person = split_name(written)
    assert (person.family, person.given) == (family, given)


def test_citekeys_are_better_bibtex_style_and_persisted(store: Store, paper_rows: list) -> None:
    recs = papers(store, paper_rows)
    keys = assign_citekeys(store, recs)
    assert len(keys) == len(recs) and len(set(keys.values())) == len(recs)
    for rec in recs:
        key = keys[(Kind.PAPER, rec.id)]
        assert KEY_RE.match(key), key
        assert key.startswith(citekey_base(rec))
        assert isinstance(rec, Paper)
        people = split_authors(rec.authors)
        if people:
            fam = re.sub(r"[^a-z0-9]", "", ascii_fold(people[0].family).lower())
            assert key.startswith(fam)
        assert str(rec.year) in key
        assert citekey_for(store, Kind.PAPER, rec.id) == key
    # the title part skips Better BibTeX's skip words ("A", "On", "The", ...)
    for rec in recs:
        words = rec.title.split() if isinstance(rec, Paper) else []
        if len(words) > 1 and words[0].lower() in SKIP_WORDS:
            assert title_word(rec.title) != words[0].lower()
    assert title_word("A Bidirectional Transformer") == "bidirectional"


def test_clashing_keys_get_a_b_suffixes_and_never_change(store: Store, paper_rows: list) -> None:
    original = papers(store, paper_rows)
    keys = assign_citekeys(store, original)
    src = paper_rows[1]
    # the same paper under two more ids; "0000-..." sorts before the original id
    clones = [{**src, "id": "0000-clone"}, {**src, "id": "zzzz-clone"}]
    ingest_records(store, Kind.PAPER, clones)
    more = [store.get(Kind.PAPER, c["id"]) for c in clones]
    keys2 = assign_citekeys(store, [*original, *[m for m in more if m]])
    base = keys[(Kind.PAPER, src["id"])]
    assert keys2[(Kind.PAPER, "0000-clone")] == base + "a"
    assert keys2[(Kind.PAPER, "zzzz-clone")] == base + "b"
    assert all(keys2[k] == v for k, v in keys.items())  # earlier keys unchanged
    # a changed title on re-ingest keeps the key
    ingest_records(store, Kind.PAPER, [{**src, "title": "Completely Different Title"}])
    again = store.get(Kind.PAPER, src["id"])
    assert again is not None and again.title == "Completely Different Title"
    assert assign_citekeys(store, [again])[(Kind.PAPER, src["id"])] == base


def test_new_keys_do_not_depend_on_input_order(
    tmp_path: Path, store: Store, paper_rows: list
) -> None:
    recs = papers(store, paper_rows)
    forward = assign_citekeys(store, recs)
    with Store(tmp_path / "other.sqlite") as other:
        ingest_records(other, Kind.PAPER, paper_rows)
        backward = assign_citekeys(other, list(reversed(papers(other, paper_rows))))
    assert forward == backward


def _decode(text: str) -> str:
    # LaTeX prints \textbraceleft / \textbraceright as braces; pylatexenc would drop them
    text = text.replace(r"\textbraceleft", r"\{").replace(r"\textbraceright", r"\}")
    return _typo(LatexNodes2Text(math_mode="verbatim").latex_to_text(text))


def _typo(text: str) -> str:
    """Text up to TeX typography: LaTeX has one glyph for ``"``/``''``, ``ﬁ``/``fi``..."""
    text = unicodedata.normalize("NFKC", text)
    for a, b in (("ˆ", "^"), ("\u2212", "-"), ('"', "''"), ("\u02dc", "~")):
        text = text.replace(a, b)
    return " ".join(text.split())


def test_bibtex_round_trip(store: Store, paper_rows: list, dataset_rows: list) -> None:
    recs = papers(store, paper_rows)
    datasets = [store.get(Kind.DATASET, r["id"]) for r in dataset_rows[:5]]
    all_recs = [*recs, *[d for d in datasets if d]]
    keys = assign_citekeys(store, all_recs)
    text = to_bibtex(store, all_recs)
    lib = bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors(), SplitNameParts()])
    assert not lib.failed_blocks
    by_key = {e.key: e for e in lib.entries}
    assert set(by_key) == set(keys.values())
    assert [e.key for e in lib.entries] == sorted(by_key)  # sorted by key
    for rec in recs:
        assert isinstance(rec, Paper)
        entry = by_key[keys[(Kind.PAPER, rec.id)]]
        assert _decode(entry["title"]) == _typo(rec.title)
        assert entry["year"] == str(rec.year)
        families = [_decode(" ".join(p.von + p.last)) for p in entry["author"]]
        assert families == [_typo(p.family_with_particle) for p in split_authors(rec.authors)]
        assert entry.entry_type == venue_of(rec).bibtex_type
        if rec.abstract.strip():
            assert _decode(entry["abstract"]) == _typo(rec.abstract)
    kinds = {e.entry_type for e in lib.entries}
    assert {"inproceedings", "misc"} <= kinds


def test_venue_classification_on_real_rows(store: Store, paper_rows: list) -> None:
    recs = [r for r in papers(store, paper_rows) if isinstance(r, Paper)]
    rejected = [r for r in recs if r.status == "Reject"]
    findings = [r for r in recs if r.status == "Findings"]
    assert rejected and findings
    for r in rejected:
        v = venue_of(r)
        assert v.bibtex_type == "misc" and v.note.startswith(f"Submitted to {r.venue}")
        assert v.ris_type == "UNPB" and v.csl_type == "manuscript"
    for r in findings:
        assert venue_of(r).container.startswith("Findings of the Association")
    poster = next(r for r in recs if r.status == "Poster")
    assert venue_of(poster).bibtex_type == "inproceedings"


def test_ris_has_ty_and_er_per_record_and_parses(store: Store, paper_rows: list) -> None:
    recs = papers(store, paper_rows)
    keys = assign_citekeys(store, recs)
    text = to_ris(store, recs)
    lines = text.splitlines()
    assert sum(line.startswith("TY  - ") for line in lines) == len(recs)
    assert sum(line.startswith("ER  - ") for line in lines) == len(recs)
    parsed = rispy.loads(text)
    assert sorted(p["id"] for p in parsed) == sorted(keys.values())
    by_id = {p["id"]: p for p in parsed}
    for rec in recs:
        assert isinstance(rec, Paper)
        ref = by_id[keys[(Kind.PAPER, rec.id)]]
        assert ref["title"] == " ".join(rec.title.split())
        assert ref["year"] == str(rec.year)
        assert len(ref.get("authors", [])) == len(split_authors(rec.authors))


def test_csl_json_shape(store: Store, paper_rows: list, dataset_rows: list) -> None:
    recs = papers(store, paper_rows)
    ds = [d for d in (store.get(Kind.DATASET, r["id"]) for r in dataset_rows[:5]) if d]
    keys = assign_citekeys(store, [*recs, *ds])
    items = json.loads(to_csl_json(store, [*recs, *ds]))
    assert isinstance(items, list) and len(items) == len(recs) + len(ds)
    assert sorted(i["id"] for i in items) == sorted(keys.values())
    by_id = {i["id"]: i for i in items}
    for rec in recs:
        item = by_id[keys[(Kind.PAPER, rec.id)]]
        assert {"id", "type", "title", "author", "issued"} <= set(item)
        assert item["issued"] == {"date-parts": [[rec.year]]}
        assert all("family" in a or "literal" in a for a in item["author"])
        assert item["type"] in {"paper-conference", "article-journal", "manuscript", "article"}
    for d in ds:
        item = by_id[keys[(Kind.DATASET, d.id)]]
        assert item["type"] == "dataset" and item["title"] == d.id


def test_markdown_has_one_cite_line_per_record(store: Store, paper_rows: list) -> None:
    recs = papers(store, paper_rows)
    keys = assign_citekeys(store, recs)
    lines = to_markdown(store, recs).splitlines()
    assert len(lines) == len(recs)
    for rec in recs:
        key = keys[(Kind.PAPER, rec.id)]
        line = next(line for line in lines if line.startswith(f"- [@{key}] "))
        assert f"({rec.year})" in line


def test_export_command_kept_and_collections(store: Store, paper_rows: list) -> None:
    recs = papers(store, paper_rows)
    t = Triage(store)
    with pytest.raises(ExportError, match="no papers labelled"):
        export_command_impl(store, "kept", "bibtex", Kind.PAPER)
    for rec in recs[:4]:
        t.set_label(Kind.PAPER, rec.id, Label.KEEP)
    t.set_label(Kind.PAPER, recs[4].id, Label.MAYBE)
    keys = assign_citekeys(store, recs[:5])
    out = export_command_impl(store, "kept", "markdown", Kind.PAPER)
    cited = set(re.findall(r"\[@([a-z0-9]+)\]", out))
    assert cited == {keys[(Kind.PAPER, r.id)] for r in recs[:4]}
    t.add_to_collection("kept", Kind.PAPER, recs[4].id)  # a collection named like a selector
    out = export_command_impl(store, "collection:kept", "csl-json")
    assert [i["id"] for i in json.loads(out)] == [keys[(Kind.PAPER, recs[4].id)]]
    with pytest.raises(TriageError, match="no collection"):
        export_command_impl(store, "nope", "ris")
    with pytest.raises(ExportError, match="unknown export format"):
        export_command_impl(store, "kept", "docx")
    for fmt in EXPORT_FORMATS:
        assert export_records(store, recs[:2], fmt).strip()
    assert export_records(store, [], "bibtex") == ""


def test_read_only_store_exports_only_assigned_keys(
    tmp_path: Path, store: Store, paper_rows: list
) -> None:
    recs = papers(store, paper_rows)
    assign_citekeys(store, recs[:3])
    path = store.path
    store.close()
    with Store(path, readonly=True) as ro:
        again = papers(ro, paper_rows)
        assert to_markdown(ro, again[:3]).count("[@") == 3
        with pytest.raises(ExportError, match="read-only"):
            to_bibtex(ro, again[:4])
