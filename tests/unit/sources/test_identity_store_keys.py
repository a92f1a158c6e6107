"""Identity matching per imported record does not grow with the store (issue 32).

An import used to load every stored paper's title, authors, year, url and identifiers into
memory before its first record (``IdentityIndex.from_store``: 76 s CPU and 1.6 GB to
import 10K records into a 1M store). The keys a match needs now live in indexed tables
(``paper_keys``, ``paper_url_ids``; :mod:`litsift.store.identities`), derived once from the
papers' revisions, and each batch looks up only the papers that share an identifier, the title
key or a first-author + year block with its records (:class:`StoreIdentityIndex`).
For the fuzzy title rule, only the papers in a record's year window and title-length window
that share one of its rarest title words within its first author's family
(``paper_family_tokens``) are read, or, for a record without authors, the papers sharing one of
its title blocks (three of its words in a fixed order; ``paper_title_blocks``): a record
without authors is not compared with every title, nor one of a common first author with the
whole first-author + year block, and neither reads the postings of a common word, which grow
with the store.
"""

from __future__ import annotations

import gzip
import json
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from litsift.sources.identity.matcher import IdentityIndex, title_key, titles_agree
from litsift.sources.identity.stored_keys import StoreIdentityIndex
from litsift.sources.importer import import_paths
from litsift.store import Store, ingest_jsonl
from litsift.store.report import IngestReport
from litsift.types import Kind
from tests.conftest import PAPERS_GZ

IMPORTS = Path(__file__).resolve().parents[2] / "data" / "imports"
WARM_UP = IMPORTS / "pdf" / "colrev_30-example-records.bib"
MEASURED = IMPORTS / "csv-openalex" / "bibliometrix_scopus-2026-export_sample.csv"


@pytest.fixture(scope="module")
def sample_rows() -> list[dict]:
    """The first 3,100 distinct sample papers (real records)."""
    seen: set[str] = set()
    rows = []
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        for line in f:
            row = json.loads(line)
            if row["id"] not in seen:
                seen.add(row["id"])
                rows.append(row)
            if len(rows) == 3_100:
                break
    return rows


def _store(path: Path, rows: list[dict]) -> Store:
    jsonl = path.with_suffix(".jsonl")
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    store = Store(path)
    ingest_jsonl(store, Kind.PAPER, jsonl)
    return store


def _steps_of_import(store: Store, path: Path) -> int:
    return _import_counting_steps(store, path)[0]


