"""A review's report, round 2: the PRISMA diagram's boxes add up (unreadable entries are
identified, then removed before screening), a review's RIS export types each record by its
venue and comes back whole (decisions of both stages, exclusion reasons, notes), and a
one-record RIS file that starts with a UTF-8 BOM is read. Real exports of
``shared/data/sources``, the Donners set, real SQLite stores; no mocks."""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import rispy
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.sources.base import SourceRecord, read_text
from litsift.sources.formats import registry
from litsift.store.repositories import Identities
from litsift.store.review_decisions import decide
from litsift.store.review_notes import set_note
from litsift.store.review_stages import final_decisions, stage_rows
from litsift.types import Kind
from tests.unit.sources.test_refmanagers_ris import RM
from tests.unit.test_review_rounds import DONNERS, REASONS, _n, _svg_counts

#: 283 entries: 74 without a title (not readable), two pairs of duplicates
BAD_BIB = RM / "bibtex" / "bbt-2660_plus-in-field-name.bib"
WOS = RM / "database-exports" / "calcore_web-of-science-plaintext-c3-we.txt"
IEEE = RM / "ris" / "litstudy_ieee-xplore-export.ris"
BOM_RIS = RM / "ris" / "asreview_baseline_100-records_bom.ris"

pytestmark = pytest.mark.skipif(
    not (DONNERS.is_file() and BAD_BIB.is_file()), reason="the shared data is not here"
)


def _cli(home: Path, *args: str) -> str:
    done = CliRunner().invoke(main, ["--home", str(home), *args])
    assert done.exit_code in (0, 1), done.output
    assert "Traceback" not in done.output
    return done.output


def _final(svc: LitsiftService, name: str, stage: str) -> dict[str, tuple[str, str]]:
    """``{doc_id: (decision, reason)}`` of the review's final decisions at ``stage``."""
    return {
        r.doc_id: (r.decision, r.reason)
        for r in final_decisions(stage_rows(svc.store, name, stage))
    }


# --- 1. the PRISMA diagram adds up ------------------------------------------------------------


