"""The evaluation runner: ingest each conversation into its own scope, then evaluate every question
with every system, one ``results.jsonl`` line per (system, question).

Layout of ``out_dir``::

    results.jsonl        one line per system and question (appended as they finish)
    summary.json         aggregates (see memdesk.eval.summary)
    report.md, *.png     tables and plots (see memdesk.eval.report)
    work/state.json      which scopes are fully ingested, the run's configuration, the stage account
    work/typed.db        SQLite store written by the configured processor (typed systems and sweep)
    work/raw.db          SQLite store with one record per raw turn (flat RAG)
    work/embeddings.sqlite   the content-hash embedding cache

Resuming: a (system, question) pair already in ``results.jsonl`` is skipped, a scope recorded as
ingested in ``state.json`` is not ingested again, and a scope interrupted mid-ingest continues
where it stopped (``Memory.add`` skips message ids already logged). A truncated last line (a crash
while writing) is dropped.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel
from tqdm import tqdm

from ..conversation.base import Answerer, Processor
from ..embed.base import Embedder
from ..errors import ConfigError, LLMOutputError, UsageError
from ..records import Evidence, MemoryType, Scope, SearchHit, SemanticRecord
from ..tokens import TokenCounter
from . import metrics as M
from .cache import CachingEmbedder
from .datasets import (
    EvalConversation,
    EvalDataset,
    EvalQuestion,
    load_locomo,
    load_longmemeval,
)
from .sampling import DEFAULT_SEED, stratified_sample
from .systems import StoreKind, SystemSpec, default_systems, select_systems

logger = logging.getLogger(__name__)

Benchmark = Literal["locomo", "longmemeval"]
CUTOFFS = (5, 10, 25)
STATE_VERSION = 1


class JudgeVerdict(BaseModel):
    """A judge's verdict on one answer."""

    correct: bool
    label: str | None = None
    raw: str | None = None


class Judge(Protocol):
    """Scores a predicted answer against a question's gold answer (an LLM judge, usually)."""

    model_id: str

    def __call__(self, question: EvalQuestion, prediction: str) -> JudgeVerdict: ...


def load_dataset(benchmark: Benchmark, data_path: str | Path | None = None) -> EvalDataset:
    """Load ``benchmark`` from ``data_path`` (default: the shared data folder)."""
    if benchmark == "locomo":
        return load_locomo(data_path)
    if benchmark == "longmemeval":
        return load_longmemeval(data_path)
    raise UsageError(f"unknown benchmark {benchmark!r}; use 'locomo' or 'longmemeval'")


# --- persistence ----------------------------------------------------------------------------------
class ResultsFile:
    """``results.jsonl``: append-only, one JSON object per line, flushed per line."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> list[dict[str, Any]]:
        """Every complete line; a truncated last line is removed from the file."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        out: list[dict[str, Any]] = []
        good_bytes = 0
        for i, line in enumerate(lines):
            if not line.strip():
                good_bytes += len(line) + (1 if i < len(lines) - 1 else 0)
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                if i == len(lines) - 1 or all(not rest.strip() for rest in lines[i + 1 :]):
                    logger.warning("dropping a truncated last line of %s", self.path)
                    with open(self.path, "r+b") as f:
                        f.truncate(good_bytes)
                    break
                raise ConfigError(f"{self.path}: line {i + 1} is not JSON; move the file away to start over")
            good_bytes += len(line) + 1
        return out

    def append(self, row: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
            f.flush()


class RunState:
    """``work/state.json``: configuration, ingested scopes, cumulative stage account."""

    def __init__(self, path: Path, config: dict[str, Any]) -> None:
        self.path = path
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            old = data.get("config", {})
            clash = {k: (old.get(k), v) for k, v in config.items() if k in old and old[k] != v}
            if clash:
                raise ConfigError(
                    f"{path.parent.parent} holds a run with another configuration {clash}; use a new --out directory"
                )
            self.data = data
            self.data["config"] = {**old, **config}
        else:
            self.data = {"version": STATE_VERSION, "config": config, "ingested": {}, "account": {}}

    def ingested(self, store: str, scope_id: str) -> bool:
        return scope_id in self.data["ingested"].get(store, [])

    def mark_ingested(self, store: str, scope_id: str) -> None:
        self.data["ingested"].setdefault(store, []).append(scope_id)
        self.save()

    def add(self, key: str, value: float) -> None:
        acc = self.data["account"]
        acc[key] = round(acc.get(key, 0) + value, 6)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)


