"""Issue 44, screening round 2: exclusion reasons, the title/abstract and full-text stages, two
reviewers merged from files (conflicts, resolution, Cohen's kappa) and the PRISMA 2020 flow
diagram, on a real review (Donners 2021, ``shared/data/eval/screening``: its records and its
published inclusion decisions), a real library export with PDFs, and a real SQLite store."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
import rispy
from click.testing import CliRunner
from sklearn.metrics import cohen_kappa_score

from litsift.cli.root import main
from litsift.errors import ConfigError, ReviewError
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.store.reviews import current_decisions
from tests.conftest import EVAL_DIR, SHARED_DATA

DONNERS = EVAL_DIR / "screening" / "Donners_2021.jsonl.gz"
LIBRARY = SHARED_DATA / "sources" / "reference-managers" / "bibtex"
THESIS_BIB = LIBRARY / "thesis-psychology_zotero-bbt-export.bib"
REASONS = ["wrong population", "wrong intervention", "wrong design"]

pytestmark = pytest.mark.skipif(not DONNERS.is_file(), reason=f"{DONNERS} not here")


def _svc(home: Path) -> LitsiftService:
    return LitsiftService(get_paths(home))


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[LitsiftService]:
    with _svc(tmp_path / "home") as s:
        yield s


def truth(svc: LitsiftService) -> dict[str, str]:
    """The review's published decisions by record id (a review of every label as priors)."""
    if "truth" not in {r.name for r in svc.reviews.all()}:
        svc.reviews.create("truth", [DONNERS])
    return {d: v for d, v, _ in current_decisions(svc.store, "truth")}


def screen_all(
    svc: LitsiftService,
    name: str,
    labels: dict[str, str],
    reviewer: str = "",
    stage: str = "tiab",
    flip_every: int = 0,
    limit: int | None = None,
) -> list[tuple[str, str, str]]:
    """A reviewer screens ``name`` in the session's order, deciding as the review did (every
    ``flip_every``-th record the other way); an exclude gets reason ``i % len(REASONS)``.
    Returns ``(doc_id, decision, reason)`` in screening order."""
    session = svc.reviews.open(name, stage, reviewer)
    done: list[tuple[str, str, str]] = []
    while (paper := session.current_paper()) is not None and (limit is None or len(done) < limit):
        decision = labels[paper.id]
        if flip_every and len(done) % flip_every == flip_every - 1:
            decision = "exclude" if decision == "include" else "include"
        reason = REASONS[len(done) % len(REASONS)] if decision == "exclude" else ""
        session.decide(decision, reason)
        done.append((paper.id, decision, reason))
    return done


# --- 1. exclusion reasons -------------------------------------------------------------------


