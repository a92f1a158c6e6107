"""Index builds: the two-phase build, where indexes live, their manifests and the index pair of a
kind."""
