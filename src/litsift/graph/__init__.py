"""The citation graph beyond the store's edges: snowballing from kept papers
(:mod:`~litsift.graph.snowball`) and writing a collection's graph for viewers
(:mod:`~litsift.graph.export`). The edges themselves live in :mod:`litsift.store.citations`."""
