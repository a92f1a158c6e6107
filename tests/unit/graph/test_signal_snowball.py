"""The citation signal and snowballing on a real review set with references (Donners_2021:
258 records, 15 included, OpenAlex referenced_works), each checked against a second, plain
computation from the file's lists."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from litsift.graph.signal import SignalFeatures, citation_signal
from litsift.graph.snowball import set_graph, snowball
from litsift.paths import shared_data_dir
from litsift.review.data import ReviewSet, load_review_set

SET = shared_data_dir() / "eval" / "screening" / "Donners_2021.jsonl.gz"


@pytest.fixture(scope="module")
def review() -> ReviewSet:
    return load_review_set(SET)


def test_review_set_reads_references(review: ReviewSet) -> None:
    assert len(review.references) == len(review.labels) == 258
    # README: 154 records with a non-empty list, mean length 29.2
    assert sum(1 for r in review.references if r) == 154
    assert round(sum(len(r) for r in review.references) / 258, 1) == 29.2


def test_signal_counts_match_the_reference_lists(review: ReviewSet) -> None:
    g = set_graph(review.openalex_ids, review.references)
    kept = [int(i) for i in np.flatnonzero(review.labels)[:5]]
    signal = citation_signal(g, range(len(review.labels)), kept)
    refs = [set(r) for r in review.references]
    work = review.openalex_ids
    for c in range(len(review.labels)):
        others = [k for k in kept if k != c]
        linked = sum(1 for k in others if work[k] in refs[c] or work[c] in refs[k])
        coupling = sum(len(refs[c] & refs[k]) for k in others)
        cocitation = sum(
            1
            for k in others
            for r in refs
            if r is not refs[c] and r is not refs[k] and work[c] in r and work[k] in r
        )
        assert signal[c].linked == linked
        assert signal[c].coupling == coupling
        assert signal[c].cocitation == cocitation
    assert any(s.linked for s in signal.values())
    assert any(s.coupling for s in signal.values())
    # the sparse features the learner reads give the same counts for every record at once
    mask = np.zeros(len(review.labels), dtype=bool)
    mask[kept] = True
    counts = SignalFeatures(g, list(range(len(review.labels)))).counts(mask)
    expected = [[s.linked, s.coupling, s.cocitation] for s in signal.values()]
    assert np.array_equal(counts, np.asarray(expected, dtype=np.float32))


def test_snowball_reaches_the_included_component(review: ReviewSet) -> None:
    g = set_graph(review.openalex_ids, review.references)
    records = g.subgraph(range(len(review.labels))).to_undirected()
    included = [int(i) for i in np.flatnonzero(review.labels)]
    start = included[:3]
    run = snowball(g, review.labels, start)
    # rounds only go on from included records: what is found is the part of the included
    # records' own graph connected to the start set; what is screened, its neighbours
    inner = records.subgraph(included)
    reached = set().union(*(nx.node_connected_component(inner, s) for s in start))
    assert run.found == len(reached) - len(start)
    screened = {n for r in reached for n in records.neighbors(r)} - set(start)
    assert run.screened == len(screened)
    assert run.recall == len(reached) / len(included)
    assert run.screened_frac == (len(start) + len(screened)) / len(review.labels)
    with pytest.raises(ValueError, match="included"):
        snowball(g, review.labels, [int(np.flatnonzero(review.labels == 0)[0])])
