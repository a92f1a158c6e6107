"""Aspects of a query (DORIS-MAE): decomposition, per-aspect scoring over stored sentences, coverage
order."""
