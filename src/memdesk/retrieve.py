"""ENGRAM's read path: per-type top-k, merge, de-duplicate, truncate to K, serialize.

The query is embedded once; each memory type's store is searched independently (so events, facts and
instructions do not compete in one ranking), the union is ordered by cosine, duplicates are dropped
(same provenance or the same normalized text), and the best K are kept. ``mode="untyped"`` ranks all
records in one list instead: the ablation of typed separation.

``hybrid=True`` (a memdesk extension, not in the ENGRAM paper) adds a lexical ranking: BM25 over the
same records (their embedded text) under the scope, fused with the dense list by reciprocal rank
(:mod:`memdesk.lexical`) before de-duplication and truncation. It finds records whose decisive word
is a rare name or noun that the embedding blurs. Hits then carry the fused score, and ``why`` names
both ranks. The BM25 index of a scope is built on first use and rebuilt when the store's
:meth:`~memdesk.store.base.Store.revision` moves.

Every read goes through a :class:`~memdesk.filters.RecordFilter` (``where``): by default it drops
memories a later one superseded; it can keep what held ``as_of`` a time, or filter by metadata,
role, source and event time (:mod:`memdesk.store.filtered`), dense and lexical rankings alike.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Literal, Sequence

import numpy as np

from .errors import InvalidInputError, UnknownScopeError
from .filters import RecordFilter, as_filter
from .lexical import BM25Index, rrf_fuse
from .records import ALL_TYPES, Evidence, MemoryRecord, MemoryType, Scope, SearchHit
from .store.base import Store
from .store.filtered import scan_where, search_where
from .tokens import TokenCounter

Mode = Literal["typed", "untyped"]
Merge = Literal["score", "round_robin"]
_NORM = re.compile(r"[\W_]+", re.UNICODE)


def normalized_text(text: str) -> str:
    return _NORM.sub(" ", text.lower()).strip()


_LexicalKey = tuple[str | None, str | None, str | None, tuple[MemoryType, ...], str]


class Retriever:
    """Typed top-k retrieval over a Store, with merge, de-duplication and truncation.

    Args:
        store: where the records are.
        k: records per memory type (typed mode).
        K: records kept after merging.
        merge: ``"score"`` (by cosine) or ``"round_robin"`` (rank 0 of every type first).
        hybrid: fuse a BM25 ranking with the dense one by default (see the module docstring).
        lexical_k: BM25 records fused in hybrid mode.
        rrf_c: the reciprocal-rank-fusion constant.
        lexical_cache: BM25 indexes kept (one per scope, types and speaker searched), least
            recently used dropped first.
        superseded_weight: a superseded memory's score is multiplied by this in a default search, so
            current facts rank first and a superseded record's other facts can still be found; None
            drops superseded memories (``as_of`` and ``include_superseded`` filters are read as given).
    """

    def __init__(
        self,
        store: Store,
        *,
        k: int = 20,
        K: int = 25,
        merge: Merge = "score",
        hybrid: bool = False,
        lexical_k: int = 25,
        rrf_c: float = 60.0,
        lexical_cache: int = 32,
        superseded_weight: float | None = 0.5,
    ) -> None:
        if k < 1 or K < 1:
            raise InvalidInputError("k and K must be >= 1")
        if lexical_k < 1 or rrf_c <= 0 or lexical_cache < 1:
            raise InvalidInputError("lexical_k and lexical_cache must be >= 1 and rrf_c > 0")
        if superseded_weight is not None and not 0.0 <= superseded_weight <= 1.0:
            raise InvalidInputError("superseded_weight must be between 0 and 1, or None")
        self.superseded_weight = superseded_weight
        self.store = store
        self.k = k
        self.K = K
        self.merge = merge
        self.hybrid = hybrid
        self.lexical_k = lexical_k
        self.rrf_c = rrf_c
        self._lexical_cache = lexical_cache
        self._lexical: OrderedDict[_LexicalKey, tuple[int, BM25Index, list[MemoryRecord]]] = OrderedDict()
        self._lexical_lock = threading.Lock()

    def drop_cached_text(self) -> None:
        """Drop every cached BM25 index (they hold records' text): called when a scope is forgotten."""
        with self._lexical_lock:
            self._lexical.clear()

    def check_scope(self, scope: Scope) -> None:
        if not self.store.has_scope(scope):
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
        query_text: str | None = None,
        hybrid: bool | None = None,
        where: RecordFilter | None = None,
    ) -> list[SearchHit]:
        """Best-first hits. ``merge="score"`` orders the union of the per-type lists by cosine;
        ``"round_robin"`` takes rank 0 of every type, then rank 1, ... (each type represented).
        Hybrid retrieval (``hybrid``, default the retriever's) needs ``query_text``, the text that
        ``vector`` embeds. ``where`` filters the records (default: current memories only)."""
        where = as_filter(where, speaker=speaker)
        k = k or self.k
        K = K or self.K
        if k < 1 or K < 1:
            raise InvalidInputError("k and K must be >= 1")
        if mode not in ("typed", "untyped"):
            raise InvalidInputError(f"mode must be 'typed' or 'untyped', not {mode!r}")
        wanted = tuple(types) if types else tuple(where.type_list())
        demote = self.superseded_weight is not None and where.as_of is None and not where.include_superseded
        if demote:  # current facts first; a superseded record stays findable for what else it says
            where = where.model_copy(update={"include_superseded": True})
        per_type_k = k if mode == "typed" else K
        candidates: list[SearchHit] = []
        for memory_type in wanted:
            for rank, scored in enumerate(search_where(self.store, vector, scope, memory_type, per_type_k, where)):
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
        hybrid_on = self.hybrid if hybrid is None else hybrid
        if hybrid_on:
            if not query_text or not query_text.strip():
                raise InvalidInputError("hybrid retrieval needs the query text")
            candidates = self._fuse(candidates, self.lexical_hits(query_text, scope, wanted, where=where))
        if demote and any(h.record.superseded_by for h in candidates):
            for h in candidates:
                if h.record.superseded_by:
                    h.score *= self.superseded_weight  # type: ignore[operator]
                    h.why = f"{h.why}; superseded, x{self.superseded_weight}"
            candidates.sort(key=lambda h: (h.rank, -h.score) if merge == "round_robin" and mode == "typed" and not hybrid_on else -h.score)
        return dedupe(candidates)[:K]

    def lexical_hits(
        self,
        query_text: str,
        scope: Scope,
        types: Sequence[MemoryType] = ALL_TYPES,
        speaker: str | None = None,
        *,
        where: RecordFilter | None = None,
    ) -> list[SearchHit]:
        """The BM25 top ``lexical_k`` records of ``types`` under ``scope`` (and ``speaker``'s bank) that ``where`` keeps."""
        where = as_filter(where, speaker=speaker)
        index, records = self._lexical_index(scope, tuple(types), where)
        return [
            SearchHit.model_construct(
                record=records[i],
                score=score,
                memory_type=MemoryType(records[i].type),
                rank=rank,
                why=f"bm25 top-{rank + 1} ({score:.2f})",
            )
            for rank, (i, score) in enumerate(index.top(query_text, self.lexical_k))
        ]

    def _lexical_index(
        self, scope: Scope, types: tuple[MemoryType, ...], where: RecordFilter
    ) -> tuple[BM25Index, list[MemoryRecord]]:
        key: _LexicalKey = (scope.user_id, scope.agent_id, scope.run_id, types, where.model_dump_json(exclude={"types"}))
        revision = self.store.revision()
        with self._lexical_lock:
            cached = self._lexical.get(key)
            if cached is not None and cached[0] == revision:
                self._lexical.move_to_end(key)
                return cached[1], cached[2]
        records = list(scan_where(self.store, scope, where.model_copy(update={"types": types})))
        index = BM25Index([r.embed_text() for r in records])
        with self._lexical_lock:
            self._lexical[key] = (revision, index, records)
            self._lexical.move_to_end(key)
            while len(self._lexical) > self._lexical_cache:
                self._lexical.popitem(last=False)
        return index, records

    def _fuse(self, dense: list[SearchHit], lexical: list[SearchHit]) -> list[SearchHit]:
        """Reciprocal-rank fusion of the dense and lexical lists, as hits carrying the fused score."""
        by_id: dict[str, tuple[SearchHit | None, SearchHit | None]] = {}
        for h in dense:
            by_id.setdefault(h.record.id, (h, None))
        for h in lexical:
            d, _ = by_id.get(h.record.id, (None, None))
            by_id[h.record.id] = (d, h)
        fused = rrf_fuse([([h.record.id for h in dense], 1.0), ([h.record.id for h in lexical], 1.0)], self.rrf_c)
        out = []
        for record_id, score in fused:
            d, lex = by_id[record_id]
            base = d or lex
            assert base is not None
            reasons = [x.why for x in (d, lex) if x is not None]
            out.append(
                SearchHit.model_construct(
                    record=base.record,
                    score=score,
                    memory_type=base.memory_type,
                    rank=base.rank,
                    why=f"{' + '.join(reasons)}; fused {score:.4f}",
                )
            )
        return out


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
    record's text does not already name them (the rule extractor writes third-person text). A record
    that is not the user's own chat says where it is from (:meth:`~memdesk.records.RecordBase.provenance_label`)::

        - [2023-05-08] (by assistant) Caroline's bank is in Lisbon
        - [2023-05-08] (via image_caption) Caroline shared an image: a sign that reads "open daily"
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
        text = r.text()  # the record's text, written once
        if r.speaker and r.speaker not in text and r.speaker != r.role:
            text = f"{r.speaker}: {text}"
        label = r.provenance_label()
        return f"- [{anchor}] ({label}) {text}" if label else f"- [{anchor}] {text}"

    def serialize(self, hits: Sequence[SearchHit]) -> Evidence:
        lines: list[str] = []
        for memory_type in ALL_TYPES:
            group = [h for h in hits if h.memory_type is memory_type]
            if group:
                lines.append(self.HEADERS[memory_type])
                lines.extend(self.line(h) for h in group)
        text = "\n".join(lines)
        return Evidence(hits=list(hits), text=text, tokens=self.token_counter.count(text) if text else 0)
