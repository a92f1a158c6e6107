"""Full-text search measured (issue 17): questions answered in a paper's body, not its abstract.

Corpus: the CC BY full texts of ``<shared data>/sources/fulltext/`` (PDFs, GROBID TEI, JATS,
S2ORC JSON; 12 papers once merged) imported into a fresh home together with 2,000 abstract-only
papers of the sample (every 10th line) as distractors. Questions: :data:`QUESTIONS`, written by
reading the passages (below); each names its paper by title and its evidence by a phrase that
occurs in the source paragraph -- the qrels: a passage is relevant when it contains the phrase,
a paper when it is the named one. None of the phrases is in the paper's abstract.

Printed: passage Recall@k (k = 1, 5, 10: a relevant passage among the top k of the passage
index), paper MRR@10 and Recall@10 for abstract-only hybrid search and for ``--fulltext``
search with each way of combining papers and passages (``FULLTEXT_FUSIONS``) under each
passage gate (:data:`GATES`: none, or a passage counts only when its dense cosine reaches that
of the abstract at that rank, :func:`litsift.search.fulltext.index.dense_floor`), the paired
randomization test of each against abstract-only search, each question's
ranks, the passage index build (passages, seconds, seconds per
1,000 passages, bytes) -- the last line is one JSON object.

``--known-item N`` also asks whether full text costs the papers that have none (issue 29: full
text on by default once a library has passages): on the same home, N distractors drawn with
:data:`KNOWN_ITEM_SEED`, each asked twice -- by one sentence of its abstract (at least
:data:`MIN_SENTENCE_WORDS` words, drawn with the same seed) and by its title -- the target
being that paper (qrels: it alone, relevance 1). Printed per query set: MRR@10 (ir-measures
``RR@10``) and Recall@10 with full text off and on for each fusion, and the paired
randomization test (:func:`litsift.eval.measures.paired_test`) of on vs off.

Usage (the embedding cache off, so the build time is the encoder's)::

    LITSIFT_EMBED_CACHE_DIR=off python benchmarks/fulltext_eval.py [--keep-home DIR]
        [--known-item N]

``--keep-home DIR`` on a DIR an earlier run kept reuses its home (nothing is ingested again).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from litsift.eval.measures import paired_test, per_query
from litsift.paths import get_paths, shared_data_dir
from litsift.search.fulltext import index as passage_index
from litsift.search.fulltext.index import FULLTEXT_FUSIONS
from litsift.search.pipeline import FullText, load_hits
from litsift.service.facade import LitsiftService
from litsift.text.sentences import split_sentences
from litsift.types import Hit, Kind, Query

#: seed of the known-item draw (papers, then one sentence of each)
KNOWN_ITEM_SEED = 29
#: passage gates measured (:func:`litsift.search.fulltext.index.dense_floor`; None: no gate)
GATES: tuple[int | None, ...] = (None, 1, 10)
#: a known-item sentence has at least this many words (shorter ones are headings or fragments)
MIN_SENTENCE_WORDS = 8

#: (question, paper title (prefix), evidence phrase in the source paragraph)
QUESTIONS: list[tuple[str, str, str]] = [
    (
        "what attributes do citation edges between paper nodes carry in the literature graph",
        "Construction of the Literature Graph",
        "Citation edges have attributes",
    ),
    (
        "how is author disambiguation handled when publishers lack global author IDs like ORCID",
        "Construction of the Literature Graph",
        "Author disambiguation",
    ),
    (
        "how many papers are expert annotators said to be necessary for in surveys of long-form "
        "summary human evaluation",
        "LONGEVAL",
        "expert annotators are necessary",
    ),
    (
        "does partial annotation have higher variance than full annotation of faithfulness",
        "LONGEVAL",
        "partial annotation has a higher variance",
    ),
    (
        "MeSH classification of scientific papers with document embeddings",
        "SPECTER",
        "Medical Subject Headings",
    ),
    (
        "nDCG of SPECTER embeddings on the recommendation task",
        "SPECTER",
        "nDCG of 53.9",
    ),
    (
        "what fraction of papers in the corpus have a PDF and publisher abstract coverage",
        "S2ORC",
        "PDF coverage is 35.6%",
    ),
    (
        "full text parsing from LaTeX source of arXiv submissions, section headers and equations",
        "S2ORC",
        "LATEX document source is available",
    ),
    (
        "pretraining SciBERT from scratch on a TPU v3-8 for one week",
        "S2ORC",
        "single TPU v3-8 for one week",
    ),
    (
        "proactive dialogue systems providing additional information not requested by the user",
        "Goal Awareness for Conversational AI",
        "consciously providing additional information",
    ),
    (
        "age of the healthy subjects in the functional electrical stimulation study and ethics "
        "approval",
        "Multi-contact functional electrical stimulation",
        "Eight young healthy subjects",
    ),
    (
        "how many stimulation patterns were possible for hand opening before reduction",
        "Multi-contact functional electrical stimulation",
        "total number of possible stimulation patterns",
    ),
    (
        "functional complementation in yeast to score hypoactive and hyperactive glucokinase "
        "variants",
        "A comprehensive map of human glucokinase",
        "functional complementation in yeast",
    ),
    (
        "GCK-MODY and hyperinsulinism variants with experimentally determined activity",
        "A comprehensive map of human glucokinase",
        "experimentally determined activity scores",
    ),
    (
        "graphene nanomaterials agglomerate because of high specific surface area in nanofibers",
        "Graphene impregnated electrospun nanofiber",
        "tend to agglomerate",
    ),
    (
        "oral gavage doses of curcuminoid to measure bioavailability in ICR mice",
        "Curcuminoid submicron particle",
        "ICR mice were gavaged",
    ),
    (
        "statistical analysis software used for crow spatial data (ArcGIS, R version)",
        "Counting crows",
        "ArcGIS 10.0",
    ),
    (
        "who created the rev1 mutant S2 cells and which grant supported the work",
        "REV1 Coordinates",
        "creating the rev1 mutant S2 cells",
    ),
]


def build_home(home: Path) -> tuple[LitsiftService, float, dict[str, float]]:
    if get_paths(home).store_file.exists():  # kept by an earlier run
        svc = LitsiftService(get_paths(home))
        t = time.perf_counter()
        built = svc.build_passages()
        return svc, time.perf_counter() - t, _built(built)
    data = shared_data_dir()
    rows = gzip.open(data / "papers" / "ml-nlp-papers.jsonl.gz", "rt", encoding="utf-8")
    lines = [line for line in rows.read().split("\n") if line.strip()][::10][:2000]
    src = home.parent / "distractors.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    svc = LitsiftService(get_paths(home))
    svc.ingest(Kind.PAPER, src)
    svc.sources.import_paths(Kind.PAPER, [data / "sources" / "fulltext"])
    svc.build_index(Kind.PAPER)
    t = time.perf_counter()
    built = svc.build_passages()
    return svc, time.perf_counter() - t, _built(built)


def _built(built: passage_index.PassageBuild) -> dict[str, float]:
    return {
        "passages": built.passages,
        "papers": built.papers,
        "bytes": built.bytes,
        "embed_s": built.embedded_s,
    }


def search_all(svc: LitsiftService, text: str, k: int = 10) -> dict[str, list[Hit]]:
    """The hits of ``text`` with full text off (``"abstract"``) and on with each fusion of
    :data:`FULLTEXT_FUSIONS` -- the service's own stages, the abstract run shared."""
    result = svc.search(Query(text, Kind.PAPER, k=k))
    index = svc.passage_index
    assert index is not None
    papers = svc.searchers.of_kind(Kind.PAPER)
    fused = papers.search(result.query)  # the abstract run of that search, before its rows
    runs = {"abstract": list(result.hits)}
    for method in FULLTEXT_FUSIONS:
        for gate in GATES:
            stage = FullText(index, svc.store, papers.year_of, method, gate)
            items, best = stage.fuse(result.query, fused)
            runs[system_name(method, gate)] = load_hits(svc.store, Kind.PAPER, items, best)
    return runs