def test_exclusion_reasons_are_stored_exported_and_counted(
    svc: LitsiftService, tmp_path: Path
) -> None:
    labels = truth(svc)
    svc.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
    assert svc.reviews.reasons("don") == REASONS
    done = screen_all(svc, "don", labels, limit=60)
    want: dict[str, int] = {}
    for _, d, why in done:
        if d == "exclude":
            want[why] = want.get(why, 0) + 1
    c = svc.reviews.prisma("don")
    assert c.reasons == dict(sorted(want.items(), key=lambda kv: (-kv[1], kv[0])))
    assert sum(c.reasons.values()) == c.excluded == sum(1 for _, d, _ in done if d == "exclude")

    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(svc.reviews.export("don", "csv")))}
    for doc_id, d, why in done:
        assert (rows[doc_id]["decision"], rows[doc_id]["reason"]) == (d, why)
    ris = svc.reviews.export("don", "ris", which="exclude")
    refs = rispy.loads(ris)
    assert len(refs) == c.excluded
    by_id = {d: why for d, _, why in done}
    assert all(r["notes"][-1] == f"Exclusion reason: {by_id[r['id']]}" for r in refs)
    # the first record carries the review's reasons in key order (read back by review new)
    assert refs[0]["notes"][0] == "Review exclusion reasons: " + "; ".join(
        f"{i}. {r}" for i, r in enumerate(REASONS, start=1)
    )
    assert all(len(r["notes"]) == 1 for r in refs[1:])
    # read back as a review: the decisions come back, the reason is not taken for a note
    path = tmp_path / "excluded.ris"
    path.write_text(ris, encoding="utf-8")
    back = svc.reviews.create("back", [path])
    assert back.prisma.excluded == c.excluded
    assert all(r.note == "" for r, _ in svc.reviews.records("back"))

    runner, home = CliRunner(), str(tmp_path / "home")
    svc.close()
    shown = runner.invoke(main, ["--home", home, "review", "show", "don"])
    assert shown.exit_code == 0, shown.output
    for why, n in want.items():
        assert re.search(rf"{why}\s+{n}\n", shown.output)
    set_ = runner.invoke(main, ["--home", home, "review", "reasons", "don", "a", "b", "a"])
    assert set_.output.splitlines() == ["1  a", "2  b"]
    many = runner.invoke(main, ["--home", home, "review", "reasons", "don", *"abcdefghij"])
    assert many.exit_code != 0 and "at most 9" in many.output
    # --reasons and --keywords given once per item (click kept the last one alone, so a
    # review made with three reasons had one), or as comma lists, or both
    made = runner.invoke(main, [
        "--home", home, "review", "new", "again", "--from", str(DONNERS), "--labels", "none",
        "--reasons", "wrong population", "--reasons", "wrong design,wrong outcome",
        "--keywords", "emicizumab", "--keywords", "ACE910",
    ])  # fmt: skip
    assert made.exit_code == 0, made.output
    with _svc(Path(home)) as again:
        got = again.reviews.info("again")
        assert again.reviews.reasons("again") == ["wrong population", "wrong design",
                                                 "wrong outcome"]  # fmt: skip
        assert list(got.keywords) == ["emicizumab", "ACE910"]


def test_criteria_given_after_the_review_was_made_reach_the_learning_order(
    tmp_path: Path,
) -> None:
    """A review made without criteria gets them later (``review criteria NAME TEXT`` or
    ``@FILE``, ``--keywords``): shown back, kept by ``review show``, read by the next
    screening session's order (its criteria query); '' clears them; a missing review or an
    unreadable file is our error, not a traceback; escape sequences never reach the
    terminal."""
    home = tmp_path / "home"
    with _svc(home) as s:
        s.reviews.create("don", [DONNERS], labels="none")
    runner = CliRunner()

    def run(*args: str) -> list[str]:
        out = runner.invoke(main, ["--home", str(home), "review", "criteria", "don", *args])
        assert out.exit_code == 0, out.output
        return out.output.splitlines()

    assert run() == ["criteria: none: litsift review criteria don 'the review question'",
                     "keywords: none"]  # fmt: skip
    title = "Pharmacokinetics and associated efficacy of emicizumab in humans"
    assert run(title, "--keywords", "emicizumab, ACE910") == [
        f"criteria: {title}",
        "keywords: emicizumab, ACE910",
    ]
    shown = runner.invoke(main, ["--home", str(home), "review", "show", "don"]).output
    assert title in shown
    with _svc(home) as s:
        assert s.reviews.open("don").criteria_query() == f"{title} emicizumab ACE910"
    hostile = tmp_path / "criteria.txt"
    hostile.write_text("Emicizumab\x1b[2J\x1b]0;pwned\x07 in haemophilia A\n", encoding="utf-8")
    (line, _) = run(f"@{hostile}")
    assert "\x1b" not in line and "\x07" not in line and "haemophilia A" in line
    assert run("", "--keywords", "") == [
        "criteria: none: litsift review criteria don 'the review question'",
        "keywords: none",
    ]
    with _svc(home) as s:
        assert s.reviews.open("don").criteria_query() == ""
    for args, message in [
        (["nope"], "no review named 'nope'"),
        (["don", f"@{tmp_path / 'missing.txt'}"], "cannot read the criteria"),
    ]:
        bad = runner.invoke(main, ["--home", str(home), "review", "criteria", *args])
        assert bad.exit_code == 1 and message in bad.output and "Traceback" not in bad.output


