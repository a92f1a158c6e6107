"""Full text (issue 17): imported sections become ~250-word passages in the store, a passage
index (BM25 + dense) finds the paragraph a question is answered in, and paper search with
``fulltext`` ranks the paper that only its body matches, carrying the passage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.paths import get_paths, shared_data_dir
from litsift.search.fulltext.build import build_passage_index
from litsift.search.fulltext.index import paper_run
from litsift.service.facade import LitsiftService
from litsift.text.passages import PASSAGE_WORDS, chunk_sections, passage_input
from litsift.types import Kind, Query, YearRange

FULLTEXT = shared_data_dir() / "sources" / "fulltext"


def test_chunking_follows_sections_and_paragraphs() -> None:
    para = "This sentence has exactly eight words in it. " * 40  # 320 words
    sections = [
        ("Intro", "Short opening paragraph of the paper."),
        ("Intro", "A second short paragraph."),
        ("Method", para),
        ("Method", "Tail."),
        ("", "   "),
    ]
    chunks = chunk_sections(sections)
    heads = [h for h, _ in chunks]
    assert heads[0] == "Intro" and "second short" in chunks[0][1]  # paragraphs joined
    assert all(h in ("Intro", "Method") for h in heads)  # never across sections
    method = [t for h, t in chunks if h == "Method"]
    assert len(method) == 2 and all(len(t.split()) <= PASSAGE_WORDS + 40 for t in method)
    assert method[-1].endswith("Tail.")  # a tiny remainder joins its neighbour
    assert " ".join(method).count("eight words") == 40  # nothing lost
    assert chunk_sections([]) == []
    assert passage_input("A title", "text") == "A title. text"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, paper_slice_rows: list[dict], encoder) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("fulltext")
    src = root / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:150]), encoding="utf-8")
    with LitsiftService(get_paths(root / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        report = svc.sources.import_paths(
            Kind.PAPER,
            [FULLTEXT / "grobid-tei", FULLTEXT / "s2orc-doc2json-json", FULLTEXT / "pdf"],
        )
        assert not report.bad
        svc.build_index(Kind.PAPER)
        built = svc.build_passages()
        assert built.passages > 100 and not built.unchanged
        assert svc.build_passages().unchanged  # nothing new: nothing rebuilt
    return root / "home"


def _doc(svc: LitsiftService, title: str) -> str:
    with svc.store._lock:
        row = svc.store._conn.execute(
            "SELECT id FROM papers WHERE title LIKE ?", (title + "%",)
        ).fetchone()
    assert row is not None, title
    return str(row[0])


def test_passages_are_stored_per_paper_in_reading_order(home: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    with LitsiftService(get_paths(home), encoder=encoder) as svc, svc.store._lock:
        rows = svc.store._conn.execute(
            "SELECT doc_id, COUNT(*), MIN(idx), MAX(idx), SUM(LENGTH(text) - "
            "LENGTH(REPLACE(text, ' ', '')) + 1) FROM passages GROUP BY doc_id"
        ).fetchall()
    assert len(rows) >= 7  # TEI / S2ORC / PDF of the same paper merge onto one record
    for _doc_id, n, lo, hi, words in rows:
        assert lo == 0 and hi == n - 1 and words / n <= PASSAGE_WORDS + 40
    with LitsiftService(get_paths(home), encoder=encoder) as svc, svc.store._lock:
        pages = svc.store._conn.execute(
            "SELECT doc_id, source, page FROM passages ORDER BY doc_id, idx"
        ).fetchall()
    by_doc: dict[str, list[int | None]] = {}
    for doc_id, source, page in pages:
        if source == "pdf":
            by_doc.setdefault(doc_id, []).append(page)
        else:
            assert page is None  # TEI / S2ORC carry no pages
    assert by_doc
    for seq in by_doc.values():  # PDF passages: the page each starts on, in reading order
        assert all(p is not None and p >= 1 for p in seq) and seq == sorted(seq)
        assert seq[-1] > seq[0]


def test_a_body_only_answer_is_found_with_full_text_and_not_without(home: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    question = "pretraining SciBERT from scratch on a TPU v3-8 for one week"
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        s2orc = _doc(svc, "S2ORC")
        index = svc.passage_index
        assert index is not None
        top = index.search(question, k=5)
        assert top[0].passage.doc_id == s2orc and "TPU v3-8" in top[0].passage.text
        assert top[0].passage.section  # its heading came along
        papers, best = paper_run(top)
        assert papers[0][0] == s2orc and best[s2orc] == top[0].passage

        plain = svc.search(Query(question, Kind.PAPER, k=10))
        full = svc.search(Query(question, Kind.PAPER, k=10, fulltext=True))
        hit = next(h for h in full.hits if h.docid == s2orc)
        assert hit.rank <= 3  # the answer is only in its body
        assert "passages" in full.signals_used and "passages" in hit.signals
        assert hit.passage is not None and "TPU v3-8" in hit.passage.text
        plain_rank = next((h.rank for h in plain.hits if h.docid == s2orc), None)
        assert plain_rank is None or plain_rank > hit.rank
        # abstract-only papers still come back, without a passage
        assert any(h.passage is None for h in full.hits)


def test_cli_fulltext_json_and_table(home: Path) -> None:
    from litsift.cli.root import main

    runner = CliRunner()
    args = ["--home", str(home), "search", "--fulltext", "-k", "3"]
    out = runner.invoke(main, [*args, "--json", "nDCG of SPECTER on the recommendation task"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    first = data["hits"][0]
    assert first["title"].startswith("SPECTER") and "53.9" in first["passage"]["text"]
    assert "passages" in data["signals_used"]
    out = runner.invoke(main, [*args, "nDCG of SPECTER on the recommendation task"])
    assert out.exit_code == 0 and "§ " in out.stdout


def test_rebuild_after_new_full_text_and_damage(tmp_path: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    """A new import rebuilds the passage index (swapped in whole); a damaged one is searched
    around with a note naming the fix, and `litsift index` repairs it."""
    from litsift.errors import IndexDamagedError

    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        svc.sources.import_paths(Kind.PAPER, [FULLTEXT / "grobid-tei"])
        svc.build_index(Kind.PAPER)
        first = svc.build_passages()
        svc.sources.import_paths(Kind.PAPER, [FULLTEXT / "jats"])
        second = build_passage_index(svc.store, svc.encoder, svc.paths.index_dir)
        assert second.passages > first.passages and not second.unchanged
        (svc.paths.index_dir / "passages" / "passages.json").write_text("{", encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        # issue 34: the abstracts still answer, and the note says what to run
        result = svc.search(Query("electrospun graphene", Kind.PAPER, fulltext=True))
        assert "passages" not in result.signals_used and result.partial is not None
        assert "passage index is damaged" in result.partial and "litsift index" in result.partial
        with pytest.raises(IndexDamagedError, match="litsift index"):
            svc.passage_index  # noqa: B018 -- what an answer's citations would open
        assert not svc.build_passages().unchanged
        hits = svc.search(Query("electrospun graphene nanofibers", Kind.PAPER, fulltext=True))
        assert hits.hits and hits.hits[0].passage is not None


def test_answers_cite_full_text_passages_with_their_sections(home: Path, encoder, srv) -> None:  # type: ignore[no-untyped-def]
    """After a full-text search, a paper with full text is cited from its best passages for the
    question (at most 3), and the reference list names the sections; the prompt holds them."""
    from dataclasses import replace

    from litsift.config import Config
    from tests.llm_server import chat_reply, llm_settings

    question = "pretraining SciBERT from scratch on a TPU v3-8 for one week"
    config = replace(Config(), llm=llm_settings(srv))
    with LitsiftService(get_paths(home), config=config, encoder=encoder) as svc:
        s2orc = _doc(svc, "S2ORC")
        result = svc.search(Query(question, Kind.PAPER, k=5, fulltext=True))
        hits = [h for h in result.hits if h.docid == s2orc]
        srv.push(chat_reply("S2ORC-SciBERT was pretrained for one week on a TPU v3-8 [1]."))
        ans = svc.answer(question, hits)
    first = ans.passages[0]
    assert first.fulltext and "TPU v3-8" in first.text and first.section
    assert sum(p.docid == s2orc for p in ans.passages) <= 3
    assert ans.references[0].docid == s2orc and ans.references[0].sections == (first.section,)
    prompt = srv.requests[0].body["messages"][-1]["content"]
    assert "TPU v3-8" in prompt


def test_aspect_evidence_can_come_from_the_matching_passage(home: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    from litsift.search.retrieval.record_text import passage_text as record_text

    question = "pretraining SciBERT from scratch on a TPU v3-8 for one week"
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        s2orc = _doc(svc, "S2ORC")
        full = svc.search(Query(question, Kind.PAPER, k=5, fulltext=True))
        hit = next(h for h in full.hits if h.docid == s2orc)
        assert hit.passage is not None
        aspects = svc.decompose(question)
        [with_passage] = svc.score_aspects(aspects, [hit])
        plain = svc.search(Query(question, Kind.PAPER, k=200))
        own = [h for h in plain.hits if h.docid == s2orc] or [replace_passage(hit)]
        [without] = svc.score_aspects(aspects, own[:1])
    base = len(record_text(hit.record))
    in_passage = [s for s in with_passage.scores if s.evidence and s.evidence[0] > base]
    assert in_passage and all(s.evidence_text in hit.passage.text for s in in_passage)
    assert with_passage.normalised >= without.normalised


def replace_passage(hit):  # type: ignore[no-untyped-def]
    from dataclasses import replace

    return replace(hit, passage=None)


def _rank(hits, doc_id: str) -> int | None:  # type: ignore[no-untyped-def]
    return next((h.rank for h in hits if h.docid == doc_id), None)


def test_full_text_on_keeps_abstract_matches_where_they_were(home: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    """Issue 29: full text is on by default, so it must not cost the papers without full text.
    Known items (abstract-only papers asked by their titles) rank where abstract-only search
    ranks them: a paper's passages count only when as close to the query as the best abstract
    (ungated, every full-text paper entered every list at its passage rank and tied with the
    abstract's first hit)."""
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        with svc.store._lock:
            rows = svc.store._conn.execute(
                "SELECT id, title FROM papers WHERE id NOT IN (SELECT doc_id FROM passages) "
                "AND length(title) > 20 ORDER BY id LIMIT 12"
            ).fetchall()
        assert len(rows) == 12
        moved = []
        for doc_id, title in rows:
            plain = _rank(svc.search(Query(title, Kind.PAPER, k=10)).hits, doc_id)
            full = svc.search(Query(title, Kind.PAPER, k=10, fulltext=True))
            assert "passages" in full.signals_used
            if _rank(full.hits, doc_id) != plain:
                moved.append((title, plain, _rank(full.hits, doc_id)))
            assert plain is not None
    assert not moved


def test_cli_searches_full_text_by_default_once_indexed(home: Path, tmp_path: Path) -> None:
    """`litsift search` searches full text without a flag once the library has it;
    `--no-fulltext` turns it off; a library without full text searches abstracts."""
    from litsift.cli.root import main

    runner = CliRunner()
    question = "pretraining SciBERT from scratch on a TPU v3-8 for one week"
    out = runner.invoke(main, ["--home", str(home), "search", "-k", "5", "--json", question])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["fulltext"] is True and "passages" in data["signals_used"]
    s2orc = next(h for h in data["hits"] if h["title"].startswith("S2ORC"))
    assert "TPU v3-8" in s2orc["passage"]["text"] and "passages" in s2orc["signals"]

    off = runner.invoke(main, ["--home", str(home), "search", "--no-fulltext", "--json", question])
    assert off.exit_code == 0, off.output
    data = json.loads(off.stdout)
    assert data["fulltext"] is False and "passages" not in data["signals_used"]
    assert all("passage" not in h for h in data["hits"])

    table = runner.invoke(main, ["--home", str(home), "search", "-k", "5", question])
    assert table.exit_code == 0 and "· full text" in table.stdout and "§ " in table.stdout

    bare = tmp_path / "bare"  # full text imported but not indexed yet: abstracts only
    with LitsiftService(get_paths(bare)) as svc:
        svc.sources.import_paths(Kind.PAPER, [FULLTEXT / "s2orc-doc2json-json"])
        svc.build_index(Kind.PAPER)
        assert not svc.has_passages()
    out = runner.invoke(main, ["--home", str(bare), "search", "--json", question])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["fulltext"] is False
    # a damaged passage index keeps full text on, so the search says what to run
    with LitsiftService(get_paths(bare)) as svc:
        assert svc.build_passages().passages and svc.has_passages()
    (get_paths(bare).index_dir / "passages" / "passages.json").write_text("{", encoding="utf-8")
    out = runner.invoke(main, ["--home", str(bare), "search", question])
    assert out.exit_code == 0, out.output
    assert "passage index is damaged" in out.stderr and "litsift index" in out.stderr


def test_cli_answer_cites_full_text_by_default(home: Path, srv) -> None:  # type: ignore[no-untyped-def]
    """`litsift answer` cites passages of papers' bodies without --fulltext once the library
    has them, and from abstracts with --no-fulltext."""
    from litsift.cli.root import main
    from tests.llm_server import chat_reply, configured_home

    question = "pretraining SciBERT from scratch on a TPU v3-8 for one week"
    runs = {}
    with configured_home(home, srv):
        for flags in ([], ["--no-fulltext"]):
            srv.push(chat_reply("S2ORC-SciBERT was pretrained on a TPU v3-8 [1]."))
            out = CliRunner().invoke(
                main, ["--home", str(home), "answer", "-k", "3", *flags, "--json", question]
            )
            assert out.exit_code == 0, out.output
            runs[bool(flags)] = json.loads(out.stdout)["passages"]
    assert any(p["fulltext"] and "TPU v3-8" in p["text"] for p in runs[False])
    assert not any(p["fulltext"] for p in runs[True])


def test_cli_answer_says_where_each_cited_passage_is(home: Path, srv) -> None:  # type: ignore[no-untyped-def]
    """Under a reference, each cited full-text passage is listed by its number and place
    ("[2] § 5 Pretraining BERT on S2ORC, p. 6"): the places were listed without their numbers
    and once per section, so a reader could not tell which part of the paper [2] quoted."""
    from litsift.cli.root import main
    from tests.llm_server import chat_reply, configured_home

    question = "pretraining SciBERT from scratch on a TPU v3-8 for one week"
    args = ["--home", str(home), "answer", "-k", "3", question]
    with configured_home(home, srv):
        srv.push(chat_reply("SciBERT was pretrained on a TPU v3-8 [1][2][3][4][5][6]."))
        data = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
        out = CliRunner().invoke(main, args)  # the same reply, from the response cache
    assert out.exit_code == 0, out.output
    cited = [p for p in data["passages"] if p["number"] <= 6 and p["fulltext"]]
    assert len(cited) >= 2 and all(p["section"] for p in cited)
    for p in cited:
        assert f"      [{p['number']}] {p['section']}\n" in out.stdout


class _CountingSession:
    """The encoder's real ONNX Runtime session, counting its runs."""

    def __init__(self, session) -> None:  # type: ignore[no-untyped-def]
        self.session, self.runs = session, 0

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.session, name)

    def run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.runs += 1
        return self.session.run(*args, **kwargs)