# --- the run ----------------------------------------------------------------------------------------
class EvalRun:
    """One evaluation run over a dataset; see :func:`run_eval` for the arguments."""

    def __init__(
        self,
        dataset: EvalDataset,
        out_dir: str | Path,
        *,
        embedder: Embedder,
        processor_factory: Callable[[], Processor],
        processor_name: str,
        systems: Sequence[SystemSpec],
        limit: int | None = None,
        seed: int = DEFAULT_SEED,
        answerer: Answerer | None = None,
        judge: Judge | None = None,
        token_counter: TokenCounter | None = None,
        cutoffs: Sequence[int] = CUTOFFS,
        progress: bool = True,
        full_context_max_tokens: int | None = None,
        answer_model: str | None = None,
        order: Literal["file", "round_robin"] = "file",
    ) -> None:
        self.dataset = dataset
        self.out_dir = Path(out_dir)
        self.work = self.out_dir / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.inner_embedder = embedder
        self.embedder = CachingEmbedder(embedder, self.work / "embeddings.sqlite")
        self.query_embedder = CachingEmbedder(embedder, None)  # sweep only: same query, many configs
        self.processor_factory = processor_factory
        self.systems = list(systems)
        if not self.systems:
            raise UsageError("no systems to evaluate")
        chosen = stratified_sample(dataset.questions, limit, seed) if limit is not None else list(dataset.questions)
        self.questions = round_robin(chosen) if order == "round_robin" else chosen
        self.seed = seed
        self.answerer = answerer
        self.judge = judge
        self.tokens = token_counter or TokenCounter()
        self.cutoffs = tuple(sorted(set(cutoffs)))
        self.progress = progress
        self.full_context_max_tokens = full_context_max_tokens
        self.results = ResultsFile(self.out_dir / "results.jsonl")
        self.order = order
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
        self._stores: dict[str, Any] = {}
        self._full: dict[str, tuple[str, int, list[str]]] = {}

    # -- stores -------------------------------------------------------------------------------------
    def _store(self, kind: StoreKind):
        if kind not in self._stores:
            from ..store import open_store

            self._stores[kind] = open_store(f"sqlite:///{self.work / f'{kind}.db'}")
        return self._stores[kind]

    def _processor(self, kind: StoreKind) -> Processor:
        if kind == "raw":
            from ..conversation.raw import RawTurnProcessor

            return RawTurnProcessor()
        return self.processor_factory()

    def _memory(self, kind: StoreKind, embedder: Embedder):
        from ..conversation.memory import Memory

        return Memory(self._store(kind), embedder, self._processor(kind))

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
        ) as bar:
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
    def evaluate(self, q: EvalQuestion, spec: SystemSpec, memories: dict[tuple[StoreKind, bool], Any]) -> dict[str, Any]:
        conv = self.dataset.conversations[q.conversation_id]
        row: dict[str, Any] = {
            "system": spec.name,
            "question_id": q.id,
            "conversation_id": q.conversation_id,
            "category": q.category,
            "abstention": q.abstention,
            "retrieval_scored": q.retrieval_scored,
            "sweep": spec.sweep,
            "k": spec.k,
            "K": spec.K,
        }
        if spec.kind == "full":
            text, n_tokens, norm_tokens = self.full_context(conv)
            provenance = [[m.id] for m in conv.messages if m.id]
            evidence = Evidence(hits=[_whole_conversation_hit(conv, self.scope_of(conv.id))], text=text, tokens=n_tokens)
            search_ms = None
            row["containment"] = _containment_tokens(q, norm_tokens)
        else:
            assert spec.store is not None
            memory = memories[(spec.store, spec.sweep)]
            start = time.perf_counter()
            evidence = memory.evidence(
                q.question, scope=self.scope_of(conv.id), k=spec.k, K=spec.K, mode=spec.mode, hybrid=spec.hybrid
            )
            search_ms = (time.perf_counter() - start) * 1000
            provenance = [list(h.record.provenance) for h in evidence.hits]
            row["containment"] = _containment_tokens(q, M.normalize_answer(evidence.text).split())
            if spec.keep_hits:
                row["hits"] = [
                    [h.memory_type.value[0], round(h.score, 4), list(h.record.provenance)] for h in evidence.hits
                ]
        row["n_hits"] = len(provenance)
        row["evidence_tokens"] = evidence.tokens
        row["search_ms"] = None if search_ms is None else round(search_ms, 3)
        if q.retrieval_scored:
            full = spec.kind == "full"
            row["recall"] = {"all": M.evidence_recall(q.evidence_ids, provenance)}
            row["session_recall"] = {
                "all": M.session_recall(q.evidence_sessions, provenance, lambda i: conv.session_of.get(i, i))
            }
            for c in self.cutoffs:
                row["recall"][str(c)] = None if full else M.evidence_recall(q.evidence_ids, provenance, c)
                row["session_recall"][str(c)] = (
                    None if full else M.session_recall(q.evidence_sessions, provenance, lambda i: conv.session_of.get(i, i), c)
                )
        answer_ms = None
        if self.answerer is not None and spec.answered:
            if spec.kind == "full" and self.full_context_max_tokens and evidence.tokens > self.full_context_max_tokens:
                row["answer_skipped"] = f"context of {evidence.tokens} tokens exceeds {self.full_context_max_tokens}"
            else:
                start = time.perf_counter()
                answer = self.answerer.answer(q.question, evidence, question_time=q.question_time_text)
                answer_ms = (time.perf_counter() - start) * 1000
                row["answer"] = answer.answer
                row.update(score_answer(q, answer.answer))
                if self.judge is not None:
                    start = time.perf_counter()
                    try:
                        verdict = self.judge(q, answer.answer)
                    except LLMOutputError as e:  # the judge model never gave a valid verdict
                        logger.warning("judge failed on %s/%s: %s", spec.name, q.id, e)
                        row["judge"] = None
                        row["judge_error"] = f"{e} (raw: {e.raw[:300]!r})"
                    else:
                        row["judge"] = verdict.correct
                        row["judge_label"] = verdict.label
                    row["judge_ms"] = round((time.perf_counter() - start) * 1000, 3)
        row["answer_ms"] = None if answer_ms is None else round(answer_ms, 3)
        parts = [v for v in (search_ms, answer_ms) if v is not None]
        row["total_ms"] = round(sum(parts), 3) if parts else None
        return row

    # -- the loop -----------------------------------------------------------------------------------
    def run(self) -> list[dict[str, Any]]:
        """Evaluate every pending (system, question) pair; returns all result rows of this run's questions."""
        rows = self.results.read()
        done = {(r["system"], r["question_id"]) for r in rows}
        by_conv: dict[str, list[EvalQuestion]] = defaultdict(list)
        for q in self.questions:
            by_conv[q.conversation_id].append(q)
        pending_total = sum(1 for q in self.questions for s in self.systems if (s.name, q.id) not in done)
        logger.info("%d (system, question) pairs pending, %d done", pending_total, len(done))
        bar = tqdm(total=pending_total, desc=f"{self.dataset.name} questions", unit="q", file=sys.stderr, disable=not self.progress)
        clock = time.perf_counter()
        try:
            for conv_id, questions in by_conv.items():
                pending = [(q, s) for q in questions for s in self.systems if (s.name, q.id) not in done]
                if not pending:
                    continue
                conv = self.dataset.conversations[conv_id]
                kinds = sorted({s.store for _, s in pending if s.store is not None})
                for kind in kinds:
                    self.ingest(conv, kind)  # type: ignore[arg-type]
                memories: dict[tuple[StoreKind, bool], Any] = {}
                for kind in kinds:
                    memories[(kind, False)] = self._memory(kind, self.inner_embedder)  # type: ignore[arg-type]
                    memories[(kind, True)] = self._memory(kind, self.query_embedder)  # type: ignore[arg-type]
                start = time.perf_counter()
                for q, spec in pending:
                    row = self.evaluate(q, spec, memories)
                    self.results.append(row)
                    rows.append(row)
                    done.add((spec.name, q.id))
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
            self.state.save()
        wanted = {q.id for q in self.questions}
        names = {s.name for s in self.systems}
        return [r for r in rows if r["question_id"] in wanted and r["system"] in names]

    def _account(self, row: dict[str, Any]) -> None:
        prefix = "sweep" if row["sweep"] else row["system"]
        if row.get("search_ms") is not None:
            self.state.add(f"search.{prefix}.seconds", row["search_ms"] / 1000)
        if row.get("answer_ms") is not None:
            self.state.add(f"answer.{prefix}.seconds", row["answer_ms"] / 1000)
            self.state.add(f"answer.{prefix}.evidence_tokens", row["evidence_tokens"])
        if row.get("judge_ms") is not None:
            self.state.add(f"judge.{prefix}.seconds", row["judge_ms"] / 1000)
        self.state.add(f"evidence_tokens.{prefix}", row["evidence_tokens"])


