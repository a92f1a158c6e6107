"""Identity matching blocks its fuzzy-title candidates by first author and year (issue 32).

A record's title was compared with every stored paper of its first author's family name, so
matching one record cost more as the store grew (Wang: 523 of the 19.6K sample papers, 2.6 %;
26K of a 1M store). The pool is now the same-family papers whose year can match (within one,
or unknown): the rule is unchanged (:meth:`IdentityIndex._compatible` rejected the others), the
work per record no longer grows with the papers of other years.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from rapidfuzz import fuzz

from litsift.sources.identity import matcher as identity
from litsift.sources.identity.matcher import IdentityIndex, title_key
from litsift.sources.identity.person_keys import first_family
from tests.conftest import PAPERS_GZ


class CountingFuzz:
    """rapidfuzz's ``fuzz`` module, counting the title comparisons (``ratio``)."""

    def __init__(self) -> None:
        self.ratio_calls = 0

    def ratio(self, *args: Any, **kwargs: Any) -> float:
        self.ratio_calls += 1
        return float(fuzz.ratio(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(fuzz, name)


@pytest.fixture(scope="module")
def wang_papers() -> list[dict]:
    """The sample papers whose first author's family name is Wang (real records)."""
    seen: set[str] = set()
    out = []
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        lines = [line for line in f if "Wang" in line]  # parse only the candidates
    for r in map(json.loads, lines):
        if r["id"] in seen or first_family(r.get("authors") or []) != "wang":
            continue
        seen.add(r["id"])
        out.append(r)
    return out


def typo(title: str) -> str:
    """The title with one letter dropped from its longest word (a near-identical title)."""
    words = title.split()
    i = max(range(len(words)), key=lambda j: len(words[j]))
    words[i] = words[i][:-2] + words[i][-1]
    return " ".join(words)


def test_a_record_is_compared_only_with_papers_of_a_matching_year(
    wang_papers: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(wang_papers) > 300
    index = IdentityIndex()
    for r in wang_papers:
        index.add(r["id"], r["title"], r["authors"], r.get("year"), {})
    counting = CountingFuzz()
    monkeypatch.setattr(identity, "fuzz", counting)
    years = sorted({r["year"] for r in wang_papers if r.get("year")})
    probes = [
        next(r for r in wang_papers if r.get("year") == y and len(r["title"].split()) >= 6)
        for y in (years[0], years[len(years) // 2], years[-1])
        if any(r.get("year") == y and len(r["title"].split()) >= 6 for r in wang_papers)
    ]
    assert len(probes) >= 2
    for probe in probes:
        counting.ratio_calls = 0
        found = index.match(typo(probe["title"]), probe["authors"], probe["year"], {})
        assert found is not None and found.doc_id == probe["id"] and found.reason == "title"
        same_key = sum(title_key(r["title"]) == title_key(probe["title"]) for r in wang_papers)
        near = sum(
            r.get("year") is None or abs(r["year"] - probe["year"]) <= 1 for r in wang_papers
        )
        # main compared the title with every Wang paper: len(wang_papers) - same_key calls
        assert counting.ratio_calls <= near, (counting.ratio_calls, near, len(wang_papers))
        assert counting.ratio_calls < len(wang_papers) - same_key


def test_a_record_without_a_year_still_meets_every_paper_of_its_author(
    wang_papers: list[dict],
) -> None:
    index = IdentityIndex()
    for r in wang_papers:
        index.add(r["id"], r["title"], r["authors"], r.get("year"), {})
    probe = next(r for r in reversed(wang_papers) if len(r["title"].split()) >= 6)
    found = index.match(typo(probe["title"]), probe["authors"], None, {})
    assert found is not None and found.doc_id == probe["id"]
    # a paper whose year moved (a later import brought the proceedings year) is met in its
    # new year's block
    index.add(probe["id"], probe["title"], probe["authors"], probe["year"] + 5, {})
    moved = index.match(typo(probe["title"]), probe["authors"], probe["year"] + 5, {})
    assert moved is not None and moved.doc_id == probe["id"]
    assert index.match(typo(probe["title"]), probe["authors"], probe["year"], {}) is None
