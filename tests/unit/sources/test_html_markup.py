"""HTML markup and character references from real sources are not stored raw.

Titles and abstracts (and venues) came into the store as the sources wrote them:
``&lt;p&gt;Concomitant Use of rFVIIa ...&lt;/p&gt;``, ``alpha<inf>1</inf>-adrenoceptor``,
``P &amp;lt; 0.0001``, ``Big Data &amp; Society``, ``distributions of <i>b</i><sup>2</sup>``,
and the app showed them so. Now :func:`litsift.sources.base.scrub_controls`, which every
importer's records pass through, removes the markup (keeping its text) and decodes the
references (:mod:`litsift.text.markup`), while comparisons (``p <.05``, ``<=2``) stay.

Data: the labelled screening sets of ``../shared/data/eval/screening`` (SYNERGY, built from
OpenAlex, PubMed and older CSVs; see its README) and the Crossref and OpenAlex API responses of
``../shared/data/sources`` (see its README). Every expected string below was read out of those
files (``zcat ... | grep``), not made up.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord, scrub_controls
from litsift.sources.formats.screening_jsonl import read_screening_set
from litsift.store.repo import Store

SETS = shared_data_dir() / "eval" / "screening"
#: the sets that hold markup or references (the Cohen sets, from PubMed, hold none)
MARKED = (
    "Bannach-Brown_2019",
    "Donners_2021",
    "Kitchenham_2010",
    "Meijboom_2021",
    "Nagtegaal_2019",
    "Nelson_2002",
    "Oud_2018",
)
SRC = shared_data_dir() / "sources"
CROSSREF_BOETTIGER = SRC / "crossref" / "works_query-ecology_query.author-carl-boettiger.json"
CROSSREF_WIDGET_2 = SRC / "crossref" / "works_query-widget_cursor-page2.json"
CROSSREF_PEERJ = (
    SRC / "crossref" / "journals-2167-8359_works_query-ecology_with-jats-abstracts.json"
)
OPENALEX_CITED_BY = (
    SRC / "openalex" / "api" / "works_filter-cited_by_two-works_per-page-200_cursor.json"
)

#: references and tags that must not reach the store (HTML's and the ones in these files)
RAW_REF = re.compile(
    r"&(?:amp|lt|gt|quot|apos|nbsp|ndash|mdash|[lr][sd]quo|mu|sup2|#[0-9]+|#x[0-9a-f]+);", re.I
)
RAW_TAG = re.compile(
    r"</?(?:sub|sup|inf|i|b|bi|em|strong|u|scp|sc|span|italic|p|br|h[1-6]|abstracttext|emphasis"
    r"|urlref|emailref|subtitle|(?:jats|mml|ns[0-9]+):[\w.-]+)(?:\s[^<>]*)?/?>",
    re.I,
)


def _texts(home: Path, columns: str = "title, abstract") -> list[str]:
    with Store(home / "data" / "litsift.sqlite") as store:
        rows = store._conn.execute(f"SELECT {columns} FROM papers").fetchall()
    return [" ".join(str(v or "") for v in row) for row in rows]


@pytest.fixture(scope="module")
def screening_files() -> str:
    """The marked sets' lines as the files hold them."""
    return "".join(
        gzip.open(SETS / f"{name}.jsonl.gz", "rt", encoding="utf-8").read() for name in MARKED
    )


