"""One learning order (issue 41): the screening screen's session and ``litsift eval screening``'s
simulation run the same :class:`~litsift.review.learner.LearningOrder`, so from the same
decisions they pick the same records in the same order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from litsift.graph.signal import SignalFeatures
from litsift.graph.snowball import set_graph
from litsift.paths import get_paths, shared_data_dir
from litsift.review.data import load_review_set
from litsift.review.learner import (
    DEFAULT_ORDER,
    SCREENING_MODEL,
    LearningOrder,
    review_spec,
    tfidf_matrix,
)
from litsift.review.simulate import draw_priors, learning_order
from litsift.service.facade import LitsiftService
from litsift.service.screening import order_encoder, screening_encoder
from litsift.store.review_decisions import decide

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder

SETS = shared_data_dir() / "eval" / "screening"
#: The smallest set with references: the citation signal joins the fit from the 3rd include.
DONNERS = SETS / "Donners_2021.jsonl.gz"
#: The review's published title (Donners et al. 2021, https://doi.org/10.1007/s40262-021-01042-w),
#: its criteria in benchmarks/screening_criteria.json.
DONNERS_TITLE = (
    "Pharmacokinetics and associated efficacy of emicizumab in humans: a systematic review"
)
#: Records screened after the priors in the comparison (past the 3rd include on seed 0).
STEPS = 40


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[LitsiftService]:
    with LitsiftService(get_paths(tmp_path / "home")) as s:
        yield s


def test_the_app_and_the_simulation_screen_in_the_same_order(svc: LitsiftService) -> None:
    """Seed 0's priors decided in a review made from the set, then the app's next record taken
    and decided with its true label STEPS times, retraining after each decision: the records
    are those the simulation screens (retraining after each record) from the set file, with
    the same order and the citation signal built from the set's ``referenced_works``."""
    names = _app_and_simulation(svc, None)
    assert names == {"tfidf-svm + citations"}


def test_the_app_and_the_simulation_screen_in_the_same_default_order(
    svc: LitsiftService, encoder: Encoder
) -> None:
    """The same with the encoder's vectors: the default order (TF-IDF beside the vectors, the
    nearest-include column, the citation signal) as the screen runs it once the records are
    embedded (with bge-small's vectors: the ``[bge]`` extra is in the dev install), and as
    ``litsift eval screening`` runs it."""
    names = _app_and_simulation(svc, encoder)
    assert screening_encoder(encoder).spec.model_id == SCREENING_MODEL
    assert names == {f"{DEFAULT_ORDER} + citations"}


def test_a_review_reads_the_default_orders_encoder_where_installed_else_the_homes(
    encoder: Encoder,
) -> None:
    """The default order reads bge-small's vectors (its weights were chosen with them) through
    the home's passage cache; where that encoder is not installed the review keeps the home's
    encoder and the order tuned for it; an order naming a missing encoder is a clear error."""
    from litsift.errors import ModelNotBuiltError
    from litsift.review.learner import HOME_ENCODER_ORDER, ORDERS, TFIDF_ORDER, OrderSpec

    bge = screening_encoder(encoder)
    assert bge.spec.model_id == SCREENING_MODEL == ORDERS[DEFAULT_ORDER].encoder
    assert bge.passage_cache is not None
    assert review_spec(SCREENING_MODEL).name == DEFAULT_ORDER
    assert review_spec(encoder.spec.model_id).name == HOME_ENCODER_ORDER
    assert review_spec(None).name == TFIDF_ORDER
    assert ORDERS[HOME_ENCODER_ORDER].encoder is None  # any home encoder
    # a registry model whose ONNX file is not built here (an export from Hugging Face weights)
    missing = "BAAI/bge-small-en-v1.5"
    assert screening_encoder(encoder, missing) is encoder
    spec = OrderSpec("x", "tfidf+dense", dense_weight=0.5, encoder=missing)
    with pytest.raises(ModelNotBuiltError, match=r"reads the vectors of BAAI/bge-small-en-v1\.5"):
        order_encoder(spec, encoder)
    assert order_encoder(ORDERS[HOME_ENCODER_ORDER], encoder) is encoder
    texts = ["emicizumab prophylaxis in haemophilia A", "a survey of deep learning"]
    assert np.array_equal(order_encoder(ORDERS[DEFAULT_ORDER], encoder).encode_passages(texts),
                          bge.encode_passages(texts))  # fmt: skip


def test_the_app_and_the_simulation_read_the_reviews_criteria_alike(
    svc: LitsiftService, encoder: Encoder
) -> None:
    """A review made with criteria (its published title): the app embeds them as a query
    beside the records and the default order fits on the criteria column from the first fit;
    ``eval screening --criteria`` builds the same column, so both pick the same records."""
    names = _app_and_simulation(svc, encoder, DONNERS_TITLE)
    assert names == {f"{DEFAULT_ORDER} + citations + criteria"}


