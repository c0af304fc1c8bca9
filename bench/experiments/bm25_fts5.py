"""memdesk's BM25 (lexical.BM25Index, Snowball-stemmed) against SQLite FTS5's bm25() (porter tokenizer) on LoCoMo.

Documents: the raw turns ("Speaker: text") of each LoCoMo dev conversation; queries: its questions of categories
1-4. Reports, per ranker, recall@10 of the gold turns, the overlap of the two top-10 lists, and the time to index
and to answer a query. The reason memdesk keeps its own BM25 is in docs/architecture.md.

    nice python bench/experiments/bm25_fts5.py --out bench/results/experiments/bm25_fts5.json
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.benchinfo import machine_info, measured_at, write_result  # noqa: E402
from memdesk.eval.datasets import load_locomo  # noqa: E402
from memdesk.retrieval.lexical import BM25Index  # noqa: E402
from memdesk.retrieval.stemming import StemmingTokenizer  # noqa: E402

K = 10


def fts_query(question: str) -> str:
    """The question's words OR-ed, quoted (FTS5's query syntax would read punctuation and AND by default)."""
    words = re.findall(r"\w+", question.lower())
    return " OR ".join(f'"{w}"' for w in words) or '""'


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help="a LoCoMo file (default: the dev file of the data folder)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    data = load_locomo(args.data)
    tokenizer = StemmingTokenizer()
    totals = {"memdesk": [0, 0], "fts5": [0, 0]}
    overlaps, lat = [], {"memdesk": [], "fts5": []}
    build = {"memdesk": 0.0, "fts5": 0.0}
    for conv in data.conversations.values():
        ids = [m.id for m in conv.messages]
        texts = [f"{m.speaker}: {m.text()}" for m in conv.messages]
        t = time.perf_counter()
        index = BM25Index(texts, tokenizer=tokenizer)
        build["memdesk"] += time.perf_counter() - t
        db = sqlite3.connect(":memory:")
        t = time.perf_counter()
        db.execute("CREATE VIRTUAL TABLE turns USING fts5(body, tokenize='porter unicode61')")
        db.executemany("INSERT INTO turns(rowid, body) VALUES (?, ?)", [(i + 1, x) for i, x in enumerate(texts)])
        build["fts5"] += time.perf_counter() - t
        for q in (q for q in data.questions if q.conversation_id == conv.id and q.category != "adversarial"):
            gold = set(q.evidence_ids)
            if not gold:
                continue
            t = time.perf_counter()
            ours = [ids[i] for i, _ in index.top(q.question, K)]
            lat["memdesk"].append(time.perf_counter() - t)
            t = time.perf_counter()
            rows = db.execute("SELECT rowid FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?",
                              (fts_query(q.question), K)).fetchall()
            lat["fts5"].append(time.perf_counter() - t)
            theirs = [ids[r[0] - 1] for r in rows]
            for name, got in (("memdesk", ours), ("fts5", theirs)):
                totals[name][0] += len(gold & set(got))
                totals[name][1] += len(gold)
            overlaps.append(len(set(ours) & set(theirs)) / K)
        db.close()
    result = {
        "measured_at": measured_at(), "command": "bench/experiments/bm25_fts5.py " + " ".join(sys.argv[1:]),
        "machine": machine_info(), "questions": len(overlaps),
        "recall@10": {n: round(a / b, 4) for n, (a, b) in totals.items()},
        "top10_overlap": round(statistics.mean(overlaps), 4),
        "query_ms_p50": {n: round(1000 * statistics.median(v), 3) for n, v in lat.items()},
        "index_s": {n: round(v, 3) for n, v in build.items()},
    }
    write_result(args.out, result)


if __name__ == "__main__":
    main()