def _import_counting_steps(store: Store, path: Path) -> tuple[int, IngestReport]:
    """SQLite virtual-machine steps (in hundreds) the import of ``path`` runs: a real count
    of the work the store does, which grows with every row a query reads."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0

    store._conn.set_progress_handler(tick, 100)
    try:
        report = import_paths(store, [path], Kind.PAPER)
    finally:
        store._conn.set_progress_handler(None, 0)
    assert report.read > 0 and not report.bad
    return steps[0], report


def _steps_into_300_and_3000(
    tmp_path: Path, papers: list[dict], path: Path, probes: list[dict]
) -> list[int]:
    """SQLite steps (hundreds) of importing ``path`` into stores of the first 300 and 3,000
    ``papers`` (keys current before the import); every probe must merge with its paper."""
    steps = []
    for n in (300, 3_000):
        with _store(tmp_path / f"s{n}.sqlite", papers[:n]) as store:
            import_paths(store, [WARM_UP], Kind.PAPER)  # derives the store's keys once
            with store.transaction():  # and those of what it wrote: keys all current
                StoreIdentityIndex(store, Kind.PAPER).sync()
            done, report = _import_counting_steps(store, path)
            steps.append(done)
            assert {doc for _, doc, _ in report.merges} == {p["id"] for p in probes}
            assert report.merged == len(probes) and report.added == 0
    return steps


def _revise(store: Store, index: StoreIdentityIndex, tmp_path: Path, changed: list[dict]) -> int:
    """Ingest ``changed`` rows (revisions of stored papers) as JSONL, then derive the keys of
    what changed: how many papers :meth:`StoreIdentityIndex.sync` derived."""
    update = tmp_path / "update.jsonl"
    update.write_text("".join(json.dumps(r) + "\n" for r in changed), encoding="utf-8")
    ingest_jsonl(store, Kind.PAPER, update)
    with store.transaction():
        return index.sync()


def test_importing_costs_the_same_store_work_in_a_store_ten_times_larger(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """The same real Scopus export imported into a 300- and a 3,000-paper store (after one
    import that derived the stores' keys) runs about the same number of SQLite steps; loading
    the whole store (before) ran ~10x as many in the larger one."""
    steps = []
    for n in (300, 3_000):
        with _store(tmp_path / f"s{n}.sqlite", sample_rows[:n]) as store:
            import_paths(store, [WARM_UP], Kind.PAPER)  # derives the store's keys once
            steps.append(_steps_of_import(store, MEASURED))
    small, large = steps
    assert large < 1.2 * small + 10, steps  # before: [48, 237]; then [45, 46]; now [169, 176]


def test_store_index_resolves_as_the_whole_store_index(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """On 2,500 stored real papers, 500 incoming records -- stored papers with a typo or a
    year off by one, some without authors, and unseen papers -- resolve to the same paper
    whether the index holds the whole store or only what :meth:`StoreIdentityIndex.prefetch`
    looked up."""
    stored, unseen = sample_rows[:2_500], sample_rows[2_500:2_750]
    incoming = []
    for i, row in enumerate(stored[::10] + unseen):
        title = row["title"]
        if i % 3 == 1 and len(title) > 40:  # a near-identical title
            title = title[:20] + title[21:]
        year = row.get("year")
        if i % 3 == 2 and year:
            year += 1
        authors = [] if i % 7 == 3 else row.get("authors") or []  # compared with every title
        incoming.append((title, authors, year, {}, ()))
    with _store(tmp_path / "s.sqlite", stored) as store:
        whole = IdentityIndex.from_store(store, Kind.PAPER)
        blocked = StoreIdentityIndex(store, Kind.PAPER)
        with store.transaction():
            assert blocked.sync() == len({r["id"] for r in stored})
        answers = []
        for batch in (incoming[::2], incoming[1::2]):  # the second reuses blocks of the first
            blocked.prefetch(batch)
            answers += [(whole.match(*rec), blocked.match(*rec)) for rec in batch]
        assert len(blocked.entries) < len(whole.entries) / 2  # it did not load everything
    matched = [a for a, _ in answers if a is not None]
    assert len(matched) >= 200  # the stored ones are found (by the whole index)
    assert [a for a, _ in answers] == [b for _, b in answers]


def test_keys_follow_papers_changed_after_they_were_derived(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """A paper retitled by a JSONL ingest after the keys were derived is matched by its new
    title in the next import (its revision marks its keys out of date)."""
    rows = sample_rows[:200]
    with _store(tmp_path / "s.sqlite", rows) as store:
        import_paths(store, [WARM_UP], Kind.PAPER)
        index = StoreIdentityIndex(store, Kind.PAPER)
        with store.transaction():
            index.sync()  # the import's last batch: the keys are current
        changed = dict(rows[0], title="Retitled: a study of identity keys in stored records")
        assert _revise(store, index, tmp_path, [changed]) == 1
        record = (changed["title"], changed["authors"], changed["year"], {}, ())
        index.prefetch([record])
        match = index.match(*record)
    assert match is not None and match.doc_id == rows[0]["id"]


def test_the_key_tables_fill_on_the_first_import(tmp_path: Path, sample_rows: list[dict]) -> None:
    """Papers ingested as JSONL have no keys yet; the first import derives the keys of every
    stored paper before its first batch (what it writes itself is derived at the next one)."""
    with _store(tmp_path / "s.sqlite", sample_rows[:100]) as store:
        keys = store._conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
        report = import_paths(store, [WARM_UP], Kind.PAPER)
        filled = store._conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
    assert keys == 0 and report.added > 0
    assert filled == 100
    with sqlite3.connect(tmp_path / "s.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM paper_url_ids").fetchone()[0] > 0


def test_an_interrupted_key_fill_keeps_its_committed_chunks_and_resumes(
    tmp_path: Path, sample_rows: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keys of a store are derived in committed chunks: a fill stopped in its third chunk
    (the disk filled up while storing it) keeps the first two, the import stops with the
    machine's fault, and the next import derives the rest and imports its records."""
    from litsift.errors import MachineFaultError, NoSpaceError
    from litsift.sources import writer
    from litsift.sources.identity import stored_keys as identity_store
    from litsift.store import identities

    monkeypatch.setattr(writer, "SYNC_CHUNK", 100)
    monkeypatch.setattr(identity_store, "SYNC_CHUNK", 100)
    real_put = identities.put_keys
    calls = [0]

    def put_keys_failing_third(*args: object) -> None:
        calls[0] += 1
        if calls[0] == 3:
            raise NoSpaceError("no space left on the device", "free some space")
        real_put(*args)  # type: ignore[arg-type]

    with _store(tmp_path / "s.sqlite", sample_rows[:250]) as store:
        monkeypatch.setattr(identities, "put_keys", put_keys_failing_third)
        with pytest.raises(MachineFaultError):
            import_paths(store, [WARM_UP], Kind.PAPER)
        kept = store._conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
        monkeypatch.setattr(identities, "put_keys", real_put)
        report = import_paths(store, [WARM_UP], Kind.PAPER)
        filled = store._conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
    assert kept == 200
    assert filled == 250 and report.added > 0


# ------------------------------------------------- title blocking tokens (issue 32, ident2)


def _typo(title: str) -> str:
    """The title with one letter dropped from its longest word (a near-identical title)."""
    words = title.split()
    i = max(range(len(words)), key=lambda j: len(words[j]))
    words[i] = words[i][:-2] + words[i][-1]
    return " ".join(words)


def _csl_file(path: Path, records: list[tuple[str, list[str], int | None]]) -> Path:
    """A CSL-JSON export of ``(title, authors "Given Family", year)`` records."""
    items = []
    for i, (title, authors, year) in enumerate(records):
        item: dict = {"id": f"item{i}", "type": "paper-conference", "title": title}
        item["author"] = [
            {"family": a.rpartition(" ")[2], "given": a.rpartition(" ")[0]} for a in authors
        ]
        if year:
            item["issued"] = {"date-parts": [[year]]}
        items.append(item)
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def _fuzzy_ok(row: dict) -> bool:
    return len(row["title"].split()) >= 6 and len(max(row["title"].split(), key=len)) >= 6


def test_records_without_a_first_author_cost_the_same_store_work_in_a_larger_store(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """Records without authors -- stored papers' titles with a typo, and unseen papers --
    imported into a 300- and a 3,000-paper store run about the same number of SQLite steps
    and find the stored ones: they are compared with the stored papers sharing one of their
    rarest title words (before: every title key was read, [32, 132] hundred steps), and now
    with the stored papers sharing one of its title blocks (three of its words in a fixed
    order), which a larger store does not lengthen (rarest words: [310, 392])."""
    stored = [r for r in sample_rows[:300] if _fuzzy_ok(r)][:10]
    unseen = [r for r in sample_rows[3_000:] if _fuzzy_ok(r)][:10]
    records = [(_typo(r["title"]), [], r.get("year")) for r in stored]
    records += [(r["title"], [], r.get("year")) for r in unseen]
    path = _csl_file(tmp_path / "no-authors.json", records)
    steps, counts = [], []
    for n in (300, 3_000):
        with _store(tmp_path / f"s{n}.sqlite", sample_rows[:n]) as store:
            import_paths(store, [WARM_UP], Kind.PAPER)  # derives the store's keys once
            done, report = _import_counting_steps(store, path)
            steps.append(done)
            counts.append((report.merged, report.added))
            assert {doc for _, doc, _ in report.merges} == {r["id"] for r in stored}
    small, large = steps
    assert large < 1.15 * small, steps  # before ident4: [310, 392]; now [285, 290]
    assert counts == [(10, 10), (10, 10)]


def test_a_dense_first_author_block_costs_the_same_store_work_when_ten_times_denser(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """A common surname in one year (Wang, 2021) as the worst case: real sample papers, each
    given the first author Wei Wang and the year 2021, fill a 300- and a 3,000-paper store;
    30 of them with a typo in the title, imported, run about the same SQLite steps in both and
    each merges with its stored version. Only the block's papers sharing one of a record's
    rarest title words are read, not the whole first-author + year block (before: every paper
    of the block in the title-length window, [72, 264] hundred steps)."""
    wang = [
        dict(r, authors=["Wei Wang", *(r.get("authors") or [])[1:]], year=2021) for r in sample_rows
    ]
    probes = [r for r in wang[:300] if _fuzzy_ok(r)][:30]
    path = _csl_file(
        tmp_path / "wang.json", [(_typo(r["title"]), r["authors"], r["year"]) for r in probes]
    )
    steps = []
    for n in (300, 3_000):
        with _store(tmp_path / f"s{n}.sqlite", wang[:n]) as store:
            import_paths(store, [WARM_UP], Kind.PAPER)
            done, report = _import_counting_steps(store, path)
            steps.append(done)
            assert {doc for _, doc, _ in report.merges} == {r["id"] for r in probes}
            assert report.merged == len(probes) and report.added == 0
    small, large = steps
    assert large < 2 * small, steps


def _recombined(rows: list[dict], n: int) -> list[dict]:
    """``n`` papers recombined from ``rows`` as ``benchmarks/scale.py`` builds its large
    stores: the first half of one real title and the second half of another, the authors of
    a third real paper and the year of a fourth; a fixed vocabulary, so every title word's
    postings grow with ``n``."""
    rng = random.Random(32)
    out = []
    for i in range(n):
        a, b, c, d = (rng.choice(rows) for _ in range(4))
        ta, tb = a["title"].split(), b["title"].split()
        title = " ".join(ta[: max(1, len(ta) // 2)] + tb[len(tb) // 2 :])
        out.append(
            {"id": f"synth:{i:05d}", "title": title, "abstract": "", "authors": c["authors"]}
            | {"year": d.get("year")}
        )
    return out


def test_common_title_words_cost_the_same_store_work_in_a_store_ten_times_larger(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """Stores of 300 and 3,000 papers whose titles recombine the words of 300 real titles (a
    fixed vocabulary: a record's rarest words are 10x as common in the larger store, as at
    300K papers); 30 stored papers, their titles with a typo and their real first authors,
    imported, run about the same SQLite steps in both and each merges with its stored version.
    A record with a first author reads only that author's postings of its rarest words, not
    every paper holding them in its year window (before: [178, 281] hundred steps; now
    [177, 180])."""
    words = [r for r in sample_rows[:300] if r.get("authors") and r.get("year")]
    people = [r for r in sample_rows if r.get("authors")]
    papers = _recombined(words, 3_000)
    for paper, person in zip(papers, people[::-1], strict=False):
        paper["authors"] = person["authors"]  # real author lists, not one per 10 papers
    titles = Counter(title_key(p["title"]) for p in papers)
    probes = [  # a typo that the rule allows (not in a short word: "text" -> "tet")
        p
        for p in papers[:300]
        if _fuzzy_ok(p)
        and titles[title_key(p["title"])] == 1
        and titles_agree(title_key(p["title"]), title_key(_typo(p["title"])))
    ][:30]
    path = _csl_file(
        tmp_path / "common.json", [(_typo(p["title"]), p["authors"], p["year"]) for p in probes]
    )
    small, large = _steps_into_300_and_3000(tmp_path, papers, path, probes)
    assert large < 1.3 * small, (small, large)


def test_title_token_counts_follow_a_retitled_paper(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """Each title word's count is the number of keyed papers whose title holds it, and a
    retitled paper moves from its old words to its new ones (the counts pick a record's
    rarest words; the word postings of every family they came with were dropped for title
    blocks, ident4)."""
    from litsift.sources.identity.matcher import title_tokens

    rows = sample_rows[:200]
    with _store(tmp_path / "s.sqlite", rows) as store:
        index = StoreIdentityIndex(store, Kind.PAPER)
        with store.transaction():
            index.sync()
        changed = dict(rows[0], title="Retitled: a study of identity keys in stored records")
        _revise(store, index, tmp_path, [changed])
        counts = dict(store._conn.execute("SELECT token, papers FROM title_token_counts"))
    titles = {r["id"]: r["title"] for r in rows} | {changed["id"]: changed["title"]}
    held = Counter(t for title in titles.values() for t in title_tokens(title_key(title)))
    assert {t: n for t, n in counts.items() if n} == dict(held)
    assert held["retitled"] == 1


def test_first_author_postings_follow_a_retitled_paper_and_a_new_first_author(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """Each title word of every keyed paper with a first author is posted under that author's
    family; a retitled paper and a paper whose first author changed move to their new postings,
    and a paper that lost its authors leaves them (a record without a first author reads title
    blocks instead)."""
    from litsift.sources.identity.matcher import title_tokens
    from litsift.sources.identity.person_keys import first_family

    rows = [r for r in sample_rows[:200] if r.get("authors")]
    with _store(tmp_path / "s.sqlite", rows) as store:
        index = StoreIdentityIndex(store, Kind.PAPER)
        with store.transaction():
            index.sync()
        changed = [
            dict(rows[0], title="Retitled: a study of identity keys in stored records"),
            dict(rows[1], authors=["Ada Lovelace", *rows[1]["authors"]]),
            dict(rows[2], authors=[]),
        ]
        assert _revise(store, index, tmp_path, changed) == 3
        postings = store._conn.execute(
            "SELECT family, token, doc_id FROM paper_family_tokens"
        ).fetchall()
    papers = {r["id"]: r for r in rows} | {r["id"]: r for r in changed}
    expected = {
        (family, token, doc_id)
        for doc_id, r in papers.items()
        if (family := first_family(r["authors"]))
        for token in title_tokens(title_key(r["title"]))
    }
    assert set(postings) == expected
    assert ("lovelace", title_tokens(title_key(rows[1]["title"]))[0], rows[1]["id"]) in expected
    assert not any(doc_id == rows[2]["id"] for _, _, doc_id in postings)


# --------------------------------------------- title blocks: records without authors (ident4)


def _recombined_probes(papers: list[dict], k: int) -> list[dict]:
    """``k`` of the first 300 ``papers`` whose title is unique and takes a typo the rule
    allows (not in a short word: "text" -> "tet")."""
    titles = Counter(title_key(p["title"]) for p in papers)
    return [
        p
        for p in papers[:300]
        if _fuzzy_ok(p)
        and titles[title_key(p["title"])] == 1
        and titles_agree(title_key(p["title"]), title_key(_typo(p["title"])))
    ][:k]


def test_records_without_authors_cost_the_same_store_work_when_their_words_are_ten_times_as_common(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """The stores of 300 and 3,000 papers recombining the words of 300 real titles (a fixed
    vocabulary: every title word is 10x as common in the larger store); 30 stored papers,
    their titles with a typo, without authors, half with the year + 1, imported, run about
    the same SQLite steps in both and each merges with its stored version. A record without a
    first author reads the postings of its title blocks (three of its words), which stay short,
    not every paper holding one of its rarest words in its year window (before: [187, 433]
    hundred steps; now [142, 194]: a block's postings grow too here, each a real title's
    half copied 10x, but they are a few rows a record)."""
    words = [r for r in sample_rows[:300] if r.get("authors") and r.get("year")]
    papers = _recombined(words, 3_000)
    probes = _recombined_probes(papers, 30)
    path = _csl_file(
        tmp_path / "no-authors.json",
        [(_typo(p["title"]), [], p["year"] + i % 2) for i, p in enumerate(probes)],
    )
    small, large = _steps_into_300_and_3000(tmp_path, papers, path, probes)
    assert large < 1.5 * small, (small, large)


def test_a_record_without_authors_loads_only_papers_sharing_a_title_block(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """In the 3,000-paper store of recombined titles, 10 stored papers' titles with a typo,
    without authors and with the year + 1, each merge with their stored version, and the
    papers looked up for them are only those sharing a title block with them (before: every
    paper holding one of their 3 rarest words in the year and length windows, 281 papers
    for the 10 where blocks give 52)."""
    from litsift.sources.identity.stored_keys import title_blocks

    words = [r for r in sample_rows[:300] if r.get("authors") and r.get("year")]
    papers = _recombined(words, 3_000)
    probes = _recombined_probes(papers, 10)
    with _store(tmp_path / "s.sqlite", papers) as store:
        with store.transaction():
            StoreIdentityIndex(store, Kind.PAPER).sync()
        for paper in probes:
            index = StoreIdentityIndex(store, Kind.PAPER)
            record = (_typo(paper["title"]), [], paper["year"] + 1, {}, ())
            index.prefetch([record])
            match = index.match(*record)
            assert match is not None and match.doc_id == paper["id"], paper["title"]
            held = set(title_blocks(title_key(record[0])))
            assert held and all(held & set(title_blocks(e.key)) for e in index.entries.values())


def test_title_blocks_follow_a_retitled_paper_and_a_new_year(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """Each keyed paper's title blocks are stored with its year and title length; a paper
    retitled or given another year by a later ingest moves to its new blocks, and a record
    without authors then finds it by its new title."""
    from litsift.sources.identity.stored_keys import title_blocks

    rows = [r for r in sample_rows[:200] if r.get("year")]
    with _store(tmp_path / "s.sqlite", rows) as store:
        index = StoreIdentityIndex(store, Kind.PAPER)
        with store.transaction():
            index.sync()
        changed = [
            dict(rows[0], title="Retitled: a study of identity keys in stored records"),
            dict(rows[1], year=rows[1]["year"] - 3),
        ]
        assert _revise(store, index, tmp_path, changed) == 2
        blocks = store._conn.execute(
            "SELECT block, year, title_len, doc_id FROM paper_title_blocks"
        ).fetchall()
        record = (_typo(changed[0]["title"]), [], changed[0]["year"], {}, ())
        fresh = StoreIdentityIndex(store, Kind.PAPER)
        fresh.prefetch([record])
        match = fresh.match(*record)
    papers = {r["id"]: r for r in rows} | {r["id"]: r for r in changed}
    expected = {
        (block, r["year"], len(title_key(r["title"])), doc_id)
        for doc_id, r in papers.items()
        for block in title_blocks(title_key(r["title"]))
    }
    assert set(blocks) == expected
    assert any(d == rows[1]["id"] and y == rows[1]["year"] - 3 for _, y, _, d in blocks)
    assert match is not None and match.doc_id == rows[0]["id"]


def test_the_block_lookup_reads_one_primary_key_range_per_block(tmp_path: Path) -> None:
    """SQLite's plan of the block lookup: the wanted blocks drive, each one primary-key range
    of the postings (block, title-length window), then the paper's keys and row by key."""
    from litsift.store.identities import blocks_sql

    with Store(tmp_path / "s.sqlite") as store:
        plan = [
            row[3]
            for row in store._conn.execute(
                "EXPLAIN QUERY PLAN " + blocks_sql(2), [1, 2020, 40, 50, 2, None, 40, 50]
            )
        ]
    assert plan.index("SCAN w") < plan.index(
        "SEARCH t USING PRIMARY KEY (block=? AND title_len>? AND title_len<?)"
    ), plan
    assert not any(step.startswith("SCAN") and step != "SCAN w" for step in plan[2:]), plan


def test_a_store_upgraded_to_title_blocks_refills_its_keys_on_the_next_import(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """A store keyed before title blocks (word postings of every family, no blocks) is
    migrated on open: the word postings are dropped and the key tables emptied, and the next
    import derives every paper's keys and blocks again, then matches a record without authors
    by its blocks."""
    from litsift.sources.identity.stored_keys import title_blocks
    from litsift.store.schema import MIGRATIONS
    from litsift.store.schema_identity import _title_blocks

    rows = sample_rows[:100]
    path = tmp_path / "s.sqlite"
    with _store(path, rows) as store, store.transaction():
        StoreIdentityIndex(store, Kind.PAPER).sync()
    with sqlite3.connect(path) as conn:  # as the schema before ``_title_blocks`` left it
        conn.execute("DROP TABLE paper_title_blocks")
        conn.execute(
            "CREATE TABLE paper_title_tokens (token TEXT NOT NULL, year INTEGER NOT NULL, "
            "title_len INTEGER NOT NULL, doc_id TEXT NOT NULL, "
            "PRIMARY KEY (token, year, title_len, doc_id)) WITHOUT ROWID"
        )
        conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(_title_blocks)}")
    paper = next(r for r in rows if _fuzzy_ok(r) and r.get("year"))
    record = _csl_file(tmp_path / "one.json", [(_typo(paper["title"]), [], paper["year"])])
    with Store(path) as store:
        tables = {n for (n,) in store._conn.execute("SELECT name FROM sqlite_master")}
        emptied = store._conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
        report = import_paths(store, [record], Kind.PAPER)
        blocks = set(store._conn.execute("SELECT block, doc_id FROM paper_title_blocks"))
    assert "paper_title_tokens" not in tables and emptied == 0
    assert blocks == {(b, r["id"]) for r in rows for b in title_blocks(title_key(r["title"]))}
    assert [doc for _, doc, _ in report.merges] == [paper["id"]]
