"""Idea screening for the conversational read path: a numpy re-implementation over an ingested run's store.

Loads every record and vector of each ingested conversation of an evaluation run (``<run>/work/typed.db``)
once and re-ranks the questions with retrieval variants in numpy, so one variant costs seconds instead of a
harness run. The variants mirror the read path (per-type top-k, de-duplication, serializer lines) but are
not the shipped code: what they found is then implemented in ``memdesk.retrieval.retrieve`` and measured again through
``Memory.evidence`` with ``bench/retrieval_replay.py`` and the harness. The table in
``bench/results/RETRIEVAL_EXPERIMENTS.md`` comes from ``python bench/experiments/retrieval_lab.py <run_dir>``.

Token counts here are estimates: the sum of each kept line's tokens plus headers (``rich3`` and later:
the anchor-grouped block as rendered by :func:`render_grouped`).
"""
import json, statistics, sys, time
from collections import defaultdict
import numpy as np
from memdesk.eval.run import load_dataset
from memdesk.store import open_store
from memdesk.records import Scope, MemoryType, ALL_TYPES
from memdesk.hits import SearchHit
from memdesk.retrieval.retrieve import Serializer, dedupe
from memdesk.eval.cache import CachingEmbedder
from memdesk.embed import MiniLMEmbedder
from memdesk.eval import metrics as M

class Conv:
    def __init__(self, store, conv):
        self.id = conv.id
        scope = Scope(user_id=conv.id)
        recs, vecs = [], []
        for t in ALL_TYPES:
            rs = list(store.scan(scope, t))
            if rs:
                recs += rs
                vecs.append(store.get_vectors(t, [r.id for r in rs]))
        self.records = recs
        self.vectors = np.vstack(vecs) if vecs else np.zeros((0, 384), np.float32)
        self.types = np.array([ALL_TYPES.index(MemoryType(r.type)) for r in recs])
        self.speakers = [r.speaker for r in recs]
        self.session_of = conv.session_of
        self.conv = conv

def hit(conv, i, score, rank=0, why=""):
    r = conv.records[i]
    return SearchHit.model_construct(record=r, score=float(score), memory_type=MemoryType(r.type), rank=rank, why=why)

class Lab:
    def __init__(self, bench, run_dir, limit_convs=None, qcache="/tmp/recall-lab/qcache.sqlite", only_ingested=True):
        self.ds = load_dataset(bench)
        self.bench = bench
        st = json.load(open(f"{run_dir}/work/state.json"))
        done = set(st["ingested"].get("typed", []))
        self.store = open_store(f"sqlite:///{run_dir}/work/typed.db")
        self.convs = {}
        for cid, c in self.ds.conversations.items():
            if only_ingested and cid not in done:
                continue
            if limit_convs and len(self.convs) >= limit_convs:
                break
            self.convs[cid] = Conv(self.store, c)
        self.questions = [q for q in self.ds.questions if q.conversation_id in self.convs and q.retrieval_scored]
        emb = CachingEmbedder(MiniLMEmbedder(), qcache)
        self.qvec = dict(zip([q.id for q in self.questions], emb.embed([q.question for q in self.questions])))
        self.ser = Serializer()

    def run(self, variant, name="", cats=None, show=True, **kw):
        per_cat = defaultdict(list); toks = []; sess = []
        rows = []
        for q in self.questions:
            conv = self.convs[q.conversation_id]
            hits = variant(q, self.qvec[q.id], conv, **kw)
            ev = self.ser.serialize(hits)
            if kw.get("grouped"):
                ev.tokens = _TC.count(render_grouped(hits))
            prov = [list(h.record.provenance) for h in hits]
            rec = M.evidence_recall(q.evidence_ids, prov)
            per_cat[q.category].append(rec); toks.append(ev.tokens)
            if self.bench == "longmemeval":
                s = M.session_recall(q.evidence_sessions, prov[:10], lambda i: conv.session_of.get(i, i))
                if s: sess.append(s["fraction"])
            rows.append((q, rec, ev.tokens, len(hits)))
        head = self.ds.headline_categories
        allr = [r for c in head for r in per_cat.get(c, [])]
        out = {"recall": round(float(np.mean(allr)), 4), "med_tok": int(statistics.median(toks)),
               "mean_tok": int(np.mean(toks)), "n": len(allr)}
        if sess: out["sess10"] = round(float(np.mean(sess)), 4)
        out["cat"] = {c: round(float(np.mean(per_cat[c])), 3) for c in head if per_cat.get(c)}
        if show:
            print(f"{name:40s} R={out['recall']:.4f} tok={out['med_tok']} " + (f"s10={out.get('sess10')} " if sess else "") + " ".join(f"{c[:6]}={v:.3f}" for c, v in out["cat"].items()), flush=True)
        self.last_rows = rows
        return out

