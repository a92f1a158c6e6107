"""Reviews: made from real search exports (PubMed nbib + Embase RIS of one review, a labelled
screening set), duplicates grouped, decisions / undo / notes stored, PRISMA counts, exports
read back by rispy and csv, and the CLI's messages."""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import rispy
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.errors import ReviewError
from litsift.paths import get_paths, shared_data_dir
from litsift.review.session import gain_curve, stop_states
from litsift.service.facade import LitsiftService
from litsift.store.reviews import current_decisions

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "ris-medline"
EMBASE = DATA / "telemonitoring_embase-export_13-records.ris"
PUBMED = DATA / "telemonitoring_pubmed_7-records.nbib"
SETS = (shared_data_dir() / "eval" / "screening").resolve()
DONNERS = SETS / "Donners_2021.jsonl.gz"


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[LitsiftService]:
    with LitsiftService(get_paths(tmp_path / "home")) as s:
        yield s


def test_two_database_exports_group_their_duplicates(svc: LitsiftService) -> None:
    made = svc.reviews.create(
        "tele", [EMBASE, PUBMED], criteria="remote monitoring", keywords=["wearable"]
    )
    c = made.prisma
    # 13 Embase + 7 PubMed records; the README of the files: 5 DOIs shared
    assert (c.identified, c.duplicates_removed, c.records) == (20, 5, 15)
    assert (c.screened, c.unscreened, c.bad) == (0, 15, 0)
    groups = svc.reviews.duplicate_groups("tele")
    assert len(groups) == 5
    for entries in groups.values():  # one entry of each file, none dropped
        assert sorted(Path(e.rsplit(":", 1)[0]).name for e in entries) == [EMBASE.name, PUBMED.name]
    info = svc.reviews.info("tele")
    assert (info.criteria, info.keywords, info.records) == ("remote monitoring", ("wearable",), 15)
    with pytest.raises(ReviewError, match="exists"):
        svc.reviews.create("tele", [PUBMED])


def test_decisions_undo_notes_prisma_and_exports(svc: LitsiftService) -> None:
    svc.reviews.create("tele", [EMBASE, PUBMED])
    session = svc.reviews.open("tele")
    session.apply(session.retrain(), keep_current=False)
    first = session.current_paper()
    assert first is not None
    session.decide("include")
    second = session.current_paper()
    assert second is not None and second.id != first.id
    session.set_note("no wearable device")
    session.decide("exclude")
    session.decide("maybe")
    undone = session.undo()  # the maybe is taken back; its record is on screen again
    assert undone is not None
    assert undone.id not in {d for d, _, _ in current_decisions(svc.store, "tele")}
    c = svc.reviews.prisma("tele")
    assert (c.screened, c.included, c.excluded, c.maybe, c.unscreened) == (2, 1, 1, 0, 13)

    rows = list(csv.DictReader(io.StringIO(svc.reviews.export("tele", "csv"))))
    assert len(rows) == 15
    by_id = {r["id"]: r for r in rows}
    assert by_id[first.id]["decision"] == "include"
    assert by_id[second.id]["decision"] == "exclude"
    assert by_id[second.id]["note"] == "no wearable device"
    assert sum(r["entries"] == "2" for r in rows) == 5

    refs = rispy.loads(svc.reviews.export("tele", "ris", which="exclude"))
    assert [(r["id"], r["label"], r["notes"]) for r in refs] == [
        (second.id, "exclude", ["no wearable device"])
    ]
    assert refs[0]["title"] == second.title


def test_a_screening_set_labels_become_prior_decisions(svc: LitsiftService) -> None:
    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    made = svc.reviews.create("all", [DONNERS])
    # line 226 of the set has no title but an abstract and a DOI: kept and screened too
    assert made.problems == []
    c = made.prisma
    assert (c.identified, c.records, c.screened, c.unscreened) == (258, 257, 257, 0)
    assert c.included == 15 and c.included + c.excluded == 257
    two = svc.reviews.create("two", [DONNERS], labels=1)
    assert two.priors == 2 and two.prisma.included == 1 and two.prisma.excluded == 1
    assert {s for _, _, s in current_decisions(svc.store, "two")} == {"prior"}


