"""Full text: the passage index (BM25 + dense over papers' passages) and its build."""
