"""Raw-turn retrieval check of an embedder on LoCoMo (the 2026-12-04 figure in the shared notes):
each turn embedded as "Speaker: text" (with its image caption, as memdesk stores it), each headline question (categories 1-4)
embedded as a query, exact cosine; recall@k = share of a question's gold turns among its top k, averaged.

    python bench/results/locomo-gemma/raw_turns.py --embedder embeddinggemma --convs conv-26,conv-41 [--cache FILE]

The embedder is built from the settings (MEMDESK_MODELS_DIR applies), wrapped in the evaluation's cache.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from memdesk.embed import make_embedder
from memdesk.eval.cache import CachingEmbedder
from memdesk.eval.datasets.locomo import load_locomo
from memdesk.settings import Settings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", default="embeddinggemma")
    ap.add_argument("--convs", default="conv-26,conv-41")
    ap.add_argument("--cache", default=None)
    ap.add_argument("--data", default=None)
    args = ap.parse_args()
    ds = load_locomo(args.data)
    emb = CachingEmbedder(make_embedder(Settings(embedder=args.embedder)), args.cache)
    out: dict = {"embedder": emb.model_id, "convs": args.convs}
    hits: dict[int, list[float]] = {10: [], 30: []}
    by_cat: dict[str, list[float]] = {}
    start = time.perf_counter()
    for cid in args.convs.split(","):
        conv = ds.conversations[cid]
        texts = [f"{m.speaker}: {m.text()}" for m in conv.messages]
        ids = [m.id for m in conv.messages]
        docs = emb.embed(texts)
        qs = [q for q in ds.questions if q.conversation_id == cid and q.category in ds.headline_categories and q.evidence_ids]
        qv = emb.embed_query([q.question for q in qs])
        order = np.argsort(-(qv @ docs.T), axis=1)
        for q, row in zip(qs, order):
            gold = set(q.evidence_ids)
            for k in hits:
                r = len(gold & {ids[i] for i in row[:k]}) / len(gold)
                hits[k].append(r)
                if k == 10:
                    by_cat.setdefault(q.category, []).append(r)
    out.update({f"recall@{k}": round(float(np.mean(v)), 3) for k, v in hits.items()})
    out.update(questions=len(hits[10]), by_category={c: round(float(np.mean(v)), 3) for c, v in sorted(by_cat.items())})
    out["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
