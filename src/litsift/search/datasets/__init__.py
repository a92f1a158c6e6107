"""Dataset recommendation over the dataset and paper searchers: usage profiles, popularity
prior and a learned re-ranker (:class:`~litsift.search.datasets.searcher.DatasetSearcher`)."""
