"""Command line of the reasoning memory: ``memdesk bank build|info`` and ``memdesk eval reasoning``.

Examples::

    memdesk bank build --bench gsm8k                       # offline: problem embeddings, no tags
    memdesk bank build --bench aime24 --llm                # traces + tags with the configured model
    memdesk eval reasoning --bench math500 --retrieval-only --out runs/math-retrieval
    memdesk eval reasoning --bench math500 --retrieval-only --search ivf --nprobe 8 --out runs/math-ivf
    memdesk eval reasoning --bench gsm8k --method cod --memory both --k 5 --limit 100 \\
        --llm-base-url http://localhost:8080/v1 --llm-model qwen2.5-1.5b --out runs/gsm8k-cod

The chat model is the configured one (``MEMDESK_LLM_BASE_URL``, ``MEMDESK_LLM_MODEL``) when ``--llm``
is given, or the one named by ``--llm-base-url``/``--llm-model``. Banks live in their own SQLite file
(``--store``, default ``<user data dir>/memdesk/reasoning-banks.db``).
"""

from __future__ import annotations

import json
import logging
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..clierrors import ErrorReportingCommand, ErrorReportingGroup
from ..errors import UsageError
from ..llm.base import ChatModel

logger = logging.getLogger(__name__)


def default_store_url() -> str:
    import platformdirs

    return "sqlite:///" + str(Path(platformdirs.user_data_dir("memdesk")) / "reasoning-banks.db")


def _settings(ctx: click.Context, **overrides: Any):
    from pydantic import SecretStr

    from ..settings import Settings

    values = {k: v for k, v in overrides.items() if v is not None}
    if isinstance(values.get("llm_api_key"), str):
        values["llm_api_key"] = SecretStr(values["llm_api_key"])
    obj = ctx.find_root().obj
    if obj is not None and hasattr(obj, "settings"):
        return obj.settings().model_copy(update=values)
    return Settings.load(**values)


def _csv(value: str | None, cast: Callable[[str], Any] = str) -> list[Any]:
    return [cast(v.strip()) for v in value.split(",") if v.strip()] if value else []


