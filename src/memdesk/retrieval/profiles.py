"""Read-path parameters chosen by the embedder in use (not by the benchmark).

The fused read path adds ``lexical_weight * bm25 / max bm25`` to each record's cosine before the
scores are standardized per memory type. How much BM25 should count depends on the dense model: a
stronger embedder already finds most of what the lexical side adds, and its cosines are spread
differently. The same holds for how the memory types' scores are put on one scale (``type_prior``: each type's own
distribution, or the scope's) and for how hard a record repeating a message already ranked is pushed down the
packing order (``redundancy_penalty``). Each known embedder gets one :class:`ReadProfile`, measured on LoCoMo and
LongMemEval (docs/embedders.md); any other embedder gets the default, which is MiniLM's.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from .scope_index import TYPE_PRIOR


@dataclass(frozen=True)
class ReadProfile:
    """Fused read-path parameters for one embedder."""

    lexical_weight: float = 0.3
    #: scope records mixed into each memory type's score moments (:data:`~memdesk.retrieval.scope_index.TYPE_PRIOR`)
    type_prior: float = TYPE_PRIOR
    #: packing penalty of a record repeating a message already ranked (:mod:`memdesk.retrieval.redundancy`)
    redundancy_penalty: float = 0.0


DEFAULT_PROFILE = ReadProfile()

#: model_id prefix -> profile (the part of a model_id before any ``@sha`` is matched)
PROFILES: Mapping[str, ReadProfile] = MappingProxyType({
    "all-MiniLM-L6-v2": DEFAULT_PROFILE,
    # nomic: less BM25, one pooled score scale for all memory types, repeats of a shown message packed later
    # (bench/results/locomo-nomic/profile-30n/README.md)
    "nomic-embed-text-v1.5": ReadProfile(lexical_weight=0.1, type_prior=1e6, redundancy_penalty=0.5),
    # EmbeddingGemma: nomic's pooled scale and redundancy penalty, BM25 weight 0.2 (bench/results/locomo-gemma/README.md)
    "embeddinggemma-300m": ReadProfile(lexical_weight=0.2, type_prior=1e6, redundancy_penalty=0.5),
})  # fmt: skip


def read_profile(model_id: str | None) -> ReadProfile:
    """The profile of the embedder named ``model_id`` (the default one for an unknown or missing id)."""
    if model_id:
        name = model_id.split("@", 1)[0]
        for prefix, profile in PROFILES.items():
            if name.startswith(prefix):
                return profile
    return DEFAULT_PROFILE