@pytest.fixture(scope="module")
def screening_texts(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Titles and abstracts stored by ``litsift review new --from SET`` for the marked sets
    (the writer path every import takes), one record a line."""
    home = tmp_path_factory.mktemp("home")
    args = ["--home", str(home), "review", "new", "markup"]
    for name in MARKED:
        args += ["--from", str(SETS / f"{name}.jsonl.gz")]
    out = CliRunner().invoke(main, [*args, "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["prisma"]["identified"] == 8174  # every line of the 7 sets
    return "\n".join(_texts(home))


def test_no_stored_title_or_abstract_of_the_screening_sets_holds_markup(
    screening_texts: str,
) -> None:
    """Before: 126 ``&amp;``, 376 ``&lt;``, 498 ``<p>``, 174 ``<inf>`` ... stored as given."""
    assert RAW_REF.findall(screening_texts) == []
    assert RAW_TAG.findall(screening_texts) == []


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        # Donners_2021 W3027531004: an OpenAlex title escaped once more than it should be
        (
            "&lt;p&gt;Concomitant Use of rFVIIa and Emicizumab in People with Hemophilia A with "
            "Inhibitors: Current Perspectives and Emerging Clinical Evidence&lt;/p&gt;",
            "Concomitant Use of rFVIIa and Emicizumab in People with Hemophilia A with "
            "Inhibitors: Current Perspectives and Emerging Clinical Evidence",
        ),
        ("Prazosin (alpha<inf>1</inf>-adrenoceptor", "Prazosin (alpha1-adrenoceptor"),
        ("(2.0 g/m<sup>2</sup>) and G-CSF", "(2.0 g/m2) and G-CSF"),
        ("estradiol-desogestrel (E<sub>2</sub>-DG)", "estradiol-desogestrel (E2-DG)"),
        ("Brooks, Jr's <bi>The Mythical Man-Month (MMM)</bi> over", "Jr's The Mythical Man"),
        ("antibody ( <scp>ACE</scp> 910)", "antibody ( ACE 910)"),
        ("<ns4:p>Several new therapies for hemophilia", "Several new therapies for hemophilia"),
        (
            '<AbstractText Label="OBJECTIVES" NlmCategory="OBJECTIVE">The efficacy and safety',
            "The efficacy and safety",
        ),
        ("<h2>Abstract</h2><h3>Purpose</h3> The objectives", "Abstract Purpose The objectives"),
        (
            'scaling (&lt;Emphasis Type="SmallCaps"&gt;mds&lt;/Emphasis&gt;), a statistical',
            "scaling (mds), a statistical",
        ),
        ("unclearness of participant&#39;s oral", "unclearness of participant's oral"),
        ("120 &#x03A9; for the real part", "120 Ω for the real part"),
        ("slopes (0&#176;, 15&#176;, and 30&#176;)", "slopes (0°, 15°, and 30°)"),
        # escaped once more than they should be (Nelson, Kitchenham, Meijboom)
        ("BMD (+2.5%; P &amp;lt; 0.0001)", "BMD (+2.5%; P < 0.0001)"),
        ("the Social &amp;amp; Psychological", "the Social & Psychological"),
        ("etanercept &amp;ndash; bioequivalence", "etanercept – bioequivalence"),
        # comparisons are text: decoded, or kept as they are
        ("patients aged &lt;12 years with", "patients aged <12 years with"),
        ("by 60% and 101% (p <.05), respecti", "by 60% and 101% (p <.05), respecti"),
        ("a CGI-I score of <=2 or <=3.", "a CGI-I score of <=2 or <=3."),
    ],
)
def test_the_text_inside_the_markup_is_kept(
    screening_files: str, screening_texts: str, raw: str, stored: str
) -> None:
    """Records picked from the files (``raw`` as the file has it, JSON escapes undone)."""
    assert json.dumps(raw, ensure_ascii=False)[1:-1] in screening_files  # the file holds it
    assert stored in screening_texts
    assert raw == stored or raw not in screening_texts


def test_comparisons_in_the_real_sets_survive_every_record() -> None:
    """In every record of all 12 sets, each ``<`` / ``>`` that starts a comparison (``p <.05``,
    ``<=2``, ``&lt;12``, ``(&gt;1000 nM)``, ``P &amp;lt; 0.0001``) is still there after
    cleaning, as ``<`` / ``>``."""
    lt, gt = r"(?:<|&(?:amp;)?lt;)", r"(?<=[\s(\[])(?:>|&(?:amp;)?gt;)"
    before_re = re.compile(rf"(?:{lt}|{gt})(?=\s?[\d.=$])")
    after_re = re.compile(r"(?:<|(?<=[\s(\[])>)(?=\s?[\d.=$])")
    checked = 0
    for path in sorted(SETS.glob("*.jsonl.gz")):
        for item, _ in read_screening_set(path):
            if not isinstance(item, SourceRecord):
                continue
            before = {f: len(before_re.findall(getattr(item, f))) for f in ("title", "abstract")}
            scrub_controls(item)
            for field, n in before.items():
                assert len(after_re.findall(getattr(item, field))) == n, (path, item.location)
                checked += n
    assert checked > 1000  # the sets hold well over a thousand comparisons


def _ingest(home: Path, path: Path) -> list[str]:
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(path), "--json"])
    assert "Traceback" not in out.output
    assert json.loads(out.output)["added"] > 0  # exit 1: a Work without a title is a bad entry
    return _texts(home, "title, abstract, venue, authors")


def test_crossref_venues_are_decoded(tmp_path: Path) -> None:
    """Crossref's ``container-title`` holds ``&amp;``; the reader keeps it as given."""
    texts = "\n".join(_ingest(tmp_path / "a", CROSSREF_BOETTIGER))
    texts += "\n" + "\n".join(_ingest(tmp_path / "b", CROSSREF_WIDGET_2))
    assert "Big Data & Society" in texts
    assert "Seventh International Learning Analytics & Knowledge Conference" in texts
    assert RAW_REF.findall(texts) == [] and RAW_TAG.findall(texts) == []


def test_openalex_titles_lose_their_markup(tmp_path: Path) -> None:
    """The OpenAlex reader cleans abstracts but not titles: ``<i>b</i><sup>2</sup>``."""
    texts = "\n".join(_ingest(tmp_path / "h", OPENALEX_CITED_BY))
    assert "Empirical results for the distributions of b2 and √b1" in texts
    assert RAW_REF.findall(texts) == [] and RAW_TAG.findall(texts) == []


def test_crossref_jats_abstracts_stay_clean(tmp_path: Path) -> None:
    """PeerJ's ``<jats:sec><jats:title>``/``<jats:italic>`` abstracts and ``<i>`` titles."""
    texts = "\n".join(_ingest(tmp_path / "h", CROSSREF_PEERJ))
    assert "Resistance strategies of Phragmites australis (common reed)" in texts
    assert RAW_REF.findall(texts) == [] and RAW_TAG.findall(texts) == []


def _scrubbed(text: str) -> SourceRecord:
    record = SourceRecord("record 1", title=text, abstract=text, venue=text, authors=[text])
    assert scrub_controls(record) == []  # markup is no defect of the file: no warning
    return record


def test_the_examples_of_the_defect() -> None:
    record = _scrubbed("CO<sub>2</sub> &amp; H<sup>+</sup>, p &lt; 0.05, &#946; = &#x3b2;")
    assert record.title == record.abstract == record.venue == "CO2 & H+, p < 0.05, β = β"
    assert record.authors == ["CO2 & H+, p < 0.05, β = β"]
    # decoded once per round, at most two rounds; legacy references without ";" are text
    assert _scrubbed("&amp;amp;lt; AT&T &not &para").title == "&lt; AT&T &not &para"
    assert _scrubbed("<p>One</p><p>Two<br/>three</p>").abstract == "One Two three"
    assert _scrubbed("List<String> <i and j> <<ETX>>").title == "List<String> <i and j> <<ETX>>"


#: text without ``<`` or ``&`` (nor control characters, which scrub_controls removes anyway)
PLAIN = st.text(st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="<&"))


@given(PLAIN)
def test_text_without_markup_characters_is_unchanged(text: str) -> None:
    record = _scrubbed(text)
    assert record.title == record.abstract == record.venue == text


@given(
    st.text("abcxyzp ", min_size=1).filter(str.strip),
    st.sampled_from(["<", "<=", ">", ">=", "< ", " <", " < ", "&lt;", "&lt; "]),
    st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3})?( years)?", fullmatch=True),
)
def test_comparisons_keep_their_sign(left: str, sign: str, right: str) -> None:
    text = f"{left}{sign}{right}"
    kept = " ".join(text.replace("&lt;", "<").split())
    assert _scrubbed(text).abstract in (text, kept)
    assert "<" in _scrubbed(text).abstract or ">" in _scrubbed(text).abstract
