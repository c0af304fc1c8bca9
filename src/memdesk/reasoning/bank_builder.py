"""MAC's offline stage: :class:`BankBuilder` fills a :class:`~.bank.MemoryBank` in resumable batches.

Per batch: trace sourcing and verification, memory formats, tags, embeddings, then one atomic
collection ``put``. Entries already in the bank (or rejected before) are skipped, so an interrupted
build resumes where it stopped. It refuses a bank that overlaps the evaluation set
(:class:`~memdesk.errors.DataOverlapError`) unless told to drop the overlapping items, which the
manifest then lists.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field
from tqdm import tqdm

from ..embed.base import Embedder
from ..errors import InvalidInputError, LLMError, UsageError
from ..llm.base import ChatModel, Completion, Usage
from ..llm.batch import ChatRequest, run_many
from ..records import Scope
from ..store.base import EmbeddingInfo, Store
from .bank import BankManifest, MemoryBank
from .datasets import AnswerKind, Problem
from .formats import FormatBuilder, FormattedContent
from .methods import trace_messages
from .overlap import check_disjoint, find_overlap
from .scoring import score_answer
from .solved_examples import MemoryFormat, Provenance, SolvedExample, Tags, TraceSource
from .tags import ProblemRepresentation, Representation

logger = logging.getLogger(__name__)


class BuildConfig(BaseModel):
    """Options of one bank build."""

    formats: list[MemoryFormat] = Field(default_factory=lambda: list(MemoryFormat))
    batch_size: int = Field(default=64, ge=1)
    limit: int | None = Field(default=None, ge=1, description="Use only the first N bank items.")
    on_overlap: Literal["error", "drop"] = "error"
    max_trace_tokens: int = Field(default=1024, ge=16)
    answer_instruction: str = ""


class BuildReport(BaseModel):
    """What one build run did."""

    name: str
    bank_size: int
    added: int
    skipped_existing: int
    rejected: int
    failed: int = Field(description="Items skipped this run after a model error (retried on resume).")
    absent_traces: int = Field(description="Items kept without a trace (no solution and no chat model).")
    dropped_overlap: list[str]
    usage: dict[str, Usage]
    seconds: float


class BankBuilder:
    """MAC's offline stage: verified traces, memory formats, tags and embeddings, into a :class:`MemoryBank`.

    Args:
        store: where the bank lives.
        embedder: embeds the retrieval texts (tags, or problems offline).
        representation: :class:`~.tags.TagRepresentation` (with a chat model) or the offline
            :class:`~.tags.ProblemRepresentation` (default).
        trace_model: generates traces for items without a dataset solution (kept only when the final
            answer matches the gold one); None keeps such items without a trace.
        format_model: writes Short-CoT and Summary; None builds them offline.
        answer_kind: the comparison that verifies generated traces.
        solutions: ``"gold"`` keeps an item's own solution as the dataset's worked solution; ``"checked"``
            (solutions submitted by a caller, e.g. an agent's) keeps it only when it reaches the item's answer,
            as generated traces are kept (:meth:`verify`), else rejects the item.
        progress: show tqdm progress bars (stderr).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        representation: Representation | None = None,
        trace_model: ChatModel | None = None,
        format_model: ChatModel | None = None,
        answer_kind: AnswerKind = AnswerKind.MATH,
        solutions: Literal["gold", "checked"] = "gold",
        progress: bool = False,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.representation = representation or ProblemRepresentation()
        self.trace_model = trace_model
        self.formatter = FormatBuilder(format_model, answer_kind=answer_kind)
        self.format_model = format_model
        self.answer_kind = answer_kind
        if solutions not in ("gold", "checked"):
            raise InvalidInputError(f"solutions must be 'gold' or 'checked', got {solutions!r}")
        self.solutions = solutions
        self.progress = progress

    def verify(self, solution: str, answer: str) -> tuple[bool, str]:
        """Whether ``solution`` reaches ``answer`` under the builder's answer kind, and what was found, in words."""
        scored = score_answer(self.answer_kind, solution, answer)
        if scored.correct:
            return True, f"final answer {scored.prediction!r} ({scored.extraction}) matched {answer!r}"
        return False, f"final answer {scored.prediction!r} != {answer!r}"

    def build(
        self,
        name: str,
        benchmark: str,
        bank_items: Sequence[Problem],
        eval_items: Sequence[Problem],
        config: BuildConfig | None = None,
        *,
        owner: Scope | None = None,
    ) -> BuildReport:
        """Build (or resume building) bank ``name`` from ``bank_items``, disjoint from ``eval_items``.

        ``owner``: the tenant scope a new bank belongs to (its manifest says so; written before any entry, so
        :meth:`~memdesk.Memory.forget` finds every bank of a scope)."""
        config = config or BuildConfig()
        started = time.perf_counter()
        items = list(bank_items)[: config.limit] if config.limit else list(bank_items)
        dropped: list[str] = []
        overlap = find_overlap(items, eval_items)
        if overlap:
            if config.on_overlap == "error":
                check_disjoint(items, eval_items)
            bad = {o.bank_id for o in overlap}
            dropped = [f"{o.bank_id} == {o.eval_id}" for o in overlap]
            logger.warning("dropping %d bank item(s) that overlap the evaluation set", len(bad))
            items = [p for p in items if p.id not in bad]

        bank = MemoryBank(self.store, name)
        self._ensure_embedding_info()
        manifest = self._manifest(bank, benchmark, config, len(eval_items), dropped, owner)
        bank.write_manifest(manifest)
        existing = bank.ids()
        rejected_before = bank.rejected_ids()
        todo = [p for p in items if p.id not in existing and p.id not in rejected_before]
        report = BuildReport(
            name=name,
            bank_size=0,
            added=0,
            skipped_existing=len(items) - len(todo),
            rejected=0,
            failed=0,
            absent_traces=0,
            dropped_overlap=dropped,
            usage={},
            seconds=0.0,
        )
        base_usage, base_seconds = dict(manifest.usage), manifest.build_seconds

        def checkpoint() -> None:
            manifest.usage = _merge_usage(base_usage, report.usage)
            manifest.build_seconds = base_seconds + time.perf_counter() - started
            bank.write_manifest(manifest)

        bar = tqdm(total=len(todo), desc=f"bank {name}", unit="ex", disable=not self.progress)
        try:
            for start in range(0, len(todo), config.batch_size):
                batch = todo[start : start + config.batch_size]
                self._build_batch(bank, batch, config, report)
                checkpoint()
                bar.update(len(batch))
        finally:
            bar.close()
        checkpoint()
        report.bank_size = bank.count()
        report.seconds = time.perf_counter() - started
        return report

    # internals ---------------------------------------------------------------------------------
    def _ensure_embedding_info(self) -> None:
        info = self.store.embedding_info()
        wanted = EmbeddingInfo(model_id=self.embedder.model_id, dim=self.embedder.dim)
        if info is None or info != wanted:
            self.store.set_embedding_info(wanted)  # raises EmbeddingMismatchError if vectors disagree

    def _manifest(
        self, bank: MemoryBank, benchmark: str, config: BuildConfig, n_eval: int, dropped: list[str],
        owner: Scope | None = None,
    ) -> BankManifest:
        existing = bank.manifest()
        kind = self.representation.kind
        if existing is not None:
            problems = []
            if existing.embedding_kind is not kind:
                problems.append(f"embedding kind {existing.embedding_kind.value} (not {kind.value})")
            if existing.embedding_model != self.embedder.model_id:
                problems.append(f"embedder {existing.embedding_model} (not {self.embedder.model_id})")
            if set(existing.formats) != set(config.formats):
                problems.append(f"formats {[f.value for f in existing.formats]}")
            if existing.benchmark != benchmark:
                problems.append(f"benchmark {existing.benchmark}")
            if existing.answer_kind not in (None, self.answer_kind):
                problems.append(f"answer kind {existing.answer_kind.value}")
            if existing.owner != owner:
                problems.append(f"owner {existing.owner}")
            if problems:
                raise UsageError(
                    f"bank {bank.name!r} exists with {', '.join(problems)}; resume it with the same options, "
                    "or build under another name"
                )
            existing.eval_items_checked = n_eval
            existing.dropped_overlap = sorted(set(existing.dropped_overlap) | set(dropped))
            return existing
        return BankManifest(
            name=bank.name,
            benchmark=benchmark,
            embedding_model=self.embedder.model_id,
            embedding_dim=self.embedder.dim,
            embedding_kind=kind,
            formats=list(config.formats),
            answer_kind=self.answer_kind,
            owner=owner,
            tag_model=self.representation.model_id,
            trace_model=self.trace_model.model_id if self.trace_model else None,
            format_model=self.format_model.model_id if self.format_model else None,
            eval_items_checked=n_eval,
            dropped_overlap=dropped,
        )

    def _build_batch(self, bank: MemoryBank, batch: list[Problem], config: BuildConfig, report: BuildReport) -> None:
        traces = self._traces(bank, batch, config, report)
        kept = [(p, t) for p, t in zip(batch, traces) if t is not False]
        if not kept:
            return
        with_trace = [(p, t) for p, t in kept if isinstance(t, tuple)]
        formatted = self.formatter.build([(p.question, t[0], p.answer) for p, t in with_trace], config.formats)
        contents = {p.id: fc for (p, _), fc in zip(with_trace, formatted)}
        for fc in formatted:
            _add_usage(report.usage, "format", fc.usage)
        represented = self.representation.bank_texts([(p.question, p.answer) for p, _ in kept])
        examples: list[SolvedExample] = []
        for (p, trace), rep in zip(kept, represented):
            if isinstance(rep, LLMError):
                logger.warning("tagging %s failed (%s); it will be retried on resume", p.id, rep)
                report.failed += 1
                continue
            _add_usage(report.usage, "tag", rep.usage)
            examples.append(self._example(p, trace, contents.get(p.id), rep.text, rep.tags, config))
        if not examples:
            return
        vectors = self.embedder.embed([e.embedding_text for e in examples])
        bank.add(examples, vectors)
        report.added += len(examples)
        report.absent_traces += sum(e.provenance.trace_source is TraceSource.ABSENT for e in examples)

    def _traces(
        self, bank: MemoryBank, batch: list[Problem], config: BuildConfig, report: BuildReport
    ) -> list[tuple[str, TraceSource, str | None, str] | None | Literal[False]]:
        """Per item: (trace, source, model, verification), None (no trace, kept) or False (rejected/failed)."""
        out: list[tuple[str, TraceSource, str | None, str] | None | Literal[False]] = []
        need = [p for p in batch if not p.solution]
        generated: dict[str, Completion | LLMError] = {}
        if need and self.trace_model is not None:
            reqs = [
                ChatRequest(
                    messages=trace_messages(p.question, config.answer_instruction),
                    max_tokens=config.max_trace_tokens,
                    temperature=0.0,
                    operation="trace",
                )
                for p in need
            ]
            results = run_many(
                self.trace_model, reqs, concurrency=int(getattr(self.trace_model, "concurrency", 1) or 1), return_exceptions=True
            )
            generated = {p.id: r for p, r in zip(need, results)}
        rejected: list[tuple[str, str]] = []
        for p in batch:
            if p.solution and self.solutions == "checked":
                ok, how = self.verify(p.solution, p.answer)
                if ok:
                    out.append((p.solution.strip(), TraceSource.SUBMITTED, None, f"submitted solution: {how}"))
                else:
                    rejected.append((p.id, how))
                    report.rejected += 1
                    out.append(False)
                continue
            if p.solution:
                out.append((p.solution, TraceSource.DATASET, None, "the dataset's own worked solution (gold)"))
                continue
            if self.trace_model is None:
                out.append(None)
                continue
            res = generated[p.id]
            if isinstance(res, LLMError):
                logger.warning("trace generation for %s failed (%s); it will be retried on resume", p.id, res)
                report.failed += 1
                out.append(False)
                continue
            _add_usage(report.usage, "trace", res.usage)
            text = res.text
            ok, how = self.verify(text, p.answer)
            if ok:
                out.append((text.strip(), TraceSource.GENERATED, self.trace_model.model_id, f"generated {how} (gold)"))
            else:
                rejected.append((p.id, f"{how} (gold)"))
                report.rejected += 1
                out.append(False)
        bank.add_rejected(rejected)
        return out

    def _example(
        self,
        p: Problem,
        trace: tuple[str, TraceSource, str | None, str] | None,
        formatted: FormattedContent | None,
        text: str,
        tags: Tags | None,
        config: BuildConfig,
    ) -> SolvedExample:
        if trace is None:
            contents = {fmt: f"Answer: {p.answer}" for fmt in config.formats}
            provenance = Provenance(
                trace_source=TraceSource.ABSENT,
                verified=False,
                verification="no trace: the dataset has no solution and no chat model was given",
                format_sources={fmt: "answer-only" for fmt in config.formats},
                tag_model=self.representation.model_id,
            )
            trace_text = None
        else:
            trace_text, source, model, how = trace
            if formatted is None:
                raise InvalidInputError(f"no formatted content for {p.id}")  # cannot happen: built with the trace
            contents = dict(formatted.contents)
            provenance = Provenance(
                trace_source=source,
                trace_model=model,
                verified=True,
                verification=how,
                format_sources=dict(formatted.sources),
                tag_model=self.representation.model_id,
            )
        return SolvedExample(
            id=p.id,
            problem=p.question,
            answer=p.answer,
            trace=trace_text,
            contents=contents,
            tags=tags,
            source=p.benchmark,
            split=p.split,
            group=p.group,
            embedding_kind=self.representation.kind,
            embedding_text=text,
            embedding_model=self.embedder.model_id,
            provenance=provenance,
        )


def _add_usage(account: dict[str, Usage], op: str, usage: Usage) -> None:
    if usage.calls or usage.prompt_tokens or usage.completion_tokens:
        account[op] = account.get(op, Usage()) + usage


def _merge_usage(a: dict[str, Usage], b: dict[str, Usage]) -> dict[str, Usage]:
    out = dict(a)
    for k, u in b.items():
        out[k] = out.get(k, Usage()) + u
    return out