def system_name(method: str, gate: int | None) -> str:
    return method if gate is None else f"{method}, gate {gate}"


def system_names() -> list[str]:
    """ "abstract" (full text off), then each fusion with each gate."""
    return ["abstract", *(system_name(m, g) for m in FULLTEXT_FUSIONS for g in GATES)]


def default_name() -> str:
    return system_name(passage_index.FULLTEXT_FUSION, passage_index.PASSAGE_GATE_RANK)


def known_items(svc: LitsiftService, n: int) -> list[tuple[str, str, str]]:
    """``n`` known-item queries of each form: ``(query id, query, target paper id)``, the
    sentences first, then the titles of the same papers."""
    with svc.store._lock:
        rows = svc.store._conn.execute(
            "SELECT id, title, abstract FROM papers WHERE id NOT IN (SELECT doc_id FROM "
            "passages) AND length(abstract) > 0 ORDER BY id"
        ).fetchall()
    rng = random.Random(KNOWN_ITEM_SEED)
    sentences: list[tuple[str, str, str]] = []
    titles: list[tuple[str, str, str]] = []
    for doc_id, title, abstract in rng.sample(rows, len(rows)):
        spans = [
            abstract[a:b]
            for a, b in split_sentences(str(abstract))
            if len(abstract[a:b].split()) >= MIN_SENTENCE_WORDS
        ]
        if not spans or not str(title).strip():
            continue
        sentences.append((f"s{len(sentences)}", rng.choice(spans), str(doc_id)))
        titles.append((f"t{len(titles)}", str(title), str(doc_id)))
        if len(sentences) == n:
            break
    return sentences + titles


