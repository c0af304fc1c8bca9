"""How far the default read path is from a recall target, and what a few general mechanisms buy (issue 30, a measurement).

Reopens evaluation runs' typed stores (as ``bench/retrieval_replay.py`` does: the run's embedder from
``MEMDESK_EMBEDDER``, that embedder's read profile), ranks each headline question's candidates once with the fused
path and no budget (K=300, raw scores), and then packs that ranking as the product does (the profile's redundancy
penalty, :func:`~memdesk.retrieval.redundancy.demote_repeated`, then :class:`~memdesk.retrieval.packing.BudgetPacker`
over the anchor-grouped, folding block; at 900 tokens this is the product's block, checked against
``retrieval_replay.py``). Rankings are cached per run (``--cache-dir``), so the slow part (query embeddings, BM25)
runs once. Results: ``bench/results/locomo-gemma/headroom-30q/``.

    MEMDESK_EMBEDDER=embeddinggemma python bench/experiments/headroom_lab.py RUN [RUN...] --conversations conv-26,conv-30 \\
        --budgets 900,1200,1500,2000 --variants base,oracle,timeline,prf0.3@5,sess0.2 --diagnose

Variants (comma-separated; ``+`` combines them):

* ``base``: the product's packing;
* ``oracle``: the candidates holding a gold turn first, in rank order, then the rest (an upper bound for any re-ranking
  of these candidates at this budget; it reads the benchmark's gold turns);
* ``oracle@<n>``: the same within the first ``n`` candidates only (what a re-ranker of the top ``n`` could reach);
* ``timeline``: one timeline of anchor groups, no memory-type headers (``packing_lab.py``'s layout);
* ``prf<b>@<m>``: pseudo-relevance feedback (Rocchio): the question's vector plus ``b`` times the mean vector of the
  first ``m`` ranked records, renormalized, ranked again (BM25 and bonuses unchanged);
* ``qp<name>``: the question embedded with another of EmbeddingGemma's task prompts (:data:`QUERY_PROMPTS`: ``qa``,
  ``fact``, ``sim``) in place of the embedder's query prefix; ``qp<name>mix``: that vector and the question's own
  (the embedder's prefix) averaged;
* ``mmr<f>``: maximal marginal relevance over the first 150: a record loses ``f`` times its highest cosine with a
  record packed before it (beside the redundancy penalty);
* ``sess<x>``: a record loses ``x`` (standard deviations) per record already packed from its session (at most 3),
  spreading the block over sessions (multi-hop evidence lies in several);
* ``nb<t>``: neighbour turns: after packing into ``budget - t`` tokens, the candidates holding a turn next to a packed
  record's turn are offered, in rank order, with the remaining ``t`` tokens.

Each row after the first also counts the questions whose recall went up / down against the first variant (paired).
``--diagnose`` sorts the missed gold turns at 900 into *absent* (no record of the scope holds the turn), *not
ranked* (not among the 300 candidates) and *cut* (a candidate, not packed), and counts where the block's tokens go.
Not a product feature: the oracle and the diagnosis read the benchmark's gold turns.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for retrieval_replay
sys.path.insert(0, str(Path(__file__).resolve().parent))  # packing_lab

from packing_lab import timeline_serializer  # noqa: E402
from retrieval_replay import open_run, profile_options  # noqa: E402

from memdesk.embed.base import embed_queries  # noqa: E402
from memdesk.eval import metrics as M  # noqa: E402
from memdesk.filters import RecordFilter  # noqa: E402
from memdesk.records import MemoryType, Scope  # noqa: E402
from memdesk.retrieval.packing import BudgetPacker, is_statement  # noqa: E402
from memdesk.retrieval.redundancy import demote_repeated  # noqa: E402
from memdesk.retrieval.retrieve import Retriever  # noqa: E402
from memdesk.retrieval.serialize import Serializer  # noqa: E402

K = 300
TURN = re.compile(r"(.*D\d+):(\d+)$")


#: EmbeddingGemma's task prompts for a query (its model card), for the ``qp<name>`` variants
QUERY_PROMPTS = {
    "qa": "task: question answering | query: ", "fact": "task: fact checking | query: ",
    "sim": "task: sentence similarity | query: ",
}  # fmt: skip


def rank_run(run_dir: Path, convs: set[str] | None, variants: list[str], cache: Path) -> list[dict]:
    """Per question: the question, its ranking (K, no budget) and one ranking per re-ranking variant (``prf``,
    ``qp``), cached in ``cache`` (only what the cache lacks is computed)."""
    rows = pickle.loads(cache.read_bytes()) if cache.exists() else None
    wanted = {"base"} | {v for v in variants if v.startswith(("prf", "qp"))}
    vectors = cache.with_suffix(".vectors.pkl")
    if rows is not None and all(wanted <= set(r["rankings"]) for r in rows) and vectors.exists():
        VECTORS.update(pickle.loads(vectors.read_bytes()))
        return [r for r in rows if not convs or r["q"].conversation_id in convs]
    ds, done, store, embedder = open_run("locomo", run_dir)
    profile = profile_options(embedder.model_id)
    retriever = Retriever.fused(store, token_budget=None, K=K, calibrated=False, **profile)
    if rows is None:
        rows = [
            {"q": q, "rankings": {}, "all_turns": None} for q in ds.questions
            if q.conversation_id in done and q.retrieval_scored and q.category in ds.headline_categories
        ]  # fmt: skip
    prompted: dict[str, np.ndarray] = {}
    for v in wanted:
        if v.startswith("qp") and any(v not in r["rankings"] for r in rows):
            inner, prefix = embedder.inner, QUERY_PROMPTS[v.removeprefix("qp").removesuffix("mix")]
            before, inner.query_prefix = inner.query_prefix, prefix
            try:
                texts = [r["q"].question for r in rows]
                prompted[v] = inner.embed_query(texts)
            finally:
                inner.query_prefix = before
    try:
        for n, row in enumerate(rows):
            q = row["q"]
            scope = Scope(user_id=q.conversation_id)
            vector = embed_queries(embedder, [q.question])[0]
            search = dict(query_text=q.question, asked_at=q.question_time)
            if "base" not in row["rankings"]:
                row["rankings"]["base"] = retriever.retrieve(vector, scope, **search)
            ranking = row["rankings"]["base"]
            for v in wanted - set(row["rankings"]):
                if v.startswith("prf"):
                    beta, _, m = v.removeprefix("prf").partition("@")
                    qv = vector + float(beta) * _vectors(store, ranking[: int(m)]).mean(axis=0)
                    row["rankings"][v] = retriever.retrieve(qv / np.linalg.norm(qv), scope, **search)
                elif v.endswith("mix"):  # the two prompts' vectors averaged
                    qv = vector + prompted[v][n]
                    row["rankings"][v] = retriever.retrieve(qv / np.linalg.norm(qv), scope, **search)
                else:
                    row["rankings"][v] = retriever.retrieve(prompted[v][n], scope, **search)
        turns = {}
        for c in done:  # every turn some record of the scope holds (the index the fused path built), and its vectors
            index = retriever.indexes.get(Scope(user_id=c), tuple(MemoryType), RecordFilter(include_superseded=True), stem=True)
            turns[c] = {t for r in index.records for t in r.provenance}
            VECTORS.update({r.id: index.vectors[i] for i, r in enumerate(index.records)})
        cache.with_suffix(".vectors.pkl").write_bytes(pickle.dumps(VECTORS))
        for row in rows:
            row["all_turns"] = turns.get(row["q"].conversation_id)
    finally:
        store.close()
    cache.write_bytes(pickle.dumps(rows))
    return [r for r in rows if not convs or r["q"].conversation_id in convs]


VECTORS: dict[str, np.ndarray] = {}
"""record id -> its stored vector (every record of the runs read), for ``mmr``"""


def mmr_order(ranked, f: float, penalty: float, top: int = 150):
    """The first ``top`` of ``ranked`` greedily re-ordered by maximal marginal relevance: score, less ``penalty`` when
    the record shares a message with one already chosen (the redundancy penalty), less ``f`` times its highest cosine
    with one already chosen; then the rest as ranked."""
    head, rest = list(ranked[:top]), list(ranked[top:])
    vecs = np.stack([VECTORS[h.record.id] for h in head]) if head else np.zeros((0, 1))
    scores = np.array([h.score for h in head])
    best_sim = np.full(len(head), -1.0)
    shown: set[str] = set()
    left = list(range(len(head)))
    out = []
    while left:
        keys = [
            scores[i] - f * max(best_sim[i], 0.0)
            - (penalty if not shown.isdisjoint(head[i].record.provenance) and not is_statement(head[i].record) else 0.0)
            for i in left
        ]  # fmt: skip
        i = left.pop(int(np.argmax(keys)))
        out.append(head[i])
        shown.update(head[i].record.provenance)
        best_sim = np.maximum(best_sim, vecs @ vecs[i])
    return out + rest


def _vectors(store, hits) -> np.ndarray:
    by_type: dict = defaultdict(list)
    for i, h in enumerate(hits):
        by_type[h.memory_type].append((i, h.record.id))
    out = [None] * len(hits)
    for t, pairs in by_type.items():
        for (i, _), v in zip(pairs, store.get_vectors(t, [rid for _, rid in pairs])):
            out[i] = np.asarray(v, dtype=np.float32)
    return np.stack(out)


def session_spread(ranked, x: float):
    """``ranked`` re-ordered lazily: a record's score less ``x`` per record already yielded from its session (at most
    3), re-checked when it comes up (as :func:`demote_repeated` does for messages)."""
    import heapq

    count: Counter = Counter()
    heap: list = []
    seq = 0

    def key(h):
        s = (h.record.metadata or {}).get("session")
        return h.score - x * min(count[s], 3) if s else h.score, count[s] if s else 0

    def release(bound):
        nonlocal seq
        while heap and -heap[0][0] >= bound:
            _, _, was, h = heapq.heappop(heap)
            now, n = key(h)
            if n != was:
                seq += 1
                heapq.heappush(heap, (-now, seq, n, h))
                continue
            count[(h.record.metadata or {}).get("session")] += 1
            yield h

    for h in ranked:
        yield from release(h.score)
        k, n = key(h)
        seq += 1
        heapq.heappush(heap, (-k, seq, n, h))
    yield from release(float("-inf"))


def neighbours(turn: str) -> set[str]:
    m = TURN.match(turn)
    return {f"{m.group(1)}:{int(m.group(2)) + d}" for d in (-1, 1)} if m else set()


_PACKERS: dict = {}


def packer_for(layout: str, budget: int) -> BudgetPacker:
    """One packer per layout and budget, kept (its line and token caches are what make packing fast)."""
    if layout not in _PACKERS:
        _PACKERS[layout] = {"ser": timeline_serializer(True) if layout == "timeline" else Serializer(group_by_anchor=True)}
    by = _PACKERS[layout]
    if budget not in by:
        by[budget] = BudgetPacker(by["ser"], budget, max_records=100)
        shared = next((p for b, p in by.items() if b != "ser" and p is not by[budget]), None)
        if shared is not None:
            by[budget]._tokens, by[budget]._layouts = shared._tokens, shared._layouts
    return by[budget]


def packed(row, variant: str, budget: int, penalty: float) -> tuple[list, Serializer]:
    """The hits ``variant`` packs into ``budget`` tokens for one question, and the serializer that writes them."""
    parts = variant.split("+")
    layout = "timeline" if "timeline" in parts else "typed"
    ranking = next((row["rankings"][p] for p in parts if p.startswith(("prf", "qp"))), row["rankings"]["base"])
    gold = set(row["q"].evidence_ids)
    groups = [ranking]
    oracle = next((p for p in parts if p.startswith("oracle")), None)
    if oracle:  # each group re-ordered on its own: the redundancy penalty must not mix them again
        top = int(oracle.partition("@")[2] or len(ranking))
        head, tail = ranking[:top], ranking[top:]
        groups = [[h for h in head if gold & set(h.record.provenance)], [h for h in head if not gold & set(h.record.provenance)] + tail]
    mmr = next((float(p.removeprefix("mmr")) for p in parts if p.startswith("mmr")), None)
    if mmr is not None:
        order = iter(mmr_order(ranking, mmr, penalty))
    else:
        order = itertools.chain.from_iterable(demote_repeated(g, penalty) if penalty > 0 else g for g in groups)
    for p in parts:
        if p.startswith("sess"):
            order = session_spread(order, float(p.removeprefix("sess")))
    reserve = next((int(p.removeprefix("nb")) for p in parts if p.startswith("nb")), 0)
    packer = packer_for(layout, budget - reserve)
    ser = packer.serializer
    order = list(order)
    out = packer.pack(order)
    if reserve:
        held = {t for h in out for t in h.record.provenance}
        near = set().union(*(neighbours(t) for t in held)) - held
        taken = {h.record.id for h in out}
        extra = [h for h in order if h.record.id not in taken and near & set(h.record.provenance)]
        out = packer_for(layout, budget).pack(out + extra)  # what was packed first, then the neighbours' records
    return out, ser


def accounting(blocks: list[tuple[list, Serializer]]) -> dict:
    """Where the block's tokens go: type headers, anchor lines, labels, speaker prefixes, lines sharing a turn."""
    tc = blocks[0][1].token_counter
    tot: Counter = Counter()
    for hits, ser in blocks:
        ev = ser.serialize(hits)
        tot["blocks"] += 1
        tot["tokens"] += ev.tokens
        lines = ev.text.split("\n")
        tot["lines"] += len(lines)
        for ln in lines:
            if ln in Serializer.HEADERS.values():
                tot["type_headers"] += tc.count(ln) + 1
            elif ln.startswith("["):
                tot["anchor_lines"] += tc.count(ln) + 1
                tot["anchors"] += 1
            elif ln.startswith("- ("):
                tot["labels"] += tc.count(ln[2 : ln.index(")") + 2])
        seen: set[str] = set()
        for h in hits:
            line = f"- {ser.text(h)}"
            if line not in ev.text:
                tot["folded_records"] += 1
                continue
            tot["records_shown"] += 1
            n = tc.count(line) + 1
            view = f"{h.record.type}/{(h.record.metadata or {}).get('view')}"
            tot[f"view:{view}"] += n
            tot[f"n:{view}"] += 1
            if seen & set(h.record.provenance) and not is_statement(h.record):
                tot["lines_sharing_a_turn"] += n
            seen.update(h.record.provenance)
            r = h.record
            if r.speaker and r.speaker not in r.text() and r.speaker != r.role:
                tot["speaker_prefixes"] += tc.count(f"{r.speaker}: ")
    return dict(tot)


