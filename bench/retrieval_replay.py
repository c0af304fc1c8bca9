"""Replay retrieval over an evaluation run's ingested typed store: read-path variants without re-ingesting.

`memdesk eval` ingests each conversation once into ``<run>/work/typed.db``; this script reopens that
store and answers the run's questions through the real ``Memory.evidence`` with several read paths,
reporting gold-evidence recall per category, median evidence tokens, search p50 and (LongMemEval)
session recall@10. Only conversations the run has fully ingested are used (``work/state.json``).

    python bench/retrieval_replay.py locomo /tmp/memdesk-eval/locomo [--configs fused,fused-untyped,...]

Configs: ``engram`` (paper path, k=20, K=25), ``engram-untyped``, ``engram-hybrid`` (RRF BM25),
``fused`` (the default read path), ``fused-untyped`` (one pooled score scale), ``fused-dense`` (no BM25), ``fused-dense-untyped``,
``fused-nostem`` (unstemmed BM25), ``fused-flat`` (budget priced for the flat one-anchor-per-line block); the option
``fold=false`` writes a line for every record (no folding of repeated words, :mod:`memdesk.retrieval.folding`).
A config may change its retriever's constructor options: ``fused:lexical_weight=0.1+lexical_k=30``.

The run's embedder is ``MEMDESK_EMBEDDER``'s (default MiniLM; ``MEMDESK_EMBEDDER=nomic`` for a run made with
``--embedder nomic``), and the fused configs start from that embedder's read profile
(:mod:`memdesk.retrieval.profiles`), as ``Memory.open()`` does; options in the config name override it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import make_embedder
from memdesk.eval import metrics as M
from memdesk.eval.cache import CachingEmbedder
from memdesk.eval.run import load_dataset
from memdesk.records import Scope
from memdesk.retrieval.profiles import read_profile
from memdesk.retrieval.retrieve import Retriever, Serializer
from memdesk.settings import Settings
from memdesk.store import open_store


def _fused(store, profile=None, **kw):
    ser = Serializer(group_by_anchor=kw.pop("grouped", True), fold=kw.pop("fold", None))
    return Retriever.fused(store, serializer=ser, **{**(profile or {}), **kw}), ser


def _engram(store, profile=None, **kw):
    return Retriever(store, **kw), Serializer()


CONFIGS = {
    "engram": (_engram, {}),
    "engram-untyped": (_engram, {"mode": "untyped"}),
    "engram-hybrid": (_engram, {"hybrid": True}),
    "fused": (_fused, {}),
    "fused-untyped": (_fused, {"mode": "untyped"}),
    "fused-dense": (_fused, {"hybrid": False}),
    "fused-dense-untyped": (_fused, {"hybrid": False, "mode": "untyped"}),
    "fused-nostem": (lambda st, **kw: _fused(st, stem=False, **kw), {}),
    "fused-flat": (lambda st, **kw: _fused(st, grouped=False, **kw), {}),
}


def config_of(name: str, profile: dict | None = None):
    """A named config, or ``<name>:<option>=<value>+...``: that config's retriever with constructor options
    changed (``fused:lexical_weight=0.1+lexical_k=30``). ``profile``: the embedder's read-profile options, under
    any the name changes (fused configs only)."""
    base, _, options = name.partition(":")
    make, search_args = CONFIGS[base]
    changes = {k: json.loads(v) for k, v in (o.split("=", 1) for o in options.split("+"))} if options else {}
    return (lambda st: make(st, profile=profile, **changes)), search_args


def open_run(benchmark: str, run_dir: Path, cache: Path | None = None):
    """An evaluation run reopened for reading: (dataset, ids of the conversations it fully ingested, its typed
    store, the run's embedder (``MEMDESK_EMBEDDER``, default MiniLM) behind its embedding cache). Close the store
    when done."""
    ds = load_dataset(benchmark)  # type: ignore[arg-type]
    done = set(json.loads((run_dir / "work" / "state.json").read_text())["ingested"].get("typed", []))
    store = open_store(f"sqlite:///{run_dir / 'work' / 'typed.db'}")
    return ds, done, store, CachingEmbedder(make_embedder(Settings()), cache or run_dir / "work" / "embeddings.sqlite")


def profile_options(model_id: str) -> dict:
    """The fused retriever's constructor options that the embedder's read profile sets."""
    profile = read_profile(model_id)
    return {
        "lexical_weight": profile.lexical_weight, "type_prior": profile.type_prior,
        "redundancy_penalty": profile.redundancy_penalty,
    }


def reader(store, embedder, retriever: Retriever, serializer: Serializer) -> Memory:
    """A Memory that only reads ``store`` through ``retriever`` (its processor is never used)."""
    return Memory(store, embedder, RawTurnProcessor(), retriever=retriever, serializer=serializer)


class Tally:
    """What a replay counts over its questions' evidence blocks: gold-turn recall and session recall@10 (the
    first ten hits) per category, and each block's tokens."""

    def __init__(self) -> None:
        self.recall: dict[str, list[float]] = defaultdict(list)
        self.sessions: dict[str, list[float]] = defaultdict(list)
        self.tokens: list[int] = []
        self.ranks: list[tuple[str, float, float]] = []  # (category, precision@1, reciprocal rank within 10)

    def add(self, q, conv, ev) -> None:
        """Count question ``q`` of conversation ``conv`` answered by evidence block ``ev``."""
        prov = [list(h.record.provenance) for h in ev.hits]
        r = M.evidence_recall(q.evidence_ids, prov)
        if r is not None:
            self.recall[q.category].append(r)
        self.tokens.append(ev.tokens)
        if r is not None:
            p1, rr = M.precision_at_1(q.evidence_ids, prov), M.reciprocal_rank(q.evidence_ids, prov, 10)
            self.ranks.append((q.category, p1 or 0.0, rr or 0.0))
        s = M.session_recall(q.evidence_sessions, prov[:10], lambda i: conv.session_of.get(i, i))
        if s is not None:
            self.sessions[q.category].append(s["fraction"])

    def headline(self, ds) -> list[float]:
        """Recall of the questions in the data set's headline categories."""
        return [r for c in ds.headline_categories for r in self.recall.get(c, [])]

    def precision_mrr(self, ds) -> tuple[float | None, float | None]:
        """Precision@1 (the first hit comes from a gold turn) and MRR@10 of the first gold hit
        (:mod:`memdesk.eval.metrics`), over the questions of the headline categories whose recall is scored."""
        ranks = [(p1, rr) for c, p1, rr in self.ranks if c in ds.headline_categories]
        if not ranks:
            return None, None
        return round(M.mean(p1 for p1, _ in ranks), 4), round(M.mean(rr for _, rr in ranks), 4)

    def session_fractions(self) -> list[float]:
        return [f for v in self.sessions.values() for f in v]


