"""The evaluation harness: run a benchmark under a method, with or without retrieved memories.

One run = one :class:`EvalConfig` (benchmark, method, memory on/off, k, format, gamma, temperature,
max output tokens) over a list of problems. For each problem the harness retrieves (memory on),
serializes the memory block, assembles the prompt, calls the chat model, scores the answer and
records tokens and the latency breakdown. Results stream to ``results.jsonl`` (one line per item,
tagged with its run id), so an interrupted sweep resumes where it stopped.

Paired runs (memory off / on) come from the same config and so share the maximum output length.
Retrieval for a query is done once at the largest k of a sweep and reused (cut to each k); its
measured timings are reported with every run that reuses it.

Without a chat model, :meth:`ReasoningHarness.retrieval_quality` still evaluates retrieval alone.
"""

from __future__ import annotations

import json
import logging
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field
from tqdm import tqdm

from ..errors import LLMError, UsageError
from ..eval.results_file import ResultsFile
from ..llm.base import ChatModel
from ..text.tokens import TokenCounter
from .datasets import Benchmark, Problem
from .latency import LatencyBreakdown, Stopwatch, split_model_time
from .methods import DEFAULT_RATIO_TEMPLATE, PromptSpec, build_messages, serialize_memories
from .sweeps import EvalConfig, sweep_configs  # noqa: F401 - sweep_configs: importable from here too
from .example_retrieval import ExampleRetriever, Retrieval
from .scoring import score_answer

logger = logging.getLogger(__name__)

class RetrievedRef(BaseModel):
    id: str
    score: float
    group: str | None


class ItemResult(BaseModel):
    """One problem under one run."""

    run_id: str
    id: str
    group: str | None
    gold: str
    output: str
    prediction: str | None
    correct: bool
    extraction: str
    prompt_tokens: int
    decode_tokens: int
    memory_tokens: int = Field(description="cl100k tokens of the memory block (0 without memory).")
    tokens_estimated: bool
    finish_reason: str | None
    retrieved: list[RetrievedRef] = Field(default_factory=list)
    latency: LatencyBreakdown
    cost_usd: float = 0.0
    error: str | None = None


class RunSummary(BaseModel):
    """Aggregates of one run."""

    run_id: str
    config: EvalConfig
    model: str | None
    retriever: str | None
    n: int
    n_errors: int
    accuracy: float
    mean_decode_tokens: float
    mean_prompt_tokens: float
    mean_memory_tokens: float
    truncated: int = Field(description="Items whose output hit max_tokens (finish_reason 'length').")
    tokens_estimated: int = Field(default=0, description="Items whose token counts are estimates (no server usage).")
    extraction: dict[str, int]
    latency_ms: dict[str, float | None] = Field(description="Mean milliseconds per stage.")
    model_timing: dict[str, int] = Field(description="How model time was split: server / ttft / total.")
    cost_usd: float
    same_group_at_k: float | None = None


class RetrievalQuality(BaseModel):
    """Retrieval-only evaluation: how often retrieved memories share the query's group (task/subject)."""

    bench: str
    retriever: str
    k: int
    n_queries: int
    n_groups: int
    same_group_at_k: float = Field(description="Mean fraction of the k memories from the query's own group.")
    top1_same_group: float
    random_uniform: float = Field(description="1 / number of groups.")
    random_bank_prior: float = Field(description="Expected fraction when memories are drawn at random from the bank.")
    per_group: dict[str, float]
    mean_t_tag_ms: float
    mean_t_emb_ms: float
    mean_t_search_ms: float


