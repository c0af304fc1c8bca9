"""The evaluation runner: ingest each conversation into its own scope, then evaluate every question
with every system, one :class:`~memdesk.eval.rows.QuestionResult` line of ``results.jsonl`` per
(system, question).

Layout of ``out_dir``::

    results.jsonl        one line per system and question (appended as they finish)
    summary.json         aggregates (see memdesk.eval.summary)
    report.md, *.png     tables and plots (see memdesk.eval.markdown_report)
    work/state.json      which scopes are fully ingested, the run's configuration, the stage account
    work/typed.db        SQLite store written by the run's processor (typed systems and sweep)
    work/default.db      the default processor's store, when it is not the run's processor
    work/raw.db          SQLite store with one record per raw turn (flat RAG)
    work/embeddings.sqlite   the content-hash embedding cache

Resuming: a (system, question) pair already in ``results.jsonl`` is skipped, a scope recorded as
ingested in ``state.json`` is not ingested again, and a scope interrupted mid-ingest continues
where it stopped (``Memory.add`` skips message ids already logged). A truncated last line (a crash) is dropped.
"""

from __future__ import annotations

import logging
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from tqdm import tqdm

from ..conversation.base import Answerer, Processor
from ..conversation.memory import Memory
from ..embed.base import Embedder
from ..errors import LLMOutputError, UsageError
from ..llm.usage import UsageLedger
from ..records import MemoryType, Scope, SemanticRecord
from ..hits import Evidence, SearchHit
from ..store.base import Store
from ..text.tokens import TokenCounter
from . import metrics as M
from .cache import CachingEmbedder
from .datasets import EvalConversation, EvalDataset, EvalQuestion
from .judging import Judge, SharedVerdicts
from .results_file import ResultsFile
from .rows import QuestionResult
from .sampling import DEFAULT_SEED, round_robin, select_categories, stratified_sample
from .state import RunState
from .systems import StoreKind, SystemSpec

logger = logging.getLogger(__name__)

CUTOFFS = (5, 10, 25)
#: The cut-off of the mean reciprocal rank of the first gold turn (MRR@10).
MRR_CUTOFF = 10
#: Builds the default Memory (the settings' processor and retriever) over a store and an embedder.
DefaultMemoryFactory = Callable[[Store, Embedder], Memory]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


