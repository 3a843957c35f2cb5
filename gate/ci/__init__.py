"""CI plumbing around a run: shards, merging their reports, the sticky comment poster."""
