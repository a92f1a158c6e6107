"""Full-text search measured (issue 17): questions answered in a paper's body, not its abstract.

Corpus: the CC BY full texts of ``<shared data>/sources/fulltext/`` (PDFs, GROBID TEI, JATS,
S2ORC JSON; 12 papers once merged) imported into a fresh home together with 2,000 abstract-only
papers of the sample (every 10th line) as distractors. Questions: :data:`QUESTIONS`, written by
reading the passages (below); each names its paper by title and its evidence by a phrase that
occurs in the source paragraph -- the qrels: a passage is relevant when it contains the phrase,
a paper when it is the named one. None of the phrases is in the paper's abstract.

Printed: passage Recall@k (k = 1, 5, 10: a relevant passage among the top k of the passage
index), paper MRR@10 and Recall@10 for abstract-only hybrid search and for ``--fulltext``
search with each way of combining papers and passages (``FULLTEXT_FUSIONS``), each question's
ranks, the passage index build (passages, seconds, seconds per
1,000 passages, bytes) -- the last line is one JSON object.

Usage (the embedding cache off, so the build time is the encoder's)::

    LITSIFT_EMBED_CACHE_DIR=off python benchmarks/fulltext_eval.py [--keep-home DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from litsift.paths import get_paths, shared_data_dir
from litsift.search import passage_index
from litsift.search.passage_index import FULLTEXT_FUSIONS
from litsift.service import LitsiftService
from litsift.types import Kind, Query

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
    return (
        svc,
        time.perf_counter() - t,
        {
            "passages": built.passages,
            "papers": built.papers,
            "bytes": built.bytes,
            "embed_s": built.embedded_s,
        },
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--keep-home", type=Path, default=None)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="litsift-fulltext-"))
    home = args.keep_home or root / "home"
    svc, build_s, built = build_home(home)
    titles = {}
    with svc.store.lock:
        for doc_id, title in svc.store.conn.execute(
            "SELECT id, title FROM papers WHERE id IN (SELECT doc_id FROM passages)"
        ):
            titles[str(doc_id)] = str(title)
    index = svc.passage_index
    assert index is not None
    default = passage_index.FULLTEXT_FUSION
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
        ranks: list[int | None] = []
        hits = svc.search(Query(question, Kind.PAPER, k=10)).hits
        ranks.append(next((h.rank for h in hits if h.docid == doc), None))
        for method in FULLTEXT_FUSIONS:
            passage_index.FULLTEXT_FUSION = method
            hits = svc.search(Query(question, Kind.PAPER, k=10, fulltext=True)).hits
            ranks.append(next((h.rank for h in hits if h.docid == doc), None))
        passage_index.FULLTEXT_FUSION = default
        rows.append((question, title, p_rank, *ranks))
    n = len(rows)

    def recall(k: int) -> float:
        return sum(1 for r in rows if r[2] is not None and r[2] <= k) / n

    def mrr(i: int) -> float:
        return float(sum(1 / r[i] for r in rows if r[i] is not None)) / n

    def paper_recall(i: int) -> float:
        return sum(1 for r in rows if r[i] is not None) / n

    print(f"{n} questions over {built['papers']} full-text papers + 2,000 abstract-only papers")
    names = ["abstract", *FULLTEXT_FUSIONS]
    print(f"{'question':56s} {'passage':>7s} " + " ".join(f"{m:>13s}" for m in names))
    for q, _t, p, *ranks in rows:
        cells = " ".join(f"{r or '-':>13}" for r in ranks)
        print(f"{q[:56]:56s} {p or '-':>7} {cells}")
    print(f"\npassage Recall@1 {recall(1):.3f}  @5 {recall(5):.3f}  @10 {recall(10):.3f}")
    for i, name in enumerate(names, start=3):
        mark = " (default)" if name == default else ""
        print(f"paper MRR@10 / Recall@10, {name + mark:24s} {mrr(i):.3f} / {paper_recall(i):.3f}")
    print(
        f"passage index: {built['passages']} passages in {build_s:.1f} s "
        f"({1000 * build_s / max(built['passages'], 1):.1f} s per 1,000 passages, "
        f"embedding {built['embed_s']:.1f} s), {built['bytes'] / 1e6:.2f} MB "
        f"({built['bytes'] / max(built['passages'], 1) / 1e3:.1f} KB per passage)"
    )
    svc.close()
    print(
        json.dumps(
            {
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