def round_robin(questions: Sequence[EvalQuestion]) -> list[EvalQuestion]:
    """Questions interleaved over categories (each category in file order), so that any prefix left
    by an interrupted run covers every category."""
    queues: dict[str, list[EvalQuestion]] = defaultdict(list)
    for q in questions:
        queues[q.category].append(q)
    out: list[EvalQuestion] = []
    depth = 0
    while len(out) < len(questions):
        for queue in queues.values():
            if depth < len(queue):
                out.append(queue[depth])
        depth += 1
    return out


def _whole_conversation_hit(conv: EvalConversation, scope: Scope) -> SearchHit:
    """Full context as one hit (answerers that require hits see the block as one piece of evidence)."""
    record = SemanticRecord(
        scope=scope, fact=f"the whole conversation {conv.id}", provenance=[m.id for m in conv.messages if m.id]
    )
    return SearchHit(record=record, score=1.0, memory_type=MemoryType.SEMANTIC, rank=0, why="full context")


def _containment_tokens(q: EvalQuestion, text_tokens: list[str]) -> float | None:
    if q.abstention or q.answer is None:
        return None
    parts = M.answer_parts(q.answer, q.category_id)
    if not parts:
        return None
    return sum(_contains_tokens(M.normalize_answer(p).split(), text_tokens) for p in parts) / len(parts)


