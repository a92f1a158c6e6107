"""Ctrl+C while the embedding pool works: does the process end at once, quietly?

Each run starts a child process that embeds 4,000 passages through the worker pool
(``Encoder.worker_pool``, 2 workers) and sends itself SIGINT after a delay between 4 and 5.2 s,
i.e. at a different point of the chunks in flight. The child turns the KeyboardInterrupt into
exit code 130, as ``litsift index`` does. Counted per run: the seconds from the signal to the
process's end, whether it hung (no end within ``--hang`` seconds; then it is killed) and whether
it printed a traceback on its way out.

    python benchmarks/pool_interrupt.py --runs 30

Measured on the 2-core machine (2026-11-29, Python 3.11.7), 30 runs each. Before chunks went
through files, a worker terminated half-way through writing its 98 KB of vectors to the result
pipe left the executor's manager thread waiting for the rest of the message, and the exit hook
could race it on its wake-up pipe ("OSError: [Errno 9] Bad file descriptor"): see
docs/BENCHMARKS.md for the figures.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

PASSAGES = 4000


def child(delay: float) -> None:
    from litsift.models_onnx import load_encoder

    encoder = load_encoder()
    encoder.passage_cache = None
    texts = [
        f"passage {i} on neural retrieval, datasets and evaluation. " * 8 for i in range(PASSAGES)
    ]

    def fire() -> None:
        time.sleep(delay)
        print(f"SIGINT {time.time():.3f}", flush=True)
        os.kill(os.getpid(), signal.SIGINT)

    with encoder.worker_pool(2):
        threading.Thread(target=fire, daemon=True).start()
        try:
            encoder.encode_passages(texts)
        except KeyboardInterrupt:
            sys.exit(130)


def one(delay: float, hang_s: float) -> tuple[float | None, bool, bool]:
    """``(seconds from SIGINT to exit or None when hung, hung, traceback printed)``."""
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", str(delay)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=delay + 30 + hang_s)
        ended = time.time()
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, True, "Traceback" in err
    sent = [float(line.split()[1]) for line in out.splitlines() if line.startswith("SIGINT ")]
    seconds = ended - sent[0] if sent else None
    hung = seconds is None or seconds > hang_s
    return seconds, hung, "Traceback" in err


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--hang", type=float, default=10.0, help="seconds after SIGINT counted as hung")
    ap.add_argument("--child", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child)
        return
    times, hung, tracebacks = [], 0, 0
    for i in range(args.runs):
        delay = 4.0 + (i % 5) * 0.3
        seconds, h, tb = one(delay, args.hang)
        hung += h
        tracebacks += tb
        if seconds is not None and not h:
            times.append(seconds)
        after = "-" if seconds is None else f"{seconds:.2f}"
        flags = ("  HUNG" if h else "") + ("  TRACEBACK" if tb else "")
        print(f"run {i + 1:3d}  delay {delay:.1f} s  exit after {after} s{flags}", flush=True)
    median = f"{statistics.median(times):.2f} s" if times else "n/a"
    print(f"\n{args.runs} runs: hung {hung}, traceback {tracebacks}, median exit {median}")


if __name__ == "__main__":
    main()