def test_every_prisma_box_is_the_one_above_less_its_side_boxes(tmp_path: Path) -> None:
    """A review of the Donners set and a real BibTeX file with 74 entries that have no title:
    the diagram said 'identified 541 - 2 duplicates - 74 not readable' and then '467 screened'
    (the unreadable entries were left out of 'identified'). Every box must add up, equal what
    ``review show`` says, and the title/abstract and full-text boxes below it too (maybes,
    records awaiting resolution, records not yet screened or assessed)."""
    pytest.importorskip("matplotlib")
    home = tmp_path / "home"
    said = _cli(home, "review", "new", "mix", "--from", str(DONNERS), "--from", str(BAD_BIB),
                "--labels", "none", "--reasons", ",".join(REASONS))  # fmt: skip
    got = re.search(r"([\d,]+) records identified in 2 files, ([\d,]+) duplicates grouped, "
                    r"([\d,]+) to screen, ([\d,]+) bad entries skipped", said)  # fmt: skip
    assert got, said
    identified, dups, records, bad = (int(g.replace(",", "")) for g in got.groups())
    assert (identified, bad) == (258 + 283, 74)  # every line of the set, every entry of the file
    assert identified - dups - bad == records
    with LitsiftService(get_paths(home)) as svc:
        ids = [r.doc_id for r, _ in svc.reviews.records("mix")]
        s = svc.store
        decide(s, "mix", [(d, "include") for d in ids[:12]])
        decide(s, "mix", [(d, "maybe") for d in ids[12:16]])
        for i, d in enumerate(ids[16:60]):
            decide(s, "mix", [(d, "exclude")], reason=REASONS[i % 3])
        decide(s, "mix", [(ids[60], "include")], reviewer="alice")  # a conflict: sought
        decide(s, "mix", [(ids[60], "exclude")], reviewer="bob", reason=REASONS[0])
        full = ids[:16]  # sought: the includes, the maybes and the conflict
        decide(s, "mix", [(d, "include") for d in full[:5]], stage="fulltext")
        for i, d in enumerate(full[5:9]):
            decide(s, "mix", [(d, "exclude")], stage="fulltext", reason=REASONS[i % 2])
        decide(s, "mix", [(d, "maybe") for d in full[9:11]], stage="fulltext")
        decide(s, "mix", [(full[11], "include")], stage="fulltext", reviewer="alice")
        decide(s, "mix", [(full[11], "exclude")], stage="fulltext", reviewer="bob")
    c = json.loads(_cli(home, "review", "show", "mix", "--json"))["prisma"]
    f = c["fulltext"]
    out = tmp_path / "prisma.svg"
    _cli(home, "review", "prisma", "mix", "-o", str(out))
    box = _svg_counts(out)
    first = {b: _n(lines[0]) for b, lines in box.items() if b != "prisma-removed"}
    removed = [_n(x) for x in box["prisma-removed"][1:]]

    # what review show says is what the diagram draws
    assert first["prisma-identified"] == c["identified"] == identified
    assert [_n(x) for x in box["prisma-identified"][1:]] == list(c["sources"].values())
    assert sum(c["sources"].values()) == c["identified"]
    assert removed == [c["duplicates_removed"], c["bad"]] == [dups, 74]
    assert first["prisma-screened"] == c["records"] == records
    assert first["prisma-excluded"] == c["excluded"] == 44
    assert first["prisma-pending"] == c["unscreened"] == records - 12 - 4 - 44 - 1
    assert first["prisma-sought"] == f["sought"] == 12 + 4 + 1
    assert first["prisma-unassessed"] == f["unassessed"] == 17 - 12
    assert first["prisma-assessed"] == f["assessed"] == 12
    assert first["prisma-reports-excluded"] == f["excluded"] == 4
    assert first["prisma-reports-maybe"] == f["maybe"] == 2
    assert first["prisma-reports-conflicts"] == f["conflicts"] == 1
    assert first["prisma-included"] == f["included"] == 5

    # each main box is the one above less its side boxes
    assert first["prisma-identified"] - sum(removed) == first["prisma-screened"]
    assert (first["prisma-screened"] - first["prisma-excluded"] - first["prisma-pending"]
            == first["prisma-sought"])  # fmt: skip
    assert first["prisma-sought"] - first["prisma-unassessed"] == first["prisma-assessed"]
    assert (first["prisma-assessed"] - first["prisma-reports-excluded"]
            - first["prisma-reports-maybe"] - first["prisma-reports-conflicts"]
            == first["prisma-included"])  # fmt: skip
    # indented lines are parts of their box's count
    for b in ("prisma-excluded", "prisma-reports-excluded"):
        assert sum(_n(x) for x in box[b][1:]) == first[b]
    assert [_n(x) for x in box["prisma-sought"][1:]] == [f["pdfs"], c["maybe"], c["conflicts"]]
    assert (c["maybe"], c["conflicts"]) == (4, 1)


# --- 2. a review's RIS export: types, and a round trip ------------------------------------------


def _key(title: str) -> str:
    """A title's letters and digits, case-folded, without markup (``<i>Journal</i>``)."""
    return re.sub(r"\W+", "", html.unescape(re.sub(r"<[^>]*>", "", title))).casefold()


def _wos_types(path: Path) -> dict[str, str]:
    """``{title key: "J" or "C"}`` of a Web of Science plain-text export (its ``PT``)."""
    out: dict[str, str] = {}
    for block in read_text(path).split("\nER\n"):
        pt = re.search(r"^PT (\w)", block, re.MULTILINE)
        ti = re.search(r"^TI (.*(?:\n   .*)*)", block, re.MULTILINE)
        if pt and ti:
            out[_key(ti.group(1))] = pt.group(1)
    return out