def test_the_criteria_column_ranks_a_real_reviews_includes_high() -> None:
    """The criteria column on Donners 2021 with its published title, read by bge-small:
    centred at the median, in [-1, 1], and it separates the review's 15 includes from the
    243 excludes (AUC about 0.85: measured 2026-11-29; a random column gives 0.5). An order
    without a criteria weight does not carry it, so a review without criteria screens as
    before."""
    from sklearn.metrics import roc_auc_score

    from litsift.models_onnx import load_encoder
    from litsift.review.columns import criteria_column
    from litsift.review.learner import ORDERS, OrderSpec

    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    review = load_review_set(DONNERS)
    bge = load_encoder(SCREENING_MODEL, build_if_missing=False)
    vectors = bge.encode_passages(review.texts)
    query = bge.encode_queries([DONNERS_TITLE])[0]
    column = criteria_column(vectors, query)
    assert column.shape == (review.labels.size, 1)
    assert np.abs(column).max() == pytest.approx(1.0)
    assert np.median(column) == pytest.approx(0.0, abs=1e-9)
    assert roc_auc_score(review.labels, column.ravel()) > 0.8
    tfidf = tfidf_matrix(review.texts)
    default = LearningOrder.from_blocks(ORDERS[DEFAULT_ORDER], tfidf, vectors, None, query)
    assert default.criteria_dense is not None and ORDERS[DEFAULT_ORDER].criteria_weight > 0
    plain_spec = OrderSpec("x", "tfidf+dense", dense_weight=0.7, encoder=SCREENING_MODEL)
    plain = LearningOrder.from_blocks(plain_spec, tfidf, vectors, None, query)
    assert plain.criteria_dense is None
    # one include and one exclude: the criteria column is in the fit and moves the order
    inc, exc = int(np.flatnonzero(review.labels)[0]), int(np.flatnonzero(review.labels == 0)[0])
    pool = [r for r in range(review.labels.size) if r not in (inc, exc)]
    with_criteria = default.fit([inc, exc], [1, 0])
    without = LearningOrder.from_blocks(ORDERS[DEFAULT_ORDER], tfidf, vectors).fit(
        [inc, exc], [1, 0]
    )
    assert with_criteria.x.shape[1] == without.x.shape[1] + 1
    assert with_criteria.name.endswith("+ criteria") and "criteria" not in without.name
    assert not np.array_equal(with_criteria.rank(pool), without.rank(pool))
    # a permuted order keeps each record's own criteria value
    perm = np.random.default_rng(0).permutation(review.labels.size)
    assert np.array_equal(default.permuted(perm).criteria_dense, column[perm])


