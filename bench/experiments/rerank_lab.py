"""Screening an LLM re-ranker of the fused top N on chat sets (issue 28, session 12): stores ingested once, a fixed
random sample of questions, one chat-model call per question, every decision kept so variants are scored offline.

For each sampled question the shipped read path (``MEMDESK_RERANK`` unset: the fused order) gives its hits; the
first ``--top`` are shown to ``llm_rerank.LLMReranker`` (beside this script) over the OpenAI-compatible endpoint
``--url`` (e.g. ``python -m memdesk.llm.local serve qwen2.5-coder-1.5b FILE --threads 1``); a row per question goes
to ``--out`` (JSON lines: the question's id, the fused gold rank, the re-ranker's choice, the gap between the first
two scores, seconds, failure), and a question already there is not asked again (resumable). Stores are
``<stores>/rp-<set>/`` as ``bench/chat_replay.py --work`` writes them (ingested here when missing)::

    OMP_NUM_THREADS=1 MEMDESK_CONFIG="" PYTHONPATH=$PWD/src python bench/experiments/rerank_lab.py run \\
        --sets heldout9a,heldout9b,heldout8a,heldout8b --stores /tmp/28rx --sample 60 --seed 28 --top 5 \\
        --url http://127.0.0.1:18771/v1 --model qwen2.5-coder-1.5b --out /tmp/28rx/screen-top5.jsonl
    # --sample 0: every question of the sets; --gate 0.05: a call only where the fused first two scores are that close
    python bench/experiments/rerank_lab.py score /tmp/28rx/screen-top5.jsonl [--gap 0.1 ...]

``score`` prints precision@1 of the fused order and of the re-ranked one, the first hits gained and lost, the
seconds per call, and for each ``--gap`` the variant that re-ranks only when the fused first two scores are within
that gap (the others keep the fused order). Question ids and numbers only: no chat text is written.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
from pathlib import Path

from pydantic import BaseModel, Field, create_model

from memdesk.eval import metrics as M
from memdesk.eval.chat_run import ChatEval
from memdesk.eval.datasets.chats import load_chats
from memdesk.llm import make_chat_model
from memdesk.llm.templates import PromptTemplate
from memdesk.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import chat_replay  # noqa: E402  (bench/ is not a package)
from llm_rerank import LLMReranker  # noqa: E402  (the re-ranker screened here, beside this script)


class AnswerFirst(LLMReranker):
    """A lab variant: the model writes the answer (at most 60 characters) before the record's number
    (``rerank_prompts/answer_first.txt``)."""

    def __init__(self, chat_model, top: int) -> None:
        super().__init__(chat_model, top, gap=None, max_tokens=48)
        path = Path(__file__).parent / "rerank_prompts" / "answer_first.txt"
        self.template = PromptTemplate.parse("rerank_answer_first", path.read_text())

    def schema(self, n: int) -> type[BaseModel]:
        return create_model("RerankAnswer", answer=(str, Field(max_length=60)), best=(int, Field(ge=1, le=n)))


def sample_questions(sets: list[str], n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` (set, question id) pairs drawn with ``random.Random(seed)`` from every question of ``sets``, in set order."""
    every = [(s, q.id) for s in sets for c in load_chats(ROOT / "bench/data/chats" / f"{s}.jsonl").chats for q in c.questions]
    if n <= 0:
        return every
    picked = set(random.Random(seed).sample(every, min(n, len(every))))
    return [p for p in every if p in picked]