def test_a_review_s_ris_export_types_records_by_their_venue(tmp_path: Path) -> None:
    """TY follows the record: the 92 journal articles of a real Web of Science export are JOUR
    (BIOCHEMISTRY, SUSTAINABILITY, COMPUTER, TECHTRENDS and PNAS were CONF: an upper-case
    journal title was taken for a conference acronym), its conference papers CONF, IEEE
    Xplore's records the type of their own file, and the Donners records (no venue) GEN."""
    home = tmp_path / "home"
    for name, path in (("wos", WOS), ("ieee", IEEE), ("don", DONNERS)):
        _cli(home, "review", "new", name, "--from", str(path), "--labels", "none")
    typed = {}
    for name in ("wos", "ieee", "don"):
        out = tmp_path / f"{name}.ris"
        _cli(home, "review", "export", name, "--format", "ris", "-o", str(out))
        typed[name] = rispy.loads(out.read_text(encoding="utf-8"))

    truth = _wos_types(WOS)
    pairs = Counter()
    for ref in typed["wos"]:
        pairs[(truth[_key(ref["title"])], ref["type_of_reference"])] += 1
    assert pairs[("J", "JOUR")] == 92 and pairs[("J", "CONF")] == 0
    # book-series titles without a conference word stay JOUR (a T2 of unknown kind)
    assert pairs[("C", "CONF")] >= 48 and pairs[("C", "CONF")] + pairs[("C", "JOUR")] == 54
    ieee = {r["title"]: r["type_of_reference"] for r in rispy.load(IEEE, encoding="utf-8")}
    assert {r["title"]: r["type_of_reference"] for r in typed["ieee"]} == ieee
    assert Counter(ieee.values()) == {"CONF": 17, "JOUR": 8}
    assert {r["type_of_reference"] for r in typed["don"]} == {"GEN"}
    assert not any(r.get("secondary_title") for r in typed["don"])  # GEN: no venue known