def known_item_eval(svc: LitsiftService, n: int) -> dict[str, Any]:
    """MRR@10 and Recall@10 of the known-item queries (:func:`known_items`) with full text off
    and on (each fusion), per query form, and the paired test of each fusion against off."""
    queries = known_items(svc, n)
    qrels = {qid: {doc: 1} for qid, _, doc in queries}
    names = system_names()
    runs: dict[str, dict[str, dict[str, float]]] = {m: {} for m in names}
    for qid, text, _ in queries:
        for method, hits in search_all(svc, text).items():
            # scores from ranks: ir-measures orders by score, and fused ties keep our order
            runs[method][qid] = {h.docid: float(len(hits) - h.rank + 1) for h in hits}
    out: dict[str, Any] = {}
    for form, prefix in (("sentence", "s"), ("title", "t"), ("all", "")):
        qids = [q for q, _, _ in queries if q.startswith(prefix)]
        values = {m: per_query(["RR@10", "R@10"], qrels, runs[m], qids) for m in names}
        rows: dict[str, Any] = {}
        for m in names:
            row: dict[str, Any] = {
                "mrr10": round(float(values[m]["RR@10"].mean()), 3),
                "recall10": round(float(values[m]["R@10"].mean()), 3),
            }
            if m != "abstract":
                for measure, key in (("RR@10", "mrr10"), ("R@10", "recall10")):
                    t = paired_test(values[m][measure], values["abstract"][measure])
                    row[f"{key}_diff"] = round(t.diff, 4)
                    row[f"{key}_p"] = round(t.p_value, 4)
                    row[f"{key}_wins_losses"] = [t.wins, t.losses]
            rows[m] = row
        out[form] = {"queries": len(qids), "systems": rows}
    return out