def test_review_show_keeps_one_count_column_past_long_file_names_and_reasons(
    svc: LitsiftService, tmp_path: Path
) -> None:
    """Real exports whose file names are longer than the label column (a Web of Science
    plain-text export, 42 characters) and a long reason: every count still ends in one column."""
    exports = SHARED_DATA / "sources" / "reference-managers"
    files = [
        exports / "ris" / "asreview_scopus-export.ris",
        exports / "database-exports" / "calcore_web-of-science-plaintext-c3-we.txt",
    ]
    long_reason = "not a randomised controlled trial in adult outpatients"
    svc.reviews.create("mix", files, reasons=[long_reason, "wrong design"])
    session = svc.reviews.open("mix")
    session.decide("exclude", reason=long_reason)
    session.decide("exclude", reason="wrong design")
    home = str(tmp_path / "home")
    svc.close()
    shown = CliRunner().invoke(main, ["--home", home, "review", "show", "mix"])
    assert shown.exit_code == 0, shown.output
    counted = [ln for ln in shown.output.splitlines() if re.search(r"\S\s+[\d,]+$", ln)]
    assert any(files[1].name in ln for ln in counted) and any(long_reason in ln for ln in counted)
    assert len(counted) >= 20 and len({len(ln) for ln in counted}) == 1, counted


# --- 2. stages ------------------------------------------------------------------------------


def test_the_fulltext_stage_holds_the_records_not_excluded_and_learns_on_its_own(
    svc: LitsiftService,
) -> None:
    svc.reviews.create("don", [DONNERS], reasons=REASONS)  # the published decisions as priors
    tiab = svc.reviews.open("don")
    assert len(tiab.papers) == 257 and len(tiab.decisions) == 257
    full = svc.reviews.open("don", "fulltext")
    included = {d for d, v, _ in current_decisions(svc.store, "don") if v == "include"}
    assert {p.id for p in full.papers} == included and len(included) == 15
    assert full.decisions == {}  # the title/abstract decisions are not this stage's
    full.apply(full.retrain(), keep_current=False)
    first = full.current_paper()
    assert first is not None
    full.decide("exclude", "wrong design")
    full.decide("include")
    # the learner of the full-text stage trains on its two decisions only
    assert sorted(full.decisions.values()) == ["exclude", "include"]
    _, order, model = full.retrain()
    assert len(order) == 13 and model != "import order"
    c = svc.reviews.prisma("don")
    assert (c.screened, c.included, c.excluded) == (257, 15, 242)  # title/abstract untouched
    f = c.fulltext
    assert (f["sought"], f["assessed"], f["included"], f["excluded"], f["unassessed"]) == (
        15, 2, 1, 1, 13,
    )  # fmt: skip
    assert f["reasons"] == {"wrong design": 1}
    rows = list(csv.DictReader(io.StringIO(svc.reviews.export("don", "csv", stage="fulltext"))))
    assert len(rows) == 15 and {r["stage"] for r in rows} == {"fulltext"}
    assert [r["reason"] for r in rows if r["id"] == first.id] == ["wrong design"]
    with pytest.raises(ReviewError, match="unknown stage"):
        svc.reviews.open("don", "abstract")