def _common(f: Callable) -> Callable:
    options = [
        click.option("--bench", required=True, type=click.Choice(["gsm8k", "math500", "bbh", "mmlu-sci", "aime24"])),
        click.option("--store", "store_url", default=None, help="Bank database URL (default: reasoning-banks.db in the user data dir)."),
        click.option("--name", default=None, help="Bank name (default: mac-<bench>-tags with a chat model, mac-<bench>-problem without)."),
        click.option("--data-dir", default=None, type=click.Path(file_okay=False), help="Benchmark data folder (default MEMDESK_DATA_DIR or ../shared/data)."),
        click.option("--embedder", type=click.Choice(["minilm", "hashing", "settings"]), default="minilm", show_default=True),
        click.option("--llm", "use_llm", is_flag=True, help="Use the configured chat model (MEMDESK_LLM_BASE_URL / MEMDESK_LLM_MODEL)."),
        click.option("--llm-base-url", default=None, help="OpenAI-compatible endpoint (implies --llm)."),
        click.option("--llm-model", default=None, help="Model name at that endpoint (implies --llm)."),
        click.option("--llm-api-key", default=None, help="API key (local servers ignore it)."),
        click.option("--drop-overlap", is_flag=True, help="Drop bank items that overlap the eval set instead of refusing."),
        click.option("--quiet", is_flag=True, help="No progress bars."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


class _Env:
    """What the commands share: settings, data, store, embedder, chat model."""

    def __init__(self, ctx: click.Context, kw: dict[str, Any]) -> None:
        from ..datapaths import require_data_dir
        from ..reasoning.datasets import get_benchmark

        use_llm = kw["use_llm"] or bool(kw["llm_base_url"] or kw["llm_model"])
        self.settings = _settings(
            ctx, llm_base_url=kw["llm_base_url"], llm_model=kw["llm_model"], llm_api_key=kw["llm_api_key"]
        )
        self.kw = kw
        self.benchmark = get_benchmark(kw["bench"])
        self.data_dir = require_data_dir(kw["data_dir"] or self.settings.data_dir)
        self.progress = not kw["quiet"]
        self._store = None
        self._embedder = None
        self.chat = None
        self.ledger = None
        if use_llm:
            from ..llm import UsageLedger, make_chat_model

            self.ledger = UsageLedger()
            self.chat = make_chat_model(self.settings, ledger=self.ledger)
            if self.chat is None:
                raise UsageError("--llm needs a model: set MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL or pass --llm-base-url/--llm-model")

    @property
    def store(self):
        if self._store is None:
            from ..store import open_store

            self._store = open_store(self.kw["store_url"] or default_store_url())
        return self._store

    @property
    def embedder(self):
        if self._embedder is None:
            from ..embed import HashingEmbedder, MiniLMEmbedder, make_embedder

            choice = self.kw["embedder"]
            self._embedder = (
                MiniLMEmbedder() if choice == "minilm" else HashingEmbedder() if choice == "hashing" else make_embedder(self.settings)
            )
        return self._embedder

    def bank_name(self, tags: bool) -> str:
        return self.kw["name"] or f"mac-{self.benchmark.name}-{'tags' if tags else 'problem'}"

    def build_bank(self, name: str, tags: bool, extra: dict[str, Any]) -> Any:
        from .bank_builder import BankBuilder, BuildConfig
        from .solved_examples import MemoryFormat
        from .tags import LLMTagger, TagRepresentation

        chat = self.chat if tags else None
        builder = BankBuilder(
            self.store,
            self.embedder,
            representation=TagRepresentation(LLMTagger(chat)) if chat else None,
            trace_model=self.chat if extra.get("generate_traces", True) else None,
            format_model=self.chat if extra.get("llm_formats", False) else None,
            answer_kind=self.benchmark.answer_kind,
            progress=self.progress,
        )
        config = BuildConfig(
            formats=[MemoryFormat(f) for f in extra.get("formats", ["long", "short", "summary"])],
            batch_size=extra.get("batch_size", 64),
            limit=extra.get("limit"),
            on_overlap="drop" if self.kw["drop_overlap"] else "error",
            max_trace_tokens=extra.get("max_trace_tokens", 1024),
            answer_instruction=self.benchmark.answer_instruction,
        )
        bank_items = self.benchmark.load_bank(self.data_dir)
        eval_items = self.benchmark.load_eval(self.data_dir)
        return builder.build(name, self.benchmark.name, bank_items, eval_items, config)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


@click.group("bank", cls=ErrorReportingGroup)
def bank_group() -> None:
    """Reasoning banks of solved examples (MAC)."""


@bank_group.command("build")
@_common
@click.option("--offline", is_flag=True, help="Problem embeddings, no tags, even when a chat model is configured.")
@click.option("--formats", default="long,short,summary", show_default=True, help="Memory formats to build.")
@click.option("--llm-formats", is_flag=True, help="Have the chat model write Short-CoT and Summary (default: offline condensation).")
@click.option("--no-traces", is_flag=True, help="Do not generate traces for items without a solution (keep them answer-only).")
@click.option("--limit", default=None, type=int, help="Only the first N bank items.")
@click.option("--batch-size", default=64, show_default=True, type=int)
@click.option("--max-trace-tokens", default=1024, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="Print the build report as JSON.")
@click.pass_context
def build_cmd(ctx: click.Context, offline: bool, formats: str, llm_formats: bool, no_traces: bool, limit: int | None,
              batch_size: int, max_trace_tokens: int, as_json: bool, **kw: Any) -> None:
    """Build (or resume) the bank of a benchmark: traces, formats, tags, embeddings."""
    env = _Env(ctx, kw)
    try:
        if env.chat is not None and not no_traces:
            _check_extras({**kw, "retrieval_only": True, "retriever": None}, traces=True)
        tags = env.chat is not None and not offline
        name = env.bank_name(tags)
        report = env.build_bank(
            name,
            tags,
            {
                "formats": _csv(formats),
                "llm_formats": llm_formats and env.chat is not None,
                "generate_traces": not no_traces,
                "limit": limit,
                "batch_size": batch_size,
                "max_trace_tokens": max_trace_tokens,
            },
        )
        if as_json:
            click.echo(report.model_dump_json(indent=2))
        else:
            click.echo(
                f"bank {report.name}: {report.bank_size} entries (+{report.added} added, {report.skipped_existing} already there, "
                f"{report.rejected} rejected traces, {report.failed} failed, {report.absent_traces} without trace, "
                f"{len(report.dropped_overlap)} dropped for overlap) in {report.seconds:.1f}s"
            )
            for op, u in sorted(report.usage.items()):
                click.echo(f"  {op}: {u.calls} calls, {u.prompt_tokens}+{u.completion_tokens} tokens, ${u.cost_usd:.4f}")
    finally:
        env.close()


@bank_group.command("info")
@click.option("--store", "store_url", default=None, help="Bank database URL.")
@click.option("--name", required=True, help="Bank name.")
def info_cmd(store_url: str | None, name: str) -> None:
    """Show a bank's manifest and size."""
    from ..store import open_store
    from .bank import MemoryBank

    store = open_store(store_url or default_store_url())
    try:
        bank = MemoryBank(store, name)
        manifest = bank.manifest()
        if manifest is None:
            raise UsageError(f"no bank named {name!r} in {store_url or default_store_url()}")
        out = manifest.model_dump(mode="json")
        out["entries"] = bank.count()
        click.echo(json.dumps(out, indent=2))
    finally:
        store.close()


@click.command("reasoning", cls=ErrorReportingCommand)
@_common
@click.option("--method", default="cod", show_default=True, help="Comma list of cot, nocot, cod, tokenskip, extracot.")
@click.option("--memory", type=click.Choice(["on", "off", "both"]), default="both", show_default=True)
@click.option("--k", "ks", default="5", show_default=True, help="Memories per query; a comma list sweeps k.")
@click.option("--format", "formats", default="long", show_default=True, help="Memory format(s): long, short, summary.")
@click.option("--gamma", "gammas", default="0.5", show_default=True, help="TokenSkip/Extra-CoT ratio(s), e.g. 0.1,0.3,0.5.")
@click.option("--temperature", "temperatures", default="0", show_default=True, help="Temperature(s); 0 = greedy.")
@click.option("--max-tokens", default=None, type=int, help="Max output tokens for every run (default per method; always shared by paired runs).")
@click.option("--limit", default=None, type=int, help="Evaluate a fixed seeded sample of N eval items.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the --limit sample.")
@click.option("--retriever", type=click.Choice(["auto", "tags", "problem", "bm25"]), default="auto", show_default=True,
              help="auto: tags when a chat model is given and a tag bank exists, else problem embeddings.")
@click.option("--search", "search_mode", type=click.Choice(["exact", "ivf"]), default="exact", show_default=True,
              help="Vector search: exact cosine, or an approximate IVF index built from the bank at start-up.")
@click.option("--nprobe", default=8, show_default=True, type=click.IntRange(min=1), help="IVF: clusters probed per query.")
@click.option("--nlist", default=None, type=click.IntRange(min=1), help="IVF: clusters (default about sqrt(bank entries)).")
@click.option("--build-bank/--no-build-bank", default=True, show_default=True, help="Build an offline (problem-embedding) bank if missing.")
@click.option("--retrieval-only", is_flag=True, help="No chat model calls: evaluate retrieval (same-group@k) only.")
@click.option("--stream/--no-stream", default=True, show_default=True, help="Stream answers to measure time to first token.")
@click.option("--server-metrics", type=click.Choice(["none", "vllm"]), default="none", show_default=True,
              help="Read prefill/decode time from the server's /metrics (vLLM; exact at batch size one).")
@click.option("--ratio-template", default=None, help="TokenSkip/Extra-CoT input, default '{question}<|eot_id|>{gamma}<|eot_id|>'.")
@click.option("--price-in", default=None, type=float, help="USD per 1M input tokens (cost account).")
@click.option("--price-out", default=None, type=float, help="USD per 1M output tokens.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Run directory (reused to resume).")
@click.pass_context
def reasoning_command(ctx: click.Context, **kw: Any) -> None:
    """Evaluate a reasoning benchmark with and without retrieved memories (MAC)."""
    _check_extras(kw)
    env = _Env(ctx, kw)
    try:
        _run_reasoning(env, kw)
    finally:
        env.close()


def _vector_retriever(bank: Any, env: _Env, representation: Any, kw: dict[str, Any]) -> Any:
    """Exact search by default; with ``--search ivf``, through an IVF index of the bank built now."""
    from .example_retrieval import VectorRetriever

    if kw["search_mode"] != "ivf":
        return VectorRetriever(bank, env.embedder, representation)
    index = bank.ivf_index(nlist=kw["nlist"])
    click.echo(f"IVF index of {bank.name}: {len(index)} entries in {index.nlist} lists ({index.build_seconds:.2f} s)", err=True)
    return VectorRetriever(bank, env.embedder, representation, index=index, nprobe=kw["nprobe"])


def _retriever(env: _Env, choice: str, build: bool, kw: dict[str, Any]) -> Any:
    from .bank import MemoryBank
    from .example_retrieval import BM25Retriever
    from .tags import LLMTagger, ProblemRepresentation, TagRepresentation

    tag_bank = MemoryBank(env.store, env.bank_name(True))
    if choice == "auto":
        choice = "tags" if env.chat is not None and tag_bank.manifest() is not None else "problem"
    if choice == "bm25" and kw["search_mode"] == "ivf":
        raise UsageError("--search ivf applies to vector retrievers (tags, problem), not bm25")
    if choice == "tags":
        if env.chat is None:
            raise UsageError("--retriever tags needs a chat model (--llm) to tag the queries")
        if tag_bank.manifest() is None:
            raise UsageError(f"no tag bank {tag_bank.name!r}: run `memdesk bank build --bench {env.benchmark.name} --llm` first")
        return _vector_retriever(tag_bank, env, TagRepresentation(LLMTagger(env.chat)), kw), tag_bank
    bank = MemoryBank(env.store, env.bank_name(False))
    if bank.manifest() is None:
        if not build:
            raise UsageError(f"no bank {bank.name!r}: run `memdesk bank build --bench {env.benchmark.name} --offline` first")
        logger.warning("building the offline bank %s (once)", bank.name)
        click.echo(f"building offline bank {bank.name} ...", err=True)
        env.build_bank(bank.name, False, {"generate_traces": False})
    if choice == "bm25":
        return BM25Retriever.from_bank(bank), bank
    return _vector_retriever(bank, env, ProblemRepresentation(), kw), bank


def _search_info(retriever: Any) -> dict[str, Any]:
    """How the run searched the bank, for the summary (the retriever's name says it too)."""
    index = getattr(retriever, "index", None)
    if index is None:
        return {"retriever": retriever.name, "mode": "bm25" if retriever.name == "bm25" else "exact"}
    return {
        "retriever": retriever.name,
        "mode": "ivf",
        "nlist": index.nlist,
        "nprobe": retriever.nprobe,
        "seed": index.seed,
        "iterations": index.iterations,
        "entries": len(index),
        "build_s": round(index.build_seconds, 3),
    }


def _inference_model(env: _Env, kw: dict[str, Any]) -> ChatModel | None:
    """The model under evaluation: the configured client, streaming (for time to first token) and
    without retries (a failed evaluation call is reported, not hidden) unless --no-stream."""
    if env.chat is None or not kw["stream"]:
        return env.chat
    from ..llm import VLLMMetricsProbe, make_chat_model

    s = env.settings.model_copy(update={"llm_timeout_s": max(60.0, env.settings.llm_timeout_s)})
    probe = VLLMMetricsProbe(s.llm_base_url or "") if kw["server_metrics"] == "vllm" else None
    return make_chat_model(
        s, ledger=env.ledger, price_table=_price_table(kw, s.llm_model or ""), stream=True, metrics_probe=probe, max_retries=0
    )


def _price_table(kw: dict[str, Any], model: str) -> Any:
    if kw["price_in"] is None and kw["price_out"] is None:
        return None
    from ..llm.usage import PriceTable

    return PriceTable({model.split("/")[-1]: (kw["price_in"] or 0.0, kw["price_out"] or 0.0)})


def _check_resumable(out: Path, search: dict[str, Any] | None, model: str | None) -> None:
    """Refuse to resume a run directory written with another retriever or model: run ids name the
    method, memory, k, format and temperature, not those, so the results would mix silently."""
    path = out / "summary.json"
    if not path.exists():
        return
    try:
        before = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    old_retriever = (before.get("search") or {}).get("retriever")
    if search is not None and old_retriever is not None and old_retriever != search.get("retriever"):
        raise UsageError(
            f"{out} holds results retrieved with {old_retriever}, not {search.get('retriever')}: use another --out"
        )
    old_model = (before.get("model") or {}).get("model")
    if model and old_model and old_model != model:
        raise UsageError(f"{out} holds results of model {old_model!r}, not {model!r}: use another --out")


def _check_extras(kw: dict[str, Any], *, traces: bool = False) -> None:
    """Before any work: what this run needs from the eval extra (one line), and whether it can plot.
    ``traces``: the run checks generated solutions (``bank build`` with a chat model)."""
    from ..extras import PLOTS_SKIPPED, can_plot, require
    from .datasets import AnswerKind, get_benchmark

    scoring = traces or not kw["retrieval_only"]
    if scoring and get_benchmark(kw["bench"]).answer_kind is AnswerKind.MATH:
        require("eval", f"checking {kw['bench']} answers", ("sympy",))
    if not kw["retrieval_only"] and not can_plot():
        click.echo(PLOTS_SKIPPED, err=True)


def _run_reasoning(env: _Env, kw: dict[str, Any]) -> None:
    from .overlap import check_disjoint
    from .harness import ReasoningHarness, sweep_configs
    from .methods import DEFAULT_RATIO_TEMPLATE, Method
    from .solved_examples import MemoryFormat
    from .run_report import write_outputs

    out = Path(kw["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    problems = env.benchmark.load_eval(env.data_dir)
    if kw["limit"] and kw["limit"] < len(problems):
        keep = set(random.Random(kw["seed"]).sample(range(len(problems)), kw["limit"]))
        problems = [p for i, p in enumerate(problems) if i in keep]
    ks = _csv(kw["ks"], int) or [5]
    memory = {"on": [True], "off": [False], "both": [False, True]}[kw["memory"]]
    need_retrieval = kw["retrieval_only"] or True in memory
    retriever, bank = _retriever(env, kw["retriever"], kw["build_bank"], kw) if need_retrieval else (None, None)
    chat = None if kw["retrieval_only"] else _inference_model(env, kw)
    if not kw["retrieval_only"] and chat is None:
        raise UsageError("no chat model: pass --llm (or --llm-base-url/--llm-model), or use --retrieval-only")
    harness = ReasoningHarness(
        env.benchmark, chat, retriever, ratio_template=kw["ratio_template"] or DEFAULT_RATIO_TEMPLATE, progress=env.progress
    )
    extra: dict[str, Any] = {"bench": env.benchmark.name, "eval_items": len(problems), "argv": sys.argv[1:]}
    bank_entries = bank.all() if bank is not None else []
    check_disjoint(bank_entries, problems)  # the bank may predate this eval set: check again
    if retriever is not None:
        extra["search"] = _search_info(retriever)
    _check_resumable(out, extra.get("search"), None if kw["retrieval_only"] else env.settings.llm_model)
    if bank is not None:
        manifest = bank.manifest()
        extra["bank"] = {"name": bank.name, "entries": bank.count(), "manifest": manifest.model_dump(mode="json") if manifest else None}
    quality = []
    if retriever is not None and any(p.group for p in problems):
        bank_groups = [e.group for e in bank_entries]
        quality = [harness.retrieval_quality(problems, k, bank_groups) for k in sorted(set(ks))]
    runs = []
    if not kw["retrieval_only"]:
        configs = sweep_configs(
            env.benchmark.name,
            [Method(m) for m in _csv(kw["method"])],
            memory=memory,
            ks=ks,
            formats=[MemoryFormat(f) for f in _csv(kw["formats"])] or [MemoryFormat.LONG],
            gammas=_csv(kw["gammas"], float) or [0.5],
            temperatures=_csv(kw["temperatures"], float) or [0.0],
            max_tokens=kw["max_tokens"],
        )
        describe = getattr(env.chat, "describe", None)
        extra["model"] = describe() if describe is not None else {"model": getattr(env.chat, "model_id", None)}
        for config in configs:
            _, summary = harness.run(config, problems, out / "results.jsonl")
            runs.append(summary)
            click.echo(
                f"{summary.run_id}: accuracy {100 * summary.accuracy:.1f}% over {summary.n}, "
                f"{summary.mean_decode_tokens:.0f} decode tokens, {summary.n_errors} errors",
                err=True,
            )
        if env.ledger is not None:
            extra["usage"] = {op: u.model_dump() for op, u in env.ledger.by_operation().items()}
    paths = write_outputs(out, runs, quality, extra=extra)
    for q in quality:
        click.echo(
            f"retrieval {q.retriever} k={q.k}: same-group {100 * q.same_group_at_k:.1f}% "
            f"(random {100 * q.random_uniform:.1f}%), search {q.mean_t_search_ms:.3f} ms",
            err=True,
        )
    click.echo(str(paths["report"]))
