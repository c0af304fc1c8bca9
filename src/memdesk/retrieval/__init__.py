"""The read path: candidates per memory type (dense + BM25), calibration, bonuses, budgeted packing, serialization."""