def test_the_fulltext_stage_shows_the_pdfs_the_library_has(svc: LitsiftService) -> None:
    made = svc.reviews.create("thesis", [THESIS_BIB], labels="none")
    assert made.prisma.records > 400
    session = svc.reviews.open("thesis")
    for _ in range(5):  # the first five in import order: the library has PDFs of them
        session.decide("include")
    session.decide("exclude", "")
    full = svc.reviews.open("thesis", "fulltext")
    assert len(full.papers) == 5
    with_pdf = [p for p in full.papers if full.pdfs.get(p.id)]
    assert len(with_pdf) >= 4
    assert all(path.lower().endswith(".pdf") for p in with_pdf for path in full.pdfs[p.id])
    assert any("Ajzen_1991" in path for p in with_pdf for path in full.pdfs[p.id])
    rows = list(csv.DictReader(io.StringIO(svc.reviews.export("thesis", "csv", stage="fulltext"))))
    assert sum(1 for r in rows if r["pdf"].endswith(".pdf")) == len(with_pdf)
    assert svc.reviews.prisma("thesis").fulltext["pdfs"] == len(with_pdf)
    # the library's paths are a Windows machine's (C:\\Users\\...\\Zotero\\storage): none of
    # the files is here, and review show says so under the count (12 of 12 read as retrieved)
    assert svc.reviews.prisma("thesis").fulltext["pdfs_here"] == 0


