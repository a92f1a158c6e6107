"""Where retrieval runs: the engine seam, the local engine, Milvus and the Ray embedding job."""