def test_a_review_s_ris_export_comes_back_with_both_stages_reasons_and_notes(
    tmp_path: Path,
) -> None:
    """Export a review with title/abstract and full-text decisions, exclusion reasons and notes
    as RIS; ``review new --from`` that file in a fresh home: the same records, decisions of
    each stage with their reasons, notes, the review's reasons and the same TY lines. The
    exclusion reasons were lost (every exclude came back without one) and full-text decisions
    were not in the file at all; a ``--stage fulltext`` export came back as title/abstract
    decisions. The copy's reasons were rebuilt from the decisions, in the order first used
    (key 1 meant another reason, an unused one was gone) and its criteria and keywords lost."""
    home = tmp_path / "home"
    criteria = "Pharmacokinetic studies of\nhemophilia drugs; children and adults"
    _cli(home, "review", "new", "src", "--from", str(IEEE), "--from", str(DONNERS),
         "--labels", "none", "--reasons", ",".join([*REASONS, "not in English"]),
         "--criteria", criteria, "--keywords", "pharmacokinetic, emicizumab")  # fmt: skip
    with LitsiftService(get_paths(home)) as svc:
        ids = [r.doc_id for r, _ in svc.reviews.records("src")]
        s = svc.store
        decide(s, "src", [(d, "include") for d in ids[:6]])
        decide(s, "src", [(d, "maybe") for d in ids[6:8]])
        for i, d in enumerate(ids[8:20]):
            decide(s, "src", [(d, "exclude")], reason=REASONS[i % 3] if i % 4 else "")
        decide(s, "src", [(ids[0], "include"), (ids[6], "exclude")], stage="fulltext")
        decide(s, "src", [(ids[1], "exclude")], stage="fulltext", reason="wrong design")
        decide(s, "src", [(ids[2], "maybe")], stage="fulltext")
        set_note(s, "src", ids[1], "animal study; no PK data")
        set_note(s, "src", ids[9], "Exclusion criteria unclear")
        set_note(s, "src", ids[30], "check the erratum")  # a note on an unscreened record
        want = {st: _final(svc, "src", st) for st in ("tiab", "fulltext")}
        notes = {r.doc_id: r.note for r, _ in svc.reviews.records("src") if r.note}
        dois = {d: got.get("doi") for d, got in Identities(s).ids_of_docs(Kind.PAPER, ids).items()}
    assert {v for _, v in want["tiab"].values()} == {"", *REASONS}
    assert want["fulltext"][ids[1]] == ("exclude", "wrong design")

    tiab_ris, full_ris = tmp_path / "src.ris", tmp_path / "full.ris"
    _cli(home, "review", "export", "src", "--format", "ris", "-o", str(tiab_ris))
    _cli(home, "review", "export", "src", "--format", "ris", "--stage", "fulltext",
         "-o", str(full_ris))  # fmt: skip
    fresh = tmp_path / "fresh"
    said = _cli(fresh, "review", "new", "back", "--from", str(tiab_ris))
    assert "to screen" in said and "bad" not in said, said
    _cli(fresh, "review", "new", "full", "--from", str(full_ris))
    with LitsiftService(get_paths(fresh)) as svc:
        back = [r.doc_id for r, _ in svc.reviews.records("back")]
        # the same records in the same order; ``ID`` is the record id again, except where the
        # record also has a DOI (Donners' lines 72 and 155, one work grouped: its DOI names it)
        assert len(back) == len(ids)
        new = dict(zip(ids, back, strict=True))
        assert all(n in (o, f"doi:{dois.get(o)}") for o, n in new.items())
        assert sum(o != n for o, n in new.items()) <= 1
        assert {st: _final(svc, "back", st) for st in ("tiab", "fulltext")} == {
            st: {new[d]: v for d, v in got.items()} for st, got in want.items()
        }
        assert {r.doc_id: r.note for r, _ in svc.reviews.records("back") if r.note} == {
            new[d]: v for d, v in notes.items()
        }
        assert svc.reviews.reasons("back") == [*REASONS, "not in English"]  # keys 1-9 hold
        info = svc.reviews.info("back")
        assert (info.criteria, info.keywords) == (" ".join(criteria.split()),
                                                  ("pharmacokinetic", "emicizumab"))  # fmt: skip
        # the full-text export: its records, their full-text decisions at the full-text stage
        assert _final(svc, "full", "fulltext") == {new[d]: v for d, v in want["fulltext"].items()}
        assert _final(svc, "full", "tiab") == {new[d]: want["tiab"][d] for d in ids[:8]}
    again = tmp_path / "again.ris"
    _cli(fresh, "review", "export", "back", "--format", "ris", "-o", str(again))

    def lines(path: Path) -> list[str]:
        return [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln[:2] != "ID"]

    assert lines(again) == lines(tiab_ris)  # TY, LB, N1 ...: the same file


# --- 3. a UTF-8 BOM before a file's only record --------------------------------------------------


def test_a_one_record_ris_file_with_a_bom_is_read(tmp_path: Path) -> None:
    """The first record of a real RIS export that starts with a UTF-8 BOM, alone in its file:
    it was 'not ris (nor any other format litsift reads)' (the sniffer looked for 'TY  - ' at
    a line start; a bigger file had one on a later line). Read as RIS, made into a review, and
    so are the BOM file of two records and the one record in UTF-16 with its BOM."""
    raw = BOM_RIS.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfTY  - ")
    ends = [m.end() for m in re.finditer(rb"\nER  - ?\r?\n", raw)]
    one, two = tmp_path / "one.ris", tmp_path / "two.ris"
    one.write_bytes(raw[: ends[0]])
    two.write_bytes(raw[: ends[1]])
    wide = tmp_path / "one-utf16.ris"
    wide.write_bytes(raw[3 : ends[0]].decode("utf-8").encode("utf-16"))
    for path, n in ((one, 1), (two, 2), (wide, 1)):
        fmt = registry.detect(path)
        assert fmt is not None and fmt.name == "ris", path
        items = list(fmt.read(path))
        assert len(items) == n and all(isinstance(i, SourceRecord) and i.title for i in items)
        said = _cli(tmp_path / "home", "review", "new", path.stem, "--from", str(path))
        assert f"{n} to screen" in said and "bad" not in said, said
    ingested = _cli(tmp_path / "home", "ingest", "papers", str(one))
    assert "1 read" in ingested and "0 bad" in ingested, ingested