def test_review_show_says_how_many_pdfs_are_on_this_machine(tmp_path: Path) -> None:
    pdf = sorted((SHARED_DATA / "sources" / "fulltext" / "pdf").glob("*.pdf"))[0]
    bib = tmp_path / "two.bib"
    bib.write_text(
        "@article{here, title={A paper whose PDF is here}, year={2020}, file={" + str(pdf) + "}}\n"
        "@article{gone, title={A paper whose PDF is elsewhere}, year={2021},"
        " file={C\\:\\Users\\x\\Zotero\\storage\\AB12\\gone.pdf}}\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    with _svc(home) as s:
        s.reviews.create("two", [bib], labels="none")
        session = s.reviews.open("two")
        while session.current_paper() is not None:
            session.decide("include")
        f = s.reviews.prisma("two").fulltext
        assert (f["sought"], f["pdfs"], f["pdfs_here"]) == (2, 2, 1)
    shown = CliRunner().invoke(main, ["--home", str(home), "review", "show", "two"]).output
    assert re.search(r"reports with a PDF\s+2\n\s+of them, the file on this machine\s+1\n", shown)


# --- 3. two reviewers -----------------------------------------------------------------------


def test_two_blind_reviewers_merge_their_files_and_resolve_conflicts(tmp_path: Path) -> None:
    with _svc(tmp_path / "alice") as a, _svc(tmp_path / "bob") as b:
        labels = truth(a)
        for s in (a, b):
            s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        alice = screen_all(a, "don", labels, reviewer="alice")
        bob = screen_all(b, "don", labels, reviewer="bob", flip_every=12)
        (tmp_path / "bob.jsonl").write_text(b.reviews.export_decisions("don"), encoding="utf-8")
    flipped = {d for d, v, _ in bob if v != labels[d]}
    assert len(alice) == len(bob) == 257 and len(flipped) == 257 // 12

    with _svc(tmp_path / "alice") as a:
        got = a.reviews.merge("don", [tmp_path / "bob.jsonl"])
        assert got == {"added": 257, "known": 0, "unmatched": 0, "bad": [], "unnamed": 0,
                       "differs": 0, "notes": 0, "new_reasons": [], "reasons_over": [],
                       "replaced": [], "older": [], "other_reviews": {},
                       "nameless": 0}  # fmt: skip
        assert a.reviews.merge("don", [tmp_path / "bob.jsonl"])["added"] == 0  # idempotent
        found = a.reviews.conflicts("don")
        assert {c.doc_id for c in found} == flipped
        assert set(found[0].votes) == {"alice", "bob"}
        # agreement as sklearn computes it on the records both decided
        va, vb = dict((d, v) for d, v, _ in alice), dict((d, v) for d, v, _ in bob)
        docs = sorted(va)
        (k,) = a.reviews.agreement("don")
        assert (k.a, k.b, k.both, k.agreed) == ("alice", "bob", 257, 257 - len(flipped))
        want = cohen_kappa_score([va[d] for d in docs], [vb[d] for d in docs])
        assert k.kappa == pytest.approx(want) and 0.3 < want < 0.9
        # blind: alice's session holds her own decisions only
        session = a.reviews.open("don", reviewer="alice")
        mine = {session.papers[r].id: v for r, v in session.decisions.items()}
        assert mine == va
        c = a.reviews.prisma("don")
        assert c.conflicts == len(flipped) and c.screened == 257  # awaiting resolution
        target = found[0].doc_id
        a.reviews.resolve("don", target, labels[target], reviewer="carol")
        assert len(a.reviews.conflicts("don")) == len(flipped) - 1
        final = dict((d, v) for d, v, _ in current_decisions(a.store, "don"))
        assert final[target] == labels[target]
        with pytest.raises(ReviewError, match="not a record"):
            a.reviews.resolve("don", "doi:10.0/none", "include")

    home = str(tmp_path / "alice")
    said = CliRunner().invoke(main, ["--home", home, "review", "conflicts", "don"])
    hint = "resolve one: litsift review resolve don ID include|exclude|maybe [--reason REASON]"
    assert said.exit_code == 0 and hint in said.output, said.output
    out = CliRunner().invoke(main, ["--home", home, "review", "conflicts", "don", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert len(data["conflicts"]) == len(flipped) - 1
    assert data["agreement"][0]["kappa"] == pytest.approx(want)
    # a file of decisions without a reviewer name is merged as the review's own
    anon = tmp_path / "anon.jsonl"
    with _svc(tmp_path / "anon") as s:
        s.reviews.create("don", [DONNERS], labels="none")
        screen_all(s, "don", labels, limit=3)
        anon.write_text(s.reviews.export_decisions("don"), encoding="utf-8")
    ok = CliRunner().invoke(main, ["--home", home, "review", "merge", "don", str(anon)])
    assert ok.exit_code == 0 and "3 of them without a reviewer's name" in ok.output


def test_a_damaged_decisions_file_merges_its_good_rows_and_names_the_bad_lines(
    tmp_path: Path,
) -> None:
    """A reviewer's exported file, damaged in transit (a line cut in two, a hand-edited
    decision, a stray JSON list): every good row is merged, each bad one is named by its line;
    a file whose header is gone, or with nothing to merge, is refused as a whole."""
    with _svc(tmp_path / "bob") as b:
        labels = truth(b)
        b.reviews.create("don", [DONNERS], labels="none")
        screen_all(b, "don", labels, reviewer="bob", limit=8)
        lines = b.reviews.export_decisions("don").splitlines()
    assert len(lines) == 1 + 8
    damaged = [
        *lines[:3],  # the header (line 1) and two decisions (lines 2-3)
        lines[3][:40],  # line 4: a decision cut short
        "",  # line 5: blank, ignored
        lines[4].replace('"decision": "', '"decision": "perhaps-'),  # line 6: unknown decision
        "[1, 2]",  # line 7: JSON, not a decision
        *lines[5:],  # lines 8-11: four more decisions
    ]
    path = tmp_path / "bob.jsonl"
    path.write_text("\n".join(damaged) + "\n", encoding="utf-8")
    home = str(tmp_path / "alice")
    with _svc(tmp_path / "alice") as a:
        a.reviews.create("don", [DONNERS], labels="none")
    got = CliRunner().invoke(main, ["--home", home, "review", "merge", "don", str(path)])
    assert got.exit_code == 1, got.output  # as ingest: the good rows kept, the status says
    assert "merged 6 decisions (0 already here, 0 of records not in the review, 3 rows" in (
        got.stdout
    )
    skipped = [ln.strip() for ln in got.stderr.splitlines()]
    assert [ln.split(": ", 2)[1] for ln in skipped] == ["line 4", "line 6", "line 7"], skipped
    assert "not JSON" in skipped[0] and "'perhaps-" in skipped[1] and "a JSON list" in skipped[2]
    with _svc(tmp_path / "alice") as a:
        bobs = [d for d in a.reviews.export_decisions("don").splitlines()[1:] if '"bob"' in d]
        assert len(bobs) == 6
    headless = tmp_path / "headless.jsonl"
    headless.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    refused = CliRunner().invoke(main, ["--home", home, "review", "merge", "don", str(headless)])
    assert refused.exit_code == 1 and "line 1 is not its header" in refused.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text(lines[0] + "\n" + "{oops\n" * 3, encoding="utf-8")
    nothing = CliRunner().invoke(main, ["--home", home, "review", "merge", "don", str(broken)])
    assert nothing.exit_code == 1 and "nothing merged" in nothing.output
    assert "line 2: not JSON" in nothing.output and "2 more rows" in nothing.output
    assert "Traceback" not in got.output + refused.output + nothing.output


# --- 4. PRISMA 2020 flow diagram --------------------------------------------------------------


def _svg_counts(path: Path) -> dict[str, list[str]]:
    """``{box id: [text line, ...]}`` read from the SVG's text elements."""
    ns = "{http://www.w3.org/2000/svg}"
    out: dict[str, list[str]] = {}
    for g in ET.parse(path).iter(f"{ns}g"):
        if (g.get("id") or "").startswith("prisma-"):
            out[str(g.get("id"))] = ["".join(t.itertext()) for t in g.iter(f"{ns}text")]
    return out


def _n(line: str) -> int:
    match = re.search(r"\(n = ([\d,]+)\)", line)
    assert match, line
    return int(match.group(1).replace(",", ""))


def test_the_prisma_diagram_draws_the_counts_review_show_gives(
    svc: LitsiftService, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    labels = truth(svc)
    svc.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
    screen_all(svc, "don", labels, limit=200)  # 57 records left unscreened
    full = screen_all(svc, "don", labels, stage="fulltext", flip_every=4)
    assert full  # some reports excluded at full text, with reasons
    home = str(tmp_path / "home")
    svc.close()
    runner = CliRunner()
    shown = json.loads(
        runner.invoke(main, ["--home", home, "review", "show", "don", "--json"]).output
    )
    c = shown["prisma"]
    out = tmp_path / "prisma.svg"
    made = runner.invoke(main, ["--home", home, "review", "prisma", "don", "-o", str(out)])
    assert made.exit_code == 0, made.output
    box = _svg_counts(out)
    assert _n(box["prisma-identified"][0]) == c["identified"] == 258
    assert [_n(x) for x in box["prisma-identified"][1:]] == list(c["sources"].values())
    assert _n(box["prisma-removed"][1]) == c["duplicates_removed"]
    assert _n(box["prisma-screened"][0]) == c["records"]
    # 57 records wait: the box does not call them screened (a finished review's does)
    assert box["prisma-screened"][0].startswith("Records to screen (n = 257)")
    assert _n(box["prisma-excluded"][0]) == c["excluded"] > 0
    assert {x.strip().rsplit(" (n", 1)[0]: _n(x) for x in box["prisma-excluded"][1:]} == c[
        "reasons"
    ]
    assert _n(box["prisma-pending"][0]) == c["unscreened"] == 57
    f = c["fulltext"]
    assert [_n(x) for x in box["prisma-sought"]] == [f["sought"], f["pdfs"]]
    assert _n(box["prisma-assessed"][0]) == f["assessed"] == len(full)
    assert _n(box["prisma-reports-excluded"][0]) == f["excluded"] > 0
    assert {x.strip().rsplit(" (n", 1)[0]: _n(x) for x in box["prisma-reports-excluded"][1:]} == f[
        "reasons"
    ]
    assert _n(box["prisma-included"][0]) == f["included"] > 0
    png = tmp_path / "prisma.png"
    assert (
        runner.invoke(main, ["--home", home, "review", "prisma", "don", "-o", str(png)]).exit_code
        == 0
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_prisma_diagram_without_matplotlib_says_what_to_install(
    svc: LitsiftService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc.reviews.create("don", [DONNERS])
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the extra were not installed
    with pytest.raises(ConfigError, match="needs matplotlib") as err:
        svc.reviews.prisma_diagram("don", tmp_path / "p.svg")
    assert 'pip install "litsift[plots]"' in err.value.hint
    with pytest.raises(ConfigError, match="cannot draw"):
        svc.reviews.prisma_diagram("don", tmp_path / "p.txt")