def test_stop_panel_and_gain_curve_read_the_screened_sequence() -> None:
    seq = [1, 0, 1] + [0] * 60
    states = {s.rule: s for s in stop_states(seq, n_records=200, prior_included=1)}
    assert states["consecutive"].fired_at == 3 + 50
    assert states["knee"].fired_at is None and "150" in states["knee"].detail
    assert gain_curve(seq)[-1] == 2.0
    assert gain_curve([]) == []
    # a review of one record (as said at 100x30: "only 1 records to screen")
    lone = {s.rule: s.detail for s in stop_states([], n_records=1, prior_included=0)}
    assert (
        lone["consecutive"] == "0 of 50 exclusions in a row (cannot fire: only 1 record to screen)"
    )


def test_cli_review_commands_and_their_errors(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    runner = CliRunner()
    crit = tmp_path / "criteria.txt"
    crit.write_text("Adults monitored at home with wearable sensors", encoding="utf-8")
    done = runner.invoke(
        main,
        ["--home", home, "review", "new", "tele", "--from", str(EMBASE), "--from", str(PUBMED),
         "--criteria", f"@{crit}", "--json"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    out = json.loads(done.stdout)
    assert out["prisma"]["duplicates_removed"] == 5
    shown = runner.invoke(main, ["--home", home, "review", "show", "tele"])
    assert "duplicates removed (grouped)" in shown.stdout
    assert "Adults monitored at home" in shown.stdout
    listed = runner.invoke(main, ["--home", home, "review", "list"])
    assert "tele: 0 of 15 screened" in listed.stdout

    missing = runner.invoke(main, ["--home", home, "review", "show", "nope"])
    assert missing.exit_code == 1
    assert "no review named 'nope'" in missing.stderr and "hint:" in missing.stderr
    gone = runner.invoke(main, ["--home", home, "review", "new", "x", "--from", "no.ris"])
    assert gone.exit_code == 1 and "no such file" in gone.stderr
    bad = tmp_path / "cut.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"title": "A", "label_included": 1}\n')[:-12])
    cut = runner.invoke(main, ["--home", home, "review", "new", "cut", "--from", str(bad)])
    assert cut.exit_code == 1 and "Traceback" not in cut.output and "Error" not in cut.stderr
    assert f"the files held no record to screen: {bad}: broken gzip file" in cut.stderr
    lines = tmp_path / "lines.jsonl"
    lines.write_text(
        'not json\n{"title": "B", "label_included": "1"}\n{"abstract": "x", "label_included": 0}\n',
        encoding="utf-8",
    )
    some = runner.invoke(main, ["--home", home, "review", "new", "some", "--from", str(lines)])
    assert some.exit_code == 1  # bad lines: told with their line, the good record kept
    assert f"{lines}:1: not a JSON object" in some.stderr
    assert f"{lines}:3: no title" in some.stderr
    assert "1 to screen, 1 prior decision, 2 bad entries skipped" in some.stdout  # not "decisions"
    own = tmp_path / "papers.jsonl"  # litsift's own JSONL: no entry locations to group by
    own.write_text('{"id": "p1", "title": "A paper", "year": 2020}\n', encoding="utf-8")
    mixed = runner.invoke(
        main, ["--home", home, "review", "new", "mixed", "--from", str(own), "--from", str(PUBMED)]
    )
    # a file that gives no record is refused, not left out of the review's PRISMA counts
    # (the review was made without it, its search missing from the sources, "0 not readable")
    assert mixed.exit_code == 1 and "to screen" not in mixed.stdout
    assert (
        "no review was made: a file gave no record to screen (papers.jsonl: litsift's own "
        "JSONL is ingested into the store but not into a review" in " ".join(mixed.stderr.split())
    )
    listed = runner.invoke(main, ["--home", home, "review", "list"])
    assert "mixed" not in listed.stdout
    empty = tmp_path / "empty.ris"
    empty.write_bytes(b"")
    beside = runner.invoke(
        main,
        ["--home", home, "review", "new", "mixed", "--from", str(PUBMED), "--from", str(empty)],
    )
    assert beside.exit_code == 1 and "empty.ris: empty file (0 bytes)" in beside.stderr
    alone = runner.invoke(main, ["--home", home, "review", "new", "mixed", "--from", str(PUBMED)])
    assert alone.exit_code == 0 and "7 to screen" in alone.stdout


def _write_set_lines(svc: LitsiftService, first: int, last: int, file: str) -> dict[str, int]:
    """Write lines ``first..last`` of the Donners set as read from ``file`` (``sync:NAME`` is
    what ``litsift sync`` writes); ``{doc_id: label}``."""
    from litsift.sources.formats.screening_jsonl import read_screening_set
    from litsift.sources.writer import RecordWriter

    writer = RecordWriter(svc.store)
    labels = {}
    for item, label in read_screening_set(DONNERS):
        if first <= int(item.location) <= last:
            writer.add("openalex", file, item)
            labels[item.location] = label
    writer.flush()
    with svc.store._lock:
        rows = svc.store._conn.execute(
            "SELECT doc_id, location FROM provenance WHERE file = ?", (file,)
        ).fetchall()
    return {str(d): int(labels[loc] or 0) for d, loc in rows}


def test_feed_ranks_synced_papers_by_the_kept_ones(svc: LitsiftService) -> None:
    from litsift.types import Kind, Label

    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    stored = _write_set_lines(svc, 1, 200, str(DONNERS))
    synced = _write_set_lines(svc, 201, 258, "sync:openalex-emicizumab")
    kept = [d for d, y in stored.items() if y]
    discarded = [d for d, y in stored.items() if not y][:20]
    for d in kept:
        svc.set_label(Kind.PAPER, d, Label.KEEP)
    for d in discarded:
        svc.set_label(Kind.PAPER, d, Label.DISCARD)

    got = svc.reviews.feed(mark_seen=False)
    assert (got.liked, got.disliked, got.model) == (len(kept), 20, "tfidf-svm")
    assert {p.id for p in got.papers} == set(synced)
    ranked = [synced[p.id] for p in got.papers]
    arrival = [synced[d] for d in synced]
    print("feed ranks of includes:", [i + 1 for i, y in enumerate(ranked) if y])

    def ap(y: list[int]) -> float:
        hits = [i for i, v in enumerate(y) if v]
        return sum((k + 1) / (i + 1) for k, i in enumerate(hits)) / len(hits)

    assert ap(ranked) > ap(arrival)

    svc.triage.add_to_collection("emicizumab", Kind.PAPER, kept[0])
    by_collection = svc.reviews.feed("emicizumab")
    assert by_collection.liked == 1 and len(by_collection.papers) == len(synced)
    assert svc.reviews.feed("emicizumab").papers == []  # seen: nothing new since
    assert len(svc.reviews.feed().papers) == len(synced)  # each feed has its own last look
    with pytest.raises(ReviewError, match="no collection named 'nope'"):
        svc.reviews.feed("nope")


def test_a_screening_set_keeps_its_references_as_citation_edges(svc: LitsiftService) -> None:
    """The sets' OpenAlex ``referenced_works`` become citation edges (issue 31), and an edge
    whose cited work is a record of the set resolves to that record."""
    from litsift.store import citations

    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    with gzip.open(DONNERS, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rows = [r for r in rows if (r.get("title") or "").strip()]
    expected = sum(len(set(r.get("referenced_works") or [])) for r in rows)
    assert expected > 0
    svc.reviews.create("refs", [DONNERS])
    conn = svc.store._conn
    assert citations.count(conn) == expected
    ids = {r["record_id"] for r in rows}
    inside = {
        (r["record_id"], w.rsplit("/", 1)[-1])
        for r in rows
        for w in r.get("referenced_works") or []
        if w.rsplit("/", 1)[-1] in ids
    }
    stored = {row[0] for row in conn.execute("SELECT id FROM papers")}
    both = conn.execute("SELECT citing, cited FROM citations").fetchall()
    resolved = [(a, b) for a, b in both if a in stored and b in stored]
    assert inside and len(resolved) == len(inside)  # the set cites some of its own records


def test_a_review_with_citation_edges_ranks_with_the_evals_citation_signal(
    svc: LitsiftService,
) -> None:
    """A review whose records carry citation edges (Donners' OpenAlex references) ranks with
    the citation signal, the same features ``litsift eval screening``'s ``litsift`` builds
    from the set file; a review without edges reads text only."""

    from litsift.graph.signal import SignalFeatures
    from litsift.graph.snowball import set_graph
    from litsift.review.data import load_review_set
    from litsift.review.learner import LearningOrder, review_spec

    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    svc.reviews.create("refs", [DONNERS], labels=3)  # 3 includes: the signal joins the fit
    session = svc.reviews.open("refs")
    assert session.citations is not None
    # the store's edges give the set file's features, row for row (a paper's file line)
    with svc.store._lock:
        lines = dict(
            svc.store._conn.execute(
                "SELECT doc_id, location FROM provenance WHERE file = ?", (str(DONNERS),)
            ).fetchall()
        )
    rows = [int(lines[p.id]) - 1 for p in session.papers]
    s = load_review_set(DONNERS)
    ref = SignalFeatures(set_graph(s.openalex_ids, s.references), list(range(s.labels.size)))
    for name in ("linked", "coupling", "cocitation"):
        ours, theirs = getattr(session.citations, name), getattr(ref, name)[rows][:, rows]
        assert ours.nnz > 0 and abs(ours - theirs).sum() == 0
    _, order, model = session.retrain()
    assert model == "tfidf-svm + citations"
    decided = list(session.decisions)
    y = [0 if session.decisions[r] == "exclude" else 1 for r in decided]
    assert sum(y) == 3
    pool = [i for i in range(len(session.papers)) if i not in session.decisions]
    text_only = LearningOrder.build(review_spec(None), session.texts).fit(decided, y)
    assert text_only.name == "tfidf-svm" and text_only.rank(pool).tolist() != order
    assert sorted(text_only.rank(pool).tolist()) == sorted(order)

    svc.reviews.create("tele", [EMBASE, PUBMED])  # RIS / nbib without references
    assert svc.reviews.open("tele").citations is None


def _true_labels(svc: LitsiftService) -> dict[str, int]:
    """Donners' final decision of each stored record, joined on its file line."""
    from litsift.sources.formats.screening_jsonl import read_screening_set

    by_line = {item.location: label for item, label in read_screening_set(DONNERS)}
    with svc.store._lock:
        rows = svc.store._conn.execute(
            "SELECT doc_id, location FROM provenance WHERE file = ?", (str(DONNERS),)
        ).fetchall()
    out: dict[str, int] = {}
    for doc_id, line in rows:
        out[doc_id] = max(out.get(doc_id, 0), by_line[line] or 0)
    return out


def test_the_includes_left_estimate_follows_the_truth_on_a_real_review(
    svc: LitsiftService,
) -> None:
    """Screening Donners in the learner's order with its true decisions: the progress line's
    estimate of includes left stays near the truth at 25 % and 50 % screened, where the old
    figure (the model's Platt-scaled scores summed over the pool) is far too high; at 10 % (2
    left) it is rough, but nearer the truth than the maximum-likelihood rate curve."""
    import numpy as np

    from litsift.review.estimate import rate_curve_estimate
    from litsift.review.learner import LearningOrder, review_spec
    from litsift.review.session import platt_estimate

    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    svc.reviews.create("est", [DONNERS], labels=1)
    truth = _true_labels(svc)
    session = svc.reviews.open("est")
    session.apply(session.retrain(), keep_current=False)
    assert session.estimate is None  # no include of the reviewer's yet: no rate to fit
    total = len(session.papers)
    found: dict[int, tuple[float, float, float, float]] = {}
    for frac in (0.1, 0.25, 0.5):
        while len(session.decisions) < frac * total:
            paper = session.current_paper()
            assert paper is not None
            session.decide("include" if truth[paper.id] else "exclude")
            if truth[paper.id] or len(session.decisions) % 40 == 0:
                session.apply(session.retrain())
        left = sum(truth[p.id] for i, p in enumerate(session.papers) if i not in session.decisions)
        estimate = session.estimate
        assert estimate is not None
        rows = np.asarray(list(session.decisions), dtype=np.int64)
        y = np.asarray([truth[session.papers[r].id] for r in rows], dtype=np.int64)
        pool = np.setdiff1d(np.arange(total), rows).astype(np.int64)
        fit = LearningOrder.build(review_spec(None), session.texts).fit(rows, y)
        scores = fit.scores(np.concatenate([rows, pool]))
        platt = platt_estimate(scores[: rows.size], y, scores[rows.size :])
        seq = [0 if session.decisions[r] == "exclude" else 1 for r in session.user_rows]
        mle = rate_curve_estimate(seq, total - len(session.decisions))
        found[round(100 * frac)] = (float(left), estimate, platt, mle)
    print("includes left (truth, estimate, Platt, maximum likelihood):", found)
    for at, (left, estimate, platt, mle) in found.items():
        assert at == 10 or abs(estimate - left) <= 2
        assert abs(estimate - left) < abs(platt - left)
        assert abs(estimate - left) <= abs(mle - left) + 0.5


def test_the_feed_of_a_new_store_says_since_the_start_as_the_app_does(tmp_path: Path) -> None:
    """`litsift feed` on a store never looked at said "0 new papers since ever"; the app's feed
    screen says "since the start"."""
    from click.testing import CliRunner

    from litsift.cli.root import main

    out = CliRunner().invoke(main, ["--home", str(tmp_path / "home"), "feed"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("0 new papers since the start, ranked by")
    assert "since ever" not in out.output


def test_feed_since_compares_times_not_text(tmp_path: Path) -> None:
    """`litsift feed --since` compared its text with the stored UTC arrival times: a time with
    an offset (an hour ago, written in +02:00) missed the papers synced since, and a date that
    is not ISO 8601 (``yesterday``) listed none instead of saying so."""
    from datetime import UTC, datetime, timedelta, timezone

    from litsift.sources.base import SourceRecord
    from litsift.sources.writer import RecordWriter

    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as svc:
        writer = RecordWriter(svc.store)
        writer.add("openalex", "sync:openalex-x", SourceRecord(location="1", title="A new paper"))
        writer.flush()
        hour_ago = datetime.now(UTC) - timedelta(hours=1)
        east = hour_ago.astimezone(timezone(timedelta(hours=2))).isoformat(timespec="minutes")
        got = svc.reviews.feed(since=east, mark_seen=False)
        assert [p.title for p in got.papers] == ["A new paper"]
        assert got.since == hour_ago.replace(second=0, microsecond=0).isoformat(
            timespec="milliseconds"
        )
        with pytest.raises(ReviewError, match="'yesterday' is not an ISO 8601 date"):
            svc.reviews.feed(since="yesterday")
    out = CliRunner().invoke(main, ["--home", str(home), "feed", "--since", "2024-5-1"])
    assert out.exit_code == 1
    assert "not an ISO 8601 date" in out.output and "hint: give a date like" in out.output
