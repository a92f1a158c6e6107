"""Indexing throughput vs the encoder's own throughput on the same texts (issue 15, item 4).

On the first ``--n`` papers of ../shared/data/papers/ml-nlp-papers.jsonl.gz (default 1,500),
measured in one run, the passage cache off (``LITSIFT_EMBED_CACHE_DIR=off``) so every text is
really embedded:

1. **encoder only** -- ``Encoder.encode_passages`` on the passage texts litsift indexes
   (``passage_text``: title + abstract), one passage per ONNX run as litsift embeds them;
2. **litsift index** -- ``litsift ingest`` into a fresh home, then ``litsift index`` (BM25 +
   dense, what a user runs): documents / second of the index step, and its stages;
3. **peer** -- sentence-transformers (PyTorch, fp32) on the same weights and texts, batch 32,
   when the ``export`` extra is installed.

Prints a table and, last, one JSON line with ``encoder_docs_per_s``, ``index_docs_per_s``,
``ratio`` (index / encoder; the target is >= 0.9) and ``peer_docs_per_s``.

Usage::

    python benchmarks/index_throughput.py [--n 1500] [--no-peer]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ["LITSIFT_EMBED_CACHE_DIR"] = "off"  # before litsift reads it

from litsift.models_onnx import load_encoder
from litsift.paths import shared_data_dir
from litsift.search.retrieval.record_text import passage_text
from litsift.store.records import normalize, row_to_record
from litsift.types import Kind

PAPERS_GZ = shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"


def first_rows(n: int) -> list[dict]:
    rows, seen = [], set()
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        for line in f:
            row = json.loads(line)
            if row["id"] not in seen:
                seen.add(row["id"])
                rows.append(row)
            if len(rows) == n:
                break
    return rows


def litsift(home: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [str(Path(sys.executable).parent / "litsift"), "--home", str(home), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "LITSIFT_EMBED_CACHE_DIR": "off"},
    )
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    rows = first_rows(args.n)
    texts = [
        passage_text(row_to_record(Kind.PAPER, (i + 1, *normalize(Kind.PAPER, r), "", "")))
        for i, r in enumerate(rows)
    ]
    encoder = load_encoder()
    encoder.passage_cache = None
    encoder.encode_passages(texts[:32])  # warm-up
    t = time.perf_counter()
    encoder.encode_passages(texts)
    enc_s = time.perf_counter() - t
    encoder_rate = len(texts) / enc_s

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        src = Path(tmp) / "papers.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        ingest_s = litsift(home, "ingest", "papers", str(src), "--quiet")
        index_s = litsift(home, "index", "papers", "--quiet")
    index_rate = len(rows) / index_s

    peer_rate = None
    if not args.no_peer:
        try:
            from sentence_transformers import SentenceTransformer

            from litsift.models_onnx import get_spec
            from litsift.models_onnx.source import locate_source

            source = locate_source(get_spec(encoder.model_id))
            model = SentenceTransformer(str(source), device="cpu")
            model.encode(texts[:32], batch_size=32)
            t = time.perf_counter()
            model.encode(texts, batch_size=32)
            peer_rate = len(texts) / (time.perf_counter() - t)
        except Exception as err:
            print(f"peer unavailable: {type(err).__name__}: {err}", file=sys.stderr)

    print(f"{len(rows):,} papers (title + abstract), {os.cpu_count()} cores, cache off")
    print(f"{'':40} {'docs/s':>8} {'seconds':>8}")
    print(f"{'encoder only (int8 ONNX, 1 per run)':40} {encoder_rate:8.1f} {enc_s:8.1f}")
    print(f"{'litsift index (BM25 + dense)':40} {index_rate:8.1f} {index_s:8.1f}")
    print(f"{'  (litsift ingest, for reference)':40} {len(rows) / ingest_s:8.1f} {ingest_s:8.1f}")
    if peer_rate:
        label = "sentence-transformers fp32, batch 32"
        print(f"{label:40} {peer_rate:8.1f} {len(texts) / peer_rate:8.1f}")
    print(f"index / encoder: {index_rate / encoder_rate:.2f}")
    print(
        json.dumps(
            {
                "n": len(rows),
                "encoder_docs_per_s": round(encoder_rate, 2),
                "index_docs_per_s": round(index_rate, 2),
                "ratio": round(index_rate / encoder_rate, 3),
                "peer_docs_per_s": round(peer_rate, 2) if peer_rate else None,
            }
        )
    )


if __name__ == "__main__":
    main()
