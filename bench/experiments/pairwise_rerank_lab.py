"""Feasibility check (issue 28): a linear pairwise re-ranker of the fused read path's top 20 over its `why` signals,
validated leave-one-author-out on the burned chat sets as ``bench/fit_read_path.py`` validates weights.

Each question's first 20 fused candidates are captured as the real :meth:`ScopeIndex.rank` yields them (the final
z, cosine, BM25, the person, time and focus bonuses, denial, "followed" penalty, superseded, role, question-only,
scope size, memory type); a linear score is fitted with a pairwise logistic loss (every gold candidate over every
other of its question, L2, started at the shipped order) on five writers plus the ``dev-*`` sets and scored as
precision@1 of the re-ranked top 20 on the sixth. Stores as ``fit_read_path.py ingest`` makes them:

    OMP_NUM_THREADS=1 MEMDESK_CONFIG="" PYTHONPATH=$PWD/src python bench/experiments/pairwise_rerank_lab.py /tmp/28lr/stores

Result (``bench/results/read-path-fit/README.md``): worse than the shipped order on 5 of 6 folds at every L2 tried.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from memdesk.eval.chat_run import ChatEval
from memdesk.retrieval import scope_index
from memdesk.retrieval.retrieve import Retriever

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fit_read_path as F  # noqa: E402  (bench/ is not a package)

TOP = 20
TYPES = ["semantic", "episodic", "procedural", "instruction", "preference"]
captured: list = []


def capturing(rank):
    """``ScopeIndex.rank`` that also keeps its first :data:`TOP` yields (with the index) in ``captured``."""

    def wrapped(self, *a, **kw):
        for n, item in enumerate(rank(self, *a, **kw)):
            if n < TOP:
                captured.append((self, item))
            yield item

    return wrapped


def feats(index, pos, z, why) -> list[float]:
    r = index.records[pos]
    return [z, why.cosine, why.bm25, why.role_bonus, why.time_bonus[0] if why.time_bonus else 0.0,
            why.focus_bonus[0] if why.focus_bonus else 0.0, float(bool(why.denies)), why.followed,
            float(why.superseded_weight is not None), float(r.role == "user"), float(bool(index.asking[pos])),
            math.log(len(index.records))] + [float(r.type == x) for x in TYPES]  # fmt: skip


def collect(work: Path) -> dict[str, list[tuple[np.ndarray, np.ndarray]]]:
    """Per writer group: each question's candidate features and gold labels, in the shipped order."""
    scope_index.ScopeIndex.rank = capturing(scope_index.ScopeIndex.rank)
    groups = dict(F.AUTHORS) | {"dev": F.dev_sets()}
    data: dict[str, list] = {}
    for g, names in groups.items():
        data[g] = []
        for name in names:
            s = F.ChatStore(name, work)
            base = s.memory.retriever
            r = Retriever.fused(base.store, k=60, K=TOP, token_budget=None, serializer=base.serializer)
            for (chat, q), v in zip(s.questions, s.vectors):
                captured.clear()
                r.retrieve(v, ChatEval.scope_of(chat), query_text=q.question, where=s.where, asked_at=q.asked_at)
                if not captured:
                    data[g].append((np.zeros((1, 12 + len(TYPES))), np.zeros(1)))
                    continue
                X = np.array([feats(ix, pos, z, why) for ix, (pos, z, why) in captured])
                gold = set(q.gold_message_ids)
                y = np.array([float(bool(gold & set(ix.records[pos].provenance))) for ix, (pos, _, _) in captured])
                data[g].append((X, y))
        print(g, len(data[g]), flush=True)
    return data


def train(qs, l2: float, steps: int = 300, lr: float = 0.1):
    """A linear score by pairwise logistic loss (gold over non-gold of one question), started at the shipped z."""
    Xs = np.vstack([X for X, _ in qs])
    mu, sd = Xs.mean(0), Xs.std(0) + 1e-9
    pairs = []
    for X, y in qs:
        if y.any() and not y.all():
            Z = (X - mu) / sd
            g, b = Z[y > 0], Z[y == 0]
            pairs.append((g[:, None, :] - b[None, :, :]).reshape(-1, Z.shape[1]))
    D = np.vstack(pairs)
    w = np.zeros(D.shape[1])
    w[0] = 1.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(np.clip(D @ w, -30, 30)))
        w -= lr * (-(D * p[:, None]).mean(0) + l2 * w)
    return w, mu, sd


def p1(qs, model=None) -> float:
    if model is None:
        return float(np.mean([y[0] for _, y in qs]))
    w, mu, sd = model
    return float(np.mean([y[int(np.argmax(((X - mu) / sd) @ w))] for X, y in qs]))


def main() -> None:
    data = collect(Path(sys.argv[1]))
    for l2 in (1e-3, 1e-2, 1e-1):
        gains = []
        for held in F.AUTHORS:
            model = train([q for g in data if g != held for q in data[g]], l2)
            before, after = p1(data[held]), p1(data[held], model)
            gains.append(after - before)
            print(f"l2={l2} fold {held}: {before:.3f} -> {after:.3f} ({after - before:+.3f})", flush=True)
        print(f"l2={l2} mean {np.mean(gains):+.4f}, positive {sum(x > 0 for x in gains)}/6", flush=True)


if __name__ == "__main__":
    main()
