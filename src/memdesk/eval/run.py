"""``run_eval``: a conversational evaluation run built from arguments and settings.

The typed store's processor and the ``memdesk-default`` system come from the same settings code as
``Memory.open()`` (:mod:`memdesk.factory`): the typed processor is ``build_processor`` of the
settings (with ``processor`` overridden when given), and the default system is ``build_memory`` of
the unchanged settings over the run's store and embedder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Literal

from ..conversation.base import Answerer, Processor
from ..embed.base import Embedder
from ..errors import DataNotFoundError, UsageError
from ..llm.base import ChatModel
from ..llm.usage import UsageLedger
from ..settings import Settings
from ..store.base import Store
from ..text.tokens import TokenCounter
from .datasets import EvalDataset, load_locomo, load_longmemeval
from .judging import Judge
from .runner import CUTOFFS, EvalRun
from .sampling import DEFAULT_SEED
from .summary import EvalSummary, summarize
from .systems import DEFAULT_SYSTEM, StoreKind, default_systems, select_systems

Benchmark = Literal["locomo", "longmemeval"]
#: Settings that say where things are, not how memdesk behaves: left out of the recorded defaults.
_NOT_BEHAVIOUR = {"database_url", "data_dir", "api_keys", "llm_api_key", "embedding_api_key", "busy_timeout_ms"}


def load_dataset(benchmark: Benchmark, data_path: str | Path | None = None) -> EvalDataset:
    """Load ``benchmark`` from ``data_path`` (default: the shared data folder). A missing default file raises
    :class:`DataNotFoundError` saying where the benchmark comes from and how to point ``--data`` at it."""
    if benchmark not in _WHERE_FROM:
        raise UsageError(f"unknown benchmark {benchmark!r}; use 'locomo' or 'longmemeval'")
    load = load_locomo if benchmark == "locomo" else load_longmemeval
    try:
        return load(data_path)
    except DataNotFoundError as e:
        if data_path is not None:
            raise
        raise DataNotFoundError(e.path, f"no {benchmark} file there. {_WHERE_FROM[benchmark]} "
                                        "(see docs/evaluation.md)") from None


#: Where each benchmark comes from, for the error a user without the developers' data folder gets.
_WHERE_FROM = {
    "locomo": "LoCoMo is published in the snap-research/LoCoMo repository (data/locomo10.json, CC BY-NC 4.0): "
              "download it and run `memdesk eval locomo --data locomo10.json --out DIR`",
    "longmemeval": "LongMemEval is published by xiaowu0162/LongMemEval (longmemeval_s_cleaned.json, MIT): download it "
                   "and run `memdesk eval longmemeval --data longmemeval_s_cleaned.json --out DIR`",
}


def run_eval(
    benchmark: Benchmark,
    data_path: str | Path | None,
    out_dir: str | Path,
    *,
    settings: Settings | None = None,
    systems: Iterable[str] | None = None,
    limit: int | None = None,
    seed: int = DEFAULT_SEED,
    chat_model: ChatModel | None = None,
    answerer: Answerer | None = None,
    judge: Judge | None = None,
    ledger: UsageLedger | None = None,
    embedder: Embedder | None = None,
    processor: str | None = None,
    processor_factory: Callable[[], Processor] | None = None,
    k: int = 20,
    K: int = 25,
    sweep: bool = True,
    cutoffs: Sequence[int] = CUTOFFS,
    progress: bool = True,
    full_context_max_tokens: int | None = None,
    report: bool = True,
    token_counter: TokenCounter | None = None,
    order: Literal["file", "round_robin"] | None = None,
    categories: Sequence[str] | None = None,
) -> EvalSummary:
    """Run (or resume) an evaluation and write ``results.jsonl``, ``summary.json``, ``report.md`` and plots.

    Args:
        benchmark: ``"locomo"`` or ``"longmemeval"``.
        data_path: the benchmark file (None: the default file in the shared data folder).
        out_dir: run directory (created; reused to resume).
        settings: what ``Memory.open()`` would use (default ``Settings.load()``): the typed
            processor and the ``memdesk-default`` system are built from them.
        systems: system names to run (default: all, see :mod:`memdesk.eval.systems`; ``"sweep"``
            selects the k/K sweep; ``memdesk-default`` is always run).
        limit: evaluate a seeded sample of ``limit`` questions, stratified over categories and
            conversations (:func:`memdesk.eval.sampling.stratified_sample`); None: all of them.
        seed: the sample's seed (recorded in ``summary.json`` with the sampled question ids).
        chat_model: answers (through ``LLMAnswerer``) unless ``answerer`` is given, and serves an
            ``llm`` processor; None with no ``answerer`` is the offline run (retrieval metrics only).
        answerer: answers instead of an ``LLMAnswerer`` over ``chat_model``.
        judge: scores answers (only when something answers).
        ledger: the usage ledger of the chat models; its per-operation sums go into the stage account.
        embedder: default the packaged MiniLM model.
        processor: the typed store's processor (``rules``, ``llm``, ``raw``; default the settings');
            ``processor_factory`` replaces it with any processor (tests).
        k, K: per-type top-k and the number of records kept of the named typed systems.
        full_context_max_tokens: skip answering with full context above this many tokens.
        categories: evaluate only these categories (question types); ``"headline"`` names the
            benchmark's headline categories; None: all. Applied before ``limit`` draws its sample.
        order: the order questions are evaluated in: ``"file"`` (LoCoMo's default: conversation by
            conversation) or ``"round_robin"`` over categories (LongMemEval's default: its file is
            sorted by question type and each question is its own haystack, so an interrupted run
            still covers every type).
    Returns:
        the summary (also written to ``summary.json``).
    """
    from ..conversation.memory import build_memory
    from ..factory import build_processor

    settings = settings if settings is not None else Settings.load()
    dataset = load_dataset(benchmark, data_path)
    if embedder is None:
        from ..embed import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    typed_settings = settings.model_copy(update={"processor": processor}) if processor else settings
    default_store: StoreKind
    if processor_factory is None:
        processor_factory = lambda: build_processor(typed_settings, chat_model)  # noqa: E731
        processor_name = typed_settings.processor
        default_store = "typed" if typed_settings == settings else "default"
    else:
        processor_name = processor or "custom"
        default_store = "default"

    def default_memory(store: Store, emb: Embedder):
        return build_memory(settings, store=store, embedder=emb, chat_model=chat_model)

    if answerer is None and chat_model is not None:
        from ..conversation.answer import LLMAnswerer

        answerer = LLMAnswerer(chat_model)
    answer_model = chat_model.model_id if chat_model is not None else (type(answerer).__name__ if answerer else None)
    chosen = select_systems(default_systems(k, K, sweep=sweep, default_store=default_store), systems)
    run = EvalRun(
        dataset,
        out_dir,
        embedder=embedder,
        processor_factory=processor_factory,
        processor_name=processor_name,
        systems=chosen,
        default_memory=default_memory,
        limit=limit,
        seed=seed,
        answerer=answerer,
        answer_model=answer_model,
        judge=judge if answerer is not None else None,
        ledger=ledger,
        cutoffs=cutoffs,
        progress=progress,
        full_context_max_tokens=full_context_max_tokens,
        token_counter=token_counter,
        order=order or ("round_robin" if benchmark == "longmemeval" else "file"),
        categories=categories,
    )
    try:
        rows = run.run()
    finally:
        run.close()
    default_spec = next((s for s in run.systems if s.name == DEFAULT_SYSTEM), None)
    summary = summarize(
        rows,
        dataset,
        systems=run.systems,
        questions=run.questions,
        config={
            "embedder": embedder.model_id,
            "processor": processor_name,
            "k": k,
            "K": K,
            "cutoffs": list(run.cutoffs),
            "answer_model": answer_model,
            "judge_model": judge.model_id if answerer is not None and judge is not None else None,
            "limit": limit,
            "seed": seed if limit is not None else None,
            "sample": "stratified over categories and conversations" if limit is not None else "all questions",
            "categories": sorted({q.category for q in run.questions}) if categories is not None else None,
            "order": run.order,
            "default": None if default_spec is None else {
                "store": default_spec.store, "k": default_spec.k, "K": default_spec.K, "hybrid": default_spec.hybrid,
                "settings": {n: v for n, v in settings.effective().items() if n not in _NOT_BEHAVIOUR},
            },
        },
        account=run.state.account,
    )
    out = Path(out_dir)
    (out / "summary.json").write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    if report:
        from .markdown_report import write_report

        write_report(summary, out, rows)
    return summary