def _donners_once(where: Path) -> Path:
    """Donners 2021 without its one duplicate: OpenAlex lists the same paper twice (W4313421986
    and W3003302859: one title and abstract, the second title wrapped in ``&lt;p&gt;``), which
    a review groups and the simulation, reading the set file as published, does not. The copy
    keeps every other line as it is, so the app and the simulation read the same records."""
    import gzip
    import json

    from litsift.text.markup import plain_text

    kept: list[str] = []
    seen: set[tuple[str, str]] = set()
    with gzip.open(DONNERS, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            key = (plain_text(row["title"] or ""), plain_text(row["abstract"] or ""))
            if key[0] and key in seen:
                assert row["record_id"] == "W3003302859"
                continue
            seen.add(key)
            kept.append(line)
    out = where / "Donners_2021.jsonl.gz"
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        fh.writelines(kept)
    return out


def _app_and_simulation(
    svc: LitsiftService, encoder: Encoder | None, criteria: str = ""
) -> set[str]:
    """Screen Donners in the app and in the simulation (with the encoder's vectors when one
    is given, and the review's ``criteria`` when given); assert the same records in the same
    order; the names of the app's fits."""
    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    donners = _donners_once(svc.paths.data_dir)
    review = load_review_set(donners)
    n = int(review.labels.size)
    assert n == 257
    p = draw_priors(review.labels, 0)

    # the app: a review of the same file, the same priors, the screen's retrain-and-apply
    svc.reviews.create("donners", [donners], criteria=criteria, labels="none")
    session = svc.reviews.open("donners")
    assert len(session.papers) == n and session.citations is not None
    # store rows are file rows, and the model reads the same words from them
    assert [" ".join(t.split()) for t in session.texts] == [
        " ".join(t.split()) for t in review.texts
    ]
    dense = encoder is not None
    # the app embeds with the default order's encoder where it is installed
    model = None if encoder is None else screening_encoder(encoder)
    vectors = None if model is None else model.encode_passages(session.texts)

    # the simulation, as `litsift eval screening` runs it, with the citation signal
    signal = SignalFeatures(set_graph(review.openalex_ids, review.references), list(range(n)))
    spec = review_spec(None if model is None else model.spec.model_id)
    query = model.encode_queries([criteria])[0] if model is not None and criteria else None
    tfidf = tfidf_matrix(review.texts, spec.stem)
    order = LearningOrder.from_blocks(spec, tfidf, vectors, signal, query)
    y = review.labels[p.perm]
    screened, fits = learning_order(
        order.permuted(p.perm), y, (p.included, p.excluded), retrain_fraction=0
    )
    # file rows; the simulation stops at the last include (38 records with stemmed words)
    simulated = [int(p.perm[r]) for r in screened[:STEPS]]
    assert fits == len(screened) and len(simulated) >= 30
    assert int(review.labels[simulated].sum()) >= 3  # the citation signal took part

    inc, exc = int(p.perm[p.included]), int(p.perm[p.excluded])
    decide(svc.store, "donners", [(session.papers[inc].id, "include")])
    decide(svc.store, "donners", [(session.papers[exc].id, "exclude")])
    session = svc.reviews.open("donners")
    assert list(session.decisions) == [inc, exc]
    if dense:
        assert session.embed()
    picked: list[int] = []
    names: set[str] = set()
    for _ in range(len(simulated)):
        version, queue, name = session.retrain()
        names.add(name)
        assert session.apply((version, queue, name), keep_current=False)
        row = session.current
        assert row is not None
        picked.append(row)
        session.decide("include" if review.labels[row] else "exclude")
    assert picked == simulated
    return names


def test_a_fit_scores_and_ranks_as_one_model() -> None:
    """``rank`` is ``scores`` sorted (ties in pool order); before both classes are decided
    the order ranks by the criteria, else keeps the pool's order."""
    texts = [
        "emicizumab pharmacokinetics in haemophilia A",
        "emicizumab dosing and plasma levels",
        "a survey of deep learning",
        "knee surgery outcomes",
        "emicizumab in children with haemophilia",
    ]
    order = LearningOrder.build(review_spec(None), texts, criteria="emicizumab")
    pool = np.array([2, 3, 4, 1], dtype=np.int64)
    fit = order.fit([0, 3], [1, 0])
    scores = fit.scores(pool)
    assert fit.rank(pool).tolist() == pool[np.argsort(-scores, kind="stable")].tolist()
    assert fit.rank(pool)[:2].tolist() in ([4, 1], [1, 4])
    cold = order.fit([0], [1])
    assert cold.name == "criteria" and cold.rank(pool).tolist()[-2:] == [2, 3]
    with pytest.raises(ValueError, match="decide an include and an exclude"):
        cold.scores(pool)
    blind = LearningOrder.build(review_spec(None), texts).fit([], [])
    assert blind.name == "import order" and blind.rank(pool).tolist() == pool.tolist()


# --- one RIS writer -----------------------------------------------------------------------------

RIS_DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "ris-medline"


def test_one_paper_exported_from_the_library_and_from_a_review_gives_one_ris(
    svc: LitsiftService,
) -> None:
    """The review's RIS export is the library's RIS entry of each paper (one writer,
    :func:`litsift.export.formats.ris_reference`) with the review's record id as ``ID`` and its
    ``LB`` decision and ``N1`` note added, the library's ``DP  - litsift`` left out (its ``N1``
    is read back as the library note): the other lines are identical."""
    import rispy

    from litsift.export.formats import to_ris
    from litsift.store.review_notes import set_note

    svc.reviews.create("tele", [RIS_DATA / "telemonitoring_embase-export_13-records.ris"])
    records = svc.reviews.records("tele")
    paper = next(p for _, p in records if p.authors and p.venue and p.abstract)
    decide(svc.store, "tele", [(paper.id, "exclude")])
    set_note(svc.store, "tele", paper.id, "no wearable device")
    review_ris = svc.reviews.export("tele", "ris", which="exclude")
    (ref,) = rispy.loads(review_ris)
    library_ris = to_ris(svc.store, [paper], {paper.id: ref.get("doi", "")})

    def bibliographic(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if ln[:2] not in ("ID", "LB", "N1", "DP")]

    assert bibliographic(review_ris) == bibliographic(library_ris)
    assert "\nDP  - litsift" in library_ris and "\nDP  - " not in review_ris
    assert (ref["id"], ref["label"], ref["notes"]) == (paper.id, "exclude", ["no wearable device"])
    assert ref["secondary_title"] and ref["authors"] and ref["abstract"]
    assert ref.get("doi")  # the review export keeps the DOI the import found


def test_the_nearest_include_column_ignores_a_records_own_vector() -> None:
    """The default order's nearest-include column: 0 until 3 includes (one include's own
    column would be 0 and the fit would learn a negative weight), then each record's highest
    cosine to an include other than itself, scaled."""
    import numpy as np

    from litsift.review.columns import neighbour_column

    rng = np.random.default_rng(0)
    dense = rng.normal(size=(6, 4)).astype(np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    assert not neighbour_column(dense, np.array([0, 1]), 0.3).any()
    included = np.array([0, 1, 2])
    col = neighbour_column(dense, included, 0.5)[:, 0]
    sims = dense @ dense.T
    assert col[0] == np.float32(0.5 * max(sims[0, 1], sims[0, 2]))  # not its own 1.0
    assert col[4] == np.float32(0.5 * sims[4, included].max())
    assert np.all(col < 0.5)


def test_label_spreading_ranks_the_includes_neighbours_first_on_a_real_review() -> None:
    """The label-spreading column on Donners 2021's TF-IDF graph: a symmetric graph without
    self loops; 0 until 2 includes; with 5 includes and 20 excludes decided, the column
    separates the 10 undecided includes from the undecided excludes (AUC well above chance),
    and a decided include's value comes from its neighbours, not from its own label."""
    from sklearn.metrics import roc_auc_score

    from litsift.review.columns import knn_affinity, spread_column

    review = load_review_set(DONNERS)
    graph = knn_affinity(tfidf_matrix(review.texts))
    n = review.labels.size
    assert graph.shape == (n, n)
    assert abs(graph - graph.T).max() < 1e-12 and not graph.diagonal().any()
    # every record keeps its 10 nearest, but for edges of similarity 0 (one record here,
    # "PRISMA Statement", shares a word with one other only)
    assert (np.diff(graph.indptr) >= 10).sum() == n - 1 and graph.data.min() > 0
    inc = np.flatnonzero(review.labels == 1)
    exc = np.flatnonzero(review.labels == 0)
    assert not spread_column(graph, inc[:1], exc[:20], 0.3).any()
    col = spread_column(graph, inc[:5], exc[:20], 0.3)[:, 0]
    assert np.isclose(np.abs(col).max(), 0.3)
    rest = np.setdiff1d(np.arange(n), np.r_[inc[:5], exc[:20]])
    assert roc_auc_score(review.labels[rest], col[rest]) > 0.75
    # an isolated include (no edges) gets 0, whatever its label
    lonely = sp_isolated(graph, inc[0])
    assert spread_column(lonely, inc[:5], exc[:20], 0.3)[inc[0], 0] == 0.0


def sp_isolated(graph, row: int):  # type: ignore[no-untyped-def]
    """``graph`` with every edge of ``row`` removed."""
    g = graph.tolil()
    g[row, :] = 0
    g[:, row] = 0
    return g.tocsr()


def test_an_order_with_label_spreading_ranks_the_same_records_whatever_the_pool_order() -> None:
    """The graph follows the simulation's shuffle (:meth:`LearningOrder.permuted`): fitting
    the permuted order on the permuted decisions scores every record as the original does."""
    from dataclasses import replace

    from litsift.review.learner import ORDERS

    review = load_review_set(DONNERS)
    spec = replace(ORDERS["tfidf-svm"], name="tfidf+lp0.3", spread_weight=0.3)
    order = LearningOrder.from_blocks(spec, tfidf_matrix(review.texts), None)
    assert order.affinity is not None
    inc = np.flatnonzero(review.labels == 1)[:4]
    exc = np.flatnonzero(review.labels == 0)[:30]
    rows = np.r_[inc, exc]
    y = review.labels[rows]
    scores = order.fit(rows, y).scores(np.arange(review.labels.size))
    perm = np.random.default_rng(1).permutation(review.labels.size)
    where = np.argsort(perm)  # where[i]: the permuted row of record i
    moved = order.permuted(perm).fit(where[rows], y)
    assert np.allclose(moved.scores(where), scores, atol=1e-6)
    plain = LearningOrder.from_blocks(ORDERS["tfidf-svm"], tfidf_matrix(review.texts), None)
    assert not np.allclose(plain.fit(rows, y).scores(np.arange(review.labels.size)), scores)


def test_a_review_whose_every_record_is_decided_opens_with_nothing_left(
    svc: LitsiftService,
) -> None:
    """``review new`` takes a labelled set's labels as decisions by default: every record is
    decided, the first retraining ranks an empty pool (it raised sklearn's "0 sample(s)" in the
    screen's loading worker, which left the terminal on "opening review…" for good)."""
    svc.reviews.create("donners", [DONNERS])
    session = svc.reviews.open("donners")
    assert len(session.decisions) == len(session.papers) == 257
    version, queue, name = session.retrain()
    assert queue == [] and name.startswith("tfidf-svm")
    assert session.apply((version, queue, name), keep_current=False)
    assert session.current is None and session.current_paper() is None