class ReasoningHarness:
    """Runs :class:`EvalConfig` s of one benchmark.

    Args:
        benchmark: the benchmark (answer parser and answer-format instruction).
        chat: the model under evaluation (None: only :meth:`retrieval_quality` works).
        retriever: needed for memory-on runs and retrieval-only evaluation.
        counter: counts memory-block tokens (cl100k).
        ratio_template: the TokenSkip/Extra-CoT input format.
        progress: tqdm bars on stderr.
    """

    def __init__(
        self,
        benchmark: Benchmark,
        chat: ChatModel | None = None,
        retriever: ExampleRetriever | None = None,
        *,
        counter: TokenCounter | None = None,
        ratio_template: str = DEFAULT_RATIO_TEMPLATE,
        progress: bool = False,
    ) -> None:
        self.benchmark = benchmark
        self.chat = chat
        self.retriever = retriever
        self.counter = counter or TokenCounter()
        self.ratio_template = ratio_template
        self.progress = progress
        self._retrievals: dict[str, Retrieval] = {}
        self._retrieval_k = 0
        self._warm = False

    # retrieval -----------------------------------------------------------------------------------
    def prefetch(self, problems: Sequence[Problem], k: int) -> None:
        """Retrieve ``k`` memories for every problem once (reused by runs with k' <= k)."""
        if self.retriever is None:
            raise UsageError("no retriever: build a bank and pass a retriever for memory runs")
        if k > self._retrieval_k:
            self._retrievals.clear()
            self._retrieval_k = k
        todo = [p for p in problems if p.id not in self._retrievals]
        if todo and not self._warm:
            warm = getattr(self.retriever, "warm", None)
            if warm is not None:
                warm()  # index loading is offline cost, not per-query latency (as in the paper)
            self._warm = True
        for p in tqdm(todo, desc="retrieve", unit="q", disable=not self.progress):
            self._retrievals[p.id] = self.retriever.retrieve(p.question, self._retrieval_k)

    def _retrieval(self, problem: Problem, k: int) -> Retrieval:
        if problem.id not in self._retrievals or self._retrieval_k < k:
            self.prefetch([problem], max(k, self._retrieval_k))
        return self._retrievals[problem.id]

    def retrieval_quality(self, problems: Sequence[Problem], k: int, bank_groups: Iterable[str | None] = ()) -> RetrievalQuality:
        """Fraction of the top-k memories from the query's own group, with random baselines."""
        problems = [p for p in problems if p.group is not None]
        if not problems:
            raise UsageError("retrieval quality needs problems with a group (task or subject)")
        self.prefetch(problems, k)
        fractions, top1 = [], []
        per_group: dict[str, list[float]] = {}
        for p in problems:
            mems = self._retrievals[p.id].memories[:k]
            frac = sum(m.example.group == p.group for m in mems) / k
            fractions.append(frac)
            top1.append(float(bool(mems) and mems[0].example.group == p.group))
            per_group.setdefault(p.group or "", []).append(frac)
        bank_counts = Counter(g for g in bank_groups if g is not None)
        bank_total = sum(bank_counts.values())
        eval_counts = Counter(p.group for p in problems if p.group is not None)
        prior = (
            sum(eval_counts[g] / len(problems) * bank_counts[g] / bank_total for g in eval_counts) if bank_total else float("nan")
        )
        timings = [self._retrievals[p.id].timings for p in problems]
        return RetrievalQuality(
            bench=self.benchmark.name,
            retriever=self.retriever.name if self.retriever else "none",
            k=k,
            n_queries=len(problems),
            n_groups=len(eval_counts),
            same_group_at_k=statistics.fmean(fractions),
            top1_same_group=statistics.fmean(top1),
            random_uniform=1 / len(eval_counts),
            random_bank_prior=prior,
            per_group={g: statistics.fmean(v) for g, v in sorted(per_group.items())},
            mean_t_tag_ms=1000 * statistics.fmean(t.t_tag_s for t in timings),
            mean_t_emb_ms=1000 * statistics.fmean(t.t_emb_s for t in timings),
            mean_t_search_ms=1000 * statistics.fmean(t.t_search_s for t in timings),
        )

    # inference -----------------------------------------------------------------------------------
    def run_item(self, config: EvalConfig, problem: Problem) -> ItemResult:
        """Retrieve (memory on), assemble, call the model, score."""
        if self.chat is None:
            raise UsageError("no chat model: pass one (e.g. --llm-base-url/--llm-model) or run retrieval-only")
        spec = PromptSpec(
            method=config.method,
            gamma=config.gamma,
            answer_instruction=self.benchmark.answer_instruction,
            ratio_template=self.ratio_template,
        )
        latency = LatencyBreakdown()
        block, retrieved, memory_tokens = None, [], 0
        if config.memory:
            retrieval = self._retrieval(problem, config.k)
            mems = retrieval.memories[: config.k]
            latency.t_tag_s = retrieval.timings.t_tag_s
            latency.t_emb_s = retrieval.timings.t_emb_s
            latency.t_search_s = retrieval.timings.t_search_s
            watch = Stopwatch()
            with watch.run():
                block = serialize_memories(mems, config.format)
                messages = build_messages(spec, problem.question, block)
            latency.t_serialize_s = watch.s
            retrieved = [RetrievedRef(id=m.example.id, score=m.score, group=m.example.group) for m in mems]
            memory_tokens = self.counter.count(block)
        else:
            messages = build_messages(spec, problem.question)
        try:
            completion = self.chat.complete(
                messages, max_tokens=config.max_tokens, temperature=config.temperature, operation="answer"
            )
        except LLMError as e:
            logger.warning("%s on %s failed: %s", config.run_id, problem.id, e)
            return ItemResult(
                run_id=config.run_id, id=problem.id, group=problem.group, gold=problem.answer, output="",
                prediction=None, correct=False, extraction="none", prompt_tokens=0, decode_tokens=0,
                memory_tokens=memory_tokens, tokens_estimated=True, finish_reason=None, retrieved=retrieved,
                latency=latency, error=f"{type(e).__name__}: {e}",
            )  # fmt: skip
        prefill, decode, source = split_model_time(completion)
        latency.t_prefill_s, latency.t_decode_s, latency.model_timing = prefill, decode, source
        latency.t_model_s = completion.usage.latency_s
        scored = score_answer(self.benchmark.answer_kind, completion.text, problem.answer)
        return ItemResult(
            run_id=config.run_id,
            id=problem.id,
            group=problem.group,
            gold=problem.answer,
            output=completion.text,
            prediction=scored.prediction,
            correct=scored.correct,
            extraction=scored.extraction,
            prompt_tokens=completion.usage.prompt_tokens,
            decode_tokens=completion.usage.completion_tokens,
            memory_tokens=memory_tokens,
            tokens_estimated=completion.usage.tokens_estimated,
            finish_reason=completion.finish_reason,
            retrieved=retrieved,
            latency=latency,
            cost_usd=completion.usage.cost_usd,
        )

    def run(self, config: EvalConfig, problems: Sequence[Problem], results_path: Path | None = None) -> tuple[list[ItemResult], RunSummary]:
        """Run ``config`` over ``problems``; append to ``results_path`` and resume from it when given.

        On resume, items whose earlier result holds an error (a model or connection failure) are run
        again; the newer line of an item supersedes the older one."""
        results_file = ResultsFile(results_path, ItemResult) if results_path else None
        done = {
            r.id: r for r in (results_file.read() if results_file else []) if r.run_id == config.run_id and r.error is None
        }
        todo = [p for p in problems if p.id not in done]
        if config.memory and todo:
            self.prefetch(todo, max(config.k, self._retrieval_k))
        for p in tqdm(todo, desc=config.run_id, unit="q", disable=not self.progress):
            r = self.run_item(config, p)
            if results_file is not None:
                results_file.append(r)
            done[p.id] = r
        results = [done[p.id] for p in problems if p.id in done]
        model = self.chat.model_id if self.chat is not None else None
        return results, summarize(config, results, model, self.retriever.name if (self.retriever and config.memory) else None)