def _contains_tokens(a: list[str], t: list[str]) -> bool:
    n = len(a)
    if not n:
        return False
    first = a[0]
    return any(t[i] == first and t[i : i + n] == a for i in range(len(t) - n + 1))


def score_answer(q: EvalQuestion, prediction: str) -> dict[str, Any]:
    """LoCoMo F1 (official rules) and BLEU-1 of one prediction; category 5 scores abstention only."""
    out: dict[str, Any] = {}
    if q.category_id is not None:
        if q.category_id == 5 or q.answer is not None:
            out["f1"] = M.locomo_f1(prediction, q.answer, q.category_id)
        if q.category_id != 5 and q.answer is not None:
            out["bleu1"] = M.bleu1(prediction, q.answer)
    elif q.answer is not None:
        out["f1"] = M.f1_score(prediction, q.answer)
        out["bleu1"] = M.bleu1(prediction, q.answer)
    return out


def run_eval(
    benchmark: Benchmark,
    data_path: str | Path | None,
    out_dir: str | Path,
    *,
    systems: Iterable[str] | None = None,
    limit: int | None = None,
    seed: int = DEFAULT_SEED,
    llm: Any = None,
    judge: Judge | None = None,
    embedder: Embedder | None = None,
    processor_factory: Callable[[], Processor] | None = None,
    processor_name: str = "rules",
    k: int = 20,
    K: int = 25,
    sweep: bool = True,
    cutoffs: Sequence[int] = CUTOFFS,
    progress: bool = True,
    full_context_max_tokens: int | None = None,
    report: bool = True,
    token_counter: TokenCounter | None = None,
    order: Literal["file", "round_robin"] | None = None,
) -> dict[str, Any]:
    """Run (or resume) an evaluation and write ``results.jsonl``, ``summary.json``, ``report.md`` and plots.

    Args:
        benchmark: ``"locomo"`` or ``"longmemeval"``.
        data_path: the benchmark file (None: the default file in the shared data folder).
        out_dir: run directory (created; reused to resume).
        systems: system names to run (default: all, see :mod:`memdesk.eval.systems`; ``"sweep"``
            selects the k/K sweep).
        limit: evaluate a seeded sample of ``limit`` questions, stratified over categories and
            conversations (:func:`memdesk.eval.sampling.stratified_sample`); None: all of them.
        seed: the sample's seed (recorded in ``summary.json`` with the sampled question ids).
        llm: a :class:`~memdesk.llm.base.ChatModel` that answers (through ``LLMAnswerer``), or an
            :class:`~memdesk.conversation.base.Answerer`; None for the offline run.
        judge: scores answers when ``llm`` is given.
        embedder: default the packaged MiniLM model.
        processor_factory: builds the typed store's processor (default: rule router + extractor).
        k, K: per-type top-k and the number of records kept.
        full_context_max_tokens: skip answering with full context above this many tokens.
        order: the order questions are evaluated in: ``"file"`` (LoCoMo's default: conversation by
            conversation) or ``"round_robin"`` over categories (LongMemEval's default: its file is
            sorted by question type and each question is its own haystack, so an interrupted run
            still covers every type).
    Returns:
        the summary (also written to ``summary.json``).
    """
    from .summary import summarize

    dataset = load_dataset(benchmark, data_path)
    if embedder is None:
        from ..embed import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    if processor_factory is None:
        processor_factory = default_processor_factory
    answerer, answer_model = _answerer(llm)
    chosen = select_systems(default_systems(k, K, sweep=sweep), systems)
    run = EvalRun(
        dataset,
        out_dir,
        embedder=embedder,
        processor_factory=processor_factory,
        processor_name=processor_name,
        systems=chosen,
        limit=limit,
        seed=seed,
        answerer=answerer,
        judge=judge if answerer is not None else None,
        cutoffs=cutoffs,
        progress=progress,
        full_context_max_tokens=full_context_max_tokens,
        answer_model=answer_model,
        token_counter=token_counter,
        order=order or ("round_robin" if benchmark == "longmemeval" else "file"),
    )
    ledgers = _ledgers(llm, judge)
    before = [_usage_snapshot(ledger) for ledger in ledgers]
    try:
        rows = run.run()
    finally:
        for ledger, old in zip(ledgers, before):
            for key, value in _usage_snapshot(ledger).items():
                run.state.add(key, value - old.get(key, 0))
        run.state.save()
        run.close()
    summary = summarize(
        rows,
        dataset,
        systems=chosen,
        questions=run.questions,
        config={
            "embedder": embedder.model_id,
            "processor": processor_name,
            "k": k,
            "K": K,
            "cutoffs": list(run.cutoffs),
            "answer_model": answer_model,
            "judge_model": getattr(judge, "model_id", None) if answerer is not None and judge is not None else None,
            "limit": limit,
            "seed": seed if limit is not None else None,
            "sample": "stratified over categories and conversations" if limit is not None else "all questions",
            "order": run.order,
        },
        account=run.state.data["account"],
    )
    out = Path(out_dir)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=False), encoding="utf-8")
    if report:
        from .report import write_report

        write_report(summary, out)
    return summary


