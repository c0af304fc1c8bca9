"""ENGRAM's read path: per-type top-k, merge, de-duplicate, truncate to K, serialize (:mod:`memdesk.retrieval.serialize`).

The query is embedded once; each memory type's store is searched independently (so events, facts and instructions do
not compete in one ranking), the union is ordered by cosine, duplicates are dropped (same provenance or the same
normalized text), and the best K are kept. ``mode="untyped"`` ranks all records in one list instead: the ablation of
typed separation.

``hybrid=True`` (a memdesk extension, not in the ENGRAM paper) adds a lexical ranking: BM25 over the same records
(their embedded text) under the scope, fused with the dense list by reciprocal rank
(:mod:`memdesk.retrieval.lexical`) before de-duplication and truncation. It finds records whose decisive word is a
rare name or noun that the embedding blurs. Hits then carry the fused score, and ``why`` names both ranks. A scope's
BM25 index is built on first use and follows the store's :meth:`~memdesk.store.base.Store.revision`.

Every read goes through a :class:`~memdesk.filters.RecordFilter` (``where``): by default it drops memories a later
one superseded; it can keep what held ``as_of`` a time, or filter by metadata, role, source and event time
(:mod:`memdesk.store.filtered`), dense and lexical rankings alike. ``fusion="score"`` is memdesk's default read path
(:meth:`Retriever.fused`, what ``Memory.open()`` builds): candidates are each type's dense top-k and the
stemmed-BM25 top ``lexical_k``; each gets ``cosine + lexical_weight * bm25 / max bm25``; in typed mode that score is
standardized within its own memory type (:mod:`memdesk.retrieval.calibration`: the types' cosine distributions
differ, so raw scores let one store crowd out the others); the ranked candidates are packed into a token budget
(:mod:`memdesk.retrieval.packing`) instead of being cut at K. Constructor defaults keep ENGRAM's paper path.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Sequence

import numpy as np

from ..runtime import aio
from ..errors import InvalidInputError, UnknownScopeError
from ..filters import RecordFilter, as_filter
from .lexical import fuse_hits
from .question_head import HEAD_WEIGHT, head_terms
from .packing import BudgetPacker, dedupe, is_statement, normalized_text  # noqa: F401 - dedupe re-exported
from .question_focus import ASKING_WEIGHT, FOCUS_WEIGHT, asks_about_asking, question_focus
from .question_instruction import INSTRUCTION_WEIGHT, instruction_weights
from .question_now import CHANGE_WEIGHT, NOW_WEIGHT, asks_now, asks_then, held_at
from .question_person import PERSON_WEIGHT, role_boosts
from .question_time import TIME_WEIGHT, question_windows
from .redundancy import demote_repeated
from .relevance import COSINE, FUSED, RRF, calibrate
from ..records import ALL_TYPES, MemoryRecord, MemoryType, Scope, utcnow
from ..hits import SearchHit
from .scope_cache import ScopeIndexCache
from .scope_index import TYPE_PRIOR

BONUS_GATE = 1.0
"""The default read path's bonus gate, in standard deviations (see :class:`Retriever`'s ``bonus_gate``)."""
LEXICAL_PRIOR = 0.0
"""The default read path's lexical prior, in records (see :class:`Retriever`'s ``lexical_prior``): off. Measured
at 10 and 20 (``bench/results/scores/README.md``): it kept a lone shared word from outranking meaning in some small
chats and cost others their one rare matching noun; on the tune chats it lost (p@1 0.725 at 20, 0.728 off)."""
LEXICAL_FLOOR = 0.5
"""The default read path's lexical floor (see :class:`Retriever`'s ``lexical_floor``)."""
SUPERSEDED_WEIGHT = 0.6
"""The default read path's demotion of a superseded record (:class:`Retriever`'s ``superseded_weight``; the constructor's
0.5 is ENGRAM's). Fitted with every other read-path weight, leave-one-author-out over six writers' chat sets
(``bench/fit_read_path.py``, ``bench/results/read-path-fit/README.md``): of all one-weight moves it alone gained on the
left-out writer (precision@1 +0.005 on average, 4 of 6 folds, none lower; MRR@10 higher on all 6). A softer demotion
keeps a closed record matching the question far better than anything current above weak current ones; 0.9, 1.0 lost."""
from .serialize import Serializer
from .stemming import StemmingTokenizer
from ..store.base import Store
from ..store.filtered import search_types_where

Mode = Literal["typed", "untyped"]
Merge = Literal["score", "round_robin"]
Fusion = Literal["rrf", "score"]


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
        lexical_cache: per-scope indexes kept (:class:`~memdesk.retrieval.scope_cache.ScopeIndexCache`: one
            per scope, types, filter and stemming searched), least recently used dropped first.
        superseded_weight: a superseded memory's score is multiplied by this in a default search, so
            current facts rank first and a superseded record's other facts can still be found; None
            drops superseded memories (``as_of`` and ``include_superseded`` filters are read as given).
            In score fusion a superseded record's fused score is demoted by the same factor before
            it is standardized within its type.
        fusion: ``"rrf"`` (the hybrid extension above) or ``"score"`` (the fused path: score-level
            fusion, per-type calibration, token budget; ``hybrid`` then switches its lexical side).
        lexical_weight: weight of the max-normalized BM25 score in score fusion.
        stem: stem the BM25 terms in score fusion (:mod:`memdesk.retrieval.stemming`).
        token_budget: pack hits into this many tokens of ``serializer``'s block (K still caps the
            count); None cuts at K.
        serializer: prices the budget (default a plain :class:`Serializer`).
        person_weight: in score fusion, added to the standardized score of the user's records for a
            question in the first person or one naming the user (:mod:`memdesk.retrieval.question_person`); 0
            turns it off. A scope
            whose records all share one role ranks the same with or without it.
        time_weight: in score fusion, added to the standardized score of a record dated inside a time
            window the question names, read against the time it is asked (``asked_at`` of
            :meth:`retrieve`, :mod:`memdesk.retrieval.question_time`); 0 turns it off.
        bonus_gate: in score fusion, a record's bonuses (``person_weight``, ``time_weight``) are scaled by its
            standardized score over this many standard deviations, clipped to [0, 1]: a record no more related
            than its type's average gets none, so a bonus cannot lift an unrelated record over a relevant one;
            0 gives every record the whole bonus.
        lexical_prior: in score fusion, the BM25 weight is ``lexical_weight * n / (n + lexical_prior)`` in a
            scope of n records: a handful of records cannot tell a rare topical word from a common one, and
            the top BM25 match of a small scope gets the whole weight however weak it is.
        lexical_floor: in score fusion, BM25 scores are divided by the best one's or by this share of what a record
            holding every query term would score, whichever is larger
            (:meth:`~memdesk.retrieval.lexical.BM25Index.attainable`): the best of weak matches (a short record that
            shares only the name every record holds) no longer gets the whole lexical weight; 0 divides by the best.
        type_prior: records of the whole scope mixed into each memory type's moments before standardizing
            (:data:`memdesk.retrieval.scope_index.TYPE_PRIOR`): a type of a few records is standardized by the scope.
        calibrated: hits carry a calibrated relevance in [0, 1], non-increasing down the list, as ``score``
            (:mod:`memdesk.retrieval.relevance`; the raw ranking value stays in ``why``); False gives the raw values
            (the relevance fit reads those: ``bench/fit_relevance.py``).
        focus_weight: in score fusion, added (gated by ``bonus_gate``) to the standardized score of a record that
            states a value of the kind the question asks for: a place or a person for "where" and "who", a date for
            "when", a count for "how many", a name for "which ..." and "what ... called"
            (:mod:`memdesk.retrieval.question_focus`); 0 turns it off.
        now_weight: in score fusion, for a question asking what holds now ("... now?", "still", "these days"),
            taken off a relevant record that a later relevant record on the same topic follows
            (:mod:`memdesk.retrieval.question_now`); 0 turns it off.
        asking_weight: in score fusion, a record of a question someone asked has its fused score multiplied by this
            (as a superseded one's is), unless the question asks what was asked
            (:data:`memdesk.retrieval.question_focus.ASKING_WEIGHT`); None leaves it.
        change_weight: in score fusion, added to a record telling a change for a question asking what holds now, taken off
            it for one asking what held before (:data:`memdesk.retrieval.question_now.CHANGE_WEIGHT`); 0 turns it off.
        instruction_weight: in score fusion, added to the user's instruction to the assistant for a question asking for
            one, taken off it for one asking for a value (:mod:`memdesk.retrieval.question_instruction`); 0 turns it off.
        head_weight: in score fusion, added (gated) to a record holding a word of the attribute the question asks about,
            its predicate past the subject (:mod:`memdesk.retrieval.question_head`); 0 turns it off.
        redundancy_penalty: with a token budget, a record sharing a message with a record ranked above it is packed as
            if its score were this much lower (:mod:`memdesk.retrieval.redundancy`); 0 packs in rank order.
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
        fusion: Fusion = "rrf",
        lexical_weight: float = 0.3,
        stem: bool = True,
        token_budget: int | None = None,
        serializer: "Serializer | None" = None,
        person_weight: float = 0.0,
        time_weight: float = 0.0,
        calibrated: bool = True,
        bonus_gate: float = 0.0, type_prior: float = TYPE_PRIOR,
        lexical_prior: float = 0.0, lexical_floor: float = 0.0,
        focus_weight: float = 0.0, now_weight: float = 0.0,
        redundancy_penalty: float = 0.0, asking_weight: float | None = None,
        change_weight: float = 0.0, instruction_weight: float = 0.0, head_weight: float = 0.0,
    ) -> None:
        if k < 1 or K < 1:
            raise InvalidInputError("k and K must be >= 1")
        if lexical_k < 1 or rrf_c <= 0 or lexical_cache < 1:
            raise InvalidInputError("lexical_k and lexical_cache must be >= 1 and rrf_c > 0")
        if superseded_weight is not None and not 0.0 <= superseded_weight <= 1.0:
            raise InvalidInputError("superseded_weight must be between 0 and 1, or None")
        self.superseded_weight = superseded_weight
        if fusion not in ("rrf", "score") or min(lexical_weight, person_weight, time_weight, redundancy_penalty) < 0:
            raise InvalidInputError(
                "fusion must be 'rrf' or 'score', and lexical_weight, person_weight, time_weight and redundancy_penalty >= 0"
            )
        self.store, self.k, self.K, self.merge, self.hybrid = store, k, K, merge, hybrid
        self.lexical_k, self.rrf_c, self.fusion = lexical_k, rrf_c, fusion
        self.lexical_weight = lexical_weight
        self.person_weight = person_weight
        self.time_weight = time_weight
        self.calibrated = calibrated
        self.bonus_gate = bonus_gate
        self.lexical_prior, self.lexical_floor = lexical_prior, lexical_floor
        self.focus_weight, self.now_weight = focus_weight, now_weight
        self.redundancy_penalty = redundancy_penalty
        self.asking_weight = asking_weight
        self.change_weight, self.instruction_weight, self.head_weight = change_weight, instruction_weight, head_weight
        self.stem = stem
        self.token_budget = token_budget
        self.serializer = serializer or Serializer()
        self.packer = BudgetPacker(self.serializer, token_budget, max_records=K) if token_budget else None
        self.indexes = ScopeIndexCache(store, size=lexical_cache, tokenizer=StemmingTokenizer(), type_prior=type_prior)

    @classmethod
    def fused(
        cls, store: Store, *, k: int = 60, K: int = 100, token_budget: int = 900, serializer: "Serializer | None" = None,
        **options,
    ) -> "Retriever":
        """memdesk's default read path: dense + stemmed BM25 score fusion, the asker's own words
        first (``person_weight``, 3 standard deviations), per-type calibration, a token budget (default 900 cl100k
        tokens) over an anchor-grouped block; records dated when the question asks about get ``time_weight``
        (1.5 standard deviations). Both bonuses are gated (``bonus_gate``, 1 standard deviation). A superseded record's
        fused score is multiplied by :data:`SUPERSEDED_WEIGHT`."""
        defaults = dict(
            lexical_k=k, person_weight=PERSON_WEIGHT, time_weight=TIME_WEIGHT, bonus_gate=BONUS_GATE, lexical_prior=LEXICAL_PRIOR,
            lexical_floor=LEXICAL_FLOOR, focus_weight=FOCUS_WEIGHT, now_weight=NOW_WEIGHT, asking_weight=ASKING_WEIGHT,
            superseded_weight=SUPERSEDED_WEIGHT, change_weight=CHANGE_WEIGHT, instruction_weight=INSTRUCTION_WEIGHT,
            head_weight=HEAD_WEIGHT,
        )
        serializer = serializer or Serializer(group_by_anchor=True)
        return cls(store, k=k, K=K, hybrid=True, fusion="score", token_budget=token_budget, serializer=serializer, **(defaults | options))

    @property
    def async_ready(self) -> bool:
        """Loop-safe when its store is (PostgreSQL): its ranking, BM25 and packing go through
        :func:`memdesk.runtime.aio.offload` (worker threads under ``aio.run``), its store reads stay on the loop."""
        return aio.loop_safe(self.store)

    def drop_cached_text(self) -> None:
        """Drop every cached per-scope index (they hold records and their text): called when a scope is forgotten."""
        self.indexes.clear()

    def same_message(self, scope: Scope, record: MemoryRecord) -> list[MemoryRecord]:
        """The other current records of ``scope`` drawn from ``record``'s own message (its first provenance id: the
        other statements said with it; a reply's view of the next message is not one), read from the scope's cached
        index (the one the default search builds); empty on a read path without one."""
        if self.fusion != "score" or not record.provenance:
            return []
        index = self.indexes.get(scope, tuple(MemoryType), RecordFilter(include_superseded=True), stem=self.stem)
        own = record.provenance[0]
        return [r for r in index.records if r.id != record.id and r.superseded_by is None and r.provenance[:1] == [own]]

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
        asked_at: datetime | None = None,
        lexical_text: str | None = None,
    ) -> list[SearchHit]:
        """Best-first hits. ``merge="score"`` orders the union of the per-type lists by cosine;
        ``"round_robin"`` takes rank 0 of every type, then rank 1, ... (each type represented).
        Hybrid retrieval (``hybrid``, default the retriever's) needs ``query_text``, the text that
        ``vector`` embeds. ``where`` filters the records (default: current memories only). ``asked_at``,
        when the question is asked, dates its relative time expressions (score fusion's ``time_weight``).
        ``lexical_text`` is the BM25 query when it should differ from ``query_text`` (e.g. the question with
        terms a chat model expects the evidence to hold: ``bench/experiments/query_expansion.py``); ``query_text`` alone
        is read for its person and time."""
        where = as_filter(where, speaker=speaker)
        k = k or self.k
        K = K or self.K
        if k < 1 or K < 1:
            raise InvalidInputError("k and K must be >= 1")
        if mode not in ("typed", "untyped"):
            raise InvalidInputError(f"mode must be 'typed' or 'untyped', not {mode!r}")
        wanted = tuple(types) if types else tuple(where.type_list())
        now = (where := where.pinned(asked_at)).read_time()  # what a later memory had closed by then is not current
        demote = self.superseded_weight is not None and where.current_only
        if demote:  # current facts first; a superseded record stays findable for what else it says
            where = where.model_copy(update={"include_superseded": True, "now": None})
            demote = not asks_then(query_text)  # "Where did she work before ...?": what was, undemoted
        hybrid_on = self.hybrid if hybrid is None else hybrid
        lexical_query = lexical_text if lexical_text and lexical_text.strip() else query_text
        if self.fusion == "score":
            weight = self.superseded_weight if demote else None
            bm25_text = lexical_query if hybrid_on else None
            return self._fused(
                vector, scope, wanted, where, k, K, mode, bm25_text, weight, person_text=query_text, asked_at=asked_at, now=now
            )  # calibrated there: the scope's size is known there
        per_type_k = k if mode == "typed" else K
        candidates: list[SearchHit] = []
        found = search_types_where(self.store, vector, scope, wanted, per_type_k, where)  # one read for every type
        for memory_type, scored_list in found.items():
            for rank, scored in enumerate(scored_list):
                candidates.append(
                    SearchHit.model_construct(  # trusted values from the store: skip re-validation
                        record=scored.record,
                        score=scored.score,
                        cosine=scored.score,
                        memory_type=memory_type,
                        rank=rank,
                        why=f"{memory_type.value} top-{rank + 1} by cosine {scored.score:.3f}",
                    )
                )
        merge = merge or self.merge
        candidates.sort(key=lambda h: (h.rank, -h.score) if merge == "round_robin" and mode == "typed" else -h.score)
        if hybrid_on:
            if not query_text or not query_text.strip():
                raise InvalidInputError("hybrid retrieval needs the query text")
            candidates = fuse_hits(candidates, self.lexical_hits(lexical_query, scope, wanted, where=where), self.rrf_c)
        if demote and (closed := [h for h in candidates if h.record.closed_at(now)]):
            for h in closed:
                h.score *= self.superseded_weight  # type: ignore[operator]
                h.why = f"{h.why}; superseded, x{self.superseded_weight}"
            candidates.sort(key=lambda h: (h.rank, -h.score) if merge == "round_robin" and mode == "typed" and not hybrid_on else -h.score)
        return calibrate(dedupe(candidates)[:K], (RRF if hybrid_on else COSINE) if self.calibrated else None, 1)

    def _fused(
        self,
        vector: np.ndarray,
        scope: Scope,
        wanted: tuple[MemoryType, ...],
        where: RecordFilter,
        k: int,
        K: int,
        mode: Mode,
        query_text: str | None,
        superseded_weight: float | None,
        *,
        person_text: str | None = None,
        asked_at: datetime | None = None,
        now: datetime | None = None,
    ) -> list[SearchHit]:
        """Score fusion + calibration + budget over the records ``where`` keeps (see the module docstring); a record
        closed by ``now`` (default: this moment) has its fused score demoted by ``superseded_weight`` when that is set.
        ``query_text`` feeds BM25 (None: dense only); ``person_text`` is read for whose words it asks about and, with
        ``asked_at``, for when."""
        now = now or utcnow()
        index, drop = self.indexes.for_read(scope, wanted, where, stem=self.stem)

        windows = question_windows(person_text, asked_at)  # the times the question names
        def ranked_hits() -> list[SearchHit]:  # CPU (numpy, BM25, token counts): offloaded on the event loop
            ranked = index.rank(
                vector,
                query_text,
                k=k,
                lexical_k=self.lexical_k,
                lexical_weight=self.lexical_weight,
                typed=mode == "typed",
                superseded_weight=superseded_weight,
                closed=index.closed_at(now if drop else held_at(person_text, windows, now)), drop_closed=drop,  # by the time asked about
                role_boost=role_boosts(person_text, self.person_weight, index.user_names),
                time_windows=windows if self.time_weight > 0 else (),
                time_weight=self.time_weight,
                bonus_gate=self.bonus_gate,
                lexical_prior=self.lexical_prior,
                lexical_floor=self.lexical_floor,
                focus=(focus := question_focus(person_text) if self.focus_weight > 0 else None),
                focus_weight=self.focus_weight,
                now_weight=self.now_weight if asks_now(person_text) else 0.0,
                then_weight=self.now_weight if asks_then(person_text) else 0.0,  # what held before: the earliest
                asking_weight=None if self.asking_weight is None or asks_about_asking(person_text) else self.asking_weight,
                replaced_weight=self.superseded_weight if asks_then(person_text) else None,
                change_weight=self.change_weight * (asks_now(person_text) - asks_then(person_text)), head_weight=self.head_weight,
                head_terms=head_terms(person_text, index.bm25.tokenizer, index.user_names) if self.head_weight else frozenset(),
                **instruction_weights(person_text, focus is not None, self.instruction_weight, index.user_names, index.assistant_names),
            )
            ranks: dict[MemoryType, int] = {}

            def hits():
                for pos, score, why in ranked:
                    record = index.records[pos]
                    memory_type = MemoryType(record.type)
                    rank = ranks[memory_type] = ranks.get(memory_type, -1) + 1
                    yield SearchHit.model_construct(
                        record=record, score=score, cosine=why.cosine, memory_type=memory_type, rank=rank, why=str(why)
                    )

            ordered = demote_repeated(hits(), self.redundancy_penalty) if self.redundancy_penalty > 0 else hits()
            packed = self.packer.pack(ordered, max_records=K) if self.packer is not None else dedupe(hits(), K)
            return calibrate(packed, FUSED if self.calibrated else None, len(index.records))

        return aio.offload(ranked_hits)

    def lexical_hits(
        self,
        query_text: str,
        scope: Scope,
        types: Sequence[MemoryType] = ALL_TYPES,
        speaker: str | None = None,
        *,
        where: RecordFilter | None = None,
    ) -> list[SearchHit]:
        """The unstemmed BM25 top ``lexical_k`` records of ``types`` under ``scope`` (and ``speaker``'s
        bank) that ``where`` keeps, from the same per-scope index cache the fused path keeps."""
        where = as_filter(where, speaker=speaker)
        index, drop = self.indexes.for_read(scope, tuple(types), where, stem=False)
        skip = index.closed_at(where.read_time()) if drop else None
        records = index.records
        return [
            SearchHit.model_construct(
                record=records[i], score=score, memory_type=MemoryType(records[i].type), rank=rank, why=f"bm25 top-{rank + 1} ({score:.2f})"
            )
            for rank, (i, score) in enumerate(aio.offload(index.bm25.top, query_text, self.lexical_k, skip))
        ]