class EvalRun:
    """One evaluation run over a dataset; see :func:`memdesk.eval.run.run_eval` for the arguments."""

    def __init__(
        self,
        dataset: EvalDataset,
        out_dir: str | Path,
        *,
        embedder: Embedder,
        processor_factory: Callable[[], Processor],
        processor_name: str,
        systems: Sequence[SystemSpec],
        default_memory: DefaultMemoryFactory | None = None,
        limit: int | None = None,
        seed: int = DEFAULT_SEED,
        answerer: Answerer | None = None,
        answer_model: str | None = None,
        judge: Judge | None = None,
        ledger: UsageLedger | None = None,
        token_counter: TokenCounter | None = None,
        cutoffs: Sequence[int] = CUTOFFS,
        progress: bool = True,
        full_context_max_tokens: int | None = None,
        order: Literal["file", "round_robin"] = "file",
        categories: Sequence[str] | None = None,
    ) -> None:
        chosen = select_categories(dataset.questions, categories, dataset.categories, dataset.headline_categories)
        chosen = stratified_sample(chosen, limit, seed) if limit is not None else chosen
        self.questions = round_robin(chosen) if order == "round_robin" else chosen
        self.dataset = dataset
        self.out_dir = Path(out_dir)
        self.work = self.out_dir / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.inner_embedder = embedder
        self.embedder = CachingEmbedder(embedder, self.work / "embeddings.sqlite")
        self.query_embedder = CachingEmbedder(embedder, None)  # sweep only: same query, many configs
        self.processor_factory = processor_factory
        self.default_memory = default_memory
        if not systems:
            raise UsageError("no systems to evaluate")
        if any(s.kind == "default" for s in systems) and default_memory is None:
            raise UsageError("the memdesk-default system needs a default_memory factory")
        self.seed = seed
        self.order = order
        self.answerer = answerer
        self.judge = judge
        self.verdicts = SharedVerdicts()
        self.ledger = ledger
        self.tokens = token_counter or TokenCounter()
        self.cutoffs = tuple(sorted(set(cutoffs)))
        self.progress = progress
        self.full_context_max_tokens = full_context_max_tokens
        self.results: ResultsFile[QuestionResult] = ResultsFile(
            self.out_dir / "results.jsonl", QuestionResult, exclude_none=True
        )
        self.state = RunState(
            self.work / "state.json",
            {
                "benchmark": dataset.name,
                "data": str(dataset.path),
                "embedder": embedder.model_id,
                "processor": processor_name,
                "answer_model": answer_model,
            },
        )
        self._stores: dict[StoreKind, Store] = {}
        self._full: dict[str, tuple[str, int, list[str]]] = {}
        self.systems = [self._resolved(s) for s in systems]

    # -- stores and memories ------------------------------------------------------------------------
    def _store(self, kind: StoreKind) -> Store:
        if kind not in self._stores:
            from ..store import open_store

            self._stores[kind] = open_store(f"sqlite:///{self.work / f'{kind}.db'}")
        return self._stores[kind]

    def _memory(self, kind: StoreKind, embedder: Embedder) -> Memory:
        """The Memory that ingests into the ``kind`` store (and reads it for the named systems)."""
        if kind == "default":
            assert self.default_memory is not None
            return self.default_memory(self._store(kind), embedder)
        if kind == "raw":
            from ..conversation.raw import RawTurnProcessor

            return Memory(self._store(kind), embedder, RawTurnProcessor())
        return Memory(self._store(kind), embedder, self.processor_factory())

    def _resolved(self, spec: SystemSpec) -> SystemSpec:
        """A default system's spec with the k, K and hybrid flag of the retriever the settings build."""
        if spec.kind != "default":
            return spec
        assert spec.store is not None and self.default_memory is not None
        retriever = self.default_memory(self._store(spec.store), self.embedder).retriever
        return spec.model_copy(update={"k": retriever.k, "K": retriever.K, "hybrid": retriever.hybrid})

    def close(self) -> None:
        for store in self._stores.values():
            store.close()
        self._stores.clear()
        self.embedder.close()
        self.query_embedder.close()

    @staticmethod
    def scope_of(conv_id: str) -> Scope:
        return Scope(user_id=conv_id)

    # -- ingest -------------------------------------------------------------------------------------
    def ingest(self, conv: EvalConversation, kind: StoreKind) -> None:
        """Ingest ``conv`` into the ``kind`` store unless the state says it is done."""
        if self.state.ingested(kind, conv.id):
            return
        memory = self._memory(kind, self.embedder)
        scope = self.scope_of(conv.id)
        sessions: dict[str, list] = defaultdict(list)
        for m in conv.messages:
            sessions[conv.session_of.get(m.id or "", "")].append(m)
        before = (self.embedder.embed_seconds, self.embedder.hits, self.embedder.misses)
        start = time.perf_counter()
        n_records = 0
        with tqdm(
            total=len(conv.messages), desc=f"ingest {kind} {conv.id}", unit="msg", file=sys.stderr,
            disable=not self.progress, leave=False,
        ) as bar:  # fmt: skip
            for batch in sessions.values():
                result = memory.add(batch, scope=scope)
                n_records += len(result.records)
                bar.update(len(batch))
        elapsed = time.perf_counter() - start
        self.state.add(f"ingest.{kind}.seconds", elapsed)
        self.state.add(f"ingest.{kind}.embed_seconds", self.embedder.embed_seconds - before[0])
        self.state.add(f"ingest.{kind}.embed_cache_hits", self.embedder.hits - before[1])
        self.state.add(f"ingest.{kind}.embed_cache_misses", self.embedder.misses - before[2])
        self.state.add(f"ingest.{kind}.messages", len(conv.messages))
        self.state.add(f"ingest.{kind}.records", n_records)
        self.state.add(f"ingest.{kind}.scopes", 1)
        self.state.mark_ingested(kind, conv.id)
        logger.info("ingested %s into %s: %d records in %.1fs", conv.id, kind, n_records, elapsed)

    # -- full context -----------------------------------------------------------------------------------
    def full_context(self, conv: EvalConversation) -> tuple[str, int, list[str]]:
        """Every turn, grouped by session with its date: (text, tokens, normalized tokens)."""
        if conv.id not in self._full:
            lines: list[str] = []
            current = None
            for m in conv.messages:
                session = conv.session_of.get(m.id or "", "")
                if session != current:
                    current = session
                    when = conv.session_times.get(session)
                    stamp = when.strftime("%Y-%m-%d %H:%M") if when else "undated"
                    lines.append(f"\n## Session {session} ({stamp})")
                lines.append(f"{m.speaker or m.role}: {m.text()}")
            text = "\n".join(lines).strip()
            self._full.clear()  # one conversation at a time: LongMemEval haystacks are large
            self._full[conv.id] = (text, self.tokens.count(text), M.normalize_answer(text).split())
        return self._full[conv.id]

    # -- one question -------------------------------------------------------------------------------
    def _reader(self, spec: SystemSpec, query_cache: bool) -> Memory:
        """The Memory a system reads through: the default Memory for ``memdesk-default`` (on
        whichever store it reads), else the store's own."""
        assert spec.store is not None
        embedder = self.query_embedder if query_cache else self.inner_embedder
        if spec.kind == "default":
            assert self.default_memory is not None
            return self.default_memory(self._store(spec.store), embedder)
        return self._memory(spec.store, embedder)

    def evaluate(self, q: EvalQuestion, spec: SystemSpec, memories: dict[tuple[str, str, bool], Memory]) -> QuestionResult:
        conv = self.dataset.conversations[q.conversation_id]
        row = QuestionResult(
            system=spec.name, question_id=q.id, conversation_id=q.conversation_id, category=q.category,
            abstention=q.abstention, retrieval_scored=q.retrieval_scored, sweep=spec.sweep, k=spec.k, K=spec.K,
        )  # fmt: skip
        if spec.kind == "full":
            text, n_tokens, norm_tokens = self.full_context(conv)
            provenance = [[m.id] for m in conv.messages if m.id]
            evidence = Evidence(hits=[_whole_conversation_hit(conv, self.scope_of(conv.id))], text=text, tokens=n_tokens)
            row.containment = None if q.abstention else M.answer_containment(q.answer, q.category_id, norm_tokens)
        else:
            assert spec.store is not None
            memory = memories[_reader_key(spec)]
            scope = self.scope_of(conv.id)
            start = time.perf_counter()
            if spec.kind == "default":
                evidence = memory.evidence(q.question, scope=scope, asked_at=q.question_time)
            else:
                evidence = memory.evidence(
                    q.question, scope=scope, k=spec.k, K=spec.K, mode=spec.mode, hybrid=spec.hybrid, asked_at=q.question_time
                )
            row.search_ms = _ms(time.perf_counter() - start)
            provenance = [list(h.record.provenance) for h in evidence.hits]
            row.containment = None if q.abstention else M.answer_containment(
                q.answer, q.category_id, M.normalize_answer(evidence.text).split()
            )
            if spec.keep_hits:
                row.hits = [(h.memory_type.value[0], round(h.score, 4), list(h.record.provenance)) for h in evidence.hits]
        row.n_hits = len(provenance)
        row.evidence_tokens = evidence.tokens
        if q.retrieval_scored:
            self._score_retrieval(row, q, conv, provenance, cut=spec.kind != "full")
        if self.answerer is not None and spec.answered:
            self._answer(row, q, spec, evidence)
        parts = [v for v in (row.search_ms, row.answer_ms) if v is not None]
        row.total_ms = round(sum(parts), 3) if parts else None
        return row

    def _score_retrieval(
        self, row: QuestionResult, q: EvalQuestion, conv: EvalConversation, provenance: list[list[str]], *, cut: bool
    ) -> None:
        """Recall and session recall at K and at each cut-off, precision@1 and the reciprocal rank of the
        first gold turn within 10 (no cut-offs and no ranks for full context)."""

        def session_of(i: str) -> str:
            return conv.session_of.get(i, i)

        row.recall = {"all": M.evidence_recall(q.evidence_ids, provenance)}
        row.session_recall = {"all": M.session_recall(q.evidence_sessions, provenance, session_of)}
        if cut:
            row.precision_at_1 = M.precision_at_1(q.evidence_ids, provenance)
            row.reciprocal_rank = M.reciprocal_rank(q.evidence_ids, provenance, MRR_CUTOFF)
        for c in self.cutoffs:
            row.recall[str(c)] = M.evidence_recall(q.evidence_ids, provenance, c) if cut else None
            row.session_recall[str(c)] = M.session_recall(q.evidence_sessions, provenance, session_of, c) if cut else None

    def _answer(self, row: QuestionResult, q: EvalQuestion, spec: SystemSpec, evidence: Evidence) -> None:
        """Answer from the evidence, score the answer, and judge it."""
        assert self.answerer is not None
        if spec.kind == "full" and self.full_context_max_tokens and evidence.tokens > self.full_context_max_tokens:
            row.answer_skipped = f"context of {evidence.tokens} tokens exceeds {self.full_context_max_tokens}"
            return
        start = time.perf_counter()
        answer = self.answerer.answer(q.question, evidence, question_time=q.question_time_text).answer
        row.answer_ms = _ms(time.perf_counter() - start)
        row.answer = answer
        scores = M.score_prediction(answer, q.answer, category_id=q.category_id, abstention=q.abstention)
        row.abstained, row.f1, row.bleu1 = scores.abstained, scores.f1, scores.bleu1
        if self.judge is None:
            return
        if (shared := self.verdicts.get(q.id, answer)) is not None:
            verdict, row.judge_shared = shared
            row.judge, row.judge_label, row.judge_reason = verdict.correct, verdict.label, verdict.reason
            return
        start = time.perf_counter()
        try:
            verdict = self.judge(q, answer)
        except LLMOutputError as e:  # the judge model never gave a valid verdict
            logger.warning("judge failed on %s/%s: %s", spec.name, q.id, e)
            row.judge_error = f"{e} (raw: {e.raw[:300]!r})"
        else:
            row.judge, row.judge_label, row.judge_reason = verdict.correct, verdict.label, verdict.reason
        row.judge_ms = _ms(time.perf_counter() - start)

    # -- the loop -----------------------------------------------------------------------------------
    def run(self) -> list[QuestionResult]:
        """Evaluate every pending (system, question) pair; returns all result rows of this run's questions."""
        rows = self.results.read()
        done = {r.key for r in rows}
        self.verdicts = SharedVerdicts(rows)
        by_conv: dict[str, list[EvalQuestion]] = defaultdict(list)
        for q in self.questions:
            by_conv[q.conversation_id].append(q)
        pending_total = sum(1 for q in self.questions for s in self.systems if (s.name, q.id) not in done)
        logger.info("%d (system, question) pairs pending, %d done", pending_total, len(done))
        before = (self.ledger.counters() if self.ledger is not None else {})
        bar = tqdm(total=pending_total, desc=f"{self.dataset.name} questions", unit="q", file=sys.stderr, disable=not self.progress)
        clock = time.perf_counter()
        try:
            for conv_id, questions in by_conv.items():
                pending = [(q, s) for q in questions for s in self.systems if (s.name, q.id) not in done]
                if not pending:
                    continue
                conv = self.dataset.conversations[conv_id]
                kinds: list[StoreKind] = sorted({s.store for _, s in pending if s.store is not None})
                for kind in kinds:
                    self.ingest(conv, kind)
                memories: dict[tuple[str, str, bool], Memory] = {}
                for _, spec in pending:
                    if spec.store is not None and _reader_key(spec) not in memories:
                        memories[_reader_key(spec)] = self._reader(spec, query_cache=spec.sweep)
                start = time.perf_counter()
                for q, spec in pending:
                    row = self.evaluate(q, spec, memories)
                    self.results.append(row)
                    rows.append(row)
                    done.add(row.key)
                    self.verdicts.add(row)
                    self._account(row)
                    bar.update(1)
                self.state.add("questions.seconds", time.perf_counter() - start)
                # wall time is booked per conversation, so a killed run keeps what it spent
                now = time.perf_counter()
                self.state.add("wall_seconds", now - clock)
                clock = now
                self.state.save()
        finally:
            bar.close()
            self.state.add("wall_seconds", time.perf_counter() - clock)
            for key, value in (self.ledger.counters() if self.ledger is not None else {}).items():
                self.state.add(key, value - before.get(key, 0))
            self.state.save()
        wanted = {q.id for q in self.questions}
        names = {s.name for s in self.systems}
        return [r for r in rows if r.question_id in wanted and r.system in names]

    def _account(self, row: QuestionResult) -> None:
        prefix = "sweep" if row.sweep else row.system
        if row.search_ms is not None:
            self.state.add(f"search.{prefix}.seconds", row.search_ms / 1000)
        if row.answer_ms is not None:
            self.state.add(f"answer.{prefix}.seconds", row.answer_ms / 1000)
            self.state.add(f"answer.{prefix}.evidence_tokens", row.evidence_tokens)
        if row.judge_ms is not None:
            self.state.add(f"judge.{prefix}.seconds", row.judge_ms / 1000)
        self.state.add(f"evidence_tokens.{prefix}", row.evidence_tokens)


def _reader_key(spec: SystemSpec) -> tuple[str, str, bool]:
    """Systems with equal keys read through one Memory (the sweep shares a query-embedding cache)."""
    return ("default" if spec.kind == "default" else "named", spec.store or "", spec.sweep)


def _whole_conversation_hit(conv: EvalConversation, scope: Scope) -> SearchHit:
    """Full context as one hit (answerers that require hits see the block as one piece of evidence)."""
    record = SemanticRecord(
        scope=scope, fact=f"the whole conversation {conv.id}", provenance=[m.id for m in conv.messages if m.id]
    )
    return SearchHit(record=record, score=1.0, memory_type=MemoryType.SEMANTIC, rank=0, why="full context")