def replay(benchmark: str, run_dir: Path, config: str, cache: Path) -> dict:
    ds, done, store, embedder = open_run(benchmark, run_dir, cache)
    make, search_args = config_of(config, profile_options(embedder.model_id))
    memory = reader(store, embedder, *make(store))
    tally, ms = Tally(), []
    try:
        for q in (q for q in ds.questions if q.conversation_id in done and q.retrieval_scored):
            start = time.perf_counter()
            ev = memory.evidence(q.question, scope=Scope(user_id=q.conversation_id), asked_at=q.question_time, **search_args)
            ms.append((time.perf_counter() - start) * 1000)
            tally.add(q, ds.conversations[q.conversation_id], ev)
    finally:
        store.close()
    recall, tokens, sessions = tally.recall, tally.tokens, tally.sessions
    head = tally.headline(ds)
    return {
        "config": config, "conversations": sorted(done), "n": len(head), "recall": round(float(np.mean(head)), 4),
        "by_category": {c: round(float(np.mean(recall[c])), 4) for c in ds.headline_categories if recall.get(c)},
        "p@1": tally.precision_mrr(ds)[0], "mrr@10": tally.precision_mrr(ds)[1],
        "median_tokens": statistics.median(tokens), "mean_tokens": round(statistics.fmean(tokens), 1),
        "search_p50_ms": round(statistics.median(ms), 2),
        "session_recall@10": round(float(np.mean(tally.session_fractions())), 4) if sessions and benchmark == "longmemeval" else None,
        "session_recall@10_by_category": {c: round(float(np.mean(v)), 4) for c, v in sessions.items()} if benchmark == "longmemeval" else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("benchmark", choices=["locomo", "longmemeval"])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--configs", default="engram,engram-untyped,fused,fused-untyped,fused-dense")
    ap.add_argument("--cache", type=Path, default=None, help="query embedding cache (default: the run's)")
    ap.add_argument("--out", type=Path, default=None, help="append one JSON line per config here")
    args = ap.parse_args()
    cache = args.cache or args.run_dir / "work" / "embeddings.sqlite"
    emit((replay(args.benchmark, args.run_dir, config, cache) for config in args.configs.split(",")), args.out)


def emit(rows: Iterable[dict], out: Path | None) -> None:
    """Print each config's row as one JSON line as soon as it is measured, and append it to ``out`` when given."""
    for row in rows:
        print(json.dumps(row), flush=True)
        if out:
            with open(out, "a") as f:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