def _ledgers(*models: Any) -> list[Any]:
    """The distinct usage ledgers of the chat models behind ``models`` (chat models or judges)."""
    out: list[Any] = []
    for m in models:
        for candidate in (m, getattr(m, "chat_model", None)):
            ledger = getattr(candidate, "ledger", None)
            if ledger is not None and hasattr(ledger, "by_operation") and all(ledger is not x for x in out):
                out.append(ledger)
    return out


def _usage_snapshot(ledger: Any) -> dict[str, float]:
    """``llm.<operation>.{calls,prompt_tokens,completion_tokens,latency_s,cost_usd}`` of a ledger."""
    out: dict[str, float] = {}
    for op, usage in ledger.by_operation().items():
        for field in ("calls", "prompt_tokens", "completion_tokens", "latency_s", "cost_usd"):
            out[f"llm.{op}.{field}"] = float(getattr(usage, field))
    return out


def default_processor_factory() -> Processor:
    """The offline typed processor: rule router + rule extractor."""
    from ..conversation.base import RoutedExtraction
    from ..conversation.extract import RuleExtractor
    from ..conversation.router import RuleRouter

    return RoutedExtraction(RuleRouter(), RuleExtractor())


def _answerer(llm: Any) -> tuple[Answerer | None, str | None]:
    if llm is None:
        return None, None
    if isinstance(llm, Answerer):
        return llm, getattr(llm, "model_id", None) or type(llm).__name__
    from ..conversation.answer import LLMAnswerer

    return LLMAnswerer(llm), getattr(llm, "model_id", None)
