"""The read path: candidates per memory type (dense + BM25), calibration, bonuses, budgeted packing, serialization."""

# its modules; the public names are re-exported by memdesk itself
__all__ = [
    "calibration",
    "lexical",
    "packing",
    "profiles",
    "question_person",
    "question_time",
    "relevance",
    "retrieve",
    "scope_index",
    "serialize",
    "stemming",
]