# ---- the baseline read path, replicated ----
def typed(q, v, conv, k=20, K=25, mode="typed"):
    s = conv.vectors @ v
    cand = []
    if mode == "typed":
        for t in range(3):
            idx = np.flatnonzero(conv.types == t)
            if not idx.size: continue
            top = idx[np.argsort(-s[idx], kind="stable")[:k]]
            cand += [(i, s[i]) for i in top]
    else:
        for t in range(3):
            idx = np.flatnonzero(conv.types == t)
            if not idx.size: continue
            top = idx[np.argsort(-s[idx], kind="stable")[:K]]
            cand += [(i, s[i]) for i in top]
    cand.sort(key=lambda x: -x[1])
    return dedupe([hit(conv, i, sc) for i, sc in cand])[:K]

# ---- richer variants ----
import re as _re
from memdesk.retrieval.lexical import BM25Index, rrf_fuse
from memdesk.text.tokens import TokenCounter
_TC = TokenCounter()
_ROLE = {"user", "assistant", "system", "tool"}

def conv_extras(conv):
    if not hasattr(conv, "bm25"):
        conv.bm25 = BM25Index([r.embed_text() for r in conv.records])
        conv.line_tokens = np.array([_TC.count(Serializer.line(hit(conv, i, 0))) for i in range(len(conv.records))])
        conv.spk = np.array([r.speaker or "" for r in conv.records])
        conv.people = sorted({s for s in conv.spk if s and s.lower() not in _ROLE})
        conv.prov = [tuple(sorted(r.provenance)) for r in conv.records]
    return conv

def named(q, conv):
    return [p for p in conv.people if _re.search(r"\b%s\b" % _re.escape(p.split()[0]), q.question)]

def pack(conv, order, scores, budget=None, K=25, cover_dedupe=False, header=6):
    """order: candidate indices best first. Dedupe like memdesk, then fill K or token budget."""
    out = []; seen_prov = set(); seen_text = set(); covered = set(); used = 0; types_used = set()
    from memdesk.retrieval.retrieve import normalized_text
    for i in order:
        r = conv.records[i]
        prov = conv.prov[i]
        text = normalized_text(r.embed_text())
        if (prov and prov in seen_prov) or text in seen_text:
            continue
        if cover_dedupe and prov and set(prov) <= covered:
            continue
        cost = conv.line_tokens[i] + 1 + (header if conv.types[i] not in types_used else 0)
        if budget is not None:
            if used + cost > budget:
                continue
        elif len(out) >= K:
            break
        used += cost; types_used.add(conv.types[i])
        seen_prov.add(prov); seen_text.add(text); covered.update(prov)
        out.append(hit(conv, i, scores[i]))
    return out

def rich(q, v, conv, k=20, K=25, budget=None, typed_caps=True, bm25_w=0.0, rrf=False, rrf_c=60, lex_k=25,
         spk_boost=0.0, spk_filter=False, cover_dedupe=False, prf=0.0, prf_m=5, pool=None):
    conv_extras(conv)
    s = conv.vectors @ v
    if prf:
        top = np.argsort(-s)[:prf_m]
        v2 = v + prf * conv.vectors[top].mean(0); v2 /= np.linalg.norm(v2)
        s = conv.vectors @ v2
    score = s.astype(np.float64).copy()
    names = named(q, conv) if (spk_boost or spk_filter) else []
    if names and spk_boost:
        score += spk_boost * np.isin(conv.spk, names)
    if bm25_w and not rrf:
        b = conv.bm25.scores(q.question)
        if b.max() > 0: score += bm25_w * b / b.max()
    if names and spk_filter:
        score[~np.isin(conv.spk, names)] -= 10
    # candidate set
    if typed_caps:
        cand = []
        for t in range(3):
            idx = np.flatnonzero(conv.types == t)
            if idx.size:
                cand += list(idx[np.argsort(-score[idx], kind="stable")[:(pool or k)]])
        cand = sorted(cand, key=lambda i: -score[i])
    else:
        cand = list(np.argsort(-score, kind="stable")[: (pool or 200)])
    if rrf:
        lex = [i for i, _ in conv.bm25.top(q.question, lex_k)]
        fused = rrf_fuse([(cand, 1.0), (lex, bm25_w or 1.0)], rrf_c)
        cand = [i for i, _ in fused]
        score = np.zeros(len(conv.records)); 
        for i, sc in fused: score[i] = sc
    return pack(conv, cand, score, budget=budget, K=K, cover_dedupe=cover_dedupe)