def run(args: argparse.Namespace) -> None:
    sets = [s for s in args.sets.split(",") if s]
    wanted = sample_questions(sets, args.sample, args.seed)
    out = Path(args.out)
    done = {json.loads(line)["id"] for line in out.read_text().splitlines()} if out.exists() else set()
    chat = make_chat_model(Settings(llm_base_url=args.url, llm_model=args.model, llm_timeout_s=args.timeout), max_retries=0)
    reranker = AnswerFirst(chat, args.top) if args.variant == "answer-first" else LLMReranker(chat, top=args.top, gap=None)
    print(f"{len(wanted)} questions (seed {args.seed}), {len(done)} done; prompt {reranker.prompt_version}", flush=True)
    with out.open("a") as f:
        for s in sets:
            ids = {q for ss, q in wanted if ss == s} - done
            if not ids:
                continue
            chats = load_chats(ROOT / "bench/data/chats" / f"{s}.jsonl")
            work = Path(args.stores) / f"rp-{s}"
            memory = chat_replay.open_work(work)
            try:
                chat_replay.ingest(memory, chats, work)
                runner = ChatEval(memory)
                for c in chats.chats:
                    for q in c.questions:
                        if q.id not in ids:
                            continue
                        hits = memory.search(q.question, scope=runner.scope_of(c), asked_at=q.asked_at)
                        fused = [list(h.record.provenance) for h in hits]
                        gap = hits[0].score - hits[1].score if len(hits) > 1 else 1.0
                        gated = args.gate is not None and gap > args.gate  # the fused first two far apart: no call
                        t0 = time.perf_counter()
                        again = hits if gated else reranker.rerank(q.question, copy.deepcopy(hits), asked_at=q.asked_at)
                        seconds = time.perf_counter() - t0
                        failed = any("re-rank failed" in h.why for h in again[: args.top])
                        chosen = next((i for i, h in enumerate(hits) if h.id == again[0].id), 0)
                        row = {
                            "id": q.id, "set": s, "kind": q.kind, "n_hits": len(hits),
                            "gold_rank": M.first_gold_rank(q.gold_message_ids, fused),
                            "gold_in": [i for i, p in enumerate(fused[: args.top]) if set(p) & set(q.gold_message_ids)],
                            "chosen": chosen, "failed": failed, "seconds": round(seconds, 2), "called": not gated,
                            "scores": [round(h.score, 4) for h in hits[: args.top]],
                            "p1_fused": M.precision_at_1(q.gold_message_ids, fused) or 0.0,
                            "p1_rerank": M.precision_at_1(q.gold_message_ids, [list(h.record.provenance) for h in again]) or 0.0,
                        }  # fmt: skip
                        f.write(json.dumps(row) + "\n")
                        f.flush()
                        print(f"{q.id} gold@{row['gold_rank']} chose #{chosen + 1} {seconds:.1f}s", flush=True)
            finally:
                memory.close()


def score(args: argparse.Namespace) -> None:
    for path in args.files:
        rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
        n = len(rows)
        fused = sum(r["p1_fused"] for r in rows)
        after = sum(r["p1_rerank"] for r in rows)
        gained = [r["id"] for r in rows if r["p1_rerank"] > r["p1_fused"]]
        lost = [r["id"] for r in rows if r["p1_rerank"] < r["p1_fused"]]
        secs = [r["seconds"] for r in rows if not r["failed"] and r.get("called", True)]
        in_top = sum(bool(r["gold_in"]) for r in rows)
        print(f"{path}: n={n} p@1 fused {fused / n:.3f} -> re-ranked {after / n:.3f} (+{len(gained)} -{len(lost)}); "
              f"gold in the top shown {in_top / n:.3f}; failed {sum(r['failed'] for r in rows)}; "
              f"calls {len(secs)}; s/call median {statistics.median(secs) if secs else 0:.1f} mean {statistics.fmean(secs) if secs else 0:.1f}")  # fmt: skip
        print(f"  gained: {' '.join(gained)}\n  lost:   {' '.join(lost)}")
        for gap in args.gap:
            on = [r for r in rows if len(r["scores"]) > 1 and r["scores"][0] - r["scores"][1] <= gap]
            p1 = sum((r["p1_rerank"] if r in on else r["p1_fused"]) for r in rows)
            g = sum(r["p1_rerank"] > r["p1_fused"] for r in on)
            lo = sum(r["p1_rerank"] < r["p1_fused"] for r in on)
            print(f"  only when the first two scores are within {gap}: re-ranked {len(on)}/{n}, p@1 {p1 / n:.3f} (+{g} -{lo})")
        by_set: dict[str, list[dict]] = {}
        for r in rows:
            by_set.setdefault(r["set"], []).append(r)
        for s, rs in sorted(by_set.items()):
            print(f"  {s}: n={len(rs)} fused {sum(r['p1_fused'] for r in rs) / len(rs):.3f} "
                  f"re-ranked {sum(r['p1_rerank'] for r in rs) / len(rs):.3f}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--sets", required=True)
    r.add_argument("--stores", required=True)
    r.add_argument("--sample", type=int, default=60)
    r.add_argument("--seed", type=int, default=28)
    r.add_argument("--top", type=int, default=5)
    r.add_argument("--url", required=True)
    r.add_argument("--model", required=True)
    r.add_argument("--timeout", type=float, default=300.0)
    r.add_argument("--gate", type=float, default=None,
                   help="call the model only when the fused first two scores are within this gap (else keep the order)")
    r.add_argument("--out", required=True)
    r.add_argument("--variant", choices=["choice", "answer-first"], default="choice",
                   help="choice: rerank_prompts/choice.txt ({best}); answer-first: the answer's words, then the record")
    s = sub.add_parser("score")
    s.add_argument("files", nargs="+")
    s.add_argument("--gap", type=float, action="append", default=[])
    args = ap.parse_args()
    run(args) if args.cmd == "run" else score(args)


if __name__ == "__main__":
    main()
