"""Author-year citations in an answer (``(Smith 2020)``, ``Smith and Lee (2019)``) resolved
against the papers whose passages were sent: real papers from ../shared/data, and an answer
from the real scripted server on 127.0.0.1. One that names a paper sent is checked as that
paper's ``[n]``; one that names none is flagged; a year or a name alone is no citation."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from litsift.llm.answer import answer_question, answer_to_json
from litsift.llm.author_year import NOT_NAMES, find_author_year, fold_name
from litsift.llm.citations import build_passages, verify_citations
from litsift.llm.client import ChatClient
from litsift.types import Hit, Paper
from litsift.types.llm import Passage
from tests.llm_server import ScriptedLLMServer, chat_reply, llm_settings, sample_hits

QUESTION = "How can word alignment be learned without parallel supervision?"


@pytest.fixture(scope="module")
def passages() -> tuple[Passage, ...]:
    """Zhang and van Genabith 2021 [1-3], Zhao et al. 2021, Rajaee and Pilehvar 2021, and
    Doğruöz et al. 2021 (a first author's name with diacritics), three passages at most each."""
    hits = sample_hits(3) + sample_hits(1, skip=26)
    return build_passages(hits, chunk_words=60)


def numbers(passages: tuple[Passage, ...], family: str) -> tuple[int, ...]:
    """The passage numbers of the paper whose first author's name ends with ``family``."""
    found = tuple(p.number for p in passages if p.record.authors[0].endswith(family))  # type: ignore[union-attr]
    assert found
    return found


@pytest.mark.parametrize(
    "cited",
    [
        "(Zhang 2021)",
        "(Zhang et al., 2021)",
        "(Zhang and van Genabith, 2021)",
        "(e.g., Zhang & van Genabith 2021)",
        "Zhang and van Genabith (2021)",
        "Zhang et al. (2021)",
    ],
)
def test_an_author_year_citation_of_a_paper_sent_is_checked_as_its_passages(
    passages: tuple[Passage, ...], cited: str
) -> None:
    """It was neither checked nor flagged: the sentence cited nothing and the paper was not
    among the references."""
    zhang = numbers(passages, "Zhang")
    v = verify_citations(
        f"Alignment can be learned without parallel data {cited}.", len(passages), passages
    )
    (sentence,) = v.sentences
    assert sentence.citations == zhang and v.invented == ()
    assert cited in sentence.text and "".join(f"[{n}]" for n in zhang) in sentence.text


def test_diacritics_and_several_works_in_one_parenthesis(passages: tuple[Passage, ...]) -> None:
    text = (
        "Code-switching and isotropy are studied (Dogruoz et al., 2021; Rajaee & Pilehvar, 2021)."
    )
    v = verify_citations(text, len(passages), passages)
    assert v.sentences[0].citations == numbers(passages, "Doğruöz") + numbers(passages, "Rajaee")
    again = verify_citations("As Doğruöz et al. (2021) argue, it varies.", len(passages), passages)
    assert again.sentences[0].citations == numbers(passages, "Doğruöz")


def test_an_author_year_citation_of_no_paper_sent_is_flagged_and_kept(
    passages: tuple[Passage, ...],
) -> None:
    text = (
        "Jones et al. (2018) found the opposite. "
        "Alignment improves with more data (Zhang 2019; Smith 2021). It holds [1]."
    )
    v = verify_citations(text, len(passages), passages)
    assert v.invented == ("Jones et al. (2018)", "Zhang 2019", "Smith 2021")
    assert [s.invented for s in v.sentences] == [
        ("Jones et al. (2018)",),
        ("Zhang 2019", "Smith 2021"),
        (),
    ]
    assert [s.citations for s in v.sentences] == [(), (), (1,)]
    assert "(Zhang 2019; Smith 2021)." in v.text and v.fabricated == ()


def test_a_marker_the_model_wrote_after_the_citation_is_not_repeated(
    passages: tuple[Passage, ...],
) -> None:
    v = verify_citations("Zhang et al. (2021) [2] align words.", len(passages), passages)
    assert v.sentences[0].citations == (2,) and v.text == "Zhang et al. (2021) [2] align words."


@pytest.mark.parametrize(
    "text",
    [
        "In 2020, Zhang showed that alignment helps.",
        "Zhang showed it; results from 2021 agree.",
        "The corpus was released (2021) and updated (March 2021).",
        "The Transformer (2017) and BERT (2018) were tested on WMT data (WMT 2014).",
        "Scores rose (in 2021) by 3 points (n = 2021).",
        "GloVe: Global Vectors for Word Representation (2014) is older.",
        "It was published in Nature Communications (2020).",
    ],
)
def test_a_year_or_a_name_alone_is_no_citation(passages: tuple[Passage, ...], text: str) -> None:
    v = verify_citations(text, len(passages), passages)
    assert v.text == text and v.invented == () and v.cited == ()


def test_a_name_that_may_be_a_title_counts_when_it_names_a_paper_sent(
    passages: tuple[Passage, ...],
) -> None:
    """``the Transformer (2017)`` is no citation, but ``the Zhang et al. (2021) aligner`` is."""
    v = verify_citations("We use the Zhang et al. (2021) aligner.", len(passages), passages)
    assert v.sentences[0].citations == numbers(passages, "Zhang")


def test_et_al_does_not_end_a_sentence(passages: tuple[Passage, ...]) -> None:
    """``Zhang et al. (2021)`` was cut after ``al.``: the citation was split from its sentence."""
    v = verify_citations("We follow Zhang et al. (2021) here. Next.", len(passages), passages)
    assert [s.text for s in v.sentences][1] == "Next."


def test_an_answer_lists_the_paper_cited_by_name_and_flags_an_invented_one(
    srv: ScriptedLLMServer, passages: tuple[Passage, ...]
) -> None:
    hits = sample_hits(3) + sample_hits(1, skip=26)
    srv.push(
        chat_reply(
            "Alignment can be learned without parallel data (Zhang and van Genabith, 2021). "
            "Jones (2018) disagrees."
        ),
        chat_reply(json.dumps([{"pair": 1, "label": "Attributable"}])),
    )
    with ChatClient(llm_settings(srv)) as client:
        ans = answer_question(client, QUESTION, hits, chunk_words=60, judge=True)
    zhang = numbers(passages, "Zhang")
    assert ans.sentences[0].citations == zhang and ans.references[0].record.id == hits[0].docid
    assert ans.invented == ("Jones (2018)",) and ans.sentences[1].invented == ("Jones (2018)",)
    assert any("Jones (2018)" in n for n in ans.notes)
    judged = srv.requests[1].body["messages"][-1]["content"]
    assert passages[zhang[0] - 1].text[:80] in judged  # the judge checks the paper's passages
    assert answer_to_json(ans)["invented"] == ["Jones (2018)"]


# -- properties -------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnoprstuvwyzáéíóöüäçñšćłğ"
families = (
    st.text(alphabet=_LETTERS, min_size=2, max_size=12)
    .map(lambda s: s[:1].upper() + s[1:])
    .filter(lambda s: s[:1].isupper() and len(s) == len(s.upper()))
)
years = st.integers(min_value=1900, max_value=2099)
FORMS = [
    "({f} {y})",
    "({f}, {y})",
    "({f} et al., {y})",
    "({f} and Lee, {y})",
    "(see {f} & Lee {y})",
    "{f} ({y})",
    "{f} et al. ({y})",
    "{f} and Lee ({y})",
]


def _paper(author: str, year: int) -> tuple[Passage, ...]:
    paper = Paper(
        id="p1",
        title="A study",
        abstract="We study alignment.",
        authors=(author, "Ann Lee"),
        year=year,
    )
    other = Paper(id="p2", title="Another", abstract="Unrelated.", authors=("Bo Other",), year=year)
    return build_passages(
        [Hit(record=other, rank=1, score=1.0), Hit(record=paper, rank=2, score=0.5)]
    )


def _plain(name: str) -> bool:
    """Not a word that reads as something else before a year (``May``, ``In``), nor a suffix
    after a name (``Jr``)."""
    return name.lower() not in NOT_NAMES | {"jr", "sr", "ii", "iii", "iv"}


@settings(max_examples=300, deadline=None)
@given(
    family=families,
    year=years,
    form=st.sampled_from(FORMS),
    folded=st.booleans(),
    comma=st.booleans(),
)
def test_any_form_of_the_first_authors_family_name_and_year_resolves(
    family: str, year: int, form: str, folded: bool, comma: bool
) -> None:
    assume(_plain(family))
    author = f"{family}, Jo" if comma else f"Jo {family}"
    sent = _paper(author, year)
    written = fold_name(family).capitalize() if folded else family
    assume(fold_name(written) == fold_name(family) and _plain(written))
    cited = form.format(f=written, y=year)
    v = verify_citations(f"Alignment works {cited}.", len(sent), sent)
    assert v.sentences[0].citations == (2,) and v.invented == (), cited
    other_year = verify_citations(
        f"Alignment works {form.format(f=written, y=year + 1 if year < 2099 else 1950)}.",
        len(sent),
        sent,
    )
    assert other_year.cited == () and len(other_year.invented) == 1


prose_words = st.sampled_from(
    ["alignment", "works", "the", "model", "in", "data", "since", "results"]
)


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(st.one_of(prose_words, families, years.map(str)), min_size=1, max_size=20),
    years_in=st.lists(years, max_size=3),
)
def test_names_and_years_in_prose_are_no_citation(words: list[str], years_in: list[int]) -> None:
    """A year without an author beside it, or a name without a year in parentheses after it."""
    text = " ".join(words) + "".join(f" in {y}" for y in years_in) + "."
    assume("(" not in text)
    assert find_author_year(text) == []
    sent = _paper("Jo Zhang", 2021)
    assert verify_citations(text, len(sent), sent).text == text


@settings(max_examples=200, deadline=None)
@given(family=families, year=years, form=st.sampled_from(FORMS), known=st.booleans())
def test_checking_a_checked_answer_changes_nothing(
    family: str, year: int, form: str, known: bool
) -> None:
    assume(_plain(family))
    sent = _paper(f"Jo {family}" if known else "Jo Zhang", year)
    once = verify_citations(f"It works {form.format(f=family, y=year)}. Next [1].", len(sent), sent)
    twice = verify_citations(once.text, len(sent), sent)
    assert twice.text == once.text and twice.cited == once.cited and twice.invented == once.invented
