"""``memdesk eval reasoning``: a reasoning benchmark with and without retrieved memories (MAC).

It shares its options and environment (settings, data, bank store, embedder, chat model) with
``memdesk bank`` (:mod:`.mac_commands`); see that module for examples.
"""

from __future__ import annotations

import json
import logging
import random
import sys
from pathlib import Path
from typing import Any

import click

from ..cli.context import csv_list
from ..cli.errors import ErrorReportingCommand
from ..errors import UsageError
from ..llm.base import ChatModel
from .mac_commands import CommandEnv, check_extras, common_options

logger = logging.getLogger(__name__)


@click.command("reasoning", cls=ErrorReportingCommand)
@common_options
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
    check_extras(kw)
    env = CommandEnv(ctx, kw)
    try:
        _run_reasoning(env, kw)
    finally:
        env.close()


def _vector_retriever(bank: Any, env: CommandEnv, representation: Any, kw: dict[str, Any]) -> Any:
    """Exact search by default; with ``--search ivf``, through an IVF index of the bank built now."""
    from .example_retrieval import VectorRetriever

    if kw["search_mode"] != "ivf":
        return VectorRetriever(bank, env.embedder, representation)
    index = bank.ivf_index(nlist=kw["nlist"])
    click.echo(f"IVF index of {bank.name}: {len(index)} entries in {index.nlist} lists ({index.build_seconds:.2f} s)", err=True)
    return VectorRetriever(bank, env.embedder, representation, index=index, nprobe=kw["nprobe"])


def _retriever(env: CommandEnv, choice: str, build: bool, kw: dict[str, Any]) -> Any:
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


def _inference_model(env: CommandEnv, kw: dict[str, Any]) -> ChatModel | None:
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


def _run_reasoning(env: CommandEnv, kw: dict[str, Any]) -> None:
    from .overlap import check_disjoint
    from .harness import ReasoningHarness
    from .sweeps import sweep_configs
    from .methods import DEFAULT_RATIO_TEMPLATE, Method
    from .solved_examples import MemoryFormat
    from .run_report import write_outputs

    out = Path(kw["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    problems = env.benchmark.load_eval(env.data_dir)
    if kw["limit"] and kw["limit"] < len(problems):
        keep = set(random.Random(kw["seed"]).sample(range(len(problems)), kw["limit"]))
        problems = [p for i, p in enumerate(problems) if i in keep]
    ks = csv_list(kw["ks"], int) or [5]
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
            [Method(m) for m in csv_list(kw["method"])],
            memory=memory,
            ks=ks,
            formats=[MemoryFormat(f) for f in csv_list(kw["formats"])] or [MemoryFormat.LONG],
            gammas=csv_list(kw["gammas"], float) or [0.5],
            temperatures=csv_list(kw["temperatures"], float) or [0.0],
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
