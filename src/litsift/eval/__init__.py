"""Evaluation on public benchmarks with their papers' protocols (``litsift eval``).

Loaders (:mod:`.benchmarks`) turn DataFinder, SciFact, DORIS-MAE dev and any BEIR/LitSearch
layout into corpus rows, query sets and qrels; :mod:`.runner` ingests the corpus into the
benchmark's own litsift home, runs every query through ``LitsiftService.search`` (and the bm25s
peer), writes TREC runs and measures them with ir-measures (:mod:`.measures`).
:mod:`.cli_support` is what the CLI calls. This package sits above the service layer and never
imports a UI library.
"""