from nltk.stem import PorterStemmer
_PS = PorterStemmer()
from memdesk.retrieval.lexical import tokenize as _tok
import functools
@functools.lru_cache(maxsize=200000)
def _stem(w): return _PS.stem(w)
def stem_text(t): return " ".join(_stem(w) for w in _tok(t))

def conv_extras2(conv):
    conv_extras(conv)
    if not hasattr(conv, "bm25s"):
        conv.bm25s = BM25Index([stem_text(r.embed_text()) for r in conv.records])
        conv.said = np.array([str(r.metadata.get("said_at", ""))[:16] for r in conv.records])
    return conv

def rich2(q, v, conv, k=20, K=25, budget=880, bm25_w=0.2, stem=True, sess_pen=0.0, cover_dedupe=True, pool=60, mmr=0.0):
    conv_extras2(conv)
    s = (conv.vectors @ v).astype(np.float64)
    score = s.copy()
    if bm25_w:
        b = (conv.bm25s.scores(stem_text(q.question)) if stem else conv.bm25.scores(q.question))
        if b.max() > 0: score += bm25_w * b / b.max()
    cand = []
    for t in range(3):
        idx = np.flatnonzero(conv.types == t)
        if idx.size:
            cand += list(idx[np.argsort(-score[idx], kind="stable")[:pool]])
    cand = sorted(cand, key=lambda i: -score[i])
    if sess_pen:
        # greedy re-order: penalize repeats of the same said_at
        out = []; count = collections.Counter(); rest = list(cand)
        while rest:
            j = max(range(len(rest)), key=lambda j: score[rest[j]] - sess_pen * count[conv.said[rest[j]]])
            i = rest.pop(j); out.append(i); count[conv.said[i]] += 1
            if len(out) > 80: out += rest; break
        cand = out
    return pack(conv, cand, score, budget=budget, K=K, cover_dedupe=cover_dedupe)
import collections

def body_line(r):
    title = getattr(r, "title", ""); body = r.body()
    text = f"{title}: {body}" if title and not body.startswith(title) else body
    if r.speaker and r.speaker not in text: text = f"{r.speaker}: {text}"
    return "- " + text
def anchor_of(r):
    return r.temporal_anchor or (r.event_time.date().isoformat() if r.event_time else "undated")

def conv_extras3(conv):
    conv_extras2(conv)
    if not hasattr(conv, "body_tokens"):
        conv.body_tokens = np.array([_TC.count(body_line(r)) for r in conv.records])
        conv.anchor = [anchor_of(r) for r in conv.records]
        conv.anchor_tokens = {a: _TC.count(f"[{a}]") for a in set(conv.anchor)}
    return conv

def pack_grouped(conv, order, scores, budget=880, header=6):
    out = []; seen_prov = set(); seen_text = set(); covered = set(); used = 0; groups = set(); types_used=set()
    from memdesk.retrieval.retrieve import normalized_text
    for i in order:
        r = conv.records[i]; prov = conv.prov[i]
        text = normalized_text(r.embed_text())
        if (prov and prov in seen_prov) or text in seen_text: continue
        if prov and set(prov) <= covered: continue
        g = (conv.types[i], conv.anchor[i])
        cost = conv.body_tokens[i] + 1 + (conv.anchor_tokens[conv.anchor[i]] + 1 if g not in groups else 0) + (header if conv.types[i] not in types_used else 0)
        if used + cost > budget: continue
        used += cost; groups.add(g); types_used.add(conv.types[i])
        seen_prov.add(prov); seen_text.add(text); covered.update(prov)
        out.append(hit(conv, i, scores[i]))
    return out