def measure(rows, variant: str, budgets: list[int], penalty: float, diagnose: bool) -> dict:
    out = {}
    for budget in budgets:
        rec, p1, rr, toks = [], [], [], []
        cat: dict = defaultdict(list)
        conv: dict = defaultdict(list)
        why: Counter = Counter()
        blocks = []
        per_q: list[float] = []
        for row in rows:
            q = row["q"]
            hits, ser = packed(row, variant, budget, penalty)
            prov = [list(h.record.provenance) for h in hits]
            r = M.evidence_recall(q.evidence_ids, prov)
            if r is None:
                continue
            rec.append(r)
            per_q.append(r)
            cat[q.category].append(r)
            conv[q.conversation_id].append(r)
            p1.append(M.precision_at_1(q.evidence_ids, prov) or 0.0)
            rr.append(M.reciprocal_rank(q.evidence_ids, prov, 10) or 0.0)
            toks.append(ser.serialize(hits).tokens)
            if diagnose and budget == 900:
                blocks.append((hits, ser))
                held = {t for p in prov for t in p}
                ranked = row["rankings"]["base"]
                for g in q.evidence_ids:
                    if g in held:
                        continue
                    at = next((i for i, h in enumerate(ranked) if g in h.record.provenance), None)
                    if row["all_turns"] is not None and g not in row["all_turns"]:
                        why["absent"] += 1
                    elif at is None:
                        why["not ranked (K=300)"] += 1
                    else:
                        why["cut, rank <50" if at < 50 else "cut, rank 50-99" if at < 100 else "cut, rank >=100"] += 1
                    why["next to a held turn"] += bool(neighbours(g) & held)
        out[budget] = {
            "n": len(rec), "recall": round(statistics.fmean(rec), 4), "p@1": round(statistics.fmean(p1), 4),
            "mrr@10": round(statistics.fmean(rr), 4), "median_tokens": statistics.median(toks),
            "by_category": {c: round(statistics.fmean(v), 4) for c, v in sorted(cat.items())},
            "by_conversation": {c: round(statistics.fmean(v), 4) for c, v in sorted(conv.items())},
        }  # fmt: skip
        out[budget]["_per_question"] = per_q
        if blocks:
            out[budget]["missed_gold_turns"] = dict(why)
            out[budget]["tokens"] = accounting(blocks)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", type=Path, nargs="+")
    ap.add_argument("--conversations", default="")
    ap.add_argument("--budgets", default="900")
    ap.add_argument("--variants", default="base")
    ap.add_argument("--diagnose", action="store_true")
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp"))
    ap.add_argument("--tag", default="", help="a label written into each output row")
    args = ap.parse_args()
    convs = set(filter(None, args.conversations.split(","))) or None
    variants = args.variants.split(",")
    parts = sorted({p for v in variants for p in v.split("+")})
    rows = []
    penalty = None
    for run in args.runs:
        cache = args.cache_dir / f"headroom-{run.name}.pkl"
        rows += rank_run(run, convs, parts, cache)
        if penalty is None:
            _, _, store, embedder = open_run("locomo", run)
            store.close()
            penalty = profile_options(embedder.model_id)["redundancy_penalty"]
    budgets = [int(b) for b in args.budgets.split(",")]
    first: dict | None = None
    for v in variants:
        result = measure(rows, v, budgets, penalty, args.diagnose)
        per_q = {b: m.pop("_per_question") for b, m in result.items()}
        if first is None:
            first = per_q
        else:  # questions whose recall went up / down against the first variant (paired)
            for b, m in result.items():
                if b in first:
                    m["vs_first"] = {"up": sum(x > y for x, y in zip(per_q[b], first[b])), "down": sum(x < y for x, y in zip(per_q[b], first[b]))}
        print(json.dumps({"tag": args.tag, "variant": v, "penalty": penalty, "budgets": result}), flush=True)


if __name__ == "__main__":
    main()
