"""Network plumbing shared by the LLM client and the sync client (no litsift imports)."""