def render_grouped(hits):
    lines = []
    for t in ALL_TYPES:
        grp = [h for h in hits if h.memory_type is t]
        if not grp: continue
        lines.append(Serializer.HEADERS[t])
        by = {}
        for h in grp: by.setdefault(anchor_of(h.record), []).append(h)
        for a, hs in by.items():
            lines.append(f"[{a}]")
            lines += [body_line(h.record) for h in hs]
    return "\n".join(lines)

def rich3(q, v, conv, budget=880, bm25_w=0.3, pool=60, grouped=True):
    conv_extras3(conv)
    s = (conv.vectors @ v).astype(np.float64)
    b = conv.bm25s.scores(stem_text(q.question))
    score = s + (bm25_w * b / b.max() if b.max() > 0 else 0)
    cand = []
    for t in range(3):
        idx = np.flatnonzero(conv.types == t)
        if idx.size: cand += list(idx[np.argsort(-score[idx], kind="stable")[:pool]])
    cand = sorted(cand, key=lambda i: -score[i])
    if grouped: return pack_grouped(conv, cand, score, budget=budget)
    return pack(conv, cand, score, budget=budget, cover_dedupe=True)

def rich4(q, v, conv, grouped=True, budget=880, bm25_w=0.3, pool=60, typed_mode="caps", quota=0, temp=1.0):
    """typed_mode: caps (per-type top pool, merged by score), none (one ranking), z (per-type z-scored), rr (round robin)."""
    conv_extras3(conv)
    s = (conv.vectors @ v).astype(np.float64)
    b = conv.bm25s.scores(stem_text(q.question))
    score = s + (bm25_w * b / b.max() if b.max() > 0 else 0)
    if typed_mode == "none":
        cand = list(np.argsort(-score, kind="stable")[:3 * pool])
        return pack_grouped(conv, cand, score, budget=budget)
    per = []
    adj = score.copy()
    for t in range(3):
        idx = np.flatnonzero(conv.types == t)
        if not idx.size: continue
        top = idx[np.argsort(-score[idx], kind="stable")[:pool]]
        if typed_mode == "z":
            mu, sd = score[idx].mean(), score[idx].std() + 1e-9
            adj[idx] = (score[idx] - mu) / sd
        per.append(list(top))
    if typed_mode == "rr":
        cand = [l[r] for r in range(pool) for l in per if r < len(l)]
    else:
        cand = sorted([i for l in per for i in l], key=lambda i: -adj[i])
    if quota:
        head = [i for l in per for i in l[:quota]]
        cand = head + [i for i in cand if i not in set(head)]
    return pack_grouped(conv, cand, adj, budget=budget)

def rich5(q, v, conv, grouped=True, budget=880, bm25_w=0.3, pool=60, lex_pool=60, znorm="top", stem=True):
    """Retriever-faithful: candidates = per-type dense top pool ∪ lexical top lex_pool; fused = cos + w*bm25/max;
    znorm 'top': per type, z over that type's candidates; 'all': over all its records; None: raw."""
    conv_extras3(conv)
    s = (conv.vectors @ v).astype(np.float64)
    b = conv.bm25s.scores(stem_text(q.question)) if stem else conv.bm25.scores(q.question)
    bmax = b.max()
    fused = s + (bm25_w * b / bmax if bmax > 0 and bm25_w else 0)
    cand = set()
    for t in range(3):
        idx = np.flatnonzero(conv.types == t)
        if idx.size: cand.update(idx[np.argsort(-s[idx], kind="stable")[:pool]].tolist())
    if bm25_w and bmax > 0:
        top = np.argsort(-b, kind="stable")[:lex_pool]
        cand.update(i for i in top.tolist() if b[i] > 0)
    cand = np.array(sorted(cand))
    adj = np.full(len(s), -1e9)
    for t in range(3):
        c = cand[conv.types[cand] == t]
        if not c.size: continue
        if znorm == "top":
            mu, sd = fused[c].mean(), fused[c].std() + 1e-9
        elif znorm == "all":
            idx = np.flatnonzero(conv.types == t); mu, sd = fused[idx].mean(), fused[idx].std() + 1e-9
        else:
            mu, sd = 0.0, 1.0
        adj[c] = (fused[c] - mu) / sd
    order = sorted(cand.tolist(), key=lambda i: -adj[i])
    return pack_grouped(conv, order, adj, budget=budget) if grouped else pack(conv, order, adj, budget=budget, cover_dedupe=True)

