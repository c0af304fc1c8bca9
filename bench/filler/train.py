"""Trains the small-talk test's weights (:mod:`memdesk.conversation.filler`) on the packaged MiniLM embeddings.

Training sentences: ``bench/filler/sentences.txt`` (written for it) and the tune chats' sentences
(``bench/data/chats/tune.jsonl``: those of messages labelled small talk are small talk, those of the gold messages
of its questions are kept). L2-regularised logistic regression by gradient descent (numpy). Prints 5-fold
cross-validated accuracy, then the same check on the sentences of ``--check`` chats (not trained on).

    python bench/filler/train.py --out src/memdesk/conversation/data/filler_minilm.json --check bench/data/chats/heldout.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from memdesk.conversation.rules import analyze
from memdesk.embed.onnx import MiniLMEmbedder

HERE = Path(__file__).parent


def own_sentences() -> tuple[list[str], list[int]]:
    texts, labels = [], []
    for line in (HERE / "sentences.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        tag, text = line.split("\t", 1)
        texts.append(text)
        labels.append(1 if tag == "F" else 0)
    return texts, labels


def chat_sentences(path: Path) -> tuple[list[str], list[int]]:
    """Content sentences of small-talk messages (1) and of gold messages (0)."""
    texts, labels = [], []
    for line in path.read_text().splitlines():
        chat = json.loads(line)
        small = set(chat["labels"]["small_talk"])
        gold = {g for q in chat["questions"] for g in q["gold_message_ids"]}
        for m in chat["messages"]:
            label = 1 if m["id"] in small else 0 if m["id"] in gold else None
            if label is None:
                continue
            for s in analyze(m["content"], names=[chat["user"], chat["assistant"]]):
                if s.kind in ("content", "question"):
                    texts.append(s.text)
                    labels.append(label)
    return texts, labels


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 3000, lr: float = 0.5) -> tuple[np.ndarray, float]:
    w, b = np.zeros(x.shape[1]), 0.0
    pos = y.mean()
    sw = np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos))  # balanced classes
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = sw * (p - y)
        w -= lr * (x.T @ g / len(y) + l2 * w)
        b -= lr * g.mean()
    return w, b


def accuracy(w: np.ndarray, b: float, x: np.ndarray, y: np.ndarray, t: float = 0.5) -> dict[str, float]:
    p = 1 / (1 + np.exp(-(x @ w + b)))
    pred = p >= t
    tp, fp = int((pred & (y == 1)).sum()), int((pred & (y == 0)).sum())
    return {"n": len(y), "acc": float((pred == (y == 1)).mean()), "filler_recall": tp / max(1, int(y.sum())),
            "keep_dropped": fp / max(1, int((y == 0).sum())), "fp": fp, "tp": tp}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--check", type=Path, action="append", default=[])
    ap.add_argument("--threshold", type=float, default=0.6)
    args = ap.parse_args()
    emb = MiniLMEmbedder()
    t1, l1 = own_sentences()
    t2, l2 = chat_sentences(Path("bench/data/chats/tune.jsonl"))
    texts, labels = t1 + t2, np.array(l1 + l2, dtype=float)
    x = np.asarray(emb.embed(texts), dtype=np.float64)
    rng = np.random.default_rng(28)
    folds = rng.integers(0, 5, len(labels))
    cv = [accuracy(*fit(x[folds != k], labels[folds != k]), x[folds == k], labels[folds == k], args.threshold) for k in range(5)]
    print("own sentences", len(t1), "tune sentences", len(t2), "filler share", labels.mean().round(3))
    print("5-fold CV at", args.threshold, {k: round(float(np.mean([c[k] for c in cv])), 3) for k in ("acc", "filler_recall", "keep_dropped")})
    w, b = fit(x, labels)
    for path in args.check:
        tc, lc = chat_sentences(path)
        print("check", path, accuracy(w, b, np.asarray(emb.embed(tc), dtype=np.float64), np.array(lc, dtype=float), args.threshold))
    args.out.write_text(json.dumps({"model_id": emb.model_id, "threshold": args.threshold, "bias": round(float(b), 6),
                                    "weights": [round(float(v), 6) for v in w],
                                    "trained_on": f"bench/filler/sentences.txt ({len(t1)}) + tune.jsonl ({len(t2)})"}) + "\n")


if __name__ == "__main__":
    main()
