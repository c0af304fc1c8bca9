"""ENGRAM's read path: per-type top-k, merge, de-duplicate, truncate to K, serialize.

The query is embedded once; each memory type's store is searched independently (so events, facts and
instructions do not compete in one ranking), the union is ordered by cosine, duplicates are dropped
(same provenance or the same normalized text), and the best K are kept. ``mode="untyped"`` ranks all
records in one list instead: the ablation of typed separation.
"""

from __future__ import annotations

import re
from typing import Literal, Sequence

import numpy as np

from .errors import InvalidInputError, UnknownScopeError
from .records import ALL_TYPES, Evidence, MemoryType, Scope, SearchHit
from .store.base import Store
from .tokens import TokenCounter

Mode = Literal["typed", "untyped"]
Merge = Literal["score", "round_robin"]
_NORM = re.compile(r"[\W_]+", re.UNICODE)


def normalized_text(text: str) -> str:
    return _NORM.sub(" ", text.lower()).strip()


class Retriever:
    """Typed top-k retrieval over a Store, with merge, de-duplication and truncation."""

    def __init__(self, store: Store, *, k: int = 20, K: int = 25, merge: Merge = "score") -> None:
        if k < 1 or K < 1:
            raise InvalidInputError("k and K must be >= 1")
        self.store = store
        self.k = k
        self.K = K
        self.merge = merge

    def check_scope(self, scope: Scope) -> None:
        if not any(scope.matches(s) for s in self.store.scopes()):
            raise UnknownScopeError(f"no memories under scope {scope}")

    def retrieve(
        self,
        vector: np.ndarray,
        scope: Scope,
        *,
        types: Sequence[MemoryType] | None = None,
        speaker: str | None = None,
        k: int | None = None,
        K: int | None = None,
        mode: Mode = "typed",
        merge: Merge | None = None,
    ) -> list[SearchHit]:
        """Best-first hits. ``merge="score"`` orders the union of the per-type lists by cosine;
        ``"round_robin"`` takes rank 0 of every type, then rank 1, ... (each type represented)."""
        k = k or self.k
        K = K or self.K
        if k < 1 or K < 1:
            raise InvalidInputError("k and K must be >= 1")
        if mode not in ("typed", "untyped"):
            raise InvalidInputError(f"mode must be 'typed' or 'untyped', not {mode!r}")
        wanted = tuple(types) if types else ALL_TYPES
        per_type_k = k if mode == "typed" else K
        candidates: list[SearchHit] = []
        for memory_type in wanted:
            for rank, scored in enumerate(self.store.search(vector, scope, memory_type, per_type_k, speaker=speaker)):
                candidates.append(
                    SearchHit.model_construct(  # trusted values from the store: skip re-validation
                        record=scored.record,
                        score=scored.score,
                        memory_type=memory_type,
                        rank=rank,
                        why=f"{memory_type.value} top-{rank + 1} by cosine {scored.score:.3f}",
                    )
                )
        merge = merge or self.merge
        if merge == "round_robin" and mode == "typed":
            candidates.sort(key=lambda h: (h.rank, -h.score))
        else:
            candidates.sort(key=lambda h: -h.score)
        return dedupe(candidates)[:K]


def dedupe(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Keep the first (best) hit of each provenance set and of each normalized text."""
    seen_prov: set[tuple[str, ...]] = set()
    seen_text: set[str] = set()
    out = []
    for h in hits:
        prov = tuple(sorted(h.record.provenance))
        text = normalized_text(h.record.embed_text())
        if (prov and prov in seen_prov) or text in seen_text:
            continue
        if prov:
            seen_prov.add(prov)
        seen_text.add(text)
        out.append(h)
    return out


class Serializer:
    """Renders hits as an evidence block, grouped by memory type, one line per record with its
    temporal anchor and speaker::

        Events (episodic):
        - [2023-05-07] Caroline: went to an LGBTQ support group
        Facts (semantic):
        - [2023-05-08] Caroline is a counselor

    Within a group, lines keep the retrieval order (best first). The speaker is written only when the
    record's text does not already name them (the rule extractor writes third-person text).
    """

    HEADERS = {
        MemoryType.EPISODIC: "Events (episodic):",
        MemoryType.SEMANTIC: "Facts (semantic):",
        MemoryType.PROCEDURAL: "Instructions (procedural):",
    }

    def __init__(self, token_counter: TokenCounter | None = None) -> None:
        self.token_counter = token_counter or TokenCounter()

    @staticmethod
    def line(hit: SearchHit) -> str:
        r = hit.record
        anchor = r.temporal_anchor or (r.event_time.date().isoformat() if r.event_time else "undated")
        title = getattr(r, "title", "")
        body = r.body()
        text = f"{title}: {body}" if title and not body.startswith(title) else body
        if r.speaker and r.speaker not in text:
            text = f"{r.speaker}: {text}"
        return f"- [{anchor}] {text}"

    def serialize(self, hits: Sequence[SearchHit]) -> Evidence:
        lines: list[str] = []
        for memory_type in ALL_TYPES:
            group = [h for h in hits if h.memory_type is memory_type]
            if group:
                lines.append(self.HEADERS[memory_type])
                lines.extend(self.line(h) for h in group)
        text = "\n".join(lines)
        return Evidence(hits=list(hits), text=text, tokens=self.token_counter.count(text) if text else 0)