def test_a_full_text_search_encodes_its_query_once(home: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    """The paper searcher and the passage index both ask for the query's vector: one ONNX run
    serves both (the encoder keeps the last single query's vector), and it is the same vector."""
    question = "how long did pretraining SciBERT on a TPU take"
    fresh = encoder.encode_queries(["an unrelated warm-up query"])[0]
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        svc.search(Query("warm up the searchers", Kind.PAPER, k=5, fulltext=True))
        session = _CountingSession(encoder._session)
        encoder._session = session
        try:
            result = svc.search(Query(question, Kind.PAPER, k=10, fulltext=True))
        finally:
            encoder._session = session.session
    assert "passages" in result.signals_used
    assert session.runs == 1
    again = encoder.encode_queries([question])[0]
    encoder._last_query = None
    assert (again == encoder.encode_queries([question])[0]).all()
    assert fresh.shape == again.shape


def test_full_text_is_fused_on_one_row_load_with_years_from_the_index(  # type: ignore[no-untyped-def]
    home: Path, encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search pipeline (issue 28): the papers that only their passages found are kept or
    dropped by the year column of the paper index, never by loading each one from the store;
    the final hits are loaded in one batch."""
    question = "how long did pretraining SciBERT on a TPU take"
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        everything = svc.search(Query(question, Kind.PAPER, k=50, fulltext=True))
        body_only = [
            h
            for h in everything.hits
            if "passages" in h.signals and not {"bm25", "dense"} & set(h.signals)
        ]
        assert body_only, "the passages found a paper its abstract did not"
        year = body_only[0].record.year
        years = (
            YearRange(year + 1, None, include_missing=False)
            if year is not None
            else YearRange(None, None, include_missing=False)
        )
        store = svc.store
        loads: list[str] = []
        real_get, real_rows = store.get, store.get_by_rowids

        def get(kind: Kind, doc_id: str):  # type: ignore[no-untyped-def]
            loads.append("get")
            return real_get(kind, doc_id)

        def get_by_rowids(kind: Kind, rowids):  # type: ignore[no-untyped-def]
            loads.append("get_by_rowids")
            return real_rows(kind, rowids)

        monkeypatch.setattr(store, "get", get)
        monkeypatch.setattr(store, "get_by_rowids", get_by_rowids)
        result = svc.search(Query(question, Kind.PAPER, years, k=50, fulltext=True))
    assert "passages" in result.signals_used
    assert loads == ["get_by_rowids"]  # one batch, nothing one at a time
    assert result.hits and all(years.contains(h.record.year) for h in result.hits)
    assert body_only[0].docid not in {h.docid for h in result.hits}
    assert any(h.passage is not None for h in result.hits)