def load_results(path: Path | None) -> list[ItemResult]:
    """Every item result in a results.jsonl (empty when the file does not exist)."""
    return ResultsFile(path, ItemResult).read() if path is not None else []


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def summarize(config: EvalConfig, results: Sequence[ItemResult], model: str | None, retriever: str | None) -> RunSummary:
    """Accuracy, mean tokens, mean latency per stage and cost of one run."""
    ok = [r for r in results if r.error is None]
    lat = [r.latency for r in ok]

    def ms(values: list[float | None]) -> float | None:
        if not values or any(v is None for v in values):
            return None
        return 1000 * statistics.fmean(v for v in values if v is not None)

    same = None
    if config.memory and any(r.retrieved for r in ok) and any(r.group for r in ok):
        same = _mean([sum(m.group == r.group for m in r.retrieved) / len(r.retrieved) for r in ok if r.retrieved])
    return RunSummary(
        run_id=config.run_id,
        config=config,
        model=model,
        retriever=retriever,
        n=len(results),
        n_errors=len(results) - len(ok),
        accuracy=sum(r.correct for r in results) / len(results) if results else 0.0,
        mean_decode_tokens=_mean([r.decode_tokens for r in ok]),
        mean_prompt_tokens=_mean([r.prompt_tokens for r in ok]),
        mean_memory_tokens=_mean([r.memory_tokens for r in ok]),
        truncated=sum(r.finish_reason == "length" for r in ok),
        tokens_estimated=sum(r.tokens_estimated for r in ok),
        extraction=dict(Counter(r.extraction for r in results)),
        latency_ms={
            "tag": ms([x.t_tag_s for x in lat]),
            "emb": ms([x.t_emb_s for x in lat]),
            "search": ms([x.t_search_s for x in lat]),
            "serialize": ms([x.t_serialize_s for x in lat]),
            "prefill": ms([x.t_prefill_s for x in lat]),
            "decode": ms([x.t_decode_s for x in lat]),
            "model": ms([x.t_model_s for x in lat]),
            "end_to_end": ms([x.t_end_to_end_s for x in lat]),
        },
        model_timing=dict(Counter(x.model_timing for x in lat)),
        cost_usd=sum(r.cost_usd for r in results),
        same_group_at_k=same,
    )


def write_json(path: Path, data: object) -> None:
    """Pretty JSON (pydantic models dumped) written atomically."""
    def default(o: object) -> object:
        if isinstance(o, BaseModel):
            return o.model_dump(mode="json")
        raise TypeError(type(o).__name__)

    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=default) + "\n", encoding="utf-8")
    tmp.replace(path)