def print_known_items(result: dict[str, Any]) -> None:
    default = default_name()
    print("\nknown-item queries (abstract-only papers; full text off vs on, paired test):")
    for form, block in result.items():
        print(f"  {form} ({block['queries']} queries)")
        for m, row in block["systems"].items():
            mark = " (default)" if m == default else ""
            line = f"    {m + mark:28s} MRR@10 {row['mrr10']:.3f}  R@10 {row['recall10']:.3f}"
            if m != "abstract":
                w, lo = row["mrr10_wins_losses"]
                line += (
                    f"  ΔMRR {row['mrr10_diff']:+.4f} (p = {row['mrr10_p']:.4f}, {w} up "
                    f"/ {lo} down)  ΔR@10 {row['recall10_diff']:+.4f} (p = {row['recall10_p']:.4f})"
                )
            print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--keep-home", type=Path, default=None)
    ap.add_argument("--known-item", type=int, default=0, metavar="N")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="litsift-fulltext-"))
    home = args.keep_home or root / "home"
    svc, build_s, built = build_home(home)
    titles = {}
    with svc.store._lock:
        for doc_id, title in svc.store._conn.execute(
            "SELECT id, title FROM papers WHERE id IN (SELECT doc_id FROM passages)"
        ):
            titles[str(doc_id)] = str(title)
    index = svc.passage_index
    assert index is not None
    default = default_name()
    rows: list[tuple[Any, ...]] = []
    for question, title, phrase in QUESTIONS:
        doc = next(d for d, t in titles.items() if t.lower().startswith(title.lower()))
        abstract = svc.get(Kind.PAPER, doc)
        assert abstract is not None
        assert phrase.lower() not in abstract.abstract.lower(), (title, phrase)
        passages = index.search(question, k=10)
        p_rank = next(
            (i for i, h in enumerate(passages, 1) if phrase.lower() in h.passage.text.lower()),
            None,
        )
        ranks = [
            next((h.rank for h in hits if h.docid == doc), None)
            for hits in search_all(svc, question).values()
        ]
        rows.append((question, title, p_rank, *ranks))
    n = len(rows)

    def recall(k: int) -> float:
        return sum(1 for r in rows if r[2] is not None and r[2] <= k) / n

    def mrr(i: int) -> float:
        return float(sum(1 / r[i] for r in rows if r[i] is not None)) / n

    def paper_recall(i: int) -> float:
        return sum(1 for r in rows if r[i] is not None) / n

    print(f"{n} questions over {built['papers']} full-text papers + 2,000 abstract-only papers")
    names = system_names()
    print(f"{'question':56s} {'passage':>7s} " + " ".join(f"{m[:13]:>13s}" for m in names))
    for q, _t, p, *ranks in rows:
        cells = " ".join(f"{r or '-':>13}" for r in ranks)
        print(f"{q[:56]:56s} {p or '-':>7} {cells}")
    print(f"\npassage Recall@1 {recall(1):.3f}  @5 {recall(5):.3f}  @10 {recall(10):.3f}")
    reciprocal = [
        np.array([1 / r[i] if r[i] is not None else 0.0 for r in rows])
        for i in range(3, 3 + len(names))
    ]
    for i, name in enumerate(names, start=3):
        mark = " (default)" if name == default else ""
        line = f"paper MRR@10 / Recall@10, {name + mark:32s} {mrr(i):.3f} / {paper_recall(i):.3f}"
        if name != "abstract":
            t = paired_test(reciprocal[i - 3], reciprocal[0])
            line += f"  ΔMRR {t.diff:+.3f} (p = {t.p_value:.4f}, {t.wins} up / {t.losses} down)"
        print(line)
    print(
        f"passage index: {built['passages']} passages in {build_s:.1f} s "
        f"({1000 * build_s / max(built['passages'], 1):.1f} s per 1,000 passages, "
        f"embedding {built['embed_s']:.1f} s), {built['bytes'] / 1e6:.2f} MB "
        f"({built['bytes'] / max(built['passages'], 1) / 1e3:.1f} KB per passage)"
    )
    known = known_item_eval(svc, args.known_item) if args.known_item > 0 else None
    if known is not None:
        print_known_items(known)
    svc.close()
    print(
        json.dumps(
            {
                "known_item": known,
                "questions": n,
                "passage_recall_at_1": round(recall(1), 3),
                "passage_recall_at_5": round(recall(5), 3),
                "passage_recall_at_10": round(recall(10), 3),
                "paper_mrr10_abstract": round(mrr(3), 3),
                "paper_mrr10_fulltext": round(mrr(3 + names.index(default)), 3),
                "paper_recall10_abstract": round(paper_recall(3), 3),
                "paper_recall10_fulltext": round(paper_recall(3 + names.index(default)), 3),
                "paper_mrr10_by_fusion": {m: round(mrr(3 + names.index(m)), 3) for m in names},
                "passages": built["passages"],
                "build_s": round(build_s, 2),
                "build_s_per_1000": round(1000 * build_s / max(built["passages"], 1), 2),
                "index_bytes": built["bytes"],
            }
        )
    )
    if args.keep_home is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