def rich6(q, v, conv, grouped=True, budget=880, bm25_w=0.3, pool=60, lex_pool=60, mode="B", wz=0.3):
    """B: z_cos(all records of type) + w*b/bmax ; C: z_cos + wz*z_b (per type, all records); A: z of fused (all)."""
    conv_extras3(conv)
    s = (conv.vectors @ v).astype(np.float64)
    b = conv.bm25s.scores(stem_text(q.question)); bmax = b.max()
    bn = b / bmax if bmax > 0 else b
    cand = set()
    for t in range(3):
        idx = np.flatnonzero(conv.types == t)
        if idx.size: cand.update(idx[np.argsort(-s[idx], kind="stable")[:pool]].tolist())
    if bmax > 0:
        cand.update(i for i in np.argsort(-b, kind="stable")[:lex_pool].tolist() if b[i] > 0)
    cand = np.array(sorted(cand)); adj = np.full(len(s), -1e9)
    for t in range(3):
        idx = np.flatnonzero(conv.types == t); c = cand[conv.types[cand] == t]
        if not c.size: continue
        zc = (s[c] - s[idx].mean()) / (s[idx].std() + 1e-9)
        if mode == "B2": adj[c] = zc + bm25_w * bn[c] / (s[idx].std() + 1e-9)
        elif mode == "C": adj[c] = zc + wz * (b[c] - b[idx].mean()) / (b[idx].std() + 1e-9)
        else:
            f = s + bm25_w * bn; adj[c] = (f[c] - f[idx].mean()) / (f[idx].std() + 1e-9)
    order = sorted(cand.tolist(), key=lambda i: -adj[i])
    return pack_grouped(conv, order, adj, budget=budget)


IDEAS = [
    ("engram typed k20 K25", typed, {}),
    ("engram untyped", typed, {"mode": "untyped"}),
    ("engram typed K40", typed, {"K": 40}),
    ("hybrid RRF (unstemmed) K25", rich, {"rrf": True}),
    ("budget 880 flat", rich, {"budget": 880}),
    ("budget 880 + covered-provenance skip", rich, {"budget": 880, "cover_dedupe": True}),
    ("speaker boost 0.05", rich, {"spk_boost": 0.05}),
    ("speaker boost 0.2", rich, {"spk_boost": 0.2}),
    ("speaker bank filter", rich, {"spk_filter": True}),
    ("pseudo-relevance feedback 0.5", rich, {"prf": 0.5}),
    ("BM25 score fusion w0.2 unstemmed, budget", rich2, {"stem": False}),
    ("BM25 score fusion w0.2 stemmed, budget", rich2, {}),
    ("BM25 score fusion w0.3 stemmed, budget", rich2, {"bm25_w": 0.3}),
    ("+ same-session penalty 0.02", rich2, {"bm25_w": 0.3, "sess_pen": 0.02}),
    ("+ same-session penalty 0.05", rich2, {"bm25_w": 0.3, "sess_pen": 0.05}),
    ("w0.3 stemmed, anchor-grouped block", rich3, {"grouped": True}),
    ("grouped, one ranking (no per-type caps)", rich4, {"typed_mode": "none", "grouped": True}),
    ("grouped, round robin over types", rich4, {"typed_mode": "rr", "grouped": True}),
    ("grouped, per-type quota 3", rich4, {"quota": 3, "grouped": True}),
    ("grouped, per-type z (all records)", rich5, {"znorm": "all", "grouped": True}),
    ("grouped, per-type z (candidates only)", rich5, {"znorm": "top", "grouped": True}),
    ("grouped, z all, no BM25", rich5, {"znorm": "all", "bm25_w": 0.0, "grouped": True}),
    ("grouped, raw, no BM25", rich5, {"znorm": None, "bm25_w": 0.0, "grouped": True}),
    ("grouped, z all, unstemmed", rich5, {"znorm": "all", "stem": False, "grouped": True}),
    ("grouped, z cos + 0.3 z bm25", rich6, {"mode": "C", "wz": 0.3, "grouped": True}),
]


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--benchmark", default="locomo")
    ap.add_argument("--qcache", default="/tmp/memdesk-lab-queries.sqlite")
    args = ap.parse_args()
    lab = Lab(args.benchmark, args.run_dir, qcache=args.qcache)
    print("conversations:", ", ".join(lab.convs), "questions:", len(lab.questions))
    for name, variant, kw in IDEAS:
        lab.run(variant, name, **kw)


if __name__ == "__main__":
    main()
