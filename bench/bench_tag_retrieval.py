"""MAC's tag retrieval with a real chat model, beside the offline retrievers, on small balanced samples.

For each benchmark (BBH tasks, MATH subjects) it draws a seeded, balanced sample: ``--bank-per-group``
bank items and ``--queries-per-group`` evaluation items from each of ``--groups`` groups. Then:

- ``tags``: builds a bank with :class:`~memdesk.reasoning.bank_builder.BankBuilder` and a
  :class:`~memdesk.reasoning.tags.TagRepresentation` (the chat model tags each bank entry from its
  problem and verified answer; the tags' text is embedded with MiniLM), and retrieves for every query
  through :class:`~memdesk.reasoning.example_retrieval.VectorRetriever`, which tags the question alone;
- ``minilm``: the same items embedded as problem text (the offline fallback);
- ``bm25``: Okapi BM25 over the problem texts.

It reports the fraction of the top-k memories from the query's own group, tag-call latency and
tokens, and the tags themselves (``tags.jsonl``), so the tag quality can be read, not just scored.

Usage:
  python bench/bench_tag_retrieval.py --base-url http://127.0.0.1:8088/v1 --model NAME \\
      [--bench bbh,math500] [--groups 6] [--bank-per-group 6] [--queries-per-group 3] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from benchinfo import write_result
from memdesk.embed import MiniLMEmbedder
from memdesk.llm.openai_compat import OpenAICompatChatModel
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.bank_builder import BankBuilder, BuildConfig
from memdesk.runtime.datapaths import require_data_dir
from memdesk.reasoning.datasets import Problem, get_benchmark
from memdesk.reasoning.solved_examples import MemoryFormat
from memdesk.reasoning.example_retrieval import BM25Retriever, Retrieval, VectorRetriever
from memdesk.reasoning.tags import LLMTagger, ProblemRepresentation, TagRepresentation
from memdesk.store import open_store

REPO = Path(__file__).resolve().parents[1]
KS = (1, 3, 5)


def balanced_sample(items: list[Problem], groups: list[str], per_group: int, rng: random.Random) -> list[Problem]:
    out: list[Problem] = []
    for g in groups:
        members = [p for p in items if p.group == g]
        out.extend(rng.sample(members, min(per_group, len(members))))
    return out


def same_group(retrievals: dict[str, Retrieval], queries: list[Problem], k: int) -> float:
    fracs = [sum(m.example.group == q.group for m in retrievals[q.id].memories[:k]) / k for q in queries]
    return statistics.fmean(fracs)


def run_bench(name: str, args: argparse.Namespace, chat: OpenAICompatChatModel, embedder: MiniLMEmbedder, work: Path) -> dict:
    data_dir = require_data_dir(args.data_dir)
    bench = get_benchmark(name)
    bank_all, eval_all = bench.load_bank(data_dir), bench.load_eval(data_dir)
    rng = random.Random(f"{args.seed}:{name}")
    all_groups = sorted({p.group for p in eval_all if p.group} & {p.group for p in bank_all if p.group})
    groups = sorted(rng.sample(all_groups, min(args.groups, len(all_groups))))
    bank_items = balanced_sample(bank_all, groups, args.bank_per_group, rng)
    queries = balanced_sample(eval_all, groups, args.queries_per_group, rng)

    store = open_store(f"sqlite:///{work / f'{name}.db'}")
    tagger = LLMTagger(chat, concurrency=1)
    result: dict = {"bench": name, "groups": groups, "bank_items": len(bank_items), "queries": len(queries)}
    try:
        t0 = time.perf_counter()
        tag_report = BankBuilder(store, embedder, representation=TagRepresentation(tagger), progress=True).build(
            f"{name}-tags", name, bank_items, eval_all, BuildConfig(formats=[MemoryFormat.LONG], batch_size=8)
        )
        result["tag_bank_build_seconds"] = round(time.perf_counter() - t0, 1)
        result["tag_bank"] = {
            "size": tag_report.bank_size,
            "failed": tag_report.failed,
            "usage": {k: v.model_dump() for k, v in tag_report.usage.items()},
        }
        BankBuilder(store, embedder).build(
            f"{name}-problem", name, bank_items, eval_all, BuildConfig(formats=[MemoryFormat.LONG], batch_size=64)
        )
        tag_bank, problem_bank = MemoryBank(store, f"{name}-tags"), MemoryBank(store, f"{name}-problem")
        retrievers = {
            "tags (LLM tags of query vs tags of bank entries)": VectorRetriever(tag_bank, embedder, TagRepresentation(tagger)),
            "minilm (query text vs problem embeddings)": VectorRetriever(problem_bank, embedder, ProblemRepresentation()),
            "bm25 (problem text)": BM25Retriever.from_bank(problem_bank),
        }
        rows, tag_rows = [], []
        for label, retriever in retrievers.items():
            retrievals: dict[str, Retrieval] = {}
            errors = 0
            for q in queries:
                try:
                    retrievals[q.id] = retriever.retrieve(q.question, max(KS))
                except Exception as e:  # a failed tag call is counted, not fatal
                    errors += 1
                    print(f"{label}: {q.id}: {type(e).__name__}: {e}")
            ok = [q for q in queries if q.id in retrievals]
            timings = [retrievals[q.id].timings for q in ok]
            for k in KS:
                rows.append(
                    {
                        "retriever": label,
                        "k": k,
                        "queries": len(ok),
                        "errors": errors,
                        "same_group": same_group(retrievals, ok, k) if ok else None,
                        "random": 1 / len(groups),
                        "mean_t_tag_ms": 1000 * statistics.fmean(t.t_tag_s for t in timings) if timings else None,
                        "mean_t_emb_ms": 1000 * statistics.fmean(t.t_emb_s for t in timings) if timings else None,
                    }
                )
            if label.startswith("tags"):
                usage = [retrievals[q.id].usage for q in ok]
                result["query_tag_tokens"] = {
                    "prompt_mean": statistics.fmean(u.prompt_tokens for u in usage) if usage else None,
                    "completion_mean": statistics.fmean(u.completion_tokens for u in usage) if usage else None,
                    "estimated": any(u.tokens_estimated for u in usage),
                }
                for q in ok:
                    r = retrievals[q.id]
                    tag_rows.append(
                        {
                            "query_id": q.id,
                            "group": q.group,
                            "query_tags": r.query_tags.model_dump() if r.query_tags else None,
                            "retrieved": [[m.example.id, m.example.group, round(m.score, 4)] for m in r.memories],
                        }
                    )
        for e in tag_bank.all():
            tag_rows.append({"bank_id": e.id, "group": e.group, "tags": e.tags.model_dump() if e.tags else None})
        result["rows"] = rows
        result["tag_records"] = tag_rows
    finally:
        store.close()
    return result


def markdown(results: list[dict], meta: dict) -> str:
    lines = [
        "# MAC tag retrieval with a real chat model",
        "",
        f"Measured {meta['date']} on {meta['machine']}; tagger `{meta['model']}` at temperature 0 through the "
        f"OpenAI-compatible client ({meta['base_url']}); embedder `{meta['embedder']}`. Command: `{meta['command']}`.",
        "",
        "Balanced seeded samples: bank entries and queries drawn per group (BBH task / MATH subject). Bank entries are "
        "tagged from problem + verified answer, queries from the question alone. Same-group@k is the fraction of the k "
        "retrieved memories from the query's own group.",
        "",
    ]
    for r in results:
        lines += [
            f"## {r['bench']}: {len(r['groups'])} groups, {r['bank_items']} bank entries, {r['queries']} queries",
            "",
            f"Groups: {', '.join(r['groups'])}. Tagging the bank took {r['tag_bank_build_seconds']} s "
            f"({r['tag_bank']['failed']} failed); per query tag call: prompt ~{r['query_tag_tokens']['prompt_mean']:.0f}, "
            f"completion ~{r['query_tag_tokens']['completion_mean']:.0f} tokens"
            f"{' (estimated: the server sent no usage)' if r['query_tag_tokens']['estimated'] else ''}.",
            "",
            "| retriever | k | queries | errors | same group | random | T_tag ms | T_emb ms |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in r["rows"]:
            sg = "n/a" if row["same_group"] is None else f"{100 * row['same_group']:.1f}%"
            tt = "" if row["mean_t_tag_ms"] is None else f"{row['mean_t_tag_ms']:.0f}"
            te = "" if row["mean_t_emb_ms"] is None else f"{row['mean_t_emb_ms']:.1f}"
            lines.append(
                f"| {row['retriever']} | {row['k']} | {row['queries']} | {row['errors']} | {sg} | "
                f"{100 * row['random']:.1f}% | {tt} | {te} |"
            )
        lines.append("")
    lines.append("The tags of every bank entry and query, with what each query retrieved, are in `tags.jsonl`.")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "none"))
    ap.add_argument("--bench", default="bbh,math500")
    ap.add_argument("--groups", type=int, default=6)
    ap.add_argument("--bank-per-group", type=int, default=6)
    ap.add_argument("--queries-per-group", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "reasoning" / "tags"))
    args = ap.parse_args()

    chat = OpenAICompatChatModel(args.model, args.base_url, args.api_key, timeout_s=args.timeout, concurrency=1)
    embedder = MiniLMEmbedder()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in [b.strip() for b in args.bench.split(",") if b.strip()]:
            results.append(run_bench(name, args, chat, embedder, Path(tmp)))
    meta = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} CPU cores ({platform.platform()}), shared",
        "model": args.model,
        "base_url": args.base_url,
        "embedder": embedder.model_id,
        "command": "python bench/bench_tag_retrieval.py --base-url URL --model " + args.model
        + f" --bench {args.bench} --groups {args.groups} --bank-per-group {args.bank_per_group}"
        + f" --queries-per-group {args.queries_per_group} --seed {args.seed}",
    }
    with open(out / "tags.jsonl", "w") as f:
        for r in results:
            for row in r.pop("tag_records"):
                f.write(json.dumps({"bench": r["bench"], **row}) + "\n")
    write_result(out / "tag_retrieval.json", {"meta": meta, "results": results}, echo=False)
    (out / "tag_retrieval.md").write_text(markdown(results, meta))
    print(markdown(results, meta))


if __name__ == "__main__":
    main()
