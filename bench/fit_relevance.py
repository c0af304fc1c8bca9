"""Fit the relevance maps of :mod:`memdesk.retrieval.relevance`: P(a hit is relevant | its raw ranking value, scope size).

For each question of the calibration data, each read path's first ``--top`` hits are taken with their raw
ranking values (``Retriever(calibrated=False)``); a hit is relevant when its record's provenance holds one of
the question's gold message ids. A logistic regression, each source weighing the same in all, (Newton's method, a tiny ridge) of relevant on
``[raw, log10(records ranked over), raw * log10(records)]`` (the fused path) or ``[raw]`` (ENGRAM's cosine, the RRF sum) gives the
constants written into ``memdesk/relevance.py``; the reliability table (predicted vs observed by score band)
is printed per source so the fit can be checked on data it was not fitted on.

    python bench/fit_relevance.py --chats bench/data/readpath/dev.jsonl --work /tmp/28r-chats \
        --locomo /tmp/28r-eval/locomo --out bench/results/scores/fit.json

Sources: chats in the bring-your-own format (ingested by ``bench/small_scope_lab.py``, reused) and an
evaluation run's LoCoMo / LongMemEval store (``--locomo`` / ``--longmemeval`` run directories).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_replay import open_run, reader  # noqa: E402
from small_scope_lab import ingest, load  # noqa: E402

from memdesk.embed import MiniLMEmbedder  # noqa: E402
from memdesk.eval.cache import CachingEmbedder  # noqa: E402
from memdesk.records import Scope  # noqa: E402
from memdesk.retrieval.retrieve import Retriever, Serializer  # noqa: E402
from memdesk.store import open_store  # noqa: E402

PATHS = ("fused", "cosine", "rrf")


def retrievers(store):
    return {
        "fused": (Retriever.fused(store, calibrated=False), {}),
        "cosine": (Retriever(store, K=50, calibrated=False), {"mode": "untyped"}),
        "rrf": (Retriever(store, hybrid=True, K=50, calibrated=False), {}),
    }


def collect(memory_of, questions, top: int) -> dict[str, list[tuple[float, float, float]]]:
    """(raw, log10 records, relevant) of each path's first ``top`` hits for every question.
    ``questions``: (scope, question, asked_at, gold ids)."""
    rows: dict[str, list[tuple[float, float, float]]] = {p: [] for p in PATHS}
    for path, (memory, args) in memory_of.items():
        sizes: dict[str, int] = {}
        for scope, question, asked, gold in questions:
            key = scope.user_id or ""
            if key not in sizes:
                sizes[key] = len(memory.get_all(scope=scope))
            hits = memory.search(question, scope=scope, asked_at=asked, **args)[:top]
            for h in hits:
                rows[path].append((float(h.score), math.log10(max(sizes[key], 1)), float(bool(gold & set(h.record.provenance)))))
    return rows


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Weighted logistic regression weights (last one the intercept) by Newton's method."""
    X = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(X.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-X @ w))
        grad = X.T @ (weight * (p - y)) + ridge * w
        hess = (X * (weight * p * (1 - p))[:, None]).T @ X + ridge * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def reliability(pred: np.ndarray, y: np.ndarray) -> list[dict]:
    out = []
    for lo, hi in ((0, 0.1), (0.1, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01)):
        m = (pred >= lo) & (pred < hi)
        if m.any():
            out.append({"band": f"{lo:.1f}-{min(hi, 1):.1f}", "n": int(m.sum()), "predicted": round(float(pred[m].mean()), 3),
                        "relevant": round(float(y[m].mean()), 3)})
    return out


def chat_questions(chats):
    for chat in chats:
        for q in chat["questions"]:
            asked = datetime.fromisoformat(q["asked_at"].replace("Z", "+00:00"))
            yield Scope(user_id=chat["id"]), q["question"], asked, set(q["gold_message_ids"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chats", type=Path, action="append", default=[])
    ap.add_argument("--work", type=Path, default=Path("/tmp/relevance-chats"))
    ap.add_argument("--locomo", type=Path, default=None)
    ap.add_argument("--longmemeval", type=Path, default=None)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--paths", default=",".join(PATHS), help="the read paths to fit, comma-separated (default: all)")
    args = ap.parse_args()
    paths = tuple(p for p in args.paths.split(",") if p)
    if not paths or set(paths) - set(PATHS):
        ap.error(f"--paths: choose from {', '.join(PATHS)}")
    sources: dict[str, dict[str, list]] = {}
    if args.chats:
        chats = [c for f in args.chats for c in load(f)]
        ingest(chats, args.work)
        store = open_store(f"sqlite:///{args.work / 'chats.db'}")
        emb = CachingEmbedder(MiniLMEmbedder(), args.work / "embeddings.sqlite")
        memories = {p: (reader(store, emb, r, Serializer()), a) for p, (r, a) in retrievers(store).items()
                    if p in paths}
        sources["chats"] = collect(memories, list(chat_questions(chats)), args.top)
        store.close()
    for bench in ("locomo", "longmemeval"):
        run_dir = getattr(args, bench)
        if run_dir is None:
            continue
        ds, done, store, emb = open_run(bench, run_dir)
        memories = {p: (reader(store, emb, r, Serializer()), a) for p, (r, a) in retrievers(store).items()
                    if p in paths}
        qs = [(Scope(user_id=q.conversation_id), q.question, q.question_time, set(q.evidence_ids))
              for q in ds.questions if q.conversation_id in done and q.retrieval_scored and q.evidence_ids]
        sources[bench] = collect(memories, qs, args.top)
        store.close()
    report: dict = {"top": args.top, "sources": {s: {p: len(v) for p, v in rows.items()} for s, rows in sources.items()}}
    for path in paths:
        data = np.array([r for rows in sources.values() for r in rows[path]])
        # every source weighs the same in all (a benchmark's thousands of hits do not drown the small chats)
        weight = np.concatenate([np.full(len(rows[path]), len(data) / (len(sources) * len(rows[path]))) for rows in sources.values()])
        x = np.column_stack([data[:, 0], data[:, 1], data[:, 0] * data[:, 1]]) if path == "fused" else data[:, :1]
        w = fit(x, data[:, 2], weight)
        slope, size_slope, per_decade, intercept = (w[0], w[1], w[2], w[3]) if path == "fused" else (w[0], 0.0, 0.0, w[1])
        report[path] = {"slope": round(float(slope), 4), "size_slope": round(float(size_slope), 4),
                        "slope_per_decade": round(float(per_decade), 4), "intercept": round(float(intercept), 4),
                        "reliability": {}}
        for s, rows in sources.items():
            d = np.array(rows[path])
            pred = 1 / (1 + np.exp(-((slope + per_decade * d[:, 1]) * d[:, 0] + size_slope * d[:, 1] + intercept)))
            report[path]["reliability"][s] = reliability(pred, d[:, 2])
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
